// te-raise-attention: each form of softmax(scale · Q·Kᵀ + mask) · V that
// becomes te.attention. The remark on each raised chain is checked with
// -verify-diagnostics, the raised IR with FileCheck; near misses are in
// raise-attention-near-misses.mlir.
//
// RUN: te-opt %s --te-raise-attention --split-input-file -verify-diagnostics | FileCheck %s
// remarks=false raises the same and says nothing.
// RUN: sed -e "s/expected-remark.*//" %s | te-opt --te-raise-attention=remarks=false --split-input-file 2>&1 | FileCheck %s --check-prefix=QUIET
// QUIET-NOT: remark
// QUIET-COUNT-15: te.attention
// QUIET-NOT: remark

// 3-D products (Torch-MLIR's batch_matmul after collapsing [B, H]), K
// transposed by linalg.transpose, bf16 operands accumulated in f32 and
// rounded after, the scale multiplying the f32 scores, linalg.softmax in
// f32. Everything between the arguments and te.attention goes.
// CHECK-LABEL: func.func @bmm_transpose_softmax(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<8x16x8xbf16>, %[[K:[^:]*]]: tensor<8x16x8xbf16>, %[[V:[^:]*]]: tensor<8x16x8xbf16>)
// CHECK-NEXT: %[[O:.*]], %{{.*}} = te.attention %[[Q]], %[[K]], %[[V]] {scale = 1.250000e-01 : f32} : tensor<8x16x8xbf16>, tensor<8x16x8xbf16>, tensor<8x16x8xbf16>
// CHECK-NEXT: return %[[O]]
func.func @bmm_transpose_softmax(%q: tensor<8x16x8xbf16>, %k: tensor<8x16x8xbf16>, %v: tensor<8x16x8xbf16>) -> tensor<8x16x8xbf16> {
  %e1 = tensor.empty() : tensor<8x8x16xbf16>
  %tr2 = linalg.transpose ins(%k : tensor<8x16x8xbf16>) outs(%e1 : tensor<8x8x16xbf16>) permutation = [0, 2, 1]
  %c3 = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<8x16x16xf32>
  %f5 = linalg.fill ins(%c3 : f32) outs(%e4 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm6 = linalg.batch_matmul ins(%q, %tr2 : tensor<8x16x8xbf16>, tensor<8x8x16xbf16>) outs(%f5 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e8 = tensor.empty() : tensor<8x16x16xf32>
  %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm6 : tensor<8x16x16xf32>) outs(%e8 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %r = arith.mulf %a0, %c : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e9 = tensor.empty() : tensor<8x16x16xf32>
  %sm10 = linalg.softmax dimension(2) ins(%g7 : tensor<8x16x16xf32>) outs(%e9 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e12 = tensor.empty() : tensor<8x16x16xbf16>
  %g11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sm10 : tensor<8x16x16xf32>) outs(%e12 : tensor<8x16x16xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x16x16xbf16>
  %c13 = arith.constant 0.0 : f32
  %e14 = tensor.empty() : tensor<8x16x8xf32>
  %f15 = linalg.fill ins(%c13 : f32) outs(%e14 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 0.125)}}
  %bmm16 = linalg.batch_matmul ins(%g11, %v : tensor<8x16x16xbf16>, tensor<8x16x8xbf16>) outs(%f15 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %e18 = tensor.empty() : tensor<8x16x8xbf16>
  %g17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm16 : tensor<8x16x8xf32>) outs(%e18 : tensor<8x16x8xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x16x8xbf16>
  return %g17 : tensor<8x16x8xbf16>
}

// -----

// K transposed by batch_matmul's indexing map; the products, the division
// by a constant and the softmax all in bf16.
// CHECK-LABEL: func.func @bmm_map_transposed(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<8x16x8xbf16>, %[[K:[^:]*]]: tensor<8x16x8xbf16>, %[[V:[^:]*]]: tensor<8x16x8xbf16>)
// CHECK-NEXT: %[[O:.*]], %{{.*}} = te.attention %[[Q]], %[[K]], %[[V]] {scale = 1.250000e-01 : f32}
// CHECK-NEXT: return %[[O]]
func.func @bmm_map_transposed(%q: tensor<8x16x8xbf16>, %k: tensor<8x16x8xbf16>, %v: tensor<8x16x8xbf16>) -> tensor<8x16x8xbf16> {
  %c1 = arith.constant 0.0 : bf16
  %e2 = tensor.empty() : tensor<8x16x16xbf16>
  %f3 = linalg.fill ins(%c1 : bf16) outs(%e2 : tensor<8x16x16xbf16>) -> tensor<8x16x16xbf16>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xbf16>, tensor<8x16x8xbf16>) outs(%f3 : tensor<8x16x16xbf16>) -> tensor<8x16x16xbf16>
  %e6 = tensor.empty() : tensor<8x16x16xbf16>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm4 : tensor<8x16x16xbf16>) outs(%e6 : tensor<8x16x16xbf16>) {
  ^bb0(%a0: bf16, %out: bf16):
    %c = arith.constant 8.0 : bf16
    %r = arith.divf %a0, %c : bf16
    linalg.yield %r : bf16
  } -> tensor<8x16x16xbf16>
  %e7 = tensor.empty() : tensor<8x16x16xbf16>
  %sm8 = linalg.softmax dimension(2) ins(%g5 : tensor<8x16x16xbf16>) outs(%e7 : tensor<8x16x16xbf16>) -> tensor<8x16x16xbf16>
  %c9 = arith.constant 0.0 : bf16
  %e10 = tensor.empty() : tensor<8x16x8xbf16>
  %f11 = linalg.fill ins(%c9 : bf16) outs(%e10 : tensor<8x16x8xbf16>) -> tensor<8x16x8xbf16>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 0.125)}}
  %bmm12 = linalg.batch_matmul ins(%sm8, %v : tensor<8x16x16xbf16>, tensor<8x16x8xbf16>) outs(%f11 : tensor<8x16x8xbf16>) -> tensor<8x16x8xbf16>
  return %bmm12 : tensor<8x16x8xbf16>
}

// -----

