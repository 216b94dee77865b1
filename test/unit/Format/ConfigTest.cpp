//===- ConfigTest.cpp - verifyConfig messages and config helpers
//-----------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "te/Format/Quantizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

using namespace te::format;

namespace {

QuantizerConfig make(
    Recipe r, const std::function<void(QuantizerConfig &)> &f =
                  [](QuantizerConfig &) {}) {
  QuantizerConfig c = defaultConfig(r);
  f(c);
  return c;
}

TEST(Config, DefaultsAreValid) {
  for (Recipe r : {Recipe::Delayed, Recipe::Current, Recipe::Block,
                   Recipe::MXFP8, Recipe::NVFP4})
    EXPECT_EQ(verifyConfig(defaultConfig(r)), "") << recipeName(r);
  EXPECT_EQ(defaultConfig(Recipe::NVFP4).dtype, DType::E2M1x2);
  EXPECT_TRUE(defaultConfig(Recipe::Block).pow2Scales);
  EXPECT_FALSE(defaultConfig(Recipe::Current).pow2Scales);
  EXPECT_EQ(defaultConfig(Recipe::Delayed).historyLength, 1024);
}

TEST(Config, ValidTEConfigurations) {
  // TE recipe configurations (docs/formats.md §2).
  EXPECT_EQ(verifyConfig(make(Recipe::Current,
                              [](QuantizerConfig &c) {
                                c.dtype = DType::E5M2;
                                c.pow2Scales = true;
                                c.amaxEpsilon = 1e-6f;
                              })),
            "");
  EXPECT_EQ(verifyConfig(make(Recipe::Block,
                              [](QuantizerConfig &c) { c.blockDim = 2; })),
            "");
  EXPECT_EQ(verifyConfig(make(Recipe::MXFP8,
                              [](QuantizerConfig &c) {
                                c.mx2D = true;
                                c.e8m0Rounding = E8M0Rounding::Floor;
                              })),
            "");
  EXPECT_EQ(verifyConfig(make(Recipe::NVFP4,
                              [](QuantizerConfig &c) {
                                c.rht = true;
                                c.rhtSignMask = kDefaultRHTSignMask;
                                c.stochasticRounding = true;
                              })),
            "");
  EXPECT_EQ(verifyConfig(make(Recipe::NVFP4,
                              [](QuantizerConfig &c) {
                                c.nvfp4_2D = true;
                                c.use4over6 = true;
                                c.e4m3Max = 256;
                                c.errMode = ErrMode::MSE;
                              })),
            "");
  EXPECT_EQ(verifyConfig(make(Recipe::NVFP4,
                              [](QuantizerConfig &c) { c.rowScaled = true; })),
            "");
  EXPECT_EQ(verifyConfig(make(Recipe::Delayed,
                              [](QuantizerConfig &c) {
                                c.margin = 2;
                                c.historyLength = 1;
                                c.amaxAlgo = AmaxAlgo::MostRecent;
                              })),
            "");
}

TEST(Config, DTypeRules) {
  EXPECT_EQ(
      verifyConfig(make(Recipe::Current,
                        [](QuantizerConfig &c) { c.dtype = DType::F32; })),
      "current scaling needs element type f8E4M3FN or f8E5M2, got f32");
  EXPECT_EQ(
      verifyConfig(make(Recipe::Delayed,
                        [](QuantizerConfig &c) { c.dtype = DType::E2M1x2; })),
      "delayed scaling needs element type f8E4M3FN or f8E5M2, got f4E2M1FN");
  EXPECT_EQ(
      verifyConfig(make(Recipe::Block,
                        [](QuantizerConfig &c) { c.dtype = DType::BF16; })),
      "block scaling needs element type f8E4M3FN or f8E5M2, got bf16");
  EXPECT_EQ(
      verifyConfig(make(Recipe::MXFP8,
                        [](QuantizerConfig &c) { c.dtype = DType::E8M0; })),
      "MXFP8 needs element type f8E4M3FN or f8E5M2, got f8E8M0FNU");
  EXPECT_EQ(
      verifyConfig(make(Recipe::NVFP4,
                        [](QuantizerConfig &c) { c.dtype = DType::E5M2; })),
      "NVFP4 needs element type f4E2M1FN, got f8E5M2");
  QuantizerConfig u;
  u.recipe = static_cast<Recipe>(9);
  EXPECT_EQ(verifyConfig(u), "unknown recipe 9");
}

TEST(Config, FieldsOfOtherRecipes) {
  using F = std::function<void(QuantizerConfig &)>;
  struct Case {
    Recipe recipe;
    F set;
    const char *msg;
  };
  const Case cases[] = {
      {Recipe::Current, [](QuantizerConfig &c) { c.mx2D = true; },
       "mx2D is an MXFP8 option, not valid for current scaling"},
      {Recipe::NVFP4,
       [](QuantizerConfig &c) { c.e8m0Rounding = E8M0Rounding::Floor; },
       "e8m0Rounding is an MXFP8 option, not valid for NVFP4"},
      {Recipe::Delayed, [](QuantizerConfig &c) { c.pow2Scales = true; },
       "pow2Scales is a current/block scaling option, not valid for delayed "
       "scaling"},
      {Recipe::MXFP8, [](QuantizerConfig &c) { c.amaxEpsilon = 1e-3f; },
       "amaxEpsilon is a current/block scaling option, not valid for MXFP8"},
      {Recipe::Current, [](QuantizerConfig &c) { c.blockDim = 2; },
       "blockDim is a block scaling option, not valid for current scaling"},
      {Recipe::MXFP8, [](QuantizerConfig &c) { c.rht = true; },
       "rht is an NVFP4 option, not valid for MXFP8"},
      {Recipe::Block, [](QuantizerConfig &c) { c.rhtSignMask = 1; },
       "rhtSignMask is an NVFP4 option, not valid for block scaling"},
      {Recipe::Block, [](QuantizerConfig &c) { c.nvfp4_2D = true; },
       "nvfp4_2D is an NVFP4 option, not valid for block scaling"},
      {Recipe::Current, [](QuantizerConfig &c) { c.stochasticRounding = true; },
       "stochasticRounding is an NVFP4 option, not valid for current "
       "scaling"},
      {Recipe::Delayed, [](QuantizerConfig &c) { c.rowScaled = true; },
       "rowScaled is an NVFP4 option, not valid for delayed scaling"},
      {Recipe::MXFP8, [](QuantizerConfig &c) { c.use4over6 = true; },
       "use4over6 is an NVFP4 option, not valid for MXFP8"},
      {Recipe::MXFP8, [](QuantizerConfig &c) { c.e4m3Max = 256; },
       "e4m3Max is an NVFP4 option, not valid for MXFP8"},
      {Recipe::Current, [](QuantizerConfig &c) { c.errMode = ErrMode::MSE; },
       "errMode is an NVFP4 option, not valid for current scaling"},
      {Recipe::Current, [](QuantizerConfig &c) { c.margin = 1; },
       "margin is a delayed scaling option, not valid for current scaling"},
      {Recipe::NVFP4, [](QuantizerConfig &c) { c.historyLength = 16; },
       "historyLength is a delayed scaling option, not valid for NVFP4"},
      {Recipe::Block,
       [](QuantizerConfig &c) { c.amaxAlgo = AmaxAlgo::MostRecent; },
       "amaxAlgo is a delayed scaling option, not valid for block scaling"},
  };
  for (const Case &k : cases)
    EXPECT_EQ(verifyConfig(make(k.recipe, k.set)), k.msg);
}

TEST(Config, Ranges) {
  EXPECT_EQ(verifyConfig(make(Recipe::Current,
                              [](QuantizerConfig &c) { c.amaxEpsilon = -1; })),
            "amaxEpsilon must be finite and >= 0, got -1");
  EXPECT_EQ(
      verifyConfig(make(Recipe::Block,
                        [](QuantizerConfig &c) { c.amaxEpsilon = INFINITY; })),
      "amaxEpsilon must be finite and >= 0, got inf");
  EXPECT_EQ(verifyConfig(make(Recipe::Block,
                              [](QuantizerConfig &c) { c.amaxEpsilon = NAN; })),
            "amaxEpsilon must be finite and >= 0, got nan");
  EXPECT_EQ(verifyConfig(make(Recipe::Block,
                              [](QuantizerConfig &c) { c.blockDim = 3; })),
            "block scaling needs blockDim 1 (1x128) or 2 (128x128), got 3");
  EXPECT_EQ(verifyConfig(make(Recipe::Block,
                              [](QuantizerConfig &c) { c.blockDim = 0; })),
            "block scaling needs blockDim 1 (1x128) or 2 (128x128), got 0");
  EXPECT_EQ(verifyConfig(make(Recipe::Delayed,
                              [](QuantizerConfig &c) { c.historyLength = 0; })),
            "delayed scaling needs historyLength >= 1, got 0");
  EXPECT_EQ(verifyConfig(make(Recipe::Delayed,
                              [](QuantizerConfig &c) { c.margin = -1; })),
            "delayed scaling needs margin >= 0, got -1");
}

TEST(Config, NVFP4Incompatibilities) {
  using F = std::function<void(QuantizerConfig &)>;
  const std::pair<F, const char *> cases[] = {
      {[](QuantizerConfig &c) { c.rowScaled = c.rht = true; },
       "NVFP4 row-scaled is incompatible with RHT"},
      {[](QuantizerConfig &c) { c.rowScaled = c.nvfp4_2D = true; },
       "NVFP4 row-scaled is incompatible with 2D quantization"},
      {[](QuantizerConfig &c) { c.rowScaled = c.stochasticRounding = true; },
       "NVFP4 row-scaled is incompatible with stochastic rounding"},
      {[](QuantizerConfig &c) { c.use4over6 = c.rht = true; },
       "NVFP4 4over6 is incompatible with RHT"},
      {[](QuantizerConfig &c) { c.use4over6 = c.stochasticRounding = true; },
       "NVFP4 4over6 is incompatible with stochastic rounding"},
      {[](QuantizerConfig &c) {
         c.use4over6 = true;
         c.e4m3Max = 300;
       },
       "NVFP4 e4m3Max must be 448 or 256, got 300"},
      {[](QuantizerConfig &c) { c.e4m3Max = 256; },
       "NVFP4 e4m3Max 256 is only valid with 4over6"},
      {[](QuantizerConfig &c) { c.errMode = ErrMode::MSE; },
       "NVFP4 errMode MSE is only valid with 4over6"},
      {[](QuantizerConfig &c) { c.rhtSignMask = 0xD7E8; },
       "NVFP4 rhtSignMask is only valid with rht"},
      {[](QuantizerConfig &c) {
         c.rht = true;
         c.rhtSignMask = 0x10000;
       },
       "NVFP4 rhtSignMask must be below 2^16, got 0x10000"},
  };
  for (const auto &k : cases)
    EXPECT_EQ(verifyConfig(make(Recipe::NVFP4, k.first)), k.second);
}

TEST(Config, EqualityAndNames) {
  QuantizerConfig a = defaultConfig(Recipe::NVFP4), b = a;
  EXPECT_TRUE(a == b);
  b.rhtSignMask = 1;
  EXPECT_TRUE(a != b);
  b = a;
  b.e4m3Max = 256;
  EXPECT_FALSE(a == b);
  QuantizerConfig c = defaultConfig(Recipe::Current), d = c;
  c.amaxEpsilon = d.amaxEpsilon = NAN;
  EXPECT_TRUE(c == d); // NaN fields compare equal (value semantics)
  d.amaxEpsilon = 0;
  EXPECT_FALSE(c == d);
  EXPECT_FALSE(defaultConfig(Recipe::Current) ==
               defaultConfig(Recipe::Delayed));
  EXPECT_STREQ(recipeName(Recipe::Delayed), "delayed");
  EXPECT_STREQ(recipeName(Recipe::Current), "current");
  EXPECT_STREQ(recipeName(Recipe::Block), "block");
  EXPECT_STREQ(recipeName(Recipe::MXFP8), "mxfp8");
  EXPECT_STREQ(recipeName(Recipe::NVFP4), "nvfp4");
  EXPECT_STREQ(dtypeName(DType::U8), "u8");
  EXPECT_STREQ(dtypeName(DType::F32), "f32");
  EXPECT_STREQ(dtypeName(DType::F16), "f16");
  EXPECT_STREQ(dtypeName(DType::BF16), "bf16");
  EXPECT_STREQ(dtypeName(DType::E4M3), "f8E4M3FN");
  EXPECT_STREQ(dtypeName(DType::E5M2), "f8E5M2");
  EXPECT_STREQ(dtypeName(DType::E8M0), "f8E8M0FNU");
  EXPECT_STREQ(dtypeName(DType::E2M1x2), "f4E2M1FNx2");
  EXPECT_STREQ(targetName(Target::SM90), "sm_90");
  EXPECT_STREQ(targetName(Target::SM100), "sm_100");
  EXPECT_STREQ(usageName(Rowwise), "rowwise");
  EXPECT_STREQ(usageName(Columnwise), "columnwise");
  EXPECT_STREQ(usageName(RowwiseAndColumnwise), "both");
  EXPECT_STREQ(usageName(UsageNone), "none");
}

TEST(Config, QuantizerAcceptsInput) {
  // docs/formats.md §3.5: NVFP4 with RHT needs a bf16 input, for the
  // columnwise copy (TE's Hadamard transform runs in bf16); every recipe
  // quantizes f32, f16 and bf16 otherwise.
  const DType highPrecision[] = {DType::F32, DType::F16, DType::BF16};
  const Usage usages[] = {Rowwise, Columnwise, RowwiseAndColumnwise};
  for (Recipe r : {Recipe::Delayed, Recipe::Current, Recipe::Block,
                   Recipe::MXFP8, Recipe::NVFP4})
    for (Usage u : usages)
      for (DType t : highPrecision)
        EXPECT_TRUE(quantizerAcceptsInput(defaultConfig(r), u, t))
            << recipeName(r) << " " << usageName(u) << " " << dtypeName(t);

  QuantizerConfig rht = make(Recipe::NVFP4, [](QuantizerConfig &c) {
    c.rht = true;
    c.rhtSignMask = kDefaultRHTSignMask;
  });
  ASSERT_EQ(verifyConfig(rht), "");
  for (DType t : highPrecision) {
    EXPECT_TRUE(quantizerAcceptsInput(rht, Rowwise, t)) << dtypeName(t);
    EXPECT_EQ(quantizerAcceptsInput(rht, Columnwise, t), t == DType::BF16)
        << dtypeName(t);
    EXPECT_EQ(quantizerAcceptsInput(rht, RowwiseAndColumnwise, t),
              t == DType::BF16)
        << dtypeName(t);
  }
  QuantizerConfig rht2D = rht;
  rht2D.nvfp4_2D = true;
  EXPECT_FALSE(quantizerAcceptsInput(rht2D, RowwiseAndColumnwise, DType::F32));

  // Quantized and raw element types are not inputs.
  for (DType t :
       {DType::U8, DType::E4M3, DType::E5M2, DType::E8M0, DType::E2M1x2})
    EXPECT_FALSE(
        quantizerAcceptsInput(defaultConfig(Recipe::Current), Rowwise, t))
        << dtypeName(t);
}

} // namespace
