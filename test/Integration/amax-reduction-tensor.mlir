// Amax reduction at the tensor level: `te.quantize %x group "tp"` goes
// through te-pipeline (te-expand-qtensors copies the group onto
// te.quantize_buffers) to te_rt_mlir_quantize_group. On the cpu backend with
// a group of one rank (te-run --comm-group tp=cpu:1) every buffer must equal,
// bit for bit, the local quantization of the same input (the multi-rank
// equivalence with a gathered cast is tested in test/unit/Comm). Current
// scaling with both usages; NVFP4 with the RHT (bf16 input) with both
// usages, whose amax buffers hold the rowwise and post-RHT amaxes.
//
// RUN: rm -rf %t && mkdir -p %t/current %t/nvfp4
// RUN: te-run %s --entry current_local --seed 5 --output-dir %t/current --quiet
// RUN: te-run %s --entry current_group --seed 5 --comm-group tp=cpu:1 --exact 0 --exact 1 --exact 2 --compare %t/current/result0.npy --compare %t/current/result1.npy --compare %t/current/result2.npy | FileCheck %s --check-prefix=CURRENT
// CURRENT: result 0: PASS
// CURRENT: result 1: PASS
// CURRENT: result 2: PASS
//
// RUN: te-run %s --entry nvfp4_local --seed 5 --output-dir %t/nvfp4 --quiet
// RUN: te-run %s --entry nvfp4_group --seed 5 --comm-group tp=cpu:1 --exact 0 --exact 1 --exact 2 --exact 3 --exact 4 --exact 5 --compare %t/nvfp4/result0.npy --compare %t/nvfp4/result1.npy --compare %t/nvfp4/result2.npy --compare %t/nvfp4/result3.npy --compare %t/nvfp4/result4.npy --compare %t/nvfp4/result5.npy | FileCheck %s --check-prefix=NVFP4
// NVFP4: result 0: PASS
// NVFP4: result 1: PASS
// NVFP4: result 2: PASS
// NVFP4: result 3: PASS
// NVFP4: result 4: PASS
// NVFP4: result 5: PASS
//
// The group reaches the runtime: without a communicator registered for
// "tp" the program fails with the runtime's message.
// RUN: not te-run %s --entry current_group --seed 5 2>&1 | FileCheck %s --check-prefix=NOGROUP
// RUN: not te-run %s --entry nvfp4_group --seed 5 --comm-group dp=cpu:1 2>&1 | FileCheck %s --check-prefix=NOGROUP
// NOGROUP: te-run: runtime error in te.quantize: no communicator is registered for process group 'tp' on this thread (te_rt_comm_register_group; te-run --comm-group tp=cpu:1)

!C = !te.qtensor<32x64xf32, #te.current<f8E4M3FN>, rowwise|columnwise>

func.func @current_group(%x: tensor<32x64xf32>)
    -> (tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>) {
  %q = te.quantize %x group "tp" : tensor<32x64xf32> -> !C
  %d, %t, %s = te.buffers %q : !C -> tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
  return %d, %t, %s : tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
}

func.func @current_local(%x: tensor<32x64xf32>)
    -> (tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>) {
  %q = te.quantize %x : tensor<32x64xf32> -> !C
  %d, %t, %s = te.buffers %q : !C -> tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
  return %d, %t, %s : tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
}

// NVFP4 32x64 with both usages: _rowwise_data 32x32 (two E2M1 per byte),
// _rowwise_scale_inv 128x4 (32 rows and 64/16 = 4 groups, padded to 128x4),
// _columnwise_data 64x16, _columnwise_scale_inv 128x4 (64 rows, 32/16 = 2
// groups padded to 4), _amax_rowwise, _amax_columnwise.
!N = !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>

func.func @nvfp4_group(%x: tensor<32x64xbf16>)
    -> (tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<64x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>) {
  %q = te.quantize %x group "tp" : tensor<32x64xbf16> -> !N
  %b:6 = te.buffers %q : !N -> tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<64x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
  return %b#0, %b#1, %b#2, %b#3, %b#4, %b#5
      : tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<64x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
}

func.func @nvfp4_local(%x: tensor<32x64xbf16>)
    -> (tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<64x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>) {
  %q = te.quantize %x : tensor<32x64xbf16> -> !N
  %b:6 = te.buffers %q : !N -> tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<64x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
  return %b#0, %b#1, %b#2, %b#3, %b#4, %b#5
      : tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<64x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
}
