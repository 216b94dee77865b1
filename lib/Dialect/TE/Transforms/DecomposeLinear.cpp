//===- DecomposeLinear.cpp - te.linear{,_grad} into quantize + gemm -------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// TransformerEngine's Linear module (docs/formats.md §5, §6) spelled out:
//
//   te.linear      X, W         quantize X (rowwise|columnwise) and W (unless
//                               the cached workspace is given), fprop
//                               gemm(W, X, TN) with the bias fused, the
//                               quantized input saved columnwise only
//                               (when the saved input is used);
//   te.linear_grad dY, X_q, W_q quantize dY (rowwise|columnwise), dgrad
//                               gemm(W, dY, NN), wgrad gemm(X, dY, NT), bias
//                               grad = the sum of dY over its leading
//                               dimensions in fp32.
//
// Quantized operands keep their logical N-D shapes: te.gemm flattens the
// leading dimensions of its operands to 2-D by definition, and a quantized
// tensor that crosses into the backward must keep the shape its type
// promises. Only the high-precision bias-gradient reduction is written on an
// explicitly collapsed 2-D view.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/Transforms/Passes.h"

#include "UsageView.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "te/Dialect/TE/IR/TEOps.h"

#define DEBUG_TYPE "te-decompose-linear"

namespace mlir::te {
#define GEN_PASS_DEF_TEDECOMPOSELINEAR
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;
namespace fmt = ::te::format;

namespace {

enum class LinearGemm { Fprop, Dgrad, Wgrad };

/// TE's `use_split_accumulator` defaults (module/base.py `_2X_ACC_FPROP` =
/// False, `_2X_ACC_DGRAD` = `_2X_ACC_WGRAD` = True), except that
/// Float8BlockScaling forces it on for all three GEMMs
/// (docs/formats.md §2, §5).
bool useSplitAccumulator(LinearGemm gemm, QuantizerAttrInterface a,
                         QuantizerAttrInterface b) {
  if (gemm != LinearGemm::Fprop)
    return true;
  return a.getRecipe() == fmt::Recipe::Block ||
         b.getRecipe() == fmt::Recipe::Block;
}

bool roundsStochastically(QuantizerAttrInterface quantizer) {
  return quantizer && quantizer.getFormatConfig().stochasticRounding;
}

/// `te.quantize` of `input` into `type`, with the op's random stream when the
/// quantizer rounds stochastically.
Value quantize(OpBuilder &builder, Location loc, Value input, QTensorType type,
               Value seed, Value offset) {
  bool sr = roundsStochastically(type.getQuantizer());
  return QuantizeOp::create(builder, loc, type, input, /*scale=*/Value(),
                            sr ? seed : Value(), sr ? offset : Value())
      .getResult();
}

/// The high-precision tensor `x` quantized with `quantizer` holding `usage`
/// (format::linearQuantizedUsages: what Linear's GEMMs read of it).
QTensorType quantizedType(Value x, QuantizerAttrInterface quantizer,
                          fmt::Usage usage) {
  auto type = cast<RankedTensorType>(x.getType());
  return QTensorType::get(x.getContext(), type.getShape(),
                          type.getElementType(), quantizer, fromFormat(usage));
}

/// The bias gradient: `dY` `[..., N]` summed over its leading dimensions,
/// accumulated in fp32 and rounded once to `resultType` (TE's
/// `grad_output.view(-1, N).sum(0)` / fused `bgrad_quantize`).
Value sumLeadingDims(OpBuilder &builder, Location loc, Value dy,
                     RankedTensorType resultType) {
  auto type = cast<RankedTensorType>(dy.getType());
  int64_t rank = type.getRank();
  Value flat = dy;
  if (rank > 2) {
    SmallVector<ReassociationIndices> reassociation(2);
    for (int64_t i = 0; i < rank - 1; ++i)
      reassociation[0].push_back(i);
    reassociation[1].push_back(rank - 1);
    flat = tensor::CollapseShapeOp::create(builder, loc, dy, reassociation);
  }

  MLIRContext *ctx = builder.getContext();
  Type f32 = builder.getF32Type();
  OpFoldResult n = tensor::getMixedSize(builder, loc, flat, 1);
  Value init =
      tensor::EmptyOp::create(builder, loc, ArrayRef<OpFoldResult>{n}, f32);
  Value zero = arith::ConstantOp::create(builder, loc, f32,
                                         builder.getFloatAttr(f32, 0.0));
  Value acc =
      linalg::FillOp::create(builder, loc, ValueRange{zero}, ValueRange{init})
          .getResult(0);

  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  SmallVector<AffineMap> maps = {AffineMap::get(2, 0, {d0, d1}, ctx),
                                 AffineMap::get(2, 0, {d1}, ctx)};
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::reduction,
                                                utils::IteratorType::parallel};
  Value sum = linalg::GenericOp::create(
                  builder, loc, TypeRange{acc.getType()}, ValueRange{flat},
                  ValueRange{acc}, maps, iterators,
                  [&](OpBuilder &b, Location l, ValueRange args) {
                    Value x = args[0];
                    if (x.getType() != f32)
                      x = arith::ExtFOp::create(b, l, f32, x);
                    Value s = arith::AddFOp::create(b, l, x, args[1]);
                    linalg::YieldOp::create(b, l, s);
                  })
                  .getResult(0);

