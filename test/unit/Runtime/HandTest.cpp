//===- HandTest.cpp - cpu backend vs hand-worked spec examples ------------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Small cases whose expected bits were worked out by hand from the formulas
// of docs/formats.md (values chosen so that every product is exact), edge
// cases the oracle vectors do not contain (NaN, +-inf, -0, subnormal blocks,
// round-to-nearest-even ties), the swizzle formula of §4, stochastic rounding
// statistics, GEMMs with exactly representable operands, and invariance to
// the number of threads.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <cmath>
#include <limits>
#include <random>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

using namespace te::test;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

te_rt_quantize_args noArgs() {
  te_rt_quantize_args a;
  te_rt_quantize_args_init(&a);
  return a;
}

//===----------------------------------------------------------------------===//
// Per-tensor FP8
//===----------------------------------------------------------------------===//

TEST(HandCurrent, E4M3RowwiseAndTranspose) {
  Context ctx;
  // amax 2 -> scale 448/2 = 224; x*224 = 112, -224, 448, 0, 56.
  std::vector<float> v = {0.5f, -1.0f, 2.0f, 0.0f, 0.25f, 0.0f};
  te_rt_tensor x = tensorF32(v, {2, 3});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3), {2, 3},
            TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90);
  float amax = 0;
  te_rt_quantize_args a = noArgs();
  a.amax = &amax;
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, &a), TE_RT_OK) << te_rt_last_error();
  // 112 = 1.75*2^6: 0|1101|110; 224 = 1.75*2^7; 448 = 1.75*2^8; 56 = 1.75*2^5.
  const uint8_t want[] = {0x6E, 0xF6, 0x7E, 0x00, 0x66, 0x00};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(q.buf("_data")[i], want[i]) << i;
  // _transpose is [K, M] = [3, 2].
  const uint8_t wantT[] = {0x6E, 0x00, 0xF6, 0x66, 0x7E, 0x00};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(q.buf("_transpose")[i], wantT[i]) << i;
  EXPECT_EQ(*q.buf<float>("_scale_inv"), 1.0f / 224.0f);
  EXPECT_EQ(amax, 2.0f);
}

TEST(HandCurrent, E5M2) {
  Context ctx;
  // amax 2 -> scale 57344/2 = 28672: 14336 = 1.75*2^13 -> 0|11100|11.
  std::vector<float> v = {0.5f, -1.0f, 2.0f, 0.0f};
  te_rt_tensor x = tensorF32(v, {4});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E5M2), {4},
            TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  const uint8_t want[] = {0x73, 0xF7, 0x7B, 0x00};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(q.buf("_data")[i], want[i]) << i;
  EXPECT_EQ(*q.buf<float>("_scale_inv"), 1.0f / 28672.0f);
}

TEST(HandCurrent, Pow2ScaleRoundsDown) {
  Context ctx;
  // 448/3 = 149.33 -> 128; 3*128 = 384 = 1.5*2^8 -> 0|1111|100.
  std::vector<float> v = {3.0f, 1.0f};
  te_rt_tensor x = tensorF32(v, {2});
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  qz.pow2_scales = 1;
  QTensor q(ctx, qz, {2}, TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  EXPECT_EQ(q.buf("_data")[0], 0x7C);
  EXPECT_EQ(q.buf("_data")[1], 0x70); // 128 = 2^7 -> 0|1110|000
  EXPECT_EQ(*q.buf<float>("_scale_inv"), 1.0f / 128.0f);
}

TEST(HandCurrent, ZerosNaNAndInf) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  {
    std::vector<float> v(8, 0.0f);
    te_rt_tensor x = tensorF32(v, {8});
    QTensor q(ctx, qz, {8}, TE_RT_ROWWISE, TE_RT_SM90);
    ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
    EXPECT_EQ(*q.buf<float>("_scale_inv"), 1.0f); // amax 0 -> scale 1
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(q.buf("_data")[i], 0);
  }
  {
    // NaN is ignored by the amax (maxNum) and encodes as 0x7F.
    std::vector<float> v = {kNaN, 1.0f, -2.0f};
    te_rt_tensor x = tensorF32(v, {3});
    QTensor q(ctx, qz, {3}, TE_RT_ROWWISE, TE_RT_SM90);
    float amax = 0;
    te_rt_quantize_args a = noArgs();
    a.amax = &amax;
    ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, &a), TE_RT_OK);
    EXPECT_EQ(amax, 2.0f);
    EXPECT_EQ(q.buf("_data")[0], 0x7F);
    EXPECT_EQ(q.buf("_data")[1], 0x76); // 224
    EXPECT_EQ(q.buf("_data")[2], 0xFE); // -448
  }
  {
    // amax inf -> scale 1; inf saturates to 448 (satfinite).
    std::vector<float> v = {kInf, 1.0f, -kInf};
    te_rt_tensor x = tensorF32(v, {3});
    QTensor q(ctx, qz, {3}, TE_RT_ROWWISE, TE_RT_SM90);
    ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
    EXPECT_EQ(*q.buf<float>("_scale_inv"), 1.0f);
    EXPECT_EQ(q.buf("_data")[0], 0x7E);
    EXPECT_EQ(q.buf("_data")[1], 0x38); // 1.0 = 0|0111|000
    EXPECT_EQ(q.buf("_data")[2], 0xFE);
  }
}

TEST(HandCurrent, EpsilonAndGivenAmax) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  qz.amax_epsilon = 0.5f;
  std::vector<float> v = {0.125f, 0.0f};
  te_rt_tensor x = tensorF32(v, {2});
  QTensor q(ctx, qz, {2}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  // amax 0.125 < eps 0.5 -> scale 896; 0.125*896 = 112.
  EXPECT_EQ(*q.buf<float>("_scale_inv"), 1.0f / 896.0f);
  EXPECT_EQ(q.buf("_data")[0], 0x6E);

  // amax_in (after an all-reduce): 4 -> scale 112; 1*112 = 112, 2*112 = 224.
  te_rt_quantizer q2 = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  std::vector<float> w = {1.0f, 2.0f};
  te_rt_tensor xw = tensorF32(w, {2});
  QTensor qq(ctx, q2, {2}, TE_RT_ROWWISE, TE_RT_SM90);
  float given = 4.0f;
  te_rt_quantize_args a = noArgs();
  a.amax_in = &given;
  ASSERT_EQ(te_rt_quantize(ctx, &xw, &qq.q, &a), TE_RT_OK);
  EXPECT_EQ(qq.buf("_data")[0], 0x6E);
  EXPECT_EQ(qq.buf("_data")[1], 0x76);
  EXPECT_EQ(*qq.buf<float>("_scale_inv"), 1.0f / 112.0f);
}

