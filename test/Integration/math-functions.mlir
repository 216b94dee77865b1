// Math functions in elementwise ops, as users write them (GELU in its tanh
// and its exact erf form included), on the cpu backend against Python's math
// module (Inputs/math-functions.py): f32 results within rtol 1e-6, atol
// 1e-6. On the host, erf, erfc, asinh and cbrt (no LLVM intrinsic) are C
// library calls (te-host-math-to-libm); on GPU targets every function is a
// libdevice call in one kernel per op, and scripts/gpu/gpu-check.sh runs the
// seeded entry on the cuda backend against the cpu backend.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/math-functions.py %t
// RUN: te-run %s --entry math --input %t/x.npy --rtol 1e-6 --atol 1e-6 --compare %t/want0.npy --compare %t/want1.npy --compare %t/want2.npy --compare %t/want3.npy --compare %t/want4.npy --compare %t/want5.npy --compare %t/want6.npy --compare %t/want7.npy --compare %t/want8.npy --compare %t/want9.npy --compare %t/want10.npy --compare %t/want11.npy --compare %t/want12.npy --compare %t/want13.npy --compare %t/want14.npy --compare %t/want15.npy --compare %t/want16.npy | FileCheck %s
// CHECK: result 0: PASS
// CHECK: result 1: PASS
// CHECK: result 2: PASS
// CHECK: result 3: PASS
// CHECK: result 4: PASS
// CHECK: result 5: PASS
// CHECK: result 6: PASS
// CHECK: result 7: PASS
// CHECK: result 8: PASS
// CHECK: result 9: PASS
// CHECK: result 10: PASS
// CHECK: result 11: PASS
// CHECK: result 12: PASS
// CHECK: result 13: PASS
// CHECK: result 14: PASS
// CHECK: result 15: PASS
// CHECK: result 16: PASS
// RUN: te-run %s --entry math --seed 2 | FileCheck %s --check-prefix=SEEDED
// SEEDED: result 16:
//
// Ahead of time: the object links (libm) and gives the same results.
// RUN: env TE_BUILD_DIR=%te_lib_dir/.. %te_src_root/scripts/te-aot.sh compile %s %t/aot.o --entry math --target cpu > /dev/null 2>&1
// RUN: %te_src_root/scripts/te-aot.sh link %t/aot.o %t/aot %te_lib_dir > /dev/null
// RUN: %t/aot --signature-file %t/aot.sig --entry math --input %t/x.npy --rtol 1e-6 --atol 1e-6 --compare %t/want0.npy --compare %t/want1.npy --compare %t/want2.npy --compare %t/want3.npy --compare %t/want4.npy --compare %t/want5.npy --compare %t/want6.npy --compare %t/want7.npy --compare %t/want8.npy --compare %t/want9.npy --compare %t/want10.npy --compare %t/want11.npy --compare %t/want12.npy --compare %t/want13.npy --compare %t/want14.npy --compare %t/want15.npy --compare %t/want16.npy | FileCheck %s
//
// RUN: te-opt %s --te-pipeline="target=cpu" | FileCheck %s --check-prefix=HOST
// HOST-DAG: llvm.func @erff(f32) -> f32
// HOST-DAG: llvm.func @erfcf(f32) -> f32
// HOST-DAG: llvm.func @asinhf(f32) -> f32
// HOST-DAG: llvm.func @cbrtf(f32) -> f32
// RUN: te-opt %s --te-pipeline="target=sm_90 gpu-format=isa" | FileCheck %s --check-prefix=GPU
// GPU-COUNT-17: gpu.binary @math_elementwise_L
// GPU-NOT: erff

#id = affine_map<(i, j) -> (i, j)>

func.func @math(%x: tensor<8x512xf32>) -> (tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>) {
  %one = arith.constant 1.0 : f32
  // exp
  %e0 = tensor.empty() : tensor<8x512xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e0 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // log
  %e1 = tensor.empty() : tensor<8x512xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e1 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.absf %a : f32
    %u = arith.addf %t, %one : f32
    %r = math.log %u : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // tanh
  %e2 = tensor.empty() : tensor<8x512xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e2 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // erf
  %e3 = tensor.empty() : tensor<8x512xf32>
  %r3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e3 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.erf %a : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // sqrt
  %e4 = tensor.empty() : tensor<8x512xf32>
  %r4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e4 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.absf %a : f32
    %r = math.sqrt %t : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // rsqrt
  %e5 = tensor.empty() : tensor<8x512xf32>
  %r5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e5 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.absf %a : f32
    %u = arith.addf %t, %one : f32
    %r = math.rsqrt %u : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // sin
  %e6 = tensor.empty() : tensor<8x512xf32>
  %r6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e6 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.sin %a : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // cos
  %e7 = tensor.empty() : tensor<8x512xf32>
  %r7 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e7 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.cos %a : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // powf
  %e8 = tensor.empty() : tensor<8x512xf32>
  %r8 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e8 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.absf %a : f32
    %u = arith.addf %t, %one : f32
    %p = arith.constant 1.5 : f32
    %r = math.powf %u, %p : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // floor
  %e9 = tensor.empty() : tensor<8x512xf32>
  %r9 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e9 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.floor %a : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // log1p
  %e10 = tensor.empty() : tensor<8x512xf32>
  %r10 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e10 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.absf %a : f32
    %r = math.log1p %t : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // exp2
  %e11 = tensor.empty() : tensor<8x512xf32>
  %r11 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e11 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp2 %a : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // gelu_tanh
  %e12 = tensor.empty() : tensor<8x512xf32>
  %r12 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e12 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.7978845608 : f32
    %k = arith.constant 0.044715 : f32
    %h = arith.constant 0.5 : f32
    %x2 = arith.mulf %a, %a : f32
    %x3 = arith.mulf %x2, %a : f32
    %kx3 = arith.mulf %k, %x3 : f32
    %in = arith.addf %a, %kx3 : f32
    %s = arith.mulf %c, %in : f32
    %t = math.tanh %s : f32
    %t1 = arith.addf %t, %one : f32
    %hx = arith.mulf %h, %a : f32
    %r = arith.mulf %hx, %t1 : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // gelu_erf
  %e13 = tensor.empty() : tensor<8x512xf32>
  %r13 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e13 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.70710678 : f32
    %h = arith.constant 0.5 : f32
    %s = arith.mulf %a, %c : f32
    %t = math.erf %s : f32
    %t1 = arith.addf %t, %one : f32
    %hx = arith.mulf %h, %a : f32
    %r = arith.mulf %hx, %t1 : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // erfc
  %e14 = tensor.empty() : tensor<8x512xf32>
  %r14 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e14 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.erfc %a : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // asinh
  %e15 = tensor.empty() : tensor<8x512xf32>
  %r15 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e15 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.asinh %a : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  // cbrt
  %e16 = tensor.empty() : tensor<8x512xf32>
  %r16 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x512xf32>) outs(%e16 : tensor<8x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.cbrt %a : f32
    linalg.yield %r : f32
  } -> tensor<8x512xf32>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16 : tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>, tensor<8x512xf32>
}
