//===- Attention.cpp - The cpu backend's scaled dot-product attention -----===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The reference of te_rt_attention and te_rt_attention_grad, computed in f32
// in a fixed order, so that its results do not depend on the thread count.
// Operands are first widened to f32 (exactly). For query row i of (batch b,
// query head h), with key/value head h / (Hq / Hkv):
//
//   s_j  = scale * (q_i . k_j)  + mask_ij      the dot in f32, in E order;
//                                              additive mask: its value as
//                                              f32; boolean: -inf where 0;
//          -inf for j > i when causal
//   m    = max_j s_j,  p_j = exp(s_j - m),  l = sum_j p_j   (j order)
//   o_i  = (sum_j p_j v_j) / l                 (j order; rounded once)
//   lse_i = m + ln l
//
// A row without a finite score (every key masked, or S = 0) gives o_i = 0
// and lse_i = -inf. Keys with s_j = -inf are skipped (their p_j is 0).
//
// The backward recomputes P from lse: p_ij = exp(s_ij - lse_i) (0 where
// lse_i = -inf), D_i = dO_i . O_i (O as stored), dP_ij = dO_i . v_j,
// dS_ij = p_ij (dP_ij - D_i), and
//   dQ_i = scale * sum_j dS_ij k_j,   dK_j = scale * sum_(h, i) dS_ij q_i,
//   dV_j = sum_(h, i) p_ij dO_i
// (the (h, i) sums over the query heads of the key/value head's group, then
// the query rows). dQ is computed per query row, dK and dV per key row, each
// by one thread: no atomics.
//
//===----------------------------------------------------------------------===//

#include "cpu/Attention.h"
#include "cpu/Parallel.h"

#include "te/Format/Codecs.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <vector>

namespace te::rt::cpu {
namespace {

using format::DType;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// Work (multiply-adds) per chunk of the parallel loops.
constexpr int64_t kGrainWork = 1 << 15;

float load(const void *p, DType t, int64_t i) {
  switch (t) {
  case DType::BF16:
    return format::bf16ToFloat(static_cast<const uint16_t *>(p)[i]);
  case DType::F16:
    return format::f16ToFloat(static_cast<const uint16_t *>(p)[i]);
  default:
    return static_cast<const float *>(p)[i];
  }
}

void store(const void *p, DType t, int64_t i, float v) {
  void *q = const_cast<void *>(p);
  switch (t) {
  case DType::BF16:
    static_cast<uint16_t *>(q)[i] = format::floatToBF16(v);
    break;
  case DType::F16:
    static_cast<uint16_t *>(q)[i] = format::floatToF16(v);
    break;
  default:
    static_cast<float *>(q)[i] = v;
  }
}

/// Element offset of row (b, h, r) of a 4-D operand.
int64_t rowOffset(const AttentionOperand &x, int64_t b, int64_t h, int64_t r) {
  return b * x.strides[0] + h * x.strides[1] + r * x.strides[2];
}

int64_t grainRows(int64_t workPerRow) {
  return std::max<int64_t>(1, kGrainWork / std::max<int64_t>(workPerRow, 1));
}

/// Runs parallelFor, turning an exception of a chunk (std::bad_alloc of its
/// scratch) into a flag: parallelFor's body must not throw.
template <typename Body>
bool tryParallelFor(int64_t n, int threads, int64_t grain, Body body) {
  std::atomic<bool> failed{false};
  parallelFor(n, threads, grain, [&](int64_t b, int64_t e) {
    try {
      body(b, e);
    } catch (...) {
      failed.store(true);
    }
  });
  return !failed.load();
}

/// `x` widened to f32, contiguous [d0, d1, d2, d3].
std::vector<float> widen(const AttentionOperand &x, DType t, int threads) {
  const int64_t H = x.shape[1], R = x.shape[2], C = x.shape[3];
  const int64_t rows = x.shape[0] * H * R;
  std::vector<float> out(static_cast<size_t>(rows * C));
  if (rows * C == 0)
    return out;
  parallelFor(rows, threads, grainRows(C), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t base = rowOffset(x, r / (H * R), (r / R) % H, r % R);
      for (int64_t c = 0; c < C; ++c)
        out[static_cast<size_t>(r * C + c)] = load(x.data, t, base + c);
    }
  });
  return out;
}

