//===- AbiContractTest.cpp - Capacity, aliasing and threads of the C ABI --===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The parts of te_rt.h's contract a caller cannot see fail otherwise: a dense
// tensor's stated capacity (te_rt_tensor.size_bytes) is checked before
// anything is written, outputs may not overlap inputs or each other, the
// buffers of one quantized tensor may not overlap, te_rt_amax reads the
// tensor in place, and te_rt_context_set_num_threads may run while another
// thread quantizes on the same context (run under ThreadSanitizer by
// scripts/sanitize.sh tsan).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

using namespace te::test;

namespace {

#define EXPECT_FAILS(call, status, message)                                    \
  do {                                                                         \
    te_rt_clear_error();                                                       \
    EXPECT_EQ((call), (status));                                               \
    EXPECT_STREQ(te_rt_last_error(), (message));                               \
  } while (0)

te_rt_tensor tensor(void *data, te_rt_dtype dtype, int64_t rows, int64_t cols,
                    int64_t sizeBytes) {
  te_rt_tensor t;
  te_rt_tensor_init(&t);
  t.data = data;
  t.dtype = dtype;
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.size_bytes = sizeBytes;
  return t;
}

} // namespace

TEST(AbiContract, TensorInitZeroesAndTheVersionIsSix) {
  te_rt_tensor t;
  std::memset(&t, 0xAB, sizeof(t));
  te_rt_tensor_init(&t);
  EXPECT_EQ(t.data, nullptr);
  EXPECT_EQ(t.rank, 0);
  EXPECT_EQ(t.size_bytes, 0);
  EXPECT_EQ(sizeof(te_rt_tensor), 88u);
  EXPECT_EQ(offsetof(te_rt_tensor, size_bytes), 80u);
  EXPECT_EQ(te_rt_api_version(), 6);
  te_rt_tensor_init(nullptr); // no-op
}

// An out of [64, 128] f32 over an 8 KiB buffer: refused before any write
// (it corrupted the heap when the size could not be stated).
TEST(AbiContract, DequantizeIntoATooSmallOutputIsRefused) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3);
  QTensor q(ctx, qz, {64, 128}, TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(q.status, TE_RT_OK);
  std::vector<float> small(2048, -1.0f); // 8 KiB
  te_rt_tensor out = tensor(small.data(), TE_RT_F32, 64, 128, 8192);
  EXPECT_FAILS(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE, &out),
               TE_RT_INVALID_ARGUMENT,
               "out holds 8192 bytes (size_bytes), its shape [64, 128] of f32 "
               "needs 32768");
  for (float f : small)
    ASSERT_EQ(f, -1.0f);
  std::vector<float> big(64 * 128);
  out = tensor(big.data(), TE_RT_F32, 64, 128, 64 * 128 * 4);
  EXPECT_EQ(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE, &out), TE_RT_OK);
  out.size_bytes = -1;
  EXPECT_FAILS(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE, &out),
               TE_RT_INVALID_ARGUMENT,
               "out size_bytes is -1 (0 = not stated, else the buffer's "
               "capacity in bytes)");
}

