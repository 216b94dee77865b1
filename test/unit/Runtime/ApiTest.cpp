//===- ApiTest.cpp - The C ABI of libte_rt: contexts, layouts, bad input -===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Every argument check of the front end returns a status and a one-line
// message (pinned here); nothing aborts.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <cstdint>
#include <limits>
#include <string>

using namespace te::test;

extern "C" int te_rt_c_smoke_test(void);

namespace {

TEST(Api, UsableFromC99) { EXPECT_EQ(te_rt_c_smoke_test(), 0); }

TEST(Api, EmptyTensorsQuantize) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  QTensor q(ctx, qz, {0, 32}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90);
  ASSERT_EQ(q.status, TE_RT_OK) << te_rt_last_error();
  te_rt_tensor x;
  std::memset(&x, 0, sizeof(x));
  x.dtype = TE_RT_F32;
  x.rank = 2;
  x.shape[1] = 32;
  EXPECT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK)
      << te_rt_last_error();
  EXPECT_EQ(*q.buf<float>("_scale_inv"), 1.0f);
}

TEST(Api, ZeroDimTensorsQuantize) {
  // A 0-d tensor, per-tensor current scaling (docs/formats.md §3.2): x = -3.7f
  // is its own amax, scale = fl(448 / 3.7f), x * scale = -448 exactly, the
  // E4M3 maximum with the sign set: 0xFE in _data and in _transpose.
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  QTensor q(ctx, qz, {}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90);
  ASSERT_EQ(q.status, TE_RT_OK) << te_rt_last_error();
  EXPECT_EQ(q.desc("_data").rank, 0);
  EXPECT_EQ(q.desc("_data").size_bytes, 1);
  EXPECT_EQ(q.desc("_transpose").rank, 0);
  EXPECT_EQ(q.desc("_scale_inv").rank, 1);
  float value = -3.7f;
  te_rt_tensor x;
  std::memset(&x, 0, sizeof(x));
  x.dtype = TE_RT_F32;
  x.rank = 0;
  x.data = &value;
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK)
      << te_rt_last_error();
  EXPECT_EQ(*q.buf("_data"), 0xFE);
  EXPECT_EQ(*q.buf("_transpose"), 0xFE);
  volatile float scale = 448.0f / 3.7f;
  EXPECT_EQ(*q.buf<float>("_scale_inv"), 1.0f / scale);
}

#define EXPECT_FAILS(call, status, message)                                    \
  do {                                                                         \
    te_rt_clear_error();                                                       \
    EXPECT_EQ((call), (status));                                               \
    EXPECT_STREQ(te_rt_last_error(), (message));                               \
  } while (0)

TEST(Api, VersionAndStatusStrings) {
  EXPECT_EQ(te_rt_api_version(), TE_RT_API_VERSION);
  EXPECT_STREQ(te_rt_status_string(TE_RT_OK), "ok");
  EXPECT_STREQ(te_rt_status_string(TE_RT_INVALID_ARGUMENT), "invalid argument");
  EXPECT_STREQ(te_rt_status_string(TE_RT_UNSUPPORTED), "unsupported");
  EXPECT_STREQ(te_rt_status_string(TE_RT_OUT_OF_MEMORY), "out of memory");
  EXPECT_STREQ(te_rt_status_string(TE_RT_BACKEND_UNAVAILABLE),
               "backend unavailable");
  EXPECT_STREQ(te_rt_status_string(TE_RT_CUDA_ERROR), "CUDA error");
  EXPECT_STREQ(te_rt_status_string(TE_RT_CUBLAS_ERROR), "cuBLAS error");
  EXPECT_STREQ(te_rt_status_string(TE_RT_INTERNAL), "internal error");
  EXPECT_STREQ(te_rt_status_string(static_cast<te_rt_status>(99)),
               "unknown status");
}