/// The scores of an attention, from the widened q and k.
class Scores {
public:
  Scores(const Attention &a, const float *q, const float *k)
      : a(a), q(q), k(k), Hq(a.q.shape[1]), L(a.q.shape[2]), E(a.q.shape[3]),
        Hkv(a.k.shape[1]), S(a.k.shape[2]),
        group(std::max<int64_t>(Hkv ? Hq / Hkv : 1, 1)) {}

  /// s_ij of query row (b, h, i) and key j.
  float operator()(int64_t b, int64_t h, int64_t i, int64_t j) const {
    if (a.causal && j > i)
      return kNegInf;
    const float *qi = q + ((b * Hq + h) * L + i) * E;
    const float *kj = k + ((b * Hkv + h / group) * S + j) * E;
    float dot = 0.0f;
    for (int64_t e = 0; e < E; ++e)
      dot += qi[e] * kj[e];
    float s = a.scale * dot;
    if (a.maskKind == AttentionMask::None)
      return s;
    const int64_t off = rowOffset(a.mask, b, h, i) + j * a.mask.strides[3];
    if (a.maskKind == AttentionMask::Boolean)
      return static_cast<const uint8_t *>(a.mask.data)[off] ? s : kNegInf;
    return s + load(a.mask.data, a.maskType, off);
  }

private:
  const Attention &a;
  const float *q, *k;
  int64_t Hq, L, E, Hkv, S, group;
};

float dot(const float *x, const float *y, int64_t n) {
  float acc = 0.0f;
  for (int64_t e = 0; e < n; ++e)
    acc += x[e] * y[e];
  return acc;
}

te_rt_status forward(const Attention &a, int threads) {
  ScopedIEEEFloatEnvironment ieee;
  const int64_t B = a.q.shape[0], Hq = a.q.shape[1], L = a.q.shape[2],
                E = a.q.shape[3], Hkv = a.k.shape[1], S = a.k.shape[2],
                Ev = a.v.shape[3];
  const int64_t rows = B * Hq * L;
  if (rows == 0)
    return TE_RT_OK;
  const int64_t group = Hq / Hkv;
  const std::vector<float> q = widen(a.q, a.dtype, threads),
                           k = widen(a.k, a.dtype, threads),
                           v = widen(a.v, a.dtype, threads);
  const Scores score(a, q.data(), k.data());
  const bool ok = tryParallelFor(
      rows, threads, grainRows(S * (E + Ev)), [&](int64_t begin, int64_t end) {
        std::vector<float> s(static_cast<size_t>(S)),
            acc(static_cast<size_t>(Ev));
        for (int64_t r = begin; r < end; ++r) {
          const int64_t b = r / (Hq * L), h = (r / L) % Hq, i = r % L;
          float m = kNegInf;
          for (int64_t j = 0; j < S; ++j) {
            s[j] = score(b, h, i, j);
            m = std::max(m, s[j]);
          }
          const int64_t out = rowOffset(a.o, b, h, i);
          if (m == kNegInf) {
            for (int64_t e = 0; e < Ev; ++e)
              store(a.o.data, a.dtype, out + e, 0.0f);
            if (a.lse)
              a.lse[r] = kNegInf;
            continue;
          }
          const float *vb = v.data() + (b * Hkv + h / group) * S * Ev;
          std::fill(acc.begin(), acc.end(), 0.0f);
          float l = 0.0f;
          for (int64_t j = 0; j < S; ++j) {
            if (s[j] == kNegInf)
              continue;
            const float p = std::exp(s[j] - m);
            l += p;
            for (int64_t e = 0; e < Ev; ++e)
              acc[e] += p * vb[j * Ev + e];
          }
          for (int64_t e = 0; e < Ev; ++e)
            store(a.o.data, a.dtype, out + e, acc[e] / l);
          if (a.lse)
            a.lse[r] = m + std::log(l);
        }
      });
  if (!ok)
    return fail(TE_RT_OUT_OF_MEMORY, "out of host memory in attention");
  return TE_RT_OK;
}