TEST(HandCurrent, F16AndBF16InputsMatchF32) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  // 0.5, -1, 2 as f16 (0x3800, 0xBC00, 0x4000) and bf16 (0x3F00, 0xBF80,
  // 0x4000).
  uint16_t f16[] = {0x3800, 0xBC00, 0x4000};
  uint16_t b16[] = {0x3F00, 0xBF80, 0x4000};
  for (int t = 0; t < 2; ++t) {
    te_rt_tensor x;
    std::memset(&x, 0, sizeof(x));
    x.data = t ? static_cast<void *>(b16) : static_cast<void *>(f16);
    x.dtype = t ? TE_RT_BF16 : TE_RT_F16;
    x.rank = 1;
    x.shape[0] = 3;
    QTensor q(ctx, qz, {3}, TE_RT_ROWWISE, TE_RT_SM90);
    ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
    EXPECT_EQ(q.buf("_data")[0], 0x6E);
    EXPECT_EQ(q.buf("_data")[1], 0xF6);
    EXPECT_EQ(q.buf("_data")[2], 0x7E);
  }
}

TEST(HandDelayed, GivenScaleAmaxOutAndSaturation) {
  Context ctx;
  // scale 2: 1 -> 2 (0|1000|000), -3 -> -6 (1|1001|100), 500 -> 1000 -> 448.
  std::vector<float> v = {1.0f, -3.0f, 500.0f};
  te_rt_tensor x = tensorF32(v, {3});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_DELAYED, TE_RT_E4M3), {3},
            TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90);
  float scale = 2.0f, amax = 0.0f;
  te_rt_quantize_args a = noArgs();
  a.scale = &scale;
  a.amax = &amax;
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, &a), TE_RT_OK);
  EXPECT_EQ(q.buf("_data")[0], 0x40);
  EXPECT_EQ(q.buf("_data")[1], 0xCC);
  EXPECT_EQ(q.buf("_data")[2], 0x7E);
  EXPECT_EQ(*q.buf<float>("_scale_inv"), 0.5f);
  EXPECT_EQ(amax, 500.0f);
}

TEST(HandDelayed, UpdateScaleRollsHistory) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_DELAYED, TE_RT_E4M3);
  qz.margin = 1;
  // history [L=3, n=3] row-major; column i is tensor i; row 0 = last amax.
  float h[9] = {10, 4, 0, //
                5,  8, 0, //
                20, 2, 0};
  float scale[3] = {1, 1, 7};
  ASSERT_EQ(te_rt_update_scale(ctx, &qz, h, scale, 3, 3), TE_RT_OK);
  // max(5, 20, 10) = 20 -> (448/2)/20; max(8, 2, 4) = 8 -> 224/8 = 28;
  // all zero -> previous scale kept.
  EXPECT_EQ(scale[0], 224.0f / 20.0f);
  EXPECT_EQ(scale[1], 28.0f);
  EXPECT_EQ(scale[2], 7.0f);
  float want[9] = {0, 0, 0, 20, 2, 0, 10, 4, 0};
  for (int i = 0; i < 9; ++i)
    EXPECT_EQ(h[i], want[i]) << i;
  // most_recent uses the last amax only.
  qz.amax_algo = TE_RT_AMAX_MOST_RECENT;
  qz.margin = 0;
  float h2[2] = {16, 1000};
  float s2 = 1;
  ASSERT_EQ(te_rt_update_scale(ctx, &qz, h2, &s2, 2, 1), TE_RT_OK);
  EXPECT_EQ(s2, 28.0f);
  EXPECT_EQ(h2[0], 0.0f);
  EXPECT_EQ(h2[1], 16.0f);
}

TEST(HandAmax, IgnoresNaN) {
  Context ctx;
  std::vector<float> v = {kNaN, -5.0f, 3.0f};
  te_rt_tensor x = tensorF32(v, {3});
  float amax = 0;
  ASSERT_EQ(te_rt_amax(ctx, &x, &amax), TE_RT_OK);
  EXPECT_EQ(amax, 5.0f);
  v[2] = -kInf;
  ASSERT_EQ(te_rt_amax(ctx, &x, &amax), TE_RT_OK);
  EXPECT_EQ(amax, kInf);
}

//===----------------------------------------------------------------------===//
// Block scaling
//===----------------------------------------------------------------------===//

TEST(HandBlock, OneByOneTwentyEightGemmReadyScales) {
  Context ctx;
  const int M = 2, K = 256;
  std::vector<float> v(M * K, 0.0f);
  for (int k = 0; k < 128; ++k)
    v[k] = 1.0f; // row 0 block 0: amax 4 (below) -> 448/4 = 112 -> pow2 64
  v[5] = 4.0f;
  // row 0 block 1: zeros -> scale 1.
  for (int k = 0; k < 128; ++k)
    v[K + k] =
        std::ldexp(1.0f, -140); // subnormal: 448/amax = inf -> FLT_MAX -> 2^127
  for (int k = 128; k < 256; ++k)
    v[K + k] = 458752.0f; // 448 * 2^10 -> scale 2^-10
  te_rt_tensor x = tensorF32(v, {M, K});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_BLOCK, TE_RT_E4M3), {M, K},
            TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90);
  ASSERT_EQ(q.status, TE_RT_OK) << te_rt_last_error();
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  uint8_t *d = q.buf("_rowwise_data");
  EXPECT_EQ(d[0], 0x68); // 64 = 2^6
  EXPECT_EQ(d[5], 0x78); // 256 = 2^8
  EXPECT_EQ(d[200], 0x00);
  EXPECT_EQ(d[K + 3], 0x00); // 2^-140 * 2^127 = 2^-13 rounds to 0
  EXPECT_EQ(d[K + 130], 0x7E);
  // GEMM_READY: [ceil(K/128), rup(M, 4)] = [2, 4], scale of (m, kb) at [kb][m].
  te_rt_buffer_desc sd = q.desc("_rowwise_scale_inv");
  ASSERT_EQ(sd.shape[0], 2);
  ASSERT_EQ(sd.shape[1], 4);
  float *s = q.buf<float>("_rowwise_scale_inv");
  EXPECT_EQ(s[0], 1.0f / 64.0f);
  EXPECT_EQ(s[1], std::ldexp(1.0f, -127));
  EXPECT_EQ(s[4], 1.0f);
  EXPECT_EQ(s[5], 1024.0f);
  EXPECT_EQ(s[2], 0.0f); // padding
  EXPECT_EQ(s[3], 0.0f);
  EXPECT_EQ(s[6], 0.0f);
  EXPECT_EQ(s[7], 0.0f);
  // Columnwise: [K, M] data, 128x1 blocks along M (one partial block of 2
  // rows); scale of (k, mb) at [mb][k], shape [ceil(M/128), rup(K, 4)].
  te_rt_buffer_desc cd = q.desc("_columnwise_scale_inv");
  ASSERT_EQ(cd.shape[0], 1);
  ASSERT_EQ(cd.shape[1], 256);
  float *cs = q.buf<float>("_columnwise_scale_inv");
  // column 0: {1, 2^-140}: amax 1 -> 448 -> pow2 256.
  EXPECT_EQ(cs[0], 1.0f / 256.0f);
  EXPECT_EQ(cs[5], 1.0f / 64.0f); // column 5: {4, 2^-140}: 112 -> 64
  EXPECT_EQ(cs[130], 1024.0f);    // column 130: {0, 458752}
  uint8_t *ct = q.buf("_columnwise_data");
  EXPECT_EQ(ct[0 * M + 0], 0x78); // 1 * 256
  EXPECT_EQ(ct[130 * M + 1], 0x7E);
}

