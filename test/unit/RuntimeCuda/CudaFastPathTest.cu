//===- CudaFastPathTest.cu - Hardware casts, bandwidth ---------*- CUDA -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// * CudaCodec.*: the element encoders of the cuda backend's bandwidth kernels
//   (runtime/cuda/Codecs.cuh: hardware cvt.rn.satfinite.{e4m3,e5m2}x2.f32
//   plus the NaN canonicalization) against the Format library's software
//   encoders (the spec's oracle), on the GPU, over all 2^32 float bit
//   patterns.
// * CudaTileEdges.*: the 128x128 tile kernels (cp.async pipe, MXFP8 tiles) on
//   bf16 and f16 inputs whose tiles are partial (M % 128, K % 128 = 32..96)
//   or many, every usage, byte for byte against the cpu backend (Format's
//   reference quantization), GPU buffers poisoned first.
// * CudaPerf.DISABLED_Bandwidth16k (run with --gtest_also_run_disabled_tests):
//   rowwise + columnwise quantize of a 16384x16384 bf16 tensor per recipe,
//   CUDA events around each te_rt_quantize, median of 20 after warm-up,
//   rotating 3 inputs, against a device-to-device copy of the input measured
//   in the same run. Bytes = input once + every output buffer once.
//   TE_PERF_QUICK=1: the FP8 recipes only, both directions only.
//
//===----------------------------------------------------------------------===//

#include "Codecs.cuh"
#include "te_rt.h"

#include "te/Format/Codecs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using namespace te::format;

bool haveDevice() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0 &&
         te_rt_backend_available(TE_RT_BACKEND_CUDA) != 0;
}

#define REQUIRE_DEVICE()                                                       \
  do {                                                                         \
    if (!haveDevice())                                                         \
      GTEST_SKIP() << "SKIP: no CUDA device";                                  \
  } while (0)

struct Mismatch {
  unsigned long long count;
  unsigned int firstBits; // smallest mismatching bit pattern
  unsigned int gotCode, wantCode;
};

/// Compares the 4-wide encoder (hardware or the kernels' selected one) with
/// Format's scalar encoder on the bit patterns 4q .. 4q+3 for every q.
template <bool Hardware>
__global__ void encoderSweepKernel(bool e5m2, Mismatch *out) {
  const uint64_t quads = uint64_t(1) << 30;
  unsigned long long local = 0;
  for (uint64_t q = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; q < quads;
       q += uint64_t(gridDim.x) * blockDim.x) {
    uint32_t b0 = static_cast<uint32_t>(q * 4);
    float f[4];
    for (int i = 0; i < 4; ++i)
      f[i] = __uint_as_float(b0 + i);
    uint32_t got =
        Hardware ? te::rt::cuda::hwEncodeFP8x4(f[0], f[1], f[2], f[3], e5m2)
                 : te::rt::cuda::encodeFP8x4(f[0], f[1], f[2], f[3], e5m2);
    for (int i = 0; i < 4; ++i) {
      uint32_t want = e5m2 ? encodeE5M2(f[i]) : encodeE4M3(f[i]);
      uint32_t g = (got >> (8 * i)) & 0xFF;
      if (g != want) {
        ++local;
        unsigned int old = atomicMin(&out->firstBits, b0 + i);
        if (old > b0 + i) { // best effort: codes of (roughly) the first one
          out->gotCode = g;
          out->wantCode = want;
        }
      }
    }
  }
  if (local)
    atomicAdd(&out->count, local);
}

template <bool Hardware> Mismatch sweep(bool e5m2) {
  Mismatch h{0, 0xFFFFFFFFu, 0, 0}, *d = nullptr;
  EXPECT_EQ(cudaMalloc(&d, sizeof(Mismatch)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, &h, sizeof(h), cudaMemcpyHostToDevice), cudaSuccess);
  encoderSweepKernel<Hardware><<<132 * 16, 256>>>(e5m2, d);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  return h;
}

