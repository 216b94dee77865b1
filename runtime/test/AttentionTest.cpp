//===- AttentionTest.cpp - te_rt_attention(_grad) on the cpu backend ------===//
//
// Part of te. The cpu backend's attention forward and backward against a
// double-precision oracle written here from the formulas of PyTorch's SDPA
// (and checked itself against finite differences): causal and not, L != S,
// additive and boolean masks with broadcasts, grouped-query heads, ragged
// lengths, fully masked rows, strided layouts, f32 / bf16 / f16; through the
// C API and the entry points of compiled code (te_rt_mlir_attention(_grad)).
// Every argument error has its message checked. Also te_rt_mlir_matmul's
// accumulate = 0, which must not read C.
//
//===----------------------------------------------------------------------===//

#include "te_rt_abi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// Element codecs (independent of the runtime's)
//===----------------------------------------------------------------------===//

float bitsToFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint32_t floatToBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
uint16_t toBF16(float f) { // RNE; test values are finite
  uint32_t b = floatToBits(f);
  b += 0x7FFFu + ((b >> 16) & 1u);
  return static_cast<uint16_t>(b >> 16);
}
float fromBF16(uint16_t h) {
  return bitsToFloat(static_cast<uint32_t>(h) << 16);
}
float fromF16(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  double v;
  if (exp == 0)
    v = std::ldexp(man, -24);
  else if (exp == 31)
    v = man ? std::nan("") : kInf;
  else
    v = std::ldexp(1024 + man, exp - 25);
  return static_cast<float>(sign ? -v : v);
}
uint16_t toF16(float f) { // RNE by search over the finite values
  // |f| < 65504 in these tests: pick the nearest of the two neighbours.
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  uint16_t lo = 0, hi = 0x7BFF;
  while (lo < hi) { // largest code with value <= a
    uint16_t mid = static_cast<uint16_t>((lo + hi + 1) / 2);
    if (fromF16(mid) <= a)
      lo = mid;
    else
      hi = static_cast<uint16_t>(mid - 1);
  }
  uint16_t best = lo;
  if (lo < 0x7BFF) {
    double dl = a - fromF16(lo), dh = fromF16(lo + 1) - a;
    if (dh < dl || (dh == dl && (lo & 1)))
      best = static_cast<uint16_t>(lo + 1);
  }
  return static_cast<uint16_t>(sign | best);
}

int elementBytes(te_rt_dtype t) {
  return t == TE_RT_F32 ? 4 : t == TE_RT_U8 ? 1 : 2;
}

/// A 4-D operand in host memory with its own layout; `fill` bytes outside
/// the elements (gaps of a padded or strided layout) keep their pattern.
struct HostTensor {
  te_rt_dtype dtype = TE_RT_F32;
  int64_t shape[4] = {0, 0, 0, 0};
  int64_t strides[4] = {0, 0, 0, 1};
  std::vector<uint64_t> storage; // 8-byte aligned
  int64_t spanElements = 0;

  void *data() { return storage.empty() ? nullptr : storage.data(); }
  uint8_t *bytes() { return reinterpret_cast<uint8_t *>(storage.data()); }
  const uint8_t *bytes() const {
    return reinterpret_cast<const uint8_t *>(storage.data());
  }
  int64_t offset(int64_t b, int64_t h, int64_t r, int64_t c) const {
    return b * strides[0] + h * strides[1] + r * strides[2] + c * strides[3];
  }
  float get(int64_t b, int64_t h, int64_t r, int64_t c) const {
    const int64_t i = offset(b, h, r, c);
    switch (dtype) {
    case TE_RT_F32: {
      float f;
      std::memcpy(&f, bytes() + 4 * i, 4);
      return f;
    }
    case TE_RT_BF16: {
      uint16_t h16;
      std::memcpy(&h16, bytes() + 2 * i, 2);
      return fromBF16(h16);
    }
    case TE_RT_F16: {
      uint16_t h16;
      std::memcpy(&h16, bytes() + 2 * i, 2);
      return fromF16(h16);
    }
    default:
      return bytes()[i];
    }
  }
  /// Stores v rounded to the dtype (RNE).
  void set(int64_t b, int64_t h, int64_t r, int64_t c, float v) {
    const int64_t i = offset(b, h, r, c);
    switch (dtype) {
    case TE_RT_F32:
      std::memcpy(bytes() + 4 * i, &v, 4);
      break;
    case TE_RT_BF16: {
      uint16_t x = toBF16(v);
      std::memcpy(bytes() + 2 * i, &x, 2);
      break;
    }
    case TE_RT_F16: {
      uint16_t x = toF16(v);
      std::memcpy(bytes() + 2 * i, &x, 2);
      break;
    }
    default:
      bytes()[i] = static_cast<uint8_t>(v);
    }
  }
  te_rt_attention_operand operand() {
    te_rt_attention_operand o;
    o.data = data();
    std::memcpy(o.shape, shape, sizeof(shape));
    std::memcpy(o.strides, strides, sizeof(strides));
    return o;
  }
  template <typename F> void forEach(F f) const {
    for (int64_t b = 0; b < shape[0]; ++b)
      for (int64_t h = 0; h < shape[1]; ++h)
        for (int64_t r = 0; r < shape[2]; ++r)
          for (int64_t c = 0; c < shape[3]; ++c)
            f(b, h, r, c);
  }
};

/// Memory layouts of a [B, H, R, C] operand.
enum class Layout {
  Contiguous, ///< [B, H, R, C] row-major
  BSHD,       ///< [B, R, H, C] memory viewed as [B, H, R, C]
  Padded,     ///< [B, H, R, C + 3] with the last 3 of each row a gap
};

HostTensor makeTensor(te_rt_dtype t, int64_t B, int64_t H, int64_t R, int64_t C,
                      Layout layout = Layout::Contiguous) {
  HostTensor x;
  x.dtype = t;
  x.shape[0] = B, x.shape[1] = H, x.shape[2] = R, x.shape[3] = C;
  switch (layout) {
  case Layout::Contiguous:
    x.strides[3] = 1, x.strides[2] = C, x.strides[1] = R * C,
    x.strides[0] = H * R * C;
    break;
  case Layout::BSHD:
    x.strides[3] = 1, x.strides[1] = C, x.strides[2] = H * C,
    x.strides[0] = R * H * C;
    break;
  case Layout::Padded:
    x.strides[3] = 1, x.strides[2] = C + 3, x.strides[1] = R * (C + 3),
    x.strides[0] = H * R * (C + 3);
    break;
  }
  x.spanElements = B * x.strides[0];
  x.storage.assign(
      static_cast<size_t>((x.spanElements * elementBytes(t) + 7) / 8 + 1),
      0x7FF4A5A5A5A5A5A5ull); // a NaN pattern in the gaps
  return x;
}

/// Deterministic values in [lo, hi] (a linear congruential generator).
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 2862933555777941757ull + 1) {}
  double next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) / 9007199254740992.0;
  }
  float uniform(float lo, float hi) {
    return lo + static_cast<float>(next()) * (hi - lo);
  }
};

