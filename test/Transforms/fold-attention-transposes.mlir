// te-fold-attention-transposes: transposing copies into and out of attention
// operands become memref.transpose views; copies it cannot prove safe stay.
// RUN: te-opt %s --te-fold-attention-transposes --split-input-file | FileCheck %s

// The head split [B, S, H, D] -> [B, H, S, D] of q, k and v (two as
// linalg.transpose, one as the generalized copy bufferization leaves) and
// the output's transpose back: no copy is left, the op reads and writes
// views.
// CHECK-LABEL: func.func @heads(
// CHECK-SAME: %[[Q:[^:]*]]: memref<2x16x4x8xbf16>, %[[K:[^:]*]]: memref<2x16x4x8xbf16>, %[[V:[^:]*]]: memref<2x16x4x8xbf16>)
// CHECK-NOT: linalg
// CHECK-DAG: %[[QT:.*]] = memref.transpose %[[Q]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK-DAG: %[[KT:.*]] = memref.transpose %[[K]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK-DAG: %[[VT:.*]] = memref.transpose %[[V]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK-DAG: %[[R:.*]] = memref.alloc() : memref<2x16x4x8xbf16>
// CHECK-DAG: %[[RT:.*]] = memref.transpose %[[R]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK: te.attention_buffers %[[QT]], %[[KT]], %[[VT]] {causal, scale = 0.353553385 : f32} outs(%[[RT]] :
// CHECK-NOT: linalg
// CHECK: return %[[R]]
func.func @heads(%q: memref<2x16x4x8xbf16>, %k: memref<2x16x4x8xbf16>, %v: memref<2x16x4x8xbf16>) -> memref<2x16x4x8xbf16> {
  %qt = memref.alloc() : memref<2x4x16x8xbf16>
  linalg.transpose ins(%q : memref<2x16x4x8xbf16>) outs(%qt : memref<2x4x16x8xbf16>) permutation = [0, 2, 1, 3]
  %kt = memref.alloc() : memref<2x4x16x8xbf16>
  linalg.transpose ins(%k : memref<2x16x4x8xbf16>) outs(%kt : memref<2x4x16x8xbf16>) permutation = [0, 2, 1, 3]
  %vt = memref.alloc() : memref<2x4x16x8xbf16>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v : memref<2x16x4x8xbf16>) outs(%vt : memref<2x4x16x8xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  }
  %o = memref.alloc() : memref<2x4x16x8xbf16>
  te.attention_buffers %qt, %kt, %vt {causal, scale = 0.353553385 : f32} outs(%o : memref<2x4x16x8xbf16>)
      : memref<2x4x16x8xbf16>, memref<2x4x16x8xbf16>, memref<2x4x16x8xbf16>
  %r = memref.alloc() : memref<2x16x4x8xbf16>
  linalg.transpose ins(%o : memref<2x4x16x8xbf16>) outs(%r : memref<2x16x4x8xbf16>) permutation = [0, 2, 1, 3]
  return %r : memref<2x16x4x8xbf16>
}

// -----

// Left alone: q's source is written between its copy and the attention op
// (the op must read the values as copied); k's copy moves the last
// dimension (a view would not have a contiguous last dimension); v's copy
// is also read by another op; the output is read by the copy and by
// another op.
// CHECK-LABEL: func.func @unsafe(
// CHECK-COUNT-4: linalg.transpose
// CHECK-NOT: memref.transpose
func.func @unsafe(%q: memref<2x16x4x8xbf16>, %k: memref<2x4x8x16xbf16>, %v: memref<2x16x4x8xbf16>, %w: memref<2x4x16x8xbf16>) -> memref<2x16x4x8xbf16> {
  %qt = memref.alloc() : memref<2x4x16x8xbf16>
  linalg.transpose ins(%q : memref<2x16x4x8xbf16>) outs(%qt : memref<2x4x16x8xbf16>) permutation = [0, 2, 1, 3]
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : bf16
  memref.store %z, %q[%c0, %c0, %c0, %c0] : memref<2x16x4x8xbf16>
  %kt = memref.alloc() : memref<2x4x16x8xbf16>
  linalg.transpose ins(%k : memref<2x4x8x16xbf16>) outs(%kt : memref<2x4x16x8xbf16>) permutation = [0, 1, 3, 2]
  %vt = memref.alloc() : memref<2x4x16x8xbf16>
  linalg.transpose ins(%v : memref<2x16x4x8xbf16>) outs(%vt : memref<2x4x16x8xbf16>) permutation = [0, 2, 1, 3]
  memref.copy %vt, %w : memref<2x4x16x8xbf16> to memref<2x4x16x8xbf16>
  %o = memref.alloc() : memref<2x4x16x8xbf16>
  te.attention_buffers %qt, %kt, %vt {scale = 0.353553385 : f32} outs(%o : memref<2x4x16x8xbf16>)
      : memref<2x4x16x8xbf16>, memref<2x4x16x8xbf16>, memref<2x4x16x8xbf16>
  %r = memref.alloc() : memref<2x16x4x8xbf16>
  linalg.transpose ins(%o : memref<2x4x16x8xbf16>) outs(%r : memref<2x16x4x8xbf16>) permutation = [0, 2, 1, 3]
  memref.copy %o, %w : memref<2x4x16x8xbf16> to memref<2x4x16x8xbf16>
  return %r : memref<2x16x4x8xbf16>
}
