//===- AmaxScale.h - Amaxes and scales --------------------------*- C++ -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Launchers of AmaxScale.cu: tensor and row amaxes, the NVFP4 amax with the
// post-RHT amax, current scaling's scale, 1 / scale and the delayed-scaling
// update. Every pointer is a device pointer; every launcher enqueues on
// `stream` and returns the launch status (cudaGetLastError).
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_AMAXSCALE_H
#define TE_RT_CUDA_AMAXSCALE_H

#include "te/Format/Types.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace te::rt::cuda {

/// *amax = max |x| (NaN ignored) over n elements; *amax is zeroed first.
/// F32/BF16/F16 x that is 16-byte aligned takes the vectorized kernel.
cudaError_t launchAmax(const void *x, format::DType dtype, int64_t n,
                       float *amax, cudaStream_t stream);
/// The vectorized amax alone: max-accumulates max |x| into *amax (zero it
/// first). x F32/BF16/F16, 16-byte aligned.
cudaError_t launchAmaxFast(const void *x, format::DType dtype, int64_t n,
                           float *amax, cudaStream_t stream);
/// out[r] = max |x[r, :]| for a row-major fp32 [R, C] matrix.
cudaError_t launchRowAmax(const float *x, int64_t R, int64_t C, float *out,
                          cudaStream_t stream);

/// amax[0] = max |x| and amax[1] = max |RHT(x^T)| (the bf16-rounded
/// transform of every 16-row chunk of every column) in one read of x;
/// both are zeroed first. Same shape conditions as nvfp4FastPath
/// (QuantizeNVFP4.h).
cudaError_t launchNVFP4AmaxRHT(const void *x, format::DType t, int64_t M,
                               int64_t K, uint32_t signMask, float *amax,
                               cudaStream_t stream);

/// Current scaling: a = amaxIn ? *amaxIn : *amax; *scale =
/// computeScaleFromAmax(a, ..., FLT_MAX); *scaleInv = 1 / *scale;
/// *amaxOut = a if amaxOut is not null.
cudaError_t launchCurrentScale(const float *amax, const float *amaxIn,
                               format::DType fp8, bool pow2, float eps,
                               float *scale, float *scaleInv, float *amaxOut,
                               cudaStream_t stream);

/// *scaleInv = 1 / *scale (the scale_inv of an FP8 GEMM output).
cudaError_t launchReciprocal(const float *scale, float *scaleInv,
                             cudaStream_t stream);

/// Delayed-scaling update of `n` quantizers; `scratch` holds n * L floats.
cudaError_t launchUpdateScale(float *history, float *scale, int64_t L,
                              int64_t n, float *scratch, format::AmaxAlgo algo,
                              int margin, float fp8MaxValue,
                              cudaStream_t stream);

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_AMAXSCALE_H
