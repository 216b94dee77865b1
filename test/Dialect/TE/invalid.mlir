// RUN: te-opt %s -split-input-file -verify-diagnostics

// Every diagnostic of the te operations, one per split.

// quantize: shape
func.func @f(%x: tensor<32x64xbf16>) {
  // expected-error @+1 {{'te.quantize' op input shape [32, 64] does not match the result shape [32, 128]}}
  %0 = te.quantize %x : tensor<32x64xbf16> -> !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// quantize: nominal type
func.func @f(%x: tensor<32x64xf16>) {
  // expected-error @+1 {{'te.quantize' op input element type 'f16' does not match the nominal type 'bf16' of the result}}
  %0 = te.quantize %x : tensor<32x64xf16> -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// quantize: input type
func.func @f(%x: tensor<32x64xi32>) {
  // expected-error @+1 {{'te.quantize' op operand #0 must be ranked tensor of bfloat16 type or 16-bit float or 32-bit float values, but got 'tensor<32x64xi32>'}}
  %0 = te.quantize %x : tensor<32x64xi32> -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// quantize: delayed without scale
func.func @f(%x: tensor<32x64xbf16>) {
  // expected-error @+1 {{'te.quantize' op with a #te.delayed quantizer needs the live 'scale' operand}}
  %0 = te.quantize %x : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// quantize: delayed without amax
func.func @f(%x: tensor<32x64xbf16>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'te.quantize' op with a #te.delayed quantizer yields the amax: add a tensor<1xf32> result}}
  %0 = te.quantize %x scale %s : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// quantize: scale without delayed
func.func @f(%x: tensor<32x64xbf16>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'te.quantize' op takes a 'scale' operand only with a #te.delayed quantizer}}
  %0, %1 = te.quantize %x scale %s : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, tensor<1xf32>
  return
}

// -----

// quantize: amax without delayed
func.func @f(%x: tensor<32x64xbf16>) {
  // expected-error @+1 {{'te.quantize' op yields an amax only with a #te.delayed quantizer}}
  %0, %1 = te.quantize %x : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, tensor<1xf32>
  return
}

// -----

// quantize: stochastic rounding without seed
func.func @f(%x: tensor<32x64xbf16>) {
  // expected-error @+1 {{'te.quantize' op needs 'seed' and 'offset' operands: a quantizer rounds stochastically}}
  %0 = te.quantize %x : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
  return
}

// -----

// quantize: stochastic rounding without offset
func.func @f(%x: tensor<32x64xbf16>, %seed: i64) {
  // expected-error @+1 {{'te.quantize' op needs 'seed' and 'offset' operands: a quantizer rounds stochastically}}
  %0 = te.quantize %x seed %seed : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, rowwise|columnwise>
  return
}

// -----

// quantize: seed without stochastic rounding
func.func @f(%x: tensor<32x64xbf16>, %seed: i64, %off: i64) {
  // expected-error @+1 {{'te.quantize' op takes 'seed' and 'offset' only when a quantizer rounds stochastically}}
  %0 = te.quantize %x seed %seed offset %off : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
  return
}

// -----

// quantize: empty amax reduction group
func.func @f(%x: tensor<32x64xbf16>) {
  // expected-error @+1 {{'te.quantize' op needs a non-empty process group name}}
  %0 = te.quantize %x group "" : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>
  return
}

// -----

// quantize: amax reduction group with delayed scaling
func.func @f(%x: tensor<32x64xbf16>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'te.quantize' op reduces its amax across a group only with current scaling or NVFP4 (not row-scaled); delayed scaling reduces with te.allreduce_max before te.update_scale, block and MX scales are local}}
  %0, %1 = te.quantize %x scale %s group "tp" : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  return
}

// -----

// quantize: amax reduction group with block scaling
func.func @f(%x: tensor<32x128xbf16>) {
  // expected-error @+1 {{'te.quantize' op reduces its amax across a group only with current scaling or NVFP4 (not row-scaled)}}
  %0 = te.quantize %x group "tp" : tensor<32x128xbf16> -> !te.qtensor<32x128xbf16, #te.block<f8E4M3FN>, rowwise>
  return
}

// -----

// quantize: amax reduction group with MXFP8
func.func @f(%x: tensor<32x64xbf16>) {
  // expected-error @+1 {{'te.quantize' op reduces its amax across a group only with current scaling or NVFP4 (not row-scaled)}}
  %0 = te.quantize %x group "tp" : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  return
}

// -----

// quantize: amax reduction group with row-scaled NVFP4
func.func @f(%x: tensor<32x64xbf16>) {
  // expected-error @+1 {{'te.quantize' op reduces its amax across a group only with current scaling or NVFP4 (not row-scaled)}}
  %0 = te.quantize %x group "tp" : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, row_scaled = true>, rowwise>
  return
}

// -----

// dequantize: shape
func.func @f(%q: !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>) {
  // expected-error @+1 {{'te.dequantize' op result shape [32, 32] does not match the input shape [32, 64]}}
  %0 = te.dequantize %q : !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<32x32xf32>
  return
}

// -----

// dequantize: columnwise-only MXFP8
func.func @f(%q: !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, columnwise>) {
  // expected-error @+1 {{'te.dequantize' op needs rowwise usage: only per-tensor FP8 and 128x128-block tensors dequantize from columnwise data, got a MXFP8 tensor with usage columnwise}}
  %0 = te.dequantize %q : !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, columnwise> -> tensor<32x64xf32>
  return
}

// -----

// dequantize: columnwise-only 1x128 blocks
func.func @f(%q: !te.qtensor<32x64xbf16, #te.block<f8E4M3FN>, columnwise>) {
  // expected-error @+1 {{'te.dequantize' op needs rowwise usage: only per-tensor FP8 and 128x128-block tensors dequantize from columnwise data, got a FP8 block scaling tensor with usage columnwise}}
  %0 = te.dequantize %q : !te.qtensor<32x64xbf16, #te.block<f8E4M3FN>, columnwise> -> tensor<32x64xf32>
  return
}

// -----

// gemm: TN reads A rowwise
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op layout TN reads operand A rowwise, but it holds only columnwise}}
  %0 = te.gemm %a, %b layout TN : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xbf16>
  return
}

