// te-split-arg-reductions: an argmax / argmin in one linalg.generic becomes
// a maxnumf (minnumf) reduction, a minsi reduction of positions and an
// elementwise op; other forms are left alone. (The results are checked
// against the loop in test/Integration/arg-reductions.mlir.)
//
// RUN: te-opt %s --te-split-arg-reductions --split-input-file | FileCheck %s

// A dynamic batch: the positions' tensor takes the output's size.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x1000xf32>, %[[M0:.*]]: tensor<?xf32>, %[[I0:.*]]: tensor<?xi32>)
// CHECK: %[[N:.*]] = tensor.dim %[[I0]], %{{.*}} : tensor<?xi32>
// CHECK: %[[M:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[X]] : tensor<?x1000xf32>) outs(%[[M0]] : tensor<?xf32>)
// CHECK: arith.maxnumf
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xi64>
// CHECK: %[[NONE:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%[[E]] : tensor<?xi64>)
// CHECK: %[[FIRST:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[M]], %[[M0]] : {{.*}}) outs(%[[NONE]] : tensor<?xi64>)
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf ogt
// CHECK: arith.minsi
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel"]{{.*}} ins(%[[FIRST]], %[[M0]], %[[I0]] : {{.*}}) outs(%[[M0]], %[[I0]] : {{.*}})
// CHECK: tensor.extract %[[X]]
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @dynamic(%x: tensor<?x1000xf32>, %m0: tensor<?xf32>, %i0: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x1000xf32>) outs(%m0, %i0 : tensor<?xf32>, tensor<?xi32>) {
  ^bb0(%a: f32, %m: f32, %i: i32):
    %j = linalg.index 1 : index
    %jc = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %a, %m : f32
    %v = arith.select %gt, %a, %m : f32
    %k = arith.select %gt, %jc, %i : i32
    linalg.yield %v, %k : f32, i32
  } -> (tensor<?xf32>, tensor<?xi32>)
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xi32>
}

// -----

// Argmin over the middle loop of three, outputs transposed: the results'
// op runs over the two other loops, x read at (d0, first, d1).
// CHECK-LABEL: func.func @middle
// CHECK: arith.minnumf
// CHECK: arith.cmpf olt
// CHECK: linalg.generic {indexing_maps = [#[[T:.*]], #[[T]], #[[T]], #[[T]], #[[T]]], iterator_types = ["parallel", "parallel"]}
// CHECK: %[[D0:.*]] = linalg.index 0 : index
// CHECK: %[[D1:.*]] = linalg.index 1 : index
// CHECK: tensor.extract %{{.*}}[%[[D0]], %{{.*}}, %[[D1]]] : tensor<4x50x8xf32>
func.func @middle(%x: tensor<4x50x8xf32>, %m0: tensor<8x4xf32>, %i0: tensor<8x4xindex>) -> (tensor<8x4xf32>, tensor<8x4xindex>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (c, a)>, affine_map<(a, b, c) -> (c, a)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<4x50x8xf32>) outs(%m0, %i0 : tensor<8x4xf32>, tensor<8x4xindex>) {
  ^bb0(%a: f32, %m: f32, %i: index):
    %j = linalg.index 1 : index
    %lt = arith.cmpf ogt, %m, %a : f32
    %v = arith.select %lt, %a, %m : f32
    %k = arith.select %lt, %j, %i : index
    linalg.yield %v, %k : f32, index
  } -> (tensor<8x4xf32>, tensor<8x4xindex>)
  return %r#0, %r#1 : tensor<8x4xf32>, tensor<8x4xindex>
}

// -----

