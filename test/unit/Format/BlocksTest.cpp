//===- BlocksTest.cpp - Per-block quantizers
//-------------------------------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Hand-worked blocks of every recipe (expected codes are literals derived in
// the comments), the NVFP4 4over6 choice and the 2D tile rules.
//
//===----------------------------------------------------------------------===//

#include "te/Format/Blocks.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

using namespace te::format;

namespace {

TEST(Blocks, Amax) {
  const float x[5] = {1.0f, -7.5f, NAN, 3.0f, -0.0f};
  EXPECT_EQ(blockAmax(x, 5), 7.5f);    // NaN ignored
  EXPECT_EQ(blockAmax(x, 3, 2), 1.0f); // stride 2: 1, NaN, -0
  EXPECT_EQ(blockAmax(x, 0), 0.0f);
}

TEST(Blocks, FP8BlockHandWorked) {
  // amax 7 -> scale 448 / 7 = 64, scale_inv 1/64.
  const float x[3] = {7.0f, -3.5f, 0.01f};
  uint8_t q[3];
  float inv = quantizeFP8BlockWithAmax(x, 3, 1, 7.0f, DType::E4M3, false, 0,
                                       DType::F32, q);
  EXPECT_EQ(inv, 0.015625f);
  EXPECT_EQ(q[0], 0x7E); // 448
  EXPECT_EQ(q[1], 0xF6); // -224 = -1.75 * 2^7
  EXPECT_EQ(q[2], 0x32); // 0.64 -> 0.625
  // All zeros: scale 1, scale_inv 1.
  const float z[2] = {0, 0};
  EXPECT_EQ(quantizeFP8BlockWithAmax(z, 2, 1, 0.0f, DType::E4M3, true, 0,
                                     DType::BF16, q),
            1.0f);
  EXPECT_EQ(q[0], 0x00);
  // TE's extrema test: every value at the bf16 max; pow2 scale
  // 448 / 0x1.FEp127 = 0x1.C1..p-120 -> 2^-120, scale_inv 2^120.
  const float m[2] = {0x1.FEp127f, -0x1.FEp127f};
  EXPECT_EQ(quantizeFP8BlockWithAmax(m, 2, 1, 0x1.FEp127f, DType::E4M3, true, 0,
                                     DType::BF16, q),
            0x1p120f);
  EXPECT_EQ(q[0], 0x78); // 0x1.FEp127 * 2^-120 = 255 -> 256 = 2^8
  EXPECT_EQ(q[1], 0xF8);
}

TEST(Blocks, MXFP8BlockHandWorked) {
  // x_i = 28 i, amax 868: the smallest e with 448 * 2^(e-127) >= 868 is 128;
  // elements are multiplied by 2^-1: q_i = e4m3(14 i).
  float x[32];
  for (int i = 0; i < 32; ++i)
    x[i] = 28.0f * i;
  uint8_t q[32];
  uint8_t e = quantizeMXFP8Block(x, 32, 1, DType::E4M3, E8M0Rounding::Up, q);
  EXPECT_EQ(e, 128);
  EXPECT_EQ(q[0], 0x00);
  EXPECT_EQ(q[1], 0x56);  // 14 = 1.75 * 2^3
  EXPECT_EQ(q[30], 0x7D); // 420 -> 416 = 1.625 * 2^8
  EXPECT_EQ(q[31], 0x7E); // 434 -> 448
  // Columnwise use: stride over a [32, 2] matrix, column 1 holds -x.
  float m[64];
  for (int i = 0; i < 32; ++i) {
    m[2 * i] = 0.0f;
    m[2 * i + 1] = -x[i];
  }
  uint8_t qc[32];
  EXPECT_EQ(quantizeMXFP8Block(m + 1, 32, 2, DType::E4M3, E8M0Rounding::Up, qc),
            128);
  EXPECT_EQ(qc[1], 0xD6);
  // E5M2 with an explicit (2D tile) amax of 57344 * 4: e = 129, factor 1/4.
  uint8_t q5[2];
  const float y[2] = {57344.0f, 3.0f};
  EXPECT_EQ(quantizeMXFP8BlockWithAmax(y, 2, 1, 57344.0f * 4, DType::E5M2,
                                       E8M0Rounding::Up, q5),
            129);
  EXPECT_EQ(q5[0], 0x73); // 14336 = 1.75 * 2^13: exp 28, mant 3
  EXPECT_EQ(q5[1], 0x3A); // 0.75 = 1.5 * 2^-1: exp 14, mant 2
}

TEST(Blocks, NVFP4PlainBlock) {
  // Tensor amax 2688 -> S_enc = 1. Block amax 4 -> code e4m3(0.667) = 0x33
  // (0.6875), factor 1/0.6875: 4 -> 5.82 -> 6, 3 -> 4.36 -> 4, 2 -> 2.91
  // -> 3, 1 -> 1.45 -> 1.5, -1 -> -1.5.
  float x[16] = {4, 3, 2, 1, -1};
  uint8_t q[16], code;
  quantizeNVFP4Block(x, 16, 1, 4.0f, 2688.0f, false, 448, ErrMode::MAE, q,
                     &code);
  EXPECT_EQ(code, 0x33);
  const uint8_t want[6] = {0x7, 0x6, 0x5, 0x3, 0xB, 0x0};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(q[i], want[i]) << i;
}

TEST(Blocks, NVFP4FourOverSix) {
  // e4m3Max 256, tensor amax 1536 -> S_enc = 1; block {4, 3, 2, 1}:
  // map-to-6 = e4m3(4/6) = 0.6875 gives 6, 4, 3, 1.5 -> 4.125, 2.75, 2.0625,
  // 1.03125 (MAE 0.46875); map-to-4 = e4m3(1.0) gives 4, 3, 2, 1 exactly
  // (MAE 0): map-to-4 wins.
  float x[16] = {4, 3, 2, 1};
  uint8_t q[16], code;
  quantizeNVFP4Block(x, 16, 1, 4.0f, 1536.0f, true, 256, ErrMode::MAE, q,
                     &code);
  EXPECT_EQ(code, 0x38);
  EXPECT_EQ(q[0], 0x6);
  EXPECT_EQ(q[1], 0x5);
  EXPECT_EQ(q[2], 0x4);
  EXPECT_EQ(q[3], 0x2);
  // Errors computed by hand for the map-to-6 candidate.
  uint8_t q6[16];
  nvfp4EncodeBlock(x, 16, 1, 0x33, 1.0f, q6);
  EXPECT_EQ(nvfp4CandidateError(x, 16, 1, q6, 0x33, 1536.0f, 256, ErrMode::MAE),
            0.46875f);
  // MSE: 0.125^2 + 0.25^2 + 0.0625^2 + 0.03125^2.
  EXPECT_EQ(nvfp4CandidateError(x, 16, 1, q6, 0x33, 1536.0f, 256, ErrMode::MSE),
            0.0830078125f);
  // A tie (both exact): block {3}: map-to-6 = 0.5 gives 6 * 0.5 = 3,
  // map-to-4 = 0.75 gives 4 * 0.75 = 3. Ties choose map-to-6.
  float t[16] = {3};
  quantizeNVFP4Block(t, 16, 1, 3.0f, 1536.0f, true, 256, ErrMode::MSE, q,
                     &code);
  EXPECT_EQ(code, 0x30);
  EXPECT_EQ(q[0], 0x7);
  uint8_t m4, m6;
  nvfp4ScalePair4over6(3.0f, 1.0f, &m4, &m6);
  EXPECT_EQ(m4, 0x34); // 0.75
  EXPECT_EQ(m6, 0x30); // 0.5
}

TEST(Blocks, NVFP4Tile2D) {
  // A 16x16 tile whose rows differ in magnitude: the tile amax (the largest
  // row's) sets one scale for every row and column group; the columnwise
  // result is then the transpose of the rowwise one (docs/formats.md §3.5).
  float tile[16 * 16];
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c)
      tile[r * 16 + c] = (r + 1) * 0.25f * ((c % 3) - 1.0f);
  uint8_t rows[256], cols[256];
  uint8_t cr = quantizeNVFP4Tile(tile, 16, false, 2688.0f, false, 448,
                                 ErrMode::MAE, rows);
  uint8_t cc = quantizeNVFP4Tile(tile, 16, true, 2688.0f, false, 448,
                                 ErrMode::MAE, cols);
  // Tile amax 4 -> 0x33 as in the 1D example.
  EXPECT_EQ(cr, 0x33);
  EXPECT_EQ(cc, 0x33);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c)
      EXPECT_EQ(rows[r * 16 + c], cols[c * 16 + r]) << r << "," << c;
  // Row 15 (values 4 * {-1, 0, 1}) quantizes with factor 1/0.6875:
  // -4 -> -5.8 -> -6 (0xF), 0, 4 -> 6 (0x7).
  EXPECT_EQ(rows[15 * 16 + 0], 0xF);
  EXPECT_EQ(rows[15 * 16 + 1], 0x0);
  EXPECT_EQ(rows[15 * 16 + 2], 0x7);
  // 4over6 on a tile of {4,3,2,1,...} rows: map-to-4 is exact everywhere.
  float t2[256] = {};
  for (int r = 0; r < 16; ++r) {
    t2[r * 16 + 0] = 4;
    t2[r * 16 + 1] = 3;
    t2[r * 16 + 2] = 2;
    t2[r * 16 + 3] = 1;
  }
  uint8_t q[256];
  EXPECT_EQ(
      quantizeNVFP4Tile(t2, 16, false, 1536.0f, true, 256, ErrMode::MSE, q),
      0x38);
  EXPECT_EQ(q[5 * 16 + 1], 0x5);
  EXPECT_EQ(
      quantizeNVFP4Tile(t2, 16, true, 1536.0f, true, 256, ErrMode::MAE, q),
      0x38);
  EXPECT_EQ(q[1 * 16 + 5], 0x5); // column 1, row 5: value 3
}

} // namespace
