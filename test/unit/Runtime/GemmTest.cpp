//===- GemmTest.cpp - cpu GEMM: path info, per-row scaling ------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te_rt_context_last_gemm_info on the cpu backend, and per-row scaled FP8
// GEMMs (te_rt_gemm_args::a/b_row_scale_inv, torch._scaled_mm's rowwise)
// against a float64 reference computed here from the FP8 codes with the
// test's own decoder.
//
//===----------------------------------------------------------------------===//

#include "../Support/Fp8Oracle.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

namespace {

using te::test::Context;
using te::test::QTensor;
using te::test::quantizer;
using te::test::tensorF32;

using te::test::fp8Value;
using te::test::randomCode;

te_rt_tensor tensor2D(void *data, te_rt_dtype t, int64_t r, int64_t c) {
  te_rt_tensor x;
  std::memset(&x, 0, sizeof(x));
  x.data = data;
  x.dtype = t;
  x.rank = 2;
  x.shape[0] = r;
  x.shape[1] = c;
  return x;
}

TEST(CpuGemmInfo, ReportsTheCpuReference) {
  Context ctx;
  te_rt_gemm_info info;
  std::memset(&info, 0x55, sizeof(info));
  ASSERT_EQ(te_rt_context_last_gemm_info(ctx, &info), TE_RT_OK);
  EXPECT_EQ(info.path, TE_RT_GEMM_PATH_NONE);
  EXPECT_EQ(info.fused_fp8_output, 0);
  EXPECT_EQ(info.algo_id, -1);
  EXPECT_EQ(info.algo_tile, -1);

  te_rt_quantizer q = quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3);
  QTensor a(ctx, q, {64, 64}, TE_RT_ROWWISE, TE_RT_SM90);
  QTensor b(ctx, q, {32, 64}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(a.status, TE_RT_OK);
  ASSERT_EQ(b.status, TE_RT_OK);
  std::vector<float> d(32 * 64, -1.0f);
  te_rt_tensor dt = tensorF32(d, {32, 64});
  ASSERT_EQ(te_rt_gemm(ctx, &a.q, &b.q, &dt, nullptr), TE_RT_OK)
      << te_rt_last_error();
  ASSERT_EQ(te_rt_context_last_gemm_info(ctx, &info), TE_RT_OK);
  EXPECT_EQ(info.path, TE_RT_GEMM_PATH_CPU_REFERENCE);
  EXPECT_EQ(info.host_pointer_mode, 0);
  EXPECT_EQ(info.autotuned, 0);
  EXPECT_EQ(info.algo_id, -1);

  // A failing GEMM leaves the last info as it was.
  te_rt_tensor bad = tensorF32(d, {64, 32});
  EXPECT_EQ(te_rt_gemm(ctx, &a.q, &b.q, &bad, nullptr), TE_RT_INVALID_ARGUMENT);
  ASSERT_EQ(te_rt_context_last_gemm_info(ctx, &info), TE_RT_OK);
  EXPECT_EQ(info.path, TE_RT_GEMM_PATH_CPU_REFERENCE);
}

TEST(CpuGemmInfo, Errors) {
  Context ctx;
  te_rt_gemm_info info;
  EXPECT_EQ(te_rt_context_last_gemm_info(nullptr, &info),
            TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "ctx is null");
  EXPECT_EQ(te_rt_context_last_gemm_info(ctx, nullptr), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "info is null");
  EXPECT_EQ(te_rt_context_set_gemm_autotune(nullptr, 4),
            TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "ctx is null");
  EXPECT_EQ(te_rt_context_set_gemm_autotune(ctx, -3), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(),
               "gemm autotune candidates must be >= 0, got -3");
  // The cpu backend has nothing to tune: accepted, ignored.
  EXPECT_EQ(te_rt_context_set_gemm_autotune(ctx, 8), TE_RT_OK);
  EXPECT_EQ(te_rt_context_set_fast_kernels(nullptr, 0), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "ctx is null");
  EXPECT_EQ(te_rt_context_set_fast_kernels(ctx, 2), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "fast kernels must be 0 or 1, got 2");
  EXPECT_EQ(te_rt_context_set_fast_kernels(ctx, -1), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "fast kernels must be 0 or 1, got -1");
  // The cpu backend has one set of kernels: accepted, ignored.
  EXPECT_EQ(te_rt_context_set_fast_kernels(ctx, 0), TE_RT_OK);
  EXPECT_EQ(te_rt_context_set_fast_kernels(ctx, 1), TE_RT_OK);
}

/// D = alpha * bRow[m] * aRow[n] * sum_k A(n, k) B(m, k) on the codes.
void checkRowScaled(te_rt_gemm_layout layout, int64_t M, int64_t N, int64_t K,
                    bool bE5M2, bool bias, uint32_t seed) {
  SCOPED_TRACE("layout " + std::to_string(layout) + " M=" + std::to_string(M) +
               " N=" + std::to_string(N) + " K=" + std::to_string(K));
  Context ctx;
  const bool transa = layout == TE_RT_GEMM_TN, transb = layout == TE_RT_GEMM_NT;
  std::vector<int64_t> aShape =
      transa ? std::vector<int64_t>{N, K} : std::vector<int64_t>{K, N};
  std::vector<int64_t> bShape =
      transb ? std::vector<int64_t>{K, M} : std::vector<int64_t>{M, K};
  QTensor a(ctx, quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3), aShape,
            TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90);
  QTensor b(ctx,
            quantizer(TE_RT_RECIPE_DELAYED, bE5M2 ? TE_RT_E5M2 : TE_RT_E4M3),
            bShape, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90);
  ASSERT_EQ(a.status, TE_RT_OK) << te_rt_last_error();
  ASSERT_EQ(b.status, TE_RT_OK) << te_rt_last_error();
  std::mt19937 rng(seed);
  // Codes in the logical layout: _data, and transposed in _transpose; the
  // per-tensor scale_inv (1000) must not be read.
  auto fill = [&](QTensor &q, const std::vector<int64_t> &s, bool e5,
                  std::vector<uint8_t> &codes) {
    codes.resize(static_cast<size_t>(s[0] * s[1]));
    for (auto &c : codes)
      c = randomCode(rng, e5);
    uint8_t *data = q.buf("_data"), *tr = q.buf("_transpose");
    for (int64_t r = 0; r < s[0]; ++r)
      for (int64_t c = 0; c < s[1]; ++c) {
        data[r * s[1] + c] = codes[r * s[1] + c];
        tr[c * s[0] + r] = codes[r * s[1] + c];
      }
    *q.buf<float>("_scale_inv") = 1000.0f;
  };
  std::vector<uint8_t> aCodes, bCodes;
  fill(a, aShape, false, aCodes);
  fill(b, bShape, bE5M2, bCodes);
  std::uniform_real_distribution<float> e(-4.0f, 4.0f);
  // 16-byte aligned vectors (te_rt_malloc: 256).
  float *aRow = nullptr, *bRow = nullptr;
  ASSERT_EQ(te_rt_malloc(ctx, N * 4, reinterpret_cast<void **>(&aRow)),
            TE_RT_OK);
  ASSERT_EQ(te_rt_malloc(ctx, M * 4, reinterpret_cast<void **>(&bRow)),
            TE_RT_OK);
  for (int64_t n = 0; n < N; ++n)
    aRow[n] = std::exp2(e(rng));
  for (int64_t m = 0; m < M; ++m)
    bRow[m] = std::exp2(e(rng));
  std::vector<float> biasV(N);
  for (int64_t n = 0; n < N; ++n)
    biasV[n] = 0.25f * static_cast<float>(n % 9) - 1.0f;
  te_rt_tensor biasT = tensorF32(biasV, {N});
  std::vector<float> d(M * N, -7.0f);
  te_rt_tensor dT = tensor2D(d.data(), TE_RT_F32, M, N);
  te_rt_gemm_args ga;
  te_rt_gemm_args_init(&ga);
  EXPECT_EQ(ga.a_row_scale_inv, nullptr); // the default: no row scales
  EXPECT_EQ(ga.b_row_scale_inv, nullptr);
  ga.layout = layout;
  ga.alpha = 0.75f;
  ga.a_row_scale_inv = aRow;
  ga.b_row_scale_inv = bRow;
  if (bias)
    ga.bias = &biasT;
  ASSERT_EQ(te_rt_gemm(ctx, &a.q, &b.q, &dT, &ga), TE_RT_OK)
      << te_rt_last_error();
  int64_t bad = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0, absAcc = 0;
      for (int64_t k = 0; k < K; ++k) {
        double av =
            fp8Value(transa ? aCodes[n * K + k] : aCodes[k * N + n], false);
        double bv =
            fp8Value(transb ? bCodes[k * M + m] : bCodes[m * K + k], bE5M2);
        acc += av * bv;
        absAcc += std::fabs(av * bv);
      }
      double sc = 0.75 * double(aRow[n]) * double(bRow[m]);
      double ref = sc * acc + (bias ? biasV[n] : 0.0);
      // float64 accumulation in another order, then one fp32 rounding.
      double tol = 1e-12 * sc * absAcc + std::ldexp(std::fabs(ref), -24);
      if (!(std::fabs(d[m * N + n] - ref) <= tol))
        ++bad;
    }
  EXPECT_EQ(bad, 0) << bad << " of " << M * N << " elements differ";
  te_rt_free(ctx, aRow);
  te_rt_free(ctx, bRow);
}

