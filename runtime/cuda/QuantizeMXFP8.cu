//===- QuantizeMXFP8.cu - MXFP8 quantization -------------------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// The MXFP8 kernels (1x32 + 32x1, or 32x32 blocks; compact E8M0 scales) of
// QuantizeMXFP8.h; the scales are Format's mxfp8ScaleFromAmax:
// * mxfp8QuantKernel (every shape and input type): 64x64 tiles in shared
//   memory; 1x32 / 32x1 blocks by Format's quantizeMXFP8Block, 32x32 by the
//   block amax;
// * mxfp8BlockTileKernel (bf16/f16, 1x32 + 32x1; the tiles of Tiles.cuh):
//   1x32 blocks are 4 neighbouring lanes, 32x1 blocks 2 warps (column maxima
//   exchanged in shared memory, 4 column codes per thread of 128);
// * mxfp8TileKernel (f32, and 32x32 blocks for every input type): warp
//   tiles of 32 rows x 64 columns; lane = 8 * rowGroup + colChunk; a 1x32
//   block is 4 neighbouring lanes, a 32x1 block the 4 lanes of one colChunk
//   (the columnwise copy is not transposed). Each of the 4 lanes of a block
//   group computes 2 of the 8 E8M0 codes, which are then gathered as bytes
//   (scaleCodes2, gatherCodes8).
// launchMXFP8Quantize takes the tile kernels when mxfp8FastPath holds (M %
// 32 == 0, K % 64 == 0); all write the same bits.
//
//===----------------------------------------------------------------------===//

#include "QuantizeMXFP8.h"

#include "Codecs.cuh"
#include "KernelCommon.cuh"
#include "Tiles.cuh"

#include "te/Format/Blocks.h"
#include "te/Format/Codecs.h"
#include "te/Format/ScaleRules.h"

using namespace te::format;

