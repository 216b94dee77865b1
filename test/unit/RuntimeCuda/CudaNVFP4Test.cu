//===- CudaNVFP4Test.cu - The fused NVFP4 kernel's encoder -----*- CUDA -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// CudaNVFP4Codec.*: the E2M1 element encoder of the fused NVFP4 kernel
// (runtime/cuda/QuantizeNVFP4.h, encodeE2M1Fast, and the 8-element encodeE2M1x8
// at every position) against the Format library's encodeE2M1 (the spec's
// oracle) over all 2^32 float bit patterns on the GPU and on the host (also
// without a GPU; encodeE2M1x8 on every 61st pattern there); its RHT (rht16:
// Walsh-Hadamard butterflies where they are provably exact, else Format's
// sequential sum) against Format's rht16, on the GPU and on the host, on
// chunks of every exponent span 0..60 around the tiers' limits, at the
// smallest, middle and largest exponents, with zeros of both signs,
// cancellations, subnormals, infinities, NaNs and sums on a bf16 rounding
// boundary, for bf16, f16 and f32 values. The kernel's other values (scales,
// SR, amaxes) are checked byte for byte against the cpu backend by
// CudaQuantize.NVFP4* (CudaBackendTest.cpp), whose tiling shapes run the fused
// kernel. CudaNVFP4Perf.DISABLED_Bandwidth16k
// (--gtest_also_run_disabled_tests): the 16384x16384 bf16 NVFP4 timing.
//
//===----------------------------------------------------------------------===//

#include "QuantizeNVFP4.h"
#include "te_rt.h"

#include "te/Format/Codecs.h"
#include "te/Format/Hadamard.h"
#include "te/Format/Philox.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {

using namespace te::format;

bool haveDevice() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0 &&
         te_rt_backend_available(TE_RT_BACKEND_CUDA) != 0;
}

struct E2M1Mismatch {
  unsigned long long count;
  unsigned int firstBits;
};

__global__ void e2m1SweepKernel(E2M1Mismatch *out) {
  unsigned long long local = 0;
  for (uint64_t u = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x;
       u < (uint64_t(1) << 32); u += uint64_t(gridDim.x) * blockDim.x) {
    float f = __uint_as_float(static_cast<uint32_t>(u));
    if (te::rt::cuda::encodeE2M1Fast(f) != encodeE2M1(f)) {
      ++local;
      atomicMin(&out->firstBits, static_cast<unsigned int>(u));
    }
  }
  if (local)
    atomicAdd(&out->count, local);
}

TEST(CudaNVFP4Codec, FastE2M1MatchesFormatOnAllFloats) {
  if (!haveDevice())
    GTEST_SKIP() << "SKIP: no CUDA device";
  E2M1Mismatch h{0, 0xFFFFFFFFu}, *d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, sizeof(h)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d, &h, sizeof(h), cudaMemcpyHostToDevice), cudaSuccess);
  e2m1SweepKernel<<<132 * 16, 256>>>(d);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  std::printf("[te-rt-cuda] fused NVFP4 E2M1 encoder vs Format over 2^32 "
              "floats: %llu mismatches\n",
              h.count);
  EXPECT_EQ(h.count, 0u) << "first mismatch at bits 0x" << std::hex
                         << h.firstBits;
}

/// u rotated left by r bits: the 8 floats rotl(u, 4 i), i = 0..7, put every
/// bit pattern at every position of encodeE2M1x8 as u runs over 2^32.
__host__ __device__ inline uint32_t rotl32(uint32_t u, int r) {
  return r == 0 ? u : (u << r) | (u >> (32 - r));
}

__global__ void e2m1x8SweepKernel(E2M1Mismatch *out) {
  unsigned long long local = 0;
  for (uint64_t u = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x;
       u < (uint64_t(1) << 32); u += uint64_t(gridDim.x) * blockDim.x) {
    float y[8];
    for (int i = 0; i < 8; ++i)
      y[i] = __uint_as_float(rotl32(static_cast<uint32_t>(u), 4 * i));
    const uint32_t c = te::rt::cuda::encodeE2M1x8(y);
    for (int i = 0; i < 8; ++i)
      if (((c >> (4 * i)) & 0xFu) != encodeE2M1(y[i])) {
        ++local;
        atomicMin(&out->firstBits, __float_as_uint(y[i]));
      }
  }
  if (local)
    atomicAdd(&out->count, local);
}

