//===- FastQuantize.cu - Bandwidth kernels of tile recipes -----*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Fast paths of the per-tensor FP8 (current/delayed), MXFP8 and Float8Block
// quantizations and of the tensor amax, for tensors whose 2-D view tiles
// exactly (see the *FastPath predicates in Kernels.h). The general kernels of
// Kernels.cu handle every other shape; both write the same bits.
//
// Structure: every thread owns an 8x8 sub-tile of x, read as 8 16-byte rows
// (8 bf16/f16, or 2x16 bytes of f32) that stay in registers. Block amaxes are
// register maxima combined with warp shuffles (and, for 128-row columns, a
// shared-memory exchange); the scale math is Format's (ScaleRules.h), the
// element cast is encodeFP8x4 (FastCodecs.cuh). Rowwise codes are stored as
// 8-byte rows, transposed codes as 8-byte columns of the sub-tile, transposed
// in registers with byte permutes; no shared-memory tile is needed.
//
// Warp tiles:
//   per-tensor, MXFP8: 32 rows x 64 columns; lane = 8 * rowGroup + colChunk
//     (rowGroup 0..3 of 8 rows, colChunk 0..7 of 8 columns); an MXFP8 1x32
//     block is 4 neighbouring lanes, a 32x1 block the 4 lanes of one colChunk.
//   Float8Block: 16 rows x 128 columns; lane = 16 * rowGroup + colChunk; a
//     thread block of 8 warps stacked along M is one 128x128 tile.
//
//===----------------------------------------------------------------------===//

#include "FastCodecs.cuh"
#include "Kernels.h"

#include "te/Format/Blocks.h"
#include "te/Format/Codecs.h"
#include "te/Format/ScaleRules.h"

#include <algorithm>
#include <cstdlib>

using namespace te::format;

