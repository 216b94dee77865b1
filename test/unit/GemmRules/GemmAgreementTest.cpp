//===- GemmAgreementTest.cpp - Verifier and runtime accept the same GEMMs -===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// One table of GEMM cases -- layouts x operand shapes x quantizer pairs x
// operand usages, on sm_90 and sm_100 -- is given to the te dialect's
// verifier (a te.gemm parsed from text, then verified) and to te_rt_gemm on
// the cpu backend. Both must accept exactly the cases that the rules of
// docs/formats.md §5 accept; those rules are written again below, from the
// spec's words (the layout letters, the operand-usage sentence, the shape
// table of te.gemm), as the oracle. A case the two layers refuse must be
// refused by both for the same rule: their messages agree once each
// layer's subject ("'te.gemm' op GEMM ", "gemm ") is taken off.
//
// A case is in the table only when both operands are valid quantized
// tensors (te_rt_qtensor_layout accepts them: e.g. no MXFP8 tensor with a
// dimension of 48); the GEMM rules are what is under test.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "te_rt.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

using Shape = std::vector<int64_t>;

/// One quantizer of the table: its dialect spelling, its runtime
/// descriptor, and the properties the spec's operand rules look at.
struct Quantizer {
  const char *mlir;
  te_rt_recipe recipe;
  te_rt_dtype dtype;
  int blockDim;
  /// docs/formats.md §5: delayed and current scaling are one family
  /// (per-tensor FP8).
  int family;
};

const Quantizer kQuantizers[] = {
    {"#te.delayed<f8E5M2>", TE_RT_RECIPE_DELAYED, TE_RT_E5M2, 1, 0},
    {"#te.current<f8E4M3FN>", TE_RT_RECIPE_CURRENT, TE_RT_E4M3, 1, 0},
    {"#te.current<f8E5M2>", TE_RT_RECIPE_CURRENT, TE_RT_E5M2, 1, 0},
    {"#te.block<f8E4M3FN>", TE_RT_RECIPE_BLOCK, TE_RT_E4M3, 1, 1},
    {"#te.block<f8E4M3FN, dims = 2>", TE_RT_RECIPE_BLOCK, TE_RT_E4M3, 2, 1},
    {"#te.block<f8E5M2, dims = 2>", TE_RT_RECIPE_BLOCK, TE_RT_E5M2, 2, 1},
    {"#te.mxfp8<f8E4M3FN>", TE_RT_RECIPE_MXFP8, TE_RT_E4M3, 1, 2},
    {"#te.mxfp8<f8E5M2>", TE_RT_RECIPE_MXFP8, TE_RT_E5M2, 1, 2},
    {"#te.nvfp4<f4E2M1FN>", TE_RT_RECIPE_NVFP4, TE_RT_E2M1X2, 1, 3},
};

te_rt_quantizer runtimeQuantizer(const Quantizer &q) {
  te_rt_quantizer r;
  te_rt_quantizer_init_default(&r);
  r.recipe = q.recipe;
  r.dtype = q.dtype;
  if (q.recipe == TE_RT_RECIPE_BLOCK) {
    r.block_dim = q.blockDim;
    r.pow2_scales = 1; // #te.block's default
  }
  if (q.recipe == TE_RT_RECIPE_NVFP4)
    r.e4m3_max = 448.0f;
  return r;
}

const te_rt_usage kUsages[] = {TE_RT_ROWWISE, TE_RT_COLUMNWISE,
                               TE_RT_ROWWISE_AND_COLUMNWISE};
const char *usageText(te_rt_usage u) {
  return u == TE_RT_ROWWISE      ? "rowwise"
         : u == TE_RT_COLUMNWISE ? "columnwise"
                                 : "rowwise|columnwise";
}

const char *const kLayouts[] = {"TN", "NN", "NT"};

/// Operand shapes: valid in some layouts, with a K mismatch, a K not
/// divisible by 16, a 3-D A, 1-D and 0-d operands in others.
const std::pair<Shape, Shape> kShapes[] = {
    {{64, 128}, {32, 128}},  {{128, 64}, {32, 128}},     {{64, 64}, {64, 32}},
    {{64, 64}, {2, 32, 64}}, {{2, 32, 64}, {2, 32, 32}}, {{64, 32}, {32, 32}},
    {{32, 48}, {32, 48}},    {{32, 40}, {64, 40}},       {{}, {32, 32}},
    {{64, 32}, {32}},        {{64}, {32, 64}},           {{32, 32}, {}},
};

int64_t product(const Shape &s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i)
    p *= s[i];
  return p;
}

/// The oracle: docs/formats.md §5 and te.gemm's shape table.
struct Verdict {
  bool ok = true;
  int64_t m = 1, n = 1; ///< D's 2-D extents, also for refused cases
  Shape d;              ///< D's logical shape when ok
};