void fillRandom(HostTensor &x, Rng &rng, float lo = -1.0f, float hi = 1.0f) {
  x.forEach([&](int64_t b, int64_t h, int64_t r, int64_t c) {
    x.set(b, h, r, c, rng.uniform(lo, hi));
  });
}

//===----------------------------------------------------------------------===//
// The oracle, in double
//===----------------------------------------------------------------------===//

/// A problem's values widened to double, contiguous [B, H, R, C].
struct Dense {
  int64_t B = 0, H = 0, R = 0, C = 0;
  std::vector<double> v;
  double &at(int64_t b, int64_t h, int64_t r, int64_t c) {
    return v[static_cast<size_t>(((b * H + h) * R + r) * C + c)];
  }
  double at(int64_t b, int64_t h, int64_t r, int64_t c) const {
    return v[static_cast<size_t>(((b * H + h) * R + r) * C + c)];
  }
};

Dense dense(const HostTensor &x) {
  Dense d;
  d.B = x.shape[0], d.H = x.shape[1], d.R = x.shape[2], d.C = x.shape[3];
  d.v.assign(static_cast<size_t>(d.B * d.H * d.R * d.C), 0.0);
  x.forEach([&](int64_t b, int64_t h, int64_t r, int64_t c) {
    d.at(b, h, r, c) = x.get(b, h, r, c);
  });
  return d;
}

struct OracleInputs {
  Dense q, k, v;
  double scale = 1.0;
  bool causal = false;
  int maskKind = 0; // 0 none, 1 additive, 2 boolean
  /// The mask's value at (b, h, i, j) (broadcast applied by the caller's
  /// HostTensor get with the size-1 dimensions at index 0).
  std::function<double(int64_t, int64_t, int64_t, int64_t)> mask;
};

/// s_ij per PyTorch SDPA: scale * q.k + additive mask; -inf where a boolean
/// mask is 0 or causal hides the key.
double oracleScore(const OracleInputs &in, int64_t b, int64_t h, int64_t i,
                   int64_t j) {
  const int64_t kvh = h / (in.q.H / in.k.H);
  if (in.causal && j > i)
    return -kInf;
  double dot = 0.0;
  for (int64_t e = 0; e < in.q.C; ++e)
    dot += in.q.at(b, h, i, e) * in.k.at(b, kvh, j, e);
  double s = in.scale * dot;
  if (in.maskKind == 1)
    s += in.mask(b, h, i, j);
  if (in.maskKind == 2 && in.mask(b, h, i, j) == 0.0)
    s = -kInf;
  return s;
}

struct OracleForward {
  Dense o;
  std::vector<double> lse; // [B, Hq, L]
};

OracleForward oracleForward(const OracleInputs &in) {
  const int64_t B = in.q.B, Hq = in.q.H, L = in.q.R, S = in.k.R, Ev = in.v.C;
  OracleForward f;
  f.o.B = B, f.o.H = Hq, f.o.R = L, f.o.C = Ev;
  f.o.v.assign(static_cast<size_t>(B * Hq * L * Ev), 0.0);
  f.lse.assign(static_cast<size_t>(B * Hq * L), -kInf);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h)
      for (int64_t i = 0; i < L; ++i) {
        const int64_t kvh = h / (Hq / in.k.H);
        std::vector<double> s(static_cast<size_t>(S));
        double m = -kInf;
        for (int64_t j = 0; j < S; ++j)
          m = std::max(m, s[j] = oracleScore(in, b, h, i, j));
        if (m == -kInf)
          continue; // o = 0, lse = -inf
        double l = 0.0;
        for (int64_t j = 0; j < S; ++j) {
          const double p = std::exp(s[j] - m);
          l += p;
          for (int64_t e = 0; e < Ev; ++e)
            f.o.at(b, h, i, e) += p * in.v.at(b, kvh, j, e);
        }
        for (int64_t e = 0; e < Ev; ++e)
          f.o.at(b, h, i, e) /= l;
        f.lse[static_cast<size_t>((b * Hq + h) * L + i)] = m + std::log(l);
      }
  return f;
}

struct OracleGrads {
  Dense dq, dk, dv;
};

/// The backward from the formulas: P = exp(S - lse), D = rowsum(dO o O),
/// dV = P^T dO, dP = dO V^T, dS = P o (dP - D), dQ = scale dS K,
/// dK = scale dS^T Q, summed over each group's query heads.
OracleGrads oracleBackward(const OracleInputs &in, const Dense &o,
                           const std::vector<double> &lse, const Dense &dout) {
  const int64_t B = in.q.B, Hq = in.q.H, L = in.q.R, E = in.q.C, Hkv = in.k.H,
                S = in.k.R, Ev = in.v.C;
  OracleGrads g;
  g.dq = in.q, g.dk = in.k, g.dv = in.v;
  std::fill(g.dq.v.begin(), g.dq.v.end(), 0.0);
  std::fill(g.dk.v.begin(), g.dk.v.end(), 0.0);
  std::fill(g.dv.v.begin(), g.dv.v.end(), 0.0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h)
      for (int64_t i = 0; i < L; ++i) {
        const int64_t kvh = h / (Hq / Hkv);
        const double lse_i = lse[static_cast<size_t>((b * Hq + h) * L + i)];
        if (lse_i == -kInf)
          continue;
        double D = 0.0;
        for (int64_t e = 0; e < Ev; ++e)
          D += dout.at(b, h, i, e) * o.at(b, h, i, e);
        for (int64_t j = 0; j < S; ++j) {
          const double p = std::exp(oracleScore(in, b, h, i, j) - lse_i);
          double dp = 0.0;
          for (int64_t e = 0; e < Ev; ++e) {
            dp += dout.at(b, h, i, e) * in.v.at(b, kvh, j, e);
            g.dv.at(b, kvh, j, e) += p * dout.at(b, h, i, e);
          }
          const double ds = p * (dp - D);
          for (int64_t e = 0; e < E; ++e) {
            g.dq.at(b, h, i, e) += in.scale * ds * in.k.at(b, kvh, j, e);
            g.dk.at(b, kvh, j, e) += in.scale * ds * in.q.at(b, h, i, e);
          }
        }
      }
  return g;
}

//===----------------------------------------------------------------------===//
// The oracle against finite differences
//===----------------------------------------------------------------------===//

