func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x128xf32>) {
  %0:3 = te.linear %x, %w {input_quantizer = #te.nvfp4<f4E2M1FN>, weight_quantizer = #te.nvfp4<f4E2M1FN, rht = true>} : tensor<32x128xbf16>, tensor<64x128xf32>
  return
}
