// RUN: %stock-mlir-opt %s --load-dialect-plugin=%te-plugin \
// RUN:   --load-pass-plugin=%te-plugin \
// RUN:   --pass-pipeline="builtin.module(te-infer-shapes)" | FileCheck %s

// A plugin pass rewrites IR in the stock mlir-opt: the static shape of %x
// flows through tensor.cast into the quantized result and the signature.

// CHECK-LABEL: func.func @main
// CHECK-SAME: -> !te.qtensor<128x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK: te.quantize %{{.*}} : tensor<128x64xbf16> -> !te.qtensor<128x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
func.func @main(%x: tensor<128x64xbf16>)
    -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> {
  %c = tensor.cast %x : tensor<128x64xbf16> to tensor<?x64xbf16>
  %q = te.quantize %c : tensor<?x64xbf16>
      -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  return %q : !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
}
