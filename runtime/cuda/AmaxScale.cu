//===- AmaxScale.cu - Amaxes and scales ------------------------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// The amax and scale kernels of AmaxScale.h:
// * amaxKernel (any F32/BF16/F16 x): a grid-stride walk, a block reduction,
//   one atomicMax on the float bits per block; rowAmaxKernel: one block per
//   row of an fp32 matrix (NVFP4's row-scaled amaxes);
// * amaxFastKernel (16-byte aligned F32/BF16/F16 x): 16-byte loads, 4 in
//   flight per thread, one wave of blocks;
// * nvfp4AmaxRHTKernel: NVFP4's first pass with the RHT, max |x| and the
//   post-RHT max |RHT(x^T)| (rht16Amax, QuantizeNVFP4.h) in one read;
// * currentScaleKernel, reciprocalKernel, updateScaleKernel (one thread per
//   quantizer): Format's computeScaleFromAmax / reciprocalRN /
//   delayedScalingUpdate (ScaleRules.h).
// Amaxes ignore NaNs (maxNum), as Format's blockAmax.
//
//===----------------------------------------------------------------------===//

#include "AmaxScale.h"

#include "Codecs.cuh"
#include "KernelCommon.cuh"
#include "QuantizeNVFP4.h"

#include "te/Format/Codecs.h"
#include "te/Format/ScaleRules.h"

#include <algorithm>

using namespace te::format;

namespace te::rt::cuda {
namespace {

//===----------------------------------------------------------------------===//
// General amaxes, scales, delayed-scaling update
//===----------------------------------------------------------------------===//

__global__ void amaxKernel(const void *x, DType t, int64_t n, float *amax) {
  float m = 0.0f;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    m = fmaxNum(m, absf(loadAsFloat(x, t, i)));
  m = blockReduceMax(m);
  if (threadIdx.x == 0)
    atomicMaxNonNegative(amax, m);
}

__global__ void rowAmaxKernel(const float *x, int64_t R, int64_t C,
                              float *out) {
  for (int64_t r = blockIdx.x; r < R; r += gridDim.x) {
    float m = 0.0f;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x)
      m = fmaxNum(m, absf(x[r * C + c]));
    m = blockReduceMax(m);
    if (threadIdx.x == 0)
      out[r] = m;
  }
}

__global__ void currentScaleKernel(const float *amax, const float *amaxIn,
                                   float fp8MaxValue, bool pow2, float eps,
                                   float *scale, float *scaleInv,
                                   float *amaxOut) {
  float a = amaxIn ? *amaxIn : *amax;
  float s = computeScaleFromAmax(a, fp8MaxValue, pow2, eps, kFloatMax);
  *scale = s;
  *scaleInv = reciprocalRN(s);
  if (amaxOut)
    *amaxOut = a;
}

__global__ void reciprocalKernel(const float *scale, float *scaleInv) {
  *scaleInv = reciprocalRN(*scale);
}

__global__ void updateScaleKernel(float *history, float *scale, int64_t L,
                                  int64_t n, float *scratch, AmaxAlgo algo,
                                  int margin, float fp8MaxValue) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    float *column = scratch + i * L;
    for (int64_t l = 0; l < L; ++l)
      column[l] = history[l * n + i];
    delayedScalingUpdate(column, static_cast<int>(L), &scale[i], nullptr, algo,
                         margin, fp8MaxValue);
    for (int64_t l = 0; l < L; ++l)
      history[l * n + i] = column[l];
  }
}

//===----------------------------------------------------------------------===//
// Vectorized tensor amax
//===----------------------------------------------------------------------===//

template <InKind T>
__global__ void __launch_bounds__(kFastThreads)
    amaxFastKernel(const Storage<T> *x, int64_t n, float *amax) {
  float m = amaxPartial<T>(x, n);
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    m = shflMax(m, off);
  __shared__ float warpMax[kFastThreads / 32];
  if ((threadIdx.x & 31) == 0)
    warpMax[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    float r = 0.0f;
    for (int w = 0; w < kFastThreads / 32; ++w)
      r = maxNum(r, warpMax[w]);
    atomicMaxNonNegative(amax, r);
  }
}

template <InKind T> struct AmaxLaunch {
  static cudaError_t run(const void *x, int64_t n, float *amax,
                         cudaStream_t stream) {
    static int perSM = 0;
    unsigned grid = warpGrid(amaxFastKernel<T>, &perSM, n / 8 / 32 + 1);
    amaxFastKernel<T><<<grid, kFastThreads, 0, stream>>>(
        static_cast<const Storage<T> *>(x), n, amax);
    return cudaGetLastError();
  }
};

/// True if amaxFastKernel takes x: F32/BF16/F16, 16-byte aligned.
bool amaxFastPath(const void *x, DType t) {
  return vectorInput(t) && aligned(x, 16);
}

//===----------------------------------------------------------------------===//
// NVFP4: amax and post-RHT amax in one read
//===----------------------------------------------------------------------===//

constexpr int kG = kNVFP4BlockSize; // 16

