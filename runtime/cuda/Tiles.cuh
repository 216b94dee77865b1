//===- Tiles.cuh - The 128x128 tile walk -----------------------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// The tile machinery of the per-tensor (QuantizePerTensor.cu), Float8Block
// (QuantizeBlock.cu) and MXFP8 (QuantizeMXFP8.cu) tile kernels, for tensors
// whose 2-D view tiles exactly. Every thread owns an 8x8 sub-tile of x, read
// as 8 16-byte rows (8 bf16/f16, or 2x16 bytes of f32) that stay in
// registers, packed (RawRows); the next tile's sub-tile is loaded before the
// current one is processed. Block amaxes are register maxima (subTileMaxima)
// combined with warp shuffles (and, for 128-row columns, a shared-memory
// exchange); the scale math is Format's (ScaleRules.h), the element cast is
// encodeFP8x4 (Codecs.cuh).
//
// The tile kernels (persistent grids, one resident wave) take one 128x128
// tile per 256-thread block at a time (the thread layout is below); tiles
// are walked in groups of 16 tile rows (kTileGroup), the next ones coming
// through a TilePipe: cp.async into 2 shared-memory stages of 32 KB (one
// tile in flight while one is processed; bf16/f16), or the next tile's
// sub-tile prefetched into registers (f32). mxfp8TileKernel uses the
// sub-tiles (RawRows) on warp tiles instead.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_TILES_CUH
#define TE_RT_CUDA_TILES_CUH

#include "Codecs.cuh"
#include "KernelCommon.cuh"

#include "te/Format/Codecs.h"

#include <cstdint>

namespace te::rt::cuda {

//===----------------------------------------------------------------------===//
// Tiles and sub-tiles
//===----------------------------------------------------------------------===//
//
// Thread t of the block owns rows 8g..8g+7 x columns 8c..8c+7 of the tile,
// g = 2 * warp + lane / 16 (0..15), c = lane % 16 (0..15): a half-warp loads
// or stores one full 128-column row segment (256 bytes of bf16, 128 bytes of
// codes). The transposed copy goes through a 16 KB shared-memory tile of codes
// (in-register 8x8 byte transposes, 8-byte writes, swizzled) read back as
// 16-byte chunks: each transposed row of the tile is one 128-byte store of 8
// lanes. The next tile's x comes through a TilePipe (below) while the current
// one is processed. Tiles at the right/bottom edge are partial: row groups and
// column chunks outside [M, K] are skipped (M % 32 == 0, K % 64 == 0 keep
// groups of 8 rows/columns and 16-row transposed chunks whole).

constexpr int kTile = 128;

/// Tile rows per group in the tile kernels' walk (tileCoords32).
constexpr int kTileGroup = 16;

/// Stores 8 codes (8-byte aligned).
__device__ __forceinline__ void store8(uint8_t *p, uint2 v) {
  *reinterpret_cast<uint2 *>(p) = v;
}

/// Raw storage of a thread's 8x8 sub-tile: 8 rows of 8 elements.
template <InKind T> struct RawRows {
  static constexpr int kWords = T == InKind::F32 ? 2 : 1; // uint4 per row
  uint4 w[8][kWords];
};

template <InKind T>
__device__ __forceinline__ void loadRaw(const Storage<T> *x, int64_t row,
                                        int64_t col, int64_t K, bool valid,
                                        RawRows<T> &r) {
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int h = 0; h < RawRows<T>::kWords; ++h)
      r.w[i][h] =
          valid
              ? __ldg(reinterpret_cast<const uint4 *>(x + (row + i) * K + col) +
                      h)
              : make_uint4(0, 0, 0, 0);
}

template <InKind T>
__device__ __forceinline__ void unpackRow(const RawRows<T> &r, int i,
                                          float v[8]) {
  if constexpr (T == InKind::F32) {
    const uint4 a = r.w[i][0], b = r.w[i][1];
    v[0] = __uint_as_float(a.x), v[1] = __uint_as_float(a.y);
    v[2] = __uint_as_float(a.z), v[3] = __uint_as_float(a.w);
    v[4] = __uint_as_float(b.x), v[5] = __uint_as_float(b.y);
    v[6] = __uint_as_float(b.z), v[7] = __uint_as_float(b.w);
  } else {
    const uint4 u = r.w[i][0];
    const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      if constexpr (T == InKind::BF16) {
        v[2 * q] = __uint_as_float(w[q] << 16);
        v[2 * q + 1] = __uint_as_float(w[q] & 0xFFFF0000u);
      } else {
        v[2 * q] = format::f16ToFloat(static_cast<uint16_t>(w[q] & 0xFFFFu));
        v[2 * q + 1] = format::f16ToFloat(static_cast<uint16_t>(w[q] >> 16));
      }
    }
  }
}

