//===- NonFiniteTest.cpp - NaN, Inf and subnormal inputs of every recipe --===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Every recipe fed NaN, +-Inf and float subnormals, with the results worked by
// hand from docs/formats.md (section numbers below).
// Where the spec leaves a choice open (NaN inside an MXFP8 or NVFP4 block
// amax, §10 "unverified"), only what every reading agrees on is pinned: the
// NaN element's own code.
//
// Hand arithmetic used throughout:
//  * E4M3: 1.0 = 0x38, 2.0 = 0x40, 256 = 0x78, +-448 = 0x7E/0xFE, NaN = 0x7F,
//    -0 = 0x80; smallest subnormal 2^-9, so |x| < 2^-10 rounds to +-0.
//  * E5M2: 1.0 = 0x3C, 512 = 0x60, +-57344 = 0x7B/0xFB, NaN = 0x7F.
//  * 2^-140 is a float subnormal; 448 / 2^-140 overflows to inf.
//  * 1 / FLT_MAX = 2^-128 (a float subnormal, bits 0x00200000).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

using namespace te::test;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();
const float kSub = std::ldexp(1.0f, -140); // float subnormal

te_rt_quantize_args defaultArgs() {
  te_rt_quantize_args a;
  te_rt_quantize_args_init(&a);
  return a;
}

} // namespace

//===----------------------------------------------------------------------===//
// Delayed scaling (§3.1): q = satfinite(x * scale), amax ignores NaN.
//===----------------------------------------------------------------------===//

TEST(NonFiniteDelayed, E4M3WithScaleOne) {
  Context ctx;
  std::vector<float> v = {kNaN, kInf, -kInf, kSub, -kSub, 1.0f, 500.0f, -0.0f};
  te_rt_tensor x = tensorF32(v, {1, 8});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_DELAYED, TE_RT_E4M3), {1, 8},
            TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(q.status, TE_RT_OK);
  float scale = 1.0f, amax = -1.0f;
  te_rt_quantize_args a = defaultArgs();
  a.scale = &scale;
  a.amax = &amax;
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, &a), TE_RT_OK);
  const uint8_t want[8] = {0x7F, 0x7E, 0xFE, 0x00, 0x80, 0x38, 0x7E, 0x80};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(q.buf("_data")[i], want[i]) << i;
  EXPECT_EQ(amax, kInf);
  EXPECT_EQ(*q.buf<float>("_scale_inv"), 1.0f);
}

TEST(NonFiniteDelayed, E5M2SaturatesInfToMax) {
  Context ctx;
  std::vector<float> v = {kNaN, kInf, -kInf, kSub, 1.0f, 500.0f};
  te_rt_tensor x = tensorF32(v, {6});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_DELAYED, TE_RT_E5M2), {6},
            TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(q.status, TE_RT_OK);
  float scale = 1.0f;
  te_rt_quantize_args a = defaultArgs();
  a.scale = &scale;
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, &a), TE_RT_OK);
  const uint8_t want[6] = {0x7F, 0x7B, 0xFB, 0x00, 0x3C, 0x60};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(q.buf("_data")[i], want[i]) << i;
}

/// The update keeps the previous scale when the amax is inf, 0 or NaN, and
/// maps an inf scale (subnormal amax) to FLT_MAX (§3.1).
TEST(NonFiniteDelayed, UpdateScaleWithNonFiniteAmaxes) {
  Context ctx;
  for (te_rt_amax_algo algo : {TE_RT_AMAX_MAX, TE_RT_AMAX_MOST_RECENT}) {
    SCOPED_TRACE(algo);
    te_rt_quantizer qz = quantizer(TE_RT_RECIPE_DELAYED, TE_RT_E4M3);
    qz.amax_algo = algo;
    qz.history_length = 2;
    // [history_length = 2, num_scales = 4]: row 0 is the newest amax.
    std::vector<float> hist = {kInf, kSub, 0.0f, kNaN, //
                               0.0f, 0.0f, 0.0f, 0.0f};
    std::vector<float> scale = {3.0f, 3.0f, 3.0f, 3.0f};
    ASSERT_EQ(te_rt_update_scale(ctx, &qz, hist.data(), scale.data(), 2, 4),
              TE_RT_OK);
    EXPECT_EQ(scale[0], 3.0f);    // inf amax: keep
    EXPECT_EQ(scale[1], FLT_MAX); // 448 / 2^-140 = inf -> FLT_MAX
    EXPECT_EQ(scale[2], 3.0f);    // zero amax: keep
    EXPECT_EQ(scale[3], 3.0f);    // NaN amax: keep
  }
}

