//===- Pipeline.cpp - te-pipeline and te-set-target -------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-pipeline{target=cpu|sm_90|sm_100}: the whole flow of DESIGN.md as one
// registered pipeline, every stage a pass usable alone.
//
//===----------------------------------------------------------------------===//

#include "te/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "te/Dialect/TE/IR/TEAttrs.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/IR/TEOps.h"
#include "te/Dialect/TE/Transforms/Passes.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <mutex>

namespace mlir::te {
#define GEN_PASS_DEF_TESETTARGET
#include "te/Conversion/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

/// Registers every pass te-pipeline names, once per process. The pipeline is
/// assembled from pass names (the same text --dump-pass-pipeline prints), so
/// without this an embedder that calls buildTEPipeline without having
/// registered the upstream passes (registerAllPasses) and te's would get an
/// incomplete pipeline: a te pass missing from the registry is skipped, an
/// upstream one cannot be parsed. Registering a pass that is already
/// registered is a no-op.
void registerPipelinePasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerInlinerPass();
    registerCanonicalizerPass();
    registerCSEPass();
    bufferization::registerOneShotBufferizePass();
    bufferization::registerOwnershipBasedBufferDeallocationPass();
    bufferization::registerBufferDeallocationSimplificationPass();
    bufferization::registerLowerDeallocationsPass();
    memref::registerExpandReallocPass();
    memref::registerExpandStridedMetadataPass();
    arith::registerArithExpandOpsPass();
    registerConvertLinalgToLoopsPass();
    registerConvertBufferizationToMemRefPass();
    registerLowerAffinePass();
    registerSCFToControlFlowPass();
    registerConvertToLLVMPass();
    registerGpuLaunchSinkIndexComputationsPass();
    registerGpuKernelOutliningPass();
    registerGpuNVVMAttachTarget();
    registerConvertGpuOpsToNVVMOps();
    registerGpuToLLVMConversionPass();
    registerGpuModuleToBinaryPass();
    registerFinalizeMemRefToLLVMConversionPass();
    registerReconcileUnrealizedCastsPass();
    mlir::te::registerTEPasses();
    mlir::te::registerTEConversionPasses();
  });
}

/// The nested pipelines of te-deallocate and te-lower-if-present are parsed
/// in their constructors (getDependentDialects needs them before
/// initialize); a parse failure is reported here, when the pass is
/// initialized, rather than aborting.
LogicalResult checkNestedPipeline(MLIRContext *ctx, bool built, StringRef pass,
                                  StringRef error) {
  if (built)
    return success();
  return emitError(UnknownLoc::get(ctx))
         << pass << ": its nested pipeline did not build: " << error;
}

bool isEmulatedOnSm90(Attribute q) {
  auto quantizer = dyn_cast_or_null<QuantizerAttrInterface>(q);
  if (!quantizer)
    return false;
  ::te::format::Recipe r = quantizer.getFormatConfig().recipe;
  return r == ::te::format::Recipe::MXFP8 || r == ::te::format::Recipe::NVFP4;
}

Attribute quantizerOf(Type t) {
  if (auto q = dyn_cast<QTensorType>(t))
    return q.getQuantizer();
  return {};
}

struct TESetTargetPass
    : public mlir::te::impl::TESetTargetBase<TESetTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Target t;
    if (target == "sm_90" || target == "cpu")
      t = Target::SM90;
    else if (target == "sm_100")
      t = Target::SM100;
    else {
      // At the module's location only: an error on the module op would
      // print the whole module after it.
      emitError(module.getLoc(), "te-set-target: target must be cpu, sm_90 "
                                 "or sm_100, got '")
          << target << "'";
      return signalPassFailure();
    }
    if (auto existing = module->getAttrOfType<TargetAttr>("te.target")) {
      if (existing.getValue() != t) {
        emitError(module.getLoc(), "module has te.target = ")
            << existing << " but the pipeline targets " << target;
        return signalPassFailure();
      }
    } else {
      module->setAttr("te.target", TargetAttr::get(&getContext(), t));
    }
    if (t == Target::SM100 || !remarks)
      return;
    // One remark per function and emulated recipe, at its first GEMM, with
    // the location only (emitRemark on the op would print the op).
    DenseSet<std::pair<Operation *, int>> remarked;
    module.walk([&](Operation *op) {
      Attribute q;
      if (auto gemm = dyn_cast<GemmOp>(op))
        q = quantizerOf(gemm.getA().getType());
      else if (auto linear = dyn_cast<LinearOp>(op))
        q = linear.getInputQuantizer();
      else if (auto grad = dyn_cast<LinearGradOp>(op))
        q = grad.getGradOutputQuantizer();
      if (!isEmulatedOnSm90(q))
        return;
      ::te::format::Recipe recipe =
          cast<QuantizerAttrInterface>(q).getFormatConfig().recipe;
      Operation *function = op->getParentOfType<FunctionOpInterface>();
      if (!remarked.insert({function, static_cast<int>(recipe)}).second)
        return;
      emitRemark(op->getLoc())
          << ::te::format::recipeName(recipe)
          << " GEMM has no native kernel on " << target
          << ": the runtime emulates it exactly (dequantized operands, fp32 "
             "GEMM); remarked once per function, remarks=false silences it";
    });
  }
};

