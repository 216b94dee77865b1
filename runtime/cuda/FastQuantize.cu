//===- FastQuantize.cu - Bandwidth kernels of tile recipes -----*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Fast paths of the per-tensor FP8 (current/delayed), MXFP8 and Float8Block
// quantizations and of the tensor amax, for tensors whose 2-D view tiles
// exactly (see the *FastPath predicates in Kernels.h). The general kernels of
// Kernels.cu handle every other shape; both write the same bits.
//
// Structure: every thread owns an 8x8 sub-tile of x, read as 8 16-byte rows
// (8 bf16/f16, or 2x16 bytes of f32) that stay in registers, packed; the next
// tile's sub-tile is loaded before the current one is processed. Block amaxes
// are register maxima combined with warp shuffles (and, for 128-row columns,
// a shared-memory exchange); the scale math is Format's (ScaleRules.h), the
// element cast is encodeFP8x4 (FastCodecs.cuh).
//
// Kernels (persistent grids, one resident wave):
//   perTensorTileKernel, blockTileKernel, mxfp8BlockTileKernel: one 128x128
//     tile per 256-thread block at a time; thread (g, c) = rows 8g..8g+7,
//     columns 8c..8c+7, g = 2 * warp + lane / 16, c = lane % 16. Rowwise
//     codes: 8-byte stores, a half-warp writes one 128-byte row segment.
//     Transposed codes: 8x8 byte transposes in registers (__byte_perm),
//     staged in a swizzled 16 KB shared tile, stored as 16-byte chunks (8
//     lanes = one 128-byte row of the transpose). Tiles are walked in groups
//     of 16 tile rows (kTileGroup). The next tiles come through a TilePipe:
//     cp.async into 2 shared-memory stages of 32 KB (one tile in flight
//     while one is processed; bf16/f16), or the next tile's sub-tile
//     prefetched into registers (f32). Float8Block 1x128: a row's
//     amax is reduce-scattered over its 16 lanes (each lane ends with one of
//     the 8 rows), its scale computed there once and broadcast
//     (reduceScatter8). MXFP8 (1x32 + 32x1, bf16/f16): 1x32 blocks are 4
//     neighbouring lanes, 32x1 blocks 2 warps (column maxima exchanged in
//     shared memory, 4 column codes per thread of 128).
//   mxfp8TileKernel (f32, and 32x32 blocks for every input type): warp
//     tiles of 32 rows x 64 columns; lane = 8 * rowGroup + colChunk; a 1x32
//     block is 4 neighbouring lanes, a 32x1 block the 4 lanes of one
//     colChunk (the columnwise copy is not transposed). Each of the 4 lanes
//     of a block group computes 2 of the 8 E8M0 codes, which are then
//     gathered as bytes (scaleCodes2, gatherCodes8).
//   currentFusedKernel: current scaling in one cooperative launch: amax
//     pass, grid barrier, perTensorTileKernel's walk backwards.
//   amaxFastKernel: 16-byte loads, 4 in flight per thread.
//
//===----------------------------------------------------------------------===//

#include "FastCodecs.cuh"
#include "Kernels.h"

#include "te/Format/Blocks.h"
#include "te/Format/Codecs.h"
#include "te/Format/ScaleRules.h"

#include <cooperative_groups.h>

#include <algorithm>
#include <cstdlib>

using namespace te::format;
namespace cg = cooperative_groups;

namespace te::rt::cuda {
namespace {

constexpr int kFastThreads = 256;

bool aligned(const void *p, uintptr_t a) {
  return reinterpret_cast<uintptr_t>(p) % a == 0;
}

/// F32/BF16/F16, and the fast kernels are not switched off by the
/// environment variable TE_RT_CUDA_NO_FAST_KERNELS (for before/after timings).
bool vectorInput(DType t) {
  static const bool off = std::getenv("TE_RT_CUDA_NO_FAST_KERNELS") != nullptr;
  return !off && (t == DType::F32 || t == DType::BF16 || t == DType::F16);
}

int multiprocessors() {
  static int count = 0;
  if (count == 0) {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) ==
            cudaSuccess &&
        n > 0)
      count = n;
    else
      return 132;
  }
  return count;
}

/// Blocks of kFastThreads for `warps` warp tasks of a grid-stride kernel:
/// at most as many as are resident at once (one wave, no tail).
template <typename Kernel>
unsigned warpGrid(Kernel kernel, int *perSM, int64_t warps) {
  if (*perSM == 0) {
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kFastThreads,
                                                      0) != cudaSuccess ||
        n < 1)
      n = 1;
    *perSM = n;
  }
  int64_t blocks = (warps + kFastThreads / 32 - 1) / (kFastThreads / 32);
  return static_cast<unsigned>(std::max<int64_t>(
      1, std::min<int64_t>(blocks, int64_t(multiprocessors()) * *perSM)));
}

/// Blocks of a persistent grid-stride kernel over `tasks` block tasks: at
/// most one resident wave.
template <typename Kernel>
unsigned blockGrid(Kernel kernel, int *perSM, int64_t tasks,
                   size_t dynamicSmem = 0) {
  if (*perSM == 0) {
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &n, kernel, kFastThreads, dynamicSmem) != cudaSuccess ||
        n < 1)
      n = 1;
    *perSM = n;
  }
  return static_cast<unsigned>(std::max<int64_t>(
      1, std::min<int64_t>(tasks, int64_t(multiprocessors()) * *perSM)));
}

/// blockGrid for a kernel with `smem` bytes of dynamic shared memory (its
/// limit raised above 48 KB on first use).
template <typename Kernel>
unsigned tileGrid(Kernel kernel, int *perSM, int64_t tasks, size_t smem) {
  if (*perSM == 0 && smem > 48 * 1024)
    (void)cudaFuncSetAttribute(kernel,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(smem));
  return blockGrid(kernel, perSM, tasks, smem);
}

/// Tile rows per group in the tile kernels' walk (tileCoords32).
constexpr int kTileGroup = 16;

template <InKind T> using Storage = typename InTraits<T>::Storage;

__device__ __forceinline__ float shflMax(float v, int mask) {
  return maxNum(v, __shfl_xor_sync(0xFFFFFFFFu, v, mask));
}