//===----------------------------------------------------------------------===//
// Current scaling (§3.2): amax ignores NaN; amax inf/0/NaN -> scale 1; an
// inf scale -> FLT_MAX.
//===----------------------------------------------------------------------===//

TEST(NonFiniteCurrent, SubnormalTensorGetsScaleFltMax) {
  Context ctx;
  std::vector<float> v = {kSub, -kSub, 0.0f, kNaN};
  te_rt_tensor x = tensorF32(v, {4});
  for (int pow2 : {0, 1}) {
    SCOPED_TRACE(pow2);
    te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
    qz.pow2_scales = pow2;
    QTensor q(ctx, qz, {4}, TE_RT_ROWWISE, TE_RT_SM90);
    float amax = -1;
    te_rt_quantize_args a = defaultArgs();
    a.amax = &amax;
    ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, &a), TE_RT_OK);
    EXPECT_EQ(amax, kSub);
    // scale = FLT_MAX (pow2: 2^127); 2^-140 * scale <= 2^-12 rounds to +-0.
    const uint8_t want[4] = {0x00, 0x80, 0x00, 0x7F};
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(q.buf("_data")[i], want[i]) << i;
    // 1 / FLT_MAX = 2^-128; 1 / 2^127 = 2^-127.
    EXPECT_EQ(bits(*q.buf<float>("_scale_inv")),
              pow2 ? 0x00400000u : 0x00200000u);
  }
}

TEST(NonFiniteCurrent, AllNaNTensor) {
  Context ctx;
  std::vector<float> v(4, kNaN);
  te_rt_tensor x = tensorF32(v, {2, 2});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3), {2, 2},
            TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90);
  float amax = -1;
  te_rt_quantize_args a = defaultArgs();
  a.amax = &amax;
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, &a), TE_RT_OK);
  EXPECT_EQ(amax, 0.0f); // maxNum over NaNs only: the zeroed start value
  EXPECT_EQ(*q.buf<float>("_scale_inv"), 1.0f);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(q.buf("_data")[i], 0x7F);
    EXPECT_EQ(q.buf("_transpose")[i], 0x7F);
  }
  // Dequantizing NaN codes gives NaN.
  std::vector<float> out(4, 0.0f);
  te_rt_tensor y = tensorF32(out, {2, 2});
  ASSERT_EQ(te_rt_dequantize(ctx, &q.q, TE_RT_COLUMNWISE, &y), TE_RT_OK);
  for (float f : out)
    EXPECT_TRUE(std::isnan(f));
}

TEST(NonFiniteCurrent, GivenNonFiniteAmaxMeansScaleOne) {
  Context ctx;
  std::vector<float> v = {1.0f, 2.0f, -1.0f, 500.0f};
  te_rt_tensor x = tensorF32(v, {4});
  for (float given : {kNaN, kInf}) {
    SCOPED_TRACE(given);
    QTensor q(ctx, quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3), {4},
              TE_RT_ROWWISE, TE_RT_SM90);
    te_rt_quantize_args a = defaultArgs();
    a.amax_in = &given;
    ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, &a), TE_RT_OK);
    EXPECT_EQ(*q.buf<float>("_scale_inv"), 1.0f);
    const uint8_t want[4] = {0x38, 0x40, 0xB8, 0x7E};
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(q.buf("_data")[i], want[i]) << i;
  }
  // A given subnormal amax: scale FLT_MAX, every nonzero element saturates.
  QTensor q(ctx, quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3), {4},
            TE_RT_ROWWISE, TE_RT_SM90);
  te_rt_quantize_args a = defaultArgs();
  float sub = kSub;
  a.amax_in = &sub;
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, &a), TE_RT_OK);
  const uint8_t want[4] = {0x7E, 0x7E, 0xFE, 0x7E};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(q.buf("_data")[i], want[i]) << i;
}

//===----------------------------------------------------------------------===//
// Block scaling (§3.4): per-block amax; inf amax -> scale 1; pow2 rounds the
// scale down.
//===----------------------------------------------------------------------===//

