//===- TEOps.cpp - te dialect operations ------------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Verifiers, type inference and folders of the te operations. Format facts
// (buffer layouts, shape rules) are asked of the quantizer attributes, which
// ask the Format library; the operand rules of GEMMs and Linear follow
// docs/formats.md §5 and §6.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEOps.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::te;
namespace fmt = ::te::format;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static fmt::Shape toShape(ArrayRef<int64_t> shape) {
  return fmt::Shape(shape.begin(), shape.end());
}

/// A shape as `[32, ?, 64]`, for diagnostics.
static std::string shapeStr(ArrayRef<int64_t> shape) {
  return fmt::shapeString(toShape(shape));
}

static bool isDynamic(int64_t dim) { return ShapedType::isDynamic(dim); }

static bool dimsCompatible(int64_t a, int64_t b) {
  return isDynamic(a) || isDynamic(b) || a == b;
}

static bool shapesCompatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  return a.size() == b.size() &&
         llvm::all_of(llvm::zip_equal(a, b), [](auto dims) {
           return dimsCompatible(std::get<0>(dims), std::get<1>(dims));
         });
}

/// Product of the dimensions; dynamic if one is; 1 for none.
static int64_t product(ArrayRef<int64_t> dims) {
  int64_t result = 1;
  for (int64_t d : dims) {
    if (isDynamic(d))
      return ShapedType::kDynamic;
    result *= d;
  }
  return result;
}

static ArrayRef<int64_t> getShapeOf(Type type) {
  if (auto q = dyn_cast<QTensorType>(type))
    return q.getShape();
  return cast<RankedTensorType>(type).getShape();
}

/// An inherent attribute seen by type inference. When the custom parser
/// infers result types, inherent attributes are still in the attribute
/// dictionary; they move into the properties when the op is created.
template <typename AttrT>
static AttrT inherentAttr(Attribute fromProperties, DictionaryAttr attributes,
                          StringRef name) {
  if (fromProperties)
    return dyn_cast<AttrT>(fromProperties);
  return attributes ? dyn_cast_or_null<AttrT>(attributes.get(name)) : AttrT();
}

static fmt::QuantizerConfig configOf(QuantizerAttrInterface quantizer) {
  return quantizer.getFormatConfig();
}

/// Verifies the parts of a qtensor type an op would build, without building
/// it (an invalid type must never be created: `QTensorType::get` asserts).
static LogicalResult verifyQTensor(Operation *op, StringRef what,
                                   ArrayRef<int64_t> shape, Type elementType,
                                   QuantizerAttrInterface quantizer,
                                   Usage usage) {
  return QTensorType::verifyInvariants(
      [&]() -> InFlightDiagnostic { return op->emitOpError() << what << ": "; },
      shape, elementType, quantizer, usage);
}

static LogicalResult verifyQTensor(Operation *op, StringRef what,
                                   QTensorType type) {
  return verifyQTensor(op, what, type.getShape(), type.getElementType(),
                       type.getQuantizer(), type.getUsage());
}

/// The qtensor type `opName` infers for its result `what`, or a failure
/// reported at `location` in the words of the op verifier ("'te.linear' op
/// output: ...") when the parts do not make a valid type.
static FailureOr<QTensorType>
inferQTensor(MLIRContext *context, std::optional<Location> location,
             StringRef opName, StringRef what, ArrayRef<int64_t> shape,
             Type elementType, QuantizerAttrInterface quantizer, Usage usage) {
  // Without a location the failure is silent (emitOptionalError's rule).
  std::optional<ScopedDiagnosticHandler> silence;
  if (!location)
    silence.emplace(context, [](Diagnostic &) { return success(); });
  Location loc = location ? *location : UnknownLoc::get(context);
  auto emitError = [&]() -> InFlightDiagnostic {
    return mlir::emitError(loc) << "'" << opName << "' op " << what << ": ";
  };
  if (failed(QTensorType::verifyInvariants(emitError, shape, elementType,
                                           quantizer, usage)))
    return failure();
  return QTensorType::get(context, shape, elementType, quantizer, usage);
}

