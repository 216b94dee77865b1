//===- QuantizeNVFP4.cu - NVFP4 quantization -------------------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// The NVFP4 kernels of QuantizeNVFP4.h.
//
// Fused kernels: NVFP4 (1D: 1x16 rowwise, 16x1 columnwise) for x [M, K] that
// tiles into 64x128 tiles (kNVFP4TileM x kNVFP4TileK). One thread block per
// tile:
//  * load: the tile is read once with 16-byte loads (all of a thread's loads
//    issued before the first shared-memory store) into a shared-memory tile
//    of x's own type (bf16/f16/f32; rows padded by 16 bytes so that the
//    16-byte row reads below are conflict-free); no fp32 staging copy.
//  * rowwise: thread t owns 32 elements of row t % 64 (two 1x16 groups):
//    block amax, Format's block scale value encoded by the hardware E4M3
//    cvt (encodeFP8x4), the element factor from a per-block table of
//    Format's nvfp4ElementFactor, E2M1 codes (encodeE2M1Fast, or
//    stochasticRoundE2M1Fast with the bytes of one philox4x32 per group at
//    philoxRandomByte's counter), one 16-byte store of 32 codes.
//  * columnwise (bf16/f16): thread t owns 16 rows of the columns
//    2 (t % 64), +1 (one 32-bit shared-memory word per row; one 16x1 group,
//    an RHT chunk when the RHT is on, per column), each stored transposed
//    as 8 bytes of the [K, M] columnwise data; f32: 32 rows of column
//    t % 128, one 16-byte store.
//  * RHT: rht16 (QuantizeNVFP4.h): Walsh-Hadamard butterflies in float or
//    double where the exponent span of the chunk makes every partial sum
//    exact, else Format's sequential double sum; the same bf16 results.
// BF16 inputs take nvfp4Fused16Kernel<RHT, SR> instead: the same
// values, with an unpadded XOR-swizzled tile (swz), lanes mapped so that
// every code store covers whole 32-byte sectors (4 lanes per row / column),
// the plain E2M1 cast 8 elements at a time (encodeE2M1x8), and RHT / SR as
// template arguments (48 registers for the plain kernel instead of 119).
// The global amaxes come from a first pass (launchAmax, or
// launchNVFP4AmaxRHT with the RHT; AmaxScale.cu). Every value is computed by
// Format's functions or provably equal to them (encodeE2M1Fast,
// stochasticRoundE2M1Fast, rht16, rht16Amax: tested against Format in
// CudaNVFP4Test.cu; encodeFP8x4 in CudaFastPathTest.cu), so the bits are the
// cpu backend's.
//
// General kernels (the quantizers and shapes the fused kernels do not take:
// row-scaled amaxes, 4over6, 16x16 tiles with SR, an RHT copy or an f32/f16
// x, untiled shapes), as the cpu backend: on fp32 rows,
// nvfp4Quant1DKernel (one thread per 1x16 group: Format's quantizeNVFP4Block,
// or SR through philoxRandomByte with the cpu backend's element -> counter
// mapping) or nvfp4Quant2DKernel (one thread per 16x16 tile, Format's
// quantizeNVFP4Tile); the columnwise copy from a transposed fp32 copy with
// the RHT (nvfp4TransposeKernel, Format's rht16).
//
//===----------------------------------------------------------------------===//

#include "QuantizeNVFP4.h"

#include "Codecs.cuh"
#include "KernelCommon.cuh"

#include "te/Format/Blocks.h"
#include "te/Format/Codecs.h"
#include "te/Format/Hadamard.h"
#include "te/Format/Philox.h"
#include "te/Format/ScaleRules.h"
#include "te/Format/Types.h"

#include <cstdlib>

using namespace te::format;

