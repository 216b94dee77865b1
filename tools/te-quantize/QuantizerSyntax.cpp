//===- QuantizerSyntax.cpp - Parse the te dialect's quantizer syntax -----===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "QuantizerSyntax.h"
#include "QuantizerFields.h"

#include "te/Format/QuantizerSyntax.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace te::tools {
namespace {

struct Lexer {
  const std::string &s;
  size_t i = 0;
  void skip() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
      ++i;
  }
  bool eat(char c) {
    skip();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  /// [A-Za-z_][A-Za-z0-9_]* or a number-ish token [0-9+-.][0-9A-Za-z.+-]*.
  std::string word() {
    skip();
    size_t b = i;
    if (i < s.size() &&
        (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_')) {
      while (i < s.size() &&
             (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_'))
        ++i;
    } else {
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) ||
                              s[i] == '.' || s[i] == '+' || s[i] == '-'))
        ++i;
    }
    return s.substr(b, i - b);
  }
  bool atEnd() {
    skip();
    return i >= s.size();
  }
};

bool setError(std::string *error, const std::string &msg) {
  if (error)
    *error = msg;
  return false;
}

bool parseBool(const std::string &v, int32_t &out) {
  if (v == "true")
    out = 1;
  else if (v == "false")
    out = 0;
  else
    return false;
  return true;
}

bool parseInt(const std::string &v, long long &out) {
  if (v.empty())
    return false;
  errno = 0;
  char *end = nullptr;
  out = std::strtoll(v.c_str(), &end, 0); // decimal or 0x hex
  return errno == 0 && end && *end == '\0';
}

/// A float field, read as the te dialect reads it (MLIR's
/// AsmParser::parseFloat with f32 semantics), so that te-opt and te-quantize
/// give one quantizer the same value: a decimal float literal
/// `[-+]?[0-9]+.[0-9]*([eE][-+]?[0-9]+)?` rounded to nearest f32 (too large
/// becomes inf), or a hexadecimal integer `0x...` of at most 32 bits taken
/// as the f32 bit pattern (0x7FC00000 is NaN). A decimal integer (`1`,
/// `1e-6`) is not a float literal there, nor here.
bool parseFloat(const std::string &v, float &out) {
  size_t i = 0;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    uint64_t bits = 0;
    for (i = 2; i < v.size(); ++i) {
      if (!std::isxdigit(static_cast<unsigned char>(v[i])) ||
          bits > 0x0FFFFFFFull)
        return false;
      bits = bits * 16 + static_cast<uint64_t>(
                             std::isdigit(static_cast<unsigned char>(v[i]))
                                 ? v[i] - '0'
                                 : std::tolower(v[i]) - 'a' + 10);
    }
    if (bits > 0xFFFFFFFFull)
      return false;
    uint32_t b32 = static_cast<uint32_t>(bits);
    std::memcpy(&out, &b32, 4);
    return true;
  }
  if (i < v.size() && (v[i] == '-' || v[i] == '+'))
    ++i;
  size_t digits = i;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])))
    ++i;
  if (i == digits || i >= v.size() || v[i] != '.')
    return false;
  ++i;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])))
    ++i;
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '-' || v[i] == '+'))
      ++i;
    size_t exp = i;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])))
      ++i;
    if (i == exp)
      return false;
  }
  if (i != v.size())
    return false;
  // strtod, then one rounding to f32 (strtof would round once too, but MLIR
  // converts the double it lexed, so do the same).
  errno = 0;
  double d = std::strtod(v.c_str(), nullptr);
  out = static_cast<float>(d);
  return true;
}

/// An `int` field of the dialect (margin, history, dims): any int32.
bool parseInt32(const std::string &v, long long &out) {
  return parseInt(v, out) && out >= INT32_MIN && out <= INT32_MAX;
}

/// "a, b or c".
std::string alternatives(const std::vector<std::string> &names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

} // namespace