// Einsum-style products over [B, H, L, E] (two batch loops, K transposed by
// the map), the softmax as Torch-MLIR decomposes aten._softmax: a max
// reduction from -inf with maximumf, exp(x - max), a sum from 0, a
// division; all in f32.
// CHECK-LABEL: func.func @einsum_4d_chain(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x4x16x8xf32>, %[[K:[^:]*]]: tensor<2x4x16x8xf32>, %[[V:[^:]*]]: tensor<2x4x16x8xf32>)
// CHECK-NEXT: %[[O:.*]], %{{.*}} = te.attention %[[Q]], %[[K]], %[[V]] {scale = 0.353553385 : f32} : tensor<2x4x16x8xf32>
// CHECK-NEXT: return %[[O]]
func.func @einsum_4d_chain(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2x4x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) outs(%f3 : tensor<2x4x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %m = arith.mulf %a0, %a1 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16x16xf32>
  %e6 = tensor.empty() : tensor<2x4x16x16xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g4 : tensor<2x4x16x16xf32>) outs(%e6 : tensor<2x4x16x16xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %c = arith.constant 0.35355339 : f32
    %r = arith.mulf %a0, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %c7 = arith.constant 0xFF800000 : f32
  %e8 = tensor.empty() : tensor<2x4x16x1xf32>
  %f9 = linalg.fill ins(%c7 : f32) outs(%e8 : tensor<2x4x16x1xf32>) -> tensor<2x4x16x1xf32>
  %g10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%g5 : tensor<2x4x16x16xf32>) outs(%f9 : tensor<2x4x16x1xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %m = arith.maximumf %a0, %out : f32
    linalg.yield %m : f32
  } -> tensor<2x4x16x1xf32>
  %e12 = tensor.empty() : tensor<2x4x16x16xf32>
  %g11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g5, %g10 : tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) outs(%e12 : tensor<2x4x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %d = arith.subf %a0, %a1 : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<2x4x16x16xf32>
  %c13 = arith.constant 0.0 : f32
  %e14 = tensor.empty() : tensor<2x4x16x1xf32>
  %f15 = linalg.fill ins(%c13 : f32) outs(%e14 : tensor<2x4x16x1xf32>) -> tensor<2x4x16x1xf32>
  %g16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%g11 : tensor<2x4x16x16xf32>) outs(%f15 : tensor<2x4x16x1xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %s = arith.addf %a0, %out : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16x1xf32>
  %e18 = tensor.empty() : tensor<2x4x16x16xf32>
  %g17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g11, %g16 : tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) outs(%e18 : tensor<2x4x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %p = arith.divf %a0, %a1 : f32
    linalg.yield %p : f32
  } -> tensor<2x4x16x16xf32>
  %c19 = arith.constant 0.0 : f32
  %e20 = tensor.empty() : tensor<2x4x16x8xf32>
  %f21 = linalg.fill ins(%c19 : f32) outs(%e20 : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 0.353553385)}}
  %g22 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%g17, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) outs(%f21 : tensor<2x4x16x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %m = arith.mulf %a0, %a1 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16x8xf32>
  return %g22 : tensor<2x4x16x8xf32>
}

// -----

