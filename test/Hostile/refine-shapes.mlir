// RUN: te-opt %s -split-input-file -verify-diagnostics --te-infer-shapes

// Passes that change a quantized type (a shape made static, a usage added,
// a type as a map key) never build an invalid one: they say why at the op
// that makes the value. Each built the invalid type before (an abort with
// assertions on); found reviewing every QTensorType::get reachable from
// user IR after te-fuzz-mlir found te.linear's (docs/reliability.md).

// te-infer-shapes: the batch becomes 1 and the 1x128 block columnwise scales
// (rup(K, 4) columns) overflow int64.
func.func private @quantize(%x: tensor<?x?xbf16>) -> !te.qtensor<?x?xbf16, #te.block<f8E4M3FN>, columnwise> {
  // expected-error @below {{'te.quantize' op with inferred type '!te.qtensor<1x9223372036854775807xbf16, #te.block<f8E4M3FN>, columnwise>': the size of buffer _columnwise_scale_inv overflows int64}}
  %q = te.quantize %x : tensor<?x?xbf16> -> !te.qtensor<?x?xbf16, #te.block<f8E4M3FN>, columnwise>
  return %q : !te.qtensor<?x?xbf16, #te.block<f8E4M3FN>, columnwise>
}

func.func @main(%x: tensor<1x9223372036854775807xbf16>) -> !te.qtensor<?x?xbf16, #te.block<f8E4M3FN>, columnwise> {
  %c = tensor.cast %x : tensor<1x9223372036854775807xbf16> to tensor<?x?xbf16>
  %q = call @quantize(%c) : (tensor<?x?xbf16>) -> !te.qtensor<?x?xbf16, #te.block<f8E4M3FN>, columnwise>
  return %q : !te.qtensor<?x?xbf16, #te.block<f8E4M3FN>, columnwise>
}

// -----

// te-infer-shapes: te.linear infers its results from refined operands; a
// batch of 16 makes no MXFP8 quantized input (leading dimension % 32).
func.func private @linear(%x: tensor<?x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  // expected-error @below {{'te.linear' op quantized input: MXFP8 needs the flattened leading dimension divisible by 32, got 16}}
  %y, %xs, %ws = te.linear %x, %w {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<?x128xbf16>, tensor<64x128xbf16>
  return %y : tensor<?x64xbf16>
}

func.func @main(%x: tensor<16x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  %c = tensor.cast %x : tensor<16x128xbf16> to tensor<?x128xbf16>
  %y = call @linear(%c, %w) : (tensor<?x128xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
