//===- NpyFuzzer.cpp - libFuzzer target: the .npy reader ------------------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Input bytes are a .npy file, as te-quantize and te-run read them. A
// malformed file must give an error message; a file that parses must
// serialize and parse again to the same array (the writer and the reader
// agree).
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> file(data, data + size);
  te::npy::Array a;
  std::string error;
  if (!te::npy::parse(file, a, &error)) {
    if (error.empty())
      __builtin_trap();
    return 0;
  }
  if (static_cast<int64_t>(a.bytes.size()) !=
      a.numElements() * te::npy::Array::elementBytes(a.kind))
    __builtin_trap();
  te::npy::Array b;
  if (!te::npy::parse(te::npy::serialize(a), b, &error) || b.kind != a.kind ||
      b.shape != a.shape || b.bytes != a.bytes)
    __builtin_trap();
  return 0;
}
