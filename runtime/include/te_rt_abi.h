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

#endif /* TE_RT_ABI_H */
