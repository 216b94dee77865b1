//===- Passes.h - te conversion passes and the te pipeline ------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#ifndef TE_CONVERSION_PASSES_H
#define TE_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class ModuleOp;
namespace te {

#define GEN_PASS_DECL
#include "te/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "te/Conversion/Passes.h.inc"

/// Options of `te-pipeline`.
struct TEPipelineOptions : public PassPipelineOptions<TEPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("cpu | sm_90 | sm_100: the GPU the buffers are laid out "
                     "for (cpu executes sm_90 layouts on the cpu backend)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<bool> lowerToLLVM{
      *this, "lower-to-llvm",
      llvm::cl::desc("end in the LLVM dialect (false: stop after "
                     "convert-te-to-runtime)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("GPU targets: the CUDA toolkit whose ptxas, fatbinary "
                     "and libdevice make the kernels' binary (default: "
                     "$CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, /usr/local/cuda)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> gpuFormat{
      *this, "gpu-format",
      llvm::cl::desc("GPU targets: what gpu-module-to-binary embeds: fatbin "
                     "(default; needs the toolkit), bin, isa (PTX, JIT-loaded "
                     "by the driver), offload or llvm (IR, for inspection)"),
      llvm::cl::init("fatbin")};
  PassOptions::Option<bool> fuseAccumulate{
      *this, "fuse-accumulate",
      llvm::cl::desc("te-fuse-accumulate: `acc += gemm(...)` accumulates "
                     "in fp32 inside the GEMM (TE's fuse_wgrad_accumulation; "
                     "the GEMM's result is not rounded to its type first)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> raiseAttention{
      *this, "raise-attention",
      llvm::cl::desc("te-raise-attention: softmax(scale · Q·Kᵀ + mask) · V "
                     "written with linalg ops becomes te.attention (fused: "
                     "no score tensor)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> shareEmulatedOperands{
      *this, "share-emulated-operands",
      llvm::cl::desc("target=sm_90: te-share-emulated-operands, one bf16 "
                     "dequantization per MXFP8/NVFP4 GEMM operand that "
                     "several emulated GEMMs read"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("te-fuse-elementwise: elementwise linalg ops fused "
                     "into the op reading their result (one kernel or loop "
                     "nest, not one per op)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseQuantize{
      *this, "fuse-quantize",
      llvm::cl::desc("te-fuse-quantize: an elementwise producer computed "
                     "inside the quantization of its result (the "
                     "high-precision tensor not written unless something "
                     "else reads it); cpu target only for now"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> checkShapes{
      *this, "check-shapes",
      llvm::cl::desc("te-check-shapes: run-time checks that operands agree "
                     "in size (dynamic dimensions), a failed one stops the "
                     "program with a message instead of reading or writing "
                     "past a buffer"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> reference{
      *this, "reference",
      llvm::cl::desc("compile the program's high-precision twin instead: "
                     "convert-te-to-reference after te-decompose-linear"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> remarks{
      *this, "remarks",
      llvm::cl::desc("remark on what the target runs slowly: MXFP8/NVFP4 "
                     "GEMMs the runtime emulates (one per function and "
                     "recipe), reductions that run one GPU thread per output; "
                     "producers fused into quantizations, or why not; "
                     "attention chains raised or left alone"),
      llvm::cl::init(true)};
};

/// Adds the whole te flow (docs/guide/passes.md) to `pm`.
void buildTEPipeline(OpPassManager &pm, const TEPipelineOptions &options);

/// The passes buildTEPipeline adds for `options`, in order, by their
/// registered argument ("te-infer-shapes", "one-shot-bufferize", ...); a
/// nested pass manager as "<op>(<its passes>)". The pipeline's registered
/// description and the fuzzer's pass list are made from it.
std::vector<std::string> tePipelinePasses(const TEPipelineOptions &options);

/// Whether te-pipeline's `target` option names a GPU (sm_90, sm_100): its
/// programs keep every tensor in device memory and run every op on tensor
/// data as a kernel.
bool isGPUTarget(llvm::StringRef target);

/// Registers `te-pipeline`.
void registerTEPipeline();

} // namespace te
} // namespace mlir

#endif // TE_CONVERSION_PASSES_H
