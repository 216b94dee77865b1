// te-expand-integer-powers: math.ipowi becomes exponentiation by squaring,
// one step per exponent bit below the sign bit, on scalars and vectors of
// any width from 2 bits; i1 is left alone. The values are checked against a
// Python oracle by test/Integration/integer-powers.mlir.
//
// RUN: te-opt %s --te-expand-integer-powers | FileCheck %s

// i8: 7 steps (7 products, 6 squares), then the negative-exponent cases.
// CHECK-LABEL: func.func @i8
// CHECK-NOT: math.ipowi
// CHECK-COUNT-13: arith.muli
// CHECK-NOT: arith.muli
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %arg1, %{{.*}} : i8
// CHECK: %[[R:.*]] = arith.select %[[NEG]], %{{.*}}, %{{.*}} : i8
// CHECK: return %[[R]] : i8
func.func @i8(%x: i8, %e: i8) -> i8 {
  %y = math.ipowi %x, %e : i8
  return %y : i8
}

// CHECK-LABEL: func.func @vector
// CHECK-NOT: math.ipowi
// CHECK-COUNT-61: arith.muli {{.*}} : vector<4xi32>
// CHECK-NOT: arith.muli
// CHECK: arith.select {{.*}} : vector<4xi1>, vector<4xi32>
func.func @vector(%x: vector<4xi32>, %e: vector<4xi32>) -> vector<4xi32> {
  %y = math.ipowi %x, %e : vector<4xi32>
  return %y : vector<4xi32>
}

// CHECK-LABEL: func.func @i1
// CHECK: math.ipowi %arg0, %arg1 : i1
func.func @i1(%x: i1, %e: i1) -> i1 {
  %y = math.ipowi %x, %e : i1
  return %y : i1
}
