// RUN: te-opt %s --te-decompose-linear --split-input-file --verify-diagnostics

// te.gemm cannot quantize its result with stochastic rounding, so a Linear
// whose output quantizer rounds stochastically is not decomposed.

func.func @sr_output_quantizer(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>, %seed: i64, %off: i64) {
  // expected-error @+1 {{'te.linear' op cannot be decomposed: te.gemm does not quantize its result with stochastic rounding (output_quantizer)}}
  %y, %xs, %ws = te.linear %x, %w seed %seed offset %off
      {input_quantizer = #te.nvfp4<f4E2M1FN>, weight_quantizer = #te.nvfp4<f4E2M1FN>,
       output_quantizer = #te.nvfp4<f4E2M1FN, stochastic_rounding = true>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return
}

// -----

!X = !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, columnwise>
!W = !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
func.func @sr_grad_input_quantizer(%dy: tensor<32x64xbf16>, %xs: !X, %ws: !W, %seed: i64, %off: i64) {
  // expected-error @+1 {{'te.linear_grad' op cannot be decomposed: te.gemm does not quantize its result with stochastic rounding (grad_input_quantizer)}}
  %dx, %dw = te.linear_grad %dy, %xs, %ws seed %seed offset %off
      {grad_output_quantizer = #te.nvfp4<f4E2M1FN>,
       grad_input_quantizer = #te.nvfp4<f4E2M1FN, stochastic_rounding = true>}
      : tensor<32x64xbf16>, !X, !W
  return
}
