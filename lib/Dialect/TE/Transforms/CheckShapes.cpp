//===- CheckShapes.cpp - Run-time checks of dynamic sizes ------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-check-shapes: a te.check_size before every op whose operands must agree
// in a size the compiler does not know (Passes.td says which ops and
// sizes). Sizes are traced to the values that define them, so operands that
// agree by construction get no check; a check known to fail is an error.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "te/Dialect/TE/IR/BufferExtents.h"
#include "te/Dialect/TE/IR/TEAttrs.h"
#include "te/Dialect/TE/IR/TEInterfaces.h"
#include "te/Dialect/TE/IR/TEOps.h"
#include "te/Format/Gemm.h"

#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <limits>
#include <set>
#include <tuple>

#define DEBUG_TYPE "te-check-shapes"

namespace mlir::te {
#define GEN_PASS_DEF_TECHECKSHAPES
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

/// Whether `op` runs once each time its function's control flow reaches it
/// (not per element of a linalg op's or tensor.generate's body).
bool inControlFlow(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (isa<func::FuncOp>(parent))
      return true;
    if (!isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::ExecuteRegionOp,
             scf::IndexSwitchOp, affine::AffineForOp, affine::AffineIfOp>(
            parent))
      return false;
  }
  return false;
}

/// Places the checks of one op, before it.
class Checker {
public:
  Checker(Operation *op, unsigned &numChecks)
      : op(op), b(op), loc(op->getLoc()), numChecks(numChecks),
        where(op->getName().getStringRef().str() + " at " +
              CheckSizeOp::locationText(op->getLoc())) {}

  /// Whether a check is known to fail (an error was emitted).
  bool failedStatically() const { return staticFailure; }
  unsigned checksPlaced() const { return placed; }