TEST(CudaNVFP4Codec, FastE2M1x8MatchesFormatOnAllFloats) {
  if (!haveDevice())
    GTEST_SKIP() << "SKIP: no CUDA device";
  E2M1Mismatch h{0, 0xFFFFFFFFu}, *d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, sizeof(h)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d, &h, sizeof(h), cudaMemcpyHostToDevice), cudaSuccess);
  e2m1x8SweepKernel<<<132 * 16, 256>>>(d);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  std::printf("[te-rt-cuda] fused NVFP4 8-element E2M1 encoder vs Format over "
              "2^32 floats x 8 positions: %llu mismatches\n",
              h.count);
  EXPECT_EQ(h.count, 0u) << "first mismatch at bits 0x" << std::hex
                         << h.firstBits;
}

/// Rounds a float to `sigBits` significand bits (RNE), keeping it a value of
/// the input type the chunk models.
float roundTo(float x, int sigBits) {
  if (sigBits >= 24 || !std::isfinite(x) || x == 0.0f)
    return x;
  int e;
  std::frexp(x, &e);
  // Quantum: sigBits significant bits, but never below the type's smallest
  // subnormal (bf16 2^-133, f16 2^-24).
  int qe = std::max(e - sigBits, sigBits == 8 ? -133 : -24);
  float q = std::ldexp(1.0f, qe);
  return std::nearbyint(x / q) * q;
}

/// Chunks of 16 values of `sigBits` significand bits: chunk c has its
/// non-zero magnitudes in [2^e0, 2^(e0 + span)), span = c % 61, plus special
/// chunks (zeros, -0, cancelling pairs, tiny values, inf, NaN, sums on a bf16
/// rounding boundary decided by a term far below).
std::vector<float> rhtChunks(int sigBits, int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(1.0f, 2.0f);
  std::vector<float> v(16 * size_t(n));
  const int eLo = sigBits == 11 ? -14 : sigBits == 8 ? -140 : -149;
  const int eHi = sigBits == 11 ? 15 : 127;
  for (int c = 0; c < n; ++c) {
    float *x = v.data() + 16 * size_t(c);
    int span = c % 61;
    int e0 = std::max(eLo, std::min(eHi - span, -20 + int(rng() % 40)));
    if (c % 7 == 3)
      e0 = eLo; // subnormal / smallest values
    if (c % 7 == 5)
      e0 = eHi - span; // largest values: partial sums beyond FLT_MAX
    for (int i = 0; i < 16; ++i) {
      int e = e0 + (i == 0 ? 0 : i == 1 ? span : int(rng() % (span + 1)));
      float m = (rng() & 1) ? -unit(rng) : unit(rng);
      x[i] = roundTo(std::ldexp(m, std::min(e, eHi)), sigBits);
      if (rng() % 11 == 0)
        x[i] = (rng() & 1) ? 0.0f : -0.0f;
    }
    switch (c % 13) {
    case 5: // all zeros of both signs: the sum is +0
      for (int i = 0; i < 16; ++i)
        x[i] = (i & 1) ? -0.0f : 0.0f;
      break;
    case 6: // all -0
      for (int i = 0; i < 16; ++i)
        x[i] = -0.0f;
      break;
    case 7: // pairs that cancel in some outputs
      for (int i = 0; i < 16; i += 2)
        x[i + 1] = x[i];
      break;
    case 8:
      x[rng() % 16] = (rng() & 1) ? INFINITY : -INFINITY;
      break;
    case 9:
      x[rng() % 16] = NAN;
      break;
    case 10: { // sums on a bf16 rounding boundary: 0.25 (2^e +- 2^(e-8)) is
               // a midpoint (or a bf16 value), moved off it, or not, by a
               // term 2^12..2^40 below (or 0), which float sums lose
      const int minExp = sigBits == 11 ? -24 : sigBits == 8 ? -133 : -149;
      const int e = std::min(eHi - 4, std::max(e0, eLo + 45));
      for (int i = 0; i < 16; ++i)
        x[i] = 0.0f;
      x[0] = std::ldexp((rng() & 1) ? -1.0f : 1.0f, e);
      x[1] = std::ldexp((rng() & 1) ? -1.0f : 1.0f, e - 8);
      const int d = 12 + int(rng() % 29);
      if (rng() % 4 != 0)
        x[2 + rng() % 14] =
            std::ldexp((rng() & 1) ? -1.0f : 1.0f, std::max(e - d, minExp));
      break;
    }
    default:
      break;
    }
  }
  return v;
}

