//===- ShareEmulatedOperands.cpp - One dequantization per GEMM operand ----===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-share-emulated-operands: on sm_90, GEMMs of MXFP8 / NVFP4 operands are
// emulated in bf16 by the runtime, which dequantizes each operand per GEMM.
// Operands that several GEMMs read (or one GEMM in a loop) get one
// te.emulated_operand_buffers, passed to the GEMMs as a_emulated /
// b_emulated.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "te/Dialect/TE/IR/TEAttrs.h"
#include "te/Dialect/TE/IR/TEOps.h"
#include "te/Format/Gemm.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"

#define DEBUG_TYPE "te-share-emulated-operands"

namespace mlir::te {
#define GEN_PASS_DEF_TESHAREEMULATEDOPERANDS
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;
namespace fmt = ::te::format;

namespace {

/// What makes two GEMM operands the same operand: the buffers, how they
/// are read and what they describe.
struct OperandKey {
  SmallVector<Value, 6> buffers;
  Attribute quantizer;
  Usage usage, reads;
  ArrayRef<int64_t> shape;

  bool operator==(const OperandKey &o) const {
    return buffers == o.buffers && quantizer == o.quantizer &&
           usage == o.usage && reads == o.reads && shape == o.shape;
  }
};

/// One GEMM operand: the GEMM and whether it is A.
struct OperandUse {
  GemmBuffersOp gemm;
  bool isA;
};

/// Nesting depth of a block (regions between it and the function).
unsigned depth(Block *b) {
  unsigned d = 0;
  for (Operation *op = b->getParentOp(); op;
       op = op->getBlock() ? op->getBlock()->getParentOp() : nullptr)
    ++d;
  return d;
}

Block *definingBlock(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner();
  return v.getDefiningOp()->getBlock();
}

/// Whether a loop lies between `op` and its ancestor `top` (exclusive):
/// the operand would be dequantized on every iteration.
bool inLoopBelow(Operation *op, Operation *top) {
  for (Operation *p = op->getParentOp(); p && p != top->getParentOp();
       p = p->getParentOp()) {
    if (isa<LoopLikeOpInterface>(p))
      return true;
    if (p == top)
      break;
  }
  return false;
}

struct TEShareEmulatedOperandsPass
    : public mlir::te::impl::TEShareEmulatedOperandsBase<
          TEShareEmulatedOperandsPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (getTarget(root) != Target::SM90)
      return;
    // Groups in program order (deterministic output).
    SmallVector<std::pair<OperandKey, SmallVector<OperandUse>>> groups;
    root->walk([&](GemmBuffersOp gemm) {
      if (!gemm.hasPureTensorSemantics())
        return;
      fmt::GemmLayout layout = toFormat(gemm.getLayout());
      if (fmt::gemmEmulation(layout, gemm.getAQuantizer().getFormatConfig(),
                             gemm.getBQuantizer().getFormatConfig()) !=
          fmt::GemmEmulation::BF16)
        return;
      fmt::GemmUsages reads = fmt::gemmOperandUsages(layout);
      for (bool isA : {true, false}) {
        if (isA ? gemm.getAEmulated() : gemm.getBEmulated())
          continue;
        ArrayRef<int64_t> shape = isA ? gemm.getAShape() : gemm.getBShape();
        if (ShapedType::isDynamicShape(shape))
          continue;
        OperandKey key{llvm::to_vector<6>(isA ? gemm.getA() : gemm.getB()),
                       isA ? gemm.getAQuantizer() : gemm.getBQuantizer(),
                       isA ? gemm.getAUsage() : gemm.getBUsage(),
                       (isA ? reads.a : reads.b) == fmt::Columnwise
                           ? Usage::Columnwise
                           : Usage::Rowwise,
                       shape};
        auto *it = llvm::find_if(groups,
                                 [&](const auto &g) { return g.first == key; });
        if (it == groups.end()) {
          groups.push_back({key, {}});
          it = std::prev(groups.end());
        }
        it->second.push_back({gemm, isA});
      }
    });
    for (auto &[key, uses] : groups)
      share(key, uses);
  }

  void share(const OperandKey &key, MutableArrayRef<OperandUse> uses) {
    // The block of the innermost buffer definition; every GEMM lies in it
    // or below it (the buffers dominate them).
    Block *block = nullptr;
    for (Value v : key.buffers)
      if (!block || depth(definingBlock(v)) > depth(block))
        block = definingBlock(v);
    if (!block)
      return;
    Operation *first = nullptr;
    bool repeated = uses.size() > 1;
    for (OperandUse &use : uses) {
      Operation *ancestor = block->findAncestorOpInBlock(*use.gemm);
      if (!ancestor)
        return;
      repeated |= ancestor != use.gemm && inLoopBelow(use.gemm, ancestor);
      if (!first || ancestor->isBeforeInBlock(first))
        first = ancestor;
    }
    if (!repeated)
      return;

    OpBuilder b(first);
    Location loc = uses.front().gemm->getLoc();
    int64_t elements = 1;
    for (int64_t d : key.shape)
      elements *= d;
    auto type = RankedTensorType::get({elements}, b.getBF16Type());
    Value init =
        tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
    auto op = EmulatedOperandBuffersOp::create(
        b, loc, TypeRange{type}, key.buffers, ValueRange{init},
        cast<QuantizerAttrInterface>(key.quantizer), key.usage, key.reads,
        key.shape);
    Value operand = op.getResults().front();
    for (OperandUse &use : uses) {
      if (use.isA)
        use.gemm.getAEmulatedMutable().assign(operand);
      else
        use.gemm.getBEmulatedMutable().assign(operand);
      ++numReads;
    }
    ++numShared;
  }
};

} // namespace