// What Torch-MLIR emits for a bf16 attention written with matmul, a causal
// mask and softmax: 4-D matmuls as batch_matmul over collapsed [B·H]
// (transpose of K in 4-D, f32 accumulation, truncf, expand_shape), the
// scale in bf16, an additive causal mask materialized from linalg.index
// (i >= j: 0, else -inf) and broadcast over [B, H], the softmax in f32
// between extf and truncf. The raised op reads the 4-D tensors; its result
// is collapsed to the product's 3-D shape the user's expand_shape reads.
// CHECK-LABEL: func.func @torch_mlir_causal(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x4x16x8xbf16>, %[[K:[^:]*]]: tensor<2x4x16x8xbf16>, %[[V:[^:]*]]: tensor<2x4x16x8xbf16>)
// CHECK-NOT: linalg.
// CHECK: %[[O:.*]], %{{.*}} = te.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 0.353515625 : f32} : tensor<2x4x16x8xbf16>
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[O]] {{\[\[}}0, 1], [2], [3]]
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[C]]
// CHECK-NEXT: return %[[E]]
func.func @torch_mlir_causal(%q: tensor<2x4x16x8xbf16>, %k: tensor<2x4x16x8xbf16>, %v: tensor<2x4x16x8xbf16>) -> tensor<2x4x16x8xbf16> {
  %e1 = tensor.empty() : tensor<2x4x8x16xbf16>
  %tr2 = linalg.transpose ins(%k : tensor<2x4x16x8xbf16>) outs(%e1 : tensor<2x4x8x16xbf16>) permutation = [0, 1, 3, 2]
  %cl3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x8xbf16> into tensor<8x16x8xbf16>
  %cl4 = tensor.collapse_shape %tr2 [[0, 1], [2], [3]] : tensor<2x4x8x16xbf16> into tensor<8x8x16xbf16>
  %c5 = arith.constant 0.0 : f32
  %e6 = tensor.empty() : tensor<8x16x16xf32>
  %f7 = linalg.fill ins(%c5 : f32) outs(%e6 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm8 = linalg.batch_matmul ins(%cl3, %cl4 : tensor<8x16x8xbf16>, tensor<8x8x16xbf16>) outs(%f7 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e10 = tensor.empty() : tensor<8x16x16xbf16>
  %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm8 : tensor<8x16x16xf32>) outs(%e10 : tensor<8x16x16xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x16x16xbf16>
  %ex11 = tensor.expand_shape %g9 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xbf16> into tensor<2x4x16x16xbf16>
  %e13 = tensor.empty() : tensor<2x4x16x16xbf16>
  %g12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex11 : tensor<2x4x16x16xbf16>) outs(%e13 : tensor<2x4x16x16xbf16>) {
  ^bb0(%a0: bf16, %out: bf16):
    %c = arith.constant 0.353515625 : bf16
    %r = arith.mulf %a0, %c : bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x16x16xbf16>
  %e15 = tensor.empty() : tensor<16x16xbf16>
  %g14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e15 : tensor<16x16xbf16>) {
  ^bb0(%out: bf16):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ge = arith.cmpi sge, %i, %j : index
    %z = arith.constant 0.0 : bf16
    %ninf = arith.constant 0xFF80 : bf16
    %m = arith.select %ge, %z, %ninf : bf16
    linalg.yield %m : bf16
  } -> tensor<16x16xbf16>
  %e17 = tensor.empty() : tensor<2x4x16x16xbf16>
  %g16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g12, %g14 : tensor<2x4x16x16xbf16>, tensor<16x16xbf16>) outs(%e17 : tensor<2x4x16x16xbf16>) {
  ^bb0(%a0: bf16, %a1: bf16, %out: bf16):
    %r = arith.addf %a0, %a1 : bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x16x16xbf16>
  %e19 = tensor.empty() : tensor<2x4x16x16xf32>
  %g18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g16 : tensor<2x4x16x16xbf16>) outs(%e19 : tensor<2x4x16x16xf32>) {
  ^bb0(%a0: bf16, %out: f32):
    %r = arith.extf %a0 : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %c20 = arith.constant 0xFF800000 : f32
  %e21 = tensor.empty() : tensor<2x4x16x1xf32>
  %f22 = linalg.fill ins(%c20 : f32) outs(%e21 : tensor<2x4x16x1xf32>) -> tensor<2x4x16x1xf32>
  %g23 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%g18 : tensor<2x4x16x16xf32>) outs(%f22 : tensor<2x4x16x1xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %m = arith.maximumf %a0, %out : f32
    linalg.yield %m : f32
  } -> tensor<2x4x16x1xf32>
  %e25 = tensor.empty() : tensor<2x4x16x16xf32>
  %g24 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g18, %g23 : tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) outs(%e25 : tensor<2x4x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %d = arith.subf %a0, %a1 : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<2x4x16x16xf32>
  %c26 = arith.constant 0.0 : f32
  %e27 = tensor.empty() : tensor<2x4x16x1xf32>
  %f28 = linalg.fill ins(%c26 : f32) outs(%e27 : tensor<2x4x16x1xf32>) -> tensor<2x4x16x1xf32>
  %g29 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%g24 : tensor<2x4x16x16xf32>) outs(%f28 : tensor<2x4x16x1xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %s = arith.addf %a0, %out : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16x1xf32>
  %e31 = tensor.empty() : tensor<2x4x16x16xf32>
  %g30 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g24, %g29 : tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) outs(%e31 : tensor<2x4x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %p = arith.divf %a0, %a1 : f32
    linalg.yield %p : f32
  } -> tensor<2x4x16x16xf32>
  %e33 = tensor.empty() : tensor<2x4x16x16xbf16>
  %g32 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g30 : tensor<2x4x16x16xf32>) outs(%e33 : tensor<2x4x16x16xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x16x16xbf16>
  %cl34 = tensor.collapse_shape %g32 [[0, 1], [2], [3]] : tensor<2x4x16x16xbf16> into tensor<8x16x16xbf16>
  %cl35 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x8xbf16> into tensor<8x16x8xbf16>
  %c36 = arith.constant 0.0 : f32
  %e37 = tensor.empty() : tensor<8x16x8xf32>
  %f38 = linalg.fill ins(%c36 : f32) outs(%e37 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 0.353515625, causal)}}
  %bmm39 = linalg.batch_matmul ins(%cl34, %cl35 : tensor<8x16x16xbf16>, tensor<8x16x8xbf16>) outs(%f38 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %e41 = tensor.empty() : tensor<8x16x8xbf16>
  %g40 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm39 : tensor<8x16x8xf32>) outs(%e41 : tensor<8x16x8xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x16x8xbf16>
  %ex42 = tensor.expand_shape %g40 [[0, 1], [2], [3]] output_shape [2, 4, 16, 8] : tensor<8x16x8xbf16> into tensor<2x4x16x8xbf16>
  return %ex42 : tensor<2x4x16x8xbf16>
}

// -----

// A causal mask from iota tensors (arange of the rows, arange of the
// columns broadcast, `j <= i` compared as i64) selecting the scaled scores
// or -inf, in one generic with the scale; f32 throughout.
// CHECK-LABEL: func.func @iota_causal_select(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<8x16x8xf32>, %[[K:[^:]*]]: tensor<8x16x8xf32>, %[[V:[^:]*]]: tensor<8x16x8xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[O:.*]], %{{.*}} = te.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 5.000000e-01 : f32}
// CHECK-NOT: linalg.
// CHECK: return %[[O]]
func.func @iota_causal_select(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>) -> tensor<8x16x8xf32> {
  %e2 = tensor.empty() : tensor<16x16xi64>
  %g1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e2 : tensor<16x16xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %r = arith.index_cast %i : index to i64
    linalg.yield %r : i64
  } -> tensor<16x16xi64>
  %e4 = tensor.empty() : tensor<16xi64>
  %g3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%e4 : tensor<16xi64>) {
  ^bb0(%out: i64):
    %j = linalg.index 0 : index
    %r = arith.index_cast %j : index to i64
    linalg.yield %r : i64
  } -> tensor<16xi64>
  %e6 = tensor.empty() : tensor<16x16xi1>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%g1, %g3 : tensor<16x16xi64>, tensor<16xi64>) outs(%e6 : tensor<16x16xi1>) {
  ^bb0(%a0: i64, %a1: i64, %out: i1):
    %r = arith.cmpi sle, %a1, %a0 : i64
    linalg.yield %r : i1
  } -> tensor<16x16xi1>
  %c7 = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<8x16x16xf32>
  %f9 = linalg.fill ins(%c7 : f32) outs(%e8 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm10 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f9 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e12 = tensor.empty() : tensor<8x16x16xf32>
  %g11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g5, %bmm10 : tensor<16x16xi1>, tensor<8x16x16xf32>) outs(%e12 : tensor<8x16x16xf32>) {
  ^bb0(%a0: i1, %a1: f32, %out: f32):
    %ninf = arith.constant 0xFF800000 : f32
    %c = arith.constant 0.5 : f32
    %x = arith.mulf %a1, %c : f32
    %r = arith.select %a0, %x, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e13 = tensor.empty() : tensor<8x16x16xf32>
  %sm14 = linalg.softmax dimension(2) ins(%g11 : tensor<8x16x16xf32>) outs(%e13 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c15 = arith.constant 0.0 : f32
  %e16 = tensor.empty() : tensor<8x16x8xf32>
  %f17 = linalg.fill ins(%c15 : f32) outs(%e16 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 0.5, causal)}}
  %bmm18 = linalg.batch_matmul ins(%sm14, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f17 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm18 : tensor<8x16x8xf32>
}

