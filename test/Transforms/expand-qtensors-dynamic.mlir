// RUN: te-opt %s -split-input-file --te-expand-qtensors | FileCheck %s
// RUN: te-opt %s -split-input-file --te-expand-qtensors --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUF

// A !te.qtensor with a dynamic dimension: its buffers are allocated with the
// sizes the Format library's extents give for the run-time dimensions
// (docs/formats.md §3 layouts, M = the batch, K = 256), as index arithmetic;
// static axes stay static.
// CHECK-NOT: !te.qtensor
// BUF-NOT: !te.qtensor

// Per-tensor current scaling on sm_90: _data [M, K], _transpose [K, M],
// _scale_inv [1].
// CHECK-LABEL: func.func @current
// CHECK-SAME: (%[[X:.*]]: tensor<?x256xbf16>)
// CHECK: %[[M:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x256xbf16>
// CHECK-DAG: %[[D:.*]] = tensor.empty(%[[M]]) : tensor<?x256xf8E4M3FN>
// CHECK-DAG: %[[T:.*]] = tensor.empty(%[[M]]) : tensor<256x?xf8E4M3FN>
// CHECK-DAG: %[[S:.*]] = tensor.empty() : tensor<1xf32>
// CHECK: te.quantize_buffers %[[X]] quantizer #te.current<f8E4M3FN> usage rowwise|columnwise outs(%[[D]], %[[T]], %[[S]] :
// BUF-LABEL: func.func @current
// BUF: memref.alloc(%{{.*}}) {{.*}}: memref<?x256xf8E4M3FN>
// BUF: memref.alloc(%{{.*}}) {{.*}}: memref<256x?xf8E4M3FN>
func.func @current(%x: tensor<?x256xbf16>)
    -> !te.qtensor<?x256xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> {
  %q = te.quantize %x : tensor<?x256xbf16> -> !te.qtensor<?x256xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return %q : !te.qtensor<?x256xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
}

// -----

// MXFP8: _rowwise_scale_inv [roundup(M, 128), roundup(ceildiv(K, 32), 4)]
// = [roundup(M, 128), 8]; _columnwise_scale_inv [roundup(ceildiv(M, 32), 4),
// roundup(K, 128)] = [.., 256].
// CHECK-LABEL: func.func @mxfp8
// CHECK-SAME: (%[[X:.*]]: tensor<?x256xbf16>)
// CHECK: %[[M:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x256xbf16>
// CHECK: %[[R0:.*]] = arith.ceildivui %[[M]], %[[C128:c128(_[0-9]+)?]] : index
// CHECK: %[[R:.*]] = arith.muli %[[R0]], %[[C128]] : index
// CHECK: %[[B:.*]] = arith.ceildivui %[[M]], %[[C32:c32(_[0-9]+)?]] : index
// CHECK: %[[C0:.*]] = arith.ceildivui %[[B]], %[[C4:c4(_[0-9]+)?]] : index
// CHECK: %[[C:.*]] = arith.muli %[[C0]], %[[C4]] : index
// CHECK-DAG: tensor.empty(%[[M]]) : tensor<?x256xf8E4M3FN>
// CHECK-DAG: tensor.empty(%[[R]]) : tensor<?x8xf8E8M0FNU>
// CHECK-DAG: tensor.empty(%[[C]]) : tensor<?x256xf8E8M0FNU>
func.func @mxfp8(%x: tensor<?x256xbf16>)
    -> !te.qtensor<?x256xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise> {
  %q = te.quantize %x : tensor<?x256xbf16> -> !te.qtensor<?x256xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  return %q : !te.qtensor<?x256xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
}

// -----

