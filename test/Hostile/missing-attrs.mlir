// Every failure of te.linear's type inference has a diagnostic (a missing
// quantizer made te-opt exit 1 without a message), in custom and generic
// form; -verify-diagnostics fails on an error without a message as on a
// message that is not expected.
// RUN: te-opt %s -split-input-file -verify-diagnostics

func.func @no_input_quantizer(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<32x64xbf16> {
  // expected-error @below {{te.linear needs the quantizer attribute 'input_quantizer' (e.g. #te.mxfp8<f8E4M3FN>)}}
  %y, %xs, %ws = te.linear %x, %w {weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return %y : tensor<32x64xbf16>
}

// -----

func.func @no_weight_quantizer(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<32x64xbf16> {
  // expected-error @below {{te.linear needs the quantizer attribute 'weight_quantizer' (e.g. #te.mxfp8<f8E4M3FN>)}}
  %y, %xs, %ws = te.linear %x, %w {input_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return %y : tensor<32x64xbf16>
}

// -----

// The generic form: the op's own verifier names the attribute first.
func.func @generic_no_quantizers(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @below {{'te.linear' op requires attribute 'input_quantizer'}}
  %y, %xs, %ws = "te.linear"(%x, %w) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>}>
      : (tensor<32x128xbf16>, tensor<64x128xbf16>)
      -> (tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>, !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>)
  return
}

// -----

func.func @generic_quantizer_not_a_quantizer(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @below {{invalid properties}}
  %y, %xs, %ws = "te.linear"(%x, %w) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>, input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = 1 : i32}>
      : (tensor<32x128xbf16>, tensor<64x128xbf16>)
      -> (tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>, !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>)
  return
}
