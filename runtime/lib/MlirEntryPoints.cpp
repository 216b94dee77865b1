//===- MlirEntryPoints.cpp - Entry points called by compiled code -*- C++
//-*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Defines the functions of runtime/include/te_rt_abi.def on top of the public
// C ABI (te_rt.h): the per-thread current context, the sticky status, the
// context memory of compiled code (te_rt_mlir_alloc / free / copy / read /
// write), the decoding of the descriptors compiled code passes (te_rt_abi.h's
// encoding of te_rt_abi.def's field lists, checked here against a struct of
// the fields) and of flattened operands, and, in host-memory mode on the cuda
// backend (te_rt_context_set_host_memory), the staging of host buffers to
// device memory and back around each call.
//
//===----------------------------------------------------------------------===//

#include "te_rt_abi.h"
#include "te_rt_comm.h"
#include "te_rt_gpu_abi.h"

#include "AttentionArgs.h"
#include "Backend.h"
#include "MlirState.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Current context and sticky status
//===----------------------------------------------------------------------===//

struct ThreadState {
  te_rt_context *ctx = nullptr;
  te_rt_status status = TE_RT_OK;
  std::string message;
};

ThreadState &state() {
  thread_local ThreadState s;
  return s;
}

/// Records the first failure of the thread; later ones are dropped.
void record(te_rt_status s, const std::string &where, const char *msg) {
  ThreadState &t = state();
  if (s == TE_RT_OK || t.status != TE_RT_OK)
    return;
  t.status = s;
  t.message = where + ": " + (msg && *msg ? msg : te_rt_status_string(s));
}

/// The context entry points run on, or null (after recording why) when they
/// must do nothing.
te_rt_context *activeContext(const char *where) {
  ThreadState &t = state();
  if (t.status != TE_RT_OK)
    return nullptr;
  if (!t.ctx) {
    record(TE_RT_INVALID_ARGUMENT, where,
           "no current context (call te_rt_set_current_context first)");
    return nullptr;
  }
  return t.ctx;
}

/// Whether compiled code's buffers are device memory: the cuda backend,
/// unless host-memory mode is on.
bool deviceMemory(te_rt_context *ctx) {
  te_rt_backend b = TE_RT_BACKEND_CPU;
  te_rt_context_get_backend(ctx, &b);
  return b != TE_RT_BACKEND_CPU && !te::rt::contextHostMemory(ctx);
}

//===----------------------------------------------------------------------===//
// Descriptors
//===----------------------------------------------------------------------===//

// The descriptors' words as te_rt_abi.h numbers them are the fields of
// te_rt_abi.def in order: a struct of one int64_t per word of each field
// has every field at the offset of its word index, and the word count as
// its size.
#define TE_RT_ABI_FIELD(type, field) int64_t field;
#define TE_RT_ABI_FIELDS(type, field, n) int64_t field[n];
#define TE_RT_ABI_QUANTIZER(field) int64_t field[te_rt_abi::kQuantizerWords];
#define TE_RT_ABI_DESCRIPTOR(name, kind, ...)                                  \
  struct name##_words {                                                        \
    int64_t magic;                                                             \
    __VA_ARGS__                                                                \
  };
#include "te_rt_abi.def"
#define TE_RT_ABI_FIELD(type, field)                                           \
  static_assert(offsetof(Words, field) == sizeof(int64_t) * D::field);
#define TE_RT_ABI_FIELDS(type, field, n) TE_RT_ABI_FIELD(type, field)
#define TE_RT_ABI_QUANTIZER(field) TE_RT_ABI_FIELD(, field)
#define TE_RT_ABI_DESCRIPTOR(name, kind, ...)                                  \
  [[maybe_unused]] void check_##name##_words() {                               \
    using D = te_rt_abi::name;                                                 \
    using Words = name##_words;                                                \
    static_assert(sizeof(Words) == sizeof(int64_t) * D::kWords);               \
    __VA_ARGS__                                                                \
  }
#include "te_rt_abi.def"

/// Decodes descriptor `desc` of entry point `where`; false (recorded) when
/// it is null or of another ABI version.
template <typename Fields>
bool readDescriptor(const void *desc, Fields &f, const char *where) {
  if (!desc) {
    record(TE_RT_INVALID_ARGUMENT, where, "descriptor is null");
    return false;
  }
  if (!te_rt_abi::decode(static_cast<const int64_t *>(desc), f)) {
    record(TE_RT_INVALID_ARGUMENT, where,
           ("descriptor has a wrong magic number (compiled against another "
            "te_rt_abi.def? this runtime reads version " +
            std::to_string(TE_RT_ABI_VERSION) + ")")
               .c_str());
    return false;
  }
  return true;
}

