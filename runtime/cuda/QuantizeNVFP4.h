//===- QuantizeNVFP4.h - NVFP4 quantization ---------------------*- C++ -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Launchers of QuantizeNVFP4.cu, and the NVFP4 element routines of its
// kernels. Every pointer is a device pointer; every launcher enqueues on
// `stream` and returns the launch status (cudaGetLastError).
//
// The fused path: 1x16 rowwise and 16x1 columnwise (stored transposed,
// [K, M]) codes, E4M3 block scales, with the columnwise RHT and stochastic
// rounding, from one read of x per pass:
//   pass 1: tensor amax (launchAmax), or with the RHT launchNVFP4AmaxRHT
//           (AmaxScale.h: amax and post-RHT amax in one read);
//   pass 2: launchNVFP4QuantizeFast (x read once into a shared-memory tile,
//           both representations written from it).
// The bits are the cpu backend's: the scale math is Format's (ScaleRules.h),
// the RHT gives Format's sums (Hadamard.h), and the element routines here
// (encodeE2M1Fast, encodeE2M1x8, stochasticRoundE2M1Fast,
// doubleToBF16Finite, rht16, rht16Amax) are checked against Format's
// (test/unit/RuntimeCuda/CudaNVFP4Test.cu).
// The general path (every other NVFP4 quantizer and shape) runs as the cpu
// backend's nvfp4Quantize, on fp32 rows: launchNVFP4Quantize, and for the
// columnwise copy launchNVFP4Transpose first.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_QUANTIZENVFP4_H
#define TE_RT_CUDA_QUANTIZENVFP4_H

#include "te/Format/Codecs.h"
#include "te/Format/Types.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

