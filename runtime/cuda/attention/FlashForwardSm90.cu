//===- FlashForwardSm90.cu - Flash attention forward (wgmma) ---*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend. sm_90a only.
//
//===----------------------------------------------------------------------===//
//
// The forward on Hopper's warpgroup MMA: one CTA per (128 query rows, query
// head, batch), two warpgroups of 64 rows. K and V blocks of 128 keys are
// double-buffered in shared memory (cp.async, the next block's copy runs
// during the current block's products). S = Q Kᵀ is one wgmma chain with
// both operands in shared memory (K-major); O += P V takes P from registers
// (the S accumulators rounded to 16 bits: the wgmma accumulator layout of a
// warp is the mma.sync one, FlashCommon.cuh) and V from shared memory
// (MN-major). The softmax, masking and epilogue are FlashForward.cu's.
//
// Shared tiles are 64-column panels of 128-byte rows, 16-byte chunks
// XOR-swizzled by row % 8 (the 128-byte swizzle of the wgmma descriptors),
// each panel 1024-byte aligned.
//
//===----------------------------------------------------------------------===//

#include "FlashAttention.h"
#include "FlashCommon.cuh"
#include "FlashSm90.cuh"

namespace te::rt::cuda::attn {
namespace {

using namespace sm90;

template <typename T, int D, bool HasMask>
__global__ void __launch_bounds__(256, 1) flashForwardSm90(const FwdParams p) {
#if TE_ATTN_WGMMA
  constexpr int BM = 128, BN = 128, kThreads = 256;
  extern __shared__ unsigned char smemRaw[];
  T *base = reinterpret_cast<T *>(
      (reinterpret_cast<uintptr_t>(smemRaw) + 1023) & ~uintptr_t(1023));
  T *sQ = base;
  // K and V of buffer c at sQ + BM D + c BN D and + (2 + c) BN D.
  T *const sK0 = sQ + BM * D;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wg = warp >> 2; // the warpgroup: rows 64 wg ..
  const int g = lane >> 2, t = lane & 3;
  const int mBlock = gridDim.x - 1 - blockIdx.x;
  const int h = blockIdx.y, b = blockIdx.z;
  const int hk = h / p.group;
  const int m0 = mBlock * BM;

  const T *gQ =
      static_cast<const T *>(p.q.data) + b * p.q.sb + h * p.q.sh + m0 * p.q.sr;
  const T *gK = static_cast<const T *>(p.k.data) + b * p.k.sb + hk * p.k.sh;
  const T *gV = static_cast<const T *>(p.v.data) + b * p.v.sb + hk * p.v.sh;

  int keyEnd = p.S;
  if (p.causal)
    keyEnd = min(keyEnd, m0 + BM);
  const int nBlocks = (keyEnd + BN - 1) / BN;

  loadPanels<BM, D, kThreads>(sQ, gQ, p.q.sr, p.L - m0, tid);
  if (nBlocks > 0) {
    const int n0 = (nBlocks - 1) * BN;
    loadPanels<BN, D, kThreads>(sK0, gK + n0 * p.k.sr, p.k.sr, p.S - n0, tid);
    loadPanels<BN, D, kThreads>(sK0 + 2 * BN * D, gV + n0 * p.v.sr, p.v.sr,
                                p.S - n0, tid);
  }
  cpAsyncCommit();

  float acc[D / 8][4];
#pragma unroll
  for (int i = 0; i < D / 8; ++i)
    acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
  float rowMax[2] = {-INFINITY, -INFINITY}, rowSum[2] = {0.0f, 0.0f};
  const int row[2] = {m0 + warp * 16 + g, m0 + warp * 16 + g + 8};
  const T *sQw = sQ + wg * 64 * 64; // this warpgroup's rows in each panel

  for (int it = 0, nb = nBlocks - 1; nb >= 0; ++it, --nb) {
    const int cur = it & 1;
    const int n0 = nb * BN;
    cpAsyncWait<0>();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads(); // block nb landed; the other buffer is free
    if (nb > 0) {
      const int nNext = (nb - 1) * BN;
      loadPanels<BN, D, kThreads>(sK0 + (cur ^ 1) * BN * D, gK + nNext * p.k.sr,
                                  p.k.sr, p.S - nNext, tid);
      loadPanels<BN, D, kThreads>(sK0 + (3 - cur) * BN * D, gV + nNext * p.v.sr,
                                  p.v.sr, p.S - nNext, tid);
    }
    cpAsyncCommit();

    // S = Q Kᵀ (64 x 128 per warpgroup).
    float s[BN / 8][4];
#pragma unroll
    for (int i = 0; i < BN / 8; ++i)
      s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.0f;
    fenceRegs(&s[0][0], BN / 2);
    wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      const int panel = (kk * 16) >> 6, col = (kk * 16) & 63;
      wgmmaSS128<T>(&s[0][0], descriptor(sQw + panel * BM * 64 + col),
                    descriptor(sK0 + cur * BN * D + panel * BN * 64 + col),
                    kk > 0);
    }
    wgmmaCommit();
    wgmmaWait0();
    fenceRegs(&s[0][0], BN / 2);

    const bool edge = n0 + BN > p.S || (p.causal && n0 + BN - 1 > m0);
    softmaxStep<BN / 8, D / 8, HasMask>(s, acc, rowMax, rowSum, p, b, h, row,
                                        n0 + 2 * t, edge);

    // O += P V (P rounded to 16 bits first: wgmma reads its registers
    // asynchronously).
    uint32_t pa[BN / 16][4];
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      pa[kk][0] = Elem<T>::pack(s[2 * kk][0], s[2 * kk][1]);
      pa[kk][1] = Elem<T>::pack(s[2 * kk][2], s[2 * kk][3]);
      pa[kk][2] = Elem<T>::pack(s[2 * kk + 1][0], s[2 * kk + 1][1]);
      pa[kk][3] = Elem<T>::pack(s[2 * kk + 1][2], s[2 * kk + 1][3]);
    }
    fenceRegs(&acc[0][0], D / 2);
    wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
#pragma unroll
      for (int dp = 0; dp < D / 64; ++dp)
        wgmmaRS64<T>(
            &acc[dp * 8][0], pa[kk],
            descriptor(sK0 + (2 + cur) * BN * D + dp * BN * 64 + kk * 16 * 64));
    }
    wgmmaCommit();
    wgmmaWait0();
    fenceRegs(&acc[0][0], D / 2);
  }
  cpAsyncWait<0>();

  storeOutput<T, D / 8>(acc, rowSum, rowMax, p, b, h, row, t);
