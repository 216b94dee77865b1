/*===- te_rt.h - C ABI of the te runtime (libte_rt) ----------------*- C
-*-===*\
|*                                                                            *|
|* Part of te. C99, no dependencies.                                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The runtime executes TransformerEngine-style quantization and quantized
 * GEMMs on one of two backends: `cpu` (the bit-exact reference, multithreaded,
 * always available) and `cuda` (kernels + cuBLASLt; bit-identical quantized
 * buffers). The numerics and buffer layouts are the ones of
 * docs/formats.md, computed by the Format library
 * (include/te/Format/).
 *
 * Conventions
 *  - Every function returns a te_rt_status. On failure it sets a one-line,
 *    thread-local message readable with te_rt_last_error(). No function
 *    aborts, exits or lets a C++ exception escape.
 *  - Tensors are dense, row-major (C order), in the context's memory: host
 *    memory on the cpu backend, device memory on the cuda backend. The only
 *    exceptions are documented per argument (e.g. te_rt_memcpy).
 *  - Pointers to typed data are aligned to their element size (fp32: 4,
 *    bf16/f16: 2); misaligned ones are rejected with TE_RT_INVALID_ARGUMENT.
 *  - A quantized tensor (te_rt_qtensor) is one logical tensor made of the
 *    buffers TransformerEngine allocates for it, in TE's flatten
 *    (`_INNER_TENSORS`) order; te_rt_qtensor_layout() describes them.
 *  - Structs with an `_init` function must be initialised with it before
 *    use, so that fields added in later API versions get their defaults.
 *  - Sizes: every byte size the runtime computes from a shape is checked
 *    for int64 overflow (INVALID_ARGUMENT); an allocation that fails is
 *    TE_RT_OUT_OF_MEMORY with "out of ... memory" in the message. The
 *    caller states the capacity of what it passes: te_rt_buffer.size_bytes
 *    for quantized buffers (required) and te_rt_tensor.size_bytes for
 *    dense tensors (API version 4; 0 means "not stated" and is trusted, so
 *    set it). Every buffer a call reads or writes is checked against it.
 *
 * Aliasing
 *  - A call's outputs (the buffers it writes: a te_rt_qtensor being
 *    quantized into, a dequantize `out`, an amax, GEMM's D / args->output /
 *    workspace, update_scale's history and scale) may not overlap each
 *    other nor any input of the same call; inputs may overlap each other
 *    (A and B of a GEMM may be one tensor). The buffers of one te_rt_qtensor
 *    never overlap. Violations are TE_RT_INVALID_ARGUMENT naming both
 *    regions ("te_rt_gemm: the output D overlaps the input A buffer 0
 *    (_rowwise_data) ..."); in-place updates are the documented ones only
 *    (te_rt_swizzle_scales, update_scale, GEMM accumulate into D).
 *    Addresses are compared as integers: two views of one allocation are
 *    caught, two mappings of one physical page are not.
 *
 * Threads
 *  - The error message is thread-local; every other piece of state is the
 *    context's.
 *  - A context may be used by several threads at once for te_rt_quantize,
 *    te_rt_dequantize, te_rt_amax, te_rt_update_scale, te_rt_gemm,
 *    te_rt_malloc / te_rt_free / te_rt_memcpy / te_rt_memset_zero and the
 *    getters, as long as no two calls write the same memory.
 *    te_rt_context_set_num_threads may be called while such work runs
 *    (work already started keeps the value it read).
 *    te_rt_context_set_gemm_autotune must not race with te_rt_gemm,
 *    te_rt_context_set_host_memory not with compiled code running on the
 *    context, te_rt_context_destroy not with anything on the context (not
 *    checked: call them before starting the threads or after joining them).
 *  - te_rt_set_current_context (te_rt_abi.h) is per thread.
 */

#ifndef TE_RT_H
#define TE_RT_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TE_RT_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define TE_RT_EXPORT __attribute__((visibility("default")))
#else
#define TE_RT_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Version of this header. Bumped on every ABI change (2: te_rt_gemm_args
 * gained a_row_scale_inv / b_row_scale_inv; te_rt_gemm_info,
 * te_rt_context_last_gemm_info and te_rt_context_set_gemm_autotune; 3:
 * te_rt_context_set_host_memory / te_rt_context_get_host_memory; 4:
 * te_rt_tensor gained size_bytes (its size grew by 8 bytes),
 * te_rt_tensor_init; te_rt_qtensor_free(ctx, NULL) is INVALID_ARGUMENT; 5:
 * the entry points compiled code calls, te_rt_mlir_quantize,
 * te_rt_mlir_quantize_group, te_rt_mlir_dequantize and te_rt_mlir_gemm,
 * take a descriptor, TE_RT_ABI_VERSION 2 of te_rt_abi.def; 6: te_rt_attention,
 * te_rt_attention_grad, te_rt_mlir_attention, te_rt_mlir_attention_grad and
 * te_rt_mlir_matmul's accumulate, TE_RT_ABI_VERSION 4;
 * te_rt_context_set_fast_kernels).
 */
