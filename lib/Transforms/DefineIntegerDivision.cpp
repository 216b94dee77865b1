//===- DefineIntegerDivision.cpp - Division by zero without a trap --------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-define-integer-division: every integer division or remainder whose
// divisor may be 0 (or -1 for a signed one) gets the results XLA defines for
// a division by zero and for the one signed overflow, on every target, so
// that it neither traps (x86 raises SIGFPE) nor differs between the cpu and
// the cuda backend.
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

#define DEBUG_TYPE "te-define-integer-division"

namespace mlir::te {
#define GEN_PASS_DEF_TEDEFINEINTEGERDIVISION
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

namespace {

/// A constant of `type` (an integer, an index or a vector of them) with
/// every element `value`.
Value splat(OpBuilder &b, Location loc, Type type, const APInt &value) {
  auto attr = IntegerAttr::get(getElementTypeOrSelf(type), value);
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(vector, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

/// The width of integers of `type` (index: the lowering's 64 bits).
unsigned widthOf(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
}

/// Whether `op` is a division or remainder the pass defines, and whether it
/// is signed and a remainder.
bool classify(Operation *op, bool &isSigned, bool &isRemainder) {
  isSigned = isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
                 arith::FloorDivSIOp>(op);
  isRemainder = isa<arith::RemSIOp, arith::RemUIOp>(op);
  return isSigned ||
         isa<arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp>(op);
}

/// Whether the divisor is a constant that needs no guard: not 0, and not -1
/// for a signed division.
bool safeConstant(Value divisor, bool isSigned) {
  APInt value;
  if (!matchPattern(divisor, m_ConstantInt(&value)))
    return false;
  return !value.isZero() && !(isSigned && value.isAllOnes());
}

struct TEDefineIntegerDivisionPass
    : public te::impl::TEDefineIntegerDivisionBase<
          TEDefineIntegerDivisionPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      bool isSigned, isRemainder;
      if (!classify(op, isSigned, isRemainder))
        return;
      Type type = op->getResult(0).getType();
      if (!(type.isSignlessIntOrIndex() || isa<VectorType>(type)))
        return;
      if (!safeConstant(op->getOperand(1), isSigned))
        ops.push_back(op);
    });
    if (ops.empty()) {
      markAllAnalysesPreserved();
      return;
    }
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      bool isSigned, isRemainder;
      classify(op, isSigned, isRemainder);
      rewriter.setInsertionPoint(op);
      Location loc = op->getLoc();
      Type type = op->getResult(0).getType();
      unsigned bits = widthOf(type);
      Value lhs = op->getOperand(0), rhs = op->getOperand(1);
      Value zero = splat(rewriter, loc, type, APInt(bits, 0));
      Value one = splat(rewriter, loc, type, APInt(bits, 1));
      Value allOnes = splat(rewriter, loc, type, APInt::getAllOnes(bits));
      auto eq = [&](Value x, Value y) -> Value {
        return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, x,
                                     y);
      };
      // A divisor of 1 where the result is defined otherwise: by zero, and
      // INT_MIN / -1, whose quotient by 1 (INT_MIN) and remainder by 1 (0)
      // are the defined ones.
      Value smallest =
          isSigned ? splat(rewriter, loc, type, APInt::getSignedMinValue(bits))
                   : Value();
      Value byZero = eq(rhs, zero);
      Value replace = byZero;
      if (isSigned) {
        Value isSmallest = eq(lhs, smallest);
        Value isMinusOne = eq(rhs, allOnes);
        Value overflow =
            arith::AndIOp::create(rewriter, loc, isSmallest, isMinusOne);
        replace = arith::OrIOp::create(rewriter, loc, byZero, overflow);
      }
      Value divisor = arith::SelectOp::create(rewriter, loc, replace, one, rhs);
      rewriter.modifyOpInPlace(op, [&] { op->setOperand(1, divisor); });
      rewriter.setInsertionPointAfter(op);
      Value result = op->getResult(0);
      auto defined = arith::SelectOp::create(
          rewriter, loc, byZero, isRemainder ? lhs : allOnes, result);
      rewriter.replaceAllUsesExcept(result, defined.getResult(), defined);
      ++numDefined;
    }
  }
};

} // namespace
