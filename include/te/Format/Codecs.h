//===- Codecs.h - Element codecs: FP8, FP4, E8M0, BF16, F16 -----*- C++ -*-===//
//
// Part of te. Dependency-free C++17; also compiles as CUDA (nvcc -x cu).
//
//===----------------------------------------------------------------------===//
//
// Bit-exact scalar conversions between float and the narrow formats of
// TransformerEngine's recipes (docs/formats.md §0, §3, §11). The encoders model
// CUDA's *satfinite* conversions, which TE's kernels use:
//
// * encodeE4M3 / encodeE5M2 = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, ..) =
//   PTX cvt.rn.satfinite.{e4m3,e5m2}x2.f32: round to nearest even; a result
//   beyond the largest finite value (and +-inf) becomes +-max (E4M3 0x7E/0xFE,
//   E5M2 0x7B/0xFB); NaN becomes 0x7F for both formats (CUDA's host code turns
//   every NaN into the canonical positive NaN first). Values that round to zero
//   keep their sign (-0 -> 0x80).
// * encodeE2M1 = cvt.rn.satfinite.e2m1x2.f32 / __nv_cvt_float_to_fp4: round to
//   nearest even on {0, 0.5, 1, 1.5, 2, 3, 4, 6}, saturate to +-6, NaN -> 0x7
//   (+6), -0 -> 0x8 (the sign is bit 3).
// * e8m0RoundUp = TE's float_to_e8m0 (= cvt.rp.satfinite.ue8m0x2.f32).
//
// Every function is TE_HD and pure.
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_CODECS_H
#define TE_FORMAT_CODECS_H

#include "te/Format/HostDevice.h"
#include "te/Format/Types.h"

#include <cstdint>

