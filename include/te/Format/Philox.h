//===- Philox.h - Philox4x32-10 and E2M1 stochastic rounding ----*- C++ -*-===//
//
// Part of te. Dependency-free C++17; also compiles as CUDA (nvcc -x cu).
//
//===----------------------------------------------------------------------===//
//
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC'11; the Random123 / cuRAND generator), and the stochastic rounding of
// NVFP4 (docs/formats.md §3.5). TE draws its Philox state from PyTorch's
// generator; this library takes the key (seed) and counter (offset) from the
// caller, so runs are reproducible but not bit-identical to TE's SR (TE's own
// tests check SR only statistically, §8).
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_PHILOX_H
#define TE_FORMAT_PHILOX_H

#include "te/Format/Codecs.h"
#include "te/Format/HostDevice.h"

#include <cstdint>

namespace te::format {

/// Philox4x32 with 10 rounds: out = Philox(counter, key).
TE_HD inline void philox4x32(const uint32_t counter[4], const uint32_t key[2],
                             uint32_t out[4]) {
  const uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  const uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    uint64_t p0 = static_cast<uint64_t>(kM0) * c0;
    uint64_t p1 = static_cast<uint64_t>(kM1) * c2;
    uint32_t hi0 = static_cast<uint32_t>(p0 >> 32),
             lo0 = static_cast<uint32_t>(p0);
    uint32_t hi1 = static_cast<uint32_t>(p1 >> 32),
             lo1 = static_cast<uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/// The 8 random bits for element `index` of a tensor quantized with `seed`
/// and `offset`: Philox(counter = {index / 16 + offset_lo, offset_hi, 0, 0},
/// key = {seed_lo, seed_hi}) yields 16 bytes, little-endian from out[0];
/// element `index` takes byte index % 16. A convention of this project (TE's
/// curanddx mapping is not replicated, docs/formats.md §10).
TE_HD inline uint8_t philoxRandomByte(uint64_t seed, uint64_t offset,
                                      uint64_t index) {
  uint64_t block = index / 16 + offset;
  uint32_t counter[4] = {static_cast<uint32_t>(block),
                         static_cast<uint32_t>(block >> 32), 0u, 0u};
  uint32_t key[2] = {static_cast<uint32_t>(seed),
                     static_cast<uint32_t>(seed >> 32)};
  uint32_t out[4];
  philox4x32(counter, key, out);
  unsigned b = static_cast<unsigned>(index % 16);
  return static_cast<uint8_t>(out[b / 4] >> (8 * (b % 4)));
}

/// The Philox counter offset of an NVFP4 tensor's columnwise copy when its
/// rowwise copy starts at `offset`: the counter range after the rowwise
/// copy's ceil(M*K/16) blocks of 16 random bytes (`numElements` = M*K), so
/// that the two copies draw independent bits. A convention of this project,
/// like philoxRandomByte.
TE_HD inline uint64_t nvfp4ColumnwiseRandomOffset(uint64_t offset,
                                                  int64_t numElements) {
  return offset + static_cast<uint64_t>((numElements + 15) / 16);
}

/// Stochastic rounding to E2M1 with 8 random bits, in the manner of PTX
/// cvt.rs (random bits added to the discarded bits, then truncation): for
/// |x| between adjacent grid points lo <= |x| < hi (grid 0, .5, 1, 1.5, 2, 3,
/// 4, 6), let t = (|x| - lo) / (hi - lo) (exact) and f = floor(256 * t); the
/// result is hi if f + randomByte >= 256, else lo -- so P(hi) = f / 256 and
/// exact grid values never move. |x| >= 6 and +-inf saturate to +-6; the sign
/// is kept (-0 -> 0x8); NaN takes the RNE path (encodeE2M1: 0x7).
TE_HD inline uint8_t stochasticRoundE2M1(float x, uint8_t randomByte) {
  if (isNaNBits(x))
    return encodeE2M1(x);
  uint8_t sign = (bitsOf(x) >> 31) ? 0x8 : 0x0;
  float a = floatOf(bitsOf(x) & 0x7FFFFFFFu);
  if (a >= kE2M1Max)
    return static_cast<uint8_t>(sign | 0x7);
  // Magnitude codes 0..7 decode to 0, .5, 1, 1.5, 2, 3, 4, 6.
  uint8_t lo = 0;
  while (lo < 7 && decodeE2M1(static_cast<uint8_t>(lo + 1)) <= a)
    ++lo;
  float loV = decodeE2M1(lo), hiV = decodeE2M1(static_cast<uint8_t>(lo + 1));
  float t = (a - loV) / (hiV - loV); // exact: Sterbenz / power-of-two gap
  unsigned f = static_cast<unsigned>(t * 256.0f);
  uint8_t mag = (f + randomByte >= 256u) ? static_cast<uint8_t>(lo + 1) : lo;
  return static_cast<uint8_t>(sign | mag);
}

} // namespace te::format

#endif // TE_FORMAT_PHILOX_H
