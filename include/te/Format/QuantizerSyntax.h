//===- QuantizerSyntax.h - How a quantizer is written ------------*- C++
//-*-===//
//
// Part of te. Dependency-free C++17.
//
//===----------------------------------------------------------------------===//
//
// The text form of a quantizer configuration:
//
//   quantizer ::= `#te.` recipe `<` element-type (`,` field `=` value)* `>`
//   value     ::= integer | float | `true` | `false` | keyword
//
// The te dialect's quantizer attributes (parsed with MLIR's AsmParser) and
// te-quantize and the Python package (a parser without MLIR) read and write
// it from this one description: each recipe's mnemonic, and for each field
// its name, how its value is written, its keywords, its default and the
// QuantizerConfig member it sets. A field equal to its default is not
// printed.
//
//===----------------------------------------------------------------------===//

#ifndef TE_FORMAT_QUANTIZERSYNTAX_H
#define TE_FORMAT_QUANTIZERSYNTAX_H

#include "te/Format/Quantizer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace te::format {

/// How a field's value is written.
enum class FieldKind : uint8_t {
  Bool,    ///< `true` or `false`
  Int,     ///< an integer literal, int32
  Mask,    ///< an integer literal, uint32, printed in hex ("0xD7E8")
  Float,   ///< an f32 float literal
  Keyword, ///< one of the field's keywords
};

/// One `field = value` of a recipe.
struct QuantizerField {
  const char *name; ///< as written: "pow2_scales"
  FieldKind kind;
  /// Keyword: the spelling of each value of the enum, in the enum's order.
  std::vector<const char *> keywords;
  /// The member of QuantizerConfig the field is: Bool, Int, Mask and
  /// Keyword values (0/1, the integer, the keyword's index) through
  /// getInt/setInt, Float values through getFloat/setFloat.
  int64_t (*getInt)(const QuantizerConfig &) = nullptr;
  void (*setInt)(QuantizerConfig &, int64_t) = nullptr;
  float (*getFloat)(const QuantizerConfig &) = nullptr;
  void (*setFloat)(QuantizerConfig &, float) = nullptr;
};

/// The syntax of one recipe's quantizer.
struct RecipeSyntax {
  Recipe recipe;
  const char *mnemonic;               ///< "delayed", "current", ...
  std::vector<QuantizerField> fields; ///< in printing order
};

/// Every recipe's syntax, in Recipe order.
const std::vector<RecipeSyntax> &quantizerSyntax();
const RecipeSyntax &recipeSyntax(Recipe recipe);
/// The recipe written `#te.<mnemonic>`, or null.
const RecipeSyntax *findRecipeSyntax(const std::string &mnemonic);
/// The field `name` of `syntax`, or null.
const QuantizerField *findField(const RecipeSyntax &syntax,
                                const std::string &name);

/// The element types a quantizer is written with, in their syntax
/// (elementTypeName): E4M3, E5M2, E2M1x2.
const std::vector<DType> &quantizedElementTypes();

/// The configuration of a quantizer of `syntax`'s recipe and element type
/// `dtype` before any field is read: defaultConfig(recipe) with `dtype`.
QuantizerConfig syntaxStart(const RecipeSyntax &syntax, DType dtype);

/// Gives every field of `syntax` not written (`written[i]` false for
/// `syntax.fields[i]`) its default given the fields that are: its value in
/// defaultConfig, except rht_sign_mask, which is TE's kDefaultRHTSignMask
/// with rht and 0 without.
void completeSyntaxDefaults(const RecipeSyntax &syntax,
                            const std::vector<bool> &written,
                            QuantizerConfig &config);

/// Whether `field` of `config` has its default (and is not printed);
/// floats compare bitwise.
bool isDefaultField(const QuantizerField &field, const QuantizerConfig &config);

/// "'max' or 'most_recent'", for messages about a keyword field.
std::string keywordList(const QuantizerField &field);

} // namespace te::format

#endif // TE_FORMAT_QUANTIZERSYNTAX_H
