// Quantizations of computed tensors, run with te-fuse-quantize (the producer
// evaluated inside the runtime's quantize: te_rt_mlir_quantize_produced) and
// without it (fuse-quantize=false: the producer's kernel writes the tensor,
// te_rt_mlir_quantize reads it): every quantized buffer, scale and amax, and
// every other result, bit for bit the same on the cpu backend. Every recipe
// (current, delayed, 1x128 and 128x128 blocks, MXFP8, NVFP4 with and without
// stochastic rounding), rowwise and columnwise, odd sizes, a dynamic batch,
// a value another op reads too (written by the fused kernel), a scalar
// argument inside the producer, row statistics and 3-D tensors.
//
// RUN: rm -rf %t && mkdir -p %t
//
// Each entry fuses (the pipeline's remarks say so, te-fuse-quantize's
// lit tests check them); here the lowered calls:
// RUN: te-opt %s --te-pipeline="target=cpu lower-to-llvm=false remarks=false" | FileCheck %s --check-prefix=CALLS --implicit-check-not="call @te_rt_mlir_quantize("
// RUN: te-opt %s --te-pipeline="target=cpu lower-to-llvm=false fuse-quantize=false remarks=false" | FileCheck %s --check-prefix=UNFUSED
// CALLS-COUNT-9: call @te_rt_mlir_quantize_produced(
// UNFUSED-NOT: te_rt_mlir_quantize_produced
//
// And for sm_90 (run on a GPU by scripts/gpu-check.sh):
// RUN: te-opt %s --te-pipeline="target=sm_90 gpu-format=isa remarks=false" -o /dev/null
//
// RUN: te-run %s --entry gelu_current --seed 1 --pipeline-options "fuse-quantize=false" --output-dir %t/u1 --quiet
// RUN: te-run %s --entry gelu_current --seed 1 --quiet --compare %t/u1/result0.npy --compare %t/u1/result1.npy --compare %t/u1/result2.npy | FileCheck %s --check-prefix=R3
//
// RUN: te-run %s --entry gelu_erf_delayed --seed 2 --fill 2=0.5 --pipeline-options "fuse-quantize=false" --output-dir %t/u2 --quiet
// RUN: te-run %s --entry gelu_erf_delayed --seed 2 --fill 2=0.5 --quiet --compare %t/u2/result0.npy --compare %t/u2/result1.npy --compare %t/u2/result2.npy --compare %t/u2/result3.npy | FileCheck %s --check-prefix=R4
//
// RUN: te-run %s --entry silu_block --seed 3 --pipeline-options "fuse-quantize=false" --output-dir %t/u3 --quiet
// RUN: te-run %s --entry silu_block --seed 3 --quiet --compare %t/u3/result0.npy --compare %t/u3/result1.npy --compare %t/u3/result2.npy --compare %t/u3/result3.npy | FileCheck %s --check-prefix=R4
//
// RUN: te-run %s --entry swiglu_block2d --seed 4 --pipeline-options "fuse-quantize=false" --output-dir %t/u4 --quiet
// RUN: te-run %s --entry swiglu_block2d --seed 4 --quiet --compare %t/u4/result0.npy --compare %t/u4/result1.npy --compare %t/u4/result2.npy --compare %t/u4/result3.npy | FileCheck %s --check-prefix=R4
//
// RUN: te-run %s --entry layernorm_mxfp8 --seed 5 --pipeline-options "fuse-quantize=false" --output-dir %t/u5 --quiet
// RUN: te-run %s --entry layernorm_mxfp8 --seed 5 --quiet --compare %t/u5/result0.npy --compare %t/u5/result1.npy --compare %t/u5/result2.npy --compare %t/u5/result3.npy | FileCheck %s --check-prefix=R4
//
// RUN: te-run %s --entry residual_nvfp4 --seed 6 --pipeline-options "fuse-quantize=false" --output-dir %t/u6 --quiet
// RUN: te-run %s --entry residual_nvfp4 --seed 6 --quiet --compare %t/u6/result0.npy --compare %t/u6/result1.npy --compare %t/u6/result2.npy --compare %t/u6/result3.npy --compare %t/u6/result4.npy --compare %t/u6/result5.npy | FileCheck %s --check-prefix=R6
//
// RUN: te-run %s --entry relu_nvfp4_sr --seed 7 --fill 1=11 --fill 2=3 --pipeline-options "fuse-quantize=false" --output-dir %t/u7 --quiet
// RUN: te-run %s --entry relu_nvfp4_sr --seed 7 --fill 1=11 --fill 2=3 --quiet --compare %t/u7/result0.npy --compare %t/u7/result1.npy --compare %t/u7/result2.npy | FileCheck %s --check-prefix=R3
//
// A dynamic batch of 37 rows, the value also read by a column sum, a
// scalar argument in the body:
// RUN: te-run %s --entry dgelu_dbias_dynamic --seed 8 --dynamic-dim 37 --fill 2=0.125 --pipeline-options "fuse-quantize=false" --output-dir %t/u8 --quiet
// RUN: te-run %s --entry dgelu_dbias_dynamic --seed 8 --dynamic-dim 37 --fill 2=0.125 --quiet --compare %t/u8/result0.npy --compare %t/u8/result1.npy --compare %t/u8/result2.npy --compare %t/u8/result3.npy | FileCheck %s --check-prefix=R4
// RUN: te-run %s --entry dgelu_dbias_dynamic --seed 9 --dynamic-dim 1 --fill 2=0.125 --pipeline-options "fuse-quantize=false" --output-dir %t/u9 --quiet
// RUN: te-run %s --entry dgelu_dbias_dynamic --seed 9 --dynamic-dim 1 --fill 2=0.125 --quiet --compare %t/u9/result0.npy --compare %t/u9/result1.npy --compare %t/u9/result2.npy --compare %t/u9/result3.npy | FileCheck %s --check-prefix=R4
//
// RUN: te-run %s --entry many_ops --seed 10 --pipeline-options "fuse-quantize=false" --output-dir %t/u10 --quiet
// RUN: te-run %s --entry many_ops --seed 10 --quiet --compare %t/u10/result0.npy --compare %t/u10/result1.npy --compare %t/u10/result2.npy | FileCheck %s --check-prefix=R3
//
// R3-COUNT-3: : PASS vs
// R3-NOT: FAIL
// R4-COUNT-4: : PASS vs
// R4-NOT: FAIL
// R6-COUNT-6: : PASS vs
// R6-NOT: FAIL

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// Bias + GELU (tanh), 37 x 48, current scaling, both copies.
func.func @gelu_current(%h: tensor<37x48xbf16>, %b: tensor<48xbf16>)
    -> !te.qtensor<37x48xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> {
  %init = tensor.empty() : tensor<37x48xbf16>
  %a = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b : tensor<37x48xbf16>, tensor<48xbf16>) outs(%init : tensor<37x48xbf16>) {
  ^bb0(%in: bf16, %bias: bf16, %out: bf16):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k = arith.constant 0.797884583 : f32
    %c = arith.constant 0.044715 : f32
    %xf = arith.extf %in : bf16 to f32
    %bf = arith.extf %bias : bf16 to f32
    %x = arith.addf %xf, %bf : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %cx3 = arith.mulf %c, %x3 : f32
    %s = arith.addf %x, %cx3 : f32
    %u = arith.mulf %k, %s : f32
    %t = math.tanh %u : f32
    %opt = arith.addf %one, %t : f32
    %hx = arith.mulf %half, %x : f32
    %g = arith.mulf %hx, %opt : f32
    %r = arith.truncf %g : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<37x48xbf16>
  %q = te.quantize %a : tensor<37x48xbf16> -> !te.qtensor<37x48xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return %q : !te.qtensor<37x48xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
}

