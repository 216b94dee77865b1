//===- HadamardPhiloxTest.cpp - RHT, Philox, stochastic rounding
//-----------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "te/Format/Hadamard.h"
#include "te/Format/Philox.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace te::format;

namespace {

//===----------------------------------------------------------------------===//
// RHT
//===----------------------------------------------------------------------===//

TEST(Hadamard, UnitVectorsGiveRowsOfH) {
  // e_3 with no signs: row 3 of 0.25 * H, H_3j = (-1)^popcount(3 & j), i.e.
  // the pattern + - - + repeated.
  float e3[16] = {};
  e3[3] = 1.0f;
  float out[16];
  rht16(e3, 0u, out);
  const float row3[16] = {.25f, -.25f, -.25f, .25f, .25f, -.25f, -.25f, .25f,
                          .25f, -.25f, -.25f, .25f, .25f, -.25f, -.25f, .25f};
  for (int j = 0; j < 16; ++j)
    EXPECT_EQ(out[j], row3[j]) << j;
  // With TE's mask 0xD7E8, bit 3 is set: s_3 = -1 flips the row.
  rht16(e3, kDefaultRHTSignMask, out);
  for (int j = 0; j < 16; ++j)
    EXPECT_EQ(out[j], -row3[j]) << j;
  // e_0 (s_0 = +1): all 0.25. e_15: H_15j = (-1)^popcount(j), s_15 = -1.
  float e0[16] = {}, e15[16] = {};
  e0[0] = e15[15] = 1.0f;
  rht16(e0, kDefaultRHTSignMask, out);
  for (int j = 0; j < 16; ++j)
    EXPECT_EQ(out[j], 0.25f);
  rht16(e15, kDefaultRHTSignMask, out);
  const float row15neg[16] = {-.25f, .25f, .25f, -.25f, .25f,  -.25f,
                              -.25f, .25f, .25f, -.25f, -.25f, .25f,
                              -.25f, .25f, .25f, -.25f};
  for (int j = 0; j < 16; ++j)
    EXPECT_EQ(out[j], row15neg[j]) << j;
}

TEST(Hadamard, SignVectorAndMatrix) {
  // TE's wgrad sign vector s = [1,1,1,-1,1,-1,-1,-1,-1,-1,-1,1,-1,1,-1,-1].
  const int s[16] = {1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1};
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(rhtSign(kDefaultRHTSignMask, i), s[i]) << i;
  EXPECT_EQ(kDefaultRHTSignMask, 55272u);
  EXPECT_EQ(hadamardEntry(5, 3), -1); // popcount(1) = 1
  EXPECT_EQ(hadamardEntry(5, 5), 1);  // popcount(5) = 2
  EXPECT_EQ(hadamardEntry(15, 15), 1);
  EXPECT_EQ(rhtMatrixEntry(kDefaultRHTSignMask, 3, 0), -0.25f);
  EXPECT_EQ(rhtMatrixEntry(0, 7, 1), -0.25f);
}

TEST(Hadamard, OnesVector) {
  float ones[16], out[16];
  for (float &v : ones)
    v = 1.0f;
  // No signs: 0.25 * sum_i H_ij = 4 for j = 0, 0 otherwise.
  rht16(ones, 0u, out);
  EXPECT_EQ(out[0], 4.0f);
  for (int j = 1; j < 16; ++j)
    EXPECT_EQ(out[j], 0.0f) << j;
  // TE's mask: out_0 = 0.25 * sum_i s_i = 0.25 * (6 - 10) = -1.
  rht16(ones, kDefaultRHTSignMask, out);
  EXPECT_EQ(out[0], -1.0f);
}

TEST(Hadamard, RoundsTheExactSumOnce) {
  // j = 0 sums 0.25*(4 + 2^-6 + 2^-26) = 1 + 2^-8 + 2^-28: above the bf16
  // tie, so 1 + 2^-7 (0x3F81). fp32 accumulation would drop 2^-28 and round
  // the tie to 1.0.
  float v[16] = {4.0f, 0x1p-6f, 0x1p-26f};
  uint16_t out[16];
  rht16(v, 0u, out);
  EXPECT_EQ(out[0], 0x3F81);
  // j = 1: 0.25*(4 - 2^-6 + 2^-26) = 1 - 2^-8 + 2^-28: bf16 spacing below 1
  // is 2^-8, so 1 - 2^-8 = 0x3F7F is exact up to 2^-28: rounds to 0x3F7F.
  EXPECT_EQ(out[1], 0x3F7F);
}

TEST(Hadamard, AgainstDirectProduct) {
  // A direct evaluation of v . diag(s) . H . 0.25 in long double with the
  // matrix built from its definition, compared with bf16 rounding of it.
  uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return seed;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    float v[16];
    for (float &x : v) {
      // bf16 values of moderate range.
      uint32_t r = next();
      float f = std::ldexp(static_cast<float>((r >> 8) & 0xFF) + 128.0f,
                           static_cast<int>(r % 20) - 14);
      if (r & 0x80000000u)
        f = -f;
      x = bf16ToFloat(floatToBF16(f));
    }
    uint32_t mask = next() & 0xFFFF;
    uint16_t out[16];
    rht16(v, mask, out);
    for (int j = 0; j < 16; ++j) {
      long double sum = 0;
      for (int i = 0; i < 16; ++i) {
        int sign = ((mask >> i) & 1) ? -1 : 1;
        int h = (__builtin_popcount(i & j) % 2) ? -1 : 1;
        sum += static_cast<long double>(v[i]) * sign * h * 0.25L;
      }
      // Exact here (span < 2^38), so rounding via double is a single rounding.
      EXPECT_EQ(out[j], doubleToBF16(static_cast<double>(sum)));
    }
  }
}

