// RUN: te-opt %s -split-input-file --te-expand-qtensors -verify-diagnostics

// te.linear has no buffer-level form: te-decompose-linear runs first.
func.func @linear(%x: tensor<32x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<32x32xbf16> {
  // expected-error @below {{'te.linear' op has no buffer-level form: run te-decompose-linear before te-expand-qtensors}}
  %y, %xs, %ws = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x64xbf16>, tensor<32x64xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

// A dynamic buffer cannot be allocated: te-infer-shapes makes it static.
func.func @dynamic(%x: tensor<?x64xbf16>) -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> {
  // expected-error @below {{'te.quantize' op needs a static result shape to allocate its buffers, got '!te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>' (run te-infer-shapes first)}}
  %q = te.quantize %x : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  return %q : !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
}