// -----

// gemm: NN reads A columnwise
func.func @f(%a: !te.qtensor<128x64xbf16, #te.current<f8E4M3FN>, rowwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op layout NN reads operand A columnwise, but it holds only rowwise}}
  %0 = te.gemm %a, %b layout NN : !te.qtensor<128x64xbf16, #te.current<f8E4M3FN>, rowwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xbf16>
  return
}

// -----

// gemm: NT reads B columnwise
func.func @f(%a: !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>) {
  // expected-error @+1 {{'te.gemm' op layout NT reads operand B columnwise, but it holds only rowwise}}
  %0 = te.gemm %a, %b layout NT : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<128x64xbf16>
  return
}

// -----

// gemm: TN reads B rowwise
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>) {
  // expected-error @+1 {{'te.gemm' op layout TN reads operand B rowwise, but it holds only columnwise}}
  %0 = te.gemm %a, %b layout TN : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise> -> tensor<32x64xbf16>
  return
}

// -----

// gemm: mixed recipes
func.func @f(%a: !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op GEMM mixes recipe families: A is MXFP8, B is NVFP4}}
  %0 = te.gemm %a, %b layout TN : !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise> -> tensor<32x64xbf16>
  return
}

// -----

// gemm: 2D x 2D blocks
func.func @f(%a: !te.qtensor<64x128xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op GEMM multiplies two 128x128-block operands (A and B): 2Dx2D block scaling is not supported}}
  %0 = te.gemm %a, %b layout TN : !te.qtensor<64x128xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise> -> tensor<32x64xbf16>
  return
}

// -----