TEST(AttentionOracle, BackwardMatchesFiniteDifferences) {
  // loss = sum(dO o O(q, k, v)); its gradient is the backward of dO.
  OracleInputs in;
  Rng rng(7);
  auto random = [&](int64_t B, int64_t H, int64_t R, int64_t C) {
    Dense d;
    d.B = B, d.H = H, d.R = R, d.C = C;
    for (int64_t n = 0; n < B * H * R * C; ++n)
      d.v.push_back(rng.uniform(-1.5f, 1.5f));
    return d;
  };
  in.q = random(1, 4, 3, 3);
  in.k = random(1, 2, 4, 3);
  in.v = random(1, 2, 4, 2);
  in.scale = 0.7;
  in.causal = true;
  in.maskKind = 1;
  in.mask = [](int64_t, int64_t h, int64_t i, int64_t j) {
    return 0.25 * static_cast<double>((h + 2 * i + 3 * j) % 5) - 0.5;
  };
  const Dense dout = random(1, 4, 3, 2);
  const OracleForward f = oracleForward(in);
  const OracleGrads g = oracleBackward(in, f.o, f.lse, dout);
  auto loss = [&] {
    const OracleForward ff = oracleForward(in);
    double sum = 0.0;
    for (size_t n = 0; n < dout.v.size(); ++n)
      sum += dout.v[n] * ff.o.v[n];
    return sum;
  };
  const double step = 1e-6;
  struct {
    Dense *x;
    const Dense *grad;
    const char *name;
  } args[] = {{&in.q, &g.dq, "q"}, {&in.k, &g.dk, "k"}, {&in.v, &g.dv, "v"}};
  for (auto &a : args)
    for (size_t n = 0; n < a.x->v.size(); ++n) {
      const double saved = a.x->v[n];
      a.x->v[n] = saved + step;
      const double up = loss();
      a.x->v[n] = saved - step;
      const double down = loss();
      a.x->v[n] = saved;
      EXPECT_NEAR(a.grad->v[n], (up - down) / (2 * step), 1e-7)
          << a.name << " element " << n;
    }
}

//===----------------------------------------------------------------------===//
// The runtime against the oracle
//===----------------------------------------------------------------------===//

class CpuAttention : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(te_rt_context_create(TE_RT_BACKEND_CPU, &ctx), TE_RT_OK);
  }
  void TearDown() override {
    te_rt_set_current_context(nullptr);
    te_rt_context_destroy(ctx);
  }
  te_rt_context *ctx = nullptr;
};

struct Case {
  const char *name;
  te_rt_dtype dtype = TE_RT_F32;
  int64_t B = 2, Hq = 2, Hkv = 2, L = 5, S = 7, E = 8, Ev = 8;
  bool causal = false;
  int maskKind = 0;
  te_rt_dtype maskDtype = TE_RT_F32;
  /// Which mask dimensions are broadcast (size 1): batch, heads, rows.
  bool maskBroadcast[3] = {false, false, false};
  Layout layout = Layout::Contiguous;
  /// Query rows whose every key is masked (mask -inf / false), [b][h][row].
  bool fullyMaskRow1 = false;
  /// Use the entry points of compiled code instead of the C API.
  bool entryPoints = false;
  float scale = 0.0f; // 0: 1/sqrt(E)
};

/// Tolerances: |got - want| <= tol * max(1, max |want|), from the output
/// rounding of the dtype (the computation is in f32).
double tolerance(te_rt_dtype t) {
  return t == TE_RT_F32 ? 2e-5 : t == TE_RT_F16 ? 2e-3 : 1e-2;
}

void expectClose(const HostTensor &got, const Dense &want, te_rt_dtype t,
                 const char *what) {
  double maxAbs = 0.0;
  for (double x : want.v)
    maxAbs = std::max(maxAbs, std::fabs(x));
  const double tol = tolerance(t) * std::max(1.0, maxAbs);
  int failures = 0;
  got.forEach([&](int64_t b, int64_t h, int64_t r, int64_t c) {
    const double g = got.get(b, h, r, c), w = want.at(b, h, r, c);
    if (!(std::fabs(g - w) <= tol) && failures++ < 5)
      ADD_FAILURE() << what << "[" << b << ", " << h << ", " << r << ", " << c
                    << "] = " << g << ", expected " << w << " (tolerance "
                    << tol << ")";
  });
}

/// The gaps of a strided output keep their pattern: the call writes the
/// elements only.
void expectGapsKept(const HostTensor &x, const char *what) {
  std::vector<bool> element(static_cast<size_t>(x.spanElements), false);
  x.forEach([&](int64_t b, int64_t h, int64_t r, int64_t c) {
    element[static_cast<size_t>(x.offset(b, h, r, c))] = true;
  });
  const HostTensor fresh =
      makeTensor(x.dtype, x.shape[0], x.shape[1], x.shape[2], x.shape[3]);
  const int eb = elementBytes(x.dtype);
  const uint8_t *pattern = fresh.bytes();
  for (int64_t i = 0; i < x.spanElements; ++i)
    if (!element[static_cast<size_t>(i)])
      for (int byte = 0; byte < eb; ++byte)
        ASSERT_EQ(x.bytes()[i * eb + byte], pattern[(i * eb + byte) % 8])
            << what << ": a gap was written at element " << i;
}

