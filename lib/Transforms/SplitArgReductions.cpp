//===- SplitArgReductions.cpp - Argmax / argmin as parallel reductions ----===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-split-arg-reductions: an argmax or argmin written as one linalg.generic
// -- the extremum and the first index where it is reached, carried together
// through one reduction loop, the form TOSA's and Torch-MLIR's argmax
// lowerings write -- becomes two reductions with one associative combiner
// each and an elementwise op, which GPU targets run on their parallel
// kernels (one op with two outputs that read each other runs one thread per
// output). The results are the sequential loop's, bit for bit:
//
//   M     = maxnumf(init_m, x[..., j, ...] for every j)      (argmin: minnumf)
//   first = min over j of (x[j] == M and M > init_m ? j : SENTINEL)
//   found = first != SENTINEL
//   idx   = found ? first : init_i,   val = found ? x[first] : init_m
//
// The loop `m, i = x[j] > m ? (x[j], j) : (m, i)` keeps its initial values
// unless some element is greater than the initial maximum, and then stops
// at the first element equal to the maximum: ties keep the first, NaN
// elements are never taken (`>` is false; maxnumf ignores them), and the
// value is the taken element's own bits (x[first]: -0.0 and +0.0 compare
// equal, so M's sign could differ).
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "te-split-arg-reductions"