/// Reduce-scatter of the maxima r[0..7] over the 8 lanes of an aligned lane
/// group (lane bits 0..2): returns the maximum of r[lane & 7] over the group,
/// in 7 shuffles instead of the 24 of 8 butterflies. Lanes exchange halves:
/// after step xor 4 a lane holds rows 4 b2 + 0..3, after xor 2 rows
/// 4 b2 + 2 b1 + 0..1, after xor 1 row 4 b2 + 2 b1 + b0 (b = lane bits).
__device__ __forceinline__ float reduceScatter8(const float r[8], int lane) {
  const bool b2 = lane & 4, b1 = lane & 2, b0 = lane & 1;
  float h[4], q[2];
#pragma unroll
  for (int k = 0; k < 4; ++k)
    h[k] = maxNum(b2 ? r[k + 4] : r[k],
                  __shfl_xor_sync(0xFFFFFFFFu, b2 ? r[k] : r[k + 4], 4));
#pragma unroll
  for (int k = 0; k < 2; ++k)
    q[k] = maxNum(b1 ? h[k + 2] : h[k],
                  __shfl_xor_sync(0xFFFFFFFFu, b1 ? h[k] : h[k + 2], 2));
  return maxNum(b0 ? q[1] : q[0],
                __shfl_xor_sync(0xFFFFFFFFu, b0 ? q[0] : q[1], 1));
}

__device__ __forceinline__ void atomicMaxNonNegativeF(float *addr, float v) {
  atomicMax(reinterpret_cast<unsigned int *>(addr), __float_as_uint(v));
}

__device__ __forceinline__ void store8(uint8_t *p, uint2 v) {
  *reinterpret_cast<uint2 *>(p) = v;
}

//===----------------------------------------------------------------------===//
// Amax
//===----------------------------------------------------------------------===//

template <InKind T>
__device__ __forceinline__ float loadOne(const Storage<T> *x, int64_t i) {
  if constexpr (T == InKind::F32)
    return x[i];
  else if constexpr (T == InKind::BF16)
    return bf16ToFloat(x[i]);
  else
    return f16ToFloat(x[i]);
}

/// The thread's part of the amax of x[0, n) in a grid-stride walk: 16-byte
/// loads, U in flight.
template <InKind T, int U = 4>
__device__ __forceinline__ float amaxPartial(const Storage<T> *x, int64_t n) {
  const int64_t nv = n / 8;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  float m = 0.0f;
  for (; i + (U - 1) * stride < nv; i += U * stride) {
    float v[U][8];
#pragma unroll
    for (int u = 0; u < U; ++u)
      load8<T>(x + (i + u * stride) * 8, v[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int j = 0; j < 8; ++j)
        m = maxNum(m, absBits(v[u][j]));
  }
  for (; i < nv; i += stride) {
    float v[8];
    load8<T>(x + i * 8, v);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      m = maxNum(m, absBits(v[j]));
  }
  for (int64_t e = nv * 8 + blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       e < n; e += stride)
    m = maxNum(m, absBits(loadOne<T>(x, e)));
  return m;
}

template <InKind T>
__global__ void __launch_bounds__(kFastThreads)
    amaxFastKernel(const Storage<T> *x, int64_t n, float *amax) {
  float m = amaxPartial<T>(x, n);
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    m = shflMax(m, off);
  __shared__ float warpMax[kFastThreads / 32];
  if ((threadIdx.x & 31) == 0)
    warpMax[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    float r = 0.0f;
    for (int w = 0; w < kFastThreads / 32; ++w)
      r = maxNum(r, warpMax[w]);
    atomicMaxNonNegativeF(amax, r);
  }
}

//===----------------------------------------------------------------------===//
// Tile kernels: 128x128 tiles per 256-thread block, persistent grid
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

__device__ __forceinline__ float blockMax256(float v, float *red) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    v = shflMax(v, off);
  __syncthreads();
  if ((threadIdx.x & 31) == 0)
    red[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = red[0];
#pragma unroll
  for (int w = 1; w < 8; ++w)
    r = maxNum(r, red[w]);
  return r;
}

/// The scale of a per-tensor cast: *scalePtr, or, if `amaxPtr` is set,
/// computeScaleFromAmax(*amaxPtr) of current scaling (FLT_MAX for inf).
struct PerTensorScale {
  const float *scalePtr = nullptr;
  const float *amaxPtr = nullptr;
  float fp8Max = 0.0f, eps = 0.0f;
  bool pow2 = false;
};

__device__ __forceinline__ float perTensorScale(const PerTensorScale &s) {
  if (s.amaxPtr)
    return computeScaleFromAmax(*s.amaxPtr, s.fp8Max, s.pow2, s.eps, kFloatMax);
  return *s.scalePtr;
}

/// The tile walk of the per-tensor cast (one 128x128 tile per 256-thread
/// block at a time): the codes of x * scale into `data` and the transposed
/// `tr` (either may be null). Returns the thread's running amax of x if
/// `wantAmax`. `reverse`: tiles are walked from the last one (current
/// scaling: the amax pass read x front to back, so its tail is still in L2).
/// Stages == 0 (register pipe): two staging tiles `staged`, tile n stages
/// into staged[n % 2], so one barrier per tile (between staging and the
/// stores) suffices. Stages > 0 (cp.async into `slots`): the transposed
/// codes are staged in the slot just taken, after a barrier that also frees
/// the previous slot for the pipe (two barriers per tile).
template <InKind T, int Stages>
__device__ __forceinline__ float
perTensorTiles(const Storage<T> *x, int64_t M, int64_t K, float scale,
               bool e5m2, uint8_t *data, uint8_t *tr, bool wantAmax,
               bool reverse, uint8_t (*staged)[kTile * kTile], uint4 *slots) {
  const int lane = threadIdx.x & 31;
  const int c = lane & 15, g = ((threadIdx.x >> 5) << 1) | (lane >> 4);
  const int tilesM = static_cast<int>((M + kTile - 1) / kTile),
            tilesK = static_cast<int>((K + kTile - 1) / kTile),
            tiles = tilesM * tilesK;
  auto where = [&](int t, int64_t &row, int64_t &col) {
    int mb = 0, kb = 0;
    tileCoords32(reverse ? tiles - 1 - t : t, tilesM, tilesK, kTileGroup, mb,
                 kb);
    row = int64_t(mb) * kTile + 8 * g;
    col = int64_t(kb) * kTile + 8 * c;
    return row < M && col < K;
  };
  float amax = 0.0f;
  TilePipe<T, Stages> pipe(slots);
  pipe.start(x, K, where, blockIdx.x, gridDim.x, tiles);
  int parity = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x, parity ^= 1) {
    int64_t row = 0, col = 0;
    const bool valid = where(t, row, col);
    const int64_t m0 = row - 8 * g, k0 = col - 8 * c;
    RawRows<T> cur;
    pipe.take(cur);
    if (Stages > 0 && tr)
      __syncthreads(); // every slot taken; the last tile's staging read
    pipe.advance(x, K, where, t + pipe.kDepth * gridDim.x, tiles);
    uint2 codes[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      float v[8];
      unpackRow<T>(cur, i, v);
      if (wantAmax)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          amax = maxNum(amax, absBits(v[j]));
      codes[i] = encodeScaled8(v, scale, e5m2);
      if (data && valid)
        store8(data + (row + i) * K + col, codes[i]);
    }
    if (tr) {
      uint8_t *st = Stages > 0 ? pipe.current() : staged[parity];
      stageTransposed(st, g, c, codes);
      __syncthreads();
      storeStagedTransposed(st, tr, k0, m0, M,
                            static_cast<int>(K - k0 < kTile ? K - k0 : kTile),
                            static_cast<int>(M - m0 < kTile ? M - m0 : kTile));
    }
  }
  return amax;
}