#define TE_RT_API_VERSION 6

/** Maximum rank of a (logical) tensor. */
#define TE_RT_MAX_RANK 8
/** Maximum number of buffers of a quantized tensor (NVFP4 has 6). */
#define TE_RT_MAX_BUFFERS 8
/** Capacity of te_rt_buffer_desc.name, including the terminating NUL. */
#define TE_RT_MAX_NAME 32

/*===----------------------------------------------------------------------===*
 * Status and errors
 *===----------------------------------------------------------------------===*/

typedef enum te_rt_status {
  TE_RT_OK = 0,
  TE_RT_INVALID_ARGUMENT = 1, /**< null pointer, bad shape/size/enum, ... */
  TE_RT_UNSUPPORTED = 2,      /**< valid, but not implemented / allowed */
  TE_RT_OUT_OF_MEMORY = 3,
  TE_RT_BACKEND_UNAVAILABLE = 4, /**< e.g. cuda without a GPU or not built */
  TE_RT_CUDA_ERROR = 5,
  TE_RT_CUBLAS_ERROR = 6,
  TE_RT_INTERNAL = 7
} te_rt_status;

/** The message of the last failing call on this thread ("" if none). */
TE_RT_EXPORT const char *te_rt_last_error(void);
/** Clears the thread's last error message. */
TE_RT_EXPORT void te_rt_clear_error(void);
/** "ok", "invalid argument", ...; "unknown status" for other values. */
TE_RT_EXPORT const char *te_rt_status_string(te_rt_status status);
/** TE_RT_API_VERSION of the library actually loaded. */
TE_RT_EXPORT int te_rt_api_version(void);

/*===----------------------------------------------------------------------===*
 * Enums (values equal te::format's enums, include/te/Format/Quantizer.h)
 *===----------------------------------------------------------------------===*/

typedef enum te_rt_dtype {
  TE_RT_U8 = 0,
  TE_RT_F32 = 1,
  TE_RT_F16 = 2,
  TE_RT_BF16 = 3,
  TE_RT_E4M3 = 4,  /**< float8_e4m3fn */
  TE_RT_E5M2 = 5,  /**< float8_e5m2 */
  TE_RT_E8M0 = 6,  /**< float8_e8m0fnu (MXFP8 scales) */
  TE_RT_E2M1X2 = 7 /**< two float4_e2m1fn per byte, even index low nibble */
} te_rt_dtype;

typedef enum te_rt_recipe {
  TE_RT_RECIPE_DELAYED = 0, /**< per-tensor FP8, delayed scaling */
  TE_RT_RECIPE_CURRENT = 1, /**< per-tensor FP8, current scaling */
  TE_RT_RECIPE_BLOCK = 2,   /**< FP8 1x128 / 128x128 blocks, fp32 scales */
  TE_RT_RECIPE_MXFP8 = 3,   /**< 1x32 / 32x1 (or 32x32) blocks, E8M0 scales */
  TE_RT_RECIPE_NVFP4 = 4    /**< 1x16 (or 16x16) blocks, E4M3 + fp32 scales */
} te_rt_recipe;

/** sm_90 is TN-only (per-tensor FP8 columnwise = physical transpose). */
typedef enum te_rt_target { TE_RT_SM90 = 0, TE_RT_SM100 = 1 } te_rt_target;

/** A bit set of representations. */
typedef enum te_rt_usage {
  TE_RT_USAGE_NONE = 0,
  TE_RT_ROWWISE = 1,
  TE_RT_COLUMNWISE = 2,
  TE_RT_ROWWISE_AND_COLUMNWISE = 3
} te_rt_usage;

typedef enum te_rt_amax_algo {
  TE_RT_AMAX_MAX = 0,
  TE_RT_AMAX_MOST_RECENT = 1
} te_rt_amax_algo;

