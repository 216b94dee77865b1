//===- ExpandFloat8Extensions.cpp - arith.extf from 8-bit floats ----------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-expand-float8-extensions: arith.extf from an 8-bit float type (f8E4M3FN,
// f8E5M2, their FNUZ variants, ...) becomes integer arithmetic on its bits,
// which every target lowers (MLIR 22 has no LLVM or NVVM lowering for these
// types; arith-expand covers f8E8M0FNU and f4E2M1FN only). The decoding's
// parameters and special values come from the type's APFloat semantics, and
// every one of the 256 codes is checked against APFloat's own conversion
// before a single op is rewritten. arith.truncf to such a type is an error
// that names the op: te.quantize is the conversion te lowers.
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/APFloat.h"

#include <cstring>
#include <optional>

#define DEBUG_TYPE "te-expand-float8-extensions"

namespace mlir::te {
#define GEN_PASS_DEF_TEEXPANDFLOAT8EXTENSIONS
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

namespace {

/// How the codes of an 8-bit float type decode to f32: sign, exponent and
/// mantissa fields, the exponent's bias, and the codes APFloat decodes to
/// something else (NaN, infinities, FNUZ's 0x80), with their f32 bits.
struct Decoding {
  unsigned mantissaBits;
  unsigned exponentBits;
  int bias;
  SmallVector<std::pair<uint32_t, uint32_t>> special;
};

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

/// The f32 bits of `code` by the field formula of `d`.
uint32_t byFormula(const Decoding &d, uint32_t code) {
  uint32_t sign = code >> 7;
  uint32_t exponent = (code >> d.mantissaBits) & ((1u << d.exponentBits) - 1);
  uint32_t mantissa = code & ((1u << d.mantissaBits) - 1);
  if (exponent == 0) {
    float v = std::ldexp(static_cast<float>(mantissa),
                         1 - d.bias - static_cast<int>(d.mantissaBits));
    return bitsOf(sign ? -v : v);
  }
  return (sign << 31) | ((exponent - d.bias + 127) << 23) |
         (mantissa << (23 - d.mantissaBits));
}

/// The decoding of `type`, or nullopt where the formula does not give
/// APFloat's value for every code (then nothing is rewritten).
std::optional<Decoding> decodingOf(FloatType type) {
  if (type.getWidth() != 8)
    return std::nullopt;
  const llvm::fltSemantics &sem = type.getFloatSemantics();
  if (!llvm::APFloat::semanticsHasSignedRepr(sem))
    return std::nullopt;
  Decoding d;
  d.mantissaBits = llvm::APFloat::semanticsPrecision(sem) - 1;
  if (d.mantissaBits >= 7)
    return std::nullopt;
  d.exponentBits = 7 - d.mantissaBits;
  d.bias = 1 - llvm::APFloat::semanticsMinExponent(sem);
  for (uint32_t code = 0; code < 256; ++code) {
    llvm::APFloat value(sem, llvm::APInt(8, code));
    bool lost = false;
    llvm::APFloat wide = value;
    wide.convert(llvm::APFloat::IEEEsingle(),
                 llvm::APFloat::rmNearestTiesToEven, &lost);
    uint32_t want = static_cast<uint32_t>(wide.bitcastToAPInt().getZExtValue());
    if (value.isNaN() || value.isInfinity()) {
      d.special.push_back({code, want});
      continue;
    }
    uint32_t got = byFormula(d, code);
    if (got != want) {
      // FNUZ types have no negative zero: 0x80 is their NaN (handled above);
      // anything else off the formula is a layout this pass does not know.
      return std::nullopt;
    }
  }
  return d;
}

/// A constant of `like`'s shape (a scalar or a vector) with element `attr`.
Value constantLike(OpBuilder &b, Location loc, Type like, TypedAttr attr) {
  if (auto vector = dyn_cast<VectorType>(like))
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vector.clone(attr.getType()), attr));
  return arith::ConstantOp::create(b, loc, attr);
}

/// `like`'s shape with element type `element`.
Type withElement(Type like, Type element) {
  if (auto vector = dyn_cast<VectorType>(like))
    return vector.clone(element);
  return element;
}

