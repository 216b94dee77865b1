// RUN: te-opt %s -split-input-file -verify-diagnostics

// Every verifier message of the buffer-level ops. Layouts by hand from
// docs/formats.md §3 (current 32x64 rowwise on sm_90: _data 32x64,
// _scale_inv 1).

func.func @mixed(%x: tensor<32x64xbf16>, %d: memref<32x64xf8E4M3FN>, %s: memref<1xf32>) {
  // expected-error @below {{mixes tensor and memref operands}}
  te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : tensor<32x64xbf16>
  return
}

// -----

func.func @memref_results(%x: memref<32x64xbf16>, %d: memref<32x64xf8E4M3FN>, %s: memref<1xf32>) {
  // expected-error @below {{on memrefs has no results, got 1}}
  %r = te.dequantize_buffers %d, %s quantizer #te.current<f8E4M3FN> usage rowwise outs(%x : memref<32x64xbf16>) : memref<32x64xf8E4M3FN>, memref<1xf32> -> tensor<32x64xbf16>
  return
}

// -----

func.func @input_type(%x: tensor<32x64xi8>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @below {{input must be bf16, f16 or f32, got 'i8'}}
  %r:2 = te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) : tensor<32x64xi8> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @delayed_scale(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @below {{with a #te.delayed quantizer needs the live 'scale' operand}}
  %r:2 = te.quantize_buffers %x quantizer #te.delayed<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @scale_not_delayed(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @below {{takes a 'scale' operand only with a #te.delayed quantizer}}
  %r:2 = te.quantize_buffers %x scale(%s : tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @seed(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %seed: i64) {
  // expected-error @below {{takes 'seed' and 'offset' exactly when the quantizer rounds stochastically}}
  %r:2 = te.quantize_buffers %x seed %seed offset %seed quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @count(%x: tensor<32x64xbf16>, %d: tensor<32x64xf8E4M3FN>) {
  // expected-error @below {{output expects 2 buffers on sm_90 (_data, _scale_inv), got 1}}
  %r = te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise outs(%d : tensor<32x64xf8E4M3FN>) : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>
  return
}

// -----

func.func @buffer_type(%x: tensor<32x64xbf16>, %d: tensor<64x32xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @below {{output buffer #0 (_data) must be 32x64xf8E4M3FN on sm_90, got 64x32xf8E4M3FN}}
  %r:2 = te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise outs(%d, %s : tensor<64x32xf8E4M3FN>, tensor<1xf32>) : tensor<32x64xbf16> -> tensor<64x32xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @format_error(%x: tensor<32x100xbf16>, %d: tensor<32x100xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>) {
  // expected-error @below {{output: MXFP8 needs}}
  %r:2 = te.quantize_buffers %x quantizer #te.mxfp8<f8E4M3FN> usage rowwise outs(%d, %s : tensor<32x100xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) : tensor<32x100xbf16> -> tensor<32x100xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  return
}

// -----

func.func @dq_outs(%d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %y: tensor<32x64xf32>) {
  // expected-error @below {{writes one high-precision tensor, got 2 'outs' operands}}
  %r:2 = te.dequantize_buffers %d, %s quantizer #te.current<f8E4M3FN> usage rowwise outs(%y, %y : tensor<32x64xf32>, tensor<32x64xf32>) : tensor<32x64xf8E4M3FN>, tensor<1xf32> -> tensor<32x64xf32>, tensor<32x64xf32>
  return
}

// -----

func.func @dq_type(%d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %y: tensor<32x64xi32>) {
  // expected-error @below {{result must be bf16, f16 or f32, got 'i32'}}
  %r = te.dequantize_buffers %d, %s quantizer #te.current<f8E4M3FN> usage rowwise outs(%y : tensor<32x64xi32>) : tensor<32x64xf8E4M3FN>, tensor<1xf32> -> tensor<32x64xi32>
  return
}

// -----

func.func @dq_columnwise(%d: tensor<32x64xf8E4M3FN>, %s: tensor<4x128xf8E8M0FNU>, %y: tensor<32x64xf32>) {
  // expected-error @below {{needs rowwise usage: only per-tensor FP8 and 128x128-block tensors dequantize from columnwise data}}
  %r = te.dequantize_buffers %d, %s quantizer #te.mxfp8<f8E4M3FN> usage columnwise outs(%y : tensor<32x64xf32>) : tensor<32x64xf8E4M3FN>, tensor<4x128xf8E8M0FNU> -> tensor<32x64xf32>
  return
}

// -----

func.func @gemm_usage_a(%t: tensor<64x32xf8E4M3FN>, %s: tensor<1xf32>, %d: tensor<32x64xf8E4M3FN>, %o: tensor<32x32xbf16>) {
  // expected-error @below {{layout TN reads operand A rowwise, but it holds only columnwise}}
  %r = te.gemm_buffers layout TN a(%t, %s : tensor<64x32xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage columnwise shape [32, 64]
      b(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      outs(%o : tensor<32x32xbf16>) -> tensor<32x32xbf16>
  return
}

// -----

func.func @gemm_usage_b(%t: tensor<64x32xf8E4M3FN>, %s: tensor<1xf32>, %d: tensor<32x64xf8E4M3FN>, %o: tensor<64x64xbf16>) {
  // expected-error @below {{layout NT reads operand B columnwise, but it holds only rowwise}}
  %r = te.gemm_buffers layout NT a(%t, %s : tensor<64x32xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage columnwise shape [32, 64]
      b(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      outs(%o : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return
}

// -----

func.func @gemm_rank(%d: tensor<2x16x64xf8E4M3FN>, %s: tensor<1xf32>, %o: tensor<2x16x32xbf16>) {
  // expected-error @below {{layout TN needs operand A of rank 2}}
  %r = te.gemm_buffers layout TN a(%d, %s : tensor<2x16x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [2, 16, 64]
      b(%d, %s : tensor<2x16x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [2, 16, 64]
      outs(%o : tensor<2x16x32xbf16>) -> tensor<2x16x32xbf16>
  return
}

// -----

// The operand rules of te.gemm hold at the buffer level too (Format's
// verifyGemmOperands and gemmShape): te_rt_gemm refuses the same GEMMs.
func.func @gemm_e5m2_pair(%d: tensor<32x64xf8E5M2>, %s: tensor<1xf32>, %o: tensor<32x32xbf16>) {
  // expected-error @below {{GEMM multiplies two f8E5M2 operands (A and B): cuBLASLt's FP8 GEMM takes E4M3 x E4M3, E4M3 x E5M2 and E5M2 x E4M3, not E5M2 x E5M2}}
  %r = te.gemm_buffers layout TN a(%d, %s : tensor<32x64xf8E5M2>, tensor<1xf32>) quantizer #te.current<f8E5M2> usage rowwise shape [32, 64]
      b(%d, %s : tensor<32x64xf8E5M2>, tensor<1xf32>) quantizer #te.delayed<f8E5M2> usage rowwise shape [32, 64]
      outs(%o : tensor<32x32xbf16>) -> tensor<32x32xbf16>
  return
}

// -----

func.func @gemm_families(%d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %bd: tensor<32x64xf8E4M3FN>, %bs: tensor<1x32xf32>, %o: tensor<32x32xbf16>) {
  // expected-error @below {{GEMM mixes recipe families: A is per-tensor FP8, B is FP8 block scaling}}
  %r = te.gemm_buffers layout TN a(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      b(%bd, %bs : tensor<32x64xf8E4M3FN>, tensor<1x32xf32>) quantizer #te.block<f8E4M3FN> usage rowwise shape [32, 64]
      outs(%o : tensor<32x32xbf16>) -> tensor<32x32xbf16>
  return
}

// -----

func.func @gemm_contraction(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xf8E4M3FN>, %s: tensor<1xf32>, %o: tensor<32x32xbf16>) {
  // expected-error @below {{contraction dimensions differ: A [32, 64] has K = 64, B [32, 32] has K = 32}}
  %r = te.gemm_buffers layout TN a(%a, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      b(%b, %s : tensor<32x32xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 32]
      outs(%o : tensor<32x32xbf16>) -> tensor<32x32xbf16>
  return
}

// -----

func.func @gemm_k16(%d: tensor<32x40xf8E4M3FN>, %s: tensor<1xf32>, %o: tensor<32x32xbf16>) {
  // expected-error @below {{needs the contraction dimension K divisible by 16, got 40}}
  %r = te.gemm_buffers layout TN a(%d, %s : tensor<32x40xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 40]
      b(%d, %s : tensor<32x40xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 40]
      outs(%o : tensor<32x32xbf16>) -> tensor<32x32xbf16>
  return
}

// -----

func.func @gemm_d(%d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %o: tensor<32x16xbf16>) {
  // expected-error @below {{D must be 32x32xbf16 in bf16, f16 or f32, got 32x16xbf16}}
  %r = te.gemm_buffers layout TN a(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      b(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      outs(%o : tensor<32x16xbf16>) -> tensor<32x16xbf16>
  return
}

// -----

func.func @gemm_d_count(%d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %o: tensor<32x32xbf16>) {
  // expected-error @below {{writes one high-precision D, got 2 'outs' operands}}
  %r:2 = te.gemm_buffers layout TN a(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      b(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      outs(%o, %o : tensor<32x32xbf16>, tensor<32x32xbf16>) -> tensor<32x32xbf16>, tensor<32x32xbf16>
  return
}

// -----

func.func @gemm_scale(%d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %o: tensor<32x32xbf16>) {
  // expected-error @below {{takes a 'scale' operand only with a #te.delayed output quantizer}}
  %r = te.gemm_buffers layout TN a(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      b(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      scale(%s : tensor<1xf32>) outs(%o : tensor<32x32xbf16>) -> tensor<32x32xbf16>
  return
}

// -----

func.func @gemm_accumulate_quantized(%d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %q: tensor<32x32xf8E4M3FN>) {
  // expected-error @below {{cannot accumulate into a quantized result}}
  %r:2 = te.gemm_buffers layout TN a(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      b(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      outs(%q, %s : tensor<32x32xf8E4M3FN>, tensor<1xf32>) {accumulate, out_quantizer = #te.current<f8E4M3FN>} -> tensor<32x32xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @gemm_delayed_out(%d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %q: tensor<32x32xf8E4M3FN>) {
  // expected-error @below {{with a #te.delayed output quantizer needs its live 'scale' operand}}
  %r:3 = te.gemm_buffers layout TN a(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      b(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      outs(%q, %s, %s : tensor<32x32xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>) {out_quantizer = #te.delayed<f8E4M3FN>} -> tensor<32x32xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
  return
}

// -----

func.func @gemm_operand_buffers(%d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>, %o: tensor<32x32xbf16>) {
  // expected-error @below {{operand B expects 2 buffers on sm_90 (_data, _scale_inv), got 1}}
  %r = te.gemm_buffers layout TN a(%d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      b(%d : tensor<32x64xf8E4M3FN>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      outs(%o : tensor<32x32xbf16>) -> tensor<32x32xbf16>
  return
}

// -----

// A 0-d operand (per-tensor scaling quantizes 0-d tensors) is not a matrix.
func.func @gemm_scalar(%w: tensor<32x64xf8E4M3FN>, %e: tensor<f8E4M3FN>, %s: tensor<1xf32>, %o: tensor<32xbf16>) {
  // expected-error @below {{'te.gemm_buffers' op needs operands of rank >= 1 (a 0-d tensor is not a matrix)}}
  %r = te.gemm_buffers layout TN a(%w, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      b(%e, %s : tensor<f8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape []
      outs(%o : tensor<32xbf16>) -> tensor<32xbf16>
  return
}
