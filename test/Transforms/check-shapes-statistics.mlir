// te-check-shapes' and te-lower-checks' statistics (-mlir-pass-statistics).
// Counted only where LLVM counts statistics (a build with assertions or
// LLVM_FORCE_ENABLE_STATS: lit feature pass-statistics).
//
// REQUIRES: pass-statistics
// RUN: te-opt %s --te-check-shapes --convert-scf-to-cf --te-lower-checks -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// The matmul's k and its output's two sizes, the add's two sizes (%a's
// against %c's): five checks on two ops (on memrefs, as after
// bufferization); the caller asks the status after calling the checked
// function.
// CHECK: Pass statistics report
// CHECK: TECheckShapes
// CHECK-DAG: (S) 5 checks - te.check_size ops placed
// CHECK-DAG: (S) 2 ops-checked - ops with at least one run-time check
// CHECK: TELowerChecks
// CHECK-DAG: (S) 5 checks-lowered - te.check_size and cf.assert ops lowered
// CHECK-DAG: (S) 1 calls-checked - calls of functions that may fail followed by a status check

func.func @f(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  linalg.add ins(%c, %a : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

func.func @g(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  func.call @f(%a, %b, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}