/// Tile coordinates of tile `t`: groups of `group` tile rows, walked column
/// by column, so that the tiles in flight at once cover a squarish region.
/// 32-bit arithmetic (tile counts are checked to fit in int at launch).
__device__ __forceinline__ void tileCoords32(int t, int tilesM, int tilesK,
                                             int group, int &mb, int &kb) {
  const int span = group * tilesK;
  const int first = (t / span) * group;
  const int rows = min(group, tilesM - first);
  const int r = t - (t / span) * span;
  mb = first + r % rows;
  kb = r / rows;
}

/// The 8 row maxima rm[i] and 8 column maxima cm[j] of |x| over a thread's
/// 8x8 sub-tile (Float8Block 1x128 / 128x1, MXFP8 1x32 / 32x1).
template <InKind T>
__device__ __forceinline__ void subTileMaxima(const RawRows<T> &r, float rm[8],
                                              float cm[8]) {
#pragma unroll
  for (int j = 0; j < 8; ++j)
    cm[j] = 0.0f;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    float v[8];
    unpackRow<T>(r, i, v);
    rm[i] = 0.0f;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float av = absBits(v[j]);
      rm[i] = maxNum(rm[i], av);
      cm[j] = maxNum(cm[j], av);
    }
  }
}

//===----------------------------------------------------------------------===//
// Tile pipeline: how the next tiles' x reaches the block
//===----------------------------------------------------------------------===//
//
// TilePipe<T, 0>: the next tile's sub-tile is prefetched into registers
// (RawRows next), one tile in flight. TilePipe<T, 2> (2-byte inputs):
// cp.async (16 bytes, L1 bypassed) into 2 shared-memory slots of 32 KB, one
// tile in flight while the other is processed. Slot layout: uint4 (i * 256 +
// tid) holds row i of thread tid's sub-tile, so that every thread reads back
// only what it copied itself (cp.async.wait_group, no barrier) and a warp's
// accesses are consecutive 16-byte words (no bank conflicts). Use:
//   pipe.start(where, first, step, tiles);     // tiles first + s step, s <
//   kDepth loop over t: pipe.take(cur);               // tile t's sub-tile
//                [a barrier if the slot just freed was shared]
//                pipe.advance(where, t + kDepth step, tiles);
// where(t, row, col) -> valid: the thread's sub-tile of tile t. advance()
// writes the slot taken one iteration earlier; a kernel that used that slot
// as block-wide scratch (current()) must pass a barrier first.

constexpr int kSlotWords = 8 * kFastThreads; // uint4 per 32 KB slot

__device__ __forceinline__ void cpAsync16(void *smem, const void *gmem,
                                          bool valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d),
               "l"(gmem), "r"(valid ? 16 : 0)
               : "memory");
}

template <InKind T, int Stages> struct TilePipe {
  static_assert(Stages == 2, "2 shared-memory stages");
  static_assert(T != InKind::F32, "32 KB slots hold 2-byte inputs");
  static constexpr int kDepth = Stages - 1;
  static constexpr size_t kSmemBytes = size_t(Stages) * kSlotWords * 16;
  uint4 *slots;
  int takeSlot = 0, issueSlot = 0;
  uint4 *cur = nullptr;

  __device__ explicit TilePipe(uint4 *s) : slots(s) {}

  template <typename Where>
  __device__ __forceinline__ void issue(const Storage<T> *x, int64_t K,
                                        Where where, int t, int tiles) {
    uint4 *slot = slots + issueSlot * kSlotWords + threadIdx.x;
    if (t < tiles) {
      int64_t row = 0, col = 0;
      const bool valid = where(t, row, col);
#pragma unroll
      for (int i = 0; i < 8; ++i)
        cpAsync16(slot + i * kFastThreads, valid ? x + (row + i) * K + col : x,
                  valid);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    issueSlot = issueSlot == Stages - 1 ? 0 : issueSlot + 1;
  }

  template <typename Where>
  __device__ __forceinline__ void start(const Storage<T> *x, int64_t K,
                                        Where where, int first, int step,
                                        int tiles) {
#pragma unroll
    for (int s = 0; s < kDepth; ++s)
      issue(x, K, where, first + s * step, tiles);
  }

  __device__ __forceinline__ void take(RawRows<T> &r) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Stages - 2) : "memory");
    cur = slots + takeSlot * kSlotWords;
