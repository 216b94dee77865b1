// RUN: %stock-mlir-opt %s --load-dialect-plugin=%te-plugin \
// RUN:   --load-pass-plugin=%te-plugin \
// RUN:   --pass-pipeline="builtin.module(te-print-buffers)" -o /dev/null \
// RUN:   | FileCheck %s

// The stock mlir-opt parses the te dialect and runs a te pass from the plugin.
// Buffers derived by hand from docs/formats.md §3.3: MXFP8, M = 128, K = 64:
// rowwise scales (rup(M,128), rup(ceil(K/32),4)) = (128, 4), columnwise
// scales (rup(ceil(M/32),4), rup(K,128)) = (4, 128), data not transposed.

// CHECK: te-buffers @f %arg0 : _rowwise_data 128x64xf8E4M3FN, _rowwise_scale_inv 128x4xf8E8M0FNU, _columnwise_data 128x64xf8E4M3FN, _columnwise_scale_inv 4x128xf8E8M0FNU
// Per-tensor FP8 on sm_90 (§3.2): a transposed columnwise copy.
// CHECK: te-buffers @f %{{.*}} = te.quantize : _data 128x64xf8E4M3FN, _transpose 64x128xf8E4M3FN, _scale_inv 1xf32
func.func @f(%q: !te.qtensor<128x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>,
             %x: tensor<128x64xbf16>)
    -> !te.qtensor<128x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> {
  %0 = te.quantize %x : tensor<128x64xbf16>
      -> !te.qtensor<128x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return %0 : !te.qtensor<128x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
}
