//===- GpuMemoryTest.cpp - Context memory and the GPU host ABI on a GPU ---===//
//
// Part of te. On a cuda context: te_rt_mlir_alloc / copy / read / write on
// device memory, the caching pool, te_rt_mlir_update_scale and
// te_rt_mlir_quantize on device pointers against the cpu backend, and kernels
// loaded and launched through the mgpu* functions (fatbin and PTX, cached
// lookups, cluster launches, launch errors). Skips itself without a GPU.
//
//===----------------------------------------------------------------------===//

#include "te_rt_abi.h"
#include "te_rt_gpu_abi.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace {

std::string error() { return static_cast<const char *>(te_rt_current_error()); }

class Gpu : public ::testing::Test {
protected:
  void SetUp() override {
    if (!te_rt_backend_available(TE_RT_BACKEND_CUDA))
      GTEST_SKIP() << "no usable GPU";
    ASSERT_EQ(te_rt_context_create(TE_RT_BACKEND_CUDA, &ctx), TE_RT_OK)
        << te_rt_last_error();
    te_rt_set_current_context(ctx);
  }
  void TearDown() override {
    te_rt_set_current_context(nullptr);
    te_rt_context_destroy(ctx);
  }
  te_rt_context *ctx = nullptr;
};

bool isDevicePointer(const void *p) {
  cudaPointerAttributes a{};
  return cudaPointerGetAttributes(&a, p) == cudaSuccess &&
         a.type == cudaMemoryTypeDevice;
}

TEST_F(Gpu, AllocCopyReadWriteOnDevice) {
  const int n = 4097;
  void *a = te_rt_mlir_alloc(n * 4, 16);
  void *b = te_rt_mlir_alloc(n * 4, 256);
  void *z0 = te_rt_mlir_alloc(0, 0), *z1 = te_rt_mlir_alloc(0, 0);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  for (void *p : {a, b, z0, z1}) {
    EXPECT_TRUE(isDevicePointer(p));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
  }
  EXPECT_NE(z0, z1);
  std::vector<float> in(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i)
    in[i] = 0.25f * i - 7;
  {
    std::vector<float> tmp = in; // dies right after the write
    te_rt_mlir_write(a, tmp.data(), n * 4);
    std::fill(tmp.begin(), tmp.end(), 99.0f);
  }
  te_rt_mlir_copy(b, a, n * 4);
  te_rt_mlir_read(out.data(), b, n * 4);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  EXPECT_EQ(out, in);
  for (void *p : {a, b, z0, z1})
    te_rt_mlir_free(p);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK) << error();
}

TEST_F(Gpu, WriteFromPinnedMemoryIsConsumedOnReturn) {
  const int n = 1 << 20;
  float *pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, n * 4), cudaSuccess);
  for (int i = 0; i < n; ++i)
    pinned[i] = float(i);
  void *d = te_rt_mlir_alloc(n * 4, 0);
  te_rt_mlir_write(d, pinned, n * 4);
  for (int i = 0; i < n; ++i)
    pinned[i] = -1.0f;
  std::vector<float> out(n);
  te_rt_mlir_read(out.data(), d, n * 4);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  for (int i = 0; i < n; i += 4099)
    ASSERT_EQ(out[i], float(i));
  te_rt_mlir_free(d);
  cudaFreeHost(pinned);
}

TEST_F(Gpu, PoolKeepsFreedMemory) {
  cudaMemPool_t pool = nullptr;
  int device = 0;
  cudaGetDevice(&device);
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&pool, device), cudaSuccess);
  uint64_t threshold = 0;
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  EXPECT_EQ(threshold, UINT64_MAX);
  void *p = te_rt_mlir_alloc(64 << 20, 0);
  te_rt_mlir_free(p);
  cudaDeviceSynchronize();
  uint64_t reserved = 0;
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved);
  EXPECT_GE(reserved, uint64_t(64) << 20); // not given back at the sync
  void *q = te_rt_mlir_alloc(64 << 20, 0);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  te_rt_mlir_free(q);
}

