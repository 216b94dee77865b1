// A quantized weight as an entry argument (an inference step that takes the
// FP8/FP4 weight cached by the training run): te-run and the AOT driver pass
// a `!te.qtensor` as its buffers, in TE's flatten order (te-expand-qtensors'
// expansion on the target's layout), each given with --input as te-quantize
// wrote it. The GEMM on the pre-quantized weight equals, bit for bit, the
// same GEMM on the weight quantized inside the program; a quantized result
// is its buffers likewise, equal to te-quantize's.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/quantized-arguments.py %t
// RUN: te-run %s --entry current_cached --print-signature | FileCheck %s --check-prefix=SIG
// SIG: f32[32,128], f8E4M3FN[64,128], f32[1] -> f32[32,64]
// RUN: te-run %s --entry nvfp4_cached --print-signature | FileCheck %s --check-prefix=SIG4
// SIG4: f32[32,128], i8[64,64], f8E4M3FN[128,8], f32[1] -> f32[32,64]
//
// RUN: te-quantize --quantizer "#te.current<f8E4M3FN>" --input %t/w.npy --usage rowwise --target sm_90 --output-dir %t/current > /dev/null
// RUN: te-run %s --entry current_inside --input %t/x.npy --input %t/w.npy --output-dir %t/current-inside --quiet
// RUN: te-run %s --entry current_cached --input %t/x.npy --input %t/current/_data.npy --input %t/current/_scale_inv.npy --compare %t/current-inside/result0.npy | FileCheck %s
//
// RUN: te-quantize --quantizer "#te.block<f8E4M3FN, dims = 2>" --input %t/w.npy --usage rowwise --target sm_90 --output-dir %t/block > /dev/null
// RUN: te-run %s --entry block_inside --input %t/x.npy --input %t/w.npy --output-dir %t/block-inside --quiet
// RUN: te-run %s --entry block_cached --input %t/x.npy --input %t/block/_rowwise_data.npy --input %t/block/_rowwise_scale_inv.npy --compare %t/block-inside/result0.npy | FileCheck %s
//
// RUN: te-quantize --quantizer "#te.mxfp8<f8E4M3FN>" --input %t/w.npy --usage rowwise --target sm_90 --output-dir %t/mxfp8 > /dev/null
// RUN: te-run %s --entry mxfp8_inside --input %t/x.npy --input %t/w.npy --output-dir %t/mxfp8-inside --quiet
// RUN: te-run %s --entry mxfp8_cached --input %t/x.npy --input %t/mxfp8/_rowwise_data.npy --input %t/mxfp8/_rowwise_scale_inv.npy --compare %t/mxfp8-inside/result0.npy | FileCheck %s
//
// RUN: te-quantize --quantizer "#te.nvfp4<f4E2M1FN, block_2d = true>" --input %t/w.npy --usage rowwise --target sm_90 --output-dir %t/nvfp4 > /dev/null
// RUN: te-run %s --entry nvfp4_inside --input %t/x.npy --input %t/w.npy --output-dir %t/nvfp4-inside --quiet
// RUN: te-run %s --entry nvfp4_cached --input %t/x.npy --input %t/nvfp4/_rowwise_data.npy --input %t/nvfp4/_rowwise_scale_inv.npy --input %t/nvfp4/_amax_rowwise.npy --compare %t/nvfp4-inside/result0.npy | FileCheck %s
// CHECK: result 0: PASS
//
// Ahead of time: the .sig lists the buffers, the driver takes them alike.
// RUN: env TE_BUILD_DIR=%te_lib_dir/.. %te_src_root/scripts/te-aot.sh compile %s %t/aot.o --entry mxfp8_cached --target cpu > /dev/null 2>&1
// RUN: FileCheck %s --check-prefix=AOTSIG < %t/aot.sig
// AOTSIG: f32[32,128], f8E4M3FN[64,128], f8E8M0FNU[128,4] -> f32[32,64]
// RUN: %te_src_root/scripts/te-aot.sh link %t/aot.o %t/aot %te_lib_dir > /dev/null
// RUN: %t/aot --signature-file %t/aot.sig --entry mxfp8_cached --input %t/x.npy --input %t/mxfp8/_rowwise_data.npy --input %t/mxfp8/_rowwise_scale_inv.npy --compare %t/mxfp8-inside/result0.npy | FileCheck %s
//
// The high-precision twin (--reference) takes a quantized argument as its
// nominal tensor: the weight itself; the quantized run is within MXFP8's
// error of it.
// RUN: te-run %s --entry mxfp8_cached --reference --print-signature | FileCheck %s --check-prefix=REFSIG
// REFSIG: f32[32,128], f32[64,128] -> f32[32,64]
// RUN: te-run %s --entry mxfp8_cached --reference --input %t/x.npy --input %t/w.npy --output-dir %t/mxfp8-ref --quiet
// RUN: te-run %s --entry mxfp8_cached --input %t/x.npy --input %t/mxfp8/_rowwise_data.npy --input %t/mxfp8/_rowwise_scale_inv.npy --atol 1e30 --max-rel-err 0.06 --compare %t/mxfp8-ref/result0.npy | FileCheck %s
//
// A quantized result: the buffers te-quantize writes.
// RUN: te-run %s --entry quantize_mxfp8 --input %t/w.npy --compare %t/mxfp8/_rowwise_data.npy --compare %t/mxfp8/_rowwise_scale_inv.npy | FileCheck %s --check-prefix=QOUT
// QOUT: result 0: PASS
// QOUT: result 1: PASS
//
// A quantized argument of dynamic shape is refused (its buffers' sizes are
// not the logical `?`).
// RUN: not te-run %s --entry dynamic_cached --print-signature 2>&1 | FileCheck %s --check-prefix=DYN
// DYN: te-run: @dynamic_cached: a quantized argument of dynamic shape (!te.qtensor<?x128xf32, #te.mxfp8<f8E4M3FN>, rowwise>) is not supported: its buffers' sizes are not the `?` of its logical shape; give it a static shape