TEST(NonFiniteBlock, InfAndNaNInOneByOneTwentyEightBlocks) {
  Context ctx;
  const int K = 128;
  std::vector<float> v(2 * K, 0.0f);
  v[0] = kNaN;
  v[1] = 1.0f;
  v[K + 0] = kInf;
  v[K + 1] = 2.0f;
  v[K + 2] = -kInf;
  te_rt_tensor x = tensorF32(v, {2, K});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_BLOCK, TE_RT_E4M3), {2, K},
            TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(q.status, TE_RT_OK);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  const uint8_t *d = q.buf("_rowwise_data");
  const float *s = q.buf<float>("_rowwise_scale_inv"); // [kb][m], stride 4
  // Row 1: amax inf -> scale 1: inf saturates, 2.0 stays 2.0.
  EXPECT_EQ(s[1], 1.0f);
  EXPECT_EQ(d[K + 0], 0x7E);
  EXPECT_EQ(d[K + 1], 0x40);
  EXPECT_EQ(d[K + 2], 0xFE);
  // Row 0: the NaN element encodes as NaN whatever the block's scale.
  EXPECT_EQ(d[0], 0x7F);
  // ... and the amax ignores it (maxNum, as the per-tensor amax): amax 1 ->
  // scale 448 -> pow2 256.
  EXPECT_EQ(s[0], 1.0f / 256.0f);
  EXPECT_EQ(d[1], 0x78);
}

//===----------------------------------------------------------------------===//
// MXFP8 (§3.3): e = float_to_e8m0(amax_b / 448) rounded up, inf -> 0xFE,
// s = 2^(127 - e).
//===----------------------------------------------------------------------===//

TEST(NonFiniteMXFP8, InfBlocksGetTheLargestScale) {
  Context ctx;
  const int M = 32, K = 64;
  std::vector<float> v(M * K, 0.0f);
  v[0] = kInf;     // row 0, block 0
  v[1] = 2.0f;     // row 0, block 0
  v[32] = -kInf;   // row 0, block 1
  v[K + 0] = kNaN; // row 1, block 0
  v[K + 1] = 1.0f; // row 1, block 0
  te_rt_tensor x = tensorF32(v, {M, K});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3), {M, K},
            TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(q.status, TE_RT_OK);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  const uint8_t *d = q.buf("_rowwise_data");
  const uint8_t *s = q.buf("_rowwise_scale_inv"); // [m][kb], stride 4
  EXPECT_EQ(s[0], 0xFE);
  EXPECT_EQ(s[1], 0xFE);
  EXPECT_EQ(d[0], 0x7E);     // inf * 2^-127 = inf -> 448
  EXPECT_EQ(d[1], 0x00);     // 2 * 2^-127 -> 0
  EXPECT_EQ(d[32], 0xFE);    // -inf -> -448
  EXPECT_EQ(d[K], 0x7F);     // NaN stays NaN
  EXPECT_EQ(s[2 * 4], 0x00); // an all-zero block: e = 0
  // Dequantize: 448 * 2^(254 - 127) overflows to inf, as the formula says.
  std::vector<float> out(M * K, 0.0f);
  te_rt_tensor y = tensorF32(out, {M, K});
  ASSERT_EQ(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE, &y), TE_RT_OK);
  EXPECT_EQ(out[0], kInf);
  EXPECT_EQ(out[32], -kInf);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_TRUE(std::isnan(out[K]));
}

//===----------------------------------------------------------------------===//
// NVFP4 (§3.5): S_enc = min(6*448 / amax, FLT_MAX), 1 if amax is 0 or inf;
// S_dec_b = e4m3(block_amax * S_enc / 6); enc = min(1 / (S_dec_b * S_dec),
// FLT_MAX); satfinite e2m1 (NaN -> +6 = nibble 0x7).
//===----------------------------------------------------------------------===//

TEST(NonFiniteNVFP4, InfTensorUsesGlobalScaleOne) {
  Context ctx;
  const int M = 16, K = 32;
  std::vector<float> v(M * K, 1.0f);
  for (int k = 0; k < 16; ++k)
    v[k] = 0.0f;
  v[0] = kInf;
  v[1] = 2.0f;
  v[2] = -kInf;
  te_rt_tensor x = tensorF32(v, {M, K});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2), {M, K},
            TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(q.status, TE_RT_OK);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  const uint8_t *d = q.buf("_rowwise_data");
  const uint8_t *s = q.buf("_rowwise_scale_inv"); // [m][kb], stride 4
  EXPECT_EQ(*q.buf<float>("_amax_rowwise"), kInf);
  // Block (0, 0): amax inf -> S_dec_b = e4m3(inf) = 448 (0x7E); enc = 1/448:
  // inf -> +6 (0x7), 2/448 -> 0, -inf -> -6 (0xF).
  EXPECT_EQ(s[0], 0x7E);
  EXPECT_EQ(d[0], 0x07); // elements 0 (low nibble) and 1 (high nibble)
  EXPECT_EQ(d[1], 0x0F); // elements 2 and 3
  // Block (0, 1) and every other block: all ones. S_dec_b = e4m3(1/6) =
  // 0.171875 (0x23); 1 * (1/0.171875) = 5.82 -> 6.
  EXPECT_EQ(s[1], 0x23);
  EXPECT_EQ(d[8], 0x77);
  EXPECT_EQ(s[5 * 4 + 1], 0x23);
  EXPECT_EQ(d[5 * 16 + 3], 0x77);
}

