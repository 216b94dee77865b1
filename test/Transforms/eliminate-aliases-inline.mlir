// RUN: te-opt %s --inline --te-eliminate-aliases | FileCheck %s
// RUN: te-opt %s --te-eliminate-aliases | FileCheck %s --check-prefix=NOINLINE

// Sharing is scoped to one function body: a forward and a backward function
// that each quantize the weight (the backward re-quantizing it, as TE does
// when it does not save the quantized weight, e.g. under FSDP2) share one
// quantization once inlined into the training step -- with the union of the
// usages: rowwise for fprop (TN), columnwise for dgrad (NN).


func.func private @forward(%w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>) -> tensor<32x64xbf16> {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
  %xq = te.quantize %x : tensor<32x128xbf16> -> !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xbf16>
  return %y : tensor<32x64xbf16>
}
func.func private @backward(%w: tensor<64x128xbf16>, %dy: tensor<32x64xbf16>) -> tensor<32x128xbf16> {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, columnwise>
  %dyq = te.quantize %dy : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.current<f8E5M2>, rowwise>
  %dx = te.gemm %wq, %dyq layout NN {use_split_accumulator}
      : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, columnwise>,
        !te.qtensor<32x64xbf16, #te.current<f8E5M2>, rowwise> -> tensor<32x128xbf16>
  return %dx : tensor<32x128xbf16>
}

// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[W:[^:]*]]: tensor<64x128xbf16>
// CHECK: %[[Q:.*]] = te.quantize %[[W]] : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-NOT: te.quantize %[[W]]
// CHECK: te.gemm {{.*}} layout TN
// CHECK: te.gemm {{.*}} layout NN
// NOINLINE-LABEL: func.func private @forward
// NOINLINE: te.quantize %arg0 : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
// NOINLINE-LABEL: func.func private @backward
// NOINLINE: te.quantize %arg0 : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, columnwise>
func.func @step(%w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>) -> tensor<32x128xbf16> {
  %y = call @forward(%w, %x) : (tensor<64x128xbf16>, tensor<32x128xbf16>) -> tensor<32x64xbf16>
  %dx = call @backward(%w, %y) : (tensor<64x128xbf16>, tensor<32x64xbf16>) -> tensor<32x128xbf16>
  return %dx : tensor<32x128xbf16>
}