typedef enum te_rt_e8m0_rounding {
  TE_RT_E8M0_UP = 0,   /**< TE's kernels: no element overflows */
  TE_RT_E8M0_FLOOR = 1 /**< OCP MX spec */
} te_rt_e8m0_rounding;

typedef enum te_rt_err_mode {
  TE_RT_ERR_MAE = 0,
  TE_RT_ERR_MSE = 1
} te_rt_err_mode;

typedef enum te_rt_backend {
  TE_RT_BACKEND_CPU = 0,
  TE_RT_BACKEND_CUDA = 1
} te_rt_backend;

/*===----------------------------------------------------------------------===*
 * Context
 *===----------------------------------------------------------------------===*/

typedef struct te_rt_context te_rt_context;

/** 1 if `backend` can be used on this machine (built, and a GPU for cuda). */
TE_RT_EXPORT int te_rt_backend_available(te_rt_backend backend);
TE_RT_EXPORT te_rt_status te_rt_context_create(te_rt_backend backend,
                                               te_rt_context **out);
/** Destroying NULL is a no-op. */
TE_RT_EXPORT te_rt_status te_rt_context_destroy(te_rt_context *ctx);
TE_RT_EXPORT te_rt_status te_rt_context_get_backend(const te_rt_context *ctx,
                                                    te_rt_backend *out);
/** Worker threads of the cpu backend; 0 = hardware concurrency (default).
 *  Ignored by the cuda backend. Safe while other threads run work on the
 *  context: each call reads the value once per parallel step, and results
 *  never depend on it. Negative values are INVALID_ARGUMENT. */
TE_RT_EXPORT te_rt_status te_rt_context_set_num_threads(te_rt_context *ctx,
                                                        int num_threads);

/** Host-memory mode of compiled code (te_rt_abi.def): with `enabled` != 0,
 *  code compiled for target=cpu passes host buffers to the te_rt_mlir_*
 *  entry points and the cuda backend stages them to device memory and back
 *  around each call; te_rt_mlir_alloc then returns host memory. With 0 (the
 *  default) compiled code passes the context's memory (device memory on
 *  cuda), which the entry points use in place. The cpu backend ignores the
 *  mode: host memory is its context memory. Does not change te_rt_malloc or
 *  any other te_rt_* function. */
TE_RT_EXPORT te_rt_status te_rt_context_set_host_memory(te_rt_context *ctx,
                                                        int enabled);
/** The value last set by te_rt_context_set_host_memory (0 or 1). */
TE_RT_EXPORT te_rt_status
te_rt_context_get_host_memory(const te_rt_context *ctx, int *enabled);

/*===----------------------------------------------------------------------===*
 * Memory (host memory on cpu, device memory on cuda)
 *
 * On cuda the context's stream is the legacy default stream (NULL): it is
 * ordered with every blocking stream of the device. te_rt_malloc and
 * te_rt_free are stream-ordered on it (cudaMallocAsync / cudaFreeAsync from
 * the device's default memory pool, which keeps freed memory cached for
 * reuse): memory is usable by work queued after the allocation on that
 * stream or on a blocking stream; work on a non-blocking stream must be
 * ordered with it explicitly (events, or synchronizing).
 *===----------------------------------------------------------------------===*/

typedef enum te_rt_memcpy_kind {
  TE_RT_HOST_TO_HOST = 0,
  TE_RT_HOST_TO_DEVICE = 1,
  TE_RT_DEVICE_TO_HOST = 2,
  TE_RT_DEVICE_TO_DEVICE = 3
} te_rt_memcpy_kind;

/** Allocates `bytes` (0 gives a valid unique pointer), 256-byte aligned. */
TE_RT_EXPORT te_rt_status te_rt_malloc(te_rt_context *ctx, size_t bytes,
                                       void **out);
/** Freeing NULL is a no-op. */
TE_RT_EXPORT te_rt_status te_rt_free(te_rt_context *ctx, void *ptr);
/** "Device" is the context's memory (host memory on cpu). On cuda, copies
 *  to or from host memory return when they are complete;
 *  DEVICE_TO_DEVICE copies are queued on the context's stream and may return
 *  before they complete. */
TE_RT_EXPORT te_rt_status te_rt_memcpy(te_rt_context *ctx, void *dst,
                                       const void *src, size_t bytes,
                                       te_rt_memcpy_kind kind);
TE_RT_EXPORT te_rt_status te_rt_memset_zero(te_rt_context *ctx, void *dst,
                                            size_t bytes);
