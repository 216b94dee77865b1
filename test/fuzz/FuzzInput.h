//===- FuzzInput.h - Decoding fuzz input bytes into values ------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// A small stand-in for libFuzzer's FuzzedDataProvider, so that the fuzz
// targets also build with gcc (as regression replayers in the normal and the
// sanitizer builds) where clang's headers are not installed. Reads bytes from
// the front; once they run out every value is zero. Floats are raw bit
// patterns, so NaN, Inf and subnormals are as likely as any other value.
//
//===----------------------------------------------------------------------===//

#ifndef TE_TEST_FUZZ_FUZZINPUT_H
#define TE_TEST_FUZZ_FUZZINPUT_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

namespace te::fuzz {

class FuzzInput {
public:
  FuzzInput(const uint8_t *data, size_t size) : data(data), size(size) {}

  template <typename T> T consume() {
    T v{};
    size_t n = sizeof(T) < size ? sizeof(T) : size;
    if (n)
      std::memcpy(&v, data, n);
    data += n;
    size -= n;
    return v;
  }

  bool consumeBool() { return consume<uint8_t>() & 1; }

  /// A value in [lo, hi] (hi - lo < 2^32).
  int64_t consumeInRange(int64_t lo, int64_t hi) {
    uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    uint64_t raw = span <= 256     ? consume<uint8_t>()
                   : span <= 65536 ? consume<uint16_t>()
                                   : consume<uint32_t>();
    return lo + static_cast<int64_t>(raw % span);
  }

  template <typename T> T pick(std::initializer_list<T> values) {
    return values.begin()[consumeInRange(0, values.size() - 1)];
  }

  float consumeFloat() { return consume<float>(); }

  std::vector<uint8_t> consumeRemaining() {
    std::vector<uint8_t> r(data, data + size);
    data += size;
    size = 0;
    return r;
  }

  size_t remaining() const { return size; }

private:
  const uint8_t *data;
  size_t size;
};

} // namespace te::fuzz

#endif // TE_TEST_FUZZ_FUZZINPUT_H
