// Quantization with amax reduction from compiled code: te.quantize_buffers
// with `group "tp"` calls te_rt_mlir_quantize_group, which reduces the amax
// over the communicator registered for "tp" (te_rt_comm_quantize). A group
// of one rank (te-run --comm-group tp=cpu:1) must give, bit for bit, the
// local quantization; the multi-rank equivalence with a gathered cast is
// tested in test/unit/Comm (CommTest.cpp, RegistryTest.cpp).
//
// RUN: rm -rf %t && mkdir -p %t/current %t/nvfp4
// RUN: te-run %s --entry current_local --seed 2 --output-dir %t/current --quiet
// RUN: te-run %s --entry current_group --seed 2 --comm-group tp=cpu:1 --exact 0 --exact 1 --compare %t/current/result0.npy --compare %t/current/result1.npy | FileCheck %s
// RUN: te-run %s --entry nvfp4_local --seed 2 --output-dir %t/nvfp4 --quiet
// RUN: te-run %s --entry nvfp4_group --seed 2 --comm-group tp=cpu:1 --exact 0 --exact 1 --compare %t/nvfp4/result0.npy --compare %t/nvfp4/result1.npy | FileCheck %s
// CHECK: result 0: PASS
// CHECK: result 1: PASS
//
// Without the group registered, the runtime's message:
// RUN: not te-run %s --entry current_group --seed 2 2>&1 | FileCheck %s --check-prefix=NOGROUP
// NOGROUP: te-run: runtime error in te.quantize: no communicator is registered for process group 'tp' on this thread (te_rt_comm_register_group; te-run --comm-group tp=cpu:1)

func.func @current_group(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %d0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %s0 = tensor.empty() : tensor<1xf32>
  %d, %s = te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise group "tp"
      outs(%d0, %s0 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

func.func @current_local(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %d0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %s0 = tensor.empty() : tensor<1xf32>
  %d, %s = te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%d0, %s0 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// NVFP4 with RHT: the data and the global amax (the dequantized values
// follow from the buffers).
func.func @nvfp4_group(%x: tensor<32x64xf32>) -> (tensor<32x32xi8>, tensor<1xf32>) {
  %d0 = tensor.empty() : tensor<32x32xi8>
  %s0 = tensor.empty() : tensor<128x4xf8E4M3FN>
  %a0 = tensor.empty() : tensor<1xf32>
  %d, %s, %a = te.quantize_buffers %x quantizer #te.nvfp4<f4E2M1FN, rht = true> usage rowwise group "tp"
      outs(%d0, %s0, %a0 : tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>
  return %d, %a : tensor<32x32xi8>, tensor<1xf32>
}

func.func @nvfp4_local(%x: tensor<32x64xf32>) -> (tensor<32x32xi8>, tensor<1xf32>) {
  %d0 = tensor.empty() : tensor<32x32xi8>
  %s0 = tensor.empty() : tensor<128x4xf8E4M3FN>
  %a0 = tensor.empty() : tensor<1xf32>
  %d, %s, %a = te.quantize_buffers %x quantizer #te.nvfp4<f4E2M1FN, rht = true> usage rowwise
      outs(%d0, %s0, %a0 : tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>
  return %d, %a : tensor<32x32xi8>, tensor<1xf32>
}
