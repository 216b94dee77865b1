// Reductions as users write them, on the cpu backend against results
// computed independently in Python (Inputs/reductions.py): an argmax (two
// outputs), a running average down the columns of a dynamic batch, a
// softmax cross-entropy loss whose labels come from linalg.index,
// Welford's mean and variance (two outputs, the accumulators used beyond
// one associative combiner), and a sum with a sum of squares in one op. On
// GPU targets the running average and Welford's run one thread per output
// (te-linalg-to-gpu remarks on each); the argmax is two parallel reductions
// (te-split-arg-reductions), the loss's reductions are parallel, and so are
// the two sums, split into one reduction each.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/reductions.py %t
// RUN: te-run %s --entry argmax --input %t/argmax.in0.npy --compare %t/argmax.want0.npy --compare %t/argmax.want1.npy | FileCheck %s --check-prefix=TWO
// RUN: te-run %s --entry ema --input %t/ema.in0.npy --rtol 1e-5 --atol 1e-5 --compare %t/ema.want0.npy | FileCheck %s --check-prefix=ONE
// RUN: te-run %s --entry xent --input %t/xent.in0.npy --rtol 1e-5 --compare %t/xent.want0.npy | FileCheck %s --check-prefix=ONE
// RUN: te-run %s --entry welford --input %t/welford.in0.npy --rtol 1e-4 --atol 1e-5 --compare %t/welford.want0.npy --compare %t/welford.want1.npy | FileCheck %s --check-prefix=TWO
// RUN: te-run %s --entry moments --input %t/moments.in0.npy --rtol 1e-5 --atol 1e-3 --compare %t/moments.want0.npy --compare %t/moments.want1.npy | FileCheck %s --check-prefix=TWO
// ONE: result 0: PASS
// TWO: result 0: PASS
// TWO: result 1: PASS
//
// Generated inputs (scripts/gpu/gpu-programs.py compiles these entries for the
// GPU check, which compares the cuda backend with the cpu backend).
// RUN: te-run %s --entry argmax --seed 3 | FileCheck %s --check-prefix=SEEDED
// RUN: te-run %s --entry ema --seed 3 --dynamic-dim 300 | FileCheck %s --check-prefix=SEEDED
// RUN: te-run %s --entry xent --seed 3 | FileCheck %s --check-prefix=SEEDED
// RUN: te-run %s --entry welford --seed 3 | FileCheck %s --check-prefix=SEEDED
// RUN: te-run %s --entry moments --seed 3 | FileCheck %s --check-prefix=SEEDED
// SEEDED: result 0:
//
// The GPU lowering (PTX: no CUDA toolkit needed).
// RUN: te-opt %s --te-pipeline="target=sm_90 gpu-format=isa" 2>&1 | FileCheck %s --check-prefix=GPU
// GPU-DAG: remark: te-linalg-to-gpu: this reduction runs one GPU thread per output{{.*}}and it has 2 outputs)
// GPU-DAG: gpu.binary @argmax_reduce_rows_L{{[0-9]+}}_kernel
// GPU-DAG: gpu.binary @ema_reduce_serial_L{{[0-9]+}}_kernel
// GPU-DAG: gpu.binary @xent_reduce_rows_L{{[0-9]+}}_kernel
// GPU-DAG: gpu.binary @welford_reduce_serial_L{{[0-9]+}}_kernel
// GPU-DAG: gpu.binary @moments_reduce_rows_L{{[0-9]+}}_kernel
// GPU-DAG: gpu.binary @moments_reduce_rows_L{{[0-9]+}}_kernel_0
// GPU-NOT: moments_reduce_serial
// GPU-NOT: argmax_reduce_serial
// GPU-NOT: vector.step

#in = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
#all = affine_map<(i, j) -> ()>