__global__ void rhtCompareKernel(const float *x, int n, uint32_t signMask,
                                 int sigBits, E2M1Mismatch *out) {
  for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < n;
       c += gridDim.x * blockDim.x) {
    float in[16], fast[16];
    uint16_t want[16];
    for (int i = 0; i < 16; ++i)
      in[i] = fast[i] = x[16 * c + i];
    rht16(in, signMask, want); // Format's
    te::rt::cuda::rht16(fast, signMask, sigBits);
    for (int j = 0; j < 16; ++j)
      if (__float_as_uint(fast[j]) != uint32_t(want[j]) << 16) {
        atomicAdd(&out->count, 1ull);
        atomicMin(&out->firstBits, static_cast<unsigned int>(c));
      }
  }
}

TEST(CudaNVFP4Codec, FastRHTMatchesFormat) {
  if (!haveDevice())
    GTEST_SKIP() << "SKIP: no CUDA device";
  const int n = 61 * 13 * 40;
  for (int sigBits : {8, 11, 24})
    for (uint32_t mask : {0xD7E8u, 0x0u, 0xFFFFu}) {
      std::vector<float> h = rhtChunks(sigBits, n, 7u * sigBits + mask);
      float *d = nullptr;
      E2M1Mismatch r{0, 0xFFFFFFFFu}, *dr = nullptr;
      ASSERT_EQ(cudaMalloc(&d, h.size() * sizeof(float)), cudaSuccess);
      ASSERT_EQ(cudaMalloc(&dr, sizeof(r)), cudaSuccess);
      cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
      cudaMemcpy(dr, &r, sizeof(r), cudaMemcpyHostToDevice);
      rhtCompareKernel<<<256, 128>>>(d, n, mask, sigBits, dr);
      EXPECT_EQ(cudaGetLastError(), cudaSuccess);
      EXPECT_EQ(cudaMemcpy(&r, dr, sizeof(r), cudaMemcpyDeviceToHost),
                cudaSuccess);
      cudaFree(d);
      cudaFree(dr);
      EXPECT_EQ(r.count, 0u)
          << "sigBits " << sigBits << " mask 0x" << std::hex << mask
          << ": first differing chunk " << std::dec << r.firstBits << " (span "
          << r.firstBits % 61 << ")";
    }
}

TEST(CudaNVFP4Codec, FastRHTMatchesFormatOnHost) {
  // The same functions compiled for the host: runs without a GPU too.
  const int n = 61 * 13 * 40;
  for (int sigBits : {8, 11, 24})
    for (uint32_t mask : {0xD7E8u, 0x0u, 0xFFFFu}) {
      std::vector<float> h = rhtChunks(sigBits, n, 7u * sigBits + mask);
      int bad = 0, first = -1;
      for (int c = 0; c < n; ++c) {
        float fast[16];
        uint16_t want[16];
        std::memcpy(fast, h.data() + 16 * c, sizeof(fast));
        rht16(h.data() + 16 * c, mask, want);
        te::rt::cuda::rht16(fast, mask, sigBits);
        for (int j = 0; j < 16; ++j) {
          uint32_t got;
          std::memcpy(&got, &fast[j], 4);
          if (got != uint32_t(want[j]) << 16 && bad++ == 0)
            first = c;
        }
      }
      EXPECT_EQ(bad, 0) << "sigBits " << sigBits << " mask 0x" << std::hex
                        << mask << std::dec << ": first differing chunk "
                        << first << " (span " << first % 61 << ")";
    }
}

TEST(CudaNVFP4Codec, FastRHTAmaxMatchesFormatOnHost) {
  // The amax pass's rht16Amax against the largest |Format rht16 result| of
  // each chunk (NaNs ignored, as the pass's fmaxf does), same chunks as above.
  const int n = 61 * 13 * 40;
  for (int sigBits : {8, 11, 24})
    for (uint32_t mask : {0xD7E8u, 0x0u, 0xFFFFu}) {
      std::vector<float> h = rhtChunks(sigBits, n, 7u * sigBits + mask);
      int bad = 0, first = -1;
      for (int c = 0; c < n; ++c) {
        uint16_t want[16];
        rht16(h.data() + 16 * c, mask, want);
        float m = 0.0f;
        for (int j = 0; j < 16; ++j)
          m = std::fmax(m, std::fabs(bf16ToFloat(want[j])));
        float got = te::rt::cuda::rht16Amax(h.data() + 16 * c, mask, sigBits);
        if (bitsOf(got) != bitsOf(m) && bad++ == 0)
          first = c;
      }
      EXPECT_EQ(bad, 0) << "sigBits " << sigBits << " mask 0x" << std::hex
                        << mask << std::dec << ": first differing chunk "
                        << first << " (span " << first % 61 << ")";
    }
}