TEST(HandBlock, ValueForInfIsTheInputTypeMax) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_BLOCK, TE_RT_E4M3);
  qz.pow2_scales = 0;
  // A block of 2^-130 (bf16-representable): 448/amax overflows to inf ->
  // the input type's max: FLT_MAX for f32, 0x1.FEp127 for bf16.
  std::vector<float> v(128, std::ldexp(1.0f, -130));
  te_rt_tensor x = tensorF32(v, {1, 128});
  QTensor q(ctx, qz, {1, 128}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  EXPECT_EQ(*q.buf<float>("_rowwise_scale_inv"),
            1.0f / std::numeric_limits<float>::max());
  std::vector<uint16_t> b(
      128, static_cast<uint16_t>(bits(std::ldexp(1.0f, -130)) >> 16));
  te_rt_tensor xb = x;
  xb.data = b.data();
  xb.dtype = TE_RT_BF16;
  ASSERT_EQ(te_rt_quantize(ctx, &xb, &q.q, nullptr), TE_RT_OK);
  EXPECT_EQ(*q.buf<float>("_rowwise_scale_inv"), 1.0f / fromBits(0x7F7F0000u));
}

TEST(HandBlock, TwoDimensionalTileSharesOneScale) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_BLOCK, TE_RT_E4M3);
  qz.block_dim = 2;
  const int M = 130, K = 140; // partial tiles in both directions
  std::vector<float> v(M * K, 1.0f);
  v[129 * K + 139] = 8.0f; // the corner tile (1, 1): amax 8 -> 56 -> pow2 32
  v[3 * K + 3] = 2.0f;     // tile (0, 0): amax 2 -> 224 -> 128
  te_rt_tensor x = tensorF32(v, {M, K});
  QTensor q(ctx, qz, {M, K}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  // rowwise [ceil(M/128), rup(ceil(K/128), 4)] = [2, 4], [mb][kb].
  float *s = q.buf<float>("_rowwise_scale_inv");
  EXPECT_EQ(s[0], 1.0f / 128.0f);
  EXPECT_EQ(s[1], 1.0f / 256.0f); // tile (0, 1): amax 1 -> 448 -> 256
  EXPECT_EQ(s[4], 1.0f / 256.0f);
  EXPECT_EQ(s[5], 1.0f / 32.0f);
  // columnwise = transpose: [ceil(K/128), rup(ceil(M/128), 4)], [kb][mb].
  float *cs = q.buf<float>("_columnwise_scale_inv");
  EXPECT_EQ(cs[0], 1.0f / 128.0f);
  EXPECT_EQ(cs[1], 1.0f / 256.0f); // (kb 0, mb 1)
  EXPECT_EQ(cs[4], 1.0f / 256.0f); // (kb 1, mb 0)
  EXPECT_EQ(cs[5], 1.0f / 32.0f);
  uint8_t *d = q.buf("_rowwise_data"), *ct = q.buf("_columnwise_data");
  for (int m = 0; m < M; m += 7)
    for (int k = 0; k < K; k += 5)
      EXPECT_EQ(d[m * K + k], ct[k * M + m]);
  EXPECT_EQ(d[129 * K + 139], 0x78); // 8 * 32 = 256 = 2^8
}

//===----------------------------------------------------------------------===//
// MXFP8
//===----------------------------------------------------------------------===//

TEST(HandMXFP8, ScalesRoundUpAndEdgeBlocks) {
  Context ctx;
  const int M = 32, K = 64;
  std::vector<float> v(M * K, 1.0f);
  v[0] = 448.0f;  // row 0 block 0: e = 127
  v[32] = 449.0f; // row 0 block 1: 449/448 > 1 -> 128
  for (int k = 0; k < 32; ++k)
    v[K + k] = 0.0f; // row 1 block 0: zeros -> e = 0
  for (int k = 32; k < 64; ++k)
    v[K + k] = std::ldexp(1.0f, -130); // row 1 block 1: subnormal -> e = 0
  te_rt_tensor x = tensorF32(v, {M, K});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3), {M, K},
            TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
  ASSERT_EQ(q.status, TE_RT_OK) << te_rt_last_error();
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  uint8_t *rs = q.buf("_rowwise_scale_inv");
  te_rt_buffer_desc rsd = q.desc("_rowwise_scale_inv");
  ASSERT_EQ(rsd.shape[0], 128);
  ASSERT_EQ(rsd.shape[1], 4);
  EXPECT_EQ(rs[0], 127);
  EXPECT_EQ(rs[1], 128);
  EXPECT_EQ(rs[4], 0);
  EXPECT_EQ(rs[5], 0);
  EXPECT_EQ(rs[2 * 4], 119); // amax 1: 1/448 = 1.14*2^-9, rounded up: 2^-8
  EXPECT_EQ(rs[2], 0);       // padding
  EXPECT_EQ(rs[40 * 4], 0);  // padding rows
  uint8_t *d = q.buf("_rowwise_data");
  EXPECT_EQ(d[0], 0x7E);  // 448
  EXPECT_EQ(d[1], 0x38);  // 1
  EXPECT_EQ(d[32], 0x76); // 449/2 = 224.5 -> 224
  EXPECT_EQ(d[33], 0x30); // 0.5
  EXPECT_EQ(d[K + 0], 0x00);
  EXPECT_EQ(d[K + 40], 0x20); // 2^-130 * 2^127 = 0.125
  EXPECT_EQ(d[2 * K], 0x78);  // 1 * 256
  // Columnwise: 32x1 blocks along M, data not transposed, [mb][k] scales.
  uint8_t *cs = q.buf("_columnwise_scale_inv");
  EXPECT_EQ(cs[0], 127);  // column 0: {448, 0, 1, ...}
  EXPECT_EQ(cs[1], 119);  // column 1: {1, 0, 1, ...}
  EXPECT_EQ(cs[32], 128); // column 32: {449, 2^-130, 1, ...}
  EXPECT_EQ(q.buf("_columnwise_data")[1], 0x78);
}

TEST(HandMXFP8, FloorRoundingSaturates) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3);
  qz.e8m0_rounding = TE_RT_E8M0_FLOOR;
  std::vector<float> v(32 * 32, 1.0f);
  v[0] = 449.0f; // floor(log2 449) - 8 = 0 -> e = 127; 449 saturates to 448
  te_rt_tensor x = tensorF32(v, {32, 32});
  QTensor q(ctx, qz, {32, 32}, TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  EXPECT_EQ(q.buf("_rowwise_scale_inv")[0], 127);
  EXPECT_EQ(q.buf("_rowwise_data")[0], 0x7E);
  EXPECT_EQ(q.buf("_rowwise_scale_inv")[4], 119); // row 1: amax 1 -> 2^-8
}

