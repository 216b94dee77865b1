/*===- te_rt_gpu_abi.h - The GPU host ABI of compiled te programs -*- C -*-===*\
|*                                                                            *|
|* Part of te. The `mgpu*` functions that MLIR 22's gpu-to-llvm lowering and  *|
|* the translation of gpu.binary / gpu.launch_func call, as libte_rt         *|
|* provides them (runtime/lib/GpuHostAbi.cpp).                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * Signatures are the ones MLIR 22 emits (index arguments are i64, `bool` is
 * an i8). Compiled code declares them itself; this header is for C/C++
 * callers (tests, hand-written drivers).
 *
 * Contract:
 *  - Everything runs on the calling thread's current te_rt context
 *    (te_rt_set_current_context) and shares the sticky status of
 *    te_rt_abi.def: a function that needs the GPU does nothing once the
 *    thread's status is failed, and records the first failure (with a message
 *    naming the kernel and the CUDA error) instead of aborting. Without a
 *    current context, on a cpu context, in host-memory mode or in a libte_rt
 *    built without CUDA it records "this module was compiled for a GPU target
 *    (sm_XX) and needs a cuda context" (or the like) and never crashes.
 *  - mgpuModuleLoad / mgpuModuleLoadJIT run in global constructors, before
 *    any context exists and also on CPU-only runs: they only record the blob
 *    (which must stay alive until mgpuModuleUnload: compiled code keeps it in
 *    a constant global). The module is loaded (cudaLibraryLoadData, into the
 *    primary context cudart uses) on the first mgpuModuleGetFunction, and each
 *    (module, kernel name) is looked up once: later calls return the cached
 *    handle without a lookup.
 *  - The one stream is the context's stream (the legacy default stream, on
 *    which te_rt's kernels, cuBLASLt and te_rt_mlir_* are ordered).
 *    mgpuStreamCreate returns it; mgpuLaunchKernel and the memory functions
 *    queue work on it whatever stream they are passed; mgpuStreamSynchronize
 *    and mgpuStreamDestroy do nothing. A te program needs no host
 *    synchronization between its steps: everything it does is ordered on that
 *    stream, and every host read of device memory goes through
 *    te_rt_mlir_read, which waits for the stream. Events are real CUDA events
 *    recorded on that stream.
 */

#ifndef TE_RT_GPU_ABI_H
#define TE_RT_GPU_ABI_H

#include "te_rt.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MLIR's memref allocation functions (finalize-memref-to-llvm with
 * use-generic-functions, as te-pipeline lowers GPU targets): the current
 * context's memory, te_rt_mlir_alloc / te_rt_mlir_free (null and a recorded
 * failure when it cannot allocate). */
TE_RT_EXPORT void *_mlir_memref_to_llvm_alloc(size_t size);
TE_RT_EXPORT void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                      size_t size);
TE_RT_EXPORT void _mlir_memref_to_llvm_free(void *ptr);

/* Records a cubin or fatbin of `size` bytes; returns its module handle. */
TE_RT_EXPORT void *mgpuModuleLoad(void *data, int64_t size);
/* Records NUL-terminated PTX, JIT-compiled at optimization level optLevel
 * (0-4) on first use. */
TE_RT_EXPORT void *mgpuModuleLoadJIT(void *data, int32_t optLevel);
/* Unloads and forgets the module (its kernel handles become invalid). */
TE_RT_EXPORT void mgpuModuleUnload(void *module);
/* The kernel `name` of `module` (loading the module on first use), or null
 * after recording why. Cached per (module, name). */
TE_RT_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);
/* Launches `function` on the context's stream; params[i] is the address of
 * the i-th kernel argument (paramsCount of them); extra must be null. */
TE_RT_EXPORT void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY,
                                   int64_t gridZ, int64_t blockX,
                                   int64_t blockY, int64_t blockZ, int32_t smem,
                                   void *stream, void **params, void **extra,
                                   int64_t paramsCount);
/* mgpuLaunchKernel with thread block clusters of clusterX x clusterY x
 * clusterZ blocks (the grid counts blocks). */
TE_RT_EXPORT void mgpuLaunchClusterKernel(
    void *function, int64_t clusterX, int64_t clusterY, int64_t clusterZ,
    int64_t gridX, int64_t gridY, int64_t gridZ, int64_t blockX, int64_t blockY,
    int64_t blockZ, int32_t smem, void *stream, void **params, void **extra);

/* The context's stream (no stream is created). */
TE_RT_EXPORT void *mgpuStreamCreate(void);
/* No-op: the context's stream is never destroyed. */
TE_RT_EXPORT void mgpuStreamDestroy(void *stream);
/* No-op (see the contract above). */
TE_RT_EXPORT void mgpuStreamSynchronize(void *stream);
/* The context's stream waits for `event`. */
TE_RT_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);
TE_RT_EXPORT void *mgpuEventCreate(void);
/* Runs whatever the sticky status (null: no-op). */
TE_RT_EXPORT void mgpuEventDestroy(void *event);
TE_RT_EXPORT void mgpuEventSynchronize(void *event);
/* Records `event` on the context's stream. */
TE_RT_EXPORT void mgpuEventRecord(void *event, void *stream);

/* te_rt_mlir_alloc(sizeBytes, 0) on a cuda context; with isHostShared,
 * managed memory (cudaMallocManaged). */
TE_RT_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                                bool isHostShared);
/* Frees mgpuMemAlloc memory, stream-ordered; runs whatever the sticky
 * status. */
TE_RT_EXPORT void mgpuMemFree(void *ptr, void *stream);
/* Copies between any memory (cudaMemcpyDefault), queued on the context's
 * stream. */
TE_RT_EXPORT void mgpuMemcpy(void *dst, void *src, int64_t sizeBytes,
                             void *stream);
/* Fills `count` 32-bit (16-bit) elements with `value`, on the stream. */
TE_RT_EXPORT void mgpuMemset32(void *dst, uint32_t value, int64_t count,
                               void *stream);
TE_RT_EXPORT void mgpuMemset16(void *dst, uint16_t value, int64_t count,
                               void *stream);
/* Page-locks (unlocks) the dense memref `descriptor` of rank `rank`. */
TE_RT_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                            int64_t elementSizeBytes);
TE_RT_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                              int64_t elementSizeBytes);
/* gpu.set_default_device: te programs run on the device of the current
 * context; another device is a failure. */
TE_RT_EXPORT void mgpuSetDefaultDevice(int32_t device);

/* Diagnostics: how many kernel lookups (cudaLibraryGetKernel) the GPU host
 * ABI has made in this process. A cached mgpuModuleGetFunction makes none. */
TE_RT_EXPORT int64_t te_rt_gpu_kernel_lookups(void);

#ifdef __cplusplus
}
#endif

#endif /* TE_RT_GPU_ABI_H */
