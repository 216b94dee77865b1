//===- RaiseAttention.cpp - softmax(scale Q K^T + mask) V -> te.attention -===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-raise-attention: a batched product of a softmax's result with V, the
// softmax over the last dimension of a batched product of Q and K (scaled by
// a constant, plus a mask), becomes te.attention. The softmax and the score
// expression are matched on the expression trees of AttentionMatch.h, so
// that one matcher sees the same computation whether it is written as one
// linalg op per step (Torch-MLIR), fused into fewer generics, or as named
// ops. The products are matched by their indexing maps (linalg's contraction
// interface).
//
//===----------------------------------------------------------------------===//

#include "AttentionMatch.h"

#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <functional>

#define DEBUG_TYPE "te-raise-attention"

namespace mlir::te {
#define GEN_PASS_DEF_TERAISEATTENTION
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;
using namespace mlir::te::attention;

namespace {

std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

//===----------------------------------------------------------------------===//
// Batched products
//===----------------------------------------------------------------------===//

/// A contraction `out[b..., m, n] = sum_k lhs[b..., m, k] * rhs[b..., k, n]`
/// (or `rhs[b..., n, k]`: `rhsTransposed`) with one or more batch loops, into
/// a zero-filled output.
struct Product {
  linalg::LinalgOp op;
  Value lhs, rhs;
  bool rhsTransposed = false;
  int64_t rank = 0;
};

/// Whether `v` is all zeros: a splat constant or a linalg.fill of 0.
bool isZero(Value v) {
  while (auto cast = v.getDefiningOp<tensor::CastOp>())
    v = cast.getSource();
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    v = fill.getInputs()[0];
  std::optional<Attribute> c = constantOf(v);
  if (!c)
    return false;
  if (auto f = dyn_cast<FloatAttr>(*c))
    return f.getValue().isZero();
  if (auto i = dyn_cast<IntegerAttr>(*c))
    return i.getValue().isZero();
  return false;
}

/// Whether `map`'s results are exactly the dimensions `dims`, in order.
bool resultsAre(AffineMap map, ArrayRef<unsigned> dims) {
  if (map.getNumResults() != dims.size())
    return false;
  for (auto [e, d] : llvm::zip(map.getResults(), dims)) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || dim.getPosition() != d)
      return false;
  }
  return true;
}

/// The batched product `op` computes, if it is one; `why` says what is off
/// when it is a contraction with batch loops that does not fit.
std::optional<Product> matchProduct(Operation *operation, std::string *why) {
  auto op = dyn_cast_or_null<linalg::LinalgOp>(operation);
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->batch.empty())
    return std::nullopt;
  auto fail = [&](const Twine &msg) -> std::optional<Product> {
    if (why)
      *why = msg.str();
    return std::nullopt;
  };
  if (dims->m.size() != 1 || dims->n.size() != 1 || dims->k.size() != 1)
    return fail("the product has more than one row, column or contracted "
                "loop");
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap out = maps[2];
  if (out.getNumResults() != dims->batch.size() + 2)
    return fail("the product's output is not [batch..., rows, columns]");
  SmallVector<unsigned> batch;
  for (unsigned i = 0; i < dims->batch.size(); ++i) {
    auto d = dyn_cast<AffineDimExpr>(out.getResult(i));
    if (!d)
      return fail("the product's output is not [batch..., rows, columns]");
    batch.push_back(d.getPosition());
  }
  unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
  auto with = [&](std::initializer_list<unsigned> tail) {
    SmallVector<unsigned> r(batch);
    r.append(tail);
    return r;
  };
  if (!resultsAre(out, with({m, n})))
    return fail("the product's output is not [batch..., rows, columns]");
  if (!resultsAre(maps[0], with({m, k})))
    return fail("the product's left operand is not [batch..., rows, "
                "contracted]");
  Product p;
  p.op = op;
  p.lhs = op.getDpsInputs()[0];
  p.rhs = op.getDpsInputs()[1];
  p.rank = static_cast<int64_t>(batch.size()) + 2;
  if (resultsAre(maps[1], with({n, k})))
    p.rhsTransposed = true;
  else if (!resultsAre(maps[1], with({k, n})))
    return fail("the product's right operand is not [batch..., contracted, "
                "columns] or its transpose");
  if (!isZero(op.getDpsInits()[0]))
    return fail("the product accumulates into a tensor that is not zero");
  return p;
}