// -----

// A padding mask [B, 1, 1, S] in bf16 added (extended to f32) to the scaled
// f32 scores before the softmax: the mask operand, its shape kept.
// CHECK-LABEL: func.func @additive_mask(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x4x16x8xbf16>, %[[K:[^:]*]]: tensor<2x4x16x8xbf16>, %[[V:[^:]*]]: tensor<2x4x16x8xbf16>, %[[M:[^:]*]]: tensor<2x1x1x16xbf16>)
// CHECK-NEXT: %[[O:.*]], %{{.*}} = te.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] {scale = 0.353553385 : f32} : {{.*}}, tensor<2x1x1x16xbf16>
// CHECK-NEXT: return %[[O]]
func.func @additive_mask(%q: tensor<2x4x16x8xbf16>, %k: tensor<2x4x16x8xbf16>, %v: tensor<2x4x16x8xbf16>, %mask: tensor<2x1x1x16xbf16>) -> tensor<2x4x16x8xbf16> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2x4x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) outs(%f3 : tensor<2x4x16x16xf32>) {
  ^bb0(%a0: bf16, %a1: bf16, %out: f32):
    %x = arith.extf %a0 : bf16 to f32
    %y = arith.extf %a1 : bf16 to f32
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16x16xf32>
  %e6 = tensor.empty() : tensor<2x4x16x16xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g4, %mask : tensor<2x4x16x16xf32>, tensor<2x1x1x16xbf16>) outs(%e6 : tensor<2x4x16x16xf32>) {
  ^bb0(%a0: f32, %a1: bf16, %out: f32):
    %c = arith.constant 0.35355339 : f32
    %x = arith.mulf %a0, %c : f32
    %m = arith.extf %a1 : bf16 to f32
    %r = arith.addf %x, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %e7 = tensor.empty() : tensor<2x4x16x16xf32>
  %sm8 = linalg.softmax dimension(3) ins(%g5 : tensor<2x4x16x16xf32>) outs(%e7 : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e10 = tensor.empty() : tensor<2x4x16x16xbf16>
  %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sm8 : tensor<2x4x16x16xf32>) outs(%e10 : tensor<2x4x16x16xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x16x16xbf16>
  %c11 = arith.constant 0.0 : f32
  %e12 = tensor.empty() : tensor<2x4x16x8xf32>
  %f13 = linalg.fill ins(%c11 : f32) outs(%e12 : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 0.353553385, mask tensor<2x1x1x16xbf16>); a row the mask leaves without keys gives 0 (PyTorch SDPA's result), where the literal softmax gave NaN}}
  %g14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%g9, %v : tensor<2x4x16x16xbf16>, tensor<2x4x16x8xbf16>) outs(%f13 : tensor<2x4x16x8xf32>) {
  ^bb0(%a0: bf16, %a1: bf16, %out: f32):
    %x = arith.extf %a0 : bf16 to f32
    %y = arith.extf %a1 : bf16 to f32
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16x8xf32>
  %e16 = tensor.empty() : tensor<2x4x16x8xbf16>
  %g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g14 : tensor<2x4x16x8xf32>) outs(%e16 : tensor<2x4x16x8xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x16x8xbf16>
  return %g15 : tensor<2x4x16x8xbf16>
}

// -----

// A [B, S] mask read by a broadcasting map (d0, d3), no scale: the mask
// operand is the tensor expanded to [B, 1, 1, S]; the scale is 1.
// CHECK-LABEL: func.func @broadcast_mask(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x4x16x8xf32>, %[[K:[^:]*]]: tensor<2x4x16x8xf32>, %[[V:[^:]*]]: tensor<2x4x16x8xf32>, %[[M:[^:]*]]: tensor<2x16xf32>)
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0], [1, 2, 3]] output_shape [2, 1, 1, 16] : tensor<2x16xf32> into tensor<2x1x1x16xf32>
// CHECK-NEXT: %[[O:.*]], %{{.*}} = te.attention %[[Q]], %[[K]], %[[V]] mask %[[E]] {scale = 1.000000e+00 : f32}
// CHECK-NEXT: return %[[O]]
func.func @broadcast_mask(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %mask: tensor<2x16xf32>) -> tensor<2x4x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2x4x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) outs(%f3 : tensor<2x4x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %m = arith.mulf %a0, %a1 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16x16xf32>
  %e6 = tensor.empty() : tensor<2x4x16x16xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g4, %mask : tensor<2x4x16x16xf32>, tensor<2x16xf32>) outs(%e6 : tensor<2x4x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a1, %a0 : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %e7 = tensor.empty() : tensor<2x4x16x16xf32>
  %sm8 = linalg.softmax dimension(3) ins(%g5 : tensor<2x4x16x16xf32>) outs(%e7 : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %c9 = arith.constant 0.0 : f32
  %e10 = tensor.empty() : tensor<2x4x16x8xf32>
  %f11 = linalg.fill ins(%c9 : f32) outs(%e10 : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 1, mask tensor<2x1x1x16xf32>)}}
  %g12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%sm8, %v : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) outs(%f11 : tensor<2x4x16x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %m = arith.mulf %a0, %a1 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16x8xf32>
  return %g12 : tensor<2x4x16x8xf32>
}

// -----

