//===- MemoryTest.cpp - Context memory and the GPU host ABI, any backend --===//
//
// Part of te. te_rt_mlir_alloc / free / copy / read / write on a cpu context
// (sticky status, null and zero sizes, alignment), host-memory mode, the
// descriptors of te_rt_abi.def (each field at its word, another version
// refused), and the mgpu* functions where no GPU context is current: they
// must record a clear error and never crash.
//
//===----------------------------------------------------------------------===//

#include "te_rt_abi.h"
#include "te_rt_gpu_abi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

class CpuContext : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(te_rt_context_create(TE_RT_BACKEND_CPU, &ctx), TE_RT_OK);
    te_rt_set_current_context(ctx);
  }
  void TearDown() override {
    te_rt_set_current_context(nullptr);
    te_rt_context_destroy(ctx);
  }
  static std::string error() {
    return static_cast<const char *>(te_rt_current_error());
  }
  te_rt_context *ctx = nullptr;
};

TEST_F(CpuContext, AllocCopyReadWriteRoundTrip) {
  const int n = 1000;
  void *a = te_rt_mlir_alloc(n * 4, 0);
  void *b = te_rt_mlir_alloc(n * 4, 64);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 256, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 256, 0u);
  std::vector<float> in(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i)
    in[i] = 0.5f * i;
  te_rt_mlir_write(a, in.data(), n * 4);
  te_rt_mlir_copy(b, a, n * 4);
  te_rt_mlir_read(out.data(), b, n * 4);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  EXPECT_EQ(out, in);
  // Host memory is the cpu context's memory: compiled code may touch it.
  EXPECT_EQ(static_cast<float *>(b)[7], 3.5f);
  te_rt_mlir_free(a);
  te_rt_mlir_free(b);
  te_rt_mlir_free(nullptr);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK) << error();
}

TEST_F(CpuContext, ZeroBytesAndLargeAlignment) {
  void *a = te_rt_mlir_alloc(0, 0);
  void *b = te_rt_mlir_alloc(0, 0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  te_rt_mlir_copy(nullptr, nullptr, 0); // zero bytes: nothing to check
  te_rt_mlir_read(nullptr, nullptr, 0);
  te_rt_mlir_write(nullptr, nullptr, 0);
  void *c = te_rt_mlir_alloc(10, 4096);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c) % 4096, 0u);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  te_rt_mlir_free(a);
  te_rt_mlir_free(b);
  te_rt_mlir_free(c);
}

TEST_F(CpuContext, BadArgumentsAreRecorded) {
  EXPECT_EQ(te_rt_mlir_alloc(16, 3), nullptr);
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_NE(error().find("te_rt_mlir_alloc: alignment 3 is not a power of two"),
            std::string::npos)
      << error();
  te_rt_set_current_context(ctx);
  EXPECT_EQ(te_rt_mlir_alloc(-1, 0), nullptr);
  EXPECT_NE(error().find("negative size -1"), std::string::npos) << error();
  te_rt_set_current_context(ctx);
  float x = 0;
  te_rt_mlir_copy(&x, nullptr, 4);
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_NE(error().find("te_rt_mlir_copy"), std::string::npos) << error();
}

TEST_F(CpuContext, OutOfMemoryIsRecorded) {
  EXPECT_EQ(te_rt_mlir_alloc(int64_t(1) << 61, 0), nullptr);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OUT_OF_MEMORY);
  EXPECT_NE(
      error().find("cannot allocate 2305843009213693952 bytes of host memory"),
      std::string::npos)
      << error();
}

TEST_F(CpuContext, StickyStatus) {
  std::vector<float> in = {1, 2, 3, 4};
  void *a = te_rt_mlir_alloc(16, 0);
  ASSERT_NE(a, nullptr);
  te_rt_mlir_write(a, in.data(), 16);
  // The first failure is kept; later calls do nothing...
  EXPECT_EQ(te_rt_mlir_alloc(16, 5), nullptr);
  std::string first = error();
  EXPECT_EQ(te_rt_mlir_alloc(16, 0), nullptr);
  EXPECT_EQ(te_rt_mlir_alloc(-5, 0), nullptr);
  EXPECT_EQ(error(), first);
  std::vector<float> other = {9, 9, 9, 9};
  te_rt_mlir_write(a, other.data(), 16);
  std::vector<float> out(4, -1.0f);
  te_rt_mlir_read(out.data(), a, 16); // ...a read fills zeros
  EXPECT_EQ(out, std::vector<float>(4, 0.0f));
  EXPECT_EQ(std::memcmp(a, in.data(), 16), 0);
  // ...but free still frees (no leak under ASan/LSan).
  te_rt_mlir_free(a);
  EXPECT_EQ(error(), first);
  te_rt_set_current_context(ctx);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK);
}

