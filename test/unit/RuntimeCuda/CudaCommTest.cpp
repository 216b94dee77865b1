//===- CudaCommTest.cpp - Amax reduction on a GPU: NCCL, NVFP4 amax_in ---===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// GPU tests of the amax reduction (te_rt_comm.h, docs/distributed.md), built
// as te-rt-cuda-comm-tests (ctest RuntimeCudaComm, label `gpu`):
// * CudaNVFP4AmaxIn: the cuda backend's NVFP4 quantize with an external
//   amax pair (args->amax_in = {rowwise, columnwise (post-RHT)}) writes the
//   same bytes as the cpu backend given the same pair (fused and general
//   kernels, 1x16, RHT, 16x16, stochastic rounding; amaxes above and below
//   the tensor's own), its amax buffers hold the given pair, and the scales
//   differ from those of the tensor's own amax (the pair is used);
// * CudaNccl: a single-rank NCCL communicator on one GPU (ncclGetUniqueId,
//   ncclCommInitRank with nranks 1) through te_rt_comm: the all-reduce is
//   the identity, te_rt_comm_quantize equals the local quantization bit for
//   bit (current scaling; NVFP4 plain, RHT, 16x16) and the cpu backend's,
//   the reduced current-scaling amax is max|x| computed here,
//   te_rt_comm_update_scale equals te_rt_update_scale, and the compiled-code
//   entry points (te_rt_mlir_allreduce_max, te_rt_mlir_quantize_group) find
//   the communicator by its group name.
// Without a GPU every test skips; without libnccl.so.2 (TE_RT_NCCL_LIBRARY
// names another file) the CudaNccl tests skip with the loader's message.
//
//===----------------------------------------------------------------------===//

#include "te_rt.h"
#include "te_rt_abi.h"
#include "te_rt_comm.h"

#include <cuda_runtime.h>

#include "te/Format/Codecs.h"

#include "../Support/QuantizeDescriptor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

bool haveGpu() { return te_rt_backend_available(TE_RT_BACKEND_CUDA) != 0; }

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    if (!haveGpu())                                                            \
      GTEST_SKIP() << "SKIP: no CUDA device (or libte_rt built without the "   \
                      "cuda backend)";                                         \
  } while (0)

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

struct Context {
  te_rt_context *ctx = nullptr;
  explicit Context(te_rt_backend b) {
    EXPECT_EQ(te_rt_context_create(b, &ctx), TE_RT_OK) << te_rt_last_error();
  }
  ~Context() { te_rt_context_destroy(ctx); }
};

/// Context memory (device memory on cuda) freed at scope exit.
struct Mem {
  te_rt_context *ctx;
  void *ptr = nullptr;
  Mem(te_rt_context *c, size_t bytes, const void *host = nullptr) : ctx(c) {
    EXPECT_EQ(te_rt_malloc(ctx, bytes, &ptr), TE_RT_OK) << te_rt_last_error();
    if (host && bytes) {
      EXPECT_EQ(te_rt_memcpy(ctx, ptr, host, bytes, TE_RT_HOST_TO_DEVICE),
                TE_RT_OK);
    }
  }
  ~Mem() { te_rt_free(ctx, ptr); }
  template <typename T> std::vector<T> download(size_t n) const {
    std::vector<T> v(n);
    if (n) {
      EXPECT_EQ(
          te_rt_memcpy(ctx, v.data(), ptr, n * sizeof(T), TE_RT_DEVICE_TO_HOST),
          TE_RT_OK);
    }
    return v;
  }
};

/// A host M x K input, f32 or bf16 bytes, N(0, 1) values times `scale`.
struct Input {
  int64_t M, K;
  te_rt_dtype dtype;
  std::vector<uint8_t> bytes;
  std::vector<float> values; // what the bytes hold, as floats
  te_rt_tensor tensor(void *data) const {
    te_rt_tensor t;
    std::memset(&t, 0, sizeof(t));
    t.data = data;
    t.dtype = dtype;
    t.rank = 2;
    t.shape[0] = M;
    t.shape[1] = K;
    return t;
  }
};

