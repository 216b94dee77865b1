// convert-te-to-reference on shapes te-infer-shapes leaves dynamic: the
// twin allocates no quantized buffers, so its GEMMs size their results at
// run time from the operands (tensor.dim) instead of failing to legalize.
//
// RUN: te-opt %s --te-decompose-linear --convert-te-to-reference | FileCheck %s
// RUN: te-opt %s --te-pipeline="target=cpu reference=true remarks=false" -o /dev/null

// A batch the program leaves dynamic, through te.linear.
// CHECK-LABEL: func.func @dynamic_batch(
// CHECK-SAME: %[[X:.*]]: tensor<?x256xbf16>, %[[W:.*]]: tensor<128x256xbf16>) -> tensor<?x128xbf16>
// CHECK: %[[M:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x256xbf16>
// CHECK: tensor.empty(%[[M]]) : tensor<?x128xf32>
// CHECK: linalg.generic {{.*}} ins(%[[W]], %[[X]] : tensor<128x256xbf16>, tensor<?x256xbf16>)
// CHECK: tensor.empty(%[[M]]) : tensor<?x128xbf16>
// CHECK-NOT: te.
// CHECK: return %{{.*}} : tensor<?x128xbf16>
func.func @dynamic_batch(%x: tensor<?x256xbf16>, %w: tensor<128x256xbf16>) -> tensor<?x128xbf16> {
  %y, %xs, %ws = te.linear %x, %w
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<?x256xbf16>, tensor<128x256xbf16>
  return %y : tensor<?x128xbf16>
}

// Batch and sequence dynamic: the GEMM runs over B's leading dimensions
// as they are, and D has them.
// CHECK-LABEL: func.func @sequence(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x?x256xbf16>
// CHECK-NOT: collapse_shape
// CHECK: %[[B:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?x256xbf16>
// CHECK: %[[S:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?x256xbf16>
// CHECK: tensor.empty(%[[B]], %[[S]]) : tensor<?x?x128xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[X]] : tensor<128x256xbf16>, tensor<?x?x256xbf16>)
// CHECK-NOT: expand_shape
// CHECK: return %{{.*}} : tensor<?x?x128xbf16>
func.func @sequence(%x: tensor<?x?x256xbf16>, %w: tensor<128x256xbf16>) -> tensor<?x?x128xbf16> {
  %xq = te.quantize %x : tensor<?x?x256xbf16> -> !te.qtensor<?x?x256xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  %wq = te.quantize %w : tensor<128x256xbf16> -> !te.qtensor<128x256xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN
      : !te.qtensor<128x256xbf16, #te.mxfp8<f8E4M3FN>, rowwise>, !te.qtensor<?x?x256xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
      -> tensor<?x?x128xbf16>
  return %y : tensor<?x?x128xbf16>
}

// A vector operand B [K]: D is [N].
// CHECK-LABEL: func.func @vector(
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<128x256xbf16>, tensor<256xbf16>) outs(%{{.*}} : tensor<128xf32>)
// CHECK: return %{{.*}} : tensor<128xbf16>
func.func @vector(%x: tensor<256xbf16>, %w: tensor<128x256xbf16>) -> tensor<128xbf16> {
  %xq = te.quantize %x : tensor<256xbf16> -> !te.qtensor<256xbf16, #te.current<f8E4M3FN>, rowwise>
  %wq = te.quantize %w : tensor<128x256xbf16> -> !te.qtensor<128x256xbf16, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN
      : !te.qtensor<128x256xbf16, #te.current<f8E4M3FN>, rowwise>, !te.qtensor<256xbf16, #te.current<f8E4M3FN>, rowwise>
      -> tensor<128xbf16>
  return %y : tensor<128xbf16>
}

// The backward with a dynamic batch: dgrad (NN) over dY's leading
// dimensions, wgrad (NT) contracting over the batch.
// CHECK-LABEL: func.func @backward(
// CHECK-SAME: %[[DY:[^:]*]]: tensor<?x128xbf16>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[DY]] : tensor<128x256xbf16>, tensor<?x128xbf16>) outs(%{{.*}} : tensor<?x256xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[DY]] : tensor<?x256xbf16>, tensor<?x128xbf16>) outs(%{{.*}} : tensor<128x256xf32>)
// CHECK: return %{{.*}}, %{{.*}} : tensor<?x256xbf16>, tensor<128x256xbf16>
func.func @backward(%dy: tensor<?x128xbf16>, %x: tensor<?x256xbf16>, %w: tensor<128x256xbf16>)
    -> (tensor<?x256xbf16>, tensor<128x256xbf16>) {
  %xq = te.quantize %x : tensor<?x256xbf16> -> !te.qtensor<?x256xbf16, #te.current<f8E4M3FN>, columnwise>
  %wq = te.quantize %w : tensor<128x256xbf16> -> !te.qtensor<128x256xbf16, #te.current<f8E4M3FN>, columnwise>
  %dx, %dw = te.linear_grad %dy, %xq, %wq {grad_output_quantizer = #te.current<f8E5M2>}
      : tensor<?x128xbf16>, !te.qtensor<?x256xbf16, #te.current<f8E4M3FN>, columnwise>,
        !te.qtensor<128x256xbf16, #te.current<f8E4M3FN>, columnwise>
  return %dx, %dw : tensor<?x256xbf16>, tensor<128x256xbf16>
}
