//===- Elementwise.cu - Conversions, bias, GEMM scalars --------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// The elementwise kernels of Elementwise.h, grid-stride loops: toFloatKernel
// and fromFloatKernel (F32/BF16/F16 <-> fp32; Format's RNE narrowing),
// addBiasKernel (a GEMM's bias where cuBLASLt's epilogue does not add it),
// and gemmScalarsKernel (one thread: a GEMM's device alpha/beta with the
// NVFP4 global scales folded into alpha).
//
//===----------------------------------------------------------------------===//

#include "Elementwise.h"

#include "Codecs.cuh"
#include "KernelCommon.cuh"

#include "te/Format/Codecs.h"

using namespace te::format;

namespace te::rt::cuda {
namespace {

__global__ void toFloatKernel(const void *x, DType t, int64_t n, float *out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    out[i] = loadAsFloat(x, t, i);
}

__global__ void fromFloatKernel(const float *x, int64_t n, void *out, DType t) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    storeFromFloat(out, t, i, x[i]);
}

__global__ void gemmScalarsKernel(float alpha, float beta, const float *amaxA,
                                  float e4m3MaxA, const float *amaxB,
                                  float e4m3MaxB, float *alphaBeta) {
  float a = alpha;
  if (amaxA)
    a = a * (*amaxA * (1.0f / (kE2M1Max * e4m3MaxA)));
  if (amaxB)
    a = a * (*amaxB * (1.0f / (kE2M1Max * e4m3MaxB)));
  alphaBeta[0] = a;
  alphaBeta[1] = beta;
}

__global__ void addBiasKernel(void *d, DType dType, const void *bias,
                              DType biasType, int64_t M, int64_t N) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < M * N;
       i += int64_t(gridDim.x) * blockDim.x) {
    float v = loadAsFloat(d, dType, i) + loadAsFloat(bias, biasType, i % N);
    storeFromFloat(d, dType, i, v);
  }
}

} // namespace

cudaError_t launchToFloat(const void *x, DType dtype, int64_t n, float *out,
                          cudaStream_t stream) {
  if (n > 0)
    toFloatKernel<<<gridFor(n), kThreads, 0, stream>>>(x, dtype, n, out);
  return cudaGetLastError();
}

cudaError_t launchFromFloat(const float *x, int64_t n, void *out, DType outType,
                            cudaStream_t stream) {
  if (n > 0)
    fromFloatKernel<<<gridFor(n), kThreads, 0, stream>>>(x, n, out, outType);
  return cudaGetLastError();
}

cudaError_t launchGemmScalars(float alpha, float beta, const float *amaxA,
                              float e4m3MaxA, const float *amaxB,
                              float e4m3MaxB, float *alphaBeta,
                              cudaStream_t stream) {
  gemmScalarsKernel<<<1, 1, 0, stream>>>(alpha, beta, amaxA, e4m3MaxA, amaxB,
                                         e4m3MaxB, alphaBeta);
  return cudaGetLastError();
}

cudaError_t launchAddBias(void *d, DType dType, const void *bias,
                          DType biasType, int64_t M, int64_t N,
                          cudaStream_t stream) {
  if (M * N > 0)
    addBiasKernel<<<gridFor(M * N), kThreads, 0, stream>>>(d, dType, bias,
                                                           biasType, M, N);
  return cudaGetLastError();
}

} // namespace te::rt::cuda