TEST(CpuGemm, RowScaledFP8) {
  uint32_t seed = 7;
  for (te_rt_gemm_layout l : {TE_RT_GEMM_TN, TE_RT_GEMM_NN, TE_RT_GEMM_NT}) {
    checkRowScaled(l, 48, 80, 64, false, false, seed++);
    checkRowScaled(l, 32, 16, 96, l != TE_RT_GEMM_TN, true, seed++);
  }
}

TEST(CpuGemm, RowScaleErrors) {
  Context ctx;
  te_rt_quantizer cur = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  QTensor a(ctx, cur, {32, 64}, TE_RT_ROWWISE, TE_RT_SM90);
  QTensor b(ctx, cur, {16, 64}, TE_RT_ROWWISE, TE_RT_SM90);
  std::vector<float> d(16 * 32);
  te_rt_tensor dT = tensor2D(d.data(), TE_RT_F32, 16, 32);
  float *rows = nullptr;
  ASSERT_EQ(te_rt_malloc(ctx, 64 * 4, reinterpret_cast<void **>(&rows)),
            TE_RT_OK);
  te_rt_gemm_args ga;
  te_rt_gemm_args_init(&ga);
  ga.a_row_scale_inv = rows;
  EXPECT_EQ(te_rt_gemm(ctx, &a.q, &b.q, &dT, &ga), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(),
               "a_row_scale_inv and b_row_scale_inv must be given together");
  ga.b_row_scale_inv = rows + 1;
  EXPECT_EQ(te_rt_gemm(ctx, &a.q, &b.q, &dT, &ga), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(),
               "a_row_scale_inv and b_row_scale_inv must be 16-byte aligned");
  ga.b_row_scale_inv = rows + 4;
  EXPECT_EQ(te_rt_gemm(ctx, &a.q, &b.q, &dT, &ga), TE_RT_OK)
      << te_rt_last_error();
  te_rt_quantizer mx = quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3);
  QTensor am(ctx, mx, {32, 64}, TE_RT_ROWWISE, TE_RT_SM90);
  QTensor bm(ctx, mx, {32, 64}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(am.status, TE_RT_OK) << te_rt_last_error();
  ASSERT_EQ(bm.status, TE_RT_OK) << te_rt_last_error();
  std::vector<float> d2(32 * 32);
  te_rt_tensor dT2 = tensor2D(d2.data(), TE_RT_F32, 32, 32);
  EXPECT_EQ(te_rt_gemm(ctx, &am.q, &bm.q, &dT2, &ga), TE_RT_UNSUPPORTED);
  EXPECT_STREQ(te_rt_last_error(),
               "per-row scales (a_row_scale_inv / b_row_scale_inv) need "
               "per-tensor FP8 operands, got mxfp8");
  te_rt_free(ctx, rows);
}

} // namespace