// Block 1x128: _rowwise_scale_inv [ceildiv(K, 128), roundup(M, 4)] =
// [2, roundup(M, 4)]; _columnwise_data [K, M]; _columnwise_scale_inv
// [ceildiv(M, 128), roundup(K, 4)] = [ceildiv(M, 128), 256]. A 3-D input
// flattens its leading dimensions: M = d0 * d1 with d0 = 4.
// CHECK-LABEL: func.func @block1d
// CHECK-SAME: (%[[X:.*]]: tensor<4x?x256xbf16>)
// CHECK: %[[D1:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<4x?x256xbf16>
// CHECK: %[[M:.*]] = arith.muli %{{.*}}, %[[D1]] : index
// CHECK: %[[R0:.*]] = arith.ceildivui %[[M]], %{{.*}} : index
// CHECK: %[[R:.*]] = arith.muli %[[R0]], %{{.*}} : index
// CHECK: %[[M2:.*]] = arith.muli %{{.*}}, %[[D1]] : index
// CHECK: %[[CB:.*]] = arith.ceildivui %[[M2]], %{{.*}} : index
// CHECK-DAG: tensor.empty(%[[D1]]) : tensor<4x?x256xf8E4M3FN>
// CHECK-DAG: tensor.empty(%[[R]]) : tensor<2x?xf32>
// CHECK-DAG: tensor.empty(%[[D1]]) : tensor<256x4x?xf8E4M3FN>
// CHECK-DAG: tensor.empty(%[[CB]]) : tensor<?x256xf32>
func.func @block1d(%x: tensor<4x?x256xbf16>)
    -> !te.qtensor<4x?x256xbf16, #te.block<f8E4M3FN>, rowwise|columnwise> {
  %q = te.quantize %x : tensor<4x?x256xbf16> -> !te.qtensor<4x?x256xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
  return %q : !te.qtensor<4x?x256xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
}

// -----

