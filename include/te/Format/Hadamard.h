//===- Hadamard.h - NVFP4 16-point random Hadamard transform ----*- C++ -*-===//
//
// Part of te. Dependency-free C++17; also compiles as CUDA (nvcc -x cu).
//
//===----------------------------------------------------------------------===//
//
// The RHT of TE's NVFP4 recipe (docs/formats.md §3.5, §11): each 16-element
// chunk v (taken along M of the columnwise [K, M] view) becomes
//   v'_j = 0.25 * sum_i v_i * s_i * H_ij,  H_ij = (-1)^popcount(i & j),
// s_i = -1 iff bit i of the sign mask is set (TE's default mask 0xD7E8), and
// v' is rounded to bf16 once.
//
// Exactness: the inputs are bf16 values (8-bit significands), so every term
// +-0.25*v_i is exact and the terms are summed in double. The double sum is
// exact whenever the non-zero terms of a chunk span less than 2^38 in
// magnitude (16 terms of 8 bits need 8 + 4 + 38 < 53 bits) -- every chunk of
// realistic data. Only then is the sum of a chunk mixing, e.g., 1e30 and 1e-10
// rounded twice (to double, then to bf16). The double result is rounded
// straight to bf16 (doubleToBF16), never through float. This is the
// definition all implementations agree on (§11); fp32 accumulation would not
// be exact once the terms span more than 2^12.
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_HADAMARD_H
#define TE_FORMAT_HADAMARD_H

#include "te/Format/Codecs.h"
#include "te/Format/HostDevice.h"
#include "te/Format/Types.h"

#include <cstdint>

namespace te::format {

/// H_ij of the 16x16 Sylvester Hadamard matrix: +1 or -1.
TE_HD inline int hadamardEntry(int i, int j) {
  unsigned v = static_cast<unsigned>(i & j);
  int parity = 0;
  while (v) {
    parity ^= 1;
    v &= v - 1;
  }
  return parity ? -1 : 1;
}

/// s_i of a sign mask: -1 if bit i is set, else +1.
TE_HD inline int rhtSign(uint32_t signMask, int i) {
  return ((signMask >> i) & 1u) ? -1 : 1;
}

/// Entry (i, j) of TE's RHT matrix diag(s) * H16 * 0.25 (exact in bf16).
TE_HD inline float rhtMatrixEntry(uint32_t signMask, int i, int j) {
  return 0.25f * static_cast<float>(rhtSign(signMask, i) * hadamardEntry(i, j));
}

/// Transforms one 16-element chunk. `in` holds bf16 values (as floats; other
/// floats are used as they are); `outBF16[j]` receives the bf16 bits of v'_j.
TE_HD inline void rht16(const float *in, uint32_t signMask, uint16_t *outBF16) {
  for (int j = 0; j < kRHTSize; ++j) {
    double sum = 0.0;
    for (int i = 0; i < kRHTSize; ++i) {
      double t = 0.25 * static_cast<double>(in[i]);
      sum += (rhtSign(signMask, i) * hadamardEntry(i, j) > 0) ? t : -t;
    }
    outBF16[j] = doubleToBF16(sum);
  }
}

/// As rht16, returning the bf16 values as floats.
TE_HD inline void rht16(const float *in, uint32_t signMask, float *out) {
  uint16_t bits[kRHTSize];
  rht16(in, signMask, bits);
  for (int j = 0; j < kRHTSize; ++j)
    out[j] = bf16ToFloat(bits[j]);
}

} // namespace te::format

#endif // TE_FORMAT_HADAMARD_H
