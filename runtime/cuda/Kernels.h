//===- Kernels.h - Launchers of the cuda backend's kernels ------*- C++ -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Host-callable launchers of the kernels in Kernels.cu. Every pointer is a
// device pointer; every launcher enqueues on `stream` and returns the launch
// status (cudaGetLastError). The kernels call the Format library's
// __host__ __device__ scalar and block functions (include/te/Format/), so the
// bits they write are the cpu backend's (runtime/lib/cpu/CpuBackend.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_KERNELS_H
#define TE_RT_CUDA_KERNELS_H

#include "te/Format/Types.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace te::rt::cuda {

using format::DType;

/// out[i] = float(x[i]) for an F32/BF16/F16 tensor of n elements.
cudaError_t launchToFloat(const void *x, DType dtype, int64_t n, float *out,
                          cudaStream_t stream);
/// out[i] = x[i] narrowed (RNE) to F32/BF16/F16 `outType`.
cudaError_t launchFromFloat(const float *x, int64_t n, void *out, DType outType,
                            cudaStream_t stream);

/// *amax = max |x| (NaN ignored) over n elements; *amax is zeroed first.
cudaError_t launchAmax(const void *x, DType dtype, int64_t n, float *amax,
                       cudaStream_t stream);
/// out[r] = max |x[r, :]| for a row-major fp32 [R, C] matrix.
cudaError_t launchRowAmax(const float *x, int64_t R, int64_t C, float *out,
                          cudaStream_t stream);

/// Current scaling: a = amaxIn ? *amaxIn : *amax; *scale =
/// computeScaleFromAmax(a, ..., FLT_MAX); *scaleInv = 1 / *scale;
/// *amaxOut = a if amaxOut is not null.
cudaError_t launchCurrentScale(const float *amax, const float *amaxIn,
                               DType fp8, bool pow2, float eps, float *scale,
                               float *scaleInv, float *amaxOut,
                               cudaStream_t stream);

/// Per-tensor FP8 fused cast + transpose of x [M, K] with *scale: `data`
/// [M, K] and/or `transposed` [K, M] (either may be null). If `scaleInv` is
/// set, block 0 writes 1 / *scale there; if `amaxOut` is set, the kernel
/// atomically max-accumulates max |x| into it (zero it first).
cudaError_t launchPerTensorCast(const void *x, DType inType, int64_t M,
                                int64_t K, const float *scale, DType fp8,
                                uint8_t *data, uint8_t *transposed,
                                float *scaleInv, float *amaxOut,
                                cudaStream_t stream);

/// Float8Block quantization (1x128 / 128x128), both representations in one
/// read of x [M, K]. Buffers may be null when the usage lacks them; scale
/// strides are the layout's row lengths.
struct BlockArgs {
  DType fp8 = DType::E4M3;
  DType inType = DType::F32;
  int blockDim = 1;
  bool pow2 = false;
  float eps = 0.0f;
  uint8_t *rowData = nullptr;
  float *rowScale = nullptr;
  int64_t rowScaleStride = 0;
  uint8_t *colData = nullptr;
  float *colScale = nullptr;
  int64_t colScaleStride = 0;
};
cudaError_t launchBlockQuantize(const void *x, int64_t M, int64_t K,
                                const BlockArgs &args, cudaStream_t stream);

/// MXFP8 quantization (1x32 / 32x1, or 32x32), compact scales.
struct MXFP8Args {
  DType fp8 = DType::E4M3;
  DType inType = DType::F32;
  bool twoD = false;
  format::E8M0Rounding rounding = format::E8M0Rounding::Up;
  uint8_t *rowData = nullptr;
  uint8_t *rowScale = nullptr;
  int64_t rowScaleStride = 0;
  uint8_t *colData = nullptr;
  uint8_t *colScale = nullptr;
  int64_t colScaleStride = 0;
};
cudaError_t launchMXFP8Quantize(const void *x, int64_t M, int64_t K,
                                const MXFP8Args &args, cudaStream_t stream);

/// xt [K, M] = transpose of the fp32 x [M, K], with TE's RHT applied to each
/// 16-element chunk of xt's rows (bf16-rounded) if `rht`. M % 16 == 0.
cudaError_t launchNVFP4Transpose(const float *x, int64_t M, int64_t K, bool rht,
                                 uint32_t signMask, float *xt,
                                 cudaStream_t stream);

/// NVFP4 quantization of the rows of a row-major fp32 [R, C] matrix (the
/// 1x16 groups run along the rows), as the cpu backend's nvfp4Quantize.
struct NVFP4Args {
  const float *src = nullptr;
  int64_t R = 0, C = 0;
  const float *rowAmax = nullptr; ///< per row (row-scaled) or null
  const float *amax = nullptr;    ///< tensor amax (device scalar) otherwise
  uint8_t *data = nullptr;        ///< [R, C/2]
  uint8_t *scales = nullptr;      ///< compact
  int64_t scaleStride = 0;
  uint64_t seed = 0, offset = 0;
  bool twoD = false, stochasticRounding = false, use4over6 = false;
  float e4m3Max = 448.0f;
  format::ErrMode errMode = format::ErrMode::MAE;
};
cudaError_t launchNVFP4Quantize(const NVFP4Args &args, cudaStream_t stream);