/// TE's rules for two quantized operands that meet in one GEMM (Format's
/// verifyGemmOperands).
static LogicalResult verifyGemmOperandPair(Operation *op, StringRef gemm,
                                           StringRef lhsName,
                                           const fmt::QuantizerConfig &lhs,
                                           StringRef rhsName,
                                           const fmt::QuantizerConfig &rhs) {
  std::string error =
      fmt::verifyGemmOperands(gemm.str().c_str(), lhsName.str().c_str(), lhs,
                              rhsName.str().c_str(), rhs);
  if (!error.empty())
    return op->emitOpError() << error;
  return success();
}

/// TE's Linear shape checks (assert_dim_for_fp8_exec and linear_compile).
static LogicalResult verifyLinearAlignment(Operation *op,
                                           ArrayRef<int64_t> leading,
                                           int64_t inFeatures,
                                           int64_t outFeatures) {
  int64_t m = product(leading);
  if (!isDynamic(m) && m % 8 != 0)
    return op->emitOpError() << "needs the flattened leading dimensions of "
                                "the input divisible by 8, got "
                             << m;
  if (!isDynamic(inFeatures) && inFeatures % 16 != 0)
    return op->emitOpError()
           << "needs in_features divisible by 16, got " << inFeatures;
  if (!isDynamic(outFeatures) && outFeatures % 16 != 0)
    return op->emitOpError()
           << "needs out_features divisible by 16, got " << outFeatures;
  return success();
}

/// Delayed scaling keeps SSA state that te.linear / te.linear_grad cannot
/// thread.
static LogicalResult verifyNotDelayed(Operation *op, StringRef name,
                                      QuantizerAttrInterface quantizer) {
  if (quantizer && fmt::recipeTraits(configOf(quantizer).recipe).liveScale)
    return op->emitOpError()
           << "does not take #te.delayed quantizers (" << name
           << "): delayed scaling keeps its scale and amax history as SSA "
              "state, use te.quantize and te.gemm";
  return success();
}

static bool roundsStochastically(QuantizerAttrInterface quantizer) {
  return quantizer && configOf(quantizer).stochasticRounding;
}