Input makeInput(int64_t M, int64_t K, te_rt_dtype dtype, uint32_t seed,
                float scale = 1.0f) {
  Input in{M, K, dtype, {}, {}};
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  in.values.resize(static_cast<size_t>(M * K));
  for (float &v : in.values) {
    v = normal(rng) * scale;
    if (dtype == TE_RT_BF16)
      v = te::format::bf16ToFloat(te::format::floatToBF16(v));
  }
  if (dtype == TE_RT_BF16) {
    in.bytes.resize(in.values.size() * 2);
    auto *p = reinterpret_cast<uint16_t *>(in.bytes.data());
    for (size_t i = 0; i < in.values.size(); ++i)
      p[i] = te::format::floatToBF16(in.values[i]);
  } else {
    in.bytes.resize(in.values.size() * 4);
    std::memcpy(in.bytes.data(), in.values.data(), in.bytes.size());
  }
  return in;
}

te_rt_quantizer nvfp4Quantizer(bool rht, bool twoD, bool sr) {
  te_rt_quantizer qz;
  te_rt_quantizer_init_default(&qz);
  qz.recipe = TE_RT_RECIPE_NVFP4;
  qz.dtype = TE_RT_E2M1X2;
  qz.rht = rht;
  qz.rht_sign_mask = rht ? 0xD7E8 : 0; // TE's
  qz.nvfp4_2d = twoD;
  qz.stochastic_rounding = sr;
  return qz;
}

te_rt_quantizer currentQuantizer() {
  te_rt_quantizer qz;
  te_rt_quantizer_init_default(&qz);
  qz.recipe = TE_RT_RECIPE_CURRENT;
  qz.dtype = TE_RT_E4M3;
  return qz;
}

/// What one quantization wrote: every buffer by name, and args->amax.
struct Quantized {
  te_rt_status status = TE_RT_INTERNAL;
  std::string error;
  std::vector<std::string> names;
  std::vector<std::vector<uint8_t>> buffers;
  float amax = -1.0f; // args->amax (per-tensor recipes)
  const std::vector<uint8_t> *get(const std::string &name) const {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == name)
        return &buffers[i];
    return nullptr;
  }
  float floatBuffer(const std::string &name) const {
    const std::vector<uint8_t> *b = get(name);
    float f = std::numeric_limits<float>::quiet_NaN();
    if (b && b->size() >= 4)
      std::memcpy(&f, b->data(), 4);
    return f;
  }
};

/// Quantizes `in` on `ctx`: te_rt_comm_quantize when `comm`, else
/// te_rt_quantize with args->amax_in = `amaxIn` (host floats, copied to
/// context memory) when given. Buffers are poisoned (0xA5) first.
Quantized quantize(te_rt_context *ctx, const te_rt_quantizer &qz,
                   const Input &in, te_rt_usage usage,
                   const std::vector<float> *amaxIn, te_rt_comm *comm,
                   uint64_t seed = 0, uint64_t offset = 0) {
  Quantized r;
  int64_t shape[2] = {in.M, in.K};
  te_rt_qtensor q;
  if (te_rt_qtensor_alloc(ctx, &q, &qz, 2, shape, usage, TE_RT_SM90) !=
      TE_RT_OK) {
    r.error = te_rt_last_error();
    return r;
  }
  te_rt_buffer_desc descs[TE_RT_MAX_BUFFERS];
  int32_t nb = 0;
  EXPECT_EQ(te_rt_qtensor_layout(&qz, 2, shape, usage, TE_RT_SM90, descs,
                                 TE_RT_MAX_BUFFERS, &nb),
            TE_RT_OK);
  for (int i = 0; i < q.num_buffers; ++i) {
    std::vector<uint8_t> junk(static_cast<size_t>(q.buffers[i].size_bytes),
                              0xA5);
    if (!junk.empty())
      te_rt_memcpy(ctx, q.buffers[i].data, junk.data(), junk.size(),
                   TE_RT_HOST_TO_DEVICE);
  }
  Mem x(ctx, in.bytes.size(), in.bytes.data());
  Mem amaxOut(ctx, 4);
  Mem amaxInMem(ctx, amaxIn ? amaxIn->size() * 4 : 4,
                amaxIn ? amaxIn->data() : nullptr);
  te_rt_quantize_args a;
  te_rt_quantize_args_init(&a);
  a.seed = seed;
  a.offset = offset;
  bool perTensor = qz.recipe == TE_RT_RECIPE_CURRENT;
  if (perTensor)
    a.amax = static_cast<float *>(amaxOut.ptr);
  if (amaxIn)
    a.amax_in = static_cast<const float *>(amaxInMem.ptr);
  te_rt_tensor t = in.tensor(x.ptr);
  r.status = comm ? te_rt_comm_quantize(ctx, comm, &t, &q, &a)
                  : te_rt_quantize(ctx, &t, &q, &a);
  if (r.status != TE_RT_OK)
    r.error = te_rt_last_error();
  EXPECT_EQ(te_rt_synchronize(ctx, nullptr), TE_RT_OK) << te_rt_last_error();
  if (r.status == TE_RT_OK) {
    for (int i = 0; i < q.num_buffers; ++i) {
      std::vector<uint8_t> b(static_cast<size_t>(q.buffers[i].size_bytes));
      if (!b.empty()) {
        EXPECT_EQ(te_rt_memcpy(ctx, b.data(), q.buffers[i].data, b.size(),
                               TE_RT_DEVICE_TO_HOST),
                  TE_RT_OK);
      }
      r.names.push_back(descs[i].name);
      r.buffers.push_back(std::move(b));
    }
    if (perTensor)
      r.amax = amaxOut.download<float>(1)[0];
  }
  te_rt_qtensor_free(ctx, &q);
  return r;
}

