//===- Backend.h - The interface every runtime backend implements -*- C++
//-*-===//
//
// Part of te. Internal to libte_rt: no MLIR, no CUDA types.
//
//===----------------------------------------------------------------------===//
//
// The C ABI front end (Api.cpp) validates every argument once (null pointers,
// ranks, dtypes, buffer count and sizes against Format's layout, unsupported
// combinations, size overflow) and hands the backends decoded, checked
// descriptions. A backend never sees a te_rt_qtensor whose buffers are too
// small or a quantizer that Format's verifyConfig rejects.
//
// A backend reports failure by returning a status from fail(...) (Error.h),
// which records the thread-local message; it never throws across this
// interface (the front end also catches std::bad_alloc and anything else).
//
// Backends:
//   cpu  (runtime/lib/cpu/)  - the reference, createCpuBackend().
//   cuda (runtime/cuda/)     - createCudaBackend(), built into the target
//        `te_rt_cuda` (a static PIC library) when CUDA is found; the
//        front end is compiled with TE_RT_HAVE_CUDA=1 then. The cuda backend
//        must produce bit-identical quantized buffers to the cpu backend.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_LIB_BACKEND_H
#define TE_RT_LIB_BACKEND_H

#include "Error.h"
#include "Producer.h"

#include "te/Format/Layout.h"
#include "te/Format/Quantizer.h"
#include "te_rt.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace te::rt {

/// A dense row-major high-precision tensor (F32, BF16 or F16) in the
/// backend's memory.
struct Tensor {
  void *data = nullptr;
  format::DType dtype = format::DType::F32;
  format::Shape shape;  ///< logical shape (rank >= 0)
  int64_t m = 1, k = 1; ///< flattened 2-D view (format::flatten2D)
  int64_t numElements = 0;
};

/// A quantized tensor whose buffers have been checked against the layout.
struct QTensor {
  format::QuantizerConfig config;
  format::Shape shape;  ///< logical shape
  int64_t m = 1, k = 1; ///< flattened 2-D view
  format::Usage usage = format::Rowwise;
  format::Target target = format::Target::SM90;
  bool swizzledScales = false;
  /// Format's buffer layout, in TE flatten order, and the matching pointers.
  std::vector<format::BufferDesc> layout;
  std::vector<void *> buffers;
  std::vector<int64_t> bufferBytes; ///< layout byte size of each buffer

  /// Index of the buffer of `role` that the layout assigns to the `usage`
  /// copy (BufferDesc::columnwise: Rowwise is false, Columnwise true), or -1
  /// if there is none or `usage` is not Rowwise or Columnwise. Block, MXFP8
  /// and NVFP4 keep a data, a scale (and for NVFP4 an amax) buffer per copy.
  /// Per-tensor FP8 (delayed, current scaling) keeps one scale for both
  /// copies, marked rowwise, (ScaleInv, Rowwise); its data is found with
  /// perTensorDataIndex and perTensorTransposeIndex.
  int indexOf(format::BufferRole role, format::Usage usage) const {
    if (usage != format::Rowwise && usage != format::Columnwise)
      return -1;
    const bool columnwise = usage == format::Columnwise;
    for (size_t i = 0; i < layout.size(); ++i)
      if (layout[i].role == role && layout[i].columnwise == columnwise)
        return static_cast<int>(i);
    return -1;
  }
  /// The buffer indexOf(role, usage) finds, or nullptr.
  void *buffer(format::BufferRole role, format::Usage usage) const {
    return bufferAt(indexOf(role, usage));
  }
  /// Delayed or current scaling: one per-tensor scale.
  bool isPerTensor() const {
    return format::recipeTraits(config.recipe).perTensor;
  }
  /// Per-tensor FP8: the data stored in the logical orientation, or -1 (other
  /// recipes, or a columnwise-only tensor on sm_90). It holds the rowwise
  /// copy; on sm_100 it also serves columnwise reads (with the mirrored
  /// transpose flag) and is marked columnwise when the tensor holds that
  /// copy alone.
  int perTensorDataIndex() const {
    if (!isPerTensor())
      return -1;
    int i = indexOf(format::BufferRole::Data, format::Rowwise);
    if (i < 0 && target == format::Target::SM100)
      i = indexOf(format::BufferRole::Data, format::Columnwise);
    return i;
  }
  /// Per-tensor FP8 on sm_90 (TN-only): the columnwise copy, stored as the
  /// physical transpose of the data; -1 on sm_100 and for other recipes.
  int perTensorTransposeIndex() const {
    return isPerTensor() && target == format::Target::SM90
               ? indexOf(format::BufferRole::Data, format::Columnwise)
               : -1;
  }
  void *perTensorData() const { return bufferAt(perTensorDataIndex()); }
  void *perTensorTranspose() const {
    return bufferAt(perTensorTransposeIndex());
  }
  /// buffers[index], or nullptr for index -1.
  void *bufferAt(int index) const {
    return index >= 0 ? buffers[static_cast<size_t>(index)] : nullptr;
  }
  bool hasRowwise() const { return usage & format::Rowwise; }
  bool hasColumnwise() const { return usage & format::Columnwise; }
};

