// RUN: te-opt %s --split-input-file --te-expand-reshapes | FileCheck %s

// te-expand-reshapes: a memref.reshape to a ranked row-major result, its
// shape of static length, as loads of the dynamic sizes and a
// memref.reinterpret_cast (row-major strides, the source's offset: 0 for
// an identity layout).

// CHECK-LABEL: func.func @dynamic_rows
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32>, %[[S:.*]]: memref<2xindex>)
// CHECK: %[[N:.*]] = memref.load %[[S]][%c0] : memref<2xindex>
// CHECK: %[[R:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%[[N]], 4], strides: [4, 1]
// CHECK-NOT: memref.reshape
// CHECK: return %[[R]]
func.func @dynamic_rows(%a: memref<?x?xf32>, %shape: memref<2xindex>) -> memref<?x4xf32> {
  %r = memref.reshape %a(%shape) : (memref<?x?xf32>, memref<2xindex>) -> memref<?x4xf32>
  return %r : memref<?x4xf32>
}

// -----

// i64 sizes are cast; the strides multiply the sizes after each dimension.
// CHECK-LABEL: func.func @all_dynamic
// CHECK-SAME: (%[[A:.*]]: memref<24xf32>, %[[S:.*]]: memref<3xi64>)
// CHECK: %[[S0:.*]] = memref.load %[[S]][%c0]
// CHECK: %[[N0:.*]] = arith.index_cast %[[S0]] : i64 to index
// CHECK: %[[S1:.*]] = memref.load %[[S]][%c1]
// CHECK: %[[N1:.*]] = arith.index_cast %[[S1]] : i64 to index
// CHECK: %[[S2:.*]] = memref.load %[[S]][%c2]
// CHECK: %[[N2:.*]] = arith.index_cast %[[S2]] : i64 to index
// CHECK: %[[T:.*]] = arith.muli %[[N2]], %[[N1]]
// CHECK-NOT: arith.muli
// CHECK: memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%[[N0]], %[[N1]], %[[N2]]], strides: [%[[T]], %[[N2]], 1]
func.func @all_dynamic(%a: memref<24xf32>, %shape: memref<3xi64>) -> memref<?x?x?xf32> {
  %r = memref.reshape %a(%shape) : (memref<24xf32>, memref<3xi64>) -> memref<?x?x?xf32>
  return %r : memref<?x?x?xf32>
}

// -----

// A shape of dynamic length (an unranked result): left as it is.
// CHECK-LABEL: func.func @unranked
// CHECK: memref.reshape
func.func @unranked(%a: memref<?xf32>, %shape: memref<?xindex>) -> memref<*xf32> {
  %r = memref.reshape %a(%shape) : (memref<?xf32>, memref<?xindex>) -> memref<*xf32>
  return %r : memref<*xf32>
}
