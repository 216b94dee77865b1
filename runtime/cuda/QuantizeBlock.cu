//===- QuantizeBlock.cu - Float8Block quantization -------------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// The Float8Block (1x128 / 128x128) kernels of QuantizeBlock.h:
// * blockQuantKernel (every shape and input type): one 128x128 fp32 tile in
//   shared memory (83 KB dynamic); 1x128 rows, 128x1 columns or the
//   128x128 amax by Format's quantizeFP8BlockWithAmax; codes staged and
//   written coalesced;
// * blockTileKernel (the tiles of Tiles.cuh, M % 128 == 0, K % 128 == 0): a
//   1x128 row's amax reduce-scattered over its 16 lanes (each lane ends with
//   one of the 8 rows), its scale computed there once and broadcast
//   (reduceScatter8); 128x1 columns through shared memory.
// launchBlockQuantize takes the tile kernel when blockFastPath holds; both
// write the same bits.
//
//===----------------------------------------------------------------------===//

#include "QuantizeBlock.h"

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
// General kernel: 128x128 tiles in shared memory
//===----------------------------------------------------------------------===//

constexpr int kFB = kFP8BlockSize; // 128
constexpr int kFBLd = kFB + 1;     // fp32 tile row stride (bank-conflict free)
constexpr int kFBCodeLd = kFB + 4; // code tile row stride
constexpr size_t kBlockSmem = sizeof(float) * kFB * kFBLd +
                              sizeof(uint8_t) * kFB * kFBCodeLd +
                              sizeof(float) * kFB;

__global__ void __launch_bounds__(kFB)
    blockQuantKernel(const void *x, int64_t M, int64_t K, int64_t tilesK,
                     BlockArgs a) {
  extern __shared__ float smem[];
  float *tile = smem; // [128][129]
  uint8_t *codes =
      reinterpret_cast<uint8_t *>(tile + kFB * kFBLd); // [128][132]
  float *rowMax = reinterpret_cast<float *>(codes + kFB * kFBCodeLd);
  const int64_t mb = blockIdx.x / tilesK, kb = blockIdx.x % tilesK;
  const int64_t m0 = mb * kFB, k0 = kb * kFB;
  const int rows = static_cast<int>(minI64(kFB, M - m0));
  const int cols = static_cast<int>(minI64(kFB, K - k0));
  const int t = threadIdx.x;
  for (int i = t; i < kFB * kFB; i += blockDim.x) {
    int r = i / kFB, c = i % kFB;
    tile[r * kFBLd + c] = (r < rows && c < cols)
                              ? loadAsFloat(x, a.inType, (m0 + r) * K + k0 + c)
                              : 0.0f;
  }
  __syncthreads();
  const float fmax = fp8Max(a.fp8);
  if (a.blockDim == 1) {
    if (a.rowData) {
      // 1x128 along K: thread t quantizes row t; scale of (m, kb) at [kb][m].
      if (t < rows) {
        const float *xs = tile + t * kFBLd;
        a.rowScale[kb * a.rowScaleStride + m0 + t] = quantizeFP8BlockWithAmax(
            xs, cols, 1, blockAmax(xs, cols, 1), a.fp8, a.pow2, a.eps, a.inType,
            codes + t * kFBCodeLd);
      }
      __syncthreads();
      for (int i = t; i < kFB * kFB; i += blockDim.x) {
        int r = i / kFB, c = i % kFB;
        if (r < rows && c < cols)
          a.rowData[(m0 + r) * K + k0 + c] = codes[r * kFBCodeLd + c];
      }
      __syncthreads();
    }
    if (a.colData) {
      // 128x1 along M: thread t quantizes column t into codes row t; data
      // [K, M]; scale of (k, mb) at [mb][k].
      if (t < cols) {
        const float *xs = tile + t;
        a.colScale[mb * a.colScaleStride + k0 + t] = quantizeFP8BlockWithAmax(
            xs, rows, kFBLd, blockAmax(xs, rows, kFBLd), a.fp8, a.pow2, a.eps,
            a.inType, codes + t * kFBCodeLd);
      }
      __syncthreads();
      for (int i = t; i < kFB * kFB; i += blockDim.x) {
        int c = i / kFB, r = i % kFB;
        if (r < rows && c < cols)
          a.colData[(k0 + c) * M + m0 + r] = codes[c * kFBCodeLd + r];
      }
    }
    (void)fmax;
    return;
  }
  // 128x128: one scale per tile; the columnwise copy is the transpose.
  rowMax[t] = t < rows ? blockAmax(tile + t * kFBLd, cols, 1) : 0.0f;
  __syncthreads();
  float amax = 0.0f;
  for (int r = 0; r < rows; ++r)
    amax = fmaxNum(amax, rowMax[r]);
  float sInv = 0.0f;
  if (t < rows)
    sInv =
        quantizeFP8BlockWithAmax(tile + t * kFBLd, cols, 1, amax, a.fp8, a.pow2,
                                 a.eps, a.inType, codes + t * kFBCodeLd);
  if (t == 0) {
    if (a.rowScale)
      a.rowScale[mb * a.rowScaleStride + kb] = sInv;
    if (a.colScale)
      a.colScale[kb * a.colScaleStride + mb] = sInv;
  }
  __syncthreads();
  for (int i = t; i < kFB * kFB; i += blockDim.x) {
    int r = i / kFB, c = i % kFB;
    if (a.rowData && r < rows && c < cols)
      a.rowData[(m0 + r) * K + k0 + c] = codes[r * kFBCodeLd + c];
    int c2 = i / kFB, r2 = i % kFB;
    if (a.colData && r2 < rows && c2 < cols)
      a.colData[(k0 + c2) * M + m0 + r2] = codes[r2 * kFBCodeLd + c2];
  }
}

