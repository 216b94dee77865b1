// RUN: te-opt %s | te-opt | FileCheck %s
// RUN: te-opt %s --mlir-print-op-generic | te-opt | FileCheck %s
// RUN: te-opt %s -canonicalize | FileCheck %s --check-prefix=FOLD

// The buffers of a !te.qtensor, as te.buffers / te.from_buffers check them
// against the Format library. The expected types are computed by hand from
// docs/formats.md §3 (M = product of leading dims, K = last dim,
// rup(x, a) = ceil(x / a) * a), not by the code under test.

// Per-tensor FP8 on sm_90 (TN-only): columnwise is the physical transpose
// [K, d0..d_{n-2}]; one fp32 scale_inv. (§3.1)
// CHECK-LABEL: func.func @current_sm90
// CHECK: te.buffers %{{.*}} -> tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
// CHECK: te.buffers %{{.*}} -> tensor<64x2x16xf8E5M2>, tensor<1xf32>
// CHECK: te.buffers %{{.*}} -> tensor<16x32xf8E5M2>, tensor<1xf32>
func.func @current_sm90(
    %a: !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>,
    %b: !te.qtensor<2x16x64xbf16, #te.current<f8E5M2>, columnwise>,
    %c: !te.qtensor<16x32xf32, #te.delayed<f8E5M2>, rowwise>) {
  %a0, %a1, %a2 = te.buffers %a : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
      -> tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
  %b0, %b1 = te.buffers %b : !te.qtensor<2x16x64xbf16, #te.current<f8E5M2>, columnwise>
      -> tensor<64x2x16xf8E5M2>, tensor<1xf32>
  %c0, %c1 = te.buffers %c : !te.qtensor<16x32xf32, #te.delayed<f8E5M2>, rowwise>
      -> tensor<16x32xf8E5M2>, tensor<1xf32>
  return
}

// On sm_100 `_data` serves both usages. (§3.1)
module attributes {te.target = #te.target<sm_100>} {
  // CHECK-LABEL: func.func @current_sm100
  // CHECK: te.buffers %{{.*}} -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  // CHECK: te.buffers %{{.*}} -> tensor<2x16x64xf8E5M2>, tensor<1xf32>
  func.func @current_sm100(
      %a: !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>,
      %b: !te.qtensor<2x16x64xbf16, #te.current<f8E5M2>, columnwise>) {
    %a0, %a1 = te.buffers %a : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
        -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
    %b0, %b1 = te.buffers %b : !te.qtensor<2x16x64xbf16, #te.current<f8E5M2>, columnwise>
        -> tensor<2x16x64xf8E5M2>, tensor<1xf32>
    return
  }

  // Block, MXFP8 and NVFP4 layouts do not depend on the target.
  // CHECK-LABEL: func.func @mxfp8_sm100
  // CHECK: te.buffers %{{.*}} -> tensor<64x96xf8E4M3FN>, tensor<128x4xf8E8M0FNU>, tensor<64x96xf8E4M3FN>, tensor<4x128xf8E8M0FNU>
  func.func @mxfp8_sm100(%a: !te.qtensor<64x96xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>) {
    %0:4 = te.buffers %a : !te.qtensor<64x96xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
        -> tensor<64x96xf8E4M3FN>, tensor<128x4xf8E8M0FNU>, tensor<64x96xf8E4M3FN>, tensor<4x128xf8E8M0FNU>
    return
  }
}

// Block scaling (§3.4), M = 256, K = 384, 1x128 tiles:
//   rowwise scales (ceil(K/128), rup(M, 4)) = (3, 256),
//   columnwise data [K, M], scales (ceil(M/128), rup(K, 4)) = (2, 384).
// 128x128 tiles, M = 300, K = 200:
//   rowwise scales (ceil(M/128), rup(ceil(K/128), 4)) = (3, 4),
//   columnwise scales (ceil(K/128), rup(ceil(M/128), 4)) = (2, 4).
// CHECK-LABEL: func.func @block
// CHECK: te.buffers %{{.*}} -> tensor<256x384xf8E4M3FN>, tensor<3x256xf32>, tensor<384x256xf8E4M3FN>, tensor<2x384xf32>
// CHECK: te.buffers %{{.*}} -> tensor<300x200xf8E4M3FN>, tensor<3x4xf32>, tensor<200x300xf8E4M3FN>, tensor<2x4xf32>
// CHECK: te.buffers %{{.*}} -> tensor<200x300xf8E5M2>, tensor<2x4xf32>
func.func @block(
    %a: !te.qtensor<256x384xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>,
    %b: !te.qtensor<300x200xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>,
    %c: !te.qtensor<300x200xbf16, #te.block<f8E5M2, dims = 2>, columnwise>) {
  %a0:4 = te.buffers %a : !te.qtensor<256x384xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
      -> tensor<256x384xf8E4M3FN>, tensor<3x256xf32>, tensor<384x256xf8E4M3FN>, tensor<2x384xf32>
  %b0:4 = te.buffers %b : !te.qtensor<300x200xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>
      -> tensor<300x200xf8E4M3FN>, tensor<3x4xf32>, tensor<200x300xf8E4M3FN>, tensor<2x4xf32>
  %c0:2 = te.buffers %c : !te.qtensor<300x200xbf16, #te.block<f8E5M2, dims = 2>, columnwise>
      -> tensor<200x300xf8E5M2>, tensor<2x4xf32>
  return
}

