//===- FastNVFP4.cu - Fused NVFP4 quantization kernel ----------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// NVFP4 (1D: 1x16 rowwise, 16x1 columnwise) for x [M, K] that tiles into
// 64x128 tiles (FastNVFP4.h). One thread block per tile:
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
//  * RHT: rht16 (FastNVFP4.h): Walsh-Hadamard butterflies in float or
//    double where the exponent span of the chunk makes every partial sum
//    exact, else Format's sequential double sum; the same bf16 results.
// BF16 inputs take nvfp4Fused16Kernel<RHT, SR> instead: the same
// values, with an unpadded XOR-swizzled tile (swz), lanes mapped so that
// every code store covers whole 32-byte sectors (4 lanes per row / column),
// the plain E2M1 cast 8 elements at a time (encodeE2M1x8), and RHT / SR as
// template arguments (48 registers for the plain kernel instead of 119).
// The global amaxes come from a first pass (the amax fast path, or
// nvfp4AmaxRHTKernel with the RHT). Every value is computed by Format's
// functions or provably equal to them (encodeE2M1Fast,
// stochasticRoundE2M1Fast, rht16, rht16Amax: tested against Format in
// CudaNVFP4Test.cu; encodeFP8x4 in CudaFastPathTest.cu), so the bits are the
// cpu backend's.
//
//===----------------------------------------------------------------------===//

#include "FastNVFP4.h"

#include "FastCodecs.cuh"

#include "te/Format/Codecs.h"
#include "te/Format/Philox.h"
#include "te/Format/ScaleRules.h"
#include "te/Format/Types.h"

#include <algorithm>
#include <cstdlib>

using namespace te::format;

namespace te::rt::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kTM = kNVFP4TileM, kTK = kNVFP4TileK;
constexpr int kG = kNVFP4BlockSize; // 16

template <InKind T> using Storage = typename InTraits<T>::Storage;

bool aligned(const void *p, uintptr_t a) {
  return reinterpret_cast<uintptr_t>(p) % a == 0;
}

template <InKind T> __device__ __forceinline__ float toFloat(Storage<T> s) {
  if constexpr (T == InKind::F32)
    return s;
  else if constexpr (T == InKind::BF16)
    return __uint_as_float(static_cast<uint32_t>(s) << 16);
  else
    return f16ToFloat(s);
}

/// The two elements of type T in the 32-bit word w (low half first), or the
/// one f32 element.
template <InKind T>
__device__ __forceinline__ void unpackWord(uint32_t w, float *v) {
  if constexpr (T == InKind::F32) {
    v[0] = __uint_as_float(w);
  } else if constexpr (T == InKind::BF16) {
    v[0] = __uint_as_float(w << 16);
    v[1] = __uint_as_float(w & 0xFFFF0000u);
  } else {
    v[0] = f16ToFloat(static_cast<uint16_t>(w & 0xFFFFu));
    v[1] = f16ToFloat(static_cast<uint16_t>(w >> 16));
  }
}

/// The 16 / sizeof(T) elements of a 16-byte vector, in memory order.
template <InKind T>
__device__ __forceinline__ void unpack16(const uint4 &u, float *v) {
  constexpr int n = T == InKind::F32 ? 1 : 2;
  unpackWord<T>(u.x, v);
  unpackWord<T>(u.y, v + n);
  unpackWord<T>(u.z, v + 2 * n);
  unpackWord<T>(u.w, v + 3 * n);
}

/// The 8 / sizeof(T) elements of an 8-byte vector, in memory order.
template <InKind T>
__device__ __forceinline__ void unpack8(const uint2 &u, float *v) {
  constexpr int n = T == InKind::F32 ? 1 : 2;
  unpackWord<T>(u.x, v);
  unpackWord<T>(u.y, v + n);
}