/// Runs lowering stages on the module only where they have something to
/// do: a stage runs when some op of the module satisfies its `present`
/// predicate. One walk finds the first stage to run (stopped at the first
/// op of that stage); after a stage has run, the next walk starts from the
/// stages after it (a stage may create ops for a later one). The lowering
/// stages of te-pipeline that exist for ops a te program may or may not
/// contain (linalg, affine, scf, views, float arith) would otherwise walk,
/// match and fold every op of a large module for nothing, and be followed by
/// a verification of the whole module each (docs/performance.md "Compile
/// time").
class LowerIfPresentPass
    : public PassWrapper<LowerIfPresentPass, OperationPass<ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerIfPresentPass)

  struct Stage {
    std::function<bool(Operation *)> present;
    OpPassManager pipeline;
  };

  /// te-pipeline's stages (the constructor's definition lists them).
  LowerIfPresentPass();
  LowerIfPresentPass(const LowerIfPresentPass &other)
      : PassWrapper(other), stages(other.stages), built(other.built),
        error(other.error) {}

  StringRef getArgument() const override { return "te-lower-if-present"; }
  StringRef getName() const override { return "LowerIfPresent"; }
  StringRef getDescription() const override {
    return "te-pipeline's lowering stages before convert-to-llvm "
           "(convert-bufferization-to-memref, convert-linalg-to-loops, "
           "expand-strided-metadata, lower-affine, arith-expand, "
           "convert-scf-to-cf), each run only when the module has an op it "
           "lowers";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    for (const Stage &stage : stages)
      stage.pipeline.getDependentDialects(registry);
  }
  LogicalResult initialize(MLIRContext *ctx) override {
    return checkNestedPipeline(ctx, built, getArgument(), error);
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
      if (failed(runPipeline(stages[first].pipeline, getOperation())))
        return signalPassFailure();
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
  bool built = true;
  std::string error;
};

/// Buffer deallocation. A module whose functions are straight-line code on
/// buffers it allocates -- one block each, no op with regions, every memref
/// an argument, a memref.alloc or a memref.get_global, used only by the
/// buffer-level te ops (BufferLevelOp trait), memref.copy/load/store/dim and func.return, and
/// every returned memref a distinct memref.alloc -- gets what
/// ownership-based deallocation computes for it, directly: each allocation
/// that is not returned is freed (memref.dealloc) before the return, in
/// allocation order; a returned one belongs to the caller. Any other module
/// runs `upstream`, the buffer deallocation pipeline. On a training step
/// that pipeline and its canonicalizations are 40% of te-pipeline's time
/// (docs/performance.md "Compile time").
class DeallocatePass
    : public PassWrapper<DeallocatePass, OperationPass<ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DeallocatePass)

  /// The upstream pipeline is te-pipeline's (the constructor's definition).
  DeallocatePass();
  DeallocatePass(const DeallocatePass &other)
      : PassWrapper(other), upstream(other.upstream), built(other.built),
        error(other.error) {}

  StringRef getArgument() const override { return "te-deallocate"; }
  StringRef getName() const override { return "TEDeallocate"; }
  StringRef getDescription() const override {
    return "te-pipeline's buffer deallocation: straight-line modules "
           "directly, any other module through upstream's deallocation "
           "pipeline (with te-split-deallocs)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    upstream.getDependentDialects(registry);
    registry.insert<memref::MemRefDialect>();
  }
  LogicalResult initialize(MLIRContext *ctx) override {
    return checkNestedPipeline(ctx, built, getArgument(), error);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (Operation &op : module.getBody()->getOperations()) {
      auto func = dyn_cast<func::FuncOp>(op);
      if (func && func.isExternal())
        continue;
      if (func && isStraightLine(func)) {
        funcs.push_back(func);
        continue;
      }
      if (func || op.getNumRegions() != 0) {
        if (failed(runPipeline(upstream, module)))
          signalPassFailure();
        return;
      }
    }
    for (func::FuncOp func : funcs) {
      Block &body = func.getBody().front();
      Operation *ret = body.getTerminator();
      llvm::SmallPtrSet<Value, 16> returned(ret->operand_begin(),
                                            ret->operand_end());
      OpBuilder b(ret);
      for (Operation &op : body.without_terminator())
        if (auto alloc = dyn_cast<memref::AllocOp>(op))
          if (!returned.contains(alloc.getResult()))
            memref::DeallocOp::create(b, alloc.getLoc(), alloc.getResult());
    }
  }