// gemm: E5M2 x E5M2
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E5M2>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.delayed<f8E5M2>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op GEMM multiplies two f8E5M2 operands (A and B): cuBLASLt's FP8 GEMM takes E4M3 x E4M3, E4M3 x E5M2 and E5M2 x E4M3, not E5M2 x E5M2}}
  %0 = te.gemm %a, %b layout TN : !te.qtensor<64x128xbf16, #te.current<f8E5M2>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.delayed<f8E5M2>, rowwise|columnwise> -> tensor<32x64xbf16>
  return
}

// -----

// gemm: TN needs a rank-2 A
func.func @f(%a: !te.qtensor<2x32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op layout TN needs operand A of rank 2 ([N, K]), got [2, 32, 128]}}
  %0 = te.gemm %a, %b layout TN : !te.qtensor<2x32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xbf16>
  return
}

// -----

// gemm: NN needs a rank-2 A
func.func @f(%a: !te.qtensor<2x32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op layout NN needs operand A of rank 2 ([K, N]), got [2, 32, 128]}}
  %0 = te.gemm %a, %b layout NN : !te.qtensor<2x32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xbf16>
  return
}

// -----

// gemm: contraction mismatch
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x96xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op contraction dimensions differ: A [64, 128] has K = 128, B [32, 96] has K = 96}}
  %0 = te.gemm %a, %b layout TN : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x96xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xbf16>
  return
}

// -----

// gemm: K % 16
func.func @f(%a: !te.qtensor<64x40xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x40xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op needs the contraction dimension K divisible by 16, got 40}}
  %0 = te.gemm %a, %b layout TN : !te.qtensor<64x40xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x40xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xbf16>
  return
}

// -----

// gemm: result shape
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op result shape [32, 32] does not match layout TN of A [64, 128] and B [32, 128]: expected [32, 64]}}
  %0 = te.gemm %a, %b layout TN : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x32xbf16>
  return
}

// -----

// gemm: NT result shape
func.func @f(%a: !te.qtensor<4x8x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<4x8x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op result shape [64, 64] does not match layout NT of A [4, 8, 128] and B [4, 8, 64]: expected [64, 128]}}
  %0 = te.gemm %a, %b layout NT : !te.qtensor<4x8x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<4x8x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<64x64xbf16>
  return
}

// -----

// gemm: bias shape
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %bias: tensor<32xbf16>) {
  // expected-error @+1 {{'te.gemm' op bias must have shape [N] = [64], got [32]}}
  %0 = te.gemm %a, %b layout TN bias(%bias : tensor<32xbf16>) : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xbf16>
  return
}

// -----

// gemm: accumulate into a quantized result
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %c: tensor<32x64xbf16>) {
  // expected-error @+1 {{'te.gemm' op cannot accumulate into a quantized result}}
  %0 = te.gemm %a, %b layout TN accumulate(%c : tensor<32x64xbf16>) : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>
  return
}

// -----

// gemm: accumulator type
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %c: tensor<32x64xbf16>) {
  // expected-error @+1 {{'te.gemm' op accumulator type 'tensor<32x64xbf16>' must be the result type 'tensor<32x64xf32>'}}
  %0 = te.gemm %a, %b layout TN accumulate(%c : tensor<32x64xbf16>) : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xf32>
  return
}

// -----

// gemm: quantized result without rowwise
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op writes a quantized result rowwise, but its usage is columnwise}}
  %0 = te.gemm %a, %b layout TN : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, columnwise>
  return
}

// -----

// gemm: stochastic rounding output
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op does not support an output quantizer with stochastic rounding}}
  %0 = te.gemm %a, %b layout TN : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, rowwise>
  return
}

// -----

// gemm: delayed output without scale
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op with a #te.delayed output quantizer needs its live 'scale' operand}}
  %0 = te.gemm %a, %b layout TN : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>
  return
}

// -----

// gemm: delayed output without amax
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'te.gemm' op with a #te.delayed output quantizer yields the output amax: add a tensor<1xf32> result}}
  %0 = te.gemm %a, %b layout TN scale %s : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>
  return
}

// -----

