//===- ScaleRulesTest.cpp - Scale factors of every recipe
//------------------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The §3 edge cases, worked out by hand (expected values are literals), and
// sweeps against oracles stated with exact arithmetic.
//
//===----------------------------------------------------------------------===//

#include "te/Format/ScaleRules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

using namespace te::format;

namespace {

float f32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint32_t bits32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

//===----------------------------------------------------------------------===//
// compute_scale_from_amax
//===----------------------------------------------------------------------===//

TEST(ScaleRules, CurrentScalingEdgeCases) {
  // Degenerate amaxes give scale 1.
  EXPECT_EQ(computeScaleFromAmax(0.0f, 448, false, 0, FLT_MAX), 1.0f);
  EXPECT_EQ(computeScaleFromAmax(INFINITY, 448, false, 0, FLT_MAX), 1.0f);
  EXPECT_EQ(computeScaleFromAmax(NAN, 448, false, 0, FLT_MAX), 1.0f);
  // A NaN amax passes the epsilon clamp (NaN < eps is false): still 1.
  EXPECT_EQ(computeScaleFromAmax(NAN, 448, false, 0.5f, FLT_MAX), 1.0f);
  // Plain division.
  EXPECT_EQ(computeScaleFromAmax(2.0f, 448, false, 0, FLT_MAX), 224.0f);
  EXPECT_EQ(computeScaleFromAmax(7.0f, 448, false, 0, FLT_MAX), 64.0f);
  EXPECT_EQ(computeScaleFromAmax(5.0f, 448, false, 0, FLT_MAX), 89.6f);
  EXPECT_EQ(computeScaleFromAmax(57344.0f, 57344, false, 0, FLT_MAX), 1.0f);
  // Power of two: truncate the mantissa (round down).
  EXPECT_EQ(computeScaleFromAmax(2.0f, 448, true, 0, FLT_MAX), 128.0f);
  EXPECT_EQ(computeScaleFromAmax(5.0f, 448, true, 0, FLT_MAX), 64.0f);
  EXPECT_EQ(computeScaleFromAmax(0.875f, 448, true, 0, FLT_MAX), 512.0f);
  EXPECT_EQ(computeScaleFromAmax(3000.0f, 448, true, 0, FLT_MAX), 0.125f);
  // Epsilon clamps small amaxes (and 0: 0 < eps).
  EXPECT_EQ(computeScaleFromAmax(0.001f, 448, false, 0.5f, FLT_MAX), 896.0f);
  EXPECT_EQ(computeScaleFromAmax(0.0f, 448, false, 0.5f, FLT_MAX), 896.0f);
  EXPECT_EQ(computeScaleFromAmax(0.0f, 448, true, 0.5f, FLT_MAX), 512.0f);
  // An amax so small that the scale overflows: value_for_inf.
  float tiny = f32(0x00000001); // 2^-149
  EXPECT_EQ(computeScaleFromAmax(tiny, 448, false, 0, FLT_MAX), FLT_MAX);
  EXPECT_EQ(computeScaleFromAmax(tiny, 448, false, 0, 65504.0f), 65504.0f);
  // ... and with pow2 the FLT_MAX is truncated to 2^127.
  EXPECT_EQ(computeScaleFromAmax(tiny, 448, true, 0, FLT_MAX), 0x1p127f);
  EXPECT_EQ(computeScaleFromAmax(tiny, 448, true, 0, 0x1.FEp127f), 0x1p127f);
  // Huge but finite scale stays.
  EXPECT_EQ(computeScaleFromAmax(0x1p-100f, 448, false, 0, FLT_MAX),
            448.0f * 0x1p100f);
  // 448 / 2^-120 = 1.75 * 2^128 overflows: value_for_inf.
  EXPECT_EQ(computeScaleFromAmax(0x1p-120f, 448, false, 0, FLT_MAX), FLT_MAX);
}

TEST(ScaleRules, ReciprocalAndValueForInf) {
  EXPECT_EQ(reciprocalRN(224.0f), static_cast<float>(1.0 / 224.0));
  EXPECT_EQ(reciprocalRN(64.0f), 0.015625f);
  EXPECT_EQ(reciprocalRN(89.6f), static_cast<float>(1.0 / double(89.6f)));
  EXPECT_EQ(bits32(valueForInfBlock(DType::BF16)), 0x7F7F0000u);
  EXPECT_EQ(valueForInfBlock(DType::BF16), 0x1.FEp127f);
  EXPECT_EQ(valueForInfBlock(DType::F16), 65504.0f);
  EXPECT_EQ(valueForInfBlock(DType::F32), FLT_MAX);
}

//===----------------------------------------------------------------------===//
// Delayed scaling
//===----------------------------------------------------------------------===//

TEST(ScaleRules, DelayedUpdateHandWorked) {
  // history[0] = 5 is the amax of the step that just ended.
  float h[4] = {5, 1, 7, 2};
  float scale = 1.0f, scaleInv = 0.0f;
  float amax =
      delayedScalingUpdate(h, 4, &scale, &scaleInv, AmaxAlgo::Max, 0, 448);
  // Rolled: [0, old[2], old[3], last] = [0, 7, 2, 5].
  EXPECT_EQ(h[0], 0.0f);
  EXPECT_EQ(h[1], 7.0f);
  EXPECT_EQ(h[2], 2.0f);
  EXPECT_EQ(h[3], 5.0f);
  EXPECT_EQ(amax, 7.0f); // max(1, 7, 2, 5)
  EXPECT_EQ(scale, 64.0f);
  EXPECT_EQ(scaleInv, 0.015625f);
  // Second step: the new amax 3 is written into history[0].
  h[0] = 3;
  amax = delayedScalingUpdate(h, 4, &scale, nullptr, AmaxAlgo::Max, 0, 448);
  // [0, 2, 5, 3]; amax = max(7, 2, 5, 3) = 7.
  EXPECT_EQ(h[1], 2.0f);
  EXPECT_EQ(h[2], 5.0f);
  EXPECT_EQ(h[3], 3.0f);
  EXPECT_EQ(amax, 7.0f);

  float m[4] = {5, 1, 7, 2};
  scale = 1.0f;
  amax =
      delayedScalingUpdate(m, 4, &scale, nullptr, AmaxAlgo::MostRecent, 0, 448);
  EXPECT_EQ(amax, 5.0f);
  EXPECT_EQ(scale, 89.6f);
  EXPECT_EQ(m[3], 5.0f);

  // Margin 2: scaled max = 448 / 4 = 112.
  float g[2] = {7, 0};
  scale = 1.0f;
  delayedScalingUpdate(g, 2, &scale, nullptr, AmaxAlgo::Max, 2, 448);
  EXPECT_EQ(scale, 16.0f);
  // E5M2 max.
  float e[1] = {57344};
  scale = 1.0f;
  delayedScalingUpdate(e, 1, &scale, nullptr, AmaxAlgo::Max, 0, 57344);
  EXPECT_EQ(scale, 1.0f);
  EXPECT_EQ(e[0], 0.0f); // L = 1: new[0] = 0
}

TEST(ScaleRules, DelayedUpdateKeepsScale) {
  float z[3] = {0, 0, 0};
  float scale = 3.0f;
  delayedScalingUpdate(z, 3, &scale, nullptr, AmaxAlgo::Max, 0, 448);
  EXPECT_EQ(scale, 3.0f); // amax 0: keep
  float inf[2] = {INFINITY, 1};
  scale = 3.0f;
  delayedScalingUpdate(inf, 2, &scale, nullptr, AmaxAlgo::Max, 0, 448);
  EXPECT_EQ(scale, 3.0f); // amax inf: keep
  float nan[2] = {NAN, 0};
  scale = 3.0f;
  delayedScalingUpdate(nan, 2, &scale, nullptr, AmaxAlgo::MostRecent, 0, 448);
  EXPECT_EQ(scale, 3.0f); // amax NaN: keep
  float nanMax[3] = {NAN, 2, 0};
  scale = 3.0f;
  delayedScalingUpdate(nanMax, 3, &scale, nullptr, AmaxAlgo::Max, 0, 448);
  EXPECT_EQ(scale, 224.0f); // maxNum ignores the NaN: amax 2
  float tiny[1] = {f32(1)};
  scale = 3.0f;
  delayedScalingUpdate(tiny, 1, &scale, nullptr, AmaxAlgo::Max, 0, 448);
  EXPECT_EQ(scale, FLT_MAX); // 448 / 2^-149 = inf -> FLT_MAX
  EXPECT_EQ(delayedScalingScale(7.0f, 1.0f, 448, 1), 32.0f);
}

//===----------------------------------------------------------------------===//
// MXFP8
//===----------------------------------------------------------------------===//

/// TE's rule stated exactly: the smallest e with fp8Max * 2^(e-127) >= amax
/// (so amax * 2^(127-e) <= fp8Max), capped at 254; 0 gives 0.
int mxUpOracle(float amax, double fp8max) {
  for (int e = 0; e <= 254; ++e)
    if (fp8max * std::ldexp(1.0, e - 127) >= amax)
      return e;
  return 254;
}
/// OCP: floor(log2(amax)) - emax + 127, clamped.
int mxFloorOracle(float amax, int emax) {
  if (amax == 0)
    return 0;
  int ex;
  std::frexp(static_cast<double>(amax), &ex); // amax = f * 2^ex, f in [.5,1)
  int code = (ex - 1) - emax + 127;
  return code < 0 ? 0 : code > 254 ? 254 : code;
}

TEST(ScaleRules, MXFP8ScaleHandWorked) {
  EXPECT_EQ(mxfp8ScaleFromAmax(448.0f, DType::E4M3, E8M0Rounding::Up), 127);
  EXPECT_EQ(mxfp8ScaleFromAmax(449.0f, DType::E4M3, E8M0Rounding::Up), 128);
  EXPECT_EQ(mxfp8ScaleFromAmax(896.0f, DType::E4M3, E8M0Rounding::Up), 128);
  EXPECT_EQ(mxfp8ScaleFromAmax(868.0f, DType::E4M3, E8M0Rounding::Up), 128);
  EXPECT_EQ(mxfp8ScaleFromAmax(1.0f, DType::E4M3, E8M0Rounding::Up), 119);
  EXPECT_EQ(mxfp8ScaleFromAmax(0.0f, DType::E4M3, E8M0Rounding::Up), 0);
  EXPECT_EQ(mxfp8ScaleFromAmax(57344.0f, DType::E5M2, E8M0Rounding::Up), 127);
  EXPECT_EQ(mxfp8ScaleFromAmax(INFINITY, DType::E4M3, E8M0Rounding::Up), 0xFE);
  EXPECT_EQ(mxfp8ScaleFromAmax(NAN, DType::E4M3, E8M0Rounding::Up), 0xFF);
  EXPECT_EQ(mxfp8ScaleFromAmax(448.0f, DType::E4M3, E8M0Rounding::Floor), 127);
  EXPECT_EQ(mxfp8ScaleFromAmax(511.0f, DType::E4M3, E8M0Rounding::Floor), 127);
  EXPECT_EQ(mxfp8ScaleFromAmax(512.0f, DType::E4M3, E8M0Rounding::Floor), 128);
  EXPECT_EQ(mxfp8ScaleFromAmax(1.0f, DType::E4M3, E8M0Rounding::Floor), 119);
  EXPECT_EQ(mxfp8ScaleFromAmax(1.0f, DType::E5M2, E8M0Rounding::Floor), 112);
  EXPECT_EQ(mxfp8ScaleFromAmax(0.0f, DType::E4M3, E8M0Rounding::Floor), 0);
  EXPECT_EQ(mxfp8ScaleFromAmax(f32(1), DType::E4M3, E8M0Rounding::Floor), 0);
  EXPECT_EQ(mxfp8ScaleFromAmax(FLT_MAX, DType::E4M3, E8M0Rounding::Floor), 246);
  EXPECT_EQ(mxfp8ScaleFromAmax(INFINITY, DType::E4M3, E8M0Rounding::Floor),
            0xFE);
  EXPECT_EQ(mxfp8ScaleFromAmax(NAN, DType::E4M3, E8M0Rounding::Floor), 0xFF);
  EXPECT_EQ(mxfp8ElementFactor(128), 0.5f);
  EXPECT_EQ(fp8MaxExponent(DType::E4M3), 8);
  EXPECT_EQ(fp8MaxExponent(DType::E5M2), 15);
}

TEST(ScaleRules, MXFP8ScaleSweep) {
  // docs/formats.md §11: multiplying by fl(1/max) gives the same byte as the
  // exact division for every finite amax >= 0.
  int mismatches = 0;
  for (uint64_t u = 0; u < 0x7F800000ull; u += 9973) {
    float a = f32(static_cast<uint32_t>(u));
    mismatches += mxfp8ScaleFromAmax(a, DType::E4M3, E8M0Rounding::Up) !=
                  mxUpOracle(a, 448.0);
    mismatches += mxfp8ScaleFromAmax(a, DType::E5M2, E8M0Rounding::Up) !=
                  mxUpOracle(a, 57344.0);
    mismatches += mxfp8ScaleFromAmax(a, DType::E4M3, E8M0Rounding::Floor) !=
                  mxFloorOracle(a, 8);
    mismatches += mxfp8ScaleFromAmax(a, DType::E5M2, E8M0Rounding::Floor) !=
                  mxFloorOracle(a, 15);
  }
  EXPECT_EQ(mismatches, 0);
}

//===----------------------------------------------------------------------===//
// NVFP4
//===----------------------------------------------------------------------===//

TEST(ScaleRules, NVFP4GlobalScale) {
  EXPECT_EQ(nvfp4GlobalEncodeScale(2688.0f, 448), 1.0f); // 448 * 6 / 2688
  EXPECT_EQ(nvfp4GlobalEncodeScale(6.0f, 448), 448.0f);
  EXPECT_EQ(nvfp4GlobalEncodeScale(1536.0f, 256), 1.0f);
  EXPECT_EQ(nvfp4GlobalEncodeScale(6.0f, 256), 256.0f);
  EXPECT_EQ(nvfp4GlobalEncodeScale(0.0f, 448), 1.0f);      // amax 0 -> 1
  EXPECT_EQ(nvfp4GlobalEncodeScale(INFINITY, 448), 1.0f);  // S_enc 0 -> 1
  EXPECT_EQ(nvfp4GlobalEncodeScale(NAN, 448), FLT_MAX);    // fminf drops NaN
  EXPECT_EQ(nvfp4GlobalEncodeScale(f32(1), 448), FLT_MAX); // inf -> FLT_MAX
  EXPECT_EQ(nvfp4GlobalDecodeScale(448.0f), static_cast<float>(1.0 / 448.0));
}

// The NVFP4 global scale behind a call the optimizer cannot look through,
// with e4m3Max known inside: the context in which g++ 13.3 -O2 folded the
// earlier spelling (`s = fminf(c / amax, FLT_MAX); if (amax == 0 || s == 0)`)
// to 1 for every amax that overflows c / amax (ScaleRules.h says why).
#if defined(__GNUC__)
#define TE_TEST_NOINLINE __attribute__((noinline))
#else
#define TE_TEST_NOINLINE
#endif
TE_TEST_NOINLINE float globalScale448(float amax) {
  return nvfp4GlobalEncodeScale(amax, 448.0f);
}
TE_TEST_NOINLINE float globalScaleAny(float amax, float e4m3Max) {
  return nvfp4GlobalEncodeScale(amax, e4m3Max);
}

// docs/formats.md §3.5 in double: the float quotient is the double quotient
// rounded to float (double rounding is innocuous for a quotient of floats,
// 53 >= 2 * 24 + 2), then fminf(., FLT_MAX) and the two "-> 1" cases.
float globalScaleOracle(float amax, float e4m3Max) {
  if (std::isnan(amax))
    return FLT_MAX; // q is NaN; fminf(NaN, FLT_MAX) = FLT_MAX
  double q = static_cast<double>(e4m3Max * 6.0f) / static_cast<double>(amax);
  double s = std::fmin(static_cast<double>(static_cast<float>(q)), FLT_MAX);
  if (static_cast<double>(amax) == 0.0 || s == 0.0)
    return 1.0f;
  return static_cast<float>(s);
}

TEST(ScaleRules, NVFP4GlobalScaleOverflowingQuotient) {
  // 2688 / amax overflows for amax < 2688 / FLT_MAX ~ 7.9e-36: S_enc = FLT_MAX.
  for (uint32_t b : {0x00000001u, 0x002B99B4u, 0x00800000u, 0x03000000u,
                     0x0A27C4F8u}) { // ..., 4.004e-39, FLT_MIN, 3.8e-37, 8e-33
    float a = f32(b);
    float expected = 2688.0 / a > FLT_MAX ? FLT_MAX : 2688.0f / a;
    EXPECT_EQ(bits32(globalScale448(a)), bits32(expected)) << std::hex << b;
    EXPECT_EQ(bits32(globalScaleAny(a, 448.0f)), bits32(expected)) << b;
  }
  EXPECT_EQ(globalScale448(f32(0x002B99B4u)), FLT_MAX); // the H200 host's case
  EXPECT_EQ(globalScale448(-0.0f), 1.0f);
  EXPECT_EQ(globalScale448(-INFINITY), 1.0f);    // S_enc = -0 -> 1
  EXPECT_EQ(globalScale448(-1e-37f), -INFINITY); // fminf keeps -inf
  EXPECT_EQ(globalScale448(-2688.0f), -1.0f);
}

TEST(ScaleRules, NVFP4GlobalScaleAllFloats) {
  // Every float amax (NaNs, infinities, zeros, subnormals, negatives) against
  // the double oracle for e4m3Max 448 (through the non-inlined call), and
  // every 16th for 256 (e4m3Max unknown to the optimizer).
  unsigned n = std::max(1u, std::thread::hardware_concurrency());
  std::vector<uint64_t> mismatches(n, 0);
  std::vector<uint32_t> firstBad(n, 0);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      uint64_t bad = 0;
      for (uint64_t u = t; u < (1ull << 32); u += n) {
        float a = f32(static_cast<uint32_t>(u));
        bool ok =
            bits32(globalScale448(a)) == bits32(globalScaleOracle(a, 448.0f));
        if (u % 16 == 0) // every 16th bit pattern for 256 (time)
          ok = ok && bits32(globalScaleAny(a, 256.0f)) ==
                         bits32(globalScaleOracle(a, 256.0f));
        if (!ok && bad++ == 0)
          firstBad[t] = static_cast<uint32_t>(u);
      }
      mismatches[t] = bad;
    });
  for (auto &th : threads)
    th.join();
  for (unsigned t = 0; t < n; ++t)
    EXPECT_EQ(mismatches[t], 0u)
        << "first at amax bits 0x" << std::hex << firstBad[t];
}