TEST_F(Gpu, OutOfMemoryIsStickyAndFreeStillRuns) {
  void *a = te_rt_mlir_alloc(256, 0);
  ASSERT_NE(a, nullptr);
  const int64_t huge = int64_t(1) << 50;
  EXPECT_EQ(te_rt_mlir_alloc(huge, 0), nullptr);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OUT_OF_MEMORY);
  EXPECT_NE(error().find("te_rt_mlir_alloc: cannot allocate 1125899906842624 "
                         "bytes of device memory"),
            std::string::npos)
      << error();
  std::string first = error();
  EXPECT_EQ(te_rt_mlir_alloc(16, 0), nullptr);
  float x = 3;
  te_rt_mlir_read(&x, a, 4);
  EXPECT_EQ(x, 0.0f);
  te_rt_mlir_free(a);
  EXPECT_EQ(error(), first);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

//===----------------------------------------------------------------------===//
// te ops on device pointers against the cpu backend
//===----------------------------------------------------------------------===//

std::vector<int64_t> descriptor(const te_rt_quantizer &q) {
  std::vector<int64_t> d(1 + te_rt_abi::kQuantizerWords);
  te_rt_abi::encodeQuantizer(q, d.data());
  return d;
}

void *deviceCopy(const void *host, size_t bytes) {
  void *p = te_rt_mlir_alloc(int64_t(bytes), 0);
  te_rt_mlir_write(p, const_cast<void *>(host), int64_t(bytes));
  return p;
}

TEST_F(Gpu, UpdateScaleOnDevicePointersMatchesCpu) {
  te_rt_quantizer q;
  te_rt_quantizer_init_default(&q);
  q.recipe = TE_RT_RECIPE_DELAYED;
  q.history_length = 8;
  q.margin = 1;
  std::vector<int64_t> d = descriptor(q);
  float amax = 5.5f, scale = 1.0f;
  std::vector<float> history = {1, 9, 2, 0.5f, 3, 0, 4, 7};

  te_rt_context *cpu = nullptr;
  ASSERT_EQ(te_rt_context_create(TE_RT_BACKEND_CPU, &cpu), TE_RT_OK);
  te_rt_set_current_context(cpu);
  std::vector<float> hRef = history;
  float sRef = scale, aRef = amax;
  te_rt_mlir_update_scale(d.data(), &aRef, hRef.data(), 8, &sRef);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  te_rt_set_current_context(nullptr);
  te_rt_context_destroy(cpu);

  te_rt_set_current_context(ctx);
  void *dA = deviceCopy(&amax, 4), *dS = deviceCopy(&scale, 4),
       *dH = deviceCopy(history.data(), 32);
  te_rt_mlir_update_scale(const_cast<int64_t *>(d.data()), dA, dH, 8, dS);
  std::vector<float> h(8);
  float s = 0;
  te_rt_mlir_read(h.data(), dH, 32);
  te_rt_mlir_read(&s, dS, 4);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  EXPECT_EQ(std::memcmp(h.data(), hRef.data(), 32), 0);
  EXPECT_EQ(std::memcmp(&s, &sRef, 4), 0) << s << " vs " << sRef;
  for (void *p : {dA, dS, dH})
    te_rt_mlir_free(p);
}

