//===- FastDequantize.cu - Vectorized MXFP8/NVFP4 dequantize ---*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend. See FastDequantize.h.
//
//===----------------------------------------------------------------------===//

#include "FastDequantize.h"

#include "te/Format/Codecs.h"
#include "te/Format/ScaleRules.h"
#include "te/Format/Swizzle.h"

#include <algorithm>
#include <cstdlib>

using namespace te::format;

namespace te::rt::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kChunk = 16; // elements per thread

/// Index of scale entry (r, c) of the [scaleRows, scaleCols] matrix, as the
/// general kernel's scaleIndex.
__device__ __forceinline__ int64_t scaleAt(const FastDequantArgs &a, int64_t r,
                                           int64_t c, bool transposed) {
  if (!a.swizzled)
    return r * a.scaleCols + c;
  if (transposed)
    return swizzledScaleOffset(c, r, a.scaleCols, a.scaleRows);
  return swizzledScaleOffset(r, c, a.scaleRows, a.scaleCols);
}

template <bool BF16Out>
__device__ __forceinline__ void store16(const FastDequantArgs &a, int64_t off,
                                        const float v[kChunk]) {
  if constexpr (BF16Out) {
    uint32_t w[8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
      w[i] = static_cast<uint32_t>(floatToBF16(v[2 * i])) |
             (static_cast<uint32_t>(floatToBF16(v[2 * i + 1])) << 16);
    auto *o = reinterpret_cast<uint4 *>(static_cast<uint16_t *>(a.out) + off);
    o[0] = make_uint4(w[0], w[1], w[2], w[3]);
    o[1] = make_uint4(w[4], w[5], w[6], w[7]);
  } else {
    auto *o = reinterpret_cast<float4 *>(static_cast<float *>(a.out) + off);
#pragma unroll
    for (int i = 0; i < 4; ++i)
      o[i] = make_float4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
  }
}

template <bool BF16Out, bool E5M2, bool ColumnBlocks>
__global__ void __launch_bounds__(kThreads)
    mxfp8DequantKernel(FastDequantArgs a) {
  const int64_t perRow = a.C / kChunk;
  const int64_t n = a.R * perRow;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = i / perRow, c0 = (i - r * perRow) * kChunk;
    const int64_t off = r * a.C + c0;
    uint4 u = __ldg(reinterpret_cast<const uint4 *>(a.data + off));
    uint32_t w[4] = {u.x, u.y, u.z, u.w};
    float v[kChunk];
    if constexpr (!ColumnBlocks) {
      const float s =
          decodeE8M0(a.scale[scaleAt(a, r, c0 / kMXFP8BlockSize, false)]);
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        uint8_t code = static_cast<uint8_t>(w[j / 4] >> (8 * (j % 4)));
        v[j] = (E5M2 ? decodeE5M2(code) : decodeE4M3(code)) * s;
      }
    } else {
      const int64_t sr = r / kMXFP8BlockSize;
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        uint8_t code = static_cast<uint8_t>(w[j / 4] >> (8 * (j % 4)));
        const float s =
            decodeE8M0(__ldg(a.scale + scaleAt(a, sr, c0 + j,
                                               /*transposed=*/true)));
        v[j] = (E5M2 ? decodeE5M2(code) : decodeE4M3(code)) * s;
      }
    }
    store16<BF16Out>(a, off, v);
  }
}

template <bool BF16Out, bool BlockOnly>
__global__ void __launch_bounds__(kThreads)
    nvfp4DequantKernel(FastDequantArgs a) {
  const int64_t perRow = a.C / kChunk;
  const int64_t n = a.R * perRow;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = i / perRow, c0 = (i - r * perRow) * kChunk;
    uint2 u =
        __ldg(reinterpret_cast<const uint2 *>(a.data + (r * a.C + c0) / 2));
    const uint8_t sb = a.scale[scaleAt(a, r, c0 / kNVFP4BlockSize, false)];
    float f;
    if constexpr (BlockOnly) {
      f = decodeE4M3(sb);
    } else {
      const float g = a.rowScaled ? a.amax[r] : a.amax[0];
      f = nvfp4DequantFactor(sb, g, a.e4m3Max);
    }
    float v[kChunk];
#pragma unroll
    for (int j = 0; j < kChunk; ++j) {
      uint32_t word = j < 8 ? u.x : u.y;
      uint8_t nib = static_cast<uint8_t>((word >> (4 * (j % 8))) & 0xF);
      v[j] = decodeE2M1(nib) * f;
    }
    store16<BF16Out>(a, r * a.C + c0, v);
  }
}

unsigned gridFor(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(
      std::max<int64_t>(1, std::min<int64_t>(blocks, int64_t(1) << 20)));
}

template <bool BF16Out>
void launchMX(const FastDequantArgs &a, bool e5, unsigned grid,
              cudaStream_t stream) {
  if (e5) {
    if (a.columnBlocks)
      mxfp8DequantKernel<BF16Out, true, true><<<grid, kThreads, 0, stream>>>(a);
    else
      mxfp8DequantKernel<BF16Out, true, false>
          <<<grid, kThreads, 0, stream>>>(a);
  } else {
    if (a.columnBlocks)
      mxfp8DequantKernel<BF16Out, false, true>
          <<<grid, kThreads, 0, stream>>>(a);
    else
      mxfp8DequantKernel<BF16Out, false, false>
          <<<grid, kThreads, 0, stream>>>(a);
  }
}

bool aligned(const void *p, uintptr_t a) {
  return reinterpret_cast<uintptr_t>(p) % a == 0;
}

} // namespace

bool fastDequantizeApplies(const FastDequantArgs &a) {
  static const bool off = std::getenv("TE_RT_CUDA_NO_FAST_KERNELS") != nullptr;
  if (off)
    return false;
  if (a.recipe != Recipe::MXFP8 && a.recipe != Recipe::NVFP4)
    return false;
  if (a.outType != DType::BF16 && a.outType != DType::F32)
    return false;
  if (a.C % kChunk != 0 || a.R < 0 || !a.data || !a.scale || !a.out)
    return false;
  if (a.recipe == Recipe::NVFP4 && !a.blockScaleOnly && !a.amax)
    return false;
  return aligned(a.data, a.recipe == Recipe::MXFP8 ? 16 : 8) &&
         aligned(a.out, 16);
}

cudaError_t launchFastDequantize(const FastDequantArgs &a,
                                 cudaStream_t stream) {
  const int64_t n = a.R * (a.C / kChunk);
  if (n <= 0)
    return cudaSuccess;
  const unsigned grid = gridFor(n);
  const bool bf16 = a.outType == DType::BF16;
  if (a.recipe == Recipe::MXFP8) {
    const bool e5 = a.fp8 == DType::E5M2;
    if (bf16)
      launchMX<true>(a, e5, grid, stream);
    else
      launchMX<false>(a, e5, grid, stream);
  } else if (bf16) {
    if (a.blockScaleOnly)
      nvfp4DequantKernel<true, true><<<grid, kThreads, 0, stream>>>(a);
    else
      nvfp4DequantKernel<true, false><<<grid, kThreads, 0, stream>>>(a);
  } else {
    if (a.blockScaleOnly)
      nvfp4DequantKernel<false, true><<<grid, kThreads, 0, stream>>>(a);
    else
      nvfp4DequantKernel<false, false><<<grid, kThreads, 0, stream>>>(a);
  }
  return cudaGetLastError();
}

} // namespace te::rt::cuda
