//===- FlashBackwardWide.cu - Flash attention backward, 128-key CTAs -*- CUDA
//-*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// The backward's key-block kernel (FlashBackward.cu's step 2) with CTAs of
// 128 keys: 8 warps of 16 key rows, so that each query block's Q and dO are
// read and its dQ partial sums added once per 128 keys instead of per 64.
// dK and dV stay in registers while the CTA walks the query blocks (64 rows)
// of every query head of its group, the next block's Q, dO, lse2 and delta
// copied (cp.async) into a second buffer during the current one. Per query
// block: Sᵀ = K Qᵀ, Pᵀ = exp2(scale·log2e·Sᵀ - lse2), dV += Pᵀ dO,
// dPᵀ = V dOᵀ, dSᵀ = Pᵀ (dPᵀ - delta), dK += dSᵀ Q; dSᵀ goes through shared
// memory and dQ's partial dS K (each warp now owns 16 query rows and half
// the columns) is added into the fp32 accumulator with atomics. The
// preprocess and the dQ conversion are FlashBackward.cu's.
//
//===----------------------------------------------------------------------===//

#include "FlashAttention.h"
#include "FlashCommon.cuh"

namespace te::rt::cuda::attn {
namespace {

template <typename T, int D, bool HasMask>
__global__ void __launch_bounds__(256) flashBackwardWide(const BwdParams p) {
  constexpr int kWarps = 8, kThreads = 256;
  constexpr int BN = 16 * kWarps; // keys per CTA
  constexpr int BM = 64;          // queries per step
  extern __shared__ __align__(128) unsigned char smemRaw[];
  T *sK = reinterpret_cast<T *>(smemRaw);
  T *sV = sK + BN * D;
  T *sQ = sV + BN * D;       // [2][BM][D]: this step's and the next's
  T *sdO = sQ + 2 * BM * D;  // [2][BM][D]
  T *sdS = sdO + 2 * BM * D; // dSᵀ [BN][BM]
  float *sLse = reinterpret_cast<float *>(sdS + BN * BM); // [2][BM]
  float *sDelta = sLse + 2 * BM;                          // [2][BM]

  const FwdParams &f = p.f;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int nBlock = blockIdx.x, hk = blockIdx.y, b = blockIdx.z;
  const int n0 = nBlock * BN;

  const T *gK =
      static_cast<const T *>(f.k.data) + b * f.k.sb + hk * f.k.sh + n0 * f.k.sr;
  const T *gV =
      static_cast<const T *>(f.v.data) + b * f.v.sb + hk * f.v.sh + n0 * f.v.sr;
  loadTile<BN, D, kThreads>(sK, gK, f.k.sr, f.S - n0, tid);
  loadTile<BN, D, kThreads>(sV, gV, f.v.sr, f.S - n0, tid);
  cpAsyncCommit();

  float dK[D / 8][4], dV[D / 8][4];
#pragma unroll
  for (int i = 0; i < D / 8; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      dK[i][e] = dV[i][e] = 0.0f;

  const int keyRow[2] = {n0 + warp * 16 + g, n0 + warp * 16 + g + 8};
  const int mStart = f.causal ? n0 / BM : 0;
  const int mEnd = (f.L + BM - 1) / BM;

  // Steps: every query block that sees these keys, of every query head of
  // the group; step st is head hk * group + st / nM, query block
  // mStart + st % nM. Step st + 1's Q, dO, lse2 and delta are copied into the
  // other buffer while step st computes.
  const int nM = max(mEnd - mStart, 0);
  const int steps = f.group * nM;
  auto prefetch = [&](int st, int buf) {
    const int h = hk * f.group + st / nM;
    const int m0 = (mStart + st % nM) * BM;
    const int64_t rowBase = (static_cast<int64_t>(b) * f.Hq + h) * f.L;
    loadTile<BM, D, kThreads>(sQ + buf * BM * D,
                              static_cast<const T *>(f.q.data) + b * f.q.sb +
                                  h * f.q.sh + m0 * f.q.sr,
                              f.q.sr, f.L - m0, tid);
    loadTile<BM, D, kThreads>(sdO + buf * BM * D,
                              static_cast<const T *>(p.dout.data) +
                                  b * p.dout.sb + h * p.dout.sh +
                                  m0 * p.dout.sr,
                              p.dout.sr, f.L - m0, tid);
    if (tid < BM) {
      const bool ok = m0 + tid < f.L;
      sLse[buf * BM + tid] = ok ? p.lse2[rowBase + m0 + tid] : INFINITY;
      sDelta[buf * BM + tid] = ok ? p.delta[rowBase + m0 + tid] : 0.0f;
    }
  };
  if (steps > 0)
    prefetch(0, 0);
  cpAsyncCommit();

  for (int st = 0; st < steps; ++st) {
    const int buf = st & 1;
    const int h = hk * f.group + st / nM;
    const int m0 = (mStart + st % nM) * BM;
    const int64_t rowBase = (static_cast<int64_t>(b) * f.Hq + h) * f.L;
    cpAsyncWait<0>();
    __syncthreads(); // this step's tiles landed; the other buffer is free
    if (st + 1 < steps)
      prefetch(st + 1, buf ^ 1);
    cpAsyncCommit();
    const T *sQb = sQ + buf * BM * D;
    const T *sdOb = sdO + buf * BM * D;
    const float *sLseb = sLse + buf * BM;
    const float *sDeltab = sDelta + buf * BM;
    {
      // Sᵀ = K Qᵀ (the warp's 16 keys x BM queries).
      float s[BM / 8][4];
#pragma unroll
      for (int i = 0; i < BM / 8; ++i)
        s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.0f;
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        uint32_t a[4];
        loadA<D>(a, sK, warp * 16, kk * 16, lane);
#pragma unroll
        for (int qn = 0; qn < BM / 16; ++qn) {
          uint32_t bf[4];
          loadBNK<D>(bf, sQb, qn * 16, kk * 16, lane);
          Elem<T>::mma(s[2 * qn], a, bf[0], bf[1]);
          Elem<T>::mma(s[2 * qn + 1], a, bf[2], bf[3]);
        }
      }

      // Pᵀ, recomputed from the saved LSE.
      const bool edge = n0 + BN > f.S || (f.causal && n0 + BN - 1 > m0);
#pragma unroll
      for (int i = 0; i < BM / 8; ++i) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int key = keyRow[e >> 1];
          const int ql = i * 8 + 2 * t + (e & 1);
          const int qr = m0 + ql;
          float x;
          if constexpr (HasMask) {
            x = (s[i][e] * f.scale +
                 maskValue(f, b, h, min(qr, f.L - 1), min(key, f.S - 1))) *
                kLog2e;
          } else {
            x = s[i][e] * f.scaleLog2;
          }
          if (edge && (key >= f.S || (f.causal && key > qr)))
            x = -INFINITY;
          s[i][e] = fastExp2(x - sLseb[ql]);
        }
      }

      // dV += Pᵀ dO.
#pragma unroll
      for (int kk = 0; kk < BM / 16; ++kk) {
        uint32_t a[4];
        a[0] = Elem<T>::pack(s[2 * kk][0], s[2 * kk][1]);
        a[1] = Elem<T>::pack(s[2 * kk][2], s[2 * kk][3]);
        a[2] = Elem<T>::pack(s[2 * kk + 1][0], s[2 * kk + 1][1]);
        a[3] = Elem<T>::pack(s[2 * kk + 1][2], s[2 * kk + 1][3]);
#pragma unroll
        for (int dn = 0; dn < D / 16; ++dn) {
          uint32_t bf[4];
          loadBKN<D>(bf, sdOb, kk * 16, dn * 16, lane);
          Elem<T>::mma(dV[2 * dn], a, bf[0], bf[1]);
          Elem<T>::mma(dV[2 * dn + 1], a, bf[2], bf[3]);
        }
      }

      // dPᵀ = V dOᵀ, then dSᵀ = Pᵀ (dPᵀ - delta), kept in s.
      {
        float dp[BM / 8][4];
#pragma unroll
        for (int i = 0; i < BM / 8; ++i)
          dp[i][0] = dp[i][1] = dp[i][2] = dp[i][3] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
          uint32_t a[4];
          loadA<D>(a, sV, warp * 16, kk * 16, lane);
#pragma unroll
          for (int qn = 0; qn < BM / 16; ++qn) {
            uint32_t bf[4];
            loadBNK<D>(bf, sdOb, qn * 16, kk * 16, lane);
            Elem<T>::mma(dp[2 * qn], a, bf[0], bf[1]);
            Elem<T>::mma(dp[2 * qn + 1], a, bf[2], bf[3]);
          }
        }
#pragma unroll
        for (int i = 0; i < BM / 8; ++i)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            s[i][e] = s[i][e] * (dp[i][e] - sDeltab[i * 8 + 2 * t + (e & 1)]);
      }

