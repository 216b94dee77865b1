// te.attention and te.attention_grad through te-pipeline on the cpu backend
// (te_rt_mlir_attention(_grad): the reference computation in f32), against
// an independent oracle: Inputs/attention.py computes PyTorch SDPA's
// definition and the backward's formulas in double precision from the same
// inputs (its backward checked against finite differences of its forward
// when it was written).
//
// RUN: rm -rf %t && %python %S/Inputs/attention.py %t
//
// f32: the products and the softmax in f32, within 1e-5 relative (plus
// 1e-6 absolute near 0) of the oracle. Causal with grouped-query heads and
// ragged lengths (L = 16, S = 17), 4-D:
// RUN: te-run %s --entry causal --input %t/causal-q.npy --input %t/causal-k.npy --input %t/causal-v.npy --compare %t/causal-o.npy --compare %t/causal-lse.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=PASS2 --implicit-check-not=FAIL
// The same shapes, not causal, the batch dynamic (3 at run time):
// RUN: te-run %s --entry dynamic --input %t/dynamic-q.npy --input %t/dynamic-k.npy --input %t/dynamic-v.npy --compare %t/dynamic-o.npy --compare %t/dynamic-lse.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=PASS2 --implicit-check-not=FAIL
// 3-D with N dynamic and grouped-query heads (8 on 2: the group size is
// known at run time only), causal:
// RUN: te-run %s --entry gqa3d --input %t/gqa3d-q.npy --input %t/gqa3d-k.npy --input %t/gqa3d-v.npy --compare %t/gqa3d-o.npy --compare %t/gqa3d-lse.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=PASS2 --implicit-check-not=FAIL
// Dynamic batches that disagree stop the program with the runtime's check
// (the key of batch 2, the query of batch 3):
// RUN: not te-run %s --entry dynamic --input %t/dynamic-q.npy --input %t/causal-k.npy --input %t/dynamic-v.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// 3-D, a boolean mask broadcast over N with rows that keep no key (output
// 0 and lse -inf, compared exactly), Ev != E, scale 0.3:
// RUN: te-run %s --entry boolean --input %t/boolean-q.npy --input %t/boolean-k.npy --input %t/boolean-v.npy --input %t/boolean-mask.npy --compare %t/boolean-o.npy --compare %t/boolean-lse.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=PASS2 --implicit-check-not=FAIL
//
// bf16 with an additive bf16 mask holding -inf (a row of -inf: output 0,
// lse -inf): the output computed in f32 and rounded once, within half a
// bf16 ulp (2^-9 relative) plus the f32 computation's error; the lse is
// f32.
// RUN: te-run %s --entry additive --input %t/additive-q.npy --input %t/additive-k.npy --input %t/additive-v.npy --input %t/additive-mask.npy --compare %t/additive-o.npy --compare %t/additive-lse.npy --rtol 0.004 --atol 1e-6 | FileCheck %s --check-prefix=PASS2 --implicit-check-not=FAIL
//
// The backward (te.attention_grad of the forward's output and lse): 4-D,
// grouped-query heads (dK and dV summed over each group), causal, a boolean
// mask broadcast over the heads with a row that keeps no key (its
// gradients 0). f32: within 1e-5 relative plus 1e-5 absolute (dS = P ∘ (dP
// - D) cancels).
// RUN: te-run %s --entry grad --input %t/grad-q.npy --input %t/grad-k.npy --input %t/grad-v.npy --input %t/grad-mask.npy --input %t/grad-do.npy --compare %t/grad-o.npy --compare %t/grad-lse.npy --compare %t/grad-dq.npy --compare %t/grad-dk.npy --compare %t/grad-dv.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=PASS5 --implicit-check-not=FAIL
// bf16, 3-D: the gradients rounded once to bf16 (half an ulp, 2^-9
// relative), plus what the f32 computation loses where dS cancels.
// RUN: te-run %s --entry grad16 --input %t/grad16-q.npy --input %t/grad16-k.npy --input %t/grad16-v.npy --input %t/grad16-do.npy --compare %t/grad16-o.npy --compare %t/grad16-dq.npy --compare %t/grad16-dk.npy --compare %t/grad16-dv.npy --rtol 0.004 --atol 1e-4 | FileCheck %s --check-prefix=PASS4 --implicit-check-not=FAIL
//
// The high-precision twin (te-run --reference: convert-te-to-reference,
// the attention as linalg ops in f32 with the scores materialized) agrees
// with the same oracle.
// RUN: te-run %s --reference --entry boolean --input %t/boolean-q.npy --input %t/boolean-k.npy --input %t/boolean-v.npy --input %t/boolean-mask.npy --compare %t/boolean-o.npy --compare %t/boolean-lse.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=PASS2 --implicit-check-not=FAIL
// RUN: te-run %s --reference --entry dynamic --input %t/dynamic-q.npy --input %t/dynamic-k.npy --input %t/dynamic-v.npy --compare %t/dynamic-o.npy --compare %t/dynamic-lse.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=PASS2 --implicit-check-not=FAIL
// RUN: te-run %s --reference --entry gqa3d --input %t/gqa3d-q.npy --input %t/gqa3d-k.npy --input %t/gqa3d-v.npy --compare %t/gqa3d-o.npy --compare %t/gqa3d-lse.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=PASS2 --implicit-check-not=FAIL
// RUN: te-run %s --reference --entry additive --input %t/additive-q.npy --input %t/additive-k.npy --input %t/additive-v.npy --input %t/additive-mask.npy --compare %t/additive-o.npy --compare %t/additive-lse.npy --rtol 0.004 --atol 1e-6 | FileCheck %s --check-prefix=PASS2 --implicit-check-not=FAIL
// RUN: te-run %s --reference --entry grad --input %t/grad-q.npy --input %t/grad-k.npy --input %t/grad-v.npy --input %t/grad-mask.npy --input %t/grad-do.npy --compare %t/grad-o.npy --compare %t/grad-lse.npy --compare %t/grad-dq.npy --compare %t/grad-dk.npy --compare %t/grad-dv.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=PASS5 --implicit-check-not=FAIL
//
// The oracle is not trivially met: a wrong scale fails.
// RUN: sed -e 's/scale = 3.000000e-01/scale = 3.100000e-01/' %s | not te-run - --entry boolean --input %t/boolean-q.npy --input %t/boolean-k.npy --input %t/boolean-v.npy --input %t/boolean-mask.npy --compare %t/boolean-o.npy --compare %t/boolean-lse.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=FAIL
//
// PASS2: result 0: PASS
// PASS2: result 1: PASS
// PASS4: result 0: PASS
// PASS4: result 1: PASS
// PASS4: result 2: PASS
// PASS4: result 3: PASS
// PASS5: result 0: PASS
// PASS5: result 1: PASS
// PASS5: result 2: PASS
// PASS5: result 3: PASS
// PASS5: result 4: PASS
// FAIL: result 0: FAIL
// MISMATCH: runtime error in te.attention: k's dimension 0 (batch) is 2, expected 3 (q's batch)

