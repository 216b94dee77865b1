//===- TEToReference.cpp - The high-precision twin of a program -*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// convert-te-to-reference: te ops -> plain tensor arithmetic, !te.qtensor ->
// its nominal tensor type. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "te/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/IR/TEOps.h"
#include "te/Dialect/TE/IR/TETypes.h"

#include <limits>

#define DEBUG_TYPE "convert-te-to-reference"

namespace mlir::te {
#define GEN_PASS_DEF_CONVERTTETOREFERENCE
#include "te/Conversion/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

Value zerosF32x1(OpBuilder &b, Location loc) {
  auto type = RankedTensorType::get({1}, b.getF32Type());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, b.getF32FloatAttr(0.0f)));
}

/// Elementwise conversion of a float tensor to `elementType`.
Value castElements(OpBuilder &b, Location loc, Value v, Type elementType) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elementType)
    return v;
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, v, i));
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), elementType, dyn);
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iters(type.getRank(),
                                         utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{v}, ValueRange{init},
             ArrayRef<AffineMap>{id, id}, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value x = args[0];
               Value r = elementType.getIntOrFloatBitWidth() >
                                 x.getType().getIntOrFloatBitWidth()
                             ? arith::ExtFOp::create(nb, nl, elementType, x)
                                   .getResult()
                             : arith::TruncFOp::create(nb, nl, elementType, x)
                                   .getResult();
               linalg::YieldOp::create(nb, nl, r);
             })
      .getResult(0);
}

/// Collapses the leading dimensions: [..., K] -> [M, K] ([K] -> [1, K]).
Value to2D(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() == 2)
    return v;
  if (type.getRank() == 1)
    return tensor::ExpandShapeOp::create(
        b, loc,
        RankedTensorType::get({1, type.getDimSize(0)}, type.getElementType()),
        v, {{0, 1}},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1),
                               tensor::getMixedSize(b, loc, v, 0)});
  SmallVector<ReassociationIndices> re(2);
  for (int64_t i = 0; i + 1 < type.getRank(); ++i)
    re[0].push_back(i);
  re[1].push_back(type.getRank() - 1);
  return tensor::CollapseShapeOp::create(b, loc, v, re);
}

Value extend(OpBuilder &b, Location loc, Value x) {
  if (x.getType().isF32())
    return x;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), x);
}

struct QuantizePattern : OpConversionPattern<QuantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(QuantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> results{adaptor.getInput()};
    if (op.getAmax())
      results.push_back(zerosF32x1(rewriter, op.getLoc()));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// te.empty: an uninitialised tensor of the nominal type (the quantized
/// program's buffers are uninitialised too), e.g. the initial value of a
/// loop-carried quantized tensor.
struct EmptyPattern : OpConversionPattern<EmptyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EmptyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!type)
      return failure();
    rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type,
                                                 adaptor.getDynamicSizes());
    return success();
  }
};

struct DequantizePattern : OpConversionPattern<DequantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DequantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       castElements(rewriter, op.getLoc(), adaptor.getInput(),
                                    op.getType().getElementType()));
    return success();
  }
};