TEST(HandMXFP8, TwoDimensionalBlocks) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3);
  qz.mx_2d = 1;
  std::vector<float> v(64 * 64, 1.0f);
  v[40 * 64 + 10] = 448.0f; // block (1, 0): e = 127; others 119
  te_rt_tensor x = tensorF32(v, {64, 64});
  QTensor q(ctx, qz, {64, 64}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  uint8_t *rs = q.buf("_rowwise_scale_inv"),
          *cs = q.buf("_columnwise_scale_inv");
  for (int m = 0; m < 64; ++m)
    for (int kb = 0; kb < 2; ++kb)
      EXPECT_EQ(rs[m * 4 + kb], (m >= 32 && kb == 0) ? 127 : 119)
          << m << " " << kb;
  for (int mb = 0; mb < 2; ++mb)
    for (int k = 0; k < 64; ++k)
      EXPECT_EQ(cs[mb * 128 + k], (mb == 1 && k < 32) ? 127 : 119);
  EXPECT_EQ(
      std::memcmp(q.buf("_rowwise_data"), q.buf("_columnwise_data"), 64 * 64),
      0);
}

//===----------------------------------------------------------------------===//
// NVFP4
//===----------------------------------------------------------------------===//

/// Row 0 block 0 has amax 3 and the tensor amax is 5.25, so S_enc = 2688/5.25
/// = 512 (exact), the block scale is e4m3(3*512/6) = 256 (0x78) and every
/// element is multiplied by exactly 1/(256/512) = 2 before the E2M1 cast.
std::vector<float> nvfp4HandInput() {
  std::vector<float> v(16 * 32, 0.0f);
  const float b0[16] = {3,     1.5f, 0.75f,  0.125f, 0.375f, -0.625f,
                        1.25f, -3,   2.5f,   -0.0f,  0,      0.25f,
                        1,     2,    -0.25f, 0.0625f};
  for (int i = 0; i < 16; ++i)
    v[i] = b0[i];
  v[16] = 5.25f;
  return v;
}

TEST(HandNVFP4, TiesSignedZeroAndPacking) {
  Context ctx;
  std::vector<float> v = nvfp4HandInput();
  te_rt_tensor x = tensorF32(v, {16, 32});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2), {16, 32},
            TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
  ASSERT_EQ(q.status, TE_RT_OK) << te_rt_last_error();
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  // x*2 = 6, 3, 1.5, 0.25 (tie -> 0), 0.75 (tie -> 1), -1.25 (tie -> -1),
  // 2.5 (tie -> 2), -6, 5 (tie -> 4), -0 (sign kept: 8), 0, 0.5, 2, 4, -0.5,
  // 0.125 (-> 0).
  const uint8_t nib[16] = {7, 5, 3, 0, 2, 0xA, 4, 0xF, 6, 8, 0, 1, 4, 6, 9, 0};
  uint8_t *d = q.buf("_rowwise_data");
  for (int j = 0; j < 8; ++j)
    EXPECT_EQ(d[j], nib[2 * j] | (nib[2 * j + 1] << 4)) << j;
  EXPECT_EQ(d[8] & 0xF, 7); // 5.25 is the block max: -> 6
  uint8_t *s = q.buf("_rowwise_scale_inv");
  EXPECT_EQ(s[0], 0x78);
  EXPECT_EQ(s[1], 0x7E); // 5.25*512/6 = 448
  EXPECT_EQ(s[4], 0x00); // all-zero block
  EXPECT_EQ(*q.buf<float>("_amax_rowwise"), 5.25f);
  EXPECT_EQ(*q.buf<float>("_amax_columnwise"), 5.25f); // a copy without RHT

  // Dequantize: q * 256 * 5.25 / 2688 = q / 2 (exact).
  std::vector<float> out(16 * 32);
  te_rt_tensor o = tensorF32(out, {16, 32});
  ASSERT_EQ(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE, &o), TE_RT_OK);
  const float want[16] = {3, 1.5f,  0.75f, 0,     0.5f, -0.5f, 1.0f,   -3,
                          2, -0.0f, 0,     0.25f, 1,    2,     -0.25f, 0};
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(out[i], want[i]) << i;
    EXPECT_EQ(std::signbit(out[i]), std::signbit(want[i])) << i;
  }
}

TEST(HandNVFP4, ColumnwiseIsTheTransposeQuantized) {
  Context ctx;
  // The hand block placed in column 0 (rows 0..15) quantizes identically.
  std::vector<float> r = nvfp4HandInput(), v(32 * 16, 0.0f);
  for (int i = 0; i < 16; ++i)
    v[i * 16] = r[i];
  v[16 * 16] = 5.25f;
  te_rt_tensor x = tensorF32(v, {32, 16});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2), {32, 16},
            TE_RT_COLUMNWISE, TE_RT_SM100);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  const uint8_t nib[16] = {7, 5, 3, 0, 2, 0xA, 4, 0xF, 6, 8, 0, 1, 4, 6, 9, 0};
  uint8_t *d = q.buf("_columnwise_data"); // [K=16, M/2=16]
  for (int j = 0; j < 8; ++j)
    EXPECT_EQ(d[j], nib[2 * j] | (nib[2 * j + 1] << 4)) << j;
  EXPECT_EQ(q.buf("_columnwise_scale_inv")[0], 0x78);
  EXPECT_EQ(q.buf("_columnwise_scale_inv")[1], 0x7E);
}

TEST(HandNVFP4, RHTRoundTripsThroughDequantize) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2);
  qz.rht = 1;
  qz.rht_sign_mask = 0xD7E8;
  // One column of 16 equal values 2: H16 * 0.25 maps it to (8, 0, ..., 0)
  // up to the sign flips of s (row 0 of diag(s) H is +1): v'_0 = 0.25*sum_i
  // s_i*2 = 0.25 * 2 * (6 - 10) = -2; the columnwise amax is post-RHT.
  std::vector<uint16_t> v(16 * 16, 0);
  for (int m = 0; m < 16; ++m)
    v[m * 16] = 0x4000; // 2.0 in bf16
  te_rt_tensor x;
  std::memset(&x, 0, sizeof(x));
  x.data = v.data();
  x.dtype = TE_RT_BF16;
  x.rank = 2;
  x.shape[0] = x.shape[1] = 16;
  QTensor q(ctx, qz, {16, 16}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK)
      << te_rt_last_error();
  EXPECT_EQ(*q.buf<float>("_amax_rowwise"), 2.0f);
  // s has 10 entries -1: sum_i s_i H_i0 = 6 - 10 = -4 -> v'_0 = -2; the
  // other outputs j: 0.25 * 2 * sum_i s_i H_ij.
  float post = 0;
  const int s[16] = {1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1};
  for (int j = 0; j < 16; ++j) {
    int sum = 0;
    for (int i = 0; i < 16; ++i)
      sum += s[i] * ((__builtin_popcount(i & j) & 1) ? -1 : 1);
    post = std::max(post, std::fabs(0.5f * sum));
  }
  EXPECT_EQ(*q.buf<float>("_amax_columnwise"), post);
  std::vector<float> out(256);
  te_rt_tensor o = tensorF32(out, {16, 16});
  ASSERT_EQ(te_rt_dequantize(ctx, &q.q, TE_RT_COLUMNWISE, &o), TE_RT_OK);
  // Dequantizing the columnwise copy undoes the RHT (up to FP4 error).
  for (int m = 0; m < 16; ++m) {
    EXPECT_NEAR(out[m * 16], 2.0f, 0.75f) << m;
    EXPECT_NEAR(out[m * 16 + 1], 0.0f, 1e-6f);
  }
}