  /// Dimension `dim` of the shaped value `v`: a constant, or the value that
  /// defines it (a tensor.empty's operand, a slice's size, the init an op's
  /// result is tied to), else a new tensor.dim / memref.dim.
  OpFoldResult sizeOf(Value v, int64_t dim) {
    auto type = cast<ShapedType>(v.getType());
    if (!type.isDynamicDim(dim))
      return b.getIndexAttr(type.getDimSize(dim));
    if (auto empty = v.getDefiningOp<tensor::EmptyOp>())
      return empty.getDynamicSize(dim);
    if (auto alloc = v.getDefiningOp<bufferization::AllocTensorOp>())
      return alloc.getDynamicSize(b, dim);
    if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>())
      if (slice.getSourceType().getRank() == slice.getResultType().getRank())
        return slice.getMixedSizes()[dim];
    if (auto cast = v.getDefiningOp<tensor::CastOp>())
      if (auto source = dyn_cast<RankedTensorType>(cast.getSource().getType()))
        return sizeOf(cast.getSource(), dim);
    if (auto result = dyn_cast<OpResult>(v))
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(result.getOwner()))
        if (dps.hasPureTensorSemantics())
          return sizeOf(dps.getTiedOpOperand(result)->get(), dim);
    if (isa<RankedTensorType>(type))
      return tensor::DimOp::create(b, loc, v, dim).getResult();
    return memref::DimOp::create(b, loc, v, dim).getResult();
  }

  /// Dimension `i` of `v` when `size` is a tensor.dim / memref.dim of a
  /// constant index.
  static std::optional<std::pair<Value, int64_t>> dimOf(OpFoldResult size) {
    auto v = dyn_cast<Value>(size);
    if (!v)
      return std::nullopt;
    if (auto dim = v.getDefiningOp<tensor::DimOp>())
      if (std::optional<int64_t> i = dim.getConstantIndex())
        return std::make_pair(dim.getSource(), *i);
    if (auto dim = v.getDefiningOp<memref::DimOp>())
      if (std::optional<int64_t> i = dim.getConstantIndex())
        return std::make_pair(dim.getSource(), *i);
    return std::nullopt;
  }

  /// Whether two sizes are one value (the same SSA value, or dims of one
  /// value at one index).
  static bool sameSize(OpFoldResult a, OpFoldResult b) {
    if (a == b)
      return true;
    std::optional<std::pair<Value, int64_t>> da = dimOf(a), db = dimOf(b);
    return da && db && *da == *db;
  }

  /// What identifies a size: its constant, the value and index it is a
  /// dimension of, or its value.
  static std::tuple<const void *, int64_t, int> sizeKey(OpFoldResult size) {
    if (std::optional<int64_t> c = getConstantIntValue(size))
      return {nullptr, *c, 0};
    if (std::optional<std::pair<Value, int64_t>> d = dimOf(size))
      return {d->first.getAsOpaquePointer(), d->second, 1};
    return {cast<Value>(size).getAsOpaquePointer(), 0, 2};
  }

  /// How a check compares its size with the expected one.
  enum class Relation { Equal, AtLeast, AtMost };

  /// `size` == `expected` (or >= with `atLeast`); `what` names `size`. A
  /// check placed before for the op is not repeated.
  void check(OpFoldResult size, OpFoldResult expected, bool atLeast,
             const Twine &what) {
    check(size, expected, atLeast ? Relation::AtLeast : Relation::Equal, what);
  }

  void check(OpFoldResult size, OpFoldResult expected, Relation relation,
             const Twine &what) {
    if (sameSize(size, expected))
      return;
    auto sizeId = sizeKey(size), expectedId = sizeKey(expected);
    if (relation == Relation::Equal && expectedId < sizeId)
      std::swap(sizeId, expectedId);
    if (!placedChecks.insert({sizeId, expectedId, static_cast<int>(relation)})
             .second)
      return;
    std::optional<int64_t> s = getConstantIntValue(size);
    std::optional<int64_t> e = getConstantIntValue(expected);
    if (s && e) {
      bool holds = relation == Relation::AtLeast  ? *s >= *e
                   : relation == Relation::AtMost ? *s <= *e
                                                  : *s == *e;
      if (holds)
        return;
      op->emitError() << what << " is " << *s << ", expected "
                      << (relation == Relation::AtLeast  ? "at least "
                          : relation == Relation::AtMost ? "at most "
                                                         : "")
                      << *e;
      staticFailure = true;
      return;
    }
    CheckSizeOp::create(
        b, loc, value(size), value(expected), relation == Relation::AtLeast,
        relation == Relation::AtMost, b.getStringAttr(where + ": " + what));
    ++placed;
    ++numChecks;
  }

  Value value(OpFoldResult v) {
    return getValueOrCreateConstantIndexOp(b, loc, v);
  }

  /// What a size computation that overflows 64-bit signed integers gives:
  /// the largest index, which stays so through the arithmetic below (no
  /// size is that large, so a check that a dimension holds it fails).
  static constexpr int64_t kOverflow = std::numeric_limits<int64_t>::max();

  // Index arithmetic that folds constants and saturates at kOverflow: `x` +
  // `y` where the sum overflows or either is kOverflow.
  OpFoldResult add(OpFoldResult x, OpFoldResult y) {
    std::optional<int64_t> a = getConstantIntValue(x),
                           c = getConstantIntValue(y);
    if (a && c) {
      int64_t sum;
      if (llvm::AddOverflow(*a, *c, sum) || *a == kOverflow || *c == kOverflow)
        return constant(kOverflow);
      return constant(sum);
    }
    if (c && *c == 0)
      return x;
    if (a && *a == 0)
      return y;
    if (a)
      return add(y, x);
    Value vx = value(x), vy = value(y);
    Value sum = b.createOrFold<arith::AddIOp>(loc, vx, vy);
    if (c && *c < 0 && dimOf(x))
      return sum; // a size of a tensor or buffer: never negative, never
                  // kOverflow
    if (c) {
      // x + c overflows where x > MAX - c (c > 0; x = kOverflow too), or
      // x < MIN - c (c < 0).
      Value flagged =
          *c > 0 ? compare(arith::CmpIPredicate::sgt, vx, kOverflow - *c)
                 : b.createOrFold<arith::OrIOp>(
                       loc, isOverflow(vx),
                       compare(arith::CmpIPredicate::slt, vx,
                               std::numeric_limits<int64_t>::min() - *c));
      return b.createOrFold<arith::SelectOp>(loc, flagged,
                                             value(constant(kOverflow)), sum);
    }
    // Signed overflow: the sum's sign differs from both operands'.
    Value fromX = b.createOrFold<arith::XOrIOp>(loc, vx, sum);
    Value fromY = b.createOrFold<arith::XOrIOp>(loc, vy, sum);
    Value both = b.createOrFold<arith::AndIOp>(loc, fromX, fromY);
    Value wrapped = b.createOrFold<arith::CmpIOp>(
        loc, arith::CmpIPredicate::slt, both, value(constant(0)));
    Value flagged = b.createOrFold<arith::OrIOp>(
        loc, wrapped,
        b.createOrFold<arith::OrIOp>(loc, isOverflow(vx), isOverflow(vy)));
    return b.createOrFold<arith::SelectOp>(loc, flagged,
                                           value(constant(kOverflow)), sum);
  }

  /// `x` * `y`, kOverflow where the product overflows or one factor is
  /// kOverflow and the other is not 0.
  OpFoldResult mul(OpFoldResult x, OpFoldResult y) {
    std::optional<int64_t> a = getConstantIntValue(x),
                           c = getConstantIntValue(y);
    if (a && c) {
      int64_t product;
      if (*a == 0 || *c == 0)
        return constant(0);
      if (llvm::MulOverflow(*a, *c, product) || *a == kOverflow ||
          *c == kOverflow)
        return constant(kOverflow);
      return constant(product);
    }
    if (c && *c == 1)
      return x;
    if (a && *a == 1)
      return y;
    if (a)
      return mul(y, x);
    if (c && *c == 0)
      return constant(0);
    Value vx = value(x), vy = value(y);
    Value product = b.createOrFold<arith::MulIOp>(loc, vx, vy);
    if (c && *c > 1) {
      // x * c overflows where x > MAX / c (x = kOverflow too) or x < MIN /
      // c.
      Value flagged = b.createOrFold<arith::OrIOp>(
          loc, compare(arith::CmpIPredicate::sgt, vx, kOverflow / *c),
          compare(arith::CmpIPredicate::slt, vx,
                  std::numeric_limits<int64_t>::min() / *c));
      return b.createOrFold<arith::SelectOp>(
          loc, flagged, value(constant(kOverflow)), product);
    }
    // The product in 128 bits: it overflows where the high word is not the
    // low word's sign.
    Type i64 = b.getI64Type();
    Value x64 = b.createOrFold<arith::IndexCastOp>(loc, i64, vx);
    Value y64 = b.createOrFold<arith::IndexCastOp>(loc, i64, vy);
    auto wide = arith::MulSIExtendedOp::create(b, loc, x64, y64);
    Value sign = b.createOrFold<arith::ShRSIOp>(
        loc, wide.getLow(),
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(63)));
    Value wrapped = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                                  wide.getHigh(), sign);
    Value zero = value(constant(0));
    Value nonZero = b.createOrFold<arith::AndIOp>(
        loc,
        b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, vx, zero),
        b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, vy, zero));
    Value factor = b.createOrFold<arith::AndIOp>(
        loc, nonZero,
        b.createOrFold<arith::OrIOp>(loc, isOverflow(vx), isOverflow(vy)));
    Value flagged = b.createOrFold<arith::OrIOp>(loc, wrapped, factor);
    return b.createOrFold<arith::SelectOp>(loc, flagged,
                                           value(constant(kOverflow)), product);
  }

  /// `x` floordiv (or ceildiv) `y` for `y` > 0; kOverflow stays so.
  OpFoldResult divide(OpFoldResult x, OpFoldResult y, bool ceil) {
    std::optional<int64_t> a = getConstantIntValue(x),
                           c = getConstantIntValue(y);
    if (a && *a == kOverflow)
      return x;
    if (a && c && *c > 0)
      return constant(ceil ? llvm::divideCeilSigned(*a, *c)
                           : llvm::divideFloorSigned(*a, *c));
    if (c && *c == 1)
      return x;
    Value vx = value(x), vy = value(y);
    Value quotient = ceil ? b.createOrFold<arith::CeilDivSIOp>(loc, vx, vy)
                          : b.createOrFold<arith::FloorDivSIOp>(loc, vx, vy);
    return b.createOrFold<arith::SelectOp>(loc, isOverflow(vx), vx, quotient);
  }

  /// Whether `v` is kOverflow.
  Value isOverflow(Value v) {
    return compare(arith::CmpIPredicate::eq, v, kOverflow);
  }

  /// `v` `predicate` `bound`.
  Value compare(arith::CmpIPredicate predicate, Value v, int64_t bound) {
    return b.createOrFold<arith::CmpIOp>(loc, predicate, v,
                                         value(constant(bound)));
  }

  OpFoldResult constant(int64_t v) { return b.getIndexAttr(v); }
  /// `ifEmpty` when `count` is 0, else `otherwise`.
  OpFoldResult unlessEmpty(OpFoldResult count, OpFoldResult otherwise) {
    std::optional<int64_t> n = getConstantIntValue(count);
    if (n)
      return *n == 0 ? constant(0) : otherwise;
    Value zero = value(constant(0));
    Value empty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        value(count), zero);
    return b.createOrFold<arith::SelectOp>(loc, empty, zero, value(otherwise));
  }

  /// `size` >= `expected` where the op iterates at all (`iterations` > 0).
  /// One that holds at compile time needs no check: it holds for an empty
  /// op too (sizes are not negative).
  void checkUnlessEmpty(OpFoldResult size, OpFoldResult expected,
                        OpFoldResult iterations, const Twine &what) {
    std::optional<int64_t> s = getConstantIntValue(size);
    std::optional<int64_t> e = getConstantIntValue(expected);
    if (s && e && *s >= *e)
      return;
    check(size, unlessEmpty(iterations, expected), /*atLeast=*/true, what);
  }

  /// `index` >= 0 where the op iterates at all (`iterations` > 0).
  void checkNotNegativeUnlessEmpty(OpFoldResult index, OpFoldResult iterations,
                                   const Twine &what) {
    std::optional<int64_t> i = getConstantIntValue(index);
    if (i && *i >= 0)
      return;
    check(unlessEmpty(iterations, index), constant(0), /*atLeast=*/true, what);
  }

  /// A slice of `tensor` (offsets, sizes, strides per dimension) is inside
  /// it; `what` names the tensor.
  void checkSlice(Value tensor, ArrayRef<OpFoldResult> offsets,
                  ArrayRef<OpFoldResult> sizes, ArrayRef<OpFoldResult> strides,
                  StringRef what) {
    for (auto [i, o, s, t] : llvm::enumerate(offsets, sizes, strides)) {
      OpFoldResult dim = sizeOf(tensor, i);
      if (getConstantIntValue(dim) && getConstantIntValue(o) &&
          getConstantIntValue(s) && getConstantIntValue(t))
        continue; // the op's verifier checks static slices
      check(o, constant(0), /*atLeast=*/true,
            "the offset in dimension " + Twine(i));
      // The end of the slice: offset + size for unit strides (an empty
      // slice too starts inside or at the end), else offset + (size - 1) *
      // stride + 1 for a non-empty one.
      std::optional<int64_t> stride = getConstantIntValue(t);
      if (stride && *stride == 1) {
        check(dim, add(o, s), /*atLeast=*/true,
              "dimension " + Twine(i) + " of the " + what +
                  " (the slice's offset + size)");
        continue;
      }
      OpFoldResult last = add(o, mul(add(s, constant(-1)), t));
      check(dim, unlessEmpty(s, add(last, constant(1))), /*atLeast=*/true,
            "dimension " + Twine(i) + " of the " + what +
                " (the slice's offset + (size - 1) * stride + 1)");
    }
  }

  /// `v` + 1, or `v` where it is the largest index (no wrap-around: no size
  /// is that large, so a check against it fails as it should).
  OpFoldResult plusOne(OpFoldResult v) {
    std::optional<int64_t> c = getConstantIntValue(v);
    if (c && *c < std::numeric_limits<int64_t>::max())
      return constant(*c + 1);
    if (c)
      return v;
    Value x = value(v);
    Value largest = value(constant(std::numeric_limits<int64_t>::max()));
    Value atLargest =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, largest);
    Value next = arith::AddIOp::create(b, loc, x, value(constant(1)));
    return b.createOrFold<arith::SelectOp>(loc, atLargest, x, next);
  }

  /// Index `i` of an element of `tensor` is inside it: `smallest` >= 0 and
  /// `largest` < its dimension `i`; `what` names the index.
  void checkIndexRange(Value tensor, unsigned i, OpFoldResult smallest,
                       OpFoldResult largest, const Twine &what) {
    check(smallest, constant(0), /*atLeast=*/true, what);
    check(sizeOf(tensor, i), plusOne(largest), /*atLeast=*/true,
          "dimension " + Twine(i) + " of the " +
              (isa<BaseMemRefType>(tensor.getType()) ? "memref" : "tensor") +
              " (" + what + " + 1)");
  }

  /// Every index is inside `tensor`.
  void checkIndices(Value tensor, ValueRange indices) {
    for (auto [i, index] : llvm::enumerate(indices)) {
      OpFoldResult idx = getAsOpFoldResult(index);
      checkIndexRange(tensor, i, idx, idx, "index " + Twine(i));
    }
  }

  /// Whether `expr` never decreases when a loop index grows (and is not
  /// negative): loops, non-negative constants, sums, products by
  /// non-negative constants, divisions by positive constants.
  static bool nonDecreasing(AffineExpr expr) {
    if (isa<AffineDimExpr>(expr))
      return true;
    if (auto c = dyn_cast<AffineConstantExpr>(expr))
      return c.getValue() >= 0;
    auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
    if (!binary)
      return false;
    AffineExpr lhs = binary.getLHS(), rhs = binary.getRHS();
    auto constantOf = [](AffineExpr e) -> std::optional<int64_t> {
      if (auto c = dyn_cast<AffineConstantExpr>(e))
        return c.getValue();
      return std::nullopt;
    };
    switch (expr.getKind()) {
    case AffineExprKind::Add:
      return nonDecreasing(lhs) && nonDecreasing(rhs);
    case AffineExprKind::Mul:
      if (std::optional<int64_t> c = constantOf(rhs))
        return *c >= 0 && nonDecreasing(lhs);
      if (std::optional<int64_t> c = constantOf(lhs))
        return *c >= 0 && nonDecreasing(rhs);
      return false;
    case AffineExprKind::FloorDiv:
    case AffineExprKind::CeilDiv:
      if (std::optional<int64_t> c = constantOf(rhs))
        return *c > 0 && nonDecreasing(lhs);
      return false;
    default:
      return false;
    }
  }

  void checkLinalg(linalg::LinalgOp linalgOp) {
    unsigned numLoops = linalgOp.getNumLoops();
    // Each loop's size: the first operand dimension indexed by it alone,
    // as linalg builds the loops (LinalgOp::createLoopRanges).
    SmallVector<OpFoldResult> loopSize(numLoops);
    SmallVector<std::pair<unsigned, unsigned>> definedBy(numLoops, {~0u, 0});
    SmallVector<OpOperand *> operands;
    for (OpOperand &operand : linalgOp->getOpOperands())
      if (isa<ShapedType>(operand.get().getType()) &&
          (linalgOp.isDpsInput(&operand) || linalgOp.isDpsInit(&operand)))
        operands.push_back(&operand);
    for (OpOperand *operand : operands) {
      AffineMap map = linalgOp.getMatchingIndexingMap(operand);
      for (auto [i, expr] : llvm::enumerate(map.getResults()))
        if (auto d = dyn_cast<AffineDimExpr>(expr))
          if (!loopSize[d.getPosition()]) {
            loopSize[d.getPosition()] = sizeOf(operand->get(), i);
            definedBy[d.getPosition()] = {operand->getOperandNumber(),
                                          static_cast<unsigned>(i)};
          }
    }
    if (llvm::any_of(loopSize, [](OpFoldResult s) { return !s; }))
      return; // no loop ranges: nothing linalg could lower either
    for (OpOperand *operand : operands) {
      unsigned number = operand->getOperandNumber();
      AffineMap map = linalgOp.getMatchingIndexingMap(operand);
      for (auto [i, expr] : llvm::enumerate(map.getResults())) {
        std::string what = "dimension " + std::to_string(i) + " of operand " +
                           std::to_string(number);
        if (auto d = dyn_cast<AffineDimExpr>(expr)) {
          auto [defNumber, defDim] = definedBy[d.getPosition()];
          if (defNumber == number && defDim == i)
            continue;
          check(sizeOf(operand->get(), i), loopSize[d.getPosition()],
                /*atLeast=*/false,
                what + " (loop d" + std::to_string(d.getPosition()) +
                    ", the size of dimension " + std::to_string(defDim) +
                    " of operand " + std::to_string(defNumber) + ")");
          continue;
        }
        // Any other index expression: its largest value is inside the
        // dimension, unless the op has no iteration at all. That value is
        // the one at the loops' last indices only where the expression
        // never decreases in a loop; others (a difference, a modulo) are
        // not checked rather than refused wrongly.
        if (!nonDecreasing(expr))
          continue;
        checkUnlessEmpty(sizeOf(operand->get(), i),
                         lastValue(expr, loopSize, /*plus=*/1),
                         iterationCount(loopSize),
                         what + " (indexed by " + exprText(expr) +
                             ": its largest value + 1)");
      }
    }
    if (auto generic = dyn_cast<linalg::GenericOp>(linalgOp.getOperation())) {
      SmallVector<unsigned> sizedBy;
      for (auto [number, dim] : definedBy)
        sizedBy.push_back(number);
      checkBodyExtracts(generic, loopSize, sizedBy);
    }
  }

  /// The number of iterations of loops of sizes `loopSize`.
  OpFoldResult iterationCount(ArrayRef<OpFoldResult> loopSize) {
    OpFoldResult iterations = constant(1);
    for (OpFoldResult s : loopSize)
      iterations = mul(iterations, s);
    return iterations;
  }

  /// `expr` + `plus` at the loops' last indices, in the saturating
  /// arithmetic above (`expr` never decreases: nonDecreasing).
  OpFoldResult lastValue(AffineExpr expr, ArrayRef<OpFoldResult> loopSize,
                         int64_t plus) {
    SmallVector<OpFoldResult> last;
    for (OpFoldResult s : loopSize)
      last.push_back(add(s, constant(-1)));
    return add(evaluate(expr, last), constant(plus));
  }

  /// `expr` (loops, constants, sums, products, divisions) at `dims`.
  OpFoldResult evaluate(AffineExpr expr, ArrayRef<OpFoldResult> dims) {
    if (auto d = dyn_cast<AffineDimExpr>(expr))
      return dims[d.getPosition()];
    if (auto c = dyn_cast<AffineConstantExpr>(expr))
      return constant(c.getValue());
    auto binary = cast<AffineBinaryOpExpr>(expr);
    OpFoldResult lhs = evaluate(binary.getLHS(), dims);
    OpFoldResult rhs = evaluate(binary.getRHS(), dims);
    switch (expr.getKind()) {
    case AffineExprKind::Add:
      return add(lhs, rhs);
    case AffineExprKind::Mul:
      return mul(lhs, rhs);
    case AffineExprKind::FloorDiv:
      return divide(lhs, rhs, /*ceil=*/false);
    case AffineExprKind::CeilDiv:
      return divide(lhs, rhs, /*ceil=*/true);
    default:
      llvm_unreachable("evaluate: an expression nonDecreasing refuses");
    }
  }

  static std::string exprText(AffineExpr expr) {
    std::string text;
    llvm::raw_string_ostream os(text);
    expr.print(os);
    return text;
  }

  /// `v`, an index the body of a linalg op computes, as an affine
  /// expression of its loops (linalg.index, constants, sums, products by
  /// constants, divisions by positive constants), or nullopt.
  static std::optional<AffineExpr> loopExpr(Value v, Region &body) {
    MLIRContext *ctx = v.getContext();
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return getAffineConstantExpr(*c, ctx);
    Operation *def = v.getDefiningOp();
    if (!def || !body.isAncestor(def->getParentRegion()))
      return std::nullopt;
    if (auto index = dyn_cast<linalg::IndexOp>(def))
      return getAffineDimExpr(index.getDim(), ctx);
    if (def->getNumOperands() != 2)
      return std::nullopt;
    std::optional<AffineExpr> lhs = loopExpr(def->getOperand(0), body);
    std::optional<AffineExpr> rhs = loopExpr(def->getOperand(1), body);
    if (!lhs || !rhs)
      return std::nullopt;
    auto rhsConstant = dyn_cast<AffineConstantExpr>(*rhs);
    if (isa<arith::AddIOp>(def))
      return *lhs + *rhs;
    if (isa<arith::MulIOp>(def) &&
        (rhsConstant || isa<AffineConstantExpr>(*lhs)))
      return *lhs * *rhs;
    if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(def) &&
        rhsConstant && rhsConstant.getValue() > 0)
      return lhs->floorDiv(*rhs);
    return std::nullopt;
  }

  /// The ops of a linalg.generic's body that compute `v`, in `slice`, the
  /// input arguments of the body and the loops (linalg.index) they read;
  /// false where `v` depends on an output's argument (an accumulator) or on
  /// an op with memory effects or regions. `readsTensors` is set where
  /// they extract elements of tensors.
  static bool bodySlice(Value v, linalg::GenericOp generic,
                        llvm::SetVector<Operation *> &slice,
                        std::set<unsigned> &inputs, std::set<unsigned> &loops,
                        bool &readsTensors) {
    Region &region = generic.getRegion();
    Block &body = region.front();
    SmallVector<Value> work{v};
    while (!work.empty()) {
      Value next = work.pop_back_val();
      if (auto arg = dyn_cast<BlockArgument>(next)) {
        if (arg.getOwner() != &body) {
          if (region.isAncestor(arg.getParentRegion()))
            return false;
          continue;
        }
        if (arg.getArgNumber() >= generic.getNumDpsInputs())
          return false;
        inputs.insert(arg.getArgNumber());
        continue;
      }
      Operation *def = next.getDefiningOp();
      if (!region.isAncestor(def->getParentRegion()))
        continue; // defined before the op: the same in every iteration
      if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
        return false;
      if (!slice.insert(def))
        continue;
      if (auto index = dyn_cast<linalg::IndexOp>(def))
        loops.insert(index.getDim());
      readsTensors |= isa<tensor::ExtractOp>(def);
      llvm::append_range(work, def->getOperands());
    }
    return true;
  }

  /// The tensor.extract ops of a linalg.generic's body (those that run in
  /// every iteration): each index inside the extracted tensor, in every
  /// iteration. An index of the loops (an affine expression that never
  /// decreases) is checked at the loops' last indices; any other index
  /// computed in the body (from the inputs' elements: a gather, an
  /// embedding lookup) by a reduction of its smallest and largest values
  /// over the iterations, placed before the op.
  void checkBodyExtracts(linalg::GenericOp generic,
                         ArrayRef<OpFoldResult> loopSize,
                         ArrayRef<unsigned> sizedBy) {
    Region &region = generic.getRegion();
    for (Operation &inner : region.front().without_terminator()) {
      auto extract = dyn_cast<tensor::ExtractOp>(&inner);
      if (!extract || region.isAncestor(extract.getTensor().getParentRegion()))
        continue;
      Value tensor = extract.getTensor();
      std::string at = "the tensor.extract at " +
                       CheckSizeOp::locationText(extract.getLoc()) +
                       " in its body";
      SmallVector<unsigned> computed;
      for (auto [i, index] : llvm::enumerate(extract.getIndices())) {
        std::string dimension =
            "dimension " + std::to_string(i) + " of the tensor of " + at;
        std::string name = "index " + std::to_string(i);
        if (!region.isAncestor(index.getParentRegion())) {
          // The same index in every iteration (none if there is none).
          OpFoldResult idx = getAsOpFoldResult(index);
          OpFoldResult iterations = iterationCount(loopSize);
          checkNotNegativeUnlessEmpty(idx, iterations, name + " of " + at);
          checkUnlessEmpty(sizeOf(tensor, i), plusOne(idx), iterations,
                           dimension + " (" + name + " + 1)");
          continue;
        }
        std::optional<AffineExpr> expr = loopExpr(index, region);
        if (expr && nonDecreasing(*expr)) {
          checkUnlessEmpty(sizeOf(tensor, i),
                           lastValue(*expr, loopSize, /*plus=*/1),
                           iterationCount(loopSize),
                           dimension + " (" + name + ", " + exprText(*expr) +
                               ": its largest value + 1)");
          continue;
        }
        computed.push_back(i);
      }
      checkComputedIndices(generic, extract, computed, loopSize, sizedBy, at);
    }
  }

  /// The indices `computed` of `extract` (in the body of `generic`), by a
  /// linalg.generic before it that reduces each to its smallest and largest
  /// value over the iterations (the loops it depends on only). Indices that
  /// depend on an accumulator or an op with effects are left unchecked.
  /// `sizedBy` names, per loop, the operand the loop's size comes from.
  void checkComputedIndices(linalg::GenericOp generic,
                            tensor::ExtractOp extract,
                            ArrayRef<unsigned> computed,
                            ArrayRef<OpFoldResult> loopSize,
                            ArrayRef<unsigned> sizedBy, const std::string &at) {
    llvm::SetVector<Operation *> slice;
    std::set<unsigned> inputs, loops;
    bool readsTensors = false;
    SmallVector<unsigned> indices;
    for (unsigned i : computed) {
      llvm::SetVector<Operation *> s;
      std::set<unsigned> in, l;
      bool reads = false;
      if (!bodySlice(extract.getIndices()[i], generic, s, in, l, reads))
        continue;
      indices.push_back(i);
      slice.insert(s.begin(), s.end());
      inputs.insert(in.begin(), in.end());
      loops.insert(l.begin(), l.end());
      readsTensors |= reads;
    }
    if (indices.empty())
      return;
    unsigned numLoops = generic.getNumLoops();
    MLIRContext *ctx = generic.getContext();
    // The loops the indices depend on: those they read, and those that
    // index the inputs they read; all of them where the slice extracts
    // elements (their indices are inside only for iterations of the op) or
    // where there are none. The operands the reduction reads: those of the
    // slice, and for each of its loops the operand its size comes from
    // (linalg sizes the loops by the operands), with the loops these index
    // in turn.
    std::set<unsigned> operands = inputs;
    auto close = [&] {
      for (bool grew = true; grew;) {
        grew = false;
        for (unsigned operand : operands)
          generic.getMatchingIndexingMap(&generic->getOpOperand(operand))
              .walkExprs([&](AffineExpr e) {
                if (auto d = dyn_cast<AffineDimExpr>(e))
                  grew |= loops.insert(d.getPosition()).second;
              });
        for (unsigned d : loops)
          grew |= operands.insert(sizedBy[d]).second;
      }
    };
    close();
    if (readsTensors || loops.empty()) {
      for (unsigned d = 0; d < numLoops; ++d)
        loops.insert(d);
      close();
    }
    SmallVector<unsigned> dims(loops.begin(), loops.end());
    SmallVector<AffineExpr> renumber(numLoops, getAffineConstantExpr(0, ctx));
    SmallVector<unsigned> position(numLoops, 0);
    for (auto [k, d] : llvm::enumerate(dims)) {
      renumber[d] = getAffineDimExpr(k, ctx);
      position[d] = k;
    }
    SmallVector<Value> ins;
    SmallVector<AffineMap> maps;
    for (unsigned number : operands) {
      OpOperand *operand = &generic->getOpOperand(number);
      ins.push_back(operand->get());
      maps.push_back(
          generic.getMatchingIndexingMap(operand).replaceDimsAndSymbols(
              renumber, {}, dims.size(), 0));
    }
    Type i64 = b.getI64Type();
    auto scalar = RankedTensorType::get({}, i64);
    SmallVector<Value> outs;
    for (size_t j = 0; j < indices.size(); ++j)
      for (int64_t init : {std::numeric_limits<int64_t>::max(),
                           std::numeric_limits<int64_t>::min()}) {
        Value empty = tensor::EmptyOp::create(b, loc, scalar.getShape(), i64);
        Value initValue =
            arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(init));
        outs.push_back(
            linalg::FillOp::create(b, loc, initValue, empty).getResult(0));
        maps.push_back(AffineMap::get(dims.size(), 0, ctx));
      }
    SmallVector<utils::IteratorType> iterators(dims.size(),
                                               utils::IteratorType::reduction);
    SmallVector<Operation *> ordered(slice.begin(), slice.end());
    llvm::sort(ordered, [](Operation *x, Operation *y) {
      return x->isBeforeInBlock(y);
    });
    Block &body = generic.getRegion().front();
    auto range = linalg::GenericOp::create(
        b, loc, SmallVector<Type>(outs.size(), scalar), ins, outs, maps,
        iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
          IRMapping mapping;
          for (auto [k, number] : llvm::enumerate(operands))
            if (inputs.count(number))
              mapping.map(body.getArgument(number), args[k]);
          for (Operation *o : ordered) {
            if (auto index = dyn_cast<linalg::IndexOp>(o)) {
              mapping.map(
                  index.getResult(),
                  linalg::IndexOp::create(nb, nloc, position[index.getDim()])
                      .getResult());
              continue;
            }
            nb.clone(*o, mapping);
          }
          SmallVector<Value> yields;
          for (auto [j, i] : llvm::enumerate(indices)) {
            Value v = mapping.lookupOrDefault(extract.getIndices()[i]);
            Value v64 = arith::IndexCastOp::create(nb, nloc, i64, v);
            Value smallest = args[operands.size() + 2 * j];
            Value largest = args[operands.size() + 2 * j + 1];
            yields.push_back(arith::MinSIOp::create(nb, nloc, smallest, v64));
            yields.push_back(arith::MaxSIOp::create(nb, nloc, largest, v64));
          }
          linalg::YieldOp::create(nb, nloc, yields);
        });
    // Only the full loops' emptiness tells whether the op extracts at all.
    OpFoldResult iterations = dims.size() == numLoops
                                  ? OpFoldResult(constant(1))
                                  : iterationCount(loopSize);
    for (auto [j, i] : llvm::enumerate(indices)) {
      auto reduced = [&](unsigned k) -> OpFoldResult {
        Value v =
            tensor::ExtractOp::create(b, loc, range.getResult(k), ValueRange{});
        return arith::IndexCastOp::create(b, loc, b.getIndexType(), v)
            .getResult();
      };
      OpFoldResult smallest = reduced(2 * j), largest = reduced(2 * j + 1);
      std::string name = "index " + std::to_string(i);
      checkNotNegativeUnlessEmpty(smallest, iterations,
                                  name + " of " + at + " (its smallest value)");
      checkUnlessEmpty(sizeOf(extract.getTensor(), i), plusOne(largest),
                       iterations,
                       "dimension " + std::to_string(i) + " of the tensor of " +
                           at + " (" + name + "'s largest value + 1)");
    }
  }

  void checkCast(tensor::CastOp cast) {
    auto source = dyn_cast<RankedTensorType>(cast.getSource().getType());
    auto result = dyn_cast<RankedTensorType>(cast.getType());
    if (!source || !result)
      return;
    for (int64_t i = 0; i < result.getRank(); ++i)
      if (source.isDynamicDim(i) && !result.isDynamicDim(i))
        check(sizeOf(cast.getSource(), i), constant(result.getDimSize(i)),
              /*atLeast=*/false,
              "dimension " + Twine(i) + " of the source (cast to " +
                  Twine(result.getDimSize(i)) + ")");
  }

  void checkInsertSlice(tensor::InsertSliceOp insert) {
    checkSlice(insert.getDest(), insert.getMixedOffsets(),
               insert.getMixedSizes(), insert.getMixedStrides(), "destination");
    if (insert.getSourceType().getRank() != insert.getDestType().getRank())
      return;
    for (auto [i, size] : llvm::enumerate(insert.getMixedSizes()))
      check(sizeOf(insert.getSource(), i), size, /*atLeast=*/false,
            "dimension " + Twine(i) + " of the source (the slice's size)");
  }

  void checkExpandShape(tensor::ExpandShapeOp expand) {
    SmallVector<OpFoldResult> output = expand.getMixedOutputShape();
    for (auto [i, group] : llvm::enumerate(expand.getReassociationIndices())) {
      OpFoldResult product = constant(1);
      for (int64_t d : group)
        product = mul(product, output[d]);
      check(sizeOf(expand.getSrc(), i), product, /*atLeast=*/false,
            "dimension " + Twine(i) + " of the source (the product of " +
                "its output dimensions)");
    }
  }

  /// tensor.reshape: as many elements as the new shape has, none of its
  /// sizes negative.
  void checkReshape(tensor::ReshapeOp reshape) {
    Value source = reshape.getSource();
    auto sourceType = cast<RankedTensorType>(source.getType());
    auto resultType = dyn_cast<RankedTensorType>(reshape.getType());
    if (!resultType)
      return;
    OpFoldResult have = constant(1), want = constant(1);
    for (int64_t i = 0; i < sourceType.getRank(); ++i)
      have = mul(have, sizeOf(source, i));
    for (int64_t i = 0; i < resultType.getRank(); ++i) {
      if (!resultType.isDynamicDim(i)) {
        want = mul(want, constant(resultType.getDimSize(i)));
        continue;
      }
      // The size the shape operand gives (an integer or index element).
      Value at = arith::ConstantIndexOp::create(b, loc, i);
      Value size =
          tensor::ExtractOp::create(b, loc, reshape.getShape(), at).getResult();
      if (!size.getType().isIndex())
        size = arith::IndexCastOp::create(b, loc, b.getIndexType(), size);
      // Negative sizes could multiply to the element count.
      check(size, constant(0), /*atLeast=*/true,
            "dimension " + Twine(i) + " of the new shape");
      want = mul(want, size);
    }
    check(have, want, /*atLeast=*/false,
          "the source's element count (the new shape's element count)");
  }

  /// The most bytes a tensor the program creates may have: its size in
  /// bytes, computed in 64-bit integers, does not wrap around (the
  /// allocator then reports what it cannot allocate).
  static constexpr int64_t kMostBytes = int64_t(1) << 62;

  /// The most bytes one memref.alloca may take on the stack (a thread's
  /// stack is commonly 8 MiB, a library's caller's may be smaller).
  static constexpr int64_t kMostStackBytes = int64_t(1) << 20;

  /// A tensor of `type` with sizes `sizes` (one per dimension) that the op
  /// creates: no size is negative, and its bytes are at most kMostBytes.
  /// Each dynamic size is checked against what the sizes before it leave.
  void checkNewTensor(RankedTensorType type, ArrayRef<OpFoldResult> sizes) {
    checkNew(type, sizes, kMostBytes, "new tensor", "2^62 bytes in all",
             /*refuseStatic=*/false);
  }

  /// memref.alloc / memref.alloca: as a new tensor, at most kMostBytes on
  /// the heap and kMostStackBytes on the stack; a static size over that is
  /// an error here (its byte count would wrap around, or overflow the
  /// stack).
  void checkNewMemRef(Operation *alloc, MemRefType type, ValueRange dynamic) {
    bool stack = isa<memref::AllocaOp>(alloc);
    SmallVector<OpFoldResult> sizes =
        getMixedValues(type.getShape(), dynamic, b);
    checkNew(type, sizes, stack ? kMostStackBytes : kMostBytes,
             stack ? "stack allocation" : "new memref",
             stack ? "1 MiB in all; larger buffers: memref.alloc"
                   : "2^62 bytes in all",
             /*refuseStatic=*/true);
  }

  void checkNew(ShapedType type, ArrayRef<OpFoldResult> sizes, int64_t most,
                StringRef noun, StringRef limit, bool refuseStatic) {
    Type element = type.getElementType();
    if (!element.isIntOrIndexOrFloat())
      return;
    int64_t bytes =
        element.isIndex()
            ? 8
            : std::max<int64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8);
    for (int64_t size : type.getShape())
      if (!ShapedType::isDynamic(size)) {
        if (size != 0 && bytes > most / size) {
          if (!refuseStatic)
            return; // a static size the verifier and the allocator judge
          op->emitError() << "the " << noun << " " << type
                          << " is too large: its static sizes take more than "
                          << limit;
          staticFailure = true;
          return;
        }
        bytes *= std::max<int64_t>(size, 1);
      }
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      if (most == kMostBytes && likeExisting(tensor, sizes))
        return;
    OpFoldResult left = constant(most / bytes);
    for (auto [i, size] : llvm::enumerate(sizes)) {
      if (!type.isDynamicDim(i))
        continue;
      // A size of an existing tensor is not negative; a product of them
      // may still be too large.
      if (!dimOf(size))
        check(size, constant(0), /*atLeast=*/true,
              "dimension " + Twine(i) + " of the " + noun);
      check(size, left, Relation::AtMost,
            "dimension " + Twine(i) + " of the " + noun + " (at most " + limit +
                ")");
      Value one = value(constant(1));
      Value divisor = b.createOrFold<arith::MaxSIOp>(loc, value(size), one);
      left = b.createOrFold<arith::DivUIOp>(loc, value(left), divisor);
    }
  }

  /// A tensor.dim / memref.dim whose index is not a constant: the index is
  /// one of the source's dimensions.
  void checkDimIndex(Value source, Value index) {
    auto type = dyn_cast<ShapedType>(source.getType());
    if (!type || !type.hasRank() || getConstantIntValue(index))
      return;
    check(index, constant(0), /*atLeast=*/true, "the dimension index");
    check(index, constant(type.getRank() - 1), Relation::AtMost,
          "the dimension index (the rank - 1)");
  }

  /// The indices of an affine.load / affine.store (its map applied to its
  /// operands) are inside `memref`.
  void checkAffineIndices(Value memref, AffineMap map, ValueRange operands) {
    SmallVector<OpFoldResult> args = getAsOpFoldResult(operands);
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      OpFoldResult idx = affine::makeComposedFoldedAffineApply(
          b, loc, map.getSubMap({i}), args);
      checkIndexRange(memref, i, idx, idx, "index " + Twine(i));
    }
  }

  /// A vector.load / vector.store at `indices` of `memref`: the vector's
  /// elements, along the memref's innermost dimensions, are inside it.
  void checkVectorAccess(Value memref, ValueRange indices, VectorType vector) {
    int64_t rank = indices.size();
    int64_t first = rank - vector.getRank();
    for (auto [i, index] : llvm::enumerate(indices)) {
      OpFoldResult idx = getAsOpFoldResult(index);
      int64_t d = static_cast<int64_t>(i);
      if (d < first) {
        checkIndexRange(memref, i, idx, idx, "index " + Twine(i));
        continue;
      }
      int64_t length = vector.getDimSize(d - first);
      checkIndexRange(memref, i, idx, add(idx, constant(length - 1)),
                      "index " + Twine(i) + " + " + Twine(length - 1) +
                          " (the vector's last element)");
    }
  }

  /// Whether a tensor of `type` and `sizes` has the shape of a tensor the
  /// program has (each size is that tensor's, at the same dimension) and
  /// elements no larger: it is no larger than that tensor.
  static bool likeExisting(RankedTensorType type,
                           ArrayRef<OpFoldResult> sizes) {
    Value existing;
    for (auto [i, size] : llvm::enumerate(sizes)) {
      if (!type.isDynamicDim(i))
        continue;
      std::optional<std::pair<Value, int64_t>> d = dimOf(size);
      if (!d || d->second != static_cast<int64_t>(i) ||
          (existing && d->first != existing))
        return false;
      existing = d->first;
    }
    if (!existing)
      return false;
    auto other = cast<ShapedType>(existing.getType());
    if (!other.hasRank() || other.getRank() != type.getRank())
      return false;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (!type.isDynamicDim(i) && type.getDimSize(i) != other.getDimSize(i))
        return false;
    Type a = type.getElementType(), b = other.getElementType();
    auto width = [](Type t) -> int64_t {
      return t.isIndex() ? 64 : t.getIntOrFloatBitWidth();
    };
    return b.isIntOrIndexOrFloat() &&
           width(a) <= std::max<int64_t>(width(b), 8);
  }

  /// tensor.pad: no amount of padding is negative (the op does not crop),
  /// and the padded tensor is one the program may create.
  void checkPad(tensor::PadOp pad) {
    SmallVector<OpFoldResult> low = pad.getMixedLowPad(),
                              high = pad.getMixedHighPad();
    for (auto [side, amounts] :
         {std::make_pair("low", low), std::make_pair("high", high)})
      for (auto [i, amount] : llvm::enumerate(amounts)) {
        check(amount, constant(0), /*atLeast=*/true,
              Twine("the ") + side + " padding of dimension " + Twine(i));
        // Small enough that the padded sizes do not wrap around.
        check(amount, constant(int64_t(1) << 60), Relation::AtMost,
              Twine("the ") + side + " padding of dimension " + Twine(i));
      }
    SmallVector<OpFoldResult> sizes;
    for (auto [i, l, h] : llvm::enumerate(low, high))
      sizes.push_back(add(add(sizeOf(pad.getSource(), i), l), h));
    checkNewTensor(pad.getResultType(), sizes);
  }

  /// memref.copy: the target has the source's sizes.
  void checkCopy(memref::CopyOp copy) {
    auto source = dyn_cast<MemRefType>(copy.getSource().getType());
    auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
    if (!source || !target || source.getRank() != target.getRank())
      return;
    for (int64_t i = 0; i < source.getRank(); ++i)
      check(sizeOf(copy.getTarget(), i), sizeOf(copy.getSource(), i),
            /*atLeast=*/false,
            "dimension " + Twine(i) + " of the target (the source's)");
  }

  /// bufferization.materialize_in_destination: the destination has the
  /// source's sizes.
  void checkMaterialize(bufferization::MaterializeInDestinationOp op) {
    auto source = dyn_cast<RankedTensorType>(op.getSource().getType());
    auto dest = dyn_cast<ShapedType>(op.getDest().getType());
    if (!source || !dest || !dest.hasRank())
      return;
    for (int64_t i = 0; i < source.getRank(); ++i)
      check(sizeOf(op.getDest(), i), sizeOf(op.getSource(), i),
            /*atLeast=*/false,
            "dimension " + Twine(i) + " of the destination (the source's)");
  }

  /// `size`, a constant where it is a static dimension of a tensor.dim /
  /// memref.dim's source.
  static OpFoldResult folded(OpFoldResult size) {
    if (std::optional<std::pair<Value, int64_t>> d = dimOf(size)) {
      auto type = cast<ShapedType>(d->first.getType());
      if (type.hasRank() && !type.isDynamicDim(d->second))
        return IntegerAttr::get(IndexType::get(type.getContext()),
                                type.getDimSize(d->second));
    }
    return size;
  }

  /// te.quantize_buffers into buffers of a static shape (a te.quantize to
  /// a static !te.qtensor): the input's dynamic sizes are the logical sizes
  /// the buffers hold.
  void checkQuantizeBuffers(QuantizeBuffersOp quantize) {
    auto input = dyn_cast<RankedTensorType>(quantize.getInput().getType());
    if (!input || input.hasStaticShape() ||
        !llvm::all_of(quantize.getOuts().getTypes(), [](Type t) {
          auto shaped = dyn_cast<ShapedType>(t);
          return shaped && shaped.hasStaticShape();
        }))
      return;
    SmallVector<bool> needed;
    for (int64_t i = 0; i < input.getRank(); ++i)
      needed.push_back(input.isDynamicDim(i));
    FailureOr<SmallVector<OpFoldResult>> logical = emitLogicalSizes(
        b, loc, quantize.getQuantizer(), quantize.getUsage(), getTarget(op),
        input.getShape(), quantize.getOuts(), [&] { return op->emitOpError(); },
        needed);
    if (failed(logical)) {
      staticFailure = true;
      return;
    }
    for (int64_t i = 0; i < input.getRank(); ++i)
      if (needed[i])
        check(sizeOf(quantize.getInput(), i), folded((*logical)[i]),
              /*atLeast=*/false,
              "dimension " + Twine(i) +
                  " of the input (the quantized result's)");
  }

  /// te.quantize_produced_buffers: each input dimension a loop indexes is
  /// that loop's size (the value's size, `sizes`), as is `value_out`'s; and
  /// into buffers of a static shape, the value's dynamic sizes are the
  /// logical sizes the buffers hold.
  void checkQuantizeProduced(QuantizeProducedBuffersOp produced) {
    SmallVector<OpFoldResult> loops = produced.getMixedSizes();
    ArrayRef<Attribute> maps = produced.getIndexingMaps().getValue();
    for (auto [i, input, attr] : llvm::enumerate(produced.getInputs(), maps))
      for (auto [j, expr] :
           llvm::enumerate(cast<AffineMapAttr>(attr).getValue().getResults()))
        if (auto d = dyn_cast<AffineDimExpr>(expr))
          check(sizeOf(input, j), loops[d.getPosition()], /*atLeast=*/false,
                "dimension " + Twine(j) + " of input " + Twine(i) + " (loop d" +
                    Twine(d.getPosition()) + ", the value's dimension " +
                    Twine(d.getPosition()) + ")");
    if (Value out = produced.getValueOut())
      for (auto [k, loop] : llvm::enumerate(loops))
        check(sizeOf(out, k), loop, /*atLeast=*/false,
              "dimension " + Twine(k) + " of value_out (the value's)");
    RankedTensorType value = produced.getValueType();
    if (value.hasStaticShape() ||
        !llvm::all_of(produced.getOuts().getTypes(), [](Type t) {
          auto shaped = dyn_cast<ShapedType>(t);
          return shaped && shaped.hasStaticShape();
        }))
      return;
    SmallVector<bool> needed;
    for (int64_t i = 0; i < value.getRank(); ++i)
      needed.push_back(value.isDynamicDim(i));
    FailureOr<SmallVector<OpFoldResult>> logical = emitLogicalSizes(
        b, loc, produced.getQuantizer(), produced.getUsage(), getTarget(op),
        value.getShape(), produced.getOuts(), [&] { return op->emitOpError(); },
        needed);
    if (failed(logical)) {
      staticFailure = true;
      return;
    }
    for (int64_t i = 0; i < value.getRank(); ++i)
      if (needed[i])
        check(loops[i], folded((*logical)[i]), /*atLeast=*/false,
              "dimension " + Twine(i) +
                  " of the value (the quantized result's)");
  }

  /// te.dequantize_buffers into a result of static sizes (a te.dequantize
  /// of a dynamic !te.qtensor): the logical sizes the buffers hold are the
  /// result's.
  void checkDequantizeBuffers(DequantizeBuffersOp dequantize) {
    if (dequantize.getOuts().size() != 1)
      return;
    auto result = dyn_cast<ShapedType>(dequantize.getOuts()[0].getType());
    if (!result || !result.hasRank() ||
        llvm::all_of(dequantize.getInputs().getTypes(), [](Type t) {
          auto shaped = dyn_cast<ShapedType>(t);
          return shaped && shaped.hasStaticShape();
        }))
      return;
    SmallVector<bool> needed;
    for (int64_t i = 0; i < result.getRank(); ++i)
      needed.push_back(!result.isDynamicDim(i));
    SmallVector<int64_t> unknown(result.getRank(), ShapedType::kDynamic);
    FailureOr<SmallVector<OpFoldResult>> logical = emitLogicalSizes(
        b, loc, dequantize.getQuantizer(), dequantize.getUsage(), getTarget(op),
        unknown, dequantize.getInputs(), [&] { return op->emitOpError(); },
        needed);
    if (failed(logical)) {
      staticFailure = true;
      return;
    }
    for (int64_t i = 0; i < result.getRank(); ++i)
      if (needed[i])
        check(folded((*logical)[i]), constant(result.getDimSize(i)),
              /*atLeast=*/false,
              "dimension " + Twine(i) + " of the quantized input (the " +
                  "result's, " + Twine(result.getDimSize(i)) + ")");
  }

  /// te.gemm_buffers where a size is dynamic: the result D (its `outs`
  /// operand, or the logical sizes of its quantized buffers) has the rows
  /// and columns the operands' logical sizes give it, as the runtime writes
  /// (d_rows x d_cols, TEToRuntime's GemmLowering), and a bias has D's
  /// columns. The runtime checks that the operands agree in K.
  void checkGemmBuffers(GemmBuffersOp gemm) {
    auto isStatic = [](Type t) {
      auto shaped = dyn_cast<ShapedType>(t);
      return shaped && shaped.hasStaticShape();
    };
    if (llvm::all_of(gemm->getOperandTypes(), isStatic) &&
        !ShapedType::isDynamicShape(gemm.getAShape()) &&
        !ShapedType::isDynamicShape(gemm.getBShape()))
      return;
    Target target = getTarget(op);
    auto emitError = [&] { return op->emitOpError(); };
    // An operand's flattened [rows, cols] as the runtime is told them.
    auto flat =
        [&](Attribute q, Usage usage, ArrayRef<int64_t> shape,
            ValueRange buffers) -> FailureOr<std::array<OpFoldResult, 2>> {
      auto quantizer = cast<QuantizerAttrInterface>(q);
      FailureOr<OpFoldResult> rows =
          emitRows(b, loc, quantizer, usage, target, shape, buffers, emitError);
      if (failed(rows) || shape.empty())
        return failure();
      SmallVector<bool> lastOnly(shape.size(), false);
      lastOnly.back() = true;
      FailureOr<SmallVector<OpFoldResult>> dims =
          emitLogicalSizes(b, loc, quantizer, usage, target, shape, buffers,
                           emitError, lastOnly);
      if (failed(dims))
        return failure();
      return std::array<OpFoldResult, 2>{folded(*rows), folded(dims->back())};
    };
    FailureOr<std::array<OpFoldResult, 2>> a = flat(
        gemm.getAQuantizer(), gemm.getAUsage(), gemm.getAShape(), gemm.getA());
    FailureOr<std::array<OpFoldResult, 2>> bFlat = flat(
        gemm.getBQuantizer(), gemm.getBUsage(), gemm.getBShape(), gemm.getB());
    if (failed(a) || failed(bFlat)) {
      staticFailure = true;
      return;
    }
    ::te::format::GemmAxes axes =
        ::te::format::gemmAxes(toFormat(gemm.getLayout()));
    OpFoldResult rows = (*bFlat)[axes.bM == 0 ? 0 : 1];
    OpFoldResult cols = (*a)[axes.aN == 0 ? 0 : 1];
    std::string fromRows = axes.bM == 0 ? "B's rows" : "B's columns";
    std::string fromCols = axes.aN == 0 ? "A's rows" : "A's columns";
    // D as the runtime sees it: [rows, cols] of its buffer or of its
    // quantized buffers.
    OpFoldResult dRows, dCols;
    ValueRange outs = gemm.getOuts();
    if (QuantizerAttrInterface q = gemm.getOutQuantizerAttr()) {
      if (q.getFormatConfig().recipe == ::te::format::Recipe::Delayed &&
          !outs.empty())
        outs = outs.drop_back(); // the amax
      auto data =
          outs.empty() ? ShapedType() : dyn_cast<ShapedType>(outs[0].getType());
      if (!data || !data.hasRank() || data.getRank() == 0)
        return;
      SmallVector<int64_t> shape(data.getRank(), ShapedType::kDynamic);
      FailureOr<std::array<OpFoldResult, 2>> d =
          flat(q, Usage::Rowwise, shape, outs);
      if (failed(d)) {
        staticFailure = true;
        return;
      }
      dRows = (*d)[0];
      dCols = (*d)[1];
    } else {
      if (outs.size() != 1)
        return;
      auto type = dyn_cast<ShapedType>(outs[0].getType());
      if (!type || !type.hasRank() || type.getRank() == 0)
        return;
      dRows = constant(1);
      for (int64_t i = 0; i + 1 < type.getRank(); ++i)
        dRows = mul(dRows, sizeOf(outs[0], i));
      dCols = sizeOf(outs[0], type.getRank() - 1);
    }
    check(dRows, rows, /*atLeast=*/false,
          "the result's rows (its leading dimensions' product; " + fromRows +
              ")");
    check(dCols, cols, /*atLeast=*/false,
          "the result's columns (" + fromCols + ")");
    if (Value bias = gemm.getBias()) {
      auto type = dyn_cast<ShapedType>(bias.getType());
      if (type && type.hasRank() && type.getRank() == 1)
        check(sizeOf(bias, 0), cols, /*atLeast=*/false,
              "dimension 0 of the bias (" + fromCols + ")");
    }
  }

