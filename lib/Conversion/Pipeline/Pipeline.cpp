//===- Pipeline.cpp - te-pipeline -------------------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-pipeline{target=cpu|sm_90|sm_100 ...}: the whole flow as one
// registered pipeline (docs/guide/passes.md), built from pass objects. Every
// stage is a pass usable alone: te's are declared in
// te/Dialect/TE/Transforms/Passes.td (passes on te ops),
// te/Transforms/Passes.td (passes on upstream dialects only) and
// te/Conversion/Passes.td; the others are upstream's. What
// --dump-pass-pipeline prints is what runs; two passes decide at run time
// what they run inside (te-deallocate, te-lower-if-present: their Passes.td
// descriptions say what and why).
//
//===----------------------------------------------------------------------===//

#include "te/Conversion/Passes.h"

#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "te/Dialect/TE/Transforms/Passes.h"
#include "te/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::te;

/// The CUDA toolkit of GPU targets: the option, else the environment, else
/// /usr/local/cuda.
static std::string cudaToolkit(const TEPipelineOptions &options) {
  if (!options.toolkit.getValue().empty())
    return options.toolkit.getValue();
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *v = std::getenv(var); v && *v)
      return v;
  return "/usr/local/cuda";
}

void mlir::te::buildTEPipeline(OpPassManager &pm,
                               const TEPipelineOptions &options) {
  TESetTargetOptions setTarget;
  setTarget.target = options.target.getValue();
  setTarget.remarks = options.remarks;
  pm.addPass(createTESetTarget(setTarget));
  // Private helpers (e.g. an accumulation over tensor<?x?xf32>) are inlined
  // first: their dynamic signatures would otherwise survive to bufferization
  // and leave casts the LLVM lowering cannot reconcile.
  pm.addPass(createInlinerPass());
  // arith / math ops on whole tensors (`arith.addf %a, %b : tensor<...>`)
  // become elementwise linalg.generic ops, which every target lowers.
  pm.addPass(createConvertElementwiseToLinalgPass());
  // softmax(scale · Q·Kᵀ + mask) · V becomes te.attention, while the softmax
  // is still one op (te-decompose-aggregates) and the elementwise steps are
  // linalg ops.
  if (options.raiseAttention) {
    TERaiseAttentionOptions raise;
    raise.remarks = options.remarks;
    pm.addPass(createTERaiseAttention(raise));
  }
  // Aggregated linalg ops (linalg.softmax) become the linalg ops on tensors
  // that every target lowers; their dynamic sizes are tensor.dim /
  // tensor.empty, which te-infer-shapes sees like any others.
  pm.addPass(createTEDecomposeAggregates());
  // math.ipowi, which no target lowers, as multiplications.
  pm.addPass(createTEExpandIntegerPowers());
  // Integer division by zero: XLA's results on every target, no trap.
  pm.addPass(createTEDefineIntegerDivision());
  // Conversions from FP8 types (no target lowers them) as integer
  // arithmetic; conversions to them are te.quantize's.
  pm.addPass(createTEExpandFloat8Extensions());
  // An argmax / argmin in one op: on GPU targets two parallel reductions
  // (te-linalg-to-gpu would run it one thread per output).
  if (isGPUTarget(options.target.getValue()))
    pm.addPass(createTESplitArgReductions());
  pm.addPass(createTEInferShapes());
  pm.addPass(createTEDecomposeLinear());
  if (options.reference)
    pm.addPass(createConvertTEToReference());
  // Gradient accumulation into fp32 inside the GEMM (TE's
  // fuse_wgrad_accumulation); after the twin's conversion, which keeps the
  // program's rounding.
  if (options.fuseAccumulate)
    pm.addPass(createTEFuseAccumulate());
  pm.addPass(createTEInferUsages());
  pm.addPass(createTEEliminateAliases());
  pm.addPass(createTEExpandQTensors());
  pm.addPass(createCanonicalizerPass());
  // Elementwise ops into the op reading their result: one kernel (one loop
  // nest) instead of one per op; after te's own matches of linalg ops
  // (te-fuse-accumulate).
  if (options.fuseElementwise)
    pm.addPass(createTEFuseElementwise());
  // Elementwise producers (what te-fuse-elementwise left as one generic)
  // into the quantization of their result: the runtime evaluates them, the
  // high-precision tensor is not written. Not on GPU targets yet: the cuda
  // backend evaluates producer programs with an interpreter kernel before
  // its quantize kernels, 4.5x slower than the unfused kernels on GELU
  // (docs/performance.md), so there the generated kernels stay.
  if (options.fuseQuantize && !isGPUTarget(options.target.getValue())) {
    TEFuseQuantizeOptions fuseQuantize;
    fuseQuantize.remarks = options.remarks;
    pm.addPass(createTEFuseQuantize(fuseQuantize));
  }
  // Emulated GEMMs (MXFP8 / NVFP4 on sm_90) that read one operand share its
  // dequantization; the cpu backend computes from the quantized buffers.
  if (options.shareEmulatedOperands && options.target.getValue() == "sm_90")
    pm.addPass(createTEShareEmulatedOperands());
  // Run-time checks that operands agree in their dynamic sizes, on the
  // ops as they will run (after the last transformation on tensors).
  if (options.checkShapes)
    pm.addPass(createTECheckShapes());
  // Entry points get their memref signature first: one-shot-bufferize's
  // function-boundary analysis is O(arguments x results) otherwise
  // (docs/performance.md "Compile time").
  pm.addPass(createTEBufferizeBoundaries());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // One-shot-bufferize takes functions that do not call each other in an
  // order that changes from run to run (upstream's getFuncOpsOrderedByCalls
  // iterates a DenseMap keyed by addresses) and creates the tensor
  // constants' globals in that order; te-constant-globals creates them
  // first, in program order, so that the output is reproducible.
  TEConstantGlobalsOptions globals;
  globals.alignment = bufferize.bufferAlignment;
  pm.addPass(createTEConstantGlobals(globals));
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Head-split transposes around attention become views, not copies.
  pm.addPass(createTEFoldAttentionTransposes());
  // Buffer deallocation: straight-line modules directly, anything else with
  // upstream's deallocation pipeline.
  pm.addPass(createTEDeallocate());
  // memref.reshape's new sizes read as loads (host reads of device memory
  // on GPU targets go through the runtime, convert-te-to-runtime).
  pm.addPass(createTEExpandReshapes());
  bool gpu = isGPUTarget(options.target.getValue());
  if (!gpu) {
    pm.addPass(createConvertTEToRuntime());
  } else {
    // Device memory: bufferization's clones become allocations + copies,
    // every op on tensor data a kernel, te ops and the host's copies and
    // scalar accesses runtime calls; the second te-linalg-to-gpu lowers the
    // copies of strided operands convert-te-to-runtime made.
    pm.addPass(createConvertBufferizationToMemRefPass());
    TELinalgToGPUOptions kernels;
    kernels.remarks = options.remarks;
    pm.addPass(createTELinalgToGPU(kernels));
    ConvertTEToRuntimeOptions runtime;
    runtime.deviceMemory = true;
    pm.addPass(createConvertTEToRuntime(runtime));
    pm.addPass(createTELinalgToGPU(kernels));
  }
  if (!options.lowerToLLVM)
    return;
  if (gpu) {
    // Kernels: outlined into a gpu.module (constants and index computations
    // sunk into them first, so they are not kernel parameters).
    pm.addPass(createGpuLaunchSinkIndexComputationsPass());
    pm.addPass(createGpuKernelOutliningPass());
  }
  // The LLVM lowering. Each stage before convert-to-llvm runs only when the
  // module has an op it lowers (on GPU targets the kernels' too).
  pm.addPass(createTELowerIfPresent());
  // Failed checks (te-check-shapes, cf.assert): a message in the runtime's
  // status and an early return, on the functions' blocks.
  pm.addPass(createTELowerChecks());
  if (gpu) {
    // sm_90 needs PTX 8.0, sm_100 PTX 8.6 (mlir-gpu-path.md §5). Device
    // code to NVVM; host allocations through the runtime (libte_rt
    // provides the generic allocation functions); launches to the GPU
    // host ABI (mgpu*, libte_rt); the kernels compiled and embedded.
    GpuNVVMAttachTargetOptions nvvm;
    nvvm.chip = options.target.getValue();
    nvvm.features = nvvm.chip == "sm_100" ? "+ptx86" : "+ptx80";
    nvvm.optLevel = 3;
    pm.addPass(createGpuNVVMAttachTarget(nvvm));
    OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
    kernels.addPass(createConvertGpuOpsToNVVMOps());
    kernels.addPass(createCanonicalizerPass());
    kernels.addPass(createCSEPass());
    kernels.addPass(createReconcileUnrealizedCastsPass());
    FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
    memrefToLLVM.useGenericFunctions = true;
    // The LLVM conversion of a large entry's arguments is quadratic in one
    // block (te-split-entry-blocks says why); the body goes to a second one.
    pm.addPass(createTESplitEntryBlocks());
    pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
    pm.addPass(createGpuToLLVMConversionPass());
    GpuModuleToBinaryPassOptions binary;
    binary.compilationTarget = options.gpuFormat.getValue();
    binary.toolkitPath = cudaToolkit(options);
    pm.addPass(createGpuModuleToBinaryPass(binary));
    pm.addPass(createTEStripBinaryProperties());
  }
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

bool mlir::te::isGPUTarget(llvm::StringRef target) {
  return target == "sm_90" || target == "sm_100";
}

/// The arguments of the passes of `pm`, a nested pass manager as
/// "<op>(<its passes>)".
static void collectPasses(OpPassManager &pm, std::vector<std::string> &out) {
  for (Pass &pass : pm.getPasses()) {
    if (!pass.getArgument().empty()) {
      out.push_back(pass.getArgument().str());
      continue;
    }
    // A nested pass manager (OpToOpPassAdaptor): its textual form without
    // the passes' options.
    std::string text;
    llvm::raw_string_ostream os(text);
    pass.printAsTextualPipeline(os);
    std::string plain;
    int depth = 0;
    for (char c : text) {
      if (c == '{')
        ++depth;
      else if (c == '}')
        --depth;
      else if (depth == 0)
        plain.push_back(c);
    }
    out.push_back(plain);
  }
}

std::vector<std::string>
mlir::te::tePipelinePasses(const TEPipelineOptions &options) {
  OpPassManager pm("builtin.module");
  buildTEPipeline(pm, options);
  std::vector<std::string> out;
  collectPasses(pm, out);
  return out;
}

/// te-pipeline's description, from the pipeline itself: its passes for the
/// default options (target=sm_90), then what target=cpu leaves out.
static std::string pipelineDescription() {
  TEPipelineOptions gpu;
  TEPipelineOptions cpu;
  cpu.target = "cpu";
  std::vector<std::string> gpuPasses = tePipelinePasses(gpu);
  std::vector<std::string> cpuPasses = tePipelinePasses(cpu);
  std::string text = "the te flow (docs/guide/passes.md); for the default "
                     "options (target=sm_90): " +
                     llvm::join(gpuPasses, ", ") + ". target=cpu leaves out ";
  std::vector<std::string> gpuOnly;
  for (const std::string &p : gpuPasses)
    if (!llvm::is_contained(cpuPasses, p) && !llvm::is_contained(gpuOnly, p))
      gpuOnly.push_back(p);
  text += llvm::join(gpuOnly, ", ");
  text += ". The options add or leave out passes (reference, "
          "fuse-accumulate, raise-attention, share-emulated-operands, "
          "fuse-elementwise, fuse-quantize, check-shapes, lower-to-llvm); "
          "--dump-pass-pipeline lists the passes for given options";
  return text;
}

void mlir::te::registerTEPipeline() {
  // te's passes, so that a printed te-pipeline (--dump-pass-pipeline, crash
  // reproducers) parses back where the upstream passes are registered too.
  registerTEPasses();
  registerTEGenericPasses();
  registerTEConversionPasses();
  PassPipelineRegistration<TEPipelineOptions>(
      "te-pipeline", pipelineDescription(), buildTEPipeline);
}
