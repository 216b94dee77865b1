//===- Producer.h - Producer programs of fused quantizations ----*- C++ -*-===//
//
// Part of te. Internal to libte_rt; also compiles as CUDA (nvcc -x cu).
//
//===----------------------------------------------------------------------===//
//
// A producer program (te_rt_abi.def, descriptor `producer`) is the
// elementwise computation whose value a quantize consumes in place of
// reading x. Both backends evaluate it with the functions below, so the
// arithmetic, the rounding to each instruction's type and the comparisons
// are one piece of code; only the transcendentals differ (the C library's on
// the host, CUDA's on the device), as te_rt_abi.def states.
//
// Host code must not contract ADDF / MULF into FMAs: the runtime is built
// for x86-64 without -mfma (and ScopedIEEEFloatEnvironment keeps IEEE
// rounding); the device code uses __fadd_rn / __fmul_rn, which nvcc never
// contracts.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_LIB_PRODUCER_H
#define TE_RT_LIB_PRODUCER_H

#include "te/Format/Codecs.h"
#include "te/Format/HostDevice.h"
#include "te_rt.h"

#include <cmath>
#include <cstdint>

namespace te::rt {

/// The opcodes of a producer program (te_rt_abi.def's TE_RT_ABI_PRODUCER_OP
/// list).
enum class ProducerOp : int32_t {
#define TE_RT_ABI_PRODUCER_OP(name, code, arity) name = code,
#include "te_rt_abi.def"
};

/// One instruction of a producer program: {opcode, type, a, b, c} as
/// te_rt_abi.def encodes it, plus `imm`. te::rt::quantizeProduced
/// normalizes a validated program: CONST's bits and CMPF's predicate move to
/// imm, and every operand index is a value defined before the instruction
/// (those past the arity 0), so evaluation reads no index unchecked.
struct ProducerInstr {
  int32_t op = 0, type = 0, a = 0, b = 0, c = 0, imm = 0;
};

/// A validated producer program (te_rt_mlir_quantize_produced, checked by
/// te::rt::quantizeProduced): the quantize evaluates it per element (r, c)
/// of the rows x cols value instead of reading x. Plain data (the cuda
/// backend passes it to its kernels as a kernel parameter). Input i's
/// element (r, c) is at inputs[i] + r * rowStrides[i] + c * colStrides[i]
/// (elements of inputTypes[i], a te_rt_dtype: F32, BF16, F16, U8), in the
/// backend's memory.
struct Producer {
  static constexpr int kMaxInputs = 8, kMaxInstrs = 64;
  int32_t numInputs = 0, numInstrs = 0;
  const void *inputs[kMaxInputs] = {};
  int32_t inputTypes[kMaxInputs] = {};
  int64_t rowStrides[kMaxInputs] = {}, colStrides[kMaxInputs] = {};
  ProducerInstr code[kMaxInstrs] = {};
  /// Null, or the value is also written here (x's dtype, rows x cols).
  void *valueOut = nullptr;
  /// Null, or f32[cols]: the column sums of the value (rounded to x's
  /// dtype), written (colsumAccumulate false) or added.
  float *colsum = nullptr;
  bool colsumAccumulate = false;
};

/// `v` rounded to a producer type (te_rt_dtype): F32 itself, BF16 / F16 to
/// nearest even, U8 a boolean (1 when nonzero or NaN, else 0).
TE_HD inline float roundToProducerType(float v, int32_t type) {
  switch (type) {
  case TE_RT_BF16:
    return format::roundToBF16(v);
  case TE_RT_F16:
    return format::f16ToFloat(format::floatToF16(v));
  case TE_RT_U8:
    return (v != 0.0f || v != v) ? 1.0f : 0.0f;
  default:
    return v;
  }
}

/// Element `offset` (elements) of a buffer of producer type `type`, exactly
/// as f32.
TE_HD inline float loadProducerElement(const void *p, int32_t type,
                                       int64_t offset) {
  switch (type) {
  case TE_RT_BF16:
    return format::bf16ToFloat(static_cast<const uint16_t *>(p)[offset]);
  case TE_RT_F16:
    return format::f16ToFloat(static_cast<const uint16_t *>(p)[offset]);
  case TE_RT_U8:
    return static_cast<float>(static_cast<const uint8_t *>(p)[offset]);
  default:
    return static_cast<const float *>(p)[offset];
  }
}

/// arith.cmpf with arith::CmpFPredicate `pred` (0 .. 15).
TE_HD inline bool producerCompare(int32_t pred, float a, float b) {
  const bool unordered = a != a || b != b;
  switch (pred) {
  case 0:
    return false;
  case 1:
    return !unordered && a == b;
  case 2:
    return !unordered && a > b;
  case 3:
    return !unordered && a >= b;
  case 4:
    return !unordered && a < b;
  case 5:
    return !unordered && a <= b;
  case 6:
    return !unordered && a != b;
  case 7:
    return !unordered;
  case 8:
    return unordered || a == b;
  case 9:
    return unordered || a > b;
  case 10:
    return unordered || a >= b;
  case 11:
    return unordered || a < b;
  case 12:
    return unordered || a <= b;
  case 13:
    return unordered || a != b;
  case 14:
    return unordered;
  default:
    return true;
  }
}

/// IEEE maximum / minimum (NaN propagates, the NaN operand a first; -0 <
/// +0) and maxNum / minNum (a NaN operand yields the other one).
TE_HD inline float producerMaximum(float a, float b, bool max, bool num) {
  const bool an = a != a, bn = b != b;
  if (an || bn) {
    if (num)
      return an ? b : a;
    return an ? a : b;
  }
  if (a == b) // equal, or +0 and -0: the sign decides
    return (format::bitsOf(a) >> 31) == (max ? 1u : 0u) ? b : a;
  return (a > b) == max ? a : b;
}

/// Applies `f` to lane j of the operands of normalized instruction `in` for
/// every lane, rounding each result to in.type: v[n][j] = round(f(v[a][j],
/// v[b][j], v[c][j])).
template <int N, typename F>
TE_HD inline void producerLanes(float (*v)[N], int n, const ProducerInstr &in,
                                F f) {
  for (int j = 0; j < N; ++j)
    v[n][j] =
        roundToProducerType(f(v[in.a][j], v[in.b][j], v[in.c][j]), in.type);
}

/// Normalized instruction `in` (its opcode dispatched once) on N lanes of
/// values: v[n][j] for every lane j.
template <int N>
TE_HD inline void producerStep(float (*v)[N], int n, const ProducerInstr &in) {
  switch (static_cast<ProducerOp>(in.op)) {
  case ProducerOp::CONST: {
    const float k = format::floatOf(static_cast<uint32_t>(in.imm));
    producerLanes<N>(v, n, in, [k](float, float, float) { return k; });
    return;
  }
  case ProducerOp::CAST:
    producerLanes<N>(v, n, in, [](float a, float, float) { return a; });
    return;
#if defined(__CUDA_ARCH__)
  case ProducerOp::ADDF:
    producerLanes<N>(v, n, in,
                     [](float a, float b, float) { return __fadd_rn(a, b); });
    return;
  case ProducerOp::SUBF:
    producerLanes<N>(v, n, in,
                     [](float a, float b, float) { return __fsub_rn(a, b); });
    return;
  case ProducerOp::MULF:
    producerLanes<N>(v, n, in,
                     [](float a, float b, float) { return __fmul_rn(a, b); });
    return;
  case ProducerOp::DIVF:
    producerLanes<N>(v, n, in,
                     [](float a, float b, float) { return __fdiv_rn(a, b); });
    return;
  case ProducerOp::SQRT:
    producerLanes<N>(v, n, in,
                     [](float a, float, float) { return __fsqrt_rn(a); });
    return;
  case ProducerOp::RSQRT:
    producerLanes<N>(v, n, in, [](float a, float, float) { return rsqrtf(a); });
    return;
#else
  case ProducerOp::ADDF:
    producerLanes<N>(v, n, in, [](float a, float b, float) { return a + b; });
    return;
  case ProducerOp::SUBF:
    producerLanes<N>(v, n, in, [](float a, float b, float) { return a - b; });
    return;
  case ProducerOp::MULF:
    producerLanes<N>(v, n, in, [](float a, float b, float) { return a * b; });
    return;
  case ProducerOp::DIVF:
    producerLanes<N>(v, n, in, [](float a, float b, float) { return a / b; });
    return;
  case ProducerOp::SQRT:
    producerLanes<N>(v, n, in,
                     [](float a, float, float) { return std::sqrt(a); });
    return;
  case ProducerOp::RSQRT:
    producerLanes<N>(v, n, in,
                     [](float a, float, float) { return 1.0f / std::sqrt(a); });
    return;
#endif
  case ProducerOp::NEGF:
    producerLanes<N>(v, n, in, [](float a, float, float) {
      return format::floatOf(format::bitsOf(a) ^ 0x80000000u);
    });
    return;
  case ProducerOp::ABSF:
    producerLanes<N>(v, n, in, [](float a, float, float) {
      return format::floatOf(format::bitsOf(a) & 0x7FFFFFFFu);
    });
    return;
  case ProducerOp::MAXIMUMF:
    producerLanes<N>(v, n, in, [](float a, float b, float) {
      return producerMaximum(a, b, true, false);
    });
    return;
  case ProducerOp::MINIMUMF:
    producerLanes<N>(v, n, in, [](float a, float b, float) {
      return producerMaximum(a, b, false, false);
    });
    return;
  case ProducerOp::MAXNUMF:
    producerLanes<N>(v, n, in, [](float a, float b, float) {
      return producerMaximum(a, b, true, true);
    });
    return;
  case ProducerOp::MINNUMF:
    producerLanes<N>(v, n, in, [](float a, float b, float) {
      return producerMaximum(a, b, false, true);
    });
    return;
  case ProducerOp::EXP:
    producerLanes<N>(v, n, in, [](float a, float, float) { return expf(a); });
    return;
  case ProducerOp::EXP2:
    producerLanes<N>(v, n, in, [](float a, float, float) { return exp2f(a); });
    return;
  case ProducerOp::LOG:
    producerLanes<N>(v, n, in, [](float a, float, float) { return logf(a); });
    return;
  case ProducerOp::TANH:
    producerLanes<N>(v, n, in, [](float a, float, float) { return tanhf(a); });
    return;
  case ProducerOp::ERF:
    producerLanes<N>(v, n, in, [](float a, float, float) { return erff(a); });
    return;
  case ProducerOp::FMA:
    producerLanes<N>(v, n, in,
                     [](float a, float b, float c) { return fmaf(a, b, c); });
    return;
  case ProducerOp::CMPF: {
    const int32_t pred = in.imm;
    producerLanes<N>(v, n, in, [pred](float a, float b, float) {
      return producerCompare(pred, a, b) ? 1.0f : 0.0f;
    });
    return;
  }
  case ProducerOp::SELECT:
    producerLanes<N>(
        v, n, in, [](float a, float b, float c) { return a != 0.0f ? b : c; });
    return;
  case ProducerOp::POWF:
    producerLanes<N>(v, n, in,
                     [](float a, float b, float) { return powf(a, b); });
    return;
  case ProducerOp::LOG1P:
    producerLanes<N>(v, n, in, [](float a, float, float) { return log1pf(a); });
    return;
  case ProducerOp::EXPM1:
    producerLanes<N>(v, n, in, [](float a, float, float) { return expm1f(a); });
    return;
  }
}

/// The value of a normalized program at the N elements (r, c0 + j),
/// rounded to `xType` (the quantize's x dtype), as f32, into out[j].
/// Columns past `cols` are evaluated at column cols - 1 (callers drop them).
/// The opcode of each instruction is dispatched once for the N lanes.
template <int N>
TE_HD inline void evaluateProducerN(const Producer &p, int64_t r, int64_t c0,
                                    int64_t cols, int32_t xType, float out[N]) {
  float v[Producer::kMaxInputs + Producer::kMaxInstrs][N];
  for (int j = 0; j < N; ++j)
    v[0][j] = 0.0f; // what operands of a program without inputs read first
  for (int i = 0; i < p.numInputs; ++i)
    for (int j = 0; j < N; ++j) {
      const int64_t c = c0 + j < cols ? c0 + j : cols - 1;
      v[i][j] = loadProducerElement(p.inputs[i], p.inputTypes[i],
                                    r * p.rowStrides[i] + c * p.colStrides[i]);
    }
  int n = p.numInputs;
  for (int k = 0; k < p.numInstrs; ++k, ++n)
    producerStep<N>(v, n, p.code[k]);
  for (int j = 0; j < N; ++j)
    out[j] = roundToProducerType(v[n - 1][j], xType);
}

/// The value of a normalized program at element (r, c), rounded to `xType`.
TE_HD inline float evaluateProducer(const Producer &p, int64_t r, int64_t c,
                                    int32_t xType) {
  float out[1];
  evaluateProducerN<1>(p, r, c, c + 1, xType, out);
  return out[0];
}

} // namespace te::rt

#endif // TE_RT_LIB_PRODUCER_H
