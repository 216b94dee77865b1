//===- FlashCommon.cuh - Flash attention device helpers --------*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// What the forward and backward flash-attention kernels share: the kernel
// parameters, the tensor-core primitives (cp.async global -> shared,
// ldmatrix shared -> registers, mma.sync m16n8k16 with fp32 accumulation),
// the XOR-swizzled shared-memory tile layout, and the mask element read.
//
// Fragment layouts of mma.sync.m16n8k16 (g = lane / 4, t = lane % 4):
//   A (16 x 16, row major): a0 (g, 2t..2t+1), a1 (g+8, 2t..), a2 (g, 2t+8..),
//                           a3 (g+8, 2t+8..)
//   B (16 x 8, k x n):      b0 (k 2t..2t+1, n g), b1 (k 2t+8.., n g)
//   C (16 x 8):             c0 c1 (g, 2t..2t+1), c2 c3 (g+8, 2t..2t+1)
// so the C fragments of two adjacent n-tiles of S, rounded to 16 bits, are
// the A fragment of P for the next product (P stays in registers).
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_ATTENTION_FLASHCOMMON_CUH
#define TE_RT_CUDA_ATTENTION_FLASHCOMMON_CUH

#include "FlashAttention.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace te::rt::cuda::attn {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

template <typename T> struct Elem;
template <> struct Elem<__nv_bfloat16> {
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&v);
  }
  static __device__ __forceinline__ float2 unpack(uint32_t u) {
    __nv_bfloat162 v = *reinterpret_cast<__nv_bfloat162 *>(&u);
    return __bfloat1622float2(v);
  }
  static __device__ __forceinline__ void mma(float *c, const uint32_t *a,
                                             uint32_t b0, uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0),
                   "r"(b1));
  }
};
template <> struct Elem<__half> {
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&v);
  }
  static __device__ __forceinline__ float2 unpack(uint32_t u) {
    __half2 v = *reinterpret_cast<__half2 *>(&u);
    return __half22float2(v);
  }
  static __device__ __forceinline__ void mma(float *c, const uint32_t *a,
                                             uint32_t b0, uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0),
                   "r"(b1));
  }
};

//===----------------------------------------------------------------------===//
// Shared memory: tiles of `Cols` 16-bit elements per row, 16-byte chunks
// XOR-swizzled by the row (chunk c of row r at c ^ (r % 8)), so that the 8
// row addresses of an ldmatrix hit 8 different bank groups. Cols >= 64.
//===----------------------------------------------------------------------===//

template <int Cols> __device__ __forceinline__ int swz(int row, int col) {
  static_assert(Cols % 64 == 0, "a swizzled row holds >= 8 chunks");
  return row * Cols + ((((col >> 3) ^ (row & 7))) << 3) + (col & 7);
}

__device__ __forceinline__ uint32_t smemAddr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/// 16 bytes global -> shared; zero-filled (nothing read) when !valid.
__device__ __forceinline__ void cpAsync16(void *smem, const void *gmem,
                                          bool valid) {
  asm volatile(
      "cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smemAddr(smem)),
      "l"(gmem), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cpAsyncCommit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int N> __device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/// Loads rows [0, Rows) x [0, Cols) of a row-major global tile (row stride
/// `rs` elements) into a swizzled shared tile; rows >= nValid are zeros.
template <int Rows, int Cols, int Threads, typename T>
__device__ __forceinline__ void loadTile(T *smem, const T *gmem, int64_t rs,
                                         int nValid, int tid) {
  constexpr int kChunks = Rows * Cols / 8;
  static_assert(kChunks % Threads == 0, "whole chunks per thread");
#pragma unroll
  for (int i = 0; i < kChunks / Threads; ++i) {
    int id = tid + i * Threads;
    int r = id / (Cols / 8), c = (id % (Cols / 8)) * 8;
    bool ok = r < nValid;
    const T *src = ok ? gmem + r * rs + c : gmem;
    cpAsync16(smem + swz<Cols>(r, c), src, ok);
  }
}

__device__ __forceinline__ void ldmatrixX4(uint32_t *r, const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smemAddr(p)));
}
__device__ __forceinline__ void ldmatrixX4T(uint32_t *r, const void *p) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(smemAddr(p)));
}

