// RUN: te-opt %s --te-decompose-aggregates | FileCheck %s
// RUN: te-opt %s --te-decompose-aggregates="softmax-in-f32=false" | FileCheck %s --check-prefix=ELEMENT
// RUN: te-opt %s --te-decompose-aggregates | te-opt --te-decompose-aggregates | FileCheck %s

// te-decompose-aggregates: every linalg.softmax (linalg::AggregatedOpInterface)
// becomes upstream's decomposition: a maxnumf reduction along the dimension
// from NaN (maxnumf's identity), exp(x - max), an addf reduction from 0, the
// division; the output is the init of the exponential and of the division.
// Other ops are left alone; a second run finds nothing to do.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[LAST3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>

// The last dimension of a static shape.
// CHECK-LABEL: func.func @last(
// CHECK-SAME: %[[X:.*]]: tensor<64x1000xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<64x1000xf32>
// CHECK: %[[R:.*]] = tensor.empty() : tensor<64xf32>
// CHECK: %[[NAN:.*]] = arith.constant 0xFFC00000 : f32
// CHECK: %[[MAX0:.*]] = linalg.fill ins(%[[NAN]] : f32) outs(%[[R]] : tensor<64xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<64x1000xf32>) outs(%[[MAX0]] : tensor<64xf32>)
// CHECK: arith.maxnumf
// CHECK: %[[EXP:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[MAX]] : tensor<64x1000xf32>, tensor<64xf32>) outs(%[[E]] : tensor<64x1000xf32>)
// CHECK: %[[D:.*]] = arith.subf
// CHECK: math.exp %[[D]]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUM0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[R]] : tensor<64xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[EXP]] : tensor<64x1000xf32>) outs(%[[SUM0]] : tensor<64xf32>)
// CHECK: arith.addf
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[EXP]], %[[SUM]] : tensor<64x1000xf32>, tensor<64xf32>) outs(%[[E]] : tensor<64x1000xf32>)
// CHECK: arith.divf
// CHECK: return %[[Y]]
// CHECK-NOT: linalg.softmax
func.func @last(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %e = tensor.empty() : tensor<64x1000xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<64x1000xf32>) outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}

// Dimension 0: the reductions keep d1, reduce d0.
// CHECK-LABEL: func.func @first(
// CHECK-SAME: %[[X:.*]]: tensor<1000x64xf32>)
// CHECK: tensor.empty() : tensor<64xf32>
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<1000x64xf32>)
// CHECK: arith.maxnumf
// CHECK: %[[EXP:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[MAX]] :
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME: ins(%[[EXP]] :
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[EXP]], %[[SUM]] :
// CHECK: arith.divf
func.func @first(%x: tensor<1000x64xf32>) -> tensor<1000x64xf32> {
  %e = tensor.empty() : tensor<1000x64xf32>
  %y = linalg.softmax dimension(0) ins(%x : tensor<1000x64xf32>) outs(%e : tensor<1000x64xf32>) -> tensor<1000x64xf32>
  return %y : tensor<1000x64xf32>
}

