//===- FlashForwardSm90Ws.cu - Flash attention forward (warp-specialized) -===//
//
// Part of te. Internal to libte_rt's cuda backend. sm_90a only.
//
//===----------------------------------------------------------------------===//
//
// The forward as FlashAttention-3 runs it on Hopper: one CTA per (128 query
// rows, query head, batch) of three warpgroups.
// * Warpgroup 0 is the producer: one thread copies Q once and then each K and
//   V block of 128 keys with the bulk tensor copy engine (TMA, 128-byte
//   swizzle: the panel layout of FlashSm90.cuh) into rings of two stages,
//   each stage a "full" mbarrier (the copy's bytes) and an "empty" one (the
//   8 consumer warps release it). Its registers are lowered to 24 per
//   thread (setmaxnreg) so that the consumers get 240.
// * Warpgroups 1 and 2 are the consumers, 64 query rows each, running the
//   products of FlashForwardSm90.cu's overlapped kernel (S(j+1) = Q K(j+1)ᵀ
//   and O += P(j) V(j) issued together, the softmax of S(j+1) while P(j) V(j)
//   runs) and taking turns at the tensor cores (ping-pong): a consumer
//   issues its products only after the other has issued its own, through
//   two named barriers, so that one's softmax runs under the other's
//   products.
// The softmax, masks and epilogue are FlashCommon.cuh's. No CTA-wide barrier
// after the set-up: the stages' mbarriers order everything.
//
//===----------------------------------------------------------------------===//

#include "FlashAttention.h"
#include "FlashCommon.cuh"
#include "FlashSm90.cuh"

#include <cuda.h>

#include <algorithm>

namespace te::rt::cuda::attn {
namespace {

using namespace sm90;

/// The kernel's parameter: the forward's and the tensor maps of Q, K and V
/// (dimensions: head dim, rows, heads, batch; boxes of 64 x 128).
struct WsParams {
  FwdParams p;
  CUtensorMap q, k, v;
};

constexpr int kBM = 128, kBN = 128, kStages = 2;
/// Named barriers 1 and 2: the turns of consumers 0 and 1.
constexpr int kTurnBarrier = 1;

/// A mask element type (MaskCode) as the consumers read it: two elements
/// (columns j, j + 1 of a row) per load, kept as loaded (Raw) until the
/// scores they are added to are ready.
template <int MC> struct MaskRegs;
template <> struct MaskRegs<kMaskF32> {
  using Raw = float2;
  static constexpr int kBytes = 4;
  static __device__ __forceinline__ Raw pair(const unsigned char *q) {
    return __ldg(reinterpret_cast<const float2 *>(q));
  }
  static __device__ __forceinline__ Raw two(const unsigned char *q,
                                            int64_t step, bool ok0, bool ok1) {
    const float *f = reinterpret_cast<const float *>(q);
    return make_float2(ok0 ? __ldg(f) : 0.0f,
                       ok1 ? __ldg(reinterpret_cast<const float *>(q + step))
                           : 0.0f);
  }
  static __device__ __forceinline__ float value(Raw r, int e) {
    return e ? r.y : r.x;
  }
};
/// bf16, f16 (16-bit elements) and the boolean mask (bytes) keep two
/// elements in one register.
template <int MC, typename E> struct MaskRegs16 {
  using Raw = uint32_t;
  static constexpr int kBytes = sizeof(E);
  static __device__ __forceinline__ Raw pair(const unsigned char *q) {
    if constexpr (sizeof(E) == 2)
      return __ldg(reinterpret_cast<const unsigned int *>(q));
    else
      return __ldg(reinterpret_cast<const unsigned short *>(q));
  }
  static __device__ __forceinline__ Raw two(const unsigned char *q,
                                            int64_t step, bool ok0, bool ok1) {
    const E *e0 = reinterpret_cast<const E *>(q);
    const E *e1 = reinterpret_cast<const E *>(q + step);
    const uint32_t lo = ok0 ? uint32_t(__ldg(e0)) : 0u;
    const uint32_t hi = ok1 ? uint32_t(__ldg(e1)) : 0u;
    return lo | (hi << (8 * sizeof(E)));
  }
  static __device__ __forceinline__ float value(Raw r, int e) {
    const uint32_t bits =
        e ? r >> (8 * sizeof(E)) : r & ((1u << (8 * sizeof(E))) - 1);
    if constexpr (MC == kMaskBF16)
      return __uint_as_float(bits << 16);
    else if constexpr (MC == kMaskF16)
      return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
    else
      return bits ? 0.0f : -INFINITY;
  }
};
template <>
struct MaskRegs<kMaskBF16> : MaskRegs16<kMaskBF16, unsigned short> {};
template <> struct MaskRegs<kMaskF16> : MaskRegs16<kMaskF16, unsigned short> {};
template <>
struct MaskRegs<kMaskBool> : MaskRegs16<kMaskBool, unsigned char> {};
template <> struct MaskRegs<kMaskNone> { using Raw = uint32_t; };

/// Issues the loads of a key block's mask elements of this thread: rows
/// row[0], row[1] (at rowPtr), columns col0 + 8 i (+1) of tile i. Pairs are
/// read with one load when `pairs` (unit column stride, aligned) and both
/// columns are < S.
template <int MC, int NT>
__device__ __forceinline__ void
loadMask(typename MaskRegs<MC>::Raw (*m)[2], const FwdParams &p,
         const unsigned char *const *rowPtr, int col0, bool pairs) {
  using M = MaskRegs<MC>;
  const int64_t step = p.msc * M::kBytes;
#pragma unroll
  for (int i = 0; i < NT; ++i) {
    const int j = col0 + 8 * i;
#pragma unroll
    for (int rr = 0; rr < 2; ++rr) {
      const unsigned char *q = rowPtr[rr] + j * step;
      if (pairs && j + 1 < p.S)
        m[i][rr] = M::pair(q);
      else
        m[i][rr] = M::two(q, step, j < p.S, j + 1 < p.S);
    }
  }
}

/// softmaxScores with the mask elements from registers (loadMask).
template <int MC, int NT>
__device__ __forceinline__ void
softmaxMasked(float (*s)[4], const typename MaskRegs<MC>::Raw (*m)[2],
              float *scaleOld, float *rowMax, float *rowSum, const FwdParams &p,
              const int *row, int col0, bool edge) {
  using M = MaskRegs<MC>;
#pragma unroll
  for (int i = 0; i < NT; ++i) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int r = row[e >> 1];
      const int j = col0 + i * 8 + (e & 1);
      float x = (s[i][e] * p.scale + M::value(m[i][e >> 1], e & 1)) * kLog2e;
      if (edge && (j >= p.S || (p.causal && j > r)))
        x = -INFINITY;
      s[i][e] = x;
    }
  }
  softmaxLog2<NT>(s, scaleOld, rowMax, rowSum);
}