void checkEncoder(bool e5m2) {
  const char *name = e5m2 ? "E5M2" : "E4M3";
  Mismatch hw = sweep<true>(e5m2);
  std::printf("[te-rt-cuda] hardware %s encoder vs Format over 2^32 floats: "
              "%llu mismatches\n",
              name, hw.count);
  EXPECT_EQ(hw.count, 0u) << name << ": first mismatch at bits 0x" << std::hex
                          << hw.firstBits << ": got 0x" << hw.gotCode
                          << ", Format 0x" << hw.wantCode;
  Mismatch used = sweep<false>(e5m2);
  EXPECT_EQ(used.count, 0u)
      << name << " (the kernels' encoder): first "
      << "mismatch at bits 0x" << std::hex << used.firstBits;
}

TEST(CudaCodec, HardwareE4M3MatchesFormatOnAllFloats) {
  REQUIRE_DEVICE();
  checkEncoder(false);
}

TEST(CudaCodec, HardwareE5M2MatchesFormatOnAllFloats) {
  REQUIRE_DEVICE();
  checkEncoder(true);
}

//===----------------------------------------------------------------------===//
// Tile kernels on edge shapes and 2-byte inputs, against the cpu backend
//===----------------------------------------------------------------------===//

/// n bf16 or f16 values: random signs, exponents over a wide range, random
/// mantissas; every 1531st element a special (inf, NaN, +-0, subnormal).
std::vector<uint16_t> edgeInput(int64_t n, bool f16, uint32_t seed) {
  std::vector<uint16_t> v(static_cast<size_t>(n));
  const uint16_t bfSpecial[] = {0x7F80, 0xFF80, 0x7FC0, 0x0000, 0x8000, 0x0001};
  const uint16_t hSpecial[] = {0x7C00, 0xFC00, 0x7E00, 0x0000, 0x8000, 0x0001};
  uint32_t h = seed * 0x9E3779B9u + 1;
  for (int64_t i = 0; i < n; ++i) {
    h ^= h << 13;
    h ^= h >> 17;
    h ^= h << 5;
    uint16_t sign = static_cast<uint16_t>((h & 1) << 15);
    if (i % 1531 == 1530) {
      v[i] = (f16 ? hSpecial : bfSpecial)[(h >> 8) % 6];
    } else if (f16) { // exponents 1..30
      v[i] = sign | static_cast<uint16_t>((1 + (h >> 1) % 30) << 10) |
             static_cast<uint16_t>((h >> 7) & 0x3FF);
    } else { // exponents 100..150
      v[i] = sign | static_cast<uint16_t>((100 + (h >> 1) % 51) << 7) |
             static_cast<uint16_t>((h >> 9) & 0x7F);
    }
  }
  return v;
}

struct EdgeCase {
  const char *name;
  te_rt_quantizer q;
};

