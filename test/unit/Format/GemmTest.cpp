//===- GemmTest.cpp - The GEMM rules of TransformerEngine -----------------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Expected values are written from docs/formats.md §5 (general_gemm,
// CanonicalizeGemmInput) and the te.gemm table of the dialect reference:
// TN: A [N, K], B [..., K] -> D [..., N]; NN: A [K, N], B [..., K] ->
// D [..., N]; NT: A [..., N], B [..., M] (K = leading) -> D [M, N].
//
//===----------------------------------------------------------------------===//

#include "te/Format/Gemm.h"
#include "te/Format/Layout.h"

#include <gtest/gtest.h>

using namespace te::format;

namespace {

constexpr int64_t D = kDynamic;

QuantizerConfig config(Recipe recipe, DType dtype, int blockDim = 1) {
  QuantizerConfig c = defaultConfig(recipe);
  c.dtype = dtype;
  c.blockDim = blockDim;
  return c;
}

TEST(GemmRules, OperandUsages) {
  // transa = layout[0] == 'T': A rowwise; transb = layout[1] == 'T': B
  // columnwise.
  EXPECT_EQ(gemmOperandUsages(GemmLayout::TN).a, Rowwise);
  EXPECT_EQ(gemmOperandUsages(GemmLayout::TN).b, Rowwise);
  EXPECT_EQ(gemmOperandUsages(GemmLayout::NN).a, Columnwise);
  EXPECT_EQ(gemmOperandUsages(GemmLayout::NN).b, Rowwise);
  EXPECT_EQ(gemmOperandUsages(GemmLayout::NT).a, Columnwise);
  EXPECT_EQ(gemmOperandUsages(GemmLayout::NT).b, Columnwise);
  EXPECT_EQ(verifyGemmUsages(GemmLayout::TN, RowwiseAndColumnwise, Rowwise),
            "");
  EXPECT_EQ(verifyGemmUsages(GemmLayout::TN, Columnwise, Rowwise),
            "layout TN reads operand A rowwise, but it holds only columnwise");
  EXPECT_EQ(verifyGemmUsages(GemmLayout::NT, Columnwise, Rowwise),
            "layout NT reads operand B columnwise, but it holds only rowwise");
}

TEST(GemmRules, Axes) {
  GemmAxes tn = gemmAxes(GemmLayout::TN), nn = gemmAxes(GemmLayout::NN),
           nt = gemmAxes(GemmLayout::NT);
  EXPECT_EQ(tn.aN, 0);
  EXPECT_EQ(tn.aK, 1);
  EXPECT_EQ(tn.bM, 0);
  EXPECT_EQ(tn.bK, 1);
  EXPECT_EQ(nn.aN, 1);
  EXPECT_EQ(nn.aK, 0);
  EXPECT_EQ(nn.bM, 0);
  EXPECT_EQ(nn.bK, 1);
  EXPECT_EQ(nt.aN, 1);
  EXPECT_EQ(nt.aK, 0);
  EXPECT_EQ(nt.bM, 1);
  EXPECT_EQ(nt.bK, 0);
}

struct ShapeCase {
  GemmLayout layout;
  Shape a, b;
  int64_t m, n, k;
  Shape result;
};

TEST(GemmRules, Shapes) {
  const ShapeCase cases[] = {
      {GemmLayout::TN, {64, 128}, {32, 128}, 32, 64, 128, {32, 64}},
      {GemmLayout::TN, {64, 128}, {4, 8, 128}, 32, 64, 128, {4, 8, 64}},
      {GemmLayout::TN, {64, 128}, {128}, 1, 64, 128, {64}},
      {GemmLayout::NN, {128, 64}, {4, 8, 128}, 32, 64, 128, {4, 8, 64}},
      {GemmLayout::NT, {4, 8, 64}, {4, 8, 128}, 128, 64, 32, {128, 64}},
      {GemmLayout::NT, {32, 64}, {32, 16}, 16, 64, 32, {16, 64}},
      // Dynamic dimensions: K from the operand that knows it.
      {GemmLayout::TN, {64, 128}, {D, 128}, D, 64, 128, {D, 64}},
      {GemmLayout::TN, {64, D}, {32, 128}, 32, 64, 128, {32, 64}},
      {GemmLayout::NT, {D, 64}, {D, 128}, 128, 64, D, {128, 64}},
  };
  for (const ShapeCase &c : cases) {
    SCOPED_TRACE(std::string(gemmLayoutName(c.layout)) + " " +
                 shapeString(c.a) + " " + shapeString(c.b));
    GemmShape s;
    ASSERT_EQ(gemmShape(c.layout, c.a, c.b, &s), "");
    EXPECT_EQ(s.m, c.m);
    EXPECT_EQ(s.n, c.n);
    EXPECT_EQ(s.k, c.k);
    EXPECT_EQ(s.result, c.result);
  }
}

TEST(GemmRules, ShapeErrors) {
  GemmShape s;
  EXPECT_EQ(gemmShape(GemmLayout::TN, {}, {32, 16}, &s),
            "needs operands of rank >= 1 (a 0-d tensor is not a matrix), got "
            "A [] and B [32, 16]");
  EXPECT_EQ(gemmShape(GemmLayout::TN, {2, 32, 16}, {32, 16}, &s),
            "layout TN needs operand A of rank 2 ([N, K]), got [2, 32, 16]");
  EXPECT_EQ(gemmShape(GemmLayout::NN, {16}, {32, 16}, &s),
            "layout NN needs operand A of rank 2 ([K, N]), got [16]");
  EXPECT_EQ(gemmShape(GemmLayout::TN, {64, 128}, {32, 96}, &s),
            "contraction dimensions differ: A [64, 128] has K = 128, B "
            "[32, 96] has K = 96");
  EXPECT_EQ(gemmShape(GemmLayout::NN, {64, 128}, {32, 128}, &s),
            "contraction dimensions differ: A [64, 128] has K = 64, B "
            "[32, 128] has K = 128");
  EXPECT_EQ(gemmShape(GemmLayout::TN, {64, 40}, {32, 40}, &s),
            "needs the contraction dimension K divisible by 16, got 40");
  EXPECT_EQ(gemmShape(GemmLayout::NT, {8, 5, 64}, {40, 16}, &s),
            "needs the contraction dimension K divisible by 16, got 40");
  EXPECT_EQ(gemmShape(GemmLayout::TN, {64, D}, {32, 40}, &s),
            "needs the contraction dimension K divisible by 16, got 40");
  EXPECT_EQ(verifyGemmContraction(D), "");
  EXPECT_EQ(verifyGemmContraction(0), "");
}

TEST(GemmRules, OperandPairs) {
  const QuantizerConfig cur4 = config(Recipe::Current, DType::E4M3),
                        cur5 = config(Recipe::Current, DType::E5M2),
                        del5 = config(Recipe::Delayed, DType::E5M2),
                        blk1 = config(Recipe::Block, DType::E4M3, 1),
                        blk2 = config(Recipe::Block, DType::E4M3, 2),
                        mx4 = config(Recipe::MXFP8, DType::E4M3),
                        mx5 = config(Recipe::MXFP8, DType::E5M2),
                        nv = defaultConfig(Recipe::NVFP4);
  EXPECT_EQ(verifyGemmOperands("GEMM", "A", cur4, "B", del5), "");
  EXPECT_EQ(verifyGemmOperands("GEMM", "A", cur5, "B", cur4), "");
  EXPECT_EQ(verifyGemmOperands("GEMM", "A", blk1, "B", blk2), "");
  EXPECT_EQ(verifyGemmOperands("GEMM", "A", mx4, "B", mx5), "");
  EXPECT_EQ(verifyGemmOperands("GEMM", "A", nv, "B", nv), "");
  EXPECT_EQ(verifyGemmOperands("GEMM", "A", mx4, "B", nv),
            "GEMM mixes recipe families: A is MXFP8, B is NVFP4");
  EXPECT_EQ(verifyGemmOperands("gemm", "A", cur4, "B", blk1),
            "gemm mixes recipe families: A is per-tensor FP8, B is FP8 block "
            "scaling");
  EXPECT_EQ(verifyGemmOperands("fprop GEMM", "input", blk2, "weight", blk2),
            "fprop GEMM multiplies two 128x128-block operands (input and "
            "weight): 2Dx2D block scaling is not supported");
  EXPECT_EQ(verifyGemmOperands("GEMM", "A", cur5, "B", del5),
            "GEMM multiplies two f8E5M2 operands (A and B): cuBLASLt's FP8 "
            "GEMM takes E4M3 x E4M3, E4M3 x E5M2 and E5M2 x E4M3, not "
            "E5M2 x E5M2");
  EXPECT_NE(verifyGemmOperands("GEMM", "A", mx5, "B", mx5), "");
}

TEST(GemmRules, ColumnwiseHoldsRowwiseValues) {
  EXPECT_TRUE(
      columnwiseHoldsRowwiseValues(config(Recipe::Delayed, DType::E4M3)));
  EXPECT_TRUE(
      columnwiseHoldsRowwiseValues(config(Recipe::Current, DType::E5M2)));
  EXPECT_TRUE(
      columnwiseHoldsRowwiseValues(config(Recipe::Block, DType::E4M3, 2)));
  EXPECT_FALSE(
      columnwiseHoldsRowwiseValues(config(Recipe::Block, DType::E4M3, 1)));
  EXPECT_FALSE(
      columnwiseHoldsRowwiseValues(config(Recipe::MXFP8, DType::E4M3)));
  EXPECT_FALSE(columnwiseHoldsRowwiseValues(defaultConfig(Recipe::NVFP4)));
}

TEST(GemmRules, LinearLayouts) {
  // docs/formats.md §5, Linear's three GEMMs: fprop general_gemm(W, X, "TN"),
  // dgrad general_gemm(W, dY, "NN"), wgrad general_gemm(X, dY, "NT").
  EXPECT_EQ(kLinearFpropLayout, GemmLayout::TN);
  EXPECT_EQ(kLinearDgradLayout, GemmLayout::NN);
  EXPECT_EQ(kLinearWgradLayout, GemmLayout::NT);
}

TEST(GemmRules, LinearSavedUsages) {
  // docs/formats.md §5-6: dgrad reads W columnwise, wgrad reads X
  // columnwise; the forward saves the input columnwise only.
  const LinearSavedUsages saved = linearSavedUsages();
  EXPECT_EQ(saved.input, Columnwise);
  EXPECT_EQ(saved.weight, Columnwise);

  // The saved tensors are operand A of the backward GEMMs (B is dY, both
  // usages): what they hold is what wgrad and dgrad read, and a rowwise-only
  // copy is not.
  EXPECT_EQ(verifyGemmUsages(GemmLayout::NT, saved.input, RowwiseAndColumnwise),
            "");
  EXPECT_EQ(
      verifyGemmUsages(GemmLayout::NN, saved.weight, RowwiseAndColumnwise), "");
  EXPECT_NE(verifyGemmUsages(GemmLayout::NT, Rowwise, RowwiseAndColumnwise),
            "");
  EXPECT_NE(verifyGemmUsages(GemmLayout::NN, Rowwise, RowwiseAndColumnwise),
            "");

  // Every recipe has a layout for the saved tensors, with columnwise data,
  // on both targets.
  for (Recipe r : {Recipe::Delayed, Recipe::Current, Recipe::Block,
                   Recipe::MXFP8, Recipe::NVFP4})
    for (Target t : {Target::SM90, Target::SM100})
      for (Usage u : {saved.input, saved.weight}) {
        std::vector<BufferExtents> buffers;
        std::string err;
        ASSERT_TRUE(getBufferExtents(defaultConfig(r), 2, u, t, buffers, &err))
            << recipeName(r) << " " << targetName(t) << ": " << err;
        bool columnwiseData = false;
        for (const BufferExtents &b : buffers)
          columnwiseData |= b.role == BufferRole::Data && b.columnwise;
        EXPECT_TRUE(columnwiseData) << recipeName(r) << " " << targetName(t);
      }
}

} // namespace