/// Every buffer of `b` equals `a`'s, byte for byte.
::testing::AssertionResult sameBuffers(const Quantized &a, const Quantized &b,
                                       const char *aName, const char *bName) {
  if (a.status != TE_RT_OK || b.status != TE_RT_OK)
    return ::testing::AssertionFailure()
           << aName << ": " << a.error << "; " << bName << ": " << b.error;
  if (a.names != b.names)
    return ::testing::AssertionFailure() << "different buffers";
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    const std::vector<uint8_t> &x = a.buffers[i], &y = b.buffers[i];
    int64_t mismatches = 0, first = -1;
    for (size_t j = 0; j < x.size(); ++j)
      if (x[j] != y[j] && mismatches++ == 0)
        first = static_cast<int64_t>(j);
    if (mismatches)
      return ::testing::AssertionFailure()
             << a.names[i] << ": " << mismatches << " of " << x.size()
             << " bytes differ; first at " << first << " (" << aName << " "
             << int(x[first]) << ", " << bName << " " << int(y[first]) << ")";
  }
  return ::testing::AssertionSuccess();
}

//===----------------------------------------------------------------------===//
// NVFP4 with an external amax pair (args->amax_in)
//===----------------------------------------------------------------------===//

struct NVFP4Case {
  const char *name;
  int64_t M, K;
  te_rt_dtype dtype;
  bool rht, twoD, sr;
};

// Fused kernel: M % 64 == 0 and K % 128 == 0 (QuantizeNVFP4.cu); others use the
// general kernels (M = 48), as does 16x16.
const NVFP4Case kNVFP4Cases[] = {
    {"1x16 fused bf16", 256, 256, TE_RT_BF16, false, false, false},
    {"1x16 fused f32", 128, 256, TE_RT_F32, false, false, false},
    {"1x16 general f32", 48, 80, TE_RT_F32, false, false, false},
    {"rht fused", 256, 256, TE_RT_BF16, true, false, false},
    {"rht general", 48, 128, TE_RT_BF16, true, false, false},
    {"16x16 general", 64, 128, TE_RT_BF16, false, true, false},
    {"rht + stochastic rounding fused", 128, 256, TE_RT_BF16, true, false,
     true},
};

/// Every case of kNVFP4Cases with args->amax_in = `pair` on the cuda and
/// the cpu backend: the same bytes; the amax buffers hold the pair.
void checkAmaxIn(const std::vector<float> &pair, bool checkUsed) {
  Context cpu(TE_RT_BACKEND_CPU), gpu(TE_RT_BACKEND_CUDA);
  int run = 0;
  for (const NVFP4Case &c : kNVFP4Cases) {
    SCOPED_TRACE(std::string(c.name) + " amax_in {" + std::to_string(pair[0]) +
                 ", " + std::to_string(pair[1]) + "}");
    te_rt_quantizer qz = nvfp4Quantizer(c.rht, c.twoD, c.sr);
    Input in = makeInput(c.M, c.K, c.dtype, 17 + run);
    Quantized qc = quantize(cpu.ctx, qz, in, TE_RT_ROWWISE_AND_COLUMNWISE,
                            &pair, nullptr, 7, 3);
    Quantized qg = quantize(gpu.ctx, qz, in, TE_RT_ROWWISE_AND_COLUMNWISE,
                            &pair, nullptr, 7, 3);
    ASSERT_EQ(qg.status, TE_RT_OK) << qg.error;
    EXPECT_TRUE(sameBuffers(qc, qg, "cpu", "cuda"));
    EXPECT_EQ(bits(qg.floatBuffer("_amax_rowwise")), bits(pair[0]));
    EXPECT_EQ(bits(qg.floatBuffer("_amax_columnwise")), bits(pair[1]));
    ++run;
    if (!checkUsed)
      continue;
    // The pair is used: the tensor's own amaxes give other scales.
    Quantized own = quantize(gpu.ctx, qz, in, TE_RT_ROWWISE_AND_COLUMNWISE,
                             nullptr, nullptr, 7, 3);
    ASSERT_EQ(own.status, TE_RT_OK) << own.error;
    EXPECT_NE(*own.get("_rowwise_scale_inv"), *qg.get("_rowwise_scale_inv"));
    EXPECT_NE(*own.get("_columnwise_scale_inv"),
              *qg.get("_columnwise_scale_inv"));
  }
  EXPECT_EQ(run, 7);
}