/// te_rt_mlir_quantize of x on the current context; `device`: buffers are
/// te_rt_mlir_alloc'd (else host vectors). Returns the buffers' bytes.
std::vector<std::vector<uint8_t>> quantize(const te_rt_quantizer &q,
                                           const std::vector<float> &x,
                                           int64_t rows, int64_t cols,
                                           bool device) {
  te_rt_qtensor qt;
  int64_t shape[2] = {rows, cols};
  EXPECT_EQ(te_rt_qtensor_init(&qt, &q, 2, shape, TE_RT_ROWWISE_AND_COLUMNWISE,
                               TE_RT_SM90),
            TE_RT_OK);
  std::vector<std::vector<uint8_t>> host(qt.num_buffers);
  void *bufs[6] = {};
  for (int i = 0; i < qt.num_buffers; ++i) {
    host[i].assign(size_t(qt.buffers[i].size_bytes), 0xAB);
    bufs[i] =
        device ? deviceCopy(host[i].data(), host[i].size()) : host[i].data();
  }
  void *xp = device ? deviceCopy(x.data(), x.size() * 4)
                    : const_cast<float *>(x.data());
  float amax = -1;
  void *ap = device ? deviceCopy(&amax, 4) : &amax;
  te_rt_abi::quantize::Fields f{};
  f.quantizer = q;
  f.target = TE_RT_SM90;
  f.usage = TE_RT_ROWWISE_AND_COLUMNWISE;
  f.rows = rows;
  f.cols = cols;
  f.x_dtype = TE_RT_F32;
  f.x = xp;
  std::copy(std::begin(bufs), std::end(bufs), f.bufs);
  f.amax = ap;
  std::vector<int64_t> d(te_rt_abi::quantize::kWords);
  te_rt_abi::encode(f, d.data());
  te_rt_mlir_quantize(d.data());
  if (device) {
    for (int i = 0; i < qt.num_buffers; ++i) {
      te_rt_mlir_read(host[i].data(), bufs[i], int64_t(host[i].size()));
      te_rt_mlir_free(bufs[i]);
    }
    te_rt_mlir_read(&amax, ap, 4);
    te_rt_mlir_free(xp);
    te_rt_mlir_free(ap);
  }
  std::vector<uint8_t> a(4);
  std::memcpy(a.data(), &amax, 4);
  host.push_back(a);
  return host;
}

TEST_F(Gpu, QuantizeOnDevicePointersMatchesCpu) {
  te_rt_quantizer q;
  te_rt_quantizer_init_default(&q); // current scaling, E4M3
  const int64_t rows = 256, cols = 384;
  std::vector<float> x(rows * cols);
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  for (float &v : x)
    v = dist(rng);

  te_rt_context *cpu = nullptr;
  ASSERT_EQ(te_rt_context_create(TE_RT_BACKEND_CPU, &cpu), TE_RT_OK);
  te_rt_set_current_context(cpu);
  auto ref = quantize(q, x, rows, cols, false);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  te_rt_set_current_context(nullptr);
  te_rt_context_destroy(cpu);

  te_rt_set_current_context(ctx);
  auto got = quantize(q, x, rows, cols, true);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  ASSERT_EQ(got.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i)
    EXPECT_TRUE(got[i] == ref[i]) << "buffer " << i << " differs";

  // Host-memory mode: the same call with host buffers, staged per call.
  ASSERT_EQ(te_rt_context_set_host_memory(ctx, 1), TE_RT_OK);
  te_rt_set_current_context(ctx);
  auto staged = quantize(q, x, rows, cols, false);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  for (size_t i = 0; i < ref.size(); ++i)
    EXPECT_TRUE(staged[i] == ref[i]) << "staged buffer " << i << " differs";
  ASSERT_EQ(te_rt_context_set_host_memory(ctx, 0), TE_RT_OK);
}

//===----------------------------------------------------------------------===//
// Kernels through the GPU host ABI
//===----------------------------------------------------------------------===//

std::vector<char> readFile(const char *path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> data((std::istreambuf_iterator<char>(f)),
                         std::istreambuf_iterator<char>());
  return data;
}

