//===- CommTest.cpp - Amax reduction across a CPU group, NCCL absent ------===//
//
// Part of te. N threads of one in-process group each quantize a shard (a
// block of rows) of a tensor with amax reduction; the oracle is one
// quantization of the gathered tensor on a single cpu context, plus the
// spec's scale formulas computed by hand (docs/formats.md §3.1, §3.2).
//
//===----------------------------------------------------------------------===//

#include "te_rt_comm.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <thread>
#include <vector>

namespace {

constexpr int64_t kRowsPerShard = 32, kCols = 64;

/// A cpu context (one worker thread) destroyed at scope exit.
struct Ctx {
  te_rt_context *ctx = nullptr;
  Ctx() {
    EXPECT_EQ(te_rt_context_create(TE_RT_BACKEND_CPU, &ctx), TE_RT_OK);
    te_rt_context_set_num_threads(ctx, 1);
  }
  ~Ctx() { te_rt_context_destroy(ctx); }
};

struct QT {
  te_rt_context *ctx;
  te_rt_qtensor q;
  QT(te_rt_context *c, const te_rt_quantizer &qz, int64_t m, int64_t k,
     te_rt_usage usage)
      : ctx(c) {
    std::memset(&q, 0, sizeof(q));
    int64_t shape[2] = {m, k};
    EXPECT_EQ(te_rt_qtensor_alloc(ctx, &q, &qz, 2, shape, usage, TE_RT_SM100),
              TE_RT_OK)
        << te_rt_last_error();
  }
  ~QT() { te_rt_qtensor_free(ctx, &q); }
  te_rt_buffer_desc desc(const char *name, const void **data) const {
    te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
    int32_t n = 0;
    te_rt_qtensor_layout(&q.quantizer, q.rank, q.shape, q.usage, q.target, d,
                         TE_RT_MAX_BUFFERS, &n);
    for (int i = 0; i < n; ++i)
      if (std::strcmp(d[i].name, name) == 0) {
        *data = q.buffers[i].data;
        return d[i];
      }
    ADD_FAILURE() << "no buffer " << name;
    *data = nullptr;
    return d[0];
  }
  float amax(const char *name) const {
    const void *p;
    desc(name, &p);
    return p ? *static_cast<const float *>(p) : -1.0f;
  }
  std::vector<float> dequantize(te_rt_usage from) const {
    std::vector<float> out(static_cast<size_t>(q.shape[0] * q.shape[1]));
    te_rt_tensor t{out.data(), TE_RT_F32, 2, {q.shape[0], q.shape[1]}};
    EXPECT_EQ(te_rt_dequantize(ctx, &q, from, &t), TE_RT_OK)
        << te_rt_last_error();
    return out;
  }
};

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// The gathered tensor [n * kRowsPerShard, kCols]: shard r is scaled by a
/// different power so that every rank's amax differs and the largest is
/// not on rank 0.
std::vector<float> gathered(int n) {
  std::mt19937 gen(1234 + n);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(n * kRowsPerShard * kCols));
  for (int r = 0; r < n; ++r) {
    float s = std::ldexp(1.0f, (r * 3) % n - 1) * (1.0f + 0.1f * r);
    for (int64_t i = 0; i < kRowsPerShard * kCols; ++i)
      x[r * kRowsPerShard * kCols + i] = d(gen) * s;
  }
  return x;
}

/// Runs body(rank, comm, ctx) on `n` threads of one CPU group.
void onGroup(
    int n,
    const std::function<void(int, te_rt_comm *, te_rt_context *)> &body) {
  te_rt_comm_cpu_group *g = nullptr;
  ASSERT_EQ(te_rt_comm_cpu_group_create(n, &g), TE_RT_OK);
  std::vector<te_rt_comm *> comms(n, nullptr);
  for (int r = 0; r < n; ++r)
    ASSERT_EQ(te_rt_comm_create_cpu(g, r, &comms[r]), TE_RT_OK);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      Ctx c;
      body(r, comms[r], c.ctx);
    });
  for (auto &t : threads)
    t.join();
  for (auto *c : comms)
    EXPECT_EQ(te_rt_comm_destroy(c), TE_RT_OK);
  EXPECT_EQ(te_rt_comm_cpu_group_destroy(g), TE_RT_OK);
}

class CommGroup : public ::testing::TestWithParam<int> {};

