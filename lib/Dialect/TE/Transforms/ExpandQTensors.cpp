//===- ExpandQTensors.cpp - !te.qtensor -> its buffers ----------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-expand-qtensors: a 1:N dialect conversion. A !te.qtensor becomes the
// tensors of its buffers (the Format library's layout for the module's
// target, in TransformerEngine's flatten order); function signatures, calls,
// returns and scf region arguments follow through the upstream structural
// patterns; te ops become their destination-passing buffer-level forms
// (te.amax, te.update_scale, te.allreduce_max, te.attention and
// te.attention_grad too, although they hold no quantized tensor, so that
// everything te bufferizes the same way).
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/BufferExtents.h"
#include "te/Dialect/TE/IR/TEOps.h"
#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "te-expand-qtensors"

namespace mlir::te {
#define GEN_PASS_DEF_TEEXPANDQTENSORS
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;
namespace fmt = ::te::format;

namespace {

/// !te.qtensor -> its buffer tensors on one target; other types unchanged.
class QTensorTypeConverter : public TypeConverter {
public:
  explicit QTensorTypeConverter(Target target) {
    addConversion([](Type type) { return type; });
    addConversion([target](QTensorType type,
                           SmallVectorImpl<Type> &results) -> LogicalResult {
      SmallVector<RankedTensorType> buffers = type.getBufferTypes(target);
      if (buffers.empty())
        return failure();
      results.append(buffers.begin(), buffers.end());
      return success();
    });
  }
};

/// Flattens the converted values of a 1:N adaptor operand.
static SmallVector<Value> flatten(ArrayRef<ValueRange> ranges) {
  SmallVector<Value> values;
  for (ValueRange range : ranges)
    llvm::append_range(values, range);
  return values;
}

/// One `tensor.empty` per type, of sizes `sizes` (one list per type, as
/// long as its rank, static where the type is) or, where `sizes` is empty,
/// of the type's static shape; fails (with an error at `op`) on a dynamic
/// shape without sizes.
static FailureOr<SmallVector<Value>>
createEmpties(ConversionPatternRewriter &rewriter, Operation *op,
              TypeRange types, StringRef what,
              ArrayRef<SmallVector<OpFoldResult>> sizes = {}) {
  SmallVector<Value> empties;
  for (auto [i, type] : llvm::enumerate(types)) {
    auto tensor = cast<RankedTensorType>(type);
    if (i < sizes.size()) {
      empties.push_back(tensor::EmptyOp::create(
          rewriter, op->getLoc(), sizes[i], tensor.getElementType()));
      // The sizes fold to the type's static dimensions.
      if (empties.back().getType() != tensor)
        empties.back() = tensor::CastOp::create(rewriter, op->getLoc(), tensor,
                                                empties.back());
      continue;
    }
    if (!tensor.hasStaticShape()) {
      op->emitOpError() << "needs static buffer shapes to allocate " << what
                        << ", got " << tensor << " (run te-infer-shapes first)";
      return failure();
    }
    empties.push_back(tensor::EmptyOp::create(
        rewriter, op->getLoc(), tensor.getShape(), tensor.getElementType()));
  }
  return empties;
}

/// The sizes of the buffers of a quantized tensor of `type` whose logical
/// sizes are `dims` (the Format library's extents; index arithmetic for the
/// dynamic ones). Empty where `type` is static: its buffer types say all.
static FailureOr<SmallVector<SmallVector<OpFoldResult>>>
bufferSizes(ConversionPatternRewriter &rewriter, Operation *op,
            QTensorType type, ArrayRef<OpFoldResult> dims) {
  if (type.hasStaticShape())
    return SmallVector<SmallVector<OpFoldResult>>();
  return emitBufferSizes(rewriter, op->getLoc(), type.getQuantizer(),
                         type.getUsage(), getTarget(op), dims,
                         [&] { return op->emitOpError(); });
}

/// The logical sizes of the quantized tensor of `type` held by `buffers`
/// (those marked in `needed`, where it is not empty).
static FailureOr<SmallVector<OpFoldResult>>
logicalSizes(ConversionPatternRewriter &rewriter, Operation *op,
             QTensorType type, ValueRange buffers, ArrayRef<bool> needed = {}) {
  return emitLogicalSizes(
      rewriter, op->getLoc(), type.getQuantizer(), type.getUsage(),
      getTarget(op), type.getShape(), buffers,
      [&] { return op->emitOpError(); }, needed);
}

/// `sizes` where `shape` is dynamic, `shape` where it is static.
static SmallVector<OpFoldResult> refine(Builder &b, ArrayRef<int64_t> shape,
                                        ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> out;
  for (auto [d, size] : llvm::zip_equal(shape, sizes))
    out.push_back(ShapedType::isDynamic(d) ? size : b.getIndexAttr(d));
  return out;
}

static bool isDelayed(QuantizerAttrInterface quantizer) {
  return fmt::recipeTraits(quantizer.getFormatConfig().recipe).liveScale;
}

/// Converts a qtensor type, emitting an error at `op` when Format refuses it.
static FailureOr<SmallVector<Type>>
convertQTensor(const TypeConverter &converter, Operation *op,
               QTensorType type) {
  SmallVector<Type> types;
  if (failed(converter.convertType(type, types)) || types.empty()) {
    (void)type.getBuffers(getTarget(op), [&] { return op->emitOpError(); });
    return failure();
  }
  return types;
}

struct QuantizeLowering : public OpConversionPattern<QuantizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(QuantizeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    QTensorType type = op.getResult().getType();
    FailureOr<SmallVector<Type>> bufferTypes =
        convertQTensor(*getTypeConverter(), op, type);
    if (failed(bufferTypes))
      return failure();
    SmallVector<Type> outTypes = *bufferTypes;
    if (op.getAmax())
      outTypes.push_back(op.getAmax().getType());
    auto single = [](ValueRange range) {
      return range.empty() ? Value() : range.front();
    };
    // Dynamic buffers take their sizes from the input's.
    Value input = single(adaptor.getInput());
    FailureOr<SmallVector<SmallVector<OpFoldResult>>> sizes = bufferSizes(
        rewriter, op, type,
        refine(rewriter, type.getShape(),
               tensor::getMixedSizes(rewriter, op.getLoc(), input)));
    if (failed(sizes))
      return failure();
    if (!sizes->empty() && op.getAmax())
      sizes->push_back({rewriter.getIndexAttr(1)});
    FailureOr<SmallVector<Value>> outs =
        createEmpties(rewriter, op, outTypes, "the quantized buffers", *sizes);
    if (failed(outs))
      return failure();
    auto quantize = QuantizeBuffersOp::create(
        rewriter, op.getLoc(), TypeRange(outTypes), input,
        single(adaptor.getScale()), single(adaptor.getSeed()),
        single(adaptor.getOffset()), *outs, type.getQuantizer(),
        type.getUsage(), op.getGroupAttr());
    ValueRange results = quantize.getResults();
    SmallVector<SmallVector<Value>> replacements;
    replacements.push_back(
        llvm::to_vector(results.take_front(bufferTypes->size())));
    if (op.getAmax())
      replacements.push_back({results.back()});
    rewriter.replaceOpWithMultiple(op, std::move(replacements));
    return success();
  }
};

struct DequantizeLowering : public OpConversionPattern<DequantizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DequantizeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    QTensorType type = op.getInput().getType();
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    SmallVector<Value> buffers = flatten(adaptor.getOperands());
    SmallVector<SmallVector<OpFoldResult>> sizes;
    if (!resultType.hasStaticShape()) {
      // The result has the input's logical sizes, read from its buffers.
      FailureOr<SmallVector<OpFoldResult>> dims =
          logicalSizes(rewriter, op, type, buffers);
      if (failed(dims))
        return failure();
      sizes.push_back(refine(rewriter, resultType.getShape(), *dims));
    }
    FailureOr<SmallVector<Value>> outs =
        createEmpties(rewriter, op, TypeRange(resultType), "the result", sizes);
    if (failed(outs))
      return failure();
    auto dequantize = DequantizeBuffersOp::create(
        rewriter, op.getLoc(), TypeRange(resultType), buffers, *outs,
        type.getQuantizer(), type.getUsage());
    rewriter.replaceOp(op, dequantize.getResults());
    return success();
  }
};

