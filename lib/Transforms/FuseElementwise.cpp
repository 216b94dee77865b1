//===- FuseElementwise.cpp - Elementwise linalg ops into their consumers --===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-fuse-elementwise: named elementwise linalg ops on tensors are
// generalized, then upstream's elementwise fusion patterns inline each
// all-parallel linalg.generic into the linalg.generic reading its result,
// where that computes nothing twice and keeps matrix products and
// convolutions as they are (Passes.td has the rules).
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "te-fuse-elementwise"

namespace mlir::te {
#define GEN_PASS_DEF_TEFUSEELEMENTWISE
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

namespace {

/// Whether `op` only moves data: its region yields block arguments of its
/// inputs (a broadcast, a transpose, a copy).
bool computesNothing(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (!body.without_terminator().empty())
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  return llvm::all_of(yield.getOperands(), [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &body &&
           arg.getArgNumber() < op.getNumDpsInputs();
  });
}

/// Whether `op` is a matrix product (a contraction with M, N and K loops),
/// which GPU targets give to cuBLASLt as long as its region is a
/// multiply-add of its operands. A contraction without an N loop (a
/// row-wise dot product) is a reduction like any other.
bool isMatrixProduct(linalg::LinalgOp op) {
  if (!linalg::isaContractionOpInterface(op))
    return false;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  return succeeded(dims) && !dims->m.empty() && !dims->n.empty() &&
         !dims->k.empty();
}

/// The fusion rule of TEFuseElementwise's description.
bool shouldFuse(OpOperand *fused) {
  auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  if (!producer || !consumer || !producer->hasOneUse())
    return false;
  // A producer outside the loop (or branch) of its consumer: fused, it would
  // run on every iteration.
  if (producer->getBlock() != consumer->getBlock())
    return false;
  if (isMatrixProduct(consumer) || linalg::isaConvolutionOpInterface(consumer))
    return false;
  return consumer.getMatchingIndexingMap(fused).isPermutation() ||
         computesNothing(producer);
}

/// A `tensor.splat` read as an input of a linalg.generic: its scalar is
/// used in the region instead (upstream's patterns do this for a
/// linalg.fill and a splat constant; the input, unused, is then dropped).
struct FoldSplatWithGenericOp : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    bool changed = false;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto splat = input->get().getDefiningOp<tensor::SplatOp>();
      BlockArgument arg = op.getMatchingBlockArgument(input);
      if (!splat || arg.use_empty())
        continue;
      rewriter.modifyOpInPlace(
          op, [&] { rewriter.replaceAllUsesWith(arg, splat.getInput()); });
      changed = true;
    }
    return success(changed);
  }
};

unsigned countGenerics(Operation *root) {
  unsigned n = 0;
  root->walk([&](linalg::GenericOp) { ++n; });
  return n;
}

struct TEFuseElementwisePass
    : public te::impl::TEFuseElementwiseBase<TEFuseElementwisePass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    SmallVector<linalg::LinalgOp> named;
    root->walk([&](linalg::LinalgOp op) {
      if (isa<linalg::GenericOp, linalg::FillOp>(op) ||
          !op.hasPureTensorSemantics() || op.getNumDpsInputs() == 0 ||
          !(linalg::isElementwise(op) || isa<linalg::ReduceOp>(op)))
        return;
      named.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      if (succeeded(linalg::generalizeNamedOp(rewriter, op)))
        ++numGeneralized;
    }

    unsigned before = countGenerics(root);
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    patterns.add<FoldSplatWithGenericOp>(&getContext());
    // `tensor.dim` of a fusable op's result (the size of a fresh
    // tensor.empty) is a use that would keep it from being fused: it
    // becomes the size of the op's operands.
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(root, std::move(patterns), config))) {
      root->emitError("te-fuse-elementwise: the fusion patterns did not "
                      "converge");
      return signalPassFailure();
    }
    unsigned after = countGenerics(root);
    numFused += before > after ? before - after : 0;
  }
};

} // namespace