// gemm: scale without delayed output
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'te.gemm' op takes a 'scale' operand only with a #te.delayed output quantizer}}
  %0, %1 = te.gemm %a, %b layout TN scale %s : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xbf16>, tensor<1xf32>
  return
}

// -----

// gemm: amax without delayed output
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.gemm' op yields an amax only with a #te.delayed output quantizer}}
  %0, %1 = te.gemm %a, %b layout TN : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xbf16>, tensor<1xf32>
  return
}

// -----

// gemm: layout keyword
func.func @f(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %b: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{expected GEMM layout TN, NN or NT, got 'TT'}}
  %0 = te.gemm %a, %b layout TT : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xbf16>
  return
}

// -----

// linear: weight rank
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<2x64x128xbf16>) {
  // expected-error @+1 {{te.linear needs an input [..., in_features] and a weight [out_features, in_features]}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>} : tensor<32x128xbf16>, tensor<2x64x128xbf16>
  return
}

// -----

// linear: input rank
func.func @f(%x: tensor<128xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'te.linear' op needs an input of rank >= 2 ([..., in_features]), got [128]}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>} : tensor<128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: features
func.func @f(%x: tensor<32x96xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'te.linear' op input [32, 96] has 96 features, the weight [64, 128] expects 128}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>} : tensor<32x96xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: leading dims % 8
func.func @f(%x: tensor<12x128xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'te.linear' op needs the flattened leading dimensions of the input divisible by 8, got 12}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>} : tensor<12x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: in_features % 16
func.func @f(%x: tensor<32x40xbf16>, %w: tensor<64x40xbf16>) {
  // expected-error @+1 {{'te.linear' op needs in_features divisible by 16, got 40}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>} : tensor<32x40xbf16>, tensor<64x40xbf16>
  return
}

// -----

// linear: out_features % 16
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<24x128xbf16>) {
  // expected-error @+1 {{'te.linear' op needs out_features divisible by 16, got 24}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>} : tensor<32x128xbf16>, tensor<24x128xbf16>
  return
}

// -----

// linear: bias shape
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>, %b: tensor<32xbf16>) {
  // expected-error @+1 {{'te.linear' op bias must have shape [out_features] = [64], got [32]}}
  %0:3 = te.linear %x, %w bias(%b : tensor<32xbf16>) {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>} : tensor<32x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: delayed input quantizer
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'te.linear' op does not take #te.delayed quantizers (input_quantizer): delayed scaling keeps its scale and amax history as SSA state, use te.quantize and te.gemm}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.delayed<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>} : tensor<32x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: delayed output quantizer
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'te.linear' op does not take #te.delayed quantizers (output_quantizer): delayed scaling keeps its scale and amax history as SSA state, use te.quantize and te.gemm}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>, output_quantizer = #te.delayed<f8E4M3FN>} : tensor<32x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: mixed recipes
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'te.linear' op fprop GEMM mixes recipe families: input_quantizer is MXFP8, weight_quantizer is per-tensor FP8}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>} : tensor<32x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: 2D x 2D blocks
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'te.linear' op fprop GEMM multiplies two 128x128-block operands (input_quantizer and weight_quantizer): 2Dx2D block scaling is not supported}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.block<f8E4M3FN, dims = 2>, weight_quantizer = #te.block<f8E4M3FN, dims = 2>} : tensor<32x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: E5M2 x E5M2
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'te.linear' op fprop GEMM multiplies two f8E5M2 operands (input_quantizer and weight_quantizer): cuBLASLt's FP8 GEMM takes E4M3 x E4M3, E4M3 x E5M2 and E5M2 x E4M3, not E5M2 x E5M2}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.current<f8E5M2>, weight_quantizer = #te.current<f8E5M2>} : tensor<32x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: stochastic rounding without seed
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'te.linear' op needs 'seed' and 'offset' operands: a quantizer rounds stochastically}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, weight_quantizer = #te.nvfp4<f4E2M1FN>} : tensor<32x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: seed without stochastic rounding
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>, %seed: i64, %off: i64) {
  // expected-error @+1 {{'te.linear' op takes 'seed' and 'offset' only when a quantizer rounds stochastically}}
  %0:3 = te.linear %x, %w seed %seed offset %off {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>} : tensor<32x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: workspace and cache_weight
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear' op takes either a 'workspace' (reuse the cached weight) or 'cache_weight' (refresh it), not both}}
  %0:4 = te.linear %x, %w workspace(%ws : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>, cache_weight} : tensor<32x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: workspace type
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>) {
  // expected-error @+1 {{'te.linear' op workspace type '!te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>' must be the quantized weight type '!te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>'}}
  %0:3 = te.linear %x, %w workspace(%ws : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>) {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>} : tensor<32x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: output shape rule
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<48x128xbf16>) {
  // expected-error @+1 {{'te.linear' op output: MXFP8 needs the last dimension divisible by 32, got 48}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>, output_quantizer = #te.mxfp8<f8E4M3FN>} : tensor<32x128xbf16>, tensor<48x128xbf16>
  return
}

