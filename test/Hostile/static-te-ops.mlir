// te ops whose result makes a `?` of their input static: the verifier
// accepts them (the sizes may agree at run time), and te-check-shapes
// checks at run time, as it does a tensor.cast, that they agree. Before,
// 64 rows into a te.quantize to 128 rows gave exit 0 and 64 rows of
// uninitialised output, 1024 rows overflowed the heap. Run on the cpu
// backend; te-run exits 1.
//
// RUN: te-run %s --entry quantize --dynamic-dim 128 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry quantize --dynamic-dim 64 2>&1 | FileCheck %s --check-prefix=QFEW
// RUN: not te-run %s --entry quantize --dynamic-dim 1024 2>&1 | FileCheck %s --check-prefix=QMANY
// QFEW: te-run: runtime error in shape check: te.quantize_buffers at {{.*}}static-te-ops.mlir:{{[0-9]+}}:{{[0-9]+}}: dimension 0 of the input (the quantized result's) is 64, expected 128
// QMANY: te-run: runtime error in shape check: te.quantize_buffers at {{.*}}: dimension 0 of the input (the quantized result's) is 1024, expected 128
//
// RUN: te-run %s --entry dequantize --dynamic-dim 64 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry dequantize --dynamic-dim 32 2>&1 | FileCheck %s --check-prefix=DQFEW
// RUN: not te-run %s --entry dequantize --dynamic-dim 1024 2>&1 | FileCheck %s --check-prefix=DQMANY
// DQFEW: te-run: runtime error in shape check: te.dequantize_buffers at {{.*}}: dimension 0 of the quantized input (the result's, 64) is 32, expected 64
// DQMANY: te-run: runtime error in shape check: te.dequantize_buffers at {{.*}}: dimension 0 of the quantized input (the result's, 64) is 1024, expected 64
//
// PASS: result 0: f32

func.func @quantize(%x: tensor<?x256xf32>) -> tensor<128x256xf32> {
  %q = te.quantize %x : tensor<?x256xf32> -> !te.qtensor<128x256xf32, #te.mxfp8<f8E4M3FN>, rowwise>
  %d = te.dequantize %q : !te.qtensor<128x256xf32, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<128x256xf32>
  return %d : tensor<128x256xf32>
}

func.func @dequantize(%x: tensor<?x256xf32>) -> tensor<64x256xf32> {
  %q = te.quantize %x : tensor<?x256xf32> -> !te.qtensor<?x256xf32, #te.current<f8E4M3FN>, rowwise>
  %d = te.dequantize %q : !te.qtensor<?x256xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<64x256xf32>
  return %d : tensor<64x256xf32>
}
