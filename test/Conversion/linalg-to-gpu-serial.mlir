// te-linalg-to-gpu: a reduction that is not one associative combiner (an
// argmax's value and index, a running average, an accumulator used twice)
// runs one thread per output, walking the reduction loops in order from the
// output's initial values, with a remark; remarks=false silences it.
//
// RUN: te-opt %s --te-linalg-to-gpu --canonicalize --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sed -e "s/expected-remark.*//" %s | te-opt --te-linalg-to-gpu="remarks=false" --split-input-file 2>&1 | FileCheck %s --check-prefix=QUIET
// QUIET-NOT: remark

#in = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// Argmax over rows: 16 outputs (one block of 256 threads, 16 active), 1000
// steps each; both outputs' initial values loaded, carried and stored.
// CHECK-LABEL: func.func @argmax
// CHECK-DAG: %[[C1000:.*]] = arith.constant 1000 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}) {{.*}}function(@argmax_reduce_serial_L{{[0-9]+}}_kernel)
// CHECK: arith.cmpi ult, %[[P:.*]], %[[C16]]
// CHECK: %[[M0:.*]] = memref.load %{{.*}}[%[[P]]] : memref<16xf32>
// CHECK: %[[I0:.*]] = memref.load %{{.*}}[%[[P]]] : memref<16xi32>
// CHECK: %[[R:.*]]:2 = scf.for %[[J:.*]] = %{{.*}} to %[[C1000]] step %{{.*}} iter_args(%[[M:.*]] = %[[M0]], %[[I:.*]] = %[[I0]])
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%[[P]], %[[J]]] : memref<16x1000xf32>
// CHECK: arith.index_cast %[[J]] : index to i32
// CHECK: arith.cmpf ogt, %[[X]], %[[M]]
// CHECK: scf.yield
// CHECK: memref.store %[[R]]#0, %{{.*}}[%[[P]]] : memref<16xf32>
// CHECK: memref.store %[[R]]#1, %{{.*}}[%[[P]]] : memref<16xi32>
// CHECK-NOT: gpu.launch
func.func @argmax(%x: memref<16x1000xf32>, %m: memref<16xf32>, %i: memref<16xi32>) {
  // expected-remark @+1 {{te-linalg-to-gpu: this reduction runs one GPU thread per output, walking its reduction loops in order (its region is not `combine(acc, value)` with one associative combiner and it has 2 outputs)}}
  linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x1000xf32>) outs(%m, %i : memref<16xf32>, memref<16xi32>) {
  ^bb0(%a: f32, %mx: f32, %idx: i32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %a, %mx : f32
    %nm = arith.select %gt, %a, %mx : f32
    %ni = arith.select %gt, %ji, %idx : i32
    linalg.yield %nm, %ni : f32, i32
  }
  return
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// A running average down the columns (not associative): one thread per
// column, adjacent threads on adjacent columns; the rows in order.
// CHECK-LABEL: func.func @ema_columns
// CHECK: gpu.launch {{.*}}function(@ema_columns_reduce_serial_L{{[0-9]+}}_kernel)
// CHECK: %[[P:.*]] = arith.addi
// CHECK: arith.cmpi ult, %[[P]], %c512
// CHECK: scf.for %[[R:.*]] = {{.*}} iter_args(%[[ACC:.*]] = {{.*}}) -> (f32)
// CHECK: memref.load %{{.*}}[%[[R]], %[[P]]] : memref<?x512xf32>
// CHECK: arith.mulf %[[ACC]]
func.func @ema_columns(%x: memref<?x512xf32>, %s: memref<512xf32>) {
  %d = arith.constant 0.9 : f32
  // expected-remark @+1 {{runs one GPU thread per output}}
  linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<?x512xf32>) outs(%s : memref<512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.mulf %acc, %d : f32
    %r = arith.addf %m, %a : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
// One output: one thread; an accumulator used twice (acc * acc + x).
// CHECK-LABEL: func.func @acc_reused
// CHECK: gpu.launch {{.*}}function(@acc_reused_reduce_serial_L{{[0-9]+}}_kernel)
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = {{.*}}) -> (f32)
// CHECK: arith.mulf %[[ACC]], %[[ACC]]
func.func @acc_reused(%x: memref<1024xf32>, %r: memref<f32>) {
  // expected-remark @+1 {{runs one GPU thread per output}}
  linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]}
      ins(%x : memref<1024xf32>) outs(%r : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %acc, %acc : f32
    %s = arith.addf %sq, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#lab = affine_map<(d0, d1) -> (d0)>
#scalar = affine_map<(d0, d1) -> ()>
// The associative form keeps its parallel kernels; linalg.index of the
// reduced innermost loop on 4 lanes is a constant vector of lane offsets
// added to the broadcast index (vector.step has no NVVM lowering).
// CHECK-LABEL: func.func @picked_logit
// CHECK: %[[STEP:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
// CHECK-NOT: vector.step
// CHECK: gpu.launch {{.*}}function(@picked_logit_reduce_rows_L{{[0-9]+}}_kernel)
// CHECK: arith.addi %{{.*}}, %[[STEP]] : vector<4xindex>
// CHECK-NOT: reduce_serial
func.func @picked_logit(%l: memref<32x100xf32>, %lab: memref<32xi64>, %s: memref<f32>) {
  %z = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#in, #lab, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%l, %lab : memref<32x100xf32>, memref<32xi64>) outs(%s : memref<f32>) {
  ^bb0(%x: f32, %y: i64, %acc: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %hit = arith.cmpi eq, %ji, %y : i64
    %v = arith.select %hit, %x, %z : f32
    %r = arith.addf %acc, %v : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// Independent outputs (a sum and a sum of squares: each yield reads the
// inputs and its own accumulator only) are one reduction each, on the
// parallel kernels; no remark.
// CHECK-LABEL: func.func @moments
// CHECK: gpu.launch {{.*}}function(@moments_reduce_rows_L{{[0-9]+}}_kernel)
// CHECK: arith.addf
// CHECK-NOT: arith.mulf
// CHECK: gpu.launch {{.*}}function(@moments_reduce_combine_L{{[0-9]+}}_kernel)
// CHECK: gpu.launch {{.*}}function(@moments_reduce_rows_L{{[0-9]+}}_kernel_0)
// CHECK: arith.mulf
// CHECK: gpu.launch {{.*}}function(@moments_reduce_combine_L{{[0-9]+}}_kernel_0)
// CHECK-NOT: reduce_serial
func.func @moments(%x: memref<64x4096xbf16>, %s: memref<64xf32>, %q: memref<64xf32>) {
  linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x4096xbf16>) outs(%s, %q : memref<64xf32>, memref<64xf32>) {
  ^bb0(%a: bf16, %acc: f32, %acc2: f32):
    %f = arith.extf %a : bf16 to f32
    %r = arith.addf %acc, %f : f32
    %f2 = arith.mulf %f, %f : f32
    %r2 = arith.addf %acc2, %f2 : f32
    linalg.yield %r, %r2 : f32, f32
  }
  return
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// Independent outputs in one buffer, or an output that is also an input
// (through a subview): one op's writes would reach the other's reads, so
// they stay one serial reduction.
// CHECK-LABEL: func.func @shared_buffers
// CHECK: gpu.launch {{.*}}function(@shared_buffers_reduce_serial_L{{[0-9]+}}_kernel)
// CHECK: gpu.launch {{.*}}function(@shared_buffers_reduce_serial_L{{[0-9]+}}_kernel)
// CHECK-NOT: reduce_rows
func.func @shared_buffers(%x: memref<64x512xf32>, %s: memref<64xf32>, %t: memref<128xf32>) {
  // expected-remark @+1 {{runs one GPU thread per output}}
  linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x512xf32>) outs(%s, %s : memref<64xf32>, memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32, %acc2: f32):
    %r = arith.addf %acc, %a : f32
    %r2 = arith.maximumf %acc2, %a : f32
    linalg.yield %r, %r2 : f32, f32
  }
  %lo = memref.subview %t[0] [64] [1] : memref<128xf32> to memref<64xf32, strided<[1]>>
  %hi = memref.subview %t[64] [64] [1] : memref<128xf32> to memref<64xf32, strided<[1], offset: 64>>
  // expected-remark @+1 {{runs one GPU thread per output}}
  linalg.generic {indexing_maps = [#in, #row, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %lo : memref<64x512xf32>, memref<64xf32, strided<[1]>>) outs(%s, %hi : memref<64xf32>, memref<64xf32, strided<[1], offset: 64>>) {
  ^bb0(%a: f32, %b: f32, %acc: f32, %acc2: f32):
    %r = arith.addf %acc, %a : f32
    %m = arith.mulf %a, %b : f32
    %r2 = arith.addf %acc2, %m : f32
    linalg.yield %r, %r2 : f32, f32
  }
  return
}
