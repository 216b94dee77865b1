//===- FoldAttentionTransposes.cpp - attention operands as transposed views
//===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-fold-attention-transposes: after bufferization, a transposing copy into
// a fresh buffer that only te.attention_buffers / te.attention_grad_buffers
// read becomes a transposed view of the copy's source, and a fresh output
// buffer that only a transposing copy reads is replaced by a transposed view
// of the copy's destination (Passes.td says when and why).
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "te/Dialect/TE/IR/TEOps.h"

namespace mlir::te {
#define GEN_PASS_DEF_TEFOLDATTENTIONTRANSPOSES
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

bool isAttention(Operation *op) {
  return isa<AttentionBuffersOp, AttentionGradBuffersOp>(op);
}

/// A `linalg.generic` (or `linalg.transpose`) on memrefs that copies its one
/// input into its one init with permuted indices and nothing else, the last
/// dimension staying last on both sides (so that a view of either side has
/// a contiguous last dimension, which the attention descriptors need).
struct PermutedCopy {
  linalg::LinalgOp op;
  Value src, dst;
  /// dst[o(i)] = src[s(i)] over the loops i.
  AffineMap srcMap, dstMap;
};

std::optional<PermutedCopy> asPermutedCopy(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
      linalgOp.getNumDpsInputs() != 1 || linalgOp.getNumDpsInits() != 1 ||
      linalgOp.getNumLoops() != linalgOp.getNumParallelLoops())
    return std::nullopt;
  Block *body = linalgOp.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != body->getArgument(0) ||
      !llvm::hasSingleElement(body->getOperations()))
    return std::nullopt;
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  if (!maps[0].isPermutation() || !maps[1].isPermutation())
    return std::nullopt;
  unsigned n = linalgOp.getNumLoops();
  if (n < 2 || maps[0].getDimPosition(n - 1) != maps[1].getDimPosition(n - 1))
    return std::nullopt;
  Value src = linalgOp.getDpsInputs()[0];
  Value dst = linalgOp.getDpsInits()[0];
  auto srcType = dyn_cast<MemRefType>(src.getType());
  auto dstType = dyn_cast<MemRefType>(dst.getType());
  if (!srcType || !dstType ||
      srcType.getElementType() != dstType.getElementType())
    return std::nullopt;
  return PermutedCopy{linalgOp, src, dst, maps[0], maps[1]};
}

/// A view of `v` (rank n) through which index t reads v[g(t)], g a
/// permutation of the dimensions: memref.transpose's map is the inverse of
/// g (its result dimension k is v's dimension at position k of the map).
Value permutedView(OpBuilder &b, Location loc, Value v, AffineMap g) {
  AffineMap map = inversePermutation(g);
  if (map.isIdentity())
    return v;
  return memref::TransposeOp::create(b, loc, v, AffineMapAttr::get(map))
      .getResult();
}

/// Whether an op strictly between `from` and `to` (same block) may write
/// memory that aliases `v`.
bool writtenBetween(Operation *from, Operation *to, Value v,
                    AliasAnalysis &aliases) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode()) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      if (op->getNumRegions() != 0 || !isPure(op))
        return true;
      continue;
    }
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &e : list) {
      if (!isa<MemoryEffects::Write>(e.getEffect()))
        continue;
      Value written = e.getValue();
      if (!written || !aliases.alias(written, v).isNo())
        return true;
    }
  }
  return false;
}

/// Whether every op strictly between `from` and `to` (same block) neither
/// reads nor writes memory through a value that may alias `v`.
bool touchedBetween(Operation *from, Operation *to, Value v,
                    AliasAnalysis &aliases) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode()) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      if (op->getNumRegions() != 0 || !isPure(op))
        return true;
      continue;
    }
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &e : list) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Read>(e.getEffect()))
        continue;
      Value touched = e.getValue();
      if (!touched || !aliases.alias(touched, v).isNo())
        return true;
    }
  }
  return false;
}

