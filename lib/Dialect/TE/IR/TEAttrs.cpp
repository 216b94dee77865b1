//===- TEAttrs.cpp - te quantizer and target attributes ---------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Quantizer attributes share one syntax:
//   `#te.` recipe `<` element-type (`,` key `=` value)* `>`
// Fields equal to their default are omitted when printing. Legality of a
// configuration is decided by the Format library (verifyConfig).
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEAttrs.h"
#include "te/Dialect/TE/IR/TEDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <charconv>
#include <cmath>

using namespace mlir;
using namespace mlir::te;
namespace fmt = ::te::format;

#define GET_ATTRDEF_CLASSES
#include "te/Dialect/TE/IR/TEAttrs.cpp.inc"

void TEDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "te/Dialect/TE/IR/TEAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The value of an fp32 field (fields are stored as APFloat so that they hash
/// and compare bitwise).
static float toFloat(const APFloat &value) {
  APFloat single = value;
  bool losesInfo = false;
  single.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                 &losesInfo);
  return single.convertToFloat();
}

static bool isPositiveZero(const APFloat &value) {
  return value.isZero() && !value.isNegative();
}

static APFloat makeFloat(float value) { return APFloat(value); }

/// The quantized element type of a quantizer, or std::nullopt after emitting
/// an error.
static std::optional<fmt::DType>
verifyQuantizedType(function_ref<InFlightDiagnostic()> emitError, Type dtype) {
  std::optional<fmt::DType> result = getQuantizedFormatType(dtype);
  if (!result)
    emitError() << "quantized element type must be f8E4M3FN, f8E5M2 or "
                   "f4E2M1FN, got "
                << dtype;
  return result;
}

/// The shortest decimal of `value` ("300", "1e-06", "inf"), for messages.
static std::string floatText(float value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return ec == std::errc() ? std::string(buffer, end) : std::string("?");
}

/// `amax_epsilon` of #te.current / #te.block: finite and >= 0.
static LogicalResult
verifyAmaxEpsilon(function_ref<InFlightDiagnostic()> emitError,
                  StringRef mnemonic, const APFloat &amaxEpsilon) {
  float epsilon = toFloat(amaxEpsilon);
  if (std::isfinite(epsilon) && epsilon >= 0.0f)
    return success();
  return emitError() << "'amax_epsilon' of #te." << mnemonic
                     << " must be finite and >= 0, got " << floatText(epsilon);
}

/// Emits Format's verdict on `config`.
static LogicalResult
verifyFormatConfig(function_ref<InFlightDiagnostic()> emitError,
                   const fmt::QuantizerConfig &config) {
  std::string error = fmt::verifyConfig(config);
  if (error.empty())
    return success();
  return emitError() << error;
}

namespace {
/// Parses `< element-type (, key = value)* >`; `parseField` is called after
/// `key =` for every known key, each at most once.
ParseResult parseQuantizer(AsmParser &parser, StringRef mnemonic, Type &dtype,
                           ArrayRef<StringRef> keys,
                           function_ref<ParseResult(StringRef)> parseField) {
  if (parser.parseLess() || parser.parseType(dtype))
    return failure();
  llvm::SmallSet<StringRef, 8> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return failure();
    if (!llvm::is_contained(keys, key))
      return parser.emitError(loc)
             << "unknown field '" << key << "' of #te." << mnemonic
             << ", expected one of: " << llvm::join(keys, ", ");
    if (!seen.insert(key).second)
      return parser.emitError(loc) << "field '" << key << "' of #te."
                                   << mnemonic << " is given twice";
    if (parser.parseEqual() || parseField(key))
      return failure();
  }
  return parser.parseGreater();
}

/// The token at `loc` as the user spelled it (a string literal with its
/// quotes), for messages about a field's value.
StringRef spellingAt(SMLoc loc) {
  StringRef rest(loc.getPointer());
  if (rest.starts_with("\"")) {
    size_t close = rest.find('"', 1);
    return rest.take_front(close == StringRef::npos ? rest.size() : close + 1)
        .take_front(40);
  }
  auto endsToken = [](char c) {
    return StringRef(",<>()[]{} \t\r\n").contains(c);
  };
  return rest.take_until(endsToken).take_front(40);
}