namespace te::rt::cuda {
namespace {

//===----------------------------------------------------------------------===//
// General kernel: 64x64 tiles
//===----------------------------------------------------------------------===//

constexpr int kMX = 64;
constexpr int kMXB = kMXFP8BlockSize; // 32
constexpr int kMXLd = kMX + 1;
constexpr int kMXCodeLd = kMX + 4;

__global__ void __launch_bounds__(2 * kMX)
    mxfp8QuantKernel(const void *x, int64_t M, int64_t K, int64_t tilesK,
                     MXFP8Args a) {
  __shared__ float tile[kMX * kMXLd];
  __shared__ uint8_t rowCodes[kMX * kMXCodeLd];
  __shared__ uint8_t colCodes[kMX * kMXCodeLd];
  __shared__ float segMax[kMX][2];
  __shared__ float blkMax[2][2];
  const int64_t mb = blockIdx.x / tilesK, kb = blockIdx.x % tilesK;
  const int64_t m0 = mb * kMX, k0 = kb * kMX;
  const int rows = static_cast<int>(minI64(kMX, M - m0));
  const int cols = static_cast<int>(minI64(kMX, K - k0));
  const int t = threadIdx.x;
  for (int i = t; i < kMX * kMX; i += blockDim.x) {
    int r = i / kMX, c = i % kMX;
    tile[r * kMXLd + c] = (r < rows && c < cols)
                              ? loadAsFloat(x, a.inType, (m0 + r) * K + k0 + c)
                              : 0.0f;
  }
  __syncthreads();
  // Thread t: row (or column) t % 64, segment t / 64 of 32.
  const int lane = t % kMX, seg = t / kMX;
  if (!a.twoD) {
    if (a.rowData && lane < rows && seg * kMXB < cols) {
      int n = min(kMXB, cols - seg * kMXB);
      a.rowScale[(m0 + lane) * a.rowScaleStride + k0 / kMXB + seg] =
          quantizeMXFP8Block(tile + lane * kMXLd + seg * kMXB, n, 1, a.fp8,
                             a.rounding,
                             rowCodes + lane * kMXCodeLd + seg * kMXB);
    }
    if (a.colData && lane < cols && seg * kMXB < rows) {
      int n = min(kMXB, rows - seg * kMXB);
      a.colScale[(m0 / kMXB + seg) * a.colScaleStride + k0 + lane] =
          quantizeMXFP8Block(
              tile + seg * kMXB * kMXLd + lane, n, kMXLd, a.fp8, a.rounding,
              colCodes + seg * kMXB * kMXCodeLd + lane, kMXCodeLd);
    }
  } else {
    // 32x32 blocks: segment amaxes, then the block amax of (row half, seg).
    segMax[lane][seg] = (lane < rows && seg * kMXB < cols)
                            ? blockAmax(tile + lane * kMXLd + seg * kMXB,
                                        min(kMXB, cols - seg * kMXB), 1)
                            : 0.0f;
    __syncthreads();
    if (t < 4) {
      int rh = t / 2, s = t % 2;
      float m = 0.0f;
      for (int r = rh * kMXB; r < min(rows, (rh + 1) * kMXB); ++r)
        m = fmaxNum(m, segMax[r][s]);
      blkMax[rh][s] = m;
    }
    __syncthreads();
    if (lane < rows && seg * kMXB < cols) {
      int n = min(kMXB, cols - seg * kMXB);
      uint8_t code = quantizeMXFP8BlockWithAmax(
          tile + lane * kMXLd + seg * kMXB, n, 1, blkMax[lane / kMXB][seg],
          a.fp8, a.rounding, rowCodes + lane * kMXCodeLd + seg * kMXB);
      if (a.rowScale)
        a.rowScale[(m0 + lane) * a.rowScaleStride + k0 / kMXB + seg] = code;
    }
    if (a.colScale && lane < cols && seg * kMXB < rows)
      a.colScale[(m0 / kMXB + seg) * a.colScaleStride + k0 + lane] =
          mxfp8ScaleFromAmax(blkMax[seg][lane / kMXB], a.fp8, a.rounding);
  }
  __syncthreads();
  const uint8_t *colSrc = a.twoD ? rowCodes : colCodes;
  for (int i = t; i < kMX * kMX; i += blockDim.x) {
    int r = i / kMX, c = i % kMX;
    if (r < rows && c < cols) {
      int64_t off = (m0 + r) * K + k0 + c;
      if (a.rowData)
        a.rowData[off] = rowCodes[r * kMXCodeLd + c];
      if (a.colData)
        a.colData[off] = colSrc[r * kMXCodeLd + c];
    }
  }
}

//===----------------------------------------------------------------------===//
// Tile kernels: 1x32 + 32x1 (or 32x32) blocks, compact scales
//===----------------------------------------------------------------------===//

/// The E8M0 codes of 2 of the 8 blocks whose per-lane maxima are r[0..7],
/// blocks spread over the 4 lanes that differ in lane bits `hi`, `lo`
/// (masks): reduce-scatter (xor hi: 4 shuffles, xor lo: 2), after which the
/// lane holds the full maxima of blocks 4 bHi + 2 bLo + 0..1, whose codes it
/// computes (2 instead of 8 per lane).
__device__ __forceinline__ void scaleCodes2(const float r[8], int lane, int hi,
                                            int lo, DType fp8,
                                            E8M0Rounding rounding,
                                            uint8_t e[2]) {
  const bool bh = lane & hi, bl = lane & lo;
  float h[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
    h[k] = maxNum(bh ? r[k + 4] : r[k],
                  __shfl_xor_sync(0xFFFFFFFFu, bh ? r[k] : r[k + 4], hi));
#pragma unroll
  for (int k = 0; k < 2; ++k)
    e[k] = mxfp8ScaleFromAmax(
        maxNum(bl ? h[k + 2] : h[k],
               __shfl_xor_sync(0xFFFFFFFFu, bl ? h[k] : h[k + 2], lo)),
        fp8, rounding);
}

/// All-gather of scaleCodes2's codes over the same 4 lanes: codes[0] =
/// blocks 0..3, codes[1] = blocks 4..7, block b in byte b % 4.
__device__ __forceinline__ void
gatherCodes8(const uint8_t e[2], int lane, int hi, int lo, uint32_t codes[2]) {
  const bool bh = lane & hi, bl = lane & lo;
  uint32_t w = (uint32_t(e[0]) | (uint32_t(e[1]) << 8)) << (bl ? 16 : 0);
  w |= __shfl_xor_sync(0xFFFFFFFFu, w, lo);               // blocks 4 bh + 0..3
  const uint32_t o = __shfl_xor_sync(0xFFFFFFFFu, w, hi); // the other half
  codes[0] = bh ? o : w;
  codes[1] = bh ? w : o;
}

/// MXFP8 on warp tiles of 32 rows x 64 columns (lane = 8 * rowGroup +
/// colChunk), grid-stride over warp tiles with the next tile's x prefetched
/// into registers: f32 inputs and 32x32 blocks. x is kept packed (bf16/f16: 32
/// registers per tile) and unpacked once per pass; the fp8 type is a template
/// parameter so that the scale math's constants fold. Column scales are
/// stored as 8 bytes per lane when `packColScales`.
template <InKind T, bool E5M2>
__global__ void __launch_bounds__(kFastThreads, 2)
    mxfp8TileKernel(const Storage<T> *x, int64_t M, int64_t K, MXFP8Args a,
                    bool packColScales) {
  constexpr DType fp8 = E5M2 ? DType::E5M2 : DType::E4M3;
  const int lane = threadIdx.x & 31;
  const int cc = lane & 7, rg = lane >> 3;
  const int64_t tilesK = K / 64, tiles = (M / 32) * tilesK;
  const int64_t nWarps = (int64_t(gridDim.x) * blockDim.x) >> 5;
  int64_t w = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5;
  RawRows<T> cur;
  if (w < tiles)
    loadRaw<T>(x, (w / tilesK) * 32 + rg * 8, (w % tilesK) * 64 + cc * 8, K,
               true, cur);
  for (; w < tiles; w += nWarps) {
    const int64_t mBlock = (w / tilesK) * 32;
    const int64_t m = mBlock + rg * 8;
    const int64_t k = (w % tilesK) * 64 + cc * 8;
    RawRows<T> next;
    const int64_t wn = w + nWarps;
    if (wn < tiles)
      loadRaw<T>(x, (wn / tilesK) * 32 + rg * 8, (wn % tilesK) * 64 + cc * 8, K,
                 true, next);
    float cm[8], rm[8];
    subTileMaxima<T>(cur, rm, cm);
    uint8_t *colScaleRow =
        a.colScale ? a.colScale + (mBlock / 32) * a.colScaleStride + k
                   : nullptr;
    if (a.twoD) {
      float b = cm[0];
#pragma unroll
      for (int j = 1; j < 8; ++j)
        b = maxNum(b, cm[j]);
      b = shflMax(shflMax(shflMax(shflMax(b, 8), 16), 1), 2);
      const uint8_t e = mxfp8ScaleFromAmax(b, fp8, a.rounding);
      const float f = e8m0Reciprocal(e);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float v[8];
        unpackRow<T>(cur, i, v);
        const uint2 c = encodeScaled8(v, f, E5M2);
        if (a.rowData)
          store8(a.rowData + (m + i) * K + k, c);
        if (a.colData)
          store8(a.colData + (m + i) * K + k, c);
        if (a.rowScale && (cc & 3) == 0)
          a.rowScale[(m + i) * a.rowScaleStride + k / 32] = e;
      }
      if (colScaleRow && rg == 0) {
        if (packColScales) {
          const uint32_t e4 = e * 0x01010101u;
          store8(colScaleRow, make_uint2(e4, e4));
        } else {
#pragma unroll
          for (int j = 0; j < 8; ++j)
            colScaleRow[j] = e;
        }
      }
    } else {
      if (a.rowData) {
        // Each of the 4 lanes of a 1x32 block computes the E8M0 codes of 2
        // of its 8 rows (rows 2 (lane & 3) + 0..1) and stores them; the 8
        // codes are then gathered as bytes.
        uint8_t e2[2];
        scaleCodes2(rm, lane, 2, 1, fp8, a.rounding, e2);
#pragma unroll
        for (int q = 0; q < 2; ++q)
          a.rowScale[(m + 2 * (lane & 3) + q) * a.rowScaleStride + k / 32] =
              e2[q];
        uint32_t codes[2];
        gatherCodes8(e2, lane, 2, 1, codes);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          float v[8];
          unpackRow<T>(cur, i, v);
          store8(a.rowData + (m + i) * K + k,
                 encodeScaled8(v,
                               e8m0Reciprocal(static_cast<uint8_t>(
                                   codes[i / 4] >> (8 * (i % 4)))),
                               E5M2));
        }
      }
      if (a.colData) {
        // The 32x1 blocks: cm[] holds the lane's 8 column maxima over its
        // 8 rows; the 4 lanes of a column chunk (lane bits 3, 4) each
        // finish 2 columns (4 b4 + 2 b3 + 0..1), then gather the codes.
        uint8_t e2[2];
        scaleCodes2(cm, lane, 16, 8, fp8, a.rounding, e2);
        float f[8];
        uint32_t packed[2];
        gatherCodes8(e2, lane, 16, 8, packed);
#pragma unroll
        for (int j = 0; j < 8; ++j)
          f[j] = e8m0Reciprocal(
              static_cast<uint8_t>(packed[j / 4] >> (8 * (j % 4))));
        if (rg == 0) {
          if (packColScales) {
            store8(colScaleRow, make_uint2(packed[0], packed[1]));
          } else {
#pragma unroll
            for (int j = 0; j < 8; ++j)
              colScaleRow[j] =
                  static_cast<uint8_t>(packed[j / 4] >> (8 * (j % 4)));
          }
        }
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          float v[8];
          unpackRow<T>(cur, i, v);
          uint2 c;
          c.x = encodeFP8x4(v[0] * f[0], v[1] * f[1], v[2] * f[2], v[3] * f[3],
                            E5M2);
          c.y = encodeFP8x4(v[4] * f[4], v[5] * f[5], v[6] * f[6], v[7] * f[7],
                            E5M2);
          store8(a.colData + (m + i) * K + k, c);
        }
      }
    }
    cur = next;
  }
}

