// RUN: te-opt %s -split-input-file -verify-diagnostics
// RUN: te-opt %s -split-input-file -verify-diagnostics --te-infer-shapes --te-infer-usages

// Hostile shapes in quantized tensor types: a diagnostic, never a crash
// (the te-fuzz-mlir target covers the rest; docs/reliability.md).

// expected-error @+1 {{the number of elements overflows int64}}
func.func @elements(%x: !te.qtensor<9223372036854775807x9223372036854775807xbf16, #te.mxfp8<f8E4M3FN>, rowwise>) {
  return
}

// -----

// expected-error @+1 {{the number of elements overflows int64}}
func.func @elements_nvfp4(%x: !te.qtensor<4611686018427387904x64xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>) {
  return
}

// -----

// expected-error @+1 {{the number of elements overflows int64}}
func.func @three_dims(%x: !te.qtensor<2147483648x2147483648x4xf32, #te.current<f8E4M3FN>, rowwise>) {
  return
}

// -----

// Dynamic dims are not an overflow.
func.func @dynamic(%x: tensor<?x?xbf16>) -> !te.qtensor<?x?xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise> {
  %0 = te.quantize %x : tensor<?x?xbf16> -> !te.qtensor<?x?xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
  return %0 : !te.qtensor<?x?xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
}

// -----

// Padded buffers: the element count fits in int64, the columnwise scales of
// 1x128 block scaling (rup(K, 4) columns) do not.
// expected-error @+1 {{the size of buffer _columnwise_scale_inv overflows int64}}
func.func @padded(%x: !te.qtensor<1x9223372036854775807xbf16, #te.block<f8E4M3FN>, columnwise>) {
  return
}

// -----

// The same scales in bytes (f32: 4 per element) overflow although their
// element count (K = 2^63 - 4) does not.
// expected-error @+1 {{the size of buffer _columnwise_scale_inv overflows int64}}
func.func @padded_bytes(%x: !te.qtensor<1x9223372036854775804xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>) {
  return
}

// -----

// Rowwise alone, the same shape fits: (ceil(K/128), rup(M, 4)) scales.
func.func @padded_rowwise(%x: !te.qtensor<1x9223372036854775807xbf16, #te.block<f8E4M3FN>, rowwise>) {
  return
}