namespace te::rt::cuda {
namespace {

constexpr int kFastThreads = 256;

bool aligned(const void *p, uintptr_t a) {
  return reinterpret_cast<uintptr_t>(p) % a == 0;
}

/// F32/BF16/F16, and the fast kernels are not switched off by the
/// environment variable TE_RT_CUDA_NO_FAST_KERNELS (for before/after timings).
bool vectorInput(DType t) {
  static const bool off = std::getenv("TE_RT_CUDA_NO_FAST_KERNELS") != nullptr;
  return !off && (t == DType::F32 || t == DType::BF16 || t == DType::F16);
}

int multiprocessors() {
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

template <InKind T> using Storage = typename InTraits<T>::Storage;

__device__ __forceinline__ float shflMax(float v, int mask) {
  return maxNum(v, __shfl_xor_sync(0xFFFFFFFFu, v, mask));
}

__device__ __forceinline__ void atomicMaxNonNegativeF(float *addr, float v) {
  atomicMax(reinterpret_cast<unsigned int *>(addr), __float_as_uint(v));
}

/// Loads the 8x8 sub-tile at (m, k) of the row-major [*, K] x.
template <InKind T>
__device__ __forceinline__ void loadSubTile(const Storage<T> *x, int64_t m,
                                            int64_t k, int64_t K,
                                            float v[8][8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i)
    load8<T>(x + (m + i) * K + k, v[i]);
}

__device__ __forceinline__ void store8(uint8_t *p, uint2 v) {
  *reinterpret_cast<uint2 *>(p) = v;
}

/// Stores the 8 columns of the 8x8 code block `codes` (rows) into the
/// transposed matrix: column j goes to tr[(k + j) * ld + m].
__device__ __forceinline__ void storeTransposed(uint8_t *tr, int64_t k,
                                                int64_t m, int64_t ld,
                                                const uint2 codes[8]) {
  store8(tr + (k + 0) * ld + m, column8<0>(codes));
  store8(tr + (k + 1) * ld + m, column8<1>(codes));
  store8(tr + (k + 2) * ld + m, column8<2>(codes));
  store8(tr + (k + 3) * ld + m, column8<3>(codes));
  store8(tr + (k + 4) * ld + m, column8<4>(codes));
  store8(tr + (k + 5) * ld + m, column8<5>(codes));
  store8(tr + (k + 6) * ld + m, column8<6>(codes));
  store8(tr + (k + 7) * ld + m, column8<7>(codes));
}

//===----------------------------------------------------------------------===//
// Amax
//===----------------------------------------------------------------------===//

template <InKind T>
__device__ __forceinline__ float loadOne(const Storage<T> *x, int64_t i) {
  if constexpr (T == InKind::F32)
    return x[i];
  else if constexpr (T == InKind::BF16)
    return bf16ToFloat(x[i]);
  else
    return f16ToFloat(x[i]);
}

template <InKind T>
__global__ void __launch_bounds__(kFastThreads)
    amaxFastKernel(const Storage<T> *x, int64_t n, float *amax) {
  const int64_t nv = n / 8;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  float m = 0.0f;
  for (; i + 3 * stride < nv; i += 4 * stride) {
    float v[4][8];
#pragma unroll
    for (int u = 0; u < 4; ++u)
      load8<T>(x + (i + u * stride) * 8, v[u]);
#pragma unroll
    for (int u = 0; u < 4; ++u)
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
    atomicMaxNonNegativeF(amax, r);
  }
}

//===----------------------------------------------------------------------===//
// Per-tensor FP8: cast (+ transpose) with one scale
//===----------------------------------------------------------------------===//

template <InKind T>
__global__ void __launch_bounds__(kFastThreads)
    perTensorFastKernel(const Storage<T> *x, int64_t M, int64_t K,
                        const float *scalePtr, bool e5m2, uint8_t *data,
                        uint8_t *tr, float *scaleInv, float *amaxOut) {
  const int lane = threadIdx.x & 31;
  const int cc = lane & 7, rg = lane >> 3;
  const int64_t tilesK = K / 64, tiles = (M / 32) * tilesK;
  const float scale = *scalePtr;
  float amax = 0.0f;
  const int64_t nWarps = (int64_t(gridDim.x) * blockDim.x) >> 5;
  for (int64_t w = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5;
       w < tiles; w += nWarps) {
    const int64_t m = (w / tilesK) * 32 + rg * 8;
    const int64_t k = (w % tilesK) * 64 + cc * 8;
    float v[8][8];
    loadSubTile<T>(x, m, k, K, v);
    uint2 codes[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      if (amaxOut)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          amax = maxNum(amax, absBits(v[i][j]));
      codes[i] = encodeScaled8(v[i], scale, e5m2);
      if (data)
        store8(data + (m + i) * K + k, codes[i]);
    }
    if (tr)
      storeTransposed(tr, k, m, M, codes);
  }
  if (amaxOut) {
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
      amax = shflMax(amax, off);
    if (lane == 0)
      atomicMaxNonNegativeF(amaxOut, amax);
  }
  if (scaleInv && blockIdx.x == 0 && threadIdx.x == 0)
    *scaleInv = reciprocalRN(scale);
}

//===----------------------------------------------------------------------===//
// MXFP8: 1x32 + 32x1 (or 32x32) blocks, compact scales
//===----------------------------------------------------------------------===//

template <InKind T>
__global__ void __launch_bounds__(kFastThreads, 2)
    mxfp8FastKernel(const Storage<T> *x, int64_t M, int64_t K, MXFP8Args a) {
  const int lane = threadIdx.x & 31;
  const int cc = lane & 7, rg = lane >> 3;
  const int64_t tilesK = K / 64, tiles = (M / 32) * tilesK;
  const bool e5m2 = a.fp8 == DType::E5M2;
  const int64_t nWarps = (int64_t(gridDim.x) * blockDim.x) >> 5;
  for (int64_t w = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5;
       w < tiles; w += nWarps) {
    const int64_t mBlock = (w / tilesK) * 32;
    const int64_t m = mBlock + rg * 8;
    const int64_t k = (w % tilesK) * 64 + cc * 8;
    float v[8][8];
    loadSubTile<T>(x, m, k, K, v);
    // Column maxima over the 32 rows of the block (4 lanes of one colChunk).
    float colMax[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      float c = 0.0f;
#pragma unroll
      for (int i = 0; i < 8; ++i)
        c = maxNum(c, absBits(v[i][j]));
      c = shflMax(c, 8);
      colMax[j] = shflMax(c, 16);
    }
    if (a.twoD) {
      float b = 0.0f;
#pragma unroll
      for (int j = 0; j < 8; ++j)
        b = maxNum(b, colMax[j]);
      b = shflMax(shflMax(b, 1), 2);
      const uint8_t e = mxfp8ScaleFromAmax(b, a.fp8, a.rounding);
      const float f = e8m0Reciprocal(e);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        uint2 c = encodeScaled8(v[i], f, e5m2);
        if (a.rowData)
          store8(a.rowData + (m + i) * K + k, c);
        if (a.colData)
          store8(a.colData + (m + i) * K + k, c);
        if (a.rowScale && (cc & 3) == 0)
          a.rowScale[(m + i) * a.rowScaleStride + k / 32] = e;
      }
      if (a.colScale && rg == 0)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          a.colScale[(mBlock / 32) * a.colScaleStride + k + j] = e;
      continue;
    }
    if (a.rowData) {
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float r = 0.0f;
#pragma unroll
        for (int j = 0; j < 8; ++j)
          r = maxNum(r, absBits(v[i][j]));
        r = shflMax(shflMax(r, 1), 2);
        const uint8_t e = mxfp8ScaleFromAmax(r, a.fp8, a.rounding);
        store8(a.rowData + (m + i) * K + k,
               encodeScaled8(v[i], e8m0Reciprocal(e), e5m2));
        if ((cc & 3) == 0)
          a.rowScale[(m + i) * a.rowScaleStride + k / 32] = e;
      }
    }
    if (a.colData) {
      float f[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const uint8_t e = mxfp8ScaleFromAmax(colMax[j], a.fp8, a.rounding);
        f[j] = e8m0Reciprocal(e);
        if (rg == 0)
          a.colScale[(mBlock / 32) * a.colScaleStride + k + j] = e;
      }
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        uint2 c;
        c.x = encodeFP8x4(v[i][0] * f[0], v[i][1] * f[1], v[i][2] * f[2],
                          v[i][3] * f[3], e5m2);
        c.y = encodeFP8x4(v[i][4] * f[4], v[i][5] * f[5], v[i][6] * f[6],
                          v[i][7] * f[7], e5m2);
        store8(a.colData + (m + i) * K + k, c);
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Float8Block: 1x128 + 128x1 (or 128x128) blocks, one 128x128 tile per block
//===----------------------------------------------------------------------===//

template <InKind T>
__global__ void __launch_bounds__(kFastThreads)
    blockFastKernel(const Storage<T> *x, int64_t M, int64_t K, int64_t tilesK,
                    BlockArgs a) {
  __shared__ float part[8][128];
  __shared__ float colMaxS[128];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const int cc = lane & 15, rg = lane >> 4;
  const int64_t mb = blockIdx.x / tilesK, kb = blockIdx.x % tilesK;
  const int64_t m0 = mb * 128, k0 = kb * 128;
  const int64_t m = m0 + warp * 16 + rg * 8, k = k0 + cc * 8;
  const bool e5m2 = a.fp8 == DType::E5M2;
  const float fmax = fp8Max(a.fp8), vInf = valueForInfBlock(a.inType);
  float v[8][8];
  loadSubTile<T>(x, m, k, K, v);
  if (a.blockDim == 1) {
    if (a.rowData) {
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float r = 0.0f;
#pragma unroll
        for (int j = 0; j < 8; ++j)
          r = maxNum(r, absBits(v[i][j]));
        r = shflMax(shflMax(shflMax(shflMax(r, 1), 2), 4), 8);
        const float s = computeScaleFromAmax(r, fmax, a.pow2, a.eps, vInf);
        store8(a.rowData + (m + i) * K + k, encodeScaled8(v[i], s, e5m2));
        if (cc == 0)
          a.rowScale[kb * a.rowScaleStride + m + i] = reciprocalRN(s);
      }
    }
    if (a.colData) {
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        float c = 0.0f;
#pragma unroll
        for (int i = 0; i < 8; ++i)
          c = maxNum(c, absBits(v[i][j]));
        c = shflMax(c, 16);
        if (rg == 0)
          part[warp][cc * 8 + j] = c;
      }
      __syncthreads();
      if (t < 128) {
        float c = 0.0f;
#pragma unroll
        for (int w = 0; w < 8; ++w)
          c = maxNum(c, part[w][t]);
        colMaxS[t] = c;
        a.colScale[mb * a.colScaleStride + k0 + t] =
            reciprocalRN(computeScaleFromAmax(c, fmax, a.pow2, a.eps, vInf));
      }
      __syncthreads();
      float s[8];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        s[j] = computeScaleFromAmax(colMaxS[cc * 8 + j], fmax, a.pow2, a.eps,
                                    vInf);
      uint2 codes[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        codes[i].x = encodeFP8x4(v[i][0] * s[0], v[i][1] * s[1], v[i][2] * s[2],
                                 v[i][3] * s[3], e5m2);
        codes[i].y = encodeFP8x4(v[i][4] * s[4], v[i][5] * s[5], v[i][6] * s[6],
                                 v[i][7] * s[7], e5m2);
      }
      storeTransposed(a.colData, k, m, M, codes);
    }
    return;
  }
  // 128x128: one scale for the tile.
  float r = 0.0f;
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      r = maxNum(r, absBits(v[i][j]));
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    r = shflMax(r, off);
  if (lane == 0)
    part[0][warp] = r;
  __syncthreads();
  float amax = 0.0f;
#pragma unroll
  for (int w = 0; w < 8; ++w)
    amax = maxNum(amax, part[0][w]);
  const float s = computeScaleFromAmax(amax, fmax, a.pow2, a.eps, vInf);
  uint2 codes[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    codes[i] = encodeScaled8(v[i], s, e5m2);
    if (a.rowData)
      store8(a.rowData + (m + i) * K + k, codes[i]);
  }
  if (a.colData)
    storeTransposed(a.colData, k, m, M, codes);
  if (t == 0) {
    const float sInv = reciprocalRN(s);
    if (a.rowScale)
      a.rowScale[mb * a.rowScaleStride + kb] = sInv;
    if (a.colScale)
      a.colScale[kb * a.colScaleStride + mb] = sInv;
  }
}

template <template <InKind> class F, typename... Args>
cudaError_t dispatchIn(DType t, Args &&...args) {
  switch (t) {
  case DType::BF16:
    return F<InKind::BF16>::run(args...);
  case DType::F16:
    return F<InKind::F16>::run(args...);
  default:
    return F<InKind::F32>::run(args...);
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

template <InKind T> struct PerTensorLaunch {
  static cudaError_t run(const void *x, int64_t M, int64_t K,
                         const float *scale, DType fp8, uint8_t *data,
                         uint8_t *tr, float *scaleInv, float *amaxOut,
                         cudaStream_t stream) {
    static int perSM = 0;
    int64_t tiles = (M / 32) * (K / 64);
    unsigned grid = warpGrid(perTensorFastKernel<T>, &perSM, tiles);
    perTensorFastKernel<T><<<grid, kFastThreads, 0, stream>>>(
        static_cast<const Storage<T> *>(x), M, K, scale, fp8 == DType::E5M2,
        data, tr, scaleInv, amaxOut);
    return cudaGetLastError();
  }
};

template <InKind T> struct MXFP8Launch {
  static cudaError_t run(const void *x, int64_t M, int64_t K,
                         const MXFP8Args &a, cudaStream_t stream) {
    static int perSM = 0;
    int64_t tiles = (M / 32) * (K / 64);
    unsigned grid = warpGrid(mxfp8FastKernel<T>, &perSM, tiles);
    mxfp8FastKernel<T><<<grid, kFastThreads, 0, stream>>>(
        static_cast<const Storage<T> *>(x), M, K, a);
    return cudaGetLastError();
  }
};

template <InKind T> struct BlockLaunch {
  static cudaError_t run(const void *x, int64_t M, int64_t K,
                         const BlockArgs &a, cudaStream_t stream) {
    int64_t tilesK = K / 128, tiles = (M / 128) * tilesK;
    if (tiles > INT32_MAX)
      return cudaErrorInvalidConfiguration;
    blockFastKernel<T>
        <<<static_cast<unsigned>(tiles), kFastThreads, 0, stream>>>(
            static_cast<const Storage<T> *>(x), M, K, tilesK, a);
    return cudaGetLastError();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Predicates and launchers
//===----------------------------------------------------------------------===//

bool amaxFastPath(const void *x, DType t) {
  return vectorInput(t) && aligned(x, 16);
}

bool perTensorFastPath(const void *x, DType t, int64_t M, int64_t K,
                       const void *data, const void *tr) {
  return vectorInput(t) && M > 0 && K > 0 && M % 32 == 0 && K % 64 == 0 &&
         aligned(x, 16) && aligned(data, 8) && aligned(tr, 8);
}

bool mxfp8FastPath(const void *x, DType t, int64_t M, int64_t K,
                   const void *rowData, const void *colData) {
  return vectorInput(t) && M > 0 && K > 0 && M % 32 == 0 && K % 64 == 0 &&
         aligned(x, 16) && aligned(rowData, 8) && aligned(colData, 8);
}

bool blockFastPath(const void *x, DType t, int64_t M, int64_t K,
                   const void *rowData, const void *colData) {
  return vectorInput(t) && M > 0 && K > 0 && M % 128 == 0 && K % 128 == 0 &&
         aligned(x, 16) && aligned(rowData, 8) && aligned(colData, 8);
}

cudaError_t launchAmaxFast(const void *x, DType dtype, int64_t n, float *amax,
                           cudaStream_t stream) {
  return dispatchIn<AmaxLaunch>(dtype, x, n, amax, stream);
}

cudaError_t launchPerTensorCastFast(const void *x, DType inType, int64_t M,
                                    int64_t K, const float *scale, DType fp8,
                                    uint8_t *data, uint8_t *transposed,
                                    float *scaleInv, float *amaxOut,
                                    cudaStream_t stream) {
  return dispatchIn<PerTensorLaunch>(inType, x, M, K, scale, fp8, data,
                                     transposed, scaleInv, amaxOut, stream);
}

cudaError_t launchMXFP8QuantizeFast(const void *x, int64_t M, int64_t K,
                                    const MXFP8Args &args,
                                    cudaStream_t stream) {
  return dispatchIn<MXFP8Launch>(args.inType, x, M, K, args, stream);
}

cudaError_t launchBlockQuantizeFast(const void *x, int64_t M, int64_t K,
                                    const BlockArgs &args,
                                    cudaStream_t stream) {
  return dispatchIn<BlockLaunch>(args.inType, x, M, K, args, stream);
}

} // namespace te::rt::cuda
