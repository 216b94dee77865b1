func.func @f(%dy: tensor<32x64xbf16>, %xs: !te.qtensor<32x48xbf16, #te.current<f8E4M3FN>, columnwise>, %ws: !te.qtensor<64x48xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E4M3FN>, grad_input_quantizer = #te.mxfp8<f8E4M3FN>} : tensor<32x64xbf16>, !te.qtensor<32x48xbf16, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<64x48xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}