/// Reports a field value of the wrong kind, echoing it.
ParseResult fieldError(AsmParser &parser, SMLoc loc, StringRef mnemonic,
                       StringRef key, StringRef expected) {
  InFlightDiagnostic diag = parser.emitError(loc);
  diag << "expected " << expected << " for '" << key << "' of #te." << mnemonic;
  StringRef spelling = spellingAt(loc);
  if (!spelling.empty())
    diag << ", got '" << spelling << "'";
  return diag;
}

ParseResult parseBool(AsmParser &parser, StringRef mnemonic, StringRef key,
                      bool &value) {
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalKeyword("true"))) {
    value = true;
    return success();
  }
  if (succeeded(parser.parseOptionalKeyword("false"))) {
    value = false;
    return success();
  }
  return fieldError(parser, loc, mnemonic, key, "'true' or 'false'");
}

/// An integer field. MLIR's integer parser also reads `true` and `false`
/// (as i1 values): they are refused here, as is anything but an integer
/// literal.
template <typename IntT>
ParseResult parseInt(AsmParser &parser, StringRef mnemonic, StringRef key,
                     IntT &value) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef spelling = spellingAt(loc);
  if (spelling == "true" || spelling == "false")
    return fieldError(parser, loc, mnemonic, key, "an integer");
  APInt parsed;
  OptionalParseResult result = parser.parseOptionalInteger(parsed);
  if (!result.has_value())
    return fieldError(parser, loc, mnemonic, key, "an integer");
  if (failed(*result))
    return failure();
  // The parsed value is signed, with a bit to spare for positive values.
  constexpr unsigned bits = sizeof(IntT) * 8;
  bool fits = std::is_signed_v<IntT>
                  ? parsed.getSignificantBits() <= bits
                  : !parsed.isNegative() && parsed.getActiveBits() <= bits;
  if (!fits)
    return fieldError(parser, loc, mnemonic, key,
                      std::is_signed_v<IntT> ? "a 32-bit integer"
                                             : "a 32-bit unsigned integer");
  value = static_cast<IntT>(std::is_signed_v<IntT> ? parsed.getSExtValue()
                                                   : parsed.getZExtValue());
  return success();
}

/// An fp32 field: a float or integer literal (MLIR's float syntax).
ParseResult parseF32(AsmParser &parser, StringRef mnemonic, StringRef key,
                     APFloat &value) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef spelling = spellingAt(loc);
  if (spelling.empty() || !(llvm::isDigit(spelling.front()) ||
                            StringRef("+-.").contains(spelling.front())))
    return fieldError(parser, loc, mnemonic, key, "a number");
  return parser.parseFloat(APFloat::IEEEsingle(), value);
}

template <typename EnumT>
ParseResult
parseEnum(AsmParser &parser, StringRef mnemonic, StringRef key, EnumT &value,
          std::optional<EnumT> (*symbolize)(StringRef), StringRef expected) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (failed(parser.parseOptionalKeyword(&keyword)))
    return fieldError(parser, loc, mnemonic, key, expected);
  std::optional<EnumT> parsed = symbolize(keyword);
  if (!parsed)
    return fieldError(parser, loc, mnemonic, key, expected);
  value = *parsed;
  return success();
}

/// Prints `, key = value` fields.
struct FieldPrinter {
  AsmPrinter &printer;
  FieldPrinter &field(StringRef key) {
    printer << ", " << key << " = ";
    return *this;
  }
  void boolean(StringRef key, bool value) {
    field(key).printer << (value ? "true" : "false");
  }
  void real(StringRef key, const APFloat &value) {
    printF32(field(key).printer, value);
  }
  /// The shortest decimal that reads back as the same fp32 value, written as
  /// an MLIR float literal ("1.0e-06", "448.0").
  static void printF32(AsmPrinter &printer, const APFloat &value) {
    float f = toFloat(value);
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), f);
    if (!std::isfinite(f) || ec != std::errc()) {
      printer.printFloat(value);
      return;
    }
    std::string text(buffer, end);
    if (text.find('.') == std::string::npos) {
      size_t exponent = text.find('e');
      text.insert(exponent == std::string::npos ? text.size() : exponent, ".0");
    }
    printer << text;
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// DelayedAttr
//===----------------------------------------------------------------------===//

static fmt::QuantizerConfig delayedConfig(fmt::DType dtype, int margin,
                                          int history, AmaxAlgo algo) {
  fmt::QuantizerConfig config;
  config.recipe = fmt::Recipe::Delayed;
  config.dtype = dtype;
  config.margin = margin;
  config.historyLength = history;
  config.amaxAlgo = toFormat(algo);
  return config;
}