/// MXFP8 1x32 + 32x1 on 128x128 tiles (one per 256-thread block at a time,
/// persistent grid), the thread layout of the per-tensor and Float8Block
/// tile kernels: thread (g, c) = rows 8g..8g+7 x columns 8c..8c+7, so that
/// a half-warp stores one 128-byte row segment of either copy (both [M, K]).
/// 1x32 blocks: 4 neighbouring lanes (scaleCodes2 / gatherCodes8 as in
/// mxfp8TileKernel). 32x1 blocks span 4 row groups = 2 warps: the column
/// maxima over a warp's 16 rows go through shared memory, 128 threads make
/// 4 column codes each (one 4-byte store of the compact column scales per
/// thread, a warp = one 128-byte row of them) into `colCode`, and each
/// thread reads its 8 codes back. Partial tiles: M % 32 == 0, K % 64 == 0
/// keep 32-row and 32-column blocks whole; row groups and column chunks
/// outside [M, K] are loaded as zeros and not stored. No 32x32 mode
/// (mxfp8TileKernel does it).
template <InKind T, bool E5M2>
__global__ void __launch_bounds__(kFastThreads, 2)
    mxfp8BlockTileKernel(const Storage<T> *x, int64_t M, int64_t K, MXFP8Args a,
                         bool packColScales) {
  constexpr DType fp8 = E5M2 ? DType::E5M2 : DType::E4M3;
  constexpr int Stages = kTileStages<T>;
  extern __shared__ uint4 tileSmem[];
  __shared__ __align__(16) float part[8][kTile];
  __shared__ __align__(16) uint32_t colCode[4][kTile / 4];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int c = lane & 15, g = (warp << 1) | (lane >> 4);
  const int tilesM = static_cast<int>((M + kTile - 1) / kTile),
            tilesK = static_cast<int>((K + kTile - 1) / kTile),
            tiles = tilesM * tilesK;
  auto where = [&](int t, int64_t &row, int64_t &col) {
    int mb = 0, kb = 0;
    tileCoords32(t, tilesM, tilesK, kTileGroup, mb, kb);
    row = int64_t(mb) * kTile + 8 * g;
    col = int64_t(kb) * kTile + 8 * c;
    return row < M && col < K;
  };
  TilePipe<T, Stages> pipe(tileSmem);
  pipe.start(x, K, where, blockIdx.x, gridDim.x, tiles);
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int64_t row = 0, col = 0;
    const bool valid = where(t, row, col);
    const int64_t m0 = row - 8 * g, k0 = col - 8 * c;
    RawRows<T> cur;
    pipe.take(cur);
    pipe.advance(x, K, where, t + pipe.kDepth * gridDim.x, tiles);
    float cm[8], rm[8];
    subTileMaxima<T>(cur, rm, cm);
    if (a.rowData) {
      // Each of the 4 lanes of a 1x32 block computes the E8M0 codes of 2 of
      // its 8 rows (rows 2 (lane & 3) + 0..1) and stores them; the 8 codes
      // are then gathered as bytes.
      uint8_t e2[2];
      scaleCodes2(rm, lane, 2, 1, fp8, a.rounding, e2);
      if (valid)
#pragma unroll
        for (int q = 0; q < 2; ++q)
          a.rowScale[(row + 2 * (lane & 3) + q) * a.rowScaleStride + col / 32] =
              e2[q];
      uint32_t codes[2];
      gatherCodes8(e2, lane, 2, 1, codes);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float v[8];
        unpackRow<T>(cur, i, v);
        const uint2 q = encodeScaled8(
            v,
            e8m0Reciprocal(static_cast<uint8_t>(codes[i / 4] >> (8 * (i % 4)))),
            E5M2);
        if (valid)
          store8(a.rowData + (row + i) * K + col, q);
      }
    }
    if (a.colData) {
      // Column maxima over the warp's 16 rows, then over the 2 warps of each
      // 32-row block.
#pragma unroll
      for (int j = 0; j < 8; ++j)
        cm[j] = shflMax(cm[j], 16);
      if (lane < 16) {
        *reinterpret_cast<float4 *>(&part[warp][8 * c]) =
            make_float4(cm[0], cm[1], cm[2], cm[3]);
        *reinterpret_cast<float4 *>(&part[warp][8 * c + 4]) =
            make_float4(cm[4], cm[5], cm[6], cm[7]);
      }
      __syncthreads(); // part
      if (tid < kTile) {
        const int rb = tid >> 5, q = 4 * (tid & 31);
        const float4 p0 = *reinterpret_cast<const float4 *>(&part[2 * rb][q]);
        const float4 p1 =
            *reinterpret_cast<const float4 *>(&part[2 * rb + 1][q]);
        const uint32_t w =
            uint32_t(mxfp8ScaleFromAmax(maxNum(p0.x, p1.x), fp8, a.rounding)) |
            (uint32_t(mxfp8ScaleFromAmax(maxNum(p0.y, p1.y), fp8, a.rounding))
             << 8) |
            (uint32_t(mxfp8ScaleFromAmax(maxNum(p0.z, p1.z), fp8, a.rounding))
             << 16) |
            (uint32_t(mxfp8ScaleFromAmax(maxNum(p0.w, p1.w), fp8, a.rounding))
             << 24);
        colCode[rb][tid & 31] = w;
        if (m0 + 32 * rb < M && k0 + q < K) {
          uint8_t *dst =
              a.colScale + (m0 / 32 + rb) * a.colScaleStride + k0 + q;
          if (packColScales) {
            *reinterpret_cast<uint32_t *>(dst) = w;
          } else {
#pragma unroll
            for (int b = 0; b < 4; ++b)
              dst[b] = static_cast<uint8_t>(w >> (8 * b));
          }
        }
      }
      __syncthreads(); // colCode
      const uint2 packed =
          *reinterpret_cast<const uint2 *>(&colCode[g >> 2][2 * c]);
      float f[8];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        f[j] = e8m0Reciprocal(static_cast<uint8_t>(
            (j < 4 ? packed.x : packed.y) >> (8 * (j % 4))));
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float v[8];
        unpackRow<T>(cur, i, v);
        uint2 q;
        q.x = encodeFP8x4(v[0] * f[0], v[1] * f[1], v[2] * f[2], v[3] * f[3],
                          E5M2);
        q.y = encodeFP8x4(v[4] * f[4], v[5] * f[5], v[6] * f[6], v[7] * f[7],
                          E5M2);
        if (valid)
          store8(a.colData + (row + i) * K + col, q);
      }
    }
  }
}

