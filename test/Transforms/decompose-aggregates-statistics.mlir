// te-decompose-aggregates' statistics (-mlir-pass-statistics). Counted only
// where LLVM counts statistics (a build with assertions or
// LLVM_FORCE_ENABLE_STATS: lit feature pass-statistics).
//
// REQUIRES: pass-statistics
// RUN: te-opt %s --te-decompose-aggregates -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// Three softmax ops decomposed, one of them (bf16) computed in f32.
// CHECK: Pass statistics report
// CHECK: TEDecomposeAggregates
// CHECK-DAG: (S) 3 ops-decomposed - aggregated ops replaced by their decomposition
// CHECK-DAG: (S) 1 softmax-in-f32 - linalg.softmax ops of a narrower float type computed in f32

func.func @three(%x: tensor<4x8xf32>, %b: tensor<4x8xbf16>, %d: tensor<?x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xbf16>, tensor<?x8xf32>) {
  %y = linalg.softmax dimension(0) ins(%x : tensor<4x8xf32>) outs(%x : tensor<4x8xf32>) -> tensor<4x8xf32>
  %z = linalg.softmax dimension(1) ins(%b : tensor<4x8xbf16>) outs(%b : tensor<4x8xbf16>) -> tensor<4x8xbf16>
  %w = linalg.softmax dimension(1) ins(%d : tensor<?x8xf32>) outs(%d : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y, %z, %w : tensor<4x8xf32>, tensor<4x8xbf16>, tensor<?x8xf32>
}
