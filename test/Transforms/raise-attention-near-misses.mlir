// te-raise-attention: near misses, each left alone with a remark that
// says why (checked with -verify-diagnostics), and products that are not
// attention at all, left alone without one.
//
// RUN: te-opt %s --te-raise-attention --split-input-file -verify-diagnostics | FileCheck %s

// linalg.softmax over the query dimension (1), not the keys.
// CHECK-LABEL: func.func @softmax_dim1(
// CHECK-NOT: te.attention
// CHECK: return
func.func @softmax_dim1(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e5 = tensor.empty() : tensor<8x16x16xf32>
  %sm6 = linalg.softmax dimension(1) ins(%bmm4 : tensor<8x16x16xf32>) outs(%e5 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c7 = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<8x16x8xf32>
  %f9 = linalg.fill ins(%c7 : f32) outs(%e8 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the softmax is over dimension 1, not the last (key) dimension}}
  %bmm10 = linalg.batch_matmul ins(%sm6, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f9 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm10 : tensor<8x16x8xf32>
}

// -----

// The explicit chain reducing over the query dimension.
// CHECK-LABEL: func.func @chain_dim1(
// CHECK-NOT: te.attention
// CHECK: return
func.func @chain_dim1(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c5 = arith.constant 0xFF800000 : f32
  %e6 = tensor.empty() : tensor<8x1x16xf32>
  %f7 = linalg.fill ins(%c5 : f32) outs(%e6 : tensor<8x1x16xf32>) -> tensor<8x1x16xf32>
  %g8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%bmm4 : tensor<8x16x16xf32>) outs(%f7 : tensor<8x1x16xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %m = arith.maximumf %a0, %out : f32
    linalg.yield %m : f32
  } -> tensor<8x1x16xf32>
  %e10 = tensor.empty() : tensor<8x16x16xf32>
  %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm4, %g8 : tensor<8x16x16xf32>, tensor<8x1x16xf32>) outs(%e10 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %d = arith.subf %a0, %a1 : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<8x16x16xf32>
  %c11 = arith.constant 0.0 : f32
  %e12 = tensor.empty() : tensor<8x1x16xf32>
  %f13 = linalg.fill ins(%c11 : f32) outs(%e12 : tensor<8x1x16xf32>) -> tensor<8x1x16xf32>
  %g14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%g9 : tensor<8x16x16xf32>) outs(%f13 : tensor<8x1x16xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %s = arith.addf %a0, %out : f32
    linalg.yield %s : f32
  } -> tensor<8x1x16xf32>
  %e16 = tensor.empty() : tensor<8x16x16xf32>
  %g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g9, %g14 : tensor<8x16x16xf32>, tensor<8x1x16xf32>) outs(%e16 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %p = arith.divf %a0, %a1 : f32
    linalg.yield %p : f32
  } -> tensor<8x16x16xf32>
  %c17 = arith.constant 0.0 : f32
  %e18 = tensor.empty() : tensor<8x16x8xf32>
  %f19 = linalg.fill ins(%c17 : f32) outs(%e18 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the softmax's reduction is over dimension 1, not the last (key) dimension}}
  %bmm20 = linalg.batch_matmul ins(%g15, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f19 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm20 : tensor<8x16x8xf32>
}

// -----

// The scale a function argument: te.attention's scale is an attribute.
// CHECK-LABEL: func.func @scale_argument(
// CHECK-NOT: te.attention
// CHECK: return
func.func @scale_argument(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>, %scale: f32) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e6 = tensor.empty() : tensor<8x16x16xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm4 : tensor<8x16x16xf32>) outs(%e6 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %r = arith.mulf %a0, %scale : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e7 = tensor.empty() : tensor<8x16x16xf32>
  %sm8 = linalg.softmax dimension(2) ins(%g5 : tensor<8x16x16xf32>) outs(%e7 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c9 = arith.constant 0.0 : f32
  %e10 = tensor.empty() : tensor<8x16x8xf32>
  %f11 = linalg.fill ins(%c9 : f32) outs(%e10 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the scores are multiplied by a value that is not a constant}}
  %bmm12 = linalg.batch_matmul ins(%sm8, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f11 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm12 : tensor<8x16x8xf32>
}

// -----

// A softcap (Gemma 2: cap · tanh(s / cap)) between the product and the softmax.
// CHECK-LABEL: func.func @softcap(
// CHECK-NOT: te.attention
// CHECK: return
func.func @softcap(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e6 = tensor.empty() : tensor<8x16x16xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm4 : tensor<8x16x16xf32>) outs(%e6 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %c = arith.constant 0.02 : f32
    %cap = arith.constant 50.0 : f32
    %x = arith.mulf %a0, %c : f32
    %t = math.tanh %x : f32
    %r = arith.mulf %t, %cap : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e7 = tensor.empty() : tensor<8x16x16xf32>
  %sm8 = linalg.softmax dimension(2) ins(%g5 : tensor<8x16x16xf32>) outs(%e7 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c9 = arith.constant 0.0 : f32
  %e10 = tensor.empty() : tensor<8x16x8xf32>
  %f11 = linalg.fill ins(%c9 : f32) outs(%e10 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the scores go through `math.tanh`, which te.attention does not compute (a softcap or clamp?)}}
  %bmm12 = linalg.batch_matmul ins(%sm8, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f11 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm12 : tensor<8x16x8xf32>
}

// -----

// Dropout on the probabilities (a keep mask scaled by 1 / (1 - p)) before the product with V.
// CHECK-LABEL: func.func @dropout(
// CHECK-NOT: te.attention
// CHECK: return
func.func @dropout(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>, %drop: tensor<8x16x16xf32>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e5 = tensor.empty() : tensor<8x16x16xf32>
  %sm6 = linalg.softmax dimension(2) ins(%bmm4 : tensor<8x16x16xf32>) outs(%e5 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e8 = tensor.empty() : tensor<8x16x16xf32>
  %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sm6, %drop : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e8 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.mulf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %c9 = arith.constant 0.0 : f32
  %e10 = tensor.empty() : tensor<8x16x8xf32>
  %f11 = linalg.fill ins(%c9 : f32) outs(%e10 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the probabilities go through `arith.mulf` between the softmax and the product with V (dropout?)}}
  %bmm12 = linalg.batch_matmul ins(%g7, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f11 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm12 : tensor<8x16x8xf32>
}

// -----

// The mask added to the scores after their row maximum was taken.
// CHECK-LABEL: func.func @mask_after_max(
// CHECK-NOT: te.attention
// CHECK: return
func.func @mask_after_max(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>, %mask: tensor<8x16x16xf32>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c5 = arith.constant 0xFF800000 : f32
  %e6 = tensor.empty() : tensor<8x16x1xf32>
  %f7 = linalg.fill ins(%c5 : f32) outs(%e6 : tensor<8x16x1xf32>) -> tensor<8x16x1xf32>
  %g8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%bmm4 : tensor<8x16x16xf32>) outs(%f7 : tensor<8x16x1xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %m = arith.maximumf %a0, %out : f32
    linalg.yield %m : f32
  } -> tensor<8x16x1xf32>
  %e10 = tensor.empty() : tensor<8x16x16xf32>
  %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm4, %mask, %g8 : tensor<8x16x16xf32>, tensor<8x16x16xf32>, tensor<8x16x1xf32>) outs(%e10 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32, %out: f32):
    %y = arith.addf %a0, %a1 : f32
    %d = arith.subf %y, %a2 : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<8x16x16xf32>
  %c11 = arith.constant 0.0 : f32
  %e12 = tensor.empty() : tensor<8x16x1xf32>
  %f13 = linalg.fill ins(%c11 : f32) outs(%e12 : tensor<8x16x1xf32>) -> tensor<8x16x1xf32>
  %g14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g9 : tensor<8x16x16xf32>) outs(%f13 : tensor<8x16x1xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %s = arith.addf %a0, %out : f32
    linalg.yield %s : f32
  } -> tensor<8x16x1xf32>
  %e16 = tensor.empty() : tensor<8x16x16xf32>
  %g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g9, %g14 : tensor<8x16x16xf32>, tensor<8x16x1xf32>) outs(%e16 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %p = arith.divf %a0, %a1 : f32
    linalg.yield %p : f32
  } -> tensor<8x16x16xf32>
  %c17 = arith.constant 0.0 : f32
  %e18 = tensor.empty() : tensor<8x16x8xf32>
  %f19 = linalg.fill ins(%c17 : f32) outs(%e18 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the row maximum is taken over other values than the exponential reads (a mask added after the max?)}}
  %bmm20 = linalg.batch_matmul ins(%g15, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f19 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm20 : tensor<8x16x8xf32>
}

