// te-fuse-elementwise's statistics (-mlir-pass-statistics). Counted only
// where LLVM counts statistics (a build with assertions or
// LLVM_FORCE_ENABLE_STATS: lit feature pass-statistics).
//
// REQUIRES: pass-statistics
// RUN: te-opt %s --te-fuse-elementwise -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// A broadcast, an add and an exp generalized; the three fused into the
// last op.
// CHECK: Pass statistics report
// CHECK: TEFuseElementwise
// CHECK-DAG: (S) 3 generalized - named elementwise ops generalized
// CHECK-DAG: (S) 3 fused - producers fused into their consumer

#id = affine_map<(d0, d1) -> (d0, d1)>
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