TEST(HandNVFP4, StochasticRoundingIsUnbiasedAndBeatsRNE) {
  Context ctx;
  const int M = 16, K = 64;
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> uni(-5.0f, 5.0f);
  std::vector<float> v(M * K);
  for (float &f : v)
    f = uni(gen);
  v[0] = 5.25f; // tensor amax -> S_enc = 512 (exact)
  te_rt_tensor x = tensorF32(v, {M, K});
  te_rt_quantizer rne = quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2);
  te_rt_quantizer sr = rne;
  sr.stochastic_rounding = 1;
  std::vector<float> out(M * K), mean(M * K, 0.0f);
  te_rt_tensor o = tensorF32(out, {M, K});
  QTensor qr(ctx, rne, {M, K}, TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &qr.q, nullptr), TE_RT_OK);
  ASSERT_EQ(te_rt_dequantize(ctx, &qr.q, TE_RT_ROWWISE, &o), TE_RT_OK);
  double rmseRNE = 0;
  for (int i = 0; i < M * K; ++i)
    rmseRNE += double(out[i] - v[i]) * (out[i] - v[i]);
  rmseRNE = std::sqrt(rmseRNE / (M * K));

  const int N = 200;
  QTensor qs(ctx, sr, {M, K}, TE_RT_ROWWISE, TE_RT_SM100);
  std::vector<uint8_t> first;
  for (int draw = 0; draw < N; ++draw) {
    te_rt_quantize_args a = noArgs();
    a.seed = 1234;
    a.offset = static_cast<uint64_t>(draw) * 1000003;
    ASSERT_EQ(te_rt_quantize(ctx, &x, &qs.q, &a), TE_RT_OK);
    if (draw == 0)
      first.assign(qs.buf("_rowwise_data"),
                   qs.buf("_rowwise_data") + M * K / 2);
    ASSERT_EQ(te_rt_dequantize(ctx, &qs.q, TE_RT_ROWWISE, &o), TE_RT_OK);
    for (int i = 0; i < M * K; ++i)
      mean[i] += out[i] / N;
  }
  double rmseMean = 0, bias = 0;
  for (int i = 0; i < M * K; ++i) {
    rmseMean += double(mean[i] - v[i]) * (mean[i] - v[i]);
    bias += double(mean[i] - v[i]);
  }
  rmseMean = std::sqrt(rmseMean / (M * K));
  bias /= M * K;
  EXPECT_LT(rmseMean, rmseRNE * 0.5)
      << "SR mean RMSE " << rmseMean << " vs RNE " << rmseRNE;
  EXPECT_LT(std::fabs(bias), 0.02);
  // Deterministic for a given (seed, offset); a different seed differs.
  te_rt_quantize_args a = noArgs();
  a.seed = 1234;
  ASSERT_EQ(te_rt_quantize(ctx, &x, &qs.q, &a), TE_RT_OK);
  EXPECT_EQ(std::memcmp(first.data(), qs.buf("_rowwise_data"), first.size()),
            0);
  a.seed = 99;
  ASSERT_EQ(te_rt_quantize(ctx, &x, &qs.q, &a), TE_RT_OK);
  EXPECT_NE(std::memcmp(first.data(), qs.buf("_rowwise_data"), first.size()),
            0);
}

TEST(HandPadding, EveryPaddingByteIsZero) {
  // Buffers pre-filled with garbage: quantize rewrites every byte, and all
  // bytes outside the valid scale region are zero.
  Context ctx;
  const int M = 48, K = 160;
  std::vector<float> v(M * K);
  for (int i = 0; i < M * K; ++i)
    v[i] = std::ldexp(1.0f + (i % 5) / 4.0f, i % 11 - 5);
  te_rt_tensor x = tensorF32(v, {M, K});
  struct R {
    te_rt_recipe recipe;
    te_rt_dtype dtype;
    const char *scale;
    int64_t validRows, validCols; // of the 2-D scale buffer
  } rs[] = {
      {TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2, "_rowwise_scale_inv", M, K / 16},
      {TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2, "_columnwise_scale_inv", K, M / 16},
      {TE_RT_RECIPE_BLOCK, TE_RT_E4M3, "_rowwise_scale_inv", 2, M},
      {TE_RT_RECIPE_BLOCK, TE_RT_E4M3, "_columnwise_scale_inv", 1, K},
  };
  for (const R &r : rs) {
    te_rt_quantizer qz = quantizer(r.recipe, r.dtype);
    QTensor q(ctx, qz, {M, K}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
    ASSERT_EQ(q.status, TE_RT_OK) << te_rt_last_error();
    for (int i = 0; i < q.q.num_buffers; ++i)
      std::memset(q.q.buffers[i].data, 0xAB,
                  static_cast<size_t>(q.q.buffers[i].size_bytes));
    ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
    te_rt_buffer_desc d = q.desc(r.scale);
    int64_t eb = r.recipe == TE_RT_RECIPE_BLOCK ? 4 : 1;
    const uint8_t *b = q.buf(r.scale);
    int64_t bad = 0, nonzeroValid = 0;
    for (int64_t row = 0; row < d.shape[0]; ++row)
      for (int64_t col = 0; col < d.shape[1]; ++col)
        for (int64_t e = 0; e < eb; ++e) {
          uint8_t byte = b[(row * d.shape[1] + col) * eb + e];
          bool valid = row < r.validRows && col < r.validCols;
          if (!valid && byte != 0)
            ++bad;
          if (valid && byte != 0)
            ++nonzeroValid;
        }
    EXPECT_EQ(bad, 0) << r.scale << " of recipe " << r.recipe;
    EXPECT_GT(nonzeroValid, 0) << r.scale;
    for (int i = 0; i < q.q.num_buffers; ++i) {
      const uint8_t *p = static_cast<const uint8_t *>(q.q.buffers[i].data);
      int64_t garbage = 0;
      for (int64_t j = 0; j < q.q.buffers[i].size_bytes; ++j)
        garbage += p[j] == 0xAB;
      EXPECT_LT(garbage, q.q.buffers[i].size_bytes / 4) << i;
    }
  }
  // MXFP8 with 64 rows: rowwise scales [128, 8] valid [64, 5].
  std::vector<float> w(64 * K, 3.0f);
  te_rt_tensor xw = tensorF32(w, {64, K});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3), {64, K},
            TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
  for (int i = 0; i < q.q.num_buffers; ++i)
    std::memset(q.q.buffers[i].data, 0xAB,
                static_cast<size_t>(q.q.buffers[i].size_bytes));
  ASSERT_EQ(te_rt_quantize(ctx, &xw, &q.q, nullptr), TE_RT_OK);
  te_rt_buffer_desc rd = q.desc("_rowwise_scale_inv");
  ASSERT_EQ(rd.shape[0], 128);
  ASSERT_EQ(rd.shape[1], 8);
  for (int64_t row = 0; row < 128; ++row)
    for (int64_t col = 0; col < 8; ++col)
      EXPECT_EQ(q.buf("_rowwise_scale_inv")[row * 8 + col] != 0,
                row < 64 && col < 5)
          << row << " " << col;
  te_rt_buffer_desc cd = q.desc("_columnwise_scale_inv"); // [4, 256]
  for (int64_t row = 0; row < cd.shape[0]; ++row)
    for (int64_t col = 0; col < cd.shape[1]; ++col)
      EXPECT_EQ(q.buf("_columnwise_scale_inv")[row * cd.shape[1] + col] != 0,
                row < 2 && col < K)
          << row << " " << col;
}

