//===- CodecsTest.cpp - Element codecs against brute-force oracles --------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Every encoder is compared with an oracle written here from the format
// definitions only: enumerate every code, decode it with the textbook
// sign/exponent/mantissa formula, pick the nearest finite value (ties to the
// even code), keep the sign, NaN to the documented code. Inputs: all 65536
// bf16 bit patterns, plus a strided sweep over all float bit patterns.
//
//===----------------------------------------------------------------------===//

#include "te/Format/Codecs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

using namespace te::format;

namespace {

float f32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint32_t bits32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// A small binary float format as the textbooks define it.
struct MiniFormat {
  int ebits, mbits, bias;
  bool hasInfNaNExponent; ///< IEEE-like: top exponent is inf/NaN (E5M2)
  bool topCodeIsNaN;      ///< E4M3FN: only S.1111.111 is NaN
  int nanCode;            ///< what a NaN input encodes to

  int width() const { return 1 + ebits + mbits; }
  /// Value of a code by the formula; NaN for NaN codes, inf for inf codes.
  double value(int code) const {
    int s = (code >> (ebits + mbits)) & 1;
    int e = (code >> mbits) & ((1 << ebits) - 1);
    int m = code & ((1 << mbits) - 1);
    double sign = s ? -1.0 : 1.0;
    if (hasInfNaNExponent && e == (1 << ebits) - 1)
      return m ? NAN : sign * INFINITY;
    if (topCodeIsNaN && e == (1 << ebits) - 1 && m == (1 << mbits) - 1)
      return NAN;
    if (e == 0)
      return sign * std::ldexp(m, 1 - bias - mbits);
    return sign * std::ldexp((1 << mbits) + m, e - bias - mbits);
  }
  /// Non-negative finite codes sorted by value.
  std::vector<std::pair<double, int>> finiteNonNegative() const {
    std::vector<std::pair<double, int>> v;
    for (int c = 0; c < (1 << (width() - 1)); ++c) {
      double x = value(c);
      if (std::isfinite(x))
        v.push_back({x, c});
    }
    std::sort(v.begin(), v.end());
    return v;
  }
  /// The oracle: nearest finite value, ties to the even code, sign kept.
  int encode(double x) const {
    if (std::isnan(x))
      return nanCode;
    static thread_local std::vector<std::pair<double, int>> cache;
    static thread_local const MiniFormat *cached = nullptr;
    if (cached != this) {
      cache = finiteNonNegative();
      cached = this;
    }
    double a = std::fabs(x);
    int best = -1;
    double bestDist = INFINITY;
    // Binary search for the neighbourhood, then compare the two neighbours.
    auto it =
        std::lower_bound(cache.begin(), cache.end(), std::make_pair(a, -1));
    for (auto j : {it - 1, it}) {
      if (j < cache.begin() || j >= cache.end())
        continue;
      double d = std::isinf(a) ? (j + 1 == cache.end() ? 0 : 1)
                               : std::fabs(a - j->first);
      if (d < bestDist || (d == bestDist && (j->second % 2 == 0))) {
        bestDist = d;
        best = j->second;
      }
    }
    int signBit = std::signbit(x) ? 1 << (width() - 1) : 0;
    return signBit | best;
  }
};

const MiniFormat kE4M3{4, 3, 7, false, true, 0x7F};
const MiniFormat kE5M2{5, 2, 15, true, false, 0x7F};
const MiniFormat kE2M1{2, 1, 1, false, false, 0x7};

float bf16Value(uint16_t h) { return f32(static_cast<uint32_t>(h) << 16); }

//===----------------------------------------------------------------------===//
// FP8 / FP4 encoders
//===----------------------------------------------------------------------===//

TEST(Codecs, E4M3AllBF16Patterns) {
  int mismatches = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    float x = bf16Value(static_cast<uint16_t>(h));
    if (encodeE4M3(x) != kE4M3.encode(x) && ++mismatches < 10)
      ADD_FAILURE() << "bf16 0x" << std::hex << h << " ours 0x"
                    << int(encodeE4M3(x)) << " oracle 0x" << kE4M3.encode(x);
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(Codecs, E5M2AllBF16Patterns) {
  int mismatches = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    float x = bf16Value(static_cast<uint16_t>(h));
    if (encodeE5M2(x) != kE5M2.encode(x) && ++mismatches < 10)
      ADD_FAILURE() << "bf16 0x" << std::hex << h << " ours 0x"
                    << int(encodeE5M2(x)) << " oracle 0x" << kE5M2.encode(x);
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(Codecs, E2M1AllBF16Patterns) {
  int mismatches = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    float x = bf16Value(static_cast<uint16_t>(h));
    if (encodeE2M1(x) != kE2M1.encode(x) && ++mismatches < 10)
      ADD_FAILURE() << "bf16 0x" << std::hex << h << " ours 0x"
                    << int(encodeE2M1(x)) << " oracle 0x" << kE2M1.encode(x);
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(Codecs, FP8AndFP4StridedFloatSweep) {
  // ~1M float bit patterns (odd stride: every mantissa residue is hit).
  int mismatches = 0;
  for (uint64_t u = 0; u < (1ull << 32); u += 4093) {
    float x = f32(static_cast<uint32_t>(u));
    if (encodeE4M3(x) != kE4M3.encode(x))
      ++mismatches;
    if (encodeE5M2(x) != kE5M2.encode(x))
      ++mismatches;
    if (encodeE2M1(x) != kE2M1.encode(x))
      ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(Codecs, FP8SpecialValues) {
  // Satfinite: beyond max and +-inf clamp to +-max; NaN -> 0x7F.
  EXPECT_EQ(encodeE4M3(448.0f), 0x7E);
  EXPECT_EQ(encodeE4M3(464.0f), 0x7E); // tie between 448 and 480: even 448
  EXPECT_EQ(encodeE4M3(465.0f), 0x7E); // would be 480 = NaN code: saturate
  EXPECT_EQ(encodeE4M3(1e30f), 0x7E);
  EXPECT_EQ(encodeE4M3(INFINITY), 0x7E);
  EXPECT_EQ(encodeE4M3(-INFINITY), 0xFE);
  EXPECT_EQ(encodeE4M3(NAN), 0x7F);
  EXPECT_EQ(encodeE4M3(-NAN), 0x7F);
  EXPECT_EQ(encodeE4M3(-0.0f), 0x80);
  EXPECT_EQ(encodeE4M3(-1e-30f), 0x80);
  EXPECT_EQ(encodeE4M3(0x1p-9f), 0x01);  // min subnormal
  EXPECT_EQ(encodeE4M3(0x1p-10f), 0x00); // half of it: tie to even 0
  EXPECT_EQ(encodeE4M3(0x1.8p-10f), 0x01);
  EXPECT_EQ(encodeE4M3(0x3p-10f), 0x02); // 1.5 * min subnormal: tie to even 2
  EXPECT_EQ(encodeE4M3(1.0f), 0x38);
  EXPECT_EQ(encodeE4M3(1.0625f), 0x38); // tie 1 / 1.125: even
  EXPECT_EQ(encodeE4M3(1.1875f), 0x3A); // tie 1.125 / 1.25: even 1.25
  EXPECT_EQ(encodeE5M2(57344.0f), 0x7B);
  EXPECT_EQ(encodeE5M2(61440.0f), 0x7B); // tie rounds to 65536: saturate
  EXPECT_EQ(encodeE5M2(INFINITY), 0x7B);
  EXPECT_EQ(encodeE5M2(-INFINITY), 0xFB);
  EXPECT_EQ(encodeE5M2(NAN), 0x7F);
  EXPECT_EQ(encodeE5M2(0x1p-16f), 0x01);
  EXPECT_EQ(encodeE5M2(-0.0f), 0x80);
  EXPECT_EQ(encodeFP8(1.0f, DType::E5M2), 0x3C);
  EXPECT_EQ(encodeFP8(1.0f, DType::E4M3), 0x38);
  EXPECT_EQ(fp8Max(DType::E4M3), 448.0f);
  EXPECT_EQ(fp8Max(DType::E5M2), 57344.0f);
  EXPECT_EQ(fp8Max(DType::E2M1x2), 6.0f);
}

TEST(Codecs, E2M1TiePointsAndSpecials) {
  // The reference cast_to_fp4x2 tie points (docs/formats.md §3.5).
  EXPECT_EQ(encodeE2M1(0.25f), 0x0);
  EXPECT_EQ(encodeE2M1(0.75f), 0x2);
  EXPECT_EQ(encodeE2M1(1.25f), 0x2);
  EXPECT_EQ(encodeE2M1(1.75f), 0x4);
  EXPECT_EQ(encodeE2M1(2.5f), 0x4);
  EXPECT_EQ(encodeE2M1(3.5f), 0x6);
  EXPECT_EQ(encodeE2M1(5.0f), 0x6);
  EXPECT_EQ(encodeE2M1(5.0001f), 0x7);
  EXPECT_EQ(encodeE2M1(100.0f), 0x7);
  EXPECT_EQ(encodeE2M1(-100.0f), 0xF);
  EXPECT_EQ(encodeE2M1(INFINITY), 0x7);
  EXPECT_EQ(encodeE2M1(-INFINITY), 0xF);
  EXPECT_EQ(encodeE2M1(NAN), 0x7);
  EXPECT_EQ(encodeE2M1(-0.0f), 0x8);
  EXPECT_EQ(encodeE2M1(-0.1f), 0x8);
  EXPECT_EQ(packE2M1x2(0x1, 0xF), 0xF1);
}

//===----------------------------------------------------------------------===//
// Decoders
//===----------------------------------------------------------------------===//

TEST(Codecs, DecodersAllCodes) {
  for (int c = 0; c < 256; ++c) {
    double e4 = kE4M3.value(c), e5 = kE5M2.value(c);
    if (std::isnan(e4))
      EXPECT_TRUE(std::isnan(decodeE4M3(c))) << c;
    else
      EXPECT_EQ(static_cast<double>(decodeE4M3(c)), e4) << c;
    if (std::isnan(e5))
      EXPECT_TRUE(std::isnan(decodeE5M2(c))) << c;
    else
      EXPECT_EQ(static_cast<double>(decodeE5M2(c)), e5) << c;
    EXPECT_EQ(bits32(decodeFP8(c, DType::E4M3)), bits32(decodeE4M3(c))) << c;
    EXPECT_EQ(bits32(decodeFP8(c, DType::E5M2)), bits32(decodeE5M2(c))) << c;
  }
  // E4M3 NaN codes are exactly 0x7F / 0xFF; E5M2 has +-inf at 0x7C / 0xFC.
  EXPECT_TRUE(std::isnan(decodeE4M3(0x7F)));
  EXPECT_TRUE(std::isnan(decodeE4M3(0xFF)));
  EXPECT_EQ(decodeE4M3(0x7E), 448.0f);
  EXPECT_EQ(decodeE4M3(0x01), 0x1p-9f);
  EXPECT_EQ(decodeE5M2(0x7C), INFINITY);
  EXPECT_EQ(decodeE5M2(0xFC), -INFINITY);
  EXPECT_EQ(decodeE5M2(0x7B), 57344.0f);
  const float grid[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (int c = 0; c < 16; ++c) {
    EXPECT_EQ(decodeE2M1(c), (c & 8 ? -1.0f : 1.0f) * grid[c & 7]) << c;
    EXPECT_EQ(static_cast<double>(decodeE2M1(c)), kE2M1.value(c)) << c;
  }
  EXPECT_EQ(decodeE2M1(0x80 | 0x3), 1.5f); // only the low nibble counts
  // Round trip of every finite code.
  for (int c = 0; c < 256; ++c) {
    if (!std::isnan(kE4M3.value(c)))
      EXPECT_EQ(encodeE4M3(decodeE4M3(c)), c) << c;
    if (std::isfinite(kE5M2.value(c)))
      EXPECT_EQ(encodeE5M2(decodeE5M2(c)), c) << c;
  }
}

//===----------------------------------------------------------------------===//
// E8M0
//===----------------------------------------------------------------------===//

/// Oracle: the smallest e in [0, 254] with 2^(e-127) >= x, saturating at
/// 254; NaN 0xFF, inf 0xFE, 0 -> 0.
int e8m0UpOracle(float x) {
  if (std::isnan(x))
    return 0xFF;
  if (std::isinf(x))
    return 0xFE;
  double a = std::fabs(static_cast<double>(x));
  for (int e = 0; e <= 254; ++e)
    if (std::ldexp(1.0, e - 127) >= a)
      return e;
  return 254;
}
/// Oracle: the largest e in [0, 254] with 2^(e-127) <= x (0 if none).
int e8m0FloorOracle(float x) {
  if (std::isnan(x))
    return 0xFF;
  if (std::isinf(x))
    return 0xFE;
  double a = std::fabs(static_cast<double>(x));
  int best = 0;
  for (int e = 0; e <= 254; ++e)
    if (std::ldexp(1.0, e - 127) <= a)
      best = e;
  return best;
}

TEST(Codecs, E8M0AllBF16PatternsAndFloatSweep) {
  int mismatches = 0;
  for (uint32_t h = 0; h < 0x8000; ++h) { // non-negative bf16
    float x = bf16Value(static_cast<uint16_t>(h));
    mismatches += e8m0RoundUp(x) != e8m0UpOracle(x);
    mismatches += e8m0Floor(x) != e8m0FloorOracle(x);
  }
  for (uint64_t u = 0; u < 0x80000000ull; u += 65521) {
    float x = f32(static_cast<uint32_t>(u));
    mismatches += e8m0RoundUp(x) != e8m0UpOracle(x);
    mismatches += e8m0Floor(x) != e8m0FloorOracle(x);
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(Codecs, E8M0Edges) {
  // Zero, subnormals, the 0x400000 boundary (2^-127 exactly).
  EXPECT_EQ(e8m0RoundUp(0.0f), 0);
  EXPECT_EQ(e8m0RoundUp(f32(0x00000001)), 0);
  EXPECT_EQ(e8m0RoundUp(f32(0x00400000)), 0); // 2^-127 is code 0
  EXPECT_EQ(e8m0RoundUp(f32(0x00400001)), 1);
  EXPECT_EQ(e8m0RoundUp(f32(0x007FFFFF)), 1);
  EXPECT_EQ(e8m0RoundUp(f32(0x00800000)), 1); // 2^-126
  EXPECT_EQ(e8m0RoundUp(f32(0x00800001)), 2);
  EXPECT_EQ(e8m0RoundUp(1.0f), 127);
  EXPECT_EQ(e8m0RoundUp(f32(0x3F800001)), 128); // 1 + ulp
  EXPECT_EQ(e8m0RoundUp(0.75f), 127);
  EXPECT_EQ(e8m0RoundUp(0x1p127f), 254);
  EXPECT_EQ(e8m0RoundUp(f32(0x7F000001)), 254); // saturates, no 255
  EXPECT_EQ(e8m0RoundUp(f32(0x7F7FFFFF)), 254);
  EXPECT_EQ(e8m0RoundUp(INFINITY), 0xFE);
  EXPECT_EQ(e8m0RoundUp(NAN), 0xFF);
  EXPECT_EQ(e8m0Floor(0.0f), 0);
  EXPECT_EQ(e8m0Floor(f32(0x00000001)), 0);
  EXPECT_EQ(e8m0Floor(f32(0x00400000)), 0);
  EXPECT_EQ(e8m0Floor(f32(0x007FFFFF)), 0);
  EXPECT_EQ(e8m0Floor(f32(0x00800000)), 1);
  EXPECT_EQ(e8m0Floor(1.0f), 127);
  EXPECT_EQ(e8m0Floor(f32(0x3FFFFFFF)), 127);
  EXPECT_EQ(e8m0Floor(f32(0x7F7FFFFF)), 254);
  EXPECT_EQ(e8m0Floor(INFINITY), 0xFE);
  EXPECT_EQ(e8m0Floor(NAN), 0xFF);
}

TEST(Codecs, E8M0DecodeAndReciprocal) {
  for (int e = 0; e < 255; ++e) {
    EXPECT_EQ(static_cast<double>(decodeE8M0(e)), std::ldexp(1.0, e - 127))
        << e;
    if (e <= 253)
      EXPECT_EQ(static_cast<double>(e8m0Reciprocal(e)),
                std::ldexp(1.0, 127 - e))
          << e;
  }
  EXPECT_TRUE(std::isnan(decodeE8M0(0xFF)));
  EXPECT_EQ(bits32(e8m0Reciprocal(254)), 0x00400000u); // 2^-127
  EXPECT_TRUE(std::isnan(e8m0Reciprocal(255)));
  EXPECT_EQ(e8m0Reciprocal(127), 1.0f);
  EXPECT_EQ(e8m0Reciprocal(0), 0x1p127f);
}

//===----------------------------------------------------------------------===//
// BF16 / F16
//===----------------------------------------------------------------------===//

/// Oracle for bf16: the two bf16 neighbours by truncation, the nearer one,
/// ties to the even one; overflow past max + half ulp -> inf.
uint16_t bf16Oracle(float x) {
  uint32_t b = bits32(x);
  uint16_t lo = static_cast<uint16_t>(b >> 16);
  uint16_t hi = static_cast<uint16_t>(lo + 1);
  double dl = std::fabs(static_cast<double>(x) - bf16Value(lo));
  // hi may be inf (0x7F80): its "value" is 2^128 for rounding purposes.
  double vh = (hi & 0x7FFF) == 0x7F80 ? std::copysign(std::ldexp(1.0, 128), x)
                                      : static_cast<double>(bf16Value(hi));
  double dh = std::fabs(static_cast<double>(x) - vh);
  if (dl < dh || (dl == dh && lo % 2 == 0))
    return lo;
  return hi;
}

TEST(Codecs, BF16RoundToNearestEven) {
  EXPECT_EQ(floatToBF16(f32(0x3F808000)), 0x3F80); // tie: even
  EXPECT_EQ(floatToBF16(f32(0x3F818000)), 0x3F82); // tie: even (up)
  EXPECT_EQ(floatToBF16(f32(0x3F808001)), 0x3F81);
  EXPECT_EQ(floatToBF16(f32(0x3F807FFF)), 0x3F80);
  EXPECT_EQ(floatToBF16(f32(0x7F7F7FFF)), 0x7F7F);
  EXPECT_EQ(floatToBF16(f32(0x7F7F8000)), 0x7F80); // tie at max: to inf
  EXPECT_EQ(floatToBF16(f32(0x7F7FFFFF)), 0x7F80);
  EXPECT_EQ(floatToBF16(INFINITY), 0x7F80);
  EXPECT_EQ(floatToBF16(-INFINITY), 0xFF80);
  EXPECT_EQ(floatToBF16(f32(0x00018000)), 0x0002); // subnormal tie: even
  EXPECT_EQ(floatToBF16(-0.0f), 0x8000);
  uint16_t n = floatToBF16(f32(0x7F800001)); // signalling NaN stays NaN
  EXPECT_EQ(n & 0x7F80, 0x7F80);
  EXPECT_NE(n & 0x7F, 0);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(NAN))));
  int mismatches = 0;
  for (uint64_t u = 0; u < (1ull << 32); u += 4099) {
    float x = f32(static_cast<uint32_t>(u));
    if (std::isnan(x))
      continue;
    mismatches += floatToBF16(x) != bf16Oracle(x);
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(roundToBF16(1.00390625f), 1.0f);
}

TEST(Codecs, DoubleToBF16RoundsOnce) {
  // 1 + 2^-8 + 2^-30: through float it becomes the tie 1 + 2^-8 (-> 1.0),
  // rounded once it is above the tie (-> 1 + 2^-7).
  EXPECT_EQ(doubleToBF16(1.0 + 0x1p-8 + 0x1p-30), 0x3F81);
  EXPECT_EQ(doubleToBF16(1.0 + 0x1p-8), 0x3F80);
  EXPECT_EQ(doubleToBF16(-(1.0 + 0x1.8p-7)), 0xBF82);
  EXPECT_EQ(doubleToBF16(1e300), 0x7F80);
  EXPECT_EQ(doubleToBF16(0x1p-134), 0x0000); // half of the min subnormal: 0
  EXPECT_EQ(doubleToBF16(0x1.0000001p-134), 0x0001);
  for (uint32_t h = 0; h < 65536; ++h) {
    float x = bf16Value(static_cast<uint16_t>(h));
    if (!std::isnan(x))
      EXPECT_EQ(doubleToBF16(x), h);
  }
}

/// Value of an IEEE binary16 code by the formula.
double f16Value(uint16_t h) {
  MiniFormat f16{5, 10, 15, true, false, 0};
  return f16.value(h);
}

TEST(Codecs, F16RoundToNearestEven) {
  EXPECT_EQ(floatToF16(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToF16(65519.0f), 0x7BFF);
  EXPECT_EQ(floatToF16(65520.0f), 0x7C00); // tie at max: to inf
  EXPECT_EQ(floatToF16(1.0f), 0x3C00);
  EXPECT_EQ(floatToF16(0x1p-24f), 0x0001);
  EXPECT_EQ(floatToF16(0x1p-25f), 0x0000);   // tie to even 0
  EXPECT_EQ(floatToF16(0x1.8p-24f), 0x0002); // tie to even 2
  EXPECT_EQ(floatToF16(-0.0f), 0x8000);
  EXPECT_EQ(floatToF16(-INFINITY), 0xFC00);
  EXPECT_TRUE(std::isnan(f16ToFloat(floatToF16(NAN))));
  for (uint32_t h = 0; h < 65536; ++h) {
    double v = f16Value(static_cast<uint16_t>(h));
    if (std::isnan(v))
      EXPECT_TRUE(std::isnan(f16ToFloat(h)));
    else
      EXPECT_EQ(static_cast<double>(f16ToFloat(h)), v) << h;
  }
  MiniFormat f16{5, 10, 15, true, false, 0};
  int mismatches = 0;
  for (uint64_t u = 0; u < (1ull << 32); u += 4099) {
    float x = f32(static_cast<uint32_t>(u));
    if (std::isnan(x))
      continue;
    int want = f16.encode(x);
    // The finite-nearest oracle saturates; IEEE RNE overflows at >= 65520.
    if (std::fabs(x) >= 65520.0f)
      want = (std::signbit(x) ? 0x8000 : 0) | 0x7C00;
    mismatches += floatToF16(x) != want;
  }
  EXPECT_EQ(mismatches, 0);
}

} // namespace