#endif
}

/// The forward with the two products of consecutive key blocks overlapped
/// with the softmax (FlashAttention-3's intra-warpgroup pipelining): while
/// the tensor cores run S(j+1) = Q K(j+1)ᵀ and O += P(j) V(j), the
/// warpgroup waits only for S(j+1), runs its softmax, and rescales O once
/// P(j) V(j) is done. K and V blocks have rings of two; block j+1's K and
/// block j's V are copied during iteration j.
template <typename T, int D, bool HasMask>
__global__ void __launch_bounds__(256, 1)
    flashForwardSm90Overlap(const FwdParams p) {
#if TE_ATTN_WGMMA
  constexpr int BM = 128, BN = 128, kThreads = 256;
  extern __shared__ unsigned char smemRaw[];
  T *base = reinterpret_cast<T *>(
      (reinterpret_cast<uintptr_t>(smemRaw) + 1023) & ~uintptr_t(1023));
  T *const sQ = base;
  T *const sK0 = sQ + BM * D; // K ring at sK0 + c BN D, V ring (2 + c) BN D

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wg = warp >> 2;
  const int g = lane >> 2, t = lane & 3;
  const int mBlock = gridDim.x - 1 - blockIdx.x;
  const int h = blockIdx.y, b = blockIdx.z;
  const int hk = h / p.group;
  const int m0 = mBlock * BM;

  const T *gQ =
      static_cast<const T *>(p.q.data) + b * p.q.sb + h * p.q.sh + m0 * p.q.sr;
  const T *gK = static_cast<const T *>(p.k.data) + b * p.k.sb + hk * p.k.sh;
  const T *gV = static_cast<const T *>(p.v.data) + b * p.v.sb + hk * p.v.sh;

  int keyEnd = p.S;
  if (p.causal)
    keyEnd = min(keyEnd, m0 + BM);
  const int nBlocks = (keyEnd + BN - 1) / BN;
  // Iteration it handles key block nBlocks - 1 - it.
  auto loadK = [&](int nb, int c) {
    const int n0 = nb * BN;
    loadPanels<BN, D, kThreads>(sK0 + c * BN * D, gK + n0 * p.k.sr, p.k.sr,
                                p.S - n0, tid);
  };
  auto loadV = [&](int nb, int c) {
    const int n0 = nb * BN;
    loadPanels<BN, D, kThreads>(sK0 + (2 + c) * BN * D, gV + n0 * p.v.sr,
                                p.v.sr, p.S - n0, tid);
  };
  const T *sQw = sQ + wg * 64 * 64;
  auto issueScores = [&](float(*s)[4], int c) {
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      const int panel = (kk * 16) >> 6, col = (kk * 16) & 63;
      wgmmaSS128<T>(&s[0][0], descriptor(sQw + panel * BM * 64 + col),
                    descriptor(sK0 + c * BN * D + panel * BN * 64 + col),
                    kk > 0);
    }
    wgmmaCommit();
  };
  auto issuePV = [&](float(*acc)[4], uint32_t(*pa)[4], int c) {
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
#pragma unroll
      for (int dp = 0; dp < D / 64; ++dp)
        wgmmaRS64<T>(
            &acc[dp * 8][0], pa[kk],
            descriptor(sK0 + (2 + c) * BN * D + dp * BN * 64 + kk * 16 * 64));
    }
    wgmmaCommit();
  };
  auto edgeOf = [&](int nb) {
    const int n0 = nb * BN;
    return n0 + BN > p.S || (p.causal && n0 + BN - 1 > m0);
  };

  loadPanels<BM, D, kThreads>(sQ, gQ, p.q.sr, p.L - m0, tid);
  if (nBlocks > 0) {
    loadK(nBlocks - 1, 0);
    loadV(nBlocks - 1, 0);
  }
  cpAsyncCommit();

  float acc[D / 8][4];