/// A quantizer descriptor (te_rt_abi::encodeQuantizer).
bool decodeQuantizer(const void *desc, te_rt_quantizer &q, const char *where) {
  if (!desc) {
    record(TE_RT_INVALID_ARGUMENT, where, "quantizer descriptor is null");
    return false;
  }
  if (!te_rt_abi::decodeQuantizer(static_cast<const int64_t *>(desc), q)) {
    record(TE_RT_INVALID_ARGUMENT, where,
           "quantizer descriptor has a wrong magic number (compiled against "
           "another te_rt_abi.def?)");
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Staging of host memory for the cuda backend
//===----------------------------------------------------------------------===//

/// Pointers pass through, except in host-memory mode on the cuda backend:
/// there every host buffer gets a device copy and outputs are copied back by
/// finish().
class Stager {
public:
  Stager(te_rt_context *ctx, const char *where) : ctx(ctx), where(where) {
    te_rt_backend b = TE_RT_BACKEND_CPU;
    te_rt_context_get_backend(ctx, &b);
    device = b != TE_RT_BACKEND_CPU && te::rt::contextHostMemory(ctx);
  }
  ~Stager() {
    for (Entry &e : entries)
      te_rt_free(ctx, e.dev);
  }
  bool ok() const { return good; }

  /// `host` read (in) and/or written (out) by the call, `bytes` long.
  void *stage(void *host, int64_t bytes, bool in, bool out) {
    if (!device || !host || !good)
      return host;
    void *dev = nullptr;
    if (!check(te_rt_malloc(ctx, static_cast<size_t>(bytes), &dev)))
      return nullptr;
    entries.push_back({host, dev, bytes, out});
    if (in && !check(te_rt_memcpy(ctx, dev, host, static_cast<size_t>(bytes),
                                  TE_RT_HOST_TO_DEVICE)))
      return nullptr;
    return dev;
  }

  /// Copies outputs back; false (recorded) on failure.
  bool finish() {
    if (!device || !good)
      return good;
    if (!check(te_rt_synchronize(ctx, nullptr)))
      return false;
    for (Entry &e : entries)
      if (e.out &&
          !check(te_rt_memcpy(ctx, e.host, e.dev, static_cast<size_t>(e.bytes),
                              TE_RT_DEVICE_TO_HOST)))
        return false;
    return true;
  }

  bool check(te_rt_status s) {
    if (s != TE_RT_OK) {
      record(s, where, te_rt_last_error());
      good = false;
    }
    return s == TE_RT_OK;
  }

private:
  struct Entry {
    void *host, *dev;
    int64_t bytes;
    bool out;
  };
  te_rt_context *ctx;
  const char *where;
  bool device = false;
  bool good = true;
  std::vector<Entry> entries;
};

/// The format dtype of a high-precision te_rt_dtype (F32, F16, BF16): the
/// same value (the enums are tied in Api.cpp).
std::optional<te::format::DType> denseType(int32_t t) {
  if (t != TE_RT_F32 && t != TE_RT_F16 && t != TE_RT_BF16)
    return std::nullopt;
  return static_cast<te::format::DType>(t);
}

/// Bytes of an element of a high-precision te_rt_dtype; 1 for any other
/// value, which the te_rt_* call it is passed to refuses.
int64_t dtypeBytes(int32_t dtype) {
  std::optional<te::format::DType> t = denseType(dtype);
  return t ? te::format::dtypeBytes(*t) : 1;
}

te_rt_tensor makeTensor(void *data, int32_t dtype, int64_t rows, int64_t cols) {
  te_rt_tensor t;
  std::memset(&t, 0, sizeof(t));
  t.data = data;
  t.dtype = static_cast<te_rt_dtype>(dtype);
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  return t;
}

/// Builds a te_rt_qtensor of quantizer `cfg` and logical shape [rows, cols]
/// from its buffers, staging them. `in`/`out`: whether the call reads or
/// writes the buffers.
bool makeQTensor(Stager &st, const char *where, const te_rt_quantizer &cfg,
                 int32_t usage, int32_t target, int64_t rows, int64_t cols,
                 void *const bufs[TE_RT_ABI_MAX_BUFFERS], bool in, bool out,
                 te_rt_qtensor &q) {
  int64_t shape[2] = {rows, cols};
  if (!st.check(te_rt_qtensor_init(&q, &cfg, 2, shape,
                                   static_cast<te_rt_usage>(usage),
                                   static_cast<te_rt_target>(target))))
    return false;
  if (q.num_buffers > TE_RT_ABI_MAX_BUFFERS) {
    record(TE_RT_INTERNAL, where, "more buffers than the ABI passes");
    return false;
  }
  for (int i = 0; i < q.num_buffers; ++i) {
    if (!bufs[i]) {
      record(TE_RT_INVALID_ARGUMENT, where,
             ("buffer " + std::to_string(i) + " is null").c_str());
      return false;
    }
    q.buffers[i].data = st.stage(bufs[i], q.buffers[i].size_bytes, in, out);
  }
  return st.ok();
}

//===----------------------------------------------------------------------===//
// The entry points
//===----------------------------------------------------------------------===//

// One argument struct per entry point, with the table's field names, so that
// implementations read `a.rows` and the exported signatures are generated.
#define TE_RT_ABI_ARG(type, name) abi_##type name;
#define TE_RT_ABI_FUNCTION(ret, name, ...)                                     \
  struct name##_args {                                                         \
    __VA_ARGS__                                                                \
  };
#include "te_rt_abi.def"
#undef TE_RT_ABI_ARG

/// The communicator registered for `group` on this thread, matching the
/// context's backend; null (after recording why) otherwise.
te_rt_comm *groupComm(te_rt_context *ctx, const char *where,
                      const char *group) {
  te_rt_comm *comm = nullptr;
  if (te_rt_comm_lookup_group(group, &comm) != TE_RT_OK) {
    record(TE_RT_INVALID_ARGUMENT, where, te_rt_last_error());
    return nullptr;
  }
  te_rt_comm_kind kind = TE_RT_COMM_CPU;
  te_rt_backend backend = TE_RT_BACKEND_CPU;
  te_rt_comm_info(comm, &kind, nullptr, nullptr);
  te_rt_context_get_backend(ctx, &backend);
  if ((kind == TE_RT_COMM_CPU) != (backend == TE_RT_BACKEND_CPU)) {
    record(TE_RT_INVALID_ARGUMENT, where,
           (std::string("process group '") + group + "' has " +
            (kind == TE_RT_COMM_CPU ? "a CPU-group" : "an NCCL") +
            " communicator, which needs a " +
            (kind == TE_RT_COMM_CPU ? "cpu" : "cuda") + " context")
               .c_str());
    return nullptr;
  }
  return comm;
}

/// te_rt_mlir_quantize and te_rt_mlir_quantize_group (comm non-null: with
/// amax reduction).
void quantize(const void *desc, te_rt_context *ctx, te_rt_comm *comm,
              const char *where) {
  te_rt_abi::quantize::Fields a;
  if (!readDescriptor(desc, a, where))
    return;
  Stager st(ctx, where);
  te_rt_qtensor q;
  if (!makeQTensor(st, where, a.quantizer, a.usage, a.target, a.rows, a.cols,
                   a.bufs, /*in=*/false, /*out=*/true, q))
    return;
  te_rt_tensor x = makeTensor(
      st.stage(a.x, a.rows * a.cols * dtypeBytes(a.x_dtype), true, false),
      a.x_dtype, a.rows, a.cols);
  te_rt_quantize_args qa;
  te_rt_quantize_args_init(&qa);
  qa.scale = static_cast<const float *>(st.stage(a.scale, 4, true, false));
  qa.amax = static_cast<float *>(st.stage(a.amax, 4, false, true));
  qa.seed = static_cast<uint64_t>(a.seed);
  qa.offset = static_cast<uint64_t>(a.offset);
  if (!st.ok() || !st.check(comm ? te_rt_comm_quantize(ctx, comm, &x, &q, &qa)
                                 : te_rt_quantize(ctx, &x, &q, &qa)))
    return;
  st.finish();
}

/// te_rt_mlir_quantize_produced: the quantize descriptor `desc` (x null)
/// from the value of the producer descriptor `pdesc`.
void quantizeProduced(const void *desc, const void *pdesc, te_rt_context *ctx,
                      const char *where) {
  te_rt_abi::quantize::Fields a;
  te_rt_abi::producer::Fields pf;
  if (!readDescriptor(desc, a, where) || !readDescriptor(pdesc, pf, where))
    return;
  static_assert(te::rt::Producer::kMaxInputs == TE_RT_ABI_PRODUCER_MAX_INPUTS &&
                te::rt::Producer::kMaxInstrs == TE_RT_ABI_PRODUCER_MAX_INSTRS);
  if (a.x) {
    record(TE_RT_INVALID_ARGUMENT, where,
           "x is not null (the producer program gives the value)");
    return;
  }
  if (pf.num_instrs < 1 || pf.num_instrs > TE_RT_ABI_PRODUCER_MAX_INSTRS) {
    record(TE_RT_INVALID_ARGUMENT, where,
           ("producer: num_instrs is " + std::to_string(pf.num_instrs) +
            " (1 to " + std::to_string(TE_RT_ABI_PRODUCER_MAX_INSTRS) + ")")
               .c_str());
    return;
  }
  if (pf.num_inputs < 0 || pf.num_inputs > TE_RT_ABI_PRODUCER_MAX_INPUTS) {
    record(TE_RT_INVALID_ARGUMENT, where,
           ("producer: num_inputs is " + std::to_string(pf.num_inputs) +
            " (0 to " + std::to_string(TE_RT_ABI_PRODUCER_MAX_INPUTS) + ")")
               .c_str());
    return;
  }
  if (!pf.code) {
    record(TE_RT_INVALID_ARGUMENT, where, "producer: code is null");
    return;
  }
  te::rt::Producer p;
  p.numInputs = pf.num_inputs;
  p.numInstrs = pf.num_instrs;
  const auto *words = static_cast<const int32_t *>(pf.code);
  for (int k = 0; k < p.numInstrs; ++k) {
    te::rt::ProducerInstr &in = p.code[k];
    in.op = words[5 * k];
    in.type = words[5 * k + 1];
    in.a = words[5 * k + 2];
    in.b = words[5 * k + 3];
    in.c = words[5 * k + 4];
  }
  Stager st(ctx, where);
  te_rt_qtensor q;
  if (!makeQTensor(st, where, a.quantizer, a.usage, a.target, a.rows, a.cols,
                   a.bufs, /*in=*/false, /*out=*/true, q))
    return;
  const bool empty = a.rows <= 0 || a.cols <= 0;
  for (int i = 0; i < p.numInputs; ++i) {
    p.inputTypes[i] = pf.input_dtypes[i];
    p.rowStrides[i] = pf.input_row_strides[i];
    p.colStrides[i] = pf.input_col_strides[i];
    const int64_t rs = p.rowStrides[i], cs = p.colStrides[i];
    const int64_t bytes =
        pf.input_dtypes[i] == TE_RT_U8 ? 1 : dtypeBytes(pf.input_dtypes[i]);
    // Staged only when the strides are sane; quantizeProduced refuses the
    // others before reading.
    const bool sane = !empty && rs >= 0 && cs >= 0 &&
                      rs <= (int64_t(1) << 40) && cs <= (int64_t(1) << 40) &&
                      a.rows <= (int64_t(1) << 40) &&
                      a.cols <= (int64_t(1) << 40);
    p.inputs[i] =
        sane ? st.stage(pf.inputs[i],
                        ((a.rows - 1) * rs + (a.cols - 1) * cs + 1) * bytes,
                        true, false)
             : pf.inputs[i];
  }
  p.valueOut = st.stage(pf.value_out, a.rows * a.cols * dtypeBytes(a.x_dtype),
                        false, true);
  p.colsum = static_cast<float *>(
      st.stage(pf.colsum, a.cols * 4, pf.colsum_accumulate != 0, true));
  p.colsumAccumulate = pf.colsum_accumulate != 0;
  te_rt_quantize_args qa;
  te_rt_quantize_args_init(&qa);
  qa.scale = static_cast<const float *>(st.stage(a.scale, 4, true, false));
  qa.amax = static_cast<float *>(st.stage(a.amax, 4, false, true));
  qa.seed = static_cast<uint64_t>(a.seed);
  qa.offset = static_cast<uint64_t>(a.offset);
  if (!st.ok() ||
      !st.check(te::rt::quantizeProduced(ctx, a.x_dtype, &q, &qa, p)))
    return;
  st.finish();
}

void te_rt_mlir_quantize_produced_impl(
    const te_rt_mlir_quantize_produced_args &a) {
  const char *where = "te.quantize";
  if (te_rt_context *ctx = activeContext(where))
    quantizeProduced(a.desc, a.producer, ctx, where);
}

void te_rt_mlir_quantize_impl(const te_rt_mlir_quantize_args &a) {
  const char *where = "te.quantize";
  if (te_rt_context *ctx = activeContext(where))
    quantize(a.desc, ctx, nullptr, where);
}

void te_rt_mlir_quantize_group_impl(const te_rt_mlir_quantize_group_args &a) {
  const char *where = "te.quantize";
  te_rt_context *ctx = activeContext(where);
  if (!ctx)
    return;
  if (te_rt_comm *comm =
          groupComm(ctx, where, static_cast<const char *>(a.group)))
    quantize(a.desc, ctx, comm, where);
}

void te_rt_mlir_dequantize_impl(const te_rt_mlir_dequantize_args &args) {
  const char *where = "te.dequantize";
  te_rt_context *ctx = activeContext(where);
  te_rt_abi::dequantize::Fields a;
  if (!ctx || !readDescriptor(args.desc, a, where))
    return;
  Stager st(ctx, where);
  te_rt_qtensor q;
  if (!makeQTensor(st, where, a.quantizer, a.usage, a.target, a.rows, a.cols,
                   a.bufs, /*in=*/true, /*out=*/false, q))
    return;
  te_rt_tensor out = makeTensor(
      st.stage(a.out, a.rows * a.cols * dtypeBytes(a.out_dtype), false, true),
      a.out_dtype, a.rows, a.cols);
  te_rt_usage from =
      (a.usage & TE_RT_ROWWISE) ? TE_RT_ROWWISE : TE_RT_COLUMNWISE;
  if (!st.ok() || !st.check(te_rt_dequantize(ctx, &q, from, &out)))
    return;
  st.finish();
}

void te_rt_mlir_gemm_impl(const te_rt_mlir_gemm_args &args) {
  const char *where = "te.gemm";
  te_rt_context *ctx = activeContext(where);
  te_rt_abi::gemm::Fields a;
  if (!ctx || !readDescriptor(args.desc, a, where))
    return;
  Stager st(ctx, where);
  te_rt_qtensor qa, qb, qout;
  if (!makeQTensor(st, where, a.a_quantizer, a.a_usage, a.target, a.a_rows,
                   a.a_cols, a.a_bufs, true, false, qa) ||
      !makeQTensor(st, where, a.b_quantizer, a.b_usage, a.target, a.b_rows,
                   a.b_cols, a.b_bufs, true, false, qb))
    return;
  te_rt_gemm_args ga;
  te_rt_gemm_args_init(&ga);
  ga.layout = static_cast<te_rt_gemm_layout>(a.layout);
  ga.accumulate = a.accumulate;
  ga.use_split_accumulator = a.use_split_accumulator;
  te_rt_tensor d, bias;
  te_rt_tensor *dp = nullptr;
  if (a.d) {
    d = makeTensor(st.stage(a.d, a.d_rows * a.d_cols * dtypeBytes(a.d_dtype),
                            a.accumulate != 0, true),
                   a.d_dtype, a.d_rows, a.d_cols);
    dp = &d;
  }
  if (a.bias) {
    bias = makeTensor(
        st.stage(a.bias, a.d_cols * dtypeBytes(a.bias_dtype), true, false),
        a.bias_dtype, a.d_cols, 1);
    bias.rank = 1;
    ga.bias = &bias;
  }
  te_rt_quantize_args oa;
  te_rt_quantize_args_init(&oa);
  if (a.out_quantized) {
    if (!makeQTensor(st, where, a.out_quantizer, TE_RT_ROWWISE, a.target,
                     a.d_rows, a.d_cols, a.out_bufs, false, true, qout))
      return;
    oa.scale =
        static_cast<const float *>(st.stage(a.out_scale, 4, true, false));
    oa.amax = static_cast<float *>(st.stage(a.out_amax, 4, false, true));
    ga.output = &qout;
    ga.output_args = &oa;
  }
  // The emulated operands are rows x cols bf16 (te_rt_mlir_gemm_operand).
  const void *aEmulated =
      a.a_emulated
          ? st.stage(a.a_emulated, a.a_rows * a.a_cols * 2, true, false)
          : nullptr;
  const void *bEmulated =
      a.b_emulated
          ? st.stage(a.b_emulated, a.b_rows * a.b_cols * 2, true, false)
          : nullptr;
  if (!st.ok() || !st.check(te::rt::gemmWithEmulatedOperands(
                      ctx, &qa, &qb, dp, &ga, aEmulated, bEmulated)))
    return;
  st.finish();
}

void te_rt_mlir_gemm_operand_impl(const te_rt_mlir_gemm_operand_args &args) {
  const char *where = "te.emulated_operand_buffers";
  te_rt_context *ctx = activeContext(where);
  te_rt_abi::gemm_operand::Fields a;
  if (!ctx || !readDescriptor(args.desc, a, where))
    return;
  Stager st(ctx, where);
  te_rt_qtensor q;
  if (!makeQTensor(st, where, a.quantizer, a.usage, a.target, a.rows, a.cols,
                   a.bufs, /*in=*/true, /*out=*/false, q))
    return;
  void *out = st.stage(a.out, a.rows * a.cols * 2, false, true);
  if (!st.ok() || !st.check(te::rt::gemmEmulatedOperand(
                      ctx, &q, static_cast<te_rt_usage>(a.reads), out)))
    return;
  st.finish();
}

void te_rt_mlir_matmul_impl(const te_rt_mlir_matmul_args &a) {
  const char *where = "te_rt_mlir_matmul";
  te_rt_context *ctx = activeContext(where);
  if (!ctx)
    return;
  auto fail = [&](const std::string &msg) {
    record(TE_RT_INVALID_ARGUMENT, where, msg.c_str());
  };
  if (a.batch < 0 || a.m < 0 || a.n < 0 || a.k < 0)
    return fail("negative size: batch " + std::to_string(a.batch) + ", M " +
                std::to_string(a.m) + ", N " + std::to_string(a.n) + ", K " +
                std::to_string(a.k));
  std::optional<te::format::DType> at = denseType(a.a_dtype),
                                   bt = denseType(a.b_dtype),
                                   ct = denseType(a.c_dtype);
  if (!at || !bt || !ct || a.a_dtype != a.b_dtype)
    return fail("operand types " + std::to_string(a.a_dtype) + ", " +
                std::to_string(a.b_dtype) + ", " + std::to_string(a.c_dtype) +
                ": A and B need one of F32, F16, BF16, C that type or F32");
  if (a.c_dtype != TE_RT_F32 && a.c_dtype != a.a_dtype)
    return fail("C's type must be F32 or A's");
  if ((a.trans_a != 0 && a.trans_a != 1) || (a.trans_b != 0 && a.trans_b != 1))
    return fail("trans_a and trans_b must be 0 or 1");
  if (a.accumulate != 0 && a.accumulate != 1)
    return fail("accumulate must be 0 or 1, got " +
                std::to_string(a.accumulate));
  // Stored shapes: A [M, K] or [K, M]; B [K, N] or [N, K]; C [M, N].
  const int64_t aRows = a.trans_a ? a.k : a.m, aCols = a.trans_a ? a.m : a.k;
  const int64_t bRows = a.trans_b ? a.n : a.k, bCols = a.trans_b ? a.k : a.n;
  struct Operand {
    const char *name;
    void *p;
    int64_t rows, cols, ld, batchStride, elem;
  } ops[3] = {{"A", a.a_data, aRows, aCols, a.lda, a.batch_stride_a,
               dtypeBytes(a.a_dtype)},
              {"B", a.b_data, bRows, bCols, a.ldb, a.batch_stride_b,
               dtypeBytes(a.b_dtype)},
              {"C", a.c_data, a.m, a.n, a.ldc, a.batch_stride_c,
               dtypeBytes(a.c_dtype)}};
  const bool empty = a.batch == 0 || a.m == 0 || a.n == 0;
  int64_t span[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    Operand &o = ops[i];
    // A one-row operand's row stride is never used (a size-1 dimension of
    // a memref may have any stride).
    if (o.rows <= 1)
      o.ld = std::max<int64_t>({o.ld, o.cols, 1});
    if (o.ld < std::max<int64_t>(o.cols, 1) || o.batchStride < 0)
      return fail(std::string(o.name) + "'s row stride " +
                  std::to_string(o.ld) + " is below its row length " +
                  std::to_string(o.cols) + ", or its batch stride " +
                  std::to_string(o.batchStride) + " is negative");
    if (empty || o.rows == 0 || o.cols == 0)
      continue;
    if (!o.p)
      return fail(std::string(o.name) + " is null");
    // Elements spanned: (batch - 1) * batchStride + (rows - 1) * ld + cols.
    int64_t e = 0, t = 0;
    if (__builtin_mul_overflow(a.batch - 1, o.batchStride, &e) ||
        __builtin_mul_overflow(o.rows - 1, o.ld, &t) ||
        __builtin_add_overflow(e, t, &e) ||
        __builtin_add_overflow(e, o.cols, &e) ||
        __builtin_mul_overflow(e, o.elem, &span[i]))
      return fail(std::string(o.name) + "'s extent overflows");
  }
  if (!empty) {
    // C's elements b * batch_stride_c + i * ldc + j must be distinct: with
    // the size > 1 dimensions ordered by stride, each stride at least the
    // extent of the ones before it (the batches may interleave with C's
    // rows, as the heads of a [B, S, H, D] output do).
    std::pair<int64_t, int64_t> dims[3] = {
        {a.batch_stride_c, a.batch}, {ops[2].ld, a.m}, {1, a.n}};
    std::sort(std::begin(dims), std::end(dims));
    int64_t extent = 1;
    for (auto [stride, size] : dims) {
      if (size <= 1)
        continue;
      if (stride < extent)
        return fail("the products of the batch overlap in C: batch stride " +
                    std::to_string(a.batch_stride_c) + ", row stride " +
                    std::to_string(ops[2].ld) + ", M " + std::to_string(a.m) +
                    ", N " + std::to_string(a.n));
      extent += (size - 1) * stride; // within C's span (checked above)
    }
  }
  // K = 0 adds nothing; without accumulate it still writes C = 0.
  if (empty || (a.k == 0 && a.accumulate != 0))
    return;
  Stager st(ctx, where);
  te::rt::DenseMatmul mm;
  mm.batch = a.batch;
  mm.m = a.m;
  mm.n = a.n;
  mm.k = a.k;
  mm.a = st.stage(a.a_data, span[0], true, false);
  mm.b = st.stage(a.b_data, span[1], true, false);
  // C is copied in when it is read, and when its span has gaps (a row or
  // batch stride wider than the data) that copying it back must keep.
  const bool cDense = (a.m <= 1 || ops[2].ld == a.n) &&
                      (a.batch <= 1 || a.batch_stride_c == a.m * ops[2].ld);
  mm.c = st.stage(a.c_data, span[2], a.accumulate != 0 || !cDense, true);
  if (!st.ok())
    return;
  mm.aType = *at;
  mm.bType = *bt;
  mm.cType = *ct;
  mm.transA = a.trans_a != 0;
  mm.transB = a.trans_b != 0;
  mm.lda = ops[0].ld;
  mm.ldb = ops[1].ld;
  mm.ldc = ops[2].ld;
  mm.batchStrideA = a.batch_stride_a;
  mm.batchStrideB = a.batch_stride_b;
  mm.batchStrideC = a.batch_stride_c;
  mm.accumulate = a.accumulate != 0;
  mm.stream = te::rt::mlir::contextStream(ctx);
  if (!st.check(te::rt::contextBackend(ctx)->matmul(mm)))
    return;
  st.finish();
}

/// Stores the int compiled code passed into a C enum field (the C API reads
/// it back as an int and checks its range: AttentionArgs.h).
template <typename E> void setEnum(E &e, int32_t v) {
  static_assert(sizeof(E) == sizeof(int32_t), "C enums are int-sized");
  std::memcpy(&e, &v, sizeof(v));
}

te_rt_attention_operand attentionOperand(void *data, const int64_t shape[4],
                                         const int64_t strides[4]) {
  te_rt_attention_operand o;
  o.data = data;
  std::memcpy(o.shape, shape, sizeof(o.shape));
  std::memcpy(o.strides, strides, sizeof(o.strides));
  return o;
}

/// The forward's arguments of an attention descriptor (attention or
/// attention_grad: the same field names).
template <typename Fields>
te_rt_attention_args attentionArgs(const Fields &a, void *lse) {
  te_rt_attention_args f;
  std::memset(&f, 0, sizeof(f));
  setEnum(f.dtype, a.dtype);
  f.q = attentionOperand(a.q, a.q_shape, a.q_strides);
  f.k = attentionOperand(a.k, a.k_shape, a.k_strides);
  f.v = attentionOperand(a.v, a.v_shape, a.v_strides);
  f.o = attentionOperand(a.o, a.o_shape, a.o_strides);
  f.lse = static_cast<float *>(lse);
  const uint32_t bits = static_cast<uint32_t>(a.scale_bits);
  std::memcpy(&f.scale, &bits, sizeof(f.scale));
  f.causal = a.causal;
  setEnum(f.mask_kind, a.mask_kind);
  setEnum(f.mask_dtype, a.mask_dtype);
  f.mask = attentionOperand(a.mask, a.mask_shape, a.mask_strides);
  return f;
}

/// Whether an operand's span holds its elements alone (no gaps that
/// staging an output without copying it in first would overwrite).
bool attentionDense(const te_rt_attention_operand &o, int64_t span,
                    int64_t elementBytes) {
  int64_t n = elementBytes;
  for (int64_t d : o.shape)
    n *= d;
  return span == n;
}

/// Stages operand `o` (`span` bytes, AttentionSpans) and points it at the
/// staged copy. An output is copied in first unless it is dense
/// (`elementBytes` matters for outputs only).
void stageAttention(Stager &st, te_rt_attention_operand &o, int64_t span,
                    int64_t elementBytes, bool out) {
  if (span > 0)
    o.data = st.stage(o.data, span,
                      !out || !attentionDense(o, span, elementBytes), out);
}

void te_rt_mlir_attention_impl(const te_rt_mlir_attention_args &args) {
  const char *where = "te.attention";
  te_rt_context *ctx = activeContext(where);
  te_rt_abi::attention::Fields a;
  if (!ctx || !readDescriptor(args.desc, a, where))
    return;
  te_rt_attention_args f = attentionArgs(a, a.lse);
  te::rt::Attention decoded;
  te::rt::AttentionSpans sp;
  // Checked on the caller's pointers (messages, spans), then staged.
  if (te_rt_status s = te::rt::decodeAttention(&f, decoded, sp)) {
    record(s, where, te_rt_last_error());
    return;
  }
  const int64_t eb = dtypeBytes(a.dtype);
  Stager st(ctx, where);
  stageAttention(st, f.q, sp.q, eb, false);
  stageAttention(st, f.k, sp.k, eb, false);
  stageAttention(st, f.v, sp.v, eb, false);
  stageAttention(st, f.o, sp.o, eb, true);
  stageAttention(st, f.mask, sp.mask, 1, false);
  if (sp.lse > 0)
    f.lse = static_cast<float *>(st.stage(f.lse, sp.lse, false, true));
  if (!st.ok() || !st.check(te_rt_attention(ctx, &f)))
    return;
  st.finish();
}

void te_rt_mlir_attention_grad_impl(
    const te_rt_mlir_attention_grad_args &args) {
  const char *where = "te.attention_grad";
  te_rt_context *ctx = activeContext(where);
  te_rt_abi::attention_grad::Fields a;
  if (!ctx || !readDescriptor(args.desc, a, where))
    return;
  te_rt_attention_grad_args g;
  std::memset(&g, 0, sizeof(g));
  g.forward = attentionArgs(a, a.lse);
  // dout has o's shape, dq, dk, dv those of q, k, v; the descriptor passes
  // their strides.
  g.dout = attentionOperand(a.dout, a.o_shape, a.dout_strides);
  g.dq = attentionOperand(a.dq, a.q_shape, a.dq_strides);
  g.dk = attentionOperand(a.dk, a.k_shape, a.dk_strides);
  g.dv = attentionOperand(a.dv, a.v_shape, a.dv_strides);
  te::rt::AttentionGrad decoded;
  te::rt::AttentionSpans sp;
  if (te_rt_status s = te::rt::decodeAttentionGrad(&g, decoded, sp)) {
    record(s, where, te_rt_last_error());
    return;
  }
  const int64_t eb = dtypeBytes(a.dtype);
  Stager st(ctx, where);
  te_rt_attention_args &f = g.forward;
  stageAttention(st, f.q, sp.q, eb, false);
  stageAttention(st, f.k, sp.k, eb, false);
  stageAttention(st, f.v, sp.v, eb, false);
  stageAttention(st, f.o, sp.o, eb, false);
  stageAttention(st, g.dout, sp.dout, eb, false);
  stageAttention(st, g.dq, sp.dq, eb, true);
  stageAttention(st, g.dk, sp.dk, eb, true);
  stageAttention(st, g.dv, sp.dv, eb, true);
  stageAttention(st, f.mask, sp.mask, 1, false);
  if (sp.lse > 0)
    f.lse = static_cast<float *>(st.stage(f.lse, sp.lse, true, false));
  if (!st.ok() || !st.check(te_rt_attention_grad(ctx, &g)))
    return;
  st.finish();
}

void te_rt_mlir_amax_impl(const te_rt_mlir_amax_args &a) {
  const char *where = "te.amax";
  te_rt_context *ctx = activeContext(where);
  if (!ctx)
    return;
  Stager st(ctx, where);
  te_rt_tensor x =
      makeTensor(st.stage(a.x, a.numel * dtypeBytes(a.x_dtype), true, false),
                 a.x_dtype, a.numel, 1);
  x.rank = 1;
  float *amax = static_cast<float *>(st.stage(a.amax, 4, false, true));
  if (!st.ok() || !st.check(te_rt_amax(ctx, &x, amax)))
    return;
  st.finish();
}

void te_rt_mlir_update_scale_impl(const te_rt_mlir_update_scale_args &a) {
  const char *where = "te.update_scale";
  te_rt_context *ctx = activeContext(where);
  if (!ctx)
    return;
  te_rt_quantizer q;
  if (!decodeQuantizer(a.quantizer, q, where))
    return;
  if (!a.amax || !a.history || !a.scale || a.history_length < 1) {
    record(TE_RT_INVALID_ARGUMENT, where,
           "amax, history or scale is null, or the history is empty");
    return;
  }
  // TE's amax_history[0] holds the step's amax when the update runs.
  if (!deviceMemory(ctx)) {
    std::memcpy(a.history, a.amax, sizeof(float));
  } else if (te_rt_status s =
                 te_rt_memcpy(ctx, a.history, a.amax, sizeof(float),
                              TE_RT_DEVICE_TO_DEVICE)) {
    record(s, where, te_rt_last_error());
    return;
  }
  Stager st(ctx, where);
  float *history = static_cast<float *>(
      st.stage(a.history, a.history_length * 4, true, true));
  float *scale = static_cast<float *>(st.stage(a.scale, 4, true, true));
  if (!st.ok() || !st.check(te_rt_update_scale(ctx, &q, history, scale,
                                               a.history_length, 1)))
    return;
  st.finish();
}

void te_rt_mlir_allreduce_max_impl(const te_rt_mlir_allreduce_max_args &a) {
  const char *where = "te.allreduce_max";
  te_rt_context *ctx = activeContext(where);
  if (!ctx)
    return;
  te_rt_comm *comm = groupComm(ctx, where, static_cast<const char *>(a.group));
  if (!comm)
    return;
  Stager st(ctx, where);
  float *buf = static_cast<float *>(st.stage(a.buf, a.n * 4, true, true));
  if (!st.ok() || !st.check(te_rt_allreduce_max(comm, buf, a.n, nullptr)))
    return;
  st.finish();
}

//===----------------------------------------------------------------------===//
// Run-time checks of compiled code
//===----------------------------------------------------------------------===//

void te_rt_mlir_check_failed_impl(const te_rt_mlir_check_failed_args &a) {
  const char *message =
      a.message ? static_cast<const char *>(a.message) : "(no message)";
  switch (a.kind) {
  case 0:
  case 1:
  case 3:
    record(TE_RT_INVALID_ARGUMENT, "shape check",
           (std::string(message) + " is " + std::to_string(a.size) +
            ", expected " +
            (a.kind == 1   ? "at least "
             : a.kind == 3 ? "at most "
                           : "") +
            std::to_string(a.expected))
               .c_str());
    return;
  case 2:
    record(TE_RT_INVALID_ARGUMENT, "cf.assert", message);
    return;
  default:
    record(TE_RT_INVALID_ARGUMENT, "te_rt_mlir_check_failed",
           ("unknown kind " + std::to_string(a.kind) + " of check: " + message)
               .c_str());
  }
}

int32_t te_rt_mlir_status_impl(const te_rt_mlir_status_args &) {
  return state().status;
}

//===----------------------------------------------------------------------===//
// Context memory of compiled code
//===----------------------------------------------------------------------===//

constexpr int64_t kMinAlignment = 256;

bool checkSize(int64_t bytes, const char *where) {
  if (bytes >= 0)
    return true;
  record(TE_RT_INVALID_ARGUMENT, where,
         ("negative size " + std::to_string(bytes)).c_str());
  return false;
}

void *te_rt_mlir_alloc_impl(const te_rt_mlir_alloc_args &a) {
  const char *where = "te_rt_mlir_alloc";
  te_rt_context *ctx = activeContext(where);
  if (!ctx || !checkSize(a.bytes, where))
    return nullptr;
  if (a.alignment < 0 || (a.alignment & (a.alignment - 1)) != 0) {
    record(
        TE_RT_INVALID_ARGUMENT, where,
        ("alignment " + std::to_string(a.alignment) + " is not a power of two")
            .c_str());
    return nullptr;
  }
  const bool device = deviceMemory(ctx);
  if (a.bytes > std::numeric_limits<int64_t>::max() / 2) {
    record(TE_RT_OUT_OF_MEMORY, where,
           ("cannot allocate " + std::to_string(a.bytes) + " bytes of " +
            (device ? "device" : "host") + " memory: size too large")
               .c_str());
    return nullptr;
  }
  void *p = nullptr;
  if (device) {
    // te_rt_malloc: the pool's blocks are 256-byte aligned.
    if (a.alignment > kMinAlignment) {
      record(TE_RT_INVALID_ARGUMENT, where,
             ("alignment " + std::to_string(a.alignment) +
              " is larger than the 256 bytes of device memory")
                 .c_str());
      return nullptr;
    }
    if (te_rt_status s = te_rt_malloc(ctx, static_cast<size_t>(a.bytes), &p)) {
      record(s, where, te_rt_last_error());
      return nullptr;
    }
    return p;
  }
  const int64_t align =
      a.alignment > kMinAlignment ? a.alignment : kMinAlignment;
  const int64_t rounded =
      (std::max<int64_t>(a.bytes, 1) + align - 1) / align * align;
  p = std::aligned_alloc(static_cast<size_t>(align),
                         static_cast<size_t>(rounded));
  if (!p)
    record(TE_RT_OUT_OF_MEMORY, where,
           ("cannot allocate " + std::to_string(a.bytes) +
            " bytes of host memory: out of memory")
               .c_str());
  return p;
}

void te_rt_mlir_free_impl(const te_rt_mlir_free_args &a) {
  const char *where = "te_rt_mlir_free";
  if (!a.p)
    return;
  // Runs whatever the sticky status, so that a failed step leaks nothing.
  te_rt_context *ctx = state().ctx;
  if (!ctx) {
    record(TE_RT_INVALID_ARGUMENT, where,
           "no current context (call te_rt_set_current_context first)");
    return;
  }
  if (!deviceMemory(ctx)) {
    std::free(a.p);
    return;
  }
  if (te_rt_status s = te_rt_free(ctx, a.p))
    record(s, where, te_rt_last_error());
}

void te_rt_mlir_copy_impl(const te_rt_mlir_copy_args &a) {
  const char *where = "te_rt_mlir_copy";
  te_rt_context *ctx = activeContext(where);
  if (!ctx || !checkSize(a.bytes, where) || a.bytes == 0)
    return;
  if (!a.dst || !a.src) {
    record(TE_RT_INVALID_ARGUMENT, where, "dst or src is null");
    return;
  }
  if (!deviceMemory(ctx)) {
    std::memmove(a.dst, a.src, static_cast<size_t>(a.bytes));
    return;
  }
  if (te_rt_status s =
          te_rt_memcpy(ctx, a.dst, a.src, static_cast<size_t>(a.bytes),
                       TE_RT_DEVICE_TO_DEVICE))
    record(s, where, te_rt_last_error());
}

void te_rt_mlir_read_impl(const te_rt_mlir_read_args &a) {
  const char *where = "te_rt_mlir_read";
  te_rt_context *ctx = activeContext(where);
  if (!checkSize(a.bytes, where) || a.bytes == 0)
    return;
  // What the host reads when the program has failed: zeros, not garbage.
  auto zero = [&] {
    if (a.host_dst)
      std::memset(a.host_dst, 0, static_cast<size_t>(a.bytes));
  };
  if (!ctx)
    return zero();
  if (!a.host_dst || !a.src) {
    record(TE_RT_INVALID_ARGUMENT, where, "host_dst or src is null");
    return zero();
  }
  if (!deviceMemory(ctx)) {
    std::memmove(a.host_dst, a.src, static_cast<size_t>(a.bytes));
    return;
  }
  if (te_rt_status s =
          te_rt_memcpy(ctx, a.host_dst, a.src, static_cast<size_t>(a.bytes),
                       TE_RT_DEVICE_TO_HOST)) {
    record(s, where, te_rt_last_error());
    zero();
  }
}

void te_rt_mlir_write_impl(const te_rt_mlir_write_args &a) {
  const char *where = "te_rt_mlir_write";
  te_rt_context *ctx = activeContext(where);
  if (!ctx || !checkSize(a.bytes, where) || a.bytes == 0)
    return;
  if (!a.dst || !a.host_src) {
    record(TE_RT_INVALID_ARGUMENT, where, "dst or host_src is null");
    return;
  }
  if (!deviceMemory(ctx)) {
    std::memmove(a.dst, a.host_src, static_cast<size_t>(a.bytes));
    return;
  }
  te::rt::Backend *backend = te::rt::contextBackend(ctx);
  if (te_rt_status s = backend->writeFromHost(a.dst, a.host_src,
                                              static_cast<size_t>(a.bytes),
                                              te::rt::mlir::contextStream(ctx)))
    record(s, where, te_rt_last_error());
}

} // namespace