// Above the tensor's own amaxes (N(0,1): |x| < 6, post-RHT < 12), as after
// an all-reduce.
TEST(CudaNVFP4AmaxIn, MatchesCpuBackend) {
  REQUIRE_GPU();
  checkAmaxIn({6.5f, 11.0f}, true);
}

// Below them (saturating casts; an all-reduce never gives this, the
// quantize API accepts it).
TEST(CudaNVFP4AmaxIn, BelowTheTensorsAmaxMatchesCpuBackend) {
  REQUIRE_GPU();
  checkAmaxIn({0.75f, 0.5f}, false);
}

TEST(CudaNVFP4AmaxIn, RowScaledIsRefused) {
  REQUIRE_GPU();
  Context gpu(TE_RT_BACKEND_CUDA);
  te_rt_quantizer qz = nvfp4Quantizer(false, false, false);
  qz.row_scaled = 1;
  Input in = makeInput(16, 32, TE_RT_F32, 3);
  std::vector<float> pair = {1.0f, 1.0f};
  Quantized r = quantize(gpu.ctx, qz, in, TE_RT_ROWWISE, &pair, nullptr, 0, 0);
  EXPECT_EQ(r.status, TE_RT_UNSUPPORTED);
  EXPECT_EQ(r.error, "args->amax_in is not supported for row-scaled nvfp4");
}

//===----------------------------------------------------------------------===//
// A single-rank NCCL communicator
//===----------------------------------------------------------------------===//

class CudaNccl : public ::testing::Test {
protected:
  static te_rt_comm *comm;
  static std::string skipReason;

  static void SetUpTestSuite() {
    if (!haveGpu()) {
      skipReason = "SKIP: no CUDA device (or libte_rt built without the cuda "
                   "backend)";
      return;
    }
    if (!te_rt_comm_nccl_available()) {
      te_rt_comm_unique_id id;
      te_rt_comm_nccl_get_unique_id(&id);
      skipReason = std::string("SKIP: ") + te_rt_last_error() +
                   " (set TE_RT_NCCL_LIBRARY to libnccl.so.2's path)";
      return;
    }
    cudaSetDevice(0);
    te_rt_comm_unique_id id;
    if (te_rt_comm_nccl_get_unique_id(&id) != TE_RT_OK ||
        te_rt_comm_create_nccl(&id, 0, 1, &comm) != TE_RT_OK)
      skipReason = std::string("FAIL: ") + te_rt_last_error();
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(te_rt_comm_destroy(comm), TE_RT_OK) << te_rt_last_error();
    comm = nullptr;
  }
  void SetUp() override {
    if (skipReason.rfind("FAIL", 0) == 0)
      FAIL() << skipReason;
    if (!skipReason.empty())
      GTEST_SKIP() << skipReason;
  }
};
te_rt_comm *CudaNccl::comm = nullptr;
std::string CudaNccl::skipReason;

TEST_F(CudaNccl, Info) {
  te_rt_comm_kind kind = TE_RT_COMM_CPU;
  int rank = -1, size = -1;
  ASSERT_EQ(te_rt_comm_info(comm, &kind, &rank, &size), TE_RT_OK);
  EXPECT_EQ(kind, TE_RT_COMM_NCCL);
  EXPECT_EQ(rank, 0);
  EXPECT_EQ(size, 1);
}

