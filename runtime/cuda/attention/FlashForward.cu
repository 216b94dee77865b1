//===- FlashForward.cu - Flash attention forward (mma.sync) ----*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// FlashAttention-2's forward: one CTA per (query block of BM rows, query
// head, batch), kWarps warps of 16 query rows each; key/value blocks of BN
// rows stream through shared memory (cp.async), S = Q Kᵀ and O += P V run on
// mma.sync m16n8k16 with fp32 accumulators, and the softmax is online in
// fp32 in the log2 domain (scale·log2(e) folded into one multiply, exp2).
// P is rounded to the input type before P V; the row sum l adds the
// unrounded P. Key columns >= S, causal (top-left) and mask exclusions are
// -inf; blocks wholly above the diagonal are skipped. A row with no key
// gives O = 0 and LSE = -inf. The LSE saved is scale·m + ln(l) (natural
// log), per row.
//
//===----------------------------------------------------------------------===//

#include "FlashAttention.h"
#include "FlashCommon.cuh"

namespace te::rt::cuda::attn {
namespace {

template <typename T, int D, int kWarps, int BN, bool HasMask>
__global__ void __launch_bounds__(kWarps * 32) flashForward(const FwdParams p) {
  constexpr int BM = 16 * kWarps;
  constexpr int kThreads = kWarps * 32;
  extern __shared__ __align__(128) unsigned char smemRaw[];
  T *sQ = reinterpret_cast<T *>(smemRaw);
  T *sK = sQ + BM * D;
  T *sV = sK + BN * D;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  // Heavy (late, for causal) query blocks first.
  const int mBlock = gridDim.x - 1 - blockIdx.x;
  const int h = blockIdx.y, b = blockIdx.z;
  const int hk = h / p.group;
  const int m0 = mBlock * BM;

  const T *gQ =
      static_cast<const T *>(p.q.data) + b * p.q.sb + h * p.q.sh + m0 * p.q.sr;
  const T *gK = static_cast<const T *>(p.k.data) + b * p.k.sb + hk * p.k.sh;
  const T *gV = static_cast<const T *>(p.v.data) + b * p.v.sb + hk * p.v.sh;

  // Key blocks [0, nBlocks): causal rows < m0 + BM see keys <= m0 + BM - 1.
  int keyEnd = p.S;
  if (p.causal)
    keyEnd = min(keyEnd, m0 + BM);
  const int nBlocks = (keyEnd + BN - 1) / BN;

  loadTile<BM, D, kThreads>(sQ, gQ, p.q.sr, p.L - m0, tid);
  cpAsyncCommit();
  if (nBlocks > 0) {
    const int n0 = (nBlocks - 1) * BN;
    loadTile<BN, D, kThreads>(sK, gK + n0 * p.k.sr, p.k.sr, p.S - n0, tid);
  }
  cpAsyncCommit();

  float acc[D / 8][4];
#pragma unroll
  for (int i = 0; i < D / 8; ++i)
    acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
  float rowMax[2] = {-INFINITY, -INFINITY}, rowSum[2] = {0.0f, 0.0f};
  uint32_t qFrag[D / 16][4];

  const int rowLocal = warp * 16 + g;
  const int row[2] = {m0 + rowLocal, m0 + rowLocal + 8};

  for (int nb = nBlocks - 1; nb >= 0; --nb) {
    const int n0 = nb * BN;
    cpAsyncWait<0>();
    __syncthreads(); // K[nb] landed; V free (the last P V is done)
    if (nb == nBlocks - 1) {
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk)
        loadA<D>(qFrag[kk], sQ, warp * 16, kk * 16, lane);
    }
    loadTile<BN, D, kThreads>(sV, gV + n0 * p.v.sr, p.v.sr, p.S - n0, tid);
    cpAsyncCommit();

    // S = Q K^T for the warp's 16 rows.
    float s[BN / 8][4];
#pragma unroll
    for (int i = 0; i < BN / 8; ++i)
      s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
      for (int nn = 0; nn < BN / 16; ++nn) {
        uint32_t bf[4];
        loadBNK<D>(bf, sK, nn * 16, kk * 16, lane);
        Elem<T>::mma(s[2 * nn], qFrag[kk], bf[0], bf[1]);
        Elem<T>::mma(s[2 * nn + 1], qFrag[kk], bf[2], bf[3]);
      }
    }
    __syncthreads(); // every warp is done with K[nb]
    if (nb > 0) {
      const int nNext = (nb - 1) * BN;
      loadTile<BN, D, kThreads>(sK, gK + nNext * p.k.sr, p.k.sr, p.S - nNext,
                                tid);
    }
    cpAsyncCommit();

    const bool edge = n0 + BN > p.S || (p.causal && n0 + BN - 1 > m0);
    softmaxStep<BN / 8, D / 8, HasMask>(s, acc, rowMax, rowSum, p, b, h, row,
                                        n0 + 2 * t, edge);

    if (nb > 0)
      cpAsyncWait<1>();
    else
      cpAsyncWait<0>();
    __syncthreads(); // V[nb] landed

    // O += P V.
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      uint32_t a[4];
      a[0] = Elem<T>::pack(s[2 * kk][0], s[2 * kk][1]);
      a[1] = Elem<T>::pack(s[2 * kk][2], s[2 * kk][3]);
      a[2] = Elem<T>::pack(s[2 * kk + 1][0], s[2 * kk + 1][1]);
      a[3] = Elem<T>::pack(s[2 * kk + 1][2], s[2 * kk + 1][3]);
#pragma unroll
      for (int dn = 0; dn < D / 16; ++dn) {
        uint32_t bf[4];
        loadBKN<D>(bf, sV, kk * 16, dn * 16, lane);
        Elem<T>::mma(acc[2 * dn], a, bf[0], bf[1]);
        Elem<T>::mma(acc[2 * dn + 1], a, bf[2], bf[3]);
      }
    }
  }

  cpAsyncWait<0>(); // Q's copy when no key block ran

  storeOutput<T, D / 8>(acc, rowSum, rowMax, p, b, h, row, t);
}

template <typename T, int D, int kWarps, int BN, bool HasMask>
cudaError_t launchForward(const FwdParams &p, cudaStream_t stream) {
  constexpr int BM = 16 * kWarps;
  const size_t smem = static_cast<size_t>(BM + 2 * BN) * D * sizeof(T);
  auto kernel = flashForward<T, D, kWarps, BN, HasMask>;
  cudaError_t e = cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (e != cudaSuccess)
    return e;
  dim3 grid((p.L + BM - 1) / BM, p.Hq, p.B);
  kernel<<<grid, kWarps * 32, smem, stream>>>(p);
  return cudaGetLastError();
}

template <typename T, int D>
cudaError_t forwardFor(const FwdParams &p, cudaStream_t stream) {
  constexpr int kWarps = 8, BN = 64;
  return p.maskCode != kMaskNone
             ? launchForward<T, D, kWarps, BN, true>(p, stream)
             : launchForward<T, D, kWarps, BN, false>(p, stream);
}

} // namespace

cudaError_t forward(const FwdParams &p, bool f16, cudaStream_t stream) {
  if (p.B == 0 || p.Hq == 0 || p.L == 0)
    return cudaSuccess;
  const int d = p.headDim;
  if (f16)
    return d == 64 ? forwardFor<__half, 64>(p, stream)
                   : forwardFor<__half, 128>(p, stream);
  return d == 64 ? forwardFor<__nv_bfloat16, 64>(p, stream)
                 : forwardFor<__nv_bfloat16, 128>(p, stream);
}

} // namespace te::rt::cuda::attn
