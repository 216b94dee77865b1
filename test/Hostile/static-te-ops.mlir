// te ops whose result makes a `?` of their input static: the verifier
// accepts them (the sizes may agree at run time), and te-check-shapes
// checks at run time, as it does a tensor.cast, that they agree. Before,
// 64 rows into a te.quantize to 128 rows gave exit 0 and 64 rows of
// uninitialised output, 1024 rows overflowed the heap. A te.gemm whose
// static result (or bias) refines the operands' `?`: the result's rows and
// columns are those the operands' logical sizes give (the runtime writes
// d_rows x d_cols), a bias has the result's columns. Before, 16 rows of B
// into a 32-row result gave exit 0 and 16 uninitialised rows, 1024 rows
// wrote past the result. Run on the cpu backend; te-run exits 1.
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
// RUN: te-run %s --entry gemm --dynamic-dim 32 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry gemm --dynamic-dim 16 2>&1 | FileCheck %s --check-prefix=GFEW
// RUN: not te-run %s --entry gemm --dynamic-dim 1024 2>&1 | FileCheck %s --check-prefix=GMANY
// GFEW: te-run: runtime error in shape check: te.gemm_buffers at {{.*}}static-te-ops.mlir:{{[0-9]+}}:{{[0-9]+}}: the result's rows (its leading dimensions' product; B's rows) is 32, expected 16
// GMANY: te-run: runtime error in shape check: te.gemm_buffers at {{.*}}: the result's rows (its leading dimensions' product; B's rows) is 32, expected 1024
//
// RUN: te-run %s --entry gemm_nt --dynamic-dim 64 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry gemm_nt --dynamic-dim 1000 2>&1 | FileCheck %s --check-prefix=GNT
// GNT: te-run: runtime error in shape check: te.gemm_buffers at {{.*}}: the result's columns (A's columns) is 64, expected 1000
//
// RUN: te-run %s --entry gemm_bias --dynamic-dim 64 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry gemm_bias --dynamic-dim 16 2>&1 | FileCheck %s --check-prefix=GBIAS
// GBIAS: te-run: runtime error in shape check: te.gemm_buffers at {{.*}}: dimension 0 of the bias (A's rows) is 16, expected 64
//
// RUN: te-run %s --entry gemm_quantized --dynamic-dim 32 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry gemm_quantized --dynamic-dim 1000 2>&1 | FileCheck %s --check-prefix=GQ
// GQ: te-run: runtime error in shape check: te.gemm_buffers at {{.*}}: the result's rows (its leading dimensions' product; B's rows) is 32, expected 1000
//
// RUN: te-run %s --entry gemm_batched --dynamic-dim 16 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry gemm_batched --dynamic-dim 17 2>&1 | FileCheck %s --check-prefix=GB
// GB: te-run: runtime error in shape check: te.gemm_buffers at {{.*}}: the result's rows (its leading dimensions' product; B's rows) is 32, expected 34
//
// RUN: te-run %s --entry gemm_accumulate --dynamic-dim 32 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry gemm_accumulate --dynamic-dim 8 2>&1 | FileCheck %s --check-prefix=GACC
// GACC: te-run: runtime error in shape check: te.gemm_buffers at {{.*}}: the result's rows (its leading dimensions' product; B's rows) is 32, expected 8
//
// PASS: result 0: f32

!w = !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>

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

func.func @gemm(%w: tensor<64x128xf32>, %x: tensor<?x128xf32>) -> tensor<32x64xf32> {
  %qw = te.quantize %w : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>
  %qx = te.quantize %x : tensor<?x128xf32> -> !te.qtensor<?x128xf32, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %qw, %qx layout TN : !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>, !te.qtensor<?x128xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}
func.func @gemm_nt(%x: tensor<128x?xf32>, %dy: tensor<128x32xf32>) -> tensor<32x64xf32> {
  %qx = te.quantize %x : tensor<128x?xf32> -> !te.qtensor<128x?xf32, #te.current<f8E4M3FN>, columnwise>
  %qd = te.quantize %dy : tensor<128x32xf32> -> !te.qtensor<128x32xf32, #te.current<f8E4M3FN>, columnwise>
  %y = te.gemm %qx, %qd layout NT : !te.qtensor<128x?xf32, #te.current<f8E4M3FN>, columnwise>, !te.qtensor<128x32xf32, #te.current<f8E4M3FN>, columnwise> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}
func.func @gemm_bias(%w: tensor<64x128xf32>, %x: tensor<32x128xf32>, %b: tensor<?xf32>) -> tensor<32x64xf32> {
  %qw = te.quantize %w : tensor<64x128xf32> -> !w
  %qx = te.quantize %x : tensor<32x128xf32> -> !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %qw, %qx layout TN bias(%b : tensor<?xf32>) : !w, !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}
func.func @gemm_quantized(%w: tensor<64x128xf32>, %x: tensor<?x128xf32>) -> tensor<32x64xf32> {
  %qw = te.quantize %w : tensor<64x128xf32> -> !w
  %qx = te.quantize %x : tensor<?x128xf32> -> !te.qtensor<?x128xf32, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %qw, %qx layout TN : !w, !te.qtensor<?x128xf32, #te.current<f8E4M3FN>, rowwise> -> !te.qtensor<32x64xf32, #te.mxfp8<f8E4M3FN>, rowwise>
  %d = te.dequantize %y : !te.qtensor<32x64xf32, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  return %d : tensor<32x64xf32>
}
func.func @gemm_batched(%w: tensor<64x128xf32>, %x: tensor<2x?x128xf32>) -> tensor<2x16x64xf32> {
  %qw = te.quantize %w : tensor<64x128xf32> -> !w
  %qx = te.quantize %x : tensor<2x?x128xf32> -> !te.qtensor<2x?x128xf32, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %qw, %qx layout TN : !w, !te.qtensor<2x?x128xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}
func.func @gemm_accumulate(%w: tensor<64x128xf32>, %x: tensor<?x128xf32>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %qw = te.quantize %w : tensor<64x128xf32> -> !w
  %qx = te.quantize %x : tensor<?x128xf32> -> !te.qtensor<?x128xf32, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %qw, %qx layout TN accumulate(%c : tensor<32x64xf32>) : !w, !te.qtensor<?x128xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}