Verdict oracle(const std::string &layout, const Shape &a, const Shape &b,
               const Quantizer &qa, const Quantizer &qb, te_rt_usage ua,
               te_rt_usage ub) {
  Verdict v;
  const bool transa = layout[0] == 'T', transb = layout[1] == 'T';
  // "A uses rowwise data if transa, else columnwise. B uses columnwise data
  // if transb, else rowwise."
  const int needA = transa ? TE_RT_ROWWISE : TE_RT_COLUMNWISE;
  const int needB = transb ? TE_RT_COLUMNWISE : TE_RT_ROWWISE;
  if (!(ua & needA) || !(ub & needB))
    v.ok = false;
  // One recipe family; 2D x 2D blocks not; E5M2 x E5M2 not (cuBLASLt).
  if (qa.family != qb.family)
    v.ok = false;
  if (qa.recipe == TE_RT_RECIPE_BLOCK && qa.blockDim == 2 &&
      qb.recipe == TE_RT_RECIPE_BLOCK && qb.blockDim == 2)
    v.ok = false;
  if (qa.dtype == TE_RT_E5M2 && qb.dtype == TE_RT_E5M2)
    v.ok = false;
  if (a.empty() || b.empty()) {
    v.ok = false;
    return v;
  }
  // TN: A [N, K], B [..., K] -> [..., N]; NN: A [K, N], B [..., K] ->
  // [..., N]; NT: A [..., N], B [..., M], K = the leading dims -> [M, N].
  int64_t kA, kB;
  if (layout == "NT") {
    v.n = a.back();
    v.m = b.back();
    kA = product(a, 0, a.size() - 1);
    kB = product(b, 0, b.size() - 1);
    v.d = {v.m, v.n};
  } else {
    if (a.size() != 2)
      v.ok = false;
    v.n = transa ? a[0] : a.back();
    kA = transa ? a.back() : a[0];
    kB = b.back();
    v.m = product(b, 0, b.size() - 1);
    v.d.assign(b.begin(), b.end() - 1);
    v.d.push_back(v.n);
  }
  if (kA != kB || kA % 16 != 0)
    v.ok = false;
  return v;
}

std::string typeText(const Shape &s, const Quantizer &q, te_rt_usage u) {
  std::string t = "!te.qtensor<";
  for (int64_t d : s)
    t += std::to_string(d) + "x";
  return t + "bf16, " + q.mlir + ", " + usageText(u) + ">";
}

std::string tensorText(const Shape &s) {
  std::string t = "tensor<";
  for (int64_t d : s)
    t += std::to_string(d) + "x";
  return t + "f32>";
}

/// The message without the layer's subject.
std::string rule(std::string msg) {
  for (const char *prefix : {"'te.gemm' op GEMM ", "'te.gemm' op ", "gemm "})
    if (msg.rfind(prefix, 0) == 0)
      return msg.substr(std::strlen(prefix));
  return msg;
}

struct Verifier {
  mlir::MLIRContext ctx;
  Verifier() {
    ctx.loadDialect<mlir::te::TEDialect, mlir::func::FuncDialect>();
  }
  /// "" if te.gemm verifies, else its first diagnostic; "parse: ..." when
  /// the text does not parse.
  std::string run(const std::string &text) {
    std::string first;
    mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
      if (first.empty())
        first = d.str();
      return mlir::success();
    });
    mlir::ParserConfig config(&ctx, /*verifyAfterParse=*/false);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(text, config);
    if (!module)
      return "parse: " + first;
    if (mlir::succeeded(mlir::verify(*module)))
      return "";
    return first.empty() ? "verify failed" : first;
  }
};

struct Runtime {
  te_rt_context *ctx = nullptr;
  Runtime() {
    te_rt_context_create(TE_RT_BACKEND_CPU, &ctx);
    te_rt_context_set_num_threads(ctx, 1);
  }
  ~Runtime() { te_rt_context_destroy(ctx); }
};

/// Whether `q` of `shape` is a valid quantized tensor.
bool validTensor(const te_rt_quantizer &q, const Shape &shape, te_rt_usage u,
                 te_rt_target t) {
  te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
  int32_t n = 0;
  return te_rt_qtensor_layout(&q, static_cast<int32_t>(shape.size()),
                              shape.data(), u, t, d, TE_RT_MAX_BUFFERS,
                              &n) == TE_RT_OK;
}

bool allocZeroed(te_rt_context *ctx, te_rt_qtensor &q, const te_rt_quantizer &z,
                 const Shape &shape, te_rt_usage u, te_rt_target t) {
  std::memset(&q, 0, sizeof(q));
  if (te_rt_qtensor_alloc(ctx, &q, &z, static_cast<int32_t>(shape.size()),
                          shape.data(), u, t) != TE_RT_OK)
    return false;
  for (int i = 0; i < q.num_buffers; ++i)
    if (te_rt_memset_zero(ctx, q.buffers[i].data,
                          static_cast<size_t>(q.buffers[i].size_bytes)) !=
        TE_RT_OK)
      return false;
  return true;
}