// te_rt_mlir_matmul against a double-precision sum written here: plain,
// transposed operands, a batch with row and batch strides wider than the
// data (views), bf16 inputs into f32 and f16 outputs.
namespace {
uint16_t toBF16(float f) { // RNE (test inputs are finite)
  uint32_t b;
  std::memcpy(&b, &f, 4);
  b += 0x7FFFu + ((b >> 16) & 1u);
  return static_cast<uint16_t>(b >> 16);
}
float fromBF16(uint16_t h) {
  uint32_t b = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
} // namespace

TEST_F(CpuContext, MatmulMatchesADoubleSum) {
  for (int transA = 0; transA < 2; ++transA)
    for (int transB = 0; transB < 2; ++transB) {
      SCOPED_TRACE("trans_a " + std::to_string(transA) + " trans_b " +
                   std::to_string(transB));
      const int64_t batch = 3, M = 5, N = 7, K = 33;
      // Stored shapes with a row stride 3 wider than the row and a batch
      // stride 11 wider than the matrix.
      const int64_t aRows = transA ? K : M, aCols = transA ? M : K;
      const int64_t bRows = transB ? N : K, bCols = transB ? K : N;
      const int64_t lda = aCols + 3, ldb = bCols + 3, ldc = N + 3;
      const int64_t sa = aRows * lda + 11, sb = bRows * ldb + 11,
                    sc = M * ldc + 11;
      std::vector<uint16_t> a(batch * sa), b(batch * sb);
      std::vector<float> c(batch * sc);
      for (size_t i = 0; i < a.size(); ++i)
        a[i] = toBF16(0.125f * static_cast<float>((i * 7) % 17) - 1.0f);
      for (size_t i = 0; i < b.size(); ++i)
        b[i] = toBF16(0.25f * static_cast<float>((i * 5) % 13) - 1.5f);
      for (size_t i = 0; i < c.size(); ++i)
        c[i] = 0.5f * static_cast<float>(i % 9);
      std::vector<float> expect = c;
      for (int64_t bi = 0; bi < batch; ++bi)
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            double acc = 0.0;
            for (int64_t k = 0; k < K; ++k) {
              float x =
                  fromBF16(a[bi * sa + (transA ? k * lda + i : i * lda + k)]);
              float y =
                  fromBF16(b[bi * sb + (transB ? j * ldb + k : k * ldb + j)]);
              acc += static_cast<double>(x) * y;
            }
            expect[bi * sc + i * ldc + j] += static_cast<float>(acc);
          }
      te_rt_mlir_matmul(batch, M, N, K, a.data(), TE_RT_BF16, transA, lda, sa,
                        b.data(), TE_RT_BF16, transB, ldb, sb, c.data(),
                        TE_RT_F32, ldc, sc, 1);
      ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
      // The sums of these multiples of 1/32 are exact in f32 and double.
      EXPECT_EQ(c, expect);
    }
}

TEST_F(CpuContext, MatmulIntoF16RoundsOnce) {
  // C (f16) = 1024 + 64 products 2^-6 * 1: the f32 sum gives 1025, an f16
  // value (0x6401); adding in f16 step by step would stay at 1024 (half an
  // ulp at a time).
  const int64_t M = 2, N = 3, K = 64;
  std::vector<uint16_t> a(M * K, 0x2400), b(K * N, 0x3C00); // 2^-6, 1
  std::vector<uint16_t> c(M * N, 0x6400);                   // 1024
  te_rt_mlir_matmul(1, M, N, K, a.data(), TE_RT_F16, 0, K, 0, b.data(),
                    TE_RT_F16, 0, N, 0, c.data(), TE_RT_F16, N, 0, 1);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  EXPECT_EQ(c, std::vector<uint16_t>(M * N, 0x6401));
}

