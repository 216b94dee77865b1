//===- CudaBackend.h - The cuda backend of libte_rt -------------*- C++ -*-===//
//
// Part of te. Internal to libte_rt.
//
//===----------------------------------------------------------------------===//
//
// The cuda implementation of te::rt::Backend: device memory (stream-ordered
// on the context's stream, the legacy default stream, from the device's
// default memory pool, which caches freed memory), the quantize /
// dequantize / amax / update / swizzle kernels (Quantize*.cu, Dequantize.cu,
// AmaxScale.cu, ScaleSwizzle.cu), and GEMMs
// through cuBLASLt (Gemm.cpp). Quantized buffers are bit-identical to the cpu
// backend's. Every CUDA or cuBLAS failure becomes a status and a one-line
// message; nothing aborts.
//
// GEMM paths (cublaslt-fp8-hopper.md §1-2, §5):
// * per-tensor FP8 (delayed / current): cuBLASLt FP8 with SCALAR_32F scales,
//   canonicalised to TN from the columnwise (transposed) copies on sm_90;
//   fast accumulation when use_split_accumulator is 0; bias epilogue.
// * Float8Block: VEC128_32F (1x128) / BLK128x128_32F (128x128) scales,
//   always split accumulation.
// * MXFP8 / NVFP4: native VEC32_UE8M0 / VEC16_UE4M3 on sm_100 (TN, swizzled
//   scales); otherwise emulated exactly: the operands are dequantized to bf16
//   (NVFP4: E2M1 x E4M3 block scale, exact in bf16; the global scales become
//   alpha) and multiplied by a bf16 cuBLASLt GEMM. Row-scaled NVFP4 and an
//   RHT on only one operand fall back to fp32 dequantization + an fp32 GEMM.
//   lastGemmEmulated() reports which path the last GEMM took (C ABI:
//   te_rt_context_last_gemm_info).
// * Per-row FP8 (te_rt_gemm_args::a/b_row_scale_inv): OUTER_VEC_32F.
// * A delayed-scaling FP8 output quantizer (rowwise only, no D, no bias):
//   cuBLASLt writes the FP8 data with D_SCALE / AMAX_D.
// Heuristic results are cached per problem (shapes, types, layouts, scale
// modes, epilogue, alignment, pointer mode); the default workspace is 32 MiB.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_CUDABACKEND_H
#define TE_RT_CUDA_CUDABACKEND_H

#include "Backend.h"
#include "CudaLibraries.h"
#include "FastKernels.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>

namespace te::rt {

/// How the last GEMM of a cuda backend ran.
enum class CudaGemmPath {
  None,
  NativeFP8,
  NativeBlockScaled,
  EmulatedBF16,
  EmulatedF32
};

class CudaBackend final : public Backend {
public:
  /// Returns nullptr and sets *error if no usable device is present.
  static std::unique_ptr<CudaBackend> create(std::string *error);
  ~CudaBackend() override;

  te_rt_backend kind() const override { return TE_RT_BACKEND_CUDA; }

  te_rt_status allocate(size_t bytes, void **out) override;
  te_rt_status deallocate(void *ptr) override;
  te_rt_status copy(void *dst, const void *src, size_t bytes,
                    te_rt_memcpy_kind kind) override;
  te_rt_status fillZero(void *dst, size_t bytes) override;
  te_rt_status writeFromHost(void *dst, const void *src, size_t bytes,
                             void *stream) override;
  te_rt_status synchronize(void *stream) override;

