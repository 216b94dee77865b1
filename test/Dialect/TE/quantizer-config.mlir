// RUN: te-opt %s --te-test-quantizer-attrs -verify-diagnostics -split-input-file

// QuantizerAttrInterface's C++ view: every quantizer attribute converts to a
// te::format::QuantizerConfig and back (getQuantizerAttr) to itself, with the
// recipe and element type the syntax names.

// expected-remark @+5 {{a: delayed 'f8E5M2' round-trips through te::format::QuantizerConfig}}
// expected-remark @+4 {{b: current 'f8E4M3FN' round-trips through te::format::QuantizerConfig}}
// expected-remark @+3 {{c: block 'f8E5M2' round-trips through te::format::QuantizerConfig}}
// expected-remark @+2 {{d: mxfp8 'f8E4M3FN' round-trips through te::format::QuantizerConfig}}
// expected-remark @+1 {{e: nvfp4 'f4E2M1FN' round-trips through te::format::QuantizerConfig}}
func.func private @every_field() attributes {
  a = #te.delayed<f8E5M2, margin = 2, history = 16, algo = most_recent>,
  b = #te.current<f8E4M3FN, pow2_scales = true, amax_epsilon = 1.0e-06>,
  c = #te.block<f8E5M2, dims = 2, pow2_scales = false, amax_epsilon = 0.5>,
  d = #te.mxfp8<f8E4M3FN, block_2d = true, e8m0_rounding = floor>,
  e = #te.nvfp4<f4E2M1FN, rht = true, rht_sign_mask = 0x1234, stochastic_rounding = true>
}

// -----

// expected-remark @+4 {{a: nvfp4 'f4E2M1FN' round-trips through te::format::QuantizerConfig}}
// expected-remark @+3 {{b: nvfp4 'f4E2M1FN' round-trips through te::format::QuantizerConfig}}
// expected-remark @+2 {{c: nvfp4 'f4E2M1FN' round-trips through te::format::QuantizerConfig}}
// expected-remark @+1 {{d: block 'f8E4M3FN' round-trips through te::format::QuantizerConfig}}
func.func private @more() attributes {
  a = #te.nvfp4<f4E2M1FN, block_2d = true, four_over_six = true, e4m3_max = 256.0, err_mode = mse>,
  b = #te.nvfp4<f4E2M1FN, row_scaled = true>,
  c = #te.nvfp4<f4E2M1FN>,
  d = #te.block<f8E4M3FN>
}

// -----

// Quantizers on ops (inherent attributes) are visited too.
func.func @on_ops(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) {
  // expected-remark @+2 {{input_quantizer: current 'f8E4M3FN' round-trips through te::format::QuantizerConfig}}
  // expected-remark @+1 {{weight_quantizer: current 'f8E4M3FN' round-trips through te::format::QuantizerConfig}}
  %0:3 = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return
}
