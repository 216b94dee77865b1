// RUN: te-opt %s -split-input-file --te-infer-shapes -verify-diagnostics

// Once the batch is known, the recipe's shape rules (Format's verifyShape)
// are checked at the op that makes the quantized value: MXFP8 needs the
// flattened leading dimensions divisible by 32, and 40 is not.
func.func private @layer(%x: tensor<?x64xbf16>) -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> {
  // expected-error @below {{'te.quantize' op with inferred type '!te.qtensor<40x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>': MXFP8 needs}}
  %q = te.quantize %x : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  return %q : !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
}

func.func @main(%x: tensor<40x64xbf16>) -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> {
  %c = tensor.cast %x : tensor<40x64xbf16> to tensor<?x64xbf16>
  %q = call @layer(%c) : (tensor<?x64xbf16>) -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  return %q : !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
}

// -----

// Linear's alignment rule (TE's assert_dim_for_fp8_exec: leading dimensions
// divisible by 8) is checked when the batch becomes static.
func.func private @linear(%x: tensor<?x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<?x32xbf16> {
  // expected-error @below {{'te.linear' op needs the flattened leading dimensions of the input divisible by 8, got 12}}
  %y, %xs, %ws = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<?x64xbf16>, tensor<32x64xbf16>
  return %y : tensor<?x32xbf16>
}

func.func @main(%x: tensor<12x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<?x32xbf16> {
  %c = tensor.cast %x : tensor<12x64xbf16> to tensor<?x64xbf16>
  %y = call @linear(%c, %w) : (tensor<?x64xbf16>, tensor<32x64xbf16>) -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}