func.func @causal(%q: tensor<2x4x16x8xf32>, %k: tensor<2x2x17x8xf32>, %v: tensor<2x2x17x8xf32>)
    -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>) {
  %o, %lse = te.attention %q, %k, %v {causal}
      : tensor<2x4x16x8xf32>, tensor<2x2x17x8xf32>, tensor<2x2x17x8xf32>
  return %o, %lse : tensor<2x4x16x8xf32>, tensor<2x4x16xf32>
}

func.func @dynamic(%q: tensor<?x4x16x8xf32>, %k: tensor<?x2x17x8xf32>, %v: tensor<?x2x17x8xf32>)
    -> (tensor<?x4x16x8xf32>, tensor<?x4x16xf32>) {
  %o, %lse = te.attention %q, %k, %v
      : tensor<?x4x16x8xf32>, tensor<?x2x17x8xf32>, tensor<?x2x17x8xf32>
  return %o, %lse : tensor<?x4x16x8xf32>, tensor<?x4x16xf32>
}

func.func @gqa3d(%q: tensor<?x5x8xf32>, %k: tensor<?x9x8xf32>, %v: tensor<?x9x8xf32>)
    -> (tensor<?x5x8xf32>, tensor<?x5xf32>) {
  %o, %lse = te.attention %q, %k, %v {causal}
      : tensor<?x5x8xf32>, tensor<?x9x8xf32>, tensor<?x9x8xf32>
  return %o, %lse : tensor<?x5x8xf32>, tensor<?x5xf32>
}

