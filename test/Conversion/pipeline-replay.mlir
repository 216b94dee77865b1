// The pipeline te-pipeline prints (--dump-pass-pipeline, and the reproducer
// a crash writes) parses back and compiles to the same output: its own
// passes, te-deallocate and te-lower-if-present, are registered. Both are
// usable alone too.
//
// RUN: %python %te_src_root/test/Conversion/Inputs/replay-pipeline.py te-opt %s "target=cpu" | FileCheck %s --check-prefix=REPLAY
// RUN: %python %te_src_root/test/Conversion/Inputs/replay-pipeline.py te-opt %s "target=sm_90 reference=true" | FileCheck %s --check-prefix=REPLAY
// RUN: te-opt %s --te-pipeline="target=cpu lower-to-llvm=false" | te-opt --te-deallocate --te-lower-if-present | FileCheck %s --check-prefix=ALONE

// REPLAY: pass: te-set-target
// REPLAY: pass: one-shot-bufferize
// REPLAY: pass: te-deallocate
// REPLAY: pass: convert-te-to-runtime
// REPLAY: pass: te-lower-if-present
// REPLAY: pass: convert-to-llvm
// REPLAY: outputs identical

// After te-pipeline's own deallocation, te-deallocate finds the straight-line
// function already freed and frees nothing twice; te-lower-if-present has
// nothing to lower (only runtime calls and allocations are left).
// ALONE-LABEL: func.func @step(
// ALONE-COUNT-4: llvm.call @free(
// ALONE-NOT: llvm.call @free(
// ALONE-NOT: memref.dealloc
// ALONE: return
!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
!X = !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>
func.func @step(%w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>) -> tensor<32x64xbf16> {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !W
  %xq = te.quantize %x : tensor<32x128xbf16> -> !X
  %y = te.gemm %wq, %xq layout TN : !W, !X -> tensor<32x64xbf16>
  return %y : tensor<32x64xbf16>
}
