//===- ProducerPrograms.h - Producer programs and their oracles -*- C++ -*-===//
//
// Part of te. Shared by ProducerTest.cpp (cpu backend) and
// GpuProducerTest.cpp (cuda against cpu).
//
//===----------------------------------------------------------------------===//
//
// The programs a compiler fuses into a quantize (bias + GELU tanh, residual
// add, SiLU, SwiGLU, LayerNorm's normalize step, dGELU * dY with its column
// sum, GELU erf with a boolean mask), each encoded as te_rt_abi.def's
// producer instructions and, independently, written as plain C++ (the
// oracle: the formula per element, with the rounding each instruction's type
// asks for, using this file's own bf16 / f16 codecs). The harness quantizes
// the oracle's value through the public unfused API (te_rt_quantize) and the
// program through te_rt_mlir_quantize_produced, on any context: buffers live
// in context memory (te_rt_malloc) and are copied to the host to compare.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_TEST_PRODUCERPROGRAMS_H
#define TE_RT_TEST_PRODUCERPROGRAMS_H

#include "te_rt_abi.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace producer_test {

//===----------------------------------------------------------------------===//
// Element codecs (independent of the runtime's)
//===----------------------------------------------------------------------===//

inline float bitsToFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline uint32_t floatToBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
/// RNE; NaN keeps its sign and becomes quiet.
inline uint16_t toBF16(float f) {
  uint32_t b = floatToBits(f);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((b >> 16) | 0x40u);
  b += 0x7FFFu + ((b >> 16) & 1u);
  return static_cast<uint16_t>(b >> 16);
}
inline float fromBF16(uint16_t h) {
  return bitsToFloat(static_cast<uint32_t>(h) << 16);
}
inline float fromF16(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  double v;
  if (exp == 0)
    v = std::ldexp(man, -24);
  else if (exp == 31)
    v = man ? std::nan("") : INFINITY;
  else
    v = std::ldexp(1024 + man, exp - 25);
  return static_cast<float>(sign ? -v : v);
}
/// RNE by comparing with the neighbouring f16 values; values at or above
/// 65520 in magnitude round to infinity, NaN to a quiet NaN.
inline uint16_t toF16(float f) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  if (a != a)
    return static_cast<uint16_t>(sign | 0x7E00);
  if (a >= 65520.0)
    return static_cast<uint16_t>(sign | 0x7C00);
  uint16_t lo = 0, hi = 0x7BFF;
  while (lo < hi) { // the largest code whose value is <= a
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
  } else if (a - fromF16(lo) >= 16.0) { // halfway to 65536 and above
    return static_cast<uint16_t>(sign | 0x7C00);
  }
  return static_cast<uint16_t>(sign | best);
}
inline float rbf(float f) { return fromBF16(toBF16(f)); }
inline float rf16(float f) { return fromF16(toF16(f)); }
/// `f` rounded to te_rt_dtype `t` (F32, BF16, F16).
inline float roundTo(float f, int32_t t) {
  return t == TE_RT_BF16 ? rbf(f) : t == TE_RT_F16 ? rf16(f) : f;
}
inline int64_t elementBytes(int32_t t) {
  return t == TE_RT_F32 ? 4 : t == TE_RT_U8 ? 1 : 2;
}
/// Appends `f` (already of type t) to a byte buffer of dtype t.
inline void putElement(std::vector<uint8_t> &buf, int64_t i, int32_t t,
                       float f) {
  if (t == TE_RT_F32) {
    std::memcpy(buf.data() + 4 * i, &f, 4);
  } else if (t == TE_RT_U8) {
    buf[i] = static_cast<uint8_t>(f);
  } else {
    uint16_t h = t == TE_RT_BF16 ? toBF16(f) : toF16(f);
    std::memcpy(buf.data() + 2 * i, &h, 2);
  }
}
inline float getElement(const std::vector<uint8_t> &buf, int64_t i, int32_t t) {
  if (t == TE_RT_F32) {
    float f;
    std::memcpy(&f, buf.data() + 4 * i, 4);
    return f;
  }
  if (t == TE_RT_U8)
    return buf[i];
  uint16_t h;
  std::memcpy(&h, buf.data() + 2 * i, 2);
  return t == TE_RT_BF16 ? fromBF16(h) : fromF16(h);
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

enum Op : int32_t {
#define TE_RT_ABI_PRODUCER_OP(name, code, arity) name = code,
#include "te_rt_abi.def"
};

/// One input: `elements` values of `dtype` on the host, read by the program
/// at offset + r * rowStride + c * colStride.
struct Input {
  int32_t dtype = TE_RT_BF16;
  int64_t offset = 0, rowStride = 0, colStride = 0;
  std::vector<uint8_t> bytes;
  float at(int64_t r, int64_t c) const {
    return getElement(bytes, offset + r * rowStride + c * colStride, dtype);
  }
};

struct Program {
  std::string name;
  int32_t xDtype = TE_RT_BF16;
  std::vector<Input> inputs;
  std::vector<int32_t> code; ///< 5 words per instruction
  /// The value at (r, c) before the rounding to xDtype (the oracle).
  std::function<float(const std::vector<Input> &, int64_t, int64_t)> value;
  bool colsum = false;
  bool transcendental = false; ///< uses EXP, TANH, ERF, ...
};

/// Instruction builder: returns the new value's index.
struct Code {
  int32_t numInputs;
  std::vector<int32_t> words;
  int32_t emit(int32_t op, int32_t type, int32_t a = 0, int32_t b = 0,
               int32_t c = 0) {
    words.insert(words.end(), {op, type, a, b, c});
    return numInputs + static_cast<int32_t>(words.size() / 5) - 1;
  }
  int32_t constant(float f, int32_t type = TE_RT_F32) {
    return emit(CONST, type, static_cast<int32_t>(floatToBits(f)));
  }
};

/// rows x cols random values of `dtype`, normal(0, sigma), row-major with
/// `extraCols` more columns per row (a strided view), at `offset`.
inline Input randomInput(std::mt19937 &rng, int32_t dtype, int64_t rows,
                         int64_t cols, float sigma, float mean = 0.0f) {
  std::normal_distribution<float> d(mean, sigma);
  Input in;
  in.dtype = dtype;
  in.bytes.resize(static_cast<size_t>(rows * cols * elementBytes(dtype)));
  for (int64_t i = 0; i < rows * cols; ++i)
    putElement(in.bytes, i, dtype, roundTo(d(rng), dtype));
  in.rowStride = cols;
  in.colStride = 1;
  return in;
}

constexpr float kGeluC = 0.7978845608028654f; // sqrt(2 / pi)
constexpr float kGeluA = 0.044715f;

/// bias + GELU (tanh): h = bf16(y + b), 0.5 h (1 + tanh(c (h + a h^3))).
inline Program biasGeluTanh(std::mt19937 &rng, int64_t R, int64_t C) {
  Program p;
  p.name = "bias_gelu_tanh";
  p.transcendental = true;
  p.inputs = {randomInput(rng, TE_RT_BF16, R, C, 2.0f),
              randomInput(rng, TE_RT_BF16, 1, C, 0.5f)};
  p.inputs[1].rowStride = 0; // bias broadcast over rows
  Code k{2, {}};
  int h = k.emit(ADDF, TE_RT_BF16, 0, 1);
  int h2 = k.emit(MULF, TE_RT_F32, h, h);
  int h3 = k.emit(MULF, TE_RT_F32, h2, h);
  int ah3 = k.emit(MULF, TE_RT_F32, k.constant(kGeluA), h3);
  int s = k.emit(ADDF, TE_RT_F32, h, ah3);
  int inner = k.emit(MULF, TE_RT_F32, k.constant(kGeluC), s);
  int t = k.emit(TANH, TE_RT_F32, inner);
  int onePlus = k.emit(ADDF, TE_RT_F32, k.constant(1.0f), t);
  int half = k.emit(MULF, TE_RT_F32, k.constant(0.5f), h);
  k.emit(MULF, TE_RT_BF16, half, onePlus);
  p.code = k.words;
  p.value = [](const std::vector<Input> &in, int64_t r, int64_t c) {
    float h = rbf(in[0].at(r, c) + in[1].at(r, c));
    float h2 = h * h;
    float h3 = h2 * h;
    float ah3 = kGeluA * h3;
    float s = h + ah3;
    float inner = kGeluC * s;
    float t = std::tanh(inner);
    float onePlus = 1.0f + t;
    float half = 0.5f * h;
    return rbf(half * onePlus);
  };
  return p;
}

/// Residual add: bf16(a + r), the residual f32 and stored column-major.
inline Program residualAdd(std::mt19937 &rng, int64_t R, int64_t C) {
  Program p;
  p.name = "residual_add";
  Input res = randomInput(rng, TE_RT_F32, C, R, 3.0f);
  res.rowStride = 1; // [C, R] row-major = [R, C] column-major
  res.colStride = R;
  p.inputs = {randomInput(rng, TE_RT_BF16, R, C, 1.0f), res};
  Code k{2, {}};
  k.emit(ADDF, TE_RT_BF16, 0, 1);
  p.code = k.words;
  p.value = [](const std::vector<Input> &in, int64_t r, int64_t c) {
    return rbf(in[0].at(r, c) + in[1].at(r, c));
  };
  return p;
}

/// SiLU into an f16 value: x / (1 + exp(-x)).
inline Program silu(std::mt19937 &rng, int64_t R, int64_t C) {
  Program p;
  p.name = "silu";
  p.transcendental = true;
  p.xDtype = TE_RT_F16;
  p.inputs = {randomInput(rng, TE_RT_BF16, R, C, 3.0f)};
  Code k{1, {}};
  int e = k.emit(EXP, TE_RT_F32, k.emit(NEGF, TE_RT_F32, 0));
  int d = k.emit(ADDF, TE_RT_F32, k.constant(1.0f), e);
  k.emit(DIVF, TE_RT_F16, 0, d);
  p.code = k.words;
  p.value = [](const std::vector<Input> &in, int64_t r, int64_t c) {
    float x = in[0].at(r, c);
    float d = 1.0f + std::exp(-x);
    return x / d;
  };
  return p;
}

/// SwiGLU: silu(gate) * up, gate and up the two halves of one [R, 2C]
/// tensor (strided views).
inline Program swiglu(std::mt19937 &rng, int64_t R, int64_t C) {
  Program p;
  p.name = "swiglu";
  p.transcendental = true;
  Input both = randomInput(rng, TE_RT_BF16, R, 2 * C, 2.0f);
  Input gate = both, up = both;
  gate.rowStride = up.rowStride = 2 * C;
  up.offset = C;
  p.inputs = {gate, up};
  Code k{2, {}};
  int e = k.emit(EXP, TE_RT_F32, k.emit(NEGF, TE_RT_F32, 0));
  int d = k.emit(ADDF, TE_RT_F32, k.constant(1.0f), e);
  int s = k.emit(DIVF, TE_RT_F32, 0, d);
  k.emit(MULF, TE_RT_BF16, s, 1);
  p.code = k.words;
  p.value = [](const std::vector<Input> &in, int64_t r, int64_t c) {
    float g = in[0].at(r, c);
    float s = g / (1.0f + std::exp(-g));
    return s * in[1].at(r, c);
  };
  return p;
}

/// LayerNorm's normalize step: (x - mean[r]) * rstd[r] * gamma[c] + beta[c]
/// (one FMA), mean / rstd per row (f32), gamma / beta per column (bf16).
inline Program layerNorm(std::mt19937 &rng, int64_t R, int64_t C) {
  Program p;
  p.name = "layernorm";
  Input x = randomInput(rng, TE_RT_BF16, R, C, 2.0f, 0.5f);
  Input mean = randomInput(rng, TE_RT_F32, R, 1, 0.3f, 0.5f);
  Input rstd = randomInput(rng, TE_RT_F32, R, 1, 0.2f, 1.0f);
  mean.rowStride = rstd.rowStride = 1;
  mean.colStride = rstd.colStride = 0;
  Input gamma = randomInput(rng, TE_RT_BF16, 1, C, 0.3f, 1.0f);
  Input beta = randomInput(rng, TE_RT_BF16, 1, C, 0.3f);
  gamma.rowStride = beta.rowStride = 0;
  p.inputs = {x, mean, rstd, gamma, beta};
  Code k{5, {}};
  int d = k.emit(SUBF, TE_RT_F32, 0, 1);
  int n = k.emit(MULF, TE_RT_F32, d, 2);
  k.emit(FMA, TE_RT_BF16, n, 3, 4);
  p.code = k.words;
  p.value = [](const std::vector<Input> &in, int64_t r, int64_t c) {
    float n = (in[0].at(r, c) - in[1].at(r, c)) * in[2].at(r, c);
    return std::fma(n, in[3].at(r, c), in[4].at(r, c));
  };
  return p;
}

/// dGELU (tanh) * dY, with its column sum (the bias gradient):
/// g'(x) = 0.5 (1 + t) + 0.5 x (1 - t^2) c (1 + 3 a x^2).
inline Program dgeluDy(std::mt19937 &rng, int64_t R, int64_t C) {
  Program p;
  p.name = "dgelu_dy";
  p.transcendental = true;
  p.colsum = true;
  p.inputs = {randomInput(rng, TE_RT_BF16, R, C, 2.0f),
              randomInput(rng, TE_RT_BF16, R, C, 0.1f)};
  Code k{2, {}};
  int x2 = k.emit(MULF, TE_RT_F32, 0, 0);
  int x3 = k.emit(MULF, TE_RT_F32, x2, 0);
  int c = k.constant(kGeluC), one = k.constant(1.0f), half = k.constant(0.5f);
  int s = k.emit(ADDF, TE_RT_F32, 0,
                 k.emit(MULF, TE_RT_F32, k.constant(kGeluA), x3));
  int t = k.emit(TANH, TE_RT_F32, k.emit(MULF, TE_RT_F32, c, s));
  int left = k.emit(MULF, TE_RT_F32, half, k.emit(ADDF, TE_RT_F32, one, t));
  int oneMinusT2 = k.emit(SUBF, TE_RT_F32, one, k.emit(MULF, TE_RT_F32, t, t));
  int poly = k.emit(ADDF, TE_RT_F32, one,
                    k.emit(MULF, TE_RT_F32, k.constant(3.0f * kGeluA), x2));
  int right =
      k.emit(MULF, TE_RT_F32, k.emit(MULF, TE_RT_F32, half, 0), oneMinusT2);
  right = k.emit(MULF, TE_RT_F32, k.emit(MULF, TE_RT_F32, right, c), poly);
  int g = k.emit(ADDF, TE_RT_F32, left, right);
  k.emit(MULF, TE_RT_BF16, g, 1);
  p.code = k.words;
  p.value = [](const std::vector<Input> &in, int64_t r, int64_t col) {
    float x = in[0].at(r, col);
    float x2 = x * x;
    float x3 = x2 * x;
    float s = x + kGeluA * x3;
    float t = std::tanh(kGeluC * s);
    float left = 0.5f * (1.0f + t);
    float oneMinusT2 = 1.0f - t * t;
    float poly = 1.0f + (3.0f * kGeluA) * x2;
    float right = (0.5f * x) * oneMinusT2;
    right = (right * kGeluC) * poly;
    float g = left + right;
    return g * in[1].at(r, col);
  };
  return p;
}

/// GELU (erf) where a boolean mask (u8, per row and column) is set, else
/// maxnum(x, 0) (ReLU); compares, selects and maxima.
inline Program maskedGeluErf(std::mt19937 &rng, int64_t R, int64_t C) {
  Program p;
  p.name = "masked_gelu_erf";
  p.transcendental = true;
  Input mask;
  mask.dtype = TE_RT_U8;
  mask.rowStride = C;
  mask.colStride = 1;
  mask.bytes.resize(static_cast<size_t>(R * C));
  std::bernoulli_distribution coin(0.5);
  for (auto &b : mask.bytes)
    b = coin(rng) ? 1 : 0;
  p.inputs = {randomInput(rng, TE_RT_F32, R, C, 2.0f), mask};
  Code k{2, {}};
  int e = k.emit(ERF, TE_RT_F32,
                 k.emit(MULF, TE_RT_F32, 0, k.constant(0.70710678f)));
  int gelu =
      k.emit(MULF, TE_RT_F32, k.emit(MULF, TE_RT_F32, k.constant(0.5f), 0),
             k.emit(ADDF, TE_RT_F32, k.constant(1.0f), e));
  int zero = k.constant(0.0f);
  int relu = k.emit(MAXNUMF, TE_RT_F32, 0, zero);
  int on = k.emit(CMPF, TE_RT_U8, 1, zero, 13); // une: mask != 0
  k.emit(SELECT, TE_RT_BF16, on, gelu, relu);
  p.code = k.words;
  p.value = [](const std::vector<Input> &in, int64_t r, int64_t c) {
    float x = in[0].at(r, c);
    float gelu = (0.5f * x) * (1.0f + std::erf(x * 0.70710678f));
    float relu = std::fmax(x, 0.0f);
    return in[1].at(r, c) != 0.0f ? gelu : relu;
  };
  return p;
}

using ProgramMaker = Program (*)(std::mt19937 &, int64_t, int64_t);
inline const std::vector<ProgramMaker> &allPrograms() {
  static const std::vector<ProgramMaker> v = {
      biasGeluTanh, residualAdd, silu,         swiglu,
      layerNorm,    dgeluDy,     maskedGeluErf};
  return v;
}

//===----------------------------------------------------------------------===//
// Recipes
//===----------------------------------------------------------------------===//

struct Recipe {
  std::string name;
  te_rt_quantizer q;
  te_rt_target target = TE_RT_SM90;
  int64_t rowMultiple = 1, colMultiple = 1; ///< shape constraints
};

inline std::vector<Recipe> allRecipes() {
  std::vector<Recipe> v;
  auto add = [&](const char *name, te_rt_recipe r, te_rt_dtype d,
                 te_rt_target t, int64_t mult,
                 void (*tweak)(te_rt_quantizer &)) {
    Recipe rc;
    rc.name = name;
    te_rt_quantizer_init_default(&rc.q);
    rc.q.recipe = r;
    rc.q.dtype = d;
    rc.target = t;
    rc.rowMultiple = rc.colMultiple = mult;
    if (tweak)
      tweak(rc.q);
    v.push_back(rc);
  };
  add("current_e4m3", TE_RT_RECIPE_CURRENT, TE_RT_E4M3, TE_RT_SM90, 1, nullptr);
  add("current_e5m2_pow2", TE_RT_RECIPE_CURRENT, TE_RT_E5M2, TE_RT_SM90, 1,
      [](te_rt_quantizer &q) { q.pow2_scales = 1; });
  add("delayed_e4m3", TE_RT_RECIPE_DELAYED, TE_RT_E4M3, TE_RT_SM90, 1, nullptr);
  add("block_1x128", TE_RT_RECIPE_BLOCK, TE_RT_E4M3, TE_RT_SM90, 1,
      [](te_rt_quantizer &q) { q.block_dim = 1; });
  add("block_128x128", TE_RT_RECIPE_BLOCK, TE_RT_E4M3, TE_RT_SM90, 1,
      [](te_rt_quantizer &q) { q.block_dim = 2; });
  add("mxfp8", TE_RT_RECIPE_MXFP8, TE_RT_E4M3, TE_RT_SM100, 32, nullptr);
  add("nvfp4", TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2, TE_RT_SM100, 16, nullptr);
  add("nvfp4_rht_sr_2d", TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2, TE_RT_SM100, 16,
      [](te_rt_quantizer &q) {
        q.rht = 1;
        q.rht_sign_mask = 0xD7E8u;
        q.stochastic_rounding = 1;
        q.nvfp4_2d = 1;
      });
  return v;
}

//===----------------------------------------------------------------------===//
// Running a quantize on a context
//===----------------------------------------------------------------------===//

/// While true, DeviceBuffer allocates host memory instead of context memory
/// (for the cuda backend's host-memory mode, te_rt_context_set_host_memory).
inline bool &hostBuffers() {
  static bool on = false;
  return on;
}

/// Context memory (host memory under hostBuffers()) freed at scope exit.
struct DeviceBuffer {
  te_rt_context *ctx = nullptr;
  void *p = nullptr;
  size_t bytes = 0;
  bool host = false;
  DeviceBuffer(te_rt_context *c, size_t n)
      : ctx(c), bytes(n), host(hostBuffers()) {
    if (host)
      p = std::aligned_alloc(256, (n + 255) / 256 * 256 + 256);
    else
      EXPECT_EQ(te_rt_malloc(ctx, n, &p), TE_RT_OK) << te_rt_last_error();
  }
  DeviceBuffer(te_rt_context *c, const std::vector<uint8_t> &host)
      : DeviceBuffer(c, host.size()) {
    if (host.empty())
      return;
    if (this->host)
      std::memcpy(p, host.data(), host.size());
    else
      EXPECT_EQ(
          te_rt_memcpy(ctx, p, host.data(), host.size(), TE_RT_HOST_TO_DEVICE),
          TE_RT_OK);
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  ~DeviceBuffer() {
    if (host)
      std::free(p);
    else
      te_rt_free(ctx, p);
  }
  void write(const void *src, size_t n) {
    if (host)
      std::memcpy(p, src, n);
    else
      EXPECT_EQ(te_rt_memcpy(ctx, p, src, n, TE_RT_HOST_TO_DEVICE), TE_RT_OK);
  }
  std::vector<uint8_t> read() const {
    std::vector<uint8_t> h(bytes);
    if (bytes && host)
      std::memcpy(h.data(), p, bytes);
    else if (bytes)
      EXPECT_EQ(te_rt_memcpy(ctx, h.data(), p, bytes, TE_RT_DEVICE_TO_HOST),
                TE_RT_OK);
    return h;
  }
};

/// What a quantize wrote, on the host.
struct Result {
  te_rt_status status = TE_RT_OK;
  std::string error;
  std::vector<std::vector<uint8_t>> buffers;
  float amax = 0.0f;
  std::vector<uint8_t> value; ///< value_out (fused) or x (unfused)
  std::vector<float> colsum;  ///< fused with colsum only
};

constexpr float kDelayedScale = 3.0f;
constexpr uint64_t kSeed = 0x1234567890ABCDEFull, kOffset = 77;

/// Allocates q's buffers on ctx, filled with 0xA5 bytes (so that a buffer
/// left unwritten differs from one that was).
inline std::vector<std::unique_ptr<DeviceBuffer>>
allocQ(te_rt_context *ctx, const Recipe &rc, int64_t R, int64_t C,
       te_rt_usage usage, te_rt_qtensor &q) {
  std::vector<std::unique_ptr<DeviceBuffer>> bufs;
  int64_t shape[2] = {R, C};
  EXPECT_EQ(te_rt_qtensor_init(&q, &rc.q, 2, shape, usage, rc.target), TE_RT_OK)
      << te_rt_last_error();
  for (int i = 0; i < q.num_buffers; ++i) {
    std::vector<uint8_t> fill(static_cast<size_t>(q.buffers[i].size_bytes),
                              0xA5);
    bufs.push_back(std::make_unique<DeviceBuffer>(ctx, fill));
    q.buffers[i].data = bufs.back()->p;
  }
  return bufs;
}

/// The oracle's x (rows x cols of p.xDtype) quantized by te_rt_quantize.
inline Result quantizeUnfused(te_rt_context *ctx, const Program &p,
                              const Recipe &rc, int64_t R, int64_t C,
                              te_rt_usage usage,
                              const std::vector<uint8_t> &xHost) {
  Result res;
  te_rt_qtensor q;
  auto bufs = allocQ(ctx, rc, R, C, usage, q);
  DeviceBuffer x(ctx, xHost), amax(ctx, 4), scale(ctx, 4);
  scale.write(&kDelayedScale, 4);
  te_rt_tensor xt;
  te_rt_tensor_init(&xt);
  xt.data = x.p;
  xt.dtype = static_cast<te_rt_dtype>(p.xDtype);
  xt.rank = 2;
  xt.shape[0] = R;
  xt.shape[1] = C;
  te_rt_quantize_args a;
  te_rt_quantize_args_init(&a);
  const bool perTensor = rc.q.recipe == TE_RT_RECIPE_CURRENT ||
                         rc.q.recipe == TE_RT_RECIPE_DELAYED;
  if (rc.q.recipe == TE_RT_RECIPE_DELAYED)
    a.scale = static_cast<const float *>(scale.p);
  if (perTensor)
    a.amax = static_cast<float *>(amax.p);
  a.seed = kSeed;
  a.offset = kOffset;
  res.status = te_rt_quantize(ctx, &xt, &q, &a);
  res.error = te_rt_last_error();
  te_rt_synchronize(ctx, nullptr);
  for (auto &b : bufs)
    res.buffers.push_back(b->read());
  if (perTensor)
    std::memcpy(&res.amax, amax.read().data(), 4);
  res.value = xHost;
  return res;
}

/// te_rt_mlir_quantize_produced of `p` with value_out (and colsum when the
/// program asks for it; colsumInit: its prior contents, accumulated into
/// when colsumAccumulate).
inline Result quantizeFused(te_rt_context *ctx, const Program &p,
                            const Recipe &rc, int64_t R, int64_t C,
                            te_rt_usage usage, bool colsumAccumulate = false,
                            const std::vector<float> &colsumInit = {}) {
  Result res;
  te_rt_qtensor q;
  auto bufs = allocQ(ctx, rc, R, C, usage, q);
  std::vector<std::unique_ptr<DeviceBuffer>> ins;
  for (const Input &in : p.inputs)
    ins.push_back(std::make_unique<DeviceBuffer>(ctx, in.bytes));
  const int64_t valueBytes = R * C * elementBytes(p.xDtype);
  DeviceBuffer amax(ctx, 4), scale(ctx, 4),
      value(ctx, std::vector<uint8_t>(static_cast<size_t>(valueBytes), 0x5A));
  std::vector<uint8_t> colsumBytes(static_cast<size_t>(4 * C), 0x5A);
  if (!colsumInit.empty())
    std::memcpy(colsumBytes.data(), colsumInit.data(), colsumBytes.size());
  DeviceBuffer colsum(ctx, colsumBytes);
  scale.write(&kDelayedScale, 4);
  const bool perTensor = rc.q.recipe == TE_RT_RECIPE_CURRENT ||
                         rc.q.recipe == TE_RT_RECIPE_DELAYED;

  te_rt_abi::quantize::Fields d;
  std::memset(&d, 0, sizeof(d));
  d.target = rc.target;
  d.quantizer = rc.q;
  d.usage = usage;
  d.rows = R;
  d.cols = C;
  for (int i = 0; i < q.num_buffers; ++i)
    d.bufs[i] = q.buffers[i].data;
  d.x_dtype = p.xDtype;
  d.x = nullptr;
  d.scale = rc.q.recipe == TE_RT_RECIPE_DELAYED ? scale.p : nullptr;
  d.amax = perTensor ? amax.p : nullptr;
  d.seed = static_cast<int64_t>(kSeed);
  d.offset = static_cast<int64_t>(kOffset);
  int64_t dw[te_rt_abi::quantize::kWords];
  te_rt_abi::encode(d, dw);

  te_rt_abi::producer::Fields pf;
  std::memset(&pf, 0, sizeof(pf));
  pf.num_inputs = static_cast<int32_t>(p.inputs.size());
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const Input &in = p.inputs[i];
    pf.inputs[i] =
        static_cast<uint8_t *>(ins[i]->p) + in.offset * elementBytes(in.dtype);
    pf.input_dtypes[i] = in.dtype;
    pf.input_row_strides[i] = in.rowStride;
    pf.input_col_strides[i] = in.colStride;
  }
  pf.num_instrs = static_cast<int32_t>(p.code.size() / 5);
  pf.code = const_cast<int32_t *>(p.code.data());
  pf.value_out = value.p;
  pf.colsum = p.colsum ? colsum.p : nullptr;
  pf.colsum_accumulate = colsumAccumulate ? 1 : 0;
  int64_t pw[te_rt_abi::producer::kWords];
  te_rt_abi::encode(pf, pw);

  te_rt_set_current_context(ctx);
  te_rt_mlir_quantize_produced(dw, pw);
  res.status = static_cast<te_rt_status>(te_rt_current_status());
  res.error = static_cast<const char *>(te_rt_current_error());
  te_rt_synchronize(ctx, nullptr);
  te_rt_set_current_context(nullptr);
  for (auto &b : bufs)
    res.buffers.push_back(b->read());
  if (perTensor)
    std::memcpy(&res.amax, amax.read().data(), 4);
  res.value = value.read();
  if (p.colsum) {
    std::vector<uint8_t> cs = colsum.read();
    res.colsum.resize(static_cast<size_t>(C));
    std::memcpy(res.colsum.data(), cs.data(), cs.size());
  }
  return res;
}

/// The oracle's value (rounded to p.xDtype) as x's bytes.
inline std::vector<uint8_t> oracleX(const Program &p, int64_t R, int64_t C) {
  std::vector<uint8_t> x(static_cast<size_t>(R * C * elementBytes(p.xDtype)));
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c)
      putElement(x, r * C + c, p.xDtype,
                 roundTo(p.value(p.inputs, r, c), p.xDtype));
  return x;
}

/// Column sums of x in double.
inline std::vector<double> oracleColsum(const Program &p, int64_t R, int64_t C,
                                        const std::vector<uint8_t> &x) {
  std::vector<double> s(static_cast<size_t>(C), 0.0);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c)
      s[c] += getElement(x, r * C + c, p.xDtype);
  return s;
}

/// Column c's sum of |x| (the scale of the summation error bound).
inline double absColsum(const Program &p, int64_t R, int64_t C, int64_t c,
                        const std::vector<uint8_t> &x) {
  double s = 0.0;
  for (int64_t r = 0; r < R; ++r)
    s += std::fabs(getElement(x, r * C + c, p.xDtype));
  return s;
}

/// Index of the first differing byte, or -1.
inline int64_t firstDiff(const std::vector<uint8_t> &a,
                         const std::vector<uint8_t> &b) {
  if (a.size() != b.size())
    return 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i])
      return static_cast<int64_t>(i);
  return -1;
}

} // namespace producer_test

#endif // TE_RT_TEST_PRODUCERPROGRAMS_H