// A boolean mask (true = the key takes part) selecting the scores or -inf:
// the i1 mask operand.
// CHECK-LABEL: func.func @bool_mask(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<8x16x8xf32>, %[[K:[^:]*]]: tensor<8x16x8xf32>, %[[V:[^:]*]]: tensor<8x16x8xf32>, %[[M:[^:]*]]: tensor<8x16x16xi1>)
// CHECK-NEXT: %[[O:.*]], %{{.*}} = te.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] {scale = 1.000000e+00 : f32}
// CHECK-NEXT: return %[[O]]
func.func @bool_mask(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>, %keep: tensor<8x16x16xi1>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e6 = tensor.empty() : tensor<8x16x16xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm4, %keep : tensor<8x16x16xf32>, tensor<8x16x16xi1>) outs(%e6 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: i1, %out: f32):
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %a1, %a0, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e7 = tensor.empty() : tensor<8x16x16xf32>
  %sm8 = linalg.softmax dimension(2) ins(%g5 : tensor<8x16x16xf32>) outs(%e7 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c9 = arith.constant 0.0 : f32
  %e10 = tensor.empty() : tensor<8x16x8xf32>
  %f11 = linalg.fill ins(%c9 : f32) outs(%e10 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 1, mask tensor<8x16x16xi1>); a row the mask leaves without keys gives 0}}
  %bmm12 = linalg.batch_matmul ins(%sm8, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f11 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm12 : tensor<8x16x8xf32>
}

// -----

// Grouped-query attention: K and V repeated along the heads as
// repeat_interleave does (broadcast [B, Hkv, 4, S, E], collapse [Hkv, 4]);
// te.attention reads the 2 key/value heads.
// CHECK-LABEL: func.func @grouped_query(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x8x16x8xbf16>, %[[K:[^:]*]]: tensor<2x2x16x8xbf16>, %[[V:[^:]*]]: tensor<2x2x16x8xbf16>)
// CHECK-NEXT: %[[O:.*]], %{{.*}} = te.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f32} : tensor<2x8x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>
// CHECK-NEXT: return %[[O]]
func.func @grouped_query(%q: tensor<2x8x16x8xbf16>, %k: tensor<2x2x16x8xbf16>, %v: tensor<2x2x16x8xbf16>) -> tensor<2x8x16x8xbf16> {
  %e1 = tensor.empty() : tensor<2x2x4x16x8xbf16>
  %bc2 = linalg.broadcast ins(%k : tensor<2x2x16x8xbf16>) outs(%e1 : tensor<2x2x4x16x8xbf16>) dimensions = [2]
  %cl3 = tensor.collapse_shape %bc2 [[0], [1, 2], [3], [4]] : tensor<2x2x4x16x8xbf16> into tensor<2x8x16x8xbf16>
  %e4 = tensor.empty() : tensor<2x2x4x16x8xbf16>
  %bc5 = linalg.broadcast ins(%v : tensor<2x2x16x8xbf16>) outs(%e4 : tensor<2x2x4x16x8xbf16>) dimensions = [2]
  %cl6 = tensor.collapse_shape %bc5 [[0], [1, 2], [3], [4]] : tensor<2x2x4x16x8xbf16> into tensor<2x8x16x8xbf16>
  %c7 = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<2x8x16x16xf32>
  %f9 = linalg.fill ins(%c7 : f32) outs(%e8 : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  %g10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %cl3 : tensor<2x8x16x8xbf16>, tensor<2x8x16x8xbf16>) outs(%f9 : tensor<2x8x16x16xf32>) {
  ^bb0(%a0: bf16, %a1: bf16, %out: f32):
    %x = arith.extf %a0 : bf16 to f32
    %y = arith.extf %a1 : bf16 to f32
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x16x16xf32>
  %e11 = tensor.empty() : tensor<2x8x16x16xf32>
  %sm12 = linalg.softmax dimension(3) ins(%g10 : tensor<2x8x16x16xf32>) outs(%e11 : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  %e14 = tensor.empty() : tensor<2x8x16x16xbf16>
  %g13 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sm12 : tensor<2x8x16x16xf32>) outs(%e14 : tensor<2x8x16x16xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x8x16x16xbf16>
  %c15 = arith.constant 0.0 : f32
  %e16 = tensor.empty() : tensor<2x8x16x8xf32>
  %f17 = linalg.fill ins(%c15 : f32) outs(%e16 : tensor<2x8x16x8xf32>) -> tensor<2x8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 1, 4 query heads per key/value head)}}
  %g18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%g13, %cl6 : tensor<2x8x16x16xbf16>, tensor<2x8x16x8xbf16>) outs(%f17 : tensor<2x8x16x8xf32>) {
  ^bb0(%a0: bf16, %a1: bf16, %out: f32):
    %x = arith.extf %a0 : bf16 to f32
    %y = arith.extf %a1 : bf16 to f32
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x16x8xf32>
  %e20 = tensor.empty() : tensor<2x8x16x8xbf16>
  %g19 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g18 : tensor<2x8x16x8xf32>) outs(%e20 : tensor<2x8x16x8xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x8x16x8xbf16>
  return %g19 : tensor<2x8x16x8xbf16>
}

// -----

// The scale folded into the query (q · 0.125 before the product, read only
// by it): the raised op reads the unscaled query with that scale.
// CHECK-LABEL: func.func @scale_in_query(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<8x16x8xbf16>, %[[K:[^:]*]]: tensor<8x16x8xbf16>, %[[V:[^:]*]]: tensor<8x16x8xbf16>)
// CHECK-NEXT: %[[O:.*]], %{{.*}} = te.attention %[[Q]], %[[K]], %[[V]] {scale = 1.250000e-01 : f32}
// CHECK-NEXT: return %[[O]]
func.func @scale_in_query(%q: tensor<8x16x8xbf16>, %k: tensor<8x16x8xbf16>, %v: tensor<8x16x8xbf16>) -> tensor<8x16x8xbf16> {
  %e2 = tensor.empty() : tensor<8x16x8xbf16>
  %g1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q : tensor<8x16x8xbf16>) outs(%e2 : tensor<8x16x8xbf16>) {
  ^bb0(%a0: bf16, %out: bf16):
    %c = arith.constant 0.125 : bf16
    %r = arith.mulf %a0, %c : bf16
    linalg.yield %r : bf16
  } -> tensor<8x16x8xbf16>
  %c3 = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<8x16x16xf32>
  %f5 = linalg.fill ins(%c3 : f32) outs(%e4 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm6 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%g1, %k : tensor<8x16x8xbf16>, tensor<8x16x8xbf16>) outs(%f5 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e7 = tensor.empty() : tensor<8x16x16xf32>
  %sm8 = linalg.softmax dimension(2) ins(%bmm6 : tensor<8x16x16xf32>) outs(%e7 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e10 = tensor.empty() : tensor<8x16x16xbf16>
  %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sm8 : tensor<8x16x16xf32>) outs(%e10 : tensor<8x16x16xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x16x16xbf16>
  %c11 = arith.constant 0.0 : f32
  %e12 = tensor.empty() : tensor<8x16x8xf32>
  %f13 = linalg.fill ins(%c11 : f32) outs(%e12 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 0.125)}}
  %bmm14 = linalg.batch_matmul ins(%g9, %v : tensor<8x16x16xbf16>, tensor<8x16x8xbf16>) outs(%f13 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %e16 = tensor.empty() : tensor<8x16x8xbf16>
  %g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm14 : tensor<8x16x8xf32>) outs(%e16 : tensor<8x16x8xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x16x8xbf16>
  return %g15 : tensor<8x16x8xbf16>
}

