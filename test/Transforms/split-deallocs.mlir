// RUN: te-opt %s --te-split-deallocs --split-input-file --allow-unregistered-dialect | FileCheck %s
// Oracle: on the same input, te-split-deallocs followed by upstream's
// simplification and lowering frees exactly what upstream alone frees.
// RUN: te-opt %s --split-input-file --allow-unregistered-dialect --buffer-deallocation-simplification --bufferization-lower-deallocations | FileCheck %s --check-prefix=FREED
// RUN: te-opt %s --split-input-file --allow-unregistered-dialect --te-split-deallocs --buffer-deallocation-simplification --bufferization-lower-deallocations | FileCheck %s --check-prefix=FREED

// The shape ownership-based-buffer-deallocation gives a straight-line
// function: one dealloc of every buffer at the end, retaining the results.
// Each allocation gets a dealloc of its own; the returned one is not freed
// and its updated condition is its own condition.

// CHECK-LABEL: func.func @straight_line
// CHECK-SAME: (%[[ARG:.*]]: memref<4xf32>, %[[C0:.*]]: i1, %[[C1:.*]]: i1, %[[C2:.*]]: i1)
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[R:.*]] = memref.alloc() : memref<2xf32>
// CHECK: bufferization.dealloc (%[[A]] : memref<4xf32>) if (%[[C0]]){{$}}
// CHECK-NEXT: bufferization.dealloc (%[[B]] : memref<8xf32>) if (%[[C1]]){{$}}
// CHECK-NEXT: %[[FALSE:.*]] = arith.constant false
// CHECK-NOT: bufferization.dealloc
// CHECK: "test.use"(%[[C2]], %[[FALSE]])
// CHECK: return %[[R]], %[[ARG]]
// FREED-LABEL: func.func @straight_line
// FREED-DAG: %[[A:.*]] = memref.alloc() : memref<4xf32>
// FREED-DAG: %[[B:.*]] = memref.alloc() : memref<8xf32>
// FREED: scf.if %{{.*}} {
// FREED-NEXT: memref.dealloc %[[A]] :
// FREED: scf.if %{{.*}} {
// FREED-NEXT: memref.dealloc %[[B]] :
// FREED-NOT: memref.dealloc
// FREED: return
func.func @straight_line(%arg: memref<4xf32>, %c0: i1, %c1: i1, %c2: i1)
    -> (memref<2xf32>, memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  %r = memref.alloc() : memref<2xf32>
  "test.write"(%a, %b, %r) : (memref<4xf32>, memref<8xf32>, memref<2xf32>) -> ()
  %u:2 = bufferization.dealloc (%a, %b, %r : memref<4xf32>, memref<8xf32>, memref<2xf32>)
      if (%c0, %c1, %c2) retain (%r, %arg : memref<2xf32>, memref<4xf32>)
  "test.use"(%u#0, %u#1) : (i1, i1) -> ()
  return %r, %arg : memref<2xf32>, memref<4xf32>
}

// -----

// A retained view of an allocation: the allocation is not freed; both
// retained values that alias it take its condition.

// CHECK-LABEL: func.func @retained_view
// CHECK-SAME: (%[[C0:.*]]: i1, %[[C1:.*]]: i1)
// CHECK: %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK: bufferization.dealloc (%[[B]] : memref<8xf32>) if (%[[C1]]){{$}}
// CHECK-NOT: bufferization.dealloc
// CHECK: "test.use"(%[[C0]], %[[C0]])
// FREED-LABEL: func.func @retained_view
// FREED: %[[A:.*]] = memref.alloc() : memref<8xf32>
// FREED: %[[B:.*]] = memref.alloc() : memref<8xf32>
// FREED-NOT: memref.dealloc %[[A]] :
// FREED: memref.dealloc %[[B]] :
// FREED-NOT: memref.dealloc
// FREED: return
func.func @retained_view(%c0: i1, %c1: i1) -> (memref<4xf32, strided<[1], offset: 2>>, memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  %v = memref.subview %a[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  "test.write"(%a, %b) : (memref<8xf32>, memref<8xf32>) -> ()
  %u:2 = bufferization.dealloc (%a, %b : memref<8xf32>, memref<8xf32>) if (%c0, %c1)
      retain (%v, %a : memref<4xf32, strided<[1], offset: 2>>, memref<8xf32>)
  "test.use"(%u#0, %u#1) : (i1, i1) -> ()
  return %v, %a : memref<4xf32, strided<[1], offset: 2>>, memref<8xf32>
}

// -----

// An allocation listed together with a view of it stays with the view in
// one dealloc that keeps every retained value; the others are split off.
// The rest's updated condition is OR-ed with the split-off ones'.

// CHECK-LABEL: func.func @memref_and_its_view
// CHECK-SAME: (%[[C0:.*]]: i1, %[[C1:.*]]: i1, %[[C2:.*]]: i1, %[[C3:.*]]: i1)
// CHECK: %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[R:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[V:.*]] = memref.subview %[[A]]
// CHECK: bufferization.dealloc (%[[B]] : memref<8xf32>) if (%[[C2]]){{$}}
// CHECK-NEXT: %[[REST:.*]] = bufferization.dealloc (%[[A]], %[[V]] : {{.*}}) if (%[[C0]], %[[C1]]) retain (%[[R]] : memref<8xf32>)
// CHECK-NEXT: %[[OR:.*]] = arith.ori %[[REST]], %[[C3]] : i1
// CHECK: "test.use"(%[[OR]])
// FREED-LABEL: func.func @memref_and_its_view
// FREED: %[[A:.*]] = memref.alloc() : memref<8xf32>
// FREED: %[[B:.*]] = memref.alloc() : memref<8xf32>
// FREED: %[[R:.*]] = memref.alloc() : memref<8xf32>
// FREED-NOT: memref.dealloc %[[R]] :
// FREED-DAG: memref.dealloc %[[B]] :
// FREED-DAG: memref.dealloc %[[A]] :
// FREED-NOT: memref.dealloc %[[R]] :
// FREED: return
func.func @memref_and_its_view(%c0: i1, %c1: i1, %c2: i1, %c3: i1) -> memref<8xf32> {
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  %r = memref.alloc() : memref<8xf32>
  %v = memref.subview %a[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  "test.write"(%a, %b, %r) : (memref<8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  %u = bufferization.dealloc (%a, %v, %b, %r : memref<8xf32>, memref<4xf32, strided<[1], offset: 2>>, memref<8xf32>, memref<8xf32>)
      if (%c0, %c1, %c2, %c3) retain (%r : memref<8xf32>)
  "test.use"(%u) : (i1) -> ()
  return %r : memref<8xf32>
}

// -----

// A retained value of unknown origin (a call result may be any buffer):
// the dealloc is left for buffer-deallocation-simplification.

func.func private @make() -> memref<8xf32>

// CHECK-LABEL: func.func @unknown_retained
// CHECK: %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[M:.*]] = call @make()
// CHECK: bufferization.dealloc (%[[A]], %[[B]] : memref<8xf32>, memref<8xf32>) if (%{{.*}}, %{{.*}}) retain (%[[M]] : memref<8xf32>)
// CHECK-NOT: bufferization.dealloc
func.func @unknown_retained(%c0: i1, %c1: i1) -> memref<8xf32> {
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  %m = call @make() : () -> memref<8xf32>
  %u = bufferization.dealloc (%a, %b : memref<8xf32>, memref<8xf32>) if (%c0, %c1)
      retain (%m : memref<8xf32>)
  "test.use"(%u) : (i1) -> ()
  return %m : memref<8xf32>
}

// -----

// A memref of unknown origin in the list (it may be one of the
// allocations): left alone.

// CHECK-LABEL: func.func @unknown_memref
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<8xf32>, memref<8xf32>) if (%{{.*}}, %{{.*}}){{$}}
// CHECK-NOT: bufferization.dealloc
func.func @unknown_memref(%c0: i1, %c1: i1) {
  %a = memref.alloc() : memref<8xf32>
  %m = call @make() : () -> memref<8xf32>
  bufferization.dealloc (%a, %m : memref<8xf32>, memref<8xf32>) if (%c0, %c1)
  return
}
func.func private @make() -> memref<8xf32>

// -----

// A block argument of a nested region is of unknown origin too.

// CHECK-LABEL: func.func @region_argument
// CHECK: scf.for
// CHECK: bufferization.dealloc (%{{.*}} : memref<8xf32>) if (%{{.*}}) retain (%{{.*}} : memref<8xf32>)
func.func @region_argument(%init: memref<8xf32>, %lb: index, %ub: index, %step: index, %c: i1) -> memref<8xf32> {
  %r = scf.for %i = %lb to %ub step %step iter_args(%it = %init) -> memref<8xf32> {
    %a = memref.alloc() : memref<8xf32>
    %u = bufferization.dealloc (%a : memref<8xf32>) if (%c) retain (%it : memref<8xf32>)
    "test.use"(%u) : (i1) -> ()
    scf.yield %it : memref<8xf32>
  }
  return %r : memref<8xf32>
}
