//===- LowerIfPresent.cpp - Lowering stages that have work to do ----------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-lower-if-present: te-pipeline's upstream lowering stages before
// convert-to-llvm, each run only when some op of the module satisfies its
// predicate (Passes.td lists the stages and their ops). One walk finds the
// first stage to run (stopped at the first op of that stage); after a stage
// has run, the next walk starts from the stages after it (a stage may create
// ops for a later one). The stages that exist for ops a te program may or
// may not contain (linalg, affine, scf, views, float arith) would otherwise
// walk, match and fold every op of a large module for nothing, and be
// followed by a verification of the whole module each (docs/performance.md
// "Compile time").
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Debug.h"

#include <functional>

#define DEBUG_TYPE "te-lower-if-present"

namespace mlir::te {
#define GEN_PASS_DEF_TELOWERIFPRESENT
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

namespace {

/// An op of dialect `dialect` whose name is not in `except`.
std::function<bool(Operation *)>
opOfDialect(StringRef dialect, std::initializer_list<StringRef> except = {}) {
  llvm::StringSet<> skip;
  for (StringRef name : except)
    skip.insert(name);
  return [dialect = dialect.str(), skip](Operation *op) {
    return op->getName().getDialectNamespace() == dialect &&
           !skip.contains(op->getName().getStringRef());
  };
}

class TELowerIfPresentPass
    : public te::impl::TELowerIfPresentBase<TELowerIfPresentPass> {
public:
  /// A pass pipeline and the ops that make it run.
  struct Stage {
    std::function<bool(Operation *)> present;
    OpPassManager pipeline;
  };

  TELowerIfPresentPass();
  TELowerIfPresentPass(const TELowerIfPresentPass &other)
      : TELowerIfPresentBase(other), stages(other.stages) {}

  void getDependentDialects(DialectRegistry &registry) const override {
    for (const Stage &stage : stages)
      stage.pipeline.getDependentDialects(registry);
  }

  void runOnOperation() override {
    size_t next = 0;
    bool ran = false;
    while (next < stages.size()) {
      size_t first = stages.size();
      getOperation()->walk([&](Operation *op) {
        for (size_t i = next; i < first; ++i)
          if (stages[i].present(op)) {
            first = i;
            break;
          }
        return first == next ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (first == stages.size())
        break;
      LLVM_DEBUG(llvm::dbgs()
                 << DEBUG_TYPE << ": running stage " << first << "\n");
      if (failed(runPipeline(stages[first].pipeline, getOperation())))
        return signalPassFailure();
      ++numStages;
      ran = true;
      next = first + 1;
    }
    // Nothing changed: the pass manager then skips verifying the module
    // after this pass.
    if (!ran)
      markAllAnalysesPreserved();
  }

private:
  SmallVector<Stage> stages;
};

/// The stages, in order, each with the ops that make it run (Passes.td's
/// table).
TELowerIfPresentPass::TELowerIfPresentPass() {
  auto addStage = [&](std::function<bool(Operation *)> present,
                      function_ref<void(OpPassManager &)> build) {
    OpPassManager nested(ModuleOp::getOperationName());
    build(nested);
    stages.push_back({std::move(present), std::move(nested)});
  };
  auto addIfPresent = [&](std::function<bool(Operation *)> present,
                          std::unique_ptr<Pass> pass) {
    addStage(std::move(present),
             [&](OpPassManager &pm) { pm.addPass(std::move(pass)); });
  };
  // bufferization.clone (a returned buffer the deallocation pipeline keeps
  // alive, e.g. a constant) -> memref.alloc + memref.copy.
  addIfPresent(opOfDialect("bufferization"),
               createConvertBufferizationToMemRefPass());
  addIfPresent(opOfDialect("linalg"), createConvertLinalgToLoopsPass());
  // Views and metadata (subview, reshapes, casts, ...): what is left after
  // bufferization and convert-te-to-runtime is alloc/dealloc, globals and
  // aligned pointers, which convert-to-llvm lowers directly.
  addIfPresent(
      opOfDialect("memref",
                  {"memref.alloc", "memref.alloca", "memref.dealloc",
                   "memref.global", "memref.get_global",
                   "memref.extract_aligned_pointer_as_index", "memref.load",
                   "memref.store", "memref.copy", "memref.dim"}),
      memref::createExpandStridedMetadataPass());
  addIfPresent(opOfDialect("affine"), createLowerAffinePass());
  // arith-expand rewrites float conversions, ceil/floor divisions and
  // min/max; integer arithmetic and casts need nothing. Host code gets bf16
  // conversions as integer arithmetic; kernels keep them for the hardware
  // (sm_90's cvt.rn.bf16x2.f32 rounds as the expansion does, one instruction
  // per two elements instead of six per element; only a NaN's payload
  // differs).
  // Host code has no bf16 arithmetic either: LLVM would promote each bf16
  // op to float itself and round back through a libcall (__truncsfbf2) that
  // the C runtime of older toolchains lacks (Debian 12's libgcc), so an AOT
  // object of a program doing bf16 arithmetic on the host would not link.
  // Promoting first (the same rounding per op: extend, compute in f32,
  // round) leaves only conversions, which arith-expand writes as integer
  // arithmetic. Math ops likewise (math-extend-to-supported-types).
  addStage(opOfDialect("math"), [&](OpPassManager &pm) {
    pm.addNestedPass<func::FuncOp>(math::createMathExtendToSupportedTypes());
  });
  // Host math that LLVM has no intrinsic for (erf, ...): libm calls.
  addIfPresent(te::isHostMathWithoutLLVMLowering, te::createTEHostMathToLibm());
  arith::ArithEmulateUnsupportedFloatsOptions hostPromote;
  hostPromote.sourceTypeStrs = {"bf16"};
  hostPromote.targetTypeStr = "f32";
  arith::ArithExpandOpsPassOptions hostExpand;
  hostExpand.includeBf16 = true;
  hostExpand.includeF8E8M0 = true;
  hostExpand.includeF4E2M1 = true;
  arith::ArithExpandOpsPassOptions kernelExpand;
  kernelExpand.includeBf16 = false;
  kernelExpand.includeF8E8M0 = true;
  kernelExpand.includeF4E2M1 = true;
  addStage(
      opOfDialect("arith",
                  {"arith.constant", "arith.index_cast", "arith.index_castui",
                   "arith.addi", "arith.subi", "arith.muli", "arith.cmpi",
                   "arith.select", "arith.andi", "arith.ori", "arith.xori",
                   "arith.extui", "arith.extsi", "arith.trunci"}),
      [&](OpPassManager &pm) {
        pm.addNestedPass<func::FuncOp>(
            arith::createArithEmulateUnsupportedFloats(hostPromote));
        pm.addNestedPass<func::FuncOp>(
            arith::createArithExpandOpsPass(hostExpand));
        pm.nest("gpu.module")
            .addPass(arith::createArithExpandOpsPass(kernelExpand));
      });
  addIfPresent(opOfDialect("scf"), createSCFToControlFlowPass());
}

} // namespace