TEST(GemmAgreement, VerifierAndRuntimeAcceptTheSameCases) {
  Verifier verifier;
  Runtime runtime;
  ASSERT_NE(runtime.ctx, nullptr);
  int cases = 0, accepted = 0, mismatches = 0;
  std::map<std::string, int> refusedBy; // rule -> cases
  int index = 0;
  for (const char *layoutName : kLayouts)
    for (const auto &[as, bs] : kShapes)
      for (const Quantizer &qa : kQuantizers)
        for (const Quantizer &qb : kQuantizers)
          for (te_rt_usage ua : kUsages)
            for (te_rt_usage ub : kUsages) {
              const te_rt_target target =
                  (index++ % 2) ? TE_RT_SM100 : TE_RT_SM90;
              const te_rt_quantizer za = runtimeQuantizer(qa),
                                    zb = runtimeQuantizer(qb);
              if (!validTensor(za, as, ua, target) ||
                  !validTensor(zb, bs, ub, target))
                continue;
              ++cases;
              const std::string layout = layoutName;
              Verdict want = oracle(layout, as, bs, qa, qb, ua, ub);
              std::string what = layout + " A " + typeText(as, qa, ua) + " B " +
                                 typeText(bs, qb, ub) + " on " +
                                 (target == TE_RT_SM100 ? "sm_100" : "sm_90");

              // The verifier.
              Shape dShape = want.ok ? want.d : Shape{want.m, want.n};
              std::string text =
                  std::string("module attributes {te.target = "
                              "#te.target<") +
                  (target == TE_RT_SM100 ? "sm_100" : "sm_90") +
                  ">} {\n  func.func @f(%a: " + typeText(as, qa, ua) +
                  ", %b: " + typeText(bs, qb, ub) +
                  ") {\n    %d = te.gemm %a, %b layout " + layout + " : " +
                  typeText(as, qa, ua) + ", " + typeText(bs, qb, ub) + " -> " +
                  tensorText(dShape) + "\n    return\n  }\n}\n";
              std::string verifierError = verifier.run(text);
              ASSERT_EQ(verifierError.rfind("parse: ", 0), std::string::npos)
                  << what << "\n"
                  << verifierError;

              // The runtime.
              te_rt_qtensor a, b;
              ASSERT_TRUE(allocZeroed(runtime.ctx, a, za, as, ua, target))
                  << what << ": " << te_rt_last_error();
              ASSERT_TRUE(allocZeroed(runtime.ctx, b, zb, bs, ub, target))
                  << what << ": " << te_rt_last_error();
              std::vector<float> dData(static_cast<size_t>(want.m * want.n),
                                       0.0f);
              te_rt_tensor d;
              te_rt_tensor_init(&d);
              d.data = dData.data();
              d.dtype = TE_RT_F32;
              d.rank = 2;
              d.shape[0] = want.m;
              d.shape[1] = want.n;
              te_rt_gemm_args args;
              te_rt_gemm_args_init(&args);
              args.layout = layout == "TN"   ? TE_RT_GEMM_TN
                            : layout == "NN" ? TE_RT_GEMM_NN
                                             : TE_RT_GEMM_NT;
              te_rt_status status = te_rt_gemm(runtime.ctx, &a, &b, &d, &args);
              std::string runtimeError =
                  status == TE_RT_OK ? "" : te_rt_last_error();
              te_rt_qtensor_free(runtime.ctx, &a);
              te_rt_qtensor_free(runtime.ctx, &b);

              const bool verifierOk = verifierError.empty(),
                         runtimeOk = status == TE_RT_OK;
              if (verifierOk != want.ok || runtimeOk != want.ok ||
                  rule(verifierError) != rule(runtimeError)) {
                if (++mismatches <= 20)
                  ADD_FAILURE()
                      << what << ": spec " << (want.ok ? "accepts" : "refuses")
                      << "\n  verifier: "
                      << (verifierOk ? "accepts" : verifierError)
                      << "\n  runtime:  "
                      << (runtimeOk ? "accepts" : runtimeError);
                continue;
              }
              if (want.ok)
                ++accepted;
              else
                ++refusedBy[rule(runtimeError).substr(0, 24)];
            }
  EXPECT_EQ(mismatches, 0);
  // The table exercises every rule, with accepted cases in each layout.
  std::string summary;
  for (const auto &[r, n] : refusedBy)
    summary += "\n  " + std::to_string(n) + " refused: " + r + "...";
  std::printf("%d cases, %d accepted%s\n", cases, accepted, summary.c_str());
  EXPECT_GT(accepted, 500);
  EXPECT_GE(refusedBy.size(), 8u) << summary;
}

} // namespace
