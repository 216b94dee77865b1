// te-linalg-to-gpu: a linalg.fill of a reduction's output right before the
// reduction has no kernel of its own; the reduction's combine kernel (or
// its serial kernel) takes the fill's value as the output's initial value
// instead of loading it. Only where nothing else can see the fill's values.
//
// RUN: te-opt %s --te-linalg-to-gpu --split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// A row sum (a loss, a softmax's sum): two kernels, the partials and the
// combine, which starts from the fill's value (a scalar argument of the
// function, so the kernel captures it).
// CHECK-LABEL: func.func @row_sum(
// CHECK-SAME: %[[INIT:[^:]*]]: f32
// CHECK-NOT: _elementwise
// CHECK: gpu.launch {{.*}} module(@row_sum_reduce_rows_L[[#L:]]_kernel)
// CHECK: gpu.launch {{.*}} module(@row_sum_reduce_combine_L[[#L]]_kernel)
// CHECK: gpu.all_reduce
// CHECK-NOT: memref.load %{{.*}}[%{{.*}}] : memref<64xf32>
// CHECK: %[[T:.*]] = arith.addf %[[INIT]], %{{.*}} : f32
// CHECK: memref.store %[[T]], %{{.*}} : memref<64xf32>
// CHECK-NOT: gpu.launch
func.func @row_sum(%x: memref<64x1024xf32>, %init: f32) -> memref<64xf32> {
  %out = memref.alloc() : memref<64xf32>
  linalg.fill ins(%init : f32) outs(%out : memref<64xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x1024xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return %out : memref<64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// A column sum (a bias gradient) and a serial reduction (a running
// average), each after its fill, with an allocation and index arithmetic
// between: no fill kernels.
// CHECK-LABEL: func.func @columns_and_serial(
// CHECK-NOT: _elementwise
// CHECK: module(@columns_and_serial_reduce_columns_L
// CHECK: module(@columns_and_serial_reduce_combine_L
// CHECK: module(@columns_and_serial_reduce_serial_L
// CHECK-NOT: gpu.launch
func.func @columns_and_serial(%x: memref<128x256xf32>) -> (memref<256xf32>, memref<128xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<256xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<256xf32>)
  %r = memref.alloc() : memref<128xf32>
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<128x256xf32>) outs(%c : memref<256xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%r : memref<128xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<128x256xf32>) outs(%r : memref<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %k = arith.constant 0.9 : f32
    %d = arith.mulf %acc, %k : f32
    %s = arith.addf %d, %a : f32
    linalg.yield %s : f32
  }
  return %c, %r : memref<256xf32>, memref<128xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// Kept: a fill whose buffer is read before the reduction (by another op
// between them), a fill of a view of a buffer the reduction also reads,
// the output of a matrix product that also reads it (a zero fill of a
// product's output is the call's accumulate = 0 otherwise:
// linalg-to-gpu-matmul.mlir), and a fill
// of another buffer right before a reduction.
// CHECK-LABEL: func.func @kept(
// CHECK: module(@kept_elementwise_L[[#F:]]_kernel)
// CHECK: module(@kept_elementwise_L[[#F+1]]_kernel)
// CHECK: module(@kept_reduce_rows_L[[#F+2]]_kernel)
// CHECK: module(@kept_reduce_combine_L[[#F+2]]_kernel)
// CHECK: module(@kept_elementwise_L[[#F+9]]_kernel)
// CHECK: module(@kept_elementwise_scalar_L[[#F+11]]_kernel)
// CHECK: module(@kept_reduce_rows_L[[#F+12]]_kernel)
// CHECK: module(@kept_reduce_combine_L[[#F+12]]_kernel)
// CHECK: module(@kept_elementwise_L[[#F+19]]_kernel)
// CHECK: call @te_rt_mlir_matmul({{.*}}, %c1_i32{{[_0-9]*}})
// CHECK: module(@kept_elementwise_L[[#F+22]]_kernel)
// CHECK: module(@kept_elementwise_L[[#F+24]]_kernel)
// CHECK: module(@kept_reduce_rows_L[[#F+25]]_kernel)
func.func @kept(%x: memref<64x64xf32>, %y: memref<64x64xf32>, %side: memref<64xf32>) -> (memref<64xf32>, memref<64x64xf32>, memref<64x64xf32>, memref<64xf32>, memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<64xf32>)
  linalg.copy ins(%out : memref<64xf32>) outs(%side : memref<64xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  %sq = memref.alloc() : memref<64x64xf32>
  linalg.copy ins(%x : memref<64x64xf32>) outs(%sq : memref<64x64xf32>)
  %diag = memref.subview %sq[0, 0] [64, 1] [1, 1] : memref<64x64xf32> to memref<64xf32, strided<[64]>>
  linalg.fill ins(%zero : f32) outs(%diag : memref<64xf32, strided<[64]>>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%sq : memref<64x64xf32>) outs(%diag : memref<64xf32, strided<[64]>>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  %c = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%x, %c : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  %acc = memref.alloc() : memref<64xf32>
  linalg.copy ins(%side : memref<64xf32>) outs(%acc : memref<64xf32>)
  %other = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%other : memref<64xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x64xf32>) outs(%acc : memref<64xf32>) {
  ^bb0(%a: f32, %s0: f32):
    %s = arith.addf %s0, %a : f32
    linalg.yield %s : f32
  }
  return %out, %sq, %c, %acc, %other : memref<64xf32>, memref<64x64xf32>, memref<64x64xf32>, memref<64xf32>, memref<64xf32>
}
