// Delayed scaling executed end to end (te-pipeline, te-run on the cpu
// backend): te.amax and te.update_scale against values computed by hand from
// docs/formats.md §3.1, te.allreduce_max through a single-rank CPU group
// registered by te-run (--comm-group), and a Linear forward + backward in
// delayed scaling (te.quantize with live scales + te.gemm TN/NN/NT; te.linear
// refuses delayed scaling) against its high-precision twin.
//
// @update: x has amax 3.5; the history (L = 4) is [9, 2, 7, 1] (element 0
// is replaced by the step's amax). The roll gives [0, old[2], old[3], last]
// = [0, 7, 1, 3.5].
//  * E4M3, algo max, margin 0: a = max(2, 7, 1, 3.5) = 7, scale = 448 / 7
//    = 64.
//  * E5M2, algo most_recent, margin 1: a = 3.5, scale = 57344 / 2 / 3.5 =
//    8192.
//  * E4M3, algo most_recent, amax 0 (an all-zero tensor): the scale is kept
//    (0.25); the history still rolls: [0, 7, 1, 0].
// RUN: te-run %s --entry update | FileCheck %s --check-prefix=UPDATE
// UPDATE: result 0: f32 min 3.5 max 3.5
// UPDATE-NEXT: result 1: f32 min 0 max 0
// UPDATE-NEXT: result 2: f32 min 7 max 7
// UPDATE-NEXT: result 3: f32 min 1 max 1
// UPDATE-NEXT: result 4: f32 min 3.5 max 3.5
// UPDATE-NEXT: result 5: f32 min 64 max 64
// UPDATE-NEXT: result 6: f32 min 8192 max 8192
// UPDATE-NEXT: result 7: f32 min 0.25 max 0.25
// UPDATE-NEXT: result 8: f32 min 0 max 0
//
// @allreduce: a group of one rank returns its input (the amax, 3.5).
// RUN: te-run %s --entry allreduce --comm-group tp=cpu:1 | FileCheck %s --check-prefix=REDUCE
// REDUCE: result 0: f32 min 3.5 max 3.5
// Without a registered group the compiled code reports the runtime's error.
// RUN: not te-run %s --entry allreduce 2>&1 | FileCheck %s --check-prefix=NOGROUP
// NOGROUP: te-run: runtime error in te.allreduce_max: no communicator is registered for process group 'tp' on this thread (te_rt_comm_register_group; te-run --comm-group tp=cpu:1)
// RUN: not te-run %s --entry allreduce --comm-group dp=cpu:1 2>&1 | FileCheck %s --check-prefix=NOGROUP
// RUN: not te-run %s --entry allreduce --comm-group tp=cpu:2 2>&1 | FileCheck %s --check-prefix=BADSPEC
// BADSPEC: te-run: --comm-group 'tp=cpu:2': expected NAME=cpu:1 or NAME=nccl:1 (te-run runs one rank)
// RUN: not te-run %s --entry allreduce --comm-group tp=nccl:1 2>&1 | FileCheck %s --check-prefix=NCCLCPU
// NCCLCPU: te-run: --comm-group 'tp=nccl:1': a NCCL communicator needs --backend cuda
// RUN: not te-run %s --entry allreduce --comm-group tp=cpu:1 --comm-group tp=cpu:1 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: te-run: --comm-group 'tp=cpu:1': process group 'tp' is already registered on this thread
//
// @linear: Y = X W^T + b (E4M3), dX = dY W and dW = dY^T X (dY in E5M2,
// HYBRID), db = the sum of dY's rows, each scale 448 / amax (57344 / amax
// for dY) computed in the program with te.amax. Bounds as linear.mlir
// (docs/formats.md §8): normwise relative error 0.06 for Y, 0.12 for the
// gradients (the first run checks only Y and db against 0.06); db is not
// quantized (bit-exact).
// RUN: rm -rf %t && mkdir -p %t
// RUN: te-run %s --entry linear --reference --seed 4 --output-dir %t --quiet
// RUN: te-run %s --entry linear --seed 4 --atol 1e30 --max-rel-err 0.06 --compare %t/result0.npy --compare %t/result1.npy --compare %t/result2.npy --compare %t/result3.npy > %t/fprop.txt || true
// RUN: FileCheck %s --check-prefix=FPROP < %t/fprop.txt
// RUN: te-run %s --entry linear --seed 4 --atol 1e30 --max-rel-err 0.12 --exact 3 --compare %t/result0.npy --compare %t/result1.npy --compare %t/result2.npy --compare %t/result3.npy | FileCheck %s --check-prefix=LINEAR
// FPROP: result 0: PASS
// FPROP: result 3: PASS
// LINEAR: result 0: PASS
// LINEAR: result 1: PASS
// LINEAR: result 2: PASS
// LINEAR: result 3: PASS

#id1 = affine_map<(d0) -> (d0)>