// -----

// i > j: the diagonal masked too (a different mask, not PyTorch's causal).
// CHECK-LABEL: func.func @strict_causal(
// CHECK-NOT: te.attention
// CHECK: return
func.func @strict_causal(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e6 = tensor.empty() : tensor<8x16x16xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm4 : tensor<8x16x16xf32>) outs(%e6 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %keep = arith.cmpi sgt, %i, %j : index
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %keep, %a0, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e7 = tensor.empty() : tensor<8x16x16xf32>
  %sm8 = linalg.softmax dimension(2) ins(%g5 : tensor<8x16x16xf32>) outs(%e7 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c9 = arith.constant 0.0 : f32
  %e10 = tensor.empty() : tensor<8x16x8xf32>
  %f11 = linalg.fill ins(%c9 : f32) outs(%e10 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the mask keeps key j for query i iff j <= i - 1; te.attention's causal is j <= i (PyTorch's top-left is_causal)}}
  %bmm12 = linalg.batch_matmul ins(%sm8, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f11 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm12 : tensor<8x16x8xf32>
}

// -----

// Bottom-right causal (FlashAttention's convention for L != S): j <= i + (S - L).
// CHECK-LABEL: func.func @bottom_right(
// CHECK-NOT: te.attention
// CHECK: return
func.func @bottom_right(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e6 = tensor.empty() : tensor<8x16x16xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm4 : tensor<8x16x16xf32>) outs(%e6 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %o = arith.constant 8 : index
    %io = arith.addi %i, %o : index
    %keep = arith.cmpi sge, %io, %j : index
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %keep, %a0, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e7 = tensor.empty() : tensor<8x16x16xf32>
  %sm8 = linalg.softmax dimension(2) ins(%g5 : tensor<8x16x16xf32>) outs(%e7 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c9 = arith.constant 0.0 : f32
  %e10 = tensor.empty() : tensor<8x16x8xf32>
  %f11 = linalg.fill ins(%c9 : f32) outs(%e10 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the mask keeps key j for query i iff j <= i + 8; te.attention's causal is j <= i (PyTorch's top-left is_causal)}}
  %bmm12 = linalg.batch_matmul ins(%sm8, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f11 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm12 : tensor<8x16x8xf32>
}