TEST_P(CommGroup, AllReduceMaxIsElementwiseFmax) {
  int n = GetParam();
  // Three rounds back to back (the rendezvous is reusable).
  onGroup(n, [&](int rank, te_rt_comm *comm, te_rt_context *) {
    for (int round = 0; round < 3; ++round) {
      float buf[4] = {float(rank + round), -float(rank), NAN,
                      rank == 0 ? NAN : -1.0f};
      ASSERT_EQ(te_rt_allreduce_max(comm, buf, 4, nullptr), TE_RT_OK);
      EXPECT_EQ(buf[0], float(n - 1 + round));
      EXPECT_EQ(buf[1], 0.0f);
      EXPECT_TRUE(std::isnan(buf[2])); // NaN everywhere stays NaN
      if (n == 1)
        EXPECT_TRUE(std::isnan(buf[3]));
      else
        EXPECT_EQ(buf[3], -1.0f); // a NaN loses to a number
    }
  });
}

TEST_P(CommGroup, CurrentScalingShardsEqualGatheredCast) {
  int n = GetParam();
  std::vector<float> x = gathered(n);
  const int64_t M = n * kRowsPerShard, K = kCols;
  te_rt_quantizer qz;
  te_rt_quantizer_init_default(&qz); // current scaling, E4M3
  Ctx ref;
  QT whole(ref.ctx, qz, M, K, TE_RT_ROWWISE_AND_COLUMNWISE);
  te_rt_tensor xt{x.data(), TE_RT_F32, 2, {M, K}};
  ASSERT_EQ(te_rt_quantize(ref.ctx, &xt, &whole.q, nullptr), TE_RT_OK);
  float handAmax = 0.0f;
  for (float v : x)
    handAmax = std::fmax(handAmax, std::fabs(v));
  const void *p;
  whole.desc("_scale_inv", &p);
  float wholeScaleInv = *static_cast<const float *>(p);
  EXPECT_EQ(bits(wholeScaleInv), bits(1.0f / (448.0f / handAmax)));
  std::vector<float> wholeRow = whole.dequantize(TE_RT_ROWWISE);
  std::vector<float> wholeCol = whole.dequantize(TE_RT_COLUMNWISE);

  onGroup(n, [&](int rank, te_rt_comm *comm, te_rt_context *ctx) {
    QT shard(ctx, qz, kRowsPerShard, K, TE_RT_ROWWISE_AND_COLUMNWISE);
    float *xs = x.data() + rank * kRowsPerShard * K;
    te_rt_tensor st{xs, TE_RT_F32, 2, {kRowsPerShard, K}};
    float reduced = -1.0f;
    te_rt_quantize_args a;
    te_rt_quantize_args_init(&a);
    a.amax = &reduced;
    ASSERT_EQ(te_rt_comm_quantize(ctx, comm, &st, &shard.q, &a), TE_RT_OK)
        << te_rt_last_error();
    EXPECT_EQ(bits(reduced), bits(handAmax));
    const void *sp;
    shard.desc("_scale_inv", &sp);
    EXPECT_EQ(bits(*static_cast<const float *>(sp)), bits(wholeScaleInv));
    // Rowwise data: this shard's rows of the gathered tensor's data.
    const void *wd, *sd;
    whole.desc("_data", &wd);
    shard.desc("_data", &sd);
    EXPECT_EQ(
        std::memcmp(static_cast<const uint8_t *>(wd) + rank * kRowsPerShard * K,
                    sd, kRowsPerShard * K),
        0);
    std::vector<float> col = shard.dequantize(TE_RT_COLUMNWISE);
    EXPECT_EQ(std::memcmp(col.data(),
                          wholeCol.data() + rank * kRowsPerShard * K,
                          col.size() * 4),
              0);
  });
}