TEST_F(CpuContext, MatmulWithoutAccumulateOverwritesC) {
  // accumulate = 0: C = A·B, C's NaNs never read; C's batches interleaved
  // with its rows ([M, batch, N], as the heads of a [B, S, H, D] output)
  // are distinct elements, so accepted. A = i + k, B = k - j (small
  // integers: exact sums), compared with a double sum written here.
  const int64_t batch = 3, M = 4, N = 5, K = 6;
  std::vector<float> a(batch * M * K), b(batch * K * N);
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t k = 0; k < K; ++k)
        a[(bi * M + i) * K + k] = float(i + k - bi);
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j)
        b[(bi * K + k) * N + j] = float(k - j + 2 * bi);
  std::vector<float> c(M * batch * N, std::nanf(""));
  te_rt_mlir_matmul(batch, M, N, K, a.data(), TE_RT_F32, 0, K, M * K, b.data(),
                    TE_RT_F32, 0, N, K * N, c.data(), TE_RT_F32, batch * N, N,
                    0);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += double(a[(bi * M + i) * K + k]) * b[(bi * K + k) * N + j];
        EXPECT_EQ(c[(i * batch + bi) * N + j], float(acc))
            << bi << " " << i << " " << j;
      }
  // The same rows with a batch stride one short of N overlap.
  te_rt_mlir_matmul(batch, M, N, K, a.data(), TE_RT_F32, 0, K, M * K, b.data(),
                    TE_RT_F32, 0, N, K * N, c.data(), TE_RT_F32, batch * N,
                    N - 1, 0);
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_NE(error().find("overlap in C"), std::string::npos) << error();
}

TEST_F(CpuContext, MatmulArgumentsAreChecked) {
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {};
  struct Case {
    const char *what;
    int64_t batch, m, lda, sc;
    int32_t at, ct;
    void *pa;
    const char *message;
  } cases[] = {
      {"negative M", 1, -2, 2, 0, TE_RT_F32, TE_RT_F32, a, "negative size"},
      {"int operands", 1, 2, 2, 0, TE_RT_E4M3, TE_RT_F32, a, "operand types"},
      {"f32 into bf16", 1, 2, 2, 0, TE_RT_F32, TE_RT_BF16, a, "C's type"},
      {"short row stride", 1, 2, 1, 0, TE_RT_F32, TE_RT_F32, a,
       "row stride 1 is below its row length 2"},
      {"null A", 1, 2, 2, 0, TE_RT_F32, TE_RT_F32, nullptr, "A is null"},
      {"overlapping batches", 2, 2, 2, 1, TE_RT_F32, TE_RT_F32, a,
       "overlap in C"},
  };
  for (const Case &k : cases) {
    SCOPED_TRACE(k.what);
    te_rt_set_current_context(ctx);
    te_rt_mlir_matmul(k.batch, k.m, 2, 2, k.pa, k.at, 0, k.lda, 0, b,
                      k.at == TE_RT_E4M3 ? TE_RT_E4M3 : TE_RT_F32, 0, 2, 0, c,
                      k.ct, 2, k.sc, 1);
    EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
    EXPECT_NE(error().find(k.message), std::string::npos) << error();
  }
  // Empty products touch nothing, null pointers included.
  te_rt_set_current_context(ctx);
  te_rt_mlir_matmul(0, 2, 2, 2, nullptr, TE_RT_F32, 0, 2, 0, nullptr, TE_RT_F32,
                    0, 2, 0, nullptr, TE_RT_F32, 2, 0, 1);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK) << error();
}

TEST(NoContext, EntryPointsRecordAndDoNothing) {
  te_rt_set_current_context(nullptr);
  EXPECT_EQ(te_rt_mlir_alloc(16, 0), nullptr);
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(static_cast<const char *>(te_rt_current_error()))
                .find("no current context"),
            std::string::npos);
  float x = 5;
  te_rt_mlir_read(&x, &x, 4);
  EXPECT_EQ(x, 0.0f);
  te_rt_mlir_free(nullptr);
  te_rt_set_current_context(nullptr);
}