/// Dynamic shared memory of the tile kernels: the pipe's slots, or (register
/// pipe) `regsBytes` of staging.
template <InKind T, int Stages> constexpr size_t pipeSmem(size_t regsBytes) {
  if constexpr (Stages == 0)
    return regsBytes;
  else
    return TilePipe<T, Stages>::kSmemBytes;
}

template <InKind T>
__global__ void __launch_bounds__(kFastThreads, 2)
    perTensorTileKernel(const Storage<T> *x, int64_t M, int64_t K,
                        PerTensorScale sc, bool e5m2, uint8_t *data,
                        uint8_t *tr, float *scaleInv, float *amaxOut,
                        bool reverse) {
  extern __shared__ uint4 tileSmem[];
  __shared__ float red[8];
  const float scale = perTensorScale(sc);
  const float amax = perTensorTiles<T, kTileStages<T>>(
      x, M, K, scale, e5m2, data, tr, amaxOut != nullptr, reverse,
      reinterpret_cast<uint8_t(*)[kTile * kTile]>(tileSmem), tileSmem);
  if (amaxOut) {
    const float r = blockMax256(amax, red);
    if (threadIdx.x == 0)
      atomicMaxNonNegativeF(amaxOut, r);
  }
  if (scaleInv && blockIdx.x == 0 && threadIdx.x == 0)
    *scaleInv = reciprocalRN(scale);
}

/// Current scaling in one launch (cooperative: every block resident): pass
/// 1 reads x front to back for its amax (amaxPartial, one atomicMax per
/// block into `acc`, zeroed before the launch), a grid barrier, every block
/// reads the amax, a second barrier (so that `acc` may be overwritten), then
/// pass 2 is perTensorTiles walking backwards (the last tiles of pass 1 are
/// still in L2). Block 0 writes *acc = 1 / scale (acc is the tensor's
/// scale_inv) and *amaxOut = amax.
template <InKind T>
__global__ void __launch_bounds__(kFastThreads, 2)
    currentFusedKernel(const Storage<T> *x, int64_t M, int64_t K,
                       float fp8MaxValue, bool pow2, float eps, bool e5m2,
                       uint8_t *data, uint8_t *tr, float *acc, float *amaxOut) {
  __shared__ __align__(16) uint8_t staged[2][kTile * kTile];
  __shared__ float red[8];
  cg::grid_group grid = cg::this_grid();
  const float part = blockMax256(amaxPartial<T, 8>(x, M * K), red);
  if (threadIdx.x == 0)
    atomicMaxNonNegativeF(acc, part);
  grid.sync();
  const float amax = __ldcg(acc);
  grid.sync();
  const float scale =
      computeScaleFromAmax(amax, fp8MaxValue, pow2, eps, kFloatMax);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *acc = reciprocalRN(scale);
    if (amaxOut)
      *amaxOut = amax;
  }
  perTensorTiles<T, 0>(x, M, K, scale, e5m2, data, tr, false,
                       /*reverse=*/true, staged, nullptr);
}

/// Current scaling's last step: *scaleInv = 1 / computeScaleFromAmax(*amax),
/// *amaxOut = *amax (amax may alias scaleInv).
__global__ void currentScaleInvKernel(const float *amax, float fp8MaxValue,
                                      bool pow2, float eps, float *scaleInv,
                                      float *amaxOut) {
  const float a = *amax;
  if (amaxOut)
    *amaxOut = a;
  *scaleInv =
      reciprocalRN(computeScaleFromAmax(a, fp8MaxValue, pow2, eps, kFloatMax));
}

//===----------------------------------------------------------------------===//
// Float8Block on 128x128 tiles (1x128 + 128x1, or 128x128 blocks)
//===----------------------------------------------------------------------===//
//
// Same tile walk and thread layout as perTensorTileKernel (the tensor tiles
// exactly: M % 128 == 0, K % 128 == 0). 1x128 rows are half-warps (shuffle
// xor 1..8); 128x1 columns: per-thread maxima over 8 rows, xor 16 over the
// warp's 16 rows, then the 8 warps' maxima through shared memory; 128x128: a
// block reduction. Scale buffers are written as 128 consecutive floats per
// tile (staged in shared memory). Per tile: 3 barriers (1x128), 3 (128x128).