  Type elementType = resultType.getElementType();
  if (elementType != f32) {
    Value out = tensor::EmptyOp::create(builder, loc, ArrayRef<OpFoldResult>{n},
                                        elementType);
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
    sum = linalg::GenericOp::create(
              builder, loc, TypeRange{out.getType()}, ValueRange{sum},
              ValueRange{out}, ArrayRef<AffineMap>{id, id},
              ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
              [&](OpBuilder &b, Location l, ValueRange args) {
                Value t = arith::TruncFOp::create(b, l, elementType, args[0]);
                linalg::YieldOp::create(b, l, t);
              })
              .getResult(0);
  }
  if (sum.getType() != resultType)
    sum = tensor::CastOp::create(builder, loc, resultType, sum);
  return sum;
}

LogicalResult decompose(LinearOp op) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  QuantizerAttrInterface inputQ = op.getInputQuantizer();
  QuantizerAttrInterface weightQ = op.getWeightQuantizer();
  if (auto out = dyn_cast<QTensorType>(op.getOutput().getType());
      out && roundsStochastically(out.getQuantizer()))
    return op.emitOpError()
           << "cannot be decomposed: te.gemm does not quantize its result "
              "with stochastic rounding (output_quantizer)";

  // The input, once, in both directions: rowwise for fprop, columnwise for
  // the wgrad of the backward (TE's fused cast+transpose / "x2" kernels).
  Value xq = quantize(
      builder, loc, op.getInput(),
      quantizedType(op.getInput(), inputQ, fmt::linearQuantizedUsages().input),
      op.getSeed(), op.getOffset());
  // The weight: the cached workspace on a cache hit, else quantized here.
  QTensorType weightType = op.getSavedWeight().getType();
  Value wq = op.getWorkspace();
  if (!wq)
    wq = quantize(builder, loc, op.getWeight(), weightType, op.getSeed(),
                  op.getOffset());

  auto fprop = GemmOp::create(
      builder, loc, op.getOutput().getType(), /*amax=*/Type(), wq, xq,
      fromFormat(fmt::kLinearFpropLayout), op.getBias(), /*accumulate=*/Value(),
      /*outScale=*/Value(),
      useSplitAccumulator(LinearGemm::Fprop, weightQ, inputQ));

  // Saved for backward: the input without its rowwise data (TE's
  // update_usage(rowwise=False)), the quantized weight as is. The view is
  // made only when something reads the saved input: its te.buffers reads
  // every buffer of X_q and would keep the columnwise copy of a forward-only
  // program alive.
  if (!op.getSavedInput().use_empty()) {
    FailureOr<Value> savedInput = createUsageView(
        builder, loc, xq, op.getSavedInput().getType().getUsage());
    if (failed(savedInput))
      return failure();
    op.getSavedInput().replaceAllUsesWith(*savedInput);
  }
  op.getOutput().replaceAllUsesWith(fprop.getResult());
  op.getSavedWeight().replaceAllUsesWith(wq);
  // On a cache miss the new workspace *is* the quantized weight.
  if (Value newWorkspace = op.getNewWorkspace())
    newWorkspace.replaceAllUsesWith(wq);
  op->erase();
  return success();
}

LogicalResult decompose(LinearGradOp op) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  QuantizerAttrInterface gradOutputQ = op.getGradOutputQuantizer();
  if (roundsStochastically(op.getGradInputQuantizerAttr()))
    return op.emitOpError()
           << "cannot be decomposed: te.gemm does not quantize its result "
              "with stochastic rounding (grad_input_quantizer)";

  Value savedInput = op.getSavedInput();
  Value savedWeight = op.getSavedWeight();
  auto inputQ = cast<QTensorType>(savedInput.getType()).getQuantizer();
  auto weightQ = cast<QTensorType>(savedWeight.getType()).getQuantizer();

  // dY, once, in both directions: rowwise for dgrad, columnwise for wgrad.
  Value dyq = quantize(builder, loc, op.getGradOutput(),
                       quantizedType(op.getGradOutput(), gradOutputQ,
                                     fmt::linearQuantizedUsages().gradOutput),
                       op.getSeed(), op.getOffset());

  auto dgrad = GemmOp::create(
      builder, loc, op.getDgrad().getType(), /*amax=*/Type(), savedWeight, dyq,
      fromFormat(fmt::kLinearDgradLayout), /*bias=*/Value(),
      /*accumulate=*/Value(),
      /*outScale=*/Value(),
      useSplitAccumulator(LinearGemm::Dgrad, weightQ, gradOutputQ));
  auto wgrad = GemmOp::create(
      builder, loc, op.getWgrad().getType(), /*amax=*/Type(), savedInput, dyq,
      fromFormat(fmt::kLinearWgradLayout), /*bias=*/Value(),
      /*accumulate=*/Value(),
      /*outScale=*/Value(),
      useSplitAccumulator(LinearGemm::Wgrad, inputQ, gradOutputQ));

  SmallVector<Value> replacements = {dgrad.getResult(), wgrad.getResult()};
  if (Value biasGrad = op.getBiasGrad())
    replacements.push_back(
        sumLeadingDims(builder, loc, op.getGradOutput(),
                       cast<RankedTensorType>(biasGrad.getType())));
  op->replaceAllUsesWith(replacements);
  op->erase();
  return success();
}

struct DecomposeLinearPass
    : public mlir::te::impl::TEDecomposeLinearBase<DecomposeLinearPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<LinearOp, LinearGradOp>(op))
        ops.push_back(op);
    });
    bool failed = false;
    for (Operation *op : ops) {
      bool forward = isa<LinearOp>(op);
      LogicalResult result = forward ? decompose(cast<LinearOp>(op))
                                     : decompose(cast<LinearGradOp>(op));
      failed |= mlir::failed(result);
      if (mlir::succeeded(result))
        ++(forward ? numLinear : numLinearGrad);
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace
