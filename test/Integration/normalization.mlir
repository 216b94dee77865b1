// A layer norm and a dropout-scaled accumulation written as users write them
// (linalg.generic on tensors, a dynamic batch, bf16 in and out with f32
// statistics, a reduction that reads another's result, row and column
// broadcasts, an f32 and an index argument, an scf.for over the steps, a
// 0-d total), on the cpu backend against an independent oracle:
// Inputs/normalization.py computes the layer norm in double precision and
// the dropout sums with Python's f32 rounding of each operation.
//
// RUN: rm -rf %t && %python %S/Inputs/normalization.py %t
//
// The layer norm of 45 rows, a third of them with a mean of 40 and a third
// of -40: within bf16's rounding of the oracle.
// RUN: te-run %s --entry layernorm --input %t/x.npy --input %t/gamma.npy --input %t/beta.npy --compare %t/want-ln.npy --rtol 0.004 --atol 1e-3 | FileCheck %s --check-prefix=ONE
//
// Dropout with p = 0.3 accumulated over 3 steps (each f32 operation as the
// oracle rounds it), and the total of the accumulator.
// RUN: te-run %s --entry dropout_acc --input %t/a.npy --input %t/u.npy --input 0.3 --input 3 --compare %t/want-acc.npy --rtol 1e-6 --compare %t/want-total.npy --rtol 1e-5 | FileCheck %s --check-prefix=TWO
//
// Seeded runs (gpu-programs.py compiles them for gpu-check: cuda against
// cpu): a batch of 77 rows; p = 0.25 over 4 steps on 300 columns.
// RUN: te-run %s --entry layernorm --seed 3 --dynamic-dim 77 | FileCheck %s --check-prefix=RAN
// RUN: te-run %s --entry dropout_acc --seed 4 --dynamic-dim 300 --fill 2=0.25 --fill 3=4 | FileCheck %s --check-prefix=RAN
//
// sm_90: every op a kernel (no linalg left on the host).
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" | FileCheck %s --check-prefix=GPU --implicit-check-not='{{^ *}}linalg.'
//
// ONE: result 0: PASS
// TWO: result 0: PASS
// TWO: result 1: PASS
// RAN: result 0:
// GPU-LABEL: func.func @layernorm(
// GPU: gpu.launch
// GPU-LABEL: func.func @dropout_acc(
// GPU: scf.for
// GPU: gpu.launch

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @layernorm(%x: tensor<?x256xbf16>, %g: tensor<256xf32>, %b: tensor<256xf32>) -> tensor<?x256xbf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x256xbf16>
  %z = arith.constant 0.0 : f32
  %s0 = tensor.empty(%n) : tensor<?xf32>
  %s1 = linalg.fill ins(%z : f32) outs(%s0 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x256xbf16>) outs(%s1 : tensor<?xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %e = arith.extf %a : bf16 to f32
    %r = arith.addf %acc, %e : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %sum : tensor<?x256xbf16>, tensor<?xf32>) outs(%s1 : tensor<?xf32>) {
  ^bb0(%a: bf16, %s: f32, %acc: f32):
    %e = arith.extf %a : bf16 to f32
    %c = arith.constant 256.0 : f32
    %m = arith.divf %s, %c : f32
    %d = arith.subf %e, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %acc, %d2 : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %o0 = tensor.empty(%n) : tensor<?x256xbf16>
  %o = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum, %sq, %g, %b : tensor<?x256xbf16>, tensor<?xf32>, tensor<?xf32>, tensor<256xf32>, tensor<256xf32>) outs(%o0 : tensor<?x256xbf16>) {
  ^bb0(%a: bf16, %s: f32, %v: f32, %gg: f32, %bb: f32, %out: bf16):
    %c = arith.constant 256.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %e = arith.extf %a : bf16 to f32
    %m = arith.divf %s, %c : f32
    %var = arith.divf %v, %c : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %e, %m : f32
    %y = arith.mulf %d, %rs : f32
    %y2 = arith.mulf %y, %gg : f32
    %y3 = arith.addf %y2, %bb : f32
    %t = arith.truncf %y3 : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x256xbf16>
  return %o : tensor<?x256xbf16>
}
func.func @dropout_acc(%x: tensor<8x?xf32>, %u: tensor<8x?xf32>, %p: f32, %steps: index) -> (tensor<8x?xf32>, tensor<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<8x?xf32>
  %z = arith.constant 0.0 : f32
  %a0 = tensor.empty(%n) : tensor<8x?xf32>
  %a1 = linalg.fill ins(%z : f32) outs(%a0 : tensor<8x?xf32>) -> tensor<8x?xf32>
  %r = scf.for %i = %c0 to %steps step %c1 iter_args(%acc = %a1) -> tensor<8x?xf32> {
    %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %u : tensor<8x?xf32>, tensor<8x?xf32>) outs(%acc : tensor<8x?xf32>) {
    ^bb0(%a: f32, %uu: f32, %o: f32):
      %keep = arith.cmpf ogt, %uu, %p : f32
      %one = arith.constant 1.0 : f32
      %q = arith.subf %one, %p : f32
      %sc = arith.divf %a, %q : f32
      %v = arith.select %keep, %sc, %z : f32
      %s = arith.addf %o, %v : f32
      linalg.yield %s : f32
    } -> tensor<8x?xf32>
    scf.yield %m : tensor<8x?xf32>
  }
  %t0 = tensor.empty() : tensor<f32>
  %t1 = linalg.fill ins(%z : f32) outs(%t0 : tensor<f32>) -> tensor<f32>
  %tot = linalg.reduce ins(%r : tensor<8x?xf32>) outs(%t1 : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %r, %tot : tensor<8x?xf32>, tensor<f32>
}