template <InKind T, bool E5M2>
__global__ void __launch_bounds__(kFastThreads, 2)
    blockTileKernel(const Storage<T> *x, int64_t M, int64_t K, BlockArgs a) {
  constexpr int Stages = kTileStages<T>;
  extern __shared__ uint4 tileSmem[];
  __shared__ float part[8][kTile];
  __shared__ float colS[kTile];
  __shared__ float rowSInv[kTile];
  __shared__ float red[8];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int c = lane & 15, g = (warp << 1) | (lane >> 4);
  const int tilesM = static_cast<int>(M / kTile),
            tilesK = static_cast<int>(K / kTile), tiles = tilesM * tilesK;
  constexpr float fmax = E5M2 ? kE5M2Max : kE4M3Max;
  const float vInf = valueForInfBlock(a.inType);
  auto where = [&](int t, int64_t &row, int64_t &col) {
    int mb = 0, kb = 0;
    tileCoords32(t, tilesM, tilesK, kTileGroup, mb, kb);
    row = int64_t(mb) * kTile + 8 * g;
    col = int64_t(kb) * kTile + 8 * c;
    return true;
  };
  TilePipe<T, Stages> pipe(tileSmem);
  pipe.start(x, K, where, blockIdx.x, gridDim.x, tiles);
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int64_t row = 0, col = 0;
    where(t, row, col);
    const int64_t m0 = row - 8 * g, k0 = col - 8 * c;
    const int64_t tmb = m0 / kTile, tkb = k0 / kTile;
    RawRows<T> cur;
    pipe.take(cur);
    // Stages > 0: the pipe's next copy goes into the slot of the last tile,
    // whose transposed codes were staged there: after this tile's first
    // barrier (every thread is past the last tile's stores).
    const int tAhead = t + pipe.kDepth * gridDim.x;
    if constexpr (Stages == 0)
      pipe.advance(x, K, where, tAhead, tiles);
    uint2 codes[8];
    if (a.blockDim == 1) {
      float cm[8], rm[8];
      subTileMaxima<T>(cur, rm, cm);
      if (a.rowData) {
        // Row 8g + (c & 7)'s amax in lanes c and c ^ 8 of the half-warp, its
        // scale computed there once, then broadcast.
        const float s = computeScaleFromAmax(
            shflMax(reduceScatter8(rm, lane), 8), fmax, a.pow2, a.eps, vInf);
        if (c < 8)
          rowSInv[8 * g + c] = reciprocalRN(s);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          float v[8];
          unpackRow<T>(cur, i, v);
          const float si = __shfl_sync(0xFFFFFFFFu, s, (lane & 16) | i);
          store8(a.rowData + (row + i) * K + col, encodeScaled8(v, si, E5M2));
        }
      }
      if (a.colData) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          cm[j] = shflMax(cm[j], 16);
          if (lane < 16)
            part[warp][8 * c + j] = cm[j];
        }
      }
      __syncthreads(); // rowSInv, part
      if constexpr (Stages > 0)
        pipe.advance(x, K, where, tAhead, tiles);
      if (tid < kTile) {
        if (a.rowData)
          a.rowScale[tkb * a.rowScaleStride + m0 + tid] = rowSInv[tid];
        if (a.colData) {
          float m = part[0][tid];
#pragma unroll
          for (int w = 1; w < 8; ++w)
            m = maxNum(m, part[w][tid]);
          const float s = computeScaleFromAmax(m, fmax, a.pow2, a.eps, vInf);
          colS[tid] = s;
          a.colScale[tmb * a.colScaleStride + k0 + tid] = reciprocalRN(s);
        }
      }
      __syncthreads(); // colS; rowSInv and part are read before it
      if (a.colData) {
        float s[8];
#pragma unroll
        for (int j = 0; j < 8; ++j)
          s[j] = colS[8 * c + j];
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          float v[8];
          unpackRow<T>(cur, i, v);
          codes[i].x = encodeFP8x4(v[0] * s[0], v[1] * s[1], v[2] * s[2],
                                   v[3] * s[3], E5M2);
          codes[i].y = encodeFP8x4(v[4] * s[4], v[5] * s[5], v[6] * s[6],
                                   v[7] * s[7], E5M2);
        }
      }
    } else {
      float r = 0.0f;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float v[8];
        unpackRow<T>(cur, i, v);
#pragma unroll
        for (int j = 0; j < 8; ++j)
          r = maxNum(r, absBits(v[j]));
      }
      const float amax = blockMax256(r, red);
      if constexpr (Stages > 0)
        pipe.advance(x, K, where, tAhead, tiles);
      const float s = computeScaleFromAmax(amax, fmax, a.pow2, a.eps, vInf);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float v[8];
        unpackRow<T>(cur, i, v);
        codes[i] = encodeScaled8(v, s, E5M2);
        if (a.rowData)
          store8(a.rowData + (row + i) * K + col, codes[i]);
      }
      if (tid == 0) {
        const float sInv = reciprocalRN(s);
        if (a.rowScale)
          a.rowScale[tmb * a.rowScaleStride + tkb] = sInv;
        if (a.colScale)
          a.colScale[tkb * a.colScaleStride + tmb] = sInv;
      }
    }
    if (a.colData) {
      uint8_t *st =
          Stages > 0 ? pipe.current() : reinterpret_cast<uint8_t *>(tileSmem);
      stageTransposed(st, g, c, codes);
      __syncthreads(); // staged
      storeStagedTransposed(st, a.colData, k0, m0, M, kTile, kTile);
    }
  }
}

//===----------------------------------------------------------------------===//
// MXFP8: 1x32 + 32x1 (or 32x32) blocks, compact scales
//===----------------------------------------------------------------------===//