// MXFP8 (§3.3), M = 64, K = 96: rowwise scales (rup(M, 128), rup(K/32, 4))
// = (128, 4); columnwise data not transposed, scales (rup(M/32, 4),
// rup(K, 128)) = (4, 128). Dynamic M stays dynamic.
// CHECK-LABEL: func.func @mxfp8
// CHECK: te.buffers %{{.*}} -> tensor<64x96xf8E4M3FN>, tensor<128x4xf8E8M0FNU>, tensor<64x96xf8E4M3FN>, tensor<4x128xf8E8M0FNU>
// CHECK: te.buffers %{{.*}} -> tensor<2x32x64xf8E5M2>, tensor<4x128xf8E8M0FNU>
// CHECK: te.buffers %{{.*}} -> tensor<?x64xf8E4M3FN>, tensor<?x4xf8E8M0FNU>
func.func @mxfp8(
    %a: !te.qtensor<64x96xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>,
    %b: !te.qtensor<2x32x64xbf16, #te.mxfp8<f8E5M2>, columnwise>,
    %c: !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>) {
  %a0:4 = te.buffers %a : !te.qtensor<64x96xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
      -> tensor<64x96xf8E4M3FN>, tensor<128x4xf8E8M0FNU>, tensor<64x96xf8E4M3FN>, tensor<4x128xf8E8M0FNU>
  %b0:2 = te.buffers %b : !te.qtensor<2x32x64xbf16, #te.mxfp8<f8E5M2>, columnwise>
      -> tensor<2x32x64xf8E5M2>, tensor<4x128xf8E8M0FNU>
  %c0:2 = te.buffers %c : !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
      -> tensor<?x64xf8E4M3FN>, tensor<?x4xf8E8M0FNU>
  return
}

// NVFP4 (§3.5), M = 32, K = 64: rowwise data (M, K/2) i8, scales
// (rup(M, 128), rup(K/16, 4)) = (128, 4) E4M3; columnwise data 2-D (K, M/2),
// scales (rup(K, 128), rup(M/16, 4)) = (128, 4); then the amaxes, (1) or
// (M) / (K) when row-scaled.
// CHECK-LABEL: func.func @nvfp4
// CHECK: te.buffers %{{.*}} -> tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<64x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
// CHECK: te.buffers %{{.*}} -> tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<32xf32>
// CHECK: te.buffers %{{.*}} -> tensor<64x32xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>
func.func @nvfp4(
    %a: !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>,
    %b: !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, row_scaled = true>, rowwise>,
    %c: !te.qtensor<2x32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true>, columnwise>) {
  %a0:6 = te.buffers %a : !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
      -> tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<64x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
  %b0:3 = te.buffers %b : !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, row_scaled = true>, rowwise>
      -> tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<32xf32>
  %c0:3 = te.buffers %c : !te.qtensor<2x32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true>, columnwise>
      -> tensor<64x32xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>
  return
}

// Flatten and unflatten fold away.
// FOLD-LABEL: func.func @fold_buffers_of_from_buffers
// FOLD-SAME: (%[[D:.*]]: tensor<16x32xf8E4M3FN>, %[[S:.*]]: tensor<1xf32>)
// FOLD-NEXT: return %[[D]], %[[S]]
func.func @fold_buffers_of_from_buffers(%d: tensor<16x32xf8E4M3FN>, %s: tensor<1xf32>)
    -> (tensor<16x32xf8E4M3FN>, tensor<1xf32>) {
  %q = te.from_buffers %d, %s : tensor<16x32xf8E4M3FN>, tensor<1xf32>
      -> !te.qtensor<16x32xbf16, #te.current<f8E4M3FN>, rowwise>
  %d2, %s2 = te.buffers %q : !te.qtensor<16x32xbf16, #te.current<f8E4M3FN>, rowwise>
      -> tensor<16x32xf8E4M3FN>, tensor<1xf32>
  return %d2, %s2 : tensor<16x32xf8E4M3FN>, tensor<1xf32>
}

// FOLD-LABEL: func.func @fold_from_buffers_of_buffers
// FOLD-SAME: (%[[Q:.*]]: !te.qtensor
// FOLD-NEXT: return %[[Q]]
func.func @fold_from_buffers_of_buffers(%q: !te.qtensor<16x32xbf16, #te.current<f8E4M3FN>, rowwise>)
    -> !te.qtensor<16x32xbf16, #te.current<f8E4M3FN>, rowwise> {
  %d, %s = te.buffers %q : !te.qtensor<16x32xbf16, #te.current<f8E4M3FN>, rowwise>
      -> tensor<16x32xf8E4M3FN>, tensor<1xf32>
  %q2 = te.from_buffers %d, %s : tensor<16x32xf8E4M3FN>, tensor<1xf32>
      -> !te.qtensor<16x32xbf16, #te.current<f8E4M3FN>, rowwise>
  return %q2 : !te.qtensor<16x32xbf16, #te.current<f8E4M3FN>, rowwise>
}

// Buffers in another order are not the original tensor.
// FOLD-LABEL: func.func @no_fold_permuted
// FOLD: te.buffers
// FOLD: te.from_buffers
func.func @no_fold_permuted(%q: !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>)
    -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise> {
  %b:6 = te.buffers %q : !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
      -> tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<64x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
  %q2 = te.from_buffers %b#0, %b#1, %b#2, %b#3, %b#5, %b#4
      : tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<64x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
      -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
  return %q2 : !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
}
