//===- TEBufferOps.cpp - buffer-level te operations -------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Verifiers and memory effects of te.quantize_buffers, te.dequantize_buffers,
// te.gemm_buffers, te.amax_buffers, te.update_scale_buffers,
// te.allreduce_max_buffers, te.attention_buffers and
// te.attention_grad_buffers. The expected buffers are asked of the quantizer
// attribute (hence the Format library); the operand rules are those of
// te.quantize / te.dequantize / te.gemm / te.attention (AttentionOps.cpp).
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/ProducerProgram.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::te;
namespace fmt = ::te::format;

namespace {
/// Tensor or memref shape and element type of a buffer operand.
struct BufferShape {
  ArrayRef<int64_t> shape;
  Type elementType;
};
} // namespace

static BufferShape shapeOf(Type type) {
  auto shaped = cast<ShapedType>(type);
  if (!shaped.hasRank())
    return {{}, shaped.getElementType()};
  return {shaped.getShape(), shaped.getElementType()};
}

static bool compatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip_equal(a, b))
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return false;
  return true;
}

static std::string typeStr(ArrayRef<int64_t> shape, Type elementType) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
    os << "x";
  }
  os << elementType;
  return text;
}

/// All operands are tensors (tensor semantics) or all are memrefs (buffer
/// semantics); results exist exactly in tensor semantics.
static LogicalResult verifyDpsForm(Operation *op) {
  auto dps = cast<DestinationStyleOpInterface>(op);
  bool anyTensor = false, anyMemRef = false;
  for (Value operand : op->getOperands()) {
    anyTensor |= isa<TensorType>(operand.getType());
    anyMemRef |= isa<BaseMemRefType>(operand.getType());
  }
  if (anyTensor && anyMemRef)
    return op->emitOpError()
           << "mixes tensor and memref operands: all buffers are tensors "
              "(before bufferization) or all are memrefs (after)";
  if (anyMemRef && op->getNumResults() != 0)
    return op->emitOpError()
           << "on memrefs has no results, got " << op->getNumResults();
  if (!anyMemRef &&
      static_cast<int64_t>(op->getNumResults()) != dps.getNumDpsInits())
    return op->emitOpError()
           << "on tensors returns one result per 'outs' "
              "operand: expected "
           << dps.getNumDpsInits() << ", got " << op->getNumResults();
  return success();
}

/// Checks that `buffers` are the buffers of a tensor of logical `shape`
/// quantized with `quantizer` holding `usage` on the op's target, optionally
/// followed by `extra` (e.g. the amax of delayed scaling).
static LogicalResult verifyQuantizedBuffers(Operation *op, StringRef what,
                                            QuantizerAttrInterface quantizer,
                                            ArrayRef<int64_t> shape,
                                            Usage usage, ValueRange buffers,
                                            ArrayRef<BufferShape> extra = {}) {
  Target target = getTarget(op);
  FailureOr<SmallVector<QTensorBuffer>> layout = quantizer.getBufferLayout(
      shape, usage, target, [&] { return op->emitOpError() << what << ": "; });
  if (failed(layout))
    return failure();
  SmallVector<std::pair<std::string, BufferShape>> expected;
  for (const QTensorBuffer &buffer : *layout)
    expected.push_back(
        {buffer.name, {buffer.type.getShape(), buffer.type.getElementType()}});
  for (const BufferShape &e : extra)
    expected.push_back({"amax", e});
  if (expected.size() != buffers.size()) {
    std::string names;
    llvm::interleave(
        expected, [&](const auto &e) { names += e.first; },
        [&] { names += ", "; });
    return op->emitOpError() << what << " expects " << expected.size()
                             << " buffers on " << stringifyTarget(target)
                             << " (" << names << "), got " << buffers.size();
  }
  for (auto [i, e, buffer] : llvm::enumerate(expected, buffers)) {
    BufferShape actual = shapeOf(buffer.getType());
    if (actual.elementType != e.second.elementType ||
        !compatible(actual.shape, e.second.shape))
      return op->emitOpError()
             << what << " buffer #" << i << " (" << e.first << ") must be "
             << typeStr(e.second.shape, e.second.elementType) << " on "
             << stringifyTarget(target) << ", got "
             << typeStr(actual.shape, actual.elementType);
  }
  return success();
}

