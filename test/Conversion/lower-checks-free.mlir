// RUN: te-opt %s --split-input-file --te-lower-checks | FileCheck %s

// te-lower-checks frees, on the way out of a failed check, the buffers the
// function allocated before it: those allocated on every path to the check
// (a memref.alloc, an aligned_alloc pointer, a memref a callee returned and
// this function frees) and freed on none yet. Without it, every failing
// call leaked them (300 failing calls from Python: +1.26 GB).

// A buffer allocated before the check and returned after it: freed on the
// failure path; one allocated after the check is not.
// CHECK-LABEL: func.func @returned
// CHECK: %[[A:.*]] = memref.alloc(
// CHECK: cf.cond_br %{{.*}}, ^[[CONT:[a-z0-9]+]], ^[[REPORT:[a-z0-9]+]]
// CHECK: ^[[CONT]]:
// CHECK: memref.alloc(
// CHECK: ^[[REPORT]]:
// CHECK-NEXT: memref.dealloc %[[A]] : memref<?xf32>
// CHECK-NOT: memref.dealloc
// CHECK: call @te_rt_mlir_check_failed
func.func @returned(%a: memref<?xf32>, %n: index) -> (memref<?xf32>, memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %a, %c0 : memref<?xf32>
  %b = memref.alloc(%d) : memref<?xf32>
  te.check_size %d eq %n, "dimension 0 of %a"
  %c = memref.alloc(%n) : memref<?xf32>
  return %b, %c : memref<?xf32>, memref<?xf32>
}

// -----

// A buffer freed before the check is not freed again; one freed after it
// (through a view) is.
// CHECK-LABEL: func.func @freed
// CHECK: %[[A:.*]] = memref.alloc(
// CHECK: %[[B:.*]] = memref.alloc(
// CHECK: memref.dealloc %[[A]]
// CHECK: cf.cond_br %{{.*}}, ^{{.*}}, ^[[REPORT:[a-z0-9]+]]
// CHECK: ^[[REPORT]]:
// CHECK-NEXT: memref.dealloc %[[B]] : memref<?xf32>
// CHECK-NOT: memref.dealloc
// CHECK: call @te_rt_mlir_check_failed
func.func @freed(%a: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %d = memref.dim %a, %c0 : memref<?xf32>
  %x = memref.alloc(%d) : memref<?xf32>
  %y = memref.alloc(%d) : memref<?xf32>
  memref.dealloc %x : memref<?xf32>
  te.check_size %d eq %n, "dimension 0 of %a"
  %v = memref.load %y[%c0] : memref<?xf32>
  %s = memref.subview %y[0] [%n] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  %base, %off, %size, %stride = memref.extract_strided_metadata %s : memref<?xf32, strided<[1]>> -> memref<f32>, index, index, index
  memref.dealloc %base : memref<f32>
  return %v : f32
}

// -----

// A buffer freed under another name (it flows into a block argument that
// a release frees) is left alone rather than freed twice; so is one freed
// in a loop that the check is in (the release reaches the check again).
// CHECK-LABEL: func.func @aliased
// CHECK: cf.cond_br %{{.*}}, ^{{.*}}, ^[[REPORT:bb[0-9]+]]
// CHECK: ^[[REPORT]]:
// CHECK-NEXT: llvm.mlir.addressof
func.func @aliased(%a: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %d = memref.dim %a, %c0 : memref<?xf32>
  %x = memref.alloc(%d) : memref<?xf32>
  cf.br ^bb1(%x : memref<?xf32>)
^bb1(%y: memref<?xf32>):
  te.check_size %d eq %n, "dimension 0 of %a"
  %v = memref.load %y[%c0] : memref<?xf32>
  memref.dealloc %y : memref<?xf32>
  return %v : f32
}

// -----

// CHECK-LABEL: func.func @loop
// CHECK: cf.cond_br %{{.*}}, ^{{.*}}, ^[[REPORT:bb[0-9]+]]
// CHECK: ^[[REPORT]]:
// CHECK-NEXT: llvm.mlir.addressof
func.func @loop(%a: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = memref.dim %a, %c0 : memref<?xf32>
  %x = memref.alloc(%d) : memref<?xf32>
  cf.br ^bb1(%c0 : index)
^bb1(%i: index):
  te.check_size %d eq %n, "dimension 0 of %a"
  %v = memref.load %x[%c0] : memref<?xf32>
  memref.dealloc %x : memref<?xf32>
  %j = arith.addi %i, %c1 : index
  %more = arith.cmpi slt, %j, %n : index
  cf.cond_br %more, ^bb1(%j : index), ^bb2
^bb2:
  return %v : f32
}

// -----

// A pointer from aligned_alloc (a buffer only the runtime sees) is freed
// with the call that frees it after the check; a memref a callee returned
// and this function frees is freed after a failed call.
// CHECK-LABEL: func.func @pointers
// CHECK: %[[P:.*]] = llvm.call @aligned_alloc(
// CHECK: %[[M:.*]] = call @make(
// CHECK: llvm.call @te_rt_mlir_status
// CHECK: cf.cond_br %{{.*}}, ^[[CONT:[a-z0-9]+]], ^[[OUT:[a-z0-9]+]]
// CHECK: ^[[CONT]]:
// CHECK: cf.cond_br %{{.*}}, ^{{.*}}, ^[[REPORT:[a-z0-9]+]]
// CHECK: ^[[OUT]]:
// CHECK-NEXT: llvm.call @free(%[[P]])
// CHECK-NEXT: cf.br
// CHECK: ^[[REPORT]]:
// CHECK-DAG: llvm.call @free(%[[P]])
// CHECK-DAG: memref.dealloc %[[M]]
// CHECK: call @te_rt_mlir_check_failed
llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr
llvm.func @free(!llvm.ptr)
func.func @make(%n: index) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  te.check_size %n ge %c0, "n"
  %m = memref.alloc(%n) : memref<?xf32>
  return %m : memref<?xf32>
}
func.func @pointers(%n: index) -> f32 {
  %c16 = llvm.mlir.constant(16 : i64) : i64
  %c64 = llvm.mlir.constant(64 : i64) : i64
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %p = llvm.call @aligned_alloc(%c16, %c64) : (i64, i64) -> !llvm.ptr
  %m = call @make(%n) : (index) -> memref<?xf32>
  te.check_size %n eq %c4, "n is 4"
  %v = memref.load %m[%c0] : memref<?xf32>
  llvm.call @free(%p) : (!llvm.ptr) -> ()
  memref.dealloc %m : memref<?xf32>
  return %v : f32
}