namespace te::rt::cuda {

/// Tile of the fused kernel: kNVFP4TileM rows x kNVFP4TileK columns of x.
constexpr int kNVFP4TileM = 64;
constexpr int kNVFP4TileK = 128;

/// True if the fused kernels handle x [M, K] of type `t` (F32/BF16/F16,
/// 16-byte aligned, M % 64 == 0, K % 128 == 0, data buffers 16-byte aligned
/// or null) -- for NVFP4 without a row-scaled amax or 4over6 (the backend
/// adds the conditions of 2D tiles, NVFP4FusedArgs::twoD).
/// te_rt_context_set_fast_kernels(ctx, 0) turns it off.
bool nvfp4FastPath(const void *x, format::DType t, int64_t M, int64_t K,
                   const void *rowData, const void *colData);

/// One fused quantization of x [M, K]: `rowData` [M, K/2] with `rowScale`
/// (row stride rowScaleStride) from the global amax at *amax; `colData`
/// [K, M/2] with `colScale` from *amaxCol (the post-RHT amax with `rht`).
/// Either representation may be null. Stochastic rounding draws
/// philoxRandomByte(seed, rowOffset / colOffset, element index in the
/// representation), as the cpu backend. `twoD`: 16x16 tiles (every group of
/// a tile takes the tile amax's scale, Format's quantizeNVFP4Tile without
/// 4over6); bf16 x only, without RHT and stochastic rounding.
struct NVFP4FusedArgs {
  format::DType inType = format::DType::BF16;
  const void *x = nullptr;
  int64_t M = 0, K = 0;
  const float *amax = nullptr, *amaxCol = nullptr;
  uint8_t *rowData = nullptr, *rowScale = nullptr;
  int64_t rowScaleStride = 0;
  uint8_t *colData = nullptr, *colScale = nullptr;
  int64_t colScaleStride = 0;
  bool twoD = false;
  bool rht = false;
  uint32_t signMask = 0;
  bool stochasticRounding = false;
  uint64_t seed = 0, rowOffset = 0, colOffset = 0;
};
cudaError_t launchNVFP4QuantizeFast(const NVFP4FusedArgs &args,
                                    cudaStream_t stream);

/// NVFP4 quantization of the rows of a row-major fp32 [R, C] matrix (the
/// 1x16 groups run along the rows), as the cpu backend's nvfp4Quantize.
struct NVFP4Args {
  const float *src = nullptr;
  int64_t R = 0, C = 0;
  const float *rowAmax = nullptr; ///< per row (row-scaled) or null
  const float *amax = nullptr;    ///< tensor amax (device scalar) otherwise
  uint8_t *data = nullptr;        ///< [R, C/2]
  uint8_t *scales = nullptr;      ///< compact
  int64_t scaleStride = 0;
  uint64_t seed = 0, offset = 0;
  bool twoD = false, stochasticRounding = false, use4over6 = false;
  float e4m3Max = 448.0f;
  format::ErrMode errMode = format::ErrMode::MAE;
};
cudaError_t launchNVFP4Quantize(const NVFP4Args &args, cudaStream_t stream);

/// xt [K, M] = transpose of the fp32 x [M, K], with TE's RHT applied to each
/// 16-element chunk of xt's rows (bf16-rounded) if `rht`. M % 16 == 0.
cudaError_t launchNVFP4Transpose(const float *x, int64_t M, int64_t K, bool rht,
                                 uint32_t signMask, float *xt,
                                 cudaStream_t stream);

#if defined(__CUDACC__)
/// float -> E2M1 nibble, the same function as format::encodeE2M1 (RNE on
/// {0, .5, 1, 1.5, 2, 3, 4, 6}, saturating, NaN -> 0x7, -0 -> 0x8), with one
/// float addition doing the rounding: x = min(|v|, 6) (NaN: 6) lies in a
/// binade [0, 2), [2, 4) or [4, 8) of the grid, whose spacing q (0.5, 1, 2)
/// is the float spacing of [2^22 q, 2^23 q); x + 2^22 q is x rounded to
/// nearest even on that spacing (one IEEE rounding of the exact sum), and
/// its bits less those of 2^22 q count the steps (the parity of the count is
/// the parity of the code, so ties go to the even code). Checked against
/// encodeE2M1 on all 2^32 floats on the host and on the GPU
/// (test/unit/RuntimeCuda/CudaNVFP4Test.cu).
__host__ __device__ __forceinline__ uint32_t encodeE2M1Fast(float v) {
  const uint32_t b = format::bitsOf(v);
  // NaN -> 6 on the bits (fminf of a signaling NaN is NaN on the host).
  const uint32_t a = b & 0x7FFFFFFFu;
  const bool nan = a > 0x7F800000u;
  const uint32_t xb = nan ? 0x40C00000u : a;
  const float x = fminf(format::floatOf(xb), 6.0f);
  const bool lo = x < 2.0f, mid = x < 4.0f;
  // 2^22 q, and its bits less the code of the binade's first grid point.
  const float magic = lo ? 0x1p22f : mid ? 0x1p23f : 0x1p24f;
  const uint32_t bias = lo    ? 0x4A800000u
                        : mid ? 0x4B000000u - 2u
                              : 0x4B800000u - 4u;
  const float t = x + magic;
  const uint32_t tb = format::bitsOf(t);
  const uint32_t sign = nan ? 0u : (b >> 28) & 0x8u;
  return (tb - bias) | sign;
}

/// clamp(y, -6, 6) with NaN -> +6 and -0 kept: the hardware fminf (FMNMX
/// returns the non-NaN operand) then fmaxf; on the host the same function on
/// the bits (the host's fminf returns a signaling NaN).
__host__ __device__ __forceinline__ float clampE2M1(float y) {
#if defined(__CUDA_ARCH__)
  return fmaxf(fminf(y, 6.0f), -6.0f);
#else
  if ((format::bitsOf(y) & 0x7FFFFFFFu) > 0x7F800000u)
    return 6.0f;
  return y > 6.0f ? 6.0f : y < -6.0f ? -6.0f : y;
#endif
}

/// The E2M1 magnitude code of z = clampE2M1(y) (|z| <= 6, no NaN) as
/// code << 22: |z| + 2^22 q rounds to nearest even on the spacing q of |z|'s
/// binade of the grid (as encodeE2M1Fast; 2^22 q = max(2^(e + 22), 2^22)
/// from |z|'s exponent e, one add-max), subtracting 2^22 q again gives the
/// grid value g exactly, and g * 2^-126 lays the grid on the float encoding:
/// 0.5 -> the subnormal 2^-127 (0x00400000), 1, 1.5, 2, 3, 4, 6 -> the
/// normals 0x00800000 .. 0x01C00000, i.e. the E2M1 code in bits 22..24.
/// Needs subnormals (no flush-to-zero, the runtime's default).
__host__ __device__ __forceinline__ uint32_t e2m1MagnitudeShifted(float z) {
  const int e = static_cast<int>(format::bitsOf(z) & 0x7F800000u) + (22 << 23);
  const int mb = e > 0x4A800000 ? e : 0x4A800000;
  const float magic = format::floatOf(static_cast<uint32_t>(mb));
  const float t = fabsf(z) + magic;
  const float g = t - magic;
  return format::bitsOf(g * 0x1p-126f);
}

/// Sign bit of z[i] at bit 4 i + 3 (the sign of nibble i). On the GPU six
/// byte permutes with sign replication and two masks instead of eight
/// shift-and-merge pairs.
__host__ __device__ __forceinline__ uint32_t e2m1Signs8(const float z[8]) {
#if defined(__CUDA_ARCH__)
  uint32_t p02, p46, p13, p57, even, odd;
  // Selector nibble 0xB / 0xF: byte 3 of the first / second operand with
  // its sign bit replicated over the byte.
  asm("prmt.b32 %0, %1, %2, 0x00FB;"
      : "=r"(p02)
      : "r"(__float_as_uint(z[0])), "r"(__float_as_uint(z[2])));
  asm("prmt.b32 %0, %1, %2, 0x00FB;"
      : "=r"(p46)
      : "r"(__float_as_uint(z[4])), "r"(__float_as_uint(z[6])));
  asm("prmt.b32 %0, %1, %2, 0x00FB;"
      : "=r"(p13)
      : "r"(__float_as_uint(z[1])), "r"(__float_as_uint(z[3])));
  asm("prmt.b32 %0, %1, %2, 0x00FB;"
      : "=r"(p57)
      : "r"(__float_as_uint(z[5])), "r"(__float_as_uint(z[7])));
  even = __byte_perm(p02, p46, 0x5410); // byte j: sign of z[2j], replicated
  odd = __byte_perm(p13, p57, 0x5410);  // byte j: sign of z[2j + 1]
  return (even & 0x08080808u) | (odd & 0x80808080u);
#else
  uint32_t s = 0;
  for (int i = 0; i < 8; ++i)
    s |= (format::bitsOf(z[i]) >> 31) << (4 * i + 3);
  return s;
#endif
}

/// encodeE2M1 of y[0..7] packed in a word (y[i] in nibble i): the clamp,
/// e2m1MagnitudeShifted moved to nibble i, e2m1Signs8 of the clamped values
/// (NaN -> +6 loses its sign, -0 keeps it). About 9 instructions per element
/// against encodeE2M1Fast's 15. Checked against encodeE2M1 on all 2^32
/// floats at every position, on the host and on the GPU (CudaNVFP4Test.cu).
__host__ __device__ __forceinline__ uint32_t encodeE2M1x8(const float y[8]) {
  float z[8];
  uint32_t codes = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    z[i] = clampE2M1(y[i]);
    const uint32_t m = e2m1MagnitudeShifted(z[i]);
    codes |= 4 * i <= 22 ? m >> (22 - 4 * i) : m << (4 * i - 22);
  }
  return codes | e2m1Signs8(z);
}