  te_rt_status quantize(const Tensor &x, QTensor &q,
                        const QuantizeOptions &options) override;
  /// quantize with options.producer set.
  te_rt_status quantizeProduced(const Tensor &x, QTensor &q,
                                const QuantizeOptions &options);
  te_rt_status dequantize(const QTensor &q, format::Usage from, Tensor &out,
                          void *stream) override;
  te_rt_status amax(const Tensor &x, float *amaxOut, void *stream) override;
  te_rt_status updateScale(const format::QuantizerConfig &config,
                           float *amaxHistory, float *scale,
                           int64_t historyLength, int64_t numScales,
                           void *stream) override;
  te_rt_status swizzleScales(QTensor &q, bool toSwizzled,
                             void *stream) override;
  te_rt_status gemm(const QTensor &a, const QTensor &b, Tensor *d,
                    const GemmOptions &options) override;
  /// One strided-batched cuBLASLt call (fp32 compute) for the whole batch.
  te_rt_status matmul(const DenseMatmul &mm) override;
  te_rt_status gemmEmulatedOperand(const QTensor &q, format::Usage reads,
                                   void *out, void *stream) override;
  /// Clamped to 16; 0 (off) by default (Gemm.cpp).
  void setGemmAutotune(int candidates) override;
  /// Flash attention (attention/README.md): bf16 / f16, head dim 64 or 128.
  te_rt_status attention(const Attention &a) override;
  te_rt_status attentionGrad(const AttentionGrad &a) override;
  /// Whether the quantize, amax and dequantize calls may use the bandwidth
  /// kernels (FastKernels.h).
  void setFastKernels(bool enabled) override { fastKernels = enabled; }

  /// The path the last gemm() took (emulated on sm_90 for MXFP8 / NVFP4).
  CudaGemmPath lastGemmPath() const { return lastPath; }
  bool lastGemmEmulated() const {
    return lastPath == CudaGemmPath::EmulatedBF16 ||
           lastPath == CudaGemmPath::EmulatedF32;
  }
  int computeCapabilityMajor() const { return ccMajor; }

  /// One cuBLASLt matmul in column-major terms (Gemm.cpp).
  struct Matmul {
    cudaDataType_t aType, bType, cType, dType;
    cublasOperation_t opA, opB;
    int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
    const void *A = nullptr, *B = nullptr;
    void *C = nullptr, *D = nullptr;
    const void *aScale = nullptr, *bScale = nullptr;
    int aScaleMode = -1, bScaleMode = -1; ///< -1: leave the default
    const void *dScale = nullptr;
    void *amaxD = nullptr;
    bool fastAccum = false;
    const void *bias = nullptr;
    cudaDataType_t biasType = CUDA_R_32F;
    const float *alphaBeta = nullptr; ///< device [alpha, beta]
    /// CUBLASLT_POINTER_MODE_HOST with these values instead of alphaBeta.
    bool hostScalars = false;
    float alpha = 1.0f, beta = 0.0f;
    /// D may be written several times (no accumulation into D): allows
    /// timing the heuristic's candidates on the real operands.
    bool mayAutotune = false;
    /// Strided batch: `batch` products, each operand's consecutive matrices
    /// these many elements apart (CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT and
    /// _STRIDED_BATCH_OFFSET; D shares C's). Below 2^31 products per call.
    int64_t batch = 1;
    int64_t strideA = 0, strideB = 0, strideC = 0;
  };
  /// Runs `mm`; *biasApplied tells whether the bias epilogue was used (if
  /// not, the caller adds the bias). `info` (optional) receives the
  /// algorithm and pointer mode.
  te_rt_status runMatmul(const Matmul &mm, void *workspace,
                         size_t workspaceBytes, cudaStream_t stream,
                         bool *biasApplied, te_rt_gemm_info *info = nullptr);

private:
  CudaBackend() = default;

