// RUN: te-opt %s -split-input-file --te-infer-usages | FileCheck %s
// RUN: te-opt %s -split-input-file --te-infer-usages --te-infer-usages | FileCheck %s

// te-infer-usages gives each quantized value exactly what its consumers read
// (docs/formats.md §5): TN reads A rowwise and B rowwise, NN reads A
// columnwise and B rowwise, NT reads A columnwise and B columnwise.

!x = !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
!w = !te.qtensor<16x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
!dy = !te.qtensor<32x16xbf16, #te.current<f8E5M2>, rowwise|columnwise>

// Inference: only fprop (TN) reads X and W, so both end rowwise-only.
// CHECK-LABEL: func.func @inference
// CHECK: te.quantize %{{.*}} : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: te.quantize %{{.*}} : tensor<16x64xbf16> -> !te.qtensor<16x64xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: te.gemm {{.*}} layout TN : !te.qtensor<16x64xbf16, #te.current<f8E4M3FN>, rowwise>, !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<32x16xbf16>
func.func @inference(%x: tensor<32x64xbf16>, %w: tensor<16x64xbf16>) -> tensor<32x16xbf16> {
  %qx = te.quantize %x : tensor<32x64xbf16> -> !x
  %qw = te.quantize %w : tensor<16x64xbf16> -> !w
  %y = te.gemm %qw, %qx layout TN : !w, !x -> tensor<32x16xbf16>
  return %y : tensor<32x16xbf16>
}

// Training: fprop Y = X·Wᵀ (TN), dgrad dX = dY·W (NN: W columnwise, dY
// rowwise), wgrad dW = dYᵀ·X (NT: X columnwise, dY columnwise). All three
// end rowwise|columnwise.
// CHECK-LABEL: func.func @training
// CHECK: te.quantize %{{.*}} -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK: te.quantize %{{.*}} -> !te.qtensor<16x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK: te.quantize %{{.*}} -> !te.qtensor<32x16xbf16, #te.current<f8E5M2>, rowwise|columnwise>
func.func @training(%x: tensor<32x64xbf16>, %w: tensor<16x64xbf16>, %dy: tensor<32x16xbf16>)
    -> (tensor<32x16xbf16>, tensor<32x64xbf16>, tensor<16x64xbf16>) {
  %qx = te.quantize %x : tensor<32x64xbf16> -> !x
  %qw = te.quantize %w : tensor<16x64xbf16> -> !w
  %qdy = te.quantize %dy : tensor<32x16xbf16> -> !dy
  %y = te.gemm %qw, %qx layout TN : !w, !x -> tensor<32x16xbf16>
  %dx = te.gemm %qw, %qdy layout NN : !w, !dy -> tensor<32x64xbf16>
  %dw = te.gemm %qx, %qdy layout NT : !x, !dy -> tensor<16x64xbf16>
  return %y, %dx, %dw : tensor<32x16xbf16>, tensor<32x64xbf16>, tensor<16x64xbf16>
}

// A frozen weight (no wgrad): X is read by fprop only (rowwise), dY by
// dgrad only (rowwise), W by fprop and dgrad (rowwise|columnwise).
// CHECK-LABEL: func.func @frozen_weight
// CHECK: te.quantize %{{.*}} -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: te.quantize %{{.*}} -> !te.qtensor<16x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK: te.quantize %{{.*}} -> !te.qtensor<32x16xbf16, #te.current<f8E5M2>, rowwise>
func.func @frozen_weight(%x: tensor<32x64xbf16>, %w: tensor<16x64xbf16>, %dy: tensor<32x16xbf16>)
    -> (tensor<32x16xbf16>, tensor<32x64xbf16>) {
  %qx = te.quantize %x : tensor<32x64xbf16> -> !x
  %qw = te.quantize %w : tensor<16x64xbf16> -> !w
  %qdy = te.quantize %dy : tensor<32x16xbf16> -> !dy
  %y = te.gemm %qw, %qx layout TN : !w, !x -> tensor<32x16xbf16>
  %dx = te.gemm %qw, %qdy layout NN : !w, !dy -> tensor<32x64xbf16>
  return %y, %dx : tensor<32x16xbf16>, tensor<32x64xbf16>
}

// A value nobody reads keeps rowwise; te.dequantize reads rowwise; a value
// whose buffers are spelled out (te.buffers) keeps its type.
// CHECK-LABEL: func.func @others
// CHECK: te.empty() : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: te.quantize %{{.*}} -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: te.dequantize %{{.*}} : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: te.quantize %{{.*}} -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK: te.buffers
func.func @others(%x: tensor<32x64xbf16>) -> (tensor<32x64xf32>, tensor<64x32xf8E4M3FN>) {
  %e = te.empty() : !x
  %q = te.quantize %x : tensor<32x64xbf16> -> !x
  %d = te.dequantize %q : !x -> tensor<32x64xf32>
  %p = te.quantize %x : tensor<32x64xbf16> -> !x
  %b:3 = te.buffers %p : !x -> tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
  return %d, %b#1 : tensor<32x64xf32>, tensor<64x32xf8E4M3FN>
}

