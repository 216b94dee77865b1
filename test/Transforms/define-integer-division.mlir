// RUN: te-opt %s --te-define-integer-division | FileCheck %s

// te-define-integer-division: a division or remainder whose divisor may be 0
// (or -1, signed) divides by 1 where its result is defined otherwise, and a
// select gives the defined result for a divisor of 0.

// CHECK-LABEL: func.func @signed
// CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[M1:.*]] = arith.constant -1 : i32
// CHECK-DAG: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[BY0:.*]] = arith.cmpi eq, %[[B]], %[[ZERO]]
// CHECK: %[[AMIN:.*]] = arith.cmpi eq, %[[A]], %[[MIN]]
// CHECK: %[[BM1:.*]] = arith.cmpi eq, %[[B]], %[[M1]]
// CHECK: %[[OVER:.*]] = arith.andi %[[AMIN]], %[[BM1]]
// CHECK: %[[BAD:.*]] = arith.ori %[[BY0]], %[[OVER]]
// CHECK: %[[D:.*]] = arith.select %[[BAD]], %[[ONE]], %[[B]]
// CHECK: %[[Q:.*]] = arith.divsi %[[A]], %[[D]]
// CHECK: %[[R:.*]] = arith.select %[[BY0]], %[[M1]], %[[Q]]
// CHECK: return %[[R]]
func.func @signed(%a: i32, %b: i32) -> i32 {
  %q = arith.divsi %a, %b : i32
  return %q : i32
}

// A remainder by 0 is the dividend; unsigned ops have no overflow case.
// CHECK-LABEL: func.func @remainder
// CHECK-SAME: (%[[A:.*]]: i64, %[[B:.*]]: i64)
// CHECK: %[[BY0:.*]] = arith.cmpi eq, %[[B]]
// CHECK-NOT: arith.andi
// CHECK: %[[D:.*]] = arith.select %[[BY0]], %{{.*}}, %[[B]]
// CHECK: %[[R:.*]] = arith.remui %[[A]], %[[D]]
// CHECK: arith.select %[[BY0]], %[[A]], %[[R]]
func.func @remainder(%a: i64, %b: i64) -> i64 {
  %r = arith.remui %a, %b : i64
  return %r : i64
}

// Index and vector operands; floor / ceil divisions too.
// CHECK-LABEL: func.func @kinds
// CHECK: arith.floordivsi %{{.*}}, %{{.*}} : index
// CHECK: arith.ceildivui %{{.*}}, %{{.*}} : vector<4xi16>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi1>, vector<4xi16>
func.func @kinds(%a: index, %b: index, %v: vector<4xi16>, %w: vector<4xi16>) -> (index, vector<4xi16>) {
  %q = arith.floordivsi %a, %b : index
  %c = arith.ceildivui %v, %w : vector<4xi16>
  return %q, %c : index, vector<4xi16>
}

// A constant divisor other than 0 (and -1, signed) needs nothing; 0 and -1
// do.
// CHECK-LABEL: func.func @constants
// CHECK-NEXT: arith.constant 8 : i32
// CHECK-NEXT: arith.constant -1 : i32
// CHECK-NEXT: arith.divsi
// CHECK-NEXT: arith.remui
// CHECK: arith.cmpi
// CHECK: arith.divsi
func.func @constants(%a: i32) -> (i32, i32, i32) {
  %c8 = arith.constant 8 : i32
  %m1 = arith.constant -1 : i32
  %q = arith.divsi %a, %c8 : i32
  %r = arith.remui %a, %m1 : i32
  %s = arith.divsi %a, %m1 : i32
  return %q, %r, %s : i32, i32, i32
}

// In a linalg body (arithmetic on tensors, after
// convert-elementwise-to-linalg): the same, per element.
// CHECK-LABEL: func.func @elementwise
// CHECK: linalg.generic
// CHECK: arith.cmpi eq
// CHECK: arith.divui
// CHECK: arith.select
// CHECK: linalg.yield
func.func @elementwise(%a: tensor<8xi8>, %b: tensor<8xi8>) -> tensor<8xi8> {
  %e = tensor.empty() : tensor<8xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"]} ins(%a, %b : tensor<8xi8>, tensor<8xi8>) outs(%e : tensor<8xi8>) {
  ^bb0(%x: i8, %y: i8, %o: i8):
    %q = arith.divui %x, %y : i8
    linalg.yield %q : i8
  } -> tensor<8xi8>
  return %r : tensor<8xi8>
}