class TEFoldAttentionTransposesPass
    : public mlir::te::impl::TEFoldAttentionTransposesBase<
          TEFoldAttentionTransposesPass> {
public:
  using TEFoldAttentionTransposesBase::TEFoldAttentionTransposesBase;

  void runOnOperation() override {
    SmallVector<Operation *> copies;
    getOperation()->walk([&](Operation *op) {
      if (asPermutedCopy(op))
        copies.push_back(op);
    });
    if (copies.empty())
      return markAllAnalysesPreserved();
    AliasAnalysis &aliases = getAnalysis<AliasAnalysis>();
    for (Operation *op : copies) {
      PermutedCopy c = *asPermutedCopy(op);
      if (foldInput(c, aliases)) {
        ++numInputs;
        continue;
      }
      if (foldOutput(c, aliases))
        ++numOutputs;
    }
  }

private:
  /// dst = permuted copy of src, dst a fresh buffer read only by attention
  /// ops as operands they read, after the copy in its block, with src not
  /// written in between: the attention ops read a view of src instead.
  bool foldInput(PermutedCopy &c, AliasAnalysis &aliases) {
    auto alloc = c.dst.getDefiningOp<memref::AllocOp>();
    Operation *copy = c.op;
    if (!alloc || alloc->getBlock() != copy->getBlock())
      return false;
    Operation *last = nullptr;
    for (OpOperand &use : alloc->getUses()) {
      Operation *user = use.getOwner();
      if (user == copy)
        continue;
      if (!isAttention(user) || user->getBlock() != copy->getBlock() ||
          !copy->isBeforeInBlock(user))
        return false;
      auto dps = cast<DestinationStyleOpInterface>(user);
      if (dps.isDpsInit(&use))
        return false;
      if (!last || last->isBeforeInBlock(user))
        last = user;
    }
    if (!last || writtenBetween(copy, last, c.src, aliases))
      return false;
    // dst[o(i)] = src[s(i)]: dst index t reads src[s(o^-1(t))].
    OpBuilder b(copy);
    Value view = permutedView(b, copy->getLoc(), c.src,
                              c.srcMap.compose(inversePermutation(c.dstMap)));
    if (view.getType() != c.dst.getType() && !isa<MemRefType>(view.getType()))
      return false;
    alloc.getResult().replaceUsesWithIf(
        view, [&](OpOperand &use) { return use.getOwner() != copy; });
    copy->erase();
    alloc->erase();
    return true;
  }

  /// src a fresh buffer written by one attention op and then only read by
  /// the permuted copy into dst, dst a fresh buffer that nothing touches
  /// before the copy: the attention op writes a view of dst instead.
  bool foldOutput(PermutedCopy &c, AliasAnalysis &aliases) {
    auto srcAlloc = c.src.getDefiningOp<memref::AllocOp>();
    auto dstAlloc = c.dst.getDefiningOp<memref::AllocOp>();
    Operation *copy = c.op;
    if (!srcAlloc || !dstAlloc || srcAlloc->getBlock() != copy->getBlock() ||
        dstAlloc->getBlock() != copy->getBlock())
      return false;
    Operation *writer = nullptr;
    for (OpOperand &use : srcAlloc->getUses()) {
      Operation *user = use.getOwner();
      if (user == copy)
        continue;
      if (writer || !isAttention(user) ||
          !cast<DestinationStyleOpInterface>(user).isDpsInit(&use))
        return false;
      writer = user;
    }
    if (!writer || writer->getBlock() != copy->getBlock() ||
        !writer->isBeforeInBlock(copy))
      return false;
    // dst's only users: the copy, and ops after it.
    for (Operation *user : dstAlloc->getUsers())
      if (user != copy && (user->getBlock() != copy->getBlock() ||
                           !copy->isBeforeInBlock(user)))
        return false;
    // dst's allocation moves before the writer: its sizes must be there.
    DominanceInfo dominance(writer->getParentOp());
    for (Value size : dstAlloc->getOperands())
      if (!dominance.properlyDominates(size, writer))
        return false;
    if (touchedBetween(writer, copy, c.dst, aliases))
      return false;
    dstAlloc->moveBefore(writer);
    // dst[o(i)] = src[s(i)]: src index t is dst[o(s^-1(t))].
    OpBuilder b(writer);
    Value view = permutedView(b, writer->getLoc(), c.dst,
                              c.dstMap.compose(inversePermutation(c.srcMap)));
    srcAlloc.getResult().replaceUsesWithIf(
        view, [&](OpOperand &use) { return use.getOwner() == writer; });
    copy->erase();
    srcAlloc->erase();
    return true;
  }
};

} // namespace
