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
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/IR/TEOps.h"
#include "te/Dialect/TE/IR/TETypes.h"

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
                           tensor::TensorDialect>();
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
    patterns.add<QuantizePattern, DequantizePattern, GemmPattern, AmaxPattern,
                 UpdateScalePattern, AllReducePattern, ViewPattern>(converter,
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
