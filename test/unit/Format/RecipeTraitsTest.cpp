//===- RecipeTraitsTest.cpp - The recipe traits table against the spec ----===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Each expectation is written from docs/formats.md, not from Recipes.def:
// §3.1 / §3.2 per-tensor FP8 (one fp32 scale, delayed scaling's live scale
// and amax history, current scaling's amax computed or given), §3.3 MXFP8
// (1x32 blocks, E8M0 scales), §3.4 block scaling (1x128 / 128x128, fp32
// scales), §3.5 NVFP4 (1x16 blocks, E4M3 block scales, rowwise and
// post-RHT columnwise amaxes, per-row global amax when row-scaled), §4 (only
// MXFP8 and NVFP4 scales have the swizzled layout), §1.3 (MXFP8 and NVFP4
// GEMMs need compute capability 10.0: emulated on sm_90).
//
//===----------------------------------------------------------------------===//

#include "te/Format/RecipeTraits.h"
#include "te/Format/Gemm.h"
#include "te/Format/Layout.h"
#include "te/Format/Quantizer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using namespace te::format;

namespace {

struct Expected {
  Recipe recipe;
  const char *name;
  bool perTensor, liveScale;
  int amaxInputs;
  bool groupAmax;
  int blockSize;
  DType scaleType;
  bool emulatedOnSM90, swizzledScales;
};

// From docs/formats.md (see the file comment).
constexpr Expected kSpec[] = {
    {Recipe::Delayed, "delayed", true, true, 0, false, 0, DType::F32, false,
     false},
    {Recipe::Current, "current", true, false, 1, true, 0, DType::F32, false,
     false},
    {Recipe::Block, "block", false, false, 0, false, 128, DType::F32, false,
     false},
    {Recipe::MXFP8, "mxfp8", false, false, 0, false, 32, DType::E8M0, true,
     true},
    {Recipe::NVFP4, "nvfp4", false, false, 2, true, 16, DType::E4M3, true,
     true},
};

TEST(RecipeTraits, EveryRecipeMatchesTheSpec) {
  ASSERT_EQ(kNumRecipes, 5);
  for (const Expected &e : kSpec) {
    SCOPED_TRACE(e.name);
    const RecipeTraits t = recipeTraits(e.recipe);
    EXPECT_EQ(t.recipe, e.recipe);
    EXPECT_STREQ(t.name, e.name);
    EXPECT_EQ(t.perTensor, e.perTensor);
    EXPECT_EQ(t.liveScale, e.liveScale);
    EXPECT_EQ(t.amaxInputs, e.amaxInputs);
    EXPECT_EQ(t.groupAmax, e.groupAmax);
    EXPECT_EQ(t.blockSize, e.blockSize);
    EXPECT_EQ(t.blockScaled(), e.blockSize != 0);
    EXPECT_EQ(t.scaleType, e.scaleType);
    EXPECT_EQ(t.emulatedOnSM90, e.emulatedOnSM90);
    EXPECT_EQ(t.swizzledScales, e.swizzledScales);
    EXPECT_TRUE(isKnownRecipe(e.recipe));
  }
}

TEST(RecipeTraits, BlockSizesAreTheFormatConstants) {
  EXPECT_EQ(recipeTraits(Recipe::Block).blockSize, kFP8BlockSize);
  EXPECT_EQ(recipeTraits(Recipe::MXFP8).blockSize, kMXFP8BlockSize);
  EXPECT_EQ(recipeTraits(Recipe::NVFP4).blockSize, kNVFP4BlockSize);
}

TEST(RecipeTraits, NamesAndFamilies) {
  // Names are the attribute mnemonics (#te.<name>); the two per-tensor
  // recipes form one GEMM family (§5), every other recipe its own.
  EXPECT_STREQ(recipeName(Recipe::MXFP8), "mxfp8");
  EXPECT_STREQ(recipeTraits(Recipe::Delayed).title, "delayed scaling");
  EXPECT_STREQ(recipeFamilyName(Recipe::Delayed), "per-tensor FP8");
  EXPECT_STREQ(recipeFamilyName(Recipe::Current), "per-tensor FP8");
  EXPECT_STREQ(recipeFamilyName(Recipe::Block), "FP8 block scaling");
  EXPECT_TRUE(sameRecipeFamily(Recipe::Delayed, Recipe::Current));
  EXPECT_FALSE(sameRecipeFamily(Recipe::Current, Recipe::Block));
  EXPECT_FALSE(sameRecipeFamily(Recipe::MXFP8, Recipe::NVFP4));
  // Distinct names and titles: messages and the syntax tell them apart.
  for (int i = 0; i < kNumRecipes; ++i)
    for (int j = i + 1; j < kNumRecipes; ++j) {
      RecipeTraits a = recipeTraits(static_cast<Recipe>(i));
      RecipeTraits b = recipeTraits(static_cast<Recipe>(j));
      EXPECT_STRNE(a.name, b.name);
      EXPECT_STRNE(a.title, b.title);
    }
}

TEST(RecipeTraits, UnknownValues) {
  const Recipe bad = static_cast<Recipe>(kNumRecipes);
  EXPECT_FALSE(isKnownRecipe(bad));
  const RecipeTraits t = recipeTraits(bad);
  EXPECT_STREQ(t.name, "unknown");
  EXPECT_FALSE(t.perTensor || t.liveScale || t.groupAmax || t.emulatedOnSM90 ||
               t.swizzledScales);
  EXPECT_EQ(t.amaxInputs, 0);
  EXPECT_FALSE(sameRecipeFamily(bad, bad));
}

TEST(RecipeTraits, UsableInConstantExpressions) {
  static_assert(recipeTraits(Recipe::Current).perTensor);
  static_assert(!recipeTraits(Recipe::Block).perTensor);
  static_assert(recipeTraits(Recipe::NVFP4).blockSize == 16);
  SUCCEED();
}

TEST(RecipeTraits, ConfigLevelFacts) {
  // §3.5: a row-scaled NVFP4 tensor has one global amax per row, so its
  // amax is neither given nor reduced as one number.
  QuantizerConfig nv = defaultConfig(Recipe::NVFP4);
  EXPECT_TRUE(amaxReducibleAcrossGroup(nv));
  EXPECT_EQ(amaxInputs(nv), 2);
  nv.rowScaled = true;
  EXPECT_EQ(verifyConfig(nv), "");
  EXPECT_FALSE(amaxReducibleAcrossGroup(nv));
  EXPECT_EQ(amaxInputs(nv), 0);
  EXPECT_TRUE(amaxReducibleAcrossGroup(defaultConfig(Recipe::Current)));
  // §3.1: delayed scaling reduces its amax history, not the cast's amax.
  EXPECT_FALSE(amaxReducibleAcrossGroup(defaultConfig(Recipe::Delayed)));
  EXPECT_FALSE(amaxReducibleAcrossGroup(defaultConfig(Recipe::Block)));
  EXPECT_FALSE(amaxReducibleAcrossGroup(defaultConfig(Recipe::MXFP8)));
  EXPECT_EQ(amaxInputs(defaultConfig(Recipe::Current)), 1);
  EXPECT_EQ(amaxInputs(defaultConfig(Recipe::Block)), 0);
}

TEST(RecipeTraits, ZeroDimensionalTensorsOnlyPerTensor) {
  // §3: per-tensor scaling quantizes a 0-d tensor; block recipes have no
  // block to lay out, and the message names the recipe by its title.
  for (int i = 0; i < kNumRecipes; ++i) {
    const Recipe r = static_cast<Recipe>(i);
    const std::string msg = verifyShape(defaultConfig(r), {});
    SCOPED_TRACE(recipeName(r));
    if (r == Recipe::Delayed || r == Recipe::Current) {
      EXPECT_EQ(msg, "");
    } else {
      EXPECT_EQ(msg.rfind(recipeTraits(r).title, 0), 0u) << msg;
      EXPECT_NE(msg.find("needs rank >= 1"), std::string::npos) << msg;
    }
  }
}

} // namespace