//===----------------------------------------------------------------------===//
// Tile kernel: 128x128 tiles (1x128 + 128x1, or 128x128 blocks)
//===----------------------------------------------------------------------===//
//
// The tile walk and thread layout of Tiles.cuh (the tensor tiles
// exactly: M % 128 == 0, K % 128 == 0). 1x128 rows are half-warps (shuffle
// xor 1..8); 128x1 columns: per-thread maxima over 8 rows, xor 16 over the
// warp's 16 rows, then the 8 warps' maxima through shared memory; 128x128: a
// block reduction. Scale buffers are written as 128 consecutive floats per
// tile (staged in shared memory). Per tile: 3 barriers (1x128), 3 (128x128).

/// Reduce-scatter of the maxima r[0..7] over the 8 lanes of an aligned lane
/// group (lane bits 0..2): returns the maximum of r[lane & 7] over the group,
/// in 7 shuffles instead of the 24 of 8 butterflies. Lanes exchange halves:
/// after step xor 4 a lane holds rows 4 b2 + 0..3, after xor 2 rows
/// 4 b2 + 2 b1 + 0..1, after xor 1 row 4 b2 + 2 b1 + b0 (b = lane bits).
__device__ __forceinline__ float reduceScatter8(const float r[8], int lane) {
  const bool b2 = lane & 4, b1 = lane & 2, b0 = lane & 1;
  float h[4], q[2];
#pragma unroll
  for (int k = 0; k < 4; ++k)
    h[k] = maxNum(b2 ? r[k + 4] : r[k],
                  __shfl_xor_sync(0xFFFFFFFFu, b2 ? r[k] : r[k + 4], 4));
#pragma unroll
  for (int k = 0; k < 2; ++k)
    q[k] = maxNum(b1 ? h[k + 2] : h[k],
                  __shfl_xor_sync(0xFFFFFFFFu, b1 ? h[k] : h[k + 2], 2));
  return maxNum(b0 ? q[1] : q[0],
                __shfl_xor_sync(0xFFFFFFFFu, b0 ? q[0] : q[1], 1));
}

