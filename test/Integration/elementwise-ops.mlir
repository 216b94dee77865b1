// Programs written one op per operation, as front ends and users write
// them: arith / math ops on whole tensors (convert-elementwise-to-linalg),
// named linalg ops (linalg.add, linalg.broadcast, linalg.reduce), fills,
// tensor.splat and splat constants, an i1 mask tensor, math.ipowi on a
// tensor. On the cpu backend against an independent oracle
// (Inputs/elementwise-ops.py: each f32 operation rounded as the program
// rounds it, integers wrapped to 32 bits), then with te-fuse-elementwise
// off: the fused program's results are the unfused one's, bit for bit.
//
// RUN: rm -rf %t && %python %S/Inputs/elementwise-ops.py %t && mkdir -p %t/unfused
//
// GELU (tanh form) of x + b on 37 rows of bf16: within one bf16 rounding of
// the oracle (its tanh is Python's).
// RUN: te-run %s --entry gelu_chain --input %t/x.npy --input %t/b.npy --compare %t/want-gelu.npy --rtol 0.008 --atol 1e-6 | FileCheck %s --check-prefix=ONE
// RUN: te-run %s --entry gelu_chain --input %t/x.npy --input %t/b.npy --pipeline-options "fuse-elementwise=false" --output-dir %t/unfused --quiet
// RUN: te-run %s --entry gelu_chain --input %t/x.npy --input %t/b.npy --compare %t/unfused/result0.npy | FileCheck %s --check-prefix=ONE
//
// A mask and a scalar scale on 31 x 31, and each row's sum of squares (the
// square fused into the reduction): the f32 results exactly.
// RUN: te-run %s --entry masked_rows --input %t/m.npy --input %t/mask.npy --input 1.5 --compare %t/want-masked.npy --compare %t/want-rows.npy | FileCheck %s --check-prefix=TWO
// RUN: te-run %s --entry masked_rows --input %t/m.npy --input %t/mask.npy --input 1.5 --pipeline-options "fuse-elementwise=false" --output-dir %t/unfused --quiet
// RUN: te-run %s --entry masked_rows --input %t/m.npy --input %t/mask.npy --input 1.5 --compare %t/unfused/result0.npy --compare %t/unfused/result1.npy | FileCheck %s --check-prefix=TWO
//
// Powers, a sum and a shift of i32 tensors: exactly.
// RUN: te-run %s --entry int_powers --input %t/a.npy --input %t/e.npy --compare %t/want-int.npy | FileCheck %s --check-prefix=ONE
//
// Seeded runs (gpu-programs.py compiles them for gpu-check: cuda against
// cpu): 77 rows; 300 x 300 with a scale of 0.75; bases 3, exponents 5.
// RUN: te-run %s --entry gelu_chain --seed 5 --dynamic-dim 77 | FileCheck %s --check-prefix=RAN
// RUN: te-run %s --entry masked_rows --seed 6 --dynamic-dim 300 --fill 2=0.75 | FileCheck %s --check-prefix=RAN
// RUN: te-run %s --entry int_powers --seed 7 --fill 0=3 --fill 1=5 | FileCheck %s --check-prefix=RAN
//
// sm_90: the GELU is one kernel; the square is computed inside the
// reduction's kernels (no kernel of its own); the integer ops one kernel.
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" | FileCheck %s --check-prefix=GPU --implicit-check-not='{{^ *}}linalg.'
//
// ONE: result 0: PASS
// TWO: result 0: PASS
// TWO: result 1: PASS
// RAN: result 0:
// GPU-LABEL: func.func @gelu_chain(
// GPU: gpu.launch {{.*}} module(@gelu_chain_elementwise_L[[#]]_kernel)
// GPU-NOT: gpu.launch
// GPU-LABEL: func.func @masked_rows(
// GPU-NOT: module(@masked_rows_elementwise{{(_scalar)?}}_L[[#@LINE+49]]_kernel)
// GPU: module(@masked_rows_reduce_rows_L[[#@LINE+51]]_kernel)
// GPU-LABEL: func.func @int_powers(
// GPU: gpu.launch {{.*}} module(@int_powers_elementwise_L[[#]]_kernel)
// GPU-NOT: gpu.launch

