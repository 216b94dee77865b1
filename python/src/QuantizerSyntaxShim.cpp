//===- QuantizerSyntaxShim.cpp - the quantizer parser, for ctypes ---------===//
//
// Part of te. libte_py_syntax: the te Python package parses quantizer text
// with te-quantize's own parser (tools/te-quantize/QuantizerSyntax.cpp), so
// both accept the same syntax with the same messages.
//
//===----------------------------------------------------------------------===//

#include "QuantizerSyntax.h"

#include <cstring>
#include <exception>
#include <string>

namespace {
void copyMessage(const std::string &msg, char *error, size_t capacity) {
  if (!error || capacity == 0)
    return;
  size_t n = msg.size() < capacity - 1 ? msg.size() : capacity - 1;
  std::memcpy(error, msg.data(), n);
  error[n] = '\0';
}
} // namespace

/// Parses `text` into `*out` (`out_size` bytes, at least
/// sizeof(te_rt_quantizer)). Returns 1, or 0 with a one-line message in
/// `error`.
extern "C" __attribute__((visibility("default"))) int
te_py_parse_quantizer(const char *text, te_rt_quantizer *out, size_t out_size,
                      char *error, size_t error_capacity) {
  if (!text || !out || out_size < sizeof(te_rt_quantizer)) {
    copyMessage("te_py_parse_quantizer: bad arguments", error, error_capacity);
    return 0;
  }
  try {
    std::string err;
    if (te::tools::parseQuantizer(text, *out, &err))
      return 1;
    copyMessage(err, error, error_capacity);
  } catch (const std::exception &e) {
    copyMessage(std::string("internal error: ") + e.what(), error,
                error_capacity);
  }
  return 0;
}

/// sizeof(te_rt_quantizer) this library was built with.
extern "C" __attribute__((visibility("default"))) size_t
te_py_quantizer_size(void) {
  return sizeof(te_rt_quantizer);
}
