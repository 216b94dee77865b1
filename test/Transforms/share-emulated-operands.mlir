// te-share-emulated-operands: on sm_90, an MXFP8 / NVFP4 operand that
// several emulated GEMMs read (a weight read by every microbatch, or by a
// GEMM in a loop) is dequantized once (te.emulated_operand_buffers) and
// handed to the GEMMs as a_emulated / b_emulated; operands read once, FP8
// recipes, GEMMs emulated in fp32 and dynamic operands are left alone.
//
// RUN: te-opt %s --te-set-target=target=sm_90 --te-expand-qtensors --canonicalize --te-share-emulated-operands 2>/dev/null | FileCheck %s
// RUN: te-opt %s --te-set-target=target=sm_100 --te-expand-qtensors --te-share-emulated-operands | FileCheck %s --check-prefix=SM100
// SM100-NOT: te.emulated_operand_buffers

!W = !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
!X = !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>

// Two microbatches' fprop read the weight rowwise: one dequantization,
// before the first GEMM; each microbatch's input is read once and left to
// its GEMM.
// CHECK-LABEL: func.func @microbatches(
// CHECK: %[[W:.*]]:2 = te.quantize_buffers %{{.*}} quantizer #te.mxfp8<f8E4M3FN> usage rowwise outs(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8192xbf16>
// CHECK: %[[WE:.*]] = te.emulated_operand_buffers %[[W]]#0, %[[W]]#1 quantizer #te.mxfp8<f8E4M3FN> usage rowwise reads rowwise shape [64, 128] outs(%[[E]] : tensor<8192xbf16>)
// CHECK-NOT: te.emulated_operand_buffers
// CHECK: te.gemm_buffers layout TN a(%[[W]]#0, %[[W]]#1 {{.*}} a_emulated(%[[WE]] : tensor<8192xbf16>) outs(
// CHECK-NOT: b_emulated
// CHECK: te.gemm_buffers layout TN a(%[[W]]#0, %[[W]]#1 {{.*}} a_emulated(%[[WE]] : tensor<8192xbf16>) outs(
func.func @microbatches(%w: tensor<64x128xbf16>, %x0: tensor<32x128xbf16>,
                        %x1: tensor<32x128xbf16>)
    -> (tensor<32x64xbf16>, tensor<32x64xbf16>) {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !W
  %x0q = te.quantize %x0 : tensor<32x128xbf16> -> !X
  %y0 = te.gemm %wq, %x0q layout TN : !W, !X -> tensor<32x64xbf16>
  %x1q = te.quantize %x1 : tensor<32x128xbf16> -> !X
  %y1 = te.gemm %wq, %x1q layout TN : !W, !X -> tensor<32x64xbf16>
  return %y0, %y1 : tensor<32x64xbf16>, tensor<32x64xbf16>
}

// One GEMM in a loop whose body does not define the weight: dequantized once,
// before the loop.
// CHECK-LABEL: func.func @loop(
// CHECK: te.quantize_buffers
// CHECK: %[[WE:.*]] = te.emulated_operand_buffers {{.*}} reads rowwise shape [64, 128]
// CHECK: scf.for
// CHECK-NOT: te.emulated_operand_buffers
// CHECK: te.gemm_buffers layout TN {{.*}} a_emulated(%[[WE]] : tensor<8192xbf16>)
func.func @loop(%w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>)
    -> tensor<32x64xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %wq = te.quantize %w : tensor<64x128xbf16> -> !W
  %init = tensor.empty() : tensor<32x64xbf16>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<32x64xbf16> {
    %xq = te.quantize %x : tensor<32x128xbf16> -> !X
    %y = te.gemm %wq, %xq layout TN : !W, !X -> tensor<32x64xbf16>
    scf.yield %y : tensor<32x64xbf16>
  }
  return %r : tensor<32x64xbf16>
}

// Read once, outside a loop: the GEMM dequantizes it itself.
// CHECK-LABEL: func.func @once(
// CHECK-NOT: te.emulated_operand_buffers
// CHECK-NOT: _emulated(
// CHECK: return
func.func @once(%w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>)
    -> tensor<32x64xbf16> {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !W
  %xq = te.quantize %x : tensor<32x128xbf16> -> !X
  %y = te.gemm %wq, %xq layout TN : !W, !X -> tensor<32x64xbf16>
  return %y : tensor<32x64xbf16>
}

