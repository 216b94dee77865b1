// REQUIRES: te-pipeline
// RUN: %stock-mlir-opt %s --load-dialect-plugin=%te-plugin \
// RUN:   --load-pass-plugin=%te-plugin \
// RUN:   --pass-pipeline="builtin.module(te-pipeline{target=cpu})" | FileCheck %s

// The whole te flow runs in the stock mlir-opt: the result is LLVM dialect
// calling the runtime, with no te type left.

// CHECK: llvm.func @main
// CHECK-NOT: !te.qtensor
// CHECK: llvm.call @te_rt_
func.func @main(%x: tensor<128x64xbf16>) -> tensor<128x64xf32> {
  %q = te.quantize %x : tensor<128x64xbf16>
      -> !te.qtensor<128x64xbf16, #te.current<f8E4M3FN>, rowwise>
  %y = te.dequantize %q : !te.qtensor<128x64xbf16, #te.current<f8E4M3FN>, rowwise>
      -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}