struct GemmPattern : OpConversionPattern<GemmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getResult().getType()));
    // Where N, M and K lie in the operands (Format's gemmAxes, on the 2-D
    // views). TN / NN: D takes B's leading dimensions, which the loops run
    // over as they are (A is 2-D). NT contracts over the leading dimensions
    // of both operands: flattened to 2-D, D is 2-D. Dynamic dimensions (a
    // batch te-infer-shapes could not make static) are sized at run time
    // from the operands: the twin allocates no quantized buffers.
    ::te::format::GemmAxes axes =
        ::te::format::gemmAxes(toFormat(op.getLayout()));
    bool nt = op.getLayout() == GemmLayout::NT;
    Value a = nt ? to2D(rewriter, loc, adaptor.getA()) : adaptor.getA();
    Value b = nt ? to2D(rewriter, loc, adaptor.getB()) : adaptor.getB();
    int64_t lead = nt ? 1 : cast<RankedTensorType>(b.getType()).getRank() - 1;
    // Loops (m..., n, k).
    unsigned numLoops = lead + 2;
    SmallVector<AffineExpr> dm;
    for (int64_t i = 0; i < lead; ++i)
      dm.push_back(getAffineDimExpr(i, ctx));
    AffineExpr dn = getAffineDimExpr(lead, ctx),
               dk = getAffineDimExpr(lead + 1, ctx);
    SmallVector<AffineExpr> aExprs(2);
    aExprs[axes.aN] = dn;
    aExprs[axes.aK] = dk;
    AffineMap aMap = AffineMap::get(numLoops, 0, aExprs, ctx);
    SmallVector<AffineExpr> bExprs(dm);
    bExprs.insert(axes.bK == 0 ? bExprs.begin() : bExprs.end(), dk);
    AffineMap bMap = AffineMap::get(numLoops, 0, bExprs, ctx);
    SmallVector<AffineExpr> dExprs(dm);
    dExprs.push_back(dn);
    AffineMap dMap = AffineMap::get(numLoops, 0, dExprs, ctx);

    SmallVector<OpFoldResult> sizes;
    for (int64_t i = 0; i < lead; ++i)
      sizes.push_back(
          tensor::getMixedSize(rewriter, loc, b, axes.bK == 0 ? i + 1 : i));
    sizes.push_back(tensor::getMixedSize(rewriter, loc, a, axes.aN));
    Type f32 = rewriter.getF32Type();
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes, f32);
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
    init = linalg::FillOp::create(rewriter, loc, zero, init).getResult(0);
    SmallVector<utils::IteratorType> iterators(numLoops - 1,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value acc =
        linalg::GenericOp::create(
            rewriter, loc, init.getType(), ValueRange{a, b}, ValueRange{init},
            ArrayRef<AffineMap>{aMap, bMap, dMap}, iterators,
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value p = arith::MulFOp::create(nb, nl, extend(nb, nl, args[1]),
                                              extend(nb, nl, args[0]));
              Value sum = arith::AddFOp::create(nb, nl, args[2], p);
              linalg::YieldOp::create(nb, nl, sum);
            })
            .getResult(0);
    // Epilogue: + bias[n] + C[m..., n], rounded once to D's element type.
    Type outElement = resultType.getElementType();
    Value out = tensor::EmptyOp::create(rewriter, loc, sizes, outElement);
    SmallVector<Value> ins{acc};
    unsigned outRank = lead + 1;
    AffineMap id = rewriter.getMultiDimIdentityMap(outRank);
    SmallVector<AffineMap> maps{id};
    Value bias = adaptor.getBias();
    if (bias) {
      ins.push_back(bias);
      maps.push_back(
          AffineMap::get(outRank, 0, {getAffineDimExpr(lead, ctx)}, ctx));
    }
    if (Value c = adaptor.getAccumulate()) {
      if (c.getType() != out.getType())
        c = tensor::CastOp::create(
            rewriter, loc,
            cast<RankedTensorType>(out.getType())
                .clone(cast<RankedTensorType>(c.getType()).getElementType()),
            c);
      ins.push_back(c);
      maps.push_back(id);
    }
    maps.push_back(id);
    Value d =
        linalg::GenericOp::create(
            rewriter, loc, out.getType(), ins, ValueRange{out}, maps,
            SmallVector<utils::IteratorType>(outRank,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value v = args[0];
              for (size_t i = 1; i + 1 < args.size(); ++i)
                v = arith::AddFOp::create(nb, nl, v, extend(nb, nl, args[i]));
              if (outElement != nb.getF32Type())
                v = arith::TruncFOp::create(nb, nl, outElement, v);
              linalg::YieldOp::create(nb, nl, v);
            })
            .getResult(0);
    if (d.getType() != resultType)
      d = tensor::CastOp::create(rewriter, loc, resultType, d);
    SmallVector<Value> results{d};
    if (op.getAmax())
      results.push_back(zerosF32x1(rewriter, loc));
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct AmaxPattern : OpConversionPattern<AmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, zerosF32x1(rewriter, op.getLoc()));
    return success();
  }
};

struct UpdateScalePattern : OpConversionPattern<UpdateScaleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(UpdateScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, {adaptor.getHistory(), adaptor.getScale()});
    return success();
  }
};