/// The A fragment (16 x 16) at (row0, col0) of a row-major swizzled tile.
template <int Cols, typename T>
__device__ __forceinline__ void loadA(uint32_t *a, const T *tile, int row0,
                                      int col0, int lane) {
  ldmatrixX4(a, tile + swz<Cols>(row0 + (lane & 15), col0 + (lane >> 4) * 8));
}

/// The B fragments of two n8 tiles (n0..n0+15) x k16 (k0..) of a tile stored
/// [n][k] (K for Q Kᵀ): b[0], b[1] for n0, b[2], b[3] for n0 + 8.
template <int Cols, typename T>
__device__ __forceinline__ void loadBNK(uint32_t *b, const T *tile, int n0,
                                        int k0, int lane) {
  ldmatrixX4(b, tile + swz<Cols>(n0 + (lane >> 4) * 8 + (lane & 7),
                                 k0 + ((lane >> 3) & 1) * 8));
}

/// The B fragments of two n8 tiles (n0..n0+15) x k16 (k0..) of a tile stored
/// [k][n] (V for P V): b[0], b[1] for n0, b[2], b[3] for n0 + 8.
template <int Cols, typename T>
__device__ __forceinline__ void loadBKN(uint32_t *b, const T *tile, int k0,
                                        int n0, int lane) {
  ldmatrixX4T(b, tile + swz<Cols>(k0 + (lane & 7) + ((lane >> 3) & 1) * 8,
                                  n0 + (lane >> 4) * 8));
}

/// The A fragment (16 x 16) at (row0, col0) of the transpose of a tile
/// stored [col][row] (dSᵀ read as dS).
template <int Cols, typename T>
__device__ __forceinline__ void loadAT(uint32_t *a, const T *tile, int row0,
                                       int col0, int lane) {
  int i = lane >> 3;
  ldmatrixX4T(a, tile + swz<Cols>(col0 + (i >> 1) * 8 + (lane & 7),
                                  row0 + (i & 1) * 8));
}

/// 2^x on the special-function unit (flush-to-zero; 2^-inf = 0).
__device__ __forceinline__ float fastExp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

/// The additive mask value (or 0 / -inf of a boolean mask) at (b, h, i, j).
__device__ __forceinline__ float maskValue(const FwdParams &p, int b, int h,
                                           int i, int j) {
  int64_t off = b * p.msb + h * p.msh + i * p.msr + j * p.msc;
  switch (p.maskCode) {
  case kMaskF32:
    return static_cast<const float *>(p.mask)[off];
  case kMaskBF16:
    return __bfloat162float(static_cast<const __nv_bfloat16 *>(p.mask)[off]);
  case kMaskF16:
    return __half2float(static_cast<const __half *>(p.mask)[off]);
  case kMaskBool:
    return static_cast<const uint8_t *>(p.mask)[off] ? 0.0f : -INFINITY;
  default:
    return 0.0f;
  }
}

//===----------------------------------------------------------------------===//
// The forward's softmax and epilogue, on accumulators in the mma.sync C
// layout (also wgmma's): a thread holds rows g and g + 8 of its warp's 16,
// columns 8 i + 2 t and 8 i + 2 t + 1 of each n8 tile i.
//===----------------------------------------------------------------------===//

/// The online-softmax update of one key block on scores already in the log2
/// domain (scaled, masked, exclusions at -inf): turns them into P (fp32,
/// unnormalized), updates the running row maxima and sums, and gives the
/// factor by which the output accumulators are to be rescaled.
template <int NT>
__device__ __forceinline__ void softmaxLog2(float (*s)[4], float *scaleOld,
                                            float *rowMax, float *rowSum) {
  // A quad of lanes shares a row.
#pragma unroll
  for (int rr = 0; rr < 2; ++rr) {
    float mx = rowMax[rr];
#pragma unroll
    for (int i = 0; i < NT; ++i)
      mx = fmaxf(mx, fmaxf(s[i][2 * rr], s[i][2 * rr + 1]));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    // A row with no key so far keeps m = -inf and subtracts 0.
    const float base = mx == -INFINITY ? 0.0f : mx;
    scaleOld[rr] = fastExp2(rowMax[rr] - base);
    rowMax[rr] = mx;
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < NT; ++i) {
      s[i][2 * rr] = fastExp2(s[i][2 * rr] - base);
      s[i][2 * rr + 1] = fastExp2(s[i][2 * rr + 1] - base);
      sum += s[i][2 * rr] + s[i][2 * rr + 1];
    }
    rowSum[rr] = rowSum[rr] * scaleOld[rr] + sum;
  }
}

