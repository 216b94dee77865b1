//===- ProducerTest.cpp - Quantizations of producer programs, cpu ---------===//
//
// Part of te. te_rt_mlir_quantize_produced on the cpu backend: every opcode
// against its specification (te_rt_abi.def) on special values; the fused
// programs of ProducerPrograms.h against their oracle quantized through the
// public unfused API, for every recipe and odd shapes, buffers, amax and the
// written value compared byte for byte; the column sum against a double
// sum; every validation message.
//
//===----------------------------------------------------------------------===//

#include "ProducerPrograms.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace producer_test;

namespace {

struct CpuContext {
  te_rt_context *ctx = nullptr;
  CpuContext() {
    EXPECT_EQ(te_rt_context_create(TE_RT_BACKEND_CPU, &ctx), TE_RT_OK);
  }
  ~CpuContext() { te_rt_context_destroy(ctx); }
  operator te_rt_context *() const { return ctx; }
};

const Recipe &recipeNamed(const char *name) {
  static const std::vector<Recipe> all = allRecipes();
  for (const Recipe &r : all)
    if (r.name == name)
      return r;
  ADD_FAILURE() << "no recipe " << name;
  return all[0];
}

//===----------------------------------------------------------------------===//
// Every opcode on special values
//===----------------------------------------------------------------------===//

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInfF = std::numeric_limits<float>::infinity();

/// Operand values of the opcode tests: special values and ordinary ones.
const std::vector<float> &specials() {
  static const std::vector<float> v = {
      0.0f,   -0.0f, 1.0f,    -1.0f, 0.5f,   2.5f, -3.75f, 1e-3f,
      100.0f, 1e30f, -1e-30f, kInfF, -kInfF, kNaN, 0.3f,   -0.7f};
  return v;
}

/// The specification of a binary or unary opcode (te_rt_abi.def) as plain
/// C++ on f32.
float spec(int32_t op, float a, float b, float c, int32_t pred) {
  auto isnan = [](float f) { return f != f; };
  auto maxSpec = [&](float x, float y, bool max, bool num) {
    if (isnan(x) || isnan(y)) {
      if (num)
        return isnan(x) ? y : x;
      return isnan(x) ? x : y;
    }
    if (x == y) { // +0 / -0: the maximum is +0, the minimum -0
      if (max)
        return std::signbit(x) ? y : x;
      return std::signbit(x) ? x : y;
    }
    return max ? (x > y ? x : y) : (x < y ? x : y);
  };
  switch (op) {
  case CAST:
    return a;
  case ADDF:
    return a + b;
  case SUBF:
    return a - b;
  case MULF:
    return a * b;
  case DIVF:
    return a / b;
  case NEGF:
    return -a;
  case ABSF:
    return std::fabs(a);
  case MAXIMUMF:
    return maxSpec(a, b, true, false);
  case MINIMUMF:
    return maxSpec(a, b, false, false);
  case MAXNUMF:
    return maxSpec(a, b, true, true);
  case MINNUMF:
    return maxSpec(a, b, false, true);
  case EXP:
    return expf(a);
  case EXP2:
    return exp2f(a);
  case LOG:
    return logf(a);
  case TANH:
    return tanhf(a);
  case ERF:
    return erff(a);
  case SQRT:
    return sqrtf(a);
  case RSQRT:
    return 1.0f / sqrtf(a);
  case FMA:
    return fmaf(a, b, c);
  case POWF:
    return powf(a, b);
  case LOG1P:
    return log1pf(a);
  case EXPM1:
    return expm1f(a);
  case SELECT:
    return a != 0.0f ? b : c;
  case CMPF: {
    bool unord = isnan(a) || isnan(b), r = false;
    switch (pred) {
    case 0:
      r = false;
      break;
    case 1:
      r = !unord && a == b;
      break;
    case 2:
      r = !unord && a > b;
      break;
    case 3:
      r = !unord && a >= b;
      break;
    case 4:
      r = !unord && a < b;
      break;
    case 5:
      r = !unord && a <= b;
      break;
    case 6:
      r = !unord && a != b;
      break;
    case 7:
      r = !unord;
      break;
    case 8:
      r = unord || a == b;
      break;
    case 9:
      r = unord || a > b;
      break;
    case 10:
      r = unord || a >= b;
      break;
    case 11:
      r = unord || a < b;
      break;
    case 12:
      r = unord || a <= b;
      break;
    case 13:
      r = unord || a != b;
      break;
    case 14:
      r = unord;
      break;
    default:
      r = true;
      break;
    }
    return r ? 1.0f : 0.0f;
  }
  }
  ADD_FAILURE() << "no spec for opcode " << op;
  return 0.0f;
}

/// Rounding to an instruction type per te_rt_abi.def (U8: nonzero or NaN
/// is 1).
float specRound(float v, int32_t type) {
  if (type == TE_RT_U8)
    return (v != 0.0f || v != v) ? 1.0f : 0.0f;
  return roundTo(v, type);
}

/// Every pair (a, b) of specials, with c the pair's mirror, through one
/// instruction of `op` and `type`, the value written as f32 (value_out) and
/// compared bit for bit with spec (NaN: any NaN).
void checkOpcode(int32_t op, int arity, int32_t type, int32_t pred = 0) {
  CpuContext ctx;
  const std::vector<float> &s = specials();
  const int64_t n = static_cast<int64_t>(s.size());
  const int64_t R = n, C = n; // element (r, c): a = s[r], b = s[c]
  Program p;
  p.name = "opcode";
  p.xDtype = TE_RT_F32;
  Input a, b, c;
  a.dtype = b.dtype = c.dtype = TE_RT_F32;
  a.bytes.resize(4 * n);
  b.bytes = c.bytes = a.bytes;
  for (int64_t i = 0; i < n; ++i) {
    putElement(a.bytes, i, TE_RT_F32, s[i]);
    putElement(b.bytes, i, TE_RT_F32, s[i]);
    putElement(c.bytes, i, TE_RT_F32, s[n - 1 - i]);
  }
  a.rowStride = 1; // a varies with the row, b and c with the column
  b.colStride = 1;
  c.colStride = 1;
  p.inputs = {a, b, c};
  Code k{3, {}};
  k.emit(op, type, 0, arity >= 2 ? 1 : 0, op == CMPF ? pred : 2);
  p.code = k.words;
  Recipe rc = recipeNamed("current_e4m3");
  Result f = quantizeFused(ctx, p, rc, R, C, TE_RT_ROWWISE);
  ASSERT_EQ(f.status, TE_RT_OK) << f.error;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t col = 0; col < C; ++col) {
      float want =
          specRound(spec(op, s[r], s[col], s[n - 1 - col], pred), type);
      float got = getElement(f.value, r * C + col, TE_RT_F32);
      if (want != want) {
        EXPECT_NE(got, got)
            << "opcode " << op << " (" << s[r] << ", " << s[col] << ")";
        continue;
      }
      EXPECT_EQ(floatToBits(got), floatToBits(want))
          << "opcode " << op << " type " << type << " pred " << pred << " ("
          << s[r] << ", " << s[col] << ", " << s[n - 1 - col] << "): got "
          << got << ", want " << want;
    }
}

