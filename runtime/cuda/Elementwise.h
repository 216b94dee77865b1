//===- Elementwise.h - Conversions, bias, GEMM scalars ----------*- C++ -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Launchers of Elementwise.cu: F32/BF16/F16 <-> fp32 conversions, the bias
// add and the alpha/beta scalars of the GEMM path. Every pointer is a device
// pointer; every launcher enqueues on `stream` and returns the launch status
// (cudaGetLastError).
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_ELEMENTWISE_H
#define TE_RT_CUDA_ELEMENTWISE_H

#include "te/Format/Types.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace te::rt::cuda {

/// out[i] = float(x[i]) for an F32/BF16/F16 tensor of n elements.
cudaError_t launchToFloat(const void *x, format::DType dtype, int64_t n,
                          float *out, cudaStream_t stream);
/// out[i] = x[i] narrowed (RNE) to F32/BF16/F16 `outType`.
cudaError_t launchFromFloat(const float *x, int64_t n, void *out,
                            format::DType outType, cudaStream_t stream);

/// d[m, n] += bias[n] for a row-major [M, N] F32/BF16/F16 d.
cudaError_t launchAddBias(void *d, format::DType dType, const void *bias,
                          format::DType biasType, int64_t M, int64_t N,
                          cudaStream_t stream);

/// alphaBeta[0] = alpha * fa * fb, alphaBeta[1] = beta, where fx = 1 or, for
/// an NVFP4 operand whose global amax is at *amaxX, amaxX / (6 * e4m3MaxX).
cudaError_t launchGemmScalars(float alpha, float beta, const float *amaxA,
                              float e4m3MaxA, const float *amaxB,
                              float e4m3MaxB, float *alphaBeta,
                              cudaStream_t stream);

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_ELEMENTWISE_H