TEST_P(CommGroup, DelayedScalingHistoryReducedBeforeUpdate) {
  int n = GetParam();
  std::vector<float> x = gathered(n);
  const int64_t M = n * kRowsPerShard, K = kCols;
  te_rt_quantizer qz;
  te_rt_quantizer_init_default(&qz);
  qz.recipe = TE_RT_RECIPE_DELAYED;
  qz.history_length = 4;
  qz.margin = 1;
  float handAmax = 0.0f;
  for (float v : x)
    handAmax = std::fmax(handAmax, std::fabs(v));
  const float scale0 = 2.0f;
  // Oracle: one rank holding the gathered tensor.
  Ctx ref;
  QT whole(ref.ctx, qz, M, K, TE_RT_ROWWISE);
  te_rt_tensor xt{x.data(), TE_RT_F32, 2, {M, K}};
  float wholeAmax = 0.0f;
  te_rt_quantize_args wa;
  te_rt_quantize_args_init(&wa);
  wa.scale = &scale0;
  wa.amax = &wholeAmax;
  ASSERT_EQ(te_rt_quantize(ref.ctx, &xt, &whole.q, &wa), TE_RT_OK);
  EXPECT_EQ(bits(wholeAmax), bits(handAmax));
  float hist[4] = {wholeAmax, 0.5f, 0.25f, 0.125f}, wholeScale = scale0;
  ASSERT_EQ(te_rt_update_scale(ref.ctx, &qz, hist, &wholeScale, 4, 1),
            TE_RT_OK);
  // Hand: max over the history (all of it, before the roll) = handAmax;
  // scale = 448 * 2^-margin / amax.
  EXPECT_EQ(bits(wholeScale), bits(224.0f / handAmax));

  onGroup(n, [&](int rank, te_rt_comm *comm, te_rt_context *ctx) {
    QT shard(ctx, qz, kRowsPerShard, K, TE_RT_ROWWISE);
    te_rt_tensor st{
        x.data() + rank * kRowsPerShard * K, TE_RT_F32, 2, {kRowsPerShard, K}};
    float local = 0.0f;
    te_rt_quantize_args a;
    te_rt_quantize_args_init(&a);
    a.scale = &scale0;
    a.amax = &local;
    ASSERT_EQ(te_rt_comm_quantize(ctx, comm, &st, &shard.q, &a), TE_RT_OK);
    // Same scale on every rank: the shard is the gathered cast's rows.
    const void *wd, *sd;
    whole.desc("_data", &wd);
    shard.desc("_data", &sd);
    EXPECT_EQ(
        std::memcmp(static_cast<const uint8_t *>(wd) + rank * kRowsPerShard * K,
                    sd, kRowsPerShard * K),
        0);
    float h[4] = {local, 0.5f, 0.25f, 0.125f}, s = scale0;
    ASSERT_EQ(te_rt_comm_update_scale(ctx, comm, &qz, h, &s, 4, 1), TE_RT_OK)
        << te_rt_last_error();
    EXPECT_EQ(bits(s), bits(wholeScale));
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(bits(h[i]), bits(hist[i])) << i;
  });
}

struct NVFP4Case {
  const char *name;
  bool rht, twoD;
};

class CommNVFP4 : public ::testing::TestWithParam<std::tuple<int, NVFP4Case>> {
};