private:
  static bool isMemRef(Value v) { return isa<BaseMemRefType>(v.getType()); }

  static bool isStraightLine(func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return false;
    Block &body = func.getBody().front();
    auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
    if (!ret)
      return false;
    for (Operation &op : body) {
      if (op.getNumRegions() != 0)
        return false;
      if (isa<memref::AllocOp, memref::GetGlobalOp>(op))
        continue;
      if (llvm::none_of(op.getOperands(), isMemRef) &&
          llvm::none_of(op.getResults(), isMemRef))
        continue;
      if (!(op.hasTrait<OpTrait::te::BufferLevelOp>() ||
            isa<memref::CopyOp, memref::LoadOp, memref::StoreOp,
                memref::DimOp, func::ReturnOp>(op)) ||
          llvm::any_of(op.getResults(), isMemRef))
        return false;
    }
    llvm::SmallPtrSet<Value, 16> returned;
    for (Value v : ret.getOperands())
      if (isMemRef(v) &&
          (!v.getDefiningOp<memref::AllocOp>() || !returned.insert(v).second))
        return false;
    return true;
  }

  OpPassManager upstream{ModuleOp::getOperationName()};
  bool built = true;
  std::string error;
};

/// Drops the properties gpu-module-to-binary records on each object of a
/// gpu.binary (the time ptxas took, ...), so that te-pipeline's output
/// depends on its input only.
class StripBinaryPropertiesPass
    : public PassWrapper<StripBinaryPropertiesPass, OperationPass<ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StripBinaryPropertiesPass)
  StringRef getArgument() const override {
    return "te-strip-binary-properties";
  }
  StringRef getName() const override { return "TEStripBinaryProperties"; }
  StringRef getDescription() const override {
    return "drop the compile-time properties (e.g. ISAToBinaryTimeInMs) of "
           "gpu.binary objects, for reproducible output";
  }
  void runOnOperation() override {
    getOperation().walk([](gpu::BinaryOp binary) {
      SmallVector<Attribute> objects;
      for (Attribute a : binary.getObjects()) {
        auto o = cast<gpu::ObjectAttr>(a);
        objects.push_back(gpu::ObjectAttr::get(o.getContext(), o.getTarget(),
                                               o.getFormat(), o.getObject(),
                                               nullptr, o.getKernels()));
      }
      binary.setObjectsAttr(ArrayAttr::get(binary.getContext(), objects));
    });
  }
};

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

/// Buffer deallocation for modules TEDeallocate does not free directly:
/// bufferization::buildBufferDeallocationPipeline's passes, te-split-deallocs
/// before buffer-deallocation-simplification, which is quadratic in the size
/// of the one bufferization.dealloc that ends a straight-line function
/// (docs/performance.md "Compile time").
DeallocatePass::DeallocatePass() {
  registerPipelinePasses();
  std::string dealloc = "expand-realloc{emit-deallocs=false},canonicalize,"
                        "ownership-based-buffer-deallocation,canonicalize,";
  if (PassInfo::lookup("te-split-deallocs"))
    dealloc += "te-split-deallocs,";
  dealloc += "buffer-deallocation-simplification,"
             "bufferization-lower-deallocations,cse,canonicalize";
  // Built here, not in initialize(): getDependentDialects comes first. The
  // passes are registered above, so a failure would be a misspelt pipeline;
  // initialize() reports it.
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(dealloc, upstream, os)))
    built = false;
}