TEST(AbiContract, CapacityIsCheckedForInputsGemmAndAmax) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  QTensor q(ctx, qz, {32, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(q.status, TE_RT_OK);
  std::vector<uint16_t> x(32 * 32, 0x3F80);
  te_rt_tensor xt = tensor(x.data(), TE_RT_BF16, 32, 32, 100);
  EXPECT_FAILS(te_rt_quantize(ctx, &xt, &q.q, nullptr), TE_RT_INVALID_ARGUMENT,
               "x holds 100 bytes (size_bytes), its shape [32, 32] of bf16 "
               "needs 2048");
  float amax = 0;
  EXPECT_FAILS(te_rt_amax(ctx, &xt, &amax), TE_RT_INVALID_ARGUMENT,
               "x holds 100 bytes (size_bytes), its shape [32, 32] of bf16 "
               "needs 2048");
  xt.size_bytes = 2048;
  ASSERT_EQ(te_rt_quantize(ctx, &xt, &q.q, nullptr), TE_RT_OK);
  std::vector<float> d(32 * 32);
  te_rt_tensor dt = tensor(d.data(), TE_RT_F32, 32, 32, 4095);
  EXPECT_FAILS(te_rt_gemm(ctx, &q.q, &q.q, &dt, nullptr),
               TE_RT_INVALID_ARGUMENT,
               "D holds 4095 bytes (size_bytes), its shape [32, 32] of f32 "
               "needs 4096");
  dt.size_bytes = 4096;
  EXPECT_EQ(te_rt_gemm(ctx, &q.q, &q.q, &dt, nullptr), TE_RT_OK);
}

TEST(AbiContract, OutputsMayNotOverlapInputs) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3);
  QTensor q(ctx, qz, {32, 32}, TE_RT_ROWWISE, TE_RT_SM90);
  ASSERT_EQ(q.status, TE_RT_OK);
  std::vector<float> x(32 * 32, 1.0f);
  te_rt_tensor xt = tensor(x.data(), TE_RT_F32, 32, 32, 4096);
  ASSERT_EQ(te_rt_quantize(ctx, &xt, &q.q, nullptr), TE_RT_OK);

  // Quantizing into a tensor whose data buffer is the input.
  te_rt_qtensor alias = q.q;
  alias.buffers[0].data = x.data();
  EXPECT_FAILS(te_rt_quantize(ctx, &xt, &alias, nullptr),
               TE_RT_INVALID_ARGUMENT,
               "te_rt_quantize: the output q buffer 0 (_data) overlaps the "
               "input x (outputs may not share memory with inputs)");

  // Dequantizing into the quantized data.
  te_rt_tensor out =
      tensor(q.q.buffers[0].data, TE_RT_F32, 32, 32, 0 /* not stated */);
  EXPECT_FAILS(te_rt_dequantize(ctx, &q.q, TE_RT_ROWWISE, &out),
               TE_RT_INVALID_ARGUMENT,
               "te_rt_dequantize: the output out overlaps the input q buffer "
               "0 (_data) (outputs may not share memory with inputs)");

  // GEMM: D over A's data.
  te_rt_tensor d = tensor(q.q.buffers[0].data, TE_RT_F32, 32, 32, 0);
  EXPECT_FAILS(te_rt_gemm(ctx, &q.q, &q.q, &d, nullptr), TE_RT_INVALID_ARGUMENT,
               "te_rt_gemm: the output D overlaps the input A buffer 0 (_data) "
               "(outputs may not share memory with inputs)");

  // amax into the tensor it reads.
  EXPECT_FAILS(te_rt_amax(ctx, &xt, x.data() + 5), TE_RT_INVALID_ARGUMENT,
               "te_rt_amax: the output amax overlaps the input x (outputs may "
               "not share memory with inputs)");

  // update_scale: the scales inside the history.
  te_rt_quantizer dz = quantizer(TE_RT_RECIPE_DELAYED, TE_RT_E4M3);
  std::vector<float> hist(16, 1.0f);
  EXPECT_FAILS(te_rt_update_scale(ctx, &dz, hist.data(), hist.data() + 8, 4, 4),
               TE_RT_INVALID_ARGUMENT,
               "te_rt_update_scale: amax_history and scale overlap (outputs "
               "may not share memory)");

  // Inputs may overlap: A and B are one tensor.
  std::vector<float> dd(32 * 32);
  te_rt_tensor ok = tensor(dd.data(), TE_RT_F32, 32, 32, 4096);
  EXPECT_EQ(te_rt_gemm(ctx, &q.q, &q.q, &ok, nullptr), TE_RT_OK);
}