struct GemmLowering : public OpConversionPattern<GemmOp> {
  using OpConversionPattern::OpConversionPattern;

  /// The sizes of the result's buffers (one list, or the quantized result's
  /// lists and the amax's) where the result is dynamic: its logical sizes
  /// come from A's and B's, read from their buffers (TN, NN: B's leading
  /// dimensions and A's N; NT: B's last dimension and A's).
  static FailureOr<SmallVector<SmallVector<OpFoldResult>>>
  resultSizes(ConversionPatternRewriter &rewriter, GemmOp op,
              OneToNOpAdaptor adaptor) {
    Type resultType = op.getResult().getType();
    auto quantized = dyn_cast<QTensorType>(resultType);
    ArrayRef<int64_t> resultShape =
        quantized ? quantized.getShape()
                  : cast<RankedTensorType>(resultType).getShape();
    SmallVector<SmallVector<OpFoldResult>> sizes;
    if (!ShapedType::isDynamicShape(resultShape))
      return sizes;
    QTensorType a = op.getA().getType(), b = op.getB().getType();
    // Only the operand dimensions a dynamic result dimension comes from.
    std::vector<::te::format::GemmResultDim> from =
        ::te::format::gemmResultDims(toFormat(op.getLayout()), a.getRank(),
                                     b.getRank());
    SmallVector<bool> needA(a.getRank(), false), needB(b.getRank(), false);
    for (auto [i, d] : llvm::enumerate(from))
      if (ShapedType::isDynamic(resultShape[i]))
        (d.operand == 0 ? needA : needB)[d.axis] = true;
    FailureOr<SmallVector<OpFoldResult>> as =
        logicalSizes(rewriter, op, a, adaptor.getA(), needA);
    FailureOr<SmallVector<OpFoldResult>> bs =
        logicalSizes(rewriter, op, b, adaptor.getB(), needB);
    if (failed(as) || failed(bs))
      return failure();
    SmallVector<OpFoldResult> dims;
    for (::te::format::GemmResultDim d : from)
      dims.push_back(d.operand == 0 ? (*as)[d.axis] : (*bs)[d.axis]);
    dims = refine(rewriter, resultShape, dims);
    if (!quantized) {
      sizes.push_back(dims);
      return sizes;
    }
    FailureOr<SmallVector<SmallVector<OpFoldResult>>> buffers =
        bufferSizes(rewriter, op, quantized, dims);
    if (failed(buffers))
      return failure();
    sizes = std::move(*buffers);
    if (op.getAmax())
      sizes.push_back({rewriter.getIndexAttr(1)});
    return sizes;
  }

