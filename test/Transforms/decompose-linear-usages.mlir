// RUN: te-opt %s -split-input-file --te-decompose-linear --te-infer-usages | FileCheck %s

// te-decompose-linear then te-infer-usages, as te-pipeline runs them: an
// inference program quantizes its activations and weights rowwise only
// (docs/guide/concepts.md "Usages"); a training program keeps the columnwise
// copies its backward reads.

// Forward only: nothing reads the saved input or weight, so no view of the
// input is made and no columnwise copy is computed.
// CHECK-LABEL: func.func @inference
// CHECK: te.quantize %{{.*}} : tensor<32x128xbf16> -> !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: te.quantize %{{.*}} : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK-NOT: te.buffers
// CHECK-NOT: te.from_buffers
// CHECK: return
func.func @inference(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<32x64xbf16> {
  %y, %xs, %ws = te.linear %x, %w
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return %y : tensor<32x64xbf16>
}

// -----

// A two-layer MLP for inference, MXFP8: every quantization rowwise only.
// CHECK-LABEL: func.func @mlp
// CHECK-COUNT-4: te.quantize {{.*}}, rowwise>
// CHECK-NOT: columnwise
// CHECK: return
func.func @mlp(%x: tensor<32x128xbf16>, %w0: tensor<128x128xbf16>, %w1: tensor<64x128xbf16>) -> tensor<32x64xbf16> {
  %h, %xs0, %ws0 = te.linear %x, %w0
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<128x128xbf16>
  %y, %xs1, %ws1 = te.linear %h, %w1
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return %y : tensor<32x64xbf16>
}

// -----

// Forward and backward in one step: the wgrad GEMM reads the saved input
// columnwise and the dgrad GEMM the weight columnwise, so both keep
// rowwise|columnwise; the saved input is the columnwise view.
// CHECK-LABEL: func.func @training_step
// CHECK: %[[XQ:.*]] = te.quantize %{{.*}} : tensor<32x128xbf16> -> !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK: %[[WQ:.*]] = te.quantize %{{.*}} : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK: te.buffers %[[XQ]]
// CHECK: %[[XS:.*]] = te.from_buffers {{.*}} -> !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>
// CHECK: te.gemm %[[WQ]], %{{.*}} layout NN
// CHECK: te.gemm %[[XS]], %{{.*}} layout NT
func.func @training_step(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>, %dy: tensor<32x64xbf16>)
    -> (tensor<32x64xbf16>, tensor<32x128xbf16>, tensor<64x128xbf16>) {
  %y, %xs, %ws = te.linear %x, %w
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  %dx, %dw = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E5M2>}
      : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return %y, %dx, %dw : tensor<32x64xbf16>, tensor<32x128xbf16>, tensor<64x128xbf16>
}