/// Decoded te_rt_quantize_args (pointers are in the backend's memory).
struct QuantizeOptions {
  const float *scale = nullptr;  ///< delayed: the scale (in)
  float *amaxOut = nullptr;      ///< delayed/current: amax(x) (out)
  const float *amaxIn = nullptr; ///< current: use this amax
  uint64_t seed = 0, offset = 0; ///< NVFP4 stochastic rounding
  void *stream = nullptr;
  /// Non-null: x has no data; its elements are the value of this program
  /// (rounded to x.dtype), which the backend also writes to valueOut and
  /// sums into colsum when they are set.
  const Producer *producer = nullptr;
};

/// Decoded te_rt_gemm_args. The operands' representations follow
/// docs/formats.md §5 (see te_rt_gemm_layout); the front end has checked that
/// they are present and that the shapes agree: D is [m, n], the contraction
/// length is k.
struct GemmOptions {
  te_rt_gemm_layout layout = TE_RT_GEMM_TN;
  int64_t m = 0, n = 0, k = 0;
  const Tensor *bias = nullptr; ///< [n] or nullptr
  float alpha = 1.0f;
  bool accumulate = false;
  bool useSplitAccumulator = false;
  QTensor *output = nullptr; ///< optional output quantization
  QuantizeOptions outputOptions;
  void *workspace = nullptr;
  size_t workspaceBytes = 0;
  void *stream = nullptr;
  /// Per-row scales (te_rt_gemm_args::a/b_row_scale_inv): both or neither,
  /// per-tensor FP8 operands only; a has n entries, b has m.
  const float *aRowScaleInv = nullptr, *bRowScaleInv = nullptr;
  /// Filled by the backend (the front end initialises it: path NONE, algo
  /// fields -1) and kept as the context's last GEMM info on success.
  te_rt_gemm_info *info = nullptr;
  /// Optional: the operands' bf16 emulation operands (Backend::
  /// gemmEmulatedOperand of the same buffers), read in place of
  /// dequantizing the operand; a backend that does not emulate ignores them.
  const void *aEmulated = nullptr, *bEmulated = nullptr;
};

/// A dense matrix product, row-major, in place (te_rt_mlir_matmul):
/// C[b] (+)= op(A[b]) · op(B[b]) for b < batch, in f32; C's prior contents
/// are read only with `accumulate`.
struct DenseMatmul {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  const void *a = nullptr, *b = nullptr;
  void *c = nullptr;
  format::DType aType = format::DType::F32, bType = format::DType::F32,
                cType = format::DType::F32;
  bool transA = false, transB = false;
  int64_t lda = 0, ldb = 0, ldc = 0; ///< row strides
  int64_t batchStrideA = 0, batchStrideB = 0, batchStrideC = 0;
  bool accumulate = true;
  void *stream = nullptr;
};

/// One operand of an attention: 4-D [batch, heads, rows, cols] with element
/// strides (strides[3] == 1), in the backend's memory.
struct AttentionOperand {
  const void *data = nullptr;
  int64_t shape[4] = {0, 0, 0, 0};
  int64_t strides[4] = {0, 0, 0, 1};
};

