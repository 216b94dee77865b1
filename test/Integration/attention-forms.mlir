// Attention written five ways (Torch-MLIR's bf16 causal form, einsum-style
// products with a padding mask, grouped-query attention with the explicit
// softmax chain, 3-D products with a boolean mask of either polarity), run
// on the cpu backend raised to te.attention (te-raise-attention, the
// default) and as written (raise-attention=false), both against PyTorch's SDPA computed in double
// precision by Inputs/attention-forms.py (ragged lengths L = 13, S = 21).
//
// RUN: rm -rf %t && %python %S/Inputs/attention-forms.py %t
//
// Each function becomes one te.attention, with the remark saying so:
// RUN: te-opt %s --te-raise-attention -verify-diagnostics | FileCheck %s --check-prefix=IR
// IR-COUNT-5: te.attention
// IR-NOT: linalg.softmax
//
// Compiled for sm_90: five runtime attention calls, no matrix product, no
// score tensor; the one kernel negates @drop's mask.
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" -verify-diagnostics | FileCheck %s --check-prefix=GPU --implicit-check-not=te_rt_mlir_matmul --implicit-check-not=gpu.launch
// GPU-LABEL: func.func @causal(
// GPU: call @te_rt_mlir_attention(
// GPU-LABEL: func.func @pad(
// GPU: call @te_rt_mlir_attention(
// GPU-LABEL: func.func @gqa(
// GPU: call @te_rt_mlir_attention(
// GPU-LABEL: func.func @keep(
// GPU: call @te_rt_mlir_attention(
// GPU-LABEL: func.func @drop(
// GPU: gpu.launch
// GPU: call @te_rt_mlir_attention(
//
// bf16, causal: the fused op rounds once (the output: half a bf16 ulp,
// under 0.002 here), the written form also the scores, the scale's product
// and the probabilities to bf16 (0.003 off here).
// RUN: te-run %s --quiet --entry causal --input %t/q.npy --input %t/k.npy --input %t/v.npy --compare %t/want-causal.npy --rtol 0 --atol 0.004 | FileCheck %s --check-prefix=PASS
// RUN: te-run %s --quiet --pipeline-options raise-attention=false --entry causal --input %t/q.npy --input %t/k.npy --input %t/v.npy --compare %t/want-causal.npy --rtol 0 --atol 0.006 | FileCheck %s --check-prefix=PASS
//
// f32 with a padding mask (keys 16..20 of batch 0 at -inf) and grouped
// queries: both forms within f32 rounding.
// RUN: te-run %s --quiet --entry pad --input %t/q.npy --input %t/k.npy --input %t/v.npy --input %t/pad.npy --compare %t/want-pad.npy --rtol 0 --atol 1e-5 | FileCheck %s --check-prefix=PASS
// RUN: te-run %s --quiet --pipeline-options raise-attention=false --entry pad --input %t/q.npy --input %t/k.npy --input %t/v.npy --input %t/pad.npy --compare %t/want-pad.npy --rtol 0 --atol 1e-5 | FileCheck %s --check-prefix=PASS
// RUN: te-run %s --quiet --entry gqa --input %t/q.npy --input %t/kg.npy --input %t/vg.npy --compare %t/want-gqa.npy --rtol 0 --atol 1e-5 | FileCheck %s --check-prefix=PASS
// RUN: te-run %s --quiet --pipeline-options raise-attention=false --entry gqa --input %t/q.npy --input %t/kg.npy --input %t/vg.npy --compare %t/want-gqa.npy --rtol 0 --atol 1e-5 | FileCheck %s --check-prefix=PASS
//
// A boolean mask leaving row 5 of head 3 without keys: the fused op gives
// 0 there, as SDPA does; the written softmax gives NaN (0/0) in that row,
// its 16 elements from flat index (3 · 13 + 5) · 16 = 704.
// RUN: te-run %s --quiet --entry keep --input %t/q.npy --input %t/k.npy --input %t/v.npy --input %t/keep.npy --compare %t/want-keep.npy --rtol 0 --atol 1e-5 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --quiet --pipeline-options raise-attention=false --entry keep --input %t/q.npy --input %t/k.npy --input %t/v.npy --input %t/keep.npy --compare %t/want-keep.npy --rtol 0 --atol 1e-5 | FileCheck %s --check-prefix=NANROW
//
// RUN: te-run %s --quiet --entry drop --input %t/q.npy --input %t/k.npy --input %t/v.npy --input %t/keep.npy --compare %t/want-drop.npy --rtol 0 --atol 1e-5 | FileCheck %s --check-prefix=PASS
// RUN: te-run %s --quiet --pipeline-options raise-attention=false --entry drop --input %t/q.npy --input %t/k.npy --input %t/v.npy --input %t/keep.npy --compare %t/want-drop.npy --rtol 0 --atol 1e-5 | FileCheck %s --check-prefix=PASS
//
// PASS: result 0: PASS
// NANROW: result 0: FAIL vs {{.*}} mismatches 16 (first at flat index 704)