void runAxpy(void *module) {
  const int n = 1000;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = 1.0f;
  }
  void *dx = deviceCopy(x.data(), n * 4), *dy = deviceCopy(y.data(), n * 4);
  const char *name = "te_test_axpy";
  int64_t before = te_rt_gpu_kernel_lookups();
  void *f = mgpuModuleGetFunction(module, name);
  ASSERT_NE(f, nullptr) << error();
  EXPECT_EQ(te_rt_gpu_kernel_lookups(), before + 1);
  float a = 2.0f;
  int nn = n;
  for (int rep = 0; rep < 3; ++rep) {
    // As compiled code does it: lookup, stream, launch, sync, destroy.
    void *g = mgpuModuleGetFunction(module, name);
    EXPECT_EQ(g, f);
    void *s = mgpuStreamCreate();
    void *params[] = {&dy, &dx, &a, &nn};
    mgpuLaunchKernel(g, (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, params, nullptr,
                     4);
    mgpuStreamSynchronize(s);
    mgpuStreamDestroy(s);
  }
  // A copy of the name (another pointer) still hits the cache.
  std::string copy = name;
  EXPECT_EQ(mgpuModuleGetFunction(module, copy.c_str()), f);
  EXPECT_EQ(te_rt_gpu_kernel_lookups(), before + 1);
  te_rt_mlir_read(out.data(), dy, n * 4);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], 1.0f + 3 * 2.0f * i) << i;
  te_rt_mlir_free(dx);
  te_rt_mlir_free(dy);
}

/// One te_rt_mlir_matmul on the current context: bf16 A [batch, M, K] (or
/// [K, M]), B [batch, K, N] (or [N, K]), C (c_dtype) initial values `c0`,
/// stored [batch, M, N] or, `interleaved`, [M, batch, N] (the heads of a
/// [B, S, H, D] tensor); `accumulate` as te_rt_mlir_matmul's; `device`:
/// operands in te_rt_mlir_alloc memory. Returns C's bytes.
std::vector<uint8_t> matmul(const std::vector<uint16_t> &a,
                            const std::vector<uint16_t> &b,
                            const std::vector<uint8_t> &c0, int32_t cType,
                            int64_t batch, int64_t M, int64_t N, int64_t K,
                            int transA, int transB, bool device,
                            int accumulate = 1, bool interleaved = false) {
  const int64_t lda = transA ? M : K, ldb = transB ? K : N;
  const int64_t ldc = interleaved ? batch * N : N, sc = interleaved ? N : M * N;
  auto place = [&](const void *p, size_t n) {
    return device ? deviceCopy(p, n) : const_cast<void *>(p);
  };
  std::vector<uint8_t> c = c0;
  void *pa = place(a.data(), a.size() * 2), *pb = place(b.data(), b.size() * 2),
       *pc = place(c.data(), c.size());
  te_rt_mlir_matmul(batch, M, N, K, pa, TE_RT_BF16, transA, lda, M * K, pb,
                    TE_RT_BF16, transB, ldb, K * N, pc, cType, ldc, sc,
                    accumulate);
  if (device) {
    te_rt_mlir_read(c.data(), pc, int64_t(c.size()));
    for (void *p : {pa, pb, pc})
      te_rt_mlir_free(p);
  }
  return c;
}