struct AllReducePattern : OpConversionPattern<AllReduceMaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AllReduceMaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Attention in f32, the scores materialized
//===----------------------------------------------------------------------===//

/// The linalg.generic of `ins` (maps `maps`, then the init's) into `init`
/// over `iterators`; `body` computes the yielded value from the block's
/// arguments (the inputs' elements, then the init's).
Value generic(OpBuilder &b, Location loc, ValueRange ins, Value init,
              ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iterators,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  return linalg::GenericOp::create(
             b, loc, init.getType(), ins, ValueRange{init}, maps, iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, body(nb, nl, args));
             })
      .getResult(0);
}

Value f32Constant(OpBuilder &b, Location loc, float v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

/// An f32 tensor of `sizes` filled with `v`.
Value filled(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
             float v) {
  Value init = tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
  return linalg::FillOp::create(b, loc, f32Constant(b, loc, v), init)
      .getResult(0);
}

/// The attention's shapes and the loops of its generics: the leading
/// dimensions (batch and heads, or N) of the query, then the query row i,
/// the key row j and one reduced dimension. Key and value are given per
/// query head (expandHeads).
struct AttentionLoops {
  AttentionLoops(OpBuilder &b, Location loc, Value q, Value k, Value v)
      : b(b), loc(loc), ctx(b.getContext()) {
    auto qt = cast<RankedTensorType>(q.getType());
    rank = qt.getRank();
    lead = rank - 2;
    for (int64_t d = 0; d < lead; ++d)
      leadSizes.push_back(tensor::getMixedSize(b, loc, q, d));
    l = tensor::getMixedSize(b, loc, q, rank - 2);
    e = tensor::getMixedSize(b, loc, q, rank - 1);
    s = tensor::getMixedSize(b, loc, k, rank - 2);
    ev = tensor::getMixedSize(b, loc, v, rank - 1);
  }

  AffineExpr dim(int64_t i) const { return getAffineDimExpr(i, ctx); }
  AffineExpr i() const { return dim(lead); }
  AffineExpr j() const { return dim(lead + 1); }
  AffineExpr r() const { return dim(lead + 2); }
  /// The map of a tensor [lead..., x, y] over `numLoops` loops.
  AffineMap map(unsigned numLoops, ArrayRef<AffineExpr> rest) const {
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < lead; ++d)
      exprs.push_back(dim(d));
    exprs.append(rest.begin(), rest.end());
    return AffineMap::get(numLoops, 0, exprs, ctx);
  }
  SmallVector<OpFoldResult> sizes(ArrayRef<OpFoldResult> rest) const {
    SmallVector<OpFoldResult> out(leadSizes);
    out.append(rest.begin(), rest.end());
    return out;
  }
  SmallVector<utils::IteratorType> iterators(unsigned parallel,
                                             unsigned reduction) const {
    SmallVector<utils::IteratorType> it(lead + parallel,
                                        utils::IteratorType::parallel);
    it.append(reduction, utils::IteratorType::reduction);
    return it;
  }

  /// sum over the reduced loop of a[lead..., x, r] * c[lead..., y, r] (or
  /// the maps given), into a zero-filled f32 [lead..., X, Y].
  Value contract(Value a, AffineMap aMap, Value c, AffineMap cMap,
                 ArrayRef<OpFoldResult> outRest, float factor = 1.0f) {
    unsigned n = lead + 3;
    Value init = filled(b, loc, sizes(outRest), 0.0f);
    Value sum = generic(
        b, loc, {a, c}, init, {aMap, cMap, map(n, {i(), j()})}, iterators(2, 1),
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value p = arith::MulFOp::create(nb, nl, extend(nb, nl, args[0]),
                                          extend(nb, nl, args[1]));
          return arith::AddFOp::create(nb, nl, args[2], p).getResult();
        });
    if (factor == 1.0f)
      return sum;
    unsigned m = lead + 2;
    AffineMap id = b.getMultiDimIdentityMap(m);
    return generic(
        b, loc, {sum},
        tensor::EmptyOp::create(b, loc, sizes(outRest), b.getF32Type()),
        {id, id}, iterators(2, 0),
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          return arith::MulFOp::create(nb, nl, args[0],
                                       f32Constant(nb, nl, factor))
              .getResult();
        });
  }

  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  int64_t rank, lead;
  SmallVector<OpFoldResult> leadSizes;
  OpFoldResult l, e, s, ev;
};