/// The LLVM lowering's stages before convert-to-llvm, in order, each with the
/// ops that make it run.
LowerIfPresentPass::LowerIfPresentPass() {
  registerPipelinePasses();
  auto addIfPresent = [&](std::function<bool(Operation *)> present,
                          StringRef stage) {
    OpPassManager nested(ModuleOp::getOperationName());
    llvm::raw_string_ostream os(error);
    if (failed(parsePassPipeline(stage, nested, os)))
      built = false;
    stages.push_back({std::move(present), std::move(nested)});
  };
  // bufferization.clone (a returned buffer the deallocation pipeline keeps
  // alive, e.g. a constant) -> memref.alloc + memref.copy.
  addIfPresent(opOfDialect("bufferization"), "convert-bufferization-to-memref");
  addIfPresent(opOfDialect("linalg"), "convert-linalg-to-loops");
  // Views and metadata (subview, reshapes, casts, ...): what is left after
  // bufferization and convert-te-to-runtime is alloc/dealloc, globals and
  // aligned pointers, which convert-to-llvm lowers directly.
  addIfPresent(
      opOfDialect("memref",
                  {"memref.alloc", "memref.alloca", "memref.dealloc",
                   "memref.global", "memref.get_global",
                   "memref.extract_aligned_pointer_as_index", "memref.load",
                   "memref.store", "memref.copy", "memref.dim"}),
      "expand-strided-metadata");
  addIfPresent(opOfDialect("affine"), "lower-affine");
  // arith-expand rewrites float conversions, ceil/floor divisions and
  // min/max; integer arithmetic and casts need nothing.
  addIfPresent(
      opOfDialect("arith",
                  {"arith.constant", "arith.index_cast", "arith.index_castui",
                   "arith.addi", "arith.subi", "arith.muli", "arith.cmpi",
                   "arith.select", "arith.andi", "arith.ori", "arith.xori",
                   "arith.extui", "arith.extsi", "arith.trunci"}),
      "arith-expand{include-bf16=true include-f8e8m0=true}");
  addIfPresent(opOfDialect("scf"), "convert-scf-to-cf");
}

} // namespace

