func.func @f(%x: tensor<32x128xbf16>, %w: tensor<48x128xbf16>) {
  %0:3 = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>, output_quantizer = #te.mxfp8<f8E4M3FN>} : tensor<32x128xbf16>, tensor<48x128xbf16>
  return
}