// Torch-MLIR's form of a bf16 causal attention (batch_matmul over [B·H],
// f32 accumulation and truncf, the scale in bf16, an additive causal mask
// from linalg.index, the softmax in f32).
func.func @causal(%q: tensor<2x4x13x16xbf16>, %k: tensor<2x4x21x16xbf16>, %v: tensor<2x4x21x16xbf16>) -> tensor<2x4x13x16xbf16> {
  %e1 = tensor.empty() : tensor<2x4x16x21xbf16>
  %tr2 = linalg.transpose ins(%k : tensor<2x4x21x16xbf16>) outs(%e1 : tensor<2x4x16x21xbf16>) permutation = [0, 1, 3, 2]
  %cl3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x13x16xbf16> into tensor<8x13x16xbf16>
  %cl4 = tensor.collapse_shape %tr2 [[0, 1], [2], [3]] : tensor<2x4x16x21xbf16> into tensor<8x16x21xbf16>
  %c5 = arith.constant 0.0 : f32
  %e6 = tensor.empty() : tensor<8x13x21xf32>
  %f7 = linalg.fill ins(%c5 : f32) outs(%e6 : tensor<8x13x21xf32>) -> tensor<8x13x21xf32>
  %bmm8 = linalg.batch_matmul ins(%cl3, %cl4 : tensor<8x13x16xbf16>, tensor<8x16x21xbf16>) outs(%f7 : tensor<8x13x21xf32>) -> tensor<8x13x21xf32>
  %e10 = tensor.empty() : tensor<8x13x21xbf16>
  %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm8 : tensor<8x13x21xf32>) outs(%e10 : tensor<8x13x21xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x13x21xbf16>
  %ex11 = tensor.expand_shape %g9 [[0, 1], [2], [3]] output_shape [2, 4, 13, 21] : tensor<8x13x21xbf16> into tensor<2x4x13x21xbf16>
  %e13 = tensor.empty() : tensor<2x4x13x21xbf16>
  %g12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex11 : tensor<2x4x13x21xbf16>) outs(%e13 : tensor<2x4x13x21xbf16>) {
  ^bb0(%a0: bf16, %out: bf16):
    %c = arith.constant 0.25 : bf16
    %r = arith.mulf %a0, %c : bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x13x21xbf16>
  %e15 = tensor.empty() : tensor<13x21xbf16>
  %g14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e15 : tensor<13x21xbf16>) {
  ^bb0(%out: bf16):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ge = arith.cmpi sge, %i, %j : index
    %z = arith.constant 0.0 : bf16
    %ninf = arith.constant 0xFF80 : bf16
    %m = arith.select %ge, %z, %ninf : bf16
    linalg.yield %m : bf16
  } -> tensor<13x21xbf16>
  %e17 = tensor.empty() : tensor<2x4x13x21xbf16>
  %g16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g12, %g14 : tensor<2x4x13x21xbf16>, tensor<13x21xbf16>) outs(%e17 : tensor<2x4x13x21xbf16>) {
  ^bb0(%a0: bf16, %a1: bf16, %out: bf16):
    %r = arith.addf %a0, %a1 : bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x13x21xbf16>
  %e19 = tensor.empty() : tensor<2x4x13x21xf32>
  %g18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g16 : tensor<2x4x13x21xbf16>) outs(%e19 : tensor<2x4x13x21xf32>) {
  ^bb0(%a0: bf16, %out: f32):
    %r = arith.extf %a0 : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<2x4x13x21xf32>
  %c20 = arith.constant 0xFF800000 : f32
  %e21 = tensor.empty() : tensor<2x4x13x1xf32>
  %f22 = linalg.fill ins(%c20 : f32) outs(%e21 : tensor<2x4x13x1xf32>) -> tensor<2x4x13x1xf32>
  %g23 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%g18 : tensor<2x4x13x21xf32>) outs(%f22 : tensor<2x4x13x1xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %m = arith.maximumf %a0, %out : f32
    linalg.yield %m : f32
  } -> tensor<2x4x13x1xf32>
  %e25 = tensor.empty() : tensor<2x4x13x21xf32>
  %g24 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g18, %g23 : tensor<2x4x13x21xf32>, tensor<2x4x13x1xf32>) outs(%e25 : tensor<2x4x13x21xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %d = arith.subf %a0, %a1 : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<2x4x13x21xf32>
  %c26 = arith.constant 0.0 : f32
  %e27 = tensor.empty() : tensor<2x4x13x1xf32>
  %f28 = linalg.fill ins(%c26 : f32) outs(%e27 : tensor<2x4x13x1xf32>) -> tensor<2x4x13x1xf32>
  %g29 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%g24 : tensor<2x4x13x21xf32>) outs(%f28 : tensor<2x4x13x1xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %s = arith.addf %a0, %out : f32
    linalg.yield %s : f32
  } -> tensor<2x4x13x1xf32>
  %e31 = tensor.empty() : tensor<2x4x13x21xf32>
  %g30 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g24, %g29 : tensor<2x4x13x21xf32>, tensor<2x4x13x1xf32>) outs(%e31 : tensor<2x4x13x21xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %p = arith.divf %a0, %a1 : f32
    linalg.yield %p : f32
  } -> tensor<2x4x13x21xf32>
  %e33 = tensor.empty() : tensor<2x4x13x21xbf16>
  %g32 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g30 : tensor<2x4x13x21xf32>) outs(%e33 : tensor<2x4x13x21xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x4x13x21xbf16>
  %cl34 = tensor.collapse_shape %g32 [[0, 1], [2], [3]] : tensor<2x4x13x21xbf16> into tensor<8x13x21xbf16>
  %cl35 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x21x16xbf16> into tensor<8x21x16xbf16>
  %c36 = arith.constant 0.0 : f32
  %e37 = tensor.empty() : tensor<8x13x16xf32>
  %f38 = linalg.fill ins(%c36 : f32) outs(%e37 : tensor<8x13x16xf32>) -> tensor<8x13x16xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 0.25, causal)}}
  %bmm39 = linalg.batch_matmul ins(%cl34, %cl35 : tensor<8x13x21xbf16>, tensor<8x21x16xbf16>) outs(%f38 : tensor<8x13x16xf32>) -> tensor<8x13x16xf32>
  %e41 = tensor.empty() : tensor<8x13x16xbf16>
  %g40 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm39 : tensor<8x13x16xf32>) outs(%e41 : tensor<8x13x16xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x13x16xbf16>
  %ex42 = tensor.expand_shape %g40 [[0, 1], [2], [3]] output_shape [2, 4, 13, 16] : tensor<8x13x16xbf16> into tensor<2x4x13x16xbf16>
  return %ex42 : tensor<2x4x13x16xbf16>
}