/// Runs forward and backward of `c` and compares them with the oracle.
void runCase(te_rt_context *ctx, const Case &c) {
  SCOPED_TRACE(c.name);
  Rng rng(static_cast<uint64_t>(c.B * 131 + c.Hq * 31 + c.L * 7 + c.S));
  HostTensor q = makeTensor(c.dtype, c.B, c.Hq, c.L, c.E, c.layout),
             k = makeTensor(c.dtype, c.B, c.Hkv, c.S, c.E, c.layout),
             v = makeTensor(c.dtype, c.B, c.Hkv, c.S, c.Ev, c.layout),
             o = makeTensor(c.dtype, c.B, c.Hq, c.L, c.Ev, c.layout);
  fillRandom(q, rng, -2.0f, 2.0f);
  fillRandom(k, rng, -2.0f, 2.0f);
  fillRandom(v, rng);
  HostTensor mask;
  if (c.maskKind) {
    mask = makeTensor(c.maskDtype, c.maskBroadcast[0] ? 1 : c.B,
                      c.maskBroadcast[1] ? 1 : c.Hq,
                      c.maskBroadcast[2] ? 1 : c.L, c.S);
    mask.forEach([&](int64_t b, int64_t h, int64_t i, int64_t j) {
      float value;
      if (c.maskKind == 1)
        value = (j + i + h) % 4 == 3 ? -std::numeric_limits<float>::infinity()
                                     : rng.uniform(-1.0f, 1.0f);
      else
        value = (j * 3 + i + b) % 4 == 1 ? 0.0f : 1.0f;
      if (c.fullyMaskRow1 && i == 1)
        value = c.maskKind == 1 ? -std::numeric_limits<float>::infinity() : 0;
      mask.set(b, h, i, j, value);
    });
    // Broadcast dimensions get a stride that must be ignored.
    for (int d = 0; d < 3; ++d)
      if (c.maskBroadcast[d])
        mask.strides[d] = 12345;
  }
  std::vector<float> lse(static_cast<size_t>(c.B * c.Hq * c.L), 42.0f);
  const float scale =
      c.scale != 0.0f ? c.scale : 1.0f / std::sqrt(static_cast<float>(c.E));

  te_rt_attention_args a;
  std::memset(&a, 0, sizeof(a));
  a.dtype = c.dtype;
  a.q = q.operand(), a.k = k.operand(), a.v = v.operand(), a.o = o.operand();
  a.lse = lse.data();
  a.scale = scale;
  a.causal = c.causal;
  a.mask_kind = static_cast<te_rt_attention_mask>(c.maskKind);
  a.mask_dtype = c.maskDtype;
  if (c.maskKind)
    a.mask = mask.operand();

  // The oracle, on the inputs as stored.
  OracleInputs in;
  in.q = dense(q), in.k = dense(k), in.v = dense(v);
  in.scale = scale;
  in.causal = c.causal;
  in.maskKind = c.maskKind;
  in.mask = [&](int64_t b, int64_t h, int64_t i, int64_t j) {
    return static_cast<double>(mask.get(mask.shape[0] == 1 ? 0 : b,
                                        mask.shape[1] == 1 ? 0 : h,
                                        mask.shape[2] == 1 ? 0 : i, j));
  };
  const OracleForward want = oracleForward(in);

  auto forwardDescriptor = [&](std::vector<int64_t> &w) {
    te_rt_abi::attention::Fields f;
    std::memset(&f, 0, sizeof(f));
    f.dtype = a.dtype;
    f.q = a.q.data, f.k = a.k.data, f.v = a.v.data, f.o = a.o.data;
    for (int d = 0; d < 4; ++d) {
      f.q_shape[d] = a.q.shape[d], f.q_strides[d] = a.q.strides[d];
      f.k_shape[d] = a.k.shape[d], f.k_strides[d] = a.k.strides[d];
      f.v_shape[d] = a.v.shape[d], f.v_strides[d] = a.v.strides[d];
      f.o_shape[d] = a.o.shape[d], f.o_strides[d] = a.o.strides[d];
      f.mask_shape[d] = a.mask.shape[d], f.mask_strides[d] = a.mask.strides[d];
    }
    f.lse = a.lse;
    f.scale_bits = static_cast<int32_t>(floatToBits(scale));
    f.causal = a.causal;
    f.mask_kind = c.maskKind;
    f.mask_dtype = c.maskDtype;
    f.mask = a.mask.data;
    w.assign(te_rt_abi::attention::kWords, 0);
    te_rt_abi::encode(f, w.data());
  };

  if (c.entryPoints) {
    std::vector<int64_t> w;
    forwardDescriptor(w);
    te_rt_set_current_context(ctx);
    te_rt_mlir_attention(w.data());
    ASSERT_EQ(te_rt_current_status(), TE_RT_OK)
        << static_cast<const char *>(te_rt_current_error());
  } else {
    ASSERT_EQ(te_rt_attention(ctx, &a), TE_RT_OK) << te_rt_last_error();
  }
  expectClose(o, want.o, c.dtype, "o");
  expectGapsKept(o, "o");
  for (size_t r = 0; r < lse.size(); ++r) {
    if (want.lse[r] == -kInf) {
      EXPECT_EQ(lse[r], -std::numeric_limits<float>::infinity()) << "row " << r;
      continue;
    }
    EXPECT_NEAR(lse[r], want.lse[r],
                1e-5 * std::max(1.0, std::fabs(want.lse[r])))
        << "lse row " << r;
  }
  if (c.fullyMaskRow1)
    o.forEach([&](int64_t b, int64_t h, int64_t r, int64_t e) {
      if (r == 1)
        EXPECT_EQ(o.get(b, h, r, e), 0.0f) << "a fully masked row";
    });

  // The backward, from the oracle's o (as stored) and lse: the runtime and
  // the oracle read the same inputs.
  HostTensor oIn = makeTensor(c.dtype, c.B, c.Hq, c.L, c.Ev, c.layout);
  oIn.forEach([&](int64_t b, int64_t h, int64_t r, int64_t e) {
    oIn.set(b, h, r, e, static_cast<float>(want.o.at(b, h, r, e)));
  });
  std::vector<float> lseIn(lse.size());
  for (size_t r = 0; r < lse.size(); ++r)
    lseIn[r] = static_cast<float>(want.lse[r]);
  HostTensor dout = makeTensor(c.dtype, c.B, c.Hq, c.L, c.Ev, c.layout),
             dq = makeTensor(c.dtype, c.B, c.Hq, c.L, c.E, c.layout),
             dk = makeTensor(c.dtype, c.B, c.Hkv, c.S, c.E, c.layout),
             dv = makeTensor(c.dtype, c.B, c.Hkv, c.S, c.Ev, c.layout);
  fillRandom(dout, rng);
  te_rt_attention_grad_args g;
  std::memset(&g, 0, sizeof(g));
  g.forward = a;
  g.forward.o = oIn.operand();
  g.forward.lse = lseIn.data();
  g.dout = dout.operand();
  g.dq = dq.operand(), g.dk = dk.operand(), g.dv = dv.operand();
  if (c.entryPoints) {
    te_rt_abi::attention_grad::Fields f;
    std::memset(&f, 0, sizeof(f));
    f.dtype = a.dtype;
    f.q = a.q.data, f.k = a.k.data, f.v = a.v.data, f.o = oIn.data();
    f.dout = dout.data(), f.dq = dq.data(), f.dk = dk.data(), f.dv = dv.data();
    for (int d = 0; d < 4; ++d) {
      f.q_shape[d] = a.q.shape[d], f.q_strides[d] = a.q.strides[d];
      f.k_shape[d] = a.k.shape[d], f.k_strides[d] = a.k.strides[d];
      f.v_shape[d] = a.v.shape[d], f.v_strides[d] = a.v.strides[d];
      f.o_shape[d] = oIn.shape[d], f.o_strides[d] = oIn.strides[d];
      f.dout_strides[d] = dout.strides[d];
      f.dq_strides[d] = dq.strides[d];
      f.dk_strides[d] = dk.strides[d];
      f.dv_strides[d] = dv.strides[d];
      f.mask_shape[d] = a.mask.shape[d], f.mask_strides[d] = a.mask.strides[d];
    }
    f.lse = lseIn.data();
    f.scale_bits = static_cast<int32_t>(floatToBits(scale));
    f.causal = a.causal;
    f.mask_kind = c.maskKind;
    f.mask_dtype = c.maskDtype;
    f.mask = a.mask.data;
    std::vector<int64_t> w(te_rt_abi::attention_grad::kWords, 0);
    te_rt_abi::encode(f, w.data());
    te_rt_set_current_context(ctx);
    te_rt_mlir_attention_grad(w.data());
    ASSERT_EQ(te_rt_current_status(), TE_RT_OK)
        << static_cast<const char *>(te_rt_current_error());
  } else {
    ASSERT_EQ(te_rt_attention_grad(ctx, &g), TE_RT_OK) << te_rt_last_error();
  }
  const OracleGrads wantG =
      oracleBackward(in, dense(oIn), want.lse, dense(dout));
  expectClose(dq, wantG.dq, c.dtype, "dq");
  expectClose(dk, wantG.dk, c.dtype, "dk");
  expectClose(dv, wantG.dv, c.dtype, "dv");
  expectGapsKept(dq, "dq");
  expectGapsKept(dk, "dk");
  expectGapsKept(dv, "dv");
  if (c.fullyMaskRow1)
    dq.forEach([&](int64_t b, int64_t h, int64_t r, int64_t e) {
      if (r == 1)
        EXPECT_EQ(dq.get(b, h, r, e), 0.0f) << "a fully masked row's dq";
    });
  for (const HostTensor *t : {&o, &dq, &dk, &dv})
    t->forEach([&](int64_t b, int64_t h, int64_t r, int64_t e) {
      ASSERT_TRUE(std::isfinite(t->get(b, h, r, e)));
    });
}