namespace te::format {

namespace detail {

/// Round-to-nearest-even right shift of `v` by `s` bits (s >= 0).
TE_HD inline uint64_t rneShiftRight(uint64_t v, int s) {
  if (s <= 0)
    return v;
  if (s >= 64)
    return 0; // v < 2^63 always here, so v / 2^s < 1/2
  uint64_t q = v >> s;
  uint64_t rem = v & ((uint64_t(1) << s) - 1);
  uint64_t half = uint64_t(1) << (s - 1);
  if (rem > half || (rem == half && (q & 1)))
    ++q;
  return q;
}

/// Magnitude code of a finite |x| (given as its significand `sig` and binary
/// exponent `e2` of the unit in its last place, value = sig * 2^e2, sig < 2^54)
/// in a binary format with `mbits` mantissa bits and minimum normal exponent
/// `emin`, rounded to nearest even, WITHOUT overflow handling: the code may
/// exceed the format's largest. The code's exponent field is
/// (code >> mbits) and 0 denotes subnormals, as in IEEE formats.
TE_HD inline uint64_t roundMagnitude(uint64_t sig, int e2, int mbits,
                                     int emin) {
  if (sig == 0)
    return 0;
  int lead; // exponent of the leading bit
#if defined(__CUDA_ARCH__)
  lead = 63 - __clzll(static_cast<long long>(sig));
#elif defined(__GNUC__) || defined(__clang__)
  lead = 63 - __builtin_clzll(sig);
#else
  for (lead = 63; !((sig >> lead) & 1);)
    --lead;
#endif
  int e = e2 + lead;
  int eq = e > emin ? e : emin;  // exponent of the result's leading position
  int shift = (eq - mbits) - e2; // quantum of the result is 2^(eq - mbits)
  uint64_t q;
  if (shift >= 0) {
    q = rneShiftRight(sig, shift);
  } else {
    q = sig << (-shift);
  }
  // q includes the implicit bit (2^mbits) for normals; a carry to 2^(mbits+1)
  // moves to the next binade with a zero mantissa, which the sum encodes.
  return (static_cast<uint64_t>(eq - emin) << mbits) + q;
}

/// Encodes a float into a small binary format with `mbits` mantissa bits, an
/// exponent bias `bias` and largest finite magnitude code `maxMag`; `nanCode`
/// for NaN, saturating overflow and +-inf to +-maxMag. `signShift` is the
/// position of the sign bit.
TE_HD inline uint32_t encodeSatFinite(float x, int mbits, int bias,
                                      uint32_t maxMag, uint32_t nanCode,
                                      int signShift) {
  uint32_t b = bitsOf(x);
  uint32_t sign = b >> 31;
  uint32_t ab = b & 0x7FFFFFFFu;
  if (ab > 0x7F800000u)
    return nanCode;
  uint32_t mag;
  if (ab == 0x7F800000u) {
    mag = maxMag;
  } else {
    int ef = static_cast<int>(ab >> 23);
    uint32_t sig = ab & 0x7FFFFFu;
    if (ef)
      sig |= 0x800000u;
    else
      ef = 1;
    uint64_t m = roundMagnitude(sig, ef - 150, mbits, 1 - bias);
    mag = m > maxMag ? maxMag : static_cast<uint32_t>(m);
  }
  return (sign << signShift) | mag;
}

/// Decodes a code of a small binary format (no specials handled here).
TE_HD inline float decodeFinite(uint32_t code, int mbits, int ebits, int bias) {
  uint32_t sign = (code >> (mbits + ebits)) & 1;
  uint32_t exp = (code >> mbits) & ((1u << ebits) - 1);
  uint32_t man = code & ((1u << mbits) - 1);
  float mag;
  if (exp == 0) // subnormal: man * 2^(1 - bias - mbits), exact
    mag = static_cast<float>(man) * exp2i(1 - bias - mbits);
  else
    mag = floatOf(((exp - bias + 127) << 23) | (man << (23 - mbits)));
  return sign ? -mag : mag;
}

} // namespace detail

//===----------------------------------------------------------------------===//
// FP8
//===----------------------------------------------------------------------===//

inline constexpr float kE4M3Max = 448.0f;
inline constexpr float kE5M2Max = 57344.0f;
inline constexpr float kE2M1Max = 6.0f;

/// float -> E4M3 (float8_e4m3fn) bits: RNE, satfinite, NaN -> 0x7F.
TE_HD inline uint8_t encodeE4M3(float x) {
  return static_cast<uint8_t>(
      detail::encodeSatFinite(x, /*mbits=*/3, /*bias=*/7, 0x7E, 0x7F, 7));
}

/// float -> E5M2 bits: RNE, satfinite (+-inf -> +-57344), NaN -> 0x7F.
TE_HD inline uint8_t encodeE5M2(float x) {
  return static_cast<uint8_t>(
      detail::encodeSatFinite(x, /*mbits=*/2, /*bias=*/15, 0x7B, 0x7F, 7));
}

/// E4M3 bits -> float (exact). 0x7F / 0xFF are NaN; there is no infinity.
TE_HD inline float decodeE4M3(uint8_t c) {
  if ((c & 0x7F) == 0x7F)
    return floatOf(0x7FC00000u);
  return detail::decodeFinite(c, 3, 4, 7);
}

/// E5M2 bits -> float (exact). Exponent 31: mantissa 0 is +-inf, else NaN.
TE_HD inline float decodeE5M2(uint8_t c) {
  if ((c & 0x7C) == 0x7C) {
    if (c & 0x3)
      return floatOf(0x7FC00000u);
    return floatOf((c & 0x80) ? 0xFF800000u : 0x7F800000u);
  }
  return detail::decodeFinite(c, 2, 5, 15);
}

/// Largest finite value of an FP8/FP4 element type (0 for other types).
TE_HD inline float fp8Max(DType t) {
  switch (t) {
  case DType::E4M3:
    return kE4M3Max;
  case DType::E5M2:
    return kE5M2Max;
  case DType::E2M1x2:
    return kE2M1Max;
  default:
    return 0.0f;
  }
}

/// Dispatchers on E4M3 / E5M2 (any other type encodes as E4M3).
TE_HD inline uint8_t encodeFP8(float x, DType t) {
  return t == DType::E5M2 ? encodeE5M2(x) : encodeE4M3(x);
}
TE_HD inline float decodeFP8(uint8_t c, DType t) {
  return t == DType::E5M2 ? decodeE5M2(c) : decodeE4M3(c);
}

//===----------------------------------------------------------------------===//
// FP4 (E2M1)
//===----------------------------------------------------------------------===//

/// float -> E2M1 nibble (bits 0-3; bit 3 is the sign): RNE on the grid
/// {0, 0.5, 1, 1.5, 2, 3, 4, 6}, saturating to +-6, NaN -> 0x7, -0 -> 0x8.
TE_HD inline uint8_t encodeE2M1(float x) {
  return static_cast<uint8_t>(
      detail::encodeSatFinite(x, /*mbits=*/1, /*bias=*/1, 0x7, 0x7, 3));
}

/// E2M1 nibble (low 4 bits of `nibble`) -> float (exact). No NaN/inf codes.
TE_HD inline float decodeE2M1(uint8_t nibble) {
  return detail::decodeFinite(nibble & 0xF, 1, 2, 1);
}

/// Packs two nibbles: element 2i in the low nibble, 2i+1 in the high one.
TE_HD inline uint8_t packE2M1x2(uint8_t even, uint8_t odd) {
  return static_cast<uint8_t>((even & 0xF) | ((odd & 0xF) << 4));
}

//===----------------------------------------------------------------------===//
// E8M0 (MXFP8 scales): value 2^(e - 127), 0xFF = NaN
//===----------------------------------------------------------------------===//

/// TE's float_to_e8m0 (round toward +inf): NaN -> 0xFF, +-inf -> 0xFE,
/// +-0 -> 0; otherwise the biased exponent bits of |x|, plus 1 if the mantissa
/// is non-zero, except that 0xFE stays 0xFE (saturate) and a subnormal with
/// mantissa <= 0x400000 stays 0 (2^-127 is code 0). The sign is ignored (TE
/// only passes non-negative amaxes).
TE_HD inline uint8_t e8m0RoundUp(float x) {
  uint32_t b = bitsOf(x) & 0x7FFFFFFFu;
  if (b > 0x7F800000u)
    return 0xFF;
  if (b == 0x7F800000u)
    return 0xFE;
  uint32_t e = b >> 23;
  uint32_t m = b & 0x7FFFFFu;
  if (m != 0 && e != 0xFE && !(e == 0 && m <= 0x400000u))
    ++e;
  return static_cast<uint8_t>(e);
}

/// floor(log2|x|) as a biased E8M0 code (round toward zero / -inf on the
/// exponent), clamped to [0, 254]: NaN -> 0xFF, +-inf -> 0xFE, +-0 -> 0, and
/// any |x| < 2^-127 (also 0) -> 0, since 2^-127 is the smallest E8M0 value.
TE_HD inline uint8_t e8m0Floor(float x) {
  uint32_t b = bitsOf(x) & 0x7FFFFFFFu;
  if (b > 0x7F800000u)
    return 0xFF;
  if (b == 0x7F800000u)
    return 0xFE;
  uint32_t e = b >> 23;
  if (e == 0) // subnormal: [2^-127, 2^-126) floors to 2^-127, less clamps to 0
    return 0;
  return static_cast<uint8_t>(e); // e is in [1, 254]
}

/// E8M0 code -> 2^(e - 127) (0xFF -> NaN). Code 0 is 2^-127 (subnormal float).
TE_HD inline float decodeE8M0(uint8_t e) {
  if (e == 0xFF)
    return floatOf(0x7FC00000u);
  if (e == 0)
    return floatOf(0x00400000u);
  return floatOf(static_cast<uint32_t>(e) << 23);
}

/// TE's exp2f_rcp: 2^(127 - e) as float bits (254 - e) << 23; e = 254 gives
/// 0x00400000 (2^-127), e = 255 gives NaN. Code 0 gives 2^127.
TE_HD inline float e8m0Reciprocal(uint8_t e) {
  if (e == 0xFF)
    return floatOf(0x7FC00000u);
  if (e == 0xFE)
    return floatOf(0x00400000u);
  return floatOf(static_cast<uint32_t>(254 - e) << 23);
}

//===----------------------------------------------------------------------===//
// BF16 / F16
//===----------------------------------------------------------------------===//

/// float -> bf16 bits, round to nearest even; overflow rounds to +-inf as in
/// IEEE; NaN stays a (quiet) NaN with its sign.
TE_HD inline uint16_t floatToBF16(float x) {
  uint32_t b = bitsOf(x);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((b >> 16) | 0x0040u);
  b += 0x7FFFu + ((b >> 16) & 1);
  return static_cast<uint16_t>(b >> 16);
}

/// bf16 bits -> float (exact).
TE_HD inline float bf16ToFloat(uint16_t h) {
  return floatOf(static_cast<uint32_t>(h) << 16);
}

/// Rounds a float to the nearest bf16 value (RNE), returned as float.
TE_HD inline float roundToBF16(float x) { return bf16ToFloat(floatToBF16(x)); }

/// double -> bf16 bits with a single rounding (RNE; overflow -> +-inf; NaN ->
/// quiet NaN). Used where an exact or double-precision sum is rounded to bf16
/// without the double rounding of double -> float -> bf16.
TE_HD inline uint16_t doubleToBF16(double x) {
  uint64_t b = bitsOfDouble(x);
  uint16_t sign = static_cast<uint16_t>((b >> 63) << 15);
  uint64_t ab = b & 0x7FFFFFFFFFFFFFFFull;
  if (ab > 0x7FF0000000000000ull)
    return static_cast<uint16_t>(sign | 0x7FC0u);
  if (ab == 0x7FF0000000000000ull)
    return static_cast<uint16_t>(sign | 0x7F80u);
  int ed = static_cast<int>(ab >> 52);
  uint64_t sig = ab & 0xFFFFFFFFFFFFFull;
  if (ed)
    sig |= 0x10000000000000ull;
  else
    ed = 1;
  uint64_t m = detail::roundMagnitude(sig, ed - 1075, 7, -126);
  if (m >= 0x7F80u)
    m = 0x7F80u; // +-inf
  return static_cast<uint16_t>(sign | m);
}

/// float -> IEEE binary16 bits, round to nearest even; overflow (|x| >= 65520)
/// and +-inf -> +-inf; NaN -> quiet NaN with its sign.
TE_HD inline uint16_t floatToF16(float x) {
  uint32_t b = bitsOf(x);
  uint16_t sign = static_cast<uint16_t>((b >> 16) & 0x8000u);
  uint32_t ab = b & 0x7FFFFFFFu;
  if (ab > 0x7F800000u)
    return static_cast<uint16_t>(sign | 0x7E00u | ((ab >> 13) & 0x3FFu));
  if (ab == 0x7F800000u)
    return static_cast<uint16_t>(sign | 0x7C00u);
  int ef = static_cast<int>(ab >> 23);
  uint32_t sig = ab & 0x7FFFFFu;
  if (ef)
    sig |= 0x800000u;
  else
    ef = 1;
  uint64_t m = detail::roundMagnitude(sig, ef - 150, 10, -14);
  if (m >= 0x7C00u)
    m = 0x7C00u;
  return static_cast<uint16_t>(sign | m);
}

/// IEEE binary16 bits -> float (exact).
TE_HD inline float f16ToFloat(uint16_t h) {
  if ((h & 0x7C00u) == 0x7C00u) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    if (h & 0x3FFu)
      return floatOf(sign | 0x7FC00000u |
                     (static_cast<uint32_t>(h & 0x3FFu) << 13));
    return floatOf(sign | 0x7F800000u);
  }
  return detail::decodeFinite(h, 10, 5, 15);
}

} // namespace te::format

#endif // TE_FORMAT_CODECS_H