/** Waits for all work queued on `stream` (NULL: the default stream). */
TE_RT_EXPORT te_rt_status te_rt_synchronize(te_rt_context *ctx, void *stream);

/*===----------------------------------------------------------------------===*
 * Quantizer (mirrors te::format::QuantizerConfig)
 *===----------------------------------------------------------------------===*/

typedef struct te_rt_quantizer {
  te_rt_recipe recipe;
  /** E4M3 / E5M2 for the FP8 recipes, E2M1X2 for NVFP4. */
  te_rt_dtype dtype;

  /* Current scaling and block scaling. */
  int32_t pow2_scales; /**< round scales down to a power of two */
  float amax_epsilon;

  /* Block scaling: 1 = 1x128 tiles, 2 = 128x128 tiles. */
  int32_t block_dim;

  /* MXFP8. */
  int32_t mx_2d; /**< 32x32 blocks */
  te_rt_e8m0_rounding e8m0_rounding;

  /* NVFP4. */
  int32_t rht;            /**< random Hadamard transform on columnwise */
  uint32_t rht_sign_mask; /**< bit i set: s_i = -1 (TE: 0xD7E8) */
  int32_t nvfp4_2d;       /**< 16x16 blocks */
  int32_t stochastic_rounding;
  int32_t row_scaled; /**< one global amax per row */
  int32_t use_4over6;
  float e4m3_max; /**< 448, or 256 with 4over6 */
  te_rt_err_mode err_mode;

  /* Delayed scaling. */
  int32_t margin;
  int32_t history_length;
  te_rt_amax_algo amax_algo;
} te_rt_quantizer;

/** Sets every field to te::format::QuantizerConfig's default (current
 *  scaling, E4M3). */
TE_RT_EXPORT void te_rt_quantizer_init_default(te_rt_quantizer *q);
/** TE_RT_OK if the combination is one TransformerEngine accepts. */
TE_RT_EXPORT te_rt_status te_rt_quantizer_verify(const te_rt_quantizer *q);

/*===----------------------------------------------------------------------===*
 * Tensors
 *===----------------------------------------------------------------------===*/

/** A dense row-major high-precision tensor (F32, BF16 or F16). Rank 0 is a
 *  scalar. Layout (x86-64 / aarch64, 88 bytes): data at 0, dtype at 8, rank
 *  at 12, shape at 16, size_bytes at 80. */
typedef struct te_rt_tensor {
  void *data;
  te_rt_dtype dtype;
  int32_t rank;
  int64_t shape[TE_RT_MAX_RANK];
  /** The capacity of `data` in bytes (API version 4). Every call checks it
   *  is at least the shape's element count times the element size
   *  (INVALID_ARGUMENT "out holds 8192 bytes (size_bytes), its shape
   *  [64, 128] of f32 needs 32768"). 0: not stated, trusted (what a caller
   *  written for an earlier version passes after zeroing the struct);
   *  negative: INVALID_ARGUMENT. */
  int64_t size_bytes;
} te_rt_tensor;

/** Zeroes `t` (size_bytes 0, not stated); set data, dtype, rank, shape and
 *  size_bytes after it. */
TE_RT_EXPORT void te_rt_tensor_init(te_rt_tensor *t);

typedef enum te_rt_buffer_role {
  TE_RT_BUFFER_DATA = 0,
  TE_RT_BUFFER_SCALE_INV = 1,
  TE_RT_BUFFER_AMAX = 2
} te_rt_buffer_role;

/** One buffer of a quantized tensor, as TE allocates it (padded). */
typedef struct te_rt_buffer_desc {
  char name[TE_RT_MAX_NAME]; /**< TE attribute name, e.g. "_rowwise_data" */
  te_rt_buffer_role role;
  int32_t columnwise; /**< belongs to the columnwise representation */
  te_rt_dtype dtype;  /**< E4M3/E5M2/E2M1X2 data, F32/E8M0/E4M3 scales */
  int32_t rank;
  int64_t shape[TE_RT_MAX_RANK]; /**< E2M1X2: last dim counts bytes */
  int64_t size_bytes;
} te_rt_buffer_desc;

typedef struct te_rt_buffer {
  void *data;
  int64_t size_bytes; /**< must be at least the layout's size_bytes */
} te_rt_buffer;

/** A quantized tensor: the quantizer, the logical shape, which
 *  representations it holds on which target, and its buffers in TE flatten
 *  order (see te_rt_qtensor_layout). */