Value expand(OpBuilder &b, arith::ExtFOp op, const Decoding &d) {
  Location loc = op.getLoc();
  Type in = op.getIn().getType();
  Type i8 = withElement(in, b.getI8Type()),
       i32 = withElement(in, b.getI32Type()),
       f32 = withElement(in, b.getF32Type());
  auto c32 = [&](int64_t v) {
    return constantLike(b, loc, in, b.getI32IntegerAttr(v));
  };
  // One op per statement: the order of the ops does not depend on the
  // order in which a compiler evaluates arguments.
  Value byte = arith::BitcastOp::create(b, loc, i8, op.getIn());
  Value code = arith::ExtUIOp::create(b, loc, i32, byte);
  Value sign = arith::ShRUIOp::create(b, loc, code, c32(7));
  Value shifted = arith::ShRUIOp::create(b, loc, code, c32(d.mantissaBits));
  Value exponent =
      arith::AndIOp::create(b, loc, shifted, c32((1 << d.exponentBits) - 1));
  Value mantissa =
      arith::AndIOp::create(b, loc, code, c32((1 << d.mantissaBits) - 1));
  // Normal: the fields moved into f32's, the exponent rebased.
  Value rebased = arith::AddIOp::create(b, loc, exponent, c32(127 - d.bias));
  Value exponentField = arith::ShLIOp::create(b, loc, rebased, c32(23));
  Value mantissaField =
      arith::ShLIOp::create(b, loc, mantissa, c32(23 - d.mantissaBits));
  Value signField = arith::ShLIOp::create(b, loc, sign, c32(31));
  Value signExponent = arith::OrIOp::create(b, loc, signField, exponentField);
  Value normal = arith::OrIOp::create(b, loc, signExponent, mantissaField);
  // Subnormal: the mantissa times 2^(1 - bias - mantissa bits), signed.
  Value mantissaValue = arith::UIToFPOp::create(b, loc, f32, mantissa);
  Value smallest =
      constantLike(b, loc, in,
                   b.getF32FloatAttr(std::ldexp(
                       1.0f, 1 - d.bias - static_cast<int>(d.mantissaBits))));
  Value scaled = arith::MulFOp::create(b, loc, mantissaValue, smallest);
  Value negated = arith::NegFOp::create(b, loc, scaled);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, sign, c32(0));
  Value signedValue =
      arith::SelectOp::create(b, loc, negative, negated, scaled);
  Value subnormal = arith::BitcastOp::create(b, loc, i32, signedValue);
  Value isSubnormal =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, exponent, c32(0));
  Value bits = arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  for (auto [special, value] : d.special) {
    Value isSpecial = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            code, c32(special));
    Value specialBits = c32(static_cast<int32_t>(value));
    bits = arith::SelectOp::create(b, loc, isSpecial, specialBits, bits);
  }
  Value result = arith::BitcastOp::create(b, loc, f32, bits);
  // Every code is exact in f16, bf16 and f64 too.
  Type out = op.getType();
  unsigned width = getElementTypeOrSelf(out).getIntOrFloatBitWidth();
  if (width > 32)
    return arith::ExtFOp::create(b, loc, out, result);
  if (width < 32)
    return arith::TruncFOp::create(b, loc, out, result);
  return result;
}

/// Whether `type` is one of the types this pass is about: 8 bits and
/// smaller, other than those arith-expand lowers.
bool isNarrowFloat(Type type) {
  auto f = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  return f && f.getWidth() <= 8 && !isa<Float8E8M0FNUType, Float4E2M1FNType>(f);
}

struct TEExpandFloat8ExtensionsPass
    : public te::impl::TEExpandFloat8ExtensionsBase<
          TEExpandFloat8ExtensionsPass> {
  void runOnOperation() override {
    SmallVector<arith::ExtFOp> extensions;
    bool failed = false;
    getOperation()->walk([&](Operation *op) {
      if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
        Type in = ext.getIn().getType();
        if (isNarrowFloat(in) && (in.isIntOrFloat() || isa<VectorType>(in)))
          extensions.push_back(ext);
        return;
      }
      if (auto trunc = dyn_cast<arith::TruncFOp>(op))
        if (isNarrowFloat(trunc.getType())) {
          trunc.emitOpError("a conversion to ")
              << getElementTypeOrSelf(trunc.getType())
              << " has no lowering on any target (MLIR 22); quantize with "
                 "te.quantize (TransformerEngine's scaling and saturation)";
          failed = true;
        }
    });
    if (failed)
      return signalPassFailure();
    if (extensions.empty()) {
      markAllAnalysesPreserved();
      return;
    }
    IRRewriter rewriter(&getContext());
    for (arith::ExtFOp ext : extensions) {
      auto type = cast<FloatType>(getElementTypeOrSelf(ext.getIn().getType()));
      std::optional<Decoding> d = decodingOf(type);
      if (!d) {
        ext.emitOpError("a conversion from ")
            << type
            << " has no lowering on any target; dequantize with "
               "te.dequantize";
        return signalPassFailure();
      }
      rewriter.setInsertionPoint(ext);
      rewriter.replaceOp(ext, expand(rewriter, ext, *d));
      ++numExpanded;
    }
  }
};

} // namespace