#pragma unroll
    for (int i = 0; i < 8; ++i)
      r.w[i][0] = cur[i * kFastThreads + threadIdx.x];
    takeSlot = takeSlot == Stages - 1 ? 0 : takeSlot + 1;
  }

  template <typename Where>
  __device__ __forceinline__ void advance(const Storage<T> *x, int64_t K,
                                          Where where, int t, int tiles) {
    issue(x, K, where, t, tiles);
  }

  /// The slot taken last (free for block-wide use once every thread has
  /// taken it, until the next advance after a barrier).
  __device__ __forceinline__ uint8_t *current() const {
    return reinterpret_cast<uint8_t *>(cur);
  }
};

template <InKind T> struct TilePipe<T, 0> {
  static constexpr int kDepth = 1;
  RawRows<T> next;

  __device__ explicit TilePipe(uint4 *) {}

  template <typename Where>
  __device__ __forceinline__ void start(const Storage<T> *x, int64_t K,
                                        Where where, int first, int,
                                        int tiles) {
    advance(x, K, where, first, tiles);
  }

  __device__ __forceinline__ void take(RawRows<T> &r) { r = next; }

  template <typename Where>
  __device__ __forceinline__ void advance(const Storage<T> *x, int64_t K,
                                          Where where, int t, int tiles) {
    if (t < tiles) {
      int64_t row = 0, col = 0;
      const bool valid = where(t, row, col);
      loadRaw<T>(x, row, col, K, valid, next);
    }
  }

  __device__ __forceinline__ uint8_t *current() const { return nullptr; }
};

/// The tile kernels' pipe for input type T: cp.async into 2 shared-memory
/// stages for bf16/f16 (the fastest or level of the pipes measured on the
/// H200, docs/perf/cuda-notebook.md, entry "2026-12-02, commits
/// e900b29/6bdf374", and 32 registers fewer than the register prefetch), the
/// register prefetch for f32 (whose sub-tiles do not fit the 32 KB slots).
template <InKind T> constexpr int kTileStages = T == InKind::F32 ? 0 : 2;

/// Byte offset in the transposed code tile of the 8 bytes of transposed row
/// `k` (0..127) holding tile rows 8u..8u+7 (u = 0..15). 8-byte units are
/// XOR-swizzled by an even number so that 16-byte pairs stay adjacent.
__device__ __forceinline__ int trOffset(int k, int u) {
  return k * kTile + ((u ^ (((k >> 3) & 7) << 1)) << 3);
}

/// Writes the 8x8 codes of thread (g, c) (rows) as 8 transposed rows.
__device__ __forceinline__ void stageTransposed(uint8_t *s, int g, int c,
                                                const uint2 codes[8]) {
  const int k = 8 * c;
  *reinterpret_cast<uint2 *>(s + trOffset(k + 0, g)) = column8<0>(codes);
  *reinterpret_cast<uint2 *>(s + trOffset(k + 1, g)) = column8<1>(codes);
  *reinterpret_cast<uint2 *>(s + trOffset(k + 2, g)) = column8<2>(codes);
  *reinterpret_cast<uint2 *>(s + trOffset(k + 3, g)) = column8<3>(codes);
  *reinterpret_cast<uint2 *>(s + trOffset(k + 4, g)) = column8<4>(codes);
  *reinterpret_cast<uint2 *>(s + trOffset(k + 5, g)) = column8<5>(codes);
  *reinterpret_cast<uint2 *>(s + trOffset(k + 6, g)) = column8<6>(codes);
  *reinterpret_cast<uint2 *>(s + trOffset(k + 7, g)) = column8<7>(codes);
}

/// Stores the staged transposed tile: tr[(k0 + k) * ld + m0 + m] for the
/// valid k < kValid, m < mValid (multiples of 8 and 16). 16-byte stores.
__device__ __forceinline__ void storeStagedTransposed(const uint8_t *s,
                                                      uint8_t *tr, int64_t k0,
                                                      int64_t m0, int64_t ld,
                                                      int kValid, int mValid) {
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int q = r * 256 + threadIdx.x;
    const int k = q >> 3, h = q & 7;
    if (k < kValid && 16 * h < mValid)
      *reinterpret_cast<uint4 *>(tr + (k0 + k) * ld + m0 + 16 * h) =
          *reinterpret_cast<const uint4 *>(s + trOffset(k, 2 * h));
  }
}

/// Dynamic shared memory of the tile kernels: the pipe's slots, or (register
/// pipe) `regsBytes` of staging.
template <InKind T, int Stages> constexpr size_t pipeSmem(size_t regsBytes) {
  if constexpr (Stages == 0)
    return regsBytes;
  else
    return TilePipe<T, Stages>::kSmemBytes;
}

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_TILES_CUH