/// The E8M0 codes of 2 of the 8 blocks whose per-lane maxima are r[0..7],
/// blocks spread over the 4 lanes that differ in lane bits `hi`, `lo`
/// (masks): reduce-scatter (xor hi: 4 shuffles, xor lo: 2), after which the
/// lane holds the full maxima of blocks 4 bHi + 2 bLo + 0..1, whose codes it
/// computes (2 instead of 8 per lane).
__device__ __forceinline__ void scaleCodes2(const float r[8], int lane, int hi,
                                            int lo, DType fp8,
                                            E8M0Rounding rounding,
                                            uint8_t e[2]) {
  const bool bh = lane & hi, bl = lane & lo;
  float h[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
    h[k] = maxNum(bh ? r[k + 4] : r[k],
                  __shfl_xor_sync(0xFFFFFFFFu, bh ? r[k] : r[k + 4], hi));
#pragma unroll
  for (int k = 0; k < 2; ++k)
    e[k] = mxfp8ScaleFromAmax(
        maxNum(bl ? h[k + 2] : h[k],
               __shfl_xor_sync(0xFFFFFFFFu, bl ? h[k] : h[k + 2], lo)),
        fp8, rounding);
}

/// All-gather of scaleCodes2's codes over the same 4 lanes: codes[0] =
/// blocks 0..3, codes[1] = blocks 4..7, block b in byte b % 4.
__device__ __forceinline__ void
gatherCodes8(const uint8_t e[2], int lane, int hi, int lo, uint32_t codes[2]) {
  const bool bh = lane & hi, bl = lane & lo;
  uint32_t w = (uint32_t(e[0]) | (uint32_t(e[1]) << 8)) << (bl ? 16 : 0);
  w |= __shfl_xor_sync(0xFFFFFFFFu, w, lo);               // blocks 4 bh + 0..3
  const uint32_t o = __shfl_xor_sync(0xFFFFFFFFu, w, hi); // the other half
  codes[0] = bh ? o : w;
  codes[1] = bh ? w : o;
}

/// MXFP8 on warp tiles of 32 rows x 64 columns (lane = 8 * rowGroup +
/// colChunk), grid-stride over warp tiles with the next tile's x prefetched
/// into registers: f32 inputs and 32x32 blocks. x is kept packed (bf16/f16: 32
/// registers per tile) and unpacked once per pass; the fp8 type is a template
/// parameter so that the scale math's constants fold. Column scales are
/// stored as 8 bytes per lane when `packColScales`.
template <InKind T, bool E5M2>
__global__ void __launch_bounds__(kFastThreads, 2)
    mxfp8TileKernel(const Storage<T> *x, int64_t M, int64_t K, MXFP8Args a,
                    bool packColScales) {
  constexpr DType fp8 = E5M2 ? DType::E5M2 : DType::E4M3;
  const int lane = threadIdx.x & 31;
  const int cc = lane & 7, rg = lane >> 3;
  const int64_t tilesK = K / 64, tiles = (M / 32) * tilesK;
  const int64_t nWarps = (int64_t(gridDim.x) * blockDim.x) >> 5;
  int64_t w = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5;
  RawRows<T> cur;
  if (w < tiles)
    loadRaw<T>(x, (w / tilesK) * 32 + rg * 8, (w % tilesK) * 64 + cc * 8, K,
               true, cur);
  for (; w < tiles; w += nWarps) {
    const int64_t mBlock = (w / tilesK) * 32;
    const int64_t m = mBlock + rg * 8;
    const int64_t k = (w % tilesK) * 64 + cc * 8;
    RawRows<T> next;
    const int64_t wn = w + nWarps;
    if (wn < tiles)
      loadRaw<T>(x, (wn / tilesK) * 32 + rg * 8, (wn % tilesK) * 64 + cc * 8, K,
                 true, next);
    float cm[8], rm[8];
    subTileMaxima<T>(cur, rm, cm);
    uint8_t *colScaleRow =
        a.colScale ? a.colScale + (mBlock / 32) * a.colScaleStride + k
                   : nullptr;
    if (a.twoD) {
      float b = cm[0];
#pragma unroll
      for (int j = 1; j < 8; ++j)
        b = maxNum(b, cm[j]);
      b = shflMax(shflMax(shflMax(shflMax(b, 8), 16), 1), 2);
      const uint8_t e = mxfp8ScaleFromAmax(b, fp8, a.rounding);
      const float f = e8m0Reciprocal(e);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float v[8];
        unpackRow<T>(cur, i, v);
        const uint2 c = encodeScaled8(v, f, E5M2);
        if (a.rowData)
          store8(a.rowData + (m + i) * K + k, c);
        if (a.colData)
          store8(a.colData + (m + i) * K + k, c);
        if (a.rowScale && (cc & 3) == 0)
          a.rowScale[(m + i) * a.rowScaleStride + k / 32] = e;
      }
      if (colScaleRow && rg == 0) {
        if (packColScales) {
          const uint32_t e4 = e * 0x01010101u;
          store8(colScaleRow, make_uint2(e4, e4));
        } else {
#pragma unroll
          for (int j = 0; j < 8; ++j)
            colScaleRow[j] = e;
        }
      }
    } else {
      if (a.rowData) {
        // Each of the 4 lanes of a 1x32 block computes the E8M0 codes of 2
        // of its 8 rows (rows 2 (lane & 3) + 0..1) and stores them; the 8
        // codes are then gathered as bytes.
        uint8_t e2[2];
        scaleCodes2(rm, lane, 2, 1, fp8, a.rounding, e2);
#pragma unroll
        for (int q = 0; q < 2; ++q)
          a.rowScale[(m + 2 * (lane & 3) + q) * a.rowScaleStride + k / 32] =
              e2[q];
        uint32_t codes[2];
        gatherCodes8(e2, lane, 2, 1, codes);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          float v[8];
          unpackRow<T>(cur, i, v);
          store8(a.rowData + (m + i) * K + k,
                 encodeScaled8(v,
                               e8m0Reciprocal(static_cast<uint8_t>(
                                   codes[i / 4] >> (8 * (i % 4)))),
                               E5M2));
        }
      }
      if (a.colData) {
        // The 32x1 blocks: cm[] holds the lane's 8 column maxima over its
        // 8 rows; the 4 lanes of a column chunk (lane bits 3, 4) each
        // finish 2 columns (4 b4 + 2 b3 + 0..1), then gather the codes.
        uint8_t e2[2];
        scaleCodes2(cm, lane, 16, 8, fp8, a.rounding, e2);
        float f[8];
        uint32_t packed[2];
        gatherCodes8(e2, lane, 16, 8, packed);
#pragma unroll
        for (int j = 0; j < 8; ++j)
          f[j] = e8m0Reciprocal(
              static_cast<uint8_t>(packed[j / 4] >> (8 * (j % 4))));
        if (rg == 0) {
          if (packColScales) {
            store8(colScaleRow, make_uint2(packed[0], packed[1]));
          } else {
#pragma unroll
            for (int j = 0; j < 8; ++j)
              colScaleRow[j] =
                  static_cast<uint8_t>(packed[j / 4] >> (8 * (j % 4)));
          }
        }
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          float v[8];
          unpackRow<T>(cur, i, v);
          uint2 c;
          c.x = encodeFP8x4(v[0] * f[0], v[1] * f[1], v[2] * f[2], v[3] * f[3],
                            E5M2);
          c.y = encodeFP8x4(v[4] * f[4], v[5] * f[5], v[6] * f[6], v[7] * f[7],
                            E5M2);
          store8(a.colData + (m + i) * K + k, c);
        }
      }
    }
    cur = next;
  }
}