// NVFP4 training step of one Linear: fprop (TN) and dgrad (NN) read the
// weight's two copies, wgrad (NT) cancels the RHT of both columnwise
// operands; with two microbatches each weight copy is shared. The inputs'
// and gradients' copies are read once each.
!NW = !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise|columnwise>
!NX = !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>
!NG = !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>
// CHECK-LABEL: func.func @nvfp4_step(
// CHECK: %[[W:.*]]:6 = te.quantize_buffers %{{.*}} quantizer #te.nvfp4<f4E2M1FN, block_2d = true>
// CHECK: %[[WR:.*]] = te.emulated_operand_buffers %[[W]]#0, {{.*}} reads rowwise shape [64, 128]
// CHECK: te.gemm_buffers layout TN {{.*}} a_emulated(%[[WR]] : tensor<8192xbf16>)
// CHECK: %[[WC:.*]] = te.emulated_operand_buffers %[[W]]#0, {{.*}} reads columnwise shape [64, 128]
// CHECK: te.gemm_buffers layout NN {{.*}} a_emulated(%[[WC]] : tensor<8192xbf16>)
// CHECK-NOT: b_emulated
// CHECK: te.gemm_buffers layout NT
// CHECK-NOT: _emulated(
// CHECK-SAME: outs(
// CHECK: te.gemm_buffers layout TN {{.*}} a_emulated(%[[WR]] : tensor<8192xbf16>)
// CHECK: te.gemm_buffers layout NN {{.*}} a_emulated(%[[WC]] : tensor<8192xbf16>)
// CHECK-NOT: te.emulated_operand_buffers
// CHECK: return
func.func @nvfp4_step(%w: tensor<64x128xbf16>,
                      %x0: tensor<32x128xbf16>, %g0: tensor<32x64xbf16>,
                      %x1: tensor<32x128xbf16>, %g1: tensor<32x64xbf16>)
    -> (tensor<32x64xbf16>, tensor<32x128xbf16>, tensor<64x128xf32>,
        tensor<32x64xbf16>, tensor<32x128xbf16>, tensor<64x128xf32>) {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !NW
  %x0q = te.quantize %x0 : tensor<32x128xbf16> -> !NX
  %y0 = te.gemm %wq, %x0q layout TN : !NW, !NX -> tensor<32x64xbf16>
  %g0q = te.quantize %g0 : tensor<32x64xbf16> -> !NG
  %dx0 = te.gemm %wq, %g0q layout NN : !NW, !NG -> tensor<32x128xbf16>
  %dw0 = te.gemm %x0q, %g0q layout NT : !NX, !NG -> tensor<64x128xf32>
  %x1q = te.quantize %x1 : tensor<32x128xbf16> -> !NX
  %y1 = te.gemm %wq, %x1q layout TN : !NW, !NX -> tensor<32x64xbf16>
  %g1q = te.quantize %g1 : tensor<32x64xbf16> -> !NG
  %dx1 = te.gemm %wq, %g1q layout NN : !NW, !NG -> tensor<32x128xbf16>
  %dw1 = te.gemm %x1q, %g1q layout NT : !NX, !NG -> tensor<64x128xf32>
  return %y0, %dx0, %dw0, %y1, %dx1, %dw1
      : tensor<32x64xbf16>, tensor<32x128xbf16>, tensor<64x128xf32>,
        tensor<32x64xbf16>, tensor<32x128xbf16>, tensor<64x128xf32>
}

// Not shared: FP8 GEMMs are native; NN reading an RHT copy that B does not
// cancel runs in fp32.
!C = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
!CX = !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>
!RW = !te.qtensor<128x64xbf16, #te.nvfp4<f4E2M1FN, rht = true>, columnwise>
!RG = !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise>
// CHECK-LABEL: func.func @not_shared(
// CHECK-NOT: te.emulated_operand_buffers
// CHECK-NOT: _emulated(
// CHECK: return
func.func @not_shared(%w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>,
                      %v: tensor<128x64xbf16>, %g: tensor<32x128xbf16>)
    -> (tensor<32x64xbf16>, tensor<32x64xbf16>, tensor<32x64xbf16>,
        tensor<32x64xbf16>) {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !C
  %xq = te.quantize %x : tensor<32x128xbf16> -> !CX
  %y0 = te.gemm %wq, %xq layout TN : !C, !CX -> tensor<32x64xbf16>
  %y1 = te.gemm %wq, %xq layout TN : !C, !CX -> tensor<32x64xbf16>
  %vq = te.quantize %v : tensor<128x64xbf16> -> !RW
  %gq = te.quantize %g : tensor<32x128xbf16> -> !RG
  %d0 = te.gemm %vq, %gq layout NN : !RW, !RG -> tensor<32x64xbf16>
  %d1 = te.gemm %vq, %gq layout NN : !RW, !RG -> tensor<32x64xbf16>
  return %y0, %y1, %d0, %d1
      : tensor<32x64xbf16>, tensor<32x64xbf16>, tensor<32x64xbf16>,
        tensor<32x64xbf16>
}