/// Quantizes `x` (shape) with the cuda and the cpu backends, every usage,
/// and compares every buffer byte for byte (the GPU buffers are poisoned).
void checkEdge(te_rt_context *cpu, te_rt_context *gpu, const EdgeCase &ec,
               std::vector<int64_t> shape, bool f16, uint32_t seed) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<uint16_t> x = edgeInput(n, f16, seed);
  void *xg = nullptr;
  ASSERT_EQ(cudaMalloc(&xg, x.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(xg, x.data(), x.size() * 2, cudaMemcpyHostToDevice),
            cudaSuccess);
  float *dev = nullptr; // [scale, amax]
  ASSERT_EQ(cudaMalloc(&dev, 2 * sizeof(float)), cudaSuccess);
  float scaleHost = 3.25f, amaxHost = -1.0f;
  ASSERT_EQ(cudaMemcpy(dev, &scaleHost, 4, cudaMemcpyHostToDevice),
            cudaSuccess);
  te_rt_tensor tc, tg;
  std::memset(&tc, 0, sizeof(tc));
  tc.dtype = f16 ? TE_RT_F16 : TE_RT_BF16;
  tc.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    tc.shape[i] = shape[i];
  tg = tc;
  tc.data = x.data();
  tg.data = xg;
  for (te_rt_usage u :
       {TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_ROWWISE, TE_RT_COLUMNWISE}) {
    std::string where = std::string(ec.name) + (f16 ? " f16" : " bf16") +
                        " shape " + std::to_string(shape[0]) + "x" +
                        std::to_string(shape.back()) + " usage " +
                        std::to_string(u);
    SCOPED_TRACE(where);
    te_rt_qtensor qc, qg;
    ASSERT_EQ(te_rt_qtensor_alloc(cpu, &qc, &ec.q, tc.rank, shape.data(), u,
                                  TE_RT_SM90),
              TE_RT_OK)
        << te_rt_last_error();
    ASSERT_EQ(te_rt_qtensor_alloc(gpu, &qg, &ec.q, tc.rank, shape.data(), u,
                                  TE_RT_SM90),
              TE_RT_OK)
        << te_rt_last_error();
    for (int i = 0; i < qg.num_buffers; ++i)
      ASSERT_EQ(cudaMemset(qg.buffers[i].data, 0xA5, qg.buffers[i].size_bytes),
                cudaSuccess);
    te_rt_quantize_args ac, ag;
    te_rt_quantize_args_init(&ac);
    te_rt_quantize_args_init(&ag);
    if (ec.q.recipe == TE_RT_RECIPE_DELAYED) {
      ac.scale = &scaleHost;
      ag.scale = dev;
    }
    if (ec.q.recipe == TE_RT_RECIPE_DELAYED ||
        ec.q.recipe == TE_RT_RECIPE_CURRENT) {
      ac.amax = &amaxHost;
      ag.amax = dev + 1;
    }
    ASSERT_EQ(te_rt_quantize(cpu, &tc, &qc, &ac), TE_RT_OK)
        << te_rt_last_error();
    ASSERT_EQ(te_rt_quantize(gpu, &tg, &qg, &ag), TE_RT_OK)
        << te_rt_last_error();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(qc.num_buffers, qg.num_buffers);
    for (int i = 0; i < qg.num_buffers; ++i) {
      std::vector<uint8_t> got(static_cast<size_t>(qg.buffers[i].size_bytes));
      ASSERT_EQ(cudaMemcpy(got.data(), qg.buffers[i].data, got.size(),
                           cudaMemcpyDeviceToHost),
                cudaSuccess);
      const uint8_t *want = static_cast<const uint8_t *>(qc.buffers[i].data);
      size_t bad = 0, first = 0;
      for (size_t b = 0; b < got.size(); ++b)
        if (got[b] != want[b] && bad++ == 0)
          first = b;
      EXPECT_EQ(bad, 0u) << "buffer " << i << ": " << bad
                         << " bytes differ, first at " << first << ": got 0x"
                         << std::hex << int(got[first]) << ", cpu 0x"
                         << int(want[first]);
    }
    if (ec.q.recipe == TE_RT_RECIPE_DELAYED ||
        ec.q.recipe == TE_RT_RECIPE_CURRENT) {
      float amaxGot = 0;
      ASSERT_EQ(cudaMemcpy(&amaxGot, dev + 1, 4, cudaMemcpyDeviceToHost),
                cudaSuccess);
      EXPECT_EQ(std::memcmp(&amaxGot, &amaxHost, 4), 0)
          << "amax " << amaxGot << " vs cpu " << amaxHost;
    }
    te_rt_qtensor_free(cpu, &qc);
    te_rt_qtensor_free(gpu, &qg);
  }
  cudaFree(xg);
  cudaFree(dev);
}

te_rt_quantizer edgeQuantizer(te_rt_recipe r, te_rt_dtype t) {
  te_rt_quantizer q;
  te_rt_quantizer_init_default(&q);
  q.recipe = r;
  q.dtype = t;
  return q;
}

struct EdgeContexts {
  te_rt_context *cpu = nullptr, *gpu = nullptr;
  EdgeContexts() {
    EXPECT_EQ(te_rt_context_create(TE_RT_BACKEND_CPU, &cpu), TE_RT_OK);
    EXPECT_EQ(te_rt_context_create(TE_RT_BACKEND_CUDA, &gpu), TE_RT_OK);
    // TE_PERF_GENERAL: the general kernels (scripts/gpu/perf-check.sh's "general").
    if (gpu && std::getenv("TE_PERF_GENERAL"))
      EXPECT_EQ(te_rt_context_set_fast_kernels(gpu, 0), TE_RT_OK);
  }
  ~EdgeContexts() {
    te_rt_context_destroy(cpu);
    te_rt_context_destroy(gpu);
  }
};

