// RUN: te-opt %s -split-input-file --te-expand-qtensors -verify-diagnostics

// te.linear has no buffer-level form: te-decompose-linear runs first.
func.func @linear(%x: tensor<32x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<32x32xbf16> {
  // expected-error @below {{'te.linear' op has no buffer-level form: run te-decompose-linear before te-expand-qtensors}}
  %y, %xs, %ws = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x64xbf16>, tensor<32x64xbf16>
  return %y : tensor<32x32xbf16>
}