/// Significand width of the input type (rht16's exactness tiers).
template <InKind T> constexpr int sigBits() {
  return T == InKind::F32 ? 24 : T == InKind::BF16 ? 8 : 11;
}

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
/// E4M3 encode through encodeFP8x4 (FastCodecs.cuh, Format's encodeE4M3 on
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
    nvfp4FusedKernel(const FastNVFP4Args a) {
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
    nvfp4Fused16Kernel(const FastNVFP4Args a) {
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

/// amax[0] = max |x|, amax[1] = max |rht16(column chunk)| over x [M, K]:
/// each task is 16 rows x 8 bytes of columns (16 loads in flight), a
/// grid-stride loop, warp shuffles and one atomicMax per warp and value
/// (non-negative floats order as their bits).
template <InKind T>
__global__ void __launch_bounds__(kThreads)
    nvfp4AmaxRHTKernel(const Storage<T> *x, int64_t M, int64_t K,
                       uint32_t signMask, float *amax) {
  using S = Storage<T>;
  constexpr int kCols = 8 / sizeof(S);
  const int64_t colTasks = K / kCols, tasks = (M / kG) * colTasks;
  float m = 0.0f, mt = 0.0f;
  for (int64_t task = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       task < tasks; task += int64_t(gridDim.x) * blockDim.x) {
    const int64_t rb = task / colTasks, cb = task % colTasks;
    uint2 raw[kG];
#pragma unroll
    for (int i = 0; i < kG; ++i)
      raw[i] = __ldcs(
          reinterpret_cast<const uint2 *>(x + (rb * kG + i) * K + cb * kCols));
    float cols[kG][kCols];
#pragma unroll
    for (int i = 0; i < kG; ++i)
      unpack8<T>(raw[i], cols[i]);
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      float v[kG];
#pragma unroll
      for (int i = 0; i < kG; ++i) {
        v[i] = cols[i][c];
        m = fmaxf(m, absBits(v[i]));
      }
      mt = fmaxf(mt, rht16Amax(v, signMask, sigBits<T>()));
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o /= 2) {
    m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
    mt = fmaxf(mt, __shfl_xor_sync(0xFFFFFFFFu, mt, o));
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(reinterpret_cast<unsigned int *>(amax), __float_as_uint(m));
    atomicMax(reinterpret_cast<unsigned int *>(amax + 1), __float_as_uint(mt));
  }
}

int residentBlocks(const void *kernel) {
  int dev = 0, sms = 132, perSM = 1;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) !=
          cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, kernel, kThreads,
                                                    0) != cudaSuccess ||
      perSM < 1) {
    cudaGetLastError();
    return 132;
  }
  return sms * perSM;
}

template <InKind T>
cudaError_t launchFused(const FastNVFP4Args &a, cudaStream_t stream) {
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

template <InKind T>
cudaError_t launchAmaxRHT(const void *x, int64_t M, int64_t K,
                          uint32_t signMask, float *amax, cudaStream_t stream) {
  static int resident = 0;
  if (resident == 0)
    resident =
        residentBlocks(reinterpret_cast<const void *>(&nvfp4AmaxRHTKernel<T>));
  const int64_t tasks = (M / kG) * (K / (8 / sizeof(Storage<T>)));
  const int64_t blocks = std::max<int64_t>(
      1, std::min<int64_t>(resident, (tasks + kThreads - 1) / kThreads));
  nvfp4AmaxRHTKernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<const Storage<T> *>(x), M, K, signMask, amax);
  return cudaGetLastError();
}

} // namespace

bool nvfp4FastPath(const void *x, DType t, int64_t M, int64_t K,
                   const void *rowData, const void *colData) {
  static const bool off = std::getenv("TE_RT_CUDA_NO_FAST_KERNELS") != nullptr;
  return !off && (t == DType::F32 || t == DType::BF16 || t == DType::F16) &&
         M > 0 && K > 0 && M % kTM == 0 && K % kTK == 0 && aligned(x, 16) &&
         aligned(rowData, 16) && aligned(colData, 16);
}

cudaError_t launchNVFP4QuantizeFast(const FastNVFP4Args &a,
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

cudaError_t launchNVFP4AmaxRHT(const void *x, DType t, int64_t M, int64_t K,
                               uint32_t signMask, float *amax,
                               cudaStream_t stream) {
  cudaError_t e = cudaMemsetAsync(amax, 0, 2 * sizeof(float), stream);
  if (e != cudaSuccess || M * K == 0)
    return e;
  switch (t) {
  case DType::BF16:
    return launchAmaxRHT<InKind::BF16>(x, M, K, signMask, amax, stream);
  case DType::F16:
    return launchAmaxRHT<InKind::F16>(x, M, K, signMask, amax, stream);
  default:
    return launchAmaxRHT<InKind::F32>(x, M, K, signMask, amax, stream);
  }
}

} // namespace te::rt::cuda
