//===- TEAttrs.cpp - te quantizer and target attributes ---------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Quantizer attributes share one syntax:
//   `#te.` recipe `<` element-type (`,` key `=` value)* `>`
// read and written from Format's description of it (QuantizerSyntax.h: the
// fields, their spelling and defaults), which te-quantize reads too. Fields
// equal to their default are omitted when printing. Legality of a
// configuration is decided by the Format library (verifyConfig).
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEAttrs.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Format/QuantizerSyntax.h"

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

/// The value of field `f` after `key =`, into `config`.
ParseResult parseFieldValue(AsmParser &parser, StringRef mnemonic,
                            const fmt::QuantizerField &f,
                            fmt::QuantizerConfig &config) {
  switch (f.kind) {
  case fmt::FieldKind::Bool: {
    bool value = false;
    if (parseBool(parser, mnemonic, f.name, value))
      return failure();
    f.setInt(config, value);
    return success();
  }
  case fmt::FieldKind::Int:
  case fmt::FieldKind::Mask: {
    // An int32, or a uint32 mask.
    auto parseInteger = [&](auto value) -> ParseResult {
      if (parseInt(parser, mnemonic, f.name, value))
        return failure();
      f.setInt(config, static_cast<int64_t>(value));
      return success();
    };
    return f.kind == fmt::FieldKind::Int ? parseInteger(int32_t(0))
                                         : parseInteger(uint32_t(0));
  }
  case fmt::FieldKind::Float: {
    APFloat value = makeFloat(0.0f);
    if (parseF32(parser, mnemonic, f.name, value))
      return failure();
    f.setFloat(config, toFloat(value));
    return success();
  }
  case fmt::FieldKind::Keyword: {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (succeeded(parser.parseOptionalKeyword(&keyword)))
      for (size_t i = 0; i < f.keywords.size(); ++i)
        if (keyword == f.keywords[i]) {
          f.setInt(config, static_cast<int64_t>(i));
          return success();
        }
    return fieldError(parser, loc, mnemonic, f.name, fmt::keywordList(f));
  }
  }
  return failure();
}

/// Parses `< element-type (, field = value)* >` of `recipe` in Format's
/// quantizer syntax into `config`; fields not written take their defaults.
ParseResult parseQuantizer(AsmParser &parser, fmt::Recipe recipe, Type &dtype,
                           fmt::QuantizerConfig &config) {
  const fmt::RecipeSyntax &syntax = fmt::recipeSyntax(recipe);
  StringRef mnemonic = syntax.mnemonic;
  if (parser.parseLess() || parser.parseType(dtype))
    return failure();
  config = fmt::syntaxStart(syntax, getQuantizedFormatType(dtype).value_or(
                                        fmt::defaultConfig(recipe).dtype));
  std::vector<bool> written(syntax.fields.size(), false);
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return failure();
    const fmt::QuantizerField *f = fmt::findField(syntax, key.str());
    if (!f) {
      InFlightDiagnostic diag = parser.emitError(loc);
      diag << "unknown field '" << key << "' of #te." << mnemonic
           << ", expected one of: ";
      llvm::interleaveComma(
          syntax.fields, diag,
          [&](const fmt::QuantizerField &g) { diag << g.name; });
      return diag;
    }
    size_t index = static_cast<size_t>(f - syntax.fields.data());
    if (written[index])
      return parser.emitError(loc) << "field '" << key << "' of #te."
                                   << mnemonic << " is given twice";
    written[index] = true;
    if (parser.parseEqual() || parseFieldValue(parser, mnemonic, *f, config))
      return failure();
  }
  fmt::completeSyntaxDefaults(syntax, written, config);
  return parser.parseGreater();
}

/// Prints `< element-type (, field = value)* >` of `config` in Format's
/// quantizer syntax, without the fields equal to their default.
void printQuantizer(AsmPrinter &printer, Type dtype,
                    const fmt::QuantizerConfig &config) {
  printer << "<" << dtype;
  FieldPrinter fields{printer};
  for (const fmt::QuantizerField &f : fmt::recipeSyntax(config.recipe).fields) {
    if (fmt::isDefaultField(f, config))
      continue;
    switch (f.kind) {
    case fmt::FieldKind::Bool:
      fields.boolean(f.name, f.getInt(config) != 0);
      break;
    case fmt::FieldKind::Int:
      fields.field(f.name).printer << f.getInt(config);
      break;
    case fmt::FieldKind::Mask:
      fields.field(f.name).printer << llvm::format_hex(
          static_cast<uint64_t>(f.getInt(config)), 6, /*Upper=*/true);
      break;
    case fmt::FieldKind::Float:
      fields.real(f.name, makeFloat(f.getFloat(config)));
      break;
    case fmt::FieldKind::Keyword:
      fields.field(f.name).printer
          << f.keywords[static_cast<size_t>(f.getInt(config))];
      break;
    }
  }
  printer << ">";
}
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
  SMLoc loc = parser.getCurrentLocation();
  Type dtype;
  fmt::QuantizerConfig c;
  if (parseQuantizer(parser, fmt::Recipe::Delayed, dtype, c))
    return {};
  return parser.getChecked<DelayedAttr>(loc, parser.getContext(), dtype,
                                        c.margin, c.historyLength,
                                        fromFormat(c.amaxAlgo));
}

void DelayedAttr::print(AsmPrinter &printer) const {
  printQuantizer(printer, getDtype(), getFormatConfig());
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
  SMLoc loc = parser.getCurrentLocation();
  Type dtype;
  fmt::QuantizerConfig c;
  if (parseQuantizer(parser, fmt::Recipe::Current, dtype, c))
    return {};
  return parser.getChecked<CurrentAttr>(loc, parser.getContext(), dtype,
                                        c.pow2Scales, makeFloat(c.amaxEpsilon));
}

void CurrentAttr::print(AsmPrinter &printer) const {
  printQuantizer(printer, getDtype(), getFormatConfig());
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
  SMLoc loc = parser.getCurrentLocation();
  Type dtype;
  fmt::QuantizerConfig c;
  if (parseQuantizer(parser, fmt::Recipe::Block, dtype, c))
    return {};
  return parser.getChecked<BlockAttr>(loc, parser.getContext(), dtype,
                                      c.blockDim, c.pow2Scales,
                                      makeFloat(c.amaxEpsilon));
}

void BlockAttr::print(AsmPrinter &printer) const {
  printQuantizer(printer, getDtype(), getFormatConfig());
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
  SMLoc loc = parser.getCurrentLocation();
  Type dtype;
  fmt::QuantizerConfig c;
  if (parseQuantizer(parser, fmt::Recipe::MXFP8, dtype, c))
    return {};
  return parser.getChecked<MXFP8Attr>(loc, parser.getContext(), dtype, c.mx2D,
                                      fromFormat(c.e8m0Rounding));
}

void MXFP8Attr::print(AsmPrinter &printer) const {
  printQuantizer(printer, getDtype(), getFormatConfig());
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
  SMLoc loc = parser.getCurrentLocation();
  Type dtype;
  fmt::QuantizerConfig c;
  if (parseQuantizer(parser, fmt::Recipe::NVFP4, dtype, c))
    return {};
  return parser.getChecked<NVFP4Attr>(
      loc, parser.getContext(), dtype, c.rht, c.rhtSignMask, c.nvfp4_2D,
      c.stochasticRounding, c.rowScaled, c.use4over6, makeFloat(c.e4m3Max),
      fromFormat(c.errMode));
}

void NVFP4Attr::print(AsmPrinter &printer) const {
  printQuantizer(printer, getDtype(), getFormatConfig());
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
