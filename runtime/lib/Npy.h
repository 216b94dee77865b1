//===- Npy.h - Minimal .npy reader and writer -------------------*- C++ -*-===//
//
// Part of te. Dependency-free C++17; used by te-quantize, te-run and tests.
//
//===----------------------------------------------------------------------===//
//
// Reads and writes NumPy .npy files (format versions 1.0, 2.0 and 3.0)
// holding a C-order array of one of the dtypes '<f4', '<f2', '<f8', '|u1',
// '<u2' ('<u1' and '|b1' are not accepted, nor fortran_order True, nor
// big-endian data). The header follows numpy's rules (numpy.lib.format): a
// Python dict literal with exactly the keys descr, fortran_order and shape
// (a repeated key keeps its last value), at most 10000 bytes, no NUL. Reads
// are bounded: the data is read only after the header is checked, and only
// the bytes it announces (trailing bytes are ignored). Anything else is
// rejected with a one-line message; no input makes it throw or abort.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_LIB_NPY_H
#define TE_RT_LIB_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace te::npy {

enum class Kind { F32, U8, U16, F16, F64 };

struct Array {
  Kind kind = Kind::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes; ///< raw little-endian element bytes

  int64_t numElements() const;
  static int64_t elementBytes(Kind k) {
    return k == Kind::F64                     ? 8
           : k == Kind::F32                   ? 4
           : k == Kind::U16 || k == Kind::F16 ? 2
                                              : 1;
  }
};

/// The NumPy descr string of a kind: "<f4", "|u1", "<u2", "<f2", "<f8".
const char *descr(Kind k);

/// Parses .npy bytes. Returns false and sets `*error` on malformed or
/// unsupported input.
bool parse(const std::vector<uint8_t> &file, Array &out, std::string *error);
/// Reads a .npy file, "-" for standard input (errors name the path).
bool read(const std::string &path, Array &out, std::string *error);

/// Serialises `a` as a version 1.0 .npy file (2.0 if the header needs it).
std::vector<uint8_t> serialize(const Array &a);
/// Writes `a` to a temporary file beside `path` and renames it over `path`:
/// a failure (its message names the reason, e.g. "No space left on device")
/// leaves no partial file.
bool write(const std::string &path, const Array &a, std::string *error);

} // namespace te::npy

#endif // TE_RT_LIB_NPY_H