static LogicalResult verifyRandomOperands(Operation *op, bool needed,
                                          Value seed, Value offset) {
  if (needed && (!seed || !offset))
    return op->emitOpError() << "needs 'seed' and 'offset' operands: a "
                                "quantizer rounds stochastically";
  if (!needed && (seed || offset))
    return op->emitOpError() << "takes 'seed' and 'offset' only when a "
                                "quantizer rounds stochastically";
  return success();
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

void QuantizeOp::build(OpBuilder &builder, OperationState &state,
                       QTensorType resultType, Value input, Value scale,
                       Value seed, Value offset, StringAttr group) {
  Type amaxType =
      scale ? RankedTensorType::get({1}, builder.getF32Type()) : Type();
  build(builder, state, resultType, amaxType, input, scale, seed, offset,
        group);
}

LogicalResult QuantizeOp::verify() {
  auto inputType = getInput().getType();
  QTensorType resultType = getResult().getType();
  if (!shapesCompatible(inputType.getShape(), resultType.getShape()))
    return emitOpError() << "input shape " << shapeStr(inputType.getShape())
                         << " does not match the result shape "
                         << shapeStr(resultType.getShape());
  if (inputType.getElementType() != resultType.getElementType())
    return emitOpError() << "input element type " << inputType.getElementType()
                         << " does not match the nominal type "
                         << resultType.getElementType() << " of the result";
  fmt::QuantizerConfig config = configOf(resultType.getQuantizer());
  bool delayed = fmt::recipeTraits(config.recipe).liveScale;
  if (delayed && !getScale())
    return emitOpError() << "with a #te.delayed quantizer needs the live "
                            "'scale' operand";
  if (delayed && !getAmax())
    return emitOpError() << "with a #te.delayed quantizer yields the amax: "
                            "add a tensor<1xf32> result";
  if (!delayed && getScale())
    return emitOpError()
           << "takes a 'scale' operand only with a #te.delayed quantizer";
  if (!delayed && getAmax())
    return emitOpError() << "yields an amax only with a #te.delayed quantizer";
  if (failed(verifyAmaxGroup(*this, getGroup(), resultType.getQuantizer())))
    return failure();
  return verifyRandomOperands(*this, config.stochasticRounding, getSeed(),
                              getOffset());
}

//===----------------------------------------------------------------------===//
// Amax reduction groups (te.quantize, te.quantize_buffers)
//===----------------------------------------------------------------------===//

LogicalResult mlir::te::verifyAmaxGroup(Operation *op,
                                        std::optional<StringRef> group,
                                        QuantizerAttrInterface quantizer) {
  if (!group)
    return success();
  if (group->empty())
    return op->emitOpError() << "needs a non-empty process group name";
  fmt::QuantizerConfig config = configOf(quantizer);
  if (!fmt::amaxReducibleAcrossGroup(config))
    return op->emitOpError()
           << "reduces its amax across a group only with current scaling "
              "or NVFP4 (not row-scaled); delayed scaling reduces with "
              "te.allreduce_max before te.update_scale, block and MX "
              "scales are local";
  return success();
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

LogicalResult DequantizeOp::verify() {
  QTensorType inputType = getInput().getType();
  auto resultType = getResult().getType();
  if (!shapesCompatible(inputType.getShape(), resultType.getShape()))
    return emitOpError() << "result shape " << shapeStr(resultType.getShape())
                         << " does not match the input shape "
                         << shapeStr(inputType.getShape());
  if (inputType.hasRowwise())
    return success();
  fmt::QuantizerConfig config = configOf(inputType.getQuantizer());
  if (!fmt::columnwiseHoldsRowwiseValues(config))
    return emitOpError()
           << "needs rowwise usage: only per-tensor FP8 and 128x128-block "
              "tensors dequantize from columnwise data, got a "
           << fmt::recipeFamilyName(config.recipe) << " tensor with usage "
           << stringifyUsage(inputType.getUsage());
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

/// `TN` | `NN` | `NT`, a bare keyword.
static ParseResult parseGemmLayout(OpAsmParser &parser, GemmLayoutAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<GemmLayout> layout = symbolizeGemmLayout(keyword);
  if (!layout)
    return parser.emitError(loc)
           << "expected GEMM layout TN, NN or NT, got '" << keyword << "'";
  attr = GemmLayoutAttr::get(parser.getContext(), *layout);
  return success();
}

static void printGemmLayout(OpAsmPrinter &printer, Operation *,
                            GemmLayoutAttr attr) {
  printer << stringifyGemmLayout(attr.getValue());
}

LogicalResult GemmOp::verify() {
  QTensorType a = getA().getType(), b = getB().getType();
  fmt::GemmLayout layout = toFormat(getLayout());

  std::string error = fmt::verifyGemmUsages(layout, toFormat(a.getUsage()),
                                            toFormat(b.getUsage()));
  if (!error.empty())
    return emitOpError() << error;
  if (failed(verifyGemmOperandPair(*this, "GEMM", "A",
                                   configOf(a.getQuantizer()), "B",
                                   configOf(b.getQuantizer()))))
    return failure();
  // Shapes; a dynamic K is checked at run time (te_rt_gemm).
  ArrayRef<int64_t> as = a.getShape(), bs = b.getShape();
  fmt::GemmShape shape;
  error = fmt::gemmShape(layout, toShape(as), toShape(bs), &shape);
  if (!error.empty())
    return emitOpError() << error;
  ArrayRef<int64_t> expected = shape.result;
  int64_t n = shape.n;

  Type resultType = getResult().getType();
  ArrayRef<int64_t> resultShape = getShapeOf(resultType);
  if (!shapesCompatible(resultShape, expected))
    return emitOpError() << "result shape " << shapeStr(resultShape)
                         << " does not match layout "
                         << stringifyGemmLayout(getLayout()) << " of A "
                         << shapeStr(as) << " and B " << shapeStr(bs)
                         << ": expected " << shapeStr(expected);

  if (Value bias = getBias()) {
    ArrayRef<int64_t> biasShape = getShapeOf(bias.getType());
    if (biasShape.size() != 1 || !dimsCompatible(biasShape[0], n))
      return emitOpError() << "bias must have shape [N] = "
                           << shapeStr(ArrayRef<int64_t>(n)) << ", got "
                           << shapeStr(biasShape);
  }

  auto quantized = dyn_cast<QTensorType>(resultType);
  if (Value acc = getAccumulate()) {
    if (quantized)
      return emitOpError() << "cannot accumulate into a quantized result";
    if (acc.getType() != resultType)
      return emitOpError() << "accumulator type " << acc.getType()
                           << " must be the result type " << resultType;
  }

  bool delayedOut = false;
  if (quantized) {
    if (!quantized.hasRowwise())
      return emitOpError() << "writes a quantized result rowwise, but its "
                              "usage is "
                           << stringifyUsage(quantized.getUsage());
    fmt::QuantizerConfig out = configOf(quantized.getQuantizer());
    if (out.stochasticRounding)
      return emitOpError() << "does not support an output quantizer with "
                              "stochastic rounding";
    delayedOut = fmt::recipeTraits(out.recipe).liveScale;
  }
  if (delayedOut && !getOutScale())
    return emitOpError() << "with a #te.delayed output quantizer needs its "
                            "live 'scale' operand";
  if (delayedOut && !getAmax())
    return emitOpError() << "with a #te.delayed output quantizer yields the "
                            "output amax: add a tensor<1xf32> result";
  if (!delayedOut && getOutScale())
    return emitOpError()
           << "takes a 'scale' operand only with a #te.delayed output "
              "quantizer";
  if (!delayedOut && getAmax())
    return emitOpError()
           << "yields an amax only with a #te.delayed output quantizer";
  return success();
}

//===----------------------------------------------------------------------===//
// LinearOp
//===----------------------------------------------------------------------===//

LogicalResult
LinearOp::inferReturnTypes(MLIRContext *context,
                           std::optional<Location> location, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
  const LinearOp::Properties &props = adaptor.getProperties();
  DictionaryAttr attrs = adaptor.getAttributes();
  auto inputQ = inherentAttr<QuantizerAttrInterface>(props.input_quantizer,
                                                     attrs, "input_quantizer");
  auto weightQ = inherentAttr<QuantizerAttrInterface>(
      props.weight_quantizer, attrs, "weight_quantizer");
  auto outputQ = inherentAttr<QuantizerAttrInterface>(
      props.output_quantizer, attrs, "output_quantizer");
  bool cacheWeight = inherentAttr<UnitAttr>(props.cache_weight, attrs,
                                            "cache_weight") != nullptr;
  if (!input || !weight)
    return emitOptionalError(location, "te.linear needs ranked tensor "
                                       "operands (input, weight)");
  if (!inputQ || !weightQ)
    return emitOptionalError(location,
                             "te.linear needs the quantizer attribute '",
                             !inputQ ? "input_quantizer" : "weight_quantizer",
                             "' (e.g. #te.mxfp8<f8E4M3FN>)");
  if (input.getRank() < 1 || weight.getRank() != 2)
    return emitOptionalError(location,
                             "te.linear needs an input [..., in_features] "
                             "and a weight [out_features, in_features]");
  SmallVector<int64_t> outShape(input.getShape().drop_back());
  outShape.push_back(weight.getDimSize(0));
  StringRef name = LinearOp::getOperationName();
  if (outputQ) {
    FailureOr<QTensorType> output =
        inferQTensor(context, location, name, "output", outShape,
                     input.getElementType(), outputQ, Usage::Rowwise);
    if (failed(output))
      return failure();
    inferredReturnTypes.push_back(*output);
  } else {
    inferredReturnTypes.push_back(
        RankedTensorType::get(outShape, input.getElementType()));
  }
  // The input is checked with the usages Linear quantizes it with, as the op
  // verifier does; the weight is saved with its own (fprop and dgrad).
  const fmt::LinearQuantizedUsages quantized = fmt::linearQuantizedUsages();
  FailureOr<QTensorType> savedInput =
      inferQTensor(context, location, name, "quantized input", input.getShape(),
                   input.getElementType(), inputQ, fromFormat(quantized.input));
  FailureOr<QTensorType> savedWeight;
  if (succeeded(savedInput))
    savedWeight = inferQTensor(context, location, name, "quantized weight",
                               weight.getShape(), weight.getElementType(),
                               weightQ, fromFormat(quantized.weight));
  if (failed(savedInput) || failed(savedWeight))
    return failure();
  inferredReturnTypes.push_back(
      savedInput->withUsage(fromFormat(fmt::linearSavedUsages().input)));
  inferredReturnTypes.push_back(*savedWeight);
  if (cacheWeight)
    inferredReturnTypes.push_back(*savedWeight);
  return success();
}

LogicalResult LinearOp::verify() {
  auto input = getInput().getType();
  auto weight = getWeight().getType();
  if (input.getRank() < 2)
    return emitOpError() << "needs an input of rank >= 2 ([..., "
                            "in_features]), got "
                         << shapeStr(input.getShape());
  ArrayRef<int64_t> ws = weight.getShape();
  if (!dimsCompatible(input.getShape().back(), ws[1]))
    return emitOpError() << "input " << shapeStr(input.getShape()) << " has "
                         << input.getShape().back() << " features, the weight "
                         << shapeStr(ws) << " expects " << ws[1];
  int64_t inFeatures = isDynamic(ws[1]) ? input.getShape().back() : ws[1];
  if (failed(verifyLinearAlignment(*this, input.getShape().drop_back(),
                                   inFeatures, ws[0])))
    return failure();
  if (Value bias = getBias()) {
    ArrayRef<int64_t> bs = getShapeOf(bias.getType());
    if (bs.size() != 1 || !dimsCompatible(bs[0], ws[0]))
      return emitOpError() << "bias must have shape [out_features] = "
                           << shapeStr(ws.take_front()) << ", got "
                           << shapeStr(bs);
  }

  QuantizerAttrInterface inputQ = getInputQuantizer();
  QuantizerAttrInterface weightQ = getWeightQuantizer();
  QuantizerAttrInterface outputQ = getOutputQuantizerAttr();
  if (failed(verifyNotDelayed(*this, "input_quantizer", inputQ)) ||
      failed(verifyNotDelayed(*this, "weight_quantizer", weightQ)) ||
      failed(verifyNotDelayed(*this, "output_quantizer", outputQ)))
    return failure();
  if (failed(verifyGemmOperandPair(*this, "fprop GEMM", "input_quantizer",
                                   configOf(inputQ), "weight_quantizer",
                                   configOf(weightQ))))
    return failure();
  if (failed(verifyRandomOperands(*this,
                                  roundsStochastically(inputQ) ||
                                      roundsStochastically(weightQ) ||
                                      roundsStochastically(outputQ),
                                  getSeed(), getOffset())))
    return failure();

  if (getWorkspace() && getCacheWeight())
    return emitOpError() << "takes either a 'workspace' (reuse the cached "
                            "weight) or 'cache_weight' (refresh it), not both";
  QTensorType savedWeight = getSavedWeight().getType();
  if (Value workspace = getWorkspace())
    if (workspace.getType() != savedWeight)
      return emitOpError() << "workspace type " << workspace.getType()
                           << " must be the quantized weight type "
                           << savedWeight;

  if (auto out = dyn_cast<QTensorType>(getOutput().getType()))
    if (failed(verifyQTensor(*this, "output", out)))
      return failure();
  QTensorType savedInput = getSavedInput().getType();
  if (failed(verifyQTensor(*this, "quantized input", savedInput.getShape(),
                           savedInput.getElementType(),
                           savedInput.getQuantizer(),
                           fromFormat(fmt::linearQuantizedUsages().input))) ||
      failed(verifyQTensor(*this, "quantized weight", savedWeight)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// LinearGradOp
//===----------------------------------------------------------------------===//

LogicalResult LinearGradOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto gradOutput =
      dyn_cast<RankedTensorType>(adaptor.getGradOutput().getType());
  auto savedWeight = dyn_cast<QTensorType>(adaptor.getSavedWeight().getType());
  if (!gradOutput)
    return emitOptionalError(location, "te.linear_grad needs a ranked tensor "
                                       "grad_output");
  if (!savedWeight)
    return emitOptionalError(location, "te.linear_grad needs a quantized "
                                       "saved weight (!te.qtensor)");
  if (gradOutput.getRank() < 1 || savedWeight.getRank() != 2)
    return emitOptionalError(location,
                             "te.linear_grad needs a grad_output [..., "
                             "out_features] and a saved weight "
                             "[out_features, in_features]");
  const LinearGradOp::Properties &props = adaptor.getProperties();
  DictionaryAttr attrs = adaptor.getAttributes();
  auto gradInputQ = inherentAttr<QuantizerAttrInterface>(
      props.grad_input_quantizer, attrs, "grad_input_quantizer");
  bool hasBias =
      inherentAttr<UnitAttr>(props.has_bias, attrs, "has_bias") != nullptr;
  ArrayRef<int64_t> ws = savedWeight.getShape();
  Type elementType = gradOutput.getElementType();
  SmallVector<int64_t> dgradShape(gradOutput.getShape().drop_back());
  dgradShape.push_back(ws[1]);
  if (gradInputQ) {
    FailureOr<QTensorType> dgrad = inferQTensor(
        context, location, LinearGradOp::getOperationName(), "dgrad",
        dgradShape, elementType, gradInputQ, Usage::Rowwise);
    if (failed(dgrad))
      return failure();
    inferredReturnTypes.push_back(*dgrad);
  } else
    inferredReturnTypes.push_back(
        RankedTensorType::get(dgradShape, elementType));
  inferredReturnTypes.push_back(RankedTensorType::get(ws, elementType));
  if (hasBias)
    inferredReturnTypes.push_back(
        RankedTensorType::get(ws.take_front(), elementType));
  return success();
}

LogicalResult LinearGradOp::verify() {
  auto gradOutput = getGradOutput().getType();
  QTensorType savedInput = getSavedInput().getType();
  QTensorType savedWeight = getSavedWeight().getType();
  if (gradOutput.getRank() < 2)
    return emitOpError() << "needs a grad_output of rank >= 2 ([..., "
                            "out_features]), got "
                         << shapeStr(gradOutput.getShape());
  const fmt::LinearSavedUsages reads = fmt::linearSavedUsages();
  Usage inputReads = fromFormat(reads.input);
  Usage weightReads = fromFormat(reads.weight);
  if (!bitEnumContainsAll(savedInput.getUsage(), inputReads))
    return emitOpError() << "needs the saved input with "
                         << stringifyUsage(inputReads)
                         << " usage (wgrad reads it transposed), got "
                         << stringifyUsage(savedInput.getUsage());
  if (!bitEnumContainsAll(savedWeight.getUsage(), weightReads))
    return emitOpError() << "needs the saved weight with "
                         << stringifyUsage(weightReads)
                         << " usage (dgrad reads it transposed), got "
                         << stringifyUsage(savedWeight.getUsage());

  ArrayRef<int64_t> gs = gradOutput.getShape(), xs = savedInput.getShape(),
                    ws = savedWeight.getShape();
  if (xs.size() != gs.size())
    return emitOpError() << "needs the saved input of the rank of grad_output ("
                         << gs.size() << "), got " << shapeStr(xs);
  if (!dimsCompatible(gs.back(), ws[0]))
    return emitOpError() << "grad_output " << shapeStr(gs) << " has "
                         << gs.back() << " features, the weight "
                         << shapeStr(ws) << " has out_features = " << ws[0];
  if (!dimsCompatible(xs.back(), ws[1]))
    return emitOpError() << "saved input " << shapeStr(xs) << " has "
                         << xs.back() << " features, the weight "
                         << shapeStr(ws) << " has in_features = " << ws[1];
  if (!shapesCompatible(gs.drop_back(), xs.drop_back()))
    return emitOpError() << "grad_output " << shapeStr(gs)
                         << " and saved input " << shapeStr(xs)
                         << " differ in their leading dimensions";
  if (failed(verifyLinearAlignment(*this, gs.drop_back(), ws[1], ws[0])))
    return failure();

  QuantizerAttrInterface gradOutputQ = getGradOutputQuantizer();
  QuantizerAttrInterface gradInputQ = getGradInputQuantizerAttr();
  if (failed(verifyNotDelayed(*this, "grad_output_quantizer", gradOutputQ)) ||
      failed(verifyNotDelayed(*this, "grad_input_quantizer", gradInputQ)) ||
      failed(
          verifyNotDelayed(*this, "saved input", savedInput.getQuantizer())) ||
      failed(
          verifyNotDelayed(*this, "saved weight", savedWeight.getQuantizer())))
    return failure();
  fmt::QuantizerConfig gradConfig = configOf(gradOutputQ);
  if (failed(verifyGemmOperandPair(*this, "dgrad GEMM", "grad_output_quantizer",
                                   gradConfig, "saved weight",
                                   configOf(savedWeight.getQuantizer()))) ||
      failed(verifyGemmOperandPair(*this, "wgrad GEMM", "grad_output_quantizer",
                                   gradConfig, "saved input",
                                   configOf(savedInput.getQuantizer()))))
    return failure();
  if (failed(verifyRandomOperands(*this,
                                  roundsStochastically(gradOutputQ) ||
                                      roundsStochastically(gradInputQ),
                                  getSeed(), getOffset())))
    return failure();

  if (failed(verifyQTensor(
          *this, "quantized grad_output", gs, gradOutput.getElementType(),
          gradOutputQ, fromFormat(fmt::linearQuantizedUsages().gradOutput))))
    return failure();
  if (auto dgrad = dyn_cast<QTensorType>(getDgrad().getType()))
    if (failed(verifyQTensor(*this, "dgrad", dgrad)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// UpdateScaleOp
//===----------------------------------------------------------------------===//

LogicalResult UpdateScaleOp::verify() {
  auto history = getHistory().getType();
  if (history.getRank() != 1)
    return emitOpError() << "needs a rank-1 amax history, got "
                         << shapeStr(history.getShape());
  int64_t length = history.getDimSize(0);
  if (!isDynamic(length) && length != getQuantizer().getHistory())
    return emitOpError() << "amax history has length " << length
                         << " but the quantizer's history is "
                         << getQuantizer().getHistory();
  return success();
}

//===----------------------------------------------------------------------===//
// AllReduceMaxOp
//===----------------------------------------------------------------------===//

LogicalResult AllReduceMaxOp::verify() {
  if (getGroup().empty())
    return emitOpError() << "needs a non-empty process group name";
  return success();
}

//===----------------------------------------------------------------------===//
// EmptyOp
//===----------------------------------------------------------------------===//

LogicalResult EmptyOp::verify() {
  QTensorType type = getResult().getType();
  if (static_cast<int64_t>(getDynamicSizes().size()) !=
      type.getNumDynamicDims())
    return emitOpError() << "needs " << type.getNumDynamicDims()
                         << " dynamic size operand(s) for " << type << ", got "
                         << getDynamicSizes().size();
  return success();
}

//===----------------------------------------------------------------------===//
// BuffersOp / FromBuffersOp
//===----------------------------------------------------------------------===//

/// Checks that `types` are the buffers of `type` on the op's target.
static LogicalResult verifyBufferTypes(Operation *op, QTensorType type,
                                       TypeRange types) {
  Target target = getTarget(op);
  FailureOr<SmallVector<QTensorBuffer>> buffers =
      type.getBuffers(target, [&] { return op->emitOpError(); });
  if (failed(buffers))
    return failure();
  if (buffers->size() != types.size()) {
    std::string names;
    llvm::interleave(
        *buffers, [&](const QTensorBuffer &b) { names += b.name; },
        [&] { names += ", "; });
    return op->emitOpError() << "expects " << buffers->size() << " buffers for "
                             << type << " on " << stringifyTarget(target)
                             << " (" << names << "), got " << types.size();
  }
  for (auto [i, buffer, actual] : llvm::enumerate(*buffers, types))
    if (buffer.type != actual)
      return op->emitOpError()
             << "buffer #" << i << " (" << buffer.name << ") of " << type
             << " on " << stringifyTarget(target) << " has type " << buffer.type
             << ", got " << actual;
  return success();
}

LogicalResult BuffersOp::verify() {
  return verifyBufferTypes(*this, getInput().getType(),
                           getBuffers().getTypes());
}

LogicalResult BuffersOp::fold(FoldAdaptor,
                              SmallVectorImpl<OpFoldResult> &results) {
  auto from = getInput().getDefiningOp<FromBuffersOp>();
  if (!from ||
      !llvm::equal(from.getBuffers().getTypes(), getBuffers().getTypes()))
    return failure();
  for (Value buffer : from.getBuffers())
    results.push_back(buffer);
  return success();
}

LogicalResult FromBuffersOp::verify() {
  return verifyBufferTypes(*this, getResult().getType(),
                           getBuffers().getTypes());
}

OpFoldResult FromBuffersOp::fold(FoldAdaptor) {
  if (getBuffers().empty())
    return {};
  auto source = getBuffers().front().getDefiningOp<BuffersOp>();
  if (!source || source.getInput().getType() != getResult().getType() ||
      source.getNumResults() != getBuffers().size())
    return {};
  for (auto [i, buffer] : llvm::enumerate(getBuffers()))
    if (buffer != source.getResult(i))
      return {};
  return source.getInput();
}

//===----------------------------------------------------------------------===//
// Logical shapes of buffer-level operands
//===----------------------------------------------------------------------===//

/// `[` (integer | `?`) (`,` ...)* `]`: a logical shape whose dynamic
/// extents print as `?`, as in a tensor type.
static ParseResult parseLogicalShape(OpAsmParser &parser,
                                     DenseI64ArrayAttr &attr) {
  SmallVector<int64_t> dims;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
            if (succeeded(parser.parseOptionalQuestion())) {
              dims.push_back(ShapedType::kDynamic);
              return success();
            }
            SMLoc loc = parser.getCurrentLocation();
            int64_t dim;
            if (parser.parseInteger(dim))
              return failure();
            if (dim < 0)
              return parser.emitError(loc)
                     << "expected a non-negative extent or '?', got " << dim;
            dims.push_back(dim);
            return success();
          }))
    return failure();
  attr = DenseI64ArrayAttr::get(parser.getContext(), dims);
  return success();
}

static void printLogicalShape(OpAsmPrinter &printer, Operation *,
                              DenseI64ArrayAttr attr) {
  printer << '[';
  llvm::interleaveComma(attr.asArrayRef(), printer, [&](int64_t dim) {
    if (ShapedType::isDynamic(dim))
      printer << '?';
    else
      printer << dim;
  });
  printer << ']';
}

//===----------------------------------------------------------------------===//
// CheckSizeOp
//===----------------------------------------------------------------------===//

LogicalResult CheckSizeOp::verify() {
  if (getMessage().empty())
    return emitOpError("expected a message naming the size it checks");
  if (getAtLeast() && getAtMost())
    return emitOpError("expected one relation, 'at_least' or 'at_most'");
  return success();
}

bool CheckSizeOp::holds(int64_t size, int64_t expected) {
  if (getAtLeast())
    return size >= expected;
  if (getAtMost())
    return size <= expected;
  return size == expected;
}

LogicalResult CheckSizeOp::canonicalize(CheckSizeOp op,
                                        PatternRewriter &rewriter) {
  bool holds = op.getSize() == op.getExpected();
  if (!holds) {
    std::optional<int64_t> size = getConstantIntValue(op.getSize());
    std::optional<int64_t> expected = getConstantIntValue(op.getExpected());
    if (!size || !expected)
      return failure();
    holds = op.holds(*size, *expected);
  }
  if (!holds)
    return failure();
  rewriter.eraseOp(op);
  return success();
}

std::string CheckSizeOp::locationText(Location loc) {
  std::string text;
  loc->walk([&](Location l) {
    if (auto file = dyn_cast<FileLineColLoc>(l)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (text.empty()) {
    llvm::raw_string_ostream os(text);
    loc.print(os);
  }
  return text;
}

/// `eq`, `ge` (the unit attribute `at_least`) or `le` (`at_most`).
static ParseResult parseSizeRelation(OpAsmParser &parser, UnitAttr &atLeast,
                                     UnitAttr &atMost) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  if (keyword == "ge")
    atLeast = parser.getBuilder().getUnitAttr();
  else if (keyword == "le")
    atMost = parser.getBuilder().getUnitAttr();
  else if (keyword != "eq")
    return parser.emitError(loc)
           << "expected 'eq', 'ge' or 'le', got '" << keyword << "'";
  return success();
}

static void printSizeRelation(OpAsmPrinter &printer, Operation *,
                              UnitAttr atLeast, UnitAttr atMost) {
  printer << (atLeast ? "ge" : atMost ? "le" : "eq");
}

#define GET_OP_CLASSES
#include "te/Dialect/TE/IR/TEOps.cpp.inc"