/// What the attention mask is (te_rt_mlir_attention's mask_kind).
enum class AttentionMask : uint8_t {
  None = 0,
  Additive = 1, ///< F32, BF16 or F16, added to the scaled scores
  Boolean = 2,  ///< U8, nonzero = the key takes part
};

/// Scaled dot-product attention (te_rt_mlir_attention), PyTorch SDPA's
/// semantics: O = softmax(scale · Q Kᵀ + mask) V per (batch, query head),
/// in f32. q [B, Hq, L, E], k [B, Hkv, S, E], v [B, Hkv, S, Ev], o
/// [B, Hq, L, Ev]; Hq % Hkv == 0 and query head h reads key/value head
/// h / (Hq / Hkv). Checked by the caller: shapes consistent, strides in
/// bounds, dtypes supported. A row where no key takes part gives O = 0 and
/// LSE = -inf.
struct Attention {
  format::DType dtype = format::DType::BF16; ///< of q, k, v, o (and dO...)
  AttentionOperand q, k, v, o;               ///< o.data is written
  float *lse = nullptr; ///< f32 [B, Hq, L] row-major, or null (not saved)
  float scale = 1.0f;
  bool causal = false; ///< key j visible to query i iff j <= i (top-left)
  AttentionMask maskKind = AttentionMask::None;
  format::DType maskType = format::DType::F32;
  /// [B or 1, Hq or 1, L or 1, S]: a size-1 dimension has stride 0.
  AttentionOperand mask;
  void *stream = nullptr;
};

/// The backward of Attention (te_rt_mlir_attention_grad): reads q, k, v, o,
/// lse (not null) and dout (o's shape), writes dq, dk, dv (q's, k's and v's
/// shapes; dk, dv summed over each group's query heads).
struct AttentionGrad {
  Attention forward; ///< forward.o and forward.lse are read, not written
  AttentionOperand dout, dq, dk, dv;
};

class Backend {
public:
  virtual ~Backend() = default;

  virtual te_rt_backend kind() const = 0;
  /// cpu: worker threads (0 = hardware concurrency). Others may ignore it.
  virtual void setNumThreads(int numThreads) { (void)numThreads; }
  /// cuda: GEMM algorithm autotuning (te_rt_context_set_gemm_autotune).
  virtual void setGemmAutotune(int candidates) { (void)candidates; }
  /// cuda: the bandwidth kernels on or off (te_rt_context_set_fast_kernels).
  virtual void setFastKernels(bool enabled) { (void)enabled; }

  // Memory of this backend.
  virtual te_rt_status allocate(size_t bytes, void **out) = 0;
  virtual te_rt_status deallocate(void *ptr) = 0;
  virtual te_rt_status copy(void *dst, const void *src, size_t bytes,
                            te_rt_memcpy_kind kind) = 0;
  virtual te_rt_status fillZero(void *dst, size_t bytes) = 0;
  /// Host memory -> context memory, ordered on `stream`; `src` is consumed
  /// (may be reused or freed) when this returns.
  virtual te_rt_status writeFromHost(void *dst, const void *src, size_t bytes,
                                     void *stream) {
    (void)stream;
    return copy(dst, src, bytes, TE_RT_HOST_TO_DEVICE);
  }
  virtual te_rt_status synchronize(void *stream) = 0;

