//===- Dequantize.cu - Dequantization --------------------------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// The dequantize kernels of Dequantize.h, which write the same values:
// * dequantKernel (every recipe and representation): one thread per element
//   of the logical [M, K] output; swizzled scale indices through Format's
//   swizzledScaleOffset; the NVFP4 columnwise RHT inverted in double as on
//   the cpu;
// * mxfp8DequantKernel, nvfp4DequantKernel (launchVectorDequantize): 16
//   elements of the stored representation per thread, bf16 or fp32 out,
//   hardware element decodes equal to Format's.
//
//===----------------------------------------------------------------------===//

#include "Dequantize.h"

#include "Codecs.cuh"
#include "KernelCommon.cuh"

#include "te/Format/Codecs.h"
#include "te/Format/Hadamard.h"
#include "te/Format/ScaleRules.h"
#include "te/Format/Swizzle.h"

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdlib>

using namespace te::format;

namespace te::rt::cuda {
namespace {

//===----------------------------------------------------------------------===//
// General kernel: one thread per element
//===----------------------------------------------------------------------===//

constexpr int kNV = kNVFP4BlockSize; // 16

__device__ __forceinline__ int64_t scaleIndex(const DequantArgs &a, int64_t r,
                                              int64_t c, bool transposed) {
  if (!a.swizzled)
    return r * a.scaleCols + c;
  if (transposed) // entry (r, c) of the stored matrix is (c, r) of [C, R]
    return swizzledScaleOffset(c, r, a.scaleCols, a.scaleRows);
  return swizzledScaleOffset(r, c, a.scaleRows, a.scaleCols);
}

/// NVFP4 value at (r, c) of the stored [R, C] representation.
__device__ __forceinline__ float nvfp4Value(const DequantArgs &a, int64_t r,
                                            int64_t c, int64_t C) {
  uint8_t byte = a.data[r * (C / 2) + c / 2];
  uint8_t nib = (c & 1) ? (byte >> 4) : (byte & 0xF);
  uint8_t s =
      static_cast<const uint8_t *>(a.scale)[scaleIndex(a, r, c / kNV, false)];
  if (a.blockScaleOnly)
    return decodeE2M1(nib) * decodeE4M3(s);
  float g = a.rowScaled ? a.amax[r] : a.amax[0];
  return decodeE2M1(nib) * nvfp4DequantFactor(s, g, a.e4m3Max);
}

__global__ void dequantKernel(DequantArgs a) {
  const int64_t M = a.M, K = a.K;
  const bool col = a.columnwise;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < M * K;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t m = i / K, k = i % K;
    float v = 0.0f;
    switch (a.recipe) {
    case Recipe::Delayed:
    case Recipe::Current: {
      float sInv = *static_cast<const float *>(a.scale);
      uint8_t code = a.transposedData ? a.data[k * M + m] : a.data[i];
      v = decodeFP8(code, a.fp8) * sInv;
      break;
    }
    case Recipe::Block: {
      const int64_t B = kFP8BlockSize, S = a.scaleCols;
      auto *s = static_cast<const float *>(a.scale);
      float sInv;
      if (a.blockDim == 1)
        sInv = col ? s[(m / B) * S + k] : s[(k / B) * S + m];
      else
        sInv = col ? s[(k / B) * S + m / B] : s[(m / B) * S + k / B];
      uint8_t code = col ? a.data[k * M + m] : a.data[m * K + k];
      v = decodeFP8(code, a.fp8) * sInv;
      break;
    }
    case Recipe::MXFP8: {
      const int64_t B = kMXFP8BlockSize;
      auto *s = static_cast<const uint8_t *>(a.scale);
      uint8_t e = col ? s[scaleIndex(a, m / B, k, true)]
                      : s[scaleIndex(a, m, k / B, false)];
      v = decodeFP8(a.data[m * K + k], a.fp8) * decodeE8M0(e);
      break;
    }
    case Recipe::NVFP4: {
      if (!col) {
        v = nvfp4Value(a, m, k, K);
      } else if (!a.inverseRHT) {
        v = nvfp4Value(a, k, m, M);
      } else {
        // v = v' * Mrht^T, in double, as the cpu backend.
        const int64_t m0 = m - m % kRHTSize;
        const int ii = static_cast<int>(m % kRHTSize);
        double sum = 0.0;
        for (int jI = 0; jI < kRHTSize; ++jI)
          sum += static_cast<double>(nvfp4Value(a, k, m0 + jI, M)) *
                 rhtMatrixEntry(a.signMask, ii, jI);
        v = static_cast<float>(sum);
      }
      break;
    }
    }
    storeFromFloat(a.out, a.outType, i, v);
  }
}

//===----------------------------------------------------------------------===//
// Vector kernels: 16 elements per thread
//===----------------------------------------------------------------------===//

constexpr int kChunk = 16; // elements per thread

/// Index of scale entry (r, c) of the [scaleRows, scaleCols] matrix, as the
/// general kernel's scaleIndex.
__device__ __forceinline__ int64_t scaleAt(const VectorDequantArgs &a,
                                           int64_t r, int64_t c,
                                           bool transposed) {
  if (!a.swizzled)
    return r * a.scaleCols + c;
  if (transposed)
    return swizzledScaleOffset(c, r, a.scaleCols, a.scaleRows);
  return swizzledScaleOffset(r, c, a.scaleRows, a.scaleCols);
}

// The element decodes below use the hardware conversions (sm_89+: FP8 pairs
// to f16 pairs, f16 to f32) and give the floats of te/Format/Codecs.h's
// decodeE4M3/decodeE5M2/decodeE2M1 bit for bit: every code's value is exact
// in f16 and in f32, and a NaN code becomes decodeE4M3's NaN (0x7FC00000),
// so value * scale and the bf16 rounding (floatToBF16) are those of the
// general kernels.

/// Two FP8 codes (the low 16 bits of `pair`, element 0 in the low byte) as
/// floats.
template <bool E5M2>
__device__ __forceinline__ float2 fp8x2ToFloat2(uint32_t pair) {
  __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(
      static_cast<__nv_fp8x2_storage_t>(pair & 0xFFFFu),
      E5M2 ? __NV_E5M2 : __NV_E4M3);
  float2 f = __half22float2(__half2(h));
  const float nan = __uint_as_float(0x7FC00000u);
  f.x = f.x != f.x ? nan : f.x;
  f.y = f.y != f.y ? nan : f.y;
  return f;
}

/// Two E2M1 nibbles (the low byte of `pair`, element 0 in the low nibble) as
/// floats: each nibble s.e.e.m placed in f16 bits 15 and 11..9 is the f16
/// value 2^-14 times the E2M1 value (subnormal 0.5 included), so one exact
/// multiply by 2^14 gives it.
__device__ __forceinline__ float2 e2m1x2ToFloat2(uint32_t pair) {
  const uint32_t lo = pair & 0xFu, hi = (pair >> 4) & 0xFu;
  const uint32_t bits = ((lo & 8u) << 12) | ((lo & 7u) << 9) |
                        ((hi & 8u) << 28) | ((hi & 7u) << 25);
  __half2_raw raw;
  raw.x = static_cast<unsigned short>(bits & 0xFFFFu);
  raw.y = static_cast<unsigned short>(bits >> 16);
  const float2 f = __half22float2(__half2(raw));
  return make_float2(f.x * 16384.0f, f.y * 16384.0f);
}

/// Row and first column of chunk i of a [R, C] tensor of `perRow` chunks per
/// row: a 32-bit division where the chunk count allows (a 64-bit one is
/// several times the work of a chunk's decode).
__device__ __forceinline__ void chunkAt(int64_t i, int64_t n, int64_t perRow,
                                        int64_t &r, int64_t &c0) {
  if (n <= int64_t(UINT32_MAX)) {
    const uint32_t q = static_cast<uint32_t>(i) / static_cast<uint32_t>(perRow);
    r = q;
    c0 = (static_cast<uint32_t>(i) - q * static_cast<uint32_t>(perRow)) *
         int64_t(kChunk);
  } else {
    r = i / perRow;
    c0 = (i - r * perRow) * kChunk;
  }
}

template <bool BF16Out>
__device__ __forceinline__ void store16(const VectorDequantArgs &a, int64_t off,
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
    mxfp8DequantKernel(VectorDequantArgs a) {
  const int64_t perRow = a.C / kChunk;
  const int64_t n = a.R * perRow;
  // Column blocks: the 16 scales of a thread are one 16-byte load where the
  // compact scale matrix allows it.
  const bool vectorScales = ColumnBlocks && !a.swizzled &&
                            a.scaleCols % kChunk == 0 &&
                            reinterpret_cast<uintptr_t>(a.scale) % 16 == 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t r, c0;
    chunkAt(i, n, perRow, r, c0);
    const int64_t off = r * a.C + c0;
    uint4 u = __ldg(reinterpret_cast<const uint4 *>(a.data + off));
    uint32_t w[4] = {u.x, u.y, u.z, u.w};
    float v[kChunk];
    if constexpr (!ColumnBlocks) {
      const float s =
          decodeE8M0(a.scale[scaleAt(a, r, c0 / kMXFP8BlockSize, false)]);
#pragma unroll
      for (int j = 0; j < kChunk; j += 2) {
        const float2 f = fp8x2ToFloat2<E5M2>(w[j / 4] >> (8 * (j % 4)));
        v[j] = f.x * s;
        v[j + 1] = f.y * s;
      }
    } else {
      const int64_t sr = r / kMXFP8BlockSize;
      uint32_t sw[4];
      if (vectorScales) {
        uint4 su = __ldg(
            reinterpret_cast<const uint4 *>(a.scale + sr * a.scaleCols + c0));
        sw[0] = su.x, sw[1] = su.y, sw[2] = su.z, sw[3] = su.w;
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          sw[q] = 0;
#pragma unroll
          for (int k = 0; k < 4; ++k)
            sw[q] |= static_cast<uint32_t>(
                         __ldg(a.scale + scaleAt(a, sr, c0 + 4 * q + k,
                                                 /*transposed=*/true)))
                     << (8 * k);
        }
      }
#pragma unroll
      for (int j = 0; j < kChunk; j += 2) {
        const float2 f = fp8x2ToFloat2<E5M2>(w[j / 4] >> (8 * (j % 4)));
        v[j] =
            f.x * decodeE8M0(static_cast<uint8_t>(sw[j / 4] >> (8 * (j % 4))));
        v[j + 1] = f.y * decodeE8M0(static_cast<uint8_t>(sw[j / 4] >>
                                                         (8 * (j % 4 + 1))));
      }
    }
    store16<BF16Out>(a, off, v);
  }
}

template <bool BF16Out, bool BlockOnly>
__global__ void __launch_bounds__(kThreads)
    nvfp4DequantKernel(VectorDequantArgs a) {
  const int64_t perRow = a.C / kChunk;
  const int64_t n = a.R * perRow;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t r, c0;
    chunkAt(i, n, perRow, r, c0);
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
    for (int j = 0; j < kChunk; j += 2) {
      const uint32_t word = j < 8 ? u.x : u.y;
      const float2 e = e2m1x2ToFloat2(word >> (4 * (j % 8)));
      v[j] = e.x * f;
      v[j + 1] = e.y * f;
    }
    store16<BF16Out>(a, r * a.C + c0, v);
  }
}

template <bool BF16Out>
void launchMX(const VectorDequantArgs &a, bool e5, unsigned grid,
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

} // namespace

cudaError_t launchDequantize(const DequantArgs &args, cudaStream_t stream) {
  int64_t n = args.M * args.K;
  if (n > 0)
    dequantKernel<<<gridFor(n), kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

bool vectorDequantizeApplies(const VectorDequantArgs &a) {
  if (!fastKernelsEnabled())
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

cudaError_t launchVectorDequantize(const VectorDequantArgs &a,
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