//===----------------------------------------------------------------------===//
// Reshapes and transposes around the products
//===----------------------------------------------------------------------===//

/// Whether `re` (high rank -> low rank) merges batch dimensions only: the
/// last two dimensions are groups of their own.
bool isBatchOnly(ArrayRef<ReassociationIndices> re, int64_t highRank) {
  return re.size() >= 3 && re[re.size() - 1].size() == 1 &&
         re[re.size() - 2].size() == 1 &&
         re[re.size() - 1][0] == highRank - 1 &&
         re[re.size() - 2][0] == highRank - 2;
}

/// Whether `op` is elementwise with one input of its rank read through
/// `inputMap`, yielding a function of that input only.
linalg::LinalgOp unaryElementwise(Value v) {
  auto op = v.getDefiningOp<linalg::LinalgOp>();
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !op.getIndexingMapsArray()[1].isIdentity() ||
      op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)) ||
      !isa<ShapedType>(op.getDpsInputs()[0].getType()))
    return nullptr;
  return op;
}

/// The input of a float cast applied elementwise (`arith.extf` /
/// `arith.truncf` as an identity-mapped linalg op), if `v` is one.
Value throughCast(Value v) {
  linalg::LinalgOp op = unaryElementwise(v);
  if (!op || !op.getIndexingMapsArray()[0].isIdentity())
    return nullptr;
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  Operation *def = yield.getOperand(0).getDefiningOp();
  if (!def || !isa<arith::ExtFOp, arith::TruncFOp>(def) ||
      def->getOperand(0) != op.getBlock()->getArgument(0))
    return nullptr;
  return op.getDpsInputs()[0];
}

/// The tensor `v` transposes in its last two dimensions, if it is such a
/// transpose.
Value throughLastTwoTranspose(Value v) {
  linalg::LinalgOp op = unaryElementwise(v);
  if (!op)
    return nullptr;
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  if (yield.getOperand(0) != op.getBlock()->getArgument(0))
    return nullptr;
  AffineMap in = op.getIndexingMapsArray()[0];
  unsigned n = op.getNumLoops();
  if (n < 2 || in.getNumResults() != n)
    return nullptr;
  SmallVector<unsigned> perm;
  for (unsigned i = 0; i < n; ++i)
    perm.push_back(i);
  std::swap(perm[n - 1], perm[n - 2]);
  return resultsAre(in, perm) ? op.getDpsInputs()[0] : Value();
}

