//===- TestUtil.h - Helpers of the runtime unit tests -----------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#ifndef TE_TEST_UNIT_RUNTIME_TESTUTIL_H
#define TE_TEST_UNIT_RUNTIME_TESTUTIL_H

#include "te_rt.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace te::test {

/// A cpu context destroyed at scope exit.
struct Context {
  te_rt_context *ctx = nullptr;
  Context() {
    EXPECT_EQ(te_rt_context_create(TE_RT_BACKEND_CPU, &ctx), TE_RT_OK);
  }
  ~Context() { te_rt_context_destroy(ctx); }
  operator te_rt_context *() const { return ctx; }
};

/// A quantized tensor allocated in a context and freed at scope exit.
struct QTensor {
  te_rt_context *ctx;
  te_rt_qtensor q;
  te_rt_status status;
  QTensor(te_rt_context *c, const te_rt_quantizer &qz,
          std::vector<int64_t> shape, te_rt_usage usage, te_rt_target target)
      : ctx(c) {
    std::memset(&q, 0, sizeof(q));
    status =
        te_rt_qtensor_alloc(ctx, &q, &qz, static_cast<int32_t>(shape.size()),
                            shape.data(), usage, target);
  }
  ~QTensor() { te_rt_qtensor_free(ctx, &q); }
  /// The buffer named `name`, or nullptr.
  template <typename T = uint8_t> T *buf(const char *name) {
    te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
    int32_t n = 0;
    if (te_rt_qtensor_layout(&q.quantizer, q.rank, q.shape, q.usage, q.target,
                             d, TE_RT_MAX_BUFFERS, &n) != TE_RT_OK)
      return nullptr;
    for (int i = 0; i < n; ++i)
      if (std::strcmp(d[i].name, name) == 0)
        return static_cast<T *>(q.buffers[i].data);
    return nullptr;
  }
  /// The layout descriptor of `name` (rank 0 if absent).
  te_rt_buffer_desc desc(const char *name) {
    te_rt_buffer_desc d[TE_RT_MAX_BUFFERS];
    int32_t n = 0;
    te_rt_buffer_desc none;
    std::memset(&none, 0, sizeof(none));
    if (te_rt_qtensor_layout(&q.quantizer, q.rank, q.shape, q.usage, q.target,
                             d, TE_RT_MAX_BUFFERS, &n) != TE_RT_OK)
      return none;
    for (int i = 0; i < n; ++i)
      if (std::strcmp(d[i].name, name) == 0)
        return d[i];
    return none;
  }
};

inline te_rt_tensor tensorF32(std::vector<float> &v,
                              std::vector<int64_t> shape) {
  te_rt_tensor t;
  std::memset(&t, 0, sizeof(t));
  t.data = v.data();
  t.dtype = TE_RT_F32;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    t.shape[i] = shape[i];
  return t;
}

inline te_rt_quantizer quantizer(te_rt_recipe recipe, te_rt_dtype dtype) {
  te_rt_quantizer q;
  te_rt_quantizer_init_default(&q);
  q.recipe = recipe;
  q.dtype = dtype;
  if (recipe == TE_RT_RECIPE_BLOCK)
    q.pow2_scales = 1;
  return q;
}

inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

} // namespace te::test

#endif // TE_TEST_UNIT_RUNTIME_TESTUTIL_H