static bool isDelayed(QuantizerAttrInterface quantizer) {
  return quantizer &&
         fmt::recipeTraits(quantizer.getFormatConfig().recipe).liveScale;
}

static BufferShape amaxShape(MLIRContext *ctx) {
  static const int64_t one[] = {1};
  return {ArrayRef<int64_t>(one), Float32Type::get(ctx)};
}

static bool isFloat(Type type) {
  return type.isBF16() || type.isF16() || type.isF32();
}

static void
addEffects(Operation *op,
           SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
               &effects,
           bool initsAreRead) {
  auto dps = cast<DestinationStyleOpInterface>(op);
  if (dps.hasPureTensorSemantics())
    return;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<BaseMemRefType>(operand.get().getType()))
      continue;
    bool init = dps.isDpsInit(&operand);
    if (!init || initsAreRead)
      effects.emplace_back(MemoryEffects::Read::get(), &operand, /*stage=*/0,
                           /*effectOnFullRegion=*/true,
                           SideEffects::DefaultResource::get());
    if (init)
      effects.emplace_back(MemoryEffects::Write::get(), &operand, /*stage=*/0,
                           /*effectOnFullRegion=*/true,
                           SideEffects::DefaultResource::get());
  }
}

/// An emulated GEMM operand of an operand of logical `shape`: rows x cols
/// bf16 as one dimension (te.emulated_operand_buffers).
static LogicalResult verifyEmulatedOperand(Operation *op, StringRef what,
                                           Value operand,
                                           ArrayRef<int64_t> shape) {
  BufferShape actual = shapeOf(operand.getType());
  int64_t elements = 1;
  for (int64_t d : shape)
    elements = ShapedType::isDynamic(d) || ShapedType::isDynamic(elements)
                   ? ShapedType::kDynamic
                   : elements * d;
  SmallVector<int64_t, 1> expected = {elements};
  if (!actual.elementType.isBF16() || !compatible(actual.shape, expected))
    return op->emitOpError()
           << what << " must be "
           << typeStr(expected, BFloat16Type::get(op->getContext()))
           << " (the operand's rows x cols in bf16), got "
           << typeStr(actual.shape, actual.elementType);
  return success();
}

//===----------------------------------------------------------------------===//
// QuantizeBuffersOp
//===----------------------------------------------------------------------===//

LogicalResult QuantizeBuffersOp::verify() {
  if (failed(verifyDpsForm(*this)))
    return failure();
  BufferShape input = shapeOf(getInput().getType());
  if (!isFloat(input.elementType))
    return emitOpError() << "input must be bf16, f16 or f32, got "
                         << input.elementType;
  QuantizerAttrInterface quantizer = getQuantizer();
  fmt::QuantizerConfig config = quantizer.getFormatConfig();
  bool delayed = fmt::recipeTraits(config.recipe).liveScale;
  if (delayed != static_cast<bool>(getScale()))
    return emitOpError() << (delayed ? "with a #te.delayed quantizer needs "
                                       "the live 'scale' operand"
                                     : "takes a 'scale' operand only with a "
                                       "#te.delayed quantizer");
  if (config.stochasticRounding != (getSeed() && getOffset()) ||
      (static_cast<bool>(getSeed()) != static_cast<bool>(getOffset())))
    return emitOpError() << "takes 'seed' and 'offset' exactly when the "
                            "quantizer rounds stochastically";
  if (failed(verifyAmaxGroup(*this, getGroup(), quantizer)))
    return failure();
  SmallVector<BufferShape> extra;
  if (delayed)
    extra.push_back(amaxShape(getContext()));
  return verifyQuantizedBuffers(*this, "output", quantizer, input.shape,
                                getUsage(), getOuts(), extra);
}

void QuantizeBuffersOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addEffects(*this, effects, /*initsAreRead=*/false);
}

//===----------------------------------------------------------------------===//
// QuantizeProducedBuffersOp
//===----------------------------------------------------------------------===//

MutableOperandRange QuantizeProducedBuffersOp::getDpsInitsMutable() {
  // `outs` and `value_out` are adjacent operand segments.
  unsigned start = getODSOperandIndexAndLength(5).first;
  return MutableOperandRange(*this, start,
                             getOuts().size() + (getValueOut() ? 1 : 0));
}

SmallVector<OpFoldResult> QuantizeProducedBuffersOp::getMixedSizes() {
  SmallVector<OpFoldResult> sizes;
  Builder b(getContext());
  unsigned next = 0;
  for (int64_t d : getValueType().getShape()) {
    if (ShapedType::isDynamic(d) && next < getSizes().size())
      sizes.push_back(getSizes()[next++]);
    else
      sizes.push_back(b.getIndexAttr(d));
  }
  return sizes;
}

LogicalResult QuantizeProducedBuffersOp::verify() {
  if (failed(verifyDpsForm(*this)))
    return failure();
  RankedTensorType value = getValueType();
  if (value.getRank() == 0 || !isFloat(value.getElementType()))
    return emitOpError() << "value_type must be a ranked tensor of bf16, f16 "
                            "or f32 of rank 1 or more, got "
                         << value;
  if (getSizes().size() != static_cast<size_t>(value.getNumDynamicDims()))
    return emitOpError() << "needs one size per dynamic dimension of " << value
                         << ", got " << getSizes().size();
  if (getValueOut()) {
    BufferShape out = shapeOf(getValueOut().getType());
    if (out.elementType != value.getElementType() ||
        !compatible(out.shape, value.getShape()))
      return emitOpError() << "value_out must be "
                           << typeStr(value.getShape(), value.getElementType())
                           << ", got " << typeStr(out.shape, out.elementType);
  }
  ArrayRef<Attribute> maps = getIndexingMaps().getValue();
  if (maps.size() != getInputs().size())
    return emitOpError() << "needs one indexing map per input: "
                         << getInputs().size() << " inputs, " << maps.size()
                         << " maps";
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body needs one argument per input: "
                         << getInputs().size() << " inputs, "
                         << body.getNumArguments() << " arguments";
  for (auto [i, input, attr, arg] :
       llvm::enumerate(getInputs(), maps, body.getArguments())) {
    BufferShape in = shapeOf(input.getType());
    if (!cast<ShapedType>(input.getType()).hasRank())
      return emitOpError() << "input #" << i << " must be ranked";
    if (arg.getType() != in.elementType)
      return emitOpError() << "body argument #" << i << " must be "
                           << in.elementType << " (input #" << i
                           << "'s element type), got " << arg.getType();
    AffineMap map = cast<AffineMapAttr>(attr).getValue();
    std::string why;
    if (failed(getProducerInputLayout(map, value.getShape(), in.shape, &why)))
      return emitOpError() << "input #" << i
                           << " is not read at uniform row and column "
                              "strides of the value: "
                           << why;
    for (auto [j, expr] : llvm::enumerate(map.getResults()))
      if (auto d = dyn_cast<AffineDimExpr>(expr)) {
        int64_t loop = value.getDimSize(d.getPosition());
        if (!ShapedType::isDynamic(loop) &&
            !ShapedType::isDynamic(in.shape[j]) && loop != in.shape[j])
          return emitOpError()
                 << "input #" << i << " dimension " << j << " is "
                 << in.shape[j] << ", but loop d" << d.getPosition()
                 << " (dimension " << d.getPosition() << " of " << value
                 << ") is " << loop;
      }
  }
  auto produce = dyn_cast<ProduceOp>(body.getTerminator());
  if (!produce || produce.getValue().getType() != value.getElementType())
    return emitOpError() << "body must end in te.produce of a "
                         << value.getElementType() << " value";
  std::string why;
  Operation *where = nullptr;
  if (failed(encodeProducerProgram(body, &why, &where))) {
    InFlightDiagnostic d = emitOpError()
                           << "body is not a producer program: " << why;
    if (where)
      d.attachNote(where->getLoc()) << "here";
    return d;
  }
  QuantizerAttrInterface quantizer = getQuantizer();
  fmt::QuantizerConfig config = quantizer.getFormatConfig();
  bool delayed = config.recipe == fmt::Recipe::Delayed;
  if (delayed != static_cast<bool>(getScale()))
    return emitOpError() << (delayed ? "with a #te.delayed quantizer needs "
                                       "the live 'scale' operand"
                                     : "takes a 'scale' operand only with a "
                                       "#te.delayed quantizer");
  if (config.stochasticRounding != (getSeed() && getOffset()) ||
      (static_cast<bool>(getSeed()) != static_cast<bool>(getOffset())))
    return emitOpError() << "takes 'seed' and 'offset' exactly when the "
                            "quantizer rounds stochastically";
  SmallVector<BufferShape> extra;
  if (delayed)
    extra.push_back(amaxShape(getContext()));
  return verifyQuantizedBuffers(*this, "output", quantizer, value.getShape(),
                                getUsage(), getOuts(), extra);
}

void QuantizeProducedBuffersOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addEffects(*this, effects, /*initsAreRead=*/false);
}

//===----------------------------------------------------------------------===//
// DequantizeBuffersOp
//===----------------------------------------------------------------------===//

LogicalResult DequantizeBuffersOp::verify() {
  if (failed(verifyDpsForm(*this)))
    return failure();
  if (getOuts().size() != 1)
    return emitOpError() << "writes one high-precision tensor, got "
                         << getOuts().size() << " 'outs' operands";
  BufferShape out = shapeOf(getOuts().front().getType());
  if (!isFloat(out.elementType))
    return emitOpError() << "result must be bf16, f16 or f32, got "
                         << out.elementType;
  if (!bitEnumContainsAll(getUsage(), Usage::Rowwise) &&
      !fmt::columnwiseHoldsRowwiseValues(getQuantizer().getFormatConfig()))
    return emitOpError() << "needs rowwise usage: only per-tensor FP8 and "
                            "128x128-block tensors dequantize from "
                            "columnwise data";
  return verifyQuantizedBuffers(*this, "input", getQuantizer(), out.shape,
                                getUsage(), getInputs());
}

void DequantizeBuffersOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addEffects(*this, effects, /*initsAreRead=*/false);
}

//===----------------------------------------------------------------------===//
// GemmBuffersOp
//===----------------------------------------------------------------------===//