func.func @argmax(%x: tensor<64x1000xf32>) -> (tensor<64xf32>, tensor<64xi32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i32
  %m0 = tensor.empty() : tensor<64xf32>
  %i0 = tensor.empty() : tensor<64xi32>
  %m1 = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<64xf32>) -> tensor<64xf32>
  %i1 = linalg.fill ins(%c0 : i32) outs(%i0 : tensor<64xi32>) -> tensor<64xi32>
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x1000xf32>) outs(%m1, %i1 : tensor<64xf32>, tensor<64xi32>) {
  ^bb0(%a: f32, %m: f32, %idx: i32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %a, %m : f32
    %nm = arith.select %gt, %a, %m : f32
    %ni = arith.select %gt, %ji, %idx : i32
    linalg.yield %nm, %ni : f32, i32
  } -> (tensor<64xf32>, tensor<64xi32>)
  return %r#0, %r#1 : tensor<64xf32>, tensor<64xi32>
}

func.func @ema(%x: tensor<?x512xf32>) -> tensor<512xf32> {
  %zero = arith.constant 0.0 : f32
  %decay = arith.constant 0.9 : f32
  %e = tensor.empty() : tensor<512xf32>
  %a0 = linalg.fill ins(%zero : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %a = linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x512xf32>) outs(%a0 : tensor<512xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.mulf %acc, %decay : f32
    %r = arith.addf %s, %v : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  return %a : tensor<512xf32>
}

func.func @xent(%logits: tensor<128x100xf32>) -> tensor<f32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = arith.constant 128.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %max = linalg.reduce ins(%logits : tensor<128x100xf32>) outs(%m0 : tensor<128xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %r = arith.maximumf %v, %acc : f32
      linalg.yield %r : f32
    }
  %s0 = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %sum = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%logits, %max : tensor<128x100xf32>, tensor<128xf32>) outs(%s0 : tensor<128xf32>) {
  ^bb0(%v: f32, %m: f32, %acc: f32):
    %d = arith.subf %v, %m : f32
    %x = math.exp %d : f32
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<128xf32>
  // The loss: sum over rows of max + log(sum) - logits[i, label(i)].
  %t = tensor.empty() : tensor<f32>
  %l0 = linalg.fill ins(%zero : f32) outs(%t : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#in, #row, #row, #all], iterator_types = ["reduction", "reduction"]}
      ins(%logits, %max, %sum : tensor<128x100xf32>, tensor<128xf32>, tensor<128xf32>) outs(%l0 : tensor<f32>) {
  ^bb0(%v: f32, %m: f32, %s: f32, %acc: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c37 = arith.constant 37 : index
    %c100 = arith.constant 100 : index
    %i37 = arith.muli %i, %c37 : index
    %label = arith.remui %i37, %c100 : index
    %first = arith.cmpi eq, %j, %label : index
    %log = math.log %s : f32
    %lse = arith.addf %m, %log : f32
    %term = arith.subf %lse, %v : f32
    %c = arith.select %first, %term, %zero : f32
    %r = arith.addf %acc, %c : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %mean = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%loss : tensor<f32>) outs(%t : tensor<f32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.divf %v, %rows : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %mean : tensor<f32>
}

func.func @welford(%x: tensor<32x4096xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x4096xf32>) outs(%z, %z : tensor<32xf32>, tensor<32xf32>) {
  ^bb0(%v: f32, %mean: f32, %m2: f32):
    %j = linalg.index 1 : index
    %j1 = arith.index_cast %j : index to i64
    %one = arith.constant 1 : i64
    %n = arith.addi %j1, %one : i64
    %nf = arith.sitofp %n : i64 to f32
    %delta = arith.subf %v, %mean : f32
    %step = arith.divf %delta, %nf : f32
    %mean1 = arith.addf %mean, %step : f32
    %delta2 = arith.subf %v, %mean1 : f32
    %sq = arith.mulf %delta, %delta2 : f32
    %m21 = arith.addf %m2, %sq : f32
    linalg.yield %mean1, %m21 : f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>)
  return %r#0, %r#1 : tensor<32xf32>, tensor<32xf32>
}

func.func @moments(%x: tensor<64x2048xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x2048xf32>) outs(%z, %z : tensor<64xf32>, tensor<64xf32>) {
  ^bb0(%v: f32, %s: f32, %q: f32):
    %s1 = arith.addf %s, %v : f32
    %v2 = arith.mulf %v, %v : f32
    %q1 = arith.addf %q, %v2 : f32
    linalg.yield %s1, %q1 : f32, f32
  } -> (tensor<64xf32>, tensor<64xf32>)
  return %r#0, %r#1 : tensor<64xf32>, tensor<64xf32>
}