TEST(ScaleRules, NVFP4BlockScaleAndFactor) {
  // S_enc = 1: the block scale is e4m3(amax * fl(1/6)).
  EXPECT_EQ(nvfp4BlockScaleCode(6.0f, 1.0f), 0x38); // 1.0
  EXPECT_EQ(nvfp4BlockScaleCode(3.0f, 1.0f), 0x30); // 0.5
  EXPECT_EQ(nvfp4BlockScaleCode(4.0f, 1.0f), 0x33); // 0.667 -> 0.6875
  EXPECT_EQ(nvfp4BlockScaleCode(0.0f, 1.0f), 0x00);
  // The tensor amax block maps to 448 exactly: amax 6 with S_enc 448.
  EXPECT_EQ(nvfp4BlockScaleCode(6.0f, 448.0f), 0x7E);
  // Overflowing products clamp to FLT_MAX, then saturate to 448.
  EXPECT_EQ(nvfp4BlockScaleCode(FLT_MAX, FLT_MAX), 0x7E);
  // Element factor 1 / (S_dec_b * S_dec).
  EXPECT_EQ(nvfp4ElementFactor(0x38, 1.0f), 1.0f);
  EXPECT_EQ(nvfp4ElementFactor(0x30, 1.0f), 2.0f);
  EXPECT_EQ(nvfp4ElementFactor(0x30, 0.25f), 8.0f);
  EXPECT_EQ(nvfp4ElementFactor(0x33, 1.0f), static_cast<float>(1.0 / 0.6875));
  EXPECT_EQ(nvfp4ElementFactor(0x00, 1.0f), FLT_MAX); // all-zero block
  // Dequantization (TE: the constant 1/(6*448) is computed in double).
  const float inv2688 = static_cast<float>(1.0 / (6.0 * 448.0));
  EXPECT_EQ(nvfp4DequantFactor(0x30, 10.0f, 448.0f), (0.5f * 10.0f) * inv2688);
  EXPECT_EQ(nvfp4DequantFactor(0x00, 10.0f, 448.0f), 0.0f);
}

} // namespace