typedef struct te_rt_qtensor {
  te_rt_quantizer quantizer;
  int32_t rank;
  int64_t shape[TE_RT_MAX_RANK]; /**< the logical (high-precision) shape */
  te_rt_usage usage;
  te_rt_target target;
  /** MXFP8/NVFP4: the scale buffers hold the GEMM-swizzled layout
   *  (docs/formats.md §4) instead of the compact one. */
  int32_t swizzled_scales;
  int32_t num_buffers;
  te_rt_buffer buffers[TE_RT_MAX_BUFFERS];
} te_rt_qtensor;

/** The buffers of a tensor of logical shape `shape[0..rank)` quantized with
 *  `q`, holding `usage`, on `target`: writes up to `capacity` descriptors to
 *  `out` and their count to `*num_buffers`. Fails with INVALID_ARGUMENT for a
 *  shape the recipe forbids, and if `capacity` is too small. */
TE_RT_EXPORT te_rt_status te_rt_qtensor_layout(
    const te_rt_quantizer *q, int32_t rank, const int64_t *shape,
    te_rt_usage usage, te_rt_target target, te_rt_buffer_desc *out,
    int32_t capacity, int32_t *num_buffers);

/** Fills `out`'s metadata and num_buffers / sizes from the layout; data
 *  pointers are set to NULL. */
TE_RT_EXPORT te_rt_status te_rt_qtensor_init(te_rt_qtensor *out,
                                             const te_rt_quantizer *q,
                                             int32_t rank, const int64_t *shape,
                                             te_rt_usage usage,
                                             te_rt_target target);
/** te_rt_qtensor_init, then allocates every buffer with te_rt_malloc and
 *  zero-fills it. Free with te_rt_qtensor_free. */
TE_RT_EXPORT te_rt_status te_rt_qtensor_alloc(
    te_rt_context *ctx, te_rt_qtensor *out, const te_rt_quantizer *q,
    int32_t rank, const int64_t *shape, te_rt_usage usage, te_rt_target target);
/** Frees the buffers of a te_rt_qtensor_alloc'ed tensor; NULLs them (so a
 *  second call frees nothing). `q` NULL is INVALID_ARGUMENT. */
TE_RT_EXPORT te_rt_status te_rt_qtensor_free(te_rt_context *ctx,
                                             te_rt_qtensor *q);

/*===----------------------------------------------------------------------===*
 * Quantize / dequantize / amax / delayed-scaling update
 *===----------------------------------------------------------------------===*/

typedef struct te_rt_quantize_args {
  /** Delayed scaling: the fp32 scale to use (in, context memory). Required
   *  for the delayed recipe, must be NULL otherwise. */
  const float *scale;
  /** Optional (delayed and current scaling): receives amax(x) (fp32, context
   *  memory). Overwritten, not max-accumulated. */
  float *amax;
  /** Optional (current scaling): use this amax (e.g. after an all-reduce)
   *  instead of computing it. NVFP4 (not row-scaled):
   *  two floats, [0] the rowwise and [1] the columnwise global amax (the
   *  post-RHT amax when rht), used instead of the tensor's own. See
   *  te_rt_comm.h. */
  const float *amax_in;
  /** NVFP4 stochastic rounding: the Philox4x32 key and counter offset.
   *  Element e (row-major index) of the rowwise representation uses the
   *  random byte e % 16 of Philox(counter = offset + e / 16, key = seed)
   *  (te::format::philoxRandomByte); the columnwise representation uses the
   *  counters after those, offset + ceil(M*K/16). */
  uint64_t seed;
  uint64_t offset;
  /** cudaStream_t on the cuda backend; ignored on cpu. */
  void *stream;
} te_rt_quantize_args;

TE_RT_EXPORT void te_rt_quantize_args_init(te_rt_quantize_args *args);

/** Quantizes x (F32/BF16/F16, logical shape = q->shape) into every
 *  representation q->usage names, in one call. All padding bytes of q's
 *  buffers are written (zero). `args` may be NULL (all defaults). */
TE_RT_EXPORT te_rt_status te_rt_quantize(te_rt_context *ctx,
                                         const te_rt_tensor *x,
                                         te_rt_qtensor *q,
                                         const te_rt_quantize_args *args);

