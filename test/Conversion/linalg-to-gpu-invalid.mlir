// te-linalg-to-gpu refuses what it cannot run as a kernel, naming the op.
//
// RUN: te-opt %s --te-linalg-to-gpu --split-input-file --verify-diagnostics

#in = affine_map<(d0, d1) -> (d0, d1)>
// An output indexed by a reduction loop (each element rewritten at every step
// of that loop): no kernel walks that order.
func.func @output_reduced(%x: memref<16x32xf32>, %r: memref<16x32xf32>) {
  // expected-error @+1 {{te-linalg-to-gpu: output 0 is indexed by reduction loop 1, which has no GPU lowering}}
  linalg.generic {indexing_maps = [#in, #in], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x32xf32>) outs(%r : memref<16x32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.subf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Still on tensors: bufferize first.
func.func @tensors(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error @+1 {{te-linalg-to-gpu: expects memref operands (run one-shot bufferization first)}}
  %c = linalg.copy ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// A linalg op that is not a structured op (no generic form).
func.func @softmax(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{te-linalg-to-gpu: te has no GPU lowering for this op; on GPU targets every op on tensor data runs on the device}}
  linalg.softmax dimension(1) ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
  return
}

// -----

#id = affine_map<(d0) -> (d0)>
// A cast to FP8 in a kernel: no NVVM lowering; te.quantize does it.
func.func @to_fp8(%x: memref<256xf32>, %y: memref<256xf8E4M3FN>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<256xf32>) outs(%y : memref<256xf8E4M3FN>) {
  ^bb0(%a: f32, %o: f8E4M3FN):
    // expected-error @+1 {{'arith.truncf' op te-linalg-to-gpu: a conversion to or from 'f8E4M3FN' has no GPU lowering; quantize with te.quantize}}
    %t = arith.truncf %a : f32 to f8E4M3FN
    linalg.yield %t : f8E4M3FN
  }
  return
}
