/*===- te_rt_abi.h - Declarations of te_rt_abi.def functions ----*- C++ -*-===*\
|*                                                                            *|
|* Part of te. For C++ callers of libte_rt's MLIR-facing ABI (te-run, the AOT *|
|* driver): the type vocabulary and one declaration per function of          *|
|* te_rt_abi.def, generated from the table.                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TE_RT_ABI_H
#define TE_RT_ABI_H

#include "te_rt.h"

#include <stdint.h>

/* The vocabulary of te_rt_abi.def. */
typedef void abi_void;
typedef void *abi_ptr;
typedef int64_t abi_i64;
typedef int32_t abi_i32;
typedef float abi_f32;

/* TE_RT_ABI_SIG(TE_RT_ABI_ARG(t0, n0) ...) -> `abi_t0 n0, ...` and
 * TE_RT_ABI_NAMES(...) -> `n0, ...`, with TE_RT_ABI_ARG defined as
 * TE_RT_ABI_SEQ (a sequence element); alternating macros walk the sequence
 * and `(end)` stops them. */
#define TE_RT_ABI_SEQ(type, name) (type, name)
#define TE_RT_ABI_SIG_A(t, ...)                                                \
  __VA_OPT__(, abi_##t __VA_ARGS__ TE_RT_ABI_SIG_B)
#define TE_RT_ABI_SIG_B(t, ...)                                                \
  __VA_OPT__(, abi_##t __VA_ARGS__ TE_RT_ABI_SIG_A)
#define TE_RT_ABI_NAM_A(t, ...) __VA_OPT__(, __VA_ARGS__ TE_RT_ABI_NAM_B)
#define TE_RT_ABI_NAM_B(t, ...) __VA_OPT__(, __VA_ARGS__ TE_RT_ABI_NAM_A)
#define TE_RT_ABI_DROP_FIRST_(x, ...) __VA_ARGS__
#define TE_RT_ABI_DROP_FIRST(...) TE_RT_ABI_DROP_FIRST_(__VA_ARGS__)
#define TE_RT_ABI_SIG(...)                                                     \
  TE_RT_ABI_DROP_FIRST(TE_RT_ABI_SIG_A __VA_ARGS__(end))
#define TE_RT_ABI_NAMES(...)                                                   \
  TE_RT_ABI_DROP_FIRST(TE_RT_ABI_NAM_A __VA_ARGS__(end))

#ifdef __cplusplus
extern "C" {
#endif
#define TE_RT_ABI_ARG TE_RT_ABI_SEQ
#define TE_RT_ABI_FUNCTION(ret, name, ...)                                     \
  TE_RT_EXPORT abi_##ret name(TE_RT_ABI_SIG(__VA_ARGS__));
#define TE_RT_ABI_HOST_FUNCTION(ret, name, ...)                                \
  TE_RT_EXPORT abi_##ret name(TE_RT_ABI_SIG(__VA_ARGS__));
#include "te_rt_abi.def"
#undef TE_RT_ABI_ARG
#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
#include <cstddef>
#include <cstring>

/* C++: the descriptors of te_rt_abi.def (TE_RT_ABI_DESCRIPTOR), generated
 * from the table. For each descriptor `name`, te_rt_abi::name holds
 *   - kMagic, its word 0, and the index of the first word of each field
 *     (te_rt_abi::gemm::a_rows; kWords: the number of words), which the
 *     compiler fills (lib/Conversion/TEToRuntime/);
 *   - Fields, a struct with one member per field of the table's type (a
 *     quantizer is a te_rt_quantizer), and encode / decode between Fields
 *     and the words, which the runtime reads (runtime/lib/MlirEntryPoints.cpp)
 *     and C++ callers of the entry points write. */
namespace te_rt_abi {

/* Words of a quantizer: one per TE_RT_ABI_QUANTIZER_FIELD. */
constexpr int64_t kQuantizerWords = 0
#define TE_RT_ABI_QUANTIZER_FIELD(c_field, config_field) +1
#include "te_rt_abi.def"
    ;

/* The word of a value: an integer, enum or bool as its value, a float as
 * its IEEE-754 bits, a pointer as its address (the compiler encodes
 * te::format::QuantizerConfig's fields with it too). */
template <typename T> int64_t toWord(T v) { return static_cast<int64_t>(v); }
inline int64_t toWord(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return static_cast<int64_t>(bits);
}
inline int64_t toWord(void *p) {
  return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p));
}
template <typename T> void fromWord(int64_t w, T &v) { v = static_cast<T>(w); }
inline void fromWord(int64_t w, float &v) {
  uint32_t bits = static_cast<uint32_t>(w);
  std::memcpy(&v, &bits, sizeof(v));
}
inline void fromWord(int64_t w, void *&p) {
  p = reinterpret_cast<void *>(static_cast<uintptr_t>(w));
}

namespace detail {

template <typename T> void put(int64_t *w, const T &v) { *w = toWord(v); }
template <typename T, size_t N> void put(int64_t *w, T const (&a)[N]) {
  for (size_t i = 0; i < N; ++i)
    w[i] = toWord(a[i]);
}
inline void put(int64_t *w, const te_rt_quantizer &q) {
#define TE_RT_ABI_QUANTIZER_FIELD(c_field, config_field)                       \
  *w++ = toWord(q.c_field);
#include "te_rt_abi.def"
}

template <typename T> void get(const int64_t *w, T &v) { fromWord(*w, v); }
template <typename T, size_t N> void get(const int64_t *w, T (&a)[N]) {
  for (size_t i = 0; i < N; ++i)
    fromWord(w[i], a[i]);
}
inline void get(const int64_t *w, te_rt_quantizer &q) {
  te_rt_quantizer_init_default(&q);
#define TE_RT_ABI_QUANTIZER_FIELD(c_field, config_field)                       \
  fromWord(*w++, q.c_field);
#include "te_rt_abi.def"
}
} // namespace detail

/* A quantizer descriptor (a `ptr quantizer` argument):
 * TE_RT_ABI_QUANTIZER_MAGIC, then the quantizer's words; 1 +
 * kQuantizerWords words. */
inline void encodeQuantizer(const te_rt_quantizer &q, int64_t *w) {
  w[0] = TE_RT_ABI_QUANTIZER_MAGIC;
  detail::put(w + 1, q);
}
/* False (q untouched) when word 0 is not TE_RT_ABI_QUANTIZER_MAGIC. */
inline bool decodeQuantizer(const int64_t *w, te_rt_quantizer &q) {
  if (w[0] != TE_RT_ABI_QUANTIZER_MAGIC)
    return false;
  detail::get(w + 1, q);
  return true;
}

/* The word indices. */
#define TE_RT_ABI_FIELD(type, field) field,
#define TE_RT_ABI_FIELDS(type, field, n) field, field##_last_ = field + (n)-1,
#define TE_RT_ABI_QUANTIZER(field)                                             \
  field, field##_last_ = field + kQuantizerWords - 1,
#define TE_RT_ABI_DESCRIPTOR(name, kind, ...)                                  \
  struct name {                                                                \
    static constexpr int64_t kMagic = TE_RT_ABI_MAGIC(kind);                   \
    enum : int64_t { magic_, __VA_ARGS__ kWords };                             \
    struct Fields;                                                             \
  };
#include "te_rt_abi.def"

/* The structs. */
#define TE_RT_ABI_FIELD(type, field) abi_##type field;
#define TE_RT_ABI_FIELDS(type, field, n) abi_##type field[n];
#define TE_RT_ABI_QUANTIZER(field) te_rt_quantizer field;
#define TE_RT_ABI_DESCRIPTOR(name, kind, ...)                                  \
  struct name::Fields {                                                        \
    __VA_ARGS__                                                                \
  };
#include "te_rt_abi.def"

/* encode(fields, words): writes all name::kWords words. decode(words,
 * fields): false (fields untouched) when word 0 is not name::kMagic. */
#define TE_RT_ABI_FIELD(type, field) detail::put(w + D::field, f.field);
#define TE_RT_ABI_FIELDS(type, field, n) TE_RT_ABI_FIELD(type, field)
#define TE_RT_ABI_QUANTIZER(field) TE_RT_ABI_FIELD(, field)
#define TE_RT_ABI_DESCRIPTOR(name, kind, ...)                                  \
  inline void encode(const name::Fields &f, int64_t *w) {                      \
    using D = name;                                                            \
    w[0] = D::kMagic;                                                          \
    __VA_ARGS__                                                                \
  }
#include "te_rt_abi.def"
#define TE_RT_ABI_FIELD(type, field) detail::get(w + D::field, f.field);
#define TE_RT_ABI_FIELDS(type, field, n) TE_RT_ABI_FIELD(type, field)
#define TE_RT_ABI_QUANTIZER(field) TE_RT_ABI_FIELD(, field)
#define TE_RT_ABI_DESCRIPTOR(name, kind, ...)                                  \
  inline bool decode(const int64_t *w, name::Fields &f) {                      \
    using D = name;                                                            \
    if (w[0] != D::kMagic)                                                     \
      return false;                                                            \
    __VA_ARGS__                                                                \
    return true;                                                               \
  }
#include "te_rt_abi.def"

} // namespace te_rt_abi
#endif /* __cplusplus */

#endif /* TE_RT_ABI_H */