/// MXFP8 1x32 + 32x1 on 128x128 tiles (one per 256-thread block at a time,
/// persistent grid), the thread layout of the per-tensor and Float8Block
/// tile kernels: thread (g, c) = rows 8g..8g+7 x columns 8c..8c+7, so that
/// a half-warp stores one 128-byte row segment of either copy (both [M, K]).
/// 1x32 blocks: 4 neighbouring lanes (scaleCodes2 / gatherCodes8 as in
/// mxfp8TileKernel). 32x1 blocks span 4 row groups = 2 warps: the column
/// maxima over a warp's 16 rows go through shared memory, 128 threads make
/// 4 column codes each (one 4-byte store of the compact column scales per
/// thread, a warp = one 128-byte row of them) into `colCode`, and each
/// thread reads its 8 codes back. Partial tiles: M % 32 == 0, K % 64 == 0
/// keep 32-row and 32-column blocks whole; row groups and column chunks
/// outside [M, K] are loaded as zeros and not stored. No 32x32 mode
/// (mxfp8TileKernel does it).
template <InKind T, bool E5M2>
__global__ void __launch_bounds__(kFastThreads, 2)
    mxfp8BlockTileKernel(const Storage<T> *x, int64_t M, int64_t K, MXFP8Args a,
                         bool packColScales) {
  constexpr DType fp8 = E5M2 ? DType::E5M2 : DType::E4M3;
  constexpr int Stages = kTileStages<T>;
  extern __shared__ uint4 tileSmem[];
  __shared__ __align__(16) float part[8][kTile];
  __shared__ __align__(16) uint32_t colCode[4][kTile / 4];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int c = lane & 15, g = (warp << 1) | (lane >> 4);
  const int tilesM = static_cast<int>((M + kTile - 1) / kTile),
            tilesK = static_cast<int>((K + kTile - 1) / kTile),
            tiles = tilesM * tilesK;
  auto where = [&](int t, int64_t &row, int64_t &col) {
    int mb = 0, kb = 0;
    tileCoords32(t, tilesM, tilesK, kTileGroup, mb, kb);
    row = int64_t(mb) * kTile + 8 * g;
    col = int64_t(kb) * kTile + 8 * c;
    return row < M && col < K;
  };
  TilePipe<T, Stages> pipe(tileSmem);
  pipe.start(x, K, where, blockIdx.x, gridDim.x, tiles);
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int64_t row = 0, col = 0;
    const bool valid = where(t, row, col);
    const int64_t m0 = row - 8 * g, k0 = col - 8 * c;
    RawRows<T> cur;
    pipe.take(cur);
    pipe.advance(x, K, where, t + pipe.kDepth * gridDim.x, tiles);
    float cm[8], rm[8];
    subTileMaxima<T>(cur, rm, cm);
    if (a.rowData) {
      // Each of the 4 lanes of a 1x32 block computes the E8M0 codes of 2 of
      // its 8 rows (rows 2 (lane & 3) + 0..1) and stores them; the 8 codes
      // are then gathered as bytes.
      uint8_t e2[2];
      scaleCodes2(rm, lane, 2, 1, fp8, a.rounding, e2);
      if (valid)
#pragma unroll
        for (int q = 0; q < 2; ++q)
          a.rowScale[(row + 2 * (lane & 3) + q) * a.rowScaleStride + col / 32] =
              e2[q];
      uint32_t codes[2];
      gatherCodes8(e2, lane, 2, 1, codes);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float v[8];
        unpackRow<T>(cur, i, v);
        const uint2 q = encodeScaled8(
            v,
            e8m0Reciprocal(static_cast<uint8_t>(codes[i / 4] >> (8 * (i % 4)))),
            E5M2);
        if (valid)
          store8(a.rowData + (row + i) * K + col, q);
      }
    }
    if (a.colData) {
      // Column maxima over the warp's 16 rows, then over the 2 warps of each
      // 32-row block.
#pragma unroll
      for (int j = 0; j < 8; ++j)
        cm[j] = shflMax(cm[j], 16);
      if (lane < 16) {
        *reinterpret_cast<float4 *>(&part[warp][8 * c]) =
            make_float4(cm[0], cm[1], cm[2], cm[3]);
        *reinterpret_cast<float4 *>(&part[warp][8 * c + 4]) =
            make_float4(cm[4], cm[5], cm[6], cm[7]);
      }
      __syncthreads(); // part
      if (tid < kTile) {
        const int rb = tid >> 5, q = 4 * (tid & 31);
        const float4 p0 = *reinterpret_cast<const float4 *>(&part[2 * rb][q]);
        const float4 p1 =
            *reinterpret_cast<const float4 *>(&part[2 * rb + 1][q]);
        const uint32_t w =
            uint32_t(mxfp8ScaleFromAmax(maxNum(p0.x, p1.x), fp8, a.rounding)) |
            (uint32_t(mxfp8ScaleFromAmax(maxNum(p0.y, p1.y), fp8, a.rounding))
             << 8) |
            (uint32_t(mxfp8ScaleFromAmax(maxNum(p0.z, p1.z), fp8, a.rounding))
             << 16) |
            (uint32_t(mxfp8ScaleFromAmax(maxNum(p0.w, p1.w), fp8, a.rounding))
             << 24);
        colCode[rb][tid & 31] = w;
        if (m0 + 32 * rb < M && k0 + q < K) {
          uint8_t *dst =
              a.colScale + (m0 / 32 + rb) * a.colScaleStride + k0 + q;
          if (packColScales) {
            *reinterpret_cast<uint32_t *>(dst) = w;
          } else {
#pragma unroll
            for (int b = 0; b < 4; ++b)
              dst[b] = static_cast<uint8_t>(w >> (8 * b));
          }
        }
      }
      __syncthreads(); // colCode
      const uint2 packed =
          *reinterpret_cast<const uint2 *>(&colCode[g >> 2][2 * c]);
      float f[8];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        f[j] = e8m0Reciprocal(static_cast<uint8_t>(
            (j < 4 ? packed.x : packed.y) >> (8 * (j % 4))));
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float v[8];
        unpackRow<T>(cur, i, v);
        uint2 q;
        q.x = encodeFP8x4(v[0] * f[0], v[1] * f[1], v[2] * f[2], v[3] * f[3],
                          E5M2);
        q.y = encodeFP8x4(v[4] * f[4], v[5] * f[5], v[6] * f[6], v[7] * f[7],
                          E5M2);
        if (valid)
          store8(a.colData + (row + i) * K + col, q);
      }
    }
  }
}