func.func @current_inside(%x: tensor<32x128xf32>, %w: tensor<64x128xf32>) -> tensor<32x64xf32> {
  %wq = te.quantize %w : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>
  %y = func.call @current_cached(%x, %wq) : (tensor<32x128xf32>, !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>) -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}
func.func @current_cached(%x: tensor<32x128xf32>, %wq: !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>) -> tensor<32x64xf32> {
  %xq = te.quantize %x : tensor<32x128xf32> -> !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}

func.func @block_inside(%x: tensor<32x128xf32>, %w: tensor<64x128xf32>) -> tensor<32x64xf32> {
  %wq = te.quantize %w : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.block<f8E4M3FN, dims = 2>, rowwise>
  %y = func.call @block_cached(%x, %wq) : (tensor<32x128xf32>, !te.qtensor<64x128xf32, #te.block<f8E4M3FN, dims = 2>, rowwise>) -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}
func.func @block_cached(%x: tensor<32x128xf32>, %wq: !te.qtensor<64x128xf32, #te.block<f8E4M3FN, dims = 2>, rowwise>) -> tensor<32x64xf32> {
  %xq = te.quantize %x : tensor<32x128xf32> -> !te.qtensor<32x128xf32, #te.block<f8E4M3FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x128xf32, #te.block<f8E4M3FN, dims = 2>, rowwise>,
        !te.qtensor<32x128xf32, #te.block<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}

func.func @mxfp8_inside(%x: tensor<32x128xf32>, %w: tensor<64x128xf32>) -> tensor<32x64xf32> {
  %wq = te.quantize %w : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise>
  %y = func.call @mxfp8_cached(%x, %wq) : (tensor<32x128xf32>, !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise>) -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}
func.func @mxfp8_cached(%x: tensor<32x128xf32>, %wq: !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise>) -> tensor<32x64xf32> {
  %xq = te.quantize %x : tensor<32x128xf32> -> !te.qtensor<32x128xf32, #te.mxfp8<f8E4M3FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xf32, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}

func.func @nvfp4_inside(%x: tensor<32x128xf32>, %w: tensor<64x128xf32>) -> tensor<32x64xf32> {
  %wq = te.quantize %w : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise>
  %y = func.call @nvfp4_cached(%x, %wq) : (tensor<32x128xf32>, !te.qtensor<64x128xf32, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise>) -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}
func.func @nvfp4_cached(%x: tensor<32x128xf32>, %wq: !te.qtensor<64x128xf32, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise>) -> tensor<32x64xf32> {
  %xq = te.quantize %x : tensor<32x128xf32> -> !te.qtensor<32x128xf32, #te.nvfp4<f4E2M1FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x128xf32, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise>,
        !te.qtensor<32x128xf32, #te.nvfp4<f4E2M1FN>, rowwise> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}

func.func @quantize_mxfp8(%w: tensor<64x128xf32>) -> !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise> {
  %wq = te.quantize %w : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise>
  return %wq : !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise>
}

func.func @dynamic_cached(%x: tensor<?x128xf32>, %wq: !te.qtensor<?x128xf32, #te.mxfp8<f8E4M3FN>, rowwise>) -> tensor<?x128xf32> {
  return %x : tensor<?x128xf32>
}