// Einsum-style 4-D products, a [B, 1, 1, S] padding mask added to the
// scaled scores, linalg.softmax.
func.func @pad(%q: tensor<2x4x13x16xf32>, %k: tensor<2x4x21x16xf32>, %v: tensor<2x4x21x16xf32>, %pad: tensor<2x1x1x21xf32>) -> tensor<2x4x13x16xf32> {
  %c1 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2x4x13x21xf32>
  %f3 = linalg.fill ins(%c1 : f32) outs(%e2 : tensor<2x4x13x21xf32>) -> tensor<2x4x13x21xf32>
  %g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x13x16xf32>, tensor<2x4x21x16xf32>) outs(%f3 : tensor<2x4x13x21xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %m = arith.mulf %a0, %a1 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x13x21xf32>
  %e6 = tensor.empty() : tensor<2x4x13x21xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g4, %pad : tensor<2x4x13x21xf32>, tensor<2x1x1x21xf32>) outs(%e6 : tensor<2x4x13x21xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %c = arith.constant 0.25 : f32
    %x = arith.mulf %a0, %c : f32
    %r = arith.addf %x, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<2x4x13x21xf32>
  %e7 = tensor.empty() : tensor<2x4x13x21xf32>
  %sm8 = linalg.softmax dimension(3) ins(%g5 : tensor<2x4x13x21xf32>) outs(%e7 : tensor<2x4x13x21xf32>) -> tensor<2x4x13x21xf32>
  %c9 = arith.constant 0.0 : f32
  %e10 = tensor.empty() : tensor<2x4x13x16xf32>
  %f11 = linalg.fill ins(%c9 : f32) outs(%e10 : tensor<2x4x13x16xf32>) -> tensor<2x4x13x16xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 0.25, mask tensor<2x1x1x21xf32>)}}
  %g12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%sm8, %v : tensor<2x4x13x21xf32>, tensor<2x4x21x16xf32>) outs(%f11 : tensor<2x4x13x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %m = arith.mulf %a0, %a1 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x13x16xf32>
  return %g12 : tensor<2x4x13x16xf32>
}

