//===- ScaleSwizzle.cu - Block-scale swizzle -------------------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// The swizzle of ScaleSwizzle.h: one thread per scale entry, copied to or
// from its place in Format's swizzled layout (swizzledScaleOffset).
//
//===----------------------------------------------------------------------===//

#include "ScaleSwizzle.h"

#include "KernelCommon.cuh"

#include "te/Format/Swizzle.h"

using namespace te::format;

namespace te::rt::cuda {
namespace {

__global__ void swizzleKernel(const uint8_t *in, uint8_t *out, int64_t R,
                              int64_t C, bool transposed, bool toSwizzled) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < R * C;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t r = i / C, c = i % C;
    int64_t s = transposed ? swizzledScaleOffset(c, r, C, R)
                           : swizzledScaleOffset(r, c, R, C);
    if (toSwizzled)
      out[s] = in[i];
    else
      out[i] = in[s];
  }
}

} // namespace

cudaError_t launchSwizzle(const uint8_t *in, uint8_t *out, int64_t R, int64_t C,
                          bool transposed, bool toSwizzled,
                          cudaStream_t stream) {
  if (R * C > 0)
    swizzleKernel<<<gridFor(R * C), kThreads, 0, stream>>>(
        in, out, R, C, transposed, toSwizzled);
  return cudaGetLastError();
}

} // namespace te::rt::cuda