template <template <InKind> class F, typename... Args>
cudaError_t dispatchIn(DType t, Args &&...args) {
  switch (t) {
  case DType::BF16:
    return F<InKind::BF16>::run(args...);
  case DType::F16:
    return F<InKind::F16>::run(args...);
  default:
    return F<InKind::F32>::run(args...);
  }
}

template <InKind T> struct AmaxLaunch {
  static cudaError_t run(const void *x, int64_t n, float *amax,
                         cudaStream_t stream) {
    static int perSM = 0;
    unsigned grid = warpGrid(amaxFastKernel<T>, &perSM, n / 8 / 32 + 1);
    amaxFastKernel<T><<<grid, kFastThreads, 0, stream>>>(
        static_cast<const Storage<T> *>(x), n, amax);
    return cudaGetLastError();
  }
};

template <InKind T> struct PerTensorLaunch {
  static cudaError_t run(const void *x, int64_t M, int64_t K,
                         const PerTensorScale &sc, DType fp8, uint8_t *data,
                         uint8_t *tr, float *scaleInv, float *amaxOut,
                         cudaStream_t stream) {
    const int64_t tiles = ((M + kTile - 1) / kTile) * ((K + kTile - 1) / kTile);
    if (tiles > INT32_MAX)
      return cudaErrorInvalidConfiguration;
    static int perSM = 0;
    // The register pipe stages the transposed codes in 2 tiles of its own.
    const size_t smem = pipeSmem<T, kTileStages<T>>(2 * kTile * kTile);
    unsigned grid = tileGrid(perTensorTileKernel<T>, &perSM, tiles, smem);
    perTensorTileKernel<T><<<grid, kFastThreads, smem, stream>>>(
        static_cast<const Storage<T> *>(x), M, K, sc, fp8 == DType::E5M2, data,
        tr, scaleInv, amaxOut, /*reverse=*/sc.amaxPtr != nullptr);
    return cudaGetLastError();
  }
};

bool cooperativeLaunch() {
  static const bool ok = [] {
    int dev = 0, v = 0;
    return cudaGetDevice(&dev) == cudaSuccess &&
           cudaDeviceGetAttribute(&v, cudaDevAttrCooperativeLaunch, dev) ==
               cudaSuccess &&
           v != 0;
  }();
  return ok;
}

template <InKind T> struct CurrentFusedLaunch {
  /// cudaErrorNotSupported if the fused kernel cannot be launched (no
  /// cooperative launch, or the grid does not fit; nothing was enqueued).
  static cudaError_t run(const void *x, int64_t M, int64_t K, DType fp8,
                         bool pow2, float eps, uint8_t *data, uint8_t *tr,
                         float *acc, float *amaxOut, cudaStream_t stream) {
    if (!cooperativeLaunch())
      return cudaErrorNotSupported;
    static int perSM = 0;
    const int64_t tiles = ((M + kTile - 1) / kTile) * ((K + kTile - 1) / kTile);
    const unsigned grid = blockGrid(currentFusedKernel<T>, &perSM, tiles);
    cudaError_t e = cudaMemsetAsync(acc, 0, sizeof(float), stream);
    if (e != cudaSuccess)
      return e;
    const Storage<T> *xs = static_cast<const Storage<T> *>(x);
    float fmax = fp8Max(fp8);
    bool e5m2 = fp8 == DType::E5M2;
    void *args[] = {&xs,   &M,    &K,  &fmax, &pow2,   &eps,
                    &e5m2, &data, &tr, &acc,  &amaxOut};
    e = cudaLaunchCooperativeKernel(
        reinterpret_cast<const void *>(&currentFusedKernel<T>), dim3(grid),
        dim3(kFastThreads), args, 0, stream);
    if (e == cudaErrorCooperativeLaunchTooLarge) {
      (void)cudaGetLastError();
      return cudaErrorNotSupported; // acc is zeroed again by the fallback
    }
    return e;
  }
};

template <InKind T> struct MXFP8Launch {
  static cudaError_t run(const void *x, int64_t M, int64_t K,
                         const MXFP8Args &a, cudaStream_t stream) {
    const int64_t tiles128 =
        ((M + kTile - 1) / kTile) * ((K + kTile - 1) / kTile);
    if constexpr (T != InKind::F32) {
      if (!a.twoD && tiles128 <= INT32_MAX) {
        const bool pack =
            a.colScale && aligned(a.colScale, 4) && a.colScaleStride % 4 == 0;
        auto launch = [&](auto kernel, int *perSM) {
          constexpr size_t smem = pipeSmem<T, kTileStages<T>>(0);
          unsigned grid = tileGrid(kernel, perSM, tiles128, smem);
          kernel<<<grid, kFastThreads, smem, stream>>>(
              static_cast<const Storage<T> *>(x), M, K, a, pack);
          return cudaGetLastError();
        };
        static int perSMBlock[2] = {};
        if (a.fp8 == DType::E5M2)
          return launch(mxfp8BlockTileKernel<T, true>, &perSMBlock[1]);
        return launch(mxfp8BlockTileKernel<T, false>, &perSMBlock[0]);
      }
    }
    const int64_t tiles = (M / 32) * (K / 64);
    const bool pack =
        a.colScale && aligned(a.colScale, 8) && a.colScaleStride % 8 == 0;
    auto launch = [&](auto kernel, int *perSM) {
      unsigned grid = warpGrid(kernel, perSM, tiles);
      kernel<<<grid, kFastThreads, 0, stream>>>(
          static_cast<const Storage<T> *>(x), M, K, a, pack);
      return cudaGetLastError();
    };
    static int perSM4 = 0, perSM5 = 0;
    if (a.fp8 == DType::E5M2)
      return launch(mxfp8TileKernel<T, true>, &perSM5);
    return launch(mxfp8TileKernel<T, false>, &perSM4);
  }
};