/// `v` transposed in its last two dimensions: the tensor a transpose read,
/// or a new linalg.transpose. A `linalg.transpose` producing `v` (also
/// through a collapse of batch dimensions only, which commutes with it) is
/// composed with the swap rather than transposed again: K written as
/// collapse(transpose(k, [0, 2, 3, 1])), as the inliner's canonicalization
/// leaves a [B, S, H, D] -> [B, H, D, S] head split, becomes
/// collapse(transpose(k, [0, 2, 1, 3])), one copy instead of two.
Value transposeLastTwo(OpBuilder &b, Location loc, Value v) {
  if (Value src = throughLastTwoTranspose(v))
    return src;
  auto swapLastTwo = [](SmallVector<int64_t> perm) {
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    return perm;
  };
  auto newTranspose = [&](Value src, ArrayRef<int64_t> perm) -> Value {
    if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      return src;
    SmallVector<OpFoldResult> srcSizes = tensor::getMixedSizes(b, loc, src);
    SmallVector<OpFoldResult> sizes;
    for (int64_t p : perm)
      sizes.push_back(srcSizes[p]);
    Value init = tensor::EmptyOp::create(
                     b, loc, sizes,
                     cast<RankedTensorType>(src.getType()).getElementType())
                     .getResult();
    return linalg::TransposeOp::create(b, loc, src, init, perm).getResult()[0];
  };
  if (auto t = v.getDefiningOp<linalg::TransposeOp>())
    return newTranspose(t.getInput(),
                        swapLastTwo(llvm::to_vector(t.getPermutation())));
  if (auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>()) {
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    if (isBatchOnly(groups, collapse.getSrcType().getRank())) {
      Value src = throughLastTwoTranspose(collapse.getSrc());
      if (!src)
        if (auto t = collapse.getSrc().getDefiningOp<linalg::TransposeOp>())
          src = newTranspose(t.getInput(),
                             swapLastTwo(llvm::to_vector(t.getPermutation())));
      if (src)
        return tensor::CollapseShapeOp::create(b, loc, src, groups).getResult();
    }
  }
  auto type = cast<RankedTensorType>(v.getType());
  int64_t n = type.getRank();
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < n; ++i)
    perm.push_back(i);
  std::swap(perm[n - 1], perm[n - 2]);
  return newTranspose(v, perm);
}

/// A grouped-query repeat of `src` by `count` along the heads, and the
/// collapse that gives the unrepeated tensor the repeated one's rank (none:
/// `src` has it).
struct Repeat {
  Value src;
  SmallVector<ReassociationIndices> groups;
  int64_t count = 1;

  Value build(OpBuilder &b, Location loc) const {
    if (groups.empty())
      return src;
    return tensor::CollapseShapeOp::create(b, loc, src, groups).getResult();
  }
};

/// `v` as a collapse (of collapses) of a broadcast along one dimension that
/// the collapse folds into the dimension before it as the faster index
/// (`repeat_interleave`), if it is one.
std::optional<Repeat> matchRepeat(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < type.getRank(); ++i)
    groups.push_back({i});
  Value cur = v;
  while (auto collapse = cur.getDefiningOp<tensor::CollapseShapeOp>()) {
    SmallVector<ReassociationIndices> re = collapse.getReassociationIndices();
    SmallVector<ReassociationIndices> next;
    for (ReassociationIndices &g : groups) {
      ReassociationIndices merged;
      for (int64_t d : g)
        merged.append(re[d].begin(), re[d].end());
      next.push_back(merged);
    }
    groups = next;
    cur = collapse.getSrc();
  }
  linalg::LinalgOp bcast = unaryElementwise(cur);
  if (!bcast || cur == v)
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(bcast.getBlock()->getTerminator());
  if (yield.getOperand(0) != bcast.getBlock()->getArgument(0))
    return std::nullopt;
  AffineMap in = bcast.getIndexingMapsArray()[0];
  Value src = bcast.getDpsInputs()[0];
  auto srcType = cast<RankedTensorType>(src.getType());
  auto curType = cast<RankedTensorType>(cur.getType());
  int64_t n = curType.getRank();
  // The broadcast dimension: absent from the input map, or a constant 0 of
  // a unit input dimension; every other dimension read in order.
  int64_t bd = -1;
  bool unitKept = srcType.getRank() == n;
  if (!unitKept && srcType.getRank() != n - 1)
    return std::nullopt;
  for (int64_t d = 0, r = 0; d < n; ++d) {
    if (unitKept) {
      AffineExpr e = in.getResult(d);
      if (auto dim = dyn_cast<AffineDimExpr>(e); dim && dim.getPosition() == d)
        continue;
      auto c = dyn_cast<AffineConstantExpr>(e);
      if (!c || c.getValue() != 0 || srcType.getDimSize(d) != 1 || bd >= 0)
        return std::nullopt;
      bd = d;
      continue;
    }
    if (r < static_cast<int64_t>(in.getNumResults())) {
      if (auto dim = dyn_cast<AffineDimExpr>(in.getResult(r));
          dim && dim.getPosition() == d) {
        ++r;
        continue;
      }
    }
    if (bd >= 0)
      return std::nullopt;
    bd = d;
  }
  if (bd < 0 || ShapedType::isDynamic(curType.getDimSize(bd)) ||
      curType.getDimSize(bd) < 2)
    return std::nullopt;
  Repeat rep;
  rep.src = src;
  rep.count = curType.getDimSize(bd);
  bool found = false;
  for (ReassociationIndices &group : groups) {
    ReassociationIndices s;
    for (int64_t d : group) {
      if (d == bd) {
        if (group.front() == bd || group.back() != bd)
          return std::nullopt;
        found = true;
        if (!unitKept)
          continue;
      }
      s.push_back(!unitKept && d > bd ? d - 1 : d);
    }
    rep.groups.push_back(s);
  }
  if (!found)
    return std::nullopt;
  if (llvm::all_of(rep.groups,
                   [](const ReassociationIndices &s) { return s.size() == 1; }))
    rep.groups.clear();
  return rep;
}

