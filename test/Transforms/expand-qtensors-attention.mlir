// RUN: te-opt %s --split-input-file --te-expand-qtensors | FileCheck %s

// te.attention and te.attention_grad become their buffer-level forms into
// fresh tensors (tensor.empty of the results' sizes: the query's with the
// value's last for the output, the query's without its last for the lse,
// the query's, key's and value's for the gradients; tensor.dim where a size
// is dynamic). The default scale 1/sqrt(E) is written out (E = 64: 0.125).

// CHECK-LABEL: func.func @forward
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x8x128x64xbf16>, %[[K:[^:]*]]: tensor<2x2x17x64xbf16>, %[[V:[^:]*]]: tensor<2x2x17x32xbf16>, %[[M:[^:]*]]: tensor<1x1x128x17xi1>
// CHECK-DAG: %[[O0:.*]] = tensor.empty() : tensor<2x8x128x32xbf16>
// CHECK-DAG: %[[L0:.*]] = tensor.empty() : tensor<2x8x128xf32>
// CHECK: %[[R:.*]]:2 = te.attention_buffers %[[Q]], %[[K]], %[[V]] mask %[[M]] {causal, scale = 1.250000e-01 : f32} outs(%[[O0]], %[[L0]] : tensor<2x8x128x32xbf16>, tensor<2x8x128xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1
// CHECK-NOT: te.attention
func.func @forward(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x2x17x64xbf16>,
                   %v: tensor<2x2x17x32xbf16>, %m: tensor<1x1x128x17xi1>)
    -> (tensor<2x8x128x32xbf16>, tensor<2x8x128xf32>) {
  %o, %lse = te.attention %q, %k, %v mask %m {causal}
      : tensor<2x8x128x64xbf16>, tensor<2x2x17x64xbf16>, tensor<2x2x17x32xbf16>, tensor<1x1x128x17xi1>
  return %o, %lse : tensor<2x8x128x32xbf16>, tensor<2x8x128xf32>
}

// -----

// An lse the program does not read is not written: one 'outs' operand.
// CHECK-LABEL: func.func @output_only
// CHECK: %[[O0:.*]] = tensor.empty() : tensor<16x100x64xf16>
// CHECK: %[[R:.*]] = te.attention_buffers %{{.*}}, %{{.*}}, %{{.*}} {scale = 5.000000e-01 : f32} outs(%[[O0]] : tensor<16x100x64xf16>)
// CHECK: return %[[R]]
func.func @output_only(%q: tensor<16x100x64xf16>, %k: tensor<16x17x64xf16>) -> tensor<16x100x64xf16> {
  %o, %lse = te.attention %q, %k, %k {scale = 0.5 : f32}
      : tensor<16x100x64xf16>, tensor<16x17x64xf16>, tensor<16x17x64xf16>
  return %o : tensor<16x100x64xf16>
}

// -----

// A dynamic batch and query length: the outputs are sized at run time.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: %[[Q:[^:]*]]: tensor<?x4x?x64xf32>, %[[K:[^:]*]]: tensor<?x4x?x64xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[B:.*]] = tensor.dim %[[Q]], %[[C0]]
// CHECK-DAG: %[[L:.*]] = tensor.dim %[[Q]], %[[C2]]
// CHECK-DAG: %[[O0:.*]] = tensor.empty(%[[B]], %[[L]]) : tensor<?x4x?x64xf32>
// CHECK-DAG: %[[L0:.*]] = tensor.empty(%[[B]], %[[L]]) : tensor<?x4x?xf32>
// CHECK: te.attention_buffers %[[Q]], %[[K]], %[[K]] {scale = 1.250000e-01 : f32} outs(%[[O0]], %[[L0]] : tensor<?x4x?x64xf32>, tensor<?x4x?xf32>)
func.func @dynamic(%q: tensor<?x4x?x64xf32>, %k: tensor<?x4x?x64xf32>)
    -> (tensor<?x4x?x64xf32>, tensor<?x4x?xf32>) {
  %o, %lse = te.attention %q, %k, %k : tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>
  return %o, %lse : tensor<?x4x?x64xf32>, tensor<?x4x?xf32>
}

// -----

// CHECK-LABEL: func.func @backward
// CHECK-SAME: %[[Q:[^:]*]]: tensor<?x8x64xbf16>, %[[K:[^:]*]]: tensor<?x8x64xbf16>, %[[O:[^:]*]]: tensor<?x8x64xbf16>, %[[L:[^:]*]]: tensor<?x8xf32>, %[[DO:[^:]*]]: tensor<?x8x64xbf16>
// CHECK-DAG: %[[NQ:.*]] = tensor.dim %[[Q]], %{{.*}}
// CHECK-DAG: %[[NK:.*]] = tensor.dim %[[K]], %{{.*}}
// CHECK-DAG: %[[DQ0:.*]] = tensor.empty(%[[NQ]]) : tensor<?x8x64xbf16>
// CHECK-DAG: %[[DK0:.*]] = tensor.empty(%[[NK]]) : tensor<?x8x64xbf16>
// CHECK: te.attention_grad_buffers %[[Q]], %[[K]], %[[K]], %[[O]], %[[L]], %[[DO]] {causal, scale = 1.250000e-01 : f32} outs(%[[DQ0]], %[[DK0]], %{{.*}} : tensor<?x8x64xbf16>, tensor<?x8x64xbf16>, tensor<?x8x64xbf16>)
// CHECK-NOT: te.attention_grad
func.func @backward(%q: tensor<?x8x64xbf16>, %k: tensor<?x8x64xbf16>, %o: tensor<?x8x64xbf16>,
                    %lse: tensor<?x8xf32>, %do: tensor<?x8x64xbf16>)
    -> (tensor<?x8x64xbf16>, tensor<?x8x64xbf16>, tensor<?x8x64xbf16>) {
  %dq, %dk, %dv = te.attention_grad %q, %k, %k, %o, %lse, %do {causal}
      : tensor<?x8x64xbf16>, tensor<?x8x64xbf16>, tensor<?x8x64xbf16>,
        tensor<?x8x64xbf16>, tensor<?x8xf32>, tensor<?x8x64xbf16>
  return %dq, %dk, %dv : tensor<?x8x64xbf16>, tensor<?x8x64xbf16>, tensor<?x8x64xbf16>
}
