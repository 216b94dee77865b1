// A dynamic batch, not sliced into static microbatches, in every recipe:
// the quantized tensors of `tensor<?x128xf32>` are allocated with sizes
// computed at run time (te-expand-qtensors, Format's extents), and every
// result of a dynamic-batch program run with a batch of 96 is bit-identical
// to that of the same program written with the static batch 96 (the
// oracle; same seed, so the same arguments). Per recipe: Linear forward and
// backward (fprop TN, dgrad NN, wgrad NT, bias gradient; delayed scaling,
// which has no te.linear, through te.quantize and te.gemm) and a quantize +
// dequantize round trip (block: 128x128 blocks, the others: their input
// quantizer). 96 is not a multiple of the 128-row scale tiles and blocks:
// the padded scale shapes are computed, not just copied.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: te-run %s --entry current_static --seed 7 --output-dir %t/current --quiet
// RUN: te-run %s --entry current_dynamic --seed 7 --dynamic-dim 96 --compare %t/current/result0.npy --compare %t/current/result1.npy --compare %t/current/result2.npy --compare %t/current/result3.npy --compare %t/current/result4.npy | FileCheck %s --check-prefix=PASS5
// RUN: te-run %s --entry delayed_static --seed 7 --output-dir %t/delayed --quiet
// RUN: te-run %s --entry delayed_dynamic --seed 7 --dynamic-dim 96 --compare %t/delayed/result0.npy --compare %t/delayed/result1.npy --compare %t/delayed/result2.npy --compare %t/delayed/result3.npy --compare %t/delayed/result4.npy --compare %t/delayed/result5.npy | FileCheck %s --check-prefix=PASS6
// RUN: te-run %s --entry block_static --seed 7 --output-dir %t/block --quiet
// RUN: te-run %s --entry block_dynamic --seed 7 --dynamic-dim 96 --compare %t/block/result0.npy --compare %t/block/result1.npy --compare %t/block/result2.npy --compare %t/block/result3.npy --compare %t/block/result4.npy | FileCheck %s --check-prefix=PASS5
// RUN: te-run %s --entry mxfp8_static --seed 7 --output-dir %t/mxfp8 --quiet
// RUN: te-run %s --entry mxfp8_dynamic --seed 7 --dynamic-dim 96 --compare %t/mxfp8/result0.npy --compare %t/mxfp8/result1.npy --compare %t/mxfp8/result2.npy --compare %t/mxfp8/result3.npy --compare %t/mxfp8/result4.npy | FileCheck %s --check-prefix=PASS5
// RUN: te-run %s --entry nvfp4_static --seed 7 --output-dir %t/nvfp4 --quiet
// RUN: te-run %s --entry nvfp4_dynamic --seed 7 --dynamic-dim 96 --compare %t/nvfp4/result0.npy --compare %t/nvfp4/result1.npy --compare %t/nvfp4/result2.npy --compare %t/nvfp4/result3.npy --compare %t/nvfp4/result4.npy | FileCheck %s --check-prefix=PASS5
//
// The shape rules that need the batch are checked at run time: MXFP8 and
// NVFP4 blocks (32, 16) and the GEMM's contraction dimension (the batch, in
// wgrad) divisible by 16; the program stops with the runtime's error.
// RUN: not te-run %s --entry mxfp8_dynamic --seed 7 --dynamic-dim 40 --quiet 2>&1 | FileCheck %s --check-prefix=MXFP8
// RUN: not te-run %s --entry nvfp4_dynamic --seed 7 --dynamic-dim 40 --quiet 2>&1 | FileCheck %s --check-prefix=NVFP4
// RUN: not te-run %s --entry current_dynamic --seed 7 --dynamic-dim 40 --quiet 2>&1 | FileCheck %s --check-prefix=GEMMK
// RUN: not te-run %s --entry delayed_dynamic --seed 7 --dynamic-dim 40 --quiet 2>&1 | FileCheck %s --check-prefix=GEMMK
// GPU targets compile the same programs (buffers sized on the host, in
// device memory).
// RUN: te-opt %s --te-pipeline="target=sm_90 remarks=false" -o /dev/null
// RUN: te-opt %s --te-pipeline="target=sm_100 remarks=false" -o /dev/null
// A batch of 0 is valid: empty buffers, empty results.
// RUN: te-run %s --entry mxfp8_dynamic --seed 7 --dynamic-dim 0 | FileCheck %s --check-prefix=EMPTY
//
// PASS5-COUNT-5: : PASS
// PASS5-NOT: FAIL
// PASS6-COUNT-6: : PASS
// PASS6-NOT: FAIL
// MXFP8: te.quantize: MXFP8 needs the flattened leading dimension divisible by 32, got 40
// NVFP4: te.quantize: NVFP4 needs the flattened leading dimension divisible by 16, got 40
// GEMMK: te.gemm: gemm needs the contraction dimension K divisible by 16, got 40
// EMPTY: result 0: f32[0,64]