TEST_F(Gpu, MatmulOnDevicePointersMatchesCpu) {
  // cuBLASLt (fp32 products and sums, its own order; one strided-batched
  // call for the batch) against the cpu backend's sequential f32 sums:
  // within a few f32 ulps of the sum of |products| (f32 C), or one bf16
  // rounding (bf16 C). accumulate = 0 on a C of NaNs: C is not read (beta =
  // 0), so the result is finite and the cpu's; C's batches interleaved with
  // its rows, one call all the same.
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto bf16 = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  };
  struct Variant {
    int64_t batch;
    int accumulate;
    bool interleaved;
  } variants[] = {{2, 1, false}, {6, 0, false}, {5, 1, true}, {3, 0, true}};
  for (const Variant &v : variants)
    for (int32_t cType : {TE_RT_F32, TE_RT_BF16})
      for (int t = 0; t < 4; ++t) {
        const int transA = t & 1, transB = t >> 1;
        SCOPED_TRACE("batch " + std::to_string(v.batch) + " accumulate " +
                     std::to_string(v.accumulate) + " interleaved " +
                     std::to_string(v.interleaved) + " c " +
                     std::to_string(cType) + " trans " + std::to_string(t));
        const int64_t batch = v.batch, M = 96, N = 80, K = 272;
        std::vector<uint16_t> a(batch * M * K), b(batch * K * N);
        for (auto &x : a)
          x = bf16(normal(rng));
        for (auto &x : b)
          x = bf16(normal(rng));
        const size_t elem = cType == TE_RT_F32 ? 4 : 2;
        std::vector<uint8_t> c0(batch * M * N * elem);
        for (size_t i = 0; i < c0.size() / elem; ++i) {
          float x = v.accumulate ? normal(rng) : std::nanf("");
          if (elem == 4) {
            std::memcpy(&c0[i * 4], &x, 4);
          } else {
            uint16_t h = v.accumulate ? bf16(x) : uint16_t(0x7FC0);
            std::memcpy(&c0[i * 2], &h, 2);
          }
        }
        te_rt_context *cpu = nullptr;
        ASSERT_EQ(te_rt_context_create(TE_RT_BACKEND_CPU, &cpu), TE_RT_OK);
        te_rt_set_current_context(cpu);
        std::vector<uint8_t> ref =
            matmul(a, b, c0, cType, batch, M, N, K, transA, transB, false,
                   v.accumulate, v.interleaved);
        ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
        te_rt_set_current_context(nullptr);
        te_rt_context_destroy(cpu);
        te_rt_set_current_context(ctx);
        std::vector<uint8_t> got =
            matmul(a, b, c0, cType, batch, M, N, K, transA, transB, true,
                   v.accumulate, v.interleaved);
        ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
        auto value = [&](const std::vector<uint8_t> &x, size_t i) {
          if (elem == 4) {
            float f;
            std::memcpy(&f, &x[i * 4], 4);
            return f;
          }
          uint32_t u = uint32_t(x[i * 2] | (x[i * 2 + 1] << 8)) << 16;
          float f;
          std::memcpy(&f, &u, 4);
          return f;
        };
        int64_t bad = 0;
        for (size_t i = 0; i < ref.size() / elem; ++i) {
          float r = value(ref, i), g = value(got, i);
          float tol = elem == 4 ? 1e-4f * (1.0f + std::fabs(r))
                                : 1.6e-2f * (1.0f + std::fabs(r));
          if (!std::isfinite(r) || !(std::fabs(r - g) <= tol))
            ++bad;
        }
        EXPECT_EQ(bad, 0);
      }
}

TEST_F(Gpu, FatbinKernelThroughMgpu) {
  std::vector<char> blob = readFile(TE_TEST_FATBIN);
  ASSERT_FALSE(blob.empty());
  void *m = mgpuModuleLoad(blob.data(), int64_t(blob.size()));
  runAxpy(m);
  mgpuModuleUnload(m);
}

TEST_F(Gpu, PtxKernelThroughMgpuJit) {
  std::vector<char> ptx = readFile(TE_TEST_PTX);
  ASSERT_FALSE(ptx.empty());
  ptx.push_back(0);
  void *m = mgpuModuleLoadJIT(ptx.data(), 2);
  runAxpy(m);
  mgpuModuleUnload(m);
}

TEST_F(Gpu, ClusterLaunchAndDynamicSharedMemory) {
  std::vector<char> blob = readFile(TE_TEST_FATBIN);
  void *m = mgpuModuleLoad(blob.data(), int64_t(blob.size()));
  void *f = mgpuModuleGetFunction(m, "te_test_cluster_rank");
  ASSERT_NE(f, nullptr) << error();
  void *dOut = te_rt_mlir_alloc(8 * 4, 0), *dSmem = te_rt_mlir_alloc(8 * 4, 0);
  void *params[] = {&dOut, &dSmem};
  const int32_t smem = 100 << 10; // above the 48 KiB default
  mgpuLaunchClusterKernel(f, 2, 1, 1, 8, 1, 1, 32, 1, 1, smem, nullptr, params,
                          nullptr);
  std::vector<int> rank(8), bytes(8);
  te_rt_mlir_read(rank.data(), dOut, 32);
  te_rt_mlir_read(bytes.data(), dSmem, 32);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(rank[i], i % 2);
    EXPECT_EQ(bytes[i], smem);
  }
  te_rt_mlir_free(dOut);
  te_rt_mlir_free(dSmem);
  mgpuModuleUnload(m);
}

