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
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

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
             scf::IndexSwitchOp>(parent))
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

  /// `size` == `expected` (or >= with `atLeast`); `what` names `size`. A
  /// check placed before for the op is not repeated.
  void check(OpFoldResult size, OpFoldResult expected, bool atLeast,
             const Twine &what) {
    if (sameSize(size, expected))
      return;
    auto sizeId = sizeKey(size), expectedId = sizeKey(expected);
    if (!atLeast && expectedId < sizeId)
      std::swap(sizeId, expectedId);
    if (!placedChecks.insert({sizeId, expectedId, atLeast}).second)
      return;
    std::optional<int64_t> s = getConstantIntValue(size);
    std::optional<int64_t> e = getConstantIntValue(expected);
    if (s && e) {
      if (atLeast ? *s >= *e : *s == *e)
        return;
      op->emitError() << what << " is " << *s << ", expected "
                      << (atLeast ? "at least " : "") << *e;
      staticFailure = true;
      return;
    }
    CheckSizeOp::create(b, loc, value(size), value(expected), atLeast,
                        b.getStringAttr(where + ": " + what));
    ++placed;
    ++numChecks;
  }

  Value value(OpFoldResult v) {
    return getValueOrCreateConstantIndexOp(b, loc, v);
  }

  // Index arithmetic that folds constants.
  OpFoldResult add(OpFoldResult x, OpFoldResult y) {
    std::optional<int64_t> a = getConstantIntValue(x),
                           c = getConstantIntValue(y);
    if (a && c)
      return b.getIndexAttr(*a + *c);
    if (c && *c == 0)
      return x;
    if (a && *a == 0)
      return y;
    return b.createOrFold<arith::AddIOp>(loc, value(x), value(y));
  }
  OpFoldResult mul(OpFoldResult x, OpFoldResult y) {
    std::optional<int64_t> a = getConstantIntValue(x),
                           c = getConstantIntValue(y);
    if (a && c)
      return b.getIndexAttr(*a * *c);
    if (c && *c == 1)
      return x;
    if (a && *a == 1)
      return y;
    return b.createOrFold<arith::MulIOp>(loc, value(x), value(y));
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

  /// Every index is inside `tensor`.
  void checkIndices(Value tensor, ValueRange indices) {
    for (auto [i, index] : llvm::enumerate(indices)) {
      OpFoldResult idx = getAsOpFoldResult(index);
      check(idx, constant(0), /*atLeast=*/true, "index " + Twine(i));
      check(sizeOf(tensor, i), add(idx, constant(1)), /*atLeast=*/true,
            "dimension " + Twine(i) + " of the tensor (index " + Twine(i) +
                " + 1)");
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
    OpFoldResult iterations;
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
        if (!iterations) {
          iterations = constant(1);
          for (OpFoldResult s : loopSize)
            iterations = mul(iterations, s);
        }
        SmallVector<OpFoldResult> last;
        for (OpFoldResult s : loopSize)
          last.push_back(add(s, constant(-1)));
        std::string exprText;
        llvm::raw_string_ostream os(exprText);
        expr.print(os);
        OpFoldResult end = affine::makeComposedFoldedAffineApply(
            b, loc, AffineMap::get(numLoops, 0, expr + 1), last);
        check(sizeOf(operand->get(), i), unlessEmpty(iterations, end),
              /*atLeast=*/true,
              what + " (indexed by " + exprText + ": its largest value + 1)");
      }
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

  /// tensor.reshape: as many elements as the new shape has.
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
      want = mul(want, size);
    }
    check(have, want, /*atLeast=*/false,
          "the source's element count (the new shape's element count)");
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

private:
  Operation *op;
  OpBuilder b;
  Location loc;
  unsigned &numChecks;
  std::string where;
  unsigned placed = 0;
  bool staticFailure = false;
  std::set<std::tuple<std::tuple<const void *, int64_t, int>,
                      std::tuple<const void *, int64_t, int>, bool>>
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
    module.walk([&](Operation *op) {
      if (isa<linalg::LinalgOp, tensor::CastOp, tensor::ExtractSliceOp,
              tensor::InsertSliceOp, tensor::ExtractOp, tensor::InsertOp,
              tensor::ExpandShapeOp, tensor::ReshapeOp,
              bufferization::MaterializeInDestinationOp>(op) &&
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
      else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
        c.checkSlice(slice.getSource(), slice.getMixedOffsets(),
                     slice.getMixedSizes(), slice.getMixedStrides(), "source");
      else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
        c.checkInsertSlice(insert);
      else if (auto extract = dyn_cast<tensor::ExtractOp>(op))
        c.checkIndices(extract.getTensor(), extract.getIndices());
      else if (auto insert = dyn_cast<tensor::InsertOp>(op))
        c.checkIndices(insert.getDest(), insert.getIndices());
      else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
        c.checkExpandShape(expand);
      else if (auto reshape = dyn_cast<tensor::ReshapeOp>(op))
        c.checkReshape(reshape);
      else if (auto materialize =
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
