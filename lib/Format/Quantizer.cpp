//===- Quantizer.cpp - Quantizer configurations and their rules ----------===//
//
// Part of te. Dependency-free C++17.
//
//===----------------------------------------------------------------------===//
//
// verifyConfig: the combinations TransformerEngine's quantizers and recipes
// reject (docs/formats.md §2, §3), as one-line messages.
//
//===----------------------------------------------------------------------===//

#include "te/Format/Quantizer.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace te::format {

namespace {

bool sameFloat(float a, float b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return buf;
}

} // namespace

bool QuantizerConfig::operator==(const QuantizerConfig &o) const {
  return recipe == o.recipe && dtype == o.dtype && pow2Scales == o.pow2Scales &&
         sameFloat(amaxEpsilon, o.amaxEpsilon) && blockDim == o.blockDim &&
         mx2D == o.mx2D && e8m0Rounding == o.e8m0Rounding && rht == o.rht &&
         rhtSignMask == o.rhtSignMask && nvfp4_2D == o.nvfp4_2D &&
         stochasticRounding == o.stochasticRounding &&
         rowScaled == o.rowScaled && use4over6 == o.use4over6 &&
         sameFloat(e4m3Max, o.e4m3Max) && errMode == o.errMode &&
         margin == o.margin && historyLength == o.historyLength &&
         amaxAlgo == o.amaxAlgo;
}

const char *recipeName(Recipe r) { return recipeTraits(r).name; }

const char *dtypeName(DType t) {
  switch (t) {
  case DType::U8:
    return "u8";
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::E4M3:
    return "f8E4M3FN";
  case DType::E5M2:
    return "f8E5M2";
  case DType::E8M0:
    return "f8E8M0FNU";
  case DType::E2M1x2:
    return "f4E2M1FNx2";
  }
  return "unknown";
}

const char *targetName(Target t) {
  switch (t) {
  case Target::SM90:
    return "sm_90";
  case Target::SM100:
    return "sm_100";
  }
  return "unknown";
}

const char *usageName(Usage u) {
  switch (u) {
  case UsageNone:
    return "none";
  case Rowwise:
    return "rowwise";
  case Columnwise:
    return "columnwise";
  case RowwiseAndColumnwise:
    return "both";
  }
  return "unknown";
}

QuantizerConfig defaultConfig(Recipe recipe) {
  QuantizerConfig c;
  c.recipe = recipe;
  if (recipe == Recipe::Block)
    c.pow2Scales = true;
  if (recipe == Recipe::NVFP4)
    c.dtype = DType::E2M1x2;
  return c;
}

const char *elementTypeName(DType t) {
  return t == DType::E2M1x2 ? "f4E2M1FN" : dtypeName(t);
}

