/*===- te_call.h - Calling a compiled te entry function ---------*- C -*-===*\
|*                                                                            *|
|* Part of te. The C API of libte_call: no MLIR, no CUDA. te-run, te-aot-run *|
|* and the Python package call compiled entries through it.                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * A compiled entry @f is called through its packed wrapper
 * `void _te_packed_f(void **args)`, added to the lowered module by the pass
 * te-packed-entry (include/te/Conversion/PackedEntry.h): args[i] points to
 * the i-th parameter of the entry's C interface `_mlir_ciface_f`. A memref
 * parameter is a pointer to a ranked descriptor {allocated, aligned, offset,
 * sizes[rank], strides[rank]} (8-byte words), so its slot points to that
 * pointer; a scalar's slot points to its value. The results struct comes
 * first when the entry returns a memref or several values; a single scalar
 * result is returned by the C interface and stored through the last slot.
 *
 * The same pass adds, for the AOT driver and te.load, the NUL-terminated
 * string `_te_signature_f` (the signature below), `_te_target_f` (the
 * target the module was compiled for: cpu, sm_90, sm_100) and, when the
 * module checks its dynamic sizes (te-check-shapes), the byte
 * `_te_shape_checks_f`.
 *
 * A signature is written `f32[32,64], bf16[?,64] -> f32, f32[32,64]`:
 * element types f32, f64, f16, bf16, f8E4M3FN, f8E5M2, f8E8M0FNU, i1, i8,
 * i16, i32, i64; `?` is a dynamic dimension; a type without brackets is a
 * scalar. A signature file (scripts/te-aot.sh compile) has the signature on
 * its first line, then `target T` and `shape-checks on|off` lines.
 *
 * Every function returning int returns 0 on success, else nonzero with a
 * message for te_call_last_error() (per thread).
 */

#ifndef TE_CALL_H
#define TE_CALL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TE_CALL_API_VERSION 1

#if defined(__GNUC__)
#define TE_CALL_EXPORT __attribute__((visibility("default")))
#else
#define TE_CALL_EXPORT
#endif

typedef struct te_call_signature te_call_signature;
typedef struct te_call_frame te_call_frame;
typedef struct te_call_program te_call_program;

/** A parameter or result type of a signature. */
typedef struct te_call_type {
  const char *element_type; /**< "f32", "bf16", "f8E4M3FN", "i1", ... */
  int32_t element_bytes;
  int32_t scalar; /**< 1: a scalar (rank 0, shape NULL) */
  int32_t rank;
  const int64_t *shape; /**< rank sizes, -1 for `?`; owned by the signature */
} te_call_type;

/** A result of the last call of a frame. */
typedef struct te_call_result {
  int32_t scalar;
  int32_t rank;
  /** The scalar's bytes (little endian, element_bytes of them). */
  uint8_t value[8];
  /** A memref result: the allocation, and the first element's address
   * (aligned + offset elements). */
  void *allocated;
  void *data;
  const int64_t *shape;   /**< rank sizes; owned by the frame */
  const int64_t *strides; /**< rank strides in elements; owned by the frame */
  /** 1: `allocated` is a buffer the call handed over, to be released by
   * the caller once (host memory: free(); a GPU program's device memory:
   * te_rt_free). 0: it is an argument's, a global's (0xdeadbeef), NULL, or
   * an earlier result's of the same call. */
  int32_t owned;
} te_call_result;

TE_CALL_EXPORT int te_call_api_version(void);
/** The message of the last failure on this thread ("" if none). */
TE_CALL_EXPORT const char *te_call_last_error(void);

/** Parses a signature or a signature file. */
TE_CALL_EXPORT int te_call_signature_parse(const char *text,
                                           te_call_signature **out);
TE_CALL_EXPORT void te_call_signature_destroy(te_call_signature *sig);
TE_CALL_EXPORT int te_call_signature_num_args(const te_call_signature *sig);
TE_CALL_EXPORT int te_call_signature_num_results(const te_call_signature *sig);
TE_CALL_EXPORT int te_call_signature_arg(const te_call_signature *sig,
                                         int index, te_call_type *out);
TE_CALL_EXPORT int te_call_signature_result(const te_call_signature *sig,
                                            int index, te_call_type *out);
/** The target ("cpu" if the text does not name one). */
TE_CALL_EXPORT const char *
te_call_signature_target(const te_call_signature *sig);
/** Whether the entry checks its dynamic sizes (each `?` may then take its
 * own size; else one size for every `?`). */
TE_CALL_EXPORT int te_call_signature_shape_checks(const te_call_signature *sig);
/** The signature line (owned by `sig`). */
TE_CALL_EXPORT const char *te_call_signature_text(const te_call_signature *sig);

/** Opens a program: a shared library compiled from a te module
 * (scripts/te-aot.sh compile ... OUT.so), or this process's own symbols
 * when `path` is NULL (an executable linked with the object). The
 * runtime's entry points (libte_rt) and te_run_checked_malloc (libte_call)
 * must be loaded globally first. */
TE_CALL_EXPORT int te_call_program_open(const char *path,
                                        te_call_program **out);
TE_CALL_EXPORT void te_call_program_close(te_call_program *program);
/** The packed wrapper of `entry` and its embedded signature (target and
 * shape checks included; the caller destroys it). An object compiled
 * without the embedded signature is an error naming what it lacks. */
TE_CALL_EXPORT int te_call_program_entry(te_call_program *program,
                                         const char *entry, void **packed,
                                         te_call_signature **sig);

/** A call frame for `sig` (copied): descriptors, slots and results. */
TE_CALL_EXPORT int te_call_frame_create(const te_call_signature *sig,
                                        te_call_frame **out);
TE_CALL_EXPORT void te_call_frame_destroy(te_call_frame *frame);
/** Argument `index` is the memref at `data` of `rank` sizes `shape` and
 * strides `strides` (elements; NULL: row-major). The rank and the static
 * sizes must be the signature's. */
TE_CALL_EXPORT int te_call_frame_set_tensor(te_call_frame *frame, int index,
                                            void *data, int rank,
                                            const int64_t *shape,
                                            const int64_t *strides);
/** Scalar argument `index` is the element_bytes bytes at `value`. */
TE_CALL_EXPORT int te_call_frame_set_scalar(te_call_frame *frame, int index,
                                            const void *value);
/** Checks that every argument is set and (for an entry without shape
 * checks) that the `?` sizes agree, then calls `packed` with the slots. */
TE_CALL_EXPORT int te_call_frame_invoke(te_call_frame *frame, void *packed);
/** The checks of te_call_frame_invoke, then the slots to call the packed
 * wrapper with (valid until the frame changes). */
TE_CALL_EXPORT int te_call_frame_slots(te_call_frame *frame, void ***slots);
/** Result `index` of the last call. */
TE_CALL_EXPORT int te_call_frame_result(te_call_frame *frame, int index,
                                        te_call_result *out);

/** The program name te_run_checked_malloc's message starts with. */
TE_CALL_EXPORT void te_call_set_tool_name(const char *name);
/** What compiled code calls instead of malloc (te-packed-entry renames the
 * lowered module's calls): malloc, but a failure prints "<tool>: out of
 * memory allocating N bytes in the compiled program" and exits with status
 * 1 instead of returning NULL for the program to write through. */
TE_CALL_EXPORT void *te_run_checked_malloc(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* TE_CALL_H */