template <InKind T> struct BlockLaunch {
  static cudaError_t run(const void *x, int64_t M, int64_t K,
                         const BlockArgs &a, cudaStream_t stream) {
    const int64_t tiles = (M / kTile) * (K / kTile);
    if (tiles > INT32_MAX)
      return cudaErrorInvalidConfiguration;
    // The register pipe stages the transposed codes in one tile of its own.
    constexpr size_t smem = pipeSmem<T, kTileStages<T>>(kTile * kTile);
    auto launch = [&](auto kernel, int *perSM) {
      unsigned grid = tileGrid(kernel, perSM, tiles, smem);
      kernel<<<grid, kFastThreads, smem, stream>>>(
          static_cast<const Storage<T> *>(x), M, K, a);
      return cudaGetLastError();
    };
    static int perSM4 = 0, perSM5 = 0;
    if (a.fp8 == DType::E5M2)
      return launch(blockTileKernel<T, true>, &perSM5);
    return launch(blockTileKernel<T, false>, &perSM4);
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Predicates and launchers
//===----------------------------------------------------------------------===//

bool amaxFastPath(const void *x, DType t) {
  return vectorInput(t) && aligned(x, 16);
}

bool perTensorFastPath(const void *x, DType t, int64_t M, int64_t K,
                       const void *data, const void *tr) {
  return vectorInput(t) && M > 0 && K > 0 && M % 32 == 0 && K % 64 == 0 &&
         aligned(x, 16) && aligned(data, 8) && aligned(tr, 16);
}

bool mxfp8FastPath(const void *x, DType t, int64_t M, int64_t K,
                   const void *rowData, const void *colData) {
  return vectorInput(t) && M > 0 && K > 0 && M % 32 == 0 && K % 64 == 0 &&
         aligned(x, 16) && aligned(rowData, 8) && aligned(colData, 8);
}

bool blockFastPath(const void *x, DType t, int64_t M, int64_t K,
                   const void *rowData, const void *colData) {
  return vectorInput(t) && M > 0 && K > 0 && M % 128 == 0 && K % 128 == 0 &&
         aligned(x, 16) && aligned(rowData, 8) && aligned(colData, 8);
}

cudaError_t launchAmaxFast(const void *x, DType dtype, int64_t n, float *amax,
                           cudaStream_t stream) {
  return dispatchIn<AmaxLaunch>(dtype, x, n, amax, stream);
}

cudaError_t launchPerTensorCastFast(const void *x, DType inType, int64_t M,
                                    int64_t K, const float *scale, DType fp8,
                                    uint8_t *data, uint8_t *transposed,
                                    float *scaleInv, float *amaxOut,
                                    cudaStream_t stream) {
  PerTensorScale sc;
  sc.scalePtr = scale;
  return dispatchIn<PerTensorLaunch>(inType, x, M, K, sc, fp8, data, transposed,
                                     scaleInv, amaxOut, stream);
}

cudaError_t launchCurrentCastFast(const void *x, DType inType, int64_t M,
                                  int64_t K, const float *amax, DType fp8,
                                  bool pow2, float eps, uint8_t *data,
                                  uint8_t *transposed, float *scaleInv,
                                  float *amaxOut, cudaStream_t stream) {
  PerTensorScale sc;
  sc.amaxPtr = amax;
  sc.fp8Max = fp8Max(fp8);
  sc.pow2 = pow2;
  sc.eps = eps;
  cudaError_t e = dispatchIn<PerTensorLaunch>(
      inType, x, M, K, sc, fp8, data, transposed, nullptr, nullptr, stream);
  if (e != cudaSuccess)
    return e;
  currentScaleInvKernel<<<1, 1, 0, stream>>>(amax, sc.fp8Max, pow2, eps,
                                             scaleInv, amaxOut);
  return cudaGetLastError();
}

cudaError_t launchCurrentQuantizeFast(const void *x, DType inType, int64_t M,
                                      int64_t K, DType fp8, bool pow2,
                                      float eps, uint8_t *data,
                                      uint8_t *transposed, float *scaleInv,
                                      float *amaxOut, cudaStream_t stream) {
  cudaError_t e =
      dispatchIn<CurrentFusedLaunch>(inType, x, M, K, fp8, pow2, eps, data,
                                     transposed, scaleInv, amaxOut, stream);
  if (e != cudaErrorNotSupported)
    return e;
  // Unfused: the amax pass accumulates into scale_inv, the cast computes
  // the scale from it, the last kernel overwrites it with 1 / scale.
  e = cudaMemsetAsync(scaleInv, 0, sizeof(float), stream);
  if (e == cudaSuccess)
    e = launchAmaxFast(x, inType, M * K, scaleInv, stream);
  if (e == cudaSuccess)
    e = launchCurrentCastFast(x, inType, M, K, scaleInv, fp8, pow2, eps, data,
                              transposed, scaleInv, amaxOut, stream);
  return e;
}

cudaError_t launchMXFP8QuantizeFast(const void *x, int64_t M, int64_t K,
                                    const MXFP8Args &args,
                                    cudaStream_t stream) {
  return dispatchIn<MXFP8Launch>(args.inType, x, M, K, args, stream);
}

cudaError_t launchBlockQuantizeFast(const void *x, int64_t M, int64_t K,
                                    const BlockArgs &args,
                                    cudaStream_t stream) {
  return dispatchIn<BlockLaunch>(args.inType, x, M, K, args, stream);
}

} // namespace te::rt::cuda
