//===- Swizzle.h - cuBLAS GEMM-ready scale-factor layout --------*- C++ -*-===//
//
// Part of te. Dependency-free C++17; also compiles as CUDA (nvcc -x cu).
//
//===----------------------------------------------------------------------===//
//
// The 512-byte-tile interleaved layout that cuBLAS block-scaled GEMMs read
// (docs/formats.md §4). A compact [R, C] scale matrix (R a multiple of 128, C a
// multiple of 4: TE's padded scale buffers) keeps its shape and byte size;
// entry (r, c) moves to the flat offset
//   ((r/128)*(C/4) + c/4)*512 + (r%32)*16 + ((r%128)/32)*4 + (c%4),
// i.e. view(R/128, 4, 32, C/4, 4).permute(0, 3, 2, 1, 4).
//
// Which matrix is swizzled:
// * MXFP8 rowwise scales [rup(M,128), rup(ceil(K/32),4)]: as they are
//   (R = rows, C = cols).
// * MXFP8 columnwise scales, stored [rup(ceil(M/32),4), rup(K,128)]: swizzle
//   their TRANSPOSE, a [rup(K,128), rup(ceil(M/32),4)] matrix (R = K side,
//   C = M/32 side); element (m/32, k) of the stored buffer is entry (k, m/32).
// * NVFP4 rowwise [rup(M,128), rup(ceil(K/16),4)] and columnwise
//   [rup(K,128), rup(ceil(M/16),4)]: both as they are (the columnwise data is
//   already transposed, so its scales use the rowwise swizzle).
// Padding entries (rows >= the valid rows or cols >= the valid cols) are
// written as zero by TE's swizzle; swizzleScales copies what the compact
// buffer holds, so callers zero the padding first (or use the validRows /
// validCols overload).
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_SWIZZLE_H
#define TE_FORMAT_SWIZZLE_H

#include "te/Format/HostDevice.h"
#include "te/Format/Types.h"

#include <cstdint>

namespace te::format {

/// Flat offset of entry (r, c) of a compact [R, C] scale matrix in the
/// swizzled layout. R % 128 == 0 and C % 4 == 0 are required (not checked).
TE_HD inline int64_t swizzledScaleOffset(int64_t r, int64_t c, int64_t R,
                                         int64_t C) {
  (void)R;
  return ((r / 128) * (C / 4) + c / 4) * 512 + (r % 32) * 16 +
         ((r % 128) / 32) * 4 + (c % 4);
}

/// Swizzles a compact row-major [R, C] byte matrix `in` into `out` (R*C bytes,
/// distinct from `in`). Entries with r >= validRows or c >= validCols are
/// written as 0 (pass R, C to copy everything). Returns false (and writes
/// nothing) if R % 128 != 0 or C % 4 != 0 or a size is negative.
inline bool swizzleScales(const uint8_t *in, uint8_t *out, int64_t R, int64_t C,
                          int64_t validRows, int64_t validCols) {
  if (R < 0 || C < 0 || R % kScaleTileRows != 0 || C % kScaleTileCols != 0)
    return false;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c)
      out[swizzledScaleOffset(r, c, R, C)] =
          (r < validRows && c < validCols) ? in[r * C + c] : uint8_t(0);
  return true;
}
inline bool swizzleScales(const uint8_t *in, uint8_t *out, int64_t R,
                          int64_t C) {
  return swizzleScales(in, out, R, C, R, C);
}

/// The inverse of swizzleScales: `in` swizzled, `out` compact row-major.
inline bool unswizzleScales(const uint8_t *in, uint8_t *out, int64_t R,
                            int64_t C) {
  if (R < 0 || C < 0 || R % kScaleTileRows != 0 || C % kScaleTileCols != 0)
    return false;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c)
      out[r * C + c] = in[swizzledScaleOffset(r, c, R, C)];
  return true;
}

} // namespace te::format

#endif // TE_FORMAT_SWIZZLE_H