// A dynamic batch: the weight (static) is shared, the inputs are not.
!DX = !te.qtensor<?x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK-LABEL: func.func @dynamic(
// CHECK: %[[WE:.*]] = te.emulated_operand_buffers {{.*}} shape [64, 128]
// CHECK-NOT: te.emulated_operand_buffers
// CHECK: te.gemm_buffers layout TN {{.*}} shape [?, 128] a_emulated(%[[WE]] : tensor<8192xbf16>)
// CHECK: te.gemm_buffers layout TN {{.*}} shape [?, 128] a_emulated(%[[WE]] : tensor<8192xbf16>)
func.func @dynamic(%w: tensor<64x128xbf16>, %x: tensor<?x128xbf16>)
    -> (tensor<?x64xbf16>, tensor<?x64xbf16>) {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !W
  %xq = te.quantize %x : tensor<?x128xbf16> -> !DX
  %y0 = te.gemm %wq, %xq layout TN : !W, !DX -> tensor<?x64xbf16>
  %y1 = te.gemm %wq, %xq layout TN : !W, !DX -> tensor<?x64xbf16>
  return %y0, %y1 : tensor<?x64xbf16>, tensor<?x64xbf16>
}

// The weight quantized in the loop body (a fresh value per iteration): its
// two readers in the body share it there; the input, defined before the
// loop, is dequantized before it.
// CHECK-LABEL: func.func @fresh_per_iteration(
// CHECK: %[[XE:.*]] = te.emulated_operand_buffers {{.*}} shape [32, 128]
// CHECK: scf.for
// CHECK: te.quantize_buffers
// CHECK: %[[WE:.*]] = te.emulated_operand_buffers
// CHECK: te.gemm_buffers layout TN {{.*}} a_emulated(%[[WE]] : tensor<8192xbf16>)
// CHECK: te.gemm_buffers layout TN {{.*}} a_emulated(%[[WE]] : tensor<8192xbf16>)
// CHECK: scf.yield
func.func @fresh_per_iteration(%w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>)
    -> tensor<32x64xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %xq = te.quantize %x : tensor<32x128xbf16> -> !X
  %init = tensor.empty() : tensor<32x64xbf16>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<32x64xbf16> {
    %wq = te.quantize %w : tensor<64x128xbf16> -> !W
    %y0 = te.gemm %wq, %xq layout TN : !W, !X -> tensor<32x64xbf16>
    %y1 = te.gemm %wq, %xq layout TN accumulate(%y0 : tensor<32x64xbf16>) : !W, !X -> tensor<32x64xbf16>
    scf.yield %y1 : tensor<32x64xbf16>
  }
  return %r : tensor<32x64xbf16>
}

// Readers in both branches of an scf.if: one dequantization of each operand
// before the if.
// CHECK-LABEL: func.func @branches(
// CHECK: %[[WE:.*]] = te.emulated_operand_buffers {{.*}} shape [64, 128]
// CHECK: %[[XE:.*]] = te.emulated_operand_buffers {{.*}} shape [32, 128]
// CHECK-NOT: te.emulated_operand_buffers
// CHECK: scf.if
// CHECK: te.gemm_buffers layout TN {{.*}} a_emulated(%[[WE]] : tensor<8192xbf16>)
// CHECK: } else {
// CHECK: te.gemm_buffers layout TN {{.*}} a_emulated(%[[WE]] : tensor<8192xbf16>)
func.func @branches(%c: i1, %w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>)
    -> tensor<32x64xbf16> {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !W
  %xq = te.quantize %x : tensor<32x128xbf16> -> !X
  %r = scf.if %c -> tensor<32x64xbf16> {
    %y = te.gemm %wq, %xq layout TN : !W, !X -> tensor<32x64xbf16>
    scf.yield %y : tensor<32x64xbf16>
  } else {
    %y = te.gemm %wq, %xq layout TN {use_split_accumulator} : !W, !X -> tensor<32x64xbf16>
    scf.yield %y : tensor<32x64xbf16>
  }
  return %r : tensor<32x64xbf16>
}
