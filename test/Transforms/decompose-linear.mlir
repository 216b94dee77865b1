// RUN: te-opt %s --te-decompose-linear --split-input-file | FileCheck %s
// RUN: te-opt %s --te-decompose-linear --split-input-file | te-opt --te-decompose-linear --split-input-file | FileCheck %s

// te-decompose-linear against docs/formats.md §5 (Linear's three GEMMs and
// their operand usages) and §6 (what the forward saves), with TE's
// split-accumulator defaults from module/base.py.

// Forward, MXFP8: X and W quantized once each in both directions, fprop
// gemm(W, X, TN) with the bias fused and no split accumulator; the input is
// saved without its rowwise buffers (the columnwise data + scales of the
// same quantization), the weight as is.

// CHECK-LABEL: func.func @forward_mxfp8
// CHECK-SAME: (%[[X:.*]]: tensor<32x128xbf16>, %[[W:.*]]: tensor<64x128xbf16>, %[[B:.*]]: tensor<64xbf16>)
// CHECK: %[[XQ:.*]] = te.quantize %[[X]] : tensor<32x128xbf16> -> !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
// CHECK: %[[WQ:.*]] = te.quantize %[[W]] : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
// CHECK: %[[Y:.*]] = te.gemm %[[WQ]], %[[XQ]] layout TN bias(%[[B]] : tensor<64xbf16>) :
// CHECK-NOT: use_split_accumulator
// CHECK-SAME: -> tensor<32x64xbf16>
// CHECK: %[[BUF:.*]]:4 = te.buffers %[[XQ]] : {{.*}} -> tensor<32x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>, tensor<32x128xf8E4M3FN>, tensor<4x128xf8E8M0FNU>
// CHECK: %[[XS:.*]] = te.from_buffers %[[BUF]]#2, %[[BUF]]#3 : tensor<32x128xf8E4M3FN>, tensor<4x128xf8E8M0FNU> -> !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>
// CHECK: return %[[Y]], %[[XS]], %[[WQ]]
// CHECK-NOT: te.linear
func.func @forward_mxfp8(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>, %b: tensor<64xbf16>)
    -> (tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xbf16>)
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return %y, %xs, %ws : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>,
      !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
}

// -----

// Backward, per-tensor FP8 (current scaling, HYBRID): dY quantized once in
// both directions; dgrad gemm(W, dY, NN) and wgrad gemm(X, dY, NT), both with
// the split accumulator; no bias gradient without has_bias.

!X = !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>
!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func @backward_current
// CHECK-SAME: (%[[DY:.*]]: tensor<32x64xbf16>, %[[XS:.*]]: !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>, %[[WS:.*]]: !te.qtensor
// CHECK: %[[DYQ:.*]] = te.quantize %[[DY]] : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.current<f8E5M2>, rowwise|columnwise>
// CHECK: %[[DX:.*]] = te.gemm %[[WS]], %[[DYQ]] layout NN {use_split_accumulator} : {{.*}} -> tensor<32x128xbf16>
// CHECK: %[[DW:.*]] = te.gemm %[[XS]], %[[DYQ]] layout NT {use_split_accumulator} : {{.*}} -> tensor<64x128xbf16>
// CHECK-NOT: linalg.generic
// CHECK: return %[[DX]], %[[DW]]
func.func @backward_current(%dy: tensor<32x64xbf16>, %xs: !X, %ws: !W) -> (tensor<32x128xbf16>, tensor<64x128xbf16>) {
  %dx, %dw = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.current<f8E5M2>}
      : tensor<32x64xbf16>, !X, !W
  return %dx, %dw : tensor<32x128xbf16>, tensor<64x128xbf16>
}

// -----

// FP8 block scaling forces the split accumulator on for fprop too.