TEST(ProducerOps, EveryOpcodeMatchesItsSpecification) {
  struct {
    int32_t op;
    int arity;
  } ops[] = {
#define TE_RT_ABI_PRODUCER_OP(name, code, arity) {code, arity},
#include "te_rt_abi.def"
  };
  for (auto o : ops) {
    if (o.op == CONST || o.op == CMPF)
      continue; // below
    SCOPED_TRACE("opcode " + std::to_string(o.op));
    checkOpcode(o.op, o.arity, TE_RT_F32);
  }
}

TEST(ProducerOps, ResultTypesRound) {
  for (int32_t type : {TE_RT_BF16, TE_RT_F16, TE_RT_U8}) {
    SCOPED_TRACE("type " + std::to_string(type));
    checkOpcode(ADDF, 2, type);
    checkOpcode(DIVF, 2, type);
    checkOpcode(CAST, 1, type);
    checkOpcode(SELECT, 3, type);
  }
}

TEST(ProducerOps, EveryComparePredicate) {
  for (int32_t pred = 0; pred <= 15; ++pred) {
    SCOPED_TRACE("predicate " + std::to_string(pred));
    checkOpcode(CMPF, 2, TE_RT_U8, pred);
  }
}

TEST(ProducerOps, ConstantsRoundToTheirType) {
  // A program without inputs: CONST 1/3 as bf16 plus CONST 1e-8 as f16
  // (subnormal in f16: 1e-8 rounds to 0) plus an f32 constant.
  CpuContext ctx;
  Program p;
  p.xDtype = TE_RT_F32;
  Code k{0, {}};
  int a = k.constant(1.0f / 3.0f, TE_RT_BF16);
  int b = k.constant(6.1e-5f, TE_RT_F16);
  int c = k.constant(-2.0f);
  k.emit(FMA, TE_RT_F32, a, c, b);
  p.code = k.words;
  Result f =
      quantizeFused(ctx, p, recipeNamed("current_e4m3"), 3, 5, TE_RT_ROWWISE);
  ASSERT_EQ(f.status, TE_RT_OK) << f.error;
  const float want = std::fma(rbf(1.0f / 3.0f), -2.0f, rf16(6.1e-5f));
  for (int i = 0; i < 15; ++i)
    EXPECT_EQ(floatToBits(getElement(f.value, i, TE_RT_F32)),
              floatToBits(want));
}