TEST_F(CpuAttention, PlainAndCausal) {
  for (te_rt_dtype t : {TE_RT_F32, TE_RT_BF16, TE_RT_F16})
    for (bool causal : {false, true}) {
      Case c;
      c.name = causal ? "causal" : "not causal";
      c.dtype = t;
      c.causal = causal;
      SCOPED_TRACE(t == TE_RT_F32 ? "f32" : t == TE_RT_BF16 ? "bf16" : "f16");
      runCase(ctx, c);
    }
}

TEST_F(CpuAttention, MoreOrFewerQueriesThanKeys) {
  for (bool causal : {false, true}) {
    Case c;
    c.name = "L < S";
    c.L = 3, c.S = 11;
    c.causal = causal;
    runCase(ctx, c);
    c.name = "L > S";
    c.L = 12, c.S = 4;
    runCase(ctx, c);
  }
}

TEST_F(CpuAttention, RaggedLengthsAndHeadSizes) {
  for (int64_t S : {1, 17, 130}) {
    Case c;
    c.name = "ragged";
    c.dtype = TE_RT_BF16;
    c.B = 1, c.Hq = 2, c.Hkv = 1;
    c.L = S == 130 ? 67 : S + 2, c.S = S;
    c.E = 16, c.Ev = 12;
    c.causal = S != 17;
    runCase(ctx, c);
  }
}

TEST_F(CpuAttention, AdditiveMasks) {
  for (te_rt_dtype mt : {TE_RT_F32, TE_RT_BF16, TE_RT_F16}) {
    Case c;
    c.name = "additive mask [B, Hq, L, S]";
    c.maskKind = 1;
    c.maskDtype = mt;
    runCase(ctx, c);
    c.name = "additive mask [1, 1, L, S]";
    c.maskBroadcast[0] = c.maskBroadcast[1] = true;
    c.dtype = TE_RT_BF16;
    c.causal = true;
    runCase(ctx, c);
    c.name = "additive mask [B, 1, 1, S]";
    c.maskBroadcast[0] = false;
    c.maskBroadcast[2] = true;
    c.causal = false;
    runCase(ctx, c);
  }
}

TEST_F(CpuAttention, BooleanMasks) {
  Case c;
  c.name = "boolean mask [B, Hq, L, S]";
  c.maskKind = 2;
  c.maskDtype = TE_RT_U8;
  runCase(ctx, c);
  c.name = "boolean mask [1, Hq, 1, S], causal, f16";
  c.maskBroadcast[0] = c.maskBroadcast[2] = true;
  c.causal = true;
  c.dtype = TE_RT_F16;
  runCase(ctx, c);
}

TEST_F(CpuAttention, GroupedQueryHeads) {
  for (int64_t Hkv : {2, 1}) {
    Case c;
    c.name = Hkv == 2 ? "Hq 8, Hkv 2" : "Hq 8, Hkv 1";
    c.Hq = 8, c.Hkv = Hkv;
    c.causal = Hkv == 1;
    c.maskKind = 1;
    c.maskBroadcast[1] = true;
    runCase(ctx, c);
    c.dtype = TE_RT_BF16;
    c.maskKind = 0;
    runCase(ctx, c);
  }
}

TEST_F(CpuAttention, FullyMaskedRowsGiveZeroAndMinusInfinity) {
  for (int kind : {1, 2}) {
    Case c;
    c.name = kind == 1 ? "row 1 all -inf" : "row 1 all false";
    c.maskKind = kind;
    c.maskDtype = kind == 1 ? TE_RT_BF16 : TE_RT_U8;
    c.fullyMaskRow1 = true;
    c.Hq = 4, c.Hkv = 2;
    runCase(ctx, c);
  }
  // No keys at all: every row is empty.
  Case c;
  c.name = "S = 0";
  c.S = 0;
  c.causal = true;
  runCase(ctx, c);
}

TEST_F(CpuAttention, StridedLayouts) {
  for (Layout l : {Layout::BSHD, Layout::Padded}) {
    Case c;
    c.name = l == Layout::BSHD ? "[B, S, H, D] viewed as [B, H, S, D]"
                               : "rows padded by 3 elements";
    c.layout = l;
    c.Hq = 4, c.Hkv = 2;
    c.causal = true;
    c.dtype = TE_RT_BF16;
    runCase(ctx, c);
  }
}

TEST_F(CpuAttention, ThreeDimensionalIsBatchOne) {
  // A 3-D [N, L, E] operand is passed as [1, N, L, E].
  Case c;
  c.name = "3-D [3, 6, 8]";
  c.B = 1, c.Hq = 3, c.Hkv = 3, c.L = 6, c.S = 6;
  c.causal = true;
  c.dtype = TE_RT_F16;
  runCase(ctx, c);
}

TEST_F(CpuAttention, EntryPointsOfCompiledCode) {
  Case c;
  c.name = "te_rt_mlir_attention(_grad)";
  c.entryPoints = true;
  c.Hq = 4, c.Hkv = 2;
  c.maskKind = 2;
  c.maskDtype = TE_RT_U8;
  c.maskBroadcast[0] = true;
  c.layout = Layout::Padded;
  c.dtype = TE_RT_BF16;
  c.scale = 0.3f;
  runCase(ctx, c);
  c.maskKind = 1;
  c.maskDtype = TE_RT_F32;
  c.causal = true;
  c.fullyMaskRow1 = true;
  runCase(ctx, c);
}

