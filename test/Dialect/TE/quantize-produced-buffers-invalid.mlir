// RUN: te-opt %s -split-input-file -verify-diagnostics

// Every verifier message of te.quantize_produced_buffers (the producer
// program's encoder and the input-layout rule included). Current scaling
// 32x64 rowwise on sm_90: _data 32x64xf8E4M3FN, _scale_inv 1xf32.

func.func @mixed(%x: tensor<32x64xbf16>, %d: memref<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{mixes tensor and memref operands}}
  te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : memref<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  }
  return
}

// -----

func.func @value_type(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{value_type must be a ranked tensor of bf16, f16 or f32 of rank 1 or more, got 'tensor<32x64xi8>'}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xi8> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @sizes(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %n: index) {
  // expected-error @+1 {{needs one size per dynamic dimension of 'tensor<32x64xbf16>', got 1}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> sizes(%n) quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @value_out(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %v: tensor<32x32xbf16>) {
  // expected-error @+1 {{value_out must be 32x64xbf16, got 32x32xbf16}}
  %r:3 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) value_out(%v : tensor<32x32xbf16>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>, tensor<32x32xbf16>
  return
}

// -----

func.func @maps(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{needs one indexing map per input: 1 inputs, 2 maps}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @arguments(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{body needs one argument per input: 1 inputs, 2 arguments}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16, %b: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @argument_type(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{body argument #0 must be 'bf16' (input #0's element type), got 'f32'}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: f32):
    %t = arith.truncf %a : f32 to bf16
    te.produce %t : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @map_dims(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{input #0 is not read at uniform row and column strides of the value: its indexing map does not index it by the loops}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0) -> (d0, d0)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @constant(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{input #0 is not read at uniform row and column strides of the value: it is indexed by the constant 0 in a dimension of size other than 1}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @expression(%x: tensor<32x32xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{input #0 is not read at uniform row and column strides of the value: it is indexed by an expression of the loops}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x32xbf16>) maps [affine_map<(d0, d1) -> (d0, d1 floordiv 2)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @twice(%x: tensor<64x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{input #0 is not read at uniform row and column strides of the value: it reads loop d1 twice}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<64x64xbf16>) maps [affine_map<(d0, d1) -> (d1, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @broadcast_leading(%x: tensor<16x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{input #0 is not read at uniform row and column strides of the value: it is broadcast along row loop d0 but not along d1 (the rows do not collapse into one stride)}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<16x64xbf16>) maps [affine_map<(d0, d1, d2) -> (d1, d2)>] value tensor<2x16x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @rows_transposed(%x: tensor<16x2x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{input #0 is not read at uniform row and column strides of the value: it reads the row loops d0 and d1 transposed}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<16x2x64xbf16>) maps [affine_map<(d0, d1, d2) -> (d1, d0, d2)>] value tensor<2x16x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @between(%x: tensor<2x64x16xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{input #0 is not read at uniform row and column strides of the value: dimension 1 lies between its row dimensions (the rows do not collapse into one stride)}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<2x64x16xbf16>) maps [affine_map<(d0, d1, d2) -> (d0, d2, d1)>] value tensor<2x16x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @input_size(%x: tensor<32x32xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{input #0 dimension 1 is 32, but loop d1 (dimension 1 of 'tensor<32x64xbf16>') is 64}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x32xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @unranked(%x: memref<*xbf16>, %d: memref<32x64xf8E4M3FN>, %s: memref<1xf32>) {
  // expected-error @+1 {{input #0 must be ranked}}
  te.quantize_produced_buffers ins(%x : memref<*xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  }
  return
}

// -----

func.func @produce_type(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{body must end in te.produce of a 'bf16' value}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    %e = arith.extf %a : bf16 to f32
    te.produce %e : f32
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @unsupported(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{body is not a producer program: an unsupported op 'math.sin'}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    %e = arith.extf %a : bf16 to f32
    // expected-note @+1 {{here}}
    %n = math.sin %e : f32
    %t = arith.truncf %n : f32 to bf16
    te.produce %t : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @fastmath(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{body is not a producer program: 'arith.addf' with fastmath flags (the program rounds every op)}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    // expected-note @+1 {{here}}
    %n = arith.addf %a, %a fastmath<fast> : bf16
    te.produce %n : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @rounding(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{body is not a producer program: 'arith.truncf' with a rounding mode other than to_nearest_even}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    %e = arith.extf %a : bf16 to f32
    // expected-note @+1 {{here}}
    %t = arith.truncf %e downward : f32 to bf16
    te.produce %t : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @f64(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{body is not a producer program: 'arith.extf' of type f64 (the program computes bf16, f16, f32 and i1)}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    // expected-note @+1 {{here}}
    %e = arith.extf %a : bf16 to f64
    %t = arith.truncf %e : f64 to bf16
    te.produce %t : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @inexact_constant(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{body is not a producer program: 'arith.constant' of type f64 (the program computes bf16, f16, f32 and i1)}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    // expected-note @+1 {{here}}
    %c = arith.constant 0.1 : f64
    %t = arith.truncf %c : f64 to bf16
    %n = arith.addf %a, %t : bf16
    te.produce %n : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @input_type(%x: tensor<32x64xi8>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{body is not a producer program: an input of type i8 (the program reads bf16, f16, f32 and i1)}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xi8>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: i8):
    %f = arith.sitofp %a : i8 to bf16
    te.produce %f : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @too_long(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{body is not a producer program: more than 64 instructions (65)}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    %v0 = arith.addf %a, %a : bf16
    %v1 = arith.addf %v0, %a : bf16
    %v2 = arith.addf %v1, %a : bf16
    %v3 = arith.addf %v2, %a : bf16
    %v4 = arith.addf %v3, %a : bf16
    %v5 = arith.addf %v4, %a : bf16
    %v6 = arith.addf %v5, %a : bf16
    %v7 = arith.addf %v6, %a : bf16
    %v8 = arith.addf %v7, %a : bf16
    %v9 = arith.addf %v8, %a : bf16
    %v10 = arith.addf %v9, %a : bf16
    %v11 = arith.addf %v10, %a : bf16
    %v12 = arith.addf %v11, %a : bf16
    %v13 = arith.addf %v12, %a : bf16
    %v14 = arith.addf %v13, %a : bf16
    %v15 = arith.addf %v14, %a : bf16
    %v16 = arith.addf %v15, %a : bf16
    %v17 = arith.addf %v16, %a : bf16
    %v18 = arith.addf %v17, %a : bf16
    %v19 = arith.addf %v18, %a : bf16
    %v20 = arith.addf %v19, %a : bf16
    %v21 = arith.addf %v20, %a : bf16
    %v22 = arith.addf %v21, %a : bf16
    %v23 = arith.addf %v22, %a : bf16
    %v24 = arith.addf %v23, %a : bf16
    %v25 = arith.addf %v24, %a : bf16
    %v26 = arith.addf %v25, %a : bf16
    %v27 = arith.addf %v26, %a : bf16
    %v28 = arith.addf %v27, %a : bf16
    %v29 = arith.addf %v28, %a : bf16
    %v30 = arith.addf %v29, %a : bf16
    %v31 = arith.addf %v30, %a : bf16
    %v32 = arith.addf %v31, %a : bf16
    %v33 = arith.addf %v32, %a : bf16
    %v34 = arith.addf %v33, %a : bf16
    %v35 = arith.addf %v34, %a : bf16
    %v36 = arith.addf %v35, %a : bf16
    %v37 = arith.addf %v36, %a : bf16
    %v38 = arith.addf %v37, %a : bf16
    %v39 = arith.addf %v38, %a : bf16
    %v40 = arith.addf %v39, %a : bf16
    %v41 = arith.addf %v40, %a : bf16
    %v42 = arith.addf %v41, %a : bf16
    %v43 = arith.addf %v42, %a : bf16
    %v44 = arith.addf %v43, %a : bf16
    %v45 = arith.addf %v44, %a : bf16
    %v46 = arith.addf %v45, %a : bf16
    %v47 = arith.addf %v46, %a : bf16
    %v48 = arith.addf %v47, %a : bf16
    %v49 = arith.addf %v48, %a : bf16
    %v50 = arith.addf %v49, %a : bf16
    %v51 = arith.addf %v50, %a : bf16
    %v52 = arith.addf %v51, %a : bf16
    %v53 = arith.addf %v52, %a : bf16
    %v54 = arith.addf %v53, %a : bf16
    %v55 = arith.addf %v54, %a : bf16
    %v56 = arith.addf %v55, %a : bf16
    %v57 = arith.addf %v56, %a : bf16
    %v58 = arith.addf %v57, %a : bf16
    %v59 = arith.addf %v58, %a : bf16
    %v60 = arith.addf %v59, %a : bf16
    %v61 = arith.addf %v60, %a : bf16
    %v62 = arith.addf %v61, %a : bf16
    %v63 = arith.addf %v62, %a : bf16
    %v64 = arith.addf %v63, %a : bf16
    te.produce %v64 : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @too_many_inputs(%x0: tensor<32x64xbf16>, %x1: tensor<32x64xbf16>, %x2: tensor<32x64xbf16>, %x3: tensor<32x64xbf16>, %x4: tensor<32x64xbf16>, %x5: tensor<32x64xbf16>, %x6: tensor<32x64xbf16>, %x7: tensor<32x64xbf16>, %x8: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{body is not a producer program: more than 8 inputs (9)}}
  %r:2 = te.quantize_produced_buffers ins(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7, %x8 : tensor<32x64xbf16>, tensor<32x64xbf16>, tensor<32x64xbf16>, tensor<32x64xbf16>, tensor<32x64xbf16>, tensor<32x64xbf16>, tensor<32x64xbf16>, tensor<32x64xbf16>, tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a0: bf16, %a1: bf16, %a2: bf16, %a3: bf16, %a4: bf16, %a5: bf16, %a6: bf16, %a7: bf16, %a8: bf16):
    te.produce %a0 : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @delayed_scale(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %amax: tensor<1xf32>) {
  // expected-error @+1 {{with a #te.delayed quantizer needs the live 'scale' operand}}
  %r:3 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.delayed<f8E4M3FN> usage rowwise outs(%d, %s, %amax : tensor<32x64xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
  return
}

// -----

func.func @scale(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{takes a 'scale' operand only with a #te.delayed quantizer}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> scale(%s : tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @seed(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %seed: i64) {
  // expected-error @+1 {{takes 'seed' and 'offset' exactly when the quantizer rounds stochastically}}
  %r:2 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> seed %seed quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @buffers(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{output expects 2 buffers on sm_90 (_data, _scale_inv), got 1}}
  %r:1 = te.quantize_produced_buffers ins(%x : tensor<32x64xbf16>) maps [affine_map<(d0, d1) -> (d0, d1)>] value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise outs(%d : tensor<32x64xf8E4M3FN>) {
  ^bb0(%a: bf16):
    te.produce %a : bf16
  } -> tensor<32x64xf8E4M3FN>
  return
}