/// Whether every use of `v` is `target`, directly or through reshapes and
/// transposes that feed only it.
bool feedsOnly(Value v, Operation *target) {
  for (Operation *user : v.getUsers()) {
    if (user == target)
      continue;
    if (user->getNumResults() == 1 &&
        (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user) ||
         throughLastTwoTranspose(user->getResult(0)))) {
      if (!feedsOnly(user->getResult(0), target))
        return false;
      continue;
    }
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// The value before batch-merging reshapes and float casts (`reassoc`: the
/// reshape's groups, high rank to low rank), from the low-rank side.
Value throughBatchCollapse(
    Value v, std::optional<SmallVector<ReassociationIndices>> &reassoc) {
  while (true) {
    if (Value in = throughCast(v)) {
      v = in;
      continue;
    }
    auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>();
    if (!reassoc && collapse &&
        isBatchOnly(collapse.getReassociationIndices(),
                    collapse.getSrcType().getRank())) {
      reassoc = collapse.getReassociationIndices();
      v = collapse.getSrc();
      continue;
    }
    return v;
  }
}

/// The same from the high-rank side (an expand_shape of the product).
Value throughBatchExpand(
    Value v, std::optional<SmallVector<ReassociationIndices>> &reassoc) {
  while (true) {
    if (Value in = throughCast(v)) {
      v = in;
      continue;
    }
    auto expand = v.getDefiningOp<tensor::ExpandShapeOp>();
    if (!reassoc && expand &&
        isBatchOnly(expand.getReassociationIndices(),
                    expand.getResultType().getRank())) {
      reassoc = expand.getReassociationIndices();
      v = expand.getSrc();
      continue;
    }
    return v;
  }
}

/// How a mask tensor becomes te.attention's operand: the tensor dimensions
/// kept (the others are broadcast units) and the space dimension of each.
struct MaskLayout {
  SmallVector<int64_t> keptDims, spaceDims;
  bool aligned = false;
};

FailureOr<MaskLayout> maskLayout(const TensorMask &m, int64_t rank,
                                 std::string &why) {
  auto type = cast<RankedTensorType>(m.tensor.getType());
  MaskLayout l;
  l.aligned = type.getRank() == rank;
  for (auto [r, e] : llvm::enumerate(m.map.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (!l.spaceDims.empty() && d.getPosition() <= l.spaceDims.back()) {
        why = "the mask tensor is read transposed";
        return failure();
      }
      l.keptDims.push_back(r);
      l.spaceDims.push_back(d.getPosition());
      l.aligned &= d.getPosition() == r;
      continue;
    }
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!c || c.getValue() != 0 || type.getDimSize(r) != 1) {
      why = "the mask tensor is not read as a broadcast of its dimensions";
      return failure();
    }
  }
  if (l.spaceDims.empty() || l.spaceDims.back() != rank - 1) {
    why = "the mask does not vary along the key dimension";
    return failure();
  }
  return l;
}