// -----

// linear: input shape rule
func.func @f(%x: tensor<16x128xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'te.linear' op quantized input: MXFP8 needs the flattened leading dimension divisible by 32, got 16}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>} : tensor<16x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear: weight shape rule
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'te.linear' op quantized weight: NVFP4 with RHT quantizes bf16 tensors only, got 'f32'}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.nvfp4<f4E2M1FN>, weight_quantizer = #te.nvfp4<f4E2M1FN, rht = true>} : tensor<32x128xbf16>, tensor<64x128xf32>
  return
}

// -----

// linear_grad: weight rank
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<2x64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{te.linear_grad needs a grad_output [..., out_features] and a saved weight [out_features, in_features]}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<2x64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: grad_output rank
func.func @f(%dy: tensor<64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op needs a grad_output of rank >= 2 ([..., out_features]), got [64]}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>} : tensor<64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: saved input usage
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op needs the saved input with columnwise usage (wgrad reads it transposed), got rowwise}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: saved weight usage
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>) {
  // expected-error @+1 {{'te.linear_grad' op needs the saved weight with columnwise usage (dgrad reads it transposed), got rowwise}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
  return
}

// -----

// linear_grad: out_features
func.func @f(%dy: tensor<32x32xbf16>, %xs: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op grad_output [32, 32] has 32 features, the weight [64, 128] has out_features = 64}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>} : tensor<32x32xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: in_features
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x96xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op saved input [32, 96] has 96 features, the weight [64, 128] has in_features = 128}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x96xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: leading dims
func.func @f(%dy: tensor<16x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op grad_output [16, 64] and saved input [32, 128] differ in their leading dimensions}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>} : tensor<16x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: leading dims % 8
func.func @f(%dy: tensor<12x64xbf16>, %xs: !te.qtensor<12x128xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op needs the flattened leading dimensions of the input divisible by 8, got 12}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>} : tensor<12x64xbf16>, !te.qtensor<12x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: in_features % 16
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x40xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x40xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op needs in_features divisible by 16, got 40}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x40xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x40xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: delayed grad_output quantizer
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op does not take #te.delayed quantizers (grad_output_quantizer): delayed scaling keeps its scale and amax history as SSA state, use te.quantize and te.gemm}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.delayed<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: delayed saved input
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.delayed<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op does not take #te.delayed quantizers (saved input): delayed scaling keeps its scale and amax history as SSA state, use te.quantize and te.gemm}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.delayed<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: dgrad recipes
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op dgrad GEMM mixes recipe families: grad_output_quantizer is MXFP8, saved weight is per-tensor FP8}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.mxfp8<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: wgrad recipes
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op wgrad GEMM mixes recipe families: grad_output_quantizer is per-tensor FP8, saved input is MXFP8}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: wgrad 2D x 2D
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.block<f8E4M3FN, dims = 2>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op wgrad GEMM multiplies two 128x128-block operands (grad_output_quantizer and saved input): 2Dx2D block scaling is not supported}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.block<f8E4M3FN, dims = 2>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.block<f8E4M3FN, dims = 2>, columnwise>, !te.qtensor<64x128xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: stochastic rounding without seed
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op needs 'seed' and 'offset' operands: a quantizer rounds stochastically}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.nvfp4<f4E2M1FN, stochastic_rounding = true>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, columnwise>, !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: quantized grad_output
func.func @f(%dy: tensor<32x64xf32>, %xs: !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op quantized grad_output: NVFP4 with RHT quantizes bf16 tensors only, got 'f32'}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.nvfp4<f4E2M1FN, rht = true>} : tensor<32x64xf32>, !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, columnwise>, !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: quantized dgrad
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x48xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x48xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op dgrad: MXFP8 needs the last dimension divisible by 32, got 48}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>, grad_input_quantizer = #te.mxfp8<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x48xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x48xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear: delayed weight quantizer
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'te.linear' op does not take #te.delayed quantizers (weight_quantizer): delayed scaling keeps its scale and amax history as SSA state, use te.quantize and te.gemm}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.delayed<f8E4M3FN>} : tensor<32x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

