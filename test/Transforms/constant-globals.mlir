// RUN: te-opt %s --split-input-file --te-constant-globals | FileCheck %s
// RUN: te-opt %s --split-input-file --te-constant-globals=alignment=16 | FileCheck %s --check-prefix=ALIGN16
//
// one-shot-bufferize then creates no global of its own: each constant reads
// the global made here.
// RUN: te-opt %s --split-input-file --te-constant-globals --one-shot-bufferize=bufferize-function-boundaries | FileCheck %s --check-prefix=OSB

// Functions that do not call each other: globals in the order of a walk of
// the module (each new one at the top, so they read in reverse), names
// uniqued in that order; a value seen before shares its global; scalar
// constants get none. The constants stay.
// CHECK-LABEL: module {
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<[5.000000e+00, 6.000000e+00]> {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" constant @__constant_3xi32 : memref<3xi32> = dense<[1, 2, 3]> {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[3.000000e+00, 4.000000e+00]> {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]> {alignment = 64 : i64}
// CHECK-NEXT: func.func @a(
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-LABEL: func.func @b(
// CHECK-LABEL: func.func @c(
// CHECK-NOT: memref.global
// ALIGN16: memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<[5.000000e+00, 6.000000e+00]> {alignment = 16 : i64}

// OSB-LABEL: module {
// OSB-COUNT-4: memref.global "private" constant
// OSB-NOT: memref.global
// OSB-LABEL: func.func @a(
// OSB: memref.get_global @__constant_2xf32 : memref<2xf32>
// OSB-LABEL: func.func @b(
// OSB: memref.get_global @__constant_2xf32_0 : memref<2xf32>
// OSB: memref.get_global @__constant_3xi32 : memref<3xi32>
// OSB-LABEL: func.func @c(
// OSB: memref.get_global @__constant_2xf32_1 : memref<2xf32>
// OSB: memref.get_global @__constant_2xf32 : memref<2xf32>
func.func @a(%i: index) -> f32 {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %e = tensor.extract %c[%i] : tensor<2xf32>
  return %e : f32
}
func.func @b(%i: index) -> (f32, i32) {
  %c = arith.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %n = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %e = tensor.extract %c[%i] : tensor<2xf32>
  %m = tensor.extract %n[%i] : tensor<3xi32>
  return %e, %m : f32, i32
}
func.func @c(%i: index) -> (f32, f32) {
  %one = arith.constant 1.0 : f32
  %c = arith.constant dense<[5.0, 6.0]> : tensor<2xf32>
  %d = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %e = tensor.extract %c[%i] : tensor<2xf32>
  %f = tensor.extract %d[%i] : tensor<2xf32>
  %g = arith.addf %f, %one : f32
  return %e, %g : f32, f32
}

// -----

// A global the module has, of the same value and alignment, serves the
// constant; one of another alignment does not, and its name is taken.
// CHECK-LABEL: module {
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]> {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]> {alignment = 8 : i64}
// CHECK-NEXT: memref.global "private" constant @mine : memref<4xf32> = dense<0.000000e+00> {alignment = 64 : i64}
// CHECK-NEXT: func.func @f(
// OSB-LABEL: func.func @f(
// OSB: memref.get_global @mine : memref<4xf32>
// OSB: memref.get_global @__constant_2xf32_0 : memref<2xf32>
memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.0, 2.0]> {alignment = 8 : i64}
memref.global "private" constant @mine : memref<4xf32> = dense<0.0> {alignment = 64 : i64}
func.func @f(%i: index) -> (f32, f32) {
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %e = tensor.extract %z[%i] : tensor<4xf32>
  %f = tensor.extract %c[%i] : tensor<2xf32>
  return %e, %f : f32, f32
}