TEST_P(CommNVFP4, ShardsEqualGatheredCast) {
  int n = std::get<0>(GetParam());
  NVFP4Case c = std::get<1>(GetParam());
  // bf16 input (the RHT needs it): round the fp32 values to nearest-even.
  std::vector<float> x = gathered(n);
  std::vector<uint16_t> xb(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    uint32_t u = bits(x[i]);
    u += 0x7FFFu + ((u >> 16) & 1u);
    xb[i] = static_cast<uint16_t>(u >> 16);
    uint32_t back = static_cast<uint32_t>(xb[i]) << 16;
    std::memcpy(&x[i], &back, 4);
  }
  const int64_t M = n * kRowsPerShard, K = kCols;
  te_rt_quantizer qz;
  te_rt_quantizer_init_default(&qz);
  qz.recipe = TE_RT_RECIPE_NVFP4;
  qz.dtype = TE_RT_E2M1X2;
  qz.rht = c.rht;
  qz.rht_sign_mask = c.rht ? 0xD7E8 : 0;
  qz.nvfp4_2d = c.twoD;
  ASSERT_EQ(te_rt_quantizer_verify(&qz), TE_RT_OK) << te_rt_last_error();
  Ctx ref;
  QT whole(ref.ctx, qz, M, K, TE_RT_ROWWISE_AND_COLUMNWISE);
  te_rt_tensor xt{xb.data(), TE_RT_BF16, 2, {M, K}};
  ASSERT_EQ(te_rt_quantize(ref.ctx, &xt, &whole.q, nullptr), TE_RT_OK)
      << te_rt_last_error();
  float handAmax = 0.0f;
  for (float v : x)
    handAmax = std::fmax(handAmax, std::fabs(v));
  EXPECT_EQ(bits(whole.amax("_amax_rowwise")), bits(handAmax));
  if (!c.rht)
    EXPECT_EQ(bits(whole.amax("_amax_columnwise")), bits(handAmax));
  std::vector<float> wholeRow = whole.dequantize(TE_RT_ROWWISE);
  std::vector<float> wholeCol = whole.dequantize(TE_RT_COLUMNWISE);
  const void *wrs;
  te_rt_buffer_desc wrsd = whole.desc("_rowwise_scale_inv", &wrs);
  const void *wrd;
  whole.desc("_rowwise_data", &wrd);

  onGroup(n, [&](int rank, te_rt_comm *comm, te_rt_context *ctx) {
    QT shard(ctx, qz, kRowsPerShard, K, TE_RT_ROWWISE_AND_COLUMNWISE);
    te_rt_tensor st{xb.data() + rank * kRowsPerShard * K,
                    TE_RT_BF16,
                    2,
                    {kRowsPerShard, K}};
    ASSERT_EQ(te_rt_comm_quantize(ctx, comm, &st, &shard.q, nullptr), TE_RT_OK)
        << te_rt_last_error();
    EXPECT_EQ(bits(shard.amax("_amax_rowwise")),
              bits(whole.amax("_amax_rowwise")));
    EXPECT_EQ(bits(shard.amax("_amax_columnwise")),
              bits(whole.amax("_amax_columnwise")));
    // Rowwise data and scales: this shard's rows of the gathered ones.
    const void *sd, *ss;
    shard.desc("_rowwise_data", &sd);
    te_rt_buffer_desc ssd = shard.desc("_rowwise_scale_inv", &ss);
    EXPECT_EQ(std::memcmp(static_cast<const uint8_t *>(wrd) +
                              rank * kRowsPerShard * K / 2,
                          sd, kRowsPerShard * K / 2),
              0);
    ASSERT_EQ(ssd.shape[1], wrsd.shape[1]);
    EXPECT_EQ(std::memcmp(static_cast<const uint8_t *>(wrs) +
                              rank * kRowsPerShard * wrsd.shape[1],
                          ss, kRowsPerShard * ssd.shape[1]),
              0);
    std::vector<float> row = shard.dequantize(TE_RT_ROWWISE);
    EXPECT_EQ(std::memcmp(row.data(),
                          wholeRow.data() + rank * kRowsPerShard * K,
                          row.size() * 4),
              0);
    std::vector<float> col = shard.dequantize(TE_RT_COLUMNWISE);
    EXPECT_EQ(std::memcmp(col.data(),
                          wholeCol.data() + rank * kRowsPerShard * K,
                          col.size() * 4),
              0);
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, CommGroup, ::testing::Values(1, 2, 3, 4));
INSTANTIATE_TEST_SUITE_P(
    Ranks, CommNVFP4,
    ::testing::Combine(::testing::Values(2, 3, 4),
                       ::testing::Values(NVFP4Case{"plain", false, false},
                                         NVFP4Case{"rht", true, false},
                                         NVFP4Case{"2d", false, true})),
    [](const auto &info) {
      return std::string(std::get<1>(info.param).name) + "_" +
             std::to_string(std::get<0>(info.param));
    });

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

void expectError(te_rt_status got, te_rt_status want, const char *msg) {
  EXPECT_EQ(got, want);
  EXPECT_STREQ(te_rt_last_error(), msg);
}

TEST(CommErrors, GroupAndRank) {
  te_rt_comm_cpu_group *g = nullptr;
  expectError(te_rt_comm_cpu_group_create(0, &g), TE_RT_INVALID_ARGUMENT,
              "group size 0 is not in 1..4096 (one rank is one thread of this "
              "process)");
  expectError(te_rt_comm_cpu_group_create(std::numeric_limits<int>::max(), &g),
              TE_RT_INVALID_ARGUMENT,
              "group size 2147483647 is not in 1..4096 (one rank is one "
              "thread of this process)");
  ASSERT_EQ(te_rt_comm_cpu_group_create(2, &g), TE_RT_OK);
  te_rt_comm *c = nullptr, *d = nullptr;
  expectError(te_rt_comm_create_cpu(g, 2, &c), TE_RT_INVALID_ARGUMENT,
              "rank 2 is not in [0, 2)");
  ASSERT_EQ(te_rt_comm_create_cpu(g, 1, &c), TE_RT_OK);
  expectError(te_rt_comm_create_cpu(g, 1, &d), TE_RT_INVALID_ARGUMENT,
              "rank 1 of the group already has a communicator");
  te_rt_comm_kind kind;
  int rank = -1, size = -1;
  ASSERT_EQ(te_rt_comm_info(c, &kind, &rank, &size), TE_RT_OK);
  EXPECT_EQ(kind, TE_RT_COMM_CPU);
  EXPECT_EQ(rank, 1);
  EXPECT_EQ(size, 2);
  expectError(te_rt_allreduce_max(c, nullptr, 1, nullptr),
              TE_RT_INVALID_ARGUMENT, "buf is null");
  expectError(te_rt_allreduce_max(c, nullptr, -1, nullptr),
              TE_RT_INVALID_ARGUMENT, "element count -1 is negative");
  expectError(te_rt_allreduce_max(nullptr, nullptr, 0, nullptr),
              TE_RT_INVALID_ARGUMENT, "comm is null");
  EXPECT_EQ(te_rt_comm_destroy(c), TE_RT_OK);
  EXPECT_EQ(te_rt_comm_destroy(nullptr), TE_RT_OK);
  EXPECT_EQ(te_rt_comm_cpu_group_destroy(g), TE_RT_OK);
}

TEST(CommErrors, CountMismatchFailsOnEveryRank) {
  onGroup(2, [](int rank, te_rt_comm *comm, te_rt_context *) {
    float buf[3] = {1, 2, 3};
    EXPECT_EQ(te_rt_allreduce_max(comm, buf, rank + 2, nullptr),
              TE_RT_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(te_rt_last_error(),
                          "ranks passed different element counts"),
              nullptr)
        << te_rt_last_error();
  });
}

TEST(CommErrors, QuantizeArguments) {
  te_rt_comm_cpu_group *g = nullptr;
  ASSERT_EQ(te_rt_comm_cpu_group_create(1, &g), TE_RT_OK);
  te_rt_comm *c = nullptr;
  ASSERT_EQ(te_rt_comm_create_cpu(g, 0, &c), TE_RT_OK);
  Ctx ctx;
  te_rt_quantizer qz;
  te_rt_quantizer_init_default(&qz);
  QT q(ctx.ctx, qz, 16, 32, TE_RT_ROWWISE);
  std::vector<float> x(16 * 32, 1.0f);
  te_rt_tensor xt{x.data(), TE_RT_F32, 2, {16, 32}};
  float given = 1.0f;
  te_rt_quantize_args a;
  te_rt_quantize_args_init(&a);
  a.amax_in = &given;
  expectError(te_rt_comm_quantize(ctx.ctx, c, &xt, &q.q, &a),
              TE_RT_INVALID_ARGUMENT,
              "te_rt_comm_quantize computes args->amax_in itself; pass NULL");
  expectError(te_rt_comm_quantize(ctx.ctx, nullptr, &xt, &q.q, nullptr),
              TE_RT_INVALID_ARGUMENT, "comm is null");
  qz.recipe = TE_RT_RECIPE_NVFP4;
  qz.dtype = TE_RT_E2M1X2;
  qz.row_scaled = 1;
  if (te_rt_quantizer_verify(&qz) == TE_RT_OK) {
    QT r(ctx.ctx, qz, 16, 32, TE_RT_ROWWISE);
    expectError(te_rt_comm_quantize(ctx.ctx, c, &xt, &r.q, nullptr),
                TE_RT_UNSUPPORTED,
                "amax reduction is not supported for row-scaled nvfp4");
  }
  if (te_rt_backend_available(TE_RT_BACKEND_CUDA)) {
    te_rt_context *cuda = nullptr;
    ASSERT_EQ(te_rt_context_create(TE_RT_BACKEND_CUDA, &cuda), TE_RT_OK);
    expectError(te_rt_comm_update_scale(cuda, c, &qz, &given, &given, 1, 1),
                TE_RT_INVALID_ARGUMENT,
                "a CPU-group communicator needs a cpu context");
    te_rt_context_destroy(cuda);
  }
  te_rt_comm_destroy(c);
  te_rt_comm_cpu_group_destroy(g);
}

TEST(CommErrors, RuntimeNVFP4AmaxInRowScaled) {
  Ctx ctx;
  te_rt_quantizer qz;
  te_rt_quantizer_init_default(&qz);
  qz.recipe = TE_RT_RECIPE_NVFP4;
  qz.dtype = TE_RT_E2M1X2;
  qz.row_scaled = 1;
  if (te_rt_quantizer_verify(&qz) != TE_RT_OK)
    GTEST_SKIP() << "row-scaled nvfp4 rejected: " << te_rt_last_error();
  QT r(ctx.ctx, qz, 16, 32, TE_RT_ROWWISE);
  std::vector<float> x(16 * 32, 1.0f);
  te_rt_tensor xt{x.data(), TE_RT_F32, 2, {16, 32}};
  float given[2] = {1.0f, 1.0f};
  te_rt_quantize_args a;
  te_rt_quantize_args_init(&a);
  a.amax_in = given;
  expectError(te_rt_quantize(ctx.ctx, &xt, &r.q, &a), TE_RT_UNSUPPORTED,
              "args->amax_in is not supported for row-scaled nvfp4");
}

//===----------------------------------------------------------------------===//
// NCCL absent
//===----------------------------------------------------------------------===//

TEST(CommNccl, MissingLibraryIsBackendUnavailable) {
  ::setenv("TE_RT_NCCL_LIBRARY", "/nonexistent/libnccl-missing.so.2", 1);
  EXPECT_EQ(te_rt_comm_nccl_available(), 0);
  te_rt_comm_unique_id id;
  EXPECT_EQ(te_rt_comm_nccl_get_unique_id(&id), TE_RT_BACKEND_UNAVAILABLE);
  EXPECT_EQ(std::string(te_rt_last_error())
                .rfind("NCCL is not available: cannot load "
                       "/nonexistent/libnccl-missing.so.2 (",
                       0),
            0u)
      << te_rt_last_error();
  te_rt_comm *c = nullptr;
  std::memset(&id, 0, sizeof(id));
  EXPECT_EQ(te_rt_comm_create_nccl(&id, 0, 1, &c), TE_RT_BACKEND_UNAVAILABLE);
  EXPECT_EQ(c, nullptr);
  EXPECT_EQ(te_rt_comm_create_nccl(&id, 1, 1, &c), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "rank 1 is not in [0, 1)");
  ::unsetenv("TE_RT_NCCL_LIBRARY");
}

TEST(CommNccl, DefaultLibraryWhenAbsent) {
  void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (h) {
    dlclose(h);
    GTEST_SKIP() << "libnccl.so.2 is installed here";
  }
  EXPECT_EQ(te_rt_comm_nccl_available(), 0);
  te_rt_comm_unique_id id;
  EXPECT_EQ(te_rt_comm_nccl_get_unique_id(&id), TE_RT_BACKEND_UNAVAILABLE);
  EXPECT_NE(std::strstr(te_rt_last_error(), "cannot load libnccl.so.2"),
            nullptr)
      << te_rt_last_error();
}

} // namespace

namespace {

// NCCL present (e.g. the CUDA toolkit's libnccl.so.2) but no GPU: the id is
// made, the communicator fails with NCCL's message, nothing aborts.
TEST(CommNccl, PresentWithoutGpuFailsCleanly) {
  if (!te_rt_comm_nccl_available())
    GTEST_SKIP() << "libnccl.so.2 is not installed here";
  if (te_rt_backend_available(TE_RT_BACKEND_CUDA))
    GTEST_SKIP() << "a GPU is present (see test/Distributed)";
  te_rt_comm_unique_id id;
  ASSERT_EQ(te_rt_comm_nccl_get_unique_id(&id), TE_RT_OK) << te_rt_last_error();
  te_rt_comm *c = nullptr;
  EXPECT_EQ(te_rt_comm_create_nccl(&id, 0, 1, &c), TE_RT_INTERNAL);
  EXPECT_EQ(c, nullptr);
  EXPECT_EQ(
      std::string(te_rt_last_error()).rfind("ncclCommInitRank failed: ", 0), 0u)
      << te_rt_last_error();
}

} // namespace
