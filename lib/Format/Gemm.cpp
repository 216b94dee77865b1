//===- Gemm.cpp - The GEMM rules of TransformerEngine --------------------===//
//
// Part of te. Dependency-free C++17.
//
//===----------------------------------------------------------------------===//
//
// Operand usages, geometry and operand-pair rules of TE's general_gemm
// (docs/formats.md §5).
//
//===----------------------------------------------------------------------===//

#include "te/Format/Gemm.h"

#include <cstring>

namespace te::format {

const char *gemmLayoutName(GemmLayout layout) {
  switch (layout) {
  case GemmLayout::TN:
    return "TN";
  case GemmLayout::NN:
    return "NN";
  case GemmLayout::NT:
    return "NT";
  }
  return "unknown";
}

bool gemmTransA(GemmLayout layout) { return layout == GemmLayout::TN; }

bool gemmTransB(GemmLayout layout) { return layout == GemmLayout::NT; }

GemmAxes gemmAxes(GemmLayout layout) {
  switch (layout) {
  case GemmLayout::TN: // A [N, K], B [M, K]
    return {0, 1, 0, 1};
  case GemmLayout::NN: // A [K, N], B [M, K]
    return {1, 0, 0, 1};
  case GemmLayout::NT: // A [K, N], B [K, M]
    return {1, 0, 1, 0};
  }
  return {0, 1, 0, 1};
}

GemmUsages gemmOperandUsages(GemmLayout layout) {
  return {gemmTransA(layout) ? Rowwise : Columnwise,
          gemmTransB(layout) ? Columnwise : Rowwise};
}

LinearSavedUsages linearSavedUsages() {
  return {gemmOperandUsages(kLinearWgradLayout).a,
          gemmOperandUsages(kLinearDgradLayout).a};
}

LinearQuantizedUsages linearQuantizedUsages() {
  const GemmUsages fprop = gemmOperandUsages(kLinearFpropLayout);
  const GemmUsages dgrad = gemmOperandUsages(kLinearDgradLayout);
  const GemmUsages wgrad = gemmOperandUsages(kLinearWgradLayout);
  auto both = [](Usage x, Usage y) { return static_cast<Usage>(x | y); };
  return {both(fprop.b, wgrad.a), both(fprop.a, dgrad.a),
          both(dgrad.b, wgrad.b)};
}

std::string verifyGemmUsages(GemmLayout layout, Usage a, Usage b) {
  const GemmUsages need = gemmOperandUsages(layout);
  auto check = [&](const char *operand, Usage needed,
                   Usage held) -> std::string {
    if (held & needed)
      return "";
    return std::string("layout ") + gemmLayoutName(layout) + " reads operand " +
           operand + " " + usageName(needed) + ", but it holds only " +
           usageName(held);
  };
  std::string msg = check("A", need.a, a);
  return msg.empty() ? check("B", need.b, b) : msg;
}

std::vector<GemmResultDim> gemmResultDims(GemmLayout layout, int64_t aRank,
                                          int64_t bRank) {
  std::vector<GemmResultDim> dims;
  if (layout == GemmLayout::NT)
    return {{1, bRank - 1}, {0, aRank - 1}};
  for (int64_t i = 0; i + 1 < bRank; ++i)
    dims.push_back({1, i});
  dims.push_back({0, gemmAxes(layout).aN == 0 ? 0 : aRank - 1});
  return dims;
}

std::string verifyGemmContraction(int64_t k) {
  if (k == kDynamic || k % 16 == 0)
    return "";
  return "needs the contraction dimension K divisible by 16, got " +
         std::to_string(k);
}

std::string gemmShape(GemmLayout layout, const Shape &a, const Shape &b,
                      GemmShape *out) {
  if (a.empty() || b.empty())
    return "needs operands of rank >= 1 (a 0-d tensor is not a matrix), got "
           "A " +
           shapeString(a) + " and B " + shapeString(b);
  const GemmAxes axes = gemmAxes(layout);
  if (layout != GemmLayout::NT && a.size() != 2)
    return std::string("layout ") + gemmLayoutName(layout) +
           " needs operand A of rank 2 (" +
           (axes.aN == 0 ? "[N, K]" : "[K, N]") + "), got " + shapeString(a);
  int64_t aView[2], bView[2];
  flatten2D(a, aView[0], aView[1]);
  flatten2D(b, bView[0], bView[1]);
  if (aView[0] == -1 || bView[0] == -1)
    return "the flattened leading dimension of " +
           std::string(aView[0] == -1 ? "A " + shapeString(a)
                                      : "B " + shapeString(b)) +
           " overflows int64";
  const int64_t kA = aView[axes.aK], kB = bView[axes.bK];
  if (kA != kDynamic && kB != kDynamic && kA != kB)
    return "contraction dimensions differ: A " + shapeString(a) +
           " has K = " + std::to_string(kA) + ", B " + shapeString(b) +
           " has K = " + std::to_string(kB);
  const int64_t k = kA == kDynamic ? kB : kA;
  std::string msg = verifyGemmContraction(k);
  if (!msg.empty())
    return msg;
  GemmShape shape;
  shape.m = bView[axes.bM];
  shape.n = aView[axes.aN];
  shape.k = k;
  for (const GemmResultDim &d :
       gemmResultDims(layout, static_cast<int64_t>(a.size()),
                      static_cast<int64_t>(b.size())))
    shape.result.push_back(d.operand == 0 ? a[d.axis] : b[d.axis]);
  if (out)
    *out = std::move(shape);
  return "";
}

const char *recipeFamilyName(Recipe recipe) {
  return recipeTraits(recipe).family;
}

bool sameRecipeFamily(Recipe a, Recipe b) {
  return isKnownRecipe(a) && isKnownRecipe(b) &&
         std::strcmp(recipeTraits(a).family, recipeTraits(b).family) == 0;
}

std::string verifyGemmOperands(const char *gemm, const char *aName,
                               const QuantizerConfig &a, const char *bName,
                               const QuantizerConfig &b) {
  const std::string names = std::string(" (") + aName + " and " + bName + ")";
  if (!sameRecipeFamily(a.recipe, b.recipe))
    return std::string(gemm) + " mixes recipe families: " + aName + " is " +
           recipeFamilyName(a.recipe) + ", " + bName + " is " +
           recipeFamilyName(b.recipe);
  if (a.recipe == Recipe::Block && a.blockDim == 2 && b.blockDim == 2)
    return std::string(gemm) + " multiplies two 128x128-block operands" +
           names + ": 2Dx2D block scaling is not supported";
  if (a.dtype == DType::E5M2 && b.dtype == DType::E5M2)
    return std::string(gemm) + " multiplies two f8E5M2 operands" + names +
           ": cuBLASLt's FP8 GEMM takes E4M3 x E4M3, E4M3 x E5M2 and "
           "E5M2 x E4M3, not E5M2 x E5M2";
  return "";
}

bool columnwiseHoldsRowwiseValues(const QuantizerConfig &config) {
  // blockDim is a field of block scaling only (verifyConfig).
  return recipeTraits(config.recipe).perTensor ||
         (config.recipe == Recipe::Block && config.blockDim == 2);
}

GemmEmulation gemmEmulation(GemmLayout layout, const QuantizerConfig &a,
                            const QuantizerConfig &b) {
  if (!recipeTraits(a.recipe).emulatedOnSM90)
    return GemmEmulation::None;
  // Per-row global scales (NVFP4's rowScaled) do not fit bf16's alpha.
  if (a.rowScaled || b.rowScaled)
    return GemmEmulation::F32;
  const GemmUsages reads = gemmOperandUsages(layout);
  const bool aRHT = reads.a == Columnwise && a.rht;
  const bool bRHT = reads.b == Columnwise && b.rht;
  const bool rhtCancels = aRHT && bRHT && gemmTransB(layout) &&
                          !gemmTransA(layout) && a.rhtSignMask == b.rhtSignMask;
  return (aRHT || bRHT) && !rhtCancels ? GemmEmulation::F32
                                       : GemmEmulation::BF16;
}

} // namespace te::format