TEST(Api, Contexts) {
  EXPECT_EQ(te_rt_backend_available(TE_RT_BACKEND_CPU), 1);
  EXPECT_EQ(te_rt_backend_available(static_cast<te_rt_backend>(7)), 0);
  EXPECT_FAILS(te_rt_context_create(TE_RT_BACKEND_CPU, nullptr),
               TE_RT_INVALID_ARGUMENT, "out is null");
  te_rt_context *ctx = reinterpret_cast<te_rt_context *>(0x1);
  EXPECT_FAILS(te_rt_context_create(static_cast<te_rt_backend>(7), &ctx),
               TE_RT_INVALID_ARGUMENT, "backend 7 must be cpu (0) or cuda (1)");
  EXPECT_EQ(ctx, nullptr);
  if (!te_rt_backend_available(TE_RT_BACKEND_CUDA)) {
    te_rt_clear_error();
    EXPECT_EQ(te_rt_context_create(TE_RT_BACKEND_CUDA, &ctx),
              TE_RT_BACKEND_UNAVAILABLE);
    EXPECT_EQ(std::string(te_rt_last_error())
                  .rfind("the cuda backend is unavailable", 0),
              0u);
  }
  ASSERT_EQ(te_rt_context_create(TE_RT_BACKEND_CPU, &ctx), TE_RT_OK);
  te_rt_backend b = TE_RT_BACKEND_CUDA;
  EXPECT_EQ(te_rt_context_get_backend(ctx, &b), TE_RT_OK);
  EXPECT_EQ(b, TE_RT_BACKEND_CPU);
  EXPECT_EQ(te_rt_context_set_num_threads(ctx, 3), TE_RT_OK);
  EXPECT_FAILS(te_rt_context_set_num_threads(ctx, -1), TE_RT_INVALID_ARGUMENT,
               "num_threads must be >= 0, got -1");
  EXPECT_FAILS(te_rt_context_get_backend(nullptr, &b), TE_RT_INVALID_ARGUMENT,
               "ctx is null");
  EXPECT_EQ(te_rt_context_destroy(ctx), TE_RT_OK);
  EXPECT_EQ(te_rt_context_destroy(nullptr), TE_RT_OK);
}

TEST(Api, Memory) {
  Context ctx;
  void *p = nullptr;
  ASSERT_EQ(te_rt_malloc(ctx, 1000, &p), TE_RT_OK);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
  char src[16] = "hello runtime";
  EXPECT_EQ(te_rt_memcpy(ctx, p, src, 16, TE_RT_HOST_TO_DEVICE), TE_RT_OK);
  char dst[16] = {};
  EXPECT_EQ(te_rt_memcpy(ctx, dst, p, 16, TE_RT_DEVICE_TO_HOST), TE_RT_OK);
  EXPECT_STREQ(dst, "hello runtime");
  EXPECT_EQ(te_rt_memset_zero(ctx, p, 16), TE_RT_OK);
  EXPECT_EQ(te_rt_memcpy(ctx, dst, p, 16, TE_RT_DEVICE_TO_HOST), TE_RT_OK);
  EXPECT_EQ(dst[0], 0);
  EXPECT_FAILS(te_rt_memcpy(ctx, dst, nullptr, 16, TE_RT_DEVICE_TO_HOST),
               TE_RT_INVALID_ARGUMENT, "memcpy dst or src is null");
  EXPECT_FAILS(te_rt_memcpy(ctx, dst, p, 16, static_cast<te_rt_memcpy_kind>(9)),
               TE_RT_INVALID_ARGUMENT,
               "memcpy kind 9 is not a te_rt_memcpy_kind");
  EXPECT_FAILS(te_rt_memset_zero(ctx, nullptr, 4), TE_RT_INVALID_ARGUMENT,
               "memset dst is null");
  EXPECT_FAILS(te_rt_malloc(ctx, 8, nullptr), TE_RT_INVALID_ARGUMENT,
               "out is null");
  void *huge = nullptr;
  EXPECT_EQ(te_rt_malloc(ctx, std::numeric_limits<size_t>::max(), &huge),
            TE_RT_OUT_OF_MEMORY);
  EXPECT_EQ(huge, nullptr);
  EXPECT_EQ(te_rt_synchronize(ctx, nullptr), TE_RT_OK);
  EXPECT_EQ(te_rt_free(ctx, p), TE_RT_OK);
  EXPECT_EQ(te_rt_free(ctx, nullptr), TE_RT_OK);
}