TEST_F(CpuContext, HostMemoryModeIsAFlag) {
  int on = -1;
  ASSERT_EQ(te_rt_context_get_host_memory(ctx, &on), TE_RT_OK);
  EXPECT_EQ(on, 0);
  ASSERT_EQ(te_rt_context_set_host_memory(ctx, 7), TE_RT_OK);
  ASSERT_EQ(te_rt_context_get_host_memory(ctx, &on), TE_RT_OK);
  EXPECT_EQ(on, 1);
  EXPECT_EQ(te_rt_context_get_host_memory(ctx, nullptr),
            TE_RT_INVALID_ARGUMENT);
  EXPECT_EQ(te_rt_context_set_host_memory(nullptr, 1), TE_RT_INVALID_ARGUMENT);
  // The cpu backend ignores it: host memory is its context memory.
  void *a = te_rt_mlir_alloc(8, 0);
  double v = 1.25, w = 0;
  te_rt_mlir_write(a, &v, 8);
  te_rt_mlir_read(&w, a, 8);
  EXPECT_EQ(w, 1.25);
  te_rt_mlir_free(a);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK) << error();
}

TEST_F(CpuContext, UpdateScaleCopiesAmaxIntoHistory) {
  te_rt_quantizer q;
  te_rt_quantizer_init_default(&q);
  q.recipe = TE_RT_RECIPE_DELAYED;
  q.history_length = 4;
  std::vector<int64_t> d(1 + te_rt_abi::kQuantizerWords);
  te_rt_abi::encodeQuantizer(q, d.data());
  float amax = 3.0f, history[4] = {0, 1, 2, 0.5f}, scale = 1.0f;
  te_rt_mlir_update_scale(d.data(), &amax, history, 4, &scale);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  EXPECT_NE(scale, 1.0f); // recomputed from max(history) with 3 in it
}

//===----------------------------------------------------------------------===//
// Descriptors
//===----------------------------------------------------------------------===//

// Distinct values in every field of the GEMM descriptor: each is at the word
// te_rt_abi::gemm numbers (the words the compiler fills) and decodes back.
TEST(Descriptors, FieldsAreAtTheirWordsAndDecodeBack) {
  using W = te_rt_abi::gemm;
  static_assert(W::kWords == 1 + 2 + 3 * te_rt_abi::kQuantizerWords + 2 * 3 +
                                 3 * TE_RT_ABI_MAX_BUFFERS + 13);
  W::Fields f{};
  f.target = TE_RT_SM100;
  f.layout = 2;
  te_rt_quantizer_init_default(&f.a_quantizer);
  f.a_quantizer.recipe = TE_RT_RECIPE_MXFP8;
  f.a_quantizer.e4m3_max = 448.0f;
  f.a_usage = TE_RT_COLUMNWISE;
  f.a_rows = -7; // a word holds any i64
  f.a_cols = int64_t(1) << 40;
  for (int i = 0; i < TE_RT_ABI_MAX_BUFFERS; ++i) {
    f.a_bufs[i] = reinterpret_cast<void *>(uintptr_t(0x1000 + i));
    f.out_bufs[i] = reinterpret_cast<void *>(uintptr_t(0x3000 + i));
  }
  te_rt_quantizer_init_default(&f.out_quantizer);
  f.out_quantizer.recipe = TE_RT_RECIPE_DELAYED;
  f.out_quantizer.history_length = 16;
  f.d_rows = 32;
  f.use_split_accumulator = 1;
  f.out_quantized = 1;
  f.out_amax = reinterpret_cast<void *>(uintptr_t(0xA3A));
  f.b_emulated = reinterpret_cast<void *>(uintptr_t(0xE3B));
  std::vector<int64_t> w(W::kWords, -1);
  te_rt_abi::encode(f, w.data());
  EXPECT_EQ(w[0], TE_RT_ABI_MAGIC('G'));
  EXPECT_EQ(w[0] & 0xFFFF, TE_RT_ABI_VERSION);
  EXPECT_EQ(w[W::target], TE_RT_SM100);
  EXPECT_EQ(w[W::layout], 2);
  EXPECT_EQ(w[W::a_quantizer], TE_RT_RECIPE_MXFP8); // recipe: the first field
  EXPECT_EQ(w[W::a_usage], TE_RT_COLUMNWISE);
  EXPECT_EQ(w[W::a_rows], -7);
  EXPECT_EQ(w[W::a_cols], int64_t(1) << 40);
  EXPECT_EQ(w[W::a_bufs + 5], 0x1005);
  EXPECT_EQ(w[W::b_bufs], 0);
  EXPECT_EQ(w[W::d_rows], 32);
  EXPECT_EQ(w[W::use_split_accumulator], 1);
  EXPECT_EQ(w[W::out_quantized], 1);
  EXPECT_EQ(w[W::out_quantizer], TE_RT_RECIPE_DELAYED);
  EXPECT_EQ(w[W::out_bufs + 2], 0x3002);
  EXPECT_EQ(w[W::out_amax], 0xA3A);
  EXPECT_EQ(w[W::a_emulated], 0);
  EXPECT_EQ(w[W::b_emulated], 0xE3B);
  EXPECT_EQ(W::b_emulated, W::kWords - 1);
  EXPECT_EQ(std::count(w.begin(), w.end(), -1), 0); // every word written

  W::Fields g{};
  ASSERT_TRUE(te_rt_abi::decode(w.data(), g));
  EXPECT_EQ(g.a_quantizer.recipe, TE_RT_RECIPE_MXFP8);
  EXPECT_EQ(g.a_quantizer.e4m3_max, 448.0f);
  EXPECT_EQ(g.a_rows, -7);
  EXPECT_EQ(g.a_bufs[5], f.a_bufs[5]);
  EXPECT_EQ(g.out_quantizer.history_length, 16);
  EXPECT_EQ(g.out_amax, f.out_amax);
  EXPECT_EQ(g.b_emulated, f.b_emulated);
  w[0] = TE_RT_ABI_MAGIC('Q');
  EXPECT_FALSE(te_rt_abi::decode(w.data(), g));
}