namespace mlir::te {
#define GEN_PASS_DEF_TESPLITARGREDUCTIONS
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

namespace {

/// A matched argmax / argmin.
struct ArgReduction {
  linalg::GenericOp op;
  unsigned input;    ///< the compared input (operand number)
  unsigned valueOut; ///< the output holding the extremum (init number)
  unsigned indexOut; ///< the output holding its index
  unsigned dim;      ///< the reduced loop
  bool max;          ///< argmax (else argmin)
  /// The value is `maximumf(x, m)` (`minimumf`), NaN-propagating, not a
  /// select of x (Torch-MLIR's and IREE's form).
  bool propagatesNaN = false;
};

/// Matches `op` as an argmax / argmin on tensors: one reduced loop, two
/// outputs indexed alike (a float value, an integer or index position), and
/// a region that is exactly
///
///     %j = linalg.index <dim> [; %jc = arith.index_cast %j]
///     %c = arith.cmpf ogt, %x, %m        (or olt %m, %x; argmin: olt / ogt)
///     %v = arith.select %c, %x, %m       (or arith.maximumf %x, %m; argmin:
///                                         minimumf)
///     %i = arith.select %c, %jc, %acc_i
///     linalg.yield (%v, %i in the outputs' order)
std::optional<ArgReduction> matchArgReduction(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 2)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  std::optional<unsigned> dim;
  for (auto [d, it] : llvm::enumerate(iterators))
    if (it == utils::IteratorType::reduction) {
      if (dim)
        return std::nullopt;
      dim = d;
    }
  if (!dim)
    return std::nullopt;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  ArgReduction arg{op, 0, 0, 0, *dim, true};
  // The yielded value (the float output's) and position (a select on the
  // comparison).
  arg.valueOut = isa<FloatType>(yield.getOperand(0).getType()) ? 0 : 1;
  arg.indexOut = 1 - arg.valueOut;
  Value yieldedV = yield.getOperand(arg.valueOut);
  auto selI = yield.getOperand(arg.indexOut).getDefiningOp<arith::SelectOp>();
  BlockArgument accV = op.getRegionOutputArgs()[arg.valueOut];
  BlockArgument accI = op.getRegionOutputArgs()[arg.indexOut];
  if (!selI || !isa<FloatType>(accV.getType()) ||
      !(accI.getType().isSignlessInteger() || accI.getType().isIndex()) ||
      selI.getFalseValue() != accI)
    return std::nullopt;
  // x: the input the value takes, by a select on the same comparison or by
  // maximumf / minimumf with the running value.
  BlockArgument x;
  std::optional<bool> valueIsMax;
  auto otherOperand = [&](Operation *binary) -> Value {
    if (binary->getOperand(0) == accV)
      return binary->getOperand(1);
    if (binary->getOperand(1) == accV)
      return binary->getOperand(0);
    return Value();
  };
  Value xValue;
  if (auto selV = yieldedV.getDefiningOp<arith::SelectOp>()) {
    if (selV.getCondition() != selI.getCondition() ||
        selV.getFalseValue() != accV)
      return std::nullopt;
    xValue = selV.getTrueValue();
  } else if (auto mx = yieldedV.getDefiningOp<arith::MaximumFOp>()) {
    xValue = otherOperand(mx);
    valueIsMax = true;
  } else if (auto mn = yieldedV.getDefiningOp<arith::MinimumFOp>()) {
    xValue = otherOperand(mn);
    valueIsMax = false;
  }
  x = dyn_cast_or_null<BlockArgument>(xValue);
  if (!x || x.getOwner() != &body || x.getArgNumber() >= op.getNumDpsInputs())
    return std::nullopt;
  arg.input = x.getArgNumber();
  arg.propagatesNaN = valueIsMax.has_value();
  // The position: linalg.index of the reduced loop, cast to the index type.
  Value pos = selI.getTrueValue();
  if (auto cast = pos.getDefiningOp<arith::IndexCastOp>())
    pos = cast.getIn();
  else if (!accI.getType().isIndex())
    return std::nullopt;
  auto index = pos.getDefiningOp<linalg::IndexOp>();
  if (!index || index.getDim() != *dim)
    return std::nullopt;
  // The comparison: x against the running value, strictly.
  auto cmp = selI.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp)
    return std::nullopt;
  arith::CmpFPredicate p = cmp.getPredicate();
  if (cmp.getLhs() == x && cmp.getRhs() == accV &&
      (p == arith::CmpFPredicate::OGT || p == arith::CmpFPredicate::OLT))
    arg.max = p == arith::CmpFPredicate::OGT;
  else if (cmp.getLhs() == accV && cmp.getRhs() == x &&
           (p == arith::CmpFPredicate::OGT || p == arith::CmpFPredicate::OLT))
    arg.max = p == arith::CmpFPredicate::OLT;
  else
    return std::nullopt;
  if (valueIsMax && *valueIsMax != arg.max)
    return std::nullopt; // maximumf with an argmin's comparison, ...
  // Nothing else in the region; the outputs indexed alike, without the
  // reduced loop; the compared input indexed by loops only.
  unsigned expected = 5 + (pos != selI.getTrueValue() ? 1 : 0);
  if (body.getOperations().size() != expected)
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap outMap = maps[op.getNumDpsInputs()];
  if (outMap != maps[op.getNumDpsInputs() + 1] ||
      outMap.isFunctionOfDim(*dim) || !outMap.isProjectedPermutation() ||
      outMap.getNumResults() + 1 != op.getNumLoops())
    return std::nullopt;
  if (!llvm::all_of(maps[arg.input].getResults(),
                    [](AffineExpr e) { return isa<AffineDimExpr>(e); }))
    return std::nullopt;
  return arg;
}

