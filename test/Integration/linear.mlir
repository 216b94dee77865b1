// te.linear (forward) + te.linear_grad (backward) in every recipe with
// te.linear (delayed scaling has none: see gemm.mlir), executed end to end
// (te-pipeline: te-decompose-linear, te-infer-usages, ..., te-run on the cpu
// backend) and compared with the program's high-precision twin
// (`te-run --reference`). Results: Y, dX, dW, db. Bounds (normwise relative
// error; docs/formats.md §8: TE's Linear tests bound the mean absolute relative
// error of y by 0.5 and of dgrad/wgrad by 1): E4M3 operands 0.06, E5M2
// gradients (HYBRID) 0.12, NVFP4 0.3. db is summed in high precision (no
// quantization) and must match to rounding.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: te-run %s --entry current --reference --seed 9 --output-dir %t --quiet
// RUN: te-run %s --entry current --seed 9 --atol 1e30 --max-rel-err 0.12 --compare %t/result0.npy --compare %t/result1.npy --compare %t/result2.npy --compare %t/result3.npy | FileCheck %s
// RUN: te-run %s --entry block --seed 9 --atol 1e30 --max-rel-err 0.06 --compare %t/result0.npy --compare %t/result1.npy --compare %t/result2.npy --compare %t/result3.npy | FileCheck %s
// RUN: te-run %s --entry mxfp8 --seed 9 --atol 1e30 --max-rel-err 0.06 --compare %t/result0.npy --compare %t/result1.npy --compare %t/result2.npy --compare %t/result3.npy | FileCheck %s
// RUN: te-run %s --entry nvfp4 --seed 9 --atol 1e30 --max-rel-err 0.3 --compare %t/result0.npy --compare %t/result1.npy --compare %t/result2.npy --compare %t/result3.npy | FileCheck %s
//
// CHECK: result 0: PASS
// CHECK: result 1: PASS
// CHECK: result 2: PASS
// CHECK: result 3: PASS

func.func @current(%x: tensor<32x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<32x64xf32>)
    -> (tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.current<f8E5M2>, has_bias}
      : tensor<32x64xf32>, !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise|columnwise>
  return %y, %dx, %dw, %db : tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>
}

func.func @block(%x: tensor<32x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<32x64xf32>)
    -> (tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.block<f8E4M3FN>, weight_quantizer = #te.block<f8E4M3FN, dims = 2>}
      : tensor<32x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.block<f8E4M3FN>, has_bias}
      : tensor<32x64xf32>, !te.qtensor<32x128xf32, #te.block<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>
  return %y, %dx, %dw, %db : tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>
}

func.func @mxfp8(%x: tensor<32x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<32x64xf32>)
    -> (tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.mxfp8<f8E4M3FN>, has_bias}
      : tensor<32x64xf32>, !te.qtensor<32x128xf32, #te.mxfp8<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  return %y, %dx, %dw, %db : tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>
}

func.func @nvfp4(%x: tensor<32x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<32x64xf32>)
    -> (tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.nvfp4<f4E2M1FN>, weight_quantizer = #te.nvfp4<f4E2M1FN, block_2d = true>}
      : tensor<32x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.nvfp4<f4E2M1FN>, has_bias}
      : tensor<32x64xf32>, !te.qtensor<32x128xf32, #te.nvfp4<f4E2M1FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise|columnwise>
  return %y, %dx, %dw, %db : tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>
}
