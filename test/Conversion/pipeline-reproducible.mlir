// te-pipeline's output depends on the program only: compiled five times, a
// module of functions that do not call each other, each with tensor
// constants of the same types (delayed scaling's amax history and scale,
// as in test/Integration/delayed-scaling.mlir), gives the same text on both
// kinds of target. One-shot-bufferize takes such functions in an order that
// changes from run to run and would create the constants' globals in that
// order; te-constant-globals creates them before it, in program order, so
// their order and names are the same every time.
//
// RUN: te-opt %s --te-pipeline="target=cpu" -o %t.cpu.1
// RUN: te-opt %s --te-pipeline="target=cpu" -o %t.cpu.2
// RUN: te-opt %s --te-pipeline="target=cpu" -o %t.cpu.3
// RUN: te-opt %s --te-pipeline="target=cpu" -o %t.cpu.4
// RUN: te-opt %s --te-pipeline="target=cpu" -o %t.cpu.5
// RUN: cmp %t.cpu.1 %t.cpu.2
// RUN: cmp %t.cpu.1 %t.cpu.3
// RUN: cmp %t.cpu.1 %t.cpu.4
// RUN: cmp %t.cpu.1 %t.cpu.5
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" -o %t.gpu.1
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" -o %t.gpu.2
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" -o %t.gpu.3
// RUN: cmp %t.gpu.1 %t.gpu.2
// RUN: cmp %t.gpu.1 %t.gpu.3
//
// The globals: created in program order (@s0's first; one per value, a
// constant seen before shares its global), each new one at the top of the
// module, names uniqued in that order.
// RUN: FileCheck %s < %t.cpu.1
// CHECK: llvm.mlir.global private constant @__constant_2x2xf32_8(dense<{{\[\[}}1.000000e+00, 3.500000e+00], [-2.000000e+00, 2.500000e-01]]>
// CHECK-NEXT: llvm.mlir.global private constant @__constant_4xf32_7(dense<[4.000000e+00,
// CHECK-NEXT: llvm.mlir.global private constant @__constant_1xf32_6(dense<5.000000e-01>
// CHECK-NEXT: llvm.mlir.global private constant @__constant_2x2xf32(dense<{{\[\[}}1.000000e+00, -3.500000e+00], [2.000000e+00, 2.500000e-01]]>
// CHECK-NEXT: llvm.mlir.global private constant @__constant_4xf32_5(dense<[8.000000e+00,
// CHECK-NEXT: llvm.mlir.global private constant @__constant_4xf32_4(dense<[7.000000e+00,
// CHECK-NEXT: llvm.mlir.global private constant @__constant_1xf32_3(dense<1.250000e-01>
// CHECK-NEXT: llvm.mlir.global private constant @__constant_4xf32_2(dense<[6.000000e+00,
// CHECK-NEXT: llvm.mlir.global private constant @__constant_4xf32_1(dense<[5.000000e+00,
// CHECK-NEXT: llvm.mlir.global private constant @__constant_1xf32_0(dense<2.500000e-01>
// CHECK-NEXT: llvm.mlir.global private constant @__constant_1xf32(dense<3.500000e+00>
// CHECK-NEXT: llvm.mlir.global private constant @__constant_4xf32(dense<[9.000000e+00,
// CHECK-NOT: llvm.mlir.global private constant @__constant_
// CHECK-LABEL: llvm.func @s0()
// CHECK: llvm.mlir.addressof @__constant_4xf32 :
// CHECK: llvm.mlir.addressof @__constant_1xf32 :
// CHECK: llvm.mlir.addressof @__constant_1xf32_0 :
// CHECK-LABEL: llvm.func @s5()
// CHECK: llvm.mlir.addressof @__constant_4xf32_7 :
// CHECK: llvm.mlir.addressof @__constant_2x2xf32_8 :
// CHECK: llvm.mlir.addressof @__constant_1xf32_0 :

func.func @s0() -> f32 {
  %c0 = arith.constant 0 : index
  %h = arith.constant dense<[9.0, 2.0, 2.0, 1.0]> : tensor<4xf32>
  %a = arith.constant dense<3.5> : tensor<1xf32>
  %s = arith.constant dense<0.25> : tensor<1xf32>
  %h1, %s1 = te.update_scale %a, %h, %s
      {quantizer = #te.delayed<f8E4M3FN, history = 4>} : tensor<4xf32>
  %v = tensor.extract %s1[%c0] : tensor<1xf32>
  return %v : f32
}

func.func @s1() -> f32 {
  %c0 = arith.constant 0 : index
  %h = arith.constant dense<[5.0, 2.0, 2.0, 1.0]> : tensor<4xf32>
  %a = arith.constant dense<3.5> : tensor<1xf32>
  %s = arith.constant dense<0.25> : tensor<1xf32>
  %h1, %s1 = te.update_scale %a, %h, %s
      {quantizer = #te.delayed<f8E5M2, margin = 1, history = 4, algo = most_recent>} : tensor<4xf32>
  %v = tensor.extract %s1[%c0] : tensor<1xf32>
  return %v : f32
}

func.func @s2() -> f32 {
  %c0 = arith.constant 0 : index
  %h = arith.constant dense<[6.0, 2.0, 2.0, 1.0]> : tensor<4xf32>
  %a = arith.constant dense<0.125> : tensor<1xf32>
  %h1, %s1 = te.update_scale %a, %h, %a
      {quantizer = #te.delayed<f8E4M3FN, history = 4>} : tensor<4xf32>
  %v = tensor.extract %h1[%c0] : tensor<4xf32>
  return %v : f32
}

func.func @s3() -> f32 {
  %c0 = arith.constant 0 : index
  %h = arith.constant dense<[7.0, 2.0, 2.0, 1.0]> : tensor<4xf32>
  %a = arith.constant dense<3.5> : tensor<1xf32>
  %s = arith.constant dense<0.25> : tensor<1xf32>
  %h1, %s1 = te.update_scale %a, %h, %s
      {quantizer = #te.delayed<f8E4M3FN, history = 4, algo = most_recent>} : tensor<4xf32>
  %v = tensor.extract %s1[%c0] : tensor<1xf32>
  return %v : f32
}

func.func @s4() -> f32 {
  %c0 = arith.constant 0 : index
  %h = arith.constant dense<[8.0, 2.0, 2.0, 1.0]> : tensor<4xf32>
  %x = arith.constant dense<[[1.0, -3.5], [2.0, 0.25]]> : tensor<2x2xf32>
  %s = arith.constant dense<0.5> : tensor<1xf32>
  %a = te.amax %x : tensor<2x2xf32>
  %h1, %s1 = te.update_scale %a, %h, %s
      {quantizer = #te.delayed<f8E4M3FN, history = 4>} : tensor<4xf32>
  %v = tensor.extract %s1[%c0] : tensor<1xf32>
  return %v : f32
}

func.func @s5() -> f32 {
  %c0 = arith.constant 0 : index
  %h = arith.constant dense<[4.0, 2.0, 2.0, 1.0]> : tensor<4xf32>
  %x = arith.constant dense<[[1.0, 3.5], [-2.0, 0.25]]> : tensor<2x2xf32>
  %s = arith.constant dense<0.25> : tensor<1xf32>
  %a = te.amax %x : tensor<2x2xf32>
  %h1, %s1 = te.update_scale %a, %h, %s
      {quantizer = #te.delayed<f8E5M2, history = 4>} : tensor<4xf32>
  %v = tensor.extract %s1[%c0] : tensor<1xf32>
  return %v : f32
}
