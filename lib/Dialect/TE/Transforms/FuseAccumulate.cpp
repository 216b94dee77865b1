//===- FuseAccumulate.cpp - Gradient accumulation inside the GEMM -*- C++
//-*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-fuse-accumulate: `acc += extf(te.gemm(...))` as a linalg.generic
// becomes `te.gemm ... accumulate(acc)` with an fp32 result.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "te/Dialect/TE/IR/TEOps.h"

#define DEBUG_TYPE "te-fuse-accumulate"

namespace mlir::te {
#define GEN_PASS_DEF_TEFUSEACCUMULATE
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

/// `v` without the tensor.casts that produce it.
Value stripCasts(Value v) {
  while (auto cast = v.getDefiningOp<tensor::CastOp>())
    v = cast.getSource();
  return v;
}

/// Whether `v` reaches `user` through single-use tensor.casts only.
bool onlyFeeds(Value v, Operation *user) {
  while (true) {
    if (!v.hasOneUse())
      return false;
    Operation *u = *v.getUsers().begin();
    if (u == user)
      return true;
    auto cast = dyn_cast<tensor::CastOp>(u);
    if (!cast)
      return false;
    v = cast.getResult();
  }
}

struct FuseAccumulate : OpRewritePattern<linalg::GenericOp> {
  FuseAccumulate(MLIRContext *ctx, unsigned &fusedCount)
      : OpRewritePattern(ctx), fusedCount(fusedCount) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
        op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
        op.getNumReductionLoops() != 0 ||
        !llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }))
      return failure();
    // The region: out + extf(in), or out + in for f32.
    Block &body = op.getRegion().front();
    BlockArgument in = body.getArgument(0), out = body.getArgument(1);
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
    if (!add || !out.getType().isF32() || body.getOperations().size() > 3)
      return failure();
    Value other = add.getLhs() == out   ? add.getRhs()
                  : add.getRhs() == out ? add.getLhs()
                                        : Value();
    if (!other)
      return failure();
    if (auto ext = other.getDefiningOp<arith::ExtFOp>())
      other = ext.getIn();
    if (other != in)
      return failure();
    // The GEMM: a plain float result used only here.
    Value input = op.getDpsInputs()[0];
    auto gemm = stripCasts(input).getDefiningOp<GemmOp>();
    if (!gemm || gemm.getBias() || gemm.getAccumulate() || gemm.getOutScale() ||
        gemm.getAmax() || !onlyFeeds(gemm.getResult(), op))
      return failure();
    auto dType = dyn_cast<RankedTensorType>(gemm.getResult().getType());
    if (!dType || !dType.hasStaticShape())
      return failure();
    auto accType = RankedTensorType::get(dType.getShape(), out.getType());
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Value acc = stripCasts(op.getDpsInits()[0]);
    if (acc.getType() != accType) {
      if (!tensor::CastOp::areCastCompatible(acc.getType(), accType))
        return failure();
      acc = tensor::CastOp::create(rewriter, loc, accType, acc);
    }
    auto fused =
        GemmOp::create(rewriter, gemm.getLoc(), accType, Type(), gemm.getA(),
                       gemm.getB(), gemm.getLayoutAttr(), Value(), acc, Value(),
                       gemm.getUseSplitAccumulatorAttr());
    Value result = fused.getResult();
    if (result.getType() != op->getResult(0).getType())
      result = tensor::CastOp::create(rewriter, loc, op->getResult(0).getType(),
                                      result);
    rewriter.replaceOp(op, result);
    ++fusedCount;
    return success();
  }

  /// GEMMs fused so far (the pass's statistic).
  unsigned &fusedCount;
};

struct TEFuseAccumulatePass
    : public mlir::te::impl::TEFuseAccumulateBase<TEFuseAccumulatePass> {
  void runOnOperation() override {
    unsigned fused = 0;
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseAccumulate>(&getContext(), fused);
    // Dead GEMMs and casts go with the greedy driver's folding.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
    numFused += fused;
  }
};

} // namespace