Attribute DelayedAttr::parse(AsmParser &parser, Type) {
  Type dtype;
  int margin = 0, history = 1024;
  AmaxAlgo algo = AmaxAlgo::Max;
  SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic = getMnemonic();
  if (parseQuantizer(parser, mnemonic, dtype, {"margin", "history", "algo"},
                     [&](StringRef key) {
                       if (key == "margin")
                         return parseInt(parser, mnemonic, key, margin);
                       if (key == "history")
                         return parseInt(parser, mnemonic, key, history);
                       return parseEnum(parser, mnemonic, key, algo,
                                        symbolizeAmaxAlgo,
                                        "'max' or 'most_recent'");
                     }))
    return {};
  return parser.getChecked<DelayedAttr>(loc, parser.getContext(), dtype, margin,
                                        history, algo);
}

void DelayedAttr::print(AsmPrinter &printer) const {
  printer << "<" << getDtype();
  FieldPrinter fields{printer};
  if (getMargin() != 0)
    fields.field("margin").printer << getMargin();
  if (getHistory() != 1024)
    fields.field("history").printer << getHistory();
  if (getAlgo() != AmaxAlgo::Max)
    fields.field("algo").printer << stringifyAmaxAlgo(getAlgo());
  printer << ">";
}

LogicalResult DelayedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type dtype, int margin, int history,
                                  AmaxAlgo algo) {
  std::optional<fmt::DType> type = verifyQuantizedType(emitError, dtype);
  if (!type)
    return failure();
  if (history < 1)
    return emitError() << "'history' of #te.delayed (the amax history "
                          "length) must be >= 1, got "
                       << history;
  if (margin < 0)
    return emitError() << "'margin' of #te.delayed must be >= 0, got "
                       << margin;
  return verifyFormatConfig(emitError,
                            delayedConfig(*type, margin, history, algo));
}

fmt::QuantizerConfig DelayedAttr::getFormatConfig() const {
  return delayedConfig(
      getQuantizedFormatType(getDtype()).value_or(fmt::DType::E4M3),
      getMargin(), getHistory(), getAlgo());
}

//===----------------------------------------------------------------------===//
// CurrentAttr
//===----------------------------------------------------------------------===//

static fmt::QuantizerConfig currentConfig(fmt::DType dtype, bool pow2Scales,
                                          const APFloat &amaxEpsilon) {
  fmt::QuantizerConfig config;
  config.recipe = fmt::Recipe::Current;
  config.dtype = dtype;
  config.pow2Scales = pow2Scales;
  config.amaxEpsilon = toFloat(amaxEpsilon);
  return config;
}

Attribute CurrentAttr::parse(AsmParser &parser, Type) {
  Type dtype;
  bool pow2Scales = false;
  APFloat amaxEpsilon = makeFloat(0.0f);
  SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic = getMnemonic();
  if (parseQuantizer(parser, mnemonic, dtype, {"pow2_scales", "amax_epsilon"},
                     [&](StringRef key) {
                       if (key == "pow2_scales")
                         return parseBool(parser, mnemonic, key, pow2Scales);
                       return parseF32(parser, mnemonic, key, amaxEpsilon);
                     }))
    return {};
  return parser.getChecked<CurrentAttr>(loc, parser.getContext(), dtype,
                                        pow2Scales, amaxEpsilon);
}

void CurrentAttr::print(AsmPrinter &printer) const {
  printer << "<" << getDtype();
  FieldPrinter fields{printer};
  if (getPow2Scales())
    fields.boolean("pow2_scales", true);
  if (!isPositiveZero(getAmaxEpsilon()))
    fields.real("amax_epsilon", getAmaxEpsilon());
  printer << ">";
}

LogicalResult CurrentAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type dtype, bool pow2Scales,
                                  APFloat amaxEpsilon) {
  std::optional<fmt::DType> type = verifyQuantizedType(emitError, dtype);
  if (!type)
    return failure();
  if (failed(verifyAmaxEpsilon(emitError, getMnemonic(), amaxEpsilon)))
    return failure();
  return verifyFormatConfig(emitError,
                            currentConfig(*type, pow2Scales, amaxEpsilon));
}

fmt::QuantizerConfig CurrentAttr::getFormatConfig() const {
  return currentConfig(
      getQuantizedFormatType(getDtype()).value_or(fmt::DType::E4M3),
      getPow2Scales(), getAmaxEpsilon());
}

//===----------------------------------------------------------------------===//
// BlockAttr
//===----------------------------------------------------------------------===//