/** Dequantizes the representation `from` (TE_RT_ROWWISE or
 *  TE_RT_COLUMNWISE; must be held by q) into `out` (F32/BF16/F16, logical
 *  shape = q->shape). An NVFP4 columnwise copy made with the RHT is
 *  transformed back (the RHT matrix is orthogonal), so every representation
 *  dequantizes to an approximation of the logical tensor. */
TE_RT_EXPORT te_rt_status te_rt_dequantize(te_rt_context *ctx,
                                           const te_rt_qtensor *q,
                                           te_rt_usage from, te_rt_tensor *out);

/** *amax = max |x| ignoring NaN (fp32, context memory). Reads x in place
 *  (no copy of the tensor). */
TE_RT_EXPORT te_rt_status te_rt_amax(te_rt_context *ctx, const te_rt_tensor *x,
                                     float *amax);

/** Delayed scaling update (TE's delayed_scaling.cu) for `num_scales`
 *  quantizers sharing q's fp8 dtype, margin and amax algorithm:
 *  amax_history is fp32 [history_length, num_scales] row-major (rolled in
 *  place), scale is fp32 [num_scales] (updated in place). */
TE_RT_EXPORT te_rt_status te_rt_update_scale(te_rt_context *ctx,
                                             const te_rt_quantizer *q,
                                             float *amax_history, float *scale,
                                             int64_t history_length,
                                             int64_t num_scales);

/** In place: converts q's scale buffers (MXFP8, NVFP4) from the compact to
 *  the GEMM-swizzled layout and sets q->swizzled_scales (no-op if set). */
TE_RT_EXPORT te_rt_status te_rt_swizzle_scales(te_rt_context *ctx,
                                               te_rt_qtensor *q);
/** The inverse of te_rt_swizzle_scales. */
TE_RT_EXPORT te_rt_status te_rt_unswizzle_scales(te_rt_context *ctx,
                                                 te_rt_qtensor *q);

/*===----------------------------------------------------------------------===*
 * GEMM (TransformerEngine's general_gemm, docs/formats.md §5)
 *===----------------------------------------------------------------------===*/

/** layout[0] is transa, layout[1] transb. In row-major terms, with 2-D
 *  (flattened) logical operands:
 *   TN: A [N, K], B [M, K]: D[M, N] = B · Aᵀ   (fprop: A = W, B = X)
 *   NN: A [K, N], B [M, K]: D[M, N] = B · A    (dgrad: A = W, B = dY)
 *   NT: A [K, N], B [K, M]: D[M, N] = Bᵀ · A   (wgrad: A = X, B = dY)
 *  A reads its rowwise representation if transa, else columnwise; B its
 *  columnwise representation if transb, else rowwise. */
typedef enum te_rt_gemm_layout {
  TE_RT_GEMM_TN = 0,
  TE_RT_GEMM_NN = 1,
  TE_RT_GEMM_NT = 2
} te_rt_gemm_layout;

typedef struct te_rt_gemm_args {
  te_rt_gemm_layout layout;
  /** Optional bias [N] (F32/BF16/F16), added to every row of D. */
  const te_rt_tensor *bias;
  /** D = alpha · op(B)·op(A) + bias (+ D if accumulate). */
  float alpha;
  int32_t accumulate;
  /** cuBLASLt fast-accumulation switch (cuda). The cpu backend ignores it:
   *  it dequantizes both operands to fp32, accumulates the dot products in
   *  double, adds alpha, bias and the old D in double and rounds once to
   *  fp32 (then to D's type). */
  int32_t use_split_accumulator;
  /** Optional: quantize the result (after bias/accumulate) into this
   *  tensor too; D may then be NULL (a temporary is used). On cuda, a
   *  delayed-scaling output holding only the rowwise copy, with D NULL, no
   *  bias and per-tensor FP8 operands (no row scales), is written by
   *  cuBLASLt directly (D_SCALE = output_args->scale, AMAX_D =
   *  output_args->amax; te_rt_gemm_info::fused_fp8_output): its codes may
   *  differ from the separate quantization by one FP8 step, since the fp32
   *  result is not rounded before scaling. */
  te_rt_qtensor *output;
  const te_rt_quantize_args *output_args;
  /** Optional cuBLASLt workspace (context memory) and cudaStream_t. */
  void *workspace;
  size_t workspace_bytes;
  void *stream;
  /** Optional per-row scaling (torch._scaled_mm's "rowwise", cuBLASLt
   *  OUTER_VEC_32F), per-tensor FP8 operands only (delayed / current
   *  recipe); both or neither. fp32, context memory, 16-byte aligned:
   *  a_row_scale_inv has N entries (one per row of A's [N, K] view, i.e. per
   *  column of D), b_row_scale_inv has M entries (one per row of D). They
   *  replace the operands' `_scale_inv` scalars, which are not read:
   *    D[m, n] = alpha · b_row_scale_inv[m] · a_row_scale_inv[n] ·
   *              Σ_k codeA(n, k) · codeB(m, k) (+ bias, + D)
   *  where code is the FP8 value of the data bytes (te_rt_gemm_layout tells
   *  which buffer each operand reads; the columnwise copies hold the same
   *  codes transposed). */
  const float *a_row_scale_inv;
  const float *b_row_scale_inv;
} te_rt_gemm_args;