TEST_F(CpuAttention, ResultsDoNotDependOnTheThreadCount) {
  Case c;
  c.B = 2, c.Hq = 4, c.Hkv = 2, c.L = 40, c.S = 50, c.E = 16, c.Ev = 16;
  Rng rng(3);
  HostTensor q = makeTensor(TE_RT_F32, c.B, c.Hq, c.L, c.E),
             k = makeTensor(TE_RT_F32, c.B, c.Hkv, c.S, c.E),
             v = makeTensor(TE_RT_F32, c.B, c.Hkv, c.S, c.Ev),
             dout = makeTensor(TE_RT_F32, c.B, c.Hq, c.L, c.Ev);
  fillRandom(q, rng), fillRandom(k, rng), fillRandom(v, rng);
  fillRandom(dout, rng);
  std::vector<std::vector<uint64_t>> results[2];
  for (int run = 0; run < 2; ++run) {
    ASSERT_EQ(te_rt_context_set_num_threads(ctx, run == 0 ? 1 : 7), TE_RT_OK);
    HostTensor o = makeTensor(TE_RT_F32, c.B, c.Hq, c.L, c.Ev),
               dq = makeTensor(TE_RT_F32, c.B, c.Hq, c.L, c.E),
               dk = makeTensor(TE_RT_F32, c.B, c.Hkv, c.S, c.E),
               dv = makeTensor(TE_RT_F32, c.B, c.Hkv, c.S, c.Ev);
    std::vector<float> lse(static_cast<size_t>(c.B * c.Hq * c.L));
    te_rt_attention_grad_args g;
    std::memset(&g, 0, sizeof(g));
    g.forward.dtype = TE_RT_F32;
    g.forward.q = q.operand(), g.forward.k = k.operand(),
    g.forward.v = v.operand(), g.forward.o = o.operand();
    g.forward.lse = lse.data();
    g.forward.scale = 0.25f;
    g.forward.causal = 1;
    ASSERT_EQ(te_rt_attention(ctx, &g.forward), TE_RT_OK) << te_rt_last_error();
    g.dout = dout.operand();
    g.dq = dq.operand(), g.dk = dk.operand(), g.dv = dv.operand();
    ASSERT_EQ(te_rt_attention_grad(ctx, &g), TE_RT_OK) << te_rt_last_error();
    std::vector<uint64_t> lseBits(lse.size());
    for (size_t i = 0; i < lse.size(); ++i)
      lseBits[i] = floatToBits(lse[i]);
    results[run] = {o.storage, dq.storage, dk.storage, dv.storage, lseBits};
  }
  EXPECT_EQ(results[0], results[1]);
}

//===----------------------------------------------------------------------===//
// Argument errors
//===----------------------------------------------------------------------===//

/// A valid problem (B 2, Hq 4, Hkv 2, L 3, S 5, E 4, Ev 6, bf16, additive
/// f32 mask [2, 1, 3, 5]) that each error case breaks in one place.
struct ValidArgs {
  HostTensor q = makeTensor(TE_RT_BF16, 2, 4, 3, 4),
             k = makeTensor(TE_RT_BF16, 2, 2, 5, 4),
             v = makeTensor(TE_RT_BF16, 2, 2, 5, 6),
             o = makeTensor(TE_RT_BF16, 2, 4, 3, 6),
             mask = makeTensor(TE_RT_F32, 2, 1, 3, 5),
             dout = makeTensor(TE_RT_BF16, 2, 4, 3, 6),
             dq = makeTensor(TE_RT_BF16, 2, 4, 3, 4),
             dk = makeTensor(TE_RT_BF16, 2, 2, 5, 4),
             dv = makeTensor(TE_RT_BF16, 2, 2, 5, 6);
  std::vector<float> lse = std::vector<float>(2 * 4 * 3, 0.0f);
  te_rt_attention_grad_args g;
  ValidArgs() {
    std::memset(&g, 0, sizeof(g));
    te_rt_attention_args &a = g.forward;
    a.dtype = TE_RT_BF16;
    a.q = q.operand(), a.k = k.operand(), a.v = v.operand(), a.o = o.operand();
    a.lse = lse.data();
    a.scale = 0.5f;
    a.mask_kind = TE_RT_ATTENTION_MASK_ADDITIVE;
    a.mask_dtype = TE_RT_F32;
    a.mask = mask.operand();
    g.dout = dout.operand();
    g.dq = dq.operand(), g.dk = dk.operand(), g.dv = dv.operand();
  }
};

/// Which calls a broken argument fails: an output of the forward (o, lse)
/// is an input of the backward.
enum Calls { Both, ForwardOnly, BackwardOnly };

struct ErrorCase {
  const char *message;
  std::function<void(ValidArgs &)> breakIt;
  Calls calls = Both;
};

void setEnum(te_rt_dtype &e, int v) { std::memcpy(&e, &v, sizeof(v)); }
void setEnum(te_rt_attention_mask &e, int v) { std::memcpy(&e, &v, sizeof(v)); }