TEST(CudaTileEdges, PerTensor) {
  REQUIRE_DEVICE();
  EdgeContexts c;
  uint32_t seed = 1;
  for (te_rt_recipe r : {TE_RT_RECIPE_DELAYED, TE_RT_RECIPE_CURRENT})
    for (te_rt_dtype t : {TE_RT_E4M3, TE_RT_E5M2}) {
      EdgeCase ec{r == TE_RT_RECIPE_DELAYED ? "delayed" : "current",
                  edgeQuantizer(r, t)};
      for (auto shape : std::vector<std::vector<int64_t>>{
               {96, 192}, {160, 320}, {384, 256}, {2, 224, 448}})
        for (bool f16 : {false, true}) {
          checkEdge(c.cpu, c.gpu, ec, shape, f16, seed++);
          if (HasFatalFailure())
            return;
        }
    }
}

TEST(CudaTileEdges, GeneralKernelsOfAContext) {
  // te_rt_context_set_fast_kernels(gpu, 0): the general kernels, for the
  // shapes the bandwidth kernels take, still the cpu backend's bytes; the
  // setting is the context's (another context keeps the bandwidth kernels,
  // also exact).
  REQUIRE_DEVICE();
  EdgeContexts c, other;
  ASSERT_EQ(te_rt_context_set_fast_kernels(c.gpu, 0), TE_RT_OK);
  EXPECT_EQ(te_rt_context_set_fast_kernels(c.gpu, 3), TE_RT_INVALID_ARGUMENT);
  uint32_t seed = 900;
  for (te_rt_recipe r : {TE_RT_RECIPE_CURRENT, TE_RT_RECIPE_MXFP8}) {
    EdgeCase ec{r == TE_RT_RECIPE_CURRENT ? "current, general kernels"
                                          : "mxfp8, general kernels",
                edgeQuantizer(r, TE_RT_E4M3)};
    for (te_rt_context *gpu : {c.gpu, other.gpu}) {
      checkEdge(c.cpu, gpu, ec, {256, 512}, false, seed++);
      if (HasFatalFailure())
        return;
    }
  }
}

TEST(CudaTileEdges, Float8Block) {
  REQUIRE_DEVICE();
  EdgeContexts c;
  uint32_t seed = 100;
  for (int dim : {1, 2})
    for (te_rt_dtype t : {TE_RT_E4M3, TE_RT_E5M2})
      for (int pow2 : {1, 0}) {
        EdgeCase ec{dim == 1 ? "block 1x128" : "block 128x128",
                    edgeQuantizer(TE_RT_RECIPE_BLOCK, t)};
        ec.q.block_dim = dim;
        ec.q.pow2_scales = pow2;
        for (auto shape :
             std::vector<std::vector<int64_t>>{{256, 384}, {640, 128}})
          for (bool f16 : {false, true}) {
            checkEdge(c.cpu, c.gpu, ec, shape, f16, seed++);
            if (HasFatalFailure())
              return;
          }
      }
}

TEST(CudaTileEdges, MXFP8) {
  REQUIRE_DEVICE();
  EdgeContexts c;
  uint32_t seed = 200;
  for (int twoD : {0, 1})
    for (te_rt_dtype t : {TE_RT_E4M3, TE_RT_E5M2})
      for (te_rt_e8m0_rounding r : {TE_RT_E8M0_UP, TE_RT_E8M0_FLOOR}) {
        EdgeCase ec{twoD ? "mxfp8 32x32" : "mxfp8 1x32",
                    edgeQuantizer(TE_RT_RECIPE_MXFP8, t)};
        ec.q.mx_2d = twoD;
        ec.q.e8m0_rounding = r;
        for (auto shape : std::vector<std::vector<int64_t>>{
                 {96, 192}, {160, 320}, {352, 256}, {128, 64}, {512, 1088}})
          for (bool f16 : {false, true}) {
            checkEdge(c.cpu, c.gpu, ec, shape, f16, seed++);
            if (HasFatalFailure())
              return;
          }
      }
}