namespace te::rt::cuda {
namespace {

//===----------------------------------------------------------------------===//
// Fused kernels: 64x128 tiles
//===----------------------------------------------------------------------===//

constexpr int kTM = kNVFP4TileM, kTK = kNVFP4TileK;
constexpr int kG = kNVFP4BlockSize; // 16

__device__ __forceinline__ float groupAmax(const float *v) {
  float m = 0.0f;
#pragma unroll
  for (int i = 0; i < kG; ++i)
    m = fmaxf(m, absBits(v[i]));
  return m;
}

/// Codes 0 .. kFactorCodes - 1: every E4M3 code of a non-negative, non-NaN
/// block scale value (0x7E is the largest finite one).
constexpr uint32_t kFactorCodes = 0x7F;

/// Format's nvfp4ElementFactor(c, sDec): from `table` (the same function of
/// the same sDec, evaluated once per code and thread block) for the codes it
/// holds, else (negative or NaN block scales) computed here.
__device__ __forceinline__ float elementFactor(const float *table, uint32_t c,
                                               float sDec) {
  return c < kFactorCodes ? table[c]
                          : nvfp4ElementFactor(static_cast<uint8_t>(c), sDec);
}

/// The 16 E2M1 codes of v[i] * factor packed into 8 bytes (element i in
/// nibble i), as nvfp4EncodeBlock / the cpu backend's nvfp4SRGroup.
__device__ __forceinline__ uint2 encodeGroup(const float *v, float factor,
                                             bool sr, uint64_t seed,
                                             uint64_t offset, uint64_t index0) {
  uint32_t w[2] = {0u, 0u};
  if (sr) {
    // philoxRandomByte(seed, offset, index0 + i) for the 16 elements of a
    // group starting at a multiple of 16: byte i of one Philox4x32 output,
    // counter offset + index0 / 16 (te_rt.h; checked against the cpu
    // backend's philoxRandomByte calls by the SR cases of CudaQuantize).
    const uint64_t block = index0 / 16 + offset;
    const uint32_t counter[4] = {static_cast<uint32_t>(block),
                                 static_cast<uint32_t>(block >> 32), 0u, 0u};
    const uint32_t key[2] = {static_cast<uint32_t>(seed),
                             static_cast<uint32_t>(seed >> 32)};
    uint32_t rnd[4];
    philox4x32(counter, key, rnd);
#pragma unroll
    for (int i = 0; i < kG; ++i)
      w[i / 8] |= stochasticRoundE2M1Fast(v[i] * factor,
                                          (rnd[i / 4] >> (8 * (i % 4))) & 0xFFu)
                  << (4 * (i % 8));
  } else {
#pragma unroll
    for (int i = 0; i < kG; ++i)
      w[i / 8] |= encodeE2M1Fast(v[i] * factor) << (4 * (i % 8));
  }
  return make_uint2(w[0], w[1]);
}

/// Two 1x16 groups v0, v1 (first elements index0, index1 of their
/// representation): their scale codes, Format's nvfp4BlockScaleCode with the
/// E4M3 encode through encodeFP8x4 (Codecs.cuh, Format's encodeE4M3 on
/// all 2^32 floats), and their codes with the element factors from `table`.
__device__ __forceinline__ void
quantizeGroupPair(const float *v0, const float *v1, float sEnc, float sDec,
                  const float *table, bool sr, uint64_t seed, uint64_t offset,
                  uint64_t index0, uint64_t index1, uint8_t code[2],
                  uint2 q[2]) {
  const uint32_t codes =
      encodeFP8x4(nvfp4BlockScaleValue(groupAmax(v0), sEnc),
                  nvfp4BlockScaleValue(groupAmax(v1), sEnc), 0.0f, 0.0f,
                  /*e5m2=*/false);
  const uint32_t c0 = codes & 0xFFu, c1 = (codes >> 8) & 0xFFu;
  code[0] = static_cast<uint8_t>(c0);
  code[1] = static_cast<uint8_t>(c1);
  q[0] =
      encodeGroup(v0, elementFactor(table, c0, sDec), sr, seed, offset, index0);
  q[1] =
      encodeGroup(v1, elementFactor(table, c1, sDec), sr, seed, offset, index1);
}

template <InKind T>
__global__ void __launch_bounds__(kThreads)
    nvfp4FusedKernel(const NVFP4FusedArgs a) {
  using S = Storage<T>;
  constexpr int kPerVec = 16 / sizeof(S);             // elements per 16 bytes
  constexpr int kLd = kTK + kPerVec;                  // padded row (elements)
  constexpr int kVecPerRow = kTK / kPerVec;           // 16 (bf16) or 32 (f32)
  constexpr int kLoads = kTM * kVecPerRow / kThreads; // 4 or 8
  __shared__ __align__(16) S tile[kTM * kLd];
  __shared__ float factors[2][kFactorCodes]; // rowwise, columnwise

  const int64_t M = a.M, K = a.K;
  const int64_t tilesK = K / kTK;
  const int64_t m0 = (blockIdx.x / tilesK) * kTM;
  const int64_t k0 = (blockIdx.x % tilesK) * kTK;
  const int t = threadIdx.x;
  const S *x = static_cast<const S *>(a.x);

  uint4 buf[kLoads];
#pragma unroll
  for (int i = 0; i < kLoads; ++i) {
    int v = t + i * kThreads, r = v / kVecPerRow, c = v % kVecPerRow;
    buf[i] = __ldcs(
        reinterpret_cast<const uint4 *>(x + (m0 + r) * K + k0 + c * kPerVec));
  }
#pragma unroll
  for (int i = 0; i < kLoads; ++i) {
    int v = t + i * kThreads, r = v / kVecPerRow, c = v % kVecPerRow;
    *reinterpret_cast<uint4 *>(tile + r * kLd + c * kPerVec) = buf[i];
  }
  float sEncRow = 0.0f, sDecRow = 0.0f, sEncCol = 0.0f, sDecCol = 0.0f;
  if (a.rowData) {
    sEncRow = nvfp4GlobalEncodeScale(*a.amax, kE4M3Max);
    sDecRow = nvfp4GlobalDecodeScale(sEncRow);
  }
  if (a.colData) {
    sEncCol = nvfp4GlobalEncodeScale(*a.amaxCol, kE4M3Max);
    sDecCol = nvfp4GlobalDecodeScale(sEncCol);
  }
  static_assert(kThreads >= 128 + kFactorCodes, "one table entry per thread");
  if (t < static_cast<int>(kFactorCodes) && a.rowData)
    factors[0][t] = nvfp4ElementFactor(static_cast<uint8_t>(t), sDecRow);
  if (t >= 128 && t < 128 + static_cast<int>(kFactorCodes) && a.colData)
    factors[1][t - 128] =
        nvfp4ElementFactor(static_cast<uint8_t>(t - 128), sDecCol);
  __syncthreads();

  if (a.rowData) {
    const int r = t % kTM, c0 = (t / kTM) * 2 * kG;
    float v[2 * kG];
#pragma unroll
    for (int i = 0; i < 2 * kG / kPerVec; ++i) {
      unpack16<T>(
          *reinterpret_cast<const uint4 *>(tile + r * kLd + c0 + i * kPerVec),
          v + i * kPerVec);
    }
    const int64_t m = m0 + r, k = k0 + c0;
    uint8_t code[2];
    uint2 q[2];
    quantizeGroupPair(v, v + kG, sEncRow, sDecRow, factors[0],
                      a.stochasticRounding, a.seed, a.rowOffset,
                      uint64_t(m * K + k), uint64_t(m * K + k + kG), code, q);
    *reinterpret_cast<uint4 *>(a.rowData + m * (K / 2) + k / 2) =
        make_uint4(q[0].x, q[0].y, q[1].x, q[1].y);
    uint8_t *sc = a.rowScale + m * a.rowScaleStride + k / kG;
    sc[0] = code[0];
    sc[1] = code[1];
  }

  if (a.colData) {
    if constexpr (T == InKind::F32) {
      // Thread t: rows r0 .. r0+31 of column t % 128 (two groups).
      const int c = t % kTK, r0 = (t / kTK) * 2 * kG;
      float v[2 * kG];
#pragma unroll
      for (int i = 0; i < 2 * kG; ++i)
        v[i] = tile[(r0 + i) * kLd + c];
      if (a.rht) {
        rht16(v, a.signMask, sigBits<T>());
        rht16(v + kG, a.signMask, sigBits<T>());
      }
      const int64_t k = k0 + c, m = m0 + r0;
      uint8_t code[2];
      uint2 q[2];
      quantizeGroupPair(v, v + kG, sEncCol, sDecCol, factors[1],
                        a.stochasticRounding, a.seed, a.colOffset,
                        uint64_t(k * M + m), uint64_t(k * M + m + kG), code, q);
      *reinterpret_cast<uint4 *>(a.colData + k * (M / 2) + m / 2) =
          make_uint4(q[0].x, q[0].y, q[1].x, q[1].y);
      uint8_t *sc = a.colScale + k * a.colScaleStride + m / kG;
      sc[0] = code[0];
      sc[1] = code[1];
    } else {
      // Thread t: rows r0 .. r0+15 of columns c, c+1 (one 32-bit word per
      // row, one group per column).
      const int c = 2 * (t % (kTK / 2)), r0 = (t / (kTK / 2)) * kG;
      float v[2][kG];
#pragma unroll
      for (int i = 0; i < kG; ++i) {
        float pair[2];
        unpackWord<T>(
            *reinterpret_cast<const uint32_t *>(tile + (r0 + i) * kLd + c),
            pair);
        v[0][i] = pair[0];
        v[1][i] = pair[1];
      }
      if (a.rht) {
        rht16(v[0], a.signMask, sigBits<T>());
        rht16(v[1], a.signMask, sigBits<T>());
      }
      const int64_t k = k0 + c, m = m0 + r0;
      uint8_t code[2];
      uint2 q[2];
      quantizeGroupPair(v[0], v[1], sEncCol, sDecCol, factors[1],
                        a.stochasticRounding, a.seed, a.colOffset,
                        uint64_t(k * M + m), uint64_t((k + 1) * M + m), code,
                        q);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        *reinterpret_cast<uint2 *>(a.colData + (k + h) * (M / 2) + m / 2) =
            q[h];
        a.colScale[(k + h) * a.colScaleStride + m / kG] = code[h];
      }
    }
  }
}

/// Format's nvfp4EncodeBlock of one 1x16 group held as 8 words of two 16-bit
/// elements (element 2i in the low half of word i) times `factor`: the 16
/// E2M1 codes packed into 8 bytes, by encodeE2M1x8 (or SR as encodeGroup).
template <InKind T, bool SR>
__device__ __forceinline__ uint2 encodeWords(const uint32_t *w, float factor,
                                             uint64_t seed, uint64_t offset,
                                             uint64_t index0) {
  float v[kG];
#pragma unroll
  for (int i = 0; i < kG / 2; ++i)
    unpackWord<T>(w[i], v + 2 * i);
  if constexpr (SR) {
    return encodeGroup(v, factor, true, seed, offset, index0);
  } else {
    float y[kG];
#pragma unroll
    for (int i = 0; i < kG; ++i)
      y[i] = v[i] * factor;
    return make_uint2(encodeE2M1x8(y), encodeE2M1x8(y + 8));
  }
}

/// Largest |element| of 16-bit words (NaNs ignored, as groupAmax).
template <InKind T>
__device__ __forceinline__ float wordsAmax(const uint32_t *w, int n) {
  float m = 0.0f;
#pragma unroll
  for (int i = 0; i < n; ++i) {
    float v[2];
    unpackWord<T>(w[i], v);
    m = fmaxf(m, absBits(v[0]));
    m = fmaxf(m, absBits(v[1]));
  }
  return m;
}

/// Row swizzle of the 16-bit kernel's shared tile (64 rows of 16 16-byte
/// chunks, no padding): chunk c of row r is stored at chunk c ^ swz(r). Bits
/// 1-2 (the row's 16-row block) spread the columnwise reads, whose lanes
/// read one word of 4 rows 16 apart; bit 0 (the row's parity) the rowwise
/// 16-byte reads, whose quarter-warps read 4 chunks of 2 adjacent rows.
__device__ __forceinline__ int swz(int r) {
  return (((r >> 4) & 3) << 1) ^ (r & 1);
}

/// The fused kernel for 16-bit inputs (BF16), with every global store
/// covering whole 32-byte sectors: thread t quantizes the two rowwise groups
/// of row t / 4, columns 32 (t % 4) .. +31 (one 16-byte store; the 4 lanes
/// of a row write its 64 bytes), and the columnwise groups of rows 16 j ..
/// 16 j + 15, j = lane % 4, of the columns 2 p, 2 p + 1, p = 8 warp + lane / 4
/// (8-byte stores; the 4 lanes of a column write its 32 bytes). RHT and SR
/// are template arguments, so that the plain kernel holds no registers for
/// them. TWO_D (16x16 tiles, Format's quantizeNVFP4Tile without 4over6):
/// every group takes the amax of its 16x16 tile, computed once per tile from
/// the shared tile (8 threads per tile, 2 rows each); the codes are then the
/// 1D kernel's with that amax, rowwise and columnwise alike.
template <InKind T, bool RHT, bool SR, bool TWO_D = false>
__global__ void __launch_bounds__(kThreads)
    nvfp4Fused16Kernel(const NVFP4FusedArgs a) {
  static_assert(T != InKind::F32, "16-bit inputs");
  static_assert(!TWO_D || (!RHT && !SR), "2D tiles: plain rounding, no RHT");
  constexpr int kChunks = kTK / 8; // 16-byte chunks per tile row
  __shared__ __align__(16) uint4 tile[kTM * kChunks];
  __shared__ float factors[2][kFactorCodes]; // rowwise, columnwise
  // TWO_D: the amax of 16x16 tile (i, j) of the 64x128 block.
  __shared__ float tileAmax[TWO_D ? kTM / kG : 1][TWO_D ? kTK / kG : 1];

  const int64_t M = a.M, K = a.K;
  const int64_t tilesK = K / kTK;
  const int64_t m0 = (blockIdx.x / tilesK) * kTM;
  const int64_t k0 = (blockIdx.x % tilesK) * kTK;
  const int t = threadIdx.x;
  const uint16_t *x = static_cast<const uint16_t *>(a.x);

  constexpr int kLoads = kTM * kChunks / kThreads; // 4
  uint4 buf[kLoads];
#pragma unroll
  for (int i = 0; i < kLoads; ++i) {
    int v = t + i * kThreads, r = v / kChunks, c = v % kChunks;
    buf[i] =
        __ldcs(reinterpret_cast<const uint4 *>(x + (m0 + r) * K + k0 + c * 8));
  }
#pragma unroll
  for (int i = 0; i < kLoads; ++i) {
    int v = t + i * kThreads, r = v / kChunks, c = v % kChunks;
    tile[r * kChunks + (c ^ swz(r))] = buf[i];
  }
  float sEncRow = 0.0f, sDecRow = 0.0f, sEncCol = 0.0f, sDecCol = 0.0f;
  if (a.rowData) {
    sEncRow = nvfp4GlobalEncodeScale(*a.amax, kE4M3Max);
    sDecRow = nvfp4GlobalDecodeScale(sEncRow);
  }
  if (a.colData) {
    sEncCol = nvfp4GlobalEncodeScale(*a.amaxCol, kE4M3Max);
    sDecCol = nvfp4GlobalDecodeScale(sEncCol);
  }
  if (t < static_cast<int>(kFactorCodes) && a.rowData)
    factors[0][t] = nvfp4ElementFactor(static_cast<uint8_t>(t), sDecRow);
  if (t >= 128 && t < 128 + static_cast<int>(kFactorCodes) && a.colData)
    factors[1][t - 128] =
        nvfp4ElementFactor(static_cast<uint8_t>(t - 128), sDecCol);
  __syncthreads();

  if constexpr (TWO_D) {
    static_assert(kThreads == 8 * (kTM / kG) * (kTK / kG), "8 threads a tile");
    // Thread t: rows 2 (t % 8), +1 of tile t / 8 (its two 16-byte chunks
    // per row); the 8 threads of a tile are adjacent lanes.
    const int ti = t >> 3, part = t & 7;
    const int tr = ti / (kTK / kG), tc = ti % (kTK / kG);
    uint32_t w[16];
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        const int r = kG * tr + 2 * part + h;
        const uint4 u = tile[r * kChunks + ((2 * tc + k) ^ swz(r))];
        w[8 * h + 4 * k] = u.x;
        w[8 * h + 4 * k + 1] = u.y;
        w[8 * h + 4 * k + 2] = u.z;
        w[8 * h + 4 * k + 3] = u.w;
      }
    float m = wordsAmax<T>(w, 16);
#pragma unroll
    for (int o = 1; o < 8; o *= 2)
      m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
    if (part == 0)
      tileAmax[tr][tc] = m;
    __syncthreads();
  }