private:
  Operation *op;
  OpBuilder b;
  Location loc;
  unsigned &numChecks;
  std::string where;
  unsigned placed = 0;
  bool staticFailure = false;
  std::set<std::tuple<std::tuple<const void *, int64_t, int>,
                      std::tuple<const void *, int64_t, int>, int>>
      placedChecks;
};

class TECheckShapesPass
    : public mlir::te::impl::TECheckShapesBase<TECheckShapesPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    unsigned checks = 0;
    bool failedStatically = false;
    SmallVector<Operation *> ops;
    Builder builder(module.getContext());
    module.walk([&](Operation *op) {
      if (isa<linalg::LinalgOp, tensor::CastOp, tensor::ExtractSliceOp,
              tensor::InsertSliceOp, tensor::ExtractOp, tensor::InsertOp,
              tensor::ExpandShapeOp, tensor::ReshapeOp, tensor::PadOp,
              tensor::EmptyOp, tensor::GenerateOp, tensor::SplatOp,
              bufferization::AllocTensorOp,
              bufferization::MaterializeInDestinationOp, memref::LoadOp,
              memref::StoreOp, memref::SubViewOp, memref::CopyOp,
              memref::AtomicRMWOp, memref::GenericAtomicRMWOp, memref::AllocOp,
              memref::AllocaOp, memref::DimOp, tensor::DimOp,
              affine::AffineLoadOp, affine::AffineStoreOp, vector::LoadOp,
              vector::StoreOp, QuantizeBuffersOp, QuantizeProducedBuffersOp,
              DequantizeBuffersOp, GemmBuffersOp>(op) &&
          inControlFlow(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      // The sizes and index arithmetic the checks built go right before
      // `op`; those no check uses are erased after.
      Operation *before = op->getPrevNode();
      Checker c(op, checks);
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        c.checkLinalg(linalgOp);
      else if (auto cast = dyn_cast<tensor::CastOp>(op))
        c.checkCast(cast);
      else if (isa<tensor::ExtractSliceOp, memref::SubViewOp>(op)) {
        // A slice of its first operand (a tensor or a buffer).
        auto slice = llvm::cast<OffsetSizeAndStrideOpInterface>(op);
        c.checkSlice(op->getOperand(0), slice.getMixedOffsets(),
                     slice.getMixedSizes(), slice.getMixedStrides(), "source");
      } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
        c.checkInsertSlice(insert);
      else if (auto extract = dyn_cast<tensor::ExtractOp>(op))
        c.checkIndices(extract.getTensor(), extract.getIndices());
      else if (auto insert = dyn_cast<tensor::InsertOp>(op))
        c.checkIndices(insert.getDest(), insert.getIndices());
      else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
        c.checkExpandShape(expand);
      else if (auto reshape = dyn_cast<tensor::ReshapeOp>(op))
        c.checkReshape(reshape);
      else if (auto pad = dyn_cast<tensor::PadOp>(op))
        c.checkPad(pad);
      else if (auto load = dyn_cast<memref::LoadOp>(op))
        c.checkIndices(load.getMemRef(), load.getIndices());
      else if (auto store = dyn_cast<memref::StoreOp>(op))
        c.checkIndices(store.getMemRef(), store.getIndices());
      else if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op))
        c.checkIndices(rmw.getMemref(), rmw.getIndices());
      else if (auto rmw = dyn_cast<memref::GenericAtomicRMWOp>(op))
        c.checkIndices(rmw.getMemref(), rmw.getIndices());
      else if (auto load = dyn_cast<affine::AffineLoadOp>(op))
        c.checkAffineIndices(load.getMemRef(), load.getAffineMap(),
                             load.getMapOperands());
      else if (auto store = dyn_cast<affine::AffineStoreOp>(op))
        c.checkAffineIndices(store.getMemRef(), store.getAffineMap(),
                             store.getMapOperands());
      else if (auto load = dyn_cast<vector::LoadOp>(op))
        c.checkVectorAccess(load.getBase(), load.getIndices(),
                            load.getVectorType());
      else if (auto store = dyn_cast<vector::StoreOp>(op))
        c.checkVectorAccess(store.getBase(), store.getIndices(),
                            store.getVectorType());
      else if (auto alloc = dyn_cast<memref::AllocOp>(op))
        c.checkNewMemRef(op, alloc.getType(), alloc.getDynamicSizes());
      else if (auto alloca = dyn_cast<memref::AllocaOp>(op))
        c.checkNewMemRef(op, alloca.getType(), alloca.getDynamicSizes());
      else if (auto dim = dyn_cast<tensor::DimOp>(op))
        c.checkDimIndex(dim.getSource(), dim.getIndex());
      else if (auto dim = dyn_cast<memref::DimOp>(op))
        c.checkDimIndex(dim.getSource(), dim.getIndex());
      else if (auto copy = dyn_cast<memref::CopyOp>(op))
        c.checkCopy(copy);
      else if (auto quantize = dyn_cast<QuantizeBuffersOp>(op))
        c.checkQuantizeBuffers(quantize);
      else if (auto produced = dyn_cast<QuantizeProducedBuffersOp>(op))
        c.checkQuantizeProduced(produced);
      else if (auto dequantize = dyn_cast<DequantizeBuffersOp>(op))
        c.checkDequantizeBuffers(dequantize);
      else if (auto gemm = dyn_cast<GemmBuffersOp>(op))
        c.checkGemmBuffers(gemm);
      else if (auto empty = dyn_cast<tensor::EmptyOp>(op))
        c.checkNewTensor(empty.getType(), empty.getMixedSizes());
      else if (auto generate = dyn_cast<tensor::GenerateOp>(op))
        c.checkNewTensor(generate.getType(),
                         getMixedValues(generate.getType().getShape(),
                                        generate.getDynamicExtents(), builder));
      else if (auto splat = dyn_cast<tensor::SplatOp>(op))
        c.checkNewTensor(splat.getType(),
                         getMixedValues(splat.getType().getShape(),
                                        splat.getDynamicSizes(), builder));
      else if (auto alloc = dyn_cast<bufferization::AllocTensorOp>(op)) {
        if (!alloc.getCopy())
          c.checkNewTensor(alloc.getType(),
                           getMixedValues(alloc.getType().getShape(),
                                          alloc.getDynamicSizes(), builder));
      } else if (auto materialize =
                     dyn_cast<bufferization::MaterializeInDestinationOp>(op))
        c.checkMaterialize(materialize);
      for (Operation *prev = op->getPrevNode(); prev && prev != before;) {
        Operation *next = prev->getPrevNode();
        if (prev->use_empty() && isMemoryEffectFree(prev))
          prev->erase();
        prev = next;
      }
      if (c.checksPlaced())
        ++numOpsChecked;
      failedStatically |= c.failedStatically();
    }
    numChecks += checks;
    if (failedStatically)
      return signalPassFailure();
    module->setAttr("te.shape_checks", UnitAttr::get(module.getContext()));
    // No check placed (the attribute aside, nothing changed): the pass
    // manager then skips verifying the module.
    if (checks == 0)
      markAllAnalysesPreserved();
  }
};

} // namespace
