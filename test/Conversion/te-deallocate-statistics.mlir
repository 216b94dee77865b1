// te-deallocate's statistics (-mlir-pass-statistics): buffers freed directly
// in a straight-line module, upstream's pipeline for any other. Counted only
// where LLVM counts statistics (a build with assertions or
// LLVM_FORCE_ENABLE_STATS: lit feature pass-statistics).
//
// REQUIRES: pass-statistics
// RUN: te-opt %s --split-input-file --te-deallocate -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// Straight-line: the two allocations not returned are freed directly.
// CHECK: TEDeallocate
// CHECK-DAG: (S) 2 buffers-freed - allocations freed directly (straight-line functions)
// CHECK-DAG: (S) 0 upstream-runs - modules given to upstream's deallocation pipeline
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

// A branch: upstream's pipeline, once.
// CHECK: TEDeallocate
// CHECK-DAG: (S) 0 buffers-freed - allocations freed directly (straight-line functions)
// CHECK-DAG: (S) 1 upstream-runs - modules given to upstream's deallocation pipeline
func.func @branchy(%a: memref<4xf32>, %c: i1) {
  scf.if %c {
    %t = memref.alloc() : memref<4xf32>
    memref.copy %a, %t : memref<4xf32> to memref<4xf32>
    memref.copy %t, %a : memref<4xf32> to memref<4xf32>
  }
  return
}