/// Format's stochasticRoundE2M1(v, r) without its search and division: for
/// 0 <= |v| < 6 on the grid spacing q (0.5, 1, 2 as in encodeE2M1Fast),
/// n = floor(|v| * 256 / q) is exact (|v| scaled by a power of two, then
/// truncated); n >> 8 counts the steps to lo (the grid point at or below
/// |v|), and n & 255 is Format's floor(256 t), t = (|v| - lo) / q. The code
/// is lo's, plus one if (n & 255) + r >= 256. |v| >= 6 saturates, NaN is 0x7,
/// the sign is kept. Checked against stochasticRoundE2M1 on the host
/// (CudaNVFP4Test.cu: every float below 6 at both sides of its threshold) and
/// on the GPU by the SR cases of CudaQuantize.
__host__ __device__ __forceinline__ uint32_t
stochasticRoundE2M1Fast(float v, uint32_t randomByte) {
  const uint32_t b = format::bitsOf(v), a = b & 0x7FFFFFFFu;
  if (a > 0x7F800000u) // NaN: Format's RNE path, +6
    return 0x7u;
  const uint32_t sign = (b >> 28) & 0x8u;
  if (a >= 0x40C00000u) // >= 6, +-inf
    return sign | 0x7u;
  const float x = format::floatOf(a);
  const bool lo = x < 2.0f, mid = x < 4.0f;
  const uint32_t n = static_cast<uint32_t>(x * (lo    ? 512.0f
                                                : mid ? 256.0f
                                                      : 128.0f));
  const uint32_t first = lo ? 0u : mid ? 2u : 4u; // code of the binade's 0
  return sign |
         ((n >> 8) + first + ((n & 255u) + randomByte >= 256u ? 1u : 0u));
}