// Grouped-query attention (K and V repeat_interleave'd from 2 heads to 4),
// the explicit softmax chain, no scale.
func.func @gqa(%q: tensor<2x4x13x16xf32>, %kg: tensor<2x2x21x16xf32>, %vg: tensor<2x2x21x16xf32>) -> tensor<2x4x13x16xf32> {
  %e1 = tensor.empty() : tensor<2x2x2x21x16xf32>
  %bc2 = linalg.broadcast ins(%kg : tensor<2x2x21x16xf32>) outs(%e1 : tensor<2x2x2x21x16xf32>) dimensions = [2]
  %cl3 = tensor.collapse_shape %bc2 [[0], [1, 2], [3], [4]] : tensor<2x2x2x21x16xf32> into tensor<2x4x21x16xf32>
  %e4 = tensor.empty() : tensor<2x2x2x21x16xf32>
  %bc5 = linalg.broadcast ins(%vg : tensor<2x2x21x16xf32>) outs(%e4 : tensor<2x2x2x21x16xf32>) dimensions = [2]
  %cl6 = tensor.collapse_shape %bc5 [[0], [1, 2], [3], [4]] : tensor<2x2x2x21x16xf32> into tensor<2x4x21x16xf32>
  %c7 = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<2x4x13x21xf32>
  %f9 = linalg.fill ins(%c7 : f32) outs(%e8 : tensor<2x4x13x21xf32>) -> tensor<2x4x13x21xf32>
  %g10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %cl3 : tensor<2x4x13x16xf32>, tensor<2x4x21x16xf32>) outs(%f9 : tensor<2x4x13x21xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %m = arith.mulf %a0, %a1 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x13x21xf32>
  %c11 = arith.constant 0xFF800000 : f32
  %e12 = tensor.empty() : tensor<2x4x13x1xf32>
  %f13 = linalg.fill ins(%c11 : f32) outs(%e12 : tensor<2x4x13x1xf32>) -> tensor<2x4x13x1xf32>
  %g14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%g10 : tensor<2x4x13x21xf32>) outs(%f13 : tensor<2x4x13x1xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %m = arith.maximumf %a0, %out : f32
    linalg.yield %m : f32
  } -> tensor<2x4x13x1xf32>
  %e16 = tensor.empty() : tensor<2x4x13x21xf32>
  %g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g10, %g14 : tensor<2x4x13x21xf32>, tensor<2x4x13x1xf32>) outs(%e16 : tensor<2x4x13x21xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %d = arith.subf %a0, %a1 : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<2x4x13x21xf32>
  %c17 = arith.constant 0.0 : f32
  %e18 = tensor.empty() : tensor<2x4x13x1xf32>
  %f19 = linalg.fill ins(%c17 : f32) outs(%e18 : tensor<2x4x13x1xf32>) -> tensor<2x4x13x1xf32>
  %g20 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%g15 : tensor<2x4x13x21xf32>) outs(%f19 : tensor<2x4x13x1xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %s = arith.addf %a0, %out : f32
    linalg.yield %s : f32
  } -> tensor<2x4x13x1xf32>
  %e22 = tensor.empty() : tensor<2x4x13x21xf32>
  %g21 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%g15, %g20 : tensor<2x4x13x21xf32>, tensor<2x4x13x1xf32>) outs(%e22 : tensor<2x4x13x21xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %p = arith.divf %a0, %a1 : f32
    linalg.yield %p : f32
  } -> tensor<2x4x13x21xf32>
  %c23 = arith.constant 0.0 : f32
  %e24 = tensor.empty() : tensor<2x4x13x16xf32>
  %f25 = linalg.fill ins(%c23 : f32) outs(%e24 : tensor<2x4x13x16xf32>) -> tensor<2x4x13x16xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 1, 2 query heads per key/value head)}}
  %g26 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%g21, %cl6 : tensor<2x4x13x21xf32>, tensor<2x4x21x16xf32>) outs(%f25 : tensor<2x4x13x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %m = arith.mulf %a0, %a1 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x13x16xf32>
  return %g26 : tensor<2x4x13x16xf32>
}

