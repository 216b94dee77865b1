// te-fuse-quantize: the quantizations it leaves alone, each with the remark
// saying why; a quantization of a function argument gets none.
//
// RUN: te-opt %s --te-fuse-quantize --split-input-file -verify-diagnostics | FileCheck %s
// RUN: te-opt %s --te-fuse-quantize="remarks=false" --split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @argument
// CHECK: te.quantize_buffers %arg0
func.func @argument(%x: tensor<32x64xbf16>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  %q:2 = te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A matrix product: not elementwise.
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.matmul
// CHECK: te.quantize_buffers
func.func @matmul(%a: tensor<32x16xf32>, %b: tensor<16x64xf32>, %c: tensor<32x64xf32>)
    -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %m = linalg.matmul ins(%a, %b : tensor<32x16xf32>, tensor<16x64xf32>) outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: its input is computed by 'linalg.matmul', not an elementwise linalg.generic}}
  %q:2 = te.quantize_buffers %m quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>

// A reduction.
// CHECK-LABEL: func.func @reduction
// CHECK: linalg.generic
// CHECK: te.quantize_buffers
func.func @reduction(%x: tensor<32x64x8xf32>, %z: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<32x64x8xf32>) outs(%z : tensor<32x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<32x64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: its producer is a reduction (loop d2), not elementwise}}
  %q:2 = te.quantize_buffers %s quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// An operation the program does not encode.