//===----------------------------------------------------------------------===//
// Bandwidth (not a test: --gtest_also_run_disabled_tests)
//===----------------------------------------------------------------------===//

/// bf16 values of many magnitudes from a hash of the index.
__global__ void fillKernel(uint16_t *x, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 0x9E3779B1u ^ seed;
    h ^= h >> 15;
    h *= 0x85EBCA77u;
    h ^= h >> 13;
    // sign, exponent in [120, 134], random 7-bit mantissa
    uint32_t e = 120 + (h >> 8) % 15;
    x[i] =
        static_cast<uint16_t>(((h & 1) << 15) | (e << 7) | ((h >> 1) & 0x7F));
  }
}

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    cudaEventCreate(&a);
    cudaEventCreate(&b);
  }
  ~Timer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  /// Median ms of `iters` calls of f(i) after `warm` warm-up calls.
  template <typename F> double median(F f, int warm = 3, int iters = 20) {
    for (int i = 0; i < warm; ++i)
      f(i);
    std::vector<float> ms;
    for (int i = 0; i < iters; ++i) {
      cudaEventRecord(a, 0);
      f(i);
      cudaEventRecord(b, 0);
      cudaEventSynchronize(b);
      float t = 0;
      cudaEventElapsedTime(&t, a, b);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return 0.5 * (ms[iters / 2 - 1] + ms[iters / 2]);
  }
};