// 3-D products over [B·H] (K transposed by the map), a boolean mask
// selecting the scaled scores or -inf, linalg.softmax. One row of the mask
// keeps no key.
func.func @keep(%q: tensor<2x4x13x16xf32>, %k: tensor<2x4x21x16xf32>, %v: tensor<2x4x21x16xf32>, %keep: tensor<8x13x21xi1>) -> tensor<8x13x16xf32> {
  %cl1 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x13x16xf32> into tensor<8x13x16xf32>
  %cl2 = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<2x4x21x16xf32> into tensor<8x21x16xf32>
  %cl3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x21x16xf32> into tensor<8x21x16xf32>
  %c4 = arith.constant 0.0 : f32
  %e5 = tensor.empty() : tensor<8x13x21xf32>
  %f6 = linalg.fill ins(%c4 : f32) outs(%e5 : tensor<8x13x21xf32>) -> tensor<8x13x21xf32>
  %bmm7 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%cl1, %cl2 : tensor<8x13x16xf32>, tensor<8x21x16xf32>) outs(%f6 : tensor<8x13x21xf32>) -> tensor<8x13x21xf32>
  %e9 = tensor.empty() : tensor<8x13x21xf32>
  %g8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm7, %keep : tensor<8x13x21xf32>, tensor<8x13x21xi1>) outs(%e9 : tensor<8x13x21xf32>) {
  ^bb0(%a0: f32, %a1: i1, %out: f32):
    %ninf = arith.constant 0xFF800000 : f32
    %c = arith.constant 0.125 : f32
    %x = arith.mulf %a0, %c : f32
    %r = arith.select %a1, %x, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<8x13x21xf32>
  %e10 = tensor.empty() : tensor<8x13x21xf32>
  %sm11 = linalg.softmax dimension(2) ins(%g8 : tensor<8x13x21xf32>) outs(%e10 : tensor<8x13x21xf32>) -> tensor<8x13x21xf32>
  %c12 = arith.constant 0.0 : f32
  %e13 = tensor.empty() : tensor<8x13x16xf32>
  %f14 = linalg.fill ins(%c12 : f32) outs(%e13 : tensor<8x13x16xf32>) -> tensor<8x13x16xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 0.125, mask tensor<8x13x21xi1>); a row the mask leaves without keys gives 0}}
  %bmm15 = linalg.batch_matmul ins(%sm11, %cl3 : tensor<8x13x21xf32>, tensor<8x21x16xf32>) outs(%f14 : tensor<8x13x16xf32>) -> tensor<8x13x16xf32>
  return %bmm15 : tensor<8x13x16xf32>
}

