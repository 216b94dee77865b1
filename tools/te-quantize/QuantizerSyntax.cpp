//===- QuantizerSyntax.cpp - Parse the te dialect's quantizer syntax -----===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "QuantizerSyntax.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>

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

} // namespace

bool parseQuantizer(const std::string &text, te_rt_quantizer &q,
                    std::string *error) {
  te_rt_quantizer_init_default(&q);
  Lexer lx{text};
  lx.skip();
  if (text.compare(lx.i, 4, "#te.") != 0)
    return setError(error, "a quantizer starts with '#te.', e.g. "
                           "'#te.mxfp8<f8E4M3FN>'");
  lx.i += 4;
  std::string recipe = lx.word();
  std::string attr = "#te." + recipe;
  if (recipe == "delayed")
    q.recipe = TE_RT_RECIPE_DELAYED;
  else if (recipe == "current")
    q.recipe = TE_RT_RECIPE_CURRENT;
  else if (recipe == "block") {
    q.recipe = TE_RT_RECIPE_BLOCK;
    q.pow2_scales = 1; // TE's Float8BlockQuantizer default
  } else if (recipe == "mxfp8")
    q.recipe = TE_RT_RECIPE_MXFP8;
  else if (recipe == "nvfp4")
    q.recipe = TE_RT_RECIPE_NVFP4;
  else
    return setError(error, "unknown quantizer '" + attr +
                               "' (expected delayed, current, block, mxfp8 or "
                               "nvfp4)");
  if (!lx.eat('<'))
    return setError(error, "expected '<' after '" + attr + "'");
  std::string elem = lx.word();
  if (elem == "f8E4M3FN")
    q.dtype = TE_RT_E4M3;
  else if (elem == "f8E5M2")
    q.dtype = TE_RT_E5M2;
  else if (elem == "f4E2M1FN")
    q.dtype = TE_RT_E2M1X2;
  else if (elem.empty())
    return setError(error, "expected an element type after '" + attr + "<'");
  else
    return setError(error, "unknown element type '" + elem + "' in " + attr +
                               " (expected f8E4M3FN, f8E5M2 or f4E2M1FN)");
  bool maskGiven = false;
  std::set<std::string> seen;
  while (lx.eat(',')) {
    std::string key = lx.word();
    if (key.empty())
      return setError(error, "expected a field name after ',' in " + attr);
    if (!lx.eat('='))
      return setError(error, "expected '=' after '" + key + "' in " + attr);
    std::string v = lx.word();
    if (v.empty())
      return setError(error, "expected a value for '" + key + "' in " + attr);
    if (!seen.insert(key).second)
      return setError(error, "field '" + key + "' is given twice in " + attr);
    auto bad = [&](const char *what) {
      return setError(error, "field '" + key + "' of " + attr + " expects " +
                                 what + ", got '" + v + "'");
    };
    long long iv;
    int32_t bv;
    float fv;
    const te_rt_recipe r = q.recipe;
    if (r == TE_RT_RECIPE_DELAYED && key == "margin") {
      if (!parseInt32(v, iv))
        return bad("an integer in -2147483648..2147483647");
      q.margin = static_cast<int32_t>(iv);
    } else if (r == TE_RT_RECIPE_DELAYED && key == "history") {
      if (!parseInt32(v, iv))
        return bad("an integer in -2147483648..2147483647");
      q.history_length = static_cast<int32_t>(iv);
    } else if (r == TE_RT_RECIPE_DELAYED && key == "algo") {
      if (v == "max")
        q.amax_algo = TE_RT_AMAX_MAX;
      else if (v == "most_recent")
        q.amax_algo = TE_RT_AMAX_MOST_RECENT;
      else
        return bad("max or most_recent");
    } else if ((r == TE_RT_RECIPE_CURRENT || r == TE_RT_RECIPE_BLOCK) &&
               key == "pow2_scales") {
      if (!parseBool(v, bv))
        return bad("true or false");
      q.pow2_scales = bv;
    } else if ((r == TE_RT_RECIPE_CURRENT || r == TE_RT_RECIPE_BLOCK) &&
               key == "amax_epsilon") {
      if (!parseFloat(v, fv))
        return bad("a float literal (e.g. 1.0e-06, or 0x3F800000 for the f32 "
                   "bits)");
      q.amax_epsilon = fv;
    } else if (r == TE_RT_RECIPE_BLOCK && key == "dims") {
      if (!parseInt32(v, iv))
        return bad("an integer in -2147483648..2147483647");
      q.block_dim = static_cast<int32_t>(iv);
    } else if (r == TE_RT_RECIPE_MXFP8 && key == "block_2d") {
      if (!parseBool(v, bv))
        return bad("true or false");
      q.mx_2d = bv;
    } else if (r == TE_RT_RECIPE_MXFP8 && key == "e8m0_rounding") {
      if (v == "up")
        q.e8m0_rounding = TE_RT_E8M0_UP;
      else if (v == "floor")
        q.e8m0_rounding = TE_RT_E8M0_FLOOR;
      else
        return bad("up or floor");
    } else if (r == TE_RT_RECIPE_NVFP4 && key == "rht") {
      if (!parseBool(v, bv))
        return bad("true or false");
      q.rht = bv;
    } else if (r == TE_RT_RECIPE_NVFP4 && key == "rht_sign_mask") {
      if (!parseInt(v, iv) || iv < 0 || iv > 0xFFFFFFFFLL)
        return bad("a non-negative integer");
      q.rht_sign_mask = static_cast<uint32_t>(iv);
      maskGiven = true;
    } else if (r == TE_RT_RECIPE_NVFP4 && key == "block_2d") {
      if (!parseBool(v, bv))
        return bad("true or false");
      q.nvfp4_2d = bv;
    } else if (r == TE_RT_RECIPE_NVFP4 && key == "stochastic_rounding") {
      if (!parseBool(v, bv))
        return bad("true or false");
      q.stochastic_rounding = bv;
    } else if (r == TE_RT_RECIPE_NVFP4 && key == "row_scaled") {
      if (!parseBool(v, bv))
        return bad("true or false");
      q.row_scaled = bv;
    } else if (r == TE_RT_RECIPE_NVFP4 && key == "four_over_six") {
      if (!parseBool(v, bv))
        return bad("true or false");
      q.use_4over6 = bv;
    } else if (r == TE_RT_RECIPE_NVFP4 && key == "e4m3_max") {
      if (!parseFloat(v, fv))
        return bad("a float literal (e.g. 1.0e-06, or 0x3F800000 for the f32 "
                   "bits)");
      q.e4m3_max = fv;
    } else if (r == TE_RT_RECIPE_NVFP4 && key == "err_mode") {
      if (v == "mae")
        q.err_mode = TE_RT_ERR_MAE;
      else if (v == "mse")
        q.err_mode = TE_RT_ERR_MSE;
      else
        return bad("mae or mse");
    } else {
      return setError(error, "unknown field '" + key + "' of " + attr);
    }
  }
  if (!lx.eat('>'))
    return setError(error, "expected ',' or '>' in " + attr);
  if (!lx.atEnd())
    return setError(error, "unexpected text after the quantizer: '" +
                               text.substr(lx.i) + "'");
  // The dialect's rht_sign_mask defaults to TE's 0xD7E8 and only means
  // something with the RHT (the Format config keeps 0 otherwise).
  if (q.recipe == TE_RT_RECIPE_NVFP4 && q.rht && !maskGiven)
    q.rht_sign_mask = 0xD7E8;
  return true;
}

} // namespace te::tools