TEST(CudaNVFP4Codec, FastE2M1MatchesFormatOnHost) {
  // Every grid point, tie and neighbour by hand, then every 257th pattern.
  const float edges[] = {0.0f, 0.25f, 0.75f, 1.25f,  1.75f,    2.5f, 3.5f,
                         5.0f, 6.0f,  0.5f,  1.0f,   1.5f,     2.0f, 3.0f,
                         4.0f, 7.0f,  1e30f, 1e-45f, INFINITY, NAN};
  for (float e : edges)
    for (float s : {1.0f, -1.0f}) {
      float v = e * s;
      for (float w : {v, std::nextafter(v, 0.0f), std::nextafter(v, 10.0f),
                      std::nextafter(v, -10.0f)})
        EXPECT_EQ(te::rt::cuda::encodeE2M1Fast(w), encodeE2M1(w)) << w;
    }
  EXPECT_EQ(te::rt::cuda::encodeE2M1Fast(0.25f), 0x0u); // tie -> 0
  EXPECT_EQ(te::rt::cuda::encodeE2M1Fast(0.75f), 0x2u); // tie -> 1.0
  EXPECT_EQ(te::rt::cuda::encodeE2M1Fast(-5.0f), 0xEu); // tie -> -4
  EXPECT_EQ(te::rt::cuda::encodeE2M1Fast(-0.0f), 0x8u); // -0 keeps its sign
  EXPECT_EQ(te::rt::cuda::encodeE2M1Fast(-NAN), 0x7u);  // NaN -> +6
  EXPECT_EQ(te::rt::cuda::encodeE2M1Fast(-1e9f), 0xFu); // saturates
}

TEST(CudaNVFP4Codec, FastE2M1MatchesFormatOnAllFloatsOnHost) {
  // The same function compiled for the host, on all 2^32 bit patterns (a
  // minute on one core; split over the host's cores).
  const unsigned n =
      std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<uint64_t> bad(n, 0);
  std::vector<uint32_t> first(n, 0);
  std::vector<std::thread> workers;
  for (unsigned w = 0; w < n; ++w)
    workers.emplace_back([w, n, &bad, &first] {
      const uint64_t lo = (uint64_t(1) << 32) * w / n,
                     hi = (uint64_t(1) << 32) * (w + 1) / n;
      for (uint64_t u = lo; u < hi; ++u) {
        uint32_t b = static_cast<uint32_t>(u);
        float f;
        std::memcpy(&f, &b, 4);
        if (te::rt::cuda::encodeE2M1Fast(f) != encodeE2M1(f) && bad[w]++ == 0)
          first[w] = b;
      }
    });
  for (std::thread &t : workers)
    t.join();
  for (unsigned w = 0; w < n; ++w)
    EXPECT_EQ(bad[w], 0u) << "first mismatch at 0x" << std::hex << first[w];
}

TEST(CudaNVFP4Codec, FastE2M1x8MatchesFormatOnHost) {
  // The edges of FastE2M1MatchesFormatOnHost at every position, then (the
  // host build of encodeE2M1x8) every 61st bit pattern at every position.
  const float edges[] = {0.0f, 0.25f, 0.75f, 1.25f,  1.75f,    2.5f, 3.5f,
                         5.0f, 6.0f,  0.5f,  1.0f,   1.5f,     2.0f, 3.0f,
                         4.0f, 7.0f,  1e30f, 1e-45f, INFINITY, NAN};
  std::vector<float> vals;
  for (float e : edges)
    for (float s : {1.0f, -1.0f}) {
      float v = e * s;
      for (float w : {v, std::nextafter(v, 0.0f), std::nextafter(v, 10.0f),
                      std::nextafter(v, -10.0f)})
        vals.push_back(w);
    }
  for (size_t n = 0; n < vals.size(); ++n) {
    float y[8];
    for (int i = 0; i < 8; ++i)
      y[i] = vals[(n + 7 * i) % vals.size()];
    const uint32_t c = te::rt::cuda::encodeE2M1x8(y);
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ((c >> (4 * i)) & 0xFu, encodeE2M1(y[i])) << y[i] << " at " << i;
  }
  uint64_t bad = 0;
  uint32_t first = 0;
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 61) {
    float y[8];
    for (int i = 0; i < 8; ++i) {
      const uint32_t b = rotl32(static_cast<uint32_t>(u), 4 * i);
      std::memcpy(&y[i], &b, 4);
    }
    const uint32_t c = te::rt::cuda::encodeE2M1x8(y);
    for (int i = 0; i < 8; ++i)
      if (((c >> (4 * i)) & 0xFu) != encodeE2M1(y[i]) && bad++ == 0)
        std::memcpy(&first, &y[i], 4);
  }
  EXPECT_EQ(bad, 0u) << "first mismatch at 0x" << std::hex << first;
}

