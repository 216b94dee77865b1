//===- Blocks.h - Per-block quantizers of every recipe ----------*- C++ -*-===//
//
// Part of te. Dependency-free C++17; also compiles as CUDA (nvcc -x cu).
//
//===----------------------------------------------------------------------===//
//
// Small pure functions that quantize one scaling block, used identically by
// the CPU runtime's loops and by CUDA threads (docs/formats.md §3). A block is
// given as a pointer, a count and a stride (in elements), so rowwise blocks
// (stride 1) and columnwise blocks (stride = row length) share the code.
// Inputs are the high-precision values already converted to float (bf16/f16
// inputs exactly; for RHT, the bf16-rounded transform output).
//
// Amaxes use maxNum (fmaxf): NaN elements are ignored, as in TE's kernels.
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_BLOCKS_H
#define TE_FORMAT_BLOCKS_H

#include "te/Format/Codecs.h"
#include "te/Format/HostDevice.h"
#include "te/Format/ScaleRules.h"
#include "te/Format/Types.h"

#include <cstdint>

namespace te::format {

/// max |x_i| over n elements at `stride` (maxNum: NaN ignored; 0 if n == 0).
TE_HD inline float blockAmax(const float *x, int n, int64_t stride = 1) {
  float amax = 0.0f;
  for (int i = 0; i < n; ++i)
    amax = fmaxNum(amax, floatOf(bitsOf(x[i * stride]) & 0x7FFFFFFFu));
  return amax;
}

//===----------------------------------------------------------------------===//
// Per-tensor FP8 and Float8Block
//===----------------------------------------------------------------------===//

/// One FP8 element of per-tensor or block scaling: cvt_rn_satfinite(x*scale).
TE_HD inline uint8_t quantizeFP8Element(float x, float scale, DType t) {
  return encodeFP8(x * scale, t);
}

/// One Float8Block block (1x128 row segment, 128x1 column segment, or -- with
/// the tile's amax passed as `amax` -- a 128x128 tile row): computes the
/// scale from `amax` (computeScaleFromAmax with valueForInfBlock(inputType)),
/// writes n codes and returns scale_inv = 1/scale.
TE_HD inline float quantizeFP8BlockWithAmax(const float *x, int n,
                                            int64_t stride, float amax, DType t,
                                            bool pow2, float eps,
                                            DType inputType, uint8_t *codes,
                                            int64_t codeStride = 1) {
  float scale = computeScaleFromAmax(amax, fp8Max(t), pow2, eps,
                                     valueForInfBlock(inputType));
  for (int i = 0; i < n; ++i)
    codes[i * codeStride] = quantizeFP8Element(x[i * stride], scale, t);
  return reciprocalRN(scale);
}

//===----------------------------------------------------------------------===//
// MXFP8
//===----------------------------------------------------------------------===//

/// One MXFP8 element with block scale code `e`: cvt_rn_satfinite(x *
/// 2^(127-e)).
TE_HD inline uint8_t quantizeMXFP8Element(float x, uint8_t e, DType t) {
  return encodeFP8(x * e8m0Reciprocal(e), t);
}

/// One MXFP8 block of n (<= 32) elements: returns its E8M0 scale code and
/// writes the codes. For 32x32 (2D) blocks pass the tile amax through
/// quantizeMXFP8BlockWithAmax instead.
TE_HD inline uint8_t quantizeMXFP8BlockWithAmax(const float *x, int n,
                                                int64_t stride, float amax,
                                                DType t, E8M0Rounding rounding,
                                                uint8_t *codes,
                                                int64_t codeStride = 1) {
  uint8_t e = mxfp8ScaleFromAmax(amax, t, rounding);
  for (int i = 0; i < n; ++i)
    codes[i * codeStride] = quantizeMXFP8Element(x[i * stride], e, t);
  return e;
}
TE_HD inline uint8_t quantizeMXFP8Block(const float *x, int n, int64_t stride,
                                        DType t, E8M0Rounding rounding,
                                        uint8_t *codes,
                                        int64_t codeStride = 1) {
  return quantizeMXFP8BlockWithAmax(x, n, stride, blockAmax(x, n, stride), t,
                                    rounding, codes, codeStride);
}

//===----------------------------------------------------------------------===//
// NVFP4
//===----------------------------------------------------------------------===//

/// Encodes n elements with block scale code `scaleCode`:
/// nibbles[i] = encodeE2M1(x_i * nvfp4ElementFactor(scaleCode, sDec)), one
/// nibble per byte (the caller packs them with packE2M1x2).
TE_HD inline void nvfp4EncodeBlock(const float *x, int n, int64_t stride,
                                   uint8_t scaleCode, float sDec,
                                   uint8_t *nibbles) {
  float factor = nvfp4ElementFactor(scaleCode, sDec);
  for (int i = 0; i < n; ++i)
    nibbles[i] = encodeE2M1(x[i * stride] * factor);
}

/// The 4over6 error of a candidate in the original domain, accumulated
/// sequentially over i = 0..n-1 in fp32 (TE's quantize_4over6_nvfp4.cuh):
///   val_i = ((decodeE2M1(q_i) * float(scaleCode)) * globalAmax) /
///           (6 * e4m3Max);
///   err += |val_i - x_i| (MAE) or (val_i - x_i)^2 (MSE).
TE_HD inline float nvfp4CandidateError(const float *x, int n, int64_t stride,
                                       const uint8_t *nibbles,
                                       uint8_t scaleCode, float globalAmax,
                                       float e4m3Max, ErrMode mode) {
  const float denom = kE2M1Max * e4m3Max;
  const float sf = decodeE4M3(scaleCode);
  float err = 0.0f;
  for (int i = 0; i < n; ++i) {
    float val = ((decodeE2M1(nibbles[i]) * sf) * globalAmax) / denom;
    float diff = val - x[i * stride];
    float e = mode == ErrMode::MSE ? diff * diff
                                   : floatOf(bitsOf(diff) & 0x7FFFFFFFu);
    err = err + e;
  }
  return err;
}

/// The two 4over6 scale candidates of a block (TE compute_scale_pair):
/// base = (blockAmax / 6) * sEnc; map-to-6 = e4m3(fminf(base, 448)),
/// map-to-4 = e4m3(fminf(base * 1.5, 448)). `sEnc` is
/// nvfp4GlobalEncodeScale(globalAmax, e4m3Max).
TE_HD inline void nvfp4ScalePair4over6(float blockAmaxValue, float sEnc,
                                       uint8_t *map4, uint8_t *map6) {
  float base = (blockAmaxValue / kE2M1Max) * sEnc;
  *map4 = encodeE4M3(fminNum(base * 1.5f, kE4M3Max));
  *map6 = encodeE4M3(fminNum(base, kE4M3Max));
}

/// One NVFP4 1x16 block (n <= 16 elements at `stride`) with block amax
/// `blockAmaxValue` (the block's own amax for 1D, the 16x16 tile's for 2D)
/// and tensor (or row, if row-scaled) amax `globalAmax`:
/// * plain: S_enc = nvfp4GlobalEncodeScale(globalAmax, 448), code =
///   nvfp4BlockScaleCode(blockAmax, S_enc), nibbles via nvfp4EncodeBlock;
/// * 4over6: S_enc with `e4m3Max` (448 or 256), both candidates of
///   nvfp4ScalePair4over6 are encoded, the one with the strictly lower
///   nvfp4CandidateError wins, ties choose map-to-6. (For 2D 4over6 use
///   quantizeNVFP4Tile, which sums the errors over the tile.)
/// Writes n nibbles (one per byte) and the E4M3 scale code.
TE_HD inline void quantizeNVFP4Block(const float *x, int n, int64_t stride,
                                     float blockAmaxValue, float globalAmax,
                                     bool use4over6, float e4m3Max,
                                     ErrMode mode, uint8_t *nibblesOut,
                                     uint8_t *scaleCodeOut) {
  if (!use4over6) {
    float sEnc = nvfp4GlobalEncodeScale(globalAmax, kE4M3Max);
    uint8_t code = nvfp4BlockScaleCode(blockAmaxValue, sEnc);
    nvfp4EncodeBlock(x, n, stride, code, nvfp4GlobalDecodeScale(sEnc),
                     nibblesOut);
    *scaleCodeOut = code;
    return;
  }
  float sEnc = nvfp4GlobalEncodeScale(globalAmax, e4m3Max);
  float sDec = nvfp4GlobalDecodeScale(sEnc);
  uint8_t map4, map6;
  nvfp4ScalePair4over6(blockAmaxValue, sEnc, &map4, &map6);
  uint8_t q4[kNVFP4BlockSize], q6[kNVFP4BlockSize];
  nvfp4EncodeBlock(x, n, stride, map4, sDec, q4);
  nvfp4EncodeBlock(x, n, stride, map6, sDec, q6);
  float e4 =
      nvfp4CandidateError(x, n, stride, q4, map4, globalAmax, e4m3Max, mode);
  float e6 =
      nvfp4CandidateError(x, n, stride, q6, map6, globalAmax, e4m3Max, mode);
  bool pick4 = e4 < e6;
  for (int i = 0; i < n; ++i)
    nibblesOut[i] = pick4 ? q4[i] : q6[i];
  *scaleCodeOut = pick4 ? map4 : map6;
}

/// One NVFP4 16x16 tile (2D quantization), `x` row-major with leading
/// dimension `ld`. With `columnGroups` false the 16 groups are the tile's
/// rows (the rowwise representation), otherwise its columns (the columnwise
/// one). Every group gets the same scale code (from the tile amax). With
/// 4over6 the per-group candidate errors are summed in TE's shuffle-tree
/// order ((((e0+e8)+(e4+e12))+((e2+e10)+(e6+e14))) + (((e1+e9)+(e5+e13)) +
/// ((e3+e11)+(e7+e15)))) and the tile picks map-to-4 iff its sum is strictly
/// lower. Writes nibbles[g*16 + i] = element i of group g and returns the
/// scale code.
TE_HD inline uint8_t quantizeNVFP4Tile(const float *x, int64_t ld,
                                       bool columnGroups, float globalAmax,
                                       bool use4over6, float e4m3Max,
                                       ErrMode mode, uint8_t *nibbles) {
  const int B = kNVFP4BlockSize;
  const int64_t groupStride = columnGroups ? 1 : ld;
  const int64_t elemStride = columnGroups ? ld : 1;
  float amax = 0.0f;
  for (int r = 0; r < B; ++r)
    amax = fmaxNum(amax, blockAmax(x + r * ld, B, 1));
  uint8_t code;
  if (!use4over6) {
    for (int g = 0; g < B; ++g)
      quantizeNVFP4Block(x + g * groupStride, B, elemStride, amax, globalAmax,
                         false, e4m3Max, mode, nibbles + g * B, &code);
    return code;
  }
  float sEnc = nvfp4GlobalEncodeScale(globalAmax, e4m3Max);
  float sDec = nvfp4GlobalDecodeScale(sEnc);
  uint8_t map4, map6;
  nvfp4ScalePair4over6(amax, sEnc, &map4, &map6);
  float err4[kNVFP4BlockSize], err6[kNVFP4BlockSize];
  uint8_t q[kNVFP4BlockSize];
  for (int g = 0; g < B; ++g) {
    const float *xg = x + g * groupStride;
    nvfp4EncodeBlock(xg, B, elemStride, map4, sDec, q);
    err4[g] = nvfp4CandidateError(xg, B, elemStride, q, map4, globalAmax,
                                  e4m3Max, mode);
    nvfp4EncodeBlock(xg, B, elemStride, map6, sDec, q);
    err6[g] = nvfp4CandidateError(xg, B, elemStride, q, map6, globalAmax,
                                  e4m3Max, mode);
  }
  // __shfl_down tree with offsets 8, 4, 2, 1: lane 0 holds the sum.
  for (int off = B / 2; off > 0; off /= 2)
    for (int g = 0; g < off; ++g) {
      err4[g] = err4[g] + err4[g + off];
      err6[g] = err6[g] + err6[g + off];
    }
  code = err4[0] < err6[0] ? map4 : map6;
  for (int g = 0; g < B; ++g)
    nvfp4EncodeBlock(x + g * groupStride, B, elemStride, code, sDec,
                     nibbles + g * B);
  return code;
}

} // namespace te::format

#endif // TE_FORMAT_BLOCKS_H