std::vector<ErrorCase> errorCases() {
  constexpr int64_t kBig = int64_t(1) << 40;
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  return {
      {"dtype (of q, k, v, o) must be f32, bf16 or f16, got f8E4M3FN",
       [](ValidArgs &x) { x.g.forward.dtype = TE_RT_E4M3; }},
      {"dtype (of q, k, v, o) must be f32, bf16 or f16, got invalid",
       [](ValidArgs &x) { setEnum(x.g.forward.dtype, 99); }},
      {"q's dimension 2 (sequence) is -1, expected >= 0",
       [](ValidArgs &x) { x.g.forward.q.shape[2] = -1; }},
      {"k's stride of dimension 0 (batch) is -5, expected >= 0",
       [](ValidArgs &x) { x.g.forward.k.strides[0] = -5; }},
      {"v's stride of dimension 3 (head size) is 2, expected 1 (the innermost "
       "dimension must be contiguous)",
       [](ValidArgs &x) { x.g.forward.v.strides[3] = 2; }},
      {"q has too many elements (shape [1099511627776, 1099511627776, 3, 4] "
       "overflows int64)",
       [=](ValidArgs &x) {
         x.g.forward.q.shape[0] = x.g.forward.q.shape[1] = kBig;
       }},
      {"q's extent overflows int64 (shape [2, 4, 3, 4], strides "
       "[9223372036854775807, 12, 4, 1])",
       [=](ValidArgs &x) { x.g.forward.q.strides[0] = kMax; }},
      {"k's data is null (shape [2, 2, 5, 4])",
       [](ValidArgs &x) { x.g.forward.k.data = nullptr; }},
      {"q's data is not aligned to its 2-byte elements",
       [](ValidArgs &x) {
         x.g.forward.q.data = static_cast<char *>(x.g.forward.q.data) + 1;
       }},
      {"k's dimension 0 (batch) is 3, expected 2 (q's batch)",
       [](ValidArgs &x) { x.g.forward.k.shape[0] = 3; }},
      {"k's dimension 1 (heads) is 3, expected a divisor of q's 4 heads "
       "(grouped-query attention",
       [](ValidArgs &x) { x.g.forward.k.shape[1] = 3; }},
      {"k's dimension 1 (heads) is 0, expected a divisor of q's 4 heads",
       [](ValidArgs &x) { x.g.forward.k.shape[1] = 0; }},
      {"k's dimension 3 (head size) is 3, expected 4 (q's head size)",
       [](ValidArgs &x) { x.g.forward.k.shape[3] = 3; }},
      {"v's dimension 0 (batch) is 1, expected 2 (q's batch)",
       [](ValidArgs &x) { x.g.forward.v.shape[0] = 1; }},
      {"v's dimension 1 (heads) is 1, expected 2 (k's heads)",
       [](ValidArgs &x) { x.g.forward.v.shape[1] = 1; }},
      {"v's dimension 2 (sequence) is 4, expected 5 (k's sequence)",
       [](ValidArgs &x) { x.g.forward.v.shape[2] = 4; }},
      {"o's dimension 0 (batch) is 1, expected 2 (q's batch)",
       [](ValidArgs &x) { x.g.forward.o.shape[0] = 1; }},
      {"o's dimension 1 (heads) is 2, expected 4 (q's heads)",
       [](ValidArgs &x) { x.g.forward.o.shape[1] = 2; }},
      {"o's dimension 2 (sequence) is 2, expected 3 (q's sequence)",
       [](ValidArgs &x) { x.g.forward.o.shape[2] = 2; }},
      {"o's dimension 3 (head size) is 4, expected 6 (v's head size)",
       [](ValidArgs &x) { x.g.forward.o.shape[3] = 4; }},
      {"o's strides [72, 18, 0, 1] for shape [2, 4, 3, 6] put several "
       "elements at one address (dimension 2 (sequence) steps within the "
       "others); an output may not",
       [](ValidArgs &x) { x.g.forward.o.strides[2] = 0; }, ForwardOnly},
      {"lse's size [4194304, 4194304, 4194304] overflows int64",
       [](ValidArgs &x) {
         const int64_t n = int64_t(1) << 22;
         te_rt_attention_args &a = x.g.forward;
         int64_t qs[4] = {n, n, n, 0}, ks[4] = {n, 1, 0, 0};
         for (int d = 0; d < 4; ++d) {
           a.q.shape[d] = a.o.shape[d] = qs[d];
           a.k.shape[d] = a.v.shape[d] = ks[d];
         }
         a.mask_kind = TE_RT_ATTENTION_MASK_NONE;
       }},
      {"lse is null: the backward reads the forward's log-sum-exp (f32 [2, "
       "4, 3])",
       [](ValidArgs &x) { x.g.forward.lse = nullptr; }, BackwardOnly},
      {"lse is not aligned to 4 bytes",
       [](ValidArgs &x) {
         x.g.forward.lse = reinterpret_cast<float *>(
             reinterpret_cast<char *>(x.lse.data()) + 2);
       }},
      {"scale is inf, expected a finite number",
       [](ValidArgs &x) {
         x.g.forward.scale = std::numeric_limits<float>::infinity();
       }},
      {"scale is nan, expected a finite number",
       [](ValidArgs &x) { x.g.forward.scale = std::nanf(""); }},
      {"causal is 2, expected 0 or 1",
       [](ValidArgs &x) { x.g.forward.causal = 2; }},
      {"mask_kind is 3, expected 0 (none), 1 (additive) or 2 (boolean)",
       [](ValidArgs &x) { setEnum(x.g.forward.mask_kind, 3); }},
      {"an additive mask's mask_dtype must be f32, bf16 or f16, got u8",
       [](ValidArgs &x) { x.g.forward.mask_dtype = TE_RT_U8; }},
      {"a boolean mask's mask_dtype must be u8 (nonzero: the key takes part), "
       "got f32",
       [](ValidArgs &x) {
         x.g.forward.mask_kind = TE_RT_ATTENTION_MASK_BOOLEAN;
       }},
      {"mask's dimension 0 (batch) is 3, expected 2 (q's batch) or 1",
       [](ValidArgs &x) { x.g.forward.mask.shape[0] = 3; }},
      {"mask's dimension 1 (heads) is 2, expected 4 (q's heads) or 1",
       [](ValidArgs &x) { x.g.forward.mask.shape[1] = 2; }},
      {"mask's dimension 2 (queries) is 2, expected 3 (q's sequence) or 1",
       [](ValidArgs &x) { x.g.forward.mask.shape[2] = 2; }},
      {"mask's dimension 3 (keys) is 1, expected 5 (k's sequence)",
       [](ValidArgs &x) { x.g.forward.mask.shape[3] = 1; }},
      {"mask's data is null",
       [](ValidArgs &x) { x.g.forward.mask.data = nullptr; }},
      {"the outputs o and lse overlap (outputs may not share memory)",
       [](ValidArgs &x) {
         x.g.forward.lse = static_cast<float *>(x.g.forward.o.data);
       },
       ForwardOnly},
      {"the output o overlaps the input q (outputs may not share memory "
       "with inputs)",
       [](ValidArgs &x) { x.g.forward.o.data = x.g.forward.q.data; },
       ForwardOnly},
      {"the output lse overlaps the input mask",
       [](ValidArgs &x) {
         x.g.forward.lse = static_cast<float *>(x.g.forward.mask.data);
       },
       ForwardOnly},
      {"dout's dimension 2 (sequence) is 4, expected 3 (o's sequence)",
       [](ValidArgs &x) { x.g.dout.shape[2] = 4; }, BackwardOnly},
      {"dq's dimension 3 (head size) is 6, expected 4 (q's head size)",
       [](ValidArgs &x) { x.g.dq.shape[3] = 6; }, BackwardOnly},
      {"dk's dimension 1 (heads) is 4, expected 2 (k's heads)",
       [](ValidArgs &x) { x.g.dk.shape[1] = 4; }, BackwardOnly},
      {"dv's dimension 0 (batch) is 1, expected 2 (v's batch)",
       [](ValidArgs &x) { x.g.dv.shape[0] = 1; }, BackwardOnly},
      {"dout's data is null", [](ValidArgs &x) { x.g.dout.data = nullptr; },
       BackwardOnly},
      {"dk's strides [40, 4, 4, 1] for shape [2, 2, 5, 4] put several "
       "elements at one address (dimension 2 (sequence) steps within the "
       "others)",
       [](ValidArgs &x) { x.g.dk.strides[1] = 4; }, BackwardOnly},
      {"the outputs dq and dk overlap (outputs may not share memory)",
       [](ValidArgs &x) { x.g.dk.data = x.g.dq.data; }, BackwardOnly},
      {"the output dv overlaps the input dout",
       [](ValidArgs &x) { x.g.dv.data = x.g.dout.data; }, BackwardOnly},
      {"the output dq overlaps the input lse",
       [](ValidArgs &x) {
         x.g.forward.lse = static_cast<float *>(x.g.dq.data);
       },
       BackwardOnly},
      {"the output dk overlaps the input o",
       [](ValidArgs &x) { x.g.dk.data = x.g.forward.o.data; }, BackwardOnly},
  };
}