static fmt::QuantizerConfig blockConfig(fmt::DType dtype, int dims,
                                        bool pow2Scales,
                                        const APFloat &amaxEpsilon) {
  fmt::QuantizerConfig config;
  config.recipe = fmt::Recipe::Block;
  config.dtype = dtype;
  config.blockDim = dims;
  config.pow2Scales = pow2Scales;
  config.amaxEpsilon = toFloat(amaxEpsilon);
  return config;
}

Attribute BlockAttr::parse(AsmParser &parser, Type) {
  Type dtype;
  int dims = 1;
  bool pow2Scales = true;
  APFloat amaxEpsilon = makeFloat(0.0f);
  SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic = getMnemonic();
  if (parseQuantizer(parser, mnemonic, dtype,
                     {"dims", "pow2_scales", "amax_epsilon"},
                     [&](StringRef key) {
                       if (key == "dims")
                         return parseInt(parser, mnemonic, key, dims);
                       if (key == "pow2_scales")
                         return parseBool(parser, mnemonic, key, pow2Scales);
                       return parseF32(parser, mnemonic, key, amaxEpsilon);
                     }))
    return {};
  return parser.getChecked<BlockAttr>(loc, parser.getContext(), dtype, dims,
                                      pow2Scales, amaxEpsilon);
}

void BlockAttr::print(AsmPrinter &printer) const {
  printer << "<" << getDtype();
  FieldPrinter fields{printer};
  if (getDims() != 1)
    fields.field("dims").printer << getDims();
  if (!getPow2Scales())
    fields.boolean("pow2_scales", false);
  if (!isPositiveZero(getAmaxEpsilon()))
    fields.real("amax_epsilon", getAmaxEpsilon());
  printer << ">";
}

LogicalResult BlockAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                Type dtype, int dims, bool pow2Scales,
                                APFloat amaxEpsilon) {
  std::optional<fmt::DType> type = verifyQuantizedType(emitError, dtype);
  if (!type)
    return failure();
  if (dims != 1 && dims != 2)
    return emitError() << "'dims' of #te.block must be 1 (1x128 blocks) or 2 "
                          "(128x128 blocks), got "
                       << dims;
  if (failed(verifyAmaxEpsilon(emitError, getMnemonic(), amaxEpsilon)))
    return failure();
  return verifyFormatConfig(emitError,
                            blockConfig(*type, dims, pow2Scales, amaxEpsilon));
}

fmt::QuantizerConfig BlockAttr::getFormatConfig() const {
  return blockConfig(
      getQuantizedFormatType(getDtype()).value_or(fmt::DType::E4M3), getDims(),
      getPow2Scales(), getAmaxEpsilon());
}

//===----------------------------------------------------------------------===//
// MXFP8Attr
//===----------------------------------------------------------------------===//

static fmt::QuantizerConfig mxfp8Config(fmt::DType dtype, bool block2D,
                                        E8M0Rounding rounding) {
  fmt::QuantizerConfig config;
  config.recipe = fmt::Recipe::MXFP8;
  config.dtype = dtype;
  config.mx2D = block2D;
  config.e8m0Rounding = toFormat(rounding);
  return config;
}

Attribute MXFP8Attr::parse(AsmParser &parser, Type) {
  Type dtype;
  bool block2D = false;
  E8M0Rounding rounding = E8M0Rounding::Up;
  SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic = getMnemonic();
  if (parseQuantizer(parser, mnemonic, dtype, {"block_2d", "e8m0_rounding"},
                     [&](StringRef key) {
                       if (key == "block_2d")
                         return parseBool(parser, mnemonic, key, block2D);
                       return parseEnum(parser, mnemonic, key, rounding,
                                        symbolizeE8M0Rounding,
                                        "'up' or 'floor'");
                     }))
    return {};
  return parser.getChecked<MXFP8Attr>(loc, parser.getContext(), dtype, block2D,
                                      rounding);
}

void MXFP8Attr::print(AsmPrinter &printer) const {
  printer << "<" << getDtype();
  FieldPrinter fields{printer};
  if (getBlock2D())
    fields.boolean("block_2d", true);
  if (getE8m0Rounding() != E8M0Rounding::Up)
    fields.field("e8m0_rounding").printer
        << stringifyE8M0Rounding(getE8m0Rounding());
  printer << ">";
}