// CHECK-LABEL: func.func @forward_block
// CHECK: te.quantize {{.*}} -> !te.qtensor<32x128xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
// CHECK: te.quantize {{.*}} -> !te.qtensor<64x128xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>
// CHECK: te.gemm {{.*}} layout TN {use_split_accumulator}
func.func @forward_block(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<32x64xbf16> {
  %y, %xs, %ws = te.linear %x, %w
      {input_quantizer = #te.block<f8E4M3FN>, weight_quantizer = #te.block<f8E4M3FN, dims = 2>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return %y : tensor<32x64xbf16>
}

// -----

// Per-tensor FP8 on sm_90: the columnwise copy is the physical transpose
// _transpose [K, M]; the saved input keeps it and the shared _scale_inv.

// CHECK-LABEL: func.func @saved_input_current_sm90
// CHECK: %[[XQ:.*]] = te.quantize
// CHECK: %[[BUF:.*]]:3 = te.buffers %[[XQ]] : {{.*}} -> tensor<32x128xf8E4M3FN>, tensor<128x32xf8E4M3FN>, tensor<1xf32>
// CHECK: te.from_buffers %[[BUF]]#1, %[[BUF]]#2 : tensor<128x32xf8E4M3FN>, tensor<1xf32> -> !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>
func.func @saved_input_current_sm90(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>)
    -> !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise> {
  %y, %xs, %ws = te.linear %x, %w
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return %xs : !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>
}

// -----

// On sm_100 the columnwise representation of per-tensor FP8 *is* _data: the
// saved input keeps _data and _scale_inv.

module attributes {te.target = #te.target<sm_100>} {
// CHECK-LABEL: func.func @saved_input_current_sm100
// CHECK: %[[XQ:.*]] = te.quantize
// CHECK: %[[BUF:.*]]:2 = te.buffers %[[XQ]] : {{.*}} -> tensor<32x128xf8E4M3FN>, tensor<1xf32>
// CHECK: te.from_buffers %[[BUF]]#0, %[[BUF]]#1 : tensor<32x128xf8E4M3FN>, tensor<1xf32> -> !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>
func.func @saved_input_current_sm100(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>)
    -> !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise> {
  %y, %xs, %ws = te.linear %x, %w
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return %xs : !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>
}
}

// -----

// Weight workspace, cache miss (cache_weight): the new workspace is the
// quantized weight itself -- one te.quantize of W, returned in both slots.

!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func @cache_miss
// CHECK-SAME: %[[W:[^:]*]]: tensor<64x128xbf16>
// CHECK: %[[WQ:.*]] = te.quantize %[[W]]
// CHECK-NOT: te.quantize %[[W]]
// CHECK: return %[[WQ]], %[[WQ]]
func.func @cache_miss(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) -> (!W, !W) {
  %y, %xs, %ws, %new = te.linear %x, %w
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>, cache_weight}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return %ws, %new : !W, !W
}

// -----

// Weight workspace, cache hit: W is not quantized; the workspace feeds
// fprop and is the saved weight.

!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func @cache_hit
// CHECK-SAME: (%[[X:.*]]: tensor<32x128xbf16>, %{{.*}}: tensor<64x128xbf16>, %[[CACHE:.*]]: !te.qtensor
// CHECK: %[[XQ:.*]] = te.quantize %[[X]]
// CHECK-NOT: te.quantize
// CHECK: %[[Y:.*]] = te.gemm %[[CACHE]], %[[XQ]] layout TN
// CHECK: return %[[Y]], %[[CACHE]]
func.func @cache_hit(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>, %cache: !W) -> (tensor<32x64xbf16>, !W) {
  %y, %xs, %ws = te.linear %x, %w workspace(%cache : !W)
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return %y, %ws : tensor<32x64xbf16>, !W
}

// -----

// An output quantizer makes fprop write a rowwise qtensor; a grad-input
// quantizer does the same for dgrad.

!X = !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>
!W = !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func @quantized_outputs
// CHECK: te.gemm {{.*}} layout TN : {{.*}} -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK: te.gemm {{.*}} layout NN {use_split_accumulator} : {{.*}} -> !te.qtensor<32x128xbf16, #te.mxfp8<f8E5M2>, rowwise>
// CHECK: te.gemm {{.*}} layout NT {use_split_accumulator} : {{.*}} -> tensor<64x128xbf16>
func.func @quantized_outputs(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>, %dy: tensor<32x64xbf16>)
    -> (!te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xbf16, #te.mxfp8<f8E5M2>, rowwise>, tensor<64x128xbf16>) {
  %y, %xs, %ws = te.linear %x, %w
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>,
       output_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  %dx, %dw = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.mxfp8<f8E4M3FN>, grad_input_quantizer = #te.mxfp8<f8E5M2>}
      : tensor<32x64xbf16>, !X, !W
  return %y, %dx, %dw : !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>,
      !te.qtensor<32x128xbf16, #te.mxfp8<f8E5M2>, rowwise>, tensor<64x128xbf16>
}

// -----

// N-D input with a dynamic batch: quantized operands keep their logical
// shape (te.gemm flattens leading dimensions); the bias gradient collapses dY
// to [M, N] and sums over M in fp32, rounded once to bf16.

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @nd_dynamic_bias_grad
// CHECK-SAME: (%[[DY:.*]]: tensor<?x8x64xbf16>, %[[XS:.*]]: !te.qtensor<?x8x128xbf16, #te.block<f8E4M3FN>, columnwise>, %[[WS:.*]]: !te.qtensor
// CHECK: %[[DYQ:.*]] = te.quantize %[[DY]] : tensor<?x8x64xbf16> -> !te.qtensor<?x8x64xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
// CHECK: %[[DX:.*]] = te.gemm %[[WS]], %[[DYQ]] layout NN {use_split_accumulator} : {{.*}} -> tensor<?x8x128xbf16>
// CHECK: %[[DW:.*]] = te.gemm %[[XS]], %[[DYQ]] layout NT {use_split_accumulator} : {{.*}} -> tensor<64x128xbf16>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[DY]] {{\[}}[0, 1], [2]] : tensor<?x8x64xbf16> into tensor<?x64xbf16>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<64xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[FLAT]] : tensor<?x64xbf16>) outs(%[[ACC]] : tensor<64xf32>)
// CHECK: ^bb0(%[[IN:.*]]: bf16, %[[OUT:.*]]: f32):
// CHECK:   %[[E:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK:   %[[S:.*]] = arith.addf %[[E]], %[[OUT]] : f32
// CHECK:   linalg.yield %[[S]] : f32
// CHECK: %[[DB:.*]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[SUM]] : tensor<64xf32>) outs(%{{.*}} : tensor<64xbf16>)
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
// CHECK: return %[[DX]], %[[DW]], %[[DB]]
!X = !te.qtensor<?x8x128xbf16, #te.block<f8E4M3FN>, columnwise>
!W = !te.qtensor<64x128xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>
func.func @nd_dynamic_bias_grad(%dy: tensor<?x8x64xbf16>, %xs: !X, %ws: !W)
    -> (tensor<?x8x128xbf16>, tensor<64x128xbf16>, tensor<64xbf16>) {
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.block<f8E4M3FN>, has_bias}
      : tensor<?x8x64xbf16>, !X, !W
  return %dx, %dw, %db : tensor<?x8x128xbf16>, tensor<64x128xbf16>, tensor<64xbf16>
}