//===----------------------------------------------------------------------===//
// The thread state, for GpuHostAbi.cpp (MlirState.h)
//===----------------------------------------------------------------------===//

te_rt_context *te::rt::mlir::currentContext() { return state().ctx; }

bool te::rt::mlir::statusOk() { return state().status == TE_RT_OK; }

void te::rt::mlir::recordFailure(te_rt_status s, const std::string &where,
                                 const char *msg) {
  record(s, where, msg);
}

//===----------------------------------------------------------------------===//
// Exported symbols, with the signatures of the table
//===----------------------------------------------------------------------===//

extern "C" {

#define TE_RT_ABI_ARG TE_RT_ABI_SEQ
#define TE_RT_ABI_FUNCTION(ret, name, ...)                                     \
  abi_##ret name(TE_RT_ABI_SIG(__VA_ARGS__)) {                                 \
    name##_args a{TE_RT_ABI_NAMES(__VA_ARGS__)};                               \
    try {                                                                      \
      return name##_impl(a);                                                   \
    } catch (...) {                                                            \
      record(TE_RT_INTERNAL, #name, "internal error");                         \
    }                                                                          \
    return abi_##ret();                                                        \
  }
#include "te_rt_abi.def"

void te_rt_set_current_context(void *ctx) {
  ThreadState &t = state();
  t.ctx = static_cast<te_rt_context *>(ctx);
  t.status = TE_RT_OK;
  t.message.clear();
}

void *te_rt_get_current_context(void) { return state().ctx; }

int32_t te_rt_current_status(void) { return state().status; }

void *te_rt_current_error(void) {
  return const_cast<char *>(state().message.c_str());
}

// The allocation functions of MLIR's memref lowering with
// use-generic-functions (te-pipeline on GPU targets): every memref a
// compiled program allocates is context memory (te_rt_mlir_alloc), freed
// with te_rt_mlir_free.
void *_mlir_memref_to_llvm_alloc(size_t size) {
  return te_rt_mlir_alloc(static_cast<int64_t>(size), 0);
}

void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  return te_rt_mlir_alloc(static_cast<int64_t>(size),
                          static_cast<int64_t>(alignment));
}

void _mlir_memref_to_llvm_free(void *ptr) { te_rt_mlir_free(ptr); }

} // extern "C"