/// Dequantization of one representation into a row-major [M, K] tensor of
/// `outType` (F32/BF16/F16), as the cpu backend's dequantizeToFloat.
struct DequantArgs {
  format::Recipe recipe = format::Recipe::Current;
  DType fp8 = DType::E4M3;
  int64_t M = 0, K = 0;
  bool columnwise = false;
  /// Per-tensor: the data is `_transpose` [K, M] (else [M, K]).
  bool transposedData = false;
  const uint8_t *data = nullptr;
  const void *scale = nullptr; ///< scale_inv buffer
  int64_t scaleRows = 0, scaleCols = 0;
  bool swizzled = false;
  int blockDim = 1;
  /// NVFP4.
  const float *amax = nullptr;
  bool rowScaled = false;
  float e4m3Max = 448.0f;
  bool inverseRHT = false;
  uint32_t signMask = 0;
  /// NVFP4: multiply by the block scale only (E2M1 * E4M3, exact in bf16),
  /// leaving the global factor amax / (6 * e4m3Max) to the caller.
  bool blockScaleOnly = false;
  void *out = nullptr;
  DType outType = DType::F32;
};
cudaError_t launchDequantize(const DequantArgs &args, cudaStream_t stream);

/// Swizzles (toSwizzled) or unswizzles the [R, C] scale matrix `in` into
/// `out` (distinct). `transposed`: the matrix is stored transposed (MXFP8
/// columnwise), so entry (r, c) is swizzled as (c, r) of a [C, R] matrix.
cudaError_t launchSwizzle(const uint8_t *in, uint8_t *out, int64_t R, int64_t C,
                          bool transposed, bool toSwizzled,
                          cudaStream_t stream);

/// Delayed-scaling update of `n` quantizers; `scratch` holds n * L floats.
cudaError_t launchUpdateScale(float *history, float *scale, int64_t L,
                              int64_t n, float *scratch, format::AmaxAlgo algo,
                              int margin, float fp8MaxValue,
                              cudaStream_t stream);

/// d[m, n] += bias[n] for a row-major [M, N] F32/BF16/F16 d.
cudaError_t launchAddBias(void *d, DType dType, const void *bias,
                          DType biasType, int64_t M, int64_t N,
                          cudaStream_t stream);

/// alphaBeta[0] = alpha * fa * fb, alphaBeta[1] = beta, where fx = 1 or, for
/// an NVFP4 operand whose global amax is at *amaxX, amaxX / (6 * e4m3MaxX).
cudaError_t launchGemmScalars(float alpha, float beta, const float *amaxA,
                              float e4m3MaxA, const float *amaxB,
                              float e4m3MaxB, float *alphaBeta,
                              cudaStream_t stream);

/// Bandwidth kernels (FastQuantize.cu) for tensors whose 2-D view tiles
/// exactly: per-tensor FP8 and MXFP8 need M % 32 == 0 and K % 64 == 0,
/// Float8Block M % 128 == 0 and K % 128 == 0; x F32/BF16/F16 and 16-byte
/// aligned, the data buffers 8-byte aligned (the per-tensor transpose
/// 16-byte; null allowed). The launch*
/// functions above dispatch to them by themselves; the predicates tell the
/// backend that every byte of the data buffers will be written (no zeroing
/// needed).
bool amaxFastPath(const void *x, DType t);
bool perTensorFastPath(const void *x, DType t, int64_t M, int64_t K,
                       const void *data, const void *tr);
bool mxfp8FastPath(const void *x, DType t, int64_t M, int64_t K,
                   const void *rowData, const void *colData);
bool blockFastPath(const void *x, DType t, int64_t M, int64_t K,
                   const void *rowData, const void *colData);
cudaError_t launchAmaxFast(const void *x, DType dtype, int64_t n, float *amax,
                           cudaStream_t stream);
cudaError_t launchPerTensorCastFast(const void *x, DType inType, int64_t M,
                                    int64_t K, const float *scale, DType fp8,
                                    uint8_t *data, uint8_t *transposed,
                                    float *scaleInv, float *amaxOut,
                                    cudaStream_t stream);
/// Current scaling's cast on the fast path: the scale is
/// computeScaleFromAmax(*amax) (FLT_MAX for an infinite scale), computed by
/// every block; then one thread writes *scaleInv = 1 / scale and, if set,
/// *amaxOut = *amax. `amax` may alias `scaleInv` (the amax pass accumulates
/// into the scale_inv buffer, which needs no scratch allocation).
cudaError_t launchCurrentCastFast(const void *x, DType inType, int64_t M,
                                  int64_t K, const float *amax, DType fp8,
                                  bool pow2, float eps, uint8_t *data,
                                  uint8_t *transposed, float *scaleInv,
                                  float *amaxOut, cudaStream_t stream);
/// Current scaling without amax_in, whole: the amax of x, then the cast
/// with scale = computeScaleFromAmax(amax), *scaleInv = 1 / scale,
/// *amaxOut = amax (if set). One cooperative launch (amax pass, grid
/// barrier, cast pass walking backwards; scaleInv is zeroed first and used as
/// the accumulator); where a cooperative launch is not possible, the amax
/// kernel + launchCurrentCastFast.
/// Same conditions as launchCurrentCastFast (perTensorFastPath).
cudaError_t launchCurrentQuantizeFast(const void *x, DType inType, int64_t M,
                                      int64_t K, DType fp8, bool pow2,
                                      float eps, uint8_t *data,
                                      uint8_t *transposed, float *scaleInv,
                                      float *amaxOut, cudaStream_t stream);
cudaError_t launchMXFP8QuantizeFast(const void *x, int64_t M, int64_t K,
                                    const MXFP8Args &args, cudaStream_t stream);
cudaError_t launchBlockQuantizeFast(const void *x, int64_t M, int64_t K,
                                    const BlockArgs &args, cudaStream_t stream);

/// cudaSuccess if this build's kernels can run on the current device (an
/// image for its architecture is embedded), else the loader's error.
cudaError_t probeKernels();

/// *scaleInv = 1 / *scale (the scale_inv of an FP8 GEMM output).
cudaError_t launchReciprocal(const float *scale, float *scaleInv,
                             cudaStream_t stream);

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_KERNELS_H