/// Dequantize (te-formats.md, NVFP4: x = q * S_dec_b * amax / (6 * 448),
/// TransformerEngine's dequantize_nvfp4.cuh): with the global amax inf,
/// every element is non-finite -- a nonzero code gives +-inf, a zero code
/// 0 * inf = NaN -- including the blocks that hold no inf.
TEST(NonFiniteNVFP4, InfTensorDequantizesToNonFiniteEverywhere) {
  Context ctx;
  const int M = 16, K = 32;
  std::vector<float> v(M * K, 1.0f);
  v[0] = kInf;
  v[1] = 2.0f;
  v[2] = -1.0f;
  v[3] = 0.0f;
  te_rt_tensor x = tensorF32(v, {M, K});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2), {M, K},
            TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(q.status, TE_RT_OK);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  std::vector<float> out(M * K, 0.0f);
  te_rt_tensor y = tensorF32(out, {M, K});
  ASSERT_EQ(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE, &y), TE_RT_OK);
  // Block (0, 0): S_dec_b 448, enc 1/448: inf -> +6 -> +inf; 2/448, -1/448
  // and 0 -> code 0 -> NaN.
  EXPECT_EQ(out[0], kInf);
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_TRUE(std::isnan(out[3]));
  // Every other block: all ones -> code +6 -> +inf.
  for (int i = 16; i < M * K; ++i)
    ASSERT_EQ(out[i], kInf) << i;
}

TEST(NonFiniteNVFP4, SubnormalTensorQuantizesToZero) {
  Context ctx;
  const int M = 16, K = 32;
  std::vector<float> v(M * K, kSub);
  te_rt_tensor x = tensorF32(v, {M, K});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2), {M, K},
            TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(q.status, TE_RT_OK);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  // S_enc = FLT_MAX; S_dec_b = e4m3(2^-140 * FLT_MAX / 6 ~ 4e-5) = 0;
  // enc = FLT_MAX; 2^-140 * FLT_MAX ~ 2^-12 -> 0.
  EXPECT_EQ(*q.buf<float>("_amax_rowwise"), kSub);
  const uint8_t *d = q.buf("_rowwise_data");
  const uint8_t *s = q.buf("_rowwise_scale_inv");
  for (int i = 0; i < M * K / 2; ++i)
    ASSERT_EQ(d[i], 0x00) << i;
  for (int m = 0; m < M; ++m)
    for (int kb = 0; kb < 2; ++kb)
      ASSERT_EQ(s[m * 4 + kb], 0x00) << m << "," << kb;
  std::vector<float> out(M * K, 1.0f);
  te_rt_tensor y = tensorF32(out, {M, K});
  ASSERT_EQ(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE, &y), TE_RT_OK);
  for (float f : out)
    ASSERT_EQ(f, 0.0f);
}

TEST(NonFiniteNVFP4, NaNElementEncodesAsPlusSix) {
  Context ctx;
  const int M = 16, K = 16;
  std::vector<float> v(M * K, 1.0f);
  v[0] = kNaN;
  v[K + 1] = kNaN;
  te_rt_tensor x = tensorF32(v, {M, K});
  QTensor q(ctx, quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2), {M, K},
            TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
  ASSERT_EQ(q.status, TE_RT_OK);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  const uint8_t *d = q.buf("_rowwise_data");
  EXPECT_EQ(d[0] & 0xF, 0x7);                   // element (0, 0), low nibble
  EXPECT_EQ(d[K / 2] >> 4, 0x7);                // element (1, 1), high nibble
  const uint8_t *c = q.buf("_columnwise_data"); // [K, M/2]
  EXPECT_EQ(c[0] & 0xF, 0x7);                   // (k 0, m 0)
  EXPECT_EQ(c[M / 2] >> 4, 0x7);                // (k 1, m 1)
}