  if (a.rowData) {
    const int r = t >> 2, g = t & 3;
    // Lanes with g >= 2 read their two groups in the other order (chunks
    // 4 g + (k ^ 2)), so that a quarter-warp's 8 reads hit 8 bank quads.
    const int flip = g & 2;
    uint32_t w[16];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const uint4 u = tile[r * kChunks + ((4 * g + (k ^ flip)) ^ swz(r))];
      w[4 * k] = u.x;
      w[4 * k + 1] = u.y;
      w[4 * k + 2] = u.z;
      w[4 * k + 3] = u.w;
    }
    const int64_t m = m0 + r;
    // Group A (w[0..7]) is group 2 g + (flip ? 1 : 0) of the tile row.
    const int64_t kA = k0 + 32 * g + (flip ? kG : 0),
                  kB = k0 + 32 * g + (flip ? 0 : kG);
    float amaxA, amaxB;
    if constexpr (TWO_D) {
      amaxA = tileAmax[r / kG][2 * g + (flip ? 1 : 0)];
      amaxB = tileAmax[r / kG][2 * g + (flip ? 0 : 1)];
    } else {
      amaxA = wordsAmax<T>(w, 8);
      amaxB = wordsAmax<T>(w + 8, 8);
    }
    const uint32_t codes =
        encodeFP8x4(nvfp4BlockScaleValue(amaxA, sEncRow),
                    nvfp4BlockScaleValue(amaxB, sEncRow), 0.0f, 0.0f,
                    /*e5m2=*/false);
    const uint32_t cA = codes & 0xFFu, cB = (codes >> 8) & 0xFFu;
    const uint2 qA =
        encodeWords<T, SR>(w, elementFactor(factors[0], cA, sDecRow), a.seed,
                           a.rowOffset, uint64_t(m * K + kA));
    const uint2 qB =
        encodeWords<T, SR>(w + 8, elementFactor(factors[0], cB, sDecRow),
                           a.seed, a.rowOffset, uint64_t(m * K + kB));
    const uint4 out = flip ? make_uint4(qB.x, qB.y, qA.x, qA.y)
                           : make_uint4(qA.x, qA.y, qB.x, qB.y);
    *reinterpret_cast<uint4 *>(a.rowData + m * (K / 2) + (k0 + 32 * g) / 2) =
        out;
    uint8_t *sc = a.rowScale + m * a.rowScaleStride + (k0 + 32 * g) / kG;
    sc[0] = static_cast<uint8_t>(flip ? cB : cA);
    sc[1] = static_cast<uint8_t>(flip ? cA : cB);
  }

  if (a.colData) {
    const int lane = t & 31, j = lane & 3, p = 8 * (t >> 5) + (lane >> 2);
    // Word p of rows 16 j .. 16 j + 15: columns 2 p (low half), 2 p + 1.
    uint32_t w[kG];
#pragma unroll
    for (int i = 0; i < kG; ++i) {
      const int r = 16 * j + i;
      w[i] = reinterpret_cast<const uint32_t *>(tile + r * kChunks +
                                                ((p >> 2) ^ swz(r)))[p & 3];
    }
    const int64_t k = k0 + 2 * p, m = m0 + 16 * j;
    float amax[2];
    float v[2][kG];
    if constexpr (RHT) {
#pragma unroll
      for (int i = 0; i < kG; ++i) {
        float pair[2];
        unpackWord<T>(w[i], pair);
        v[0][i] = pair[0];
        v[1][i] = pair[1];
      }
      rht16(v[0], a.signMask, sigBits<T>());
      rht16(v[1], a.signMask, sigBits<T>());
      amax[0] = groupAmax(v[0]);
      amax[1] = groupAmax(v[1]);
    } else if constexpr (TWO_D) {
      // Columns 2 p, 2 p + 1 lie in tile column 2 p / 16.
      amax[0] = amax[1] = tileAmax[j][p >> 3];
    } else {
      float m0v = 0.0f, m1v = 0.0f;
#pragma unroll
      for (int i = 0; i < kG; ++i) {
        float pair[2];
        unpackWord<T>(w[i], pair);
        m0v = fmaxf(m0v, absBits(pair[0]));
        m1v = fmaxf(m1v, absBits(pair[1]));
      }
      amax[0] = m0v;
      amax[1] = m1v;
    }
    const uint32_t codes =
        encodeFP8x4(nvfp4BlockScaleValue(amax[0], sEncCol),
                    nvfp4BlockScaleValue(amax[1], sEncCol), 0.0f, 0.0f,
                    /*e5m2=*/false);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const uint32_t c = (codes >> (8 * h)) & 0xFFu;
      const float factor = elementFactor(factors[1], c, sDecCol);
      uint2 q;
      if constexpr (RHT) {
        q = encodeGroup(v[h], factor, SR, a.seed, a.colOffset,
                        uint64_t((k + h) * M + m));
      } else if constexpr (SR) {
        float u[kG];
#pragma unroll
        for (int i = 0; i < kG; ++i) {
          float pair[2];
          unpackWord<T>(w[i], pair);
          u[i] = pair[h];
        }
        q = encodeGroup(u, factor, true, a.seed, a.colOffset,
                        uint64_t((k + h) * M + m));
      } else {
        float y[kG];
#pragma unroll
        for (int i = 0; i < kG; ++i) {
          float pair[2];
          unpackWord<T>(w[i], pair);
          y[i] = pair[h] * factor;
        }
        q = make_uint2(encodeE2M1x8(y), encodeE2M1x8(y + 8));
      }
      *reinterpret_cast<uint2 *>(a.colData + (k + h) * (M / 2) + m / 2) = q;
      a.colScale[(k + h) * a.colScaleStride + m / kG] = static_cast<uint8_t>(c);
    }
  }
}

