//===- Fp8Oracle.h - The GEMM tests' independent FP8 oracle -----*- C++ -*-===//
//
// Part of te. Test support, shared by test/unit/Runtime and
// test/unit/RuntimeCuda.
//
// The value of an OCP FP8 code written out from the bit layout (sign,
// exponent with bias 7 / 15, 3 / 2 mantissa bits, subnormals at exponent 0),
// independently of te::format's codecs: the GEMM tests compare the runtime,
// which decodes with te::format, against float64 sums of these values.
//
//===----------------------------------------------------------------------===//

#ifndef TE_TEST_UNIT_SUPPORT_FP8ORACLE_H
#define TE_TEST_UNIT_SUPPORT_FP8ORACLE_H

#include <cmath>
#include <cstdint>
#include <random>

namespace te::test {

/// The value of a finite E4M3 (`e5m2` false) or E5M2 code.
inline double fp8Value(uint8_t c, bool e5m2) {
  const int mbits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  const int e = (c & 0x7F) >> mbits, m = c & ((1 << mbits) - 1);
  double v = e == 0 ? std::ldexp(static_cast<double>(m), 1 - bias - mbits)
                    : std::ldexp(1.0 + std::ldexp(double(m), -mbits), e - bias);
  return (c & 0x80) ? -v : v;
}

/// A random finite FP8 code (no NaN / inf codes).
inline uint8_t randomCode(std::mt19937 &rng, bool e5m2) {
  for (;;) {
    uint8_t c = static_cast<uint8_t>(rng() & 0xFF);
    if (e5m2 ? (c & 0x7C) != 0x7C : (c & 0x7F) != 0x7F)
      return c;
  }
}

} // namespace te::test

#endif // TE_TEST_UNIT_SUPPORT_FP8ORACLE_H
