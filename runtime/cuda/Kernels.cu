//===- Kernels.cu - Quantize, dequantize and helper kernels -----*- CUDA
//-*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Every number these kernels write comes from the Format library's
// __host__ __device__ functions (Codecs.h, ScaleRules.h, Blocks.h,
// Hadamard.h, Philox.h, Swizzle.h), called on the same fp32 operands in the
// same order as the cpu backend, so that both backends write identical bits.
// The file is compiled with --fmad=false (see CMakeLists.txt).
//
// Structure: the tile formats (per-tensor FP8, Float8Block, MXFP8) read a
// tile of x once into shared memory and write the rowwise and the columnwise
// representation from it (fused cast + transpose). NVFP4 runs as the cpu
// backend does: amax, then the rowwise groups; for the columnwise copy a
// transposed (and RHT'd) fp32 copy, its amax, then its groups.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "te/Format/Blocks.h"
#include "te/Format/Codecs.h"
#include "te/Format/Hadamard.h"
#include "te/Format/Philox.h"
#include "te/Format/ScaleRules.h"
#include "te/Format/Swizzle.h"

#include <algorithm>

using namespace te::format;

namespace te::rt::cuda {
namespace {

constexpr int kThreads = 256;

/// Grid size for a grid-stride loop over n items.
unsigned gridFor(int64_t n, int threads = kThreads) {
  int64_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(
      std::max<int64_t>(1, std::min<int64_t>(blocks, 1 << 20)));
}

/// Reads element i of an F32/BF16/F16 tensor as float (exact).
__device__ __forceinline__ float loadAsFloat(const void *x, DType t,
                                             int64_t i) {
  switch (t) {
  case DType::BF16:
    return bf16ToFloat(static_cast<const uint16_t *>(x)[i]);
  case DType::F16:
    return f16ToFloat(static_cast<const uint16_t *>(x)[i]);
  default:
    return static_cast<const float *>(x)[i];
  }
}

__device__ __forceinline__ void storeFromFloat(void *out, DType t, int64_t i,
                                               float v) {
  switch (t) {
  case DType::BF16:
    static_cast<uint16_t *>(out)[i] = floatToBF16(v);
    break;
  case DType::F16:
    static_cast<uint16_t *>(out)[i] = floatToF16(v);
    break;
  default:
    static_cast<float *>(out)[i] = v;
    break;
  }
}

__device__ __forceinline__ int64_t minI64(int64_t a, int64_t b) {
  return a < b ? a : b;
}

__device__ __forceinline__ float absf(float v) {
  return floatOf(bitsOf(v) & 0x7FFFFFFFu);
}

/// Max-accumulates a non-negative, non-NaN float: the bits of such floats
/// order as unsigned integers.
__device__ __forceinline__ void atomicMaxNonNegative(float *addr, float v) {
  atomicMax(reinterpret_cast<unsigned int *>(addr), __float_as_uint(v));
}

/// Block-wide maxNum of non-negative values; the result is valid in thread 0.
__device__ float blockReduceMax(float v) {
  __shared__ float warpMax[32];
  for (int off = 16; off > 0; off /= 2)
    v = fmaxNum(v, __shfl_down_sync(0xFFFFFFFFu, v, off));
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0)
    warpMax[warp] = v;
  __syncthreads();
  float r = 0.0f;
  if (warp == 0) {
    int nWarps = (blockDim.x + 31) / 32;
    r = lane < nWarps ? warpMax[lane] : 0.0f;
    for (int off = 16; off > 0; off /= 2)
      r = fmaxNum(r, __shfl_down_sync(0xFFFFFFFFu, r, off));
  }
  __syncthreads();
  return r;
}

//===----------------------------------------------------------------------===//
// Conversions, amax, scalars
//===----------------------------------------------------------------------===//

__global__ void toFloatKernel(const void *x, DType t, int64_t n, float *out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    out[i] = loadAsFloat(x, t, i);
}

__global__ void fromFloatKernel(const float *x, int64_t n, void *out, DType t) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    storeFromFloat(out, t, i, x[i]);
}

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

