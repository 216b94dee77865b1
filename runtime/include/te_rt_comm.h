/*===- te_rt_comm.h - Amax all-reduce across a process group ---*- C -*-===*\
|*                                                                            *|
|* Part of te. C99. Declared apart from te_rt.h; implemented in libte_rt.     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * Tensor- and sequence-parallel training reduces amaxes across a process
 * group before casting (TransformerEngine's with_amax_reduction for current
 * scaling and NVFP4, and the amax-history reduction of delayed scaling). In
 * te the group lives on the op (te.allreduce_max), never in a quantizer; the
 * runtime carries it out with a communicator (te_rt_comm):
 *
 *  - NCCL (cuda contexts): libnccl.so.2 is loaded with dlopen at the first
 *    use (TE_RT_NCCL_LIBRARY overrides the file name), so libte_rt builds
 *    and runs where NCCL is absent; every NCCL entry point then fails with
 *    TE_RT_BACKEND_UNAVAILABLE and a message naming the library. Buffers are
 *    device memory; work is enqueued on the caller's cudaStream_t.
 *  - CPU group (cpu contexts): an in-process group of `size` ranks, one per
 *    thread; every rank calls each collective in the same order (a rank that
 *    never calls blocks the others). Buffers are host memory.
 *
 * The reduction is an elementwise maximum in which a NaN loses to a number
 * (fmaxf). See docs/distributed.md.
 */

#ifndef TE_RT_COMM_H
#define TE_RT_COMM_H

#include "te_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct te_rt_comm te_rt_comm;
typedef struct te_rt_comm_cpu_group te_rt_comm_cpu_group;

/** Bytes of an NCCL unique id (NCCL_UNIQUE_ID_BYTES). */
#define TE_RT_COMM_UNIQUE_ID_BYTES 128

/** The id rank 0 creates and the host passes to every rank. */
typedef struct te_rt_comm_unique_id {
  char internal[TE_RT_COMM_UNIQUE_ID_BYTES];
} te_rt_comm_unique_id;

typedef enum te_rt_comm_kind {
  TE_RT_COMM_CPU = 0,
  TE_RT_COMM_NCCL = 1
} te_rt_comm_kind;

/** 1 if libnccl.so.2 (or TE_RT_NCCL_LIBRARY) can be loaded. */
TE_RT_EXPORT int te_rt_comm_nccl_available(void);
/** ncclGetUniqueId: call on one rank, send the bytes to the others. */
TE_RT_EXPORT te_rt_status
te_rt_comm_nccl_get_unique_id(te_rt_comm_unique_id *out);
/** ncclCommInitRank on the current CUDA device (collective: every rank of
 *  the group calls it). 0 <= rank < size. */
TE_RT_EXPORT te_rt_status te_rt_comm_create_nccl(const te_rt_comm_unique_id *id,
                                                 int rank, int size,
                                                 te_rt_comm **out);

/** An in-process group of `size` ranks, 1..4096 (each rank is a thread of
 *  this process; INVALID_ARGUMENT otherwise). Destroy it after every
 *  communicator made from it (destroying NULL is a no-op). */
TE_RT_EXPORT te_rt_status
te_rt_comm_cpu_group_create(int size, te_rt_comm_cpu_group **out);
TE_RT_EXPORT te_rt_status te_rt_comm_cpu_group_destroy(te_rt_comm_cpu_group *g);
/** The communicator of `rank` in `g` (each rank at most once). */
TE_RT_EXPORT te_rt_status te_rt_comm_create_cpu(te_rt_comm_cpu_group *g,
                                                int rank, te_rt_comm **out);

/** Destroying NULL is a no-op. */
TE_RT_EXPORT te_rt_status te_rt_comm_destroy(te_rt_comm *comm);
TE_RT_EXPORT te_rt_status te_rt_comm_info(const te_rt_comm *comm,
                                          te_rt_comm_kind *kind, int *rank,
                                          int *size);

/** In place: buf[i] = max over the group's ranks of buf[i], i < n (fp32;
 *  host memory for a CPU group, device memory for NCCL). Every rank passes
 *  the same n. NCCL: enqueued on `stream` (cudaStream_t, NULL = default);
 *  the CPU group returns when done and ignores `stream`. */
TE_RT_EXPORT te_rt_status te_rt_allreduce_max(te_rt_comm *comm, float *buf,
                                              int64_t n, void *stream);

/** The group registry: how compiled code finds a communicator. A compiled
 *  te.allreduce_max names its process group (e.g. "tp"); the entry point
 *  te_rt_mlir_allreduce_max (te_rt_abi.def) looks the name up among the
 *  communicators the calling thread registered. The registry is per thread,
 *  like the current context: every rank's thread (one per rank of a CPU
 *  group, the process's thread for NCCL) registers its own communicator
 *  under the group's name before it runs the compiled code. Registering
 *  does not transfer ownership: unregister before te_rt_comm_destroy.
 *
 *  te_rt_comm_register_group fails (TE_RT_INVALID_ARGUMENT) on a null or
 *  empty name, a null comm, or a name already registered on this thread. */
TE_RT_EXPORT te_rt_status te_rt_comm_register_group(const char *name,
                                                    te_rt_comm *comm);
/** Removes `name` from this thread's registry; TE_RT_INVALID_ARGUMENT if it
 *  is not registered there. */
TE_RT_EXPORT te_rt_status te_rt_comm_unregister_group(const char *name);
/** The communicator registered under `name` on this thread;
 *  TE_RT_INVALID_ARGUMENT with a message naming the group if none. */
TE_RT_EXPORT te_rt_status te_rt_comm_lookup_group(const char *name,
                                                  te_rt_comm **out);

/** te_rt_quantize with amax reduction across comm's group, x being this
 *  rank's shard:
 *   - current scaling: amax(x), all-reduced, then cast with it (amax_in);
 *     args->amax (optional) receives the reduced amax;
 *   - NVFP4 (not row-scaled): the rowwise and columnwise
 *     (post-RHT) global amaxes are all-reduced and the cast uses them; the
 *     tensor's amax buffers hold the reduced values;
 *   - delayed scaling, block scaling, MXFP8: te_rt_quantize (delayed
 *     scaling reduces its amax history in te_rt_comm_update_scale; block
 *     scales are local).
 *  args->amax_in must be NULL. The comm's kind must match ctx's backend
 *  (CPU group with cpu, NCCL with cuda). */
TE_RT_EXPORT te_rt_status te_rt_comm_quantize(te_rt_context *ctx,
                                              te_rt_comm *comm,
                                              const te_rt_tensor *x,
                                              te_rt_qtensor *q,
                                              const te_rt_quantize_args *args);

/** Delayed scaling with amax reduction: all-reduces the newest history row
 *  (amax_history[0 .. num_scales)), then te_rt_update_scale. */
TE_RT_EXPORT te_rt_status te_rt_comm_update_scale(
    te_rt_context *ctx, te_rt_comm *comm, const te_rt_quantizer *q,
    float *amax_history, float *scale, int64_t history_length,
    int64_t num_scales);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TE_RT_COMM_H */