/// The heads dimension of a 3-D (N) or 4-D (H) attention operand.
int64_t headsDim(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank() - 3;
}

/// Query heads per key/value head, Hq / Hkv: an attribute where both are
/// static, else computed (Hkv = 0 counts as 1: then Hq = 0 too).
OpFoldResult groupSize(OpBuilder &b, Location loc, Value q, Value k) {
  int64_t hd = headsDim(q);
  OpFoldResult hq = tensor::getMixedSize(b, loc, q, hd);
  OpFoldResult hk = tensor::getMixedSize(b, loc, k, hd);
  std::optional<int64_t> cq = getConstantIntValue(hq),
                         ck = getConstantIntValue(hk);
  if (cq && ck)
    return b.getIndexAttr(*ck == 0 ? 1 : *cq / *ck);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value divisor = arith::MaxUIOp::create(
      b, loc, getValueOrCreateConstantIndexOp(b, loc, hk), one);
  return arith::DivUIOp::create(
             b, loc, getValueOrCreateConstantIndexOp(b, loc, hq), divisor)
      .getResult();
}

/// `kv` [..., Hkv, S, X] repeated per query head: [..., Hkv * g, S, X], head
/// h reading kv head h / g (repeat_interleave's order); `kv` itself where
/// g is 1.
Value expandHeads(OpBuilder &b, Location loc, Value kv, OpFoldResult g) {
  if (isConstantIntValue(g, 1))
    return kv;
  auto type = cast<RankedTensorType>(kv.getType());
  int64_t rank = type.getRank(), hd = headsDim(kv);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, kv);
  sizes.insert(sizes.begin() + hd + 1, g);
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  SmallVector<AffineExpr> in;
  for (int64_t d = 0; d <= rank; ++d)
    if (d != hd + 1)
      in.push_back(b.getAffineDimExpr(d));
  Value wide = generic(
      b, loc, {kv}, init,
      {AffineMap::get(rank + 1, 0, in, b.getContext()),
       b.getMultiDimIdentityMap(rank + 1)},
      SmallVector<utils::IteratorType>(rank + 1, utils::IteratorType::parallel),
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
  SmallVector<ReassociationIndices> re;
  for (int64_t d = 0; d <= rank; ++d) {
    if (d == hd + 1)
      re.back().push_back(d);
    else
      re.push_back({d});
  }
  return tensor::CollapseShapeOp::create(b, loc, wide, re);
}