// Not matched: another op in the region (the value scaled), two reduced
// loops, the position of another loop.
// CHECK-LABEL: func.func @others
// CHECK-NOT: arith.maxnumf
// CHECK-NOT: arith.minsi
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: linalg.generic
func.func @others(%x: tensor<16x30xf32>, %y: tensor<2x16x30xf32>, %m0: tensor<16xf32>, %i0: tensor<16xi32>) -> (tensor<16xi32>, tensor<16xi32>, tensor<16xi32>) {
  %a:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x30xf32>) outs(%m0, %i0 : tensor<16xf32>, tensor<16xi32>) {
  ^bb0(%v: f32, %m: f32, %i: i32):
    %two = arith.constant 2.0 : f32
    %s = arith.mulf %v, %two : f32
    %j = linalg.index 1 : index
    %jc = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %s, %m : f32
    %nv = arith.select %gt, %s, %m : f32
    %k = arith.select %gt, %jc, %i : i32
    linalg.yield %nv, %k : f32, i32
  } -> (tensor<16xf32>, tensor<16xi32>)
  %b:2 = linalg.generic {indexing_maps = [affine_map<(r, i, j) -> (r, i, j)>, affine_map<(r, i, j) -> (i)>, affine_map<(r, i, j) -> (i)>], iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%y : tensor<2x16x30xf32>) outs(%m0, %i0 : tensor<16xf32>, tensor<16xi32>) {
  ^bb0(%v: f32, %m: f32, %i: i32):
    %j = linalg.index 2 : index
    %jc = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %v, %m : f32
    %nv = arith.select %gt, %v, %m : f32
    %k = arith.select %gt, %jc, %i : i32
    linalg.yield %nv, %k : f32, i32
  } -> (tensor<16xf32>, tensor<16xi32>)
  %c:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x30xf32>) outs(%m0, %i0 : tensor<16xf32>, tensor<16xi32>) {
  ^bb0(%v: f32, %m: f32, %i: i32):
    %j = linalg.index 0 : index
    %jc = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %v, %m : f32
    %nv = arith.select %gt, %v, %m : f32
    %k = arith.select %gt, %jc, %i : i32
    linalg.yield %nv, %k : f32, i32
  } -> (tensor<16xf32>, tensor<16xi32>)
  return %a#1, %b#1, %c#1 : tensor<16xi32>, tensor<16xi32>, tensor<16xi32>
}

// -----

// Torch-MLIR's form (the value by maximumf, NaN-propagating): the first
// NaN's position, the maximum before it, the first position holding it
// before it, and the value by maximumf over all.
// CHECK-LABEL: func.func @torch_form
// CHECK: %[[K:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8xi64>)
// CHECK: arith.cmpf uno
// CHECK: arith.minsi
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[K]] : {{.*}})
// CHECK: arith.cmpi slt
// CHECK: arith.maxnumf
// CHECK: %[[FIRST:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[M]], %{{.*}}, %[[K]] : {{.*}})
// CHECK: arith.minsi
// CHECK: %[[V:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} ins(%[[FIRST]]
// CHECK-NOT: tensor.extract
// CHECK: return %[[V]], %[[R]]#1
func.func @torch_form(%x: tensor<8x64xf32>, %m0: tensor<8xf32>, %i0: tensor<8xi64>) -> (tensor<8xf32>, tensor<8xi64>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%m0, %i0 : tensor<8xf32>, tensor<8xi64>) {
  ^bb0(%a: f32, %m: f32, %i: i64):
    %j = linalg.index 1 : index
    %jc = arith.index_cast %j : index to i64
    %v = arith.maximumf %a, %m : f32
    %gt = arith.cmpf ogt, %a, %m : f32
    %k = arith.select %gt, %jc, %i : i64
    linalg.yield %v, %k : f32, i64
  } -> (tensor<8xf32>, tensor<8xi64>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xi64>
}

// -----

// maximumf with an argmin's comparison: not an argmax, left alone.
// CHECK-LABEL: func.func @mixed
// CHECK-NOT: arith.minsi
func.func @mixed(%x: tensor<8x64xf32>, %m0: tensor<8xf32>, %i0: tensor<8xi64>) -> (tensor<8xf32>, tensor<8xi64>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%m0, %i0 : tensor<8xf32>, tensor<8xi64>) {
  ^bb0(%a: f32, %m: f32, %i: i64):
    %j = linalg.index 1 : index
    %jc = arith.index_cast %j : index to i64
    %v = arith.maximumf %a, %m : f32
    %lt = arith.cmpf olt, %a, %m : f32
    %k = arith.select %lt, %jc, %i : i64
    linalg.yield %v, %k : f32, i64
  } -> (tensor<8xf32>, tensor<8xi64>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xi64>
}