//===----------------------------------------------------------------------===//
// Programs x recipes: bit-identical to the unfused quantize
//===----------------------------------------------------------------------===//

void checkProgram(te_rt_context *ctx, ProgramMaker make, const Recipe &rc,
                  int64_t R, int64_t C, te_rt_usage usage, uint32_t seed) {
  std::mt19937 rng(seed);
  Program p = make(rng, R, C);
  SCOPED_TRACE(p.name + " " + rc.name + " " + std::to_string(R) + "x" +
               std::to_string(C) + " usage " + std::to_string(usage));
  const bool rhtNeedsBF16 = rc.q.rht && p.xDtype != TE_RT_BF16;
  std::vector<uint8_t> x = oracleX(p, R, C);
  Result want = quantizeUnfused(ctx, p, rc, R, C, usage, x);
  Result got = quantizeFused(ctx, p, rc, R, C, usage);
  if (rhtNeedsBF16) {
    EXPECT_EQ(want.status, TE_RT_UNSUPPORTED);
    EXPECT_EQ(got.status, TE_RT_UNSUPPORTED);
    EXPECT_EQ(got.error, "te.quantize: NVFP4 RHT needs a bf16 input, got f16");
    return;
  }
  ASSERT_EQ(want.status, TE_RT_OK) << want.error;
  ASSERT_EQ(got.status, TE_RT_OK) << got.error;
  ASSERT_EQ(got.buffers.size(), want.buffers.size());
  for (size_t i = 0; i < want.buffers.size(); ++i)
    EXPECT_EQ(firstDiff(got.buffers[i], want.buffers[i]), -1) << "buffer " << i;
  EXPECT_EQ(floatToBits(got.amax), floatToBits(want.amax));
  EXPECT_EQ(firstDiff(got.value, x), -1) << "value_out";
  if (p.colsum) {
    std::vector<double> s = oracleColsum(p, R, C, x);
    for (int64_t c = 0; c < C; ++c) {
      // The cpu backend sums in double and rounds once: within half an ulp
      // of f32 (plus the double sum's own error, far below it).
      const double bound =
          std::ldexp(std::fabs(s[c]), -24) + 1e-12 * absColsum(p, R, C, c, x);
      EXPECT_LE(std::fabs(got.colsum[c] - s[c]), bound) << "colsum " << c;
    }
  }
}