template <InKind T> struct MXFP8Launch {
  static cudaError_t run(const void *x, int64_t M, int64_t K,
                         const MXFP8Args &a, cudaStream_t stream) {
    const int64_t tiles128 =
        ((M + kTile - 1) / kTile) * ((K + kTile - 1) / kTile);
    if constexpr (T != InKind::F32) {
      if (!a.twoD && tiles128 <= INT32_MAX) {
        const bool pack =
            a.colScale && aligned(a.colScale, 4) && a.colScaleStride % 4 == 0;
        auto launch = [&](auto kernel, int *perSM) {
          constexpr size_t smem = pipeSmem<T, kTileStages<T>>(0);
          unsigned grid = tileGrid(kernel, perSM, tiles128, smem);
          kernel<<<grid, kFastThreads, smem, stream>>>(
              static_cast<const Storage<T> *>(x), M, K, a, pack);
          return cudaGetLastError();
        };
        static int perSMBlock[2] = {};
        if (a.fp8 == DType::E5M2)
          return launch(mxfp8BlockTileKernel<T, true>, &perSMBlock[1]);
        return launch(mxfp8BlockTileKernel<T, false>, &perSMBlock[0]);
      }
    }
    const int64_t tiles = (M / 32) * (K / 64);
    const bool pack =
        a.colScale && aligned(a.colScale, 8) && a.colScaleStride % 8 == 0;
    auto launch = [&](auto kernel, int *perSM) {
      unsigned grid = warpGrid(kernel, perSM, tiles);
      kernel<<<grid, kFastThreads, 0, stream>>>(
          static_cast<const Storage<T> *>(x), M, K, a, pack);
      return cudaGetLastError();
    };
    static int perSM4 = 0, perSM5 = 0;
    if (a.fp8 == DType::E5M2)
      return launch(mxfp8TileKernel<T, true>, &perSM5);
    return launch(mxfp8TileKernel<T, false>, &perSM4);
  }
};