LogicalResult GemmBuffersOp::verify() {
  if (failed(verifyDpsForm(*this)))
    return failure();
  // The rules of te.gemm (Format's GEMM rules), then the buffers.
  fmt::GemmLayout layout = toFormat(getLayout());
  std::string error = fmt::verifyGemmUsages(layout, toFormat(getAUsage()),
                                            toFormat(getBUsage()));
  if (error.empty())
    error =
        fmt::verifyGemmOperands("GEMM", "A", getAQuantizer().getFormatConfig(),
                                "B", getBQuantizer().getFormatConfig());
  ArrayRef<int64_t> as = getAShape(), bs = getBShape();
  fmt::GemmShape shape;
  if (error.empty())
    error = fmt::gemmShape(layout, fmt::Shape(as.begin(), as.end()),
                           fmt::Shape(bs.begin(), bs.end()), &shape);
  if (!error.empty())
    return emitOpError() << error;
  if (failed(verifyQuantizedBuffers(*this, "operand A", getAQuantizer(),
                                    getAShape(), getAUsage(), getA())) ||
      failed(verifyQuantizedBuffers(*this, "operand B", getBQuantizer(),
                                    getBShape(), getBUsage(), getB())))
    return failure();
  if (getAEmulated() || getBEmulated()) {
    if (getTarget(*this) != Target::SM90 ||
        fmt::gemmEmulation(layout, getAQuantizer().getFormatConfig(),
                           getBQuantizer().getFormatConfig()) !=
            fmt::GemmEmulation::BF16)
      return emitOpError()
             << "takes emulated operands only for a GEMM emulated in bf16 on "
                "sm_90 (MXFP8; NVFP4 without per-row scales or an RHT that "
                "the GEMM does not cancel)";
    if ((getAEmulated() &&
         failed(verifyEmulatedOperand(*this, "'a_emulated'", getAEmulated(),
                                      getAShape()))) ||
        (getBEmulated() &&
         failed(verifyEmulatedOperand(*this, "'b_emulated'", getBEmulated(),
                                      getBShape()))))
      return failure();
  }
  // D's logical shape, as te.gemm infers it.
  ArrayRef<int64_t> dShape = shape.result;

  QuantizerAttrInterface outQ = getOutQuantizerAttr();
  if (!outQ) {
    if (getOutScale())
      return emitOpError() << "takes a 'scale' operand only with a "
                              "#te.delayed output quantizer";
    if (getOuts().size() != 1)
      return emitOpError() << "writes one high-precision D, got "
                           << getOuts().size() << " 'outs' operands";
    BufferShape d = shapeOf(getOuts().front().getType());
    if (!isFloat(d.elementType) || !compatible(d.shape, dShape))
      return emitOpError() << "D must be " << typeStr(dShape, d.elementType)
                           << " in bf16, f16 or f32, got "
                           << typeStr(d.shape, d.elementType);
    return success();
  }
  if (getAccumulate())
    return emitOpError() << "cannot accumulate into a quantized result";
  bool delayed = isDelayed(outQ);
  if (delayed != static_cast<bool>(getOutScale()))
    return emitOpError() << (delayed ? "with a #te.delayed output quantizer "
                                       "needs its live 'scale' operand"
                                     : "takes a 'scale' operand only with a "
                                       "#te.delayed output quantizer");
  SmallVector<BufferShape> extra;
  if (delayed)
    extra.push_back(amaxShape(getContext()));
  return verifyQuantizedBuffers(*this, "result", outQ, dShape, Usage::Rowwise,
                                getOuts(), extra);
}

void GemmBuffersOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addEffects(*this, effects, /*initsAreRead=*/getAccumulate());
}

//===----------------------------------------------------------------------===//
// EmulatedOperandBuffersOp
//===----------------------------------------------------------------------===//

LogicalResult EmulatedOperandBuffersOp::verify() {
  if (failed(verifyDpsForm(*this)))
    return failure();
  if (getOuts().size() != 1)
    return emitOpError() << "writes one bf16 operand, got " << getOuts().size()
                         << " 'outs' operands";
  fmt::Recipe recipe = getQuantizer().getFormatConfig().recipe;
  if (!fmt::recipeTraits(recipe).emulatedOnSM90)
    return emitOpError() << "emulated GEMM operands are MXFP8 or NVFP4, got "
                         << fmt::recipeFamilyName(recipe);
  if (getTarget(*this) != Target::SM90)
    return emitOpError() << "emulated GEMM operands exist on sm_90 only, "
                            "the module targets "
                         << stringifyTarget(getTarget(*this));
  if (getReads() != Usage::Rowwise && getReads() != Usage::Columnwise)
    return emitOpError() << "reads one copy, rowwise or columnwise, got '"
                         << stringifyUsage(getReads()) << "'";
  if (!bitEnumContainsAll(getUsage(), getReads()))
    return emitOpError() << "reads the " << stringifyUsage(getReads())
                         << " copy of a tensor holding only "
                         << stringifyUsage(getUsage());
  if (getShape().empty())
    return emitOpError() << "needs an operand of rank >= 1 (a GEMM operand)";
  if (failed(verifyEmulatedOperand(*this, "the output", getOuts().front(),
                                   getShape())))
    return failure();
  return verifyQuantizedBuffers(*this, "input", getQuantizer(), getShape(),
                                getUsage(), getInputs());
}

void EmulatedOperandBuffersOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addEffects(*this, effects, /*initsAreRead=*/false);
}

//===----------------------------------------------------------------------===//
// AmaxBuffersOp, UpdateScaleBuffersOp, AllReduceMaxBuffersOp
//===----------------------------------------------------------------------===//

/// Checks that `value` is a `1xf32` buffer.
static LogicalResult verifyF32x1(Operation *op, StringRef what, Value value) {
  BufferShape actual = shapeOf(value.getType());
  BufferShape want = amaxShape(op->getContext());
  if (actual.elementType != want.elementType ||
      !compatible(actual.shape, want.shape))
    return op->emitOpError() << what << " must be 1xf32, got "
                             << typeStr(actual.shape, actual.elementType);
  return success();
}

LogicalResult AmaxBuffersOp::verify() {
  if (failed(verifyDpsForm(*this)))
    return failure();
  BufferShape input = shapeOf(getInput().getType());
  if (!isFloat(input.elementType))
    return emitOpError() << "input must be bf16, f16 or f32, got "
                         << input.elementType;
  if (getOuts().size() != 1)
    return emitOpError() << "writes one amax, got " << getOuts().size()
                         << " 'outs' operands";
  return verifyF32x1(*this, "amax", getOuts().front());
}

void AmaxBuffersOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addEffects(*this, effects, /*initsAreRead=*/false);
}

LogicalResult UpdateScaleBuffersOp::verify() {
  if (failed(verifyDpsForm(*this)))
    return failure();
  if (getOuts().size() != 2)
    return emitOpError() << "writes the new history and the new scale, got "
                         << getOuts().size() << " 'outs' operands";
  int64_t length = getQuantizer().getHistory();
  for (auto [what, value] :
       {std::pair<StringRef, Value>{"history", getHistory()},
        std::pair<StringRef, Value>{"new history", getOuts()[0]}}) {
    BufferShape actual = shapeOf(value.getType());
    if (!actual.elementType.isF32() ||
        !compatible(actual.shape, ArrayRef<int64_t>{length}))
      return emitOpError() << what << " must be "
                           << typeStr({length}, Float32Type::get(getContext()))
                           << " (the quantizer's history), got "
                           << typeStr(actual.shape, actual.elementType);
  }
  if (failed(verifyF32x1(*this, "amax", getAmax())) ||
      failed(verifyF32x1(*this, "scale", getScale())) ||
      failed(verifyF32x1(*this, "new scale", getOuts()[1])))
    return failure();
  return success();
}

void UpdateScaleBuffersOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addEffects(*this, effects, /*initsAreRead=*/false);
}

LogicalResult AllReduceMaxBuffersOp::verify() {
  if (failed(verifyDpsForm(*this)))
    return failure();
  if (getGroup().empty())
    return emitOpError() << "needs a non-empty process group name";
  if (getOuts().size() != 1)
    return emitOpError() << "writes one buffer, got " << getOuts().size()
                         << " 'outs' operands";
  BufferShape input = shapeOf(getInput().getType());
  BufferShape out = shapeOf(getOuts().front().getType());
  if (!input.elementType.isF32() || !out.elementType.isF32() ||
      !compatible(input.shape, out.shape))
    return emitOpError() << "input and output must be f32 of one shape, got "
                         << typeStr(input.shape, input.elementType) << " and "
                         << typeStr(out.shape, out.elementType);
  return success();
}

void AllReduceMaxBuffersOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addEffects(*this, effects, /*initsAreRead=*/false);
  // It communicates: other ranks wait for it, so it is never dead.
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// AttentionBuffersOp, AttentionGradBuffersOp
//===----------------------------------------------------------------------===//

