// te-linalg-to-gpu refuses what it cannot run as a kernel, naming the op.
//
// RUN: te-opt %s --te-linalg-to-gpu --split-input-file --verify-diagnostics

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
// Subtraction is not associative: no parallel reduction.
func.func @not_associative(%x: memref<1024xf32>, %r: memref<f32>) {
  // expected-error @+1 {{te-linalg-to-gpu: this reduction has no GPU lowering: its region must yield `combine(acc, value)` with one associative combiner (arith add, mul, max, min, and, or, xor) and use the accumulator nowhere else}}
  linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]}
      ins(%x : memref<1024xf32>) outs(%r : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.subf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
// Sum and max in one op: one output per reduction kernel.
func.func @two_outputs(%x: memref<1024xf32>, %s: memref<f32>, %m: memref<f32>) {
  // expected-error @+1 {{te-linalg-to-gpu: a reduction with 2 outputs has no GPU lowering (one output is supported)}}
  linalg.generic {indexing_maps = [#id, #scalar, #scalar], iterator_types = ["reduction"]}
      ins(%x : memref<1024xf32>) outs(%s, %m : memref<f32>, memref<f32>) {
  ^bb0(%a: f32, %acc: f32, %mx: f32):
    %r = arith.addf %acc, %a : f32
    %q = arith.maxnumf %mx, %a : f32
    linalg.yield %r, %q : f32, f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
// The accumulator used outside its combiner (acc * acc + x).
func.func @acc_reused(%x: memref<1024xf32>, %r: memref<f32>) {
  // expected-error @+1 {{te-linalg-to-gpu: this reduction has no GPU lowering}}
  linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]}
      ins(%x : memref<1024xf32>) outs(%r : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %acc, %acc : f32
    %s = arith.addf %sq, %a : f32
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
    // expected-error @+1 {{'arith.truncf' op te-linalg-to-gpu: a conversion to or from 'f8E4M3FN' has no GPU lowering; quantize with te.quantize (or compile for target=cpu)}}
    %t = arith.truncf %a : f32 to f8E4M3FN
    linalg.yield %t : f8E4M3FN
  }
  return
}