//===----------------------------------------------------------------------===//
// Swizzle (docs/formats.md §4)
//===----------------------------------------------------------------------===//

int64_t swizzled(int64_t r, int64_t c, int64_t C) {
  return ((r / 128) * (C / 4) + c / 4) * 512 + (r % 32) * 16 +
         ((r % 128) / 32) * 4 + (c % 4);
}

TEST(HandSwizzle, MXFP8RowwiseAndTransposedColumnwise) {
  Context ctx;
  const int M = 160, K = 320;
  std::vector<float> v(M * K);
  std::mt19937 gen(5);
  std::uniform_int_distribution<int> e(-20, 20);
  for (int i = 0; i < M * K; ++i)
    v[i] = std::ldexp(1.0f + (i % 7) / 8.0f, e(gen));
  te_rt_tensor x = tensorF32(v, {M, K});
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3);
  QTensor compact(ctx, qz, {M, K}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
  QTensor sw(ctx, qz, {M, K}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &compact.q, nullptr), TE_RT_OK);
  sw.q.swizzled_scales = 1;
  ASSERT_EQ(te_rt_quantize(ctx, &x, &sw.q, nullptr), TE_RT_OK);
  te_rt_buffer_desc rd = compact.desc("_rowwise_scale_inv");
  int64_t R = rd.shape[0], C = rd.shape[1]; // [256, 12]
  uint8_t *c0 = compact.buf("_rowwise_scale_inv"),
          *s0 = sw.buf("_rowwise_scale_inv");
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c)
      ASSERT_EQ(s0[swizzled(r, c, C)], c0[r * C + c]) << r << " " << c;
  // Columnwise [rup(M/32,4), rup(K,128)] = [8, 384] swizzled as its
  // transpose [384, 8].
  te_rt_buffer_desc cd = compact.desc("_columnwise_scale_inv");
  int64_t CR = cd.shape[0], CC = cd.shape[1];
  uint8_t *c1 = compact.buf("_columnwise_scale_inv"),
          *s1 = sw.buf("_columnwise_scale_inv");
  for (int64_t mb = 0; mb < CR; ++mb)
    for (int64_t k = 0; k < CC; ++k)
      ASSERT_EQ(s1[swizzled(k, mb, CR)], c1[mb * CC + k]) << mb << " " << k;
  // Data is unchanged; swizzling the compact tensor in place gives the same
  // bytes, and unswizzling restores the compact layout.
  EXPECT_EQ(
      std::memcmp(compact.buf("_rowwise_data"), sw.buf("_rowwise_data"), M * K),
      0);
  std::vector<uint8_t> keep(c0, c0 + R * C);
  ASSERT_EQ(te_rt_swizzle_scales(ctx, &compact.q), TE_RT_OK);
  EXPECT_EQ(compact.q.swizzled_scales, 1);
  EXPECT_EQ(std::memcmp(c0, s0, R * C), 0);
  EXPECT_EQ(std::memcmp(c1, s1, CR * CC), 0);
  // Dequantizing reads either layout identically.
  std::vector<float> o1(M * K), o2(M * K);
  te_rt_tensor t1 = tensorF32(o1, {M, K}), t2 = tensorF32(o2, {M, K});
  ASSERT_EQ(te_rt_dequantize(ctx, &sw.q, TE_RT_COLUMNWISE, &t1), TE_RT_OK);
  ASSERT_EQ(te_rt_unswizzle_scales(ctx, &compact.q), TE_RT_OK);
  EXPECT_EQ(std::memcmp(c0, keep.data(), keep.size()), 0);
  ASSERT_EQ(te_rt_dequantize(ctx, &compact.q, TE_RT_COLUMNWISE, &t2), TE_RT_OK);
  EXPECT_EQ(std::memcmp(o1.data(), o2.data(), o1.size() * 4), 0);
}

TEST(HandSwizzle, NVFP4ColumnwiseUsesTheRowwiseSwizzle) {
  Context ctx;
  const int M = 48, K = 64;
  std::vector<float> v(M * K);
  for (int i = 0; i < M * K; ++i)
    v[i] = std::ldexp(1.0f, (i * 7) % 19 - 9) * ((i & 1) ? -1.0f : 1.0f);
  te_rt_tensor x = tensorF32(v, {M, K});
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2);
  QTensor compact(ctx, qz, {M, K}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &compact.q, nullptr), TE_RT_OK);
  te_rt_buffer_desc cd = compact.desc("_columnwise_scale_inv"); // [128, 4]
  std::vector<uint8_t> before(compact.buf("_columnwise_scale_inv"),
                              compact.buf("_columnwise_scale_inv") +
                                  cd.shape[0] * cd.shape[1]);
  ASSERT_EQ(te_rt_swizzle_scales(ctx, &compact.q), TE_RT_OK);
  uint8_t *s = compact.buf("_columnwise_scale_inv");
  for (int64_t r = 0; r < cd.shape[0]; ++r)
    for (int64_t c = 0; c < cd.shape[1]; ++c)
      ASSERT_EQ(s[swizzled(r, c, cd.shape[1])], before[r * cd.shape[1] + c]);
}

//===----------------------------------------------------------------------===//
// Dequantize and GEMM with exactly representable values
//===----------------------------------------------------------------------===//

/// Integers in [-4, 4]: with pow2 current scaling (scale 64) and MXFP8 / block
/// scaling every value quantizes exactly.
std::vector<float> smallInts(int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(-4, 4);
  std::vector<float> v(n);
  for (float &f : v)
    f = static_cast<float>(d(gen));
  v[0] = 4.0f;
  return v;
}

std::vector<double> matmul(const std::vector<float> &a,
                           const std::vector<float> &b, int M, int N, int K,
                           bool aT, bool bT) {
  // C[M, N] = op(A)[M, K] * op(B)[K, N]; op(A) = A^T if aT (A stored [K, M]).
  std::vector<double> c(M * N, 0.0);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k)
        c[m * N + n] += double(aT ? a[k * M + m] : a[m * K + k]) *
                        double(bT ? b[n * K + k] : b[k * N + n]);
  return c;
}

struct GemmCase {
  te_rt_recipe recipe;
  te_rt_target target;
};

class HandGemm : public ::testing::TestWithParam<GemmCase> {};

std::string gemmCaseName(const ::testing::TestParamInfo<GemmCase> &i) {
  static const char *const names[] = {"delayed", "current", "block", "mxfp8",
                                      "nvfp4"};
  return std::string(names[i.param.recipe]) +
         (i.param.target == TE_RT_SM90 ? "_sm90" : "_sm100");
}