/// The sum over each group of `g` query heads of `perQuery` [..., Hq, S, X]
/// (f32): [..., Hq / g, S, X]; `perQuery` itself where g is 1.
Value reduceHeads(OpBuilder &b, Location loc, Value perQuery, Value kv,
                  OpFoldResult g) {
  if (isConstantIntValue(g, 1))
    return perQuery;
  auto type = cast<RankedTensorType>(perQuery.getType());
  int64_t rank = type.getRank(), hd = headsDim(perQuery);
  SmallVector<OpFoldResult> wideSizes = tensor::getMixedSizes(b, loc, perQuery);
  wideSizes[hd] = tensor::getMixedSize(b, loc, kv, hd);
  wideSizes.insert(wideSizes.begin() + hd + 1, g);
  SmallVector<int64_t> wideShape;
  for (OpFoldResult size : wideSizes) {
    std::optional<int64_t> c = getConstantIntValue(size);
    wideShape.push_back(c ? *c : ShapedType::kDynamic);
  }
  SmallVector<OpFoldResult> sizes(wideSizes);
  sizes.erase(sizes.begin() + hd + 1);
  if (!getConstantIntValue(wideSizes[hd]) && !getConstantIntValue(g)) {
    // Both the key/value heads and the group size dynamic: no expand_shape
    // into two dynamic dimensions (MLIR 22's expand-strided-metadata
    // crashes on its memref form). The group's query heads h * g + j are
    // the strided slice at offset j with stride g; summed for j = 0, 1, ...
    // in order, as the reduction below sums them.
    Value gv = getValueOrCreateConstantIndexOp(b, loc, g);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value init = filled(b, loc, sizes, 0.0f);
    auto loop = scf::ForOp::create(
        b, loc, zero, gv, one, ValueRange{init},
        [&](OpBuilder &lb, Location ll, Value j, ValueRange acc) {
          SmallVector<OpFoldResult> offsets(rank, lb.getIndexAttr(0)),
              strides(rank, lb.getIndexAttr(1));
          offsets[hd] = j;
          strides[hd] = gv;
          Value slice = tensor::ExtractSliceOp::create(lb, ll, perQuery,
                                                       offsets, sizes, strides);
          Value sum =
              generic(lb, ll, {slice}, acc[0],
                      {lb.getMultiDimIdentityMap(rank),
                       lb.getMultiDimIdentityMap(rank)},
                      SmallVector<utils::IteratorType>(
                          rank, utils::IteratorType::parallel),
                      [](OpBuilder &nb, Location nl, ValueRange args) {
                        return arith::AddFOp::create(nb, nl, args[1], args[0])
                            .getResult();
                      });
          scf::YieldOp::create(lb, ll, sum);
        });
    return loop.getResult(0);
  }
  SmallVector<ReassociationIndices> re;
  for (int64_t d = 0; d <= rank; ++d) {
    if (d == hd + 1)
      re.back().push_back(d);
    else
      re.push_back({d});
  }
  Value wide = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(wideShape, type.getElementType()), perQuery,
      re, wideSizes);
  Value init = filled(b, loc, sizes, 0.0f);
  // Loops: the output's dimensions, then the group's head.
  SmallVector<AffineExpr> in, out;
  for (int64_t d = 0; d < rank; ++d) {
    out.push_back(b.getAffineDimExpr(d));
    in.push_back(b.getAffineDimExpr(d));
    if (d == hd)
      in.push_back(b.getAffineDimExpr(rank));
  }
  SmallVector<utils::IteratorType> it(rank, utils::IteratorType::parallel);
  it.push_back(utils::IteratorType::reduction);
  return generic(
      b, loc, {wide}, init,
      {AffineMap::get(rank + 1, 0, in, b.getContext()),
       AffineMap::get(rank + 1, 0, out, b.getContext())},
      it, [](OpBuilder &nb, Location nl, ValueRange args) {
        return arith::AddFOp::create(nb, nl, args[0], args[1]).getResult();
      });
}

/// The masked, scaled scores in f32 [lead..., L, S]: scale · Q Kᵀ, plus an
/// additive mask, -inf where a boolean mask is false or (causal) j > i.
Value maskedScores(AttentionLoops &x, Value q, Value k, Value mask, float scale,
                   bool causal) {
  OpBuilder &b = x.b;
  Location loc = x.loc;
  unsigned n = x.lead + 3;
  Value scores = x.contract(q, x.map(n, {x.i(), x.r()}), k,
                            x.map(n, {x.j(), x.r()}), {x.l, x.s});
  unsigned m = x.lead + 2;
  SmallVector<Value> ins{scores};
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(m)};
  bool boolean = false;
  if (mask) {
    auto mt = cast<RankedTensorType>(mask.getType());
    boolean = mt.getElementType().isInteger(1);
    // A size-1 dimension broadcasts.
    auto qt = cast<RankedTensorType>(q.getType());
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < mt.getRank(); ++d) {
      bool fullIsOne = d < x.rank - 1 && qt.getDimSize(d) == 1;
      exprs.push_back(mt.getDimSize(d) == 1 && !fullIsOne
                          ? b.getAffineConstantExpr(0)
                          : b.getAffineDimExpr(d));
    }
    ins.push_back(mask);
    maps.push_back(AffineMap::get(m, 0, exprs, b.getContext()));
  }
  maps.push_back(b.getMultiDimIdentityMap(m));
  Value init =
      tensor::EmptyOp::create(b, loc, x.sizes({x.l, x.s}), b.getF32Type());
  int64_t lead = x.lead;
  return generic(
      b, loc, ins, init, maps, x.iterators(2, 0),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value t =
            arith::MulFOp::create(nb, nl, args[0], f32Constant(nb, nl, scale));
        Value minusInf =
            f32Constant(nb, nl, -std::numeric_limits<float>::infinity());
        if (mask && boolean)
          t = arith::SelectOp::create(nb, nl, args[1], t, minusInf);
        else if (mask)
          t = arith::AddFOp::create(nb, nl, t, extend(nb, nl, args[1]));
        if (causal) {
          Value i = linalg::IndexOp::create(nb, nl, lead);
          Value j = linalg::IndexOp::create(nb, nl, lead + 1);
          Value hidden =
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ugt, j, i);
          t = arith::SelectOp::create(nb, nl, hidden, minusInf, t);
        }
        return t;
      });
}

