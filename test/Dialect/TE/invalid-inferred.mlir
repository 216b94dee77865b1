// RUN: te-opt %s -split-input-file -verify-diagnostics

// Result types te.linear and te.linear_grad infer, and the quantized types
// their verifiers check, that would not be valid !te.qtensor types: a
// diagnostic in the words of the op verifier, never an invalid type (in
// builds with assertions that was an abort; test/fuzz/regressions/mlir/ has
// the fuzz inputs). The cases with the same messages whose inference
// succeeds are in invalid.mlir.

// linear: quantized weight, NVFP4 shape rule, checked when the type is
// inferred (before the op's alignment rule, out_features % 16)
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<72x128xbf16>) {
  // expected-error @+1 {{'te.linear' op quantized weight: NVFP4 needs the flattened leading dimension divisible by 16, got 72}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.nvfp4<f4E2M1FN>, weight_quantizer = #te.nvfp4<f4E2M1FN>} : tensor<32x128xbf16>, tensor<72x128xbf16>
  return
}

// -----

// linear: the weight cache has the saved weight's type, so it fails the same
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xf16>) {
  // expected-error @+1 {{'te.linear' op quantized weight: NVFP4 with RHT quantizes bf16 tensors only, got 'f16'}}
  %0:4 = te.linear %x, %w {input_quantizer = #te.nvfp4<f4E2M1FN>, weight_quantizer = #te.nvfp4<f4E2M1FN, rht = true>, cache_weight} : tensor<32x128xbf16>, tensor<64x128xf16>
  return
}

// -----

// linear: the quantized input is checked with both usages (its columnwise
// copy is saved, fprop reads it rowwise)
func.func @f(%x: tensor<32x128xf32>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'te.linear' op quantized input: NVFP4 with RHT quantizes bf16 tensors only, got 'f32'}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.nvfp4<f4E2M1FN, rht = true>, weight_quantizer = #te.nvfp4<f4E2M1FN>} : tensor<32x128xf32>, tensor<64x128xbf16>
  return
}

// -----

// linear in generic form: the written result types are valid, but the
// inferred quantized weight (both usages) is not
func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xf32>) {
  // expected-error @+2 {{'te.linear' op quantized weight: NVFP4 with RHT quantizes bf16 tensors only, got 'f32'}}
  // expected-error @+1 {{'te.linear' op failed to infer returned types}}
  %0:3 = "te.linear"(%x, %w) <{input_quantizer = #te.nvfp4<f4E2M1FN>, weight_quantizer = #te.nvfp4<f4E2M1FN, rht = true>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>}> : (tensor<32x128xbf16>, tensor<64x128xf32>) -> (tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, columnwise>, !te.qtensor<64x128xf32, #te.nvfp4<f4E2M1FN, rht = true>, rowwise>)
  return
}

// -----

// linear_grad: quantized dgrad, MXFP8 needs the flattened leading dimension
// divisible by 32
func.func @f(%dy: tensor<48x64xbf16>, %xs: !te.qtensor<48x128xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // expected-error @+1 {{'te.linear_grad' op dgrad: MXFP8 needs the flattened leading dimension divisible by 32, got 48}}
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>, grad_input_quantizer = #te.mxfp8<f8E4M3FN>} : tensor<48x64xbf16>, !te.qtensor<48x128xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}
