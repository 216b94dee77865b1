// te.gemm in every recipe and layout, executed end to end (te-pipeline,
// te-run, cpu backend) and compared with the program's high-precision twin
// (`te-run --reference`: the same GEMM on the unquantized operands, fp32
// accumulation). Bound: normwise relative error; quantizing each operand
// with E4M3 is off by at most 2^-4 per element (about 2^-4/sqrt(3) rms for
// uniformly distributed rounding errors), so the product of two quantized
// operands stays within 0.06 (TE's module tests bound the mean absolute
// relative error by 0.5, docs/formats.md §8); E2M1 (NVFP4) within 0.25.
//
// RUN: rm -rf %t && mkdir -p %t/tn %t/nn %t/nt
// RUN: te-run %s --entry current_tn --reference --seed 5 --output-dir %t/tn --quiet
// RUN: te-run %s --entry current_nn --reference --seed 5 --output-dir %t/nn --quiet
// RUN: te-run %s --entry current_nt --reference --seed 5 --output-dir %t/nt --quiet
// RUN: te-run %s --entry current_tn --seed 5 --compare %t/tn/result0.npy --atol 1e30 --max-rel-err 0.06 | FileCheck %s
// RUN: te-run %s --entry current_nn --seed 5 --compare %t/nn/result0.npy --atol 1e30 --max-rel-err 0.06 | FileCheck %s
// RUN: te-run %s --entry current_nt --seed 5 --compare %t/nt/result0.npy --atol 1e30 --max-rel-err 0.06 | FileCheck %s
// RUN: te-run %s --entry delayed_tn --seed 5 --compare %t/tn/result0.npy --atol 1e30 --max-rel-err 0.06 | FileCheck %s
// RUN: te-run %s --entry block_tn --seed 5 --compare %t/tn/result0.npy --atol 1e30 --max-rel-err 0.06 | FileCheck %s
// RUN: te-run %s --entry mxfp8_nt --seed 5 --compare %t/nt/result0.npy --atol 1e30 --max-rel-err 0.06 | FileCheck %s
// RUN: te-run %s --entry nvfp4_tn --seed 5 --compare %t/tn/result0.npy --atol 1e30 --max-rel-err 0.25 | FileCheck %s
//
// CHECK: result 0: PASS

// Y[32, 64] = X[32, 128] · W[64, 128]^T  (fprop)
func.func @current_tn(%w: tensor<64x128xf32>, %x: tensor<32x128xf32>, %b: tensor<64xf32>) -> tensor<32x64xf32> {
  %wq = te.quantize %w : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>
  %xq = te.quantize %x : tensor<32x128xf32> -> !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN bias(%b : tensor<64xf32>)
      : !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}

// dX[32, 128] = dY[32, 64] · W[64, 128]  (dgrad)
func.func @current_nn(%w: tensor<64x128xf32>, %dy: tensor<32x64xf32>) -> tensor<32x128xf32> {
  %wq = te.quantize %w : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, columnwise>
  %dyq = te.quantize %dy : tensor<32x64xf32> -> !te.qtensor<32x64xf32, #te.current<f8E4M3FN>, rowwise>
  %dx = te.gemm %wq, %dyq layout NN
      : !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, columnwise>,
        !te.qtensor<32x64xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<32x128xf32>
  return %dx : tensor<32x128xf32>
}

// dW[64, 128] = dY[32, 64]^T · X[32, 128]  (wgrad)
func.func @current_nt(%x: tensor<32x128xf32>, %dy: tensor<32x64xf32>) -> tensor<64x128xf32> {
  %xq = te.quantize %x : tensor<32x128xf32> -> !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, columnwise>
  %dyq = te.quantize %dy : tensor<32x64xf32> -> !te.qtensor<32x64xf32, #te.current<f8E4M3FN>, columnwise>
  %dw = te.gemm %xq, %dyq layout NT
      : !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, columnwise>,
        !te.qtensor<32x64xf32, #te.current<f8E4M3FN>, columnwise> -> tensor<64x128xf32>
  return %dw : tensor<64x128xf32>
}

func.func @delayed_tn(%w: tensor<64x128xf32>, %x: tensor<32x128xf32>, %b: tensor<64xf32>) -> tensor<32x64xf32> {
  %s = arith.constant dense<64.0> : tensor<1xf32>
  %wq, %wa = te.quantize %w scale %s : tensor<64x128xf32>
      -> !te.qtensor<64x128xf32, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  %xq, %xa = te.quantize %x scale %s : tensor<32x128xf32>
      -> !te.qtensor<32x128xf32, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  %y = te.gemm %wq, %xq layout TN bias(%b : tensor<64xf32>)
      : !te.qtensor<64x128xf32, #te.delayed<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xf32, #te.delayed<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}

func.func @block_tn(%w: tensor<64x128xf32>, %x: tensor<32x128xf32>, %b: tensor<64xf32>) -> tensor<32x64xf32> {
  %wq = te.quantize %w : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.block<f8E4M3FN, dims = 2>, rowwise>
  %xq = te.quantize %x : tensor<32x128xf32> -> !te.qtensor<32x128xf32, #te.block<f8E4M3FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN bias(%b : tensor<64xf32>) {use_split_accumulator}
      : !te.qtensor<64x128xf32, #te.block<f8E4M3FN, dims = 2>, rowwise>,
        !te.qtensor<32x128xf32, #te.block<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}

func.func @mxfp8_nt(%x: tensor<32x128xf32>, %dy: tensor<32x64xf32>) -> tensor<64x128xf32> {
  %xq = te.quantize %x : tensor<32x128xf32> -> !te.qtensor<32x128xf32, #te.mxfp8<f8E4M3FN>, columnwise>
  %dyq = te.quantize %dy : tensor<32x64xf32> -> !te.qtensor<32x64xf32, #te.mxfp8<f8E4M3FN>, columnwise>
  %dw = te.gemm %xq, %dyq layout NT
      : !te.qtensor<32x128xf32, #te.mxfp8<f8E4M3FN>, columnwise>,
        !te.qtensor<32x64xf32, #te.mxfp8<f8E4M3FN>, columnwise> -> tensor<64x128xf32>
  return %dw : tensor<64x128xf32>
}

func.func @nvfp4_tn(%w: tensor<64x128xf32>, %x: tensor<32x128xf32>, %b: tensor<64xf32>) -> tensor<32x64xf32> {
  %wq = te.quantize %w : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise>
  %xq = te.quantize %x : tensor<32x128xf32> -> !te.qtensor<32x128xf32, #te.nvfp4<f4E2M1FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN bias(%b : tensor<64xf32>)
      : !te.qtensor<64x128xf32, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise>,
        !te.qtensor<32x128xf32, #te.nvfp4<f4E2M1FN>, rowwise> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}