bool parseQuantizer(const std::string &text, te_rt_quantizer &q,
                    std::string *error) {
  namespace fmt = te::format;
  Lexer lx{text};
  lx.skip();
  if (text.compare(lx.i, 4, "#te.") != 0)
    return setError(error, "a quantizer starts with '#te.', e.g. "
                           "'#te.mxfp8<f8E4M3FN>'");
  lx.i += 4;
  std::string recipe = lx.word();
  std::string attr = "#te." + recipe;
  const fmt::RecipeSyntax *syntax = fmt::findRecipeSyntax(recipe);
  if (!syntax) {
    std::vector<std::string> names;
    for (const fmt::RecipeSyntax &s : fmt::quantizerSyntax())
      names.push_back(s.mnemonic);
    return setError(error, "unknown quantizer '" + attr + "' (expected " +
                               alternatives(names) + ")");
  }
  if (!lx.eat('<'))
    return setError(error, "expected '<' after '" + attr + "'");
  std::string elem = lx.word();
  std::vector<std::string> typeNames;
  const fmt::DType *dtype = nullptr;
  for (const fmt::DType &t : fmt::quantizedElementTypes()) {
    typeNames.push_back(fmt::elementTypeName(t));
    if (elem == typeNames.back())
      dtype = &t;
  }
  if (elem.empty())
    return setError(error, "expected an element type after '" + attr + "<'");
  if (!dtype)
    return setError(error, "unknown element type '" + elem + "' in " + attr +
                               " (expected " + alternatives(typeNames) + ")");
  fmt::QuantizerConfig c = fmt::syntaxStart(*syntax, *dtype);
  std::vector<bool> written(syntax->fields.size(), false);
  while (lx.eat(',')) {
    std::string key = lx.word();
    if (key.empty())
      return setError(error, "expected a field name after ',' in " + attr);
    if (!lx.eat('='))
      return setError(error, "expected '=' after '" + key + "' in " + attr);
    std::string v = lx.word();
    if (v.empty())
      return setError(error, "expected a value for '" + key + "' in " + attr);
    const fmt::QuantizerField *f = fmt::findField(*syntax, key);
    if (!f)
      return setError(error, "unknown field '" + key + "' of " + attr);
    size_t index = static_cast<size_t>(f - syntax->fields.data());
    if (written[index])
      return setError(error, "field '" + key + "' is given twice in " + attr);
    written[index] = true;
    auto bad = [&](const std::string &what) {
      return setError(error, "field '" + key + "' of " + attr + " expects " +
                                 what + ", got '" + v + "'");
    };
    long long iv;
    int32_t bv;
    float fv;
    switch (f->kind) {
    case fmt::FieldKind::Bool:
      if (!parseBool(v, bv))
        return bad("true or false");
      f->setInt(c, bv);
      break;
    case fmt::FieldKind::Int:
      if (!parseInt32(v, iv))
        return bad("an integer in -2147483648..2147483647");
      f->setInt(c, iv);
      break;
    case fmt::FieldKind::Mask:
      if (!parseInt(v, iv) || iv < 0 || iv > 0xFFFFFFFFLL)
        return bad("a non-negative integer");
      f->setInt(c, iv);
      break;
    case fmt::FieldKind::Float:
      if (!parseFloat(v, fv))
        return bad("a float literal (e.g. 1.0e-06, or 0x3F800000 for the f32 "
                   "bits)");
      f->setFloat(c, fv);
      break;
    case fmt::FieldKind::Keyword: {
      size_t k = 0;
      while (k < f->keywords.size() && v != f->keywords[k])
        ++k;
      if (k == f->keywords.size())
        return bad(alternatives(
            std::vector<std::string>(f->keywords.begin(), f->keywords.end())));
      f->setInt(c, static_cast<int64_t>(k));
      break;
    }
    }
  }
  if (!lx.eat('>'))
    return setError(error, "expected ',' or '>' in " + attr);
  if (!lx.atEnd())
    return setError(error, "unexpected text after the quantizer: '" +
                               text.substr(lx.i) + "'");
  fmt::completeSyntaxDefaults(*syntax, written, c);
  q = te::rt::fromConfig(c);
  return true;
}

} // namespace te::tools
