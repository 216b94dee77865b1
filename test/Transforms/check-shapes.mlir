// RUN: te-opt %s --split-input-file --te-check-shapes --verify-diagnostics | FileCheck %s

// te-check-shapes: a te.check_size before each op whose operands must agree
// in a dynamic size, named in the message (op, location, which dimension);
// none where the sizes agree by construction or are static.

// CHECK: module attributes {te.shape_checks}
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?x?xf32>)
// The output's sizes are the operands' (tensor.empty of their dims): only
// the reduction size k is checked.
// CHECK: %[[K:.*]] = tensor.dim %[[A]], %c1
// CHECK: %[[KB:.*]] = tensor.dim %[[B]], %c0
// CHECK-NEXT: te.check_size %[[KB]] eq %[[K]], "linalg.matmul at {{.*}}check-shapes.mlir:[[@LINE+11]]:8: dimension 0 of operand 1 (loop d2, the size of dimension 1 of operand 0)"
// CHECK-NOT: te.check_size
// CHECK: linalg.matmul
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Static sizes, and dynamic ones that agree by construction (an op's result
// has its init's sizes): no check, no leftover op.
// CHECK-LABEL: func.func @static
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.add
// CHECK-NEXT: return
func.func @static(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.add ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @chain
// CHECK-NOT: te.check_size
// CHECK: return
func.func @chain(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.exp ins(%a : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.add ins(%r, %a : tensor<?x?xf32>, tensor<?x?xf32>) outs(%r : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// -----

// Two arguments of one `?`: checked once per pair of sizes, whichever
// operand has it.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[Y:.*]]: tensor<?x64xf32>)
// CHECK-DAG: %[[M:.*]] = tensor.dim %[[X]], %c0
// CHECK-DAG: %[[MY:.*]] = tensor.dim %[[Y]], %c0
// CHECK: te.check_size %[[MY]] eq %[[M]], "linalg.generic at {{.*}}: dimension 0 of operand 1 (loop d0, the size of dimension 0 of operand 0)"
// CHECK-NOT: te.check_size
// CHECK: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<?x64xf32>, tensor<?x64xf32>) outs(%x : tensor<?x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// -----

// An index expression other than a loop (here the constant 0 of a
// broadcast row): its largest value is inside the dimension, unless the op
// has no iterations.
// CHECK-LABEL: func.func @broadcast_row
// CHECK-SAME: (%[[ROW:.*]]: tensor<?x?xf32>, %[[X:.*]]: tensor<?x?xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[ROW]], %c1
// CHECK: %[[M:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[PRODUCT:.*]] = arith.muli %[[M]], %[[N]]
// CHECK: arith.mulsi_extended
// CHECK: %[[ITER:.*]] = arith.select %{{.*}}, %c9223372036854775807{{.*}}, %[[PRODUCT]]
// CHECK: %[[R:.*]] = tensor.dim %[[ROW]], %c0
// CHECK: %[[EMPTY:.*]] = arith.cmpi eq, %[[ITER]], %[[ZERO:.*]] : index
// CHECK: %[[NEED:.*]] = arith.select %[[EMPTY]], %[[ZERO]], %c1
// CHECK: te.check_size %[[R]] ge %[[NEED]], "linalg.generic at {{.*}}: dimension 0 of operand 0 (indexed by 0: its largest value + 1)"
// CHECK: %[[XN:.*]] = tensor.dim %[[X]], %c1
// CHECK: te.check_size %[[XN]] eq %[[N]], "linalg.generic at {{.*}}: dimension 1 of operand 1 (loop d1, the size of dimension 1 of operand 0)"
#bcast = affine_map<(d0, d1) -> (0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @broadcast_row(%row: tensor<?x?xf32>, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [#bcast, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%row, %x : tensor<?x?xf32>, tensor<?x?xf32>) outs(%x : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A 1-D convolution: the input is indexed by d0 + d1.
// CHECK-LABEL: func.func @conv
// CHECK: %[[SUM:.*]] = arith.addi %{{.*}}, %c1 :
// CHECK: %[[END:.*]] = arith.select %{{.*}}, %c9223372036854775807{{.*}}, %[[SUM]]
// CHECK: %[[NEED:.*]] = arith.select %{{.*}}, %{{.*}}, %[[END]]
// CHECK: te.check_size %{{.*}} ge %[[NEED]], "linalg.conv_1d at {{.*}}: dimension 0 of operand 0 (indexed by d0 + d1: its largest value + 1)"
func.func @conv(%x: tensor<?xf32>, %w: tensor<?xf32>, %out: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.conv_1d ins(%x, %w : tensor<?xf32>, tensor<?xf32>) outs(%out : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Every second element (2 * d0): checked; a reversed index (7 - d0) and a
// modulo are not (their largest value is not at the last index), rather than
// refused wrongly.
// CHECK-LABEL: func.func @strided_and_reversed
// CHECK: %[[LAST:.*]] = arith.addi %{{.*}}, %c-1
// CHECK: %[[TWICE:.*]] = arith.muli %[[LAST]], %c2
// CHECK: %[[SAT:.*]] = arith.select %{{.*}}, %c9223372036854775807, %[[TWICE]]
// CHECK: te.check_size %{{.*}} ge %{{.*}}, "linalg.generic at {{.*}}: dimension 0 of operand 0 (indexed by d0 * 2: its largest value + 1)"
// CHECK-NOT: te.check_size
// CHECK: linalg.generic
#every2 = affine_map<(d0) -> (d0 * 2)>
#rev = affine_map<(d0) -> (-d0 + 7)>
#mod = affine_map<(d0) -> (d0 mod 4)>
#id1 = affine_map<(d0) -> (d0)>
func.func @strided_and_reversed(%x: tensor<?xf32>, %r: tensor<?xf32>, %m: tensor<?xf32>, %out: tensor<?xf32>) -> tensor<?xf32> {
  %y = linalg.generic {indexing_maps = [#every2, #rev, #mod, #id1], iterator_types = ["parallel"]}
      ins(%x, %r, %m : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%out : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %c : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @cast
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %c0
// CHECK: te.check_size %[[D]] eq %c4, "tensor.cast at {{.*}}: dimension 0 of the source (cast to 4)"
// CHECK-NOT: te.check_size
// CHECK: tensor.cast
func.func @cast(%a: tensor<?x?xf32>) -> tensor<4x?xf32> {
  %r = tensor.cast %a : tensor<?x?xf32> to tensor<4x?xf32>
  return %r : tensor<4x?xf32>
}

// -----

// Slices: the offset is not negative, the slice ends inside the tensor; an
// inserted source has the slice's sizes.
// CHECK-LABEL: func.func @slices
// CHECK-SAME: (%[[A:.*]]: tensor<?x64xf32>, %[[I:.*]]: index, %[[N:.*]]: index, %[[D:.*]]: tensor<?x64xf32>, %[[S:.*]]: tensor<?x32xf32>)
// CHECK: %[[DA:.*]] = tensor.dim %[[A]], %c0
// CHECK: te.check_size %[[I]] ge %{{.*}}, "tensor.extract_slice at {{.*}}: the offset in dimension 0"
// CHECK: %[[SUM:.*]] = arith.addi %[[I]], %[[N]]
// CHECK: %[[END:.*]] = arith.select %{{.*}}, %c9223372036854775807{{.*}}, %[[SUM]]
// CHECK: te.check_size %[[DA]] ge %[[END]], "tensor.extract_slice at {{.*}}: dimension 0 of the source (the slice's offset + size)"
// CHECK-NOT: te.check_size
// CHECK: tensor.extract_slice
// The strided slice of dimension 1: offset + (size - 1) * stride + 1,
// unless the slice is empty.
// CHECK: %[[DD:.*]] = tensor.dim %[[D]], %c0
// CHECK: te.check_size %[[I]] ge
// CHECK: te.check_size %[[DD]] ge %{{.*}}, "tensor.insert_slice at {{.*}}: dimension 0 of the destination (the slice's offset + size)"
// CHECK: %[[SROWS:.*]] = tensor.dim %[[S]], %c0
// CHECK: te.check_size %[[SROWS]] eq %[[N]], "tensor.insert_slice at {{.*}}: dimension 0 of the source (the slice's size)"
// CHECK: tensor.insert_slice
// Each step saturates at the largest index rather than wrap around.
// CHECK: %[[NM1:.*]] = arith.addi %[[N]], %c-1
// CHECK: %[[NM1S:.*]] = arith.select %{{.*}}, %c9223372036854775807{{.*}}, %[[NM1]]
// CHECK: %[[STEP:.*]] = arith.muli %[[NM1S]], %c2
// CHECK: %[[STEPS:.*]] = arith.select %{{.*}}, %c9223372036854775807{{.*}}, %[[STEP]]
// CHECK: %[[LAST:.*]] = arith.addi %[[I]], %[[STEPS]]
// CHECK: %[[LASTS:.*]] = arith.select %{{.*}}, %c9223372036854775807{{.*}}, %[[LAST]]
// CHECK: %[[END2:.*]] = arith.addi %[[LASTS]], %c1
// CHECK: %[[END2S:.*]] = arith.select %{{.*}}, %c9223372036854775807{{.*}}, %[[END2]]
// CHECK: %[[NEED:.*]] = arith.select %{{.*}}, %{{.*}}, %[[END2S]]
// CHECK: te.check_size %{{.*}} ge %[[NEED]], "tensor.extract_slice at {{.*}}: dimension 0 of the source (the slice's offset + (size - 1) * stride + 1)"
func.func @slices(%a: tensor<?x64xf32>, %i: index, %n: index, %d: tensor<?x64xf32>, %s: tensor<?x32xf32>)
    -> (tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x4xf32>) {
  %e = tensor.extract_slice %a[%i, 0] [%n, 64] [1, 1] : tensor<?x64xf32> to tensor<?x64xf32>
  %t = tensor.insert_slice %s into %d[%i, 0] [%n, 32] [1, 1] : tensor<?x32xf32> into tensor<?x64xf32>
  %g = tensor.extract_slice %a[%i, 0] [%n, 4] [2, 1] : tensor<?x64xf32> to tensor<?x4xf32>
  return %e, %t, %g : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x4xf32>
}

// -----

// Elements: each index inside the tensor. The index + 1 does not wrap
// around at the largest index (an i64 from the user cast to index).
// CHECK-LABEL: func.func @elements
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>, %[[I:.*]]: index
// CHECK: te.check_size %[[I]] ge %{{.*}}, "tensor.extract at {{.*}}: index 0"
// CHECK: %[[LARGEST:.*]] = arith.cmpi eq, %[[I]], %c9223372036854775807
// CHECK: %[[NEXT:.*]] = arith.addi %[[I]], %c1
// CHECK: %[[NEED:.*]] = arith.select %[[LARGEST]], %[[I]], %[[NEXT]]
// CHECK: %[[D:.*]] = tensor.dim %[[A]]
// CHECK: te.check_size %[[D]] ge %[[NEED]], "tensor.extract at {{.*}}: dimension 0 of the tensor (index 0 + 1)"
// CHECK: tensor.extract
// A constant index: one check.
// CHECK: %[[D2:.*]] = tensor.dim %[[A]]
// CHECK: te.check_size %[[D2]] ge %c4, "tensor.insert at {{.*}}: dimension 0 of the tensor (index 0 + 1)"
// CHECK-NOT: te.check_size
// CHECK: tensor.insert
func.func @elements(%a: tensor<?xf32>, %i: index, %v: f32) -> (f32, tensor<?xf32>) {
  %e = tensor.extract %a[%i] : tensor<?xf32>
  %c3 = arith.constant 3 : index
  %t = tensor.insert %v into %a[%c3] : tensor<?xf32>
  return %e, %t : f32, tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @expand
// CHECK: %[[PRODUCT:.*]] = arith.muli %{{.*}}, %c16
// CHECK: %[[P:.*]] = arith.select %{{.*}}, %c9223372036854775807{{.*}}, %[[PRODUCT]]
// CHECK: %[[D:.*]] = tensor.dim
// CHECK: te.check_size %[[D]] eq %[[P]], "tensor.expand_shape at {{.*}}: dimension 0 of the source (the product of its output dimensions)"
func.func @expand(%a: tensor<?xf32>, %n: index) -> tensor<?x16xf32> {
  %r = tensor.expand_shape %a [[0, 1]] output_shape [%n, 16] : tensor<?xf32> into tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// -----

// In a loop: each iteration checks its slice.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for %[[K:[a-z0-9]+]] =
// CHECK: %[[OFF:.*]] = arith.muli %[[K]], %c16
// CHECK: te.check_size %[[OFF]] ge
// CHECK: %[[SUM:.*]] = arith.addi %[[OFF]], %c16
// CHECK: %[[END:.*]] = arith.select %{{.*}}, %c9223372036854775807{{.*}}, %[[SUM]]
// CHECK: te.check_size %{{.*}} ge %[[END]], "tensor.extract_slice at
// CHECK: tensor.extract_slice
// CHECK-NOT: te.check_size
// CHECK: scf.yield
func.func @loop(%x: tensor<?x64xf32>, %acc: tensor<16x64xf32>, %steps: index) -> tensor<16x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %r = scf.for %k = %c0 to %steps step %c1 iter_args(%a = %acc) -> tensor<16x64xf32> {
    %off = arith.muli %k, %c16 : index
    %mb = tensor.extract_slice %x[%off, 0] [16, 64] [1, 1] : tensor<?x64xf32> to tensor<16x64xf32>
    %s = linalg.add ins(%a, %mb : tensor<16x64xf32>, tensor<16x64xf32>) outs(%a : tensor<16x64xf32>) -> tensor<16x64xf32>
    scf.yield %s : tensor<16x64xf32>
  }
  return %r : tensor<16x64xf32>
}

// -----

// An element read in a linalg op's body with an index computed from the
// inputs (a gather): a reduction before the op finds the index's smallest
// and largest values over the loops it depends on; both are checked.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:.*]]: tensor<?xf32>, %[[IDX:.*]]: tensor<?xindex>)
// CHECK-DAG: %[[MAXI:.*]] = arith.constant 9223372036854775807 : i64
// CHECK-DAG: %[[MINI:.*]] = arith.constant -9223372036854775808 : i64
// CHECK-DAG: %[[LO0:.*]] = linalg.fill ins(%[[MAXI]] : i64)
// CHECK-DAG: %[[HI0:.*]] = linalg.fill ins(%[[MINI]] : i64)
// CHECK: %[[RANGE:.*]]:2 = linalg.generic {{{.*}}iterator_types = ["reduction"]} ins(%[[IDX]] : tensor<?xindex>) outs(%[[LO0]], %[[HI0]] : tensor<i64>, tensor<i64>)
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[LO:.*]]: i64, %[[HI:.*]]: i64):
// CHECK-NEXT: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT: %[[MIN:.*]] = arith.minsi %[[LO]], %[[I64]]
// CHECK-NEXT: %[[MAX:.*]] = arith.maxsi %[[HI]], %[[I64]]
// CHECK-NEXT: linalg.yield %[[MIN]], %[[MAX]]
// CHECK: %[[SMALLEST:.*]] = tensor.extract %[[RANGE]]#0[]
// CHECK: %[[S:.*]] = arith.index_cast %[[SMALLEST]] : i64 to index
// CHECK: te.check_size %[[S]] ge %{{.*}}, "linalg.generic at {{.*}}check-shapes.mlir:[[@LINE+11]]:8: index 0 of the tensor.extract at {{.*}}check-shapes.mlir:[[@LINE+14]]:10 in its body (its smallest value)"
// CHECK: %[[D:.*]] = tensor.dim %[[T]]
// CHECK: te.check_size %[[D]] ge %{{.*}}, "linalg.generic at {{.*}}: dimension 0 of the tensor of the tensor.extract at {{.*}} in its body (index 0's largest value + 1)"
// CHECK-NOT: te.check_size
// CHECK: linalg.generic
// CHECK: return
#map1 = affine_map<(d0) -> (d0)>
func.func @gather(%t: tensor<?xf32>, %idx: tensor<?xindex>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %idx, %c0 : tensor<?xindex>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]}
      ins(%idx : tensor<?xindex>) outs(%e : tensor<?xf32>) {
  ^bb0(%i: index, %o: f32):
    %v = tensor.extract %t[%i] : tensor<?xf32>
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// An embedding lookup: the row is the id (an i32 input indexed by d0 only),
// the column the loop d1. The reduction runs over d0 alone, guarded by the
// whole op's emptiness; the column's index is checked at its last value.
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[TABLE:.*]]: tensor<?x?xf32>, %[[IDS:.*]]: tensor<?xi32>, %[[OUT:.*]]: tensor<?x?xf32>)
// CHECK: te.check_size %{{.*}} ge %{{.*}}, "linalg.generic at {{.*}}: dimension 1 of the tensor of the tensor.extract at {{.*}} in its body (index 1, d1: its largest value + 1)"
// CHECK: %[[RANGE:.*]]:2 = linalg.generic {{{.*}}iterator_types = ["reduction"]} ins(%[[IDS]] : tensor<?xi32>)
// CHECK-NEXT: ^bb0(%[[ID:.*]]: i32,
// CHECK-NEXT: arith.index_cast %[[ID]] : i32 to index
// CHECK: te.check_size {{.*}} "linalg.generic at {{.*}}: index 0 of the tensor.extract at {{.*}} in its body (its smallest value)"
// CHECK: te.check_size {{.*}} "linalg.generic at {{.*}}: dimension 0 of the tensor of the tensor.extract at {{.*}} in its body (index 0's largest value + 1)"
// CHECK-NOT: te.check_size
// CHECK: linalg.generic
#rows = affine_map<(d0, d1) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @embedding(%table: tensor<?x?xf32>, %ids: tensor<?xi32>, %out: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [#rows, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<?xi32>) outs(%out : tensor<?x?xf32>) {
  ^bb0(%id: i32, %o: f32):
    %row = arith.index_cast %id : i32 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<?x?xf32>
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Indices of the loops in a body: checked at the loops' last values (a
// shifted read, d0 + 1), none where it holds by construction (static), and
// an index from before the op checked once. A clamped index (maxsi) is not
// affine: its range is reduced. An index read from the accumulator, or an
// extract under an scf.if (it may not run), is not checked.
// CHECK-LABEL: func.func @loop_indices
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>, %[[W:.*]]: tensor<8xf32>, %[[K:.*]]: index, %[[OUT:.*]]: tensor<?xf32>)
// The modulo (not affine here): its range reduced over d0, sized by the
// output.
// CHECK: linalg.generic {{{.*}}iterator_types = ["reduction"]} ins(%[[OUT]] : tensor<?xf32>)
// CHECK: linalg.index 0
// CHECK-NEXT: arith.remui
// CHECK: linalg.yield
// CHECK: te.check_size {{.*}}:[[@LINE+21]]:11 in its body (its smallest value)"
// CHECK: te.check_size %c8 ge {{.*}}:[[@LINE+20]]:11 in its body (index 0's largest value + 1)"
// CHECK: te.check_size {{.*}}:[[@LINE+20]]:13 in its body (index 0, d0 + 1: its largest value + 1)"
// CHECK: te.check_size {{.*}}:[[@LINE+20]]:11 in its body"
// CHECK: te.check_size {{.*}}:[[@LINE+19]]:11 in its body (index 0 + 1)"
// CHECK: linalg.generic {{{.*}}iterator_types = ["reduction"]}
// CHECK: arith.maxsi
// CHECK: linalg.yield
// CHECK: te.check_size {{.*}}:[[@LINE+19]]:13 in its body (its smallest value)"
// CHECK: te.check_size {{.*}}:[[@LINE+18]]:13 in its body (index 0's largest value + 1)"
// CHECK-NOT: te.check_size
// CHECK: linalg.generic
#x1 = affine_map<(d0) -> (d0)>
func.func @loop_indices(%x: tensor<?xf32>, %w: tensor<8xf32>, %k: index, %out: tensor<?xf32>) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %r = linalg.generic {indexing_maps = [#x1], iterator_types = ["parallel"]} outs(%out : tensor<?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %ip1 = arith.addi %i, %c1 : index
    %i8 = arith.remui %i, %c7 : index
    %wi = tensor.extract %w[%i8] : tensor<8xf32>
    %next = tensor.extract %x[%ip1] : tensor<?xf32>
    %at = tensor.extract %x[%k] : tensor<?xf32>
    %im1 = arith.subi %i, %c1 : index
    %c0 = arith.constant 0 : index
    %clamped = arith.maxsi %im1, %c0 : index
    %prev = tensor.extract %x[%clamped] : tensor<?xf32>
    %fromAcc = arith.fptosi %o : f32 to i32
    %j = arith.index_cast %fromAcc : i32 to index
    %acc = tensor.extract %x[%j] : tensor<?xf32>
    %s0 = arith.addf %next, %at : f32
    %s1 = arith.addf %s0, %prev : f32
    %s2 = arith.addf %s1, %acc : f32
    %s3 = arith.addf %s2, %wi : f32
    linalg.yield %s3 : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
// -----

// Sizes known to disagree: an error at compile time.
func.func @never(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c9 = arith.constant 9 : index
  // expected-error @+1 {{dimension 1 of the tensor (index 1 + 1) is 8, expected at least 10}}
  %v = tensor.extract %a[%c9, %c9] : tensor<?x8xf32>
  return %a : tensor<?x8xf32>
}

// -----

// tensor.reshape: as many elements as the new shape; a dynamic size of the
// new shape is read from the shape operand, not negative. The products
// saturate at the largest index (as every size the checks compute).
// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>, %[[S:.*]]: tensor<2xi64>)
// CHECK-DAG: %[[M:.*]] = tensor.dim %[[A]], %c0
// CHECK-DAG: %[[N:.*]] = tensor.dim %[[A]], %c1
// CHECK: %[[MN:.*]] = arith.muli %[[M]], %[[N]]
// CHECK: arith.mulsi_extended
// CHECK: %[[HAVE:.*]] = arith.select %{{.*}}, %c9223372036854775807{{.*}}, %[[MN]]
// CHECK: %[[ROWS:.*]] = tensor.extract %[[S]][%{{.*}}] : tensor<2xi64>
// CHECK: %[[R:.*]] = arith.index_cast %[[ROWS]] : i64 to index
// CHECK: te.check_size %[[R]] ge %{{.*}}, "tensor.reshape at {{.*}}: dimension 0 of the new shape"
// CHECK: %[[R4:.*]] = arith.muli %[[R]], %c4
// CHECK: %[[WANT:.*]] = arith.select %{{.*}}, %c9223372036854775807{{.*}}, %[[R4]]
// CHECK: te.check_size %[[HAVE]] eq %[[WANT]], "tensor.reshape at {{.*}}: the source's element count (the new shape's element count)"
func.func @reshape(%a: tensor<?x?xf32>, %shape: tensor<2xi64>) -> tensor<?x4xf32> {
  %r = tensor.reshape %a(%shape) : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// Writing into a destination argument: it has the source's sizes.
// CHECK-LABEL: func.func @into
// CHECK-SAME: (%[[A:.*]]: tensor<?x8xf32>, %[[OUT:.*]]: tensor<?x8xf32>)
// CHECK-DAG: %[[M:.*]] = tensor.dim %[[A]], %c0
// CHECK-DAG: %[[MO:.*]] = tensor.dim %[[OUT]], %c0
// CHECK: te.check_size %[[MO]] eq %[[M]], "bufferization.materialize_in_destination at {{.*}}: dimension 0 of the destination (the source's)"
func.func @into(%a: tensor<?x8xf32>, %out: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %r = bufferization.materialize_in_destination %a in %out : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// A tensor the program creates from sizes it computes: each size not
// negative, and its bytes at most 2^62 (so that its size in bytes does not
// wrap around in 64 bits): the first size against 2^62 / (4 bytes * 16),
// the second against what the first leaves.
// CHECK-LABEL: func.func @new_tensors
// CHECK-SAME: (%[[N:.*]]: index, %[[M:.*]]: index, %[[LIKE:.*]]: tensor<?x?xf32>)
// CHECK: te.check_size %[[N]] ge %{{.*}}, "tensor.empty at {{.*}}: dimension 0 of the new tensor"
// CHECK: te.check_size %[[N]] le %c72057594037927936, "tensor.empty at {{.*}}: dimension 0 of the new tensor (at most 2^62 bytes in all)"
// CHECK: %[[ONE:.*]] = arith.maxsi %[[N]], %c1
// CHECK: %[[LEFT:.*]] = arith.divui %c72057594037927936{{.*}}, %[[ONE]]
// CHECK: te.check_size %[[M]] ge %{{.*}}, "tensor.empty at {{.*}}: dimension 2 of the new tensor"
// CHECK: te.check_size %[[M]] le %[[LEFT]], "tensor.empty at {{.*}}: dimension 2 of the new tensor (at most 2^62 bytes in all)"
// CHECK: tensor.empty(%[[N]], %[[M]])
// A tensor of an existing tensor's shape: no check.
// CHECK-NOT: te.check_size
// CHECK: tensor.empty
// CHECK: return
func.func @new_tensors(%n: index, %m: index, %like: tensor<?x?xf32>) -> (tensor<?x16x?xf32>, tensor<?x?xf32>) {
  %e = tensor.empty(%n, %m) : tensor<?x16x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %like, %c0 : tensor<?x?xf32>
  %c = tensor.dim %like, %c1 : tensor<?x?xf32>
  %f = tensor.empty(%r, %c) : tensor<?x?xf32>
  return %e, %f : tensor<?x16x?xf32>, tensor<?x?xf32>
}

// -----

// tensor.pad: the amounts are not negative (pad does not crop), nor so large
// that the padded size wraps around; the padded tensor is a new one.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>, %[[LO:.*]]: index)
// CHECK: te.check_size %[[LO]] ge %{{.*}}, "tensor.pad at {{.*}}: the low padding of dimension 0"
// CHECK: te.check_size %[[LO]] le %c1152921504606846976, "tensor.pad at {{.*}}: the low padding of dimension 0"
// CHECK: te.check_size %{{.*}} le %c1152921504606846976{{.*}}, "tensor.pad at {{.*}}: dimension 0 of the new tensor (at most 2^62 bytes in all)"
// CHECK: tensor.pad
func.func @pad(%a: tensor<?xf32>, %lo: index) -> tensor<?xf32> {
  %z = arith.constant 0.0 : f32
  %r = tensor.pad %a low[%lo] high[2] {
  ^bb0(%i: index):
    tensor.yield %z : f32
  } : tensor<?xf32> to tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Programs on memrefs: memref.load / store indices, a memref.subview inside
// its source, a memref.copy between buffers of one shape.
// CHECK-LABEL: func.func @memrefs
// CHECK: te.check_size %{{.*}} ge %{{.*}}, "memref.load at {{.*}}: index 0"
// CHECK: te.check_size %{{.*}} ge %{{.*}}, "memref.load at {{.*}}: dimension 0 of the memref (index 0 + 1)"
// CHECK: memref.load
// CHECK: te.check_size %{{.*}} ge %{{.*}}, "memref.store at {{.*}}: index 0"
// CHECK: te.check_size %{{.*}} ge %{{.*}}, "memref.store at {{.*}}: dimension 0 of the memref (index 0 + 1)"
// CHECK: memref.store
// CHECK: te.check_size %{{.*}} ge %{{.*}}, "memref.subview at {{.*}}: the offset in dimension 0"
// CHECK: te.check_size %{{.*}} ge %{{.*}}, "memref.subview at {{.*}}: dimension 0 of the source (the slice's offset + size)"
// CHECK: memref.subview
// CHECK: te.check_size %{{.*}} eq %{{.*}}, "memref.copy at {{.*}}: dimension 0 of the target (the source's)"
// CHECK: memref.copy
func.func @memrefs(%m: memref<?xf32>, %n: memref<?xf32>, %i: index, %v: f32) -> f32 {
  %x = memref.load %m[%i] : memref<?xf32>
  memref.store %v, %m[%i] : memref<?xf32>
  %s = memref.subview %m[%i] [4] [1] : memref<?xf32> to memref<4xf32, strided<[1], offset: ?>>
  memref.copy %m, %n : memref<?xf32> to memref<?xf32>
  return %x : f32
}

// -----

// Sizes computed from constants saturate too: an offset of 2^63 - 8 plus 8,
// and d0 * 2^61 at the last of 9 iterations, are the largest index, which
// no dimension holds (wrapping, they were -2^63 and 1).
// CHECK-LABEL: func.func @overflow_constants
// CHECK: te.check_size %{{.*}} ge %c9223372036854775807{{.*}}, "tensor.extract_slice at {{.*}}: dimension 0 of the source (the slice's offset + size)"
// CHECK: te.check_size %{{.*}} ge %c9223372036854775807{{.*}}, "linalg.generic at {{.*}}: dimension 0 of operand 0 (indexed by d0 * 2305843009213693952: its largest value + 1)"
#spread = affine_map<(d0) -> (d0 * 2305843009213693952)>
#id = affine_map<(d0) -> (d0)>
func.func @overflow_constants(%x: tensor<?xf32>, %out: tensor<9xf32>) -> (tensor<8xf32>, tensor<9xf32>) {
  %s = tensor.extract_slice %x[9223372036854775800] [8] [1] : tensor<?xf32> to tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#spread, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%out : tensor<9xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<9xf32>
  return %s, %r : tensor<8xf32>, tensor<9xf32>
}