TEST_F(CpuAttention, EveryArgumentErrorHasItsMessage) {
  for (const ErrorCase &e : errorCases()) {
    SCOPED_TRACE(e.message);
    if (e.calls != BackwardOnly) {
      ValidArgs x;
      e.breakIt(x);
      EXPECT_EQ(te_rt_attention(ctx, &x.g.forward), TE_RT_INVALID_ARGUMENT);
      EXPECT_NE(std::string(te_rt_last_error()).find(e.message),
                std::string::npos)
          << "te_rt_attention: " << te_rt_last_error();
    }
    if (e.calls == ForwardOnly)
      continue;
    ValidArgs x;
    e.breakIt(x);
    EXPECT_EQ(te_rt_attention_grad(ctx, &x.g), TE_RT_INVALID_ARGUMENT);
    EXPECT_NE(std::string(te_rt_last_error()).find(e.message),
              std::string::npos)
        << "te_rt_attention_grad: " << te_rt_last_error();
  }
}

TEST_F(CpuAttention, TheValidArgumentsRun) {
  // The base of the error cases is valid: each case fails for its reason.
  ValidArgs x;
  EXPECT_EQ(te_rt_attention(ctx, &x.g.forward), TE_RT_OK) << te_rt_last_error();
  EXPECT_EQ(te_rt_attention_grad(ctx, &x.g), TE_RT_OK) << te_rt_last_error();
}

TEST_F(CpuAttention, NullArgumentsAndContext) {
  EXPECT_EQ(te_rt_attention(ctx, nullptr), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "args is null");
  EXPECT_EQ(te_rt_attention_grad(ctx, nullptr), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "args is null");
  ValidArgs x;
  EXPECT_EQ(te_rt_attention(nullptr, &x.g.forward), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "ctx is null");
  EXPECT_EQ(te_rt_attention_grad(nullptr, &x.g), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "ctx is null");
}

TEST_F(CpuAttention, EmptyOperandsMayBeNull) {
  // No query rows: nothing is read or written.
  ValidArgs x;
  te_rt_attention_args &a = x.g.forward;
  a.q.shape[2] = a.o.shape[2] = 0;
  a.mask.shape[2] = 1;
  a.q.data = a.o.data = nullptr;
  a.lse = nullptr;
  EXPECT_EQ(te_rt_attention(ctx, &a), TE_RT_OK) << te_rt_last_error();
  // Keys but no query rows: the backward writes dk = dv = 0.
  x.g.dq.shape[2] = x.g.dout.shape[2] = 0;
  x.g.dq.data = x.g.dout.data = nullptr;
  x.dk.forEach([&](int64_t b, int64_t h, int64_t r, int64_t c) {
    x.dk.set(b, h, r, c, 5.0f);
  });
  EXPECT_EQ(te_rt_attention_grad(ctx, &x.g), TE_RT_OK) << te_rt_last_error();
  x.dk.forEach([&](int64_t b, int64_t h, int64_t r, int64_t c) {
    EXPECT_EQ(x.dk.get(b, h, r, c), 0.0f);
  });
  x.dv.forEach([&](int64_t b, int64_t h, int64_t r, int64_t c) {
    EXPECT_EQ(x.dv.get(b, h, r, c), 0.0f);
  });
}

TEST_F(CpuAttention, EntryPointErrorsAreRecorded) {
  te_rt_set_current_context(ctx);
  te_rt_mlir_attention(nullptr);
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(static_cast<const char *>(te_rt_current_error()),
               "te.attention: descriptor is null");
  te_rt_set_current_context(ctx);
  std::vector<int64_t> w(te_rt_abi::attention_grad::kWords, 0);
  te_rt_mlir_attention_grad(w.data());
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(static_cast<const char *>(te_rt_current_error()))
                .find("te.attention_grad: descriptor has a wrong magic number"),
            std::string::npos);
  // A descriptor of valid magic with an invalid field: the C API's message,
  // prefixed with the op.
  te_rt_set_current_context(ctx);
  te_rt_abi::attention::Fields f;
  std::memset(&f, 0, sizeof(f));
  f.dtype = TE_RT_F32;
  f.q_shape[0] = -3;
  std::vector<int64_t> words(te_rt_abi::attention::kWords, 0);
  te_rt_abi::encode(f, words.data());
  te_rt_mlir_attention(words.data());
  EXPECT_STREQ(static_cast<const char *>(te_rt_current_error()),
               "te.attention: q's dimension 0 (batch) is -3, expected >= 0");
  // The scale's bits: a NaN scale is refused.
  te_rt_set_current_context(ctx);
  f.q_shape[0] = 0;
  f.scale_bits = static_cast<int32_t>(0x7FC00000u);
  te_rt_abi::encode(f, words.data());
  te_rt_mlir_attention(words.data());
  EXPECT_STREQ(static_cast<const char *>(te_rt_current_error()),
               "te.attention: scale is nan, expected a finite number");
}

//===----------------------------------------------------------------------===//
// te_rt_mlir_matmul's accumulate
//===----------------------------------------------------------------------===//

TEST_F(CpuAttention, MatmulWithoutAccumulateDoesNotReadC) {
  te_rt_set_current_context(ctx);
  const int64_t batch = 2, M = 3, N = 4, K = 5;
  std::vector<float> a(batch * M * K), b(batch * K * N);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = 0.5f * static_cast<float>(i % 5) - 1.0f;
  std::vector<float> c(batch * M * N, std::nanf(""));
  te_rt_mlir_matmul(batch, M, N, K, a.data(), TE_RT_F32, 0, K, M * K, b.data(),
                    TE_RT_F32, 0, N, K * N, c.data(), TE_RT_F32, N, M * N, 0);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK)
      << static_cast<const char *>(te_rt_current_error());
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double want = 0.0;
        for (int64_t k = 0; k < K; ++k)
          want += static_cast<double>(a[(bi * M + i) * K + k]) *
                  b[(bi * K + k) * N + j];
        // Multiples of 1/8 summed: exact in f32.
        EXPECT_EQ(c[(bi * M + i) * N + j], static_cast<float>(want));
      }
}

TEST_F(CpuAttention, MatmulOfLengthZero) {
  te_rt_set_current_context(ctx);
  const int64_t M = 2, N = 3;
  // K = 0 without accumulate: C = 0 (the empty sum), NaNs overwritten.
  std::vector<float> c(M * N, std::nanf(""));
  te_rt_mlir_matmul(1, M, N, 0, nullptr, TE_RT_F32, 0, 1, 0, nullptr, TE_RT_F32,
                    0, N, 0, c.data(), TE_RT_F32, N, 0, 0);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK)
      << static_cast<const char *>(te_rt_current_error());
  EXPECT_EQ(c, std::vector<float>(M * N, 0.0f));
  // With accumulate: C unchanged.
  std::vector<float> d(M * N, 2.5f);
  te_rt_mlir_matmul(1, M, N, 0, nullptr, TE_RT_F32, 0, 1, 0, nullptr, TE_RT_F32,
                    0, N, 0, d.data(), TE_RT_F32, N, 0, 1);
  ASSERT_EQ(te_rt_current_status(), TE_RT_OK)
      << static_cast<const char *>(te_rt_current_error());
  EXPECT_EQ(d, std::vector<float>(M * N, 2.5f));
}

} // namespace
