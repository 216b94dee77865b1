func.func @f(%x: tensor<16x128xbf16>, %w: tensor<64x128xbf16>) {
  %0:3 = te.linear %x, %w {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>} : tensor<16x128xbf16>, tensor<64x128xbf16>
  return
}
