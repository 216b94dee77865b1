// A 0-d tensor quantized per tensor and dequantized, end to end (te-pipeline,
// te-run, cpu backend). x = -3.7 with delayed scaling at the live scale 16:
// x * 16 = -59.2 rounds to the E4M3 value -60 (docs/formats.md §3.1), so the
// round trip gives -60 / 16 = -3.75 exactly, and the amax is |x| = 3.7.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Quantize/Inputs/npy0.py write %t/x.npy -3.7
// RUN: te-run %s --entry round_trip --input %t/x.npy --output-dir %t --quiet
// RUN: %python %S/../Quantize/Inputs/npy0.py show %t/result0.npy %t/result1.npy | FileCheck %s
// CHECK: result0.npy shape=() descr=<f4 data=000070c0
// CHECK: result1.npy shape=(1,) descr=<f4 data=cdcc6c40

func.func @round_trip(%x: tensor<f32>) -> (tensor<f32>, tensor<1xf32>) {
  %scale = arith.constant dense<16.0> : tensor<1xf32>
  %q, %amax = te.quantize %x scale %scale : tensor<f32>
      -> !te.qtensor<f32, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  %y = te.dequantize %q : !te.qtensor<f32, #te.delayed<f8E4M3FN>, rowwise> -> tensor<f32>
  return %y, %amax : tensor<f32>, tensor<1xf32>
}
