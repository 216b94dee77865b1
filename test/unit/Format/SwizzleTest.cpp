//===- SwizzleTest.cpp - GEMM-ready scale layout
//---------------------------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "te/Format/Swizzle.h"

#include <gtest/gtest.h>

#include <vector>

using namespace te::format;

namespace {

TEST(Swizzle, HandCases) {
  EXPECT_EQ(swizzledScaleOffset(0, 0, 128, 4), 0);
  EXPECT_EQ(swizzledScaleOffset(0, 1, 128, 4), 1);
  EXPECT_EQ(swizzledScaleOffset(1, 0, 128, 4), 16);
  EXPECT_EQ(swizzledScaleOffset(32, 0, 128, 4), 4);
  EXPECT_EQ(swizzledScaleOffset(127, 3, 128, 4), 511);  // 31*16 + 3*4 + 3
  EXPECT_EQ(swizzledScaleOffset(0, 4, 256, 8), 512);    // next column tile
  EXPECT_EQ(swizzledScaleOffset(128, 0, 256, 8), 1024); // next row tile
  EXPECT_EQ(swizzledScaleOffset(128, 4, 256, 8), 1536);
  EXPECT_EQ(swizzledScaleOffset(130, 5, 256, 8), 1569); // 1536 + 2*16 + 1
  EXPECT_EQ(swizzledScaleOffset(200, 6, 256, 8), 1674); // 1536+8*16+2*4+2
}

TEST(Swizzle, MatchesViewPermute) {
  // view(R/128, 4, 32, C/4, 4).permute(0, 3, 2, 1, 4), written as index
  // arithmetic on the permuted shape (R/128, C/4, 32, 4, 4).
  const int64_t R = 384, C = 12;
  std::vector<int> seen(R * C, 0);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) {
      int64_t a = r / 128, b = (r % 128) / 32, k = r % 32, d = c / 4, e = c % 4;
      int64_t want = (((a * (C / 4) + d) * 32 + k) * 4 + b) * 4 + e;
      ASSERT_EQ(swizzledScaleOffset(r, c, R, C), want) << r << "," << c;
      ++seen[want];
    }
  for (int v : seen)
    EXPECT_EQ(v, 1); // a permutation
}

TEST(Swizzle, RoundTripAndPadding) {
  const int64_t R = 256, C = 8;
  std::vector<uint8_t> in(R * C), sw(R * C), back(R * C);
  for (int64_t i = 0; i < R * C; ++i)
    in[i] = static_cast<uint8_t>(i * 7 + 3);
  ASSERT_TRUE(swizzleScales(in.data(), sw.data(), R, C));
  ASSERT_TRUE(unswizzleScales(sw.data(), back.data(), R, C));
  EXPECT_EQ(back, in);
  EXPECT_EQ(sw[1569], in[130 * C + 5]);
  // Valid region 200 x 5: everything outside becomes zero.
  ASSERT_TRUE(swizzleScales(in.data(), sw.data(), R, C, 200, 5));
  ASSERT_TRUE(unswizzleScales(sw.data(), back.data(), R, C));
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c)
      EXPECT_EQ(back[r * C + c], (r < 200 && c < 5) ? in[r * C + c] : 0)
          << r << "," << c;
  // Sizes that are not whole 128 x 4 tiles are refused.
  EXPECT_FALSE(swizzleScales(in.data(), sw.data(), 100, 8));
  EXPECT_FALSE(swizzleScales(in.data(), sw.data(), 128, 6));
  EXPECT_FALSE(unswizzleScales(sw.data(), back.data(), 128, 3));
}

} // namespace