/// The ranked tensor or memref type of `v` (null for an unranked memref,
/// after an error naming `what`).
static ShapedType rankedType(Operation *op, StringRef what, Value v,
                             bool &failed) {
  auto t = cast<ShapedType>(v.getType());
  if (t.hasRank())
    return t;
  if (!failed)
    op->emitOpError() << what << " must be ranked, got " << v.getType();
  failed = true;
  return ShapedType();
}

static LogicalResult verifyAttentionScale(Operation *op, APFloat scale) {
  float s = scale.convertToFloat();
  if (!std::isfinite(s))
    return op->emitOpError() << "scale must be finite, got " << s;
  return success();
}

LogicalResult AttentionBuffersOp::verify() {
  if (failed(verifyDpsForm(*this)))
    return failure();
  if (getOuts().empty() || getOuts().size() > 2)
    return emitOpError() << "writes the output and optionally the lse, got "
                         << getOuts().size() << " 'outs' operands";
  bool bad = false;
  ShapedType q = rankedType(*this, "query", getQuery(), bad);
  ShapedType k = rankedType(*this, "key", getKey(), bad);
  ShapedType v = rankedType(*this, "value", getValue(), bad);
  ShapedType m =
      getMask() ? rankedType(*this, "mask", getMask(), bad) : ShapedType();
  ShapedType o = rankedType(*this, "output", getOuts()[0], bad);
  ShapedType lse = getOuts().size() == 2
                       ? rankedType(*this, "lse", getOuts()[1], bad)
                       : ShapedType();
  if (bad || failed(verifyAttentionOperands(*this, q, k, v, m)) ||
      failed(verifyAttentionScale(*this, getScale())) ||
      failed(verifyAttentionResult(
          *this, "output", o, attentionOutputShape(q, v), q.getElementType())))
    return failure();
  if (lse &&
      failed(verifyAttentionResult(*this, "lse", lse, q.getShape().drop_back(),
                                   Float32Type::get(getContext()))))
    return failure();
  return success();
}

void AttentionBuffersOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addEffects(*this, effects, /*initsAreRead=*/false);
}

LogicalResult AttentionGradBuffersOp::verify() {
  if (failed(verifyDpsForm(*this)))
    return failure();
  if (getOuts().size() != 3)
    return emitOpError() << "writes the gradients of the query, key and "
                            "value, got "
                         << getOuts().size() << " 'outs' operands";
  bool bad = false;
  ShapedType q = rankedType(*this, "query", getQuery(), bad);
  ShapedType k = rankedType(*this, "key", getKey(), bad);
  ShapedType v = rankedType(*this, "value", getValue(), bad);
  ShapedType o = rankedType(*this, "output", getOutput(), bad);
  ShapedType lse = rankedType(*this, "lse", getLse(), bad);
  ShapedType dout = rankedType(*this, "grad_output", getGradOutput(), bad);
  ShapedType m =
      getMask() ? rankedType(*this, "mask", getMask(), bad) : ShapedType();
  ShapedType dq = rankedType(*this, "grad_query", getOuts()[0], bad);
  ShapedType dk = rankedType(*this, "grad_key", getOuts()[1], bad);
  ShapedType dv = rankedType(*this, "grad_value", getOuts()[2], bad);
  if (bad ||
      failed(verifyAttentionGradOperands(*this, q, k, v, o, lse, dout, m)) ||
      failed(verifyAttentionScale(*this, getScale())))
    return failure();
  for (auto [what, grad, of] :
       {std::tuple<StringRef, ShapedType, ShapedType>{"grad_query", dq, q},
        {"grad_key", dk, k},
        {"grad_value", dv, v}})
    if (failed(verifyAttentionResult(*this, what, grad, of.getShape(),
                                     of.getElementType())))
      return failure();
  return success();
}

void AttentionGradBuffersOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addEffects(*this, effects, /*initsAreRead=*/false);
}