TEST_F(CpuContext, DescriptorOfAnotherVersionOrKindIsRefused) {
  std::vector<int64_t> w(te_rt_abi::gemm::kWords, 0);
  w[0] = te_rt_abi::gemm::kMagic - TE_RT_ABI_VERSION + 1; // version 1
  te_rt_mlir_gemm(w.data());
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_EQ(error(), "te.gemm: descriptor has a wrong magic number (compiled "
                     "against another te_rt_abi.def? this runtime reads "
                     "version " +
                         std::to_string(TE_RT_ABI_VERSION) + ")");
  te_rt_set_current_context(ctx);
  w[0] = te_rt_abi::quantize::kMagic;
  te_rt_mlir_gemm(w.data());
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  te_rt_set_current_context(ctx);
  te_rt_mlir_dequantize(nullptr);
  EXPECT_EQ(error(), "te.dequantize: descriptor is null");
}

// te_rt_mlir_gemm_operand: the cpu backend computes its GEMMs from the
// quantized buffers and refuses to write an emulated operand; the arguments
// are checked before the backend is asked.
TEST_F(CpuContext, GemmOperandIsValidatedAndRefusedOnTheCpuBackend) {
  using W = te_rt_abi::gemm_operand;
  te_rt_quantizer mx;
  te_rt_quantizer_init_default(&mx);
  mx.recipe = TE_RT_RECIPE_MXFP8;
  te_rt_qtensor q;
  int64_t shape[2] = {32, 64};
  ASSERT_EQ(te_rt_qtensor_init(&q, &mx, 2, shape, TE_RT_ROWWISE, TE_RT_SM90),
            TE_RT_OK);
  std::vector<std::vector<uint8_t>> bufs;
  W::Fields f{};
  f.target = TE_RT_SM90;
  f.quantizer = mx;
  f.usage = TE_RT_ROWWISE;
  f.reads = TE_RT_ROWWISE;
  f.rows = 32;
  f.cols = 64;
  for (int i = 0; i < q.num_buffers; ++i) {
    bufs.emplace_back(q.buffers[i].size_bytes);
    f.bufs[i] = bufs.back().data();
  }
  std::vector<uint16_t> out(32 * 64);
  f.out = out.data();
  std::vector<int64_t> w(W::kWords, 0);
  auto run = [&] {
    te_rt_set_current_context(ctx);
    te_rt_abi::encode(f, w.data());
    te_rt_mlir_gemm_operand(w.data());
  };
  run();
  EXPECT_EQ(te_rt_current_status(), TE_RT_UNSUPPORTED);
  EXPECT_EQ(error(), "te.emulated_operand_buffers: emulated GEMM operands "
                     "exist on the cuda backend only (this backend computes "
                     "GEMMs from the quantized buffers)");
  f.reads = TE_RT_COLUMNWISE;
  run();
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_EQ(error(), "te.emulated_operand_buffers: q holds no columnwise "
                     "representation");
  f.reads = TE_RT_ROWWISE;
  f.out = f.bufs[0]; // writing over the data it reads
  run();
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_NE(error().find("the output out overlaps the input q buffer 0"),
            std::string::npos)
      << error();
  f.out = out.data();
  f.quantizer.recipe = TE_RT_RECIPE_CURRENT;
  f.quantizer.dtype = TE_RT_E4M3;
  run();
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_EQ(error(), "te.emulated_operand_buffers: emulated GEMM operands "
                     "are MXFP8 or NVFP4, got per-tensor FP8");
}

