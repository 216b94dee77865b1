// RUN: te-opt %s --te-infer-shapes --te-infer-usages --te-expand-qtensors --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s

// A dynamic-batch training step (fprop, dgrad, wgrad with MXFP8) that a
// caller fixes to batch 64: te-infer-shapes makes every quantized value
// static, te-infer-usages keeps what each GEMM reads, te-expand-qtensors
// spells the values out as buffers and one-shot bufferization allocates
// them. Buffers by hand (docs/formats.md §3.3), X = dY rows = 64:
//   X 64x128 rowwise|columnwise: 64x128, (rup(64,128), rup(128/32,4)) = 128x4,
//     64x128, (rup(64/32,4), rup(128,128)) = 4x128;
//   W 32x128 rowwise|columnwise: 32x128, 128x4, 32x128, (rup(32/32,4), 128) = 4x128;
//   dY 64x32 rowwise|columnwise: 64x32, (128, rup(32/32,4)) = 128x4, 64x32,
//     (rup(64/32,4), rup(32,128)) = 4x128.

// CHECK-NOT: !te.qtensor
// CHECK-LABEL: func.func private @step
// CHECK-SAME: memref<64x128xbf16
// CHECK: memref.alloc() {{.*}} : memref<64x128xf8E4M3FN>
// CHECK: memref.alloc() {{.*}} : memref<128x4xf8E8M0FNU>
// CHECK: memref.alloc() {{.*}} : memref<64x128xf8E4M3FN>
// CHECK: memref.alloc() {{.*}} : memref<4x128xf8E8M0FNU>
// CHECK: te.quantize_buffers {{.*}} quantizer #te.mxfp8<f8E4M3FN> usage rowwise|columnwise
// CHECK: te.quantize_buffers {{.*}} quantizer #te.mxfp8<f8E4M3FN> usage rowwise|columnwise
// CHECK-SAME: memref<32x128xf8E4M3FN>, memref<128x4xf8E8M0FNU>, memref<32x128xf8E4M3FN>, memref<4x128xf8E8M0FNU>
// CHECK: te.quantize_buffers {{.*}} quantizer #te.mxfp8<f8E5M2> usage rowwise|columnwise
// CHECK-SAME: memref<64x32xf8E5M2>, memref<128x4xf8E8M0FNU>, memref<64x32xf8E5M2>, memref<4x128xf8E8M0FNU>
// CHECK: te.gemm_buffers layout TN {{.*}} shape [32, 128] {{.*}} shape [64, 128] outs(%{{.*}} : memref<64x32xbf16>)
// CHECK: te.gemm_buffers layout NN {{.*}} shape [32, 128] {{.*}} shape [64, 32] outs(%{{.*}} : memref<64x128xbf16>)
// CHECK: te.gemm_buffers layout NT {{.*}} shape [64, 128] {{.*}} shape [64, 32] outs(%{{.*}} : memref<32x128xbf16>)
!x = !te.qtensor<?x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
!w = !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
!dy = !te.qtensor<?x32xbf16, #te.mxfp8<f8E5M2>, rowwise|columnwise>
func.func private @step(%x: tensor<?x128xbf16>, %w: tensor<32x128xbf16>, %dy: tensor<?x32xbf16>)
    -> (tensor<?x32xbf16>, tensor<?x128xbf16>, tensor<32x128xbf16>) {
  %qx = te.quantize %x : tensor<?x128xbf16> -> !x
  %qw = te.quantize %w : tensor<32x128xbf16> -> !w
  %qdy = te.quantize %dy : tensor<?x32xbf16> -> !dy
  %y = te.gemm %qw, %qx layout TN : !w, !x -> tensor<?x32xbf16>
  %dx = te.gemm %qw, %qdy layout NN : !w, !dy -> tensor<?x128xbf16>
  %dw = te.gemm %qx, %qdy layout NT : !x, !dy -> tensor<32x128xbf16>
  return %y, %dx, %dw : tensor<?x32xbf16>, tensor<?x128xbf16>, tensor<32x128xbf16>
}

// CHECK-LABEL: func.func @main
// CHECK: call @step({{.*}}) : (memref<64x128xbf16{{.*}}>, memref<32x128xbf16{{.*}}>, memref<64x32xbf16{{.*}}>) -> (memref<64x32xbf16{{.*}}>, memref<64x128xbf16{{.*}}>, memref<32x128xbf16{{.*}}>)
func.func @main(%x: tensor<64x128xbf16>, %w: tensor<32x128xbf16>, %dy: tensor<64x32xbf16>)
    -> (tensor<?x32xbf16>, tensor<?x128xbf16>, tensor<32x128xbf16>) {
  %cx = tensor.cast %x : tensor<64x128xbf16> to tensor<?x128xbf16>
  %cdy = tensor.cast %dy : tensor<64x32xbf16> to tensor<?x32xbf16>
  %y, %dx, %dw = call @step(%cx, %w, %cdy) : (tensor<?x128xbf16>, tensor<32x128xbf16>, tensor<?x32xbf16>)
      -> (tensor<?x32xbf16>, tensor<?x128xbf16>, tensor<32x128xbf16>)
  return %y, %dx, %dw : tensor<?x32xbf16>, tensor<?x128xbf16>, tensor<32x128xbf16>
}