/// exp(t - m), 0 where m is -inf (a row where no key takes part).
Value guardedExp(OpBuilder &b, Location loc, Value t, Value m) {
  Value minusInf = f32Constant(b, loc, -std::numeric_limits<float>::infinity());
  Value none =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, minusInf);
  Value p = math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, t, m));
  return arith::SelectOp::create(b, loc, none, f32Constant(b, loc, 0.0f), p);
}

/// `v` (f32) rounded to `type`'s element type, cast to `type`.
Value finish(OpBuilder &b, Location loc, Value v, Type type) {
  auto t = cast<RankedTensorType>(type);
  Value r = castElements(b, loc, v, t.getElementType());
  if (r.getType() != t)
    r = tensor::CastOp::create(b, loc, t, r);
  return r;
}

struct AttentionPattern : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Value q = adaptor.getQuery();
    OpFoldResult g = groupSize(b, loc, q, adaptor.getKey());
    Value k = expandHeads(b, loc, adaptor.getKey(), g);
    Value v = expandHeads(b, loc, adaptor.getValue(), g);
    AttentionLoops x(b, loc, q, k, v);
    Value t = maskedScores(x, q, k, adaptor.getMask(), op.getScaleValue(),
                           op.getCausal());
    unsigned m = x.lead + 2, n = x.lead + 3;
    // The row maximum, the row sum of exp(t - max), sum_j exp(t - max) V.
    Value rowMax = generic(
        b, loc, {t},
        filled(b, loc, x.sizes({x.l}), -std::numeric_limits<float>::infinity()),
        {b.getMultiDimIdentityMap(m), x.map(m, {x.i()})}, x.iterators(1, 1),
        [](OpBuilder &nb, Location nl, ValueRange args) {
          return arith::MaximumFOp::create(nb, nl, args[0], args[1])
              .getResult();
        });
    Value rowSum = generic(
        b, loc, {t, rowMax}, filled(b, loc, x.sizes({x.l}), 0.0f),
        {b.getMultiDimIdentityMap(m), x.map(m, {x.i()}), x.map(m, {x.i()})},
        x.iterators(1, 1), [](OpBuilder &nb, Location nl, ValueRange args) {
          return arith::AddFOp::create(nb, nl, args[2],
                                       guardedExp(nb, nl, args[0], args[1]))
              .getResult();
        });
    // Loops (lead..., i, ev, j).
    Value acc = generic(
        b, loc, {t, rowMax, v}, filled(b, loc, x.sizes({x.l, x.ev}), 0.0f),
        {x.map(n, {x.i(), x.r()}), x.map(n, {x.i()}), x.map(n, {x.r(), x.j()}),
         x.map(n, {x.i(), x.j()})},
        x.iterators(2, 1), [](OpBuilder &nb, Location nl, ValueRange args) {
          Value p = guardedExp(nb, nl, args[0], args[1]);
          Value pv = arith::MulFOp::create(nb, nl, p, extend(nb, nl, args[2]));
          return arith::AddFOp::create(nb, nl, args[3], pv).getResult();
        });
    Value out = generic(
        b, loc, {acc, rowSum},
        tensor::EmptyOp::create(b, loc, x.sizes({x.l, x.ev}), b.getF32Type()),
        {b.getMultiDimIdentityMap(m), x.map(m, {x.i()}),
         b.getMultiDimIdentityMap(m)},
        x.iterators(2, 0), [](OpBuilder &nb, Location nl, ValueRange args) {
          Value zero = f32Constant(nb, nl, 0.0f);
          Value none = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                             args[1], zero);
          Value o = arith::DivFOp::create(nb, nl, args[0], args[1]);
          return arith::SelectOp::create(nb, nl, none, zero, o).getResult();
        });
    // lse = max + log(sum): -inf where no key takes part (sum 0).
    Value lse = generic(
        b, loc, {rowMax, rowSum},
        tensor::EmptyOp::create(b, loc, x.sizes({x.l}), b.getF32Type()),
        {b.getMultiDimIdentityMap(m - 1), b.getMultiDimIdentityMap(m - 1),
         b.getMultiDimIdentityMap(m - 1)},
        x.iterators(1, 0), [](OpBuilder &nb, Location nl, ValueRange args) {
          Value zero = f32Constant(nb, nl, 0.0f);
          Value none = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                             args[1], zero);
          Value sum = arith::AddFOp::create(
              nb, nl, args[0], math::LogOp::create(nb, nl, args[1]));
          Value minusInf =
              f32Constant(nb, nl, -std::numeric_limits<float>::infinity());
          return arith::SelectOp::create(nb, nl, none, minusInf, sum)
              .getResult();
        });
    rewriter.replaceOp(op, {finish(b, loc, out, op.getOutput().getType()),
                            finish(b, loc, lse, op.getLse().getType())});
    return success();
  }
};