template <InKind T, bool E5M2>
__global__ void __launch_bounds__(kFastThreads, 2)
    blockTileKernel(const Storage<T> *x, int64_t M, int64_t K, BlockArgs a) {
  constexpr int Stages = kTileStages<T>;
  extern __shared__ uint4 tileSmem[];
  __shared__ float part[8][kTile];
  __shared__ float colS[kTile];
  __shared__ float rowSInv[kTile];
  __shared__ float red[8];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int c = lane & 15, g = (warp << 1) | (lane >> 4);
  const int tilesM = static_cast<int>(M / kTile),
            tilesK = static_cast<int>(K / kTile), tiles = tilesM * tilesK;
  constexpr float fmax = E5M2 ? kE5M2Max : kE4M3Max;
  const float vInf = valueForInfBlock(a.inType);
  auto where = [&](int t, int64_t &row, int64_t &col) {
    int mb = 0, kb = 0;
    tileCoords32(t, tilesM, tilesK, kTileGroup, mb, kb);
    row = int64_t(mb) * kTile + 8 * g;
    col = int64_t(kb) * kTile + 8 * c;
    return true;
  };
  TilePipe<T, Stages> pipe(tileSmem);
  pipe.start(x, K, where, blockIdx.x, gridDim.x, tiles);
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int64_t row = 0, col = 0;
    where(t, row, col);
    const int64_t m0 = row - 8 * g, k0 = col - 8 * c;
    const int64_t tmb = m0 / kTile, tkb = k0 / kTile;
    RawRows<T> cur;
    pipe.take(cur);
    // Stages > 0: the pipe's next copy goes into the slot of the last tile,
    // whose transposed codes were staged there: after this tile's first
    // barrier (every thread is past the last tile's stores).
    const int tAhead = t + pipe.kDepth * gridDim.x;
    if constexpr (Stages == 0)
      pipe.advance(x, K, where, tAhead, tiles);
    uint2 codes[8];
    if (a.blockDim == 1) {
      float cm[8], rm[8];
      subTileMaxima<T>(cur, rm, cm);
      if (a.rowData) {
        // Row 8g + (c & 7)'s amax in lanes c and c ^ 8 of the half-warp, its
        // scale computed there once, then broadcast.
        const float s = computeScaleFromAmax(
            shflMax(reduceScatter8(rm, lane), 8), fmax, a.pow2, a.eps, vInf);
        if (c < 8)
          rowSInv[8 * g + c] = reciprocalRN(s);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          float v[8];
          unpackRow<T>(cur, i, v);
          const float si = __shfl_sync(0xFFFFFFFFu, s, (lane & 16) | i);
          store8(a.rowData + (row + i) * K + col, encodeScaled8(v, si, E5M2));
        }
      }
      if (a.colData) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          cm[j] = shflMax(cm[j], 16);
          if (lane < 16)
            part[warp][8 * c + j] = cm[j];
        }
      }
      __syncthreads(); // rowSInv, part
      if constexpr (Stages > 0)
        pipe.advance(x, K, where, tAhead, tiles);
      if (tid < kTile) {
        if (a.rowData)
          a.rowScale[tkb * a.rowScaleStride + m0 + tid] = rowSInv[tid];
        if (a.colData) {
          float m = part[0][tid];
#pragma unroll
          for (int w = 1; w < 8; ++w)
            m = maxNum(m, part[w][tid]);
          const float s = computeScaleFromAmax(m, fmax, a.pow2, a.eps, vInf);
          colS[tid] = s;
          a.colScale[tmb * a.colScaleStride + k0 + tid] = reciprocalRN(s);
        }
      }
      __syncthreads(); // colS; rowSInv and part are read before it
      if (a.colData) {
        float s[8];
#pragma unroll
        for (int j = 0; j < 8; ++j)
          s[j] = colS[8 * c + j];
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          float v[8];
          unpackRow<T>(cur, i, v);
          codes[i].x = encodeFP8x4(v[0] * s[0], v[1] * s[1], v[2] * s[2],
                                   v[3] * s[3], E5M2);
          codes[i].y = encodeFP8x4(v[4] * s[4], v[5] * s[5], v[6] * s[6],
                                   v[7] * s[7], E5M2);
        }
      }
    } else {
      float r = 0.0f;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float v[8];
        unpackRow<T>(cur, i, v);
#pragma unroll
        for (int j = 0; j < 8; ++j)
          r = maxNum(r, absBits(v[j]));
      }
      const float amax = blockMax256(r, red);
      if constexpr (Stages > 0)
        pipe.advance(x, K, where, tAhead, tiles);
      const float s = computeScaleFromAmax(amax, fmax, a.pow2, a.eps, vInf);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float v[8];
        unpackRow<T>(cur, i, v);
        codes[i] = encodeScaled8(v, s, E5M2);
        if (a.rowData)
          store8(a.rowData + (row + i) * K + col, codes[i]);
      }
      if (tid == 0) {
        const float sInv = reciprocalRN(s);
        if (a.rowScale)
          a.rowScale[tmb * a.rowScaleStride + tkb] = sInv;
        if (a.colScale)
          a.colScale[tkb * a.colScaleStride + tmb] = sInv;
      }
    }
    if (a.colData) {
      uint8_t *st =
          Stages > 0 ? pipe.current() : reinterpret_cast<uint8_t *>(tileSmem);
      stageTransposed(st, g, c, codes);
      __syncthreads(); // staged
      storeStagedTransposed(st, a.colData, k0, m0, M, kTile, kTile);
    }
  }
}