__global__ void gemmScalarsKernel(float alpha, float beta, const float *amaxA,
                                  float e4m3MaxA, const float *amaxB,
                                  float e4m3MaxB, float *alphaBeta) {
  float a = alpha;
  if (amaxA)
    a = a * (*amaxA * (1.0f / (kE2M1Max * e4m3MaxA)));
  if (amaxB)
    a = a * (*amaxB * (1.0f / (kE2M1Max * e4m3MaxB)));
  alphaBeta[0] = a;
  alphaBeta[1] = beta;
}

__global__ void addBiasKernel(void *d, DType dType, const void *bias,
                              DType biasType, int64_t M, int64_t N) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < M * N;
       i += int64_t(gridDim.x) * blockDim.x) {
    float v = loadAsFloat(d, dType, i) + loadAsFloat(bias, biasType, i % N);
    storeFromFloat(d, dType, i, v);
  }
}

//===----------------------------------------------------------------------===//
// Per-tensor FP8: fused amax + cast + transpose, 64x64 tiles
//===----------------------------------------------------------------------===//

constexpr int kPT = 64;

__global__ void __launch_bounds__(kThreads)
    perTensorCastKernel(const void *x, DType inType, int64_t M, int64_t K,
                        int64_t tilesK, const float *scalePtr, DType fp8,
                        uint8_t *data, uint8_t *tr, float *scaleInv,
                        float *amaxOut) {
  __shared__ uint8_t codes[kPT][kPT + 4];
  const int64_t mb = blockIdx.x / tilesK, kb = blockIdx.x % tilesK;
  const int64_t m0 = mb * kPT, k0 = kb * kPT;
  const float scale = *scalePtr;
  float amax = 0.0f;
  for (int i = threadIdx.x; i < kPT * kPT; i += blockDim.x) {
    int r = i / kPT, c = i % kPT;
    int64_t m = m0 + r, k = k0 + c;
    uint8_t code = 0;
    if (m < M && k < K) {
      float v = loadAsFloat(x, inType, m * K + k);
      amax = fmaxNum(amax, absf(v));
      code = quantizeFP8Element(v, scale, fp8);
      if (data)
        data[m * K + k] = code;
    }
    codes[r][c] = code;
  }
  if (amaxOut) {
    amax = blockReduceMax(amax);
    if (threadIdx.x == 0)
      atomicMaxNonNegative(amaxOut, amax);
  }
  if (tr) {
    __syncthreads();
    for (int i = threadIdx.x; i < kPT * kPT; i += blockDim.x) {
      int c = i / kPT, r = i % kPT;
      int64_t m = m0 + r, k = k0 + c;
      if (m < M && k < K)
        tr[k * M + m] = codes[r][c];
    }
  }
  if (scaleInv && blockIdx.x == 0 && threadIdx.x == 0)
    *scaleInv = reciprocalRN(scale);
}

//===----------------------------------------------------------------------===//
// Float8Block: 128x128 tiles in shared memory
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
// MXFP8: 64x64 tiles
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
// NVFP4
//===----------------------------------------------------------------------===//

constexpr int kNV = kNVFP4BlockSize; // 16

__global__ void nvfp4TransposeKernel(const float *x, int64_t M, int64_t K,
                                     bool rht, uint32_t signMask, float *xt) {
  const int64_t chunks = M / kNV;
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       idx < chunks * K; idx += int64_t(gridDim.x) * blockDim.x) {
    int64_t mc = idx / K, k = idx % K;
    float in[kNV], out[kNV];
    for (int i = 0; i < kNV; ++i)
      in[i] = x[(mc * kNV + i) * K + k];
    if (rht)
      rht16(in, signMask, out);
    else
      for (int i = 0; i < kNV; ++i)
        out[i] = in[i];
    float4 *dst = reinterpret_cast<float4 *>(xt + k * M + mc * kNV);
    for (int i = 0; i < kNV / 4; ++i)
      dst[i] = make_float4(out[4 * i], out[4 * i + 1], out[4 * i + 2],
                           out[4 * i + 3]);
  }
}