// te_rt_mlir_gemm's a_emulated / b_emulated: refused for a GEMM that is not
// emulated in bf16 (per-tensor FP8 runs natively); the cpu backend, which
// computes from the quantized buffers, ignores them for an MXFP8 GEMM (the
// same D with and without them).
TEST_F(CpuContext, GemmEmulatedOperandsAreCheckedAndIgnoredOnTheCpuBackend) {
  const int64_t M = 32, N = 64, K = 128;
  auto gemm = [&](int32_t recipe, const void *aEmulated) {
    te_rt_quantizer q;
    te_rt_quantizer_init_default(&q);
    q.recipe = static_cast<te_rt_recipe>(recipe);
    te_rt_qtensor qa, qb;
    int64_t aShape[2] = {N, K}, bShape[2] = {M, K};
    EXPECT_EQ(te_rt_qtensor_init(&qa, &q, 2, aShape, TE_RT_ROWWISE, TE_RT_SM90),
              TE_RT_OK);
    EXPECT_EQ(te_rt_qtensor_init(&qb, &q, 2, bShape, TE_RT_ROWWISE, TE_RT_SM90),
              TE_RT_OK);
    // A's buffers are zero bytes (codes 0), B's 0x38 bytes (E4M3 1.0 codes,
    // E8M0 scales 2^-71): D = A·B is all zeros, while a backend that read
    // the emulated A (bf16 1.0) would give 128 · 2^-71 everywhere.
    static std::vector<std::vector<uint8_t>> keep;
    te_rt_abi::gemm::Fields f{};
    f.target = TE_RT_SM90;
    f.layout = TE_RT_GEMM_TN;
    f.a_quantizer = q;
    f.a_usage = TE_RT_ROWWISE;
    f.a_rows = N;
    f.a_cols = K;
    f.b_quantizer = q;
    f.b_usage = TE_RT_ROWWISE;
    f.b_rows = M;
    f.b_cols = K;
    for (int i = 0; i < qa.num_buffers; ++i) {
      keep.emplace_back(qa.buffers[i].size_bytes, 0);
      f.a_bufs[i] = keep.back().data();
    }
    for (int i = 0; i < qb.num_buffers; ++i) {
      keep.emplace_back(qb.buffers[i].size_bytes, 0x38);
      f.b_bufs[i] = keep.back().data();
    }
    std::vector<float> d(M * N, -1.0f);
    f.d_dtype = TE_RT_F32;
    f.d_rows = M;
    f.d_cols = N;
    f.d = d.data();
    f.bias_dtype = TE_RT_F32;
    f.a_emulated = const_cast<void *>(aEmulated);
    std::vector<int64_t> w(te_rt_abi::gemm::kWords);
    te_rt_abi::encode(f, w.data());
    te_rt_set_current_context(ctx);
    te_rt_mlir_gemm(w.data());
    return d;
  };
  std::vector<uint16_t> emulated(N * K, 0x3F80); // bf16 1.0: not read
  gemm(TE_RT_RECIPE_CURRENT, emulated.data());
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_EQ(error(), "te.gemm: gemm: emulated operands are only for a GEMM "
                     "emulated in bf16 (MXFP8; NVFP4 without per-row scales "
                     "or an RHT that the GEMM does not cancel), got "
                     "per-tensor FP8 TN");
  std::vector<float> without = gemm(TE_RT_RECIPE_MXFP8, nullptr);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  std::vector<float> with = gemm(TE_RT_RECIPE_MXFP8, emulated.data());
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  EXPECT_EQ(with, without);
  EXPECT_EQ(without, std::vector<float>(M * N, 0.0f));
}

//===----------------------------------------------------------------------===//
// mgpu* without a GPU context
//===----------------------------------------------------------------------===//