template <InKind T> struct BlockLaunch {
  static cudaError_t run(const void *x, int64_t M, int64_t K,
                         const BlockArgs &a, cudaStream_t stream) {
    const int64_t tiles = (M / kTile) * (K / kTile);
    if (tiles > INT32_MAX)
      return cudaErrorInvalidConfiguration;
    // The register pipe stages the transposed codes in one tile of its own.
    constexpr size_t smem = pipeSmem<T, kTileStages<T>>(kTile * kTile);
    auto launch = [&](auto kernel, int *perSM) {
      unsigned grid = tileGrid(kernel, perSM, tiles, smem);
      kernel<<<grid, kFastThreads, smem, stream>>>(
          static_cast<const Storage<T> *>(x), M, K, a);
      return cudaGetLastError();
    };
    static int perSM4 = 0, perSM5 = 0;
    if (a.fp8 == DType::E5M2)
      return launch(blockTileKernel<T, true>, &perSM5);
    return launch(blockTileKernel<T, false>, &perSM4);
  }
};

/// launchBlockQuantize on the tile kernel (blockFastPath holds).
cudaError_t launchBlockQuantizeFast(const void *x, int64_t M, int64_t K,
                                    const BlockArgs &args,
                                    cudaStream_t stream) {
  return dispatchIn<BlockLaunch>(args.inType, x, M, K, args, stream);
}

} // namespace

bool blockFastPath(const void *x, DType t, int64_t M, int64_t K,
                   const void *rowData, const void *colData) {
  return vectorInput(t) && M > 0 && K > 0 && M % 128 == 0 && K % 128 == 0 &&
         aligned(x, 16) && aligned(rowData, 8) && aligned(colData, 8);
}

cudaError_t launchBlockQuantize(const void *x, int64_t M, int64_t K,
                                const BlockArgs &args, cudaStream_t stream) {
  int64_t tilesM = (M + kFB - 1) / kFB, tilesK = (K + kFB - 1) / kFB;
  int64_t tiles = tilesM * tilesK;
  if (tiles == 0)
    return cudaSuccess;
  if (blockFastPath(x, args.inType, M, K, args.rowData, args.colData))
    return launchBlockQuantizeFast(x, M, K, args, stream);
  if (tiles > INT32_MAX)
    return cudaErrorInvalidConfiguration;
  static bool attributeSet = false;
  if (!attributeSet) {
    cudaError_t e = cudaFuncSetAttribute(
        blockQuantKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
        static_cast<int>(kBlockSmem));
    if (e != cudaSuccess)
      return e;
    attributeSet = true;
  }
  blockQuantKernel<<<static_cast<unsigned>(tiles), kFB, kBlockSmem, stream>>>(
      x, M, K, tilesK, args);
  return cudaGetLastError();
}

} // namespace te::rt::cuda