/// The cpu backend's nvfp4SRGroup.
__device__ void nvfp4SRGroup(const NVFP4Args &j, const float *x, int64_t r,
                             int64_t c0, uint8_t code, float globalAmax,
                             uint8_t *nib) {
  float sEnc = nvfp4GlobalEncodeScale(globalAmax, kE4M3Max);
  float factor = nvfp4ElementFactor(code, nvfp4GlobalDecodeScale(sEnc));
  for (int i = 0; i < kNV; ++i) {
    uint64_t idx = static_cast<uint64_t>(r * j.C + c0 + i);
    nib[i] = stochasticRoundE2M1(x[i] * factor,
                                 philoxRandomByte(j.seed, j.offset, idx));
  }
}

__device__ __forceinline__ void
nvfp4StoreGroup(const NVFP4Args &j, int64_t r, int64_t c0, const uint8_t *nib) {
  uint64_t packed = 0;
  for (int i = 0; i < kNV; i += 2)
    packed |= static_cast<uint64_t>(packE2M1x2(nib[i], nib[i + 1])) << (4 * i);
  *reinterpret_cast<uint64_t *>(j.data + r * (j.C / 2) + c0 / 2) = packed;
}

__global__ void nvfp4Quant1DKernel(NVFP4Args j) {
  const int64_t groups = j.C / kNV;
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       idx < j.R * groups; idx += int64_t(gridDim.x) * blockDim.x) {
    int64_t r = idx / groups, gI = idx % groups, c0 = gI * kNV;
    float x[kNV];
    const float4 *src = reinterpret_cast<const float4 *>(j.src + r * j.C + c0);
    for (int i = 0; i < kNV / 4; ++i) {
      float4 v = src[i];
      x[4 * i] = v.x;
      x[4 * i + 1] = v.y;
      x[4 * i + 2] = v.z;
      x[4 * i + 3] = v.w;
    }
    float g = j.rowAmax ? j.rowAmax[r] : *j.amax;
    float bam = blockAmax(x, kNV, 1);
    uint8_t code, nib[kNV];
    if (j.stochasticRounding) {
      code = nvfp4BlockScaleCode(bam, nvfp4GlobalEncodeScale(g, kE4M3Max));
      nvfp4SRGroup(j, x, r, c0, code, g, nib);
    } else {
      quantizeNVFP4Block(x, kNV, 1, bam, g, j.use4over6, j.e4m3Max, j.errMode,
                         nib, &code);
    }
    j.scales[r * j.scaleStride + gI] = code;
    nvfp4StoreGroup(j, r, c0, nib);
  }
}

__global__ void nvfp4Quant2DKernel(NVFP4Args j) {
  const int64_t tileRows = j.R / kNV, tileCols = j.C / kNV;
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       idx < tileRows * tileCols; idx += int64_t(gridDim.x) * blockDim.x) {
    int64_t tr = idx / tileCols, tc = idx % tileCols;
    const float *x = j.src + tr * kNV * j.C + tc * kNV;
    float g = *j.amax;
    uint8_t nib[kNV * kNV];
    uint8_t code = quantizeNVFP4Tile(x, j.C, /*columnGroups=*/false, g,
                                     j.use4over6, j.e4m3Max, j.errMode, nib);
    for (int gI = 0; gI < kNV; ++gI) {
      int64_t r = tr * kNV + gI;
      if (j.stochasticRounding)
        nvfp4SRGroup(j, x + gI * j.C, r, tc * kNV, code, g, nib + gI * kNV);
      j.scales[r * j.scaleStride + tc] = code;
      nvfp4StoreGroup(j, r, tc * kNV, nib + gI * kNV);
    }
  }
}

//===----------------------------------------------------------------------===//
// Dequantize
//===----------------------------------------------------------------------===//

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
// Swizzle, delayed-scaling update
//===----------------------------------------------------------------------===//

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

} // namespace

//===----------------------------------------------------------------------===//
// Launchers
//===----------------------------------------------------------------------===//

cudaError_t probeKernels() {
  cudaFuncAttributes attributes;
  return cudaFuncGetAttributes(&attributes, perTensorCastKernel);
}