/// One key block of the online softmax: turns the scores s (NT n8 tiles,
/// key col0 + 8 i (+1) for tile i) into P (fp32, unnormalized), updates the
/// running row maxima (log2 domain) and sums, and gives the factor by which
/// the output accumulators are to be rescaled. `edge`: the block has keys
/// >= S or above the diagonal, so each element is tested.
template <int NT, bool HasMask>
__device__ __forceinline__ void
softmaxScores(float (*s)[4], float *scaleOld, float *rowMax, float *rowSum,
              const FwdParams &p, int b, int h, const int *row, int col0,
              bool edge) {
#pragma unroll
  for (int i = 0; i < NT; ++i) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int r = row[e >> 1];
      const int j = col0 + i * 8 + (e & 1);
      float x;
      if constexpr (HasMask) {
        x = (s[i][e] * p.scale +
             maskValue(p, b, h, min(r, p.L - 1), min(j, p.S - 1))) *
            kLog2e;
      } else {
        x = s[i][e] * p.scaleLog2;
      }
      if (edge && (j >= p.S || (p.causal && j > r)))
        x = -INFINITY;
      s[i][e] = x;
    }
  }
  softmaxLog2<NT>(s, scaleOld, rowMax, rowSum);
}

/// Multiplies the output accumulators (DT n8 tiles) by the rows' factors.
template <int DT>
__device__ __forceinline__ void rescale(float (*acc)[4],
                                        const float *scaleOld) {
#pragma unroll
  for (int i = 0; i < DT; ++i) {
    acc[i][0] *= scaleOld[0];
    acc[i][1] *= scaleOld[0];
    acc[i][2] *= scaleOld[1];
    acc[i][3] *= scaleOld[1];
  }
}

/// softmaxScores, then the accumulators rescaled.
template <int NT, int DT, bool HasMask>
__device__ __forceinline__ void
softmaxStep(float (*s)[4], float (*acc)[4], float *rowMax, float *rowSum,
            const FwdParams &p, int b, int h, const int *row, int col0,
            bool edge) {
  float scaleOld[2];
  softmaxScores<NT, HasMask>(s, scaleOld, rowMax, rowSum, p, b, h, row, col0,
                             edge);
  rescale<DT>(acc, scaleOld);
}

/// O = acc / l (0 for a row with no key) and LSE = m ln2 + ln(l) (-inf for
/// a row with no key) of rows row[0], row[1] < L.
template <typename T, int DT>
__device__ __forceinline__ void
storeOutput(float (*acc)[4], float *rowSum, const float *rowMax,
            const FwdParams &p, int b, int h, const int *row, int t) {
  T *gO = static_cast<T *>(p.o.data) + b * p.o.sb + h * p.o.sh;
#pragma unroll
  for (int rr = 0; rr < 2; ++rr) {
    float l = rowSum[rr];
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    const int r = row[rr];
    if (r < p.L) {
      T *dst = gO + r * p.o.sr + 2 * t;
#pragma unroll
      for (int i = 0; i < DT; ++i)
        *reinterpret_cast<uint32_t *>(dst + i * 8) =
            Elem<T>::pack(acc[i][2 * rr] * inv, acc[i][2 * rr + 1] * inv);
      if (p.lse && (threadIdx.x & 3) == 0)
        p.lse[(static_cast<int64_t>(b) * p.Hq + h) * p.L + r] =
            l > 0.0f ? rowMax[rr] * kLn2 + logf(l) : -INFINITY;
    }
  }
}

} // namespace te::rt::cuda::attn

#endif // TE_RT_CUDA_ATTENTION_FLASHCOMMON_CUH