// -----

// j >= i: the keys after the query.
// CHECK-LABEL: func.func @anti_causal(
// CHECK-NOT: te.attention
// CHECK: return
func.func @anti_causal(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e6 = tensor.empty() : tensor<8x16x16xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm4 : tensor<8x16x16xf32>) outs(%e6 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %keep = arith.cmpi sge, %j, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %keep, %a0, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e7 = tensor.empty() : tensor<8x16x16xf32>
  %sm8 = linalg.softmax dimension(2) ins(%g5 : tensor<8x16x16xf32>) outs(%e7 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c9 = arith.constant 0.0 : f32
  %e10 = tensor.empty() : tensor<8x16x8xf32>
  %f11 = linalg.fill ins(%c9 : f32) outs(%e10 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the mask keeps key j for query i iff j >= i; te.attention's causal is j <= i (PyTorch's top-left is_causal)}}
  %bmm12 = linalg.batch_matmul ins(%sm8, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f11 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm12 : tensor<8x16x8xf32>
}

// -----

// The scores added to a function of themselves: not a mask.
// CHECK-LABEL: func.func @scores_plus_scores(
// CHECK-NOT: te.attention
// CHECK: return
func.func @scores_plus_scores(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e6 = tensor.empty() : tensor<8x16x16xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm4 : tensor<8x16x16xf32>) outs(%e6 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %c = arith.constant 2.0 : f32
    %x = arith.mulf %a0, %c : f32
    %r = arith.addf %a0, %x : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e7 = tensor.empty() : tensor<8x16x16xf32>
  %sm8 = linalg.softmax dimension(2) ins(%g5 : tensor<8x16x16xf32>) outs(%e7 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c9 = arith.constant 0.0 : f32
  %e10 = tensor.empty() : tensor<8x16x8xf32>
  %f11 = linalg.fill ins(%c9 : f32) outs(%e10 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the scores are added to a value computed from them}}
  %bmm12 = linalg.batch_matmul ins(%sm8, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f11 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm12 : tensor<8x16x8xf32>
}

// -----

// The attention weights returned as well (output_attentions=True).
// CHECK-LABEL: func.func @weights_returned(
// CHECK-NOT: te.attention
// CHECK: return
func.func @weights_returned(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>) -> (tensor<8x16x8xf32>, tensor<8x16x16xf32>) {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e5 = tensor.empty() : tensor<8x16x16xf32>
  %sm6 = linalg.softmax dimension(2) ins(%bmm4 : tensor<8x16x16xf32>) outs(%e5 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c7 = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<8x16x8xf32>
  %f9 = linalg.fill ins(%c7 : f32) outs(%e8 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the softmax's values (`linalg.softmax`) are also read by `func.return`}}
  %bmm10 = linalg.batch_matmul ins(%sm6, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f9 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm10, %sm6 : tensor<8x16x8xf32>, tensor<8x16x16xf32>
}

// -----

// The scores returned as well.
// CHECK-LABEL: func.func @scores_returned(
// CHECK-NOT: te.attention
// CHECK: return
func.func @scores_returned(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>) -> (tensor<8x16x8xf32>, tensor<8x16x16xf32>) {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e5 = tensor.empty() : tensor<8x16x16xf32>
  %sm6 = linalg.softmax dimension(2) ins(%bmm4 : tensor<8x16x16xf32>) outs(%e5 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c7 = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<8x16x8xf32>
  %f9 = linalg.fill ins(%c7 : f32) outs(%e8 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the scores (`linalg.batch_matmul`) are also read by `func.return`}}
  %bmm10 = linalg.batch_matmul ins(%sm6, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f9 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm10, %bmm4 : tensor<8x16x8xf32>, tensor<8x16x16xf32>
}

// -----

// Two products without a softmax between them: not attention, no remark.
// CHECK-LABEL: func.func @no_softmax(
// CHECK-NOT: te.attention
// CHECK: return
func.func @no_softmax(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c5 = arith.constant 0.0 : f32
  %e6 = tensor.empty() : tensor<8x16x8xf32>
  %f7 = linalg.fill ins(%c5 : f32) outs(%e6 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %bmm8 = linalg.batch_matmul ins(%bmm4, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f7 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm8 : tensor<8x16x8xf32>
}

// -----

// A softmax of an argument times V: the scores are not a product.
// CHECK-LABEL: func.func @softmax_of_argument(
// CHECK-NOT: te.attention
// CHECK: return
func.func @softmax_of_argument(%x: tensor<8x16x16xf32>, %v: tensor<8x16x8xf32>) -> tensor<8x16x8xf32> {
  %e1 = tensor.empty() : tensor<8x16x16xf32>
  %sm2 = linalg.softmax dimension(2) ins(%x : tensor<8x16x16xf32>) outs(%e1 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c3 = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<8x16x8xf32>
  %f5 = linalg.fill ins(%c3 : f32) outs(%e4 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the softmax's input is not a batched product of the query and the key}}
  %bmm6 = linalg.batch_matmul ins(%sm2, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f5 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm6 : tensor<8x16x8xf32>
}

// -----

// Forty doublings x + x of the scores before the softmax: a DAG whose tree
// would have 2^40 leaves; the matcher's trees stop at 4096 nodes (the
// compile takes no time) and the chain is left alone: what the tree reaches
// then are the doublings, not the product.
// CHECK-LABEL: func.func @deep_dag(
// CHECK-NOT: te.attention
// CHECK: return
func.func @deep_dag(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e6 = tensor.empty() : tensor<8x16x16xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm4, %bmm4 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e6 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e8 = tensor.empty() : tensor<8x16x16xf32>
  %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g5, %g5 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e8 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e10 = tensor.empty() : tensor<8x16x16xf32>
  %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g7, %g7 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e10 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e12 = tensor.empty() : tensor<8x16x16xf32>
  %g11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g9, %g9 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e12 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e14 = tensor.empty() : tensor<8x16x16xf32>
  %g13 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g11, %g11 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e14 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e16 = tensor.empty() : tensor<8x16x16xf32>
  %g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g13, %g13 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e16 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e18 = tensor.empty() : tensor<8x16x16xf32>
  %g17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g15, %g15 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e18 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e20 = tensor.empty() : tensor<8x16x16xf32>
  %g19 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g17, %g17 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e20 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e22 = tensor.empty() : tensor<8x16x16xf32>
  %g21 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g19, %g19 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e22 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e24 = tensor.empty() : tensor<8x16x16xf32>
  %g23 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g21, %g21 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e24 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e26 = tensor.empty() : tensor<8x16x16xf32>
  %g25 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g23, %g23 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e26 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e28 = tensor.empty() : tensor<8x16x16xf32>
  %g27 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g25, %g25 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e28 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e30 = tensor.empty() : tensor<8x16x16xf32>
  %g29 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g27, %g27 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e30 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e32 = tensor.empty() : tensor<8x16x16xf32>
  %g31 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g29, %g29 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e32 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e34 = tensor.empty() : tensor<8x16x16xf32>
  %g33 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g31, %g31 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e34 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e36 = tensor.empty() : tensor<8x16x16xf32>
  %g35 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g33, %g33 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e36 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e38 = tensor.empty() : tensor<8x16x16xf32>
  %g37 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g35, %g35 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e38 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e40 = tensor.empty() : tensor<8x16x16xf32>
  %g39 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g37, %g37 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e40 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e42 = tensor.empty() : tensor<8x16x16xf32>
  %g41 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g39, %g39 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e42 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e44 = tensor.empty() : tensor<8x16x16xf32>
  %g43 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g41, %g41 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e44 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e46 = tensor.empty() : tensor<8x16x16xf32>
  %g45 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g43, %g43 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e46 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e48 = tensor.empty() : tensor<8x16x16xf32>
  %g47 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g45, %g45 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e48 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e50 = tensor.empty() : tensor<8x16x16xf32>
  %g49 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g47, %g47 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e50 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e52 = tensor.empty() : tensor<8x16x16xf32>
  %g51 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g49, %g49 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e52 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e54 = tensor.empty() : tensor<8x16x16xf32>
  %g53 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g51, %g51 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e54 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e56 = tensor.empty() : tensor<8x16x16xf32>
  %g55 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g53, %g53 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e56 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e58 = tensor.empty() : tensor<8x16x16xf32>
  %g57 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g55, %g55 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e58 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e60 = tensor.empty() : tensor<8x16x16xf32>
  %g59 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g57, %g57 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e60 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e62 = tensor.empty() : tensor<8x16x16xf32>
  %g61 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g59, %g59 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e62 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e64 = tensor.empty() : tensor<8x16x16xf32>
  %g63 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g61, %g61 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e64 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e66 = tensor.empty() : tensor<8x16x16xf32>
  %g65 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g63, %g63 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e66 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e68 = tensor.empty() : tensor<8x16x16xf32>
  %g67 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g65, %g65 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e68 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e70 = tensor.empty() : tensor<8x16x16xf32>
  %g69 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g67, %g67 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e70 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e72 = tensor.empty() : tensor<8x16x16xf32>
  %g71 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g69, %g69 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e72 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e74 = tensor.empty() : tensor<8x16x16xf32>
  %g73 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g71, %g71 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e74 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e76 = tensor.empty() : tensor<8x16x16xf32>
  %g75 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g73, %g73 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e76 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e78 = tensor.empty() : tensor<8x16x16xf32>
  %g77 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g75, %g75 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e78 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e80 = tensor.empty() : tensor<8x16x16xf32>
  %g79 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g77, %g77 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e80 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e82 = tensor.empty() : tensor<8x16x16xf32>
  %g81 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g79, %g79 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e82 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e84 = tensor.empty() : tensor<8x16x16xf32>
  %g83 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g81, %g81 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e84 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e85 = tensor.empty() : tensor<8x16x16xf32>
  %sm86 = linalg.softmax dimension(2) ins(%g83 : tensor<8x16x16xf32>) outs(%e85 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c87 = arith.constant 0.0 : f32
  %e88 = tensor.empty() : tensor<8x16x8xf32>
  %f89 = linalg.fill ins(%c87 : f32) outs(%e88 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: not raised to te.attention: the softmax's input is not a batched product of the query and the key}}
  %bmm90 = linalg.batch_matmul ins(%sm86, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f89 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm90 : tensor<8x16x8xf32>
}