/// Format's doubleToBF16 for a finite x: x rounded toward zero to float,
/// its last bit set if that was inexact (round to odd), then rounded to
/// nearest even to bf16. Round to odd to a format with at least two more
/// significand bits, then RNE, is one RNE; float has 16 more than bf16 at
/// every magnitude (same exponent range, subnormals included), and a finite
/// x beyond FLT_MAX becomes 0x7F7FFFFF, which rounds to infinity as x does.
/// Checked against doubleToBF16 around every bf16 rounding boundary on the
/// host (CudaNVFP4Test.cu); on the GPU through the RHT tests.
__host__ __device__ __forceinline__ float doubleToBF16Finite(double x) {
#if defined(__CUDA_ARCH__)
  const float f = __double2float_rz(x);
#else
  float f = static_cast<float>(x); // nearest; step back toward zero
  if (std::fabs(static_cast<double>(f)) > std::fabs(x))
    f = std::nextafter(f, 0.0f);
#endif
  const uint32_t odd = static_cast<double>(f) != x ? 1u : 0u;
  const uint32_t b = format::bitsOf(f) | odd;
  return format::floatOf((b + 0x7FFFu + ((b >> 16) & 1u)) & 0xFFFF0000u);
}

/// H_ij < 0 of the 16x16 Sylvester Hadamard matrix (odd popcount(i & j)).
__host__ __device__ constexpr bool hadamardNegative(int i, int j) {
  return ((i & j & 1) ^ ((i & j) >> 1 & 1) ^ ((i & j) >> 2 & 1) ^
          ((i & j) >> 3 & 1)) != 0;
}

/// Format's rht16 (Hadamard.h) with the loops unrolled: the same terms
/// (+-0.25 * v_i in double, the sign of s_i * H_ij) added in the same order
/// (i = 0..15, from 0.0), rounded once to bf16. v is replaced by the result.
__host__ __device__ __forceinline__ void rht16Sequential(float v[16],
                                                         uint32_t signMask) {
  double u[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    double t = 0.25 * static_cast<double>(v[i]);
    u[i] = ((signMask >> i) & 1u) ? -t : t;
  }
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    double sum = 0.0;
#pragma unroll
    for (int i = 0; i < 16; ++i)
      sum += hadamardNegative(i, j) ? -u[i] : u[i];
    v[j] = format::bf16ToFloat(format::doubleToBF16(sum));
  }
}

/// In-place fast Walsh-Hadamard transform of 16 values (natural order:
/// y_j = sum_i (-1)^popcount(i & j) x_i).
template <typename F> __host__ __device__ __forceinline__ void fwht16(F x[16]) {
#pragma unroll
  for (int h = 1; h < 16; h *= 2)
#pragma unroll
    for (int i = 0; i < 16; ++i)
      if ((i & h) == 0) {
        F a = x[i], b = x[i + h];
        x[i] = a + b;
        x[i + h] = a - b;
      }
}

