// te-eliminate-aliases' statistics (-mlir-pass-statistics): what each of its
// steps did. Counted only where LLVM counts statistics (a build with
// assertions or LLVM_FORCE_ENABLE_STATS: lit feature pass-statistics).
//
// REQUIRES: pass-statistics
// RUN: te-opt %s --te-eliminate-aliases --allow-unregistered-dialect -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// CHECK: Pass statistics report
// CHECK: TEEliminateAliases
// CHECK-DAG: (S) 1 quantizations-deduplicated - te.quantize ops merged into an equal one that dominates them
// CHECK-DAG: (S) 1 quantizations-hoisted - te.quantize ops hoisted out of loops
// CHECK-DAG: (S) 1 results-copied - returned values of public functions copied
// CHECK-DAG: (S) 1 results-removed - function results removed (an argument or another result)

!R = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
!C = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, columnwise>
!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>

// Two equal quantizations of one value: one is done (deduplicated).
func.func @dedup(%w: tensor<64x128xbf16>) {
  %a = te.quantize %w : tensor<64x128xbf16> -> !R
  %b = te.quantize %w : tensor<64x128xbf16> -> !C
  "test.use"(%a, %b) : (!R, !C) -> ()
  return
}

// A loop-invariant quantization (hoisted).
func.func @hoist(%w: tensor<64x128xbf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %q = te.quantize %w : tensor<64x128xbf16> -> !R
    "test.use"(%q) : (!R) -> ()
  }
  return
}

// A private function returning one value twice (one result removed).
func.func private @forward_miss(%w: tensor<64x128xbf16>) -> (!W, !W) {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !W
  return %wq, %wq : !W, !W
}
func.func @caller_miss(%w: tensor<64x128xbf16>) {
  %r:2 = call @forward_miss(%w) : (tensor<64x128xbf16>) -> (!W, !W)
  "test.use"(%r#0, %r#1) : (!W, !W) -> ()
  return
}

// A public function returning its argument (a copy is returned).
func.func @returns_argument(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
