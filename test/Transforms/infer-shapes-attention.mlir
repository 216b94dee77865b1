// RUN: te-opt %s -split-input-file --te-infer-shapes | FileCheck %s

// te.attention and te.attention_grad have shape rules: a caller that fixes
// the batch makes the callee's attention, its output and lse static (no cast
// back to the dynamic type at the op).
// CHECK-LABEL: func.func private @attend
// CHECK-SAME: (%{{.*}}: tensor<2x4x16x64xbf16>, %{{.*}}: tensor<2x2x32x64xbf16>, %{{.*}}: tensor<2x2x32x64xbf16>) -> (tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>)
// CHECK: %[[O:.*]], %[[L:.*]] = te.attention %{{.*}}, %{{.*}}, %{{.*}} {causal} : tensor<2x4x16x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x64xbf16>
// CHECK-NOT: tensor.cast
// CHECK: return %[[O]], %[[L]] : tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>
func.func private @attend(%q: tensor<?x4x16x64xbf16>, %k: tensor<?x2x32x64xbf16>, %v: tensor<?x2x32x64xbf16>)
    -> (tensor<?x4x16x64xbf16>, tensor<?x4x16xf32>) {
  %o, %lse = te.attention %q, %k, %v {causal}
      : tensor<?x4x16x64xbf16>, tensor<?x2x32x64xbf16>, tensor<?x2x32x64xbf16>
  return %o, %lse : tensor<?x4x16x64xbf16>, tensor<?x4x16xf32>
}

func.func @main(%q: tensor<2x4x16x64xbf16>, %k: tensor<2x2x32x64xbf16>, %v: tensor<2x2x32x64xbf16>)
    -> (tensor<?x4x16x64xbf16>, tensor<?x4x16xf32>) {
  %cq = tensor.cast %q : tensor<2x4x16x64xbf16> to tensor<?x4x16x64xbf16>
  %ck = tensor.cast %k : tensor<2x2x32x64xbf16> to tensor<?x2x32x64xbf16>
  %cv = tensor.cast %v : tensor<2x2x32x64xbf16> to tensor<?x2x32x64xbf16>
  %o, %l = call @attend(%cq, %ck, %cv)
      : (tensor<?x4x16x64xbf16>, tensor<?x2x32x64xbf16>, tensor<?x2x32x64xbf16>)
      -> (tensor<?x4x16x64xbf16>, tensor<?x4x16xf32>)
  return %o, %l : tensor<?x4x16x64xbf16>, tensor<?x4x16xf32>
}

// -----

// The backward's results take the refined shapes of query, key and value.
// CHECK-LABEL: func.func private @grad
// CHECK: te.attention_grad {{.*}} : tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8xf32>, tensor<2x8x64xf32>
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>
func.func private @grad(%q: tensor<?x8x64xf32>, %o: tensor<?x8x64xf32>, %lse: tensor<?x8xf32>, %do: tensor<?x8x64xf32>)
    -> (tensor<?x8x64xf32>, tensor<?x8x64xf32>, tensor<?x8x64xf32>) {
  %dq, %dk, %dv = te.attention_grad %q, %q, %q, %o, %lse, %do
      : tensor<?x8x64xf32>, tensor<?x8x64xf32>, tensor<?x8x64xf32>, tensor<?x8x64xf32>, tensor<?x8xf32>, tensor<?x8x64xf32>
  return %dq, %dk, %dv : tensor<?x8x64xf32>, tensor<?x8x64xf32>, tensor<?x8x64xf32>
}

func.func @main(%q: tensor<2x8x64xf32>, %o: tensor<2x8x64xf32>, %lse: tensor<2x8xf32>, %do: tensor<2x8x64xf32>)
    -> (tensor<?x8x64xf32>, tensor<?x8x64xf32>, tensor<?x8x64xf32>) {
  %cq = tensor.cast %q : tensor<2x8x64xf32> to tensor<?x8x64xf32>
  %co = tensor.cast %o : tensor<2x8x64xf32> to tensor<?x8x64xf32>
  %cl = tensor.cast %lse : tensor<2x8xf32> to tensor<?x8xf32>
  %cd = tensor.cast %do : tensor<2x8x64xf32> to tensor<?x8x64xf32>
  %a, %b, %c = call @grad(%cq, %co, %cl, %cd)
      : (tensor<?x8x64xf32>, tensor<?x8x64xf32>, tensor<?x8xf32>, tensor<?x8x64xf32>)
      -> (tensor<?x8x64xf32>, tensor<?x8x64xf32>, tensor<?x8x64xf32>)
  return %a, %b, %c : tensor<?x8x64xf32>, tensor<?x8x64xf32>, tensor<?x8x64xf32>
}