TEST(Api, QuantizerDefaultsAndVerify) {
  te_rt_quantizer q;
  te_rt_quantizer_init_default(&q);
  EXPECT_EQ(q.recipe, TE_RT_RECIPE_CURRENT);
  EXPECT_EQ(q.dtype, TE_RT_E4M3);
  EXPECT_EQ(q.block_dim, 1);
  EXPECT_EQ(q.e4m3_max, 448.0f);
  EXPECT_EQ(q.history_length, 1024);
  EXPECT_EQ(te_rt_quantizer_verify(&q), TE_RT_OK);
  EXPECT_FAILS(te_rt_quantizer_verify(nullptr), TE_RT_INVALID_ARGUMENT,
               "quantizer is null");
  te_rt_quantizer bad = q;
  bad.recipe = static_cast<te_rt_recipe>(12);
  EXPECT_FAILS(te_rt_quantizer_verify(&bad), TE_RT_INVALID_ARGUMENT,
               "quantizer recipe 12 is not a recipe");
  bad = q;
  bad.dtype = static_cast<te_rt_dtype>(-1);
  EXPECT_FAILS(te_rt_quantizer_verify(&bad), TE_RT_INVALID_ARGUMENT,
               "quantizer dtype -1 is not a dtype");
  bad = q;
  bad.e8m0_rounding = static_cast<te_rt_e8m0_rounding>(3);
  EXPECT_FAILS(te_rt_quantizer_verify(&bad), TE_RT_INVALID_ARGUMENT,
               "quantizer e8m0_rounding 3 is not up (0) or floor (1)");
  bad = q;
  bad.err_mode = static_cast<te_rt_err_mode>(2);
  EXPECT_FAILS(te_rt_quantizer_verify(&bad), TE_RT_INVALID_ARGUMENT,
               "quantizer err_mode 2 is not MAE (0) or MSE (1)");
  bad = q;
  bad.amax_algo = static_cast<te_rt_amax_algo>(5);
  EXPECT_FAILS(te_rt_quantizer_verify(&bad), TE_RT_INVALID_ARGUMENT,
               "quantizer amax_algo 5 is not max (0) or most_recent (1)");
  // Contradictions are Format's verifyConfig messages, prefixed.
  bad = quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2);
  bad.row_scaled = 1;
  bad.rht = 1;
  bad.rht_sign_mask = 0xD7E8;
  te_rt_clear_error();
  EXPECT_EQ(te_rt_quantizer_verify(&bad), TE_RT_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(te_rt_last_error()).rfind("invalid quantizer: ", 0), 0u)
      << te_rt_last_error();
  bad = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E2M1X2);
  EXPECT_EQ(te_rt_quantizer_verify(&bad), TE_RT_INVALID_ARGUMENT);
}

TEST(Api, LayoutOfEveryRecipe) {
  struct Expect {
    te_rt_recipe recipe;
    te_rt_dtype dtype;
    te_rt_target target;
    std::vector<std::string> names;
  };
  std::vector<Expect> cases = {
      {TE_RT_RECIPE_CURRENT,
       TE_RT_E4M3,
       TE_RT_SM90,
       {"_data", "_transpose", "_scale_inv"}},
      {TE_RT_RECIPE_CURRENT, TE_RT_E4M3, TE_RT_SM100, {"_data", "_scale_inv"}},
      {TE_RT_RECIPE_BLOCK,
       TE_RT_E4M3,
       TE_RT_SM90,
       {"_rowwise_data", "_rowwise_scale_inv", "_columnwise_data",
        "_columnwise_scale_inv"}},
      {TE_RT_RECIPE_MXFP8,
       TE_RT_E5M2,
       TE_RT_SM100,
       {"_rowwise_data", "_rowwise_scale_inv", "_columnwise_data",
        "_columnwise_scale_inv"}},
      {TE_RT_RECIPE_NVFP4,
       TE_RT_E2M1X2,
       TE_RT_SM100,
       {"_rowwise_data", "_rowwise_scale_inv", "_columnwise_data",
        "_columnwise_scale_inv", "_amax_rowwise", "_amax_columnwise"}},
  };
  int64_t shape[] = {2, 64, 96};
  for (const Expect &e : cases) {
    te_rt_quantizer q = quantizer(e.recipe, e.dtype);
    te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
    int32_t n = -1;
    ASSERT_EQ(te_rt_qtensor_layout(&q, 3, shape, TE_RT_ROWWISE_AND_COLUMNWISE,
                                   e.target, d, TE_RT_MAX_BUFFERS, &n),
              TE_RT_OK)
        << te_rt_last_error();
    ASSERT_EQ(n, static_cast<int32_t>(e.names.size()));
    for (int i = 0; i < n; ++i)
      EXPECT_EQ(d[i].name, e.names[i]);
    EXPECT_FAILS(te_rt_qtensor_layout(&q, 3, shape,
                                      TE_RT_ROWWISE_AND_COLUMNWISE, e.target, d,
                                      1, &n),
                 TE_RT_INVALID_ARGUMENT,
                 ("capacity 1 is too small: the layout has " +
                  std::to_string(e.names.size()) + " buffers")
                     .c_str());
  }
  // Byte sizes: NVFP4 [128, 64]: data 128*32, scales rup(128,128)*rup(4,4).
  te_rt_quantizer q = quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2);
  int64_t s2[] = {128, 64};
  te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
  int32_t n = 0;
  ASSERT_EQ(te_rt_qtensor_layout(&q, 2, s2, TE_RT_ROWWISE, TE_RT_SM100, d,
                                 TE_RT_MAX_BUFFERS, &n),
            TE_RT_OK);
  ASSERT_EQ(n, 3);
  EXPECT_EQ(d[0].size_bytes, 128 * 32);
  EXPECT_EQ(d[0].dtype, TE_RT_E2M1X2);
  EXPECT_EQ(d[1].size_bytes, 128 * 4);
  EXPECT_EQ(d[1].dtype, TE_RT_E4M3);
  EXPECT_EQ(d[2].size_bytes, 4);
  EXPECT_EQ(d[2].role, TE_RT_BUFFER_AMAX);
}