/// launchMXFP8Quantize on the tile kernels (mxfp8FastPath holds).
cudaError_t launchMXFP8QuantizeFast(const void *x, int64_t M, int64_t K,
                                    const MXFP8Args &args,
                                    cudaStream_t stream) {
  return dispatchIn<MXFP8Launch>(args.inType, x, M, K, args, stream);
}

} // namespace

bool mxfp8FastPath(const void *x, DType t, int64_t M, int64_t K,
                   const void *rowData, const void *colData) {
  return vectorInput(t) && M > 0 && K > 0 && M % 32 == 0 && K % 64 == 0 &&
         aligned(x, 16) && aligned(rowData, 8) && aligned(colData, 8);
}

cudaError_t launchMXFP8Quantize(const void *x, int64_t M, int64_t K,
                                const MXFP8Args &args, cudaStream_t stream) {
  int64_t tilesM = (M + kMX - 1) / kMX, tilesK = (K + kMX - 1) / kMX;
  int64_t tiles = tilesM * tilesK;
  if (tiles == 0)
    return cudaSuccess;
  if (mxfp8FastPath(x, args.inType, M, K, args.rowData, args.colData))
    return launchMXFP8QuantizeFast(x, M, K, args, stream);
  if (tiles > INT32_MAX)
    return cudaErrorInvalidConfiguration;
  mxfp8QuantKernel<<<static_cast<unsigned>(tiles), 2 * kMX, 0, stream>>>(
      x, M, K, tilesK, args);
  return cudaGetLastError();
}

} // namespace te::rt::cuda
