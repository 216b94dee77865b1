/*===- te-rt-smoke.c - libte_rt from C: the cpu backend, the cuda status --===*/
/*                                                                            */
/* Part of te. C99. Used by the RuntimeWithoutCuda test (NoCudaCheck.cmake)   */
/* and built by the runtime-only downstream project of the package test       */
/* (test/Package/runtime).                                                    */
/*                                                                            */
/*===----------------------------------------------------------------------===*/
/*
 * te-rt-smoke [cuda]
 *
 * Prints the API version of the loaded libte_rt, then quantizes a 32x32
 * tensor with MXFP8 on the cpu backend, dequantizes it and compares
 * ("cpu: ok"). With `cuda`, also asks for the cuda backend and prints the
 * outcome ("cuda: available <0|1>", "cuda: <status string>: <message>").
 * Exits 0 when the cpu part passed.
 */

#include "te_rt.h"

#include <stdio.h>
#include <string.h>

static int cpuRoundTrip(void) {
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

int main(int argc, char **argv) {
  int line;
  printf("te_rt api %d\n", te_rt_api_version());
  line = cpuRoundTrip();
  if (line) {
    printf("cpu: FAILED at line %d: %s\n", line, te_rt_last_error());
    return 1;
  }
  printf("cpu: ok\n");
  if (argc > 1 && strcmp(argv[1], "cuda") == 0) {
    te_rt_context *ctx = NULL;
    te_rt_status s;
    printf("cuda: available %d\n", te_rt_backend_available(TE_RT_BACKEND_CUDA));
    s = te_rt_context_create(TE_RT_BACKEND_CUDA, &ctx);
    if (s == TE_RT_OK) {
      printf("cuda: ok\n");
      te_rt_context_destroy(ctx);
    } else {
      printf("cuda: %s: %s\n", te_rt_status_string(s), te_rt_last_error());
    }
  }
  return 0;
}