// GELU (erf) in f32 with delayed scaling: the live scale in, the amax out.
func.func @gelu_erf_delayed(%h: tensor<37x48xf32>, %b: tensor<48xf32>, %s: tensor<1xf32>)
    -> (!te.qtensor<37x48xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<37x48xf32>
  %a = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b : tensor<37x48xf32>, tensor<48xf32>) outs(%init : tensor<37x48xf32>) {
  ^bb0(%xi: f32, %bi: f32, %out: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rs2 = arith.constant 0.707106769 : f32
    %x = arith.addf %xi, %bi : f32
    %u = arith.mulf %x, %rs2 : f32
    %e = math.erf %u : f32
    %p = arith.addf %e, %one : f32
    %hx = arith.mulf %x, %half : f32
    %g = arith.mulf %hx, %p : f32
    linalg.yield %g : f32
  } -> tensor<37x48xf32>
  %q, %amax = te.quantize %a scale %s : tensor<37x48xf32>
      -> !te.qtensor<37x48xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, tensor<1xf32>
  return %q, %amax : !te.qtensor<37x48xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, tensor<1xf32>
}

// SiLU into 1x128 blocks, 37 x 160 (a partial block per row).
func.func @silu_block(%h: tensor<37x160xbf16>)
    -> !te.qtensor<37x160xbf16, #te.block<f8E4M3FN>, rowwise|columnwise> {
  %init = tensor.empty() : tensor<37x160xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<37x160xbf16>) outs(%init : tensor<37x160xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %one = arith.constant 1.0 : f32
    %x = arith.extf %in : bf16 to f32
    %n = arith.negf %x : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %x, %d : f32
    %r = arith.truncf %s : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<37x160xbf16>
  %q = te.quantize %a : tensor<37x160xbf16> -> !te.qtensor<37x160xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
  return %q : !te.qtensor<37x160xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
}

