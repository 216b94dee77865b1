// convert-te-to-reference on te.attention and te.attention_grad: linalg ops
// in f32 with the scores materialized (the values are checked against the
// oracle by test/Integration/attention.mlir's --reference runs). Key and
// value are repeated per query head for grouped-query attention (a
// broadcast and a collapse_shape, head h reading kv head h / g), the
// backward's dK and dV summed back over each group (an expand_shape and a
// reduction).
//
// RUN: te-opt %s --convert-te-to-reference | FileCheck %s
// RUN: te-opt %s --te-pipeline="target=cpu reference=true remarks=false" -o /dev/null

// CHECK-LABEL: func.func @forward(
// The key and the value per query head: [2, 2, 17, 8] -> [2, 2, 2, 17, 8]
// -> [2, 4, 17, 8].
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x2x2x17x8xf32> into tensor<2x4x17x8xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x2x2x17x8xf32> into tensor<2x4x17x8xf32>
// The scores [2, 4, 16, 17], scaled, the mask, causal (linalg.index).
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4x16x8xf32>, tensor<2x4x17x8xf32>)
// CHECK: } -> tensor<2x4x16x17xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4x16x17xf32>, tensor<1x1x16x17xi1>)
// CHECK: linalg.index 2
// CHECK: linalg.index 3
// CHECK: arith.cmpi ugt
// The row maximum, the sum of exp, P·V, the division, the lse.
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: math.log
// CHECK-NOT: te.attention
// CHECK: return %{{.*}}, %{{.*}} : tensor<2x4x16x8xf32>, tensor<2x4x16xf32>
func.func @forward(%q: tensor<2x4x16x8xf32>, %k: tensor<2x2x17x8xf32>, %v: tensor<2x2x17x8xf32>,
                   %m: tensor<1x1x16x17xi1>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>) {
  %o, %lse = te.attention %q, %k, %v mask %m {causal}
      : tensor<2x4x16x8xf32>, tensor<2x2x17x8xf32>, tensor<2x2x17x8xf32>, tensor<1x1x16x17xi1>
  return %o, %lse : tensor<2x4x16x8xf32>, tensor<2x4x16xf32>
}

// bf16 with a dynamic N (3-D): the group size Hq / Hkv computed at run time
// (tensor.dim, divui), the result rounded once to bf16 (truncf).
// CHECK-LABEL: func.func @dynamic(
// CHECK: arith.divui
// CHECK: tensor.collapse_shape
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: te.attention
func.func @dynamic(%q: tensor<?x16x8xbf16>, %k: tensor<?x17x8xbf16>) -> tensor<?x16x8xbf16> {
  %o, %lse = te.attention %q, %k, %k : tensor<?x16x8xbf16>, tensor<?x17x8xbf16>, tensor<?x17x8xbf16>
  return %o : tensor<?x16x8xbf16>
}

// CHECK-LABEL: func.func @backward(
// dK and dV per query head [2, 4, 7, *], summed over each group of 2.
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 2, 7, 8] : tensor<2x4x7x8xf32> into tensor<2x2x2x7x8xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 2, 7, 4] : tensor<2x4x7x4xf32> into tensor<2x2x2x7x4xf32>
// CHECK-NOT: te.attention_grad
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4x6x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x4xf32>
func.func @backward(%q: tensor<2x4x6x8xf32>, %k: tensor<2x2x7x8xf32>, %v: tensor<2x2x7x4xf32>,
                    %o: tensor<2x4x6x4xf32>, %lse: tensor<2x4x6xf32>, %do: tensor<2x4x6x4xf32>)
    -> (tensor<2x4x6x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x4xf32>) {
  %dq, %dk, %dv = te.attention_grad %q, %k, %v, %o, %lse, %do {causal}
      : tensor<2x4x6x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x4xf32>, tensor<2x4x6x4xf32>,
        tensor<2x4x6xf32>, tensor<2x4x6x4xf32>
  return %dq, %dk, %dv : tensor<2x4x6x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x4xf32>
}
