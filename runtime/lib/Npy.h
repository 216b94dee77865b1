//===- Npy.h - Minimal .npy reader and writer -------------------*- C++ -*-===//
//
// Part of te. Dependency-free C++17; used by te-quantize, te-run and tests.
//
//===----------------------------------------------------------------------===//
//
// Reads and writes NumPy .npy files (format versions 1.0, 2.0 and 3.0)
// holding a C-order array of one of the dtypes '<f4', '<f2', '<f8', '|u1',
// '<u2', '<u4', '<u8', '|i1', '<i2', '<i4', '<i8' and '|b1' (numpy's bool:
// one byte per element); '<u1', '<i1', fortran_order True and big-endian
// data are not accepted. The header follows numpy's rules (numpy.lib.format): a
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

enum class Kind { F32, U8, U16, F16, F64, I8, I16, I32, I64, U32, U64, Bool };

/// Whether `k` is a float dtype (<f4, <f2, <f8).
inline bool isFloat(Kind k) {
  return k == Kind::F32 || k == Kind::F16 || k == Kind::F64;
}
/// Whether `k` is an integer dtype (|i1 .. <i8, |u1 .. <u8); not |b1.
inline bool isInteger(Kind k) {
  return k == Kind::U8 || k == Kind::U16 || k == Kind::U32 || k == Kind::U64 ||
         k == Kind::I8 || k == Kind::I16 || k == Kind::I32 || k == Kind::I64;
}

struct Array {
  Kind kind = Kind::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes; ///< raw little-endian element bytes

  int64_t numElements() const;
  static int64_t elementBytes(Kind k) {
    switch (k) {
    case Kind::F64:
    case Kind::I64:
    case Kind::U64:
      return 8;
    case Kind::F32:
    case Kind::I32:
    case Kind::U32:
      return 4;
    case Kind::U16:
    case Kind::F16:
    case Kind::I16:
      return 2;
    case Kind::U8:
    case Kind::I8:
    case Kind::Bool:
      return 1;
    }
    return 1;
  }
};

/// The NumPy descr string of a kind: "<f4", "|u1", "<u2", "<f2", "<f8",
/// "|i1", "<i2", "<i4", "<i8", "<u4", "<u8", "|b1".
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