  /// Writes every buffer of `q` (all representations in q.usage, the amax
  /// buffers, zero padding). q.swizzledScales selects the scale layout.
  virtual te_rt_status quantize(const Tensor &x, QTensor &q,
                                const QuantizeOptions &options) = 0;
  /// `from` is Rowwise or Columnwise (present in q.usage); `out` has q's
  /// logical shape.
  virtual te_rt_status dequantize(const QTensor &q, format::Usage from,
                                  Tensor &out, void *stream) = 0;
  virtual te_rt_status amax(const Tensor &x, float *amaxOut, void *stream) = 0;
  virtual te_rt_status updateScale(const format::QuantizerConfig &config,
                                   float *amaxHistory, float *scale,
                                   int64_t historyLength, int64_t numScales,
                                   void *stream) = 0;
  /// In place, compact <-> swizzled (toSwizzled), MXFP8 and NVFP4 only; the
  /// front end flips q.swizzledScales afterwards.
  virtual te_rt_status swizzleScales(QTensor &q, bool toSwizzled,
                                     void *stream) = 0;
  /// d (rank 2, [m, n]) may be null when options.output is set.
  virtual te_rt_status gemm(const QTensor &a, const QTensor &b, Tensor *d,
                            const GemmOptions &options) = 0;
  /// Arguments checked by the caller (MlirEntryPoints.cpp).
  virtual te_rt_status matmul(const DenseMatmul &mm) = 0;
  /// Scaled dot-product attention and its backward.
  virtual te_rt_status attention(const Attention &a) {
    (void)a;
    return fail(TE_RT_UNSUPPORTED,
                "attention is not implemented by this backend");
  }
  virtual te_rt_status attentionGrad(const AttentionGrad &a) {
    (void)a;
    return fail(TE_RT_UNSUPPORTED,
                "attention backward is not implemented by this backend");
  }
  /// The bf16 operand that a GEMM emulated in bf16 (format::gemmEmulation)
  /// reads of `q`'s copy `reads` (Rowwise or Columnwise, held by q), written
  /// to `out` (q.m * q.k bf16 in the backend's order), for GemmOptions::
  /// aEmulated / bEmulated. Backends that compute GEMMs from the quantized
  /// buffers refuse it.
  virtual te_rt_status gemmEmulatedOperand(const QTensor &q,
                                           format::Usage reads, void *out,
                                           void *stream) {
    (void)q, (void)reads, (void)out, (void)stream;
    return fail(TE_RT_UNSUPPORTED,
                "emulated GEMM operands exist on the cuda backend only (this "
                "backend computes GEMMs from the quantized buffers)");
  }
};

/// The backend of a context (Api.cpp), or nullptr for a null context. For
/// the other parts of libte_rt (MlirEntryPoints.cpp), which have validated
/// their arguments themselves.
Backend *contextBackend(te_rt_context *ctx);
/// te_rt_context_set_host_memory's flag (false for a null context).
bool contextHostMemory(const te_rt_context *ctx);

/// te_rt_gemm, with the operands' bf16 emulation operands (null: none;
/// te_rt_mlir_gemm's a_emulated / b_emulated, GemmOptions::aEmulated): each
/// must be q.m * q.k bf16 in context memory, and only for a GEMM that
/// format::gemmEmulation emulates in bf16.
te_rt_status gemmWithEmulatedOperands(te_rt_context *ctx,
                                      const te_rt_qtensor *a,
                                      const te_rt_qtensor *b, te_rt_tensor *d,
                                      const te_rt_gemm_args *args,
                                      const void *aEmulated,
                                      const void *bEmulated);
/// te_rt_mlir_gemm_operand: Backend::gemmEmulatedOperand of `q`'s copy
/// `reads` into `out` (q's logical rows * cols bf16, context memory),
/// arguments validated.
te_rt_status gemmEmulatedOperand(te_rt_context *ctx, const te_rt_qtensor *q,
                                 te_rt_usage reads, void *out);

/// te_rt_mlir_quantize_produced: te_rt_quantize of `q` from the value of
/// `producer` (rows x cols of q's 2-D shape, rounded to xDtype: F32, BF16,
/// F16) instead of a tensor. Validates the program and its buffers
/// (INVALID_ARGUMENT naming the instruction or input).
te_rt_status quantizeProduced(te_rt_context *ctx, int32_t xDtype,
                              te_rt_qtensor *q, const te_rt_quantize_args *args,
                              const Producer &producer);

/// The reference backend (runtime/lib/cpu/). Never fails to create.
std::unique_ptr<Backend> createCpuBackend();

#if defined(TE_RT_HAVE_CUDA) && TE_RT_HAVE_CUDA
/// Implemented in runtime/cuda/. Returns nullptr and sets `*error` when no
/// usable GPU is present.
std::unique_ptr<Backend> createCudaBackend(std::string *error);
/// True if a GPU the cuda backend supports is present.
bool cudaBackendAvailable();
#endif

} // namespace te::rt

#endif // TE_RT_LIB_BACKEND_H
