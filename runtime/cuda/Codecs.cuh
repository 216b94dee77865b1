//===- Codecs.cuh - Element loads and FP8 casts ----------------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Element-level device code shared by the kernel files:
// * loadAsFloat / storeFromFloat / absf: element i of an F32/BF16/F16 tensor
//   whose type is a run-time value (the general kernels);
// * InKind, Storage<T>: the input type as a template argument (the
//   vectorized kernels); load8: 8 consecutive F32/BF16/F16 elements as
//   floats (one 16-byte load of bf16/f16, two of f32), converted exactly as
//   Format's bf16ToFloat / f16ToFloat do; unpackWord / unpack8 / unpack16:
//   the elements of a loaded 4-, 8- or 16-byte word; sigBits: the
//   significand width;
// * encodeFP8x4: 4 floats -> 4 E4M3/E5M2 codes packed in a word (element 0
//   in the low byte), through the hardware `cvt.rn.satfinite.{e4m3,e5m2}x2.f32`
//   (sm_89+). The hardware keeps the NaN's sign; Format's encoders (CUDA's host
//   conversion) return 0x7F for every NaN, so codes whose magnitude exceeds the
//   format's largest finite code are mapped to 0x7F afterwards. That this is
//   Format's encodeE4M3 / encodeE5M2 on all 2^32 floats is checked on the GPU
//   by test/unit/RuntimeCuda/CudaFastPathTest.cu (CudaCodec.*). Build with
//   -DTE_CUDA_SOFT_ENCODE=1 to use Format's software encoders instead.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_CODECS_CUH
#define TE_RT_CUDA_CODECS_CUH

#include "te/Format/Codecs.h"
#include "te/Format/Types.h"

#include <cstdint>

namespace te::rt::cuda {

//===----------------------------------------------------------------------===//
// Run-time element type (the general kernels)
//===----------------------------------------------------------------------===//

/// Reads element i of an F32/BF16/F16 tensor as float (exact).
__device__ __forceinline__ float loadAsFloat(const void *x, format::DType t,
                                             int64_t i) {
  switch (t) {
  case format::DType::BF16:
    return format::bf16ToFloat(static_cast<const uint16_t *>(x)[i]);
  case format::DType::F16:
    return format::f16ToFloat(static_cast<const uint16_t *>(x)[i]);
  default:
    return static_cast<const float *>(x)[i];
  }
}

__device__ __forceinline__ void storeFromFloat(void *out, format::DType t,
                                               int64_t i, float v) {
  switch (t) {
  case format::DType::BF16:
    static_cast<uint16_t *>(out)[i] = format::floatToBF16(v);
    break;
  case format::DType::F16:
    static_cast<uint16_t *>(out)[i] = format::floatToF16(v);
    break;
  default:
    static_cast<float *>(out)[i] = v;
    break;
  }
}

/// |v| by clearing the sign bit.
__device__ __forceinline__ float absf(float v) {
  return format::floatOf(format::bitsOf(v) & 0x7FFFFFFFu);
}

//===----------------------------------------------------------------------===//
// Element type as a template argument (the vectorized kernels)
//===----------------------------------------------------------------------===//

/// Input element kinds of the templated kernels.
enum class InKind { F32, BF16, F16 };

template <InKind T> struct InTraits;
template <> struct InTraits<InKind::F32> { using Storage = float; };
template <> struct InTraits<InKind::BF16> { using Storage = uint16_t; };
template <> struct InTraits<InKind::F16> { using Storage = uint16_t; };

/// The storage of one element of kind T.
template <InKind T> using Storage = typename InTraits<T>::Storage;

/// v[0..7] = p[0..7] as floats; p is 16-byte aligned.
template <InKind T>
__device__ __forceinline__ void load8(const typename InTraits<T>::Storage *p,
                                      float v[8]) {
  if constexpr (T == InKind::F32) {
    float4 a = *reinterpret_cast<const float4 *>(p);
    float4 b = *reinterpret_cast<const float4 *>(p + 4);
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w;
    v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
  } else {
    uint4 u = *reinterpret_cast<const uint4 *>(p);
    uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      if constexpr (T == InKind::BF16) {
        v[2 * i] = __uint_as_float(w[i] << 16);
        v[2 * i + 1] = __uint_as_float(w[i] & 0xFFFF0000u);
      } else {
        v[2 * i] = format::f16ToFloat(static_cast<uint16_t>(w[i] & 0xFFFFu));
        v[2 * i + 1] = format::f16ToFloat(static_cast<uint16_t>(w[i] >> 16));
      }
    }
  }
}

/// The two elements of type T in the 32-bit word w (low half first), or the
/// one f32 element.
template <InKind T>
__device__ __forceinline__ void unpackWord(uint32_t w, float *v) {
  if constexpr (T == InKind::F32) {
    v[0] = __uint_as_float(w);
  } else if constexpr (T == InKind::BF16) {
    v[0] = __uint_as_float(w << 16);
    v[1] = __uint_as_float(w & 0xFFFF0000u);
  } else {
    v[0] = format::f16ToFloat(static_cast<uint16_t>(w & 0xFFFFu));
    v[1] = format::f16ToFloat(static_cast<uint16_t>(w >> 16));
  }
}