struct AttentionGradPattern : OpConversionPattern<AttentionGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AttentionGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Value q = adaptor.getQuery(), o = adaptor.getOutput(),
          dout = adaptor.getGradOutput(), lse = adaptor.getLse();
    OpFoldResult g = groupSize(b, loc, q, adaptor.getKey());
    Value k = expandHeads(b, loc, adaptor.getKey(), g);
    Value v = expandHeads(b, loc, adaptor.getValue(), g);
    AttentionLoops x(b, loc, q, k, v);
    float scale = op.getScaleValue();
    Value t = maskedScores(x, q, k, adaptor.getMask(), scale, op.getCausal());
    unsigned m = x.lead + 2, n = x.lead + 3;
    AffineMap id = b.getMultiDimIdentityMap(m);
    // P = exp(t - lse), 0 where lse is -inf.
    Value p = generic(
        b, loc, {t, lse},
        tensor::EmptyOp::create(b, loc, x.sizes({x.l, x.s}), b.getF32Type()),
        {id, x.map(m, {x.i()}), id}, x.iterators(2, 0),
        [](OpBuilder &nb, Location nl, ValueRange args) {
          return guardedExp(nb, nl, args[0], args[1]);
        });
    // dV' = Pᵀ dO: loops (lead..., j, ev, i).
    Value dvHeads = x.contract(p, x.map(n, {x.r(), x.i()}), dout,
                               x.map(n, {x.r(), x.j()}), {x.s, x.ev});
    // dP = dO Vᵀ, D = rowsum(dO ∘ O).
    Value dp = x.contract(dout, x.map(n, {x.i(), x.r()}), v,
                          x.map(n, {x.j(), x.r()}), {x.l, x.s});
    Value rowDot = generic(
        b, loc, {dout, o}, filled(b, loc, x.sizes({x.l}), 0.0f),
        {id, id, x.map(m, {x.i()})}, x.iterators(1, 1),
        [](OpBuilder &nb, Location nl, ValueRange args) {
          Value prod = arith::MulFOp::create(nb, nl, extend(nb, nl, args[0]),
                                             extend(nb, nl, args[1]));
          return arith::AddFOp::create(nb, nl, args[2], prod).getResult();
        });
    // dS = P ∘ (dP − D).
    Value ds = generic(
        b, loc, {p, dp, rowDot},
        tensor::EmptyOp::create(b, loc, x.sizes({x.l, x.s}), b.getF32Type()),
        {id, id, x.map(m, {x.i()}), id}, x.iterators(2, 0),
        [](OpBuilder &nb, Location nl, ValueRange args) {
          Value d = arith::SubFOp::create(nb, nl, args[1], args[2]);
          return arith::MulFOp::create(nb, nl, args[0], d).getResult();
        });
    // dQ = scale · dS K; dK' = scale · dSᵀ Q (loops (lead..., j, e, i)).
    Value dq = x.contract(ds, x.map(n, {x.i(), x.r()}), k,
                          x.map(n, {x.r(), x.j()}), {x.l, x.e}, scale);
    Value dkHeads = x.contract(ds, x.map(n, {x.r(), x.i()}), q,
                               x.map(n, {x.r(), x.j()}), {x.s, x.e}, scale);
    Value dk = reduceHeads(b, loc, dkHeads, adaptor.getKey(), g);
    Value dv = reduceHeads(b, loc, dvHeads, adaptor.getValue(), g);
    rewriter.replaceOp(op, {finish(b, loc, dq, op.getGradQuery().getType()),
                            finish(b, loc, dk, op.getGradKey().getType()),
                            finish(b, loc, dv, op.getGradValue().getType())});
    return success();
  }
};