      // dK += dSᵀ Q; dSᵀ to shared memory for dQ.
#pragma unroll
      for (int kk = 0; kk < BM / 16; ++kk) {
        uint32_t a[4];
        a[0] = Elem<T>::pack(s[2 * kk][0], s[2 * kk][1]);
        a[1] = Elem<T>::pack(s[2 * kk][2], s[2 * kk][3]);
        a[2] = Elem<T>::pack(s[2 * kk + 1][0], s[2 * kk + 1][1]);
        a[3] = Elem<T>::pack(s[2 * kk + 1][2], s[2 * kk + 1][3]);
        const int r0 = warp * 16 + g;
        *reinterpret_cast<uint32_t *>(sdS + swz<BM>(r0, kk * 16 + 2 * t)) =
            a[0];
        *reinterpret_cast<uint32_t *>(sdS + swz<BM>(r0 + 8, kk * 16 + 2 * t)) =
            a[1];
        *reinterpret_cast<uint32_t *>(sdS + swz<BM>(r0, kk * 16 + 8 + 2 * t)) =
            a[2];
        *reinterpret_cast<uint32_t *>(
            sdS + swz<BM>(r0 + 8, kk * 16 + 8 + 2 * t)) = a[3];
#pragma unroll
        for (int dn = 0; dn < D / 16; ++dn) {
          uint32_t bf[4];
          loadBKN<D>(bf, sQb, kk * 16, dn * 16, lane);
          Elem<T>::mma(dK[2 * dn], a, bf[0], bf[1]);
          Elem<T>::mma(dK[2 * dn + 1], a, bf[2], bf[3]);
        }
      }
      __syncthreads(); // dSᵀ complete