/// `mask` (i1) negated elementwise.
Value negate(OpBuilder &b, Location loc, Value mask) {
  auto type = cast<RankedTensorType>(mask.getType());
  Value init =
      tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, mask),
                              type.getElementType())
          .getResult();
  AffineMap id =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, mask, init, ArrayRef<AffineMap>{id, id}, iterators,
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               Value one = arith::ConstantIntOp::create(nb, nloc, 1, 1);
               Value r = arith::XOrIOp::create(nb, nloc, args[0], one);
               linalg::YieldOp::create(nb, nloc, r);
             })
      .getResult(0);
}

/// The mask operand: `m`'s tensor reshaped to the space's rank with unit
/// dimensions where it is broadcast (a boolean mask that is true where
/// keys are masked out negated).
Value buildMask(OpBuilder &b, Location loc, const TensorMask &m,
                const MaskLayout &l, int64_t rank) {
  if (m.negated) {
    TensorMask kept = m;
    kept.negated = false;
    kept.tensor = negate(b, loc, m.tensor);
    return buildMask(b, loc, kept, l, rank);
  }
  if (l.aligned)
    return m.tensor;
  auto type = cast<RankedTensorType>(m.tensor.getType());
  Value cur = m.tensor;
  if (l.keptDims.size() != static_cast<size_t>(type.getRank())) {
    SmallVector<ReassociationIndices> groups;
    ReassociationIndices pending;
    size_t next = 0;
    for (int64_t r = 0; r < type.getRank(); ++r) {
      pending.push_back(r);
      if (next < l.keptDims.size() && l.keptDims[next] == r) {
        groups.push_back(pending);
        pending.clear();
        ++next;
      }
    }
    groups.back().append(pending.begin(), pending.end());
    cur = tensor::CollapseShapeOp::create(b, loc, cur, groups).getResult();
  }
  auto curType = cast<RankedTensorType>(cur.getType());
  if (curType.getRank() == rank)
    return cur;
  SmallVector<int64_t> shape(rank, 1);
  SmallVector<ReassociationIndices> groups;
  int64_t from = 0;
  for (auto [i, d] : llvm::enumerate(l.spaceDims)) {
    shape[d] = curType.getDimSize(i);
    ReassociationIndices g;
    for (int64_t t = from; t <= d; ++t)
      g.push_back(t);
    groups.push_back(g);
    from = d + 1;
  }
  return tensor::ExpandShapeOp::create(
             b, loc, RankedTensorType::get(shape, curType.getElementType()),
             cur, groups)
      .getResult();
}

/// `collapse`'s source collapsed to `shape` only (its groups split so that
/// a further collapse by `outer` gives `collapse`'s result), if the sizes
/// say how.
std::optional<SmallVector<ReassociationIndices>>
splitCollapse(tensor::CollapseShapeOp collapse, ArrayRef<int64_t> shape,
              ArrayRef<ReassociationIndices> outer) {
  SmallVector<ReassociationIndices> re = collapse.getReassociationIndices();
  ArrayRef<int64_t> src = collapse.getSrcType().getShape();
  if (re.size() != outer.size())
    return std::nullopt;
  SmallVector<ReassociationIndices> result;
  for (auto [g, o] : llvm::zip(re, outer)) {
    size_t at = 0;
    for (int64_t t : o) {
      ReassociationIndices part;
      int64_t size = 1;
      bool dynamic = false;
      while (at < g.size()) {
        int64_t s = src[g[at]];
        if (!part.empty() && !dynamic &&
            (ShapedType::isDynamic(shape[t]) || size == shape[t]))
          break;
        part.push_back(g[at++]);
        if (ShapedType::isDynamic(s))
          dynamic = true;
        else
          size *= s;
      }
      if (part.empty() || (dynamic != ShapedType::isDynamic(shape[t])) ||
          (!dynamic && size != shape[t]))
        return std::nullopt;
      result.push_back(part);
    }
    if (at != g.size())
      return std::nullopt;
  }
  return result;
}