TEST(Api, LayoutRejectsBadShapesAndUsages) {
  te_rt_quantizer mx = quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3);
  te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
  int32_t n = 0;
  int64_t bad[] = {64, 100};
  EXPECT_FAILS(te_rt_qtensor_layout(&mx, 2, bad, TE_RT_ROWWISE, TE_RT_SM100, d,
                                    TE_RT_MAX_BUFFERS, &n),
               TE_RT_INVALID_ARGUMENT,
               "MXFP8 needs the last dimension divisible by 32, got 100");
  int64_t neg[] = {64, -32};
  EXPECT_FAILS(te_rt_qtensor_layout(&mx, 2, neg, TE_RT_ROWWISE, TE_RT_SM100, d,
                                    TE_RT_MAX_BUFFERS, &n),
               TE_RT_INVALID_ARGUMENT,
               "quantized tensor dimension 1 is negative (-32)");
  int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_FAILS(te_rt_qtensor_layout(&mx, 2, huge, TE_RT_ROWWISE, TE_RT_SM100, d,
                                    TE_RT_MAX_BUFFERS, &n),
               TE_RT_INVALID_ARGUMENT,
               "quantized tensor shape [1099511627776, 1099511627776] has too "
               "many elements (int64 overflow)");
  int64_t ok[] = {64, 64};
  // Rank 0 is a per-tensor recipe's one element; MXFP8 has no block there.
  EXPECT_FAILS(te_rt_qtensor_layout(&mx, 0, ok, TE_RT_ROWWISE, TE_RT_SM100, d,
                                    TE_RT_MAX_BUFFERS, &n),
               TE_RT_INVALID_ARGUMENT,
               "MXFP8 needs rank >= 1 (a 0-d tensor has no blocks); per-tensor "
               "current and delayed scaling quantize 0-d tensors");
  EXPECT_FAILS(te_rt_qtensor_layout(&mx, 9, ok, TE_RT_ROWWISE, TE_RT_SM100, d,
                                    TE_RT_MAX_BUFFERS, &n),
               TE_RT_INVALID_ARGUMENT,
               "quantized tensor has rank 9, expected 0..8");
  EXPECT_FAILS(te_rt_qtensor_layout(&mx, 2, nullptr, TE_RT_ROWWISE, TE_RT_SM100,
                                    d, TE_RT_MAX_BUFFERS, &n),
               TE_RT_INVALID_ARGUMENT, "quantized tensor shape is null");
  EXPECT_FAILS(te_rt_qtensor_layout(&mx, 2, ok, TE_RT_USAGE_NONE, TE_RT_SM100,
                                    d, TE_RT_MAX_BUFFERS, &n),
               TE_RT_INVALID_ARGUMENT,
               "usage 0 must be rowwise (1), columnwise (2) or both (3)");
  EXPECT_FAILS(te_rt_qtensor_layout(&mx, 2, ok, TE_RT_ROWWISE,
                                    static_cast<te_rt_target>(4), d,
                                    TE_RT_MAX_BUFFERS, &n),
               TE_RT_INVALID_ARGUMENT,
               "target 4 must be sm_90 (0) or sm_100 (1)");
  EXPECT_FAILS(te_rt_qtensor_layout(&mx, 2, ok, TE_RT_ROWWISE, TE_RT_SM100, d,
                                    TE_RT_MAX_BUFFERS, nullptr),
               TE_RT_INVALID_ARGUMENT, "num_buffers is null");
  te_rt_quantizer nv = quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2);
  int64_t nvBad[] = {24, 64};
  EXPECT_FAILS(te_rt_qtensor_layout(&nv, 2, nvBad, TE_RT_ROWWISE, TE_RT_SM100,
                                    d, TE_RT_MAX_BUFFERS, &n),
               TE_RT_INVALID_ARGUMENT,
               "NVFP4 needs the flattened leading dimension divisible by 16, "
               "got 24");
}

/// A current-scaling [4, 32] setup for the quantize checks.
struct QuantizeFixture : ::testing::Test {
  Context ctx;
  std::vector<float> v = std::vector<float>(128, 1.0f);
  te_rt_tensor x = tensorF32(v, {4, 32});
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  QTensor q{ctx, qz, {4, 32}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90};
};