TEST(GemmRules, Emulation) {
  // FP8 recipes run natively on sm_90.
  for (Recipe r : {Recipe::Delayed, Recipe::Current, Recipe::Block})
    EXPECT_EQ(gemmEmulation(GemmLayout::TN, defaultConfig(r), defaultConfig(r)),
              GemmEmulation::None);
  // MXFP8: E4M3 codes times a power of two are exact in bf16.
  const QuantizerConfig mx = defaultConfig(Recipe::MXFP8);
  for (GemmLayout l : {GemmLayout::TN, GemmLayout::NN, GemmLayout::NT})
    EXPECT_EQ(gemmEmulation(l, mx, mx), GemmEmulation::BF16);

  // NVFP4 without RHT: E2M1 times an E4M3 block scale is exact in bf16 (the
  // global scales go into alpha).
  QuantizerConfig nv = defaultConfig(Recipe::NVFP4);
  nv.rht = false;
  for (GemmLayout l : {GemmLayout::TN, GemmLayout::NN, GemmLayout::NT})
    EXPECT_EQ(gemmEmulation(l, nv, nv), GemmEmulation::BF16);
  // Per-row global scales: fp32.
  QuantizerConfig rowScaled = nv;
  rowScaled.rowScaled = true;
  EXPECT_EQ(gemmEmulation(GemmLayout::TN, rowScaled, nv), GemmEmulation::F32);
  EXPECT_EQ(gemmEmulation(GemmLayout::TN, nv, rowScaled), GemmEmulation::F32);

  // RHT on the columnwise copy: wgrad (NT reads both columnwise) cancels it
  // when both operands use one sign mask; any other columnwise read of a
  // transformed copy needs the inverse transform in fp32.
  QuantizerConfig rht = nv;
  rht.rht = true;
  rht.rhtSignMask = 0xD7E8u;
  EXPECT_EQ(gemmEmulation(GemmLayout::NT, rht, rht), GemmEmulation::BF16);
  QuantizerConfig otherMask = rht;
  otherMask.rhtSignMask = 0x1234u;
  EXPECT_EQ(gemmEmulation(GemmLayout::NT, rht, otherMask), GemmEmulation::F32);
  EXPECT_EQ(gemmEmulation(GemmLayout::NT, rht, nv), GemmEmulation::F32);
  // NN reads A columnwise (transformed), B rowwise (never transformed).
  EXPECT_EQ(gemmEmulation(GemmLayout::NN, rht, rht), GemmEmulation::F32);
  // TN reads both rowwise: the RHT copy is not read.
  EXPECT_EQ(gemmEmulation(GemmLayout::TN, rht, rht), GemmEmulation::BF16);
}

TEST(GemmRules, LinearQuantizedUsages) {
  // docs/formats.md §5: fprop reads X and W rowwise, dgrad reads W
  // columnwise and dY rowwise, wgrad reads X and dY columnwise: each tensor
  // is quantized in both directions (TE's fused cast+transpose).
  const LinearQuantizedUsages q = linearQuantizedUsages();
  EXPECT_EQ(q.input, RowwiseAndColumnwise);
  EXPECT_EQ(q.weight, RowwiseAndColumnwise);
  EXPECT_EQ(q.gradOutput, RowwiseAndColumnwise);
  // What the forward saves for the backward is part of what it quantized.
  const LinearSavedUsages saved = linearSavedUsages();
  EXPECT_EQ(q.input & saved.input, saved.input);
  EXPECT_EQ(q.weight & saved.weight, saved.weight);
}