struct RaiseAttention
    : public mlir::te::impl::TERaiseAttentionBase<RaiseAttention> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (matchProduct(op, nullptr))
        candidates.push_back(op);
    });
    for (Operation *op : candidates) {
      if (erased.contains(op))
        continue;
      std::string why;
      Match m = raise(op, why);
      if (m == Match::NearMiss) {
        ++numNearMisses;
        if (remarks)
          emitRemark(op->getLoc())
              << "te-raise-attention: not raised to te.attention: " << why;
      }
    }
  }

private:
  DenseSet<Operation *> erased;

  /// Erases the ops of `worklist` that are dead, and what becomes dead.
  void eraseDead(SmallVector<Operation *> worklist) {
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (erased.contains(op) || !isOpTriviallyDead(op))
        continue;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          worklist.push_back(def);
      erased.insert(op);
      op->erase();
    }
  }

  Match raise(Operation *pvOp, std::string &why) {
    Product pv = *matchProduct(pvOp, nullptr);
    std::optional<SmallVector<ReassociationIndices>> pReassoc, sReassoc;
    Value probs = throughBatchCollapse(pv.lhs, pReassoc);
    auto probsType = dyn_cast<RankedTensorType>(probs.getType());
    if (!probsType)
      return Match::No;
    int64_t rank = probsType.getRank();
    MLIRContext *ctx = pvOp->getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);

    NodeRef x;
    Match sm = matchSoftmax(buildTree(probs, id), rank, x, why);
    if (sm != Match::Yes)
      return sm;

    // The scores: a product, through casts and a batch expand_shape.
    Operation *qkOp = nullptr;
    auto isScores = [&](const NodeRef &n) {
      if (!n->isLeaf() || n->map != id)
        return false;
      std::optional<SmallVector<ReassociationIndices>> re;
      Value v = throughBatchExpand(n->tensor, re);
      Operation *def = v.getDefiningOp();
      if (!def || def == pvOp || !matchProduct(def, nullptr))
        return false;
      if (qkOp && qkOp != def)
        return false;
      qkOp = def;
      sReassoc = re;
      return true;
    };
    Scores scores;
    if (failed(matchScores(x, rank, isScores, scores, why)))
      return Match::NearMiss;
    Product qk = *matchProduct(qkOp, nullptr);
    if (qk.rank != pv.rank || pReassoc != sReassoc) {
      why = "the two products do not have the same batch dimensions";
      return Match::NearMiss;
    }
    if (rank != 3 && rank != 4) {
      why = "the softmax is " + std::to_string(rank) +
            "-D; te.attention takes 3-D [N, L, E] or 4-D [B, H, L, E]";
      return Match::NearMiss;
    }

    // Nothing between the products may be read elsewhere.
    SetVector<Operation *> after;
    getForwardSlice(qkOp, &after);
    BackwardSliceOptions options;
    options.inclusive = true;
    options.omitBlockArguments = true;
    options.filter = [&](Operation *op) {
      return op == qkOp || after.contains(op);
    };
    SetVector<Operation *> chain;
    if (Operation *def = pv.lhs.getDefiningOp())
      (void)getBackwardSlice(def, &chain, options);
    for (Operation *op : chain)
      for (Value r : op->getResults())
        for (Operation *user : r.getUsers())
          if (user != pvOp && !chain.contains(user)) {
            why = "the " +
                  std::string(op == qkOp ? "scores" : "softmax's values") +
                  " (`" + op->getName().getStringRef().str() +
                  "`) are also read by `" +
                  user->getName().getStringRef().str() + "`";
            return Match::NearMiss;
          }

    // The result: the product in the query's type, or its rounding to it.
    Type elt = getElementTypeOrSelf(qk.lhs.getType());
    Value result = pv.op->getResult(0);
    if (getElementTypeOrSelf(result.getType()) != elt) {
      if (!result.hasOneUse() ||
          result.getUsers().begin()->getNumResults() != 1 ||
          throughCast(result.getUsers().begin()->getResult(0)) != result ||
          getElementTypeOrSelf(
              result.getUsers().begin()->getResult(0).getType()) != elt) {
        why = "the product with V is not rounded to the query's element "
              "type " +
              typeString(elt);
        return Match::NearMiss;
      }
      result = result.getUsers().begin()->getResult(0);
    }
    if (getElementTypeOrSelf(qk.rhs.getType()) != elt ||
        getElementTypeOrSelf(pv.rhs.getType()) != elt ||
        !isa<BFloat16Type, Float16Type, Float32Type>(elt)) {
      why = "the query, key and value are not one element type of bf16, "
            "f16, f32";
      return Match::NearMiss;
    }

    // The mask, checked before anything is built.
    std::optional<MaskLayout> layout;
    if (scores.mask) {
      FailureOr<MaskLayout> l = maskLayout(*scores.mask, rank, why);
      if (failed(l))
        return Match::NearMiss;
      Type mt = getElementTypeOrSelf(scores.mask->tensor.getType());
      if (!mt.isInteger(1) && mt != elt && !mt.isF32()) {
        why = "the mask's element type " + typeString(mt) +
              " is neither the query's nor f32";
        return Match::NearMiss;
      }
      layout = *l;
    }

    OpBuilder b(result.getDefiningOp());
    Location loc = pvOp->getLoc();
    // An operand of the products at the softmax's rank: the tensor a batch
    // collapse read, or an expand_shape of the operand.
    auto toRank = [&](Value v) -> Value {
      if (!pReassoc)
        return v;
      if (auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>()) {
        if (collapse.getReassociationIndices() == *pReassoc)
          return collapse.getSrc();
        SmallVector<int64_t> shape(probsType.getShape().drop_back(2));
        auto type = cast<RankedTensorType>(v.getType());
        shape.append(type.getShape().take_back(2).begin(),
                     type.getShape().take_back(2).end());
        if (auto re = splitCollapse(collapse, shape, *pReassoc))
          return tensor::CollapseShapeOp::create(b, loc, collapse.getSrc(), *re)
              .getResult();
      }
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape(probsType.getShape().drop_back(2));
      shape.append(type.getShape().take_back(2).begin(),
                   type.getShape().take_back(2).end());
      return tensor::ExpandShapeOp::create(
                 b, loc, RankedTensorType::get(shape, type.getElementType()), v,
                 *pReassoc)
          .getResult();
    };
    // The scale folded into the query or key: `t * c` read only by the
    // product.
    auto unscale = [&](Value v) -> Value {
      linalg::LinalgOp op = unaryElementwise(v);
      if (!op || !op.getIndexingMapsArray()[0].isIdentity() ||
          op.getDpsInputs()[0].getType() != v.getType() || !feedsOnly(v, qkOp))
        return v;
      auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
      Operation *def = yield.getOperand(0).getDefiningOp();
      if (!def || !isa<arith::MulFOp, arith::DivFOp>(def) ||
          def->getBlock() != op.getBlock())
        return v;
      bool div = isa<arith::DivFOp>(def);
      Value in = op.getBlock()->getArgument(0);
      for (int i = div ? 1 : 0; i < 2; ++i) {
        std::optional<Attribute> a = constantOf(def->getOperand(i));
        auto c = dyn_cast_or_null<FloatAttr>(a ? *a : Attribute());
        double d = c ? c.getValue().convertToDouble() : 0.0;
        if (c && def->getOperand(1 - i) == in && d > 0 && !std::isinf(d)) {
          scores.scale = div ? scores.scale / d : scores.scale * d;
          return op.getDpsInputs()[0];
        }
      }
      return v;
    };

    Value q = unscale(toRank(qk.lhs));
    Value k = toRank(qk.rhs);
    if (!qk.rhsTransposed)
      k = transposeLastTwo(b, loc, k);
    k = unscale(k);
    Value v = toRank(pv.rhs);
    if (pv.rhsTransposed)
      v = transposeLastTwo(b, loc, v);
    int64_t group = 1;
    std::optional<Repeat> kr = matchRepeat(k), vr = matchRepeat(v);
    if (kr && vr && kr->count == vr->count) {
      k = kr->build(b, loc);
      v = vr->build(b, loc);
      group = kr->count;
    }
    Value mask;
    if (scores.mask)
      mask = buildMask(b, loc, *scores.mask, *layout, rank);

    // 3-D products over heads collapsed into the batch ([B, H, S, D] ->
    // [B·H, S, D], Torch-MLIR's form) read the 4-D tensors: the op takes
    // them as they are, and a head split's transposes then stay views
    // (te-fold-attention-transposes) where a collapse of a transposed
    // view would be a copy. Without a mask tensor, where every operand is
    // such a collapse of the same batch dimensions.
    SmallVector<ReassociationIndices> heads;
    if (!mask && !pReassoc) {
      auto collapsed = [&](Value t) -> tensor::CollapseShapeOp {
        auto c = t.getDefiningOp<tensor::CollapseShapeOp>();
        if (!c || c.getSrcType().getRank() != 4)
          return nullptr;
        SmallVector<ReassociationIndices> re = c.getReassociationIndices();
        if (!isBatchOnly(re, 4) || re.size() != 3)
          return nullptr;
        return c;
      };
      tensor::CollapseShapeOp cq = collapsed(q), ck = collapsed(k),
                              cv = collapsed(v);
      if (cq && ck && cv) {
        ArrayRef<int64_t> sq = cq.getSrcType().getShape(),
                          sk = ck.getSrcType().getShape(),
                          sv = cv.getSrcType().getShape();
        auto same = [](int64_t a, int64_t b) {
          return !ShapedType::isDynamic(a) && a == b;
        };
        if (same(sq[0], sk[0]) && same(sq[0], sv[0]) && same(sq[1], sk[1]) &&
            same(sq[1], sv[1])) {
          heads = cq.getReassociationIndices();
          q = cq.getSrc();
          k = ck.getSrc();
          v = cv.getSrc();
        }
      }
    }
    auto attention = AttentionOp::create(
        b, loc, q, k, v, mask, b.getF32FloatAttr(scores.scale),
        scores.causal ? b.getUnitAttr() : UnitAttr());
    Value out = attention.getOutput();
    if (!heads.empty())
      out = tensor::CollapseShapeOp::create(b, loc, out, heads);
    if (pReassoc)
      out = tensor::CollapseShapeOp::create(b, loc, out, *pReassoc);
    if (out.getType() != result.getType())
      out = tensor::CastOp::create(b, loc, result.getType(), out);
    Operation *resultOp = result.getDefiningOp();
    result.replaceAllUsesWith(out);
    ++numRaised;
    if (remarks) {
      InFlightDiagnostic remark = emitRemark(loc);
      SmallString<16> scale;
      APFloat(static_cast<float>(scores.scale)).toString(scale);
      remark << "te-raise-attention: raised to te.attention (scale " << scale;
      if (scores.causal)
        remark << ", causal";
      if (mask)
        remark << ", mask " << typeString(mask.getType());
      if (group > 1)
        remark << ", " << group << " query heads per key/value head";
      remark << ")";
      if (mask)
        remark << "; a row the mask leaves without keys gives 0 (PyTorch "
                  "SDPA's result), where the literal softmax gave NaN";
    }
    // Users first: the worklist is a stack, and an op's operands are pushed
    // when it goes.
    SmallVector<Operation *> dead(chain.begin(), chain.end());
    dead.push_back(pvOp);
    dead.push_back(resultOp);
    eraseDead(dead);
    return Match::Yes;
  }
};

} // namespace