#pragma unroll
  for (int i = 0; i < D / 8; ++i)
    acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
  float rowMax[2] = {-INFINITY, -INFINITY}, rowSum[2] = {0.0f, 0.0f};
  const int row[2] = {m0 + warp * 16 + g, m0 + warp * 16 + g + 8};
  uint32_t pa[BN / 16][4];

  cpAsyncWait<0>();
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  if (nBlocks > 1)
    loadK(nBlocks - 2, 1);
  cpAsyncCommit();
  if (nBlocks > 0) {
    float s[BN / 8][4];
#pragma unroll
    for (int i = 0; i < BN / 8; ++i)
      s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.0f;
    fenceRegs(&s[0][0], BN / 2);
    wgmmaFence();
    issueScores(s, 0);
    wgmmaWait0();
    fenceRegs(&s[0][0], BN / 2);
    float scaleOld[2];
    softmaxScores<BN / 8, HasMask>(s, scaleOld, rowMax, rowSum, p, b, h, row,
                                   (nBlocks - 1) * BN + 2 * t,
                                   edgeOf(nBlocks - 1));
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      pa[kk][0] = Elem<T>::pack(s[2 * kk][0], s[2 * kk][1]);
      pa[kk][1] = Elem<T>::pack(s[2 * kk][2], s[2 * kk][3]);
      pa[kk][2] = Elem<T>::pack(s[2 * kk + 1][0], s[2 * kk + 1][1]);
      pa[kk][3] = Elem<T>::pack(s[2 * kk + 1][2], s[2 * kk + 1][3]);
    }
  }

  for (int it = 1; it < nBlocks; ++it) {
    const int nb = nBlocks - 1 - it;
    cpAsyncWait<0>();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads(); // K[nb] and V[nb + 1] landed; the other slots are free
    if (nb > 0)
      loadK(nb - 1, (it + 1) & 1);
    loadV(nb, it & 1);
    cpAsyncCommit();

    float s[BN / 8][4];
#pragma unroll
    for (int i = 0; i < BN / 8; ++i)
      s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.0f;
    fenceRegs(&s[0][0], BN / 2);
    fenceRegs(&acc[0][0], D / 2);
    fenceRegs(&pa[0][0], BN / 4);
    wgmmaFence();
    issueScores(s, it & 1);
    issuePV(acc, pa, (it - 1) & 1);
    wgmmaWait1(); // S done; P V may still run
    fenceRegs(&s[0][0], BN / 2);
    float scaleOld[2];
    softmaxScores<BN / 8, HasMask>(s, scaleOld, rowMax, rowSum, p, b, h, row,
                                   nb * BN + 2 * t, edgeOf(nb));
    wgmmaWait0();
    fenceRegs(&acc[0][0], D / 2);
    fenceRegs(&pa[0][0], BN / 4);
    rescale<D / 8>(acc, scaleOld);
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      pa[kk][0] = Elem<T>::pack(s[2 * kk][0], s[2 * kk][1]);
      pa[kk][1] = Elem<T>::pack(s[2 * kk][2], s[2 * kk][3]);
      pa[kk][2] = Elem<T>::pack(s[2 * kk + 1][0], s[2 * kk + 1][1]);
      pa[kk][3] = Elem<T>::pack(s[2 * kk + 1][2], s[2 * kk + 1][3]);
    }
  }
  if (nBlocks > 0) {
    cpAsyncWait<0>();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads(); // V[0] landed
    fenceRegs(&acc[0][0], D / 2);
    fenceRegs(&pa[0][0], BN / 4);
    wgmmaFence();
    issuePV(acc, pa, (nBlocks - 1) & 1);
    wgmmaWait0();
    fenceRegs(&acc[0][0], D / 2);
  }
  cpAsyncWait<0>();

  storeOutput<T, D / 8>(acc, rowSum, rowMax, p, b, h, row, t);