TE_RT_EXPORT void te_rt_gemm_args_init(te_rt_gemm_args *args);

/** D (F32/BF16/F16, rank 2 [M, N], or NULL when args->output is set) =
 *  the GEMM of the quantized operands A and B (see te_rt_gemm_layout).
 *  It accepts exactly the GEMMs the dialect's te.gemm verifier accepts
 *  (include/te/Format/Gemm.h): A and B hold the representations the layout
 *  reads, have rank >= 1 (A rank 2 in TN and NN), agree on K and have
 *  K % 16 == 0 (INVALID_ARGUMENT); they belong to one recipe family, are
 *  not both 128x128-block scaled and not both E5M2 (UNSUPPORTED). */
TE_RT_EXPORT te_rt_status te_rt_gemm(te_rt_context *ctx, const te_rt_qtensor *a,
                                     const te_rt_qtensor *b, te_rt_tensor *d,
                                     const te_rt_gemm_args *args);

/** How a GEMM ran (te_rt_context_last_gemm_info). */
typedef enum te_rt_gemm_path {
  TE_RT_GEMM_PATH_NONE = 0,          /**< no GEMM has run on the context */
  TE_RT_GEMM_PATH_CPU_REFERENCE = 1, /**< the cpu backend (float64 dots) */
  /** cuBLASLt on the FP8 tensor cores: per-tensor (SCALAR_32F), per-row
   *  (OUTER_VEC_32F) or Float8Block (VEC128_32F / BLK128x128_32F) scales. */
  TE_RT_GEMM_PATH_NATIVE_FP8 = 2,
  /** cuBLASLt VEC32_UE8M0 / VEC16_UE4M3 (MXFP8 / NVFP4 on sm_100). */
  TE_RT_GEMM_PATH_NATIVE_BLOCK_SCALED = 3,
  /** MXFP8 / NVFP4 without native support (sm_90): operands dequantized
   *  exactly to bf16, then a bf16 cuBLASLt GEMM. */
  TE_RT_GEMM_PATH_EMULATED_BF16 = 4,
  /** As above in fp32 (row-scaled NVFP4, an RHT on one operand only). */
  TE_RT_GEMM_PATH_EMULATED_F32 = 5
} te_rt_gemm_path;

typedef struct te_rt_gemm_info {
  te_rt_gemm_path path;
  /** 1 if cuBLASLt wrote args->output's FP8 data itself (D_SCALE_POINTER,
   *  AMAX_D_POINTER), 0 if the result was quantized by a separate step. */
  int32_t fused_fp8_output;
  /** 1 if alpha/beta were passed as host values (CUBLASLT_POINTER_MODE_HOST),
   *  0 for device pointers (NVFP4's global scales) or the cpu backend. */
  int32_t host_pointer_mode;
  /** 1 if the algorithm was chosen by timing the heuristic's candidates. */
  int32_t autotuned;
  /** The cuBLASLt algorithm of the main matmul
   *  (cublasLtMatmulAlgoConfigGetAttribute: CUBLASLT_ALGO_CONFIG_ID,
   *  _TILE_ID, _STAGES_ID, _SPLITK_NUM, _CTA_SWIZZLING, _CUSTOM_OPTION); -1
   *  on the cpu backend. */
  int32_t algo_id, algo_tile, algo_stages, algo_split_k, algo_swizzle,
      algo_custom_option;
} te_rt_gemm_info;

/** Describes the last te_rt_gemm that succeeded on `ctx` (from any thread);
 *  path TE_RT_GEMM_PATH_NONE before the first one. */
TE_RT_EXPORT te_rt_status te_rt_context_last_gemm_info(const te_rt_context *ctx,
                                                       te_rt_gemm_info *info);

