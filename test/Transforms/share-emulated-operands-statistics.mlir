// te-share-emulated-operands' statistics over share-emulated-operands.mlir:
// nine operands shared (microbatches, loop, the NVFP4 weight's two copies,
// dynamic, the fresh weight and the input of fresh_per_iteration, both
// operands of branches), read by seventeen GEMM operands. Counted only where LLVM counts
// statistics (lit feature pass-statistics).
//
// REQUIRES: pass-statistics
// RUN: te-opt %S/share-emulated-operands.mlir --te-set-target=target=sm_90 --te-expand-qtensors --canonicalize --te-share-emulated-operands -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// CHECK: Pass statistics report
// CHECK: TEShareEmulatedOperands
// CHECK-DAG: (S) 9 operands-shared
// CHECK-DAG: (S) 17 gemm-operands-given