// -----

// The softmax as linalg.softmax's decomposition and IREE write it: the max
// from NaN with maxnumf, exp2 of (x - max) · log2(e), the sum's reciprocal
// multiplied.
// CHECK-LABEL: func.func @exp2_reciprocal(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<8x16x8xf32>, %[[K:[^:]*]]: tensor<8x16x8xf32>, %[[V:[^:]*]]: tensor<8x16x8xf32>)
// CHECK-NEXT: %[[O:.*]], %{{.*}} = te.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f32}
// CHECK-NEXT: return %[[O]]
func.func @exp2_reciprocal(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c5 = arith.constant 0x7FC00000 : f32
  %e6 = tensor.empty() : tensor<8x16x1xf32>
  %f7 = linalg.fill ins(%c5 : f32) outs(%e6 : tensor<8x16x1xf32>) -> tensor<8x16x1xf32>
  %g8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%bmm4 : tensor<8x16x16xf32>) outs(%f7 : tensor<8x16x1xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %m = arith.maxnumf %a0, %out : f32
    linalg.yield %m : f32
  } -> tensor<8x16x1xf32>
  %e10 = tensor.empty() : tensor<8x16x16xf32>
  %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm4, %g8 : tensor<8x16x16xf32>, tensor<8x16x1xf32>) outs(%e10 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %d = arith.subf %a0, %a1 : f32
    %l = arith.constant 1.44269502 : f32
    %s = arith.mulf %d, %l : f32
    %e = math.exp2 %s : f32
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
  %e16 = tensor.empty() : tensor<8x16x1xf32>
  %g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g14 : tensor<8x16x1xf32>) outs(%e16 : tensor<8x16x1xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.divf %one, %a0 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x1xf32>
  %e18 = tensor.empty() : tensor<8x16x16xf32>
  %g17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g9, %g15 : tensor<8x16x16xf32>, tensor<8x16x1xf32>) outs(%e18 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %p = arith.mulf %a0, %a1 : f32
    linalg.yield %p : f32
  } -> tensor<8x16x16xf32>
  %c19 = arith.constant 0.0 : f32
  %e20 = tensor.empty() : tensor<8x16x8xf32>
  %f21 = linalg.fill ins(%c19 : f32) outs(%e20 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 1)}}
  %bmm22 = linalg.batch_matmul ins(%g17, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f21 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm22 : tensor<8x16x8xf32>
}

// -----

// A mask filled with torch.finfo(f32).min instead of -inf (HF models): a
// row it masks fully averages V, which only the additive form reproduces,
// so the materialized mask tensor is the (additive) mask operand.
// CHECK-LABEL: func.func @finfo_min_mask(
// CHECK: %[[M:.*]] = linalg.generic
// CHECK: } -> tensor<8x16x16xf32>
// CHECK-NOT: linalg.
// CHECK: %[[O:.*]], %{{.*}} = te.attention %{{.*}}, %{{.*}}, %{{.*}} mask %[[M]] {scale = 1.000000e+00 : f32}
// CHECK-NEXT: return %[[O]]
func.func @finfo_min_mask(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>, %keep: tensor<8x16x16xi1>) -> tensor<8x16x8xf32> {
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %g1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%keep : tensor<8x16x16xi1>) outs(%e2 : tensor<8x16x16xf32>) {
  ^bb0(%a0: i1, %out: f32):
    %z = arith.constant 0.0 : f32
    %lo = arith.constant -3.40282347E+38 : f32
    %m = arith.select %a0, %z, %lo : f32
    linalg.yield %m : f32
  } -> tensor<8x16x16xf32>
  %c3 = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<8x16x16xf32>
  %f5 = linalg.fill ins(%c3 : f32) outs(%e4 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm6 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f5 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e8 = tensor.empty() : tensor<8x16x16xf32>
  %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm6, %g1 : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%e8 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e9 = tensor.empty() : tensor<8x16x16xf32>
  %sm10 = linalg.softmax dimension(2) ins(%g7 : tensor<8x16x16xf32>) outs(%e9 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c11 = arith.constant 0.0 : f32
  %e12 = tensor.empty() : tensor<8x16x8xf32>
  %f13 = linalg.fill ins(%c11 : f32) outs(%e12 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 1, mask tensor<8x16x16xf32>)}}
  %bmm14 = linalg.batch_matmul ins(%sm10, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f13 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm14 : tensor<8x16x8xf32>
}

// -----