func.func @boolean(%q: tensor<4x6x8xf32>, %k: tensor<4x17x8xf32>, %v: tensor<4x17x5xf32>,
                   %m: tensor<1x6x17xi1>) -> (tensor<4x6x5xf32>, tensor<4x6xf32>) {
  %o, %lse = te.attention %q, %k, %v mask %m {scale = 3.000000e-01 : f32}
      : tensor<4x6x8xf32>, tensor<4x17x8xf32>, tensor<4x17x5xf32>, tensor<1x6x17xi1>
  return %o, %lse : tensor<4x6x5xf32>, tensor<4x6xf32>
}

func.func @additive(%q: tensor<2x2x8x16xbf16>, %k: tensor<2x2x9x16xbf16>, %v: tensor<2x2x9x16xbf16>,
                    %m: tensor<1x2x8x9xbf16>) -> (tensor<2x2x8x16xbf16>, tensor<2x2x8xf32>) {
  %o, %lse = te.attention %q, %k, %v mask %m
      : tensor<2x2x8x16xbf16>, tensor<2x2x9x16xbf16>, tensor<2x2x9x16xbf16>, tensor<1x2x8x9xbf16>
  return %o, %lse : tensor<2x2x8x16xbf16>, tensor<2x2x8xf32>
}

func.func @grad(%q: tensor<2x4x6x8xf32>, %k: tensor<2x2x7x8xf32>, %v: tensor<2x2x7x4xf32>,
                %m: tensor<2x1x6x7xi1>, %do: tensor<2x4x6x4xf32>)
    -> (tensor<2x4x6x4xf32>, tensor<2x4x6xf32>, tensor<2x4x6x8xf32>, tensor<2x2x7x8xf32>,
        tensor<2x2x7x4xf32>) {
  %o, %lse = te.attention %q, %k, %v mask %m {causal}
      : tensor<2x4x6x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x4xf32>, tensor<2x1x6x7xi1>
  %dq, %dk, %dv = te.attention_grad %q, %k, %v, %o, %lse, %do mask %m {causal}
      : tensor<2x4x6x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x4xf32>, tensor<2x4x6x4xf32>,
        tensor<2x4x6xf32>, tensor<2x4x6x4xf32>, tensor<2x1x6x7xi1>
  return %o, %lse, %dq, %dk, %dv : tensor<2x4x6x4xf32>, tensor<2x4x6xf32>, tensor<2x4x6x8xf32>,
      tensor<2x2x7x8xf32>, tensor<2x2x7x4xf32>
}

func.func @grad16(%q: tensor<4x9x16xbf16>, %k: tensor<4x11x16xbf16>, %v: tensor<4x11x16xbf16>,
                  %do: tensor<4x9x16xbf16>)
    -> (tensor<4x9x16xbf16>, tensor<4x9x16xbf16>, tensor<4x11x16xbf16>, tensor<4x11x16xbf16>) {
  %o, %lse = te.attention %q, %k, %v {scale = 2.000000e-01 : f32}
      : tensor<4x9x16xbf16>, tensor<4x11x16xbf16>, tensor<4x11x16xbf16>
  %dq, %dk, %dv = te.attention_grad %q, %k, %v, %o, %lse, %do {scale = 2.000000e-01 : f32}
      : tensor<4x9x16xbf16>, tensor<4x11x16xbf16>, tensor<4x11x16xbf16>, tensor<4x9x16xbf16>,
        tensor<4x9xf32>, tensor<4x9x16xbf16>
  return %o, %dq, %dk, %dv : tensor<4x9x16xbf16>, tensor<4x9x16xbf16>, tensor<4x11x16xbf16>,
      tensor<4x11x16xbf16>
}