  LogicalResult
  matchAndRewrite(GemmOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    QTensorType a = op.getA().getType(), b = op.getB().getType();
    auto single = [](ValueRange range) {
      return range.empty() ? Value() : range.front();
    };
    Value accumulate = single(adaptor.getAccumulate());
    SmallVector<Type> outTypes;
    SmallVector<Value> outs;
    size_t numResultBuffers = 1;
    QuantizerAttrInterface outQuantizer;
    if (auto quantized = dyn_cast<QTensorType>(op.getResult().getType())) {
      FailureOr<SmallVector<Type>> bufferTypes =
          convertQTensor(*getTypeConverter(), op, quantized);
      if (failed(bufferTypes))
        return failure();
      outTypes = *bufferTypes;
      numResultBuffers = outTypes.size();
      if (op.getAmax())
        outTypes.push_back(op.getAmax().getType());
      outQuantizer = quantized.getQuantizer();
    } else {
      outTypes.push_back(op.getResult().getType());
    }
    if (accumulate) {
      outs.push_back(accumulate);
    } else {
      FailureOr<SmallVector<SmallVector<OpFoldResult>>> sizes =
          resultSizes(rewriter, op, adaptor);
      if (failed(sizes))
        return failure();
      FailureOr<SmallVector<Value>> empties =
          createEmpties(rewriter, op, outTypes, "the result", *sizes);
      if (failed(empties))
        return failure();
      outs = *empties;
    }
    auto gemm = GemmBuffersOp::create(
        rewriter, op.getLoc(), TypeRange(outTypes), adaptor.getA(),
        adaptor.getB(), single(adaptor.getBias()),
        single(adaptor.getOutScale()), /*aEmulated=*/Value(),
        /*bEmulated=*/Value(), outs, op.getLayout(), a.getQuantizer(),
        a.getUsage(), a.getShape(), b.getQuantizer(), b.getUsage(),
        b.getShape(), outQuantizer,
        /*accumulate=*/static_cast<bool>(accumulate),
        op.getUseSplitAccumulator());
    ValueRange results = gemm.getResults();
    SmallVector<SmallVector<Value>> replacements;
    replacements.push_back(
        llvm::to_vector(results.take_front(numResultBuffers)));
    if (op.getAmax())
      replacements.push_back({results.back()});
    rewriter.replaceOpWithMultiple(op, std::move(replacements));
    return success();
  }
};