// Block 128x128: _rowwise_scale_inv [ceildiv(M, 128), roundup(ceildiv(K,
// 128), 4)] = [ceildiv(M, 128), 4].
// CHECK-LABEL: func.func @block2d
// CHECK-SAME: (%[[X:.*]]: tensor<?x256xbf16>)
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[M:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x256xbf16>
// CHECK: %[[S:.*]] = arith.ceildivui %[[M]], %[[C128]] : index
// CHECK-DAG: tensor.empty(%[[S]]) : tensor<?x4xf32>
func.func @block2d(%x: tensor<?x256xbf16>)
    -> !te.qtensor<?x256xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise> {
  %q = te.quantize %x : tensor<?x256xbf16> -> !te.qtensor<?x256xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise>
  return %q : !te.qtensor<?x256xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise>
}

// -----

// NVFP4 columnwise, from te.empty's size operand: _columnwise_data [K, M / 2]
// (exact: M % 16 == 0 is checked by the runtime), _columnwise_scale_inv
// [roundup(K, 128), roundup(ceildiv(M, 16), 4)] = [256, ..], _amax [1]. A
// consumer, the wgrad GEMM, has a static result; convert-te-to-runtime reads
// M back from the packed data (twice its axis 1).
// CHECK-LABEL: func.func @nvfp4
// CHECK-SAME: (%[[N:.*]]: index, %[[DY:.*]]: tensor<?x64xbf16>)
// CHECK: %[[H:.*]] = arith.divui %[[N]], %[[C2:c2(_[0-9]+)?]] : index
// CHECK: %[[B:.*]] = arith.ceildivui %[[N]], %[[C16:c16(_[0-9]+)?]] : index
// CHECK: %[[S0:.*]] = arith.ceildivui %[[B]], %[[C4:c4(_[0-9]+)?]] : index
// CHECK: %[[S:.*]] = arith.muli %[[S0]], %[[C4]] : index
// CHECK: %[[D:.*]] = tensor.empty(%[[H]]) : tensor<256x?xi8>
// CHECK: tensor.empty(%[[S]]) : tensor<256x?xf8E4M3FN>
// CHECK: te.gemm_buffers layout NT
// CHECK-SAME: a(%[[D]],
// CHECK-SAME: shape [{{.*}}, 256]
// CHECK-SAME: shape [{{.*}}, 64]
// CHECK-SAME: -> tensor<64x256xf32>
func.func @nvfp4(%n: index, %dy: tensor<?x64xbf16>) -> tensor<64x256xf32> {
  %x = te.empty(%n) : !te.qtensor<?x256xbf16, #te.nvfp4<f4E2M1FN>, columnwise>
  %g = te.quantize %dy : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.nvfp4<f4E2M1FN>, columnwise>
  %dw = te.gemm %x, %g layout NT
      : !te.qtensor<?x256xbf16, #te.nvfp4<f4E2M1FN>, columnwise>,
        !te.qtensor<?x64xbf16, #te.nvfp4<f4E2M1FN>, columnwise> -> tensor<64x256xf32>
  return %dw : tensor<64x256xf32>
}

// -----

// Results whose batch is dynamic take it from their operands' buffers: the
// GEMM's from B's data (TN: the result is [M, N]), the dequantized tensor's
// from the quantized one's data. A quantized GEMM output is sized like a
// quantized input.
// CHECK-LABEL: func.func @results
// CHECK-SAME: (%[[X:.*]]: tensor<?x256xbf16>, %[[W:.*]]: tensor<64x256xbf16>)
// CHECK: %[[XQ:.*]]:3 = te.quantize_buffers %[[X]]
// CHECK: %[[M:.*]] = tensor.dim %[[XQ]]#0, %{{.*}} : tensor<?x256xf8E4M3FN>
// CHECK: %[[Y0:.*]] = tensor.empty(%[[M]]) : tensor<?x64xbf16>
// CHECK: te.gemm_buffers layout TN
// CHECK-SAME: outs(%[[Y0]] : tensor<?x64xbf16>)
// CHECK: %[[M2:.*]] = tensor.dim %[[XQ]]#0, %{{.*}} : tensor<?x256xf8E4M3FN>
// CHECK-DAG: %[[Q0:.*]] = tensor.empty(%[[M2]]) : tensor<?x64xf8E4M3FN>
// CHECK: te.gemm_buffers layout TN
// CHECK-SAME: outs(%[[Q0]], %{{.*}} : tensor<?x64xf8E4M3FN>, tensor<1xf32>)
// CHECK: %[[M3:.*]] = tensor.dim %[[XQ]]#0, %{{.*}} : tensor<?x256xf8E4M3FN>
// CHECK: %[[X0:.*]] = tensor.empty(%[[M3]]) : tensor<?x256xf32>
// CHECK: te.dequantize_buffers
// CHECK-SAME: outs(%[[X0]] : tensor<?x256xf32>)
func.func @results(%x: tensor<?x256xbf16>, %w: tensor<64x256xbf16>)
    -> (tensor<?x64xbf16>, !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>, tensor<?x256xf32>) {
  %xq = te.quantize %x : tensor<?x256xbf16> -> !te.qtensor<?x256xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  %wq = te.quantize %w : tensor<64x256xbf16> -> !te.qtensor<64x256xbf16, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x256xbf16, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<?x256xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<?x64xbf16>
  %yq = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x256xbf16, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<?x256xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
        -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
  %xd = te.dequantize %xq : !te.qtensor<?x256xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<?x256xf32>
  return %y, %yq, %xd : tensor<?x64xbf16>, !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>, tensor<?x256xf32>
}

// -----

// A wgrad (NT) of 3-D NVFP4 columnwise operands with two dynamic leading
// dimensions: the columnwise data [K, M/2] keeps only the product of those,
// and the result [N, K] needs none of them, so only B's last dimension (the
// result's N) is read, from B's data.
// CHECK-LABEL: func.func @wgrad_two_dynamic
// CHECK-SAME: %{{.*}}: tensor<256x?xi8>, %{{.*}}: tensor<256x?xf8E4M3FN>, %{{.*}}: tensor<1xf32>, %[[BD:.*]]: tensor<?x?xi8>
// CHECK: %[[N:.*]] = tensor.dim %[[BD]], %{{.*}} : tensor<?x?xi8>
// CHECK: %[[D:.*]] = tensor.empty(%[[N]]) : tensor<?x256xf32>
// CHECK: te.gemm_buffers layout NT
// CHECK-SAME: shape [?, ?, 256]
// CHECK-SAME: shape [?, ?, ?]
// CHECK-SAME: outs(%[[D]] : tensor<?x256xf32>)
func.func @wgrad_two_dynamic(%x: !te.qtensor<?x?x256xbf16, #te.nvfp4<f4E2M1FN>, columnwise>,
                             %g: !te.qtensor<?x?x?xbf16, #te.nvfp4<f4E2M1FN>, columnwise>) -> tensor<?x256xf32> {
  %dw = te.gemm %x, %g layout NT
      : !te.qtensor<?x?x256xbf16, #te.nvfp4<f4E2M1FN>, columnwise>,
        !te.qtensor<?x?x?xbf16, #te.nvfp4<f4E2M1FN>, columnwise> -> tensor<?x256xf32>
  return %dw : tensor<?x256xf32>
}