te_rt_status backward(const AttentionGrad &g, int threads) {
  ScopedIEEEFloatEnvironment ieee;
  const Attention &a = g.forward;
  const int64_t B = a.q.shape[0], Hq = a.q.shape[1], L = a.q.shape[2],
                E = a.q.shape[3], Hkv = a.k.shape[1], S = a.k.shape[2],
                Ev = a.v.shape[3];
  const int64_t rows = B * Hq * L, keyRows = B * Hkv * S;
  const int64_t group = Hkv ? Hq / Hkv : 1;
  const std::vector<float> q = widen(a.q, a.dtype, threads),
                           k = widen(a.k, a.dtype, threads),
                           v = widen(a.v, a.dtype, threads),
                           o = widen(a.o, a.dtype, threads),
                           dout = widen(g.dout, a.dtype, threads);
  const Scores score(a, q.data(), k.data());
  const float *lse = a.lse;

  // D_i = dO_i . O_i.
  std::vector<float> D(static_cast<size_t>(rows));
  parallelFor(rows, threads, grainRows(Ev), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      D[r] = dot(dout.data() + r * Ev, o.data() + r * Ev, Ev);
  });

  // dQ, per query row.
  bool ok = tryParallelFor(
      rows, threads, grainRows(S * (2 * E + Ev)),
      [&](int64_t begin, int64_t end) {
        std::vector<float> acc(static_cast<size_t>(E));
        for (int64_t r = begin; r < end; ++r) {
          const int64_t b = r / (Hq * L), h = (r / L) % Hq, i = r % L;
          const int64_t kv = b * Hkv + h / group;
          std::fill(acc.begin(), acc.end(), 0.0f);
          if (lse[r] != kNegInf)
            for (int64_t j = 0; j < S; ++j) {
              const float s = score(b, h, i, j);
              if (s == kNegInf)
                continue;
              const float p = std::exp(s - lse[r]);
              const float dp =
                  dot(dout.data() + r * Ev, v.data() + (kv * S + j) * Ev, Ev);
              const float ds = p * (dp - D[r]);
              const float *kj = k.data() + (kv * S + j) * E;
              for (int64_t e = 0; e < E; ++e)
                acc[e] += ds * kj[e];
            }
          const int64_t out = rowOffset(g.dq, b, h, i);
          for (int64_t e = 0; e < E; ++e)
            store(g.dq.data, a.dtype, out + e, a.scale * acc[e]);
        }
      });

  // dK and dV, per key row, summed over the group's query heads.
  ok = ok && tryParallelFor(
                 keyRows, threads, grainRows(group * L * (2 * E + 2 * Ev)),
                 [&](int64_t begin, int64_t end) {
                   std::vector<float> accK(static_cast<size_t>(E)),
                       accV(static_cast<size_t>(Ev));
                   for (int64_t kr = begin; kr < end; ++kr) {
                     const int64_t b = kr / (Hkv * S), kvh = (kr / S) % Hkv,
                                   j = kr % S;
                     std::fill(accK.begin(), accK.end(), 0.0f);
                     std::fill(accV.begin(), accV.end(), 0.0f);
                     const float *vj = v.data() + kr * Ev;
                     for (int64_t h = kvh * group; h < (kvh + 1) * group; ++h)
                       for (int64_t i = 0; i < L; ++i) {
                         const int64_t r = (b * Hq + h) * L + i;
                         if (lse[r] == kNegInf)
                           continue;
                         const float s = score(b, h, i, j);
                         if (s == kNegInf)
                           continue;
                         const float p = std::exp(s - lse[r]);
                         const float *dor = dout.data() + r * Ev;
                         const float ds = p * (dot(dor, vj, Ev) - D[r]);
                         const float *qi = q.data() + r * E;
                         for (int64_t e = 0; e < Ev; ++e)
                           accV[e] += p * dor[e];
                         for (int64_t e = 0; e < E; ++e)
                           accK[e] += ds * qi[e];
                       }
                     const int64_t outK = rowOffset(g.dk, b, kvh, j),
                                   outV = rowOffset(g.dv, b, kvh, j);
                     for (int64_t e = 0; e < E; ++e)
                       store(g.dk.data, a.dtype, outK + e, a.scale * accK[e]);
                     for (int64_t e = 0; e < Ev; ++e)
                       store(g.dv.data, a.dtype, outV + e, accV[e]);
                   }
                 });
  if (!ok)
    return fail(TE_RT_OUT_OF_MEMORY,
                "out of host memory in the attention backward");
  return TE_RT_OK;
}

} // namespace

te_rt_status attentionForward(const Attention &a, int threads) {
  try {
    return forward(a, threads);
  } catch (const std::bad_alloc &) {
    return fail(TE_RT_OUT_OF_MEMORY, "out of host memory in attention");
  }
}

te_rt_status attentionBackward(const AttentionGrad &a, int threads) {
  try {
    return backward(a, threads);
  } catch (const std::bad_alloc &) {
    return fail(TE_RT_OUT_OF_MEMORY,
                "out of host memory in the attention backward");
  }
}

} // namespace te::rt::cpu