/** cuda: `candidates` >= 2 asks cuBLASLt's heuristic for that many
 *  algorithms (at most 16) the first time each GEMM problem is seen, times
 *  each on the real operands (when D is not accumulated into) and keeps the
 *  fastest for that problem; 0 or 1 (the default) takes the heuristic's
 *  first. The choice depends on timings, so results may differ in the last
 *  bits between processes. The cpu backend ignores it. Negative values are
 *  INVALID_ARGUMENT. */
TE_RT_EXPORT te_rt_status te_rt_context_set_gemm_autotune(te_rt_context *ctx,
                                                          int32_t candidates);

/** cuda: `enabled` 0 runs the general quantize, amax and dequantize kernels
 *  for the calls on `ctx` instead of the bandwidth kernels (the tiled
 *  per-tensor, block and MXFP8 casts, the fused NVFP4 kernel, the
 *  vectorized amax and dequantization), with the same results: for
 *  before/after timings. 1 (the default) uses the bandwidth kernels where
 *  the shape and alignment allow. The cpu backend accepts and ignores it.
 *  Other values are INVALID_ARGUMENT. */
TE_RT_EXPORT te_rt_status te_rt_context_set_fast_kernels(te_rt_context *ctx,
                                                         int32_t enabled);

/*===----------------------------------------------------------------------===*
 * Attention
 *===----------------------------------------------------------------------===*/

/** One attention operand: 4-D [batch, heads, rows, cols] in context memory,
 *  element strides per dimension (strides[3] must be 1; a 3-D [N, rows,
 *  cols] tensor is passed as [1, N, rows, cols]). */
typedef struct te_rt_attention_operand {
  void *data;
  int64_t shape[4];
  int64_t strides[4];
} te_rt_attention_operand;

typedef enum te_rt_attention_mask {
  TE_RT_ATTENTION_MASK_NONE = 0,
  /** F32, BF16 or F16 values added to the scaled scores (-inf: masked). */
  TE_RT_ATTENTION_MASK_ADDITIVE = 1,
  /** U8: nonzero = the key takes part (PyTorch's boolean attn_mask). */
  TE_RT_ATTENTION_MASK_BOOLEAN = 2
} te_rt_attention_mask;

/** Scaled dot-product attention with PyTorch SDPA's semantics:
 *    o = softmax(scale * q k^T + mask) v   per (batch, query head),
 *  q [B, Hq, L, E], k [B, Hkv, S, E], v [B, Hkv, S, Ev], o [B, Hq, L, Ev],
 *  all of `dtype` (F32, BF16, F16; the cuda backend takes BF16 and F16).
 *  Hq is a multiple of Hkv and query head h reads key/value head
 *  h / (Hq / Hkv) (grouped-query attention). `causal`: key j visible to
 *  query i iff j <= i (top-left, PyTorch's is_causal). The mask's shape is
 *  [B or 1, Hq or 1, L or 1, S], a size-1 dimension broadcast (its stride
 *  is ignored). A row where no key takes part gives o = 0, lse = -inf. */
typedef struct te_rt_attention_args {
  te_rt_dtype dtype;
  te_rt_attention_operand q, k, v;
  te_rt_attention_operand o; /**< written */
  /** f32 [B, Hq, L] row-major: the log-sum-exp of each row's masked,
   *  scaled scores (what te_rt_attention_grad reads); null: not saved. */
  float *lse;
  float scale;
  int32_t causal;
  te_rt_attention_mask mask_kind;
  te_rt_dtype mask_dtype;
  te_rt_attention_operand mask;
} te_rt_attention_args;

/** Forward attention on the context's stream. Every argument is checked
 *  (shapes against each other, strides, dtypes, overlap of o with the
 *  inputs); the products and the softmax are in f32. */
TE_RT_EXPORT te_rt_status te_rt_attention(te_rt_context *ctx,
                                          const te_rt_attention_args *args);

/** The backward of te_rt_attention: `forward` as passed to it (o and lse
 *  are read, lse not null), dout with o's shape; writes dq, dk, dv with the
 *  shapes of q, k, v (dk, dv summed over each group's query heads). */
typedef struct te_rt_attention_grad_args {
  te_rt_attention_args forward;
  te_rt_attention_operand dout;
  te_rt_attention_operand dq, dk, dv; /**< written */
} te_rt_attention_grad_args;

TE_RT_EXPORT te_rt_status
te_rt_attention_grad(te_rt_context *ctx, const te_rt_attention_grad_args *args);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TE_RT_H */
