//===- HostileAbiTest.cpp - libte_rt's C ABI under hostile arguments ------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// What a careless or malicious C caller can pass: misaligned pointers, buffer
// tables whose sizes or counts do not match the layout, shapes whose size
// computations overflow int64 for every recipe, allocations no machine has,
// enum values outside their enums. Every call must return a status with a
// one-line message (pinned here), never crash. Complements
// test/unit/Runtime/ApiTest.cpp, which pins the ordinary argument checks.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

// Allocations that cannot succeed must come back as TE_RT_OUT_OF_MEMORY in the
// sanitizer build too, instead of an ASan "allocation-size-too-big" report.
extern "C" const char *__asan_default_options() {
  return "allocator_may_return_null=1";
}

using namespace te::test;

namespace {

#define EXPECT_FAILS(call, status, message)                                    \
  do {                                                                         \
    te_rt_clear_error();                                                       \
    EXPECT_EQ((call), (status));                                               \
    EXPECT_STREQ(te_rt_last_error(), (message));                               \
  } while (0)

const int64_t kMax = std::numeric_limits<int64_t>::max();

te_rt_quantizer recipeQuantizer(te_rt_recipe r) {
  return quantizer(r, r == TE_RT_RECIPE_NVFP4 ? TE_RT_E2M1X2 : TE_RT_E4M3);
}

const te_rt_recipe kRecipes[] = {TE_RT_RECIPE_DELAYED, TE_RT_RECIPE_CURRENT,
                                 TE_RT_RECIPE_BLOCK, TE_RT_RECIPE_MXFP8,
                                 TE_RT_RECIPE_NVFP4};

/// Storage whose data() + 1 is misaligned for every element type wider than
/// a byte.
struct Misaligned {
  std::vector<uint8_t> bytes;
  explicit Misaligned(size_t n) : bytes(n + 16, 0) {}
  void *at(size_t offset) {
    auto base = reinterpret_cast<uintptr_t>(bytes.data());
    base = (base + 15) & ~uintptr_t(15);
    return reinterpret_cast<void *>(base + offset);
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Misaligned pointers
//===----------------------------------------------------------------------===//

TEST(HostileAbi, MisalignedInputIsRejected) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  QTensor q(ctx, qz, {4, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(q.status, TE_RT_OK);
  Misaligned m(4 * 32 * 4);
  te_rt_tensor x;
  std::memset(&x, 0, sizeof(x));
  x.rank = 2;
  x.shape[0] = 4;
  x.shape[1] = 32;
  x.data = m.at(1);
  x.dtype = TE_RT_F32;
  EXPECT_FAILS(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_INVALID_ARGUMENT,
               "x data is not aligned to its 4-byte elements");
  x.data = m.at(2); // 2-aligned: fine for bf16, not for f32
  EXPECT_FAILS(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_INVALID_ARGUMENT,
               "x data is not aligned to its 4-byte elements");
  x.dtype = TE_RT_BF16;
  EXPECT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  x.data = m.at(3);
  EXPECT_FAILS(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_INVALID_ARGUMENT,
               "x data is not aligned to its 2-byte elements");
  float amax = 0;
  EXPECT_FAILS(te_rt_amax(ctx, &x, &amax), TE_RT_INVALID_ARGUMENT,
               "x data is not aligned to its 2-byte elements");
  // The output of dequantize.
  x.data = m.at(0);
  EXPECT_EQ(te_rt_quantize(ctx, &x, &q.q, nullptr), TE_RT_OK);
  x.dtype = TE_RT_F16;
  x.data = m.at(1);
  EXPECT_FAILS(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE, &x),
               TE_RT_INVALID_ARGUMENT,
               "out data is not aligned to its 2-byte elements");
}

TEST(HostileAbi, MisalignedBuffersAreRejected) {
  Context ctx;
  std::vector<float> v(4 * 32, 1.0f);
  te_rt_tensor x = tensorF32(v, {4, 32});
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  QTensor q(ctx, qz, {4, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(q.status, TE_RT_OK);
  ASSERT_EQ(q.q.num_buffers, 2); // _data (u8), _scale_inv (f32)
  Misaligned m(256);
  te_rt_qtensor t = q.q;
  // Byte data may sit anywhere.
  t.buffers[0].data = m.at(1);
  t.buffers[0].size_bytes = 128;
  EXPECT_EQ(te_rt_quantize(ctx, &x, &t, nullptr), TE_RT_OK);
  // An fp32 scale may not.
  t = q.q;
  t.buffers[1].data = m.at(130);
  EXPECT_FAILS(te_rt_quantize(ctx, &x, &t, nullptr), TE_RT_INVALID_ARGUMENT,
               "q buffer 1 (_scale_inv) is not aligned to its 4-byte "
               "elements");
}

TEST(HostileAbi, MisalignedScalarPointersAreRejected) {
  Context ctx;
  std::vector<float> v(4 * 32, 1.0f);
  te_rt_tensor x = tensorF32(v, {4, 32});
  te_rt_quantizer dz = quantizer(TE_RT_RECIPE_DELAYED, TE_RT_E4M3);
  QTensor q(ctx, dz, {4, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(q.status, TE_RT_OK);
  Misaligned m(64);
  *static_cast<float *>(m.at(0)) = 1.0f;
  te_rt_quantize_args args;
  te_rt_quantize_args_init(&args);
  args.scale = static_cast<const float *>(m.at(2));
  EXPECT_FAILS(te_rt_quantize(ctx, &x, &q.q, &args), TE_RT_INVALID_ARGUMENT,
               "args->scale is not aligned to 4 bytes");
  args.scale = static_cast<const float *>(m.at(0));
  args.amax = static_cast<float *>(m.at(9));
  EXPECT_FAILS(te_rt_quantize(ctx, &x, &q.q, &args), TE_RT_INVALID_ARGUMENT,
               "args->amax is not aligned to 4 bytes");
  EXPECT_FAILS(te_rt_amax(ctx, &x, static_cast<float *>(m.at(1))),
               TE_RT_INVALID_ARGUMENT, "amax is not aligned to 4 bytes");

  te_rt_quantizer cz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  QTensor c(ctx, cz, {4, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  te_rt_quantize_args_init(&args);
  args.amax_in = static_cast<const float *>(m.at(3));
  EXPECT_FAILS(te_rt_quantize(ctx, &x, &c.q, &args), TE_RT_INVALID_ARGUMENT,
               "args->amax_in is not aligned to 4 bytes");

  std::vector<float> hist(4, 1.0f), scale(2, 1.0f);
  float *odd = static_cast<float *>(m.at(17));
  EXPECT_FAILS(te_rt_update_scale(ctx, &dz, odd, scale.data(), 2, 2),
               TE_RT_INVALID_ARGUMENT,
               "amax_history or scale is not aligned to 4 bytes");
  EXPECT_FAILS(te_rt_update_scale(ctx, &dz, hist.data(), odd, 2, 2),
               TE_RT_INVALID_ARGUMENT,
               "amax_history or scale is not aligned to 4 bytes");
}

//===----------------------------------------------------------------------===//
// Buffer tables that do not match the layout
//===----------------------------------------------------------------------===//

TEST(HostileAbi, BufferCountsOutOfRange) {
  Context ctx;
  std::vector<float> v(64 * 64, 1.0f);
  te_rt_tensor x = tensorF32(v, {64, 64});
  for (te_rt_recipe r : kRecipes) {
    SCOPED_TRACE(r);
    te_rt_quantizer qz = recipeQuantizer(r);
    QTensor q(ctx, qz, {64, 64}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
    ASSERT_EQ(q.status, TE_RT_OK);
    for (int32_t n : {-1, 0, TE_RT_MAX_BUFFERS + 1, 1 << 30,
                      std::numeric_limits<int32_t>::min()}) {
      te_rt_qtensor t = q.q;
      t.num_buffers = n;
      std::string want = "q->num_buffers is " + std::to_string(n) +
                         ", but its quantizer, shape, usage and target give " +
                         std::to_string(q.q.num_buffers) +
                         " buffers (te_rt_qtensor_init fills it; see "
                         "te_rt_qtensor_layout)";
      te_rt_quantize_args args;
      te_rt_quantize_args_init(&args);
      float scale = 1.0f;
      if (r == TE_RT_RECIPE_DELAYED)
        args.scale = &scale;
      EXPECT_FAILS(te_rt_quantize(ctx, &x, &t, &args), TE_RT_INVALID_ARGUMENT,
                   want.c_str());
      EXPECT_FAILS(te_rt_dequantize(ctx, &t, TE_RT_ROWWISE, &x),
                   TE_RT_INVALID_ARGUMENT, want.c_str());
      EXPECT_FAILS(te_rt_swizzle_scales(ctx, &t), TE_RT_INVALID_ARGUMENT,
                   want.c_str());
      if (n < 0 || n > TE_RT_MAX_BUFFERS) {
        std::string freeMsg =
            "qtensor num_buffers " + std::to_string(n) + " is out of range";
        EXPECT_FAILS(te_rt_qtensor_free(ctx, &t), TE_RT_INVALID_ARGUMENT,
                     freeMsg.c_str());
      }
    }
  }
}

TEST(HostileAbi, EveryBufferTooSmallOrNull) {
  Context ctx;
  std::vector<float> v(64 * 64, 1.0f);
  te_rt_tensor x = tensorF32(v, {64, 64});
  for (te_rt_recipe r : kRecipes) {
    SCOPED_TRACE(r);
    te_rt_quantizer qz = recipeQuantizer(r);
    QTensor q(ctx, qz, {64, 64}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
    ASSERT_EQ(q.status, TE_RT_OK);
    te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
    int32_t n = 0;
    ASSERT_EQ(te_rt_qtensor_layout(&qz, 2, q.q.shape,
                                   TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100, d,
                                   TE_RT_MAX_BUFFERS, &n),
              TE_RT_OK);
    te_rt_quantize_args args;
    te_rt_quantize_args_init(&args);
    float scale = 1.0f;
    if (r == TE_RT_RECIPE_DELAYED)
      args.scale = &scale;
    for (int i = 0; i < n; ++i) {
      te_rt_qtensor t = q.q;
      for (int64_t size : {int64_t(-1), d[i].size_bytes - 1,
                           std::numeric_limits<int64_t>::min()}) {
        t.buffers[i].size_bytes = size;
        std::string want = "q buffer " + std::to_string(i) + " (" + d[i].name +
                           ") has " + std::to_string(size) + " bytes, needs " +
                           std::to_string(d[i].size_bytes);
        EXPECT_FAILS(te_rt_quantize(ctx, &x, &t, &args), TE_RT_INVALID_ARGUMENT,
                     want.c_str());
      }
      t = q.q;
      t.buffers[i].data = nullptr;
      std::string want =
          "q buffer " + std::to_string(i) + " (" + d[i].name + ") is null";
      EXPECT_FAILS(te_rt_quantize(ctx, &x, &t, &args), TE_RT_INVALID_ARGUMENT,
                   want.c_str());
    }
  }
}

TEST(HostileAbi, LayoutCapacity) {
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2);
  int64_t shape[] = {32, 32};
  te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
  int32_t n = 77;
  for (int32_t cap : {-1, 0, 5, std::numeric_limits<int32_t>::min()}) {
    std::string want = "capacity " + std::to_string(cap) +
                       " is too small: the layout has 6 buffers";
    EXPECT_FAILS(te_rt_qtensor_layout(&qz, 2, shape,
                                      TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100,
                                      d, cap, &n),
                 TE_RT_INVALID_ARGUMENT, want.c_str());
    EXPECT_EQ(n, 0);
  }
  EXPECT_FAILS(te_rt_qtensor_layout(&qz, 2, shape, TE_RT_ROWWISE_AND_COLUMNWISE,
                                    TE_RT_SM100, nullptr, 6, &n),
               TE_RT_INVALID_ARGUMENT,
               "out is null; the layout has 6 buffers (pass an array of at "
               "least 6, e.g. TE_RT_MAX_BUFFERS)");
}

//===----------------------------------------------------------------------===//
// Overflowing shapes
//===----------------------------------------------------------------------===//

/// Shapes whose element count fits in int64 but whose padded buffers do not,
/// per recipe: the layout names the buffer, every entry point refuses.
TEST(HostileAbi, PaddedSizesOverflow) {
  struct Case {
    te_rt_recipe recipe;
    std::vector<int64_t> shape;
    te_rt_usage usage;
  };
  // Near-int64 sizes that respect each recipe's shape rules.
  const int64_t k32 = (kMax / 32 / 32) * 32; // 32 * k32 fits in int64
  const Case cases[] = {
      {TE_RT_RECIPE_MXFP8, {32, k32}, TE_RT_COLUMNWISE},
      {TE_RT_RECIPE_MXFP8, {k32, 32}, TE_RT_ROWWISE_AND_COLUMNWISE},
      {TE_RT_RECIPE_NVFP4, {16, (kMax / 16) / 16 * 16}, TE_RT_COLUMNWISE},
      // rup(K, 4) of the 1x128 columnwise scales overflows.
      {TE_RT_RECIPE_BLOCK, {1, kMax}, TE_RT_COLUMNWISE},
      {TE_RT_RECIPE_BLOCK, {kMax, 1}, TE_RT_ROWWISE},
      {TE_RT_RECIPE_CURRENT, {kMax}, TE_RT_ROWWISE},
      {TE_RT_RECIPE_DELAYED, {kMax, 1}, TE_RT_COLUMNWISE},
  };
  Context ctx;
  for (const Case &c : cases) {
    SCOPED_TRACE(std::to_string(c.recipe) + " " + std::to_string(c.shape[0]) +
                 "x" + std::to_string(c.shape.back()));
    te_rt_quantizer qz = recipeQuantizer(c.recipe);
    te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
    int32_t n = 0;
    te_rt_clear_error();
    te_rt_status s = te_rt_qtensor_layout(
        &qz, static_cast<int32_t>(c.shape.size()), c.shape.data(), c.usage,
        TE_RT_SM100, d, TE_RT_MAX_BUFFERS, &n);
    if (s == TE_RT_OK) {
      // The layout is representable: every size is a sane int64.
      for (int i = 0; i < n; ++i)
        EXPECT_GE(d[i].size_bytes, 0);
      // Allocating it cannot work on any machine.
      te_rt_qtensor q;
      EXPECT_EQ(te_rt_qtensor_alloc(ctx, &q, &qz,
                                    static_cast<int32_t>(c.shape.size()),
                                    c.shape.data(), c.usage, TE_RT_SM100),
                TE_RT_OUT_OF_MEMORY);
      EXPECT_NE(std::string(te_rt_last_error()), "");
    } else {
      EXPECT_EQ(s, TE_RT_INVALID_ARGUMENT);
      std::string msg = te_rt_last_error();
      EXPECT_NE(msg.find("overflows int64"), std::string::npos) << msg;
      te_rt_qtensor q;
      EXPECT_EQ(te_rt_qtensor_init(&q, &qz,
                                   static_cast<int32_t>(c.shape.size()),
                                   c.shape.data(), c.usage, TE_RT_SM100),
                TE_RT_INVALID_ARGUMENT);
    }
  }
}

TEST(HostileAbi, PinnedOverflowMessages) {
  te_rt_quantizer mx = recipeQuantizer(TE_RT_RECIPE_MXFP8);
  te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
  int32_t n = 0;
  // 32 * (2^58 - 32) elements fit; rup(K, 128) of the columnwise scales
  // does not fit after the multiplication with its rows.
  int64_t s1[] = {int64_t(1) << 5, (int64_t(1) << 58) - 32};
  te_rt_clear_error();
  te_rt_status st = te_rt_qtensor_layout(&mx, 2, s1, TE_RT_ROWWISE, TE_RT_SM100,
                                         d, TE_RT_MAX_BUFFERS, &n);
  // rowwise scales: rup(32, 128) * rup(2^53 - 1, 4) = 2^7 * 2^53 = 2^60:
  // representable. Data: 2^63 - 2^10: representable.
  EXPECT_EQ(st, TE_RT_OK) << te_rt_last_error();
  // Three dims whose product overflows only at the last multiplication.
  int64_t s2[] = {int64_t(1) << 31, int64_t(1) << 31, int64_t(1) << 2};
  EXPECT_FAILS(te_rt_qtensor_layout(&mx, 3, s2, TE_RT_ROWWISE, TE_RT_SM100, d,
                                    TE_RT_MAX_BUFFERS, &n),
               TE_RT_INVALID_ARGUMENT,
               "quantized tensor shape [2147483648, 2147483648, 4] has too "
               "many elements (int64 overflow)");
  // A high-precision tensor whose element count fits but whose byte size
  // does not.
  Context ctx;
  std::vector<float> v(4);
  te_rt_tensor x = tensorF32(v, {int64_t(1) << 62});
  float amax;
  EXPECT_FAILS(te_rt_amax(ctx, &x, &amax), TE_RT_INVALID_ARGUMENT,
               "x is too large (byte size overflows)");
  // A zero dim makes every other dim harmless.
  int64_t s3[] = {0, kMax};
  te_rt_quantizer cur = recipeQuantizer(TE_RT_RECIPE_CURRENT);
  EXPECT_EQ(te_rt_qtensor_layout(&cur, 2, s3, TE_RT_ROWWISE, TE_RT_SM90, d,
                                 TE_RT_MAX_BUFFERS, &n),
            TE_RT_OK);
}

TEST(HostileAbi, ImpossibleAllocationsReportOutOfMemory) {
  Context ctx;
  void *p = reinterpret_cast<void *>(1);
  EXPECT_EQ(te_rt_malloc(ctx, std::numeric_limits<size_t>::max(), &p),
            TE_RT_OUT_OF_MEMORY);
  EXPECT_EQ(p, nullptr);
  EXPECT_STREQ(te_rt_last_error(),
               "out of memory allocating "
               "18446744073709551615 bytes: more than 2^62");
  // 2^50 bytes: passes the size check, no machine has it.
  p = reinterpret_cast<void *>(1);
  EXPECT_EQ(te_rt_malloc(ctx, size_t(1) << 50, &p), TE_RT_OUT_OF_MEMORY);
  EXPECT_EQ(p, nullptr);
  EXPECT_STREQ(te_rt_last_error(),
               "out of host memory allocating 1125899906842624 bytes");
  te_rt_quantizer qz = recipeQuantizer(TE_RT_RECIPE_CURRENT);
  int64_t shape[] = {int64_t(1) << 25, int64_t(1) << 25};
  te_rt_qtensor q;
  EXPECT_EQ(te_rt_qtensor_alloc(ctx, &q, &qz, 2, shape,
                                TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90),
            TE_RT_OUT_OF_MEMORY);
  for (int i = 0; i < q.num_buffers; ++i)
    EXPECT_EQ(q.buffers[i].data, nullptr);
  EXPECT_EQ(te_rt_qtensor_free(ctx, &q), TE_RT_OK);
}

TEST(HostileAbi, UpdateScaleSizesOverflow) {
  Context ctx;
  te_rt_quantizer dz = recipeQuantizer(TE_RT_RECIPE_DELAYED);
  float h = 0, s = 1;
  EXPECT_FAILS(te_rt_update_scale(ctx, &dz, &h, &s, 1 << 24, kMax / 8),
               TE_RT_INVALID_ARGUMENT,
               "num_scales must be >= 1 and the history must fit in int64, "
               "got 1152921504606846975");
  EXPECT_FAILS(te_rt_update_scale(ctx, &dz, &h, &s, kMax, 1),
               TE_RT_INVALID_ARGUMENT,
               "history_length must be in 1..2^24, got 9223372036854775807");
  EXPECT_FAILS(te_rt_update_scale(ctx, &dz, &h, &s, 1,
                                  std::numeric_limits<int64_t>::min()),
               TE_RT_INVALID_ARGUMENT,
               "num_scales must be >= 1 and the history must fit in int64, "
               "got -9223372036854775808");
}

TEST(HostileAbi, GemmWithOverflowingProduct) {
  // Operands whose layouts and GEMM rules (K = 16) are fine but whose
  // result D [M, N] overflows.
  te_rt_quantizer qz = recipeQuantizer(TE_RT_RECIPE_CURRENT);
  te_rt_qtensor a, b;
  int64_t sa[] = {int64_t(1) << 40, 16};
  ASSERT_EQ(te_rt_qtensor_init(&a, &qz, 2, sa, TE_RT_ROWWISE, TE_RT_SM90),
            TE_RT_OK);
  ASSERT_EQ(te_rt_qtensor_init(&b, &qz, 2, sa, TE_RT_ROWWISE, TE_RT_SM90),
            TE_RT_OK);
  // Any non-null, non-overlapping pointers: the call must fail before
  // touching them.
  static uint8_t dummy[64];
  for (int i = 0; i < a.num_buffers; ++i)
    a.buffers[i].data = b.buffers[i].data =
        reinterpret_cast<void *>(uintptr_t(i + 1) << 44);
  Context ctx;
  te_rt_tensor d;
  std::memset(&d, 0, sizeof(d));
  d.data = dummy;
  d.dtype = TE_RT_F32;
  d.rank = 2;
  d.shape[0] = d.shape[1] = int64_t(1) << 40;
  EXPECT_FAILS(te_rt_gemm(ctx, &a, &b, &d, nullptr), TE_RT_INVALID_ARGUMENT,
               "D shape [1099511627776, 1099511627776] has too many elements "
               "(int64 overflow)");
}

//===----------------------------------------------------------------------===//
// Hostile enum values and null handles
//===----------------------------------------------------------------------===//

TEST(HostileAbi, EnumValuesOutsideTheirEnums) {
  Context ctx;
  int64_t shape[] = {32, 32};
  te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
  int32_t n = 0;
  te_rt_quantizer qz = recipeQuantizer(TE_RT_RECIPE_CURRENT);
  for (int bad : {-1, 9, 1 << 20, std::numeric_limits<int>::min()}) {
    te_rt_quantizer q = qz;
    std::memcpy(&q.recipe, &bad, sizeof(int));
    std::string want =
        "quantizer recipe " + std::to_string(bad) + " is not a recipe";
    EXPECT_FAILS(te_rt_quantizer_verify(&q), TE_RT_INVALID_ARGUMENT,
                 want.c_str());
    q = qz;
    std::memcpy(&q.dtype, &bad, sizeof(int));
    EXPECT_EQ(te_rt_quantizer_verify(&q), TE_RT_INVALID_ARGUMENT);
    te_rt_usage u;
    std::memcpy(&u, &bad, sizeof(int));
    EXPECT_EQ(te_rt_qtensor_layout(&qz, 2, shape, u, TE_RT_SM90, d,
                                   TE_RT_MAX_BUFFERS, &n),
              TE_RT_INVALID_ARGUMENT);
    te_rt_target t;
    std::memcpy(&t, &bad, sizeof(int));
    EXPECT_EQ(te_rt_qtensor_layout(&qz, 2, shape, TE_RT_ROWWISE, t, d,
                                   TE_RT_MAX_BUFFERS, &n),
              TE_RT_INVALID_ARGUMENT);
    te_rt_backend be;
    std::memcpy(&be, &bad, sizeof(int));
    te_rt_context *c = reinterpret_cast<te_rt_context *>(1);
    EXPECT_EQ(te_rt_context_create(be, &c), TE_RT_INVALID_ARGUMENT);
    EXPECT_EQ(c, nullptr);
    te_rt_memcpy_kind mk;
    std::memcpy(&mk, &bad, sizeof(int));
    char a = 0, b = 0;
    EXPECT_EQ(te_rt_memcpy(ctx, &a, &b, 1, mk), TE_RT_INVALID_ARGUMENT);
    te_rt_status st;
    std::memcpy(&st, &bad, sizeof(int));
    EXPECT_STREQ(te_rt_status_string(st), "unknown status");
  }
}

TEST(HostileAbi, NullHandlesEverywhere) {
  Context ctx;
  te_rt_quantizer qz = recipeQuantizer(TE_RT_RECIPE_CURRENT);
  float f = 0;
  te_rt_tensor x;
  std::memset(&x, 0, sizeof(x));
  x.dtype = TE_RT_F32;
  x.rank = 1;
  x.shape[0] = 4; // data stays null
  EXPECT_FAILS(te_rt_quantize(nullptr, nullptr, nullptr, nullptr),
               TE_RT_INVALID_ARGUMENT, "ctx is null");
  EXPECT_FAILS(te_rt_quantize(ctx, nullptr, nullptr, nullptr),
               TE_RT_INVALID_ARGUMENT, "x is null");
  EXPECT_FAILS(te_rt_amax(ctx, &x, &f), TE_RT_INVALID_ARGUMENT,
               "x data is null");
  EXPECT_FAILS(te_rt_dequantize(ctx, nullptr, TE_RT_ROWWISE, &x),
               TE_RT_INVALID_ARGUMENT, "q is null");
  EXPECT_FAILS(te_rt_gemm(ctx, nullptr, nullptr, nullptr, nullptr),
               TE_RT_INVALID_ARGUMENT, "A is null");
  EXPECT_FAILS(te_rt_swizzle_scales(ctx, nullptr), TE_RT_INVALID_ARGUMENT,
               "q is null");
  EXPECT_FAILS(te_rt_update_scale(ctx, nullptr, &f, &f, 1, 1),
               TE_RT_INVALID_ARGUMENT, "quantizer is null");
  EXPECT_FAILS(te_rt_qtensor_alloc(ctx, nullptr, &qz, 1, x.shape, TE_RT_ROWWISE,
                                   TE_RT_SM90),
               TE_RT_INVALID_ARGUMENT, "out is null");
  EXPECT_FAILS(te_rt_qtensor_free(ctx, nullptr), TE_RT_INVALID_ARGUMENT,
               "q is null");
  EXPECT_EQ(te_rt_context_destroy(nullptr), TE_RT_OK);
  te_rt_quantizer_init_default(nullptr);
  te_rt_quantize_args_init(nullptr);
  te_rt_gemm_args_init(nullptr);
  // A zero-element tensor may have a null data pointer.
  x.shape[0] = 0;
  EXPECT_EQ(te_rt_amax(ctx, &x, &f), TE_RT_OK);
}

//===----------------------------------------------------------------------===//
// Zero-element tensors
//===----------------------------------------------------------------------===//

/// Found by te-quantize on an empty .npy under UBSan: the cpu backend copied
/// zero bytes from a null pointer (CpuBackend.cpp compactScaleBytes).
TEST(HostileAbi, ZeroElementTensorsRoundTripForEveryRecipe) {
  Context ctx;
  for (te_rt_recipe r : kRecipes) {
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{0, 32}, std::vector<int64_t>{32, 0},
          std::vector<int64_t>{0}}) {
      SCOPED_TRACE(std::to_string(r) + " rank " + std::to_string(shape.size()));
      te_rt_quantizer qz = recipeQuantizer(r);
      QTensor q(ctx, qz, shape, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
      if (q.status != TE_RT_OK) {
        EXPECT_EQ(q.status, TE_RT_INVALID_ARGUMENT);
        continue;
      }
      std::vector<float> v(1);
      te_rt_tensor x = tensorF32(v, shape);
      x.data = nullptr; // allowed: no elements
      te_rt_quantize_args a;
      te_rt_quantize_args_init(&a);
      float scale = 1.0f;
      if (r == TE_RT_RECIPE_DELAYED)
        a.scale = &scale;
      ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, &a), TE_RT_OK)
          << te_rt_last_error();
      for (te_rt_usage from : {TE_RT_ROWWISE, TE_RT_COLUMNWISE})
        EXPECT_EQ(te_rt_dequantize(ctx, &q.q, from, &x), TE_RT_OK)
            << te_rt_last_error();
      if (r == TE_RT_RECIPE_MXFP8 || r == TE_RT_RECIPE_NVFP4) {
        EXPECT_EQ(te_rt_swizzle_scales(ctx, &q.q), TE_RT_OK);
        EXPECT_EQ(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE, &x), TE_RT_OK);
        EXPECT_EQ(te_rt_unswizzle_scales(ctx, &q.q), TE_RT_OK);
      }
    }
  }
}