/// Rewrites a matched argmax / argmin (the file comment's formulas).
void splitArgReduction(RewriterBase &rewriter, const ArgReduction &arg) {
  linalg::GenericOp op = arg.op;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  unsigned numInputs = op.getNumDpsInputs();
  Value x = op.getDpsInputs()[arg.input];
  Value initV = op.getDpsInits()[arg.valueOut];
  Value initI = op.getDpsInits()[arg.indexOut];
  auto valueType = cast<FloatType>(getElementTypeOrSelf(initV.getType()));
  Type indexType = getElementTypeOrSelf(initI.getType());
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap xMap = maps[arg.input], outMap = maps[numInputs];
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // Positions are found as i64 (the loop's index, never wrapped to a
  // narrower result type before the minimum), then cast as the loop casts.
  Type i64 = rewriter.getI64Type();
  auto i64Constant = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  const int64_t sentinel = std::numeric_limits<int64_t>::max();
  auto position = [&](OpBuilder &b) -> Value {
    return arith::IndexCastOp::create(b, loc, i64,
                                      linalg::IndexOp::create(b, loc, arg.dim));
  };
  // A reduction over the op's loops into a fresh i64 tensor of the outputs'
  // shape, from INT64_MAX, of minsi(acc, body(args...)).
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, initI);
  auto minPosition = [&](ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                         function_ref<Value(OpBuilder &, ValueRange)> body) {
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, sizes, i64).getResult();
    Value none = linalg::FillOp::create(
                     rewriter, loc, ValueRange{i64Constant(rewriter, sentinel)},
                     ValueRange{empty})
                     .getResult(0);
    SmallVector<AffineMap> partMaps(inputMaps);
    partMaps.push_back(outMap);
    return linalg::GenericOp::create(
               rewriter, loc, TypeRange{none.getType()}, inputs,
               ValueRange{none}, partMaps, iterators,
               [&](OpBuilder &b, Location, ValueRange args) {
                 Value pos = body(b, args.drop_back());
                 linalg::YieldOp::create(
                     b, loc,
                     arith::MinSIOp::create(b, loc, args.back(), pos)
                         .getResult());
               })
        .getResult(0);
  };
  // A float reduction over the op's loops from the initial value.
  auto floatReduction =
      [&](ValueRange inputs, ArrayRef<AffineMap> inputMaps,
          function_ref<Value(OpBuilder &, ValueRange, Value)> combine) {
        SmallVector<AffineMap> partMaps(inputMaps);
        partMaps.push_back(outMap);
        return linalg::GenericOp::create(
                   rewriter, loc, TypeRange{initV.getType()}, inputs,
                   ValueRange{initV}, partMaps, iterators,
                   [&](OpBuilder &b, Location, ValueRange args) {
                     linalg::YieldOp::create(
                         b, loc, combine(b, args.drop_back(), args.back()));
                   })
            .getResult(0);
      };
  auto numCombine = [&](OpBuilder &b, Value acc, Value v) -> Value {
    return arg.max ? arith::MaxNumFOp::create(b, loc, acc, v).getResult()
                   : arith::MinNumFOp::create(b, loc, acc, v).getResult();
  };

  // The loop stops taking positions at the first NaN when its value
  // propagates NaN (the running value is NaN from there on): k, the first
  // NaN's position (INT64_MAX: none).
  Value firstNaN;
  if (arg.propagatesNaN)
    firstNaN = minPosition({x}, {xMap}, [&](OpBuilder &b, ValueRange a) {
      Value nan =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a[0], a[0]);
      return arith::SelectOp::create(b, loc, nan, position(b),
                                     i64Constant(b, sentinel))
          .getResult();
    });
  // 1. The extremum the positions are compared with, from the initial value
  // (maxnumf / minnumf: NaN ignored; before k only).
  Value m;
  if (!arg.propagatesNaN) {
    m = floatReduction({x}, {xMap}, [&](OpBuilder &b, ValueRange a, Value acc) {
      return numCombine(b, acc, a[0]);
    });
  } else {
    m = floatReduction(
        {x, firstNaN}, {xMap, outMap},
        [&](OpBuilder &b, ValueRange a, Value acc) {
          Value before = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::slt, position(b), a[1]);
          Value nan = arith::ConstantOp::create(
              b, loc,
              b.getFloatAttr(valueType,
                             APFloat::getNaN(valueType.getFloatSemantics())));
          return numCombine(b, acc,
                            arith::SelectOp::create(b, loc, before, a[0], nan));
        });
  }
  // 2. The first position holding it, where it beats the initial value.
  SmallVector<Value> firstInputs{x, m, initV};
  SmallVector<AffineMap> firstMaps{xMap, outMap, outMap};
  if (firstNaN) {
    firstInputs.push_back(firstNaN);
    firstMaps.push_back(outMap);
  }
  Value firstPos =
      minPosition(firstInputs, firstMaps, [&](OpBuilder &b, ValueRange a) {
        Value j = position(b);
        Value equal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            a[0], a[1]);
        Value beats = arith::CmpFOp::create(b, loc,
                                            arg.max ? arith::CmpFPredicate::OGT
                                                    : arith::CmpFPredicate::OLT,
                                            a[1], a[2]);
        Value take = arith::AndIOp::create(b, loc, equal, beats);
        if (a.size() == 4)
          take = arith::AndIOp::create(
              b, loc, take,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j,
                                    a[3]));
        return arith::SelectOp::create(b, loc, take, j,
                                       i64Constant(b, sentinel))
            .getResult();
      });
  // The value of the NaN-propagating form: maximumf (minimumf) of all,
  // exact in any order.
  Value propagated;
  if (arg.propagatesNaN)
    propagated = floatReduction(
        {x}, {xMap}, [&](OpBuilder &b, ValueRange a, Value acc) -> Value {
          return arg.max
                     ? arith::MaximumFOp::create(b, loc, acc, a[0]).getResult()
                     : arith::MinimumFOp::create(b, loc, acc, a[0]).getResult();
        });

  // 3. Over the outputs' loops (the reduced one dropped): the results.
  unsigned numLoops = op.getNumLoops();
  SmallVector<AffineExpr> renumber;
  for (unsigned d = 0, k = 0; d < numLoops; ++d)
    renumber.push_back(d == arg.dim ? getAffineConstantExpr(0, op.getContext())
                                    : getAffineDimExpr(k++, op.getContext()));
  AffineMap outMap2 = outMap.replaceDimsAndSymbols(renumber, {}, numLoops - 1,
                                                   outMap.getNumSymbols());
  SmallVector<utils::IteratorType> parallel(numLoops - 1,
                                            utils::IteratorType::parallel);
  auto results = linalg::GenericOp::create(
      rewriter, loc, TypeRange{initV.getType(), initI.getType()},
      ValueRange{firstPos, initV, initI}, ValueRange{initV, initI},
      ArrayRef<AffineMap>{outMap2, outMap2, outMap2, outMap2, outMap2},
      parallel, [&](OpBuilder &b, Location, ValueRange args) {
        Value found = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                            args[0], i64Constant(b, sentinel));
        // x at the found position (any in-range position otherwise: 0).
        Value at = arith::IndexCastOp::create(
            b, loc, b.getIndexType(),
            arith::SelectOp::create(b, loc, found, args[0], i64Constant(b, 0)));
        Value pos = at;
        if (!indexType.isIndex())
          pos = arith::IndexCastOp::create(b, loc, indexType, at);
        Value idx = arith::SelectOp::create(b, loc, found, pos, args[2]);
        Value val = args[1];
        if (!arg.propagatesNaN) {
          SmallVector<Value> xIdx;
          for (AffineExpr e : xMap.getResults()) {
            unsigned d = cast<AffineDimExpr>(e).getPosition();
            xIdx.push_back(d == arg.dim ? at
                                        : linalg::IndexOp::create(
                                              b, loc, d < arg.dim ? d : d - 1)
                                              .getResult());
          }
          Value xv = tensor::ExtractOp::create(b, loc, x, xIdx);
          val = arith::SelectOp::create(b, loc, found, xv, args[1]);
        }
        SmallVector<Value> yields{val, idx};
        linalg::YieldOp::create(b, loc, yields);
      });
  SmallVector<Value> replacements(2);
  replacements[arg.valueOut] =
      arg.propagatesNaN ? propagated : results.getResult(0);
  replacements[arg.indexOut] = results.getResult(1);
  rewriter.replaceOp(op, replacements);
}

struct TESplitArgReductionsPass
    : public te::impl::TESplitArgReductionsBase<TESplitArgReductionsPass> {
  void runOnOperation() override {
    SmallVector<ArgReduction> found;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (std::optional<ArgReduction> arg = matchArgReduction(op))
        found.push_back(*arg);
    });
    if (found.empty()) {
      markAllAnalysesPreserved();
      return;
    }
    IRRewriter rewriter(&getContext());
    for (const ArgReduction &arg : found)
      splitArgReduction(rewriter, arg);
    numSplit += found.size();
  }
};

} // namespace