TEST_P(HandGemm, LinearLayerGemmsAreExact) {
  GemmCase gc = GetParam();
  Context ctx;
  te_rt_quantizer qz = quantizer(gc.recipe, TE_RT_E4M3);
  qz.pow2_scales = gc.recipe != TE_RT_RECIPE_MXFP8;
  const int T = 64, In = 96, Out = 32; // tokens, in, out features
  std::vector<float> X = smallInts(T * In, 1), W = smallInts(Out * In, 2),
                     dY = smallInts(T * Out, 3);
  te_rt_tensor tx = tensorF32(X, {T, In}), tw = tensorF32(W, {Out, In}),
               tdy = tensorF32(dY, {T, Out});
  te_rt_usage both = TE_RT_ROWWISE_AND_COLUMNWISE;
  QTensor qx(ctx, qz, {T, In}, both, gc.target),
      qw(ctx, qz, {Out, In}, both, gc.target),
      qdy(ctx, qz, {T, Out}, both, gc.target);
  ASSERT_EQ(qx.status, TE_RT_OK) << te_rt_last_error();
  ASSERT_EQ(te_rt_quantize(ctx, &tx, &qx.q, nullptr), TE_RT_OK);
  ASSERT_EQ(te_rt_quantize(ctx, &tw, &qw.q, nullptr), TE_RT_OK);
  ASSERT_EQ(te_rt_quantize(ctx, &tdy, &qdy.q, nullptr), TE_RT_OK);
  te_rt_gemm_args g;
  te_rt_gemm_args_init(&g);
  // fprop: Y[T, Out] = X * W^T  (TN, A = W, B = X)
  std::vector<float> Y(T * Out);
  te_rt_tensor ty = tensorF32(Y, {T, Out});
  g.layout = TE_RT_GEMM_TN;
  ASSERT_EQ(te_rt_gemm(ctx, &qw.q, &qx.q, &ty, &g), TE_RT_OK)
      << te_rt_last_error();
  std::vector<double> wantY = matmul(X, W, T, Out, In, false, true);
  for (int i = 0; i < T * Out; ++i)
    ASSERT_EQ(Y[i], wantY[i]) << i;
  // dgrad: dX[T, In] = dY * W  (NN, A = W, B = dY)
  std::vector<float> dX(T * In);
  te_rt_tensor tdx = tensorF32(dX, {T, In});
  g.layout = TE_RT_GEMM_NN;
  ASSERT_EQ(te_rt_gemm(ctx, &qw.q, &qdy.q, &tdx, &g), TE_RT_OK)
      << te_rt_last_error();
  std::vector<double> wantDX = matmul(dY, W, T, In, Out, false, false);
  for (int i = 0; i < T * In; ++i)
    ASSERT_EQ(dX[i], wantDX[i]) << i;
  // wgrad: dW[Out, In] = dY^T * X  (NT, A = X, B = dY)
  std::vector<float> dW(Out * In);
  te_rt_tensor tdw = tensorF32(dW, {Out, In});
  g.layout = TE_RT_GEMM_NT;
  ASSERT_EQ(te_rt_gemm(ctx, &qx.q, &qdy.q, &tdw, &g), TE_RT_OK)
      << te_rt_last_error();
  std::vector<double> wantDW = matmul(dY, X, Out, In, T, true, false);
  for (int i = 0; i < Out * In; ++i)
    ASSERT_EQ(dW[i], wantDW[i]) << i;
  // Bias, alpha and accumulation: D = 0.5 * X W^T + bias, then D += X W^T.
  std::vector<float> bias(Out);
  for (int n = 0; n < Out; ++n)
    bias[n] = static_cast<float>(n) - 8.0f;
  te_rt_tensor tb = tensorF32(bias, {Out});
  g.layout = TE_RT_GEMM_TN;
  g.alpha = 0.5f;
  g.bias = &tb;
  ASSERT_EQ(te_rt_gemm(ctx, &qw.q, &qx.q, &ty, &g), TE_RT_OK);
  for (int i = 0; i < T * Out; ++i)
    ASSERT_EQ(Y[i], 0.5 * wantY[i] + bias[i % Out]) << i;
  g.alpha = 1.0f;
  g.bias = nullptr;
  g.accumulate = 1;
  ASSERT_EQ(te_rt_gemm(ctx, &qw.q, &qx.q, &ty, &g), TE_RT_OK);
  for (int i = 0; i < T * Out; ++i)
    ASSERT_EQ(Y[i], 1.5 * wantY[i] + bias[i % Out]) << i;
}

INSTANTIATE_TEST_SUITE_P(
    Recipes, HandGemm,
    ::testing::Values(GemmCase{TE_RT_RECIPE_CURRENT, TE_RT_SM90},
                      GemmCase{TE_RT_RECIPE_CURRENT, TE_RT_SM100},
                      GemmCase{TE_RT_RECIPE_BLOCK, TE_RT_SM90},
                      GemmCase{TE_RT_RECIPE_MXFP8, TE_RT_SM100}),
    gemmCaseName);