/// The 16 / sizeof(T) elements of a 16-byte vector, in memory order.
template <InKind T>
__device__ __forceinline__ void unpack16(const uint4 &u, float *v) {
  constexpr int n = T == InKind::F32 ? 1 : 2;
  unpackWord<T>(u.x, v);
  unpackWord<T>(u.y, v + n);
  unpackWord<T>(u.z, v + 2 * n);
  unpackWord<T>(u.w, v + 3 * n);
}

/// The 8 / sizeof(T) elements of an 8-byte vector, in memory order.
template <InKind T>
__device__ __forceinline__ void unpack8(const uint2 &u, float *v) {
  constexpr int n = T == InKind::F32 ? 1 : 2;
  unpackWord<T>(u.x, v);
  unpackWord<T>(u.y, v + n);
}

/// Significand width of the input type (rht16's exactness tiers).
template <InKind T> constexpr int sigBits() {
  return T == InKind::F32 ? 24 : T == InKind::BF16 ? 8 : 11;
}

/// |v| by clearing the sign bit (as Format's blockAmax).
__device__ __forceinline__ float absBits(float v) {
  return __uint_as_float(__float_as_uint(v) & 0x7FFFFFFFu);
}

/// Format's fmaxNum for a non-NaN `a` (a running max that starts at 0):
/// the hardware max (FMNMX) returns the other operand of a NaN as fmaxNum
/// does, in one instruction.
__device__ __forceinline__ float maxNum(float a, float b) {
  return fmaxf(a, b);
}

/// Hardware encoder of 4 floats (always the cvt path; the kernels call
/// encodeFP8x4, which honors TE_CUDA_SOFT_ENCODE).
__device__ __forceinline__ uint32_t hwEncodeFP8x4(float a, float b, float c,
                                                  float d, bool e5m2) {
  uint16_t lo, hi;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  if (e5m2) {
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(lo) : "f"(b), "f"(a));
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(hi) : "f"(d), "f"(c));
  } else {
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(lo) : "f"(b), "f"(a));
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(hi) : "f"(d), "f"(c));
  }
#else
  lo = static_cast<uint16_t>(
      format::encodeFP8(a, e5m2 ? format::DType::E5M2 : format::DType::E4M3) |
      (format::encodeFP8(b, e5m2 ? format::DType::E5M2 : format::DType::E4M3)
       << 8));
  hi = static_cast<uint16_t>(
      format::encodeFP8(c, e5m2 ? format::DType::E5M2 : format::DType::E4M3) |
      (format::encodeFP8(d, e5m2 ? format::DType::E5M2 : format::DType::E4M3)
       << 8));
#endif
  uint32_t p = static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16);
  // NaN codes (magnitude above the largest finite: E4M3 0x7E, E5M2 0x7B)
  // become Format's canonical 0x7F.
  uint32_t mag = p & 0x7F7F7F7Fu;
  uint32_t nan = __vcmpgtu4(mag, e5m2 ? 0x7B7B7B7Bu : 0x7E7E7E7Eu);
  return (p & ~nan) | (0x7F7F7F7Fu & nan);
}

/// Format's encodeFP8 of 4 floats, packed (element 0 in the low byte).
__device__ __forceinline__ uint32_t encodeFP8x4(float a, float b, float c,
                                                float d, bool e5m2) {
#if TE_CUDA_SOFT_ENCODE
  format::DType t = e5m2 ? format::DType::E5M2 : format::DType::E4M3;
  return static_cast<uint32_t>(format::encodeFP8(a, t)) |
         (static_cast<uint32_t>(format::encodeFP8(b, t)) << 8) |
         (static_cast<uint32_t>(format::encodeFP8(c, t)) << 16) |
         (static_cast<uint32_t>(format::encodeFP8(d, t)) << 24);
#else
  return hwEncodeFP8x4(a, b, c, d, e5m2);
#endif
}

/// Codes of v[0..7] * factor, packed as 8 bytes (element 0 first).
__device__ __forceinline__ uint2 encodeScaled8(const float v[8], float factor,
                                               bool e5m2) {
  uint2 r;
  r.x = encodeFP8x4(v[0] * factor, v[1] * factor, v[2] * factor, v[3] * factor,
                    e5m2);
  r.y = encodeFP8x4(v[4] * factor, v[5] * factor, v[6] * factor, v[7] * factor,
                    e5m2);
  return r;
}

/// Byte `b` (0..3) of word `w` of the 8 rows r[0..7] -> 8 bytes of the
/// column, i.e. one column of an 8x8 byte block held as 8 row vectors.
template <int J> __device__ __forceinline__ uint2 column8(const uint2 r[8]) {
  constexpr int b = J % 4;
  constexpr unsigned sel = b | ((b + 4) << 4);
  auto word = [](const uint2 &v) { return J < 4 ? v.x : v.y; };
  uint32_t a01 = __byte_perm(word(r[0]), word(r[1]), sel);
  uint32_t a23 = __byte_perm(word(r[2]), word(r[3]), sel);
  uint32_t a45 = __byte_perm(word(r[4]), word(r[5]), sel);
  uint32_t a67 = __byte_perm(word(r[6]), word(r[7]), sel);
  return make_uint2(__byte_perm(a01, a23, 0x5410),
                    __byte_perm(a45, a67, 0x5410));
}

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_CODECS_CUH