template <typename T, int D, int MC>
__global__ void __launch_bounds__(384, 1)
    flashForwardSm90Ws(const __grid_constant__ WsParams w) {
#if TE_ATTN_WGMMA
  constexpr int BM = kBM, BN = kBN;
  constexpr uint32_t kTileBytes = BN * D * sizeof(T);
  const FwdParams &p = w.p;
  extern __shared__ unsigned char smemRaw[];
  T *const sQ = reinterpret_cast<T *>(
      (reinterpret_cast<uintptr_t>(smemRaw) + 1023) & ~uintptr_t(1023));
  T *const sK = sQ + BM * D;           // stage s at sK + s BN D
  T *const sV = sK + kStages * BN * D; // stage s at sV + s BN D
  uint64_t *const qFull = reinterpret_cast<uint64_t *>(sV + kStages * BN * D);
  uint64_t *const kFull = qFull + 1;
  uint64_t *const kEmpty = kFull + kStages;
  uint64_t *const vFull = kEmpty + kStages;
  uint64_t *const vEmpty = vFull + kStages;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int role = warp >> 2; // 0 producer, 1 and 2 consumers
  const int mBlock = gridDim.x - 1 - blockIdx.x;
  const int h = blockIdx.y, b = blockIdx.z;
  const int hk = h / p.group;
  const int m0 = mBlock * BM;
  int keyEnd = p.S;
  if (p.causal)
    keyEnd = min(keyEnd, m0 + BM);
  const int nBlocks = (keyEnd + BN - 1) / BN;

  if (tid == 0) {
    mbarInit(qFull, 1);
#pragma unroll
    for (int s = 0; s < kStages; ++s) {
      mbarInit(kFull + s, 1);
      mbarInit(vFull + s, 1);
      mbarInit(kEmpty + s, 8); // one arrival per consumer warp
      mbarInit(vEmpty + s, 8);
    }
    mbarInitFence();
  }
  __syncthreads();

  if (role == 0) {
    setMaxRegsDec<24>();
    if (tid == 0 && nBlocks > 0) {
      // Iteration it copies key block nBlocks - 1 - it into stage it % 2.
      mbarArriveExpectTx(qFull, BM * D * sizeof(T));
#pragma unroll
      for (int c = 0; c < D; c += 64)
        tmaLoad4d(sQ + (c / 64) * BM * 64, &w.q, qFull, c, m0, h, b);
      for (int it = 0; it < nBlocks; ++it) {
        const int s = it % kStages, phase = (it / kStages) & 1;
        const int n0 = (nBlocks - 1 - it) * BN;
        mbarWait(kEmpty + s, phase ^ 1);
        mbarArriveExpectTx(kFull + s, kTileBytes);
#pragma unroll
        for (int c = 0; c < D; c += 64)
          tmaLoad4d(sK + s * BN * D + (c / 64) * BN * 64, &w.k, kFull + s, c,
                    n0, hk, b);
        mbarWait(vEmpty + s, phase ^ 1);
        mbarArriveExpectTx(vFull + s, kTileBytes);
#pragma unroll
        for (int c = 0; c < D; c += 64)
          tmaLoad4d(sV + s * BN * D + (c / 64) * BN * 64, &w.v, vFull + s, c,
                    n0, hk, b);
      }
    }
  } else {
    setMaxRegsInc<240>();
    const int cw = role - 1;    // the consumer: query rows 64 cw ..
    const int cwarp = warp - 4; // 16 query rows per warp
    const int g = lane >> 2, t = lane & 3;
    const int row[2] = {m0 + cwarp * 16 + g, m0 + cwarp * 16 + g + 8};
    const T *sQw = sQ + cw * 64 * 64;
    auto edgeOf = [&](int nb) {
      const int n0 = nb * BN;
      return n0 + BN > p.S || (p.causal && n0 + BN - 1 > m0);
    };
    float acc[D / 8][4];
#pragma unroll
    for (int i = 0; i < D / 8; ++i)
      acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
    float rowMax[2] = {-INFINITY, -INFINITY}, rowSum[2] = {0.0f, 0.0f};
    uint32_t pa[BN / 16][4];
    using Mask = MaskRegs<MC>;
    const unsigned char *maskRow[2] = {nullptr, nullptr};
    if constexpr (MC != kMaskNone) {
      const int64_t base = b * p.msb + h * p.msh;
#pragma unroll
      for (int rr = 0; rr < 2; ++rr)
        maskRow[rr] = static_cast<const unsigned char *>(p.mask) +
                      (base + min(row[rr], p.L - 1) * p.msr) * Mask::kBytes;
    }
    typename Mask::Raw maskRaw[MC != kMaskNone ? BN / 8 : 1][2];
    // Block nb's mask elements, loaded while its scores are computed.
    auto loadMaskOf = [&](int nb) {
      if constexpr (MC != kMaskNone)
        loadMask<MC, BN / 8>(maskRaw, p, maskRow, nb * BN + 2 * t,
                             p.maskPairs != 0);
    };
    auto softmaxOf = [&](float(*s)[4], float *scaleOld, int nb) {
      if constexpr (MC != kMaskNone)
        softmaxMasked<MC, BN / 8>(s, maskRaw, scaleOld, rowMax, rowSum, p, row,
                                  nb * BN + 2 * t, edgeOf(nb));
      else
        softmaxScores<BN / 8, false>(s, scaleOld, rowMax, rowSum, p, b, h, row,
                                     nb * BN + 2 * t, edgeOf(nb));
    };
    // A consumer's turn: it waits on its barrier for the other's arrival.
    auto takeTurn = [&] { namedBarrierSync(kTurnBarrier + cw, 256); };
    auto passTurn = [&] { namedBarrierArrive(kTurnBarrier + (cw ^ 1), 256); };
    auto issueScores = [&](float(*s)[4], int st) {
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        const int panel = (kk * 16) >> 6, col = (kk * 16) & 63;
        wgmmaSS128<T>(&s[0][0], descriptor(sQw + panel * BM * 64 + col),
                      descriptor(sK + st * BN * D + panel * BN * 64 + col),
                      kk > 0);
      }
      wgmmaCommit();
    };
    auto issuePV = [&](float(*acc)[4], uint32_t(*pa)[4], int st) {
#pragma unroll
      for (int kk = 0; kk < BN / 16; ++kk) {
#pragma unroll
        for (int dp = 0; dp < D / 64; ++dp)
          wgmmaRS64<T>(
              &acc[dp * 8][0], pa[kk],
              descriptor(sV + st * BN * D + dp * BN * 64 + kk * 16 * 64));
      }
      wgmmaCommit();
    };
    auto packP = [&](uint32_t(*pa)[4], float(*s)[4]) {
#pragma unroll
      for (int kk = 0; kk < BN / 16; ++kk) {
        pa[kk][0] = Elem<T>::pack(s[2 * kk][0], s[2 * kk][1]);
        pa[kk][1] = Elem<T>::pack(s[2 * kk][2], s[2 * kk][3]);
        pa[kk][2] = Elem<T>::pack(s[2 * kk + 1][0], s[2 * kk + 1][1]);
        pa[kk][3] = Elem<T>::pack(s[2 * kk + 1][2], s[2 * kk + 1][3]);
      }
    };

    // Consumer 0 takes the first turn.
    if (cw == 1)
      namedBarrierArrive(kTurnBarrier, 256);

    if (nBlocks > 0) {
      mbarWait(qFull, 0);
      mbarWait(kFull, 0);
      float s[BN / 8][4];
#pragma unroll
      for (int i = 0; i < BN / 8; ++i)
        s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.0f;
      takeTurn();
      fenceRegs(&s[0][0], BN / 2);
      wgmmaFence();
      issueScores(s, 0);
      passTurn();
      loadMaskOf(nBlocks - 1);
      wgmmaWait0();
      fenceRegs(&s[0][0], BN / 2);
      if (lane == 0)
        mbarArrive(kEmpty);
      float scaleOld[2];
      softmaxOf(s, scaleOld, nBlocks - 1);
      packP(pa, s);
    }

    for (int it = 1; it < nBlocks; ++it) {
      const int nb = nBlocks - 1 - it;
      const int st = it % kStages, phase = (it / kStages) & 1;
      const int pst = (it - 1) % kStages, pphase = ((it - 1) / kStages) & 1;
      mbarWait(kFull + st, phase);
      mbarWait(vFull + pst, pphase);
      float s[BN / 8][4];
#pragma unroll
      for (int i = 0; i < BN / 8; ++i)
        s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.0f;
      takeTurn();
      fenceRegs(&s[0][0], BN / 2);
      fenceRegs(&acc[0][0], D / 2);
      fenceRegs(&pa[0][0], BN / 4);
      wgmmaFence();
      issueScores(s, st);
      issuePV(acc, pa, pst);
      passTurn();
      loadMaskOf(nb);
      wgmmaWait1(); // S done; P V may still run
      fenceRegs(&s[0][0], BN / 2);
      if (lane == 0)
        mbarArrive(kEmpty + st);
      float scaleOld[2];
      softmaxOf(s, scaleOld, nb);
      wgmmaWait0();
      fenceRegs(&acc[0][0], D / 2);
      fenceRegs(&pa[0][0], BN / 4);
      if (lane == 0)
        mbarArrive(vEmpty + pst);
      rescale<D / 8>(acc, scaleOld);
      packP(pa, s);
    }

    if (nBlocks > 0) {
      const int pst = (nBlocks - 1) % kStages,
                pphase = ((nBlocks - 1) / kStages) & 1;
      mbarWait(vFull + pst, pphase);
      takeTurn();
      fenceRegs(&acc[0][0], D / 2);
      fenceRegs(&pa[0][0], BN / 4);
      wgmmaFence();
      issuePV(acc, pa, pst);
      passTurn();
      wgmmaWait0();
      fenceRegs(&acc[0][0], D / 2);
    }
    // Consumer 1's last turn passed to consumer 0 (or the first, when there
    // is no key block) is taken here, so that no barrier is left pending.
    if (cw == 0)
      takeTurn();

    storeOutput<T, D / 8>(acc, rowSum, rowMax, p, b, h, row, t);
  }