TEST(AbiContract, BuffersOfOneQTensorMayNotOverlap) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3);
  QTensor q(ctx, qz, {64, 64}, TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM100);
  ASSERT_EQ(q.status, TE_RT_OK);
  te_rt_qtensor t = q.q;
  // The columnwise data starts inside the rowwise data.
  t.buffers[2].data = static_cast<uint8_t *>(t.buffers[0].data) + 64;
  std::vector<float> x(64 * 64, 1.0f);
  te_rt_tensor xt = tensor(x.data(), TE_RT_F32, 64, 64, 64 * 64 * 4);
  EXPECT_FAILS(te_rt_quantize(ctx, &xt, &t, nullptr), TE_RT_INVALID_ARGUMENT,
               "q buffers 0 (_rowwise_data) and 2 (_columnwise_data) overlap");
  EXPECT_FAILS(te_rt_swizzle_scales(ctx, &t), TE_RT_INVALID_ARGUMENT,
               "q buffers 0 (_rowwise_data) and 2 (_columnwise_data) overlap");
}

// te_rt_amax of a bf16 tensor gives the same value as of its f32 copy (it
// reads the elements in place, chunk by chunk).
TEST(AbiContract, AmaxReadsInPlace) {
  Context ctx;
  const int64_t n = (1 << 16) + 3; // more than one chunk, a partial last one
  std::vector<uint16_t> b(n);
  std::vector<float> f(n);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits =
        0x3F800000u + static_cast<uint32_t>((i * 2654435761u) & 0x007F0000u);
    if (i % 7 == 0)
      bits |= 0x80000000u;
    b[i] = static_cast<uint16_t>(bits >> 16);
    std::memcpy(&f[i], &bits, 4);
  }
  b[n - 1] = 0x7FC0; // NaN is ignored
  f[n - 1] = std::numeric_limits<float>::quiet_NaN();
  float fromBf16 = -1, fromF32 = -2;
  te_rt_tensor bt = tensor(b.data(), TE_RT_BF16, 1, n, 2 * n);
  te_rt_tensor ft = tensor(f.data(), TE_RT_F32, 1, n, 4 * n);
  ASSERT_EQ(te_rt_amax(ctx, &bt, &fromBf16), TE_RT_OK);
  ASSERT_EQ(te_rt_amax(ctx, &ft, &fromF32), TE_RT_OK);
  EXPECT_EQ(fromBf16, fromF32);
  EXPECT_GT(fromBf16, 1.0f);
}

// set_num_threads on a context another thread quantizes with: no data race
// (ThreadSanitizer), and the codes never depend on the thread count.
TEST(AbiContract, SetNumThreadsWhileQuantizing) {
  Context ctx;
  te_rt_quantizer qz = quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3);
  std::vector<float> x(256 * 256);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((i * 37) % 101) - 50.0f;
  te_rt_tensor xt = tensor(x.data(), TE_RT_F32, 256, 256, 4 * x.size());
  QTensor ref(ctx, qz, {256, 256}, TE_RT_ROWWISE, TE_RT_SM100);
  ASSERT_EQ(te_rt_quantize(ctx, &xt, &ref.q, nullptr), TE_RT_OK);
  std::atomic<bool> done{false};
  std::thread setter([&] {
    for (int i = 0; !done.load(); ++i)
      te_rt_context_set_num_threads(ctx, 1 + i % 4);
  });
  for (int it = 0; it < 20; ++it) {
    QTensor q(ctx, qz, {256, 256}, TE_RT_ROWWISE, TE_RT_SM100);
    ASSERT_EQ(te_rt_quantize(ctx, &xt, &q.q, nullptr), TE_RT_OK);
    for (int b = 0; b < q.q.num_buffers; ++b)
      ASSERT_EQ(std::memcmp(q.q.buffers[b].data, ref.q.buffers[b].data,
                            q.q.buffers[b].size_bytes),
                0);
  }
  done = true;
  setter.join();
  EXPECT_FAILS(te_rt_context_set_num_threads(ctx, -1), TE_RT_INVALID_ARGUMENT,
               "num_threads must be >= 0, got -1");
}