TEST(CudaNVFP4Codec, DoubleToBF16FiniteMatchesFormatOnHost) {
  // rht16's double tier rounds its sums with doubleToBF16Finite (round to
  // odd to float, then RNE): against Format's doubleToBF16 at every bf16
  // value and every midpoint between neighbours (both signs), +-3 double
  // ulps and +-1 float ulp (+ a tail below the float's last bit) around
  // them, beyond FLT_MAX, below float's subnormals, and on random doubles.
  uint64_t checked = 0, bad = 0;
  double firstBad = 0.0;
  auto check = [&](double d) {
    ++checked;
    uint32_t got = bitsOf(te::rt::cuda::doubleToBF16Finite(d));
    if (got != uint32_t(doubleToBF16(d)) << 16 && bad++ == 0)
      firstBad = d;
  };
  auto bitsD = [](double d) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
  };
  auto fromBits = [](uint64_t b) {
    double d;
    std::memcpy(&d, &b, 8);
    return d;
  };
  for (uint32_t h = 0; h < 0x7F80u; ++h) {
    const double lo = floatOf(h << 16);
    const double hi = h + 1 == 0x7F80u ? 0x1p128 : floatOf((h + 1) << 16);
    for (double c : {lo, (lo + hi) / 2})
      for (double s : {1.0, -1.0}) {
        const uint64_t cb = bitsD(c);
        for (int k = -3; k <= 3; ++k)
          if (k >= 0 || cb >= uint64_t(-k))
            check(s * fromBits(cb + k));
        const float cf = static_cast<float>(c);
        for (float g : {std::nextafter(cf, 0.0f), std::nextafter(cf, 1e38f)}) {
          check(s * g);
          check(s * (double(g) + 0x1p-170));
        }
      }
  }
  for (double d : {0x1p128, 0x1.fffffep127, 0x1.fffffe1p127, 1e300, 0x1p-149,
                   0x1p-150, 0x1.8p-150, 0x1p-1074, 0x1p-134, 0x1.8p-134,
                   0x1.0000001p-134, 0x1p-133, 0.0}) {
    check(d);
    check(-d);
  }
  std::mt19937_64 rng(42);
  for (int i = 0; i < 5000000; ++i) {
    const uint64_t e = 1023 - 170 + rng() % 350; // float's range +- 40
    check(fromBits((rng() & 0x800FFFFFFFFFFFFFull) | (e << 52)));
  }
  EXPECT_EQ(bad, 0u) << "of " << checked << "; first at " << firstBad;
  EXPECT_EQ(bitsOf(te::rt::cuda::doubleToBF16Finite(-0.0)), 0x80000000u);
  // Just above the midpoint of 1 and 1 + 2^-7, below float's last bit.
  EXPECT_EQ(bitsOf(te::rt::cuda::doubleToBF16Finite(1.0 + 0x1p-8 + 0x1p-40)),
            0x3F810000u);
}