// Heads split from [B, S, H·D] by expand_shape + transpose to [B, H, S, D]
// (the transposes stay: the raised op reads them), the scale split as its
// square root on Q and on K (0.59375² in bf16), einsum products, the output
// transposed back and merged.
// CHECK-LABEL: func.func @heads_split(
// CHECK-SAME: %[[XQ:[^:]*]]: tensor<2x16x32xbf16>, %[[XK:[^:]*]]: tensor<2x16x32xbf16>, %[[XV:[^:]*]]: tensor<2x16x32xbf16>)
// CHECK: %[[QE:.*]] = tensor.expand_shape %[[XQ]]
// CHECK: %[[QT:.*]] = linalg.transpose ins(%[[QE]]
// CHECK: %[[KE:.*]] = tensor.expand_shape %[[XK]]
// CHECK: %[[KT:.*]] = linalg.transpose ins(%[[KE]]
// CHECK: %[[VE:.*]] = tensor.expand_shape %[[XV]]
// CHECK: %[[VT:.*]] = linalg.transpose ins(%[[VE]]
// CHECK-NEXT: %[[O:.*]], %{{.*}} = te.attention %[[QT]], %[[KT]], %[[VT]] {scale = 0.352539063 : f32} : tensor<2x4x16x8xbf16>
// CHECK: linalg.transpose ins(%[[O]]
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @heads_split(%xq: tensor<2x16x32xbf16>, %xk: tensor<2x16x32xbf16>, %xv: tensor<2x16x32xbf16>) -> tensor<2x16x32xbf16> {
  %ex1 = tensor.expand_shape %xq [[0], [1], [2, 3]] output_shape [2, 16, 4, 8] : tensor<2x16x32xbf16> into tensor<2x16x4x8xbf16>
  %e2 = tensor.empty() : tensor<2x4x16x8xbf16>
  %tr3 = linalg.transpose ins(%ex1 : tensor<2x16x4x8xbf16>) outs(%e2 : tensor<2x4x16x8xbf16>) permutation = [0, 2, 1, 3]
  %ex4 = tensor.expand_shape %xk [[0], [1], [2, 3]] output_shape [2, 16, 4, 8] : tensor<2x16x32xbf16> into tensor<2x16x4x8xbf16>
  %e5 = tensor.empty() : tensor<2x4x16x8xbf16>
  %tr6 = linalg.transpose ins(%ex4 : tensor<2x16x4x8xbf16>) outs(%e5 : tensor<2x4x16x8xbf16>) permutation = [0, 2, 1, 3]
  %ex7 = tensor.expand_shape %xv [[0], [1], [2, 3]] output_shape [2, 16, 4, 8] : tensor<2x16x32xbf16> into tensor<2x16x4x8xbf16>
  %e8 = tensor.empty() : tensor<2x4x16x8xbf16>
  %tr9 = linalg.transpose ins(%ex7 : tensor<2x16x4x8xbf16>) outs(%e8 : tensor<2x4x16x8xbf16>) permutation = [0, 2, 1, 3]
  %e11 = tensor.empty() : tensor<2x4x16x8xbf16>
  %g10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%tr3 : tensor<2x4x16x8xbf16>) outs(%e11 : tensor<2x4x16x8xbf16>) {
  ^bb0(%a0: bf16, %out: bf16):
    %c = arith.constant 0.59375 : bf16
    %r = arith.mulf %a0, %c : bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x16x8xbf16>
  %e13 = tensor.empty() : tensor<2x4x16x8xbf16>
  %g12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%tr6 : tensor<2x4x16x8xbf16>) outs(%e13 : tensor<2x4x16x8xbf16>) {
  ^bb0(%a0: bf16, %out: bf16):
    %c = arith.constant 0.59375 : bf16
    %r = arith.mulf %a0, %c : bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x16x8xbf16>
  %c14 = arith.constant 0.0 : f32
  %e15 = tensor.empty() : tensor<2x4x16x16xf32>
  %f16 = linalg.fill ins(%c14 : f32) outs(%e15 : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %g17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%g10, %g12 : tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) outs(%f16 : tensor<2x4x16x16xf32>) {
  ^bb0(%a0: bf16, %a1: bf16, %out: f32):
    %x = arith.extf %a0 : bf16 to f32
    %y = arith.extf %a1 : bf16 to f32
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16x16xf32>
  %e18 = tensor.empty() : tensor<2x4x16x16xf32>
  %sm19 = linalg.softmax dimension(3) ins(%g17 : tensor<2x4x16x16xf32>) outs(%e18 : tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %e21 = tensor.empty() : tensor<2x4x16x16xbf16>
  %g20 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sm19 : tensor<2x4x16x16xf32>) outs(%e21 : tensor<2x4x16x16xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x16x16xbf16>
  %c22 = arith.constant 0.0 : f32
  %e23 = tensor.empty() : tensor<2x4x16x8xf32>
  %f24 = linalg.fill ins(%c22 : f32) outs(%e23 : tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 0.352539063)}}
  %g25 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%g20, %tr9 : tensor<2x4x16x16xbf16>, tensor<2x4x16x8xbf16>) outs(%f24 : tensor<2x4x16x8xf32>) {
  ^bb0(%a0: bf16, %a1: bf16, %out: f32):
    %x = arith.extf %a0 : bf16 to f32
    %y = arith.extf %a1 : bf16 to f32
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16x8xf32>
  %e27 = tensor.empty() : tensor<2x4x16x8xbf16>
  %g26 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g25 : tensor<2x4x16x8xf32>) outs(%e27 : tensor<2x4x16x8xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x16x8xbf16>
  %e28 = tensor.empty() : tensor<2x16x4x8xbf16>
  %tr29 = linalg.transpose ins(%g26 : tensor<2x4x16x8xbf16>) outs(%e28 : tensor<2x16x4x8xbf16>) permutation = [0, 2, 1, 3]
  %cl30 = tensor.collapse_shape %tr29 [[0], [1], [2, 3]] : tensor<2x16x4x8xbf16> into tensor<2x16x32xbf16>
  return %cl30 : tensor<2x16x32xbf16>
}

// -----