TEST_F(QuantizeFixture, Succeeds) {
  ASSERT_EQ(q.status, TE_RT_OK);
  EXPECT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
}

TEST_F(QuantizeFixture, RejectsNulls) {
  EXPECT_FAILS(te_rt_quantize(nullptr, &x, &q.q, nullptr),
               TE_RT_INVALID_ARGUMENT, "ctx is null");
  EXPECT_FAILS(te_rt_quantize(ctx, nullptr, &q.q, nullptr),
               TE_RT_INVALID_ARGUMENT, "x is null");
  EXPECT_FAILS(te_rt_quantize(ctx, &x, nullptr, nullptr),
               TE_RT_INVALID_ARGUMENT, "q is null");
  te_rt_tensor noData = x;
  noData.data = nullptr;
  EXPECT_FAILS(te_rt_quantize(ctx, &noData, &q.q, nullptr),
               TE_RT_INVALID_ARGUMENT, "x data is null");
  te_rt_qtensor noBuf = q.q;
  noBuf.buffers[1].data = nullptr;
  EXPECT_FAILS(te_rt_quantize(ctx, &x, &noBuf, nullptr), TE_RT_INVALID_ARGUMENT,
               "q buffer 1 (_transpose) is null");
}

TEST_F(QuantizeFixture, RejectsBadTensors) {
  te_rt_tensor t = x;
  t.dtype = TE_RT_E4M3;
  EXPECT_FAILS(te_rt_quantize(ctx, &t, &q.q, nullptr), TE_RT_INVALID_ARGUMENT,
               "x must be f32, bf16 or f16, got f8E4M3FN");
  t = x;
  t.rank = 9;
  EXPECT_FAILS(te_rt_quantize(ctx, &t, &q.q, nullptr), TE_RT_INVALID_ARGUMENT,
               "x has rank 9, expected 0..8");
  t = x;
  t.shape[1] = 16;
  EXPECT_FAILS(te_rt_quantize(ctx, &t, &q.q, nullptr), TE_RT_INVALID_ARGUMENT,
               "input shape [4, 16] differs from the quantized tensor's shape "
               "[4, 32]");
  t = x;
  t.rank = 3;
  t.shape[0] = t.shape[1] = t.shape[2] = int64_t(1) << 30;
  EXPECT_FAILS(te_rt_quantize(ctx, &t, &q.q, nullptr), TE_RT_INVALID_ARGUMENT,
               "x shape [1073741824, 1073741824, 1073741824] has too many "
               "elements (int64 overflow)");
}

TEST_F(QuantizeFixture, RejectsBadBuffers) {
  te_rt_qtensor t = q.q;
  t.num_buffers = 2;
  EXPECT_FAILS(te_rt_quantize(ctx, &x, &t, nullptr), TE_RT_INVALID_ARGUMENT,
               "q->num_buffers is 2, but its quantizer, shape, usage and "
               "target give 3 buffers (te_rt_qtensor_init fills it; see "
               "te_rt_qtensor_layout)");
  t = q.q;
  t.buffers[0].size_bytes = 127;
  EXPECT_FAILS(te_rt_quantize(ctx, &x, &t, nullptr), TE_RT_INVALID_ARGUMENT,
               "q buffer 0 (_data) has 127 bytes, needs 128");
  t = q.q;
  t.swizzled_scales = 1;
  EXPECT_FAILS(
      te_rt_quantize(ctx, &x, &t, nullptr), TE_RT_INVALID_ARGUMENT,
      "q: swizzled scales exist only for MXFP8 and NVFP4, not current");
  t = q.q;
  t.quantizer.block_dim = 2; // a block option on a current quantizer
  te_rt_clear_error();
  EXPECT_EQ(te_rt_quantize(ctx, &x, &t, nullptr), TE_RT_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(te_rt_last_error()).rfind("invalid quantizer: ", 0),
            0u);
}