TEST(ProducerQuantize, PerTensorAndBlockRecipes) {
  CpuContext ctx;
  const char *recipes[] = {"current_e4m3", "current_e5m2_pow2", "delayed_e4m3",
                           "block_1x128", "block_128x128"};
  const std::pair<int64_t, int64_t> shapes[] = {
      {1, 16}, {7, 48}, {257, 16}, {1, 4096}, {7, 4096}, {257, 48}};
  uint32_t seed = 1;
  for (ProgramMaker make : allPrograms())
    for (const char *r : recipes)
      for (auto [R, C] : shapes)
        checkProgram(ctx, make, recipeNamed(r), R, C,
                     TE_RT_ROWWISE_AND_COLUMNWISE, seed++);
}

TEST(ProducerQuantize, LargePerTensorAndBlock) {
  CpuContext ctx;
  uint32_t seed = 100;
  for (ProgramMaker make : {biasGeluTanh, layerNorm, dgeluDy})
    for (const char *r : {"current_e4m3", "block_128x128"})
      checkProgram(ctx, make, recipeNamed(r), 257, 4096,
                   TE_RT_ROWWISE_AND_COLUMNWISE, seed++);
}

TEST(ProducerQuantize, MXFP8AndNVFP4) {
  CpuContext ctx;
  const std::pair<int64_t, int64_t> shapes[] = {
      {32, 32}, {96, 64}, {288, 96}, {32, 4096}};
  uint32_t seed = 200;
  for (ProgramMaker make : allPrograms())
    for (const char *r : {"mxfp8", "nvfp4", "nvfp4_rht_sr_2d"})
      for (auto [R, C] : shapes)
        checkProgram(ctx, make, recipeNamed(r), R, C,
                     TE_RT_ROWWISE_AND_COLUMNWISE, seed++);
}

TEST(ProducerQuantize, OneUsage) {
  CpuContext ctx;
  uint32_t seed = 300;
  for (te_rt_usage u : {TE_RT_ROWWISE, TE_RT_COLUMNWISE})
    for (const char *r :
         {"current_e4m3", "delayed_e4m3", "block_1x128", "mxfp8", "nvfp4"}) {
      const Recipe &rc = recipeNamed(r);
      checkProgram(ctx, layerNorm, rc, rc.rowMultiple > 1 ? 64 : 7,
                   rc.colMultiple > 1 ? 64 : 48, u, seed++);
    }
}

TEST(ProducerQuantize, EmptyValueWritesZeroColumnSums) {
  CpuContext ctx;
  std::mt19937 rng(5);
  Program p = dgeluDy(rng, 0, 48);
  Result f = quantizeFused(ctx, p, recipeNamed("current_e4m3"), 0, 48,
                           TE_RT_ROWWISE_AND_COLUMNWISE);
  ASSERT_EQ(f.status, TE_RT_OK) << f.error;
  for (float s : f.colsum)
    EXPECT_EQ(floatToBits(s), 0u);
}

TEST(ProducerQuantize, ColumnSumAccumulates) {
  CpuContext ctx;
  const int64_t R = 33, C = 48;
  std::mt19937 rng(6);
  Program p = dgeluDy(rng, R, C);
  std::vector<float> prior(C);
  for (int64_t c = 0; c < C; ++c)
    prior[c] = 0.25f * static_cast<float>(c) - 3.0f;
  Result f = quantizeFused(ctx, p, recipeNamed("current_e5m2_pow2"), R, C,
                           TE_RT_ROWWISE_AND_COLUMNWISE, true, prior);
  ASSERT_EQ(f.status, TE_RT_OK) << f.error;
  std::vector<uint8_t> x = oracleX(p, R, C);
  std::vector<double> s = oracleColsum(p, R, C, x);
  for (int64_t c = 0; c < C; ++c) {
    // prior + fl(sum): two roundings.
    const double exact = prior[c] + s[c];
    const double bound = std::ldexp(std::fabs(s[c]), -24) +
                         std::ldexp(std::fabs(exact) + std::fabs(s[c]), -24);
    EXPECT_LE(std::fabs(f.colsum[c] - exact), bound) << c;
  }
}

