//===- ScaleRules.h - Scale factors of every recipe -------------*- C++ -*-===//
//
// Part of te. Dependency-free C++17; also compiles as CUDA (nvcc -x cu).
//
//===----------------------------------------------------------------------===//
//
// How each recipe turns an amax into a scale (docs/formats.md §3.1-3.5), in the
// exact operation order of TE's kernels (§8 "Guidance for bit-exact testing"):
// IEEE round-to-nearest division for fp8_max/amax, a multiplication by the
// reciprocal constant fl(1/fp8_max) for E8M0, block_amax*(S_enc*fl(1/6)) for
// the NVFP4 block scale, 1/(S_dec_b*S_dec) for the NVFP4 element factor.
//
// Host code must be compiled without fast-math (no -ffast-math,
// -freciprocal-math, /fp:fast); device code without --use_fast_math.
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_SCALERULES_H
#define TE_FORMAT_SCALERULES_H

#include "te/Format/Codecs.h"
#include "te/Format/HostDevice.h"
#include "te/Format/Types.h"

#include <cstdint>

namespace te::format {

//===----------------------------------------------------------------------===//
// Per-tensor and block FP8 (current scaling, Float8Block)
//===----------------------------------------------------------------------===//

/// TE's compute_scale_from_amax (common/recipe/recipe_common.cuh):
///   if (amax < eps) amax = eps;         // a NaN amax passes through
///   if (amax is inf, 0 or NaN) return 1;
///   scale = fp8Max / amax;              // IEEE RN division (__fdiv_rn)
///   if (scale is inf) scale = valueForInf;
///   if (pow2) scale_bits &= 0xFF800000; // round down to a power of two
TE_HD inline float computeScaleFromAmax(float amax, float fp8MaxValue,
                                        bool pow2, float eps,
                                        float valueForInf) {
  if (amax < eps)
    amax = eps;
  if (isInfBits(amax) || amax == 0.0f || isNaNBits(amax))
    return 1.0f;
  float scale = fp8MaxValue / amax;
  if (isInfBits(scale))
    scale = valueForInf;
  if (pow2)
    scale = floatOf(bitsOf(scale) & 0xFF800000u);
  return scale;
}

/// 1/x rounded to nearest (= CUDA __frcp_rn): the scale_inv of a scale.
TE_HD inline float reciprocalRN(float x) { return 1.0f / x; }

/// Largest finite value of a high-precision input type: TE's `value_for_inf`
/// of block scaling (docs/formats.md §3.4, §9.4): bf16 0x1.FEp127, f16 65504,
/// f32 FLT_MAX. Per-tensor current scaling always uses FLT_MAX.
TE_HD inline float valueForInfBlock(DType input) {
  switch (input) {
  case DType::BF16:
    return floatOf(0x7F7F0000u);
  case DType::F16:
    return 65504.0f;
  default:
    return kFloatMax;
  }
}

//===----------------------------------------------------------------------===//
// Delayed scaling (docs/formats.md §3.1, common/recipe/delayed_scaling.cu)
//===----------------------------------------------------------------------===//

/// The new scale of delayed scaling from the amax chosen out of the history:
/// fp8Max * 2^-margin / amax if amax is finite and > 0, else `previousScale`;
/// an infinite result becomes FLT_MAX. No pow2 rounding, no epsilon.
TE_HD inline float delayedScalingScale(float amax, float previousScale,
                                       float fp8MaxValue, int margin) {
  float scaledMax = fp8MaxValue * exp2i(-margin);
  float scale;
  if (isFiniteBits(amax) && amax > 0.0f)
    scale = scaledMax / amax;
  else
    scale = previousScale;
  if (isInfBits(scale))
    scale = kFloatMax;
  return scale;
}

/// One delayed-scaling update of one tensor (the serial equivalent of TE's
/// kernel): `history[0..L-1]` holds the amax history, history[0] being the
/// amax of the step that just ended (`last`). Rolls the history
/// (new[0] = 0, new[i] = old[i+1] for 1 <= i <= L-2, new[L-1] = last; for
/// L == 1, new[0] = 0), picks amax = max(old[1..L-1], last) (maxNum: NaN
/// entries are ignored) for AmaxAlgo::Max or `last` for MostRecent, and
/// updates `*scale` (delayedScalingScale, previous value kept when amax is not
/// finite and positive). If `scaleInv` is not null it receives
/// reciprocalRN(*scale). Returns the amax used.
TE_HD inline float delayedScalingUpdate(float *history, int L, float *scale,
                                        float *scaleInv, AmaxAlgo algo,
                                        int margin, float fp8MaxValue) {
  float last = history[0];
  float amax = 0.0f;
  for (int i = 0; i < L; ++i) {
    float a = (i < L - 1) ? history[i + 1] : last;
    amax = fmaxNum(amax, a);
    history[i] = (i > 0) ? a : 0.0f;
  }
  if (algo == AmaxAlgo::MostRecent)
    amax = last;
  *scale = delayedScalingScale(amax, *scale, fp8MaxValue, margin);
  if (scaleInv)
    *scaleInv = reciprocalRN(*scale);
  return amax;
}

//===----------------------------------------------------------------------===//
// MXFP8 (docs/formats.md §3.3)
//===----------------------------------------------------------------------===//

/// Largest unbiased exponent of a normal element value (OCP emax_elem):
/// E4M3 8, E5M2 15.
TE_HD inline int fp8MaxExponent(DType t) { return t == DType::E5M2 ? 15 : 8; }

/// The E8M0 scale code of a block with amax `blockAmax` (>= 0).
///  Up (TE): e8m0RoundUp(blockAmax * fl(1/fp8Max)), multiplying by the
///    reciprocal constant as the kernels do.
///  Floor (OCP MX v1.0): 2^(floor(log2(blockAmax)) - emax_elem), clamped to
///    [0, 254]; NaN -> 0xFF, inf -> 0xFE, 0 -> 0. Elements may then exceed
///    fp8Max and saturate.
TE_HD inline uint8_t mxfp8ScaleFromAmax(float blockAmax, DType t,
                                        E8M0Rounding rounding) {
  if (rounding == E8M0Rounding::Up) {
    const float rcp = 1.0f / fp8Max(t);
    return e8m0RoundUp(blockAmax * rcp);
  }
  uint32_t b = bitsOf(blockAmax) & 0x7FFFFFFFu;
  if (b > 0x7F800000u)
    return 0xFF;
  if (b == 0x7F800000u)
    return 0xFE;
  if (b == 0)
    return 0;
  // floor(log2) of a positive finite float, including subnormals.
  int lg;
  if (b >> 23) {
    lg = static_cast<int>(b >> 23) - 127;
  } else {
    lg = -127;
    for (uint32_t m = b; m < 0x400000u; m <<= 1)
      --lg;
  }
  int code = lg - fp8MaxExponent(t) + 127;
  if (code < 0)
    code = 0;
  if (code > 254)
    code = 254;
  return static_cast<uint8_t>(code);
}

/// The factor that multiplies every element of an MXFP8 block before the
/// cast: TE's exp2f_rcp(e) = 2^(127 - e).
TE_HD inline float mxfp8ElementFactor(uint8_t scaleCode) {
  return e8m0Reciprocal(scaleCode);
}

//===----------------------------------------------------------------------===//
// NVFP4 (docs/formats.md §3.5, common/cast/nvfp4/core_nvfp4.cuh)
//===----------------------------------------------------------------------===//

/// Global encode scale S_enc = fminf(e4m3Max * 6 / amax, FLT_MAX); if amax is
/// 0 or S_enc is 0 (amax = inf), S_enc = 1. A NaN amax gives FLT_MAX (fminf
/// ignores the NaN), as in the kernel.
///
/// Every test is made on the bits, none by a float comparison: GCC 13's value
/// range propagation inverts `q = c / amax` on the path where q is +inf
/// (`q > FLT_MAX`, taken by fminf) to amax == 0, forgetting that the division
/// also overflows for finite amax < c / FLT_MAX, and then folds a later
/// `amax == 0.0f` to true (seen with g++ 13.3 -O1/-O2/-O3: S_enc = 1 instead
/// of FLT_MAX for amax = 4.0e-39 or 1e-37; GCC 12 and nvcc are right). Same
/// values as the formula above for every float amax (ScaleRulesTest checks
/// all 2^32).
TE_HD inline float nvfp4GlobalEncodeScale(float amax, float e4m3Max) {
  if ((bitsOf(amax) & 0x7FFFFFFFu) == 0) // amax == +-0
    return 1.0f;
  float q = (e4m3Max * kE2M1Max) / amax;
  uint32_t qBits = bitsOf(q);
  if ((qBits & 0x7FFFFFFFu) == 0) // S_enc == +-0 (amax = +-inf)
    return 1.0f;
  if (qBits == 0x7F800000u || isNaNBits(q)) // fminf(+inf or NaN, FLT_MAX)
    return kFloatMax;
  return q; // finite, or -inf (fminf(-inf, FLT_MAX))
}

/// Global decode scale S_dec = 1 / S_enc (IEEE RN; TE computes 1.0/S_enc in
/// double and rounds to float, which gives the same value).
TE_HD inline float nvfp4GlobalDecodeScale(float sEnc) {
  return reciprocalRN(sEnc);
}

/// The float that nvfp4BlockScaleCode encodes:
/// fminf(blockAmax * (sEnc * fl(1/6)), FLT_MAX).
TE_HD inline float nvfp4BlockScaleValue(float blockAmax, float sEnc) {
  const float rcp6 = 1.0f / 6.0f;
  return fminNum(blockAmax * (sEnc * rcp6), kFloatMax);
}

/// The stored E4M3 block scale code S_dec_b =
/// e4m3(fminf(blockAmax * (sEnc * fl(1/6)), FLT_MAX)).
TE_HD inline uint8_t nvfp4BlockScaleCode(float blockAmax, float sEnc) {
  return encodeE4M3(nvfp4BlockScaleValue(blockAmax, sEnc));
}

/// The factor that multiplies every element of an NVFP4 block before the
/// E2M1 cast: fminf(1 / (float(S_dec_b) * sDec), FLT_MAX). An all-zero block
/// (code 0) gives FLT_MAX.
TE_HD inline float nvfp4ElementFactor(uint8_t sDecB, float sDec) {
  return fminNum(1.0f / (decodeE4M3(sDecB) * sDec), kFloatMax);
}

/// Dequantization factor of one NVFP4 block, in the order of TE's
/// dequantize_fp4_kernel: final = (float(S_dec_b) * amax) * fl(1/(6*e4m3Max));
/// then x ~= decodeE2M1(q) * final (rounded to the output type).
TE_HD inline float nvfp4DequantFactor(uint8_t sDecB, float amax,
                                      float e4m3Max) {
  const float inv = 1.0f / (kE2M1Max * e4m3Max);
  return (decodeE4M3(sDecB) * amax) * inv;
}

} // namespace te::format

#endif // TE_FORMAT_SCALERULES_H