TEST(CudaPerf, DISABLED_Bandwidth16k) {
  REQUIRE_DEVICE();
  te_rt_context *ctx = nullptr;
  ASSERT_EQ(te_rt_context_create(TE_RT_BACKEND_CUDA, &ctx), TE_RT_OK);
  if (std::getenv("TE_PERF_GENERAL")) // scripts/gpu/perf-check.sh's "general"
    ASSERT_EQ(te_rt_context_set_fast_kernels(ctx, 0), TE_RT_OK);
  const int64_t M = 16384, K = 16384, n = M * K;
  const size_t inBytes = sizeof(uint16_t) * n;
  std::vector<int64_t> shape{M, K};
  uint16_t *x[3];
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(cudaMalloc(&x[i], inBytes), cudaSuccess);
    fillKernel<<<132 * 8, 256>>>(x[i], n, 17u + i);
  }
  void *copyDst = nullptr;
  ASSERT_EQ(cudaMalloc(&copyDst, inBytes), cudaSuccess);
  float *dev = nullptr; // [scale, amax]
  ASSERT_EQ(cudaMalloc(&dev, 2 * sizeof(float)), cudaSuccess);
  float one = 1.0f;
  cudaMemcpy(dev, &one, sizeof(float), cudaMemcpyHostToDevice);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  Timer timer;

  double copyMs = timer.median([&](int i) {
    cudaMemcpyAsync(copyDst, x[i % 3], inBytes, cudaMemcpyDeviceToDevice, 0);
  });
  const double copyGBs = 2.0 * inBytes / (copyMs * 1e6);
  std::printf("[te-rt-cuda] 16384x16384 bf16: D2D copy %.3f ms, %.0f GB/s "
              "(read + write)\n",
              copyMs, copyGBs);
  te_rt_tensor t;
  std::memset(&t, 0, sizeof(t));
  t.dtype = TE_RT_BF16;
  t.rank = 2;
  t.shape[0] = M;
  t.shape[1] = K;
  double amaxMs = timer.median([&](int i) {
    t.data = x[i % 3];
    te_rt_amax(ctx, &t, dev + 1);
  });
  std::printf("[te-rt-cuda] amax: %.3f ms, %.0f GB/s (read), %.0f%% of copy\n",
              amaxMs, inBytes / (amaxMs * 1e6),
              100.0 * inBytes / (amaxMs * 1e6) / copyGBs);

  struct R {
    const char *name;
    te_rt_quantizer q;
  };
  auto quantizer = [](te_rt_recipe r, te_rt_dtype d) {
    te_rt_quantizer q;
    te_rt_quantizer_init_default(&q);
    q.recipe = r;
    q.dtype = d;
    if (r == TE_RT_RECIPE_BLOCK)
      q.pow2_scales = 1;
    return q;
  };
  std::vector<R> rs;
  rs.push_back({"current e4m3", quantizer(TE_RT_RECIPE_CURRENT, TE_RT_E4M3)});
  rs.push_back({"delayed e4m3", quantizer(TE_RT_RECIPE_DELAYED, TE_RT_E4M3)});
  rs.push_back({"block 1x128", quantizer(TE_RT_RECIPE_BLOCK, TE_RT_E4M3)});
  R b2{"block 128x128", quantizer(TE_RT_RECIPE_BLOCK, TE_RT_E4M3)};
  b2.q.block_dim = 2;
  rs.push_back(b2);
  rs.push_back({"mxfp8 1x32", quantizer(TE_RT_RECIPE_MXFP8, TE_RT_E4M3)});
  rs.push_back({"nvfp4 1x16", quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2)});
  R rht{"nvfp4 rht", quantizer(TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2)};
  rht.q.rht = 1;
  rht.q.rht_sign_mask = 0xD7E8;
  rs.push_back(rht);
  // TE_PERF_QUICK=1: FP8 recipes only, both directions only (variant scans).
  const bool quick = std::getenv("TE_PERF_QUICK") != nullptr;
  double delayedMs = 0;
  for (R &r : rs) {
    if (quick && r.q.recipe == TE_RT_RECIPE_NVFP4)
      continue;
    te_rt_qtensor q;
    ASSERT_EQ(te_rt_qtensor_alloc(ctx, &q, &r.q, 2, shape.data(),
                                  TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90),
              TE_RT_OK)
        << te_rt_last_error();
    int64_t outBytes = 0;
    for (int i = 0; i < q.num_buffers; ++i)
      outBytes += q.buffers[i].size_bytes;
    te_rt_quantize_args args;
    te_rt_quantize_args_init(&args);
    if (r.q.recipe == TE_RT_RECIPE_DELAYED)
      args.scale = dev;
    te_rt_status st = TE_RT_OK;
    double ms = timer.median([&](int i) {
      t.data = x[i % 3];
      te_rt_status s = te_rt_quantize(ctx, &t, &q, &args);
      if (s != TE_RT_OK)
        st = s;
    });
    ASSERT_EQ(st, TE_RT_OK) << te_rt_last_error();
    double bytes = double(inBytes + outBytes);
    double gbs = bytes / (ms * 1e6);
    std::printf("[te-rt-cuda] quantize %-14s rowwise+columnwise: %.3f ms, "
                "%.0f GB/s, %.1f%% of copy\n",
                r.name, ms, gbs, 100.0 * gbs / copyGBs);
    if (r.q.recipe == TE_RT_RECIPE_DELAYED)
      delayedMs = ms;
    if (r.q.recipe == TE_RT_RECIPE_CURRENT) {
      // Two-pass floor: one read of x at copy bandwidth (amax) plus the
      // one-pass cast at copy bandwidth.
      double floorMs = (inBytes + bytes) / (copyGBs * 1e6);
      std::printf("[te-rt-cuda]   current scaling: two-pass floor %.3f ms "
                  "(copy bandwidth), measured/floor %.2f\n",
                  floorMs, ms / floorMs);
    }
    te_rt_qtensor_free(ctx, &q);
    if (r.q.recipe == TE_RT_RECIPE_NVFP4 || quick)
      continue;
    // One direction only (where the time goes).
    for (te_rt_usage u : {TE_RT_ROWWISE, TE_RT_COLUMNWISE}) {
      te_rt_qtensor q1;
      ASSERT_EQ(
          te_rt_qtensor_alloc(ctx, &q1, &r.q, 2, shape.data(), u, TE_RT_SM90),
          TE_RT_OK)
          << te_rt_last_error();
      int64_t b1 = inBytes;
      for (int i = 0; i < q1.num_buffers; ++i)
        b1 += q1.buffers[i].size_bytes;
      double ms1 = timer.median([&](int i) {
        t.data = x[i % 3];
        te_rt_status s = te_rt_quantize(ctx, &t, &q1, &args);
        if (s != TE_RT_OK)
          st = s;
      });
      ASSERT_EQ(st, TE_RT_OK) << te_rt_last_error();
      std::printf("[te-rt-cuda]   %-14s %s only: %.3f ms, %.0f GB/s, %.1f%% "
                  "of copy\n",
                  r.name, u == TE_RT_ROWWISE ? "rowwise   " : "columnwise", ms1,
                  b1 / (ms1 * 1e6), 100.0 * b1 / (ms1 * 1e6) / copyGBs);
      te_rt_qtensor_free(ctx, &q1);
    }
  }
  if (delayedMs > 0)
    std::printf("[te-rt-cuda]   amax + delayed cast (own passes) %.3f ms\n",
                amaxMs + delayedMs);
  for (int i = 0; i < 3; ++i)
    cudaFree(x[i]);
  cudaFree(copyDst);
  cudaFree(dev);
  te_rt_context_destroy(ctx);
}