TEST(ProducerQuantize, ScalarBroadcastInputs) {
  // Every input broadcast in both dimensions (strides 0): one value.
  CpuContext ctx;
  Program p;
  p.name = "scalar";
  Input a;
  a.dtype = TE_RT_F16;
  a.bytes.resize(2);
  putElement(a.bytes, 0, TE_RT_F16, rf16(1.75f));
  Input b = a;
  b.dtype = TE_RT_BF16;
  putElement(b.bytes, 0, TE_RT_BF16, rbf(-0.3f));
  p.inputs = {a, b};
  Code k{2, {}};
  k.emit(MULF, TE_RT_BF16, 0, 1);
  p.code = k.words;
  p.value = [](const std::vector<Input> &in, int64_t r, int64_t c) {
    return in[0].at(r, c) * in[1].at(r, c);
  };
  std::vector<uint8_t> x = oracleX(p, 7, 48);
  Recipe rc = recipeNamed("block_1x128");
  Result want =
      quantizeUnfused(ctx, p, rc, 7, 48, TE_RT_ROWWISE_AND_COLUMNWISE, x);
  Result got = quantizeFused(ctx, p, rc, 7, 48, TE_RT_ROWWISE_AND_COLUMNWISE);
  ASSERT_EQ(got.status, TE_RT_OK) << got.error;
  for (size_t i = 0; i < want.buffers.size(); ++i)
    EXPECT_EQ(firstDiff(got.buffers[i], want.buffers[i]), -1) << i;
  EXPECT_EQ(firstDiff(got.value, x), -1);
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

/// A valid residual-add call on the cpu backend, to be broken by each test.
struct Call {
  CpuContext ctx;
  Recipe rc = recipeNamed("current_e4m3");
  std::vector<uint8_t> bufA = std::vector<uint8_t>(7 * 48 * 2),
                       bufB = std::vector<uint8_t>(7 * 48 * 2);
  std::vector<uint8_t> data = std::vector<uint8_t>(7 * 48),
                       transpose = std::vector<uint8_t>(7 * 48);
  float scaleInv = 0.0f, amax = 0.0f;
  std::vector<uint8_t> valueOut = std::vector<uint8_t>(7 * 48 * 2);
  std::vector<float> colsum = std::vector<float>(48);
  std::vector<int32_t> code = {ADDF, TE_RT_BF16, 0, 1, 0};
  te_rt_abi::quantize::Fields d;
  te_rt_abi::producer::Fields p;
  Call() {
    std::memset(&d, 0, sizeof(d));
    std::memset(&p, 0, sizeof(p));
    d.target = TE_RT_SM90;
    d.quantizer = rc.q;
    d.usage = TE_RT_ROWWISE_AND_COLUMNWISE;
    d.rows = 7;
    d.cols = 48;
    te_rt_qtensor q;
    int64_t shape[2] = {7, 48};
    EXPECT_EQ(te_rt_qtensor_init(&q, &rc.q, 2, shape,
                                 TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90),
              TE_RT_OK);
    EXPECT_EQ(q.num_buffers, 3);
    d.bufs[0] = data.data();
    d.bufs[1] = transpose.data();
    d.bufs[2] = &scaleInv;
    d.x_dtype = TE_RT_BF16;
    d.amax = &amax;
    p.num_inputs = 2;
    p.inputs[0] = bufA.data();
    p.inputs[1] = bufB.data();
    p.input_dtypes[0] = p.input_dtypes[1] = TE_RT_BF16;
    p.input_row_strides[0] = p.input_row_strides[1] = 48;
    p.input_col_strides[0] = p.input_col_strides[1] = 1;
    p.num_instrs = 1;
    p.value_out = valueOut.data();
    p.colsum = colsum.data();
  }
  /// The recorded message ("" when the call succeeded).
  std::string run() {
    p.code = code.data();
    int64_t dw[te_rt_abi::quantize::kWords], pw[te_rt_abi::producer::kWords];
    te_rt_abi::encode(d, dw);
    te_rt_abi::encode(p, pw);
    te_rt_set_current_context(ctx);
    te_rt_mlir_quantize_produced(dw, pw);
    std::string msg = static_cast<const char *>(te_rt_current_error());
    te_rt_set_current_context(nullptr);
    return msg;
  }
};

TEST(ProducerValidation, TheValidCallSucceeds) {
  Call c;
  EXPECT_EQ(c.run(), "");
}

TEST(ProducerValidation, Descriptors) {
  Call c;
  c.p.num_inputs = 2;
  c.code.clear();
  c.p.num_instrs = 0;
  EXPECT_EQ(c.run(), "te.quantize: producer: num_instrs is 0 (1 to 64)");
  Call c2;
  c2.p.num_instrs = 65;
  EXPECT_EQ(c2.run(), "te.quantize: producer: num_instrs is 65 (1 to 64)");
  Call c3;
  c3.p.num_inputs = 9;
  EXPECT_EQ(c3.run(), "te.quantize: producer: num_inputs is 9 (0 to 8)");
  Call c4;
  c4.p.num_inputs = -1;
  EXPECT_EQ(c4.run(), "te.quantize: producer: num_inputs is -1 (0 to 8)");
  Call c5;
  c5.d.x = c5.bufA.data();
  EXPECT_EQ(c5.run(), "te.quantize: x is not null (the producer program "
                      "gives the value)");
  // A null code pointer and a producer descriptor of another version.
  Call c6;
  c6.code.clear();
  {
    int64_t dw[te_rt_abi::quantize::kWords], pw[te_rt_abi::producer::kWords];
    te_rt_abi::encode(c6.d, dw);
    c6.p.code = nullptr;
    te_rt_abi::encode(c6.p, pw);
    te_rt_set_current_context(c6.ctx);
    te_rt_mlir_quantize_produced(dw, pw);
    EXPECT_STREQ(static_cast<const char *>(te_rt_current_error()),
                 "te.quantize: producer: code is null");
    te_rt_set_current_context(c6.ctx);
    pw[0] -= 1; // another ABI version
    te_rt_mlir_quantize_produced(dw, pw);
    EXPECT_EQ(std::string(static_cast<const char *>(te_rt_current_error())),
              "te.quantize: descriptor has a wrong magic number (compiled "
              "against another te_rt_abi.def? this runtime reads version " +
                  std::to_string(TE_RT_ABI_VERSION) + ")");
    te_rt_set_current_context(c6.ctx);
    te_rt_mlir_quantize_produced(dw, nullptr);
    EXPECT_STREQ(static_cast<const char *>(te_rt_current_error()),
                 "te.quantize: descriptor is null");
    te_rt_set_current_context(nullptr);
  }
}

TEST(ProducerValidation, Inputs) {
  {
    Call c;
    c.p.input_dtypes[1] = TE_RT_E4M3;
    EXPECT_EQ(c.run(),
              "te.quantize: producer input 1: dtype 4 (f8E4M3FN) is not "
              "f32, bf16, f16 or u8");
  }
  {
    Call c;
    c.p.input_row_strides[0] = -48;
    EXPECT_EQ(c.run(), "te.quantize: producer input 0: strides (-48, 1) must "
                       "not be negative (elements; 0 broadcasts)");
  }
  {
    Call c;
    c.p.inputs[1] = nullptr;
    EXPECT_EQ(c.run(), "te.quantize: producer input 1 is null");
  }
  {
    Call c;
    c.p.inputs[0] = c.bufA.data() + 1;
    EXPECT_EQ(c.run(), "te.quantize: producer input 0 is not aligned to its "
                       "2-byte elements");
  }
  {
    Call c;
    c.p.input_row_strides[1] = int64_t(1) << 61;
    EXPECT_EQ(c.run(), "te.quantize: producer input 1: strides "
                       "(2305843009213693952, 1) over 7 x 48 overflow the "
                       "address range");
  }
  {
    // A null input of an empty value is fine.
    Call c;
    c.d.rows = 0;
    int64_t shape[2] = {0, 48};
    te_rt_qtensor q;
    ASSERT_EQ(te_rt_qtensor_init(&q, &c.rc.q, 2, shape,
                                 TE_RT_ROWWISE_AND_COLUMNWISE, TE_RT_SM90),
              TE_RT_OK);
    c.p.inputs[0] = nullptr;
    EXPECT_EQ(c.run(), "");
  }
}

TEST(ProducerValidation, Instructions) {
  auto one = [](std::vector<int32_t> code) {
    Call c;
    c.code = code;
    c.p.num_instrs = static_cast<int32_t>(code.size() / 5);
    return c.run();
  };
  EXPECT_EQ(one({ADDF, TE_RT_BF16, 0, 1, 0, 99, TE_RT_F32, 2, 0, 0}),
            "te.quantize: producer instruction 1: unknown opcode 99");
  EXPECT_EQ(one({0, TE_RT_F32, 0, 0, 0}),
            "te.quantize: producer instruction 0: unknown opcode 0");
  EXPECT_EQ(one({ADDF, TE_RT_E5M2, 0, 1, 0}),
            "te.quantize: producer instruction 0 (ADDF): result type 5 is "
            "not f32, bf16, f16 or u8");
  EXPECT_EQ(one({CMPF, TE_RT_BF16, 0, 1, 2}),
            "te.quantize: producer instruction 0 (CMPF): result type must "
            "be u8 (a boolean), got bf16");
  EXPECT_EQ(one({CMPF, TE_RT_U8, 0, 1, 16}),
            "te.quantize: producer instruction 0 (CMPF): predicate 16 is "
            "not an arith::CmpFPredicate (0 to 15)");
  EXPECT_EQ(one({ADDF, TE_RT_F32, 0, 1, 0, MULF, TE_RT_F32, 2, 3, 0}),
            "te.quantize: producer instruction 1 (MULF): operand b is value "
            "3, not defined before it (values 0 to 2)");
  EXPECT_EQ(one({FMA, TE_RT_F32, 0, 1, -1}),
            "te.quantize: producer instruction 0 (FMA): operand c is value "
            "-1, not defined before it (values 0 to 1)");
  // Operand words past the arity, CONST's bits and CMPF's predicate are
  // not value indices.
  EXPECT_EQ(one({CONST, TE_RT_F32, 0x3F800000, 77,   -5,       NEGF, TE_RT_F32,
                 2,     1000,      1000,       CMPF, TE_RT_U8, 0,    3,
                 14,    SELECT,    TE_RT_BF16, 4,    0,        1}),
            "");
}

TEST(ProducerValidation, Outputs) {
  {
    Call c;
    c.d.x_dtype = TE_RT_E4M3;
    EXPECT_EQ(c.run(), "te.quantize: x_dtype must be f32, bf16 or f16, got "
                       "f8E4M3FN");
  }
  {
    Call c;
    c.p.value_out = c.valueOut.data() + 1;
    EXPECT_EQ(c.run(), "te.quantize: producer value_out is not aligned to "
                       "its 2-byte elements");
  }
  {
    Call c;
    c.p.colsum = reinterpret_cast<uint8_t *>(c.colsum.data()) + 2;
    EXPECT_EQ(c.run(),
              "te.quantize: producer colsum is not aligned to 4 bytes");
  }
  {
    Call c;
    c.p.value_out = c.bufB.data();
    EXPECT_EQ(c.run(), "te.quantize: te_rt_mlir_quantize_produced: the output "
                       "producer value_out overlaps the input producer input "
                       "1 (outputs may not share memory with inputs)");
  }
  {
    Call c;
    c.p.colsum = c.valueOut.data() + 64;
    EXPECT_EQ(c.run(), "te.quantize: te_rt_mlir_quantize_produced: producer "
                       "value_out and producer colsum overlap (outputs may "
                       "not share memory)");
  }
}

TEST(ProducerValidation, NoCurrentContext) {
  // No current context: the entry point records it and does nothing.
  te_rt_set_current_context(nullptr);
  int64_t dw[te_rt_abi::quantize::kWords] = {},
          pw[te_rt_abi::producer::kWords] = {};
  te_rt_mlir_quantize_produced(dw, pw);
  EXPECT_STREQ(static_cast<const char *>(te_rt_current_error()),
               "te.quantize: no current context (call "
               "te_rt_set_current_context first)");
}

} // namespace