TEST_F(Gpu, LaunchErrorsAreStickyWithTheKernelName) {
  std::vector<char> blob = readFile(TE_TEST_FATBIN);
  void *m = mgpuModuleLoad(blob.data(), int64_t(blob.size()));
  EXPECT_EQ(mgpuModuleGetFunction(m, "no_such_kernel"), nullptr);
  EXPECT_EQ(te_rt_current_status(), TE_RT_CUDA_ERROR);
  EXPECT_NE(error().find("gpu.launch_func @no_such_kernel"), std::string::npos)
      << error();
  te_rt_set_current_context(ctx);
  void *f = mgpuModuleGetFunction(m, "te_test_axpy");
  ASSERT_NE(f, nullptr) << error();
  void *dy = te_rt_mlir_alloc(4, 0);
  float a = 1;
  int n = 1;
  void *params[] = {&dy, &dy, &a, &n};
  mgpuLaunchKernel(f, 1, 1, 1, 4096, 1, 1, 0, nullptr, params, nullptr, 4);
  EXPECT_EQ(te_rt_current_status(), TE_RT_CUDA_ERROR);
  EXPECT_NE(error().find("gpu.launch_func @te_test_axpy: cannot launch the "
                         "kernel: cudaError"),
            std::string::npos)
      << error();
  std::string first = error();
  mgpuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr, 4);
  EXPECT_EQ(error(), first);
  te_rt_mlir_free(dy);
  te_rt_set_current_context(ctx);
  // In host-memory mode a GPU module cannot run.
  te_rt_context_set_host_memory(ctx, 1);
  mgpuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr, 4);
  EXPECT_NE(error().find("host-memory mode"), std::string::npos) << error();
  te_rt_context_set_host_memory(ctx, 0);
  mgpuModuleUnload(m);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(Gpu, MemoryFunctionsAndEvents) {
  void *d = mgpuMemAlloc(64 * 4, nullptr, false);
  ASSERT_NE(d, nullptr) << error();
  EXPECT_TRUE(isDevicePointer(d));
  mgpuMemset32(d, 0x3f800000u, 32, nullptr); // 1.0f
  mgpuMemset16(static_cast<char *>(d) + 128, 0x1234, 64, nullptr);
  void *e = mgpuEventCreate();
  ASSERT_NE(e, nullptr) << error();
  mgpuEventRecord(e, nullptr);
  mgpuStreamWaitEvent(nullptr, e);
  mgpuEventSynchronize(e);
  mgpuEventDestroy(e);
  std::vector<uint32_t> out(64);
  void *m = mgpuMemAlloc(64 * 4, nullptr, true); // managed
  ASSERT_NE(m, nullptr) << error();
  mgpuMemcpy(m, d, 64 * 4, nullptr);
  te_rt_mlir_read(out.data(), m, 64 * 4);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  for (int i = 0; i < 32; ++i)
    ASSERT_EQ(out[i], 0x3f800000u);
  for (int i = 32; i < 64; ++i)
    ASSERT_EQ(out[i], 0x12341234u);
  std::vector<float> host(16, 1.0f);
  struct {
    float *allocated, *aligned;
    int64_t offset, sizes[1], strides[1];
  } memref = {host.data(), host.data(), 0, {16}, {1}};
  mgpuMemHostRegisterMemRef(1, &memref, 4);
  mgpuMemHostUnregisterMemRef(1, &memref, 4);
  mgpuSetDefaultDevice(0);
  mgpuMemFree(m, nullptr);
  mgpuMemFree(d, nullptr);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK) << error();
}

//===----------------------------------------------------------------------===//
// Emulated GEMM operands (te_rt_mlir_gemm_operand)
//===----------------------------------------------------------------------===//

/// A quantized tensor on the device, both usages, from x [rows, cols].
struct DeviceQTensor {
  te_rt_quantizer q;
  int64_t rows = 0, cols = 0;
  int n = 0;
  void *bufs[TE_RT_ABI_MAX_BUFFERS] = {};
};