  // te_rt_gemm (Gemm.cpp): the path, then its executor, which sets the
  // operands of the one cuBLASLt call (runMatmul) and, for NVFP4, the
  // global scales that enter alpha.
  struct GemmGlobalScales {
    const float *amaxA = nullptr, *amaxB = nullptr;
    /// The E4M3 maxima of the scale encodings (kE4M3Max unless 4over6).
    float e4A = 448.0f, e4B = 448.0f;
  };
  CudaGemmPath chooseGemmPath(const QTensor &a, const QTensor &b,
                              const GemmOptions &o) const;
  /// Per-tensor FP8 (scalar or per-row scales) and Float8Block.
  void nativeFP8Operands(const QTensor &a, const QTensor &b,
                         const GemmOptions &o, Matmul &mm) const;
  /// MXFP8 / NVFP4 with cuBLASLt's block scale modes (sm_100).
  void nativeBlockScaledOperands(const QTensor &a, const QTensor &b,
                                 const GemmOptions &o, Matmul &mm,
                                 GemmGlobalScales &g) const;
  /// MXFP8 / NVFP4 dequantized into the emulation's scratch (bf16, or f32
  /// with emulateF32); *scratchHeld once the scratch is acquired.
  te_rt_status emulatedOperands(const QTensor &a, const QTensor &b,
                                const GemmOptions &o, bool emulateF32,
                                cudaStream_t stream, Matmul &mm,
                                GemmGlobalScales &g, bool *scratchHeld);
  te_rt_status quantizeNVFP4(const Tensor &x, QTensor &q,
                             const QuantizeOptions &o, cudaStream_t stream);
  /// Quantizes gemm()'s fp32 result d [M, N] into o.output.
  te_rt_status quantizeOutput(float *d, int64_t M, int64_t N,
                              const GemmOptions &o);
  /// gemm() with M, N or K = 0 (no cuBLASLt call).
  te_rt_status emptyGemm(Tensor *d, const GemmOptions &o, cudaStream_t stream);
  te_rt_status dequantizeInto(const QTensor &q, format::Usage from, void *out,
                              format::DType outType, bool inverseRHT,
                              bool blockScaleOnly, cudaStream_t stream);
  /// The operand a GEMM emulated in bf16 reads of q's copy `from`: the
  /// block-scaled values (NVFP4 without its global scale) in bf16, written
  /// to `out` when `write`. *storedTransposed: `out` holds the transpose of
  /// the logical operand (the vectorized kernel writes NVFP4's columnwise
  /// copy as stored); it depends only on q and `out`, so a GEMM given an
  /// operand written earlier (GemmOptions::aEmulated) asks with `write`
  /// false.
  te_rt_status bf16EmulationOperand(const QTensor &q, format::Usage from,
                                    void *out, bool write, cudaStream_t stream,
                                    bool *storedTransposed);

  int device = 0;
  int ccMajor = 0, ccMinor = 0;
  /// Whether allocate() uses the device's default memory pool
  /// (cudaMallocAsync); false where the device has no memory pools.
  bool memoryPools = false;
  cublasLtHandle_t lt = nullptr;
  void *workspace = nullptr;
  size_t workspaceBytes = 0;
  CudaGemmPath lastPath = CudaGemmPath::None;

  struct CachedAlgo {
    cublasLtMatmulAlgo_t algo;
    bool withBias;
    bool autotuned;
  };
  std::mutex cacheMutex;
  std::unordered_map<std::string, CachedAlgo> algoCache;
  int autotuneK = 0; ///< te_rt_context_set_gemm_autotune's value
  std::atomic<bool> fastKernels{true};

  /// The GEMM emulation's scratch (dequantized operands, device alpha/beta),
  /// grown on demand and reused across calls instead of stream-ordered
  /// allocations. emuMutex is held from the first write into it until
  /// emuDone is recorded after the last read; a GEMM on another stream
  /// waits for emuDone first (Gemm.cpp).
  std::mutex emuMutex;
  void *emuScratch = nullptr;
  size_t emuScratchBytes = 0;
  cudaEvent_t emuDone = nullptr;
  bool emuDoneRecorded = false;
  te_rt_status acquireEmuScratch(size_t bytes, cudaStream_t stream);
  void releaseEmuScratch();
};

namespace cuda {
struct VectorDequantArgs;
}
/// Fills `a` for the vectorized dequantization (Dequantize.h) of the
/// stored representation `from` of an MXFP8 / NVFP4 tensor (an NVFP4
/// columnwise copy is stored [K, M]: a.R = q.k, a.C = q.m). Returns false
/// for other recipes or when the kernel does not apply.
bool makeVectorDequantArgs(const QTensor &q, format::Usage from, void *out,
                           format::DType outType, bool blockScaleOnly,
                           cuda::VectorDequantArgs &a);

/// "cudaErrorX (message)" for a CUDA status.
std::string cudaErrorText(cudaError_t e);
/// "CUBLAS_STATUS_X" for a cuBLAS status.
std::string cublasStatusText(cublasStatus_t s);

} // namespace te::rt

#endif // TE_RT_CUDA_CUDABACKEND_H
