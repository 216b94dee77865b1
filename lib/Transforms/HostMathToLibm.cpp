//===- HostMathToLibm.cpp - Host math without an LLVM lowering -> libm ----===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-host-math-to-libm: the math ops of host code that convert-to-llvm has
// no lowering for (erf, erfc, asinh, acosh, atanh, cbrt) become calls of the
// C math library, with upstream's math-to-libm patterns; kernels (inside a
// gpu.module) keep them for the NVVM lowering (libdevice).
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "te-host-math-to-libm"

namespace mlir::te {
#define GEN_PASS_DEF_TEHOSTMATHTOLIBM
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

bool mlir::te::isHostMathWithoutLLVMLowering(Operation *op) {
  return isa<math::ErfOp, math::ErfcOp, math::AsinhOp, math::AcoshOp,
             math::AtanhOp, math::CbrtOp>(op) &&
         !op->getParentOfType<gpu::GPUModuleOp>();
}

namespace {

struct TEHostMathToLibmPass
    : public te::impl::TEHostMathToLibmBase<TEHostMathToLibmPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    unsigned count = 0;
    module.walk([&](Operation *op) {
      if (te::isHostMathWithoutLLVMLowering(op))
        ++count;
    });
    if (count == 0) {
      markAllAnalysesPreserved();
      return;
    }
    RewritePatternSet patterns(&getContext());
    populateMathToLibmConversionPatterns(patterns);
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal(
        [](Operation *op) { return !te::isHostMathWithoutLLVMLowering(op); });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    numCalls += count;
  }
};

} // namespace