      // dQ += dS K, added into the accumulator: warp w owns query rows
      // 16 (w % 4) .. + 15 and columns (w / 4) D/2 .. + D/2 - 1.
      {
        constexpr int W = D / 2;
        const int qw = warp & 3, c0 = (warp >> 2) * W;
        float dq[W / 8][4];
#pragma unroll
        for (int i = 0; i < W / 8; ++i)
          dq[i][0] = dq[i][1] = dq[i][2] = dq[i][3] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk) {
          uint32_t a[4];
          loadAT<BM>(a, sdS, qw * 16, kk * 16, lane);
#pragma unroll
          for (int dn = 0; dn < W / 16; ++dn) {
            uint32_t bf[4];
            loadBKN<D>(bf, sK, kk * 16, c0 + dn * 16, lane);
            Elem<T>::mma(dq[2 * dn], a, bf[0], bf[1]);
            Elem<T>::mma(dq[2 * dn + 1], a, bf[2], bf[3]);
          }
        }
#pragma unroll
        for (int rr = 0; rr < 2; ++rr) {
          const int qr = m0 + qw * 16 + g + rr * 8;
          if (qr < f.L) {
            float *dst = p.dqAccum + (rowBase + qr) * D + c0 + 2 * t;
#pragma unroll
            for (int i = 0; i < W / 8; ++i) {
              atomicAdd(dst + i * 8, dq[i][2 * rr]);
              atomicAdd(dst + i * 8 + 1, dq[i][2 * rr + 1]);
            }
          }
        }
      }
    }
  }
  cpAsyncWait<0>(); // K and V's copies when no query block ran

  // dK = scale · dSᵀ Q, dV = Pᵀ dO, for the keys < S.
  T *gdK = static_cast<T *>(p.dk.data) + b * p.dk.sb + hk * p.dk.sh;
  T *gdV = static_cast<T *>(p.dv.data) + b * p.dv.sb + hk * p.dv.sh;
#pragma unroll
  for (int rr = 0; rr < 2; ++rr) {
    const int key = keyRow[rr];
    if (key < f.S) {
      T *dk = gdK + key * p.dk.sr + 2 * t;
      T *dv = gdV + key * p.dv.sr + 2 * t;
#pragma unroll
      for (int i = 0; i < D / 8; ++i) {
        *reinterpret_cast<uint32_t *>(dk + i * 8) =
            Elem<T>::pack(dK[i][2 * rr] * f.scale, dK[i][2 * rr + 1] * f.scale);
        *reinterpret_cast<uint32_t *>(dv + i * 8) =
            Elem<T>::pack(dV[i][2 * rr], dV[i][2 * rr + 1]);
      }
    }
  }
}

template <typename T, int D>
cudaError_t launchWide(const BwdParams &p, cudaStream_t stream) {
  const FwdParams &f = p.f;
  constexpr int BN = 128, BM = 64;
  const size_t smem = (2 * BN + 4 * BM) * D * sizeof(T) + BN * BM * sizeof(T) +
                      4 * BM * sizeof(float);
  auto kernel = f.maskCode != kMaskNone ? flashBackwardWide<T, D, true>
                                        : flashBackwardWide<T, D, false>;
  cudaError_t e = cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (e != cudaSuccess)
    return e;
  dim3 grid((f.S + BN - 1) / BN, f.Hkv, f.B);
  kernel<<<grid, 256, smem, stream>>>(p);
  return cudaGetLastError();
}

} // namespace

cudaError_t backwardKeyBlocksWide(const BwdParams &p, bool f16,
                                  cudaStream_t stream) {
  if (f16)
    return p.f.headDim == 64 ? launchWide<__half, 64>(p, stream)
                             : launchWide<__half, 128>(p, stream);
  return p.f.headDim == 64 ? launchWide<__nv_bfloat16, 64>(p, stream)
                           : launchWide<__nv_bfloat16, 128>(p, stream);
}

} // namespace te::rt::cuda::attn