//===----------------------------------------------------------------------===//
// Philox4x32-10: Random123 known-answer vectors
//===----------------------------------------------------------------------===//

TEST(Philox, KnownAnswers) {
  struct KAT {
    uint32_t ctr[4], key[2], out[4];
  };
  const KAT kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const KAT &k : kats) {
    uint32_t out[4];
    philox4x32(k.ctr, k.key, out);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(out[i], k.out[i]) << std::hex << k.ctr[0] << " word " << i;
  }
}

TEST(Philox, RandomByteConvention) {
  // Element 17 of (seed 5, offset 3): counter {17/16 + 3, 0, 0, 0}, key
  // {5, 0}, byte 17 % 16 = 1 = bits 8..15 of out[0].
  uint32_t ctr[4] = {4, 0, 0, 0}, key[2] = {5, 0}, out[4];
  philox4x32(ctr, key, out);
  EXPECT_EQ(philoxRandomByte(5, 3, 17), static_cast<uint8_t>(out[0] >> 8));
  EXPECT_EQ(philoxRandomByte(5, 3, 31), static_cast<uint8_t>(out[3] >> 24));
  uint32_t ctr2[4] = {3, 1, 0, 0}, key2[2] = {7, 9};
  philox4x32(ctr2, key2, out);
  EXPECT_EQ(
      philoxRandomByte((uint64_t(9) << 32) | 7, (uint64_t(1) << 32) | 3, 6),
      static_cast<uint8_t>(out[1] >> 16));
}

//===----------------------------------------------------------------------===//
// Stochastic rounding to E2M1
//===----------------------------------------------------------------------===//

TEST(StochasticRounding, HandCases) {
  // 1.25 is halfway between 1 (0x2) and 1.5 (0x3): f = 128.
  EXPECT_EQ(stochasticRoundE2M1(1.25f, 127), 0x2);
  EXPECT_EQ(stochasticRoundE2M1(1.25f, 128), 0x3);
  // 5 between 4 (0x6) and 6 (0x7).
  EXPECT_EQ(stochasticRoundE2M1(5.0f, 127), 0x6);
  EXPECT_EQ(stochasticRoundE2M1(5.0f, 128), 0x7);
  // -0.3 between -0 and -0.5: t = 0.6, f = floor(153.6) = 153.
  EXPECT_EQ(stochasticRoundE2M1(-0.3f, 102), 0x8);
  EXPECT_EQ(stochasticRoundE2M1(-0.3f, 103), 0x9);
  // Grid values never move.
  for (int r = 0; r < 256; ++r) {
    EXPECT_EQ(stochasticRoundE2M1(1.0f, r), 0x2);
    EXPECT_EQ(stochasticRoundE2M1(-6.0f, r), 0xF);
    EXPECT_EQ(stochasticRoundE2M1(0.0f, r), 0x0);
    EXPECT_EQ(stochasticRoundE2M1(-0.0f, r), 0x8);
  }
  // Saturation and NaN.
  EXPECT_EQ(stochasticRoundE2M1(7.0f, 0), 0x7);
  EXPECT_EQ(stochasticRoundE2M1(-INFINITY, 255), 0xF);
  EXPECT_EQ(stochasticRoundE2M1(NAN, 255), 0x7);
}

TEST(StochasticRounding, ExpectationOverAllRandomBytes) {
  // Averaged over the 256 random bytes the result is lo + gap * f / 256,
  // f = floor(256 * (|x| - lo) / gap), for every bf16 value in (-6, 6).
  const float grid[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (uint32_t h = 0; h < 65536; ++h) {
    uint32_t bits = h << 16;
    float x;
    std::memcpy(&x, &bits, 4);
    if (!(std::fabs(x) < 6.0f))
      continue;
    float a = std::fabs(x);
    int lo = 0;
    while (grid[lo + 1] <= a)
      ++lo;
    double gap = grid[lo + 1] - grid[lo];
    double f = std::floor(256.0 * (a - grid[lo]) / gap);
    double want = grid[lo] + gap * f / 256.0;
    double sum = 0;
    for (int r = 0; r < 256; ++r) {
      uint8_t q = stochasticRoundE2M1(x, static_cast<uint8_t>(r));
      EXPECT_EQ(q & 0x8, std::signbit(x) ? 0x8 : 0x0);
      sum += grid[q & 7];
    }
    ASSERT_EQ(sum / 256.0, want) << x;
  }
}

} // namespace
