// RUN: te-opt %s -split-input-file --te-expand-qtensors | FileCheck %s
// RUN: te-opt %s -split-input-file --te-expand-qtensors --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUF

// te-expand-qtensors copies the amax reduction group of te.quantize onto the
// te.quantize_buffers it becomes (docs/distributed.md); a quantization
// without a group stays without one.

// Current scaling, X = 32x64 rowwise|columnwise on sm_90: _data 32x64,
// _transpose 64x32, _scale_inv 1.
// CHECK-LABEL: func.func @current
// CHECK-SAME: (%[[X:.*]]: tensor<32x64xbf16>)
// CHECK: %[[Q:.*]]:3 = te.quantize_buffers %[[X]] quantizer #te.current<f8E4M3FN> usage rowwise|columnwise group "tp"
// CHECK-SAME: : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
// CHECK: %[[L:.*]]:3 = te.quantize_buffers %[[X]] quantizer #te.current<f8E4M3FN> usage rowwise|columnwise outs(
// CHECK: return %[[Q]]#0, %[[Q]]#1, %[[Q]]#2, %[[L]]#0, %[[L]]#1, %[[L]]#2
// BUF-LABEL: func.func @current
// BUF: te.quantize_buffers %{{.*}} quantizer #te.current<f8E4M3FN> usage rowwise|columnwise group "tp"
// BUF-SAME: : memref<32x64xbf16
// BUF: te.quantize_buffers %{{.*}} quantizer #te.current<f8E4M3FN> usage rowwise|columnwise outs(
func.func @current(%x: tensor<32x64xbf16>)
    -> (!te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>,
        !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  %q = te.quantize %x group "tp" : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  %l = te.quantize %x : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return %q, %l : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>,
      !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
}

// -----

// NVFP4 with the RHT and stochastic rounding: the group comes after the
// random stream, as on te.quantize.
// CHECK-LABEL: func.func @nvfp4
// CHECK: te.quantize_buffers %{{.*}} seed %{{.*}} offset %{{.*}} quantizer #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true> usage rowwise|columnwise group "sp"
// BUF-LABEL: func.func @nvfp4
// BUF: te.quantize_buffers %{{.*}} seed %{{.*}} offset %{{.*}} quantizer #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true> usage rowwise|columnwise group "sp"
func.func @nvfp4(%x: tensor<32x64xbf16>, %seed: i64, %off: i64)
    -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>, rowwise|columnwise> {
  %q = te.quantize %x seed %seed offset %off group "sp" : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>, rowwise|columnwise>
  return %q : !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>, rowwise|columnwise>
}