DeviceQTensor quantizeOnDevice(const te_rt_quantizer &q, int64_t rows,
                               int64_t cols, unsigned seed) {
  DeviceQTensor t;
  t.q = q;
  t.rows = rows;
  t.cols = cols;
  te_rt_qtensor qt;
  int64_t shape[2] = {rows, cols};
  EXPECT_EQ(te_rt_qtensor_init(&qt, &q, 2, shape, TE_RT_ROWWISE_AND_COLUMNWISE,
                               TE_RT_SM90),
            TE_RT_OK);
  t.n = qt.num_buffers;
  for (int i = 0; i < t.n; ++i)
    t.bufs[i] = te_rt_mlir_alloc(qt.buffers[i].size_bytes, 0);
  // bf16 input (NVFP4's RHT takes bf16 only): the top halves of floats.
  std::vector<uint16_t> x(size_t(rows * cols));
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 2.0f);
  for (uint16_t &v : x) {
    float f = dist(rng);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    v = uint16_t(bits >> 16);
  }
  void *xp = deviceCopy(x.data(), x.size() * 2);
  te_rt_abi::quantize::Fields f{};
  f.quantizer = q;
  f.target = TE_RT_SM90;
  f.usage = TE_RT_ROWWISE_AND_COLUMNWISE;
  f.rows = rows;
  f.cols = cols;
  f.x_dtype = TE_RT_BF16;
  f.x = xp;
  std::copy(std::begin(t.bufs), std::end(t.bufs), f.bufs);
  std::vector<int64_t> d(te_rt_abi::quantize::kWords);
  te_rt_abi::encode(f, d.data());
  te_rt_mlir_quantize(d.data());
  te_rt_mlir_free(xp);
  return t;
}

/// te_rt_mlir_gemm_operand of t's copy `reads` into a new device buffer.
void *emulatedOperand(const DeviceQTensor &t, te_rt_usage reads) {
  void *out = te_rt_mlir_alloc(t.rows * t.cols * 2, 0);
  te_rt_abi::gemm_operand::Fields f{};
  f.target = TE_RT_SM90;
  f.quantizer = t.q;
  f.usage = TE_RT_ROWWISE_AND_COLUMNWISE;
  f.reads = reads;
  f.rows = t.rows;
  f.cols = t.cols;
  std::copy(std::begin(t.bufs), std::end(t.bufs), f.bufs);
  f.out = out;
  std::vector<int64_t> d(te_rt_abi::gemm_operand::kWords);
  te_rt_abi::encode(f, d.data());
  te_rt_mlir_gemm_operand(d.data());
  return out;
}

/// D [m, n] f32 of te_rt_mlir_gemm, read back.
std::vector<uint32_t> gemm(const DeviceQTensor &a, const DeviceQTensor &b,
                           int layout, int64_t m, int64_t n, void *aEmulated,
                           void *bEmulated) {
  void *d = te_rt_mlir_alloc(m * n * 4, 0);
  te_rt_abi::gemm::Fields f{};
  f.target = TE_RT_SM90;
  f.layout = layout;
  f.a_quantizer = a.q;
  f.a_usage = TE_RT_ROWWISE_AND_COLUMNWISE;
  f.a_rows = a.rows;
  f.a_cols = a.cols;
  std::copy(std::begin(a.bufs), std::end(a.bufs), f.a_bufs);
  f.b_quantizer = b.q;
  f.b_usage = TE_RT_ROWWISE_AND_COLUMNWISE;
  f.b_rows = b.rows;
  f.b_cols = b.cols;
  std::copy(std::begin(b.bufs), std::end(b.bufs), f.b_bufs);
  f.d_dtype = TE_RT_F32;
  f.d_rows = m;
  f.d_cols = n;
  f.d = d;
  f.bias_dtype = TE_RT_F32;
  f.out_quantizer = a.q;
  f.a_emulated = aEmulated;
  f.b_emulated = bEmulated;
  std::vector<int64_t> w(te_rt_abi::gemm::kWords);
  te_rt_abi::encode(f, w.data());
  te_rt_mlir_gemm(w.data());
  std::vector<uint32_t> out(size_t(m * n));
  te_rt_mlir_read(out.data(), d, m * n * 4);
  te_rt_mlir_free(d);
  return out;
}