func.func @update() -> (f32, f32, f32, f32, f32, f32, f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %x = arith.constant dense<[[1.0, -3.5, 2.0, 0.25], [0.5, -0.125, 3.0, -1.0]]> : tensor<2x4xf32>
  %h = arith.constant dense<[9.0, 2.0, 7.0, 1.0]> : tensor<4xf32>
  %s = arith.constant dense<0.25> : tensor<1xf32>
  %zeros = arith.constant dense<0.0> : tensor<2x4xbf16>
  %a = te.amax %x : tensor<2x4xf32>
  %h1, %s1 = te.update_scale %a, %h, %s
      {quantizer = #te.delayed<f8E4M3FN, history = 4>} : tensor<4xf32>
  %h2, %s2 = te.update_scale %a, %h, %s
      {quantizer = #te.delayed<f8E5M2, margin = 1, history = 4, algo = most_recent>} : tensor<4xf32>
  %z = te.amax %zeros : tensor<2x4xbf16>
  %h3, %s3 = te.update_scale %z, %h, %s
      {quantizer = #te.delayed<f8E4M3FN, history = 4, algo = most_recent>} : tensor<4xf32>
  %a0 = tensor.extract %a[%c0] : tensor<1xf32>
  %n0 = tensor.extract %h1[%c0] : tensor<4xf32>
  %n1 = tensor.extract %h1[%c1] : tensor<4xf32>
  %n2 = tensor.extract %h1[%c2] : tensor<4xf32>
  %n3 = tensor.extract %h1[%c3] : tensor<4xf32>
  %v1 = tensor.extract %s1[%c0] : tensor<1xf32>
  %v2 = tensor.extract %s2[%c0] : tensor<1xf32>
  %v3 = tensor.extract %s3[%c0] : tensor<1xf32>
  %z3 = tensor.extract %h3[%c3] : tensor<4xf32>
  return %a0, %n0, %n1, %n2, %n3, %v1, %v2, %v3, %z3 : f32, f32, f32, f32, f32, f32, f32, f32, f32
}

func.func @allreduce() -> (f32, tensor<1xf32>) {
  %c0 = arith.constant 0 : index
  %x = arith.constant dense<[[1.0, -3.5], [2.0, 0.25]]> : tensor<2x2xf32>
  %a = te.amax %x : tensor<2x2xf32>
  %r = te.allreduce_max %a group "tp" : tensor<1xf32>
  %v = tensor.extract %r[%c0] : tensor<1xf32>
  return %v, %r : f32, tensor<1xf32>
}

// scale = fp8_max / amax (tensor<1xf32>).
func.func private @scale_of(%a: tensor<1xf32>, %fp8max: f32) -> tensor<1xf32> {
  %init = tensor.empty() : tensor<1xf32>
  %s = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%a : tensor<1xf32>) outs(%init : tensor<1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.divf %fp8max, %in : f32
    linalg.yield %q : f32
  } -> tensor<1xf32>
  return %s : tensor<1xf32>
}

func.func @linear(%x: tensor<32x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<32x64xf32>)
    -> (tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>) {
  %e4m3 = arith.constant 448.0 : f32
  %e5m2 = arith.constant 57344.0 : f32
  %ax = te.amax %x : tensor<32x128xf32>
  %aw = te.amax %w : tensor<64x128xf32>
  %ady = te.amax %dy : tensor<32x64xf32>
  %sx = func.call @scale_of(%ax, %e4m3) : (tensor<1xf32>, f32) -> tensor<1xf32>
  %sw = func.call @scale_of(%aw, %e4m3) : (tensor<1xf32>, f32) -> tensor<1xf32>
  %sdy = func.call @scale_of(%ady, %e5m2) : (tensor<1xf32>, f32) -> tensor<1xf32>
  %xq, %xa = te.quantize %x scale %sx : tensor<32x128xf32>
      -> !te.qtensor<32x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, tensor<1xf32>
  %wq, %wa = te.quantize %w scale %sw : tensor<64x128xf32>
      -> !te.qtensor<64x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, tensor<1xf32>
  %dyq, %dya = te.quantize %dy scale %sdy : tensor<32x64xf32>
      -> !te.qtensor<32x64xf32, #te.delayed<f8E5M2>, rowwise|columnwise>, tensor<1xf32>
  %y = te.gemm %wq, %xq layout TN bias(%b : tensor<64xf32>)
      : !te.qtensor<64x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>,
        !te.qtensor<32x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xf32>
  %dx = te.gemm %wq, %dyq layout NN {use_split_accumulator}
      : !te.qtensor<64x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>,
        !te.qtensor<32x64xf32, #te.delayed<f8E5M2>, rowwise|columnwise> -> tensor<32x128xf32>
  %dw = te.gemm %xq, %dyq layout NT {use_split_accumulator}
      : !te.qtensor<32x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>,
        !te.qtensor<32x64xf32, #te.delayed<f8E5M2>, rowwise|columnwise> -> tensor<64x128xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %db = linalg.reduce ins(%dy : tensor<32x64xf32>) outs(%z : tensor<64xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %y, %dx, %dw, %db : tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>
}