// -----

// Needs flow through calls into private functions and back out of their
// results, and through scf.for / scf.if. @wgrad reads its argument
// columnwise only (NT's A), so @step's quantized X -- passed to it and
// used by nothing else -- becomes columnwise-only, and so do @wgrad's
// signature and the loop carrying X. @make returns a W that @step reads
// rowwise (TN's A) only.
!x = !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
!w = !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
!dy = !te.qtensor<32x32xbf16, #te.mxfp8<f8E5M2>, rowwise|columnwise>

// CHECK-LABEL: func.func private @wgrad
// CHECK-SAME: (%{{.*}}: !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, columnwise>, %{{.*}}: !te.qtensor<32x32xbf16, #te.mxfp8<f8E5M2>, columnwise>)
func.func private @wgrad(%qx: !x, %qdy: !dy) -> tensor<32x64xbf16> {
  %dw = te.gemm %qx, %qdy layout NT : !x, !dy -> tensor<32x64xbf16>
  return %dw : tensor<32x64xbf16>
}

// CHECK-LABEL: func.func private @make
// CHECK-SAME: -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK: te.quantize %{{.*}} -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
func.func private @make(%w: tensor<32x64xbf16>) -> !w {
  %qw = te.quantize %w : tensor<32x64xbf16> -> !w
  return %qw : !w
}

// CHECK-LABEL: func.func @step
// CHECK: %[[QX:.*]] = te.quantize %{{.*}} -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, columnwise>
// CHECK: scf.for {{.*}} -> (!te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, columnwise>)
// CHECK: scf.if {{.*}} -> (!te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, columnwise>)
// CHECK: call @make{{.*}} -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK: call @wgrad{{.*}} : (!te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, columnwise>, !te.qtensor<32x32xbf16, #te.mxfp8<f8E5M2>, columnwise>)
func.func @step(%x: tensor<32x64xbf16>, %w: tensor<32x64xbf16>, %dy: tensor<32x32xbf16>,
                %n: index, %c: i1) -> (tensor<32x64xbf16>, tensor<32x32xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %qx = te.quantize %x : tensor<32x64xbf16> -> !x
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %qx) -> (!x) {
    %b = scf.if %c -> (!x) {
      scf.yield %a : !x
    } else {
      %q2 = te.quantize %x : tensor<32x64xbf16> -> !x
      scf.yield %q2 : !x
    }
    scf.yield %b : !x
  }
  %qw = call @make(%w) : (tensor<32x64xbf16>) -> !w
  %qx2 = te.quantize %x : tensor<32x64xbf16> -> !x
  %y = te.gemm %qw, %qx2 layout TN : !w, !x -> tensor<32x32xbf16>
  %qdy = te.quantize %dy : tensor<32x32xbf16> -> !dy
  %dw = call @wgrad(%r, %qdy) : (!x, !dy) -> tensor<32x64xbf16>
  return %dw, %y : tensor<32x64xbf16>, tensor<32x32xbf16>
}

// -----

// Public functions are contracts: their argument and result types stay,
// even where more is declared than read.
// CHECK-LABEL: func.func @public
// CHECK-SAME: (%{{.*}}: !te.qtensor<32x64xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: -> !te.qtensor<32x64xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
// CHECK: te.quantize %{{.*}} -> !te.qtensor<32x64xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
func.func @public(%a: !te.qtensor<32x64xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>,
                  %x: tensor<32x64xbf16>)
    -> !te.qtensor<32x64xbf16, #te.block<f8E4M3FN>, rowwise|columnwise> {
  %q = te.quantize %x : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
  return %q : !te.qtensor<32x64xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
}

// -----

// A usage view nobody reads (te.buffers + te.from_buffers, as
// te-decompose-linear makes for a saved input) is erased: it does not keep
// the columnwise copy of the value it views alive.
// CHECK-LABEL: func.func @dead_view
// CHECK: te.quantize %{{.*}} -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK-NOT: te.buffers
// CHECK-NOT: te.from_buffers
func.func @dead_view(%x: tensor<32x64xbf16>) -> tensor<32x64xf32> {
  %q = te.quantize %x : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  %b:3 = te.buffers %q : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
      -> tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
  %v = te.from_buffers %b#1, %b#2 : tensor<64x32xf8E4M3FN>, tensor<1xf32>
      -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, columnwise>
  %d = te.dequantize %q : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xf32>
  return %d : tensor<32x64xf32>
}
