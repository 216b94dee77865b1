//===- TETypes.cpp - te dialect types ---------------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TETypes.h"
#include "te/Dialect/TE/IR/TEDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::te;
namespace fmt = ::te::format;

#define GET_TYPEDEF_CLASSES
#include "te/Dialect/TE/IR/TETypes.cpp.inc"

void TEDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "te/Dialect/TE/IR/TETypes.cpp.inc"
      >();
}

/// usage ::= keyword (`|` keyword)*
static ParseResult parseUsage(AsmParser &parser, Usage &usage) {
  usage = Usage::None;
  do {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<Usage> bit = symbolizeUsage(keyword);
    if (!bit)
      return parser.emitError(loc)
             << "expected usage 'rowwise', 'columnwise' or "
                "'rowwise|columnwise', got '"
             << keyword << "'";
    usage = usage | *bit;
  } while (succeeded(parser.parseOptionalVerticalBar()));
  return success();
}

Type QTensorType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma())
    return {};
  SMLoc quantizerLoc = parser.getCurrentLocation();
  Attribute attr;
  if (parser.parseAttribute(attr))
    return {};
  auto quantizer = dyn_cast<QuantizerAttrInterface>(attr);
  if (!quantizer) {
    parser.emitError(quantizerLoc)
        << "expected a quantizer attribute (#te.delayed, #te.current, "
           "#te.block, #te.mxfp8, #te.nvfp4), got "
        << attr;
    return {};
  }
  Usage usage;
  if (parser.parseComma() || parseUsage(parser, usage) || parser.parseGreater())
    return {};
  return parser.getChecked<QTensorType>(loc, parser.getContext(), shape,
                                        elementType, quantizer, usage);
}

void QTensorType::print(AsmPrinter &printer) const {
  printer << "<";
  // A 0-d tensor prints as its element type alone, like tensor<bf16>.
  if (!getShape().empty()) {
    printer.printDimensionList(getShape());
    printer << "x";
  }
  printer << getElementType() << ", ";
  printer.printAttribute(getQuantizer());
  printer << ", " << stringifyUsage(getUsage()) << ">";
}

LogicalResult QTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  QuantizerAttrInterface quantizer,
                                  Usage usage) {
  if (!elementType.isBF16() && !elementType.isF16() && !elementType.isF32())
    return emitError() << "!te.qtensor nominal type must be bf16, f16 or f32, "
                          "got "
                       << elementType;
  if (!quantizer)
    return emitError() << "!te.qtensor needs a quantizer";
  uint32_t bits = static_cast<uint32_t>(usage);
  if (bits == 0 || (bits & ~3u))
    return emitError() << "!te.qtensor usage must be rowwise, columnwise or "
                          "rowwise|columnwise";
  fmt::QuantizerConfig config = quantizer.getFormatConfig();
  // The nominal type is f32, f16 or bf16 (checked above); whether the
  // quantizer takes it is Format's rule (NVFP4 with RHT: bf16 only).
  if (!fmt::quantizerAcceptsInput(config, toFormat(usage),
                                  *getHighPrecisionFormatType(elementType)))
    return emitError() << "NVFP4 with RHT quantizes bf16 tensors only, got "
                       << elementType;
  if (failed(quantizer.verifyShape(shape, emitError)))
    return failure();
  // The padded buffers must have sizes too (Format's checked layout: "the
  // size of buffer _columnwise_scale_inv overflows int64"), on every target.
  for (Target target : {Target::SM90, Target::SM100})
    if (failed(quantizer.getBufferLayout(shape, usage, target, emitError)))
      return failure();
  return success();
}

QTensorType QTensorType::withUsage(Usage usage) const {
  return get(getContext(), getShape(), getElementType(), getQuantizer(), usage);
}

QTensorType QTensorType::withShape(ArrayRef<int64_t> shape) const {
  return get(getContext(), shape, getElementType(), getQuantizer(), getUsage());
}

RankedTensorType QTensorType::getNominalTensorType() const {
  return RankedTensorType::get(getShape(), getElementType());
}

FailureOr<SmallVector<QTensorBuffer>>
QTensorType::getBuffers(Target target,
                        function_ref<InFlightDiagnostic()> emitError) const {
  return getQuantizer().getBufferLayout(getShape(), getUsage(), target,
                                        emitError);
}

SmallVector<RankedTensorType> QTensorType::getBufferTypes(Target target) const {
  SmallVector<RankedTensorType> types;
  FailureOr<SmallVector<QTensorBuffer>> buffers = getBuffers(target);
  if (failed(buffers))
    return types;
  for (const QTensorBuffer &buffer : *buffers)
    types.push_back(buffer.type);
  return types;
}