/// The same function as rht16Sequential, fewer operations where that is
/// provably exact. `sigBits` is the significand width of the values (8 for
/// bf16, 11 for f16, 24 for f32). With E the exponent field, every non-zero
/// term 0.25 * v_i is a multiple of 2^(Emin - 127 - sigBits - 1) and every
/// partial sum of any order is below 2^(Emax - 127 + 3), so all of them are
/// exact in a format of P bits when Emax - Emin <= P - 4 - sigBits: then the
/// sequential sum and a Walsh-Hadamard butterfly give the same exact value
/// (its zero made +0, as the sequential sum from +0.0 gives), rounded once
/// to bf16. Spans up to 19 - sigBits use float (if every |v_i| < 2^126, so
/// that no partial sum overflows), up to 48 - sigBits double (one bit of
/// margin each); wider spans, infinities and NaNs take rht16Sequential.
__host__ __device__ __forceinline__ void rht16(float v[16], uint32_t signMask,
                                               int sigBits) {
  uint32_t mx = 0u, mn = 0x7FFFFFFFu;
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    uint32_t b = format::bitsOf(v[i]) & 0x7FFFFFFFu;
    mx = b > mx ? b : mx;
    mn = b != 0u && b < mn ? b : mn;
  }
  const int span = static_cast<int>(mx >> 23) - static_cast<int>(mn >> 23);
  if (mx >= 0x7F800000u || span > 48 - sigBits) {
    rht16Sequential(v, signMask);
    return;
  }
  if (span <= 19 - sigBits && mx < 0x7E800000u) { // no float overflow either
    float u[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      float t = 0.25f * v[i];
      u[i] = ((signMask >> i) & 1u) ? -t : t;
    }
    fwht16(u);
#pragma unroll
    for (int j = 0; j < 16; ++j)
      v[j] = format::bf16ToFloat(format::floatToBF16(u[j] + 0.0f));
    return;
  }
  double u[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    double t = 0.25 * static_cast<double>(v[i]);
    u[i] = ((signMask >> i) & 1u) ? -t : t;
  }
  fwht16(u);
#pragma unroll
  for (int j = 0; j < 16; ++j)
    v[j] = doubleToBF16Finite(u[j] + 0.0);
}

/// max_j |rht16(v)_j| (v unchanged): in rht16's float and double tiers the
/// max of the exact |sums|, rounded once (RNE to bf16 is monotone and odd,
/// so rounding the largest magnitude gives the largest rounded one);
/// otherwise rht16 and the max of its results (fmaxf: NaNs ignored).
__host__ __device__ __forceinline__ float
rht16Amax(const float v[16], uint32_t signMask, int sigBits) {
  uint32_t mx = 0u, mn = 0x7FFFFFFFu;
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    uint32_t b = format::bitsOf(v[i]) & 0x7FFFFFFFu;
    mx = b > mx ? b : mx;
    mn = b != 0u && b < mn ? b : mn;
  }
  const int span = static_cast<int>(mx >> 23) - static_cast<int>(mn >> 23);
  if (mx >= 0x7F800000u || span > 48 - sigBits) {
    float w[16];
#pragma unroll
    for (int i = 0; i < 16; ++i)
      w[i] = v[i];
    rht16Sequential(w, signMask);
    float m = 0.0f;
#pragma unroll
    for (int j = 0; j < 16; ++j)
      m = fmaxf(m, format::floatOf(format::bitsOf(w[j]) & 0x7FFFFFFFu));
    return m;
  }
  if (span <= 19 - sigBits && mx < 0x7E800000u) {
    float u[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      float t = 0.25f * v[i];
      u[i] = ((signMask >> i) & 1u) ? -t : t;
    }
    fwht16(u);
    uint32_t m = 0u; // non-negative floats order as their bits
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      uint32_t b = format::bitsOf(u[j]) & 0x7FFFFFFFu;
      m = b > m ? b : m;
    }
    return format::bf16ToFloat(format::floatToBF16(format::floatOf(m)));
  }
  double u[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    double t = 0.25 * static_cast<double>(v[i]);
    u[i] = ((signMask >> i) & 1u) ? -t : t;
  }
  fwht16(u);
  double m = 0.0;
#pragma unroll
  for (int j = 0; j < 16; ++j)
    m = fmax(m, fabs(u[j]));
  return doubleToBF16Finite(m);
}
#endif

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_QUANTIZENVFP4_H