struct EmptyLowering : public OpConversionPattern<EmptyOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(EmptyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<SmallVector<Type>> bufferTypes =
        convertQTensor(*getTypeConverter(), op, op.getResult().getType());
    if (failed(bufferTypes))
      return failure();
    // The dynamic sizes are the operands, in order.
    QTensorType type = op.getResult().getType();
    SmallVector<OpFoldResult> dims;
    SmallVector<Value> dynamicSizes = flatten(adaptor.getDynamicSizes());
    size_t next = 0;
    for (int64_t d : type.getShape())
      dims.push_back(ShapedType::isDynamic(d)
                         ? OpFoldResult(dynamicSizes[next++])
                         : OpFoldResult(rewriter.getIndexAttr(d)));
    FailureOr<SmallVector<SmallVector<OpFoldResult>>> sizes =
        bufferSizes(rewriter, op, type, dims);
    if (failed(sizes))
      return failure();
    FailureOr<SmallVector<Value>> empties = createEmpties(
        rewriter, op, *bufferTypes, "the quantized buffers", *sizes);
    if (failed(empties))
      return failure();
    rewriter.replaceOpWithMultiple(op, {*empties});
    return success();
  }
};

/// te.amax -> te.amax_buffers into a fresh 1xf32 tensor.
struct AmaxLowering : public OpConversionPattern<AmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type resultType = op.getResult().getType();
    FailureOr<SmallVector<Value>> outs =
        createEmpties(rewriter, op, resultType, "the amax");
    if (failed(outs))
      return failure();
    rewriter.replaceOpWithNewOp<AmaxBuffersOp>(op, TypeRange(resultType),
                                               adaptor.getInput(), *outs);
    return success();
  }
};

/// te.update_scale -> te.update_scale_buffers into fresh tensors (the
/// inputs stay intact; bufferization may still reuse their buffers).
struct UpdateScaleLowering : public OpConversionPattern<UpdateScaleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(UpdateScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> resultTypes(op->getResultTypes());
    FailureOr<SmallVector<Value>> outs = createEmpties(
        rewriter, op, resultTypes, "the new amax history and scale");
    if (failed(outs))
      return failure();
    rewriter.replaceOpWithNewOp<UpdateScaleBuffersOp>(
        op, TypeRange(resultTypes), adaptor.getAmax(), adaptor.getHistory(),
        adaptor.getScale(), *outs, op.getQuantizer());
    return success();
  }
};

/// te.allreduce_max -> te.allreduce_max_buffers into a fresh tensor.
struct AllReduceMaxLowering : public OpConversionPattern<AllReduceMaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AllReduceMaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type resultType = op.getResult().getType();
    FailureOr<SmallVector<Value>> outs =
        createEmpties(rewriter, op, resultType, "the reduced tensor");
    if (failed(outs))
      return failure();
    rewriter.replaceOpWithNewOp<AllReduceMaxBuffersOp>(
        op, TypeRange(resultType), adaptor.getInput(), *outs, op.getGroup());
    return success();
  }
};

/// The sizes of `v`'s dimensions, static ones as attributes.
static SmallVector<OpFoldResult> sizesOf(OpBuilder &b, Location loc, Value v) {
  return tensor::getMixedSizes(b, loc, v);
}

/// te.attention -> te.attention_buffers into fresh tensors: the output
/// [..., L, Ev] (the query's sizes but the value's last), and the lse
/// [..., L] where the program reads it. The scale is written out
/// (1/sqrt(E) where the op has none).
struct AttentionLowering : public OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> q = sizesOf(rewriter, loc, adaptor.getQuery());
    SmallVector<OpFoldResult> out(q);
    out.back() = sizesOf(rewriter, loc, adaptor.getValue()).back();
    SmallVector<SmallVector<OpFoldResult>> sizes{out};
    SmallVector<Type> types{op.getOutput().getType()};
    bool saveLse = !op.getLse().use_empty();
    if (saveLse) {
      sizes.push_back(SmallVector<OpFoldResult>(ArrayRef(q).drop_back()));
      types.push_back(op.getLse().getType());
    }
    FailureOr<SmallVector<Value>> outs =
        createEmpties(rewriter, op, types, "the attention output", sizes);
    if (failed(outs))
      return failure();
    auto buffers = AttentionBuffersOp::create(
        rewriter, loc, TypeRange(types), adaptor.getQuery(), adaptor.getKey(),
        adaptor.getValue(), adaptor.getMask(), *outs,
        rewriter.getF32FloatAttr(op.getScaleValue()), op.getCausalAttr());
    SmallVector<Value> results{buffers.getResult(0)};
    // An lse nobody reads: a fresh tensor in its place (no use to see it).
    results.push_back(saveLse ? buffers.getResult(1) : Value());
    if (!saveLse)
      results.back() = tensor::EmptyOp::create(
          rewriter, loc, ArrayRef(q).drop_back(), rewriter.getF32Type());
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// te.attention_grad -> te.attention_grad_buffers into fresh tensors of
/// the query's, key's and value's sizes.
struct AttentionGradLowering : public OpConversionPattern<AttentionGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AttentionGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<SmallVector<OpFoldResult>> sizes{
        sizesOf(rewriter, loc, adaptor.getQuery()),
        sizesOf(rewriter, loc, adaptor.getKey()),
        sizesOf(rewriter, loc, adaptor.getValue())};
    SmallVector<Type> types(op->getResultTypes());
    FailureOr<SmallVector<Value>> outs =
        createEmpties(rewriter, op, types, "the attention gradients", sizes);
    if (failed(outs))
      return failure();
    rewriter.replaceOpWithNewOp<AttentionGradBuffersOp>(
        op, TypeRange(types), adaptor.getQuery(), adaptor.getKey(),
        adaptor.getValue(), adaptor.getOutput(), adaptor.getLse(),
        adaptor.getGradOutput(), adaptor.getMask(), *outs,
        rewriter.getF32FloatAttr(op.getScaleValue()), op.getCausalAttr());
    return success();
  }
};

