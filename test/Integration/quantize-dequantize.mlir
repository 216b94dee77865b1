// Quantize + dequantize in every recipe, executed end to end (te-pipeline,
// te-run, cpu backend), compared elementwise with the input. The bound is the
// element format's rounding error (docs/formats.md §0, §8): round-to-nearest
// of a value scaled into the format's normal range is within half a unit in
// the last place, 2^-4 relative for E4M3 (3 mantissa bits), 2^-3 for E5M2;
// atol covers the values that land in the format's subnormal range: half
// its step, 2^-10 for E4M3, over the scale (64 for the delayed test below).
// NVFP4 (E2M1, 1 mantissa bit, 16-element blocks) is checked normwise.
//
// The reference is the program's high-precision twin (`te-run --reference`:
// quantize and dequantize are the identity), i.e. the input itself.
//
// RUN: rm -rf %t && mkdir -p %t/ref
// RUN: te-run %s --entry current --reference --seed 3 --output-dir %t/ref --quiet
// RUN: te-run %s --entry current --seed 3 --compare %t/ref/result0.npy --rtol 0.0626 --atol 1e-5 | FileCheck %s
// RUN: te-run %s --entry current_e5m2 --seed 3 --compare %t/ref/result0.npy --rtol 0.126 --atol 1e-4 | FileCheck %s
// RUN: te-run %s --entry delayed --seed 3 --compare %t/ref/result0.npy --rtol 0.0626 --atol 1.6e-5 | FileCheck %s
// RUN: te-run %s --entry block1d --seed 3 --compare %t/ref/result0.npy --rtol 0.0626 --atol 1e-4 | FileCheck %s
// RUN: te-run %s --entry block2d --seed 3 --compare %t/ref/result0.npy --rtol 0.0626 --atol 1e-4 | FileCheck %s
// RUN: te-run %s --entry mxfp8 --seed 3 --compare %t/ref/result0.npy --rtol 0.0626 --atol 1e-3 | FileCheck %s
// RUN: te-run %s --entry mxfp8_columnwise --seed 3 --compare %t/ref/result0.npy --rtol 0.0626 --atol 1e-3 | FileCheck %s
// RUN: te-run %s --entry nvfp4 --seed 3 --compare %t/ref/result0.npy --atol 1e30 --max-rel-err 0.12 | FileCheck %s
// RUN: te-run %s --entry nvfp4_2d --seed 3 --compare %t/ref/result0.npy --atol 1e30 --max-rel-err 0.12 | FileCheck %s
//
// A wrong bound must fail (the check can fail): E4M3 is not exact.
// RUN: not te-run %s --entry current --seed 3 --compare %t/ref/result0.npy | FileCheck %s --check-prefix=EXACT
//
// CHECK: result 0: PASS
// EXACT: result 0: FAIL

