//===- GpuProducerTest.cpp - Quantizations of producer programs, cuda -----===//
//
// Part of te. te_rt_mlir_quantize_produced on the cuda backend against the
// cpu backend (ProducerTest.cpp checks the cpu backend against the oracle),
// for every program of ProducerPrograms.h, every recipe and odd shapes:
//   - programs without transcendentals: the quantized buffers, amax and the
//     written value bit-identical to the cpu backend's;
//   - programs with transcendentals (CUDA's expf / tanhf / erff differ from
//     the C library's by an ulp or two): the value within two ulps of the
//     x dtype of the cpu backend's, and the buffers bit-identical to the
//     cuda backend's unfused quantize of that value (and to the cpu
//     backend's unfused quantize of it);
//   - the column sum within the f32 rounding of a double sum of the value.
// Also the entry point's staging in host-memory mode.
//
//===----------------------------------------------------------------------===//

#include "ProducerPrograms.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace producer_test;

namespace {

struct Contexts : ::testing::Test {
  te_rt_context *cpu = nullptr, *gpu = nullptr;
  void SetUp() override {
    if (!te_rt_backend_available(TE_RT_BACKEND_CUDA))
      GTEST_SKIP() << "no usable GPU";
    ASSERT_EQ(te_rt_context_create(TE_RT_BACKEND_CPU, &cpu), TE_RT_OK);
    ASSERT_EQ(te_rt_context_create(TE_RT_BACKEND_CUDA, &gpu), TE_RT_OK)
        << te_rt_last_error();
  }
  void TearDown() override {
    hostBuffers() = false;
    if (gpu)
      te_rt_context_destroy(gpu);
    if (cpu)
      te_rt_context_destroy(cpu);
  }
};

const Recipe &recipeNamed(const char *name) {
  static const std::vector<Recipe> all = allRecipes();
  for (const Recipe &r : all)
    if (r.name == name)
      return r;
  ADD_FAILURE() << "no recipe " << name;
  return all[0];
}

/// Units in the last place of x dtype t at v.
double ulpOf(double v, int32_t t) {
  const int mant = t == TE_RT_BF16 ? 7 : t == TE_RT_F16 ? 10 : 23;
  const int minExp = t == TE_RT_F16 ? -14 : -126;
  int e = v == 0 ? minExp : std::max(std::ilogb(v), minExp);
  return std::ldexp(1.0, e - mant);
}

void expectSameBuffers(const Result &got, const Result &want,
                       const char *what) {
  ASSERT_EQ(got.buffers.size(), want.buffers.size()) << what;
  for (size_t i = 0; i < want.buffers.size(); ++i)
    EXPECT_EQ(firstDiff(got.buffers[i], want.buffers[i]), -1)
        << what << ": buffer " << i;
  EXPECT_EQ(floatToBits(got.amax), floatToBits(want.amax)) << what << ": amax";
}

void checkColsum(const Program &p, int64_t R, int64_t C, const Result &r) {
  if (!p.colsum)
    return;
  std::vector<double> s = oracleColsum(p, R, C, r.value);
  for (int64_t c = 0; c < C; ++c) {
    // Double sums (in another order than the cpu backend's) rounded once.
    const double bound = std::ldexp(std::fabs(s[c]), -24) +
                         1e-12 * absColsum(p, R, C, c, r.value);
    EXPECT_LE(std::fabs(r.colsum[c] - s[c]), bound) << "colsum " << c;
  }
}

void checkOnGpu(te_rt_context *cpu, te_rt_context *gpu, ProgramMaker make,
                const Recipe &rc, int64_t R, int64_t C, te_rt_usage usage,
                uint32_t seed) {
  std::mt19937 rng(seed);
  Program p = make(rng, R, C);
  SCOPED_TRACE(p.name + " " + rc.name + " " + std::to_string(R) + "x" +
               std::to_string(C) + " usage " + std::to_string(usage));
  if (rc.q.rht && p.xDtype != TE_RT_BF16)
    return; // refused by the front end on every backend (ProducerTest.cpp)
  Result c = quantizeFused(cpu, p, rc, R, C, usage);
  Result g = quantizeFused(gpu, p, rc, R, C, usage);
  ASSERT_EQ(c.status, TE_RT_OK) << c.error;
  ASSERT_EQ(g.status, TE_RT_OK) << g.error;
  checkColsum(p, R, C, g);
  if (!p.transcendental) {
    EXPECT_EQ(firstDiff(g.value, c.value), -1) << "value_out";
    expectSameBuffers(g, c, "cuda fused vs cpu fused");
    return;
  }
  int64_t differ = 0;
  for (int64_t i = 0; i < R * C; ++i) {
    const double a = getElement(g.value, i, p.xDtype),
                 b = getElement(c.value, i, p.xDtype);
    if (a == b)
      continue;
    ++differ;
    EXPECT_LE(std::fabs(a - b),
              2 * ulpOf(std::max(std::fabs(a), std::fabs(b)), p.xDtype))
        << "value " << i << ": cuda " << a << ", cpu " << b;
  }
  EXPECT_LE(differ, R * C / 20 + 1) << "values that differ from the cpu's";
  // The quantization of the value the cuda backend computed: as its own
  // unfused quantize's, and the cpu backend's, of that value.
  Result gu = quantizeUnfused(gpu, p, rc, R, C, usage, g.value);
  Result cu = quantizeUnfused(cpu, p, rc, R, C, usage, g.value);
  ASSERT_EQ(gu.status, TE_RT_OK) << gu.error;
  ASSERT_EQ(cu.status, TE_RT_OK) << cu.error;
  expectSameBuffers(g, gu, "cuda fused vs cuda unfused");
  expectSameBuffers(g, cu, "cuda fused vs cpu unfused");
}

TEST_F(Contexts, PerTensorAndBlockRecipes) {
  const char *recipes[] = {"current_e4m3", "current_e5m2_pow2", "delayed_e4m3",
                           "block_1x128", "block_128x128"};
  const std::pair<int64_t, int64_t> shapes[] = {
      {1, 16}, {7, 48}, {257, 16}, {7, 4096}, {257, 48}, {128, 256}};
  uint32_t seed = 1;
  for (ProgramMaker make : allPrograms())
    for (const char *r : recipes)
      for (auto [R, C] : shapes)
        checkOnGpu(cpu, gpu, make, recipeNamed(r), R, C,
                   TE_RT_ROWWISE_AND_COLUMNWISE, seed++);
}

TEST_F(Contexts, MXFP8AndNVFP4) {
  const std::pair<int64_t, int64_t> shapes[] = {
      {32, 32}, {96, 64}, {288, 96}, {32, 4096}, {256, 512}};
  uint32_t seed = 200;
  for (ProgramMaker make : allPrograms())
    for (const char *r : {"mxfp8", "nvfp4", "nvfp4_rht_sr_2d"})
      for (auto [R, C] : shapes)
        checkOnGpu(cpu, gpu, make, recipeNamed(r), R, C,
                   TE_RT_ROWWISE_AND_COLUMNWISE, seed++);
}

TEST_F(Contexts, OneUsage) {
  uint32_t seed = 300;
  for (te_rt_usage u : {TE_RT_ROWWISE, TE_RT_COLUMNWISE})
    for (const char *r :
         {"current_e4m3", "delayed_e4m3", "block_1x128", "mxfp8", "nvfp4"}) {
      const Recipe &rc = recipeNamed(r);
      checkOnGpu(cpu, gpu, layerNorm, rc, rc.rowMultiple > 1 ? 64 : 7,
                 rc.colMultiple > 1 ? 64 : 48, u, seed++);
      checkOnGpu(cpu, gpu, biasGeluTanh, rc, rc.rowMultiple > 1 ? 64 : 7,
                 rc.colMultiple > 1 ? 64 : 48, u, seed++);
    }
}

TEST_F(Contexts, Large) {
  uint32_t seed = 400;
  for (ProgramMaker make : {residualAdd, layerNorm, dgeluDy})
    for (const char *r : {"current_e4m3", "block_1x128", "mxfp8"})
      checkOnGpu(cpu, gpu, make, recipeNamed(r), 1024, 2048,
                 TE_RT_ROWWISE_AND_COLUMNWISE, seed++);
}

TEST_F(Contexts, ColumnSumAccumulates) {
  const int64_t R = 600, C = 96; // more than one 256-row chunk
  std::mt19937 rng(6);
  Program p = residualAdd(rng, R, C);
  p.colsum = true;
  std::vector<float> prior(C);
  for (int64_t c = 0; c < C; ++c)
    prior[c] = 0.5f * static_cast<float>(c) - 7.0f;
  Result g = quantizeFused(gpu, p, recipeNamed("current_e4m3"), R, C,
                           TE_RT_ROWWISE, true, prior);
  ASSERT_EQ(g.status, TE_RT_OK) << g.error;
  std::vector<double> s = oracleColsum(p, R, C, g.value);
  for (int64_t c = 0; c < C; ++c) {
    const double exact = prior[c] + s[c];
    const double bound = std::ldexp(std::fabs(s[c]), -24) +
                         std::ldexp(std::fabs(exact) + std::fabs(s[c]), -24);
    EXPECT_LE(std::fabs(g.colsum[c] - exact), bound) << c;
  }
}

TEST_F(Contexts, HostMemoryMode) {
  // Compiled code for target=cpu run on the cuda backend passes host
  // buffers: the entry point stages the inputs, value_out and colsum.
  ASSERT_EQ(te_rt_context_set_host_memory(gpu, 1), TE_RT_OK);
  uint32_t seed = 500;
  for (ProgramMaker make : {residualAdd, layerNorm, dgeluDy})
    for (const char *r : {"current_e4m3", "mxfp8"}) {
      const Recipe &rc = recipeNamed(r);
      std::mt19937 rng(seed++);
      const int64_t R = 64, C = 96;
      Program p = make(rng, R, C);
      SCOPED_TRACE(p.name + " " + rc.name);
      Result c = quantizeFused(cpu, p, rc, R, C, TE_RT_ROWWISE_AND_COLUMNWISE);
      hostBuffers() = true;
      Result g = quantizeFused(gpu, p, rc, R, C, TE_RT_ROWWISE_AND_COLUMNWISE);
      hostBuffers() = false;
      ASSERT_EQ(g.status, TE_RT_OK) << g.error;
      checkColsum(p, R, C, g);
      if (!p.transcendental) {
        EXPECT_EQ(firstDiff(g.value, c.value), -1);
        expectSameBuffers(g, c, "host-memory cuda vs cpu");
      }
    }
}

} // namespace