/// te.buffers of an expanded tensor: its buffers.
struct BuffersLowering : public OpConversionPattern<BuffersOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BuffersOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> buffers = flatten(adaptor.getOperands());
    if (buffers.size() != op.getNumResults())
      return rewriter.notifyMatchFailure(op, "buffer count mismatch");
    rewriter.replaceOp(op, buffers);
    return success();
  }
};

/// te.from_buffers: the expanded tensor is its operands.
struct FromBuffersLowering : public OpConversionPattern<FromBuffersOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FromBuffersOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithMultiple(op, {flatten(adaptor.getOperands())});
    return success();
  }
};

/// True if `type` is or contains (function types) a !te.qtensor.
static bool mentionsQTensor(Type type) {
  if (isa<QTensorType>(type))
    return true;
  if (auto fn = dyn_cast<FunctionType>(type))
    return llvm::any_of(fn.getInputs(), mentionsQTensor) ||
           llvm::any_of(fn.getResults(), mentionsQTensor);
  return false;
}

struct TEExpandQTensorsPass
    : public mlir::te::impl::TEExpandQTensorsBase<TEExpandQTensorsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    // te.linear / te.linear_grad have no buffer-level form.
    WalkResult linear = module.walk([](Operation *op) {
      if (isa<LinearOp, LinearGradOp>(op)) {
        op->emitOpError() << "has no buffer-level form: run "
                             "te-decompose-linear before te-expand-qtensors";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (linear.wasInterrupted())
      return signalPassFailure();

    QTensorTypeConverter converter(getTarget(module));
    ConversionTarget target(*ctx);
    target.addLegalOp<ModuleOp>();
    target.addLegalDialect<tensor::TensorDialect>();
    target.addIllegalOp<QuantizeOp, DequantizeOp, GemmOp, EmptyOp, BuffersOp,
                        FromBuffersOp, AmaxOp, UpdateScaleOp, AllReduceMaxOp,
                        AttentionOp, AttentionGradOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    // The buffer-level te ops are the conversion's targets.
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      return op->hasTrait<OpTrait::te::BufferLevelOp>() ||
             converter.isLegal(op);
    });

    RewritePatternSet patterns(ctx);
    patterns.add<QuantizeLowering, DequantizeLowering, GemmLowering,
                 EmptyLowering, BuffersLowering, FromBuffersLowering,
                 AmaxLowering, UpdateScaleLowering, AllReduceMaxLowering,
                 AttentionLowering, AttentionGradLowering>(converter, ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateBranchOpInterfaceTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);

    auto countBufferOps = [&] {
      unsigned n = 0;
      module.walk([&](Operation *op) {
        n += op->hasTrait<OpTrait::te::BufferLevelOp>();
      });
      return n;
    };
    unsigned before = countBufferOps();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    numBufferOps += countBufferOps() - before;

    // Nothing quantized may remain: every value, block argument and
    // function type is made of buffers now.
    WalkResult left = module.walk([](Operation *op) {
      auto report = [&](Type type) {
        op->emitOpError() << "still uses " << type
                          << " after te-expand-qtensors: no pattern expands "
                             "it into buffers";
        return WalkResult::interrupt();
      };
      for (Type type : op->getOperandTypes())
        if (mentionsQTensor(type))
          return report(type);
      for (Type type : op->getResultTypes())
        if (mentionsQTensor(type))
          return report(type);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Type type : block.getArgumentTypes())
            if (mentionsQTensor(type))
              return report(type);
      if (auto fn = dyn_cast<FunctionOpInterface>(op))
        if (mentionsQTensor(fn.getFunctionType()))
          return report(fn.getFunctionType());
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      return signalPassFailure();
  }
};

} // namespace