// SwiGLU into 128x128 blocks, 130 x 144.
func.func @swiglu_block2d(%gate: tensor<130x144xbf16>, %up: tensor<130x144xbf16>)
    -> !te.qtensor<130x144xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise> {
  %init = tensor.empty() : tensor<130x144xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<130x144xbf16>, tensor<130x144xbf16>) outs(%init : tensor<130x144xbf16>) {
  ^bb0(%g: bf16, %u: bf16, %out: bf16):
    %one = arith.constant 1.0 : f32
    %x = arith.extf %g : bf16 to f32
    %n = arith.negf %x : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %x, %d : f32
    %uf = arith.extf %u : bf16 to f32
    %p = arith.mulf %s, %uf : f32
    %r = arith.truncf %p : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<130x144xbf16>
  %q = te.quantize %a : tensor<130x144xbf16> -> !te.qtensor<130x144xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>
  return %q : !te.qtensor<130x144xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>
}

// LayerNorm's normalize step (row statistics along the columns, gamma and
// beta along the rows) into MXFP8, 64 x 96.
func.func @layernorm_mxfp8(%x: tensor<64x96xbf16>, %mean: tensor<64xf32>, %rstd: tensor<64xf32>,
                           %gamma: tensor<96xbf16>, %beta: tensor<96xbf16>)
    -> !te.qtensor<64x96xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise> {
  %init = tensor.empty() : tensor<64x96xbf16>
  %a = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %rstd, %gamma, %beta : tensor<64x96xbf16>, tensor<64xf32>, tensor<64xf32>, tensor<96xbf16>, tensor<96xbf16>)
      outs(%init : tensor<64x96xbf16>) {
  ^bb0(%xi: bf16, %m: f32, %r: f32, %g: bf16, %bt: bf16, %out: bf16):
    %xf = arith.extf %xi : bf16 to f32
    %c = arith.subf %xf, %m : f32
    %n = arith.mulf %c, %r : f32
    %gf = arith.extf %g : bf16 to f32
    %bf = arith.extf %bt : bf16 to f32
    %y = math.fma %n, %gf, %bf : f32
    %yb = arith.truncf %y : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<64x96xbf16>
  %q = te.quantize %a : tensor<64x96xbf16> -> !te.qtensor<64x96xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  return %q : !te.qtensor<64x96xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
}

// A residual add of 3-D tensors into NVFP4 with the random Hadamard
// transform, [2, 32, 64] (the rows 2 x 32).
func.func @residual_nvfp4(%x: tensor<2x32x64xbf16>, %y: tensor<2x32x64xbf16>)
    -> !te.qtensor<2x32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise> {
  %init = tensor.empty() : tensor<2x32x64xbf16>
  %a = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %y : tensor<2x32x64xbf16>, tensor<2x32x64xbf16>) outs(%init : tensor<2x32x64xbf16>) {
  ^bb0(%a0: bf16, %a1: bf16, %out: bf16):
    %s = arith.addf %a0, %a1 : bf16
    linalg.yield %s : bf16
  } -> tensor<2x32x64xbf16>
  %q = te.quantize %a : tensor<2x32x64xbf16> -> !te.qtensor<2x32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>
  return %q : !te.qtensor<2x32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>
}

// ReLU (maximumf) into NVFP4 with stochastic rounding, 48 x 64.
func.func @relu_nvfp4_sr(%x: tensor<48x64xbf16>, %seed: i64, %offset: i64)
    -> !te.qtensor<48x64xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, rowwise> {
  %init = tensor.empty() : tensor<48x64xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<48x64xbf16>) outs(%init : tensor<48x64xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %zero = arith.constant 0.0 : bf16
    %r = arith.maximumf %in, %zero : bf16
    linalg.yield %r : bf16
  } -> tensor<48x64xbf16>
  %q = te.quantize %a seed %seed offset %offset : tensor<48x64xbf16>
      -> !te.qtensor<48x64xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, rowwise>
  return %q : !te.qtensor<48x64xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, rowwise>
}

