// RUN: %stock-mlir-opt %s --load-dialect-plugin=%te-plugin \
// RUN:   --load-pass-plugin=%te-plugin \
// RUN:   --pass-pipeline="builtin.module(te-expand-qtensors)" | FileCheck %s

// A plugin pass rewrites IR in the stock mlir-opt: the qtensor argument
// becomes its MXFP8 buffers (docs/formats.md §3.3, M = 128, K = 64: data
// 128x64, rowwise scales (rup(M,128), rup(ceil(K/32),4)) = (128, 4)).

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%{{.*}}: tensor<128x64xf8E4M3FN>, %{{.*}}: tensor<128x4xf8E8M0FNU>) -> tensor<128x64xf32>
// CHECK: te.dequantize_buffers
// CHECK-NOT: !te.qtensor
func.func @main(%q: !te.qtensor<128x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>)
    -> tensor<128x64xf32> {
  %y = te.dequantize %q : !te.qtensor<128x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
      -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}
