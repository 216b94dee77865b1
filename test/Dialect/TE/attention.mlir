// RUN: te-opt %s | te-opt | FileCheck %s
// RUN: te-opt %s --mlir-print-op-generic | te-opt | FileCheck %s
// RUN: te-opt %s --emit-bytecode | te-opt | FileCheck %s

// Round trip of te.attention, te.attention_grad and their buffer-level forms:
// 3-D and 4-D operands, grouped-query heads, additive and boolean masks
// (broadcast by size-1 dimensions), dynamic dimensions, the inferred result
// types.

// CHECK-LABEL: func.func @forward_4d
func.func @forward_4d(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x2x128x64xbf16>,
                      %v: tensor<2x2x128x32xbf16>)
    -> (tensor<2x8x128x32xbf16>, tensor<2x8x128xf32>) {
  // CHECK: %[[O:.*]], %[[L:.*]] = te.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 1.250000e-01 : f32} : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x32xbf16>
  // CHECK: return %[[O]], %[[L]] : tensor<2x8x128x32xbf16>, tensor<2x8x128xf32>
  %o, %lse = te.attention %q, %k, %v {causal, scale = 0.125 : f32}
      : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x32xbf16>
  return %o, %lse : tensor<2x8x128x32xbf16>, tensor<2x8x128xf32>
}

// CHECK-LABEL: func.func @forward_3d_masks
func.func @forward_3d_masks(%q: tensor<16x100x64xf16>, %k: tensor<16x17x64xf16>,
                            %add: tensor<1x100x17xf32>, %keep: tensor<16x1x17xi1>)
    -> (tensor<16x100x64xf16>, tensor<16x100x64xf16>) {
  // CHECK: te.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : tensor<16x100x64xf16>, tensor<16x17x64xf16>, tensor<16x17x64xf16>, tensor<1x100x17xf32>
  %o0, %l0 = te.attention %q, %k, %k mask %add
      : tensor<16x100x64xf16>, tensor<16x17x64xf16>, tensor<16x17x64xf16>, tensor<1x100x17xf32>
  // CHECK: te.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {causal} : tensor<16x100x64xf16>, tensor<16x17x64xf16>, tensor<16x17x64xf16>, tensor<16x1x17xi1>
  %o1, %l1 = te.attention %q, %k, %k mask %keep {causal}
      : tensor<16x100x64xf16>, tensor<16x17x64xf16>, tensor<16x17x64xf16>, tensor<16x1x17xi1>
  return %o0, %o1 : tensor<16x100x64xf16>, tensor<16x100x64xf16>
}

// A dynamic batch, a dynamic sequence length, a mask of the query's
// element type.
// CHECK-LABEL: func.func @forward_dynamic
func.func @forward_dynamic(%q: tensor<?x4x?x64xf32>, %k: tensor<?x4x?x64xf32>,
                           %m: tensor<1x1x?x?xf32>)
    -> (tensor<?x4x?x64xf32>, tensor<?x4x?xf32>) {
  // CHECK: te.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {scale = 5.000000e-01 : f32} : tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<1x1x?x?xf32>
  %o, %lse = te.attention %q, %k, %k mask %m {scale = 0.5 : f32}
      : tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<1x1x?x?xf32>
  return %o, %lse : tensor<?x4x?x64xf32>, tensor<?x4x?xf32>
}

// CHECK-LABEL: func.func @backward
func.func @backward(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x2x128x64xbf16>,
                    %v: tensor<2x2x128x32xbf16>, %o: tensor<2x8x128x32xbf16>,
                    %lse: tensor<2x8x128xf32>, %do: tensor<2x8x128x32xbf16>,
                    %m: tensor<2x1x128x128xi1>)
    -> (tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x32xbf16>) {
  // CHECK: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = te.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {causal} : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x32xbf16>, tensor<2x8x128x32xbf16>, tensor<2x8x128xf32>, tensor<2x8x128x32xbf16>, tensor<2x1x128x128xi1>
  // CHECK: return %[[DQ]], %[[DK]], %[[DV]] : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x32xbf16>
  %dq, %dk, %dv = te.attention_grad %q, %k, %v, %o, %lse, %do mask %m {causal}
      : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x32xbf16>,
        tensor<2x8x128x32xbf16>, tensor<2x8x128xf32>, tensor<2x8x128x32xbf16>,
        tensor<2x1x128x128xi1>
  return %dq, %dk, %dv : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x32xbf16>
}

