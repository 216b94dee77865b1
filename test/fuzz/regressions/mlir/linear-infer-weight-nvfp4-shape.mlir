func.func @f(%x: tensor<32x128xbf16>, %w: tensor<64x138xbf16>, %seed: i64, %off: i64) {
  %y, %xs, %ws = te.linear %x, %w seed %seed offset %off {input_quantizer = #te.nvfp4<f4E2M1FN>, weight_quantizer = #te.nvfp4<f4E2M1FN>} : tensor<32x128xbf16>, tensor<64x138xbf16>
  return
}
