//===- QuantizePerTensor.h - Per-tensor FP8 quantization --------*- C++ -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Launchers of QuantizePerTensor.cu: delayed and current scaling's cast of x
// [M, K] into `_data` [M, K] and `_transpose` [K, M]. Every pointer is a
// device pointer; every launcher enqueues on `stream` and returns the launch
// status (cudaGetLastError).
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_QUANTIZEPERTENSOR_H
#define TE_RT_CUDA_QUANTIZEPERTENSOR_H

#include "te/Format/Types.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace te::rt::cuda {

/// cudaSuccess if this build's kernels can run on the current device (an
/// image for its architecture is embedded), else the loader's error. Asks
/// for the general per-tensor kernel: every file of the backend is compiled
/// for the same architectures.
cudaError_t probeKernels();

/// True if the tile kernels take x [M, K]: M % 32 == 0, K % 64 == 0, x
/// F32/BF16/F16 and 16-byte aligned, `data` 8-byte and `tr` 16-byte aligned
/// (null allowed), the bandwidth kernels not turned off (FastKernels.h).
/// launchPerTensorCast dispatches to them by itself; the predicate tells the
/// backend that every byte of the data buffers will be written (no zeroing
/// needed).
bool perTensorFastPath(const void *x, format::DType t, int64_t M, int64_t K,
                       const void *data, const void *tr);

/// Per-tensor FP8 fused cast + transpose of x [M, K] with *scale: `data`
/// [M, K] and/or `transposed` [K, M] (either may be null). If `scaleInv` is
/// set, block 0 writes 1 / *scale there; if `amaxOut` is set, the kernel
/// atomically max-accumulates max |x| into it (zero it first).
cudaError_t launchPerTensorCast(const void *x, format::DType inType, int64_t M,
                                int64_t K, const float *scale,
                                format::DType fp8, uint8_t *data,
                                uint8_t *transposed, float *scaleInv,
                                float *amaxOut, cudaStream_t stream);

/// Current scaling's cast on the tile kernels (perTensorFastPath): the scale
/// is computeScaleFromAmax(*amax) (FLT_MAX for an infinite scale), computed
/// by every block; then one thread writes *scaleInv = 1 / scale and, if set,
/// *amaxOut = *amax. `amax` may alias `scaleInv` (the amax pass accumulates
/// into the scale_inv buffer, which needs no scratch allocation).
cudaError_t launchCurrentCastFast(const void *x, format::DType inType,
                                  int64_t M, int64_t K, const float *amax,
                                  format::DType fp8, bool pow2, float eps,
                                  uint8_t *data, uint8_t *transposed,
                                  float *scaleInv, float *amaxOut,
                                  cudaStream_t stream);
/// Current scaling without amax_in, whole: the amax of x, then the cast
/// with scale = computeScaleFromAmax(amax), *scaleInv = 1 / scale,
/// *amaxOut = amax (if set). One cooperative launch (amax pass, grid
/// barrier, cast pass walking backwards; scaleInv is zeroed first and used as
/// the accumulator); where a cooperative launch is not possible, the amax
/// kernel + launchCurrentCastFast.
/// Same conditions as launchCurrentCastFast (perTensorFastPath).
cudaError_t launchCurrentQuantizeFast(const void *x, format::DType inType,
                                      int64_t M, int64_t K, format::DType fp8,
                                      bool pow2, float eps, uint8_t *data,
                                      uint8_t *transposed, float *scaleInv,
                                      float *amaxOut, cudaStream_t stream);

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_QUANTIZEPERTENSOR_H