// GELU (tanh form) of x + b, one op per operation.
func.func @gelu_chain(%x: tensor<?x512xbf16>, %b: tensor<512xbf16>) -> tensor<?x512xbf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x512xbf16>
  %e16 = tensor.empty(%n) : tensor<?x512xbf16>
  %e32 = tensor.empty(%n) : tensor<?x512xf32>
  %bb = linalg.broadcast ins(%b : tensor<512xbf16>) outs(%e16 : tensor<?x512xbf16>) dimensions = [0]
  %h16 = linalg.add ins(%x, %bb : tensor<?x512xbf16>, tensor<?x512xbf16>) outs(%e16 : tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %h = arith.extf %h16 : tensor<?x512xbf16> to tensor<?x512xf32>
  %fc = arith.constant 0.044715 : f32
  %fk = arith.constant 0.7978845608 : f32
  %fh = arith.constant 0.5 : f32
  %f1 = arith.constant 1.0 : f32
  %c = linalg.fill ins(%fc : f32) outs(%e32 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %k = linalg.fill ins(%fk : f32) outs(%e32 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %half = linalg.fill ins(%fh : f32) outs(%e32 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %one = linalg.fill ins(%f1 : f32) outs(%e32 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %h2 = arith.mulf %h, %h : tensor<?x512xf32>
  %h3 = arith.mulf %h2, %h : tensor<?x512xf32>
  %ch3 = arith.mulf %c, %h3 : tensor<?x512xf32>
  %in = arith.addf %h, %ch3 : tensor<?x512xf32>
  %kin = arith.mulf %k, %in : tensor<?x512xf32>
  %t = math.tanh %kin : tensor<?x512xf32>
  %t1 = arith.addf %one, %t : tensor<?x512xf32>
  %hh = arith.mulf %half, %h : tensor<?x512xf32>
  %y = arith.mulf %hh, %t1 : tensor<?x512xf32>
  %y16 = arith.truncf %y : tensor<?x512xf32> to tensor<?x512xbf16>
  return %y16 : tensor<?x512xbf16>
}

// Dropout-style masking of a scaled tensor (an i1 mask tensor, a scalar
// scale as a tensor.splat), and each row's sum of squares of the result.
func.func @masked_rows(%x: tensor<?x?xf32>, %m: tensor<?x?xi1>, %s: f32) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %sc = tensor.splat %s[%r, %cols] : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%r, %cols) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %xs = arith.mulf %x, %sc : tensor<?x?xf32>
  %y = arith.select %m, %xs, %z : tensor<?x?xi1>, tensor<?x?xf32>
  %sq = arith.mulf %y, %y : tensor<?x?xf32>
  %er = tensor.empty(%r) : tensor<?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.reduce ins(%sq : tensor<?x?xf32>) outs(%acc : tensor<?xf32>) dimensions = [1]
    (%v: f32, %a: f32) {
      %p = arith.addf %a, %v : f32
      linalg.yield %p : f32
    }
  return %y, %sum : tensor<?x?xf32>, tensor<?xf32>
}

// Integer ops on whole tensors: powers (wrapping), a sum, a shift by the
// exponent's low 4 bits (a splat constant).
func.func @int_powers(%a: tensor<64xi32>, %e: tensor<64xi32>) -> tensor<64xi32> {
  %p = math.ipowi %a, %e : tensor<64xi32>
  %q = arith.addi %p, %a : tensor<64xi32>
  %mask = arith.constant dense<15> : tensor<64xi32>
  %k = arith.andi %e, %mask : tensor<64xi32>
  %r = arith.shrsi %q, %k : tensor<64xi32>
  return %r : tensor<64xi32>
}