/// One rowwise + columnwise quantize per FP8 recipe (and one amax) of a
/// 16384x16384 bf16 tensor, for a profiler (ncu -k ...).
TEST(CudaPerf, DISABLED_ProfileOnce) {
  REQUIRE_DEVICE();
  te_rt_context *ctx = nullptr;
  ASSERT_EQ(te_rt_context_create(TE_RT_BACKEND_CUDA, &ctx), TE_RT_OK);
  if (std::getenv("TE_PERF_GENERAL")) // scripts/gpu/perf-check.sh's "general"
    ASSERT_EQ(te_rt_context_set_fast_kernels(ctx, 0), TE_RT_OK);
  const int64_t M = 16384, K = 16384, n = M * K;
  std::vector<int64_t> shape{M, K};
  uint16_t *x = nullptr;
  ASSERT_EQ(cudaMalloc(&x, sizeof(uint16_t) * n), cudaSuccess);
  fillKernel<<<132 * 8, 256>>>(x, n, 5u);
  float *dev = nullptr; // [scale, amax]
  ASSERT_EQ(cudaMalloc(&dev, 2 * sizeof(float)), cudaSuccess);
  float one = 1.0f;
  cudaMemcpy(dev, &one, sizeof(float), cudaMemcpyHostToDevice);
  te_rt_tensor t;
  std::memset(&t, 0, sizeof(t));
  t.dtype = TE_RT_BF16;
  t.rank = 2;
  t.shape[0] = M;
  t.shape[1] = K;
  t.data = x;
  ASSERT_EQ(te_rt_amax(ctx, &t, dev + 1), TE_RT_OK);
  for (int r = 0; r < 5; ++r) {
    te_rt_quantizer qz;
    te_rt_quantizer_init_default(&qz);
    qz.recipe = r == 0   ? TE_RT_RECIPE_CURRENT
                : r == 1 ? TE_RT_RECIPE_DELAYED
                : r < 4  ? TE_RT_RECIPE_BLOCK
                         : TE_RT_RECIPE_MXFP8;
    qz.dtype = TE_RT_E4M3;
    if (r == 2 || r == 3)
      qz.pow2_scales = 1;
    if (r == 3)
      qz.block_dim = 2;
    te_rt_qtensor q;
    ASSERT_EQ(te_rt_qtensor_alloc(ctx, &q, &qz, 2, shape.data(),
                                  TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90),
              TE_RT_OK);
    te_rt_quantize_args args;
    te_rt_quantize_args_init(&args);
    if (r == 1)
      args.scale = dev;
    EXPECT_EQ(te_rt_quantize(ctx, &t, &q, &args), TE_RT_OK)
        << te_rt_last_error();
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    te_rt_qtensor_free(ctx, &q);
  }
  cudaFree(x);
  cudaFree(dev);
  te_rt_context_destroy(ctx);
}

} // namespace
