//===- KernelCommon.cuh - Launch sizes and reductions ----------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Launch configuration and reductions shared by the kernel files:
// * the general kernels: kThreads threads per block, gridFor (the grid of a
//   grid-stride loop), blockReduceMax and atomicMaxNonNegative (a tensor
//   amax: a block reduction, then one atomicMax on the float bits);
// * the vectorized kernels: which inputs they take (vectorInput, aligned),
//   persistent grids of kFastThreads-thread blocks, at most one resident
//   wave (warpGrid, blockGrid, tileGrid), dispatchIn (a launcher templated on
//   InKind, picked by the DType), warp and block maxima (shflMax,
//   blockMax256) and amaxPartial (a thread's part of a tensor amax, 16-byte
//   loads).
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_KERNELCOMMON_CUH
#define TE_RT_CUDA_KERNELCOMMON_CUH

#include "Codecs.cuh"
#include "FastKernels.h"

#include "te/Format/Codecs.h"
#include "te/Format/HostDevice.h"
#include "te/Format/Types.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace te::rt::cuda {

//===----------------------------------------------------------------------===//
// Launch configuration
//===----------------------------------------------------------------------===//

/// Threads per block of the general, NVFP4 and dequantize kernels.
constexpr int kThreads = 256;

/// Grid size for a grid-stride loop over n items.
inline unsigned gridFor(int64_t n, int threads = kThreads) {
  int64_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(
      std::max<int64_t>(1, std::min<int64_t>(blocks, 1 << 20)));
}

/// Threads per block of the tile kernels and of the vectorized amax.
constexpr int kFastThreads = 256;

/// True if p is a multiple of a bytes (null is).
inline bool aligned(const void *p, uintptr_t a) {
  return reinterpret_cast<uintptr_t>(p) % a == 0;
}

/// F32/BF16/F16, and the bandwidth kernels are not switched off for the
/// calling context (te_rt_context_set_fast_kernels, FastKernels.h).
inline bool vectorInput(format::DType t) {
  return fastKernelsEnabled() &&
         (t == format::DType::F32 || t == format::DType::BF16 ||
          t == format::DType::F16);
}

/// The device's multiprocessor count (132 where it cannot be read).
inline int multiprocessors() {
  static int count = 0;
  if (count == 0) {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) ==
            cudaSuccess &&
        n > 0)
      count = n;
    else
      return 132;
  }
  return count;
}

/// Blocks of kFastThreads for `warps` warp tasks of a grid-stride kernel:
/// at most as many as are resident at once (one wave, no tail).
template <typename Kernel>
unsigned warpGrid(Kernel kernel, int *perSM, int64_t warps) {
  if (*perSM == 0) {
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kFastThreads,
                                                      0) != cudaSuccess ||
        n < 1)
      n = 1;
    *perSM = n;
  }
  int64_t blocks = (warps + kFastThreads / 32 - 1) / (kFastThreads / 32);
  return static_cast<unsigned>(std::max<int64_t>(
      1, std::min<int64_t>(blocks, int64_t(multiprocessors()) * *perSM)));
}

/// Blocks of a persistent grid-stride kernel over `tasks` block tasks: at
/// most one resident wave.
template <typename Kernel>
unsigned blockGrid(Kernel kernel, int *perSM, int64_t tasks,
                   size_t dynamicSmem = 0) {
  if (*perSM == 0) {
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &n, kernel, kFastThreads, dynamicSmem) != cudaSuccess ||
        n < 1)
      n = 1;
    *perSM = n;
  }
  return static_cast<unsigned>(std::max<int64_t>(
      1, std::min<int64_t>(tasks, int64_t(multiprocessors()) * *perSM)));
}

/// blockGrid for a kernel with `smem` bytes of dynamic shared memory (its
/// limit raised above 48 KB on first use).
template <typename Kernel>
unsigned tileGrid(Kernel kernel, int *perSM, int64_t tasks, size_t smem) {
  if (*perSM == 0 && smem > 48 * 1024)
    (void)cudaFuncSetAttribute(kernel,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(smem));
  return blockGrid(kernel, perSM, tasks, smem);
}

/// F<T>::run(args...) with the InKind of t (F32 for every other type).
template <template <InKind> class F, typename... Args>
cudaError_t dispatchIn(format::DType t, Args &&...args) {
  switch (t) {
  case format::DType::BF16:
    return F<InKind::BF16>::run(args...);
  case format::DType::F16:
    return F<InKind::F16>::run(args...);
  default:
    return F<InKind::F32>::run(args...);
  }
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// min(a, b) (the general kernels' partial tiles).
__device__ __forceinline__ int64_t minI64(int64_t a, int64_t b) {
  return a < b ? a : b;
}

/// Max-accumulates a non-negative, non-NaN float: the bits of such floats
/// order as unsigned integers.
__device__ __forceinline__ void atomicMaxNonNegative(float *addr, float v) {
  atomicMax(reinterpret_cast<unsigned int *>(addr), __float_as_uint(v));
}

/// Block-wide maxNum of non-negative values; the result is valid in thread 0.
__device__ inline float blockReduceMax(float v) {
  __shared__ float warpMax[32];
  for (int off = 16; off > 0; off /= 2)
    v = format::fmaxNum(v, __shfl_down_sync(0xFFFFFFFFu, v, off));
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0)
    warpMax[warp] = v;
  __syncthreads();
  float r = 0.0f;
  if (warp == 0) {
    int nWarps = (blockDim.x + 31) / 32;
    r = lane < nWarps ? warpMax[lane] : 0.0f;
    for (int off = 16; off > 0; off /= 2)
      r = format::fmaxNum(r, __shfl_down_sync(0xFFFFFFFFu, r, off));
  }
  __syncthreads();
  return r;
}

__device__ __forceinline__ float shflMax(float v, int mask) {
  return maxNum(v, __shfl_xor_sync(0xFFFFFFFFu, v, mask));
}

/// Maximum of v over a 256-thread block, in every thread; `red` is 8 floats
/// of shared memory.
__device__ __forceinline__ float blockMax256(float v, float *red) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    v = shflMax(v, off);
  __syncthreads();
  if ((threadIdx.x & 31) == 0)
    red[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = red[0];
#pragma unroll
  for (int w = 1; w < 8; ++w)
    r = maxNum(r, red[w]);
  return r;
}

/// Element i of x as float.
template <InKind T>
__device__ __forceinline__ float loadOne(const Storage<T> *x, int64_t i) {
  if constexpr (T == InKind::F32)
    return x[i];
  else if constexpr (T == InKind::BF16)
    return format::bf16ToFloat(x[i]);
  else
    return format::f16ToFloat(x[i]);
}

/// The thread's part of the amax of x[0, n) in a grid-stride walk: 16-byte
/// loads, U in flight.
template <InKind T, int U = 4>
__device__ __forceinline__ float amaxPartial(const Storage<T> *x, int64_t n) {
  const int64_t nv = n / 8;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  float m = 0.0f;
  for (; i + (U - 1) * stride < nv; i += U * stride) {
    float v[U][8];
#pragma unroll
    for (int u = 0; u < U; ++u)
      load8<T>(x + (i + u * stride) * 8, v[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int j = 0; j < 8; ++j)
        m = maxNum(m, absBits(v[u][j]));
  }
  for (; i < nv; i += stride) {
    float v[8];
    load8<T>(x + i * 8, v);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      m = maxNum(m, absBits(v[j]));
  }
  for (int64_t e = nv * 8 + blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       e < n; e += stride)
    m = maxNum(m, absBits(loadOne<T>(x, e)));
  return m;
}

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_KERNELCOMMON_CUH