LogicalResult MXFP8Attr::verify(function_ref<InFlightDiagnostic()> emitError,
                                Type dtype, bool block2D,
                                E8M0Rounding rounding) {
  std::optional<fmt::DType> type = verifyQuantizedType(emitError, dtype);
  if (!type)
    return failure();
  return verifyFormatConfig(emitError, mxfp8Config(*type, block2D, rounding));
}

fmt::QuantizerConfig MXFP8Attr::getFormatConfig() const {
  return mxfp8Config(
      getQuantizedFormatType(getDtype()).value_or(fmt::DType::E4M3),
      getBlock2D(), getE8m0Rounding());
}

//===----------------------------------------------------------------------===//
// NVFP4Attr
//===----------------------------------------------------------------------===//

namespace {
/// TE's random sign mask (docs/formats.md §3.5), the default with RHT; without
/// RHT there is no mask.
constexpr uint32_t kDefaultRHTSignMask = 0xD7E8;

uint32_t defaultRHTSignMask(bool rht) { return rht ? kDefaultRHTSignMask : 0; }

struct NVFP4Fields {
  bool rht = false;
  uint32_t rhtSignMask = 0;
  bool block2D = false;
  bool stochasticRounding = false;
  bool rowScaled = false;
  bool fourOverSix = false;
  APFloat e4m3Max = makeFloat(448.0f);
  ErrMode errMode = ErrMode::MAE;
};
} // namespace

static fmt::QuantizerConfig nvfp4Config(fmt::DType dtype,
                                        const NVFP4Fields &f) {
  fmt::QuantizerConfig config;
  config.recipe = fmt::Recipe::NVFP4;
  config.dtype = dtype;
  config.rht = f.rht;
  config.rhtSignMask = f.rhtSignMask;
  config.nvfp4_2D = f.block2D;
  config.stochasticRounding = f.stochasticRounding;
  config.rowScaled = f.rowScaled;
  config.use4over6 = f.fourOverSix;
  config.e4m3Max = toFloat(f.e4m3Max);
  config.errMode = toFormat(f.errMode);
  return config;
}

Attribute NVFP4Attr::parse(AsmParser &parser, Type) {
  Type dtype;
  NVFP4Fields f;
  std::optional<uint32_t> mask;
  SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic = getMnemonic();
  if (parseQuantizer(parser, mnemonic, dtype,
                     {"rht", "rht_sign_mask", "block_2d", "stochastic_rounding",
                      "row_scaled", "four_over_six", "e4m3_max", "err_mode"},
                     [&](StringRef key) {
                       if (key == "rht")
                         return parseBool(parser, mnemonic, key, f.rht);
                       if (key == "rht_sign_mask")
                         return parseInt(parser, mnemonic, key, mask.emplace());
                       if (key == "block_2d")
                         return parseBool(parser, mnemonic, key, f.block2D);
                       if (key == "stochastic_rounding")
                         return parseBool(parser, mnemonic, key,
                                          f.stochasticRounding);
                       if (key == "row_scaled")
                         return parseBool(parser, mnemonic, key, f.rowScaled);
                       if (key == "four_over_six")
                         return parseBool(parser, mnemonic, key, f.fourOverSix);
                       if (key == "e4m3_max")
                         return parseF32(parser, mnemonic, key, f.e4m3Max);
                       return parseEnum(parser, mnemonic, key, f.errMode,
                                        symbolizeErrMode, "'mae' or 'mse'");
                     }))
    return {};
  f.rhtSignMask = mask.value_or(defaultRHTSignMask(f.rht));
  return parser.getChecked<NVFP4Attr>(
      loc, parser.getContext(), dtype, f.rht, f.rhtSignMask, f.block2D,
      f.stochasticRounding, f.rowScaled, f.fourOverSix, f.e4m3Max, f.errMode);
}

void NVFP4Attr::print(AsmPrinter &printer) const {
  printer << "<" << getDtype();
  FieldPrinter fields{printer};
  if (getRht())
    fields.boolean("rht", true);
  if (getRhtSignMask() != defaultRHTSignMask(getRht()))
    fields.field("rht_sign_mask").printer
        << llvm::format_hex(getRhtSignMask(), 6, /*Upper=*/true);
  if (getBlock2D())
    fields.boolean("block_2d", true);
  if (getStochasticRounding())
    fields.boolean("stochastic_rounding", true);
  if (getRowScaled())
    fields.boolean("row_scaled", true);
  if (getFourOverSix())
    fields.boolean("four_over_six", true);
  if (!getE4m3Max().bitwiseIsEqual(makeFloat(448.0f)))
    fields.real("e4m3_max", getE4m3Max());
  if (getErrMode() != ErrMode::MAE)
    fields.field("err_mode").printer << stringifyErrMode(getErrMode());
  printer << ">";
}