// The same with the mask true where the key is masked out: te.attention
// reads its negation.
func.func @drop(%q: tensor<2x4x13x16xf32>, %k: tensor<2x4x21x16xf32>, %v: tensor<2x4x21x16xf32>, %keep: tensor<8x13x21xi1>) -> tensor<8x13x16xf32> {
  %cl1 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x13x16xf32> into tensor<8x13x16xf32>
  %cl2 = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<2x4x21x16xf32> into tensor<8x21x16xf32>
  %cl3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x21x16xf32> into tensor<8x21x16xf32>
  %c4 = arith.constant 0.0 : f32
  %e5 = tensor.empty() : tensor<8x13x21xf32>
  %f6 = linalg.fill ins(%c4 : f32) outs(%e5 : tensor<8x13x21xf32>) -> tensor<8x13x21xf32>
  %bmm7 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%cl1, %cl2 : tensor<8x13x16xf32>, tensor<8x21x16xf32>) outs(%f6 : tensor<8x13x21xf32>) -> tensor<8x13x21xf32>
  %e9 = tensor.empty() : tensor<8x13x21xf32>
  %g8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm7, %keep : tensor<8x13x21xf32>, tensor<8x13x21xi1>) outs(%e9 : tensor<8x13x21xf32>) {
  ^bb0(%a0: f32, %a1: i1, %out: f32):
    %ninf = arith.constant 0xFF800000 : f32
    %c = arith.constant 0.125 : f32
    %x = arith.mulf %a0, %c : f32
    %r = arith.select %a1, %ninf, %x : f32
    linalg.yield %r : f32
  } -> tensor<8x13x21xf32>
  %e10 = tensor.empty() : tensor<8x13x21xf32>
  %sm11 = linalg.softmax dimension(2) ins(%g8 : tensor<8x13x21xf32>) outs(%e10 : tensor<8x13x21xf32>) -> tensor<8x13x21xf32>
  %c12 = arith.constant 0.0 : f32
  %e13 = tensor.empty() : tensor<8x13x16xf32>
  %f14 = linalg.fill ins(%c12 : f32) outs(%e13 : tensor<8x13x16xf32>) -> tensor<8x13x16xf32>
  // expected-remark @+1 {{te-raise-attention: raised to te.attention (scale 0.125, mask tensor<8x13x21xi1>)}}
  %bmm15 = linalg.batch_matmul ins(%sm11, %cl3 : tensor<8x13x21xf32>, tensor<8x21x16xf32>) outs(%f14 : tensor<8x13x16xf32>) -> tensor<8x13x16xf32>
  return %bmm15 : tensor<8x13x16xf32>
}
