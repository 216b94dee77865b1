// te-pipeline's buffer deallocation (TEDeallocate): a module of straight-line
// functions is freed directly -- every buffer that is not returned, once, at
// the end; the returned one belongs to the caller -- and anything else goes
// through the upstream deallocation pipeline. The Integration tests run
// both kinds (straight-line steps, microbatch loops) against their oracles.
//
// RUN: te-opt %s --split-input-file --te-pipeline="target=cpu lower-to-llvm=false" | FileCheck %s
// RUN: te-opt %s --split-input-file --te-pipeline="target=cpu" -o /dev/null

// Straight-line: the four quantized buffers (data + scale of each operand)
// are freed after the GEMM, the GEMM's output is returned and not freed.
// CHECK-LABEL: func.func @straight(
// CHECK-NOT: bufferization.
// CHECK-COUNT-4: llvm.call @aligned_alloc
// CHECK: %[[Y:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32x64xbf16>
// CHECK: call @te_rt_mlir_gemm(
// CHECK-COUNT-4: llvm.call @free(
// CHECK-NOT: memref.dealloc
// CHECK-NOT: dealloc_helper
// CHECK: return %[[Y]] : memref<32x64xbf16>
!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
!X = !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>
func.func @straight(%w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>) -> tensor<32x64xbf16> {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !W
  %xq = te.quantize %x : tensor<32x128xbf16> -> !X
  %y = te.gemm %wq, %xq layout TN : !W, !X -> tensor<32x64xbf16>
  return %y : tensor<32x64xbf16>
}

// -----

// Not straight-line (a result chosen by scf.if, one branch a constant):
// ownership-based deallocation, with its run-time alias check.
// CHECK-LABEL: func.func @branchy(
// CHECK: scf.if %{{.*}} -> (memref<32x64xbf16>, memref<32x64xbf16>)
// CHECK: bufferization.clone
// CHECK: call @dealloc_helper(
// CHECK: scf.if
// CHECK-NEXT: memref.dealloc %{{.*}} : memref<64x128xf8E4M3FN>
!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
!X = !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>
func.func @branchy(%w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>, %c: i1) -> tensor<32x64xbf16> {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !W
  %xq = te.quantize %x : tensor<32x128xbf16> -> !X
  %y = scf.if %c -> tensor<32x64xbf16> {
    %g = te.gemm %wq, %xq layout TN : !W, !X -> tensor<32x64xbf16>
    scf.yield %g : tensor<32x64xbf16>
  } else {
    %g = arith.constant dense<0.0> : tensor<32x64xbf16>
    scf.yield %g : tensor<32x64xbf16>
  }
  return %y : tensor<32x64xbf16>
}
