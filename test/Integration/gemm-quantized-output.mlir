// te.gemm with a quantized output, executed end to end (te-pipeline, te-run,
// cpu backend): the GEMM descriptor's output words (out_quantized, the output
// quantizer's fields, its buffers, out_scale, out_amax) against the same
// GEMM written as f32 and quantized by te.quantize. Both must give the same
// bits: the dequantized outputs differ by 0 everywhere and, for delayed
// scaling, the amaxes by 0.
//
// RUN: te-run %s --entry delayed --seed 5 | FileCheck %s --check-prefix=DELAYED
// DELAYED: result 0: f32[32,64] min 0 max 0
// DELAYED-NEXT: result 1: f32[1] min 0 max 0
// The output is not all zeros (the difference above is not trivially 0).
// DELAYED-NEXT: result 2: f32[32,64] min -{{[1-9]}}
//
// RUN: te-run %s --entry current --seed 5 | FileCheck %s --check-prefix=CURRENT
// CURRENT: result 0: f32[32,64] min 0 max 0
// CURRENT-NEXT: result 1: f32[32,64] min -{{[1-9]}}

// Y[32, 64] = X[32, 128] · W[64, 128]^T + b, quantized with a delayed
// scaling quantizer of scale 3 (not a power of two, so that it changes
// which values round where).
func.func @delayed(%w: tensor<64x128xf32>, %x: tensor<32x128xf32>, %b: tensor<64xf32>)
    -> (tensor<32x64xf32>, tensor<1xf32>, tensor<32x64xf32>) {
  %s = arith.constant dense<3.0> : tensor<1xf32>
  %wq = te.quantize %w : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>
  %xq = te.quantize %x : tensor<32x128xf32> -> !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise>
  %yq, %yamax = te.gemm %wq, %xq layout TN bias(%b : tensor<64xf32>) scale %s
      : !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise>
      -> !te.qtensor<32x64xf32, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  %y = te.dequantize %yq : !te.qtensor<32x64xf32, #te.delayed<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  %y32 = te.gemm %wq, %xq layout TN bias(%b : tensor<64xf32>)
      : !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  %rq, %ramax = te.quantize %y32 scale %s : tensor<32x64xf32>
      -> !te.qtensor<32x64xf32, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  %r = te.dequantize %rq : !te.qtensor<32x64xf32, #te.delayed<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %d = linalg.sub ins(%y, %r : tensor<32x64xf32>, tensor<32x64xf32>)
      outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %e1 = tensor.empty() : tensor<1xf32>
  %da = linalg.sub ins(%yamax, %ramax : tensor<1xf32>, tensor<1xf32>)
      outs(%e1 : tensor<1xf32>) -> tensor<1xf32>
  return %d, %da, %y : tensor<32x64xf32>, tensor<1xf32>, tensor<32x64xf32>
}

// The same with a current scaling output quantizer (no scale, no amax).
func.func @current(%w: tensor<64x128xf32>, %x: tensor<32x128xf32>)
    -> (tensor<32x64xf32>, tensor<32x64xf32>) {
  %wq = te.quantize %w : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>
  %xq = te.quantize %x : tensor<32x128xf32> -> !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise>
  %yq = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise>
      -> !te.qtensor<32x64xf32, #te.current<f8E4M3FN>, rowwise>
  %y = te.dequantize %yq : !te.qtensor<32x64xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  %y32 = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  %rq = te.quantize %y32 : tensor<32x64xf32> -> !te.qtensor<32x64xf32, #te.current<f8E4M3FN>, rowwise>
  %r = te.dequantize %rq : !te.qtensor<32x64xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %d = linalg.sub ins(%y, %r : tensor<32x64xf32>, tensor<32x64xf32>)
      outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %d, %y : tensor<32x64xf32>, tensor<32x64xf32>
}
