//===- QuantizerSyntaxTest.cpp - The quantizer syntax table --------------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The expected fields are the dialect reference's tables of the quantizer
// attributes (docs/dialect, TEAttrs.td), written out here: name, kind,
// default, and the QuantizerConfig member a value lands in.
//
//===----------------------------------------------------------------------===//

#include "te/Format/QuantizerSyntax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

using namespace te::format;

namespace {

struct ExpectedField {
  const char *name;
  FieldKind kind;
  /// A value that is not the default, and the member it must set.
  double value;
  std::function<double(const QuantizerConfig &)> member;
};

void expectRecipe(Recipe recipe, const char *mnemonic,
                  const std::vector<ExpectedField> &want) {
  SCOPED_TRACE(mnemonic);
  const RecipeSyntax &s = recipeSyntax(recipe);
  EXPECT_EQ(s.recipe, recipe);
  EXPECT_STREQ(s.mnemonic, mnemonic);
  EXPECT_EQ(findRecipeSyntax(mnemonic), &s);
  ASSERT_EQ(s.fields.size(), want.size());
  const QuantizerConfig start = syntaxStart(s, defaultConfig(recipe).dtype);
  for (size_t i = 0; i < want.size(); ++i) {
    const QuantizerField &f = s.fields[i];
    SCOPED_TRACE(want[i].name);
    EXPECT_STREQ(f.name, want[i].name);
    EXPECT_EQ(f.kind, want[i].kind);
    EXPECT_EQ(findField(s, want[i].name), &f);
    // Nothing written: every field has its default.
    EXPECT_TRUE(isDefaultField(f, start));
    // A written value lands in its member and is not the default.
    QuantizerConfig c = start;
    if (f.kind == FieldKind::Float)
      f.setFloat(c, static_cast<float>(want[i].value));
    else
      f.setInt(c, static_cast<int64_t>(want[i].value));
    EXPECT_EQ(want[i].member(c), want[i].value);
    EXPECT_FALSE(isDefaultField(f, c));
  }
  EXPECT_EQ(findField(s, "no_such_field"), nullptr);
}

TEST(QuantizerSyntax, FieldsOfEveryRecipe) {
  using K = FieldKind;
  expectRecipe(
      Recipe::Delayed, "delayed",
      {{"margin", K::Int, 2, [](auto &c) { return c.margin; }},
       {"history", K::Int, 16, [](auto &c) { return c.historyLength; }},
       {"algo", K::Keyword, 1, [](auto &c) { return double(c.amaxAlgo); }}});
  expectRecipe(
      Recipe::Current, "current",
      {{"pow2_scales", K::Bool, 1,
        [](auto &c) { return double(c.pow2Scales); }},
       {"amax_epsilon", K::Float, 0.5, [](auto &c) { return c.amaxEpsilon; }}});
  expectRecipe(
      Recipe::Block, "block",
      {{"dims", K::Int, 2, [](auto &c) { return c.blockDim; }},
       {"pow2_scales", K::Bool, 0,
        [](auto &c) { return double(c.pow2Scales); }},
       {"amax_epsilon", K::Float, 0.5, [](auto &c) { return c.amaxEpsilon; }}});
  expectRecipe(
      Recipe::MXFP8, "mxfp8",
      {{"block_2d", K::Bool, 1, [](auto &c) { return double(c.mx2D); }},
       {"e8m0_rounding", K::Keyword, 1,
        [](auto &c) { return double(c.e8m0Rounding); }}});
  expectRecipe(
      Recipe::NVFP4, "nvfp4",
      {{"rht", K::Bool, 1, [](auto &c) { return double(c.rht); }},
       {"rht_sign_mask", K::Mask, 0x1234,
        [](auto &c) { return double(c.rhtSignMask); }},
       {"block_2d", K::Bool, 1, [](auto &c) { return double(c.nvfp4_2D); }},
       {"stochastic_rounding", K::Bool, 1,
        [](auto &c) { return double(c.stochasticRounding); }},
       {"row_scaled", K::Bool, 1, [](auto &c) { return double(c.rowScaled); }},
       {"four_over_six", K::Bool, 1,
        [](auto &c) { return double(c.use4over6); }},
       {"e4m3_max", K::Float, 256, [](auto &c) { return c.e4m3Max; }},
       {"err_mode", K::Keyword, 1, [](auto &c) { return double(c.errMode); }}});
  EXPECT_EQ(findRecipeSyntax("mxfp4"), nullptr);
}

TEST(QuantizerSyntax, Keywords) {
  const QuantizerField *algo = findField(recipeSyntax(Recipe::Delayed), "algo");
  ASSERT_NE(algo, nullptr);
  EXPECT_EQ(keywordList(*algo), "'max' or 'most_recent'");
  EXPECT_EQ(
      keywordList(*findField(recipeSyntax(Recipe::MXFP8), "e8m0_rounding")),
      "'up' or 'floor'");
  EXPECT_EQ(keywordList(*findField(recipeSyntax(Recipe::NVFP4), "err_mode")),
            "'mae' or 'mse'");
}

TEST(QuantizerSyntax, Defaults) {
  // #te.block defaults to pow2_scales = true (TE's Float8BlockQuantizer).
  const RecipeSyntax &block = recipeSyntax(Recipe::Block);
  QuantizerConfig b = syntaxStart(block, DType::E5M2);
  completeSyntaxDefaults(block, {false, false, false}, b);
  EXPECT_TRUE(b.pow2Scales);
  EXPECT_EQ(b.blockDim, 1);
  EXPECT_EQ(b.dtype, DType::E5M2);

  // rht_sign_mask: TE's 0xD7E8 with rht, none without; a written mask stays.
  const RecipeSyntax &nv = recipeSyntax(Recipe::NVFP4);
  const size_t rht = 0, mask = 1;
  ASSERT_STREQ(nv.fields[rht].name, "rht");
  ASSERT_STREQ(nv.fields[mask].name, "rht_sign_mask");
  std::vector<bool> written(nv.fields.size(), false);
  QuantizerConfig c = syntaxStart(nv, DType::E2M1x2);
  written[rht] = true;
  c.rht = true;
  completeSyntaxDefaults(nv, written, c);
  EXPECT_EQ(c.rhtSignMask, 0xD7E8u);
  EXPECT_TRUE(isDefaultField(nv.fields[mask], c));
  c = syntaxStart(nv, DType::E2M1x2);
  c.rht = true;
  c.rhtSignMask = 0;
  written[mask] = true;
  completeSyntaxDefaults(nv, written, c);
  EXPECT_EQ(c.rhtSignMask, 0u);
  EXPECT_FALSE(isDefaultField(nv.fields[mask], c));
  c = syntaxStart(nv, DType::E2M1x2);
  completeSyntaxDefaults(nv, std::vector<bool>(nv.fields.size(), false), c);
  EXPECT_EQ(c.rhtSignMask, 0u);
  EXPECT_EQ(c.e4m3Max, 448.0f);

  // Floats compare bitwise: -0.0 is written, 0.0 is not.
  const RecipeSyntax &cur = recipeSyntax(Recipe::Current);
  QuantizerConfig e = syntaxStart(cur, DType::E4M3);
  e.amaxEpsilon = -0.0f;
  EXPECT_FALSE(isDefaultField(cur.fields[1], e));
  e.amaxEpsilon = 0.0f;
  EXPECT_TRUE(isDefaultField(cur.fields[1], e));
}

TEST(QuantizerSyntax, ElementTypes) {
  std::vector<std::string> names;
  for (DType t : quantizedElementTypes())
    names.push_back(elementTypeName(t));
  EXPECT_EQ(names,
            (std::vector<std::string>{"f8E4M3FN", "f8E5M2", "f4E2M1FN"}));
}

} // namespace