// CHECK-LABEL: func.func @sine
// CHECK: math.sin
// CHECK: te.quantize_buffers
func.func @sine(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sin %in : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: its producer's body holds an unsupported op 'math.sin'}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The element's indices (linalg.index) are not part of the program.
// CHECK-LABEL: func.func @index
// CHECK: te.quantize_buffers
func.func @index(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %s = arith.addf %in, %f : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: its producer's body holds an unsupported op 'linalg.index'}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Fastmath flags let the unfused kernel contract or reassociate: the
// program rounds every op, so it would not give the same bits.
// CHECK-LABEL: func.func @fastmath
// CHECK: te.quantize_buffers
func.func @fastmath(%x: tensor<32x64xf32>, %y: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<32x64xf32>, tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %m = arith.mulf %in, %in2 fastmath<contract> : f32
    %s = arith.addf %m, %in fastmath<contract> : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: its producer's body holds 'arith.mulf' with fastmath flags (the program rounds every op)}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#pos = affine_map<(d0, d1, d2) -> (d1, d2)>

// A positional embedding added to every sequence of the batch: broadcast
// along d0 but not d1, so the flattened rows do not read it at one stride.
// CHECK-LABEL: func.func @broadcast_leading
// CHECK: te.quantize_buffers
func.func @broadcast_leading(%x: tensor<2x16x64xbf16>, %p: tensor<16x64xbf16>)
    -> (tensor<2x16x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<2x16x64xbf16>
  %a = linalg.generic {indexing_maps = [#id3, #pos, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %p : tensor<2x16x64xbf16>, tensor<16x64xbf16>) outs(%init : tensor<2x16x64xbf16>) {
  ^bb0(%a0: bf16, %a1: bf16, %out: bf16):
    %s = arith.addf %a0, %a1 : bf16
    linalg.yield %s : bf16
  } -> tensor<2x16x64xbf16>
  %e0 = tensor.empty() : tensor<2x16x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: input #1 of its producer: it is broadcast along row loop d0 but not along d1 (the rows do not collapse into one stride)}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<2x16x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<2x16x64xbf16> -> tensor<2x16x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<2x16x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d1)>

// Another reader before the quantization would read a value written after.
// CHECK-LABEL: func.func @reader_before
// CHECK: te.quantize_buffers
func.func @reader_before(%x: tensor<32x64xf32>, %z: tensor<64xf32>)
    -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>, tensor<64xf32>) {
  %init = tensor.empty() : tensor<32x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.absf %in : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<32x64xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: 'linalg.generic' reads the producer's result before the quantization}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1, %sum : tensor<32x64xf8E4M3FN>, tensor<1xf32>, tensor<64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The producer outside the loop the quantization is in: fusing would
// compute it once per iteration.
// CHECK-LABEL: func.func @other_block
// CHECK: scf.for
// CHECK: te.quantize_buffers
func.func @other_block(%x: tensor<32x64xf32>, %n: index) -> tensor<1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = tensor.empty() : tensor<32x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.absf %in : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %e1 = tensor.empty() : tensor<1xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %e1) -> tensor<1xf32> {
    %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
    // expected-remark @below {{te-fuse-quantize: not fused: its producer is in another block (outside a loop or branch the quantization is in)}}
    %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
        outs(%e0, %acc : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
        : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
    scf.yield %q#1 : tensor<1xf32>
  }
  return %r : tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// An amax reduced across a process group has no fused entry point.
// CHECK-LABEL: func.func @group
// CHECK: te.quantize_buffers
func.func @group(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.absf %in : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: it reduces its amax across process group 'tp' (no fused entry point)}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise group "tp"
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Two results.
// CHECK-LABEL: func.func @two_results
// CHECK: te.quantize_buffers
func.func @two_results(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>, tensor<32x64xf32>) {
  %init = tensor.empty() : tensor<32x64xf32>
  %a:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xf32>) outs(%init, %init : tensor<32x64xf32>, tensor<32x64xf32>) {
  ^bb0(%in: f32, %o0: f32, %o1: f32):
    %s = math.absf %in : f32
    linalg.yield %s, %in : f32, f32
  } -> (tensor<32x64xf32>, tensor<32x64xf32>)
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: its producer (linalg.generic) has 2 results}}
  %q:2 = te.quantize_buffers %a#0 quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1, %a#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>, tensor<32x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// A result written through a permutation.
// CHECK-LABEL: func.func @transposed_result
// CHECK: te.quantize_buffers
func.func @transposed_result(%x: tensor<32x64xf32>) -> (tensor<64x32xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<64x32xf32>
  %a = linalg.generic {indexing_maps = [#id, #t], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xf32>) outs(%init : tensor<64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.absf %in : f32
    linalg.yield %s : f32
  } -> tensor<64x32xf32>
  %e0 = tensor.empty() : tensor<64x32xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: its producer writes its result through a non-identity map}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<64x32xf8E4M3FN>, tensor<1xf32>)
      : tensor<64x32xf32> -> tensor<64x32xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<64x32xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// An index value from outside the body is not a value of the program.
// CHECK-LABEL: func.func @index_from_above
// CHECK: te.quantize_buffers
func.func @index_from_above(%x: tensor<32x64xf32>, %k: i32) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %f = arith.sitofp %k : i32 to f32
    %s = arith.mulf %in, %f : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: its producer's body reads a value of type i32 defined outside it}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// An input of a type the program does not read.
// CHECK-LABEL: func.func @f64_input
// CHECK: te.quantize_buffers
func.func @f64_input(%x: tensor<32x64xf64>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xf64>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%in: f64, %out: f32):
    %s = arith.truncf %in : f64 to f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: its producer reads an operand of type tensor<32x64xf64> (the program reads bf16, f16, f32 and i1 tensors)}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// log1p and expm1: the compiled loops and the runtime's program compute
// them differently.
// CHECK-LABEL: func.func @log1p
// CHECK: te.quantize_buffers
func.func @log1p(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.log1p %in : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: its producer's body holds 'math.log1p', which the compiled cpu loops compute as logf(1 + x) and the runtime's program with the C library's log1pf}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @expm1
// CHECK: te.quantize_buffers
func.func @expm1(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.expm1 %in : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: its producer's body holds 'math.expm1', which the compiled cpu loops compute as expf(x) - 1 and the runtime's program with the C library's expm1f}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A chain of bf16 arithmetic (an SGD update w - 0.01 g): the compiled cpu
// loops keep the product in f32 for the subtraction, the program rounds it.
// CHECK-LABEL: func.func @bf16_chain
// CHECK: te.quantize_buffers
func.func @bf16_chain(%w: tensor<32x64xbf16>, %g: tensor<32x64xbf16>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g : tensor<32x64xbf16>, tensor<32x64xbf16>) outs(%init : tensor<32x64xbf16>) {
  ^bb0(%wi: bf16, %gi: bf16, %out: bf16):
    %lr = arith.constant 0.01 : bf16
    %m = arith.mulf %gi, %lr : bf16
    %d = arith.subf %wi, %m : bf16
    linalg.yield %d : bf16
  } -> tensor<32x64xbf16>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: not fused: its producer's body computes on bf16: 'arith.subf' reads 'arith.mulf''s result, which the compiled cpu loops keep in f32 (arith-emulate-unsupported-floats) and the runtime's program rounds}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}
