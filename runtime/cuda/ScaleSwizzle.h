//===- ScaleSwizzle.h - Block-scale swizzle ---------------------*- C++ -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Launcher of ScaleSwizzle.cu: the swizzled layout of MXFP8 / NVFP4 block
// scales (Format's swizzledScaleOffset) and back. Device pointers; enqueues
// on `stream` and returns the launch status (cudaGetLastError).
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_SCALESWIZZLE_H
#define TE_RT_CUDA_SCALESWIZZLE_H

#include <cuda_runtime.h>

#include <cstdint>

namespace te::rt::cuda {

/// Swizzles (toSwizzled) or unswizzles the [R, C] scale matrix `in` into
/// `out` (distinct). `transposed`: the matrix is stored transposed (MXFP8
/// columnwise), so entry (r, c) is swizzled as (c, r) of a [C, R] matrix.
cudaError_t launchSwizzle(const uint8_t *in, uint8_t *out, int64_t R, int64_t C,
                          bool transposed, bool toSwizzled,
                          cudaStream_t stream);

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_SCALESWIZZLE_H