// A GEMM given its operands' emulated bf16 operands computes exactly what it
// computes when it dequantizes them itself, for every layout of MXFP8 and
// NVFP4 (with the RHT that wgrad cancels), one operand given or both.
TEST_F(Gpu, EmulatedOperandsGiveTheSameGemm) {
  const int64_t M = 64, N = 96, K = 128;
  te_rt_quantizer mx, nv;
  te_rt_quantizer_init_default(&mx);
  mx.recipe = TE_RT_RECIPE_MXFP8;
  te_rt_quantizer_init_default(&nv);
  nv.recipe = TE_RT_RECIPE_NVFP4;
  nv.dtype = TE_RT_E2M1X2;
  nv.rht = 1;
  nv.rht_sign_mask = 0xD7E8;
  struct Case {
    const char *name;
    te_rt_quantizer q;
    int layout; // te_rt_gemm_layout
    int64_t aRows, aCols, bRows, bCols;
    te_rt_usage aReads, bReads;
  } cases[] = {
      {"MXFP8 TN", mx, TE_RT_GEMM_TN, N, K, M, K, TE_RT_ROWWISE, TE_RT_ROWWISE},
      {"MXFP8 NN", mx, TE_RT_GEMM_NN, K, N, M, K, TE_RT_COLUMNWISE,
       TE_RT_ROWWISE},
      {"MXFP8 NT", mx, TE_RT_GEMM_NT, K, N, K, M, TE_RT_COLUMNWISE,
       TE_RT_COLUMNWISE},
      {"NVFP4 TN", nv, TE_RT_GEMM_TN, N, K, M, K, TE_RT_ROWWISE, TE_RT_ROWWISE},
      {"NVFP4 NT (RHT cancels)", nv, TE_RT_GEMM_NT, K, N, K, M,
       TE_RT_COLUMNWISE, TE_RT_COLUMNWISE},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    DeviceQTensor a = quantizeOnDevice(c.q, c.aRows, c.aCols, 1);
    DeviceQTensor b = quantizeOnDevice(c.q, c.bRows, c.bCols, 2);
    ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
    std::vector<uint32_t> ref = gemm(a, b, c.layout, M, N, nullptr, nullptr);
    ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
    void *ae = emulatedOperand(a, c.aReads);
    void *be = emulatedOperand(b, c.bReads);
    ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
    EXPECT_EQ(gemm(a, b, c.layout, M, N, ae, be), ref);
    EXPECT_EQ(gemm(a, b, c.layout, M, N, ae, nullptr), ref);
    EXPECT_EQ(gemm(a, b, c.layout, M, N, nullptr, be), ref);
    ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
    for (void *p : {ae, be})
      te_rt_mlir_free(p);
    for (DeviceQTensor *t : {&a, &b})
      for (int i = 0; i < t->n; ++i)
        te_rt_mlir_free(t->bufs[i]);
  }
  // NN reads A's RHT copy without B's to cancel it: an fp32 emulation, which
  // takes no bf16 operands.
  DeviceQTensor a = quantizeOnDevice(nv, K, N, 1);
  DeviceQTensor b = quantizeOnDevice(nv, M, K, 2);
  void *ae = emulatedOperand(a, TE_RT_COLUMNWISE);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK) << error();
  gemm(a, b, TE_RT_GEMM_NN, M, N, ae, nullptr);
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_NE(error().find("emulated operands are only for a GEMM emulated in "
                         "bf16"),
            std::string::npos)
      << error();
  te_rt_set_current_context(ctx);
  te_rt_mlir_free(ae);
  for (DeviceQTensor *t : {&a, &b})
    for (int i = 0; i < t->n; ++i)
      te_rt_mlir_free(t->bufs[i]);
}

} // namespace