func.func @current(%x: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %q = te.quantize %x : tensor<128x256xf32> -> !te.qtensor<128x256xf32, #te.current<f8E4M3FN>, rowwise>
  %y = te.dequantize %q : !te.qtensor<128x256xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<128x256xf32>
  // A copy, so that the high-precision twin (where %y is %x) returns a new
  // buffer rather than its argument.
  %e = tensor.empty() : tensor<128x256xf32>
  %r = linalg.copy ins(%y : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

func.func @current_e5m2(%x: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %q = te.quantize %x : tensor<128x256xf32> -> !te.qtensor<128x256xf32, #te.current<f8E5M2>, rowwise>
  %y = te.dequantize %q : !te.qtensor<128x256xf32, #te.current<f8E5M2>, rowwise> -> tensor<128x256xf32>
  // A copy, so that the high-precision twin (where %y is %x) returns a new
  // buffer rather than its argument.
  %e = tensor.empty() : tensor<128x256xf32>
  %r = linalg.copy ins(%y : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

func.func @delayed(%x: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %s = arith.constant dense<64.0> : tensor<1xf32>
  %q, %amax = te.quantize %x scale %s : tensor<128x256xf32>
      -> !te.qtensor<128x256xf32, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  %y = te.dequantize %q : !te.qtensor<128x256xf32, #te.delayed<f8E4M3FN>, rowwise> -> tensor<128x256xf32>
  // A copy, so that the high-precision twin (where %y is %x) returns a new
  // buffer rather than its argument.
  %e = tensor.empty() : tensor<128x256xf32>
  %r = linalg.copy ins(%y : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

func.func @block1d(%x: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %q = te.quantize %x : tensor<128x256xf32> -> !te.qtensor<128x256xf32, #te.block<f8E4M3FN>, rowwise>
  %y = te.dequantize %q : !te.qtensor<128x256xf32, #te.block<f8E4M3FN>, rowwise> -> tensor<128x256xf32>
  // A copy, so that the high-precision twin (where %y is %x) returns a new
  // buffer rather than its argument.
  %e = tensor.empty() : tensor<128x256xf32>
  %r = linalg.copy ins(%y : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

func.func @block2d(%x: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %q = te.quantize %x : tensor<128x256xf32> -> !te.qtensor<128x256xf32, #te.block<f8E4M3FN, dims = 2>, columnwise>
  %y = te.dequantize %q : !te.qtensor<128x256xf32, #te.block<f8E4M3FN, dims = 2>, columnwise> -> tensor<128x256xf32>
  // A copy, so that the high-precision twin (where %y is %x) returns a new
  // buffer rather than its argument.
  %e = tensor.empty() : tensor<128x256xf32>
  %r = linalg.copy ins(%y : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

func.func @mxfp8(%x: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %q = te.quantize %x : tensor<128x256xf32> -> !te.qtensor<128x256xf32, #te.mxfp8<f8E4M3FN>, rowwise>
  %y = te.dequantize %q : !te.qtensor<128x256xf32, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<128x256xf32>
  // A copy, so that the high-precision twin (where %y is %x) returns a new
  // buffer rather than its argument.
  %e = tensor.empty() : tensor<128x256xf32>
  %r = linalg.copy ins(%y : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// 32x32 blocks; te-infer-usages trims the usage to the rowwise copy that
// dequantize reads.
func.func @mxfp8_columnwise(%x: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %q = te.quantize %x : tensor<128x256xf32> -> !te.qtensor<128x256xf32, #te.mxfp8<f8E4M3FN, block_2d = true>, rowwise|columnwise>
  %y = te.dequantize %q : !te.qtensor<128x256xf32, #te.mxfp8<f8E4M3FN, block_2d = true>, rowwise|columnwise> -> tensor<128x256xf32>
  // A copy, so that the high-precision twin (where %y is %x) returns a new
  // buffer rather than its argument.
  %e = tensor.empty() : tensor<128x256xf32>
  %r = linalg.copy ins(%y : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

func.func @nvfp4(%x: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %q = te.quantize %x : tensor<128x256xf32> -> !te.qtensor<128x256xf32, #te.nvfp4<f4E2M1FN>, rowwise>
  %y = te.dequantize %q : !te.qtensor<128x256xf32, #te.nvfp4<f4E2M1FN>, rowwise> -> tensor<128x256xf32>
  // A copy, so that the high-precision twin (where %y is %x) returns a new
  // buffer rather than its argument.
  %e = tensor.empty() : tensor<128x256xf32>
  %r = linalg.copy ins(%y : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

func.func @nvfp4_2d(%x: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %q = te.quantize %x : tensor<128x256xf32> -> !te.qtensor<128x256xf32, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise>
  %y = te.dequantize %q : !te.qtensor<128x256xf32, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise> -> tensor<128x256xf32>
  // A copy, so that the high-precision twin (where %y is %x) returns a new
  // buffer rather than its argument.
  %e = tensor.empty() : tensor<128x256xf32>
  %r = linalg.copy ins(%y : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}