template <InKind T>
cudaError_t launchFused(const NVFP4FusedArgs &a, cudaStream_t stream) {
  const int64_t tiles = (a.M / kTM) * (a.K / kTK);
  if (tiles <= 0)
    return cudaSuccess;
  if (tiles > INT32_MAX)
    return cudaErrorInvalidConfiguration;
  const unsigned grid = static_cast<unsigned>(tiles);
  if (a.twoD) { // bf16, no RHT, no SR (nvfp4Fused in CudaBackend.cpp)
    if constexpr (T == InKind::BF16) {
      nvfp4Fused16Kernel<T, false, false, true>
          <<<grid, kThreads, 0, stream>>>(a);
      return cudaGetLastError();
    }
    return cudaErrorInvalidValue;
  }
  if constexpr (T == InKind::BF16) {
    const bool rht = a.rht && a.colData;
    if (rht && a.stochasticRounding)
      nvfp4Fused16Kernel<T, true, true><<<grid, kThreads, 0, stream>>>(a);
    else if (rht)
      nvfp4Fused16Kernel<T, true, false><<<grid, kThreads, 0, stream>>>(a);
    else if (a.stochasticRounding)
      nvfp4Fused16Kernel<T, false, true><<<grid, kThreads, 0, stream>>>(a);
    else
      nvfp4Fused16Kernel<T, false, false><<<grid, kThreads, 0, stream>>>(a);
    return cudaGetLastError();
  }
  nvfp4FusedKernel<T><<<grid, kThreads, 0, stream>>>(a);
  return cudaGetLastError();
}

//===----------------------------------------------------------------------===//
// General kernels: fp32 rows, as the cpu backend
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
      format::rht16(in, signMask, out);
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

} // namespace

bool nvfp4FastPath(const void *x, DType t, int64_t M, int64_t K,
                   const void *rowData, const void *colData) {
  return fastKernelsEnabled() &&
         (t == DType::F32 || t == DType::BF16 || t == DType::F16) && M > 0 &&
         K > 0 && M % kTM == 0 && K % kTK == 0 && aligned(x, 16) &&
         aligned(rowData, 16) && aligned(colData, 16);
}

cudaError_t launchNVFP4QuantizeFast(const NVFP4FusedArgs &a,
                                    cudaStream_t stream) {
  switch (a.inType) {
  case DType::BF16:
    return launchFused<InKind::BF16>(a, stream);
  case DType::F16:
    return launchFused<InKind::F16>(a, stream);
  default:
    return launchFused<InKind::F32>(a, stream);
  }
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

} // namespace te::rt::cuda