#endif
}

template <typename T, int D, bool HasMask, bool Overlap>
cudaError_t launchSm90(const FwdParams &p, cudaStream_t stream) {
  constexpr int BM = 128, BN = 128;
  const size_t smem = static_cast<size_t>(BM + 4 * BN) * D * sizeof(T) + 1024;
  auto kernel = Overlap ? flashForwardSm90Overlap<T, D, HasMask>
                        : flashForwardSm90<T, D, HasMask>;
  cudaError_t e = cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (e != cudaSuccess)
    return e;
  dim3 grid((p.L + BM - 1) / BM, p.Hq, p.B);
  kernel<<<grid, 256, smem, stream>>>(p);
  return cudaGetLastError();
}

template <typename T, int D>
cudaError_t forwardSm90For(const FwdParams &p, bool overlap,
                           cudaStream_t stream) {
  if (overlap)
    return p.maskCode != kMaskNone ? launchSm90<T, D, true, true>(p, stream)
                                   : launchSm90<T, D, false, true>(p, stream);
  return p.maskCode != kMaskNone ? launchSm90<T, D, true, false>(p, stream)
                                 : launchSm90<T, D, false, false>(p, stream);
}

} // namespace

cudaError_t forwardSm90(const FwdParams &p, bool f16, bool overlap,
                        cudaStream_t stream) {
  if (p.B == 0 || p.Hq == 0 || p.L == 0)
    return cudaSuccess;
  if (f16)
    return p.headDim == 64 ? forwardSm90For<__half, 64>(p, overlap, stream)
                           : forwardSm90For<__half, 128>(p, overlap, stream);
  return p.headDim == 64
             ? forwardSm90For<__nv_bfloat16, 64>(p, overlap, stream)
             : forwardSm90For<__nv_bfloat16, 128>(p, overlap, stream);
}

} // namespace te::rt::cuda::attn
