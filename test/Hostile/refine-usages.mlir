// RUN: te-opt %s -verify-diagnostics --te-infer-usages

// Passes that change a quantized type (a shape made static, a usage added,
// a type as a map key) never build an invalid one: they say why at the op
// that makes the value. Each built the invalid type before (an abort with
// assertions on); found reviewing every QTensorType::get reachable from
// user IR after te-fuzz-mlir found te.linear's (docs/reliability.md).

// te-infer-usages: a quantized value nobody reads gets rowwise usage, and
// rowwise 1x128 block scales (rup(M, 4) columns) overflow int64 where the
// columnwise ones (ceil(M/128) rows) fit.
func.func @unread(%x: tensor<9223372036854775807x1xbf16>) {
  // expected-error @below {{cannot give result #0 of 'te.quantize' rowwise usage: the size of buffer _rowwise_scale_inv overflows int64}}
  %q = te.quantize %x : tensor<9223372036854775807x1xbf16> -> !te.qtensor<9223372036854775807x1xbf16, #te.block<f8E4M3FN>, columnwise>
  return
}
