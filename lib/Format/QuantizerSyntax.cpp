//===- QuantizerSyntax.cpp - How a quantizer is written ------------------===//
//
// Part of te. Dependency-free C++17.
//
//===----------------------------------------------------------------------===//
//
// The table of every recipe's fields (docs/formats.md §2-3 for the
// defaults, which are defaultConfig's).
//
//===----------------------------------------------------------------------===//

#include "te/Format/QuantizerSyntax.h"

#include <cstring>
#include <type_traits>

namespace te::format {

namespace {

template <auto Member> int64_t getMember(const QuantizerConfig &c) {
  return static_cast<int64_t>(c.*Member);
}
template <auto Member> void setMember(QuantizerConfig &c, int64_t v) {
  using T = std::remove_reference_t<decltype(c.*Member)>;
  c.*Member = static_cast<T>(v);
}
template <auto Member> float getFloatMember(const QuantizerConfig &c) {
  return c.*Member;
}
template <auto Member> void setFloatMember(QuantizerConfig &c, float v) {
  c.*Member = v;
}

/// The field `name` of kind `kind`, which is QuantizerConfig::*Member.
template <auto Member>
QuantizerField field(const char *name, FieldKind kind,
                     std::vector<const char *> keywords = {}) {
  QuantizerField f{name, kind, std::move(keywords)};
  using T = std::remove_reference_t<decltype(QuantizerConfig().*Member)>;
  if constexpr (std::is_same_v<T, float>) {
    f.getFloat = getFloatMember<Member>;
    f.setFloat = setFloatMember<Member>;
  } else {
    f.getInt = getMember<Member>;
    f.setInt = setMember<Member>;
  }
  return f;
}

using C = QuantizerConfig;
using K = FieldKind;

std::vector<RecipeSyntax> makeSyntax() {
  return {
      {Recipe::Delayed,
       "delayed",
       {field<&C::margin>("margin", K::Int),
        field<&C::historyLength>("history", K::Int),
        field<&C::amaxAlgo>("algo", K::Keyword, {"max", "most_recent"})}},
      {Recipe::Current,
       "current",
       {field<&C::pow2Scales>("pow2_scales", K::Bool),
        field<&C::amaxEpsilon>("amax_epsilon", K::Float)}},
      {Recipe::Block,
       "block",
       {field<&C::blockDim>("dims", K::Int),
        field<&C::pow2Scales>("pow2_scales", K::Bool),
        field<&C::amaxEpsilon>("amax_epsilon", K::Float)}},
      {Recipe::MXFP8,
       "mxfp8",
       {field<&C::mx2D>("block_2d", K::Bool),
        field<&C::e8m0Rounding>("e8m0_rounding", K::Keyword, {"up", "floor"})}},
      {Recipe::NVFP4,
       "nvfp4",
       {field<&C::rht>("rht", K::Bool),
        field<&C::rhtSignMask>("rht_sign_mask", K::Mask),
        field<&C::nvfp4_2D>("block_2d", K::Bool),
        field<&C::stochasticRounding>("stochastic_rounding", K::Bool),
        field<&C::rowScaled>("row_scaled", K::Bool),
        field<&C::use4over6>("four_over_six", K::Bool),
        field<&C::e4m3Max>("e4m3_max", K::Float),
        field<&C::errMode>("err_mode", K::Keyword, {"mae", "mse"})}},
  };
}

/// The defaults of the fields of `config`'s recipe, given its other fields.
QuantizerConfig fieldDefaults(Recipe recipe, const QuantizerConfig &config) {
  QuantizerConfig d = defaultConfig(recipe);
  d.rhtSignMask = config.rht ? kDefaultRHTSignMask : 0;
  return d;
}

} // namespace

const std::vector<RecipeSyntax> &quantizerSyntax() {
  static const std::vector<RecipeSyntax> syntax = makeSyntax();
  return syntax;
}

const RecipeSyntax &recipeSyntax(Recipe recipe) {
  for (const RecipeSyntax &s : quantizerSyntax())
    if (s.recipe == recipe)
      return s;
  return quantizerSyntax().front();
}

const RecipeSyntax *findRecipeSyntax(const std::string &mnemonic) {
  for (const RecipeSyntax &s : quantizerSyntax())
    if (mnemonic == s.mnemonic)
      return &s;
  return nullptr;
}

const QuantizerField *findField(const RecipeSyntax &syntax,
                                const std::string &name) {
  for (const QuantizerField &f : syntax.fields)
    if (name == f.name)
      return &f;
  return nullptr;
}

const std::vector<DType> &quantizedElementTypes() {
  static const std::vector<DType> types = {DType::E4M3, DType::E5M2,
                                           DType::E2M1x2};
  return types;
}

QuantizerConfig syntaxStart(const RecipeSyntax &syntax, DType dtype) {
  QuantizerConfig c = defaultConfig(syntax.recipe);
  c.dtype = dtype;
  return c;
}

void completeSyntaxDefaults(const RecipeSyntax &syntax,
                            const std::vector<bool> &written,
                            QuantizerConfig &config) {
  const QuantizerConfig d = fieldDefaults(syntax.recipe, config);
  for (size_t i = 0; i < syntax.fields.size(); ++i) {
    if (i < written.size() && written[i])
      continue;
    const QuantizerField &f = syntax.fields[i];
    if (f.kind == FieldKind::Float)
      f.setFloat(config, f.getFloat(d));
    else
      f.setInt(config, f.getInt(d));
  }
}

bool isDefaultField(const QuantizerField &field,
                    const QuantizerConfig &config) {
  const QuantizerConfig d = fieldDefaults(config.recipe, config);
  if (field.kind != FieldKind::Float)
    return field.getInt(config) == field.getInt(d);
  float a = field.getFloat(config), b = field.getFloat(d);
  return std::memcmp(&a, &b, sizeof(float)) == 0;
}

std::string keywordList(const QuantizerField &field) {
  std::string text;
  for (size_t i = 0; i < field.keywords.size(); ++i) {
    if (i)
      text += i + 1 == field.keywords.size() ? " or " : ", ";
    text += std::string("'") + field.keywords[i] + "'";
  }
  return text;
}

} // namespace te::format
