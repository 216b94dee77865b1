//===- RuntimeQuantizeFuzzer.cpp - libFuzzer target: libte_rt C ABI -------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Input bytes decide a quantizer (mostly valid configurations of every recipe,
// sometimes a raw field), a shape (small, or hostile: negative, huge,
// overflowing), a usage, a target and the input tensor's bits (so NaN, Inf and
// subnormals come for free). The target then drives the C ABI on the cpu
// backend: layout, alloc, quantize, dequantize every representation, swizzle
// and unswizzle, amax, the delayed-scaling update, a GEMM, and calls with
// corrupted buffer tables. Bad input must give a status, never a crash; a few
// properties are checked and abort on violation:
//  * a buffer table that does not match the layout is rejected;
//  * unswizzle(swizzle(scales)) is the identity;
//  * a successful call leaves te_rt_last_error() untouched by errors.
//
//===----------------------------------------------------------------------===//

#include "te_rt.h"

#include "FuzzInput.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

// Huge allocations must come back as TE_RT_OUT_OF_MEMORY, not as an ASan
// report.
extern "C" const char *__asan_default_options() {
  return "allocator_may_return_null=1:detect_leaks=1";
}

using te::fuzz::FuzzInput;

namespace {

#define TE_FUZZ_CHECK(cond)                                                    \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

te_rt_context *context() {
  static te_rt_context *ctx = [] {
    te_rt_context *c = nullptr;
    if (te_rt_context_create(TE_RT_BACKEND_CPU, &c) != TE_RT_OK)
      std::abort();
    te_rt_context_set_num_threads(c, 1);
    return c;
  }();
  return ctx;
}

/// A quantizer: the recipe's usual options, and with a small probability one
/// raw field, so that verification is exercised too.
te_rt_quantizer makeQuantizer(FuzzInput &in) {
  te_rt_quantizer q;
  te_rt_quantizer_init_default(&q);
  q.recipe = static_cast<te_rt_recipe>(in.consumeInRange(0, 4));
  q.dtype = in.consumeBool() ? TE_RT_E4M3 : TE_RT_E5M2;
  uint8_t flags = in.consume<uint8_t>();
  switch (q.recipe) {
  case TE_RT_RECIPE_DELAYED:
    q.margin = flags & 3;
    q.history_length = 1 + (flags >> 2 & 7);
    q.amax_algo = (flags & 32) ? TE_RT_AMAX_MOST_RECENT : TE_RT_AMAX_MAX;
    break;
  case TE_RT_RECIPE_CURRENT:
    q.pow2_scales = flags & 1;
    q.amax_epsilon = (flags & 2) ? 1e-3f : 0.0f;
    break;
  case TE_RT_RECIPE_BLOCK:
    q.pow2_scales = flags & 1;
    q.amax_epsilon = (flags & 2) ? 1e-3f : 0.0f;
    q.block_dim = (flags & 4) ? 2 : 1;
    break;
  case TE_RT_RECIPE_MXFP8:
    q.mx_2d = flags & 1;
    q.e8m0_rounding = (flags & 2) ? TE_RT_E8M0_FLOOR : TE_RT_E8M0_UP;
    break;
  case TE_RT_RECIPE_NVFP4:
    q.dtype = TE_RT_E2M1X2;
    q.nvfp4_2d = flags & 1;
    q.stochastic_rounding = (flags >> 1) & 1;
    q.rht = (flags >> 2) & 1;
    if (q.rht)
      q.rht_sign_mask = (flags & 8) ? 0xD7E8u : 0u;
    q.row_scaled = (flags >> 4) & 1;
    q.use_4over6 = (flags >> 5) & 1;
    if (q.use_4over6) {
      q.e4m3_max = (flags & 64) ? 256.0f : 448.0f;
      q.err_mode = (flags & 128) ? TE_RT_ERR_MSE : TE_RT_ERR_MAE;
    }
    break;
  }
  if (in.consumeInRange(0, 15) == 0) {
    // One raw field (any value a C caller could pass).
    int32_t raw = in.consume<int32_t>();
    switch (in.consumeInRange(0, 9)) {
    case 0:
      q.recipe = static_cast<te_rt_recipe>(raw);
      break;
    case 1:
      q.dtype = static_cast<te_rt_dtype>(raw);
      break;
    case 2:
      q.block_dim = raw;
      break;
    case 3:
      q.history_length = raw;
      break;
    case 4:
      q.margin = raw;
      break;
    case 5:
      std::memcpy(&q.amax_epsilon, &raw, 4);
      break;
    case 6:
      std::memcpy(&q.e4m3_max, &raw, 4);
      break;
    case 7:
      q.rht_sign_mask = static_cast<uint32_t>(raw);
      break;
    case 8:
      q.e8m0_rounding = static_cast<te_rt_e8m0_rounding>(raw);
      break;
    case 9:
      q.err_mode = static_cast<te_rt_err_mode>(raw);
      break;
    }
  }
  return q;
}

const std::initializer_list<int64_t> kHostileDims = {
    -1,
    0,
    1,
    15,
    16,
    17,
    31,
    32,
    33,
    127,
    128,
    129,
    int64_t(1) << 31,
    int64_t(1) << 32,
    int64_t(1) << 62,
    std::numeric_limits<int64_t>::max(),
    std::numeric_limits<int64_t>::min()};

void checkLayoutOnly(const te_rt_quantizer &q, int32_t rank,
                     const int64_t *shape, te_rt_usage usage,
                     te_rt_target target) {
  te_rt_buffer_desc descs[TE_RT_MAX_BUFFERS];
  int32_t n = 0;
  te_rt_qtensor_layout(&q, rank, shape, usage, target, descs, TE_RT_MAX_BUFFERS,
                       &n);
  te_rt_qtensor t;
  if (te_rt_qtensor_init(&t, &q, rank, shape, usage, target) == TE_RT_OK) {
    TE_FUZZ_CHECK(t.num_buffers >= 1 && t.num_buffers <= TE_RT_MAX_BUFFERS);
    for (int i = 0; i < t.num_buffers; ++i)
      TE_FUZZ_CHECK(t.buffers[i].size_bytes >= 0);
  }
}

std::vector<uint8_t> snapshot(const te_rt_qtensor &t) {
  std::vector<uint8_t> all;
  for (int i = 0; i < t.num_buffers; ++i) {
    const uint8_t *p = static_cast<const uint8_t *>(t.buffers[i].data);
    all.insert(all.end(), p, p + t.buffers[i].size_bytes);
  }
  return all;
}

void exercise(FuzzInput &in) {
  te_rt_context *ctx = context();
  te_rt_quantizer q = makeQuantizer(in);
  te_rt_usage usage = static_cast<te_rt_usage>(in.consumeInRange(0, 3));
  te_rt_target target = in.consumeBool() ? TE_RT_SM100 : TE_RT_SM90;

  int64_t shape[TE_RT_MAX_RANK] = {};
  if (in.consumeInRange(0, 7) == 0) {
    // Hostile shapes: layout queries only.
    int32_t rank = in.consumeInRange(-1, TE_RT_MAX_RANK + 1);
    for (int i = 0; i < TE_RT_MAX_RANK; ++i)
      shape[i] = in.consumeBool() ? in.pick<int64_t>(kHostileDims)
                                  : in.consume<int64_t>();
    checkLayoutOnly(q, rank, shape, usage, target);
    return;
  }

  int32_t rank = in.consumeInRange(1, 3);
  int64_t elems = 1;
  for (int i = 0; i < rank; ++i) {
    shape[i] = in.consumeBool() ? in.consumeInRange(0, 96)
                                : 16 * in.consumeInRange(0, 8);
    elems *= shape[i];
  }
  // Small tensors keep the fuzzer fast (the cpu backend under ASan).
  if (elems > (1 << 12))
    return;
  te_rt_dtype xType = static_cast<te_rt_dtype>(
      in.pick<te_rt_dtype>({TE_RT_F32, TE_RT_BF16, TE_RT_F16}));
  size_t xBytes = elems * (xType == TE_RT_F32 ? 4 : 2);
  float scale = in.consumeFloat();
  float amaxIn = in.consumeFloat();
  bool useAmaxIn = in.consumeBool();
  uint64_t seed = in.consume<uint64_t>();
  uint8_t corrupt = in.consume<uint8_t>();

  // The input's bits: the rest of the fuzz input, repeated.
  std::vector<uint8_t> bits = in.consumeRemaining();
  std::vector<uint8_t> xData(xBytes + 1, 0);
  if (!bits.empty())
    for (size_t i = 0; i < xBytes; ++i)
      xData[i] = bits[i % bits.size()];
  te_rt_tensor x{};
  x.data = xData.data();
  x.dtype = xType;
  x.rank = rank;
  std::memcpy(x.shape, shape, sizeof(shape));

  te_rt_qtensor t;
  te_rt_status s = te_rt_qtensor_alloc(ctx, &t, &q, rank, shape, usage, target);
  if (s != TE_RT_OK) {
    TE_FUZZ_CHECK(std::strlen(te_rt_last_error()) > 0);
    return;
  }

  te_rt_quantize_args args;
  te_rt_quantize_args_init(&args);
  float amaxOut = 0;
  if (q.recipe == TE_RT_RECIPE_DELAYED)
    args.scale = &scale;
  if (q.recipe == TE_RT_RECIPE_DELAYED || q.recipe == TE_RT_RECIPE_CURRENT)
    args.amax = &amaxOut;
  if (q.recipe == TE_RT_RECIPE_CURRENT && useAmaxIn)
    args.amax_in = &amaxIn;
  args.seed = seed;
  args.offset = seed >> 7;

  // Corrupted buffer tables must be rejected.
  if (corrupt & 1) {
    te_rt_qtensor bad = t;
    int i = corrupt >> 4 & 7;
    if (i < bad.num_buffers && bad.buffers[i].size_bytes > 0) {
      if (corrupt & 2)
        bad.buffers[i].size_bytes -= 1;
      else
        bad.buffers[i].data = nullptr;
      TE_FUZZ_CHECK(te_rt_quantize(ctx, &x, &bad, &args) ==
                    TE_RT_INVALID_ARGUMENT);
    }
    bad = t;
    bad.num_buffers = (corrupt & 4) ? t.num_buffers + 1 : t.num_buffers - 1;
    TE_FUZZ_CHECK(te_rt_quantize(ctx, &x, &bad, &args) != TE_RT_OK);
  }

  s = te_rt_quantize(ctx, &x, &t, &args);
  if (s == TE_RT_OK) {
    std::vector<uint8_t> out(xBytes + 8);
    te_rt_tensor y = x;
    y.data = out.data();
    for (te_rt_usage from : {TE_RT_ROWWISE, TE_RT_COLUMNWISE}) {
      te_rt_dequantize(ctx, &t, from, &y);
    }
    // Swizzling is a permutation of the scale buffers.
    std::vector<uint8_t> before = snapshot(t);
    if (te_rt_swizzle_scales(ctx, &t) == TE_RT_OK) {
      te_rt_dequantize(ctx, &t, (usage & 1) ? TE_RT_ROWWISE : TE_RT_COLUMNWISE,
                       &y);
      TE_FUZZ_CHECK(te_rt_unswizzle_scales(ctx, &t) == TE_RT_OK);
      TE_FUZZ_CHECK(snapshot(t) == before);
    }
    // A TN GEMM of the tensor with itself: A = t [N, K], B = t [M, K].
    if (rank == 2 && shape[0] * shape[0] * shape[1] <= (1 << 16)) {
      std::vector<float> d(static_cast<size_t>(shape[0] * shape[0]) + 1);
      te_rt_tensor dt{};
      dt.data = d.data();
      dt.dtype = TE_RT_F32;
      dt.rank = 2;
      dt.shape[0] = dt.shape[1] = shape[0];
      te_rt_gemm_args g;
      te_rt_gemm_args_init(&g);
      g.layout = static_cast<te_rt_gemm_layout>(corrupt % 3);
      te_rt_gemm(ctx, &t, &t, &dt, &g);
    }
  } else {
    TE_FUZZ_CHECK(std::strlen(te_rt_last_error()) > 0);
  }

  float amax = 0;
  te_rt_amax(ctx, &x, &amax);
  // (A raw history_length may be anything; the buffers must hold what we
  // claim, so only small ones are passed.)
  if (q.recipe == TE_RT_RECIPE_DELAYED && q.history_length >= 1 &&
      q.history_length <= 64) {
    int64_t h = q.history_length, n = 1 + (corrupt & 3);
    std::vector<float> hist(static_cast<size_t>(h * n), amax);
    std::vector<float> scales(static_cast<size_t>(n), scale);
    te_rt_update_scale(ctx, &q, hist.data(), scales.data(), h, n);
  }
  TE_FUZZ_CHECK(te_rt_qtensor_free(ctx, &t) == TE_RT_OK);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzInput in(data, size);
  exercise(in);
  return 0;
}