// dGELU * dY scaled by a scalar argument, a dynamic batch, quantized to
// E5M2 (current) and summed over the rows (the bias gradient reads the
// value the fused quantization writes).
func.func @dgelu_dbias_dynamic(%h: tensor<?x48xbf16>, %dy: tensor<?x48xbf16>, %inv: f32)
    -> (!te.qtensor<?x48xbf16, #te.current<f8E5M2>, rowwise|columnwise>, tensor<48xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %h, %c0 : tensor<?x48xbf16>
  %init = tensor.empty(%n) : tensor<?x48xbf16>
  %dh = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %dy : tensor<?x48xbf16>, tensor<?x48xbf16>) outs(%init : tensor<?x48xbf16>) {
  ^bb0(%in: bf16, %g: bf16, %out: bf16):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k = arith.constant 0.797884583 : f32
    %x = arith.extf %in : bf16 to f32
    %u = arith.mulf %k, %x : f32
    %t = math.tanh %u : f32
    %t2 = arith.mulf %t, %t : f32
    %sech2 = arith.subf %one, %t2 : f32
    %opt = arith.addf %one, %t : f32
    %left = arith.mulf %half, %opt : f32
    %r0 = arith.mulf %x, %sech2 : f32
    %right = arith.mulf %r0, %k : f32
    %d = arith.addf %left, %right : f32
    %gf = arith.extf %g : bf16 to f32
    %dhf = arith.mulf %gf, %d : f32
    %sc = arith.mulf %dhf, %inv : f32
    %r = arith.truncf %sc : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<?x48xbf16>
  %q = te.quantize %dh : tensor<?x48xbf16> -> !te.qtensor<?x48xbf16, #te.current<f8E5M2>, rowwise|columnwise>
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<48xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<48xf32>) -> tensor<48xf32>
  %db = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%dh : tensor<?x48xbf16>) outs(%s0 : tensor<48xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %e = arith.extf %in : bf16 to f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<48xf32>
  return %q, %db : !te.qtensor<?x48xbf16, #te.current<f8E5M2>, rowwise|columnwise>, tensor<48xf32>
}

// Every other operation of the program once, on an f16 input, a boolean
// mask (i1, read as bytes) and an f32 input broadcast along the rows; NaN
// and infinities come up (log of negatives, division by zero) and are
// ignored by the amax and encoded as the codecs say.
func.func @many_ops(%xin: tensor<40x32xf16>, %m: tensor<40x32xi1>, %c: tensor<32xf32>)
    -> !te.qtensor<40x32xf32, #te.current<f8E4M3FN>, rowwise|columnwise> {
  %init = tensor.empty() : tensor<40x32xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xin, %m, %c : tensor<40x32xf16>, tensor<40x32xi1>, tensor<32xf32>) outs(%init : tensor<40x32xf32>) {
  ^bb0(%xh: f16, %mi: i1, %ci: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %h = arith.mulf %xh, %xh : f16
    %x = arith.extf %xh : f16 to f32
    %e2 = math.exp2 %x : f32
    %l = math.log %x : f32
    %p = math.powf %e2, %ci : f32
    %s = math.sqrt %e2 : f32
    %rs = math.rsqrt %e2 : f32
    %mn = arith.minimumf %l, %p : f32
    %mx = arith.maxnumf %mn, %s : f32
    %mnn = arith.minnumf %mx, %rs : f32
    %q = arith.divf %mnn, %ci : f32
    %hf = arith.extf %h : f16 to f32
    %gt = arith.cmpf ogt, %x, %ci : f32
    %sel = arith.select %gt, %q, %hf : f32
    %un = arith.cmpf uno, %sel, %sel : f32
    %n = arith.negf %sel : f32
    %ab = math.absf %n : f32
    %fix = arith.select %un, %two, %ab : f32
    %r = arith.select %mi, %fix, %sel : f32
    %y = arith.subf %r, %x : f32
    linalg.yield %y : f32
  } -> tensor<40x32xf32>
  %q = te.quantize %a : tensor<40x32xf32> -> !te.qtensor<40x32xf32, #te.current<f8E4M3FN>, rowwise|columnwise>
  return %q : !te.qtensor<40x32xf32, #te.current<f8E4M3FN>, rowwise|columnwise>
}
