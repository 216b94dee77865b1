// te-fuse-elementwise: named elementwise ops (and linalg.reduce) are
// generalized, and an all-parallel linalg.generic is fused into the
// linalg.generic reading its result where that computes nothing twice: one
// use, read through a permutation of the consumer's loops (or the producer
// only moves data). Matrix products and convolutions keep their operands.
// That the fused programs compute the unfused results bit for bit is
// checked by test/Integration/elementwise-ops.mlir.
//
// RUN: te-opt %s --te-fuse-elementwise --split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// A chain of named ops and a generic: one op, the ops in program order, the
// bias read from its own 1-D tensor.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:.*]]: tensor<?x64xf32>, %[[B:.*]]: tensor<64xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[B]] : tensor<?x64xf32>, tensor<64xf32>)
// CHECK: arith.addf
// CHECK-NEXT: math.exp
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: linalg.yield
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
func.func @chain(%x: tensor<?x64xf32>, %b: tensor<64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %bb = linalg.broadcast ins(%b : tensor<64xf32>) outs(%e : tensor<?x64xf32>) dimensions = [0]
  %h = linalg.add ins(%x, %bb : tensor<?x64xf32>, tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %g = linalg.exp ins(%h : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// A result with two uses (returned, and read by the next op) is not fused:
// it would be computed twice.
// CHECK-LABEL: func.func @two_uses(
// CHECK: %[[H:.*]] = linalg.generic
// CHECK: arith.addf
// CHECK: %[[G:.*]] = linalg.generic
// CHECK-SAME: ins(%[[H]] :
// CHECK: math.exp
// CHECK: return %[[H]], %[[G]]
func.func @two_uses(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %e = tensor.empty() : tensor<16x64xf32>
  %h = linalg.add ins(%x, %y : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %g = linalg.exp ins(%h : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %h, %g : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// A producer that computes (exp of a 1-D tensor) read broadcast over the
// rows is not fused: fused, it would be computed once per row.
// CHECK-LABEL: func.func @broadcast_of_computed(
// CHECK: %[[E:.*]] = linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<64xf32>)
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[E]] : tensor<8x64xf32>, tensor<64xf32>)
// CHECK: arith.addf
#v = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @broadcast_of_computed(%a: tensor<8x64xf32>, %b: tensor<64xf32>) -> tensor<8x64xf32> {
  %e1 = tensor.empty() : tensor<64xf32>
  %eb = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%b : tensor<64xf32>) outs(%e1 : tensor<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %q = math.exp %in : f32
    linalg.yield %q : f32
  } -> tensor<64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %s = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %eb : tensor<8x64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %in2: f32, %o: f32):
    %q = arith.addf %in, %in2 : f32
    linalg.yield %q : f32
  } -> tensor<8x64xf32>
  return %s : tensor<8x64xf32>
}

// -----

// An elementwise op into the reduction that reads it (linalg.reduce,
// generalized): the reduction's region computes the value, then combines.
// CHECK-LABEL: func.func @into_reduction(
// CHECK-SAME: %[[X:.*]]: tensor<32x128xbf16>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[X]] : tensor<32x128xbf16>)
// CHECK: arith.extf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id3 = affine_map<(d0, d1) -> (d0, d1)>
func.func @into_reduction(%x: tensor<32x128xbf16>) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<32x128xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x128xbf16>) outs(%e : tensor<32x128xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %f = arith.extf %in : bf16 to f32
    %q = arith.mulf %f, %f : f32
    linalg.yield %q : f32
  } -> tensor<32x128xf32>
  %zero = arith.constant 0.0 : f32
  %r0 = tensor.empty() : tensor<32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%r0 : tensor<32xf32>) -> tensor<32xf32>
  %sum = linalg.reduce ins(%sq : tensor<32x128xf32>) outs(%acc : tensor<32xf32>) dimensions = [1]
    (%v: f32, %a: f32) {
      %p = arith.addf %v, %a : f32
      linalg.yield %p : f32
    }
  return %sum : tensor<32xf32>
}

// -----

// A matrix product keeps its operands, even a transpose (which computes
// nothing), so that GPU targets still hand it to cuBLASLt whole.
// CHECK-LABEL: func.func @matmul_operand(
// CHECK: %[[T:.*]] = linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<64x32xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[T]], %{{.*}} : tensor<32x64xf32>, tensor<64x16xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @matmul_operand(%a: tensor<64x32xf32>, %b: tensor<64x16xf32>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  %t = linalg.transpose ins(%a : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) permutation = [1, 0]
  %m = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t, %b : tensor<32x64xf32>, tensor<64x16xf32>) outs(%c : tensor<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  return %m : tensor<32x16xf32>
}

// -----

// A dot product per row (a contraction without an N loop) is a reduction
// like any other: its product's operand is fused.
// CHECK-LABEL: func.func @row_dot(
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: math.tanh
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
#rd = affine_map<(d0, d1) -> (d0, d1)>
#rr = affine_map<(d0, d1) -> (d0)>
func.func @row_dot(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>, %acc: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16x64xf32>
  %t = linalg.tanh ins(%x : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %d = linalg.generic {indexing_maps = [#rd, #rd, #rr], iterator_types = ["parallel", "reduction"]}
      ins(%t, %y : tensor<16x64xf32>, tensor<16x64xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %d : tensor<16xf32>
}

// -----

// A fill, a splat constant and a tensor.splat read as inputs become
// scalars in the region.
// CHECK-LABEL: func.func @scalars(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[S:.*]]: f32
// CHECK-DAG: %[[C2:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG: %[[C3:.*]] = arith.constant 3.000000e+00 : f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<4x8xf32>)
// CHECK: %[[A:.*]] = arith.mulf %{{.*}}, %[[S]] : f32
// CHECK: %[[B:.*]] = arith.addf %[[A]], %[[C2]] : f32
// CHECK: arith.subf %[[B]], %[[C3]] : f32
// CHECK-NOT: linalg.generic
func.func @scalars(%x: tensor<4x8xf32>, %s: f32) -> tensor<4x8xf32> {
  %sp = tensor.splat %s : tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %two = arith.constant 2.0 : f32
  %f = linalg.fill ins(%two : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %three = arith.constant dense<3.0> : tensor<4x8xf32>
  %a = linalg.mul ins(%x, %sp : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = linalg.add ins(%a, %f : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = linalg.sub ins(%b, %three : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// Ops on memrefs (after bufferization) are left alone.
// CHECK-LABEL: func.func @buffers(
// CHECK: linalg.add
// CHECK: linalg.exp
func.func @buffers(%x: memref<16xf32>, %y: memref<16xf32>, %t: memref<16xf32>, %z: memref<16xf32>) {
  linalg.add ins(%x, %y : memref<16xf32>, memref<16xf32>) outs(%t : memref<16xf32>)
  linalg.exp ins(%t : memref<16xf32>) outs(%z : memref<16xf32>)
  return
}

// -----

// A producer outside the loop of its consumer is not fused: it would run on
// every iteration.
// CHECK-LABEL: func.func @loop_invariant(
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[E]], %{{.*}} :
// CHECK-NOT: math.exp
// CHECK: scf.yield
#l = affine_map<(d0) -> (d0)>
func.func @loop_invariant(%x: tensor<64xf32>, %acc: tensor<64xf32>, %n: index) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<64xf32>
  %ex = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %acc) -> tensor<64xf32> {
    %s = linalg.generic {indexing_maps = [#l, #l, #l], iterator_types = ["parallel"]}
        ins(%ex, %a : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %t = arith.addf %p, %q : f32
      linalg.yield %t : f32
    } -> tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