const char kPtx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                    ".visible .entry k()\n{\n ret;\n}\n";

TEST_F(CpuContext, ModuleOnCpuContextRecordsAndDoesNotCrash) {
  // Like a global constructor of a compiled object: no context needed.
  void *m = mgpuModuleLoadJIT(const_cast<char *>(kPtx), 2);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK);
  void *f = mgpuModuleGetFunction(m, "k");
  EXPECT_EQ(f, nullptr);
  EXPECT_EQ(te_rt_current_status(), TE_RT_BACKEND_UNAVAILABLE);
  EXPECT_EQ(error(), "gpu.launch_func @k: this module was compiled for a GPU "
                     "target (sm_90) and needs a cuda context; the current "
                     "context is a cpu context");
  std::string first = error();
  void *stream = mgpuStreamCreate();
  mgpuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr, 0);
  mgpuLaunchClusterKernel(f, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, stream, nullptr,
                          nullptr);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  EXPECT_EQ(error(), first);
  mgpuModuleUnload(m);
}

TEST_F(CpuContext, FatbinTargetInTheMessage) {
  // A fatbin header and one entry of arch 90, as `nvcc -fatbin -arch=sm_90`
  // (CUDA 13) writes them: the entry's word at offset 24 is 0x10008 (not
  // the arch), the arch is at offset 28.
  std::vector<unsigned char> blob(64, 0);
  const uint32_t magic = 0xBA55ED50u, flags = 0x10008u, arch = 90;
  std::memcpy(blob.data(), &magic, 4);
  std::memcpy(blob.data() + 16 + 24, &flags, 4);
  std::memcpy(blob.data() + 16 + 28, &arch, 4);
  void *m = mgpuModuleLoad(blob.data(), int64_t(blob.size()));
  EXPECT_EQ(mgpuModuleGetFunction(m, "kernel"), nullptr);
  EXPECT_NE(error().find("gpu.launch_func @kernel: this module was compiled "
                         "for a GPU target (sm_90) and needs a cuda context"),
            std::string::npos)
      << error();
  mgpuModuleUnload(m);
}

TEST_F(CpuContext, EveryMgpuFunctionFailsCleanly) {
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr);
  EXPECT_EQ(te_rt_current_status(), TE_RT_BACKEND_UNAVAILABLE);
  EXPECT_NE(error().find("gpu.alloc: this program was compiled for a GPU "
                         "target and needs a cuda context"),
            std::string::npos)
      << error();
  te_rt_set_current_context(ctx);
  EXPECT_EQ(mgpuEventCreate(), nullptr);
  EXPECT_NE(te_rt_current_status(), TE_RT_OK);
  te_rt_set_current_context(ctx);
  float a = 1, b = 2;
  mgpuMemcpy(&a, &b, 4, nullptr);
  EXPECT_EQ(a, 1.0f);
  EXPECT_NE(te_rt_current_status(), TE_RT_OK);
  mgpuMemset32(&a, 0, 1, nullptr);
  mgpuMemset16(&a, 0, 2, nullptr);
  EXPECT_EQ(a, 1.0f);
  mgpuMemFree(nullptr, nullptr);
  mgpuEventDestroy(nullptr);
  mgpuEventRecord(nullptr, nullptr);
  mgpuEventSynchronize(nullptr);
  mgpuStreamWaitEvent(nullptr, nullptr);
  mgpuSetDefaultDevice(0);
  struct {
    float *allocated, *aligned;
    int64_t offset, sizes[1], strides[1];
  } memref = {&a, &a, 0, {1}, {1}};
  mgpuMemHostRegisterMemRef(1, &memref, 4);
  mgpuMemHostUnregisterMemRef(1, &memref, 4);
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
}

TEST(NoContextGpu, ModuleWithoutContextRecords) {
  te_rt_set_current_context(nullptr);
  void *m = mgpuModuleLoadJIT(const_cast<char *>(kPtx), 0);
  EXPECT_EQ(mgpuModuleGetFunction(m, "k"), nullptr);
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  std::string msg = static_cast<const char *>(te_rt_current_error());
  EXPECT_NE(msg.find("(sm_90) and needs a cuda context; there is no current "
                     "context"),
            std::string::npos)
      << msg;
  mgpuModuleUnload(m);
  te_rt_set_current_context(nullptr);
}

} // namespace