TEST_F(QuantizeFixture, RejectsArgsOfOtherRecipes) {
  te_rt_quantize_args a;
  te_rt_quantize_args_init(&a);
  float s = 2.0f;
  a.scale = &s;
  EXPECT_FAILS(te_rt_quantize(ctx, &x, &q.q, &a), TE_RT_INVALID_ARGUMENT,
               "args->scale is only for delayed scaling, not current");
  te_rt_quantizer d = quantizer(TE_RT_RECIPE_DELAYED, TE_RT_E4M3);
  QTensor qd(ctx, d, {4, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  EXPECT_FAILS(te_rt_quantize(ctx, &x, &qd.q, nullptr), TE_RT_INVALID_ARGUMENT,
               "delayed scaling needs args->scale (the live fp32 scale)");
  te_rt_quantizer mx = quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3);
  QTensor qm(ctx, mx, {4, 32}, TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(qm.status, TE_RT_INVALID_ARGUMENT); // M = 4 is not % 32
  std::vector<float> big(32 * 32, 1.0f);
  te_rt_tensor xb = tensorF32(big, {32, 32});
  QTensor qm2(ctx, mx, {32, 32}, TE_RT_ROWWISE, TE_RT_SM100);
  te_rt_quantize_args_init(&a);
  float amax = 0;
  a.amax = &amax;
  EXPECT_FAILS(te_rt_quantize(ctx, &xb, &qm2.q, &a), TE_RT_UNSUPPORTED,
               "args->amax is only for per-tensor recipes; mxfp8 stores its "
               "amax in buffers");
  te_rt_quantize_args_init(&a);
  a.amax_in = &amax;
  EXPECT_FAILS(
      te_rt_quantize(ctx, &xb, &qm2.q, &a), TE_RT_UNSUPPORTED,
      "args->amax_in is only for current scaling and nvfp4, not mxfp8");
}

TEST(Api, RHTNeedsBF16Input) {
  Context ctx;
  te_rt_quantizer nv = quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2);
  nv.rht = 1;
  nv.rht_sign_mask = 0xD7E8;
  std::vector<float> v(16 * 16, 1.0f);
  te_rt_tensor x = tensorF32(v, {16, 16});
  QTensor q(ctx, nv, {16, 16}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
  ASSERT_EQ(q.status, TE_RT_OK) << te_rt_last_error();
  EXPECT_FAILS(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_UNSUPPORTED,
               "NVFP4 RHT needs a bf16 input, got f32");
  // Rowwise only: no RHT is applied, any input type is fine.
  QTensor qr(ctx, nv, {16, 16}, TE_RT_ROWWISE, TE_RT_SM100);
  EXPECT_EQ(te_rt_quantize(ctx, &x, &qr.q, nullptr), TE_RT_OK);
}

TEST(Api, DequantizeChecks) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_BLOCK, TE_RT_E4M3);
  std::vector<float> v(4 * 128, 0.5f), out(4 * 128);
  te_rt_tensor x = tensorF32(v, {4, 128}), o = tensorF32(out, {4, 128});
  QTensor q(ctx, qz, {4, 128}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  EXPECT_FAILS(te_rt_dequantize(ctx, &q.q, TE_RT_COLUMNWISE, &o),
               TE_RT_INVALID_ARGUMENT, "q holds no columnwise representation");
  EXPECT_FAILS(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE_AND_COLUMNWISE, &o),
               TE_RT_INVALID_ARGUMENT,
               "dequantize reads one representation: rowwise (1) or "
               "columnwise (2), got 3");
  te_rt_tensor o2 = tensorF32(out, {128, 4});
  EXPECT_FAILS(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE, &o2),
               TE_RT_INVALID_ARGUMENT,
               "out shape [128, 4] differs from the quantized tensor's shape "
               "[4, 128]");
  EXPECT_FAILS(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE, nullptr),
               TE_RT_INVALID_ARGUMENT, "out is null");
  EXPECT_EQ(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE, &o), TE_RT_OK);
  EXPECT_EQ(out[0], 0.5f);
}

TEST(Api, AmaxAndUpdateScaleChecks) {
  Context ctx;
  std::vector<float> v = {1.0f, -3.0f};
  te_rt_tensor x = tensorF32(v, {2});
  EXPECT_FAILS(te_rt_amax(ctx, &x, nullptr), TE_RT_INVALID_ARGUMENT,
               "amax is null");
  te_rt_quantizer cur = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  te_rt_quantizer del = quantizer(TE_RT_RECIPE_DELAYED, TE_RT_E4M3);
  float hist[4] = {}, scale[2] = {1, 1};
  EXPECT_FAILS(te_rt_update_scale(ctx, &cur, hist, scale, 2, 2),
               TE_RT_INVALID_ARGUMENT,
               "update_scale needs a delayed-scaling quantizer, got current");
  EXPECT_FAILS(te_rt_update_scale(ctx, &del, hist, scale, 0, 2),
               TE_RT_INVALID_ARGUMENT,
               "history_length must be in 1..2^24, got 0");
  EXPECT_FAILS(te_rt_update_scale(ctx, &del, hist, scale, 2,
                                  std::numeric_limits<int64_t>::max()),
               TE_RT_INVALID_ARGUMENT,
               "num_scales must be >= 1 and the history must fit in int64, "
               "got 9223372036854775807");
  EXPECT_FAILS(te_rt_update_scale(ctx, &del, nullptr, scale, 2, 2),
               TE_RT_INVALID_ARGUMENT, "amax_history or scale is null");
}

