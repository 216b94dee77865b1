/* A consumer of te_call.h and te_rt.h from an install tree: parses a
 * signature file and prints what it holds. */
#include "te_call.h"
#include "te_rt.h"

#include <stdio.h>

int main(void) {
  te_call_signature *sig = NULL;
  if (te_call_signature_parse("bf16[?,64], f32 -> f32[?,64]\n"
                              "target sm_90\nshape-checks on\n",
                              &sig) != 0) {
    printf("parse failed: %s\n", te_call_last_error());
    return 1;
  }
  te_call_type t;
  te_call_signature_arg(sig, 0, &t);
  printf("te_rt api %d, te_call api %d\n", te_rt_api_version(),
         te_call_api_version());
  printf("%d args, %d results, target %s, shape checks %d\n",
         te_call_signature_num_args(sig), te_call_signature_num_results(sig),
         te_call_signature_target(sig), te_call_signature_shape_checks(sig));
  printf("arg 0: %s rank %d dims %lld,%lld\n", t.element_type, t.rank,
         (long long)t.shape[0], (long long)t.shape[1]);
  te_call_signature_destroy(sig);
  if (te_call_signature_parse("f32[4]", &sig) == 0)
    return 1;
  printf("error: %s\n", te_call_last_error());
  return 0;
}