// linear_grad: delayed grad_input quantizer
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op does not take #te.delayed quantizers (grad_input_quantizer): delayed scaling keeps its scale and amax history as SSA state, use te.quantize and te.gemm}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>, grad_input_quantizer = #te.delayed<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: delayed saved weight
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.delayed<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op does not take #te.delayed quantizers (saved weight): delayed scaling keeps its scale and amax history as SSA state, use te.quantize and te.gemm}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.delayed<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// linear_grad: dgrad 2D x 2D
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.block<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op dgrad GEMM multiplies two 128x128-block operands (grad_output_quantizer and saved weight): 2Dx2D block scaling is not supported}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.block<f8E4M3FN, dims = 2>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.block<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>
  return
}

// -----

// linear_grad: E5M2 x E5M2
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E5M2>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op dgrad GEMM multiplies two f8E5M2 operands (grad_output_quantizer and saved weight): cuBLASLt's FP8 GEMM takes E4M3 x E4M3, E4M3 x E5M2 and E5M2 x E4M3, not E5M2 x E5M2}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E5M2>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E5M2>, rowwise|columnwise>
  return
}

// -----

// linear_grad: seed without stochastic rounding
func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>, %seed: i64, %off: i64) {
  // expected-error @+1 {{'te.linear_grad' op takes 'seed' and 'offset' only when a quantizer rounds stochastically}}
  %0:2 = te.linear_grad %dy, %xs, %ws seed %seed offset %off {grad_output_quantizer = #te.current<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// update_scale: history rank
func.func @f(%a: tensor<1xf32>, %h: tensor<4x4xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'te.update_scale' op needs a rank-1 amax history, got [4, 4]}}
  %0:2 = te.update_scale %a, %h, %s {quantizer = #te.delayed<f8E4M3FN, history = 16>} : tensor<4x4xf32>
  return
}

// -----

// update_scale: history length
func.func @f(%a: tensor<1xf32>, %h: tensor<8xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'te.update_scale' op amax history has length 8 but the quantizer's history is 16}}
  %0:2 = te.update_scale %a, %h, %s {quantizer = #te.delayed<f8E4M3FN, history = 16>} : tensor<8xf32>
  return
}

// -----

// update_scale: not a delayed quantizer
func.func @f(%a: tensor<1xf32>, %h: tensor<8xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'te.update_scale' op attribute 'quantizer' failed to satisfy constraint: }}
  %0:2 = te.update_scale %a, %h, %s {quantizer = #te.current<f8E4M3FN>} : tensor<8xf32>
  return
}

// -----

// allreduce_max: group
func.func @f(%s: tensor<1xf32>) {
  // expected-error @+1 {{'te.allreduce_max' op needs a non-empty process group name}}
  %0 = te.allreduce_max %s group "" : tensor<1xf32>
  return
}

// -----

// amax: input type
func.func @f(%x: tensor<4xi8>) {
  // expected-error @+1 {{'te.amax' op operand #0 must be ranked tensor of bfloat16 type or 16-bit float or 32-bit float values, but got 'tensor<4xi8>'}}
  %0 = te.amax %x : tensor<4xi8>
  return
}

// -----

// empty: dynamic sizes
func.func @f() {
  // expected-error @+1 {{'te.empty' op needs 1 dynamic size operand(s) for '!te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>', got 0}}
  %0 = te.empty() : !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
  return
}

// -----

// buffers: count
func.func @f(%q: !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.buffers' op expects 3 buffers for '!te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>' on sm_90 (_data, _transpose, _scale_inv), got 2}}
  %0:2 = te.buffers %q : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

// buffers: type
func.func @f(%q: !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.buffers' op buffer #1 (_transpose) of '!te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>' on sm_90 has type 'tensor<64x32xf8E4M3FN>', got 'tensor<32x64xf8E4M3FN>'}}
  %0:3 = te.buffers %q : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

// from_buffers: count
func.func @f(%d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'te.from_buffers' op expects 3 buffers for '!te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>' on sm_90 (_data, _transpose, _scale_inv), got 2}}
  %0 = te.from_buffers %d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32> -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// -----

// from_buffers: type
func.func @f(%d: tensor<32x64xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'te.from_buffers' op buffer #1 (_rowwise_scale_inv) of '!te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>' on sm_90 has type 'tensor<128x4xf8E8M0FNU>', got 'tensor<1xf32>'}}
  %0 = te.from_buffers %d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32> -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  return
}

// -----

// The target of the enclosing module decides the buffers.
module attributes {te.target = #te.target<sm_100>} {
  func.func @f(%q: !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
    // expected-error @+1 {{'te.buffers' op expects 2 buffers for '!te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>' on sm_100 (_data, _scale_inv), got 3}}
    %0:3 = te.buffers %q : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
    return
  }
}

// -----

// A 0-d quantized tensor is a value, not a matrix.
func.func @gemm_scalar(%a: !te.qtensor<64x32xbf16, #te.current<f8E4M3FN>, rowwise>,
                       %b: !te.qtensor<bf16, #te.current<f8E4M3FN>, rowwise>) {
  // expected-error @below {{'te.gemm' op needs operands of rank >= 1 (a 0-d tensor is not a matrix), got A [64, 32] and B []}}
  %d = te.gemm %a, %b layout TN : !te.qtensor<64x32xbf16, #te.current<f8E4M3FN>, rowwise>,
      !te.qtensor<bf16, #te.current<f8E4M3FN>, rowwise> -> tensor<64xbf16>
  return
}

// -----

// The saved input has the rank of grad_output (a 0-d saved input has no
// features to match the weight's in_features).
func.func @linear_grad_scalar_input(%dy: tensor<32x64xbf16>,
    %xs: !te.qtensor<bf16, #te.current<f8E4M3FN>, columnwise>,
    %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, columnwise>) {
  // expected-error @below {{'te.linear_grad' op needs the saved input of the rank of grad_output (2), got []}}
  %dx, %dw = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E5M2>}
      : tensor<32x64xbf16>, !te.qtensor<bf16, #te.current<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, columnwise>
  return
}

// -----

// check_size: a message names what is checked
func.func @f(%a: index, %b: index) {
  // expected-error @+1 {{'te.check_size' op expected a message naming the size it checks}}
  te.check_size %a eq %b, ""
  return
}

// -----

// check_size: the relation
func.func @f(%a: index, %b: index) {
  // expected-error @+1 {{expected 'eq', 'ge' or 'le', got 'lt'}}
  te.check_size %a lt %b, "dimension 0"
  return
}

// -----

// check_size: one relation (the generic form can set both)
func.func @f(%a: index, %b: index) {
  // expected-error @+1 {{'te.check_size' op expected one relation, 'at_least' or 'at_most'}}
  "te.check_size"(%a, %b) {at_least, at_most, message = "dimension 0"} : (index, index) -> ()
  return
}