func.func @current_static(%x: tensor<96x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<96x64xf32>)
    -> (tensor<96x64xf32>, tensor<96x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<96x128xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<96x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.current<f8E5M2>, has_bias}
      : tensor<96x64xf32>, !te.qtensor<96x128xf32, #te.current<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise|columnwise>
  %q = te.quantize %x : tensor<96x128xf32> -> !te.qtensor<96x128xf32, #te.current<f8E4M3FN>, rowwise|columnwise>
  %xdq = te.dequantize %q : !te.qtensor<96x128xf32, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<96x128xf32>
  return %y, %dx, %dw, %db, %xdq : tensor<96x64xf32>, tensor<96x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<96x128xf32>
}

func.func @current_dynamic(%x: tensor<?x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<?x64xf32>)
    -> (tensor<?x64xf32>, tensor<?x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<?x128xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<?x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.current<f8E5M2>, has_bias}
      : tensor<?x64xf32>, !te.qtensor<?x128xf32, #te.current<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise|columnwise>
  %q = te.quantize %x : tensor<?x128xf32> -> !te.qtensor<?x128xf32, #te.current<f8E4M3FN>, rowwise|columnwise>
  %xdq = te.dequantize %q : !te.qtensor<?x128xf32, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<?x128xf32>
  return %y, %dx, %dw, %db, %xdq : tensor<?x64xf32>, tensor<?x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<?x128xf32>
}

func.func @block_static(%x: tensor<96x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<96x64xf32>)
    -> (tensor<96x64xf32>, tensor<96x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<96x128xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.block<f8E4M3FN>, weight_quantizer = #te.block<f8E4M3FN, dims = 2>}
      : tensor<96x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.block<f8E4M3FN>, has_bias}
      : tensor<96x64xf32>, !te.qtensor<96x128xf32, #te.block<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>
  %q = te.quantize %x : tensor<96x128xf32> -> !te.qtensor<96x128xf32, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>
  %xdq = te.dequantize %q : !te.qtensor<96x128xf32, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise> -> tensor<96x128xf32>
  return %y, %dx, %dw, %db, %xdq : tensor<96x64xf32>, tensor<96x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<96x128xf32>
}

func.func @block_dynamic(%x: tensor<?x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<?x64xf32>)
    -> (tensor<?x64xf32>, tensor<?x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<?x128xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.block<f8E4M3FN>, weight_quantizer = #te.block<f8E4M3FN, dims = 2>}
      : tensor<?x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.block<f8E4M3FN>, has_bias}
      : tensor<?x64xf32>, !te.qtensor<?x128xf32, #te.block<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>
  %q = te.quantize %x : tensor<?x128xf32> -> !te.qtensor<?x128xf32, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>
  %xdq = te.dequantize %q : !te.qtensor<?x128xf32, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise> -> tensor<?x128xf32>
  return %y, %dx, %dw, %db, %xdq : tensor<?x64xf32>, tensor<?x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<?x128xf32>
}

func.func @mxfp8_static(%x: tensor<96x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<96x64xf32>)
    -> (tensor<96x64xf32>, tensor<96x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<96x128xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<96x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.mxfp8<f8E4M3FN>, has_bias}
      : tensor<96x64xf32>, !te.qtensor<96x128xf32, #te.mxfp8<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  %q = te.quantize %x : tensor<96x128xf32> -> !te.qtensor<96x128xf32, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  %xdq = te.dequantize %q : !te.qtensor<96x128xf32, #te.mxfp8<f8E4M3FN>, rowwise|columnwise> -> tensor<96x128xf32>
  return %y, %dx, %dw, %db, %xdq : tensor<96x64xf32>, tensor<96x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<96x128xf32>
}

func.func @mxfp8_dynamic(%x: tensor<?x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<?x64xf32>)
    -> (tensor<?x64xf32>, tensor<?x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<?x128xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<?x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.mxfp8<f8E4M3FN>, has_bias}
      : tensor<?x64xf32>, !te.qtensor<?x128xf32, #te.mxfp8<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  %q = te.quantize %x : tensor<?x128xf32> -> !te.qtensor<?x128xf32, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  %xdq = te.dequantize %q : !te.qtensor<?x128xf32, #te.mxfp8<f8E4M3FN>, rowwise|columnwise> -> tensor<?x128xf32>
  return %y, %dx, %dw, %db, %xdq : tensor<?x64xf32>, tensor<?x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<?x128xf32>
}

func.func @nvfp4_static(%x: tensor<96x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<96x64xf32>)
    -> (tensor<96x64xf32>, tensor<96x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<96x128xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.nvfp4<f4E2M1FN>, weight_quantizer = #te.nvfp4<f4E2M1FN, block_2d = true>}
      : tensor<96x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.nvfp4<f4E2M1FN>, has_bias}
      : tensor<96x64xf32>, !te.qtensor<96x128xf32, #te.nvfp4<f4E2M1FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise|columnwise>
  %q = te.quantize %x : tensor<96x128xf32> -> !te.qtensor<96x128xf32, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
  %xdq = te.dequantize %q : !te.qtensor<96x128xf32, #te.nvfp4<f4E2M1FN>, rowwise|columnwise> -> tensor<96x128xf32>
  return %y, %dx, %dw, %db, %xdq : tensor<96x64xf32>, tensor<96x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<96x128xf32>
}

