//===- ExpandIntegerPowers.cpp - math.ipowi as multiplications ------------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-expand-integer-powers: every math.ipowi on signless integers of 2 bits
// or more (scalars or vectors) becomes straight-line exponentiation by
// squaring, with the negative-exponent results of upstream's outlined
// implementation (convert-math-to-funcs), which neither target can lower.
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

#define DEBUG_TYPE "te-expand-integer-powers"

namespace mlir::te {
#define GEN_PASS_DEF_TEEXPANDINTEGERPOWERS
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

namespace {

/// A constant of `type` (an integer or a vector of them) with every element
/// `value`.
Value splat(OpBuilder &b, Location loc, Type type, int64_t value) {
  Type element = getElementTypeOrSelf(type);
  auto attr = IntegerAttr::get(element, value);
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(vector, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

/// The expansion of `op` (TEExpandIntegerPowers' description).
Value expand(OpBuilder &b, math::IPowIOp op, unsigned bits) {
  Location loc = op.getLoc();
  Type type = op.getType();
  Value base = op.getLhs(), exponent = op.getRhs();
  Value zero = splat(b, loc, type, 0), one = splat(b, loc, type, 1),
        minusOne = splat(b, loc, type, -1);
  auto eq = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  };
  auto bitSet = [&](unsigned k) {
    Value shifted =
        arith::ShRUIOp::create(b, loc, exponent, splat(b, loc, type, k));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                 arith::AndIOp::create(b, loc, shifted, one),
                                 zero);
  };
  Value power = one, square = base;
  for (unsigned k = 0; k + 1 < bits; ++k) {
    Value product = arith::MulIOp::create(b, loc, power, square);
    power = arith::SelectOp::create(b, loc, bitSet(k), product, power);
    if (k + 2 < bits)
      square = arith::MulIOp::create(b, loc, square, square);
  }
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, exponent, zero);
  Value signOfMinusOne =
      arith::SelectOp::create(b, loc, bitSet(0), minusOne, one);
  Value ofNegative = arith::SelectOp::create(
      b, loc, eq(base, one), one,
      arith::SelectOp::create(b, loc, eq(base, minusOne), signOfMinusOne,
                              zero));
  return arith::SelectOp::create(b, loc, negative, ofNegative, power);
}

struct TEExpandIntegerPowersPass
    : public te::impl::TEExpandIntegerPowersBase<TEExpandIntegerPowersPass> {
  void runOnOperation() override {
    SmallVector<math::IPowIOp> ops;
    getOperation()->walk([&](math::IPowIOp op) {
      auto element = dyn_cast<IntegerType>(getElementTypeOrSelf(op.getType()));
      if (element && element.getWidth() >= 2 &&
          (isa<IntegerType>(op.getType()) || isa<VectorType>(op.getType())))
        ops.push_back(op);
    });
    if (ops.empty()) {
      markAllAnalysesPreserved();
      return;
    }
    IRRewriter rewriter(&getContext());
    for (math::IPowIOp op : ops) {
      rewriter.setInsertionPoint(op);
      unsigned bits =
          getElementTypeOrSelf(op.getType()).getIntOrFloatBitWidth();
      rewriter.replaceOp(op, expand(rewriter, op, bits));
      ++numExpanded;
    }
  }
};

} // namespace
