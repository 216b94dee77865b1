//===- DecomposeAggregates.cpp - Aggregated linalg ops decomposed ---------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-decompose-aggregates: every op implementing
// linalg::AggregatedOpInterface (linalg.softmax) is replaced by the values
// its decomposeOperation builds, ops on tensors that te lowers on every
// target. A listener collects the ops each decomposition inserts: aggregated
// ops among them are decomposed in turn, and a decomposition that fails or
// builds IR that does not verify is erased again before the error.
//
// Upstream's decompositions build tensor ops and assume what their op's
// verifier does not check; the pass checks it first: ranked tensors only
// (a memref operand would give linalg ops mixing memrefs and tensors), and
// for linalg.softmax a float element type and one type for the input and
// the output (the exponential's linalg.generic takes the input's type as
// its result type and the output as its init): a softmax of different but
// compatible types is copied onto tensor.cast ops of its operands to their
// most static common type, decomposed, and its results cast back.
//
// Upstream's softmax decomposition computes in the element type: in bf16
// the sum of a 1000-element row stalls once it is large beside each term
// (a softmax over 1000 columns is ~10% off). With softmax-in-f32 (the
// default) a softmax of a narrower float type is computed as an f32 softmax
// of the extended input, decomposed, its result truncated into the output:
// one rounding, as PyTorch computes a bf16 softmax.
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "te-decompose-aggregates"

namespace mlir::te {
#define GEN_PASS_DEF_TEDECOMPOSEAGGREGATES
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

namespace {

/// Records the ops inserted while it is the rewriter's listener.
struct InsertedOps : public RewriterBase::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.insert(op);
  }
  void notifyOperationErased(Operation *op) override { ops.remove(op); }
  llvm::SetVector<Operation *> ops;
};

/// The op's first operand or result type that is shaped but not a ranked
/// tensor, if any.
Type firstNonTensorType(Operation *op) {
  for (TypeRange types :
       {TypeRange(op->getOperandTypes()), TypeRange(op->getResultTypes())})
    for (Type type : types)
      if (isa<ShapedType>(type) && !isa<RankedTensorType>(type))
        return type;
  return {};
}

/// The most static type of two compatible ranked tensor types: each
/// dimension static where either is.
RankedTensorType join(RankedTensorType a, RankedTensorType b) {
  SmallVector<int64_t> shape(a.getShape());
  for (auto [i, size] : llvm::enumerate(b.getShape()))
    if (ShapedType::isDynamic(shape[i]))
      shape[i] = size;
  return a.clone(shape);
}

/// An elementwise linalg.generic applying `body` to `input` into `init`
/// (same shape).
Value mapElements(
    OpBuilder &b, Location loc, Value input, Value init,
    function_ref<Value(OpBuilder &, Location, Value, Type)> body) {
  auto type = cast<RankedTensorType>(init.getType());
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, type, input, init, ArrayRef<AffineMap>{id, id}, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc,
                                body(nb, nloc, args[0], type.getElementType()));
      });
  return generic.getResult(0);
}

/// What the pass decomposes in place of a linalg.softmax: a softmax whose
/// input, output and result have one type, and, where that softmax
/// computes in f32 for a narrower type, the output its f32 result is
/// rounded into.
struct PreparedSoftmax {
  linalg::SoftmaxOp op;
  Value truncateInto;
};

/// Prepares `op` for upstream's decomposition, which builds the
/// exponential and the division with the input's type as result type and
/// the output as init, and computes in the element type: the input and the
/// output are cast to their most static common type (a copy of `op` on
/// tensor.cast ops, where the types differ), and with `inF32` a float type
/// narrower than f32 is extended into an f32 softmax (its result is to be
/// truncated into the output).
PreparedSoftmax prepareSoftmax(RewriterBase &rewriter, linalg::SoftmaxOp op,
                               bool inF32) {
  Location loc = op.getLoc();
  auto input = cast<RankedTensorType>(op.getInput().getType());
  auto output = cast<RankedTensorType>(op.getOutput().getType());
  auto result = cast<RankedTensorType>(op.getResult()[0].getType());
  RankedTensorType type = join(join(input, output), result);
  auto element = cast<FloatType>(type.getElementType());
  bool promote = inF32 && element.getWidth() < 32;
  if (!promote && input == type && output == type && result == type)
    return {op, Value()};
  auto castTo = [&](Value value) -> Value {
    if (value.getType() == type)
      return value;
    return tensor::CastOp::create(rewriter, loc, type, value);
  };
  Value newInput = castTo(op.getInput());
  Value newOutput = castTo(op.getOutput());
  if (!promote)
    return {linalg::SoftmaxOp::create(rewriter, loc, TypeRange{type}, newInput,
                                      newOutput, op.getDimension()),
            Value()};
  RankedTensorType wide = type.clone(rewriter.getF32Type());
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(rewriter, loc, newInput);
  Value extended = mapElements(
      rewriter, loc, newInput,
      tensor::EmptyOp::create(rewriter, loc, sizes, wide.getElementType()),
      [](OpBuilder &b, Location l, Value v, Type t) -> Value {
        return arith::ExtFOp::create(b, l, t, v);
      });
  Value init =
      tensor::EmptyOp::create(rewriter, loc, sizes, wide.getElementType());
  return {linalg::SoftmaxOp::create(rewriter, loc, TypeRange{wide}, extended,
                                    init, op.getDimension()),
          newOutput};
}