TEST(Api, SwizzleChecks) {
  Context ctx;
  te_rt_quantizer cur = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  QTensor q(ctx, cur, {4, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  EXPECT_FAILS(te_rt_swizzle_scales(ctx, &q.q), TE_RT_UNSUPPORTED,
               "only MXFP8 and NVFP4 scales are swizzled, not current");
  EXPECT_FAILS(te_rt_unswizzle_scales(ctx, nullptr), TE_RT_INVALID_ARGUMENT,
               "q is null");
}

TEST(Api, AllocFreeAndInit) {
  Context ctx;
  te_rt_quantizer nv = quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2);
  int64_t shape[] = {32, 64};
  te_rt_qtensor q;
  ASSERT_EQ(te_rt_qtensor_init(&q, &nv, 2, shape, TE_RT_ROWWISE_AND_COLUMNWISE,
                               TE_RT_SM100),
            TE_RT_OK);
  EXPECT_EQ(q.num_buffers, 6);
  EXPECT_EQ(q.buffers[0].data, nullptr);
  EXPECT_EQ(q.buffers[0].size_bytes, 32 * 32);
  EXPECT_FAILS(
      te_rt_qtensor_init(nullptr, &nv, 2, shape, TE_RT_ROWWISE, TE_RT_SM100),
      TE_RT_INVALID_ARGUMENT, "out is null");
  ASSERT_EQ(
      te_rt_qtensor_alloc(ctx, &q, &nv, 2, shape, TE_RT_ROWWISE, TE_RT_SM100),
      TE_RT_OK);
  for (int i = 0; i < q.num_buffers; ++i)
    EXPECT_NE(q.buffers[i].data, nullptr);
  EXPECT_EQ(te_rt_qtensor_free(ctx, &q), TE_RT_OK);
  for (int i = 0; i < q.num_buffers; ++i)
    EXPECT_EQ(q.buffers[i].data, nullptr);
  q.num_buffers = 99;
  EXPECT_FAILS(te_rt_qtensor_free(ctx, &q), TE_RT_INVALID_ARGUMENT,
               "qtensor num_buffers 99 is out of range");
}

TEST(Api, GemmChecks) {
  Context ctx;
  te_rt_quantizer cur = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  std::vector<float> va(16 * 32, 1.0f), vb(8 * 32, 1.0f), vd(8 * 16);
  te_rt_tensor xa = tensorF32(va, {16, 32}), xb = tensorF32(vb, {8, 32});
  te_rt_tensor d = tensorF32(vd, {8, 16});
  QTensor a(ctx, cur, {16, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  QTensor b(ctx, cur, {8, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(te_rt_quantize(ctx, &xa, &a.q, nullptr), TE_RT_OK);
  ASSERT_EQ(te_rt_quantize(ctx, &xb, &b.q, nullptr), TE_RT_OK);
  te_rt_gemm_args g;
  te_rt_gemm_args_init(&g);
  EXPECT_EQ(g.alpha, 1.0f);
  EXPECT_EQ(te_rt_gemm(ctx, &a.q, &b.q, &d, &g), TE_RT_OK);
  EXPECT_EQ(vd[0], 32.0f);
  g.layout = TE_RT_GEMM_NN;
  EXPECT_FAILS(te_rt_gemm(ctx, &a.q, &b.q, &d, &g), TE_RT_INVALID_ARGUMENT,
               "gemm layout NN reads operand A columnwise, but it holds only "
               "rowwise");
  g.layout = TE_RT_GEMM_NT;
  QTensor ac(ctx, cur, {16, 32}, TE_RT_COLUMNWISE, TE_RT_SM90);
  EXPECT_FAILS(te_rt_gemm(ctx, &ac.q, &b.q, &d, &g), TE_RT_INVALID_ARGUMENT,
               "gemm layout NT reads operand B columnwise, but it holds only "
               "rowwise");
  g.layout = static_cast<te_rt_gemm_layout>(3);
  EXPECT_FAILS(te_rt_gemm(ctx, &a.q, &b.q, &d, &g), TE_RT_INVALID_ARGUMENT,
               "gemm layout 3 must be TN, NN or NT");
  g.layout = TE_RT_GEMM_TN;
  te_rt_tensor dBad = tensorF32(vd, {16, 8});
  EXPECT_FAILS(te_rt_gemm(ctx, &a.q, &b.q, &dBad, &g), TE_RT_INVALID_ARGUMENT,
               "D has shape [16, 8], gemm TN produces [8, 16]");
  EXPECT_FAILS(te_rt_gemm(ctx, &a.q, &a.q, nullptr, &g), TE_RT_INVALID_ARGUMENT,
               "gemm needs D or args->output (or both)");
  QTensor bk(ctx, cur, {8, 16}, TE_RT_ROWWISE, TE_RT_SM90);
  EXPECT_FAILS(te_rt_gemm(ctx, &a.q, &bk.q, &d, &g), TE_RT_INVALID_ARGUMENT,
               "gemm contraction dimensions differ: A [16, 32] has K = 32, B "
               "[8, 16] has K = 16");
  // The shape rules of te.gemm: K % 16, operands of rank >= 1, A of rank 2
  // in TN and NN.
  QTensor a40(ctx, cur, {16, 40}, TE_RT_ROWWISE, TE_RT_SM90);
  QTensor b40(ctx, cur, {8, 40}, TE_RT_ROWWISE, TE_RT_SM90);
  EXPECT_FAILS(te_rt_gemm(ctx, &a40.q, &b40.q, &d, &g), TE_RT_INVALID_ARGUMENT,
               "gemm needs the contraction dimension K divisible by 16, got "
               "40");
  QTensor scalar(ctx, cur, {}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(scalar.status, TE_RT_OK) << te_rt_last_error();
  EXPECT_FAILS(te_rt_gemm(ctx, &a.q, &scalar.q, &d, &g), TE_RT_INVALID_ARGUMENT,
               "gemm needs operands of rank >= 1 (a 0-d tensor is not a "
               "matrix), got A [16, 32] and B []");
  QTensor a3(ctx, cur, {2, 8, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  EXPECT_FAILS(te_rt_gemm(ctx, &a3.q, &b.q, &d, &g), TE_RT_INVALID_ARGUMENT,
               "gemm layout TN needs operand A of rank 2 ([N, K]), got [2, 8, "
               "32]");
  std::vector<float> vbias(8);
  te_rt_tensor bias = tensorF32(vbias, {8});
  g.bias = &bias;
  EXPECT_FAILS(te_rt_gemm(ctx, &a.q, &b.q, &d, &g), TE_RT_INVALID_ARGUMENT,
               "bias has shape [8], expected [16]");
  g.bias = nullptr;
  te_rt_quantizer blk = quantizer(TE_RT_RECIPE_BLOCK, TE_RT_E4M3);
  QTensor bb(ctx, blk, {8, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  EXPECT_FAILS(te_rt_gemm(ctx, &a.q, &bb.q, &d, &g), TE_RT_UNSUPPORTED,
               "gemm mixes recipe families: A is per-tensor FP8, B is FP8 "
               "block scaling");
  blk.block_dim = 2;
  QTensor b2a(ctx, blk, {16, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  QTensor b2b(ctx, blk, {8, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  EXPECT_FAILS(te_rt_gemm(ctx, &b2a.q, &b2b.q, &d, &g), TE_RT_UNSUPPORTED,
               "gemm multiplies two 128x128-block operands (A and B): 2Dx2D "
               "block scaling is not supported");
  // cuBLASLt's FP8 GEMM has no E5M2 x E5M2 (the dialect refuses it too);
  // one E5M2 operand is fine.
  te_rt_quantizer e5 = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E5M2);
  QTensor a5(ctx, e5, {16, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  QTensor b5(ctx, quantizer(TE_RT_RECIPE_DELAYED, TE_RT_E5M2), {8, 32},
             TE_RT_ROWWISE, TE_RT_SM90);
  EXPECT_FAILS(te_rt_gemm(ctx, &a5.q, &b5.q, &d, &g), TE_RT_UNSUPPORTED,
               "gemm multiplies two f8E5M2 operands (A and B): cuBLASLt's FP8 "
               "GEMM takes E4M3 x E4M3, E4M3 x E5M2 and E5M2 x E4M3, not "
               "E5M2 x E5M2");
  for (te_rt_qtensor *q : {&a5.q, &b5.q})
    for (int i = 0; i < q->num_buffers; ++i)
      ASSERT_EQ(
          te_rt_memset_zero(ctx, q->buffers[i].data,
                            static_cast<size_t>(q->buffers[i].size_bytes)),
          TE_RT_OK);
  EXPECT_EQ(te_rt_gemm(ctx, &a5.q, &b.q, &d, &g), TE_RT_OK)
      << te_rt_last_error();
  EXPECT_EQ(te_rt_gemm(ctx, &a.q, &b5.q, &d, &g), TE_RT_OK)
      << te_rt_last_error();
}

} // namespace
