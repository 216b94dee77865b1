// te-share-emulated-operands' statistics over share-emulated-operands.mlir:
// five operands shared (microbatches, loop, the NVFP4 weight's two copies,
// dynamic), read by nine GEMM operands. Counted only where LLVM counts
// statistics (lit feature pass-statistics).
//
// REQUIRES: pass-statistics
// RUN: te-opt %S/share-emulated-operands.mlir --te-set-target=target=sm_90 --te-expand-qtensors --canonicalize --te-share-emulated-operands -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// CHECK: Pass statistics report
// CHECK: TEShareEmulatedOperands
// CHECK-DAG: (S) 5 operands-shared
// CHECK-DAG: (S) 9 gemm-operands-given
