//===- HostDevice.h - Host/device portability helpers -----------*- C++ -*-===//
//
// Part of te. Dependency-free C++17; also compiles as CUDA (nvcc -x cu).
//
//===----------------------------------------------------------------------===//
//
// TE_HD marks the scalar numerics of the Format library as callable from both
// host code and CUDA device code, so that the CPU runtime and the CUDA kernels
// run the very same rounding code. Headers that use it include no <string>,
// <vector> or exceptions, and no standard math function that CUDA lacks.
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_HOSTDEVICE_H
#define TE_FORMAT_HOSTDEVICE_H

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define TE_HD __host__ __device__
#else
#define TE_HD
#endif

namespace te::format {

/// The IEEE-754 bits of a float.
TE_HD inline uint32_t bitsOf(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
#endif
}

/// The float with IEEE-754 bits `u`.
TE_HD inline float floatOf(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
#endif
}

/// The IEEE-754 bits of a double.
TE_HD inline uint64_t bitsOfDouble(double d) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(d));
#else
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
#endif
}

/// Bit tests that do not depend on <cmath> or on fast-math flags.
TE_HD inline bool isNaNBits(float f) {
  return (bitsOf(f) & 0x7FFFFFFFu) > 0x7F800000u;
}
TE_HD inline bool isInfBits(float f) {
  return (bitsOf(f) & 0x7FFFFFFFu) == 0x7F800000u;
}
TE_HD inline bool isFiniteBits(float f) {
  return (bitsOf(f) & 0x7F800000u) != 0x7F800000u;
}

/// fminf / fmaxf semantics (IEEE minNum / maxNum: a NaN operand is ignored),
/// identical on host and device.
TE_HD inline float fminNum(float a, float b) {
  if (isNaNBits(a))
    return b;
  if (isNaNBits(b))
    return a;
  return b < a ? b : a;
}
TE_HD inline float fmaxNum(float a, float b) {
  if (isNaNBits(a))
    return b;
  if (isNaNBits(b))
    return a;
  return b > a ? b : a;
}

/// The largest finite float (FLT_MAX) and 2^k as exact floats.
inline constexpr float kFloatMax = 3.40282346638528859811704183484516925e+38f;

/// 2^k for -149 <= k <= 127, exactly (0 below, +inf above).
TE_HD inline float exp2i(int k) {
  if (k > 127)
    return floatOf(0x7F800000u);
  if (k >= -126)
    return floatOf(static_cast<uint32_t>(k + 127) << 23);
  if (k >= -149)
    return floatOf(1u << (k + 149));
  return 0.0f;
}

} // namespace te::format

#endif // TE_FORMAT_HOSTDEVICE_H
