// te-infer-shapes' statistics (-mlir-pass-statistics). Counted only where
// LLVM counts statistics (a build with assertions or LLVM_FORCE_ENABLE_STATS:
// lit feature pass-statistics).
//
// REQUIRES: pass-statistics
// RUN: te-opt %s --te-infer-shapes -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// The inference does not restart: the 17 ops of the input and the 6 of the
// two specialisations each run their rule once, and 14 times again after an
// operand type changed (37 in all), although the optimistic refinement of
// the first loop of @loops is undone (one undone round of two). A restart
// from the input would run every rule again.
// CHECK: Pass statistics report
// CHECK: TEInferShapes
// CHECK-DAG: (S) 2 functions-specialised - functions cloned for a static signature
// CHECK-DAG: (S) 2 optimistic-loop-rounds - rounds refining loop arguments optimistically to their init's shape
// CHECK-DAG: (S) 1 optimistic-loop-rounds-undone - optimistic rounds undone: a value yielded back was less static than its loop argument
// CHECK-DAG: (S) 8 call-rounds - rounds of the steps across functions (callee signatures, function results, call results)
// CHECK-DAG: (S) 12 types-refined - values whose type was made more static
// CHECK-DAG: (S) 37 worklist-iterations - shape rules run: ops taken from the worklist (an op is queued again when an operand type changes)

!Q = !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>

// Called with two batch sizes: two specialisations.
func.func private @quantize(%x: tensor<?x64xbf16>) -> !Q {
  %q = te.quantize %x : tensor<?x64xbf16> -> !Q
  return %q : !Q
}

func.func @loops(%x: tensor<32x64xbf16>, %z: tensor<64x64xbf16>, %y: tensor<?x64xbf16>, %n: index)
    -> (tensor<?x64xbf16>, tensor<?x64xbf16>, !Q, !Q) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cx = tensor.cast %x : tensor<32x64xbf16> to tensor<?x64xbf16>
  %cz = tensor.cast %z : tensor<64x64xbf16> to tensor<?x64xbf16>
  // Yields a value of unknown batch: the optimistic refinement is undone.
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %cx) -> (tensor<?x64xbf16>) {
    scf.yield %y : tensor<?x64xbf16>
  }
  // Yields a value derived from its argument: refined optimistically.
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %cx) -> (tensor<?x64xbf16>) {
    %q = te.quantize %a : tensor<?x64xbf16> -> !Q
    %d = te.dequantize %q : !Q -> tensor<?x64xbf16>
    scf.yield %d : tensor<?x64xbf16>
  }
  %qx = call @quantize(%cx) : (tensor<?x64xbf16>) -> !Q
  %qz = call @quantize(%cz) : (tensor<?x64xbf16>) -> !Q
  return %r, %s, %qx, %qz : tensor<?x64xbf16>, tensor<?x64xbf16>, !Q, !Q
}