func.func @nvfp4_dynamic(%x: tensor<?x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<?x64xf32>)
    -> (tensor<?x64xf32>, tensor<?x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<?x128xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.nvfp4<f4E2M1FN>, weight_quantizer = #te.nvfp4<f4E2M1FN, block_2d = true>}
      : tensor<?x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.nvfp4<f4E2M1FN>, has_bias}
      : tensor<?x64xf32>, !te.qtensor<?x128xf32, #te.nvfp4<f4E2M1FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise|columnwise>
  %q = te.quantize %x : tensor<?x128xf32> -> !te.qtensor<?x128xf32, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
  %xdq = te.dequantize %q : !te.qtensor<?x128xf32, #te.nvfp4<f4E2M1FN>, rowwise|columnwise> -> tensor<?x128xf32>
  return %y, %dx, %dw, %db, %xdq : tensor<?x64xf32>, tensor<?x128xf32>, tensor<64x128xf32>, tensor<64xf32>, tensor<?x128xf32>
}

func.func @delayed_static(%x: tensor<96x128xf32>, %w: tensor<64x128xf32>, %dy: tensor<96x64xf32>)
    -> (tensor<96x64xf32>, tensor<96x128xf32>, tensor<64x128xf32>, tensor<96x128xf32>, tensor<1xf32>, tensor<1xf32>) {
  %s = arith.constant dense<16.0> : tensor<1xf32>
  %xq, %xa = te.quantize %x scale %s : tensor<96x128xf32> -> !te.qtensor<96x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, tensor<1xf32>
  %wq, %wa = te.quantize %w scale %s : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, tensor<1xf32>
  %dyq, %dya = te.quantize %dy scale %s : tensor<96x64xf32> -> !te.qtensor<96x64xf32, #te.delayed<f8E5M2>, rowwise|columnwise>, tensor<1xf32>
  // fprop TN, dgrad NN, wgrad NT.
  %y = te.gemm %wq, %xq layout TN : !te.qtensor<64x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<96x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise> -> tensor<96x64xf32>
  %dx = te.gemm %wq, %dyq layout NN : !te.qtensor<64x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<96x64xf32, #te.delayed<f8E5M2>, rowwise|columnwise> -> tensor<96x128xf32>
  %dw = te.gemm %xq, %dyq layout NT : !te.qtensor<96x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<96x64xf32, #te.delayed<f8E5M2>, rowwise|columnwise> -> tensor<64x128xf32>
  %xdq = te.dequantize %xq : !te.qtensor<96x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise> -> tensor<96x128xf32>
  return %y, %dx, %dw, %xdq, %xa, %dya : tensor<96x64xf32>, tensor<96x128xf32>, tensor<64x128xf32>, tensor<96x128xf32>, tensor<1xf32>, tensor<1xf32>
}

func.func @delayed_dynamic(%x: tensor<?x128xf32>, %w: tensor<64x128xf32>, %dy: tensor<?x64xf32>)
    -> (tensor<?x64xf32>, tensor<?x128xf32>, tensor<64x128xf32>, tensor<?x128xf32>, tensor<1xf32>, tensor<1xf32>) {
  %s = arith.constant dense<16.0> : tensor<1xf32>
  %xq, %xa = te.quantize %x scale %s : tensor<?x128xf32> -> !te.qtensor<?x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, tensor<1xf32>
  %wq, %wa = te.quantize %w scale %s : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, tensor<1xf32>
  %dyq, %dya = te.quantize %dy scale %s : tensor<?x64xf32> -> !te.qtensor<?x64xf32, #te.delayed<f8E5M2>, rowwise|columnwise>, tensor<1xf32>
  // fprop TN, dgrad NN, wgrad NT.
  %y = te.gemm %wq, %xq layout TN : !te.qtensor<64x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<?x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise> -> tensor<?x64xf32>
  %dx = te.gemm %wq, %dyq layout NN : !te.qtensor<64x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<?x64xf32, #te.delayed<f8E5M2>, rowwise|columnwise> -> tensor<?x128xf32>
  %dw = te.gemm %xq, %dyq layout NT : !te.qtensor<?x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise>, !te.qtensor<?x64xf32, #te.delayed<f8E5M2>, rowwise|columnwise> -> tensor<64x128xf32>
  %xdq = te.dequantize %xq : !te.qtensor<?x128xf32, #te.delayed<f8E4M3FN>, rowwise|columnwise> -> tensor<?x128xf32>
  return %y, %dx, %dw, %xdq, %xa, %dya : tensor<?x64xf32>, tensor<?x128xf32>, tensor<64x128xf32>, tensor<?x128xf32>, tensor<1xf32>, tensor<1xf32>
}
