// te-deallocate alone (te-pipeline runs it after one-shot-bufferize): a
// straight-line function frees every allocation it does not return, once,
// before the return, in allocation order; a function with control flow goes
// through upstream's deallocation pipeline.
//
// RUN: te-opt %s --split-input-file --te-deallocate | FileCheck %s

// CHECK-LABEL: func.func @straight(
// CHECK: %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[U:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[R:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.copy %[[U]], %[[R]]
// CHECK-NEXT: memref.dealloc %[[T]] : memref<4xf32>
// CHECK-NEXT: memref.dealloc %[[U]] : memref<4xf32>
// CHECK-NEXT: return %[[R]] : memref<4xf32>
func.func @straight(%a: memref<4xf32>) -> memref<4xf32> {
  %t = memref.alloc() : memref<4xf32>
  memref.copy %a, %t : memref<4xf32> to memref<4xf32>
  %u = memref.alloc() : memref<4xf32>
  memref.copy %t, %u : memref<4xf32> to memref<4xf32>
  %r = memref.alloc() : memref<4xf32>
  memref.copy %u, %r : memref<4xf32> to memref<4xf32>
  return %r : memref<4xf32>
}

// -----

// A branch: ownership-based deallocation frees the temporary inside the
// branch that allocated it.
// CHECK-LABEL: func.func @branchy(
// CHECK: scf.if
// CHECK: memref.dealloc
// CHECK-NOT: bufferization.dealloc
func.func @branchy(%a: memref<4xf32>, %c: i1) {
  scf.if %c {
    %t = memref.alloc() : memref<4xf32>
    memref.copy %a, %t : memref<4xf32> to memref<4xf32>
    memref.copy %t, %a : memref<4xf32> to memref<4xf32>
  }
  return
}