/// amax[0] = max |x|, amax[1] = max |rht16(column chunk)| over x [M, K]:
/// each task is 16 rows x 8 bytes of columns (16 loads in flight), a
/// grid-stride loop, warp shuffles and one atomicMax per warp and value
/// (non-negative floats order as their bits).
template <InKind T>
__global__ void __launch_bounds__(kThreads)
    nvfp4AmaxRHTKernel(const Storage<T> *x, int64_t M, int64_t K,
                       uint32_t signMask, float *amax) {
  using S = Storage<T>;
  constexpr int kCols = 8 / sizeof(S);
  const int64_t colTasks = K / kCols, tasks = (M / kG) * colTasks;
  float m = 0.0f, mt = 0.0f;
  for (int64_t task = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       task < tasks; task += int64_t(gridDim.x) * blockDim.x) {
    const int64_t rb = task / colTasks, cb = task % colTasks;
    uint2 raw[kG];
#pragma unroll
    for (int i = 0; i < kG; ++i)
      raw[i] = __ldcs(
          reinterpret_cast<const uint2 *>(x + (rb * kG + i) * K + cb * kCols));
    float cols[kG][kCols];
#pragma unroll
    for (int i = 0; i < kG; ++i)
      unpack8<T>(raw[i], cols[i]);
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      float v[kG];
#pragma unroll
      for (int i = 0; i < kG; ++i) {
        v[i] = cols[i][c];
        m = fmaxf(m, absBits(v[i]));
      }
      mt = fmaxf(mt, rht16Amax(v, signMask, sigBits<T>()));
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o /= 2) {
    m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
    mt = fmaxf(mt, __shfl_xor_sync(0xFFFFFFFFu, mt, o));
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(reinterpret_cast<unsigned int *>(amax), __float_as_uint(m));
    atomicMax(reinterpret_cast<unsigned int *>(amax + 1), __float_as_uint(mt));
  }
}

int residentBlocks(const void *kernel) {
  int dev = 0, sms = 132, perSM = 1;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) !=
          cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, kernel, kThreads,
                                                    0) != cudaSuccess ||
      perSM < 1) {
    cudaGetLastError();
    return 132;
  }
  return sms * perSM;
}

template <InKind T>
cudaError_t launchAmaxRHT(const void *x, int64_t M, int64_t K,
                          uint32_t signMask, float *amax, cudaStream_t stream) {
  static int resident = 0;
  if (resident == 0)
    resident =
        residentBlocks(reinterpret_cast<const void *>(&nvfp4AmaxRHTKernel<T>));
  const int64_t tasks = (M / kG) * (K / (8 / sizeof(Storage<T>)));
  const int64_t blocks = std::max<int64_t>(
      1, std::min<int64_t>(resident, (tasks + kThreads - 1) / kThreads));
  nvfp4AmaxRHTKernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<const Storage<T> *>(x), M, K, signMask, amax);
  return cudaGetLastError();
}

} // namespace

cudaError_t launchAmaxFast(const void *x, DType dtype, int64_t n, float *amax,
                           cudaStream_t stream) {
  return dispatchIn<AmaxLaunch>(dtype, x, n, amax, stream);
}

cudaError_t launchAmax(const void *x, DType dtype, int64_t n, float *amax,
                       cudaStream_t stream) {
  cudaError_t e = cudaMemsetAsync(amax, 0, sizeof(float), stream);
  if (e != cudaSuccess)
    return e;
  if (n > 0 && amaxFastPath(x, dtype))
    return launchAmaxFast(x, dtype, n, amax, stream);
  if (n > 0)
    amaxKernel<<<std::min<unsigned>(gridFor(n), 4096), kThreads, 0, stream>>>(
        x, dtype, n, amax);
  return cudaGetLastError();
}

cudaError_t launchRowAmax(const float *x, int64_t R, int64_t C, float *out,
                          cudaStream_t stream) {
  if (R > 0)
    rowAmaxKernel<<<static_cast<unsigned>(std::min<int64_t>(R, 1 << 20)),
                    kThreads, 0, stream>>>(x, R, C, out);
  return cudaGetLastError();
}

cudaError_t launchCurrentScale(const float *amax, const float *amaxIn,
                               DType fp8, bool pow2, float eps, float *scale,
                               float *scaleInv, float *amaxOut,
                               cudaStream_t stream) {
  currentScaleKernel<<<1, 1, 0, stream>>>(amax, amaxIn, fp8Max(fp8), pow2, eps,
                                          scale, scaleInv, amaxOut);
  return cudaGetLastError();
}

cudaError_t launchReciprocal(const float *scale, float *scaleInv,
                             cudaStream_t stream) {
  reciprocalKernel<<<1, 1, 0, stream>>>(scale, scaleInv);
  return cudaGetLastError();
}

cudaError_t launchNVFP4AmaxRHT(const void *x, DType t, int64_t M, int64_t K,
                               uint32_t signMask, float *amax,
                               cudaStream_t stream) {
  cudaError_t e = cudaMemsetAsync(amax, 0, 2 * sizeof(float), stream);
  if (e != cudaSuccess || M * K == 0)
    return e;
  switch (t) {
  case DType::BF16:
    return launchAmaxRHT<InKind::BF16>(x, M, K, signMask, amax, stream);
  case DType::F16:
    return launchAmaxRHT<InKind::F16>(x, M, K, signMask, amax, stream);
  default:
    return launchAmaxRHT<InKind::F32>(x, M, K, signMask, amax, stream);
  }
}

cudaError_t launchUpdateScale(float *history, float *scale, int64_t L,
                              int64_t n, float *scratch, AmaxAlgo algo,
                              int margin, float fp8MaxValue,
                              cudaStream_t stream) {
  if (n > 0)
    updateScaleKernel<<<gridFor(n, 128), 128, 0, stream>>>(
        history, scale, L, n, scratch, algo, margin, fp8MaxValue);
  return cudaGetLastError();
}

} // namespace te::rt::cuda