// A boolean padding mask that is true where the key is masked out
// (TransformerEngine's convention), broadcast over the queries: the mask
// operand is its negation (te.attention keeps the keys where it is true).
// CHECK-LABEL: func.func @bool_mask_masked_out(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<8x16x8xf32>, %[[K:[^:]*]]: tensor<8x16x8xf32>, %[[V:[^:]*]]: tensor<8x16x8xf32>, %[[M:[^:]*]]: tensor<8x1x16xi1>)
// CHECK: %[[N:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<8x1x16xi1>)
// CHECK: arith.xori %{{.*}}, %true : i1
// CHECK: %[[O:.*]], %{{.*}} = te.attention %[[Q]], %[[K]], %[[V]] mask %[[N]] {scale = 1.000000e+00 : f32}
// CHECK-NEXT: return %[[O]]
func.func @bool_mask_masked_out(%q: tensor<8x16x8xf32>, %k: tensor<8x16x8xf32>, %v: tensor<8x16x8xf32>, %pad: tensor<8x1x16xi1>) -> tensor<8x16x8xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %bmm4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%q, %k : tensor<8x16x8xf32>, tensor<8x16x8xf32>) outs(%f3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e6 = tensor.empty() : tensor<8x16x16xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm4, %pad : tensor<8x16x16xf32>, tensor<8x1x16xi1>) outs(%e6 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %a1: i1, %out: f32):
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %a1, %ninf, %a0 : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e7 = tensor.empty() : tensor<8x16x16xf32>
  %sm8 = linalg.softmax dimension(2) ins(%g5 : tensor<8x16x16xf32>) outs(%e7 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c9 = arith.constant 0.0 : f32
  %e10 = tensor.empty() : tensor<8x16x8xf32>
  %f11 = linalg.fill ins(%c9 : f32) outs(%e10 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 1, mask tensor<8x1x16xi1>); a row the mask leaves without keys gives 0}}
  %bmm12 = linalg.batch_matmul ins(%sm8, %v : tensor<8x16x16xf32>, tensor<8x16x8xf32>) outs(%f11 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %bmm12 : tensor<8x16x8xf32>
}

// -----

// Heads split by expand_shape + transpose and collapsed to 3-D products, K's
// split already composed with its transpose into one [0, 2, 3, 1] transpose
// (what the inliner's canonicalization leaves of transpose(transpose(k))):
// the raised op reads K through one [0, 2, 1, 3] transpose of the input, as
// Q and V, not through a second transpose of the [B, H, D, S] tensor; and,
// every operand a collapse of [B, H] into the batch, it reads the 4-D
// tensors and its output is collapsed (so that the transposes can become
// views after bufferization, te-fold-attention-transposes).
// CHECK-LABEL: func.func @composed_key_transpose(
// CHECK-SAME: %[[XQ:[^:]*]]: tensor<2x16x32xbf16>, %[[XK:[^:]*]]: tensor<2x16x32xbf16>, %[[XV:[^:]*]]: tensor<2x16x32xbf16>)
// CHECK-DAG: %[[KE:.*]] = tensor.expand_shape %[[XK]]
// CHECK-DAG: %[[KT:.*]] = linalg.transpose ins(%[[KE]] : tensor<2x16x4x8xbf16>) outs(%{{.*}} : tensor<2x4x16x8xbf16>) permutation = [0, 2, 1, 3]
// CHECK-NOT: permutation = [0, 2, 1]
// CHECK: %[[O:.*]], %{{.*}} = te.attention %{{.*}}, %[[KT]], %{{.*}} {scale = 0.353553385 : f32} : tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>
// CHECK: %[[OC:.*]] = tensor.collapse_shape %[[O]] {{\[\[}}0, 1], [2], [3]] : tensor<2x4x16x8xbf16> into tensor<8x16x8xbf16>
// CHECK: return %[[OC]]
func.func @composed_key_transpose(%xq: tensor<2x16x32xbf16>, %xk: tensor<2x16x32xbf16>, %xv: tensor<2x16x32xbf16>) -> tensor<8x16x8xbf16> {
  %exq = tensor.expand_shape %xq [[0], [1], [2, 3]] output_shape [2, 16, 4, 8] : tensor<2x16x32xbf16> into tensor<2x16x4x8xbf16>
  %eq = tensor.empty() : tensor<2x4x16x8xbf16>
  %tq = linalg.transpose ins(%exq : tensor<2x16x4x8xbf16>) outs(%eq : tensor<2x4x16x8xbf16>) permutation = [0, 2, 1, 3]
  %q = tensor.collapse_shape %tq [[0, 1], [2], [3]] : tensor<2x4x16x8xbf16> into tensor<8x16x8xbf16>
  %exk = tensor.expand_shape %xk [[0], [1], [2, 3]] output_shape [2, 16, 4, 8] : tensor<2x16x32xbf16> into tensor<2x16x4x8xbf16>
  %ek = tensor.empty() : tensor<2x4x8x16xbf16>
  %tk = linalg.transpose ins(%exk : tensor<2x16x4x8xbf16>) outs(%ek : tensor<2x4x8x16xbf16>) permutation = [0, 2, 3, 1]
  %kt = tensor.collapse_shape %tk [[0, 1], [2], [3]] : tensor<2x4x8x16xbf16> into tensor<8x8x16xbf16>
  %exv = tensor.expand_shape %xv [[0], [1], [2, 3]] output_shape [2, 16, 4, 8] : tensor<2x16x32xbf16> into tensor<2x16x4x8xbf16>
  %ev = tensor.empty() : tensor<2x4x16x8xbf16>
  %tv = linalg.transpose ins(%exv : tensor<2x16x4x8xbf16>) outs(%ev : tensor<2x4x16x8xbf16>) permutation = [0, 2, 1, 3]
  %v = tensor.collapse_shape %tv [[0, 1], [2], [3]] : tensor<2x4x16x8xbf16> into tensor<8x16x8xbf16>
  %c0 = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x16x16xf32>
  %f1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<8x16x8xbf16>, tensor<8x8x16xbf16>) outs(%f1 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e2 = tensor.empty() : tensor<8x16x16xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x16x16xf32>) outs(%e2 : tensor<8x16x16xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %c = arith.constant 0.353553385 : f32
    %r = arith.mulf %a0, %c : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %e3 = tensor.empty() : tensor<8x16x16xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<8x16x16xf32>) outs(%e3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %e4 = tensor.empty() : tensor<8x16x16xbf16>
  %pb = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<8x16x16xf32>) outs(%e4 : tensor<8x16x16xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x16x16xbf16>
  %e5 = tensor.empty() : tensor<8x16x8xf32>
  %f5 = linalg.fill ins(%c0 : f32) outs(%e5 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 0.353553385)}}
  %o = linalg.batch_matmul ins(%pb, %v : tensor<8x16x16xbf16>, tensor<8x16x8xbf16>) outs(%f5 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %e6 = tensor.empty() : tensor<8x16x8xbf16>
  %ob = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%o : tensor<8x16x8xf32>) outs(%e6 : tensor<8x16x8xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x16x8xbf16>
  return %ob : tensor<8x16x8xbf16>
}