TEST_F(CudaNccl, AllReduceMaxOfOneRankIsTheIdentity) {
  Context gpu(TE_RT_BACKEND_CUDA);
  std::vector<float> v = {0.0f,
                          -0.0f,
                          1.5f,
                          -3.25f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::max()};
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-100.0f, 100.0f);
  while (v.size() < 4099)
    v.push_back(u(rng));
  Mem buf(gpu.ctx, v.size() * 4, v.data());
  ASSERT_EQ(te_rt_allreduce_max(comm, static_cast<float *>(buf.ptr),
                                static_cast<int64_t>(v.size()), nullptr),
            TE_RT_OK)
      << te_rt_last_error();
  ASSERT_EQ(te_rt_synchronize(gpu.ctx, nullptr), TE_RT_OK);
  std::vector<float> got = buf.download<float>(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    ASSERT_EQ(bits(got[i]), bits(v[i])) << "element " << i;
  // On a stream of the caller's, and with no elements.
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  EXPECT_EQ(te_rt_allreduce_max(comm, static_cast<float *>(buf.ptr), 3, s),
            TE_RT_OK)
      << te_rt_last_error();
  EXPECT_EQ(te_rt_allreduce_max(comm, static_cast<float *>(buf.ptr), 0, s),
            TE_RT_OK)
      << te_rt_last_error();
  EXPECT_EQ(te_rt_synchronize(gpu.ctx, s), TE_RT_OK);
  cudaStreamDestroy(s);
  got = buf.download<float>(3);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(bits(got[i]), bits(v[i])) << "element " << i;
}

TEST_F(CudaNccl, QuantizeCurrentEqualsLocal) {
  Context cpu(TE_RT_BACKEND_CPU), gpu(TE_RT_BACKEND_CUDA);
  te_rt_quantizer qz = currentQuantizer();
  struct Shape {
    int64_t M, K;
    te_rt_dtype dtype;
  } shapes[] = {{256, 512, TE_RT_BF16}, {48, 80, TE_RT_F32}};
  for (const Shape &s : shapes) {
    SCOPED_TRACE(std::to_string(s.M) + "x" + std::to_string(s.K));
    Input in = makeInput(s.M, s.K, s.dtype, 11, 3.0f);
    float hand = 0.0f;
    for (float v : in.values)
      hand = std::fmax(hand, std::fabs(v));
    Quantized reduced =
        quantize(gpu.ctx, qz, in, TE_RT_ROWWISE_AND_COLUMNWISE, nullptr, comm);
    Quantized local = quantize(gpu.ctx, qz, in, TE_RT_ROWWISE_AND_COLUMNWISE,
                               nullptr, nullptr);
    Quantized host = quantize(cpu.ctx, qz, in, TE_RT_ROWWISE_AND_COLUMNWISE,
                              nullptr, nullptr);
    EXPECT_TRUE(sameBuffers(local, reduced, "local", "reduced"));
    EXPECT_TRUE(sameBuffers(host, reduced, "cpu", "reduced"));
    EXPECT_EQ(bits(reduced.amax), bits(hand));
    // scale = 448 / amax, scale_inv = 1 / scale (docs/formats.md §3.2).
    EXPECT_EQ(bits(reduced.floatBuffer("_scale_inv")),
              bits(1.0f / (448.0f / hand)));
  }
}

TEST_F(CudaNccl, QuantizeNVFP4EqualsLocal) {
  Context cpu(TE_RT_BACKEND_CPU), gpu(TE_RT_BACKEND_CUDA);
  int n = 0;
  for (const NVFP4Case &c : kNVFP4Cases) {
    if (c.sr)
      continue; // equal too, but the shard equivalence does not cover it
    SCOPED_TRACE(c.name);
    te_rt_quantizer qz = nvfp4Quantizer(c.rht, c.twoD, c.sr);
    Input in = makeInput(c.M, c.K, c.dtype, 23 + n++);
    Quantized reduced =
        quantize(gpu.ctx, qz, in, TE_RT_ROWWISE_AND_COLUMNWISE, nullptr, comm);
    Quantized local = quantize(gpu.ctx, qz, in, TE_RT_ROWWISE_AND_COLUMNWISE,
                               nullptr, nullptr);
    Quantized host = quantize(cpu.ctx, qz, in, TE_RT_ROWWISE_AND_COLUMNWISE,
                              nullptr, nullptr);
    EXPECT_TRUE(sameBuffers(local, reduced, "local", "reduced"));
    EXPECT_TRUE(sameBuffers(host, reduced, "cpu", "reduced"));
    float hand = 0.0f;
    for (float v : in.values)
      hand = std::fmax(hand, std::fabs(v));
    EXPECT_EQ(bits(reduced.floatBuffer("_amax_rowwise")), bits(hand));
  }
  EXPECT_EQ(n, 6);
}