TEST(CudaNVFP4Codec, FastSRMatchesFormatOnHost) {
  // Both stochasticRoundE2M1 and the fast one give lo for r < 256 - f and
  // lo + 1 from there on (f = floor(256 t), t = (|v| - lo) / (hi - lo)).
  // For every float below 6 of either sign (every 61st above), f is
  // computed here in double from the grid, and the two functions must agree
  // at r = 255 - f and r = 256 - f, where Format must step (so f was its f):
  // then they agree for every r.
  const double grid[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  const unsigned n =
      std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<uint64_t> bad(n, 0);
  std::vector<uint32_t> first(n, 0);
  std::vector<std::thread> workers;
  for (unsigned w = 0; w < n; ++w)
    workers.emplace_back([&, w] {
      const uint64_t lo = (uint64_t(1) << 32) * w / n,
                     hi = (uint64_t(1) << 32) * (w + 1) / n;
      for (uint64_t u = lo; u < hi;) {
        const uint32_t b = static_cast<uint32_t>(u);
        const float v = floatOf(b);
        const double a = std::fabs(static_cast<double>(v));
        bool ok = true;
        if (a < 6.0) {
          int g = 0;
          while (grid[g + 1] <= a)
            ++g;
          const unsigned f = static_cast<unsigned>(
              std::floor(256.0 * (a - grid[g]) / (grid[g + 1] - grid[g])));
          const unsigned r0 = 255 - f, r1 = 256 - f;
          const uint8_t fmt0 = stochasticRoundE2M1(v, uint8_t(r0));
          ok = te::rt::cuda::stochasticRoundE2M1Fast(v, r0) == fmt0;
          if (f > 0) {
            const uint8_t fmt1 = stochasticRoundE2M1(v, uint8_t(r1));
            ok = ok && fmt1 == fmt0 + 1 &&
                 te::rt::cuda::stochasticRoundE2M1Fast(v, r1) == fmt1;
          }
        } else {
          for (unsigned r : {0u, 255u})
            ok = ok && te::rt::cuda::stochasticRoundE2M1Fast(v, r) ==
                           stochasticRoundE2M1(v, uint8_t(r));
        }
        if (!ok && bad[w]++ == 0)
          first[w] = b;
        u += (b & 0x7FFFFFFFu) < 0x40C00000u ? 1 : 61;
      }
    });
  for (std::thread &t : workers)
    t.join();
  for (unsigned w = 0; w < n; ++w)
    EXPECT_EQ(bad[w], 0u) << "first mismatch at 0x" << std::hex << first[w];
}

//===----------------------------------------------------------------------===//
// Bandwidth (not a test: --gtest_also_run_disabled_tests)
//===----------------------------------------------------------------------===//

__global__ void fillBF16Kernel(uint16_t *x, int64_t n, uint32_t seed) {
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

struct EventTimer {
  cudaEvent_t a, b;
  EventTimer() {
    cudaEventCreate(&a);
    cudaEventCreate(&b);
  }
  ~EventTimer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  /// Median ms of 20 calls of f(i) after 3 warm-up calls.
  template <typename F> double median(F f) {
    for (int i = 0; i < 3; ++i)
      f(i);
    std::vector<float> ms;
    for (int i = 0; i < 20; ++i) {
      cudaEventRecord(a, 0);
      f(i);
      cudaEventRecord(b, 0);
      cudaEventSynchronize(b);
      float t = 0;
      cudaEventElapsedTime(&t, a, b);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return 0.5 * (ms[9] + ms[10]);
  }
};

// NVFP4 quantize of a 16384x16384 bf16 tensor (3 rotating inputs, CUDA events
// around each te_rt_quantize, median of 20 after 3 warm-ups) against a
// device-to-device copy of the input in the same run; bytes = input once +
// every output buffer once. Also: the amax pass alone and the zeroing of the
// output buffers that te_rt_quantize does before the kernels.
TEST(CudaNVFP4Perf, DISABLED_Bandwidth16k) {
  if (!haveDevice())
    GTEST_SKIP() << "SKIP: no CUDA device";
  te_rt_context *ctx = nullptr;
  ASSERT_EQ(te_rt_context_create(TE_RT_BACKEND_CUDA, &ctx), TE_RT_OK);
  if (std::getenv("TE_PERF_GENERAL")) // scripts/gpu/perf-check.sh's "general"
    ASSERT_EQ(te_rt_context_set_fast_kernels(ctx, 0), TE_RT_OK);
  const int64_t M = 16384, K = 16384, n = M * K;
  const size_t inBytes = sizeof(uint16_t) * n;
  int64_t shape[2] = {M, K};
  uint16_t *x[3];
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(cudaMalloc(&x[i], inBytes), cudaSuccess);
    fillBF16Kernel<<<132 * 8, 256>>>(x[i], n, 29u + i);
  }
  void *copyDst = nullptr;
  float *amaxOut = nullptr;
  ASSERT_EQ(cudaMalloc(&copyDst, inBytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&amaxOut, sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EventTimer timer;
  const double copyMs = timer.median([&](int i) {
    cudaMemcpyAsync(copyDst, x[i % 3], inBytes, cudaMemcpyDeviceToDevice, 0);
  });
  const double copyGBs = 2.0 * inBytes / (copyMs * 1e6);
  std::printf("[te-rt-cuda] nvfp4 16384x16384 bf16: D2D copy %.3f ms, %.0f "
              "GB/s (read + write)\n",
              copyMs, copyGBs);
  te_rt_tensor t;
  std::memset(&t, 0, sizeof(t));
  t.dtype = TE_RT_BF16;
  t.rank = 2;
  t.shape[0] = M;
  t.shape[1] = K;
  const double amaxMs = timer.median([&](int i) {
    t.data = x[i % 3];
    te_rt_amax(ctx, &t, amaxOut);
  });
  std::printf("[te-rt-cuda] nvfp4 amax pass: %.3f ms, %.0f GB/s (read), %.0f%% "
              "of copy\n",
              amaxMs, inBytes / (amaxMs * 1e6),
              100.0 * inBytes / (amaxMs * 1e6) / copyGBs);
  struct V {
    const char *name;
    int rht, sr;
    te_rt_usage usage;
  };
  const V vs[] = {{"1x16", 0, 0, TE_RT_ROWWISE_AND_COLUMNWISE},
                  {"1x16 rowwise", 0, 0, TE_RT_ROWWISE},
                  {"1x16 columnwise", 0, 0, TE_RT_COLUMNWISE},
                  {"rht", 1, 0, TE_RT_ROWWISE_AND_COLUMNWISE},
                  {"rht columnwise", 1, 0, TE_RT_COLUMNWISE},
                  {"sr", 0, 1, TE_RT_ROWWISE_AND_COLUMNWISE},
                  {"rht+sr", 1, 1, TE_RT_ROWWISE_AND_COLUMNWISE}};
  for (const V &v : vs) {
    te_rt_quantizer qz;
    te_rt_quantizer_init_default(&qz);
    qz.recipe = TE_RT_RECIPE_NVFP4;
    qz.dtype = TE_RT_E2M1X2;
    qz.rht = v.rht;
    qz.rht_sign_mask = v.rht ? 0xD7E8 : 0;
    qz.stochastic_rounding = v.sr;
    te_rt_qtensor q;
    ASSERT_EQ(te_rt_qtensor_alloc(ctx, &q, &qz, 2, shape, v.usage, TE_RT_SM90),
              TE_RT_OK)
        << te_rt_last_error();
    int64_t outBytes = 0;
    for (int i = 0; i < q.num_buffers; ++i)
      outBytes += q.buffers[i].size_bytes;
    te_rt_quantize_args args;
    te_rt_quantize_args_init(&args);
    args.seed = 1234;
    te_rt_status st = TE_RT_OK;
    const double ms = timer.median([&](int i) {
      t.data = x[i % 3];
      te_rt_status s = te_rt_quantize(ctx, &t, &q, &args);
      if (s != TE_RT_OK)
        st = s;
    });
    ASSERT_EQ(st, TE_RT_OK) << te_rt_last_error();
    const double zeroMs = timer.median([&](int) {
      for (int i = 0; i < q.num_buffers; ++i)
        cudaMemsetAsync(q.buffers[i].data, 0, q.buffers[i].size_bytes, 0);
    });
    const double bytes = double(inBytes + outBytes);
    const double gbs = bytes / (ms * 1e6);
    // Two-pass floor: the amax pass reads x, the cast pass reads x and writes
    // every output, both at copy bandwidth.
    const double floorMs = (inBytes + bytes) / (copyGBs * 1e6);
    std::printf("[te-rt-cuda] nvfp4 %-16s %.3f ms, %.0f GB/s, %.1f%% of copy; "
                "two-pass floor %.3f ms; zeroing every output would take "
                "%.3f ms\n",
                v.name, ms, gbs, 100.0 * gbs / copyGBs, floorMs, zeroMs);
    te_rt_qtensor_free(ctx, &q);
  }
  for (int i = 0; i < 3; ++i)
    cudaFree(x[i]);
  cudaFree(copyDst);
  cudaFree(amaxOut);
  te_rt_context_destroy(ctx);
}

} // namespace