// CHECK-LABEL: func.func @buffers_tensors
func.func @buffers_tensors(%q: tensor<16x128x64xbf16>, %m: tensor<1x128x128xi1>,
                           %o0: tensor<16x128x64xbf16>, %l0: tensor<16x128xf32>)
    -> (tensor<16x128x64xbf16>, tensor<16x128xf32>, tensor<16x128x64xbf16>) {
  // CHECK: te.attention_buffers %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 1.250000e-01 : f32} outs(%{{.*}}, %{{.*}} : tensor<16x128x64xbf16>, tensor<16x128xf32>) : tensor<16x128x64xbf16>, tensor<16x128x64xbf16>, tensor<16x128x64xbf16> -> tensor<16x128x64xbf16>, tensor<16x128xf32>
  %o, %l = te.attention_buffers %q, %q, %q {causal, scale = 0.125 : f32}
      outs(%o0, %l0 : tensor<16x128x64xbf16>, tensor<16x128xf32>)
      : tensor<16x128x64xbf16>, tensor<16x128x64xbf16>, tensor<16x128x64xbf16>
      -> tensor<16x128x64xbf16>, tensor<16x128xf32>
  // Without the lse.
  // CHECK: te.attention_buffers %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {scale = 1.250000e-01 : f32} outs(%{{.*}} : tensor<16x128x64xbf16>) : tensor<16x128x64xbf16>, tensor<16x128x64xbf16>, tensor<16x128x64xbf16>, tensor<1x128x128xi1> -> tensor<16x128x64xbf16>
  %o2 = te.attention_buffers %q, %q, %q mask %m {scale = 0.125 : f32}
      outs(%o0 : tensor<16x128x64xbf16>)
      : tensor<16x128x64xbf16>, tensor<16x128x64xbf16>, tensor<16x128x64xbf16>, tensor<1x128x128xi1>
      -> tensor<16x128x64xbf16>
  return %o, %l, %o2 : tensor<16x128x64xbf16>, tensor<16x128xf32>, tensor<16x128x64xbf16>
}

// CHECK-LABEL: func.func @buffers_memrefs
func.func @buffers_memrefs(%q: memref<?x8x128x64xf16>, %k: memref<?x2x128x64xf16>,
                           %o: memref<?x8x128x64xf16>, %l: memref<?x8x128xf32>,
                           %dq: memref<?x8x128x64xf16>, %dk: memref<?x2x128x64xf16>,
                           %dv: memref<?x2x128x64xf16>, %m: memref<?x1x1x128xf16>) {
  // CHECK: te.attention_buffers %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {scale = 1.250000e-01 : f32} outs(%{{.*}}, %{{.*}} : memref<?x8x128x64xf16>, memref<?x8x128xf32>) : memref<?x8x128x64xf16>, memref<?x2x128x64xf16>, memref<?x2x128x64xf16>, memref<?x1x1x128xf16>
  te.attention_buffers %q, %k, %k mask %m {scale = 0.125 : f32}
      outs(%o, %l : memref<?x8x128x64xf16>, memref<?x8x128xf32>)
      : memref<?x8x128x64xf16>, memref<?x2x128x64xf16>, memref<?x2x128x64xf16>, memref<?x1x1x128xf16>
  // CHECK: te.attention_grad_buffers %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 1.250000e-01 : f32} outs(%{{.*}}, %{{.*}}, %{{.*}} : memref<?x8x128x64xf16>, memref<?x2x128x64xf16>, memref<?x2x128x64xf16>) : memref<?x8x128x64xf16>, memref<?x2x128x64xf16>, memref<?x2x128x64xf16>, memref<?x8x128x64xf16>, memref<?x8x128xf32>, memref<?x8x128x64xf16>
  te.attention_grad_buffers %q, %k, %k, %o, %l, %o {causal, scale = 0.125 : f32}
      outs(%dq, %dk, %dv : memref<?x8x128x64xf16>, memref<?x2x128x64xf16>, memref<?x2x128x64xf16>)
      : memref<?x8x128x64xf16>, memref<?x2x128x64xf16>, memref<?x2x128x64xf16>,
        memref<?x8x128x64xf16>, memref<?x8x128xf32>, memref<?x8x128x64xf16>
  return
}
