func.func @f(%dy: tensor<32x64xf32>, %xs: !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, columnwise>, %ws: !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>) {
  %0:2 = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.nvfp4<f4E2M1FN, rht = true>} : tensor<32x64xf32>, !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, columnwise>, !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
  return
}
