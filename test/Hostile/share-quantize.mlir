// RUN: te-opt %s --te-eliminate-aliases | FileCheck %s

// Passes that change a quantized type (a shape made static, a usage added,
// a type as a map key) never build an invalid one: they say why at the op
// that makes the value. Each built the invalid type before (an abort with
// assertions on); found reviewing every QTensorType::get reachable from
// user IR after te-fuzz-mlir found te.linear's (docs/reliability.md).

// te-eliminate-aliases: two quantizations of one f32 tensor with NVFP4 + RHT
// (rowwise only: columnwise needs bf16) share one te.quantize.
// CHECK-LABEL: func.func @shared
// CHECK-COUNT-1: te.quantize
// CHECK-NOT: te.quantize
!r = !te.qtensor<64x128xf32, #te.nvfp4<f4E2M1FN, rht = true>, rowwise>
func.func @shared(%x: tensor<64x128xf32>) -> (!r, !r) {
  %a = te.quantize %x : tensor<64x128xf32> -> !r
  %b = te.quantize %x : tensor<64x128xf32> -> !r
  return %a, %b : !r, !r
}