#endif
}

//===----------------------------------------------------------------------===//
// Host side: tensor maps and launch
//===----------------------------------------------------------------------===//

using EncodeTiled = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t,
                                 void *, const cuuint64_t *, const cuuint64_t *,
                                 const cuuint32_t *, const cuuint32_t *,
                                 CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion,
                                 CUtensorMapFloatOOBfill);

/// cuTensorMapEncodeTiled through cudart (libte_rt does not link the
/// driver library itself); null when the driver lacks it.
EncodeTiled encodeTiled() {
  static EncodeTiled fn = [] {
    void *f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000,
                                         cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return static_cast<EncodeTiled>(nullptr);
    }
    return reinterpret_cast<EncodeTiled>(f);
  }();
  return fn;
}

/// The tensor map of one [batch, heads, rows, D] operand: boxes of 64
/// columns x 128 rows, 128-byte swizzle, rows past the end read as zeros.
bool tensorMap(CUtensorMap &m, const Operand &x, int batch, int heads, int rows,
               int D, bool f16) {
  EncodeTiled encode = encodeTiled();
  if (!encode)
    return false;
  const cuuint64_t esize = 2;
  // A size-1 dimension is never stepped (its stride in Operand is 0); the
  // map still wants a nonzero multiple of 16 bytes.
  const cuuint64_t rowBytes = static_cast<cuuint64_t>(x.sr) * esize;
  const cuuint64_t fallback =
      std::max<cuuint64_t>(16, rowBytes * std::max(rows, 1));
  cuuint64_t dims[4] = {static_cast<cuuint64_t>(D),
                        static_cast<cuuint64_t>(std::max(rows, 1)),
                        static_cast<cuuint64_t>(std::max(heads, 1)),
                        static_cast<cuuint64_t>(std::max(batch, 1))};
  cuuint64_t strides[3] = {
      rowBytes ? rowBytes : 16,
      x.sh ? static_cast<cuuint64_t>(x.sh) * esize : fallback,
      x.sb ? static_cast<cuuint64_t>(x.sb) * esize : fallback};
  cuuint32_t box[4] = {64, static_cast<cuuint32_t>(kBN), 1, 1};
  cuuint32_t elemStrides[4] = {1, 1, 1, 1};
  return encode(&m,
                f16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                    : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                4, x.data, dims, strides, box, elemStrides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

template <typename T, int D, int MC>
cudaError_t launchWs(const WsParams &w, cudaStream_t stream) {
  const FwdParams &p = w.p;
  const size_t smem = static_cast<size_t>(kBM + 4 * kBN) * D * sizeof(T) +
                      1024 + (1 + 4 * kStages) * sizeof(uint64_t);
  auto kernel = flashForwardSm90Ws<T, D, MC>;
  cudaError_t e = cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (e != cudaSuccess)
    return e;
  dim3 grid((p.L + kBM - 1) / kBM, p.Hq, p.B);
  kernel<<<grid, 384, smem, stream>>>(w);
  return cudaGetLastError();
}

template <typename T, int D>
cudaError_t forwardWsFor(const WsParams &w, cudaStream_t stream) {
  switch (w.p.maskCode) {
  case kMaskF32:
    return launchWs<T, D, kMaskF32>(w, stream);
  case kMaskBF16:
    return launchWs<T, D, kMaskBF16>(w, stream);
  case kMaskF16:
    return launchWs<T, D, kMaskF16>(w, stream);
  case kMaskBool:
    return launchWs<T, D, kMaskBool>(w, stream);
  default:
    return launchWs<T, D, kMaskNone>(w, stream);
  }
}

} // namespace

cudaError_t forwardSm90Ws(const FwdParams &p, bool f16, cudaStream_t stream) {
  if (p.B == 0 || p.Hq == 0 || p.L == 0)
    return cudaSuccess;
  WsParams w;
  w.p = p;
  if (!tensorMap(w.q, p.q, p.B, p.Hq, p.L, p.headDim, f16) ||
      !tensorMap(w.k, p.k, p.B, p.Hkv, p.S, p.headDim, f16) ||
      !tensorMap(w.v, p.v, p.B, p.Hkv, p.S, p.headDim, f16))
    return cudaErrorInvalidValue;
  if (f16)
    return p.headDim == 64 ? forwardWsFor<__half, 64>(w, stream)
                           : forwardWsFor<__half, 128>(w, stream);
  return p.headDim == 64 ? forwardWsFor<__nv_bfloat16, 64>(w, stream)
                         : forwardWsFor<__nv_bfloat16, 128>(w, stream);
}

} // namespace te::rt::cuda::attn
