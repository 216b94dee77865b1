//===- FlashBackward.cu - Flash attention backward (mma.sync) --*- CUDA -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// FlashAttention-2's backward in three launches on one stream:
// 1. preprocess: per query row, delta = rowsum(dO * O) (fp32) and lse2 =
//    LSE·log2(e) (+inf where LSE = -inf, so that the recomputed P of a row
//    with no key is exp2(x - inf) = 0);
// 2. one CTA per (key block of 64 rows, key/value head, batch), 4 warps of
//    16 key rows: dK and dV stay in registers while the CTA walks the query
//    blocks of every query head of its group (GQA sums in registers, no
//    atomics for dK, dV). Per query block: Sᵀ = K Qᵀ, Pᵀ = exp2(scale·log2e·Sᵀ
//    - lse2), dV += Pᵀ dO, dPᵀ = V dOᵀ, dSᵀ = Pᵀ (dPᵀ - delta), dK += dSᵀ Q;
//    dSᵀ goes through shared memory and dQ's partial dS K (warps now own 16
//    query rows each) is added into an fp32 accumulator with atomics;
// 3. dQ = scale · accumulator, converted to the element type.
// P and dS are rounded to the input type before their products, as in the
// forward.
//
//===----------------------------------------------------------------------===//

#include "FlashAttention.h"
#include "FlashCommon.cuh"

#include <algorithm>
#include <atomic>