void mlir::te::buildTEPipeline(OpPassManager &pm,
                               const TEPipelineOptions &options) {
  registerPipelinePasses();
  std::string pipeline;
  llvm::raw_string_ostream os(pipeline);
  auto add = [&](StringRef stage) {
    if (!pipeline.empty())
      os << ",";
    os << stage;
  };
  // A stage whose pass is not registered in this build is left out
  // (PassInfo lookup); DESIGN.md lists the order.
  auto addIfRegistered = [&](StringRef name, StringRef stage) {
    if (PassInfo::lookup(name))
      add(stage);
  };
  add("te-set-target{target=" + options.target.getValue() +
      " remarks=" + (options.remarks ? "true" : "false") + "}");
  // Private helpers (e.g. an accumulation over tensor<?x?xf32>) are inlined
  // first: their dynamic signatures would otherwise survive to bufferization
  // and leave casts the LLVM lowering cannot reconcile.
  add("inline");
  addIfRegistered("te-infer-shapes", "te-infer-shapes");
  addIfRegistered("te-decompose-linear", "te-decompose-linear");
  if (options.reference)
    add("convert-te-to-reference");
  // Gradient accumulation into fp32 inside the GEMM (TE's
  // fuse_wgrad_accumulation); after the twin's conversion, which keeps the
  // program's rounding.
  if (options.fuseAccumulate)
    addIfRegistered("te-fuse-accumulate", "te-fuse-accumulate");
  addIfRegistered("te-infer-usages", "te-infer-usages");
  addIfRegistered("te-eliminate-aliases", "te-eliminate-aliases");
  std::string legalizeTarget =
      options.target.getValue() == "cpu" ? "sm_90" : options.target.getValue();
  addIfRegistered("te-legalize", "te-legalize{target=" + legalizeTarget + "}");
  addIfRegistered("te-expand-qtensors", "te-expand-qtensors");
  add("canonicalize");
  // Entry points get their memref signature first: one-shot-bufferize's
  // function-boundary analysis is O(arguments x results) otherwise
  // (docs/performance.md "Compile time").
  addIfRegistered("te-bufferize-boundaries", "te-bufferize-boundaries");
  add("one-shot-bufferize{allow-return-allocs-from-loops "
      "bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map}");
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    llvm::report_fatal_error("te-pipeline: cannot build the pipeline");
  // Buffer deallocation: straight-line modules directly (TEDeallocate),
  // anything else with upstream's deallocation pipeline.
  pm.addPass(std::make_unique<DeallocatePass>());
  bool gpu = isGPUTarget(options.target.getValue());
  auto addText = [&](StringRef text) {
    if (failed(parsePassPipeline(text, pm, llvm::errs())))
      llvm::report_fatal_error("te-pipeline: cannot build the pipeline");
  };
  if (!gpu) {
    addText("convert-te-to-runtime");
  } else {
    // Device memory: bufferization's clones become allocations + copies,
    // every op on tensor data a kernel, te ops and the host's copies and
    // scalar accesses runtime calls; the second te-linalg-to-gpu lowers the
    // copies of strided operands convert-te-to-runtime made.
    addText("convert-bufferization-to-memref,te-linalg-to-gpu,"
            "convert-te-to-runtime{device-memory=true},te-linalg-to-gpu");
  }
  if (!options.lowerToLLVM)
    return;
  if (gpu) {
    // Kernels: outlined into a gpu.module (constants and index computations
    // sunk into them first, so they are not kernel parameters).
    addText("gpu-launch-sink-index-computations,gpu-kernel-outlining");
  }
  // The LLVM lowering. Each stage before convert-to-llvm runs only when the
  // module has an op it lowers (on GPU targets the kernels' too).
  pm.addPass(std::make_unique<LowerIfPresentPass>());
  if (gpu) {
    StringRef chip = options.target.getValue();
    std::string features = chip == "sm_100" ? "+ptx86" : "+ptx80";
    std::string toolkit = options.toolkit.getValue();
    if (toolkit.empty()) {
      for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
        if (const char *v = std::getenv(var); v && *v) {
          toolkit = v;
          break;
        }
      if (toolkit.empty())
        toolkit = "/usr/local/cuda";
    }
    // sm_90 needs PTX 8.0, sm_100 PTX 8.6 (mlir-gpu-path.md §5). Device
    // code to NVVM; host allocations through the runtime (libte_rt
    // provides the generic allocation functions); launches to the GPU
    // host ABI (mgpu*, libte_rt); the kernels compiled and embedded.
    addText("nvvm-attach-target{chip=" + chip.str() + " features=" + features +
            " O=3},"
            "gpu.module(convert-gpu-to-nvvm,canonicalize,cse,"
            "reconcile-unrealized-casts),"
            "finalize-memref-to-llvm{use-generic-functions=true},"
            "gpu-to-llvm,"
            "gpu-module-to-binary{format=" +
            options.gpuFormat.getValue() + " toolkit=" + toolkit + "}");
    pm.addPass(std::make_unique<StripBinaryPropertiesPass>());
  }
  addText("convert-to-llvm,reconcile-unrealized-casts");
}

bool mlir::te::isGPUTarget(llvm::StringRef target) {
  return target == "sm_90" || target == "sm_100";
}

void mlir::te::registerTEPipeline() {
  // te-pipeline's own passes, so that a printed te-pipeline
  // (--dump-pass-pipeline, crash reproducers) parses back.
  PassRegistration<DeallocatePass>();
  PassRegistration<LowerIfPresentPass>();
  PassRegistration<StripBinaryPropertiesPass>();
  PassPipelineRegistration<TEPipelineOptions>(
      "te-pipeline",
      "the te flow: te-set-target, inline, te-infer-shapes, "
      "te-decompose-linear, "
      "te-fuse-accumulate, te-infer-usages, te-eliminate-aliases, "
      "te-legalize, te-expand-qtensors, one-shot-bufferize, buffer "
      "deallocation, convert-te-to-runtime (GPU targets: te-linalg-to-gpu, "
      "device memory, kernels outlined, NVVM, gpu-module-to-binary), "
      "convert-to-llvm",
      buildTEPipeline);
}
