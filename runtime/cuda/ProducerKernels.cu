//===- ProducerKernels.cu - Producer programs on the GPU -------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// producerEvaluateKernel: a grid-stride loop over groups of kLanes
// consecutive elements of a row, each group evaluated by
// te::rt::evaluateProducerN (runtime/lib/Producer.h, the code the cpu
// backend runs; the program is a kernel parameter, so every thread of a warp
// reads the same instruction from the constant bank), stored in the x dtype
// with Format's rounding, and optionally their amax (Format's fmaxNum of
// |value|, a block reduction and one atomicMax: what the amax kernels
// compute of the stored tensor). columnPartialKernel /
// columnFinishKernel: the column sums, double partial sums of row chunks
// (one thread per column and chunk, coalesced along the row), then the
// chunks added in order and rounded once.
//
//===----------------------------------------------------------------------===//

#include "ProducerKernels.h"

#include "Codecs.cuh"
#include "DeviceTemp.h"
#include "KernelCommon.cuh"

#include <algorithm>

using namespace te::format;

namespace te::rt::cuda {
namespace {

/// Consecutive elements of a row per thread: the opcode dispatch is shared
/// by them.
constexpr int kLanes = 4;

__global__ void __launch_bounds__(kThreads)
    producerEvaluateKernel(const Producer p, int64_t M, int64_t K, DType xType,
                           void *out, float *amax) {
  const int32_t t = static_cast<int32_t>(xType);
  const int64_t groups = (K + kLanes - 1) / kLanes;
  float a = 0.0f; // the running amax of the values (NaN ignored)
  for (int64_t g = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       g < M * groups; g += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = g / groups, c0 = (g % groups) * kLanes;
    float v[kLanes];
    evaluateProducerN<kLanes>(p, r, c0, K, t, v);
    for (int j = 0; j < kLanes; ++j)
      if (c0 + j < K) {
        storeFromFloat(out, xType, r * K + c0 + j, v[j]);
        a = fmaxNum(a, absf(v[j]));
      }
  }
  if (amax) { // every thread of the block gets here
    a = blockReduceMax(a);
    if (threadIdx.x == 0)
      atomicMaxNonNegative(amax, a);
  }
}

__global__ void columnPartialKernel(const void *x, DType t, int64_t M,
                                    int64_t K, int64_t chunkRows,
                                    double *partial) {
  const int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  const int64_t chunk = blockIdx.y;
  if (c >= K)
    return;
  const int64_t r0 = chunk * chunkRows,
                r1 = r0 + chunkRows < M ? r0 + chunkRows : M;
  double s = 0.0;
  for (int64_t r = r0; r < r1; ++r)
    s += static_cast<double>(loadAsFloat(x, t, r * K + c));
  partial[chunk * K + c] = s;
}

__global__ void columnFinishKernel(const double *partial, int64_t chunks,
                                   int64_t K, float *colsum, bool accumulate) {
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < K;
       c += int64_t(gridDim.x) * blockDim.x) {
    double s = 0.0;
    for (int64_t j = 0; j < chunks; ++j)
      s += partial[j * K + c];
    const float f = static_cast<float>(s);
    colsum[c] = accumulate ? __fadd_rn(colsum[c], f) : f;
  }
}

} // namespace

cudaError_t launchProducerEvaluate(const Producer &p, int64_t M, int64_t K,
                                   DType xType, void *out, float *amax,
                                   cudaStream_t stream) {
  if (amax)
    if (cudaError_t e = cudaMemsetAsync(amax, 0, sizeof(float), stream))
      return e;
  if (M * K == 0)
    return cudaSuccess;
  // A few blocks per multiprocessor: each thread's values (kLanes per
  // program value) live in local memory, which the L1 cache must hold.
  const int64_t groups = M * ((K + kLanes - 1) / kLanes);
  const unsigned blocks = std::min<unsigned>(
      gridFor(groups), static_cast<unsigned>(4 * multiprocessors()));
  producerEvaluateKernel<<<blocks, kThreads, 0, stream>>>(p, M, K, xType, out,
                                                          amax);
  return cudaGetLastError();
}

cudaError_t launchColumnSum(const void *x, DType xType, int64_t M, int64_t K,
                            float *colsum, bool accumulate,
                            cudaStream_t stream) {
  if (K == 0)
    return cudaSuccess;
  // 256-row chunks, longer where the grid's y extent (65535) needs it.
  const int64_t chunkRows = std::max<int64_t>(256, (M + 65534) / 65535);
  const int64_t chunks = (M + chunkRows - 1) / chunkRows;
  DeviceTemp partial(stream);
  if (chunks > 0) {
    if (cudaError_t e =
            partial.allocate(static_cast<size_t>(chunks * K) * sizeof(double)))
      return e;
    dim3 grid(static_cast<unsigned>((K + kThreads - 1) / kThreads),
              static_cast<unsigned>(chunks));
    columnPartialKernel<<<grid, kThreads, 0, stream>>>(
        x, xType, M, K, chunkRows, partial.as<double>());
    if (cudaError_t e = cudaGetLastError())
      return e;
  }
  columnFinishKernel<<<gridFor(K), kThreads, 0, stream>>>(
      partial.as<double>(), chunks, K, colsum, accumulate);
  return cudaGetLastError();
}

} // namespace te::rt::cuda