namespace te::rt::cuda::attn {
namespace {

/// delta and lse2 of every query row; one warp per row.
template <typename T, int D>
__global__ void __launch_bounds__(256) preprocess(const BwdParams p) {
  const int64_t rows = static_cast<int64_t>(p.f.B) * p.f.Hq * p.f.L;
  const int64_t warpId =
      (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (warpId >= rows)
    return;
  const int i = static_cast<int>(warpId % p.f.L);
  const int64_t bh = warpId / p.f.L;
  const int h = static_cast<int>(bh % p.f.Hq),
            b = static_cast<int>(bh / p.f.Hq);
  const T *o = static_cast<const T *>(p.f.o.data) + b * p.f.o.sb +
               h * p.f.o.sh + i * p.f.o.sr;
  const T *dout = static_cast<const T *>(p.dout.data) + b * p.dout.sb +
                  h * p.dout.sh + i * p.dout.sr;
  float sum = 0.0f;
#pragma unroll
  for (int c = 2 * lane; c < D; c += 64) {
    float2 x = Elem<T>::unpack(*reinterpret_cast<const uint32_t *>(o + c));
    float2 y = Elem<T>::unpack(*reinterpret_cast<const uint32_t *>(dout + c));
    sum += x.x * y.x + x.y * y.y;
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (lane == 0) {
    p.delta[warpId] = sum;
    const float l = p.f.lse[warpId];
    p.lse2[warpId] = l == -INFINITY ? INFINITY : l * kLog2e;
  }
}

template <typename T, int D, bool HasMask>
__global__ void __launch_bounds__(128) flashBackward(const BwdParams p) {
  constexpr int kWarps = 4, kThreads = 128;
  constexpr int BN = 16 * kWarps; // keys per CTA
  constexpr int BM = 16 * kWarps; // queries per step
  extern __shared__ __align__(128) unsigned char smemRaw[];
  T *sK = reinterpret_cast<T *>(smemRaw);
  T *sV = sK + BN * D;
  T *sQ = sV + BN * D;
  T *sdO = sQ + BM * D;
  T *sdS = sdO + BM * D; // dSᵀ [BN][BM]
  float *sLse = reinterpret_cast<float *>(sdS + BN * BM);
  float *sDelta = sLse + BM;

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

  for (int hh = 0; hh < f.group; ++hh) {
    const int h = hk * f.group + hh;
    const int64_t rowBase = (static_cast<int64_t>(b) * f.Hq + h) * f.L;
    const T *gQ = static_cast<const T *>(f.q.data) + b * f.q.sb + h * f.q.sh;
    const T *gdO =
        static_cast<const T *>(p.dout.data) + b * p.dout.sb + h * p.dout.sh;
    for (int mb = mStart; mb < mEnd; ++mb) {
      const int m0 = mb * BM;
      __syncthreads(); // the last step is done with sQ, sdO, sdS, sLse
      loadTile<BM, D, kThreads>(sQ, gQ + m0 * f.q.sr, f.q.sr, f.L - m0, tid);
      loadTile<BM, D, kThreads>(sdO, gdO + m0 * p.dout.sr, p.dout.sr, f.L - m0,
                                tid);
      cpAsyncCommit();
      if (tid < BM) {
        const bool ok = m0 + tid < f.L;
        sLse[tid] = ok ? p.lse2[rowBase + m0 + tid] : INFINITY;
        sDelta[tid] = ok ? p.delta[rowBase + m0 + tid] : 0.0f;
      }
      cpAsyncWait<0>();
      __syncthreads();

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
          loadBNK<D>(bf, sQ, qn * 16, kk * 16, lane);
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
          s[i][e] = fastExp2(x - sLse[ql]);
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
          loadBKN<D>(bf, sdO, kk * 16, dn * 16, lane);
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
            loadBNK<D>(bf, sdO, qn * 16, kk * 16, lane);
            Elem<T>::mma(dp[2 * qn], a, bf[0], bf[1]);
            Elem<T>::mma(dp[2 * qn + 1], a, bf[2], bf[3]);
          }
        }
#pragma unroll
        for (int i = 0; i < BM / 8; ++i)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            s[i][e] = s[i][e] * (dp[i][e] - sDelta[i * 8 + 2 * t + (e & 1)]);
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
          loadBKN<D>(bf, sQ, kk * 16, dn * 16, lane);
          Elem<T>::mma(dK[2 * dn], a, bf[0], bf[1]);
          Elem<T>::mma(dK[2 * dn + 1], a, bf[2], bf[3]);
        }
      }
      __syncthreads(); // dSᵀ complete

      // dQ (the warp's 16 query rows) += dS K, added into the accumulator,
      // in column slices of 64 (fewer live registers beside dK and dV).
#pragma unroll
      for (int c0 = 0; c0 < D; c0 += 64) {
        float dq[8][4];
#pragma unroll
        for (int i = 0; i < 8; ++i)
          dq[i][0] = dq[i][1] = dq[i][2] = dq[i][3] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk) {
          uint32_t a[4];
          loadAT<BM>(a, sdS, warp * 16, kk * 16, lane);
#pragma unroll
          for (int dn = 0; dn < 4; ++dn) {
            uint32_t bf[4];
            loadBKN<D>(bf, sK, kk * 16, c0 + dn * 16, lane);
            Elem<T>::mma(dq[2 * dn], a, bf[0], bf[1]);
            Elem<T>::mma(dq[2 * dn + 1], a, bf[2], bf[3]);
          }
        }
#pragma unroll
        for (int rr = 0; rr < 2; ++rr) {
          const int qr = m0 + warp * 16 + g + rr * 8;
          if (qr < f.L) {
            float *dst = p.dqAccum + (rowBase + qr) * D + c0 + 2 * t;
#pragma unroll
            for (int i = 0; i < 8; ++i) {
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

/// dQ = scale · accumulator; one thread per pair of elements.
template <typename T, int D>
__global__ void __launch_bounds__(256) convertDq(const BwdParams p) {
  const int64_t pairs = static_cast<int64_t>(p.f.B) * p.f.Hq * p.f.L * D / 2;
  for (int64_t id = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       id < pairs; id += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t e = id * 2;
    const int c = static_cast<int>(e % D);
    const int64_t row = e / D;
    const int i = static_cast<int>(row % p.f.L);
    const int64_t bh = row / p.f.L;
    const int h = static_cast<int>(bh % p.f.Hq),
              b = static_cast<int>(bh / p.f.Hq);
    const float2 v = *reinterpret_cast<const float2 *>(p.dqAccum + e);
    T *dst = static_cast<T *>(p.dq.data) + b * p.dq.sb + h * p.dq.sh +
             i * p.dq.sr + c;
    *reinterpret_cast<uint32_t *>(dst) =
        Elem<T>::pack(v.x * p.f.scale, v.y * p.f.scale);
  }
}

// The 128-key backward by default: forward + backward 2.50 ms against the
// 64-key kernel's 3.37 ms (causal bf16 B4 H32 S2048 D128, H100; README.md).
std::atomic<int> backwardChoice{static_cast<int>(BackwardKernel::Keys128)};

template <typename T, int D>
cudaError_t backwardFor(const BwdParams &p, bool f16, cudaStream_t stream) {
  const FwdParams &f = p.f;
  const int64_t rows = static_cast<int64_t>(f.B) * f.Hq * f.L;
  if (rows > 0) {
    const int64_t blocks = (rows * 32 + 255) / 256;
    preprocess<T, D><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(p);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
      return e;
  }
  if (f.S > 0 && static_cast<BackwardKernel>(backwardChoice.load()) ==
                     BackwardKernel::Keys128) {
    cudaError_t e = backwardKeyBlocksWide(p, f16, stream);
    if (e != cudaSuccess)
      return e;
  } else if (f.S > 0) {
    constexpr int BN = 64, BM = 64;
    const size_t smem = (2 * BN + 2 * BM) * D * sizeof(T) +
                        BN * BM * sizeof(T) + 2 * BM * sizeof(float);
    auto kernel = f.maskCode != kMaskNone ? flashBackward<T, D, true>
                                          : flashBackward<T, D, false>;
    cudaError_t e = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess)
      return e;
    dim3 grid((f.S + BN - 1) / BN, f.Hkv, f.B);
    kernel<<<grid, 128, smem, stream>>>(p);
    e = cudaGetLastError();
    if (e != cudaSuccess)
      return e;
  }
  if (rows > 0) {
    const int64_t pairs = rows * D / 2;
    const int64_t blocks = std::min<int64_t>((pairs + 255) / 256, 1 << 16);
    convertDq<T, D><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(p);
    return cudaGetLastError();
  }
  return cudaSuccess;
}

} // namespace

void setBackwardKernel(BackwardKernel k) {
  backwardChoice.store(static_cast<int>(k));
}

cudaError_t backward(const BwdParams &p, bool f16, cudaStream_t stream) {
  if (p.f.B == 0 || p.f.Hkv == 0)
    return cudaSuccess;
  if (f16)
    return p.f.headDim == 64 ? backwardFor<__half, 64>(p, true, stream)
                             : backwardFor<__half, 128>(p, true, stream);
  return p.f.headDim == 64 ? backwardFor<__nv_bfloat16, 64>(p, false, stream)
                           : backwardFor<__nv_bfloat16, 128>(p, false, stream);
}

} // namespace te::rt::cuda::attn
