// Gradient clipping by global norm, as a training step writes it: a sum of
// squares (a reduction to one value), its square root read on the host
// (tensor.extract: on GPU targets one te_rt_mlir_read), a branch on it, and
// an elementwise op scaled by a host scalar. Against Python
// (Inputs/clip-gradients.py): clipped to norm 10, and untouched (the same
// bits) when the norm is below the bound.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/clip-gradients.py %t
// RUN: te-run %s --entry clip --input %t/g.npy --input 10 --rtol 1e-5 --atol 1e-7 --compare %t/clipped.npy --compare %t/norm.npy | FileCheck %s --check-prefix=CLIP
// CLIP: result 0: PASS
// CLIP: result 1: PASS
// RUN: te-run %s --entry clip --input %t/g.npy --input 1000 --rtol 1e-5 --compare %t/g.npy --exact 0 --compare %t/norm.npy | FileCheck %s --check-prefix=KEEP
// KEEP: result 0: PASS
// KEEP: result 1: PASS
//
// Generated inputs for the GPU check (both branches).
// RUN: te-run %s --entry clip --seed 3 --fill 1=10 | FileCheck %s --check-prefix=SEEDED
// RUN: te-run %s --entry clip --seed 3 --fill 1=100000 | FileCheck %s --check-prefix=SEEDED
// SEEDED: result 1: f32
//
// On sm_90 the norm is the one value the host reads.
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" | FileCheck %s --check-prefix=GPU
// GPU-COUNT-1: call @te_rt_mlir_read
// GPU-NOT: call @te_rt_mlir_read

func.func @clip(%g: tensor<512x256xf32>, %maxnorm: f32) -> (tensor<512x256xf32>, tensor<f32>) {
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %s0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %ss = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%g : tensor<512x256xf32>) outs(%s0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %acc, %sq : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %norm = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%ss : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.sqrt %a : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %n = tensor.extract %norm[] : tensor<f32>
  %big = arith.cmpf ogt, %n, %maxnorm : f32
  %r = scf.if %big -> tensor<512x256xf32> {
    %scale = arith.divf %maxnorm, %n : f32
    %e = tensor.empty() : tensor<512x256xf32>
    %c = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%g : tensor<512x256xf32>) outs(%e : tensor<512x256xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.mulf %a, %scale : f32
      linalg.yield %m : f32
    } -> tensor<512x256xf32>
    scf.yield %c : tensor<512x256xf32>
  } else {
    scf.yield %g : tensor<512x256xf32>
  }
  return %r, %norm : tensor<512x256xf32>, tensor<f32>
}