TEST(HandGemmOutput, QuantizedOutputEqualsQuantizingD) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  std::vector<float> A = smallInts(32 * 48, 7), B = smallInts(16 * 48, 8);
  te_rt_tensor ta = tensorF32(A, {32, 48}), tb = tensorF32(B, {16, 48});
  QTensor qa(ctx, qz, {32, 48}, TE_RT_ROWWISE, TE_RT_SM90),
      qb(ctx, qz, {16, 48}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(te_rt_quantize(ctx, &ta, &qa.q, nullptr), TE_RT_OK);
  ASSERT_EQ(te_rt_quantize(ctx, &tb, &qb.q, nullptr), TE_RT_OK);
  std::vector<float> D(16 * 32);
  te_rt_tensor td = tensorF32(D, {16, 32});
  te_rt_quantizer oq = quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3);
  QTensor out(ctx, oq, {16, 32}, TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(out.status, TE_RT_INVALID_ARGUMENT); // 16 rows: not % 32
  QTensor out2(ctx, qz, {16, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  te_rt_gemm_args g;
  te_rt_gemm_args_init(&g);
  g.output = &out2.q;
  ASSERT_EQ(te_rt_gemm(ctx, &qa.q, &qb.q, &td, &g), TE_RT_OK)
      << te_rt_last_error();
  QTensor ref(ctx, qz, {16, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(te_rt_quantize(ctx, &td, &ref.q, nullptr), TE_RT_OK);
  EXPECT_EQ(std::memcmp(out2.buf("_data"), ref.buf("_data"), 16 * 32), 0);
  EXPECT_EQ(*out2.buf<float>("_scale_inv"), *ref.buf<float>("_scale_inv"));
  // D may be omitted when an output quantizer is given.
  ASSERT_EQ(te_rt_gemm(ctx, &qa.q, &qb.q, nullptr, &g), TE_RT_OK);
}

TEST(HandGemmNVFP4, CloseToTheHighPrecisionProduct) {
  Context ctx;
  const int T = 64, In = 128, Out = 32;
  std::mt19937 gen(11);
  std::normal_distribution<float> nd;
  std::vector<float> X(T * In), W(Out * In);
  for (float &f : X)
    f = nd(gen);
  for (float &f : W)
    f = nd(gen);
  te_rt_tensor tx = tensorF32(X, {T, In}), tw = tensorF32(W, {Out, In});
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2);
  QTensor qx(ctx, qz, {T, In}, TE_RT_ROWWISE, TE_RT_SM100),
      qw(ctx, qz, {Out, In}, TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(te_rt_quantize(ctx, &tx, &qx.q, nullptr), TE_RT_OK);
  ASSERT_EQ(te_rt_quantize(ctx, &tw, &qw.q, nullptr), TE_RT_OK);
  std::vector<float> Y(T * Out);
  te_rt_tensor ty = tensorF32(Y, {T, Out});
  te_rt_gemm_args g;
  te_rt_gemm_args_init(&g);
  ASSERT_EQ(te_rt_gemm(ctx, &qw.q, &qx.q, &ty, &g), TE_RT_OK);
  std::vector<double> want = matmul(X, W, T, Out, In, false, true);
  double err = 0, norm = 0;
  for (int i = 0; i < T * Out; ++i) {
    err += (Y[i] - want[i]) * (Y[i] - want[i]);
    norm += want[i] * want[i];
  }
  EXPECT_LT(std::sqrt(err / norm), 0.25);
}

TEST(HandThreads, ResultsDoNotDependOnTheThreadCount) {
  const int M = 96, K = 256;
  std::mt19937 gen(13);
  std::normal_distribution<float> nd;
  std::vector<uint16_t> v(M * K);
  for (uint16_t &h : v)
    h = static_cast<uint16_t>(bits(nd(gen) * 3.0f) >> 16);
  te_rt_tensor x;
  std::memset(&x, 0, sizeof(x));
  x.data = v.data();
  x.dtype = TE_RT_BF16;
  x.rank = 2;
  x.shape[0] = M;
  x.shape[1] = K;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2);
  qz.rht = 1;
  qz.rht_sign_mask = 0xD7E8;
  Context c1, c7;
  te_rt_context_set_num_threads(c1, 1);
  te_rt_context_set_num_threads(c7, 7);
  QTensor q1(c1, qz, {M, K}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100),
      q7(c7, qz, {M, K}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
  ASSERT_EQ(te_rt_quantize(c1, &x, &q1.q, nullptr), TE_RT_OK);
  ASSERT_EQ(te_rt_quantize(c7, &x, &q7.q, nullptr), TE_RT_OK);
  for (int i = 0; i < q1.q.num_buffers; ++i)
    EXPECT_EQ(std::memcmp(q1.q.buffers[i].data, q7.q.buffers[i].data,
                          static_cast<size_t>(q1.q.buffers[i].size_bytes)),
              0)
        << i;
}

TEST(HandDequantize, RoundTripOfRepresentableValues) {
  Context ctx;
  // Integers in [-4, 4] survive every FP8 recipe exactly; bf16 output too.
  std::vector<float> v = smallInts(64 * 128, 21), out(64 * 128);
  te_rt_tensor x = tensorF32(v, {64, 128});
  struct R {
    te_rt_recipe r;
    te_rt_target t;
    int dim;
  } rs[] = {{TE_RT_RECIPE_CURRENT, TE_RT_SM90, 1},
            {TE_RT_RECIPE_BLOCK, TE_RT_SM90, 1},
            {TE_RT_RECIPE_BLOCK, TE_RT_SM90, 2},
            {TE_RT_RECIPE_MXFP8, TE_RT_SM100, 1}};
  for (const R &r : rs) {
    te_rt_quantizer qz = quantizer(r.r, TE_RT_E4M3);
    qz.pow2_scales = r.r != TE_RT_RECIPE_MXFP8;
    if (r.r == TE_RT_RECIPE_BLOCK)
      qz.block_dim = r.dim;
    QTensor q(ctx, qz, {64, 128}, TE_RT_ROWWISE_AND_COLUMNWISE, r.t);
    ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
    for (te_rt_usage from : {TE_RT_ROWWISE, TE_RT_COLUMNWISE}) {
      te_rt_tensor o = tensorF32(out, {64, 128});
      ASSERT_EQ(te_rt_dequantize(ctx, &q.q, from, &o), TE_RT_OK);
      EXPECT_EQ(std::memcmp(out.data(), v.data(), v.size() * 4), 0)
          << r.r << " " << from;
      std::vector<uint16_t> ob(64 * 128);
      o.data = ob.data();
      o.dtype = TE_RT_BF16;
      ASSERT_EQ(te_rt_dequantize(ctx, &q.q, from, &o), TE_RT_OK);
      for (int i = 0; i < 64 * 128; i += 97)
        EXPECT_EQ(fromBits(uint32_t(ob[i]) << 16), v[i]);
    }
  }
}

} // namespace

#if defined(__SSE__) || defined(__x86_64__)
// The cpu backend is the bit-exact reference whatever floating-point mode the
// host process runs in: a library built with -ffast-math turns FTZ/DAZ on at
// load time, which would make a subnormal amax compare equal to zero.
TEST(HandFloatEnvironment, FlushToZeroInTheHostDoesNotChangeResults) {
  Context ctx;
  te_rt_context_set_num_threads(ctx, 3);
  std::vector<float> v(16 * 32);
  for (size_t i = 0; i < v.size(); ++i) // subnormal magnitudes, both signs
    v[i] = fromBits(0x00300000u + static_cast<uint32_t>(i) * 97u) *
           (i % 3 ? 1.0f : -1.0f);
  te_rt_tensor x = tensorF32(v, {16, 32});
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2);

  QTensor ieee(ctx, qz, {16, 32}, TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(ieee.status, TE_RT_OK) << te_rt_last_error();
  ASSERT_EQ(te_rt_quantize(ctx, &x, &ieee.q, nullptr), TE_RT_OK);

  QTensor ftz(ctx, qz, {16, 32}, TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(ftz.status, TE_RT_OK) << te_rt_last_error();
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u); // FTZ | DAZ
  te_rt_status st = te_rt_quantize(ctx, &x, &ftz.q, nullptr);
  const unsigned during = _mm_getcsr();
  _mm_setcsr(saved);
  ASSERT_EQ(st, TE_RT_OK);
  EXPECT_EQ(during & 0x8040u, 0x8040u) << "the caller's mode is restored";

  // Spec (docs/formats.md §3.5): a subnormal amax is not zero, so
  // S_enc = min(2688 / amax, FLT_MAX) = FLT_MAX and block scales are nonzero.
  float amax = 0;
  for (float f : v)
    amax = std::max(amax, std::fabs(f));
  EXPECT_EQ(bits(*ieee.buf<float>("_amax_rowwise")), bits(amax));
  EXPECT_NE(ieee.buf("_rowwise_scale_inv")[0], 0);
  for (const char *name :
       {"_rowwise_data", "_rowwise_scale_inv", "_amax_rowwise"}) {
    te_rt_buffer_desc d = ieee.desc(name);
    ASSERT_GT(d.size_bytes, 0) << name;
    EXPECT_EQ(std::memcmp(ieee.buf(name), ftz.buf(name),
                          static_cast<size_t>(d.size_bytes)),
              0)
        << name << " differs when the host flushes subnormals";
  }
}
#endif