// -----

// An f32 gradient needs no conversion around the fp32 sum.

!X = !te.qtensor<32x128xf32, #te.mxfp8<f8E4M3FN>, columnwise>
!W = !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
// CHECK-LABEL: func.func @f32_bias_grad
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<32x64xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK-NOT: arith.extf
// CHECK: arith.addf
// CHECK-NOT: arith.truncf
// CHECK: return %{{.*}}, %{{.*}}, %[[SUM]]
func.func @f32_bias_grad(%dy: tensor<32x64xf32>, %xs: !X, %ws: !W)
    -> (tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>) {
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.mxfp8<f8E4M3FN>, has_bias}
      : tensor<32x64xf32>, !X, !W
  return %dx, %dw, %db : tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>
}

// -----

// NVFP4: stochastic rounding of dY takes the op's random stream; RHT and 2D
// weight quantizers need none.

!X = !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN, rht = true>, columnwise>
!W = !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise|columnwise>
// CHECK-LABEL: func.func @nvfp4_stochastic_rounding
// CHECK-SAME: %[[SEED:[^:]*]]: i64, %[[OFF:[^:]*]]: i64
// CHECK: te.quantize %{{.*}} : tensor<32x128xbf16> -> !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>
// CHECK: te.quantize %{{.*}} : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise|columnwise>
// CHECK: te.quantize %{{.*}} seed %[[SEED]] offset %[[OFF]] : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>, rowwise|columnwise>
func.func @nvfp4_stochastic_rounding(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>, %dy: tensor<32x64xbf16>,
                                     %seed: i64, %off: i64) -> (tensor<32x128xbf16>, tensor<64x128xbf16>) {
  %y, %xs, %ws = te.linear %x, %w
      {input_quantizer = #te.nvfp4<f4E2M1FN, rht = true>, weight_quantizer = #te.nvfp4<f4E2M1FN, block_2d = true>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  %dx, %dw = te.linear_grad %dy, %xs, %ws seed %seed offset %off
      {grad_output_quantizer = #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>}
      : tensor<32x64xbf16>, !X, !W
  return %dx, %dw : tensor<32x128xbf16>, tensor<64x128xbf16>
}