TEST_F(CudaNccl, UpdateScaleEqualsLocal) {
  Context gpu(TE_RT_BACKEND_CUDA);
  te_rt_quantizer qz;
  te_rt_quantizer_init_default(&qz);
  qz.recipe = TE_RT_RECIPE_DELAYED;
  qz.history_length = 4;
  qz.margin = 1;
  const float hist0[4] = {3.5f, 0.5f, 7.0f, 0.125f}, scale0 = 2.0f;
  Mem h1(gpu.ctx, 16, hist0), s1(gpu.ctx, 4, &scale0);
  Mem h2(gpu.ctx, 16, hist0), s2(gpu.ctx, 4, &scale0);
  ASSERT_EQ(te_rt_comm_update_scale(gpu.ctx, comm, &qz,
                                    static_cast<float *>(h1.ptr),
                                    static_cast<float *>(s1.ptr), 4, 1),
            TE_RT_OK)
      << te_rt_last_error();
  ASSERT_EQ(te_rt_update_scale(gpu.ctx, &qz, static_cast<float *>(h2.ptr),
                               static_cast<float *>(s2.ptr), 4, 1),
            TE_RT_OK);
  ASSERT_EQ(te_rt_synchronize(gpu.ctx, nullptr), TE_RT_OK);
  std::vector<float> a = h1.download<float>(4), b = h2.download<float>(4);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(bits(a[i]), bits(b[i])) << "history " << i;
  // Hand: max over the history = 7, scale = 448 * 2^-1 / 7 = 32.
  EXPECT_EQ(s1.download<float>(1)[0], 32.0f);
  EXPECT_EQ(bits(s1.download<float>(1)[0]), bits(s2.download<float>(1)[0]));
}

TEST_F(CudaNccl, NeedsACudaContext) {
  Context cpu(TE_RT_BACKEND_CPU);
  te_rt_quantizer qz = currentQuantizer();
  Input in = makeInput(16, 32, TE_RT_F32, 1);
  Quantized r = quantize(cpu.ctx, qz, in, TE_RT_ROWWISE, nullptr, comm);
  EXPECT_EQ(r.status, TE_RT_INVALID_ARGUMENT);
  EXPECT_EQ(r.error, "an NCCL communicator needs a cuda context");
}

TEST_F(CudaNccl, CompiledCodeFindsTheGroup) {
  Context gpu(TE_RT_BACKEND_CUDA);
  // Code compiled for target=cpu passes host buffers: host-memory mode.
  ASSERT_EQ(te_rt_context_set_host_memory(gpu.ctx, 1), TE_RT_OK);
  te_rt_set_current_context(gpu.ctx);
  ASSERT_EQ(te_rt_comm_register_group("tp", comm), TE_RT_OK);
  // te.allreduce_max: host memory, staged to the device and back.
  float buf[3] = {0.5f, -7.0f, 3.0f};
  te_rt_mlir_allreduce_max(const_cast<char *>("tp"), buf, 3);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK)
      << static_cast<const char *>(te_rt_current_error());
  EXPECT_EQ(buf[0], 0.5f);
  EXPECT_EQ(buf[1], -7.0f);
  EXPECT_EQ(buf[2], 3.0f);
  // te.quantize_buffers ... group "tp" (current scaling, rowwise) against
  // te.quantize_buffers without a group.
  Input in = makeInput(32, 64, TE_RT_F32, 9);
  std::vector<float> x = in.values;
  std::vector<uint8_t> dg(32 * 64), dl(32 * 64);
  float sg = 0.0f, sl = 0.0f;
  std::vector<int64_t> withGroup = te::test::rowwiseQuantizeDescriptor(
      currentQuantizer(), 32, 64, x.data(), dg.data(), &sg);
  te_rt_mlir_quantize_group(const_cast<char *>("tp"), withGroup.data());
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK)
      << static_cast<const char *>(te_rt_current_error());
  std::vector<int64_t> local = te::test::rowwiseQuantizeDescriptor(
      currentQuantizer(), 32, 64, x.data(), dl.data(), &sl);
  te_rt_mlir_quantize(local.data());
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK)
      << static_cast<const char *>(te_rt_current_error());
  EXPECT_EQ(dg, dl);
  EXPECT_EQ(bits(sg), bits(sl));
  EXPECT_NE(sg, 0.0f);
  EXPECT_EQ(te_rt_comm_unregister_group("tp"), TE_RT_OK);
  te_rt_set_current_context(nullptr);
}

} // namespace
