// te-fuse-accumulate: gradient accumulation into fp32 inside the GEMM.
//
// RUN: te-opt %s --te-fuse-accumulate --split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
!xq = !te.qtensor<128x256xbf16, #te.current<f8E4M3FN>, columnwise>
!dyq = !te.qtensor<128x512xbf16, #te.current<f8E5M2>, columnwise>

// CHECK-LABEL: func.func @wgrad
// CHECK: %[[R:.*]] = te.gemm %{{.*}}, %{{.*}} layout NT accumulate(%{{.*}} : tensor<512x256xf32>) {use_split_accumulator}
// CHECK-SAME: -> tensor<512x256xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @wgrad(%x: !xq, %dy: !dyq, %acc: tensor<512x256xf32>) -> tensor<512x256xf32> {
  %g = te.gemm %x, %dy layout NT {use_split_accumulator} : !xq, !dyq -> tensor<512x256xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<512x256xbf16>) outs(%acc : tensor<512x256xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    %s = arith.addf %e, %out : f32
    linalg.yield %s : f32
  } -> tensor<512x256xf32>
  return %r : tensor<512x256xf32>
}

// -----

// Through the dynamic casts of a helper the accumulation was written in
// (after inlining).
// CHECK-LABEL: func.func @through_casts
// CHECK: %[[R:.*]] = te.gemm %{{.*}}, %{{.*}} layout NT accumulate(%{{.*}} : tensor<512x256xf32>)
// CHECK: tensor.cast %[[R]] : tensor<512x256xf32> to tensor<?x?xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
!xq = !te.qtensor<128x256xbf16, #te.current<f8E4M3FN>, columnwise>
!dyq = !te.qtensor<128x512xbf16, #te.current<f8E5M2>, columnwise>
func.func @through_casts(%x: !xq, %dy: !dyq, %acc: tensor<512x256xf32>) -> tensor<?x?xf32> {
  %g = te.gemm %x, %dy layout NT : !xq, !dyq -> tensor<512x256xbf16>
  %gc = tensor.cast %g : tensor<512x256xbf16> to tensor<?x?xbf16>
  %ac = tensor.cast %acc : tensor<512x256xf32> to tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gc : tensor<?x?xbf16>) outs(%ac : tensor<?x?xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    %s = arith.addf %out, %e : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Not fused: the GEMM's result is also returned (it must exist in bf16),
// the region scales before adding, or the GEMM adds a bias.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
!xq = !te.qtensor<128x256xbf16, #te.current<f8E4M3FN>, columnwise>
!dyq = !te.qtensor<128x512xbf16, #te.current<f8E5M2>, columnwise>
!wq = !te.qtensor<512x256xbf16, #te.current<f8E4M3FN>, rowwise>
!xr = !te.qtensor<128x256xbf16, #te.current<f8E4M3FN>, rowwise>
func.func @kept(%x: !xq, %dy: !dyq, %acc: tensor<512x256xf32>, %w: !wq, %xr: !xr,
                %b: tensor<512xbf16>, %acc2: tensor<128x512xf32>)
    -> (tensor<512x256xbf16>, tensor<512x256xf32>, tensor<512x256xf32>, tensor<128x512xf32>) {
  %g = te.gemm %x, %dy layout NT : !xq, !dyq -> tensor<512x256xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<512x256xbf16>) outs(%acc : tensor<512x256xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    %s = arith.addf %out, %e : f32
    linalg.yield %s : f32
  } -> tensor<512x256xf32>
  %g2 = te.gemm %x, %dy layout NT : !xq, !dyq -> tensor<512x256xbf16>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g2 : tensor<512x256xbf16>) outs(%acc : tensor<512x256xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    %h = arith.constant 0.5 : f32
    %m = arith.mulf %e, %h : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<512x256xf32>
  %y = te.gemm %w, %xr layout TN bias(%b : tensor<512xbf16>) : !wq, !xr -> tensor<128x512xbf16>
  %r3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<128x512xbf16>) outs(%acc2 : tensor<128x512xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    %s = arith.addf %out, %e : f32
    linalg.yield %s : f32
  } -> tensor<128x512xf32>
  return %g, %r, %r2, %r3 : tensor<512x256xbf16>, tensor<512x256xf32>, tensor<512x256xf32>, tensor<128x512xf32>
}
