//===- harness.cpp - Fused producer quantizations for bench_fusion.py -----===//
//
// Part of te. A small shared library over libte_rt's public ABI for
// bench_fusion.py: a cuda context made current on the calling thread, a
// quantized tensor of one of the benchmarked recipes, and the two ways of
// filling it: te_rt_mlir_quantize_produced (the producer program fused into
// the quantize) and te_rt_quantize of a bf16 tensor (unfused). Every pointer
// is device memory (PyTorch's tensors); the calls are queued on the legacy
// default stream, PyTorch's default stream.
//
// Built by bench/fusion/run.sh against the runtime build's libte_rt.so.
//
//===----------------------------------------------------------------------===//

#include "te_rt_abi.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

te_rt_context *ctx = nullptr;
std::string lastError;

struct Case {
  te_rt_quantizer q;
  te_rt_target target = TE_RT_SM90;
  te_rt_qtensor t;
  int64_t rows = 0, cols = 0;
  float amax = 0.0f;
};

int failWith(te_rt_status s, const char *what) {
  lastError = std::string(what) + ": " + te_rt_last_error();
  return static_cast<int>(s);
}

} // namespace

extern "C" {

const char *fb_error(void) { return lastError.c_str(); }

/// Creates the cuda context (the cpu one if FB_BACKEND=cpu: for checking
/// the harness without a GPU) and makes it current; 0 on success.
int fb_init(void) {
  if (ctx)
    return 0;
  const char *b = std::getenv("FB_BACKEND");
  const bool cpu = b && std::strcmp(b, "cpu") == 0;
  te_rt_status s =
      te_rt_context_create(cpu ? TE_RT_BACKEND_CPU : TE_RT_BACKEND_CUDA, &ctx);
  if (s != TE_RT_OK)
    return failWith(s, "te_rt_context_create");
  te_rt_set_current_context(ctx);
  return 0;
}

/// A rows x cols quantized tensor (rowwise and columnwise) of recipe 0
/// (current scaling, E4M3), 1 (Float8Block 1x128), 2 (MXFP8), 3 (delayed
/// scaling, E4M3); null on failure (fb_error).
void *fb_case_create(int recipe, int64_t rows, int64_t cols) {
  auto *c = new Case;
  te_rt_quantizer_init_default(&c->q);
  switch (recipe) {
  case 0:
    c->q.recipe = TE_RT_RECIPE_CURRENT;
    break;
  case 1:
    c->q.recipe = TE_RT_RECIPE_BLOCK;
    c->q.block_dim = 1;
    break;
  case 2:
    c->q.recipe = TE_RT_RECIPE_MXFP8;
    c->target = TE_RT_SM100; // the MXFP8 layout; the kernels run on sm_90
    break;
  default:
    c->q.recipe = TE_RT_RECIPE_DELAYED;
    break;
  }
  c->q.dtype = TE_RT_E4M3;
  c->rows = rows;
  c->cols = cols;
  int64_t shape[2] = {rows, cols};
  te_rt_status s = te_rt_qtensor_alloc(ctx, &c->t, &c->q, 2, shape,
                                       TE_RT_ROWWISE_AND_COLUMNWISE, c->target);
  if (s != TE_RT_OK) {
    failWith(s, "te_rt_qtensor_alloc");
    delete c;
    return nullptr;
  }
  return c;
}

void fb_case_destroy(void *h) {
  auto *c = static_cast<Case *>(h);
  if (!c)
    return;
  te_rt_qtensor_free(ctx, &c->t);
  delete c;
}

/// Bytes the quantized tensor's buffers hold.
int64_t fb_case_bytes(void *h) {
  auto *c = static_cast<Case *>(h);
  int64_t n = 0;
  for (int i = 0; i < c->t.num_buffers; ++i)
    n += c->t.buffers[i].size_bytes;
  return n;
}

/// The producer program (num_instrs instructions of 5 i32 words, inputs of
/// te_rt_dtype dtypes with element strides) fused into the quantize; the
/// value rounded to bf16. `scale`: delayed scaling's scale (device f32).
int fb_fused(void *h, int num_inputs, void *const *inputs,
             const int32_t *dtypes, const int64_t *row_strides,
             const int64_t *col_strides, int num_instrs, const int32_t *code,
             void *value_out, void *scale) {
  auto *c = static_cast<Case *>(h);
  te_rt_abi::quantize::Fields d;
  std::memset(&d, 0, sizeof(d));
  d.target = c->target;
  d.quantizer = c->q;
  d.usage = TE_RT_ROWWISE_AND_COLUMNWISE;
  d.rows = c->rows;
  d.cols = c->cols;
  for (int i = 0; i < c->t.num_buffers; ++i)
    d.bufs[i] = c->t.buffers[i].data;
  d.x_dtype = TE_RT_BF16;
  d.scale = c->q.recipe == TE_RT_RECIPE_DELAYED ? scale : nullptr;
  te_rt_abi::producer::Fields p;
  std::memset(&p, 0, sizeof(p));
  p.num_inputs = num_inputs;
  for (int i = 0; i < num_inputs; ++i) {
    p.inputs[i] = inputs[i];
    p.input_dtypes[i] = dtypes[i];
    p.input_row_strides[i] = row_strides[i];
    p.input_col_strides[i] = col_strides[i];
  }
  p.num_instrs = num_instrs;
  p.code = const_cast<int32_t *>(code);
  p.value_out = value_out;
  int64_t dw[te_rt_abi::quantize::kWords], pw[te_rt_abi::producer::kWords];
  te_rt_abi::encode(d, dw);
  te_rt_abi::encode(p, pw);
  te_rt_mlir_quantize_produced(dw, pw);
  if (int s = te_rt_mlir_status()) {
    lastError = static_cast<const char *>(te_rt_current_error());
    return s;
  }
  return 0;
}

/// te_rt_quantize of x (rows x cols bf16, device memory).
int fb_unfused(void *h, void *x, void *scale) {
  auto *c = static_cast<Case *>(h);
  te_rt_tensor t;
  te_rt_tensor_init(&t);
  t.data = x;
  t.dtype = TE_RT_BF16;
  t.rank = 2;
  t.shape[0] = c->rows;
  t.shape[1] = c->cols;
  te_rt_quantize_args a;
  te_rt_quantize_args_init(&a);
  if (c->q.recipe == TE_RT_RECIPE_DELAYED)
    a.scale = static_cast<const float *>(scale);
  te_rt_status s = te_rt_quantize(ctx, &t, &c->t, &a);
  return s == TE_RT_OK ? 0 : failWith(s, "te_rt_quantize");
}

/// Copies buffer i of the quantized tensor to host memory `out` (its
/// size_bytes); for checking the fused result against the unfused one.
int fb_case_read(void *h, int i, void *out) {
  auto *c = static_cast<Case *>(h);
  if (i < 0 || i >= c->t.num_buffers)
    return -1;
  te_rt_synchronize(ctx, nullptr);
  return te_rt_memcpy(ctx, out, c->t.buffers[i].data,
                      static_cast<size_t>(c->t.buffers[i].size_bytes),
                      TE_RT_DEVICE_TO_HOST);
}

int fb_case_num_buffers(void *h) {
  return static_cast<Case *>(h)->t.num_buffers;
}
int64_t fb_case_buffer_bytes(void *h, int i) {
  return static_cast<Case *>(h)->t.buffers[i].size_bytes;
}

} // extern "C"