/// A usage view, rewritten to a cast between qtensors before the conversion.
struct ViewPattern : OpConversionPattern<UnrealizedConversionCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(UnrealizedConversionCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumOperands() != 1 || op->getNumResults() != 1 ||
        !isa<QTensorType>(op->getOperand(0).getType()) ||
        !isa<QTensorType>(op->getResult(0).getType()))
      return failure();
    rewriter.replaceOp(op, adaptor.getOperands()[0]);
    return success();
  }
};

struct ConvertTEToReferencePass
    : public mlir::te::impl::ConvertTEToReferenceBase<
          ConvertTEToReferencePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // Usage views: te.from_buffers of the results of one te.buffers.
    bool bad = false;
    module.walk([&](FromBuffersOp op) {
      auto src = op.getBuffers().empty()
                     ? BuffersOp()
                     : op.getBuffers()[0].getDefiningOp<BuffersOp>();
      for (Value v : op.getBuffers())
        if (!src || v.getDefiningOp() != src.getOperation())
          src = BuffersOp();
      if (!src) {
        op.emitOpError("convert-te-to-reference handles te.from_buffers only "
                       "as a usage view of one te.buffers");
        bad = true;
        return;
      }
      OpBuilder b(op);
      auto cast = UnrealizedConversionCastOp::create(
          b, op.getLoc(), op.getType(), src.getInput());
      op.replaceAllUsesWith(cast.getResult(0));
      op.erase();
    });
    module.walk([&](BuffersOp op) {
      if (op->use_empty())
        op.erase();
      else {
        op.emitOpError("convert-te-to-reference cannot keep te.buffers");
        bad = true;
      }
    });
    if (bad)
      return signalPassFailure();

    TypeConverter converter;
    converter.addConversion([](Type t) { return t; });
    converter.addConversion([](QTensorType t) -> Type {
      return RankedTensorType::get(t.getShape(), t.getElementType());
    });
    auto legalType = [&](Type t) { return converter.isLegal(t); };

    ConversionTarget target(*ctx);
    target.addLegalOp<ModuleOp>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect>();
    target.addIllegalDialect<TEDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
      return converter.isSignatureLegal(f.getFunctionType()) &&
             converter.isLegal(&f.getBody());
    });
    target.addDynamicallyLegalOp<func::CallOp, func::ReturnOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    target.addDynamicallyLegalOp<UnrealizedConversionCastOp>(
        [&](Operation *op) {
          return llvm::all_of(op->getOperandTypes(), legalType) &&
                 llvm::all_of(op->getResultTypes(), legalType);
        });
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      return llvm::all_of(op->getOperandTypes(), legalType) &&
             llvm::all_of(op->getResultTypes(), legalType);
    });

    RewritePatternSet patterns(ctx);
    patterns.add<QuantizePattern, EmptyPattern, DequantizePattern, GemmPattern,
                 AmaxPattern, UpdateScalePattern, AllReducePattern,
                 AttentionPattern, AttentionGradPattern, ViewPattern>(converter,
                                                                      ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
