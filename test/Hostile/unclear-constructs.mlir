// Constructs te-pipeline does not compile, each refused with a message that
// names it and says what to write instead. Before: "'te.quantize_buffers'
// op is still on tensors; run one-shot bufferization" (a nested module),
// "ptxas fatal: Unresolved extern function 'te_rt_mlir_alloc'" (a te op in
// a linalg.generic body on sm_90), "failed to legalize
// 'bufferization.clone'" (a memref entry returning a subview of its
// argument).
//
// RUN: not te-opt %s --split-input-file --te-pipeline="target=cpu lower-to-llvm=false" 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not te-opt %s --split-input-file --te-pipeline="target=sm_90 lower-to-llvm=false" 2>&1 | FileCheck %s --check-prefix=GPU

// CPU: unclear-constructs.mlir:[[# @LINE + 5]]:12: error: 'te.quantize_buffers' op is in a nested module: te-pipeline compiles the functions of the top-level module only; move them out of the nested 'builtin.module'
// GPU: unclear-constructs.mlir:[[# @LINE + 4]]:12: error: 'te.quantize_buffers' op is in a nested module
module {
  module @inner {
    func.func @main(%x: tensor<32x64xf32>) -> tensor<32x64xf32> {
      %q = te.quantize %x : tensor<32x64xf32> -> !te.qtensor<32x64xf32, #te.current<f8E4M3FN>, rowwise>
      %d = te.dequantize %q : !te.qtensor<32x64xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
      return %d : tensor<32x64xf32>
    }
  }
}

// -----

// On the cpu the body runs on the host and calls the runtime per element;
// on a GPU target it is a kernel.
// GPU: unclear-constructs.mlir:[[# @LINE + 6]]:10: error: 'te.quantize_buffers' op is inside a GPU kernel (the body of a linalg op or tensor.generate becomes one, run per element): te ops run from the host on whole tensors; apply it to the tensor before that op
#id = affine_map<(d0) -> (d0)>
func.func @in_body(%x: tensor<4xf32>, %w: tensor<32x64xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = te.quantize %w : tensor<32x64xf32> -> !te.qtensor<32x64xf32, #te.current<f8E4M3FN>, rowwise>
    %d = te.dequantize %q : !te.qtensor<32x64xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
    %c0 = arith.constant 0 : index
    %v = tensor.extract %d[%c0, %c0] : tensor<32x64xf32>
    %s = arith.addf %a, %v : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CPU: unclear-constructs.mlir:[[# @LINE + 3]]:8: error: this view 'memref<4x4xf32, strided<[8, 1], offset: 9>>' of memory the function does not own is returned (or carried out of a branch or loop), so it must be copied, and te-pipeline copies buffers of the identity layout only: return a copy instead (memref.alloc, then memref.copy into it)
// GPU: unclear-constructs.mlir:[[# @LINE + 2]]:8: error: this view 'memref<4x4xf32, strided<[8, 1], offset: 9>>' of memory the function does not own
func.func @subview(%x: memref<8x8xf32>) -> memref<4x4xf32, strided<[8, 1], offset: 9>> {
  %s = memref.subview %x[1, 1] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 9>>
  return %s : memref<4x4xf32, strided<[8, 1], offset: 9>>
}