std::string verifyConfig(const QuantizerConfig &c) {
  if (!isKnownRecipe(c.recipe))
    return format("unknown recipe %d", static_cast<int>(c.recipe));
  const char *title = recipeTraits(c.recipe).title;

  // Element type.
  if (c.recipe == Recipe::NVFP4) {
    if (c.dtype != DType::E2M1x2)
      return format("NVFP4 needs element type f4E2M1FN, got %s",
                    elementTypeName(c.dtype));
  } else if (c.dtype != DType::E4M3 && c.dtype != DType::E5M2) {
    return format("%s needs element type f8E4M3FN or f8E5M2, got %s", title,
                  elementTypeName(c.dtype));
  }

  // Fields of other recipes keep their defaults.
  const QuantizerConfig d;
  bool currentOrBlock =
      c.recipe == Recipe::Current || c.recipe == Recipe::Block;
  struct Field {
    const char *name;
    const char *owner;
    bool allowed;
    bool isDefault;
  };
  const Field fields[] = {
      {"pow2Scales", "a current/block scaling", currentOrBlock,
       c.pow2Scales == d.pow2Scales},
      {"amaxEpsilon", "a current/block scaling", currentOrBlock,
       sameFloat(c.amaxEpsilon, d.amaxEpsilon)},
      {"blockDim", "a block scaling", c.recipe == Recipe::Block,
       c.blockDim == d.blockDim},
      {"mx2D", "an MXFP8", c.recipe == Recipe::MXFP8, c.mx2D == d.mx2D},
      {"e8m0Rounding", "an MXFP8", c.recipe == Recipe::MXFP8,
       c.e8m0Rounding == d.e8m0Rounding},
      {"rht", "an NVFP4", c.recipe == Recipe::NVFP4, c.rht == d.rht},
      {"rhtSignMask", "an NVFP4", c.recipe == Recipe::NVFP4,
       c.rhtSignMask == d.rhtSignMask},
      {"nvfp4_2D", "an NVFP4", c.recipe == Recipe::NVFP4,
       c.nvfp4_2D == d.nvfp4_2D},
      {"stochasticRounding", "an NVFP4", c.recipe == Recipe::NVFP4,
       c.stochasticRounding == d.stochasticRounding},
      {"rowScaled", "an NVFP4", c.recipe == Recipe::NVFP4,
       c.rowScaled == d.rowScaled},
      {"use4over6", "an NVFP4", c.recipe == Recipe::NVFP4,
       c.use4over6 == d.use4over6},
      {"e4m3Max", "an NVFP4", c.recipe == Recipe::NVFP4,
       sameFloat(c.e4m3Max, d.e4m3Max)},
      {"errMode", "an NVFP4", c.recipe == Recipe::NVFP4,
       c.errMode == d.errMode},
      {"margin", "a delayed scaling", c.recipe == Recipe::Delayed,
       c.margin == d.margin},
      {"historyLength", "a delayed scaling", c.recipe == Recipe::Delayed,
       c.historyLength == d.historyLength},
      {"amaxAlgo", "a delayed scaling", c.recipe == Recipe::Delayed,
       c.amaxAlgo == d.amaxAlgo},
  };
  for (const Field &f : fields)
    if (!f.allowed && !f.isDefault)
      return format("%s is %s option, not valid for %s", f.name, f.owner,
                    title);

  // Ranges.
  if (!std::isfinite(c.amaxEpsilon) || c.amaxEpsilon < 0.0f)
    return format("amaxEpsilon must be finite and >= 0, got %g",
                  static_cast<double>(c.amaxEpsilon));
  if (c.blockDim != 1 && c.blockDim != 2)
    return format("block scaling needs blockDim 1 (1x128) or 2 (128x128), "
                  "got %d",
                  c.blockDim);
  if (c.historyLength < 1)
    return format("delayed scaling needs historyLength >= 1, got %d",
                  c.historyLength);
  if (c.margin < 0)
    return format("delayed scaling needs margin >= 0, got %d", c.margin);

  if (c.recipe == Recipe::NVFP4) {
    if (c.rowScaled && c.rht)
      return "NVFP4 row-scaled is incompatible with RHT";
    if (c.rowScaled && c.nvfp4_2D)
      return "NVFP4 row-scaled is incompatible with 2D quantization";
    if (c.rowScaled && c.stochasticRounding)
      return "NVFP4 row-scaled is incompatible with stochastic rounding";
    if (c.use4over6 && c.rht)
      return "NVFP4 4over6 is incompatible with RHT";
    if (c.use4over6 && c.stochasticRounding)
      return "NVFP4 4over6 is incompatible with stochastic rounding";
    if (c.e4m3Max != 448.0f && c.e4m3Max != 256.0f)
      return format("NVFP4 e4m3Max must be 448 or 256, got %g",
                    static_cast<double>(c.e4m3Max));
    if (c.e4m3Max == 256.0f && !c.use4over6)
      return "NVFP4 e4m3Max 256 is only valid with 4over6";
    if (c.errMode != ErrMode::MAE && !c.use4over6)
      return "NVFP4 errMode MSE is only valid with 4over6";
    if (c.rhtSignMask != 0 && !c.rht)
      return "NVFP4 rhtSignMask is only valid with rht";
    if (c.rhtSignMask >= (1u << 16))
      return format("NVFP4 rhtSignMask must be below 2^16, got 0x%X",
                    c.rhtSignMask);
  }
  return "";
}

bool quantizerAcceptsInput(const QuantizerConfig &config, Usage usage,
                           DType input) {
  if (input != DType::F32 && input != DType::F16 && input != DType::BF16)
    return false;
  if (config.recipe == Recipe::NVFP4 && config.rht && (usage & Columnwise))
    return input == DType::BF16;
  return true;
}

} // namespace te::format