// The last of three dimensions.
// CHECK-LABEL: func.func @last_of_three(
// CHECK: tensor.empty() : tensor<2x16xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[LAST3]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.maxnumf
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[LAST3]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: math.exp
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[LAST3]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[LAST3]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: arith.divf
func.func @last_of_three(%x: tensor<2x16x32xf32>, %o: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  %y = linalg.softmax dimension(2) ins(%x : tensor<2x16x32xf32>) outs(%o : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  return %y : tensor<2x16x32xf32>
}

// A dynamic batch: the reductions' init has the input's run-time size.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[X:.*]]: tensor<?x1000xf32>, %[[O:.*]]: tensor<?x1000xf32>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x1000xf32>
// CHECK: %[[R:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[R]] : tensor<?xf32>) -> tensor<?xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<?x1000xf32>) outs(%{{.*}} : tensor<?xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[O]] : tensor<?x1000xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[R]] : tensor<?xf32>) -> tensor<?xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} outs(%[[O]] : tensor<?x1000xf32>)
// CHECK: return %[[Y]] : tensor<?x1000xf32>
func.func @dynamic(%x: tensor<?x1000xf32>, %o: tensor<?x1000xf32>) -> tensor<?x1000xf32> {
  %y = linalg.softmax dimension(1) ins(%x : tensor<?x1000xf32>) outs(%o : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  return %y : tensor<?x1000xf32>
}

// A static input and a dynamic output (what canonicalization leaves when it
// folds a cast into the op): decomposed at the most static common type, the
// output cast to it, the result cast back to the op's type.
// CHECK-LABEL: func.func @mixed(
// CHECK-SAME: %[[X:.*]]: tensor<64x1000xf32>, %[[O:.*]]: tensor<?x1000xf32>)
// CHECK: %[[OC:.*]] = tensor.cast %[[O]] : tensor<?x1000xf32> to tensor<64x1000xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<64x1000xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[OC]] : tensor<64x1000xf32>)
// CHECK: math.exp
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} outs(%[[OC]] : tensor<64x1000xf32>)
// CHECK: arith.divf
// CHECK: %[[YC:.*]] = tensor.cast %[[Y]] : tensor<64x1000xf32> to tensor<?x1000xf32>
// CHECK: return %[[YC]] : tensor<?x1000xf32>
func.func @mixed(%x: tensor<64x1000xf32>, %o: tensor<?x1000xf32>) -> tensor<?x1000xf32> {
  %y = linalg.softmax dimension(1) ins(%x : tensor<64x1000xf32>) outs(%o : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  return %y : tensor<?x1000xf32>
}

// A softmax in a loop body: decomposed in place, on the loop's argument.
// CHECK-LABEL: func.func @in_loop(
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (tensor<8x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[A]] : tensor<8x16xf32>)
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK: arith.divf
// CHECK: scf.yield %[[Y]] : tensor<8x16xf32>
func.func @in_loop(%x: tensor<8x16xf32>, %n: index) -> tensor<8x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<8x16xf32>) {
    %e = tensor.empty() : tensor<8x16xf32>
    %y = linalg.softmax dimension(1) ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
    scf.yield %y : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}

// bf16: computed in f32 by default (the input extended, the f32 result
// truncated once into the output); with softmax-in-f32=false in bf16, as
// upstream decomposes it.
// CHECK-LABEL: func.func @bf16(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xbf16>, %[[O:.*]]: tensor<4x8xbf16>)
// CHECK: %[[W0:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[XW:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<4x8xbf16>) outs(%[[W0]] : tensor<4x8xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[YW0:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[XW]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.maxnumf %{{.*}} : f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.addf %{{.*}} : f32
// CHECK: %[[YW:.*]] = linalg.generic {{.*}} outs(%[[YW0]] : tensor<4x8xf32>)
// CHECK: arith.divf %{{.*}} : f32
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[YW]] : tensor<4x8xf32>) outs(%[[O]] : tensor<4x8xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: return %[[Y]] : tensor<4x8xbf16>
// ELEMENT-LABEL: func.func @bf16(
// ELEMENT-NOT: f32
// ELEMENT: arith.maxnumf %{{.*}} : bf16
// ELEMENT: math.exp %{{.*}} : bf16
// ELEMENT: arith.addf %{{.*}} : bf16
// ELEMENT: arith.divf %{{.*}} : bf16
// ELEMENT-NOT: f32
// ELEMENT: return
func.func @bf16(%x: tensor<4x8xbf16>, %o: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %y = linalg.softmax dimension(1) ins(%x : tensor<4x8xbf16>) outs(%o : tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// f64 stays f64.
// CHECK-LABEL: func.func @f64(
// CHECK-NOT: f32
// CHECK: arith.maxnumf %{{.*}} : f64
// CHECK: arith.divf %{{.*}} : f64
// CHECK-NOT: f32
// CHECK: return
func.func @f64(%x: tensor<4x8xf64>, %o: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %y = linalg.softmax dimension(1) ins(%x : tensor<4x8xf64>) outs(%o : tensor<4x8xf64>) -> tensor<4x8xf64>
  return %y : tensor<4x8xf64>
}

// Other ops, linalg ones included, are left alone.
// CHECK-LABEL: func.func @others(
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x4xf32>) outs(%[[E]] : tensor<4x4xf32>)
// CHECK-NEXT: %[[G:.*]] = linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: } -> tensor<4x4xf32>
// CHECK-NEXT: return %[[G]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @others(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%m : tensor<4x4xf32>) {
  ^bb0(%o: f32):
    %x = math.exp %o : f32
    linalg.yield %x : f32
  } -> tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}
