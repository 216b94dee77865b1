/*===- CHeader.c - te_rt.h used from C99 ----------------------------------===*/
/*                                                                            */
/* Part of te. Compiled as C (-std=c99): the public header must be plain C.   */
/*                                                                            */
/*===----------------------------------------------------------------------===*/

#include "te_rt.h"

#include <string.h>

/* Quantizes a 32x32 tensor with MXFP8 through the C ABI and dequantizes it;
 * returns 0 on success, or the line of the first failing step. */
int te_rt_c_smoke_test(void) {
  te_rt_context *ctx = NULL;
  te_rt_quantizer q;
  te_rt_qtensor qt;
  te_rt_tensor x, out;
  float in[32 * 32], back[32 * 32];
  int64_t shape[2] = {32, 32};
  int i, rc = 0;
  for (i = 0; i < 32 * 32; ++i)
    in[i] = (float)(i % 9) - 4.0f;
  if (te_rt_context_create(TE_RT_BACKEND_CPU, &ctx) != TE_RT_OK)
    return __LINE__;
  te_rt_quantizer_init_default(&q);
  q.recipe = TE_RT_RECIPE_MXFP8;
  if (te_rt_qtensor_alloc(ctx, &qt, &q, 2, shape, TE_RT_ROWWISE, TE_RT_SM100) !=
      TE_RT_OK) {
    te_rt_context_destroy(ctx);
    return __LINE__;
  }
  memset(&x, 0, sizeof(x));
  x.data = in;
  x.dtype = TE_RT_F32;
  x.rank = 2;
  x.shape[0] = x.shape[1] = 32;
  out = x;
  out.data = back;
  if (te_rt_quantize(ctx, &x, &qt, NULL) != TE_RT_OK)
    rc = __LINE__;
  else if (te_rt_dequantize(ctx, &qt, TE_RT_ROWWISE, &out) != TE_RT_OK)
    rc = __LINE__;
  else if (memcmp(in, back, sizeof(in)) != 0)
    rc = __LINE__;
  te_rt_qtensor_free(ctx, &qt);
  te_rt_context_destroy(ctx);
  return rc;
}