cudaError_t launchToFloat(const void *x, DType dtype, int64_t n, float *out,
                          cudaStream_t stream) {
  if (n > 0)
    toFloatKernel<<<gridFor(n), kThreads, 0, stream>>>(x, dtype, n, out);
  return cudaGetLastError();
}

cudaError_t launchFromFloat(const float *x, int64_t n, void *out, DType outType,
                            cudaStream_t stream) {
  if (n > 0)
    fromFloatKernel<<<gridFor(n), kThreads, 0, stream>>>(x, n, out, outType);
  return cudaGetLastError();
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

cudaError_t launchGemmScalars(float alpha, float beta, const float *amaxA,
                              float e4m3MaxA, const float *amaxB,
                              float e4m3MaxB, float *alphaBeta,
                              cudaStream_t stream) {
  gemmScalarsKernel<<<1, 1, 0, stream>>>(alpha, beta, amaxA, e4m3MaxA, amaxB,
                                         e4m3MaxB, alphaBeta);
  return cudaGetLastError();
}

cudaError_t launchAddBias(void *d, DType dType, const void *bias,
                          DType biasType, int64_t M, int64_t N,
                          cudaStream_t stream) {
  if (M * N > 0)
    addBiasKernel<<<gridFor(M * N), kThreads, 0, stream>>>(d, dType, bias,
                                                           biasType, M, N);
  return cudaGetLastError();
}

cudaError_t launchPerTensorCast(const void *x, DType inType, int64_t M,
                                int64_t K, const float *scale, DType fp8,
                                uint8_t *data, uint8_t *transposed,
                                float *scaleInv, float *amaxOut,
                                cudaStream_t stream) {
  int64_t tilesM = (M + kPT - 1) / kPT, tilesK = (K + kPT - 1) / kPT;
  int64_t tiles = tilesM * tilesK;
  if (tiles == 0) {
    if (scaleInv)
      return launchReciprocal(scale, scaleInv, stream);
    return cudaSuccess;
  }
  if (perTensorFastPath(x, inType, M, K, data, transposed))
    return launchPerTensorCastFast(x, inType, M, K, scale, fp8, data,
                                   transposed, scaleInv, amaxOut, stream);
  if (tiles > INT32_MAX)
    return cudaErrorInvalidConfiguration;
  perTensorCastKernel<<<static_cast<unsigned>(tiles), kThreads, 0, stream>>>(
      x, inType, M, K, tilesK, scale, fp8, data, transposed, scaleInv, amaxOut);
  return cudaGetLastError();
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

cudaError_t launchNVFP4Transpose(const float *x, int64_t M, int64_t K, bool rht,
                                 uint32_t signMask, float *xt,
                                 cudaStream_t stream) {
  int64_t n = (M / kNV) * K;
  if (n > 0)
    nvfp4TransposeKernel<<<gridFor(n, 128), 128, 0, stream>>>(x, M, K, rht,
                                                              signMask, xt);
  return cudaGetLastError();
}

cudaError_t launchNVFP4Quantize(const NVFP4Args &args, cudaStream_t stream) {
  if (args.R <= 0 || args.C <= 0)
    return cudaSuccess;
  if (args.twoD) {
    int64_t n = (args.R / kNV) * (args.C / kNV);
    nvfp4Quant2DKernel<<<gridFor(n, 64), 64, 0, stream>>>(args);
  } else {
    int64_t n = args.R * (args.C / kNV);
    nvfp4Quant1DKernel<<<gridFor(n, 128), 128, 0, stream>>>(args);
  }
  return cudaGetLastError();
}

cudaError_t launchDequantize(const DequantArgs &args, cudaStream_t stream) {
  int64_t n = args.M * args.K;
  if (n > 0)
    dequantKernel<<<gridFor(n), kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

cudaError_t launchSwizzle(const uint8_t *in, uint8_t *out, int64_t R, int64_t C,
                          bool transposed, bool toSwizzled,
                          cudaStream_t stream) {
  if (R * C > 0)
    swizzleKernel<<<gridFor(R * C), kThreads, 0, stream>>>(
        in, out, R, C, transposed, toSwizzled);
  return cudaGetLastError();
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