LogicalResult NVFP4Attr::verify(function_ref<InFlightDiagnostic()> emitError,
                                Type dtype, bool rht, uint32_t rhtSignMask,
                                bool block2D, bool stochasticRounding,
                                bool rowScaled, bool fourOverSix,
                                APFloat e4m3Max, ErrMode errMode) {
  std::optional<fmt::DType> type = verifyQuantizedType(emitError, dtype);
  if (!type)
    return failure();
  NVFP4Fields f{rht,       rhtSignMask, block2D, stochasticRounding,
                rowScaled, fourOverSix, e4m3Max, errMode};
  // Single fields, in the attribute's spelling; Format checks the rest.
  if (rhtSignMask >= (1u << 16))
    return emitError() << "'rht_sign_mask' of #te.nvfp4 must be below "
                          "0x10000 (one sign bit per row of the 16x16 "
                          "Hadamard matrix), got "
                       << llvm::formatv("{0:X}", rhtSignMask).str();
  if (rhtSignMask != 0 && !rht)
    return emitError() << "'rht_sign_mask' of #te.nvfp4 needs rht = true";
  float max = toFloat(e4m3Max);
  if (max != 448.0f && max != 256.0f)
    return emitError() << "'e4m3_max' of #te.nvfp4 must be 448.0 or 256.0, "
                          "got "
                       << floatText(max);
  if (max == 256.0f && !fourOverSix)
    return emitError()
           << "'e4m3_max' = 256.0 of #te.nvfp4 needs four_over_six = true";
  if (errMode != ErrMode::MAE && !fourOverSix)
    return emitError() << "'err_mode' = " << stringifyErrMode(errMode)
                       << " of #te.nvfp4 needs four_over_six = true";
  return verifyFormatConfig(emitError, nvfp4Config(*type, f));
}

fmt::QuantizerConfig NVFP4Attr::getFormatConfig() const {
  NVFP4Fields f{
      getRht(),       getRhtSignMask(), getBlock2D(), getStochasticRounding(),
      getRowScaled(), getFourOverSix(), getE4m3Max(), getErrMode()};
  return nvfp4Config(
      getQuantizedFormatType(getDtype()).value_or(fmt::DType::E2M1x2), f);
}

//===----------------------------------------------------------------------===//
// Free functions
//===----------------------------------------------------------------------===//

Target mlir::te::getTarget(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (auto target =
            cur->getAttrOfType<TargetAttr>(TEDialect::getTargetAttrName()))
      return target.getValue();
  return Target::SM90;
}

QuantizerAttrInterface
mlir::te::getQuantizerAttr(MLIRContext *ctx, const fmt::QuantizerConfig &config,
                           function_ref<InFlightDiagnostic()> emitError) {
  std::string error = fmt::verifyConfig(config);
  if (!error.empty()) {
    if (emitError)
      emitError() << error;
    return {};
  }
  Type dtype = getQuantizedElementType(ctx, config.dtype);
  if (!dtype) {
    if (emitError)
      emitError() << "quantized element type must be E4M3, E5M2 or E2M1, got "
                  << fmt::dtypeName(config.dtype);
    return {};
  }
  switch (config.recipe) {
  case fmt::Recipe::Delayed:
    return DelayedAttr::get(ctx, dtype, config.margin, config.historyLength,
                            fromFormat(config.amaxAlgo));
  case fmt::Recipe::Current:
    return CurrentAttr::get(ctx, dtype, config.pow2Scales,
                            makeFloat(config.amaxEpsilon));
  case fmt::Recipe::Block:
    return BlockAttr::get(ctx, dtype, config.blockDim, config.pow2Scales,
                          makeFloat(config.amaxEpsilon));
  case fmt::Recipe::MXFP8:
    return MXFP8Attr::get(ctx, dtype, config.mx2D,
                          fromFormat(config.e8m0Rounding));
  case fmt::Recipe::NVFP4:
    return NVFP4Attr::get(
        ctx, dtype, config.rht, config.rhtSignMask, config.nvfp4_2D,
        config.stochasticRounding, config.rowScaled, config.use4over6,
        makeFloat(config.e4m3Max), fromFormat(config.errMode));
  }
  return {};
}
