//===- BufferizableOpInterfaceImpl.cpp - bufferize te ops -------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// BufferizableOpInterface for the destination-passing buffer-level te ops.
// Each `outs` operand is written in place (it is equivalent to its tied
// result); the other operands are only read. Bufferizing rebuilds the op
// with memref operands and no results; a region (on scalars) moves over.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEOps.h"
#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::te;
using namespace mlir::bufferization;

namespace {

template <typename OpTy>
struct BufferOpInterface
    : public DstBufferizableOpInterfaceExternalModel<BufferOpInterface<OpTy>,
                                                     OpTy> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &state) const {
    auto dps = cast<DestinationStyleOpInterface>(op);
    if (!dps.isDpsInit(&operand))
      return true;
    // Only an accumulating GEMM reads its destination.
    if (auto gemm = dyn_cast<GemmBuffersOp>(op))
      return gemm.getAccumulate();
    return false;
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto dps = cast<DestinationStyleOpInterface>(op);
    if (dps.hasPureBufferSemantics())
      return success();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      if (!isa<TensorType>(operand.getType())) {
        operands.push_back(operand);
        continue;
      }
      FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
      if (failed(buffer))
        return failure();
      operands.push_back(*buffer);
    }
    SmallVector<Value> results;
    for (OpOperand &init : dps.getDpsInitsMutable())
      results.push_back(operands[init.getOperandNumber()]);

    rewriter.setInsertionPoint(op);
    Operation *bufferized = Operation::create(
        op->getLoc(), op->getName(), /*resultTypes=*/TypeRange(), operands,
        op->getAttrDictionary(), op->getPropertiesStorage(),
        /*successors=*/{}, op->getNumRegions());
    // A region (te.quantize_produced_buffers' body, on scalars) moves over.
    for (auto [from, to] :
         llvm::zip_equal(op->getRegions(), bufferized->getRegions()))
      rewriter.inlineRegionBefore(from, to, to.end());
    rewriter.insert(bufferized);
    replaceOpWithBufferizedValues(rewriter, op, results);
    return success();
  }
};

} // namespace

/// Attaches the model to `Op` if it is a buffer-level op.
template <typename Op> static void attachIfBufferLevel(MLIRContext *ctx) {
  if constexpr (Op::template hasTrait<OpTrait::te::BufferLevelOp>())
    Op::template attachInterface<BufferOpInterface<Op>>(*ctx);
}

template <typename... Ops>
static void attachToBufferLevelOps(MLIRContext *ctx) {
  (attachIfBufferLevel<Ops>(ctx), ...);
}

void mlir::te::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TEDialect *) {
    attachToBufferLevelOps<
#define GET_OP_LIST
#include "te/Dialect/TE/IR/TEOps.cpp.inc"
        >(ctx);
  });
}