struct TEDecomposeAggregatesPass
    : public te::impl::TEDecomposeAggregatesBase<TEDecomposeAggregatesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> worklist;
    getOperation()->walk(
        [&](linalg::AggregatedOpInterface op) { worklist.push_back(op); });
    // Taken in program order: a decomposition's own aggregated ops are
    // pushed in reverse, so that they come next, first one first.
    std::reverse(worklist.begin(), worklist.end());
    // Nothing to do: the module is unchanged, so the pass manager need not
    // verify it again.
    if (worklist.empty())
      return markAllAnalysesPreserved();
    InsertedOps inserted;
    IRRewriter rewriter(&getContext(), &inserted);
    bool ok = true;
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      inserted.ops.clear();
      if (failed(decompose(rewriter, op, inserted))) {
        // What was built for it, users first; `op` stays.
        for (Operation *created : llvm::reverse(inserted.ops.takeVector()))
          rewriter.eraseOp(created);
        ok = false;
        continue;
      }
      ++numDecomposed;
      SmallVector<Operation *> nested;
      for (Operation *created : inserted.ops)
        if (isa<linalg::AggregatedOpInterface>(created))
          nested.push_back(created);
      worklist.append(nested.rbegin(), nested.rend());
    }
    if (!ok)
      signalPassFailure();
  }

  /// Replaces `op` by its decomposition. On failure reports why, naming the
  /// op, and leaves `op` unchanged; the caller erases what was built.
  LogicalResult decompose(IRRewriter &rewriter, Operation *op,
                          InsertedOps &inserted) {
    LLVM_DEBUG(llvm::dbgs() << "decomposing " << *op << "\n");
    if (Type type = firstNonTensorType(op))
      return op->emitOpError()
             << "has an operand or result of type " << type
             << ": te-decompose-aggregates decomposes ops on ranked tensors "
                "only (the decomposition builds tensor ops); run it before "
                "bufferization";
    rewriter.setInsertionPoint(op);
    Operation *target = op;
    Value truncateInto;
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
      Type element = softmax.getInputOperandType().getElementType();
      if (!isa<FloatType>(element))
        return op->emitOpError()
               << "has element type " << element
               << ": its decomposition (max, exp, sum, division) needs a "
                  "float type";
      PreparedSoftmax prepared =
          prepareSoftmax(rewriter, softmax, softmaxInF32);
      target = prepared.op;
      truncateInto = prepared.truncateInto;
    }
    FailureOr<SmallVector<Value>> values =
        cast<linalg::AggregatedOpInterface>(target).decomposeOperation(
            rewriter);
    if (failed(values))
      return op->emitOpError("could not be decomposed (its "
                             "AggregatedOpInterface::decomposeOperation "
                             "failed)");
    // A softmax computed in f32: its result rounded once, into the output.
    if (truncateInto && values->size() == 1) {
      rewriter.setInsertionPoint(op);
      (*values)[0] =
          mapElements(rewriter, op->getLoc(), (*values)[0], truncateInto,
                      [](OpBuilder &b, Location l, Value v, Type t) -> Value {
                        return arith::TruncFOp::create(b, l, t, v);
                      });
    }
    // The values, of the result types (a tensor.cast where a decomposition
    // gives a compatible tensor type, as for an aligned softmax).
    SmallVector<Value> replacements;
    if (values->size() == op->getNumResults()) {
      rewriter.setInsertionPoint(op);
      for (auto [value, result] : llvm::zip(*values, op->getResults())) {
        if (value.getType() != result.getType() &&
            tensor::CastOp::areCastCompatible(value.getType(),
                                              result.getType()))
          value = tensor::CastOp::create(rewriter, op->getLoc(),
                                         result.getType(), value);
        if (value.getType() != result.getType())
          break;
        replacements.push_back(value);
      }
    }
    if (replacements.size() != op->getNumResults() ||
        values->size() != op->getNumResults())
      return op->emitOpError()
             << "could not be decomposed: its decomposition gives values of "
                "types ("
             << TypeRange(ValueRange(*values)) << "), the op has results ("
             << op->getResultTypes() << ")";
    for (Operation *created : inserted.ops)
      if (created != target && !inserted.ops.contains(created->getParentOp()) &&
          failed(verify(created)))
        return op->emitOpError("could not be decomposed: its decomposition "
                               "does not verify (above)");
    rewriter.replaceOp(op, replacements);
    if (target != op)
      rewriter.eraseOp(target);
    if (truncateInto)
      ++numInF32;
    return success();
  }
};

} // namespace
