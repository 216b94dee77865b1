// te-pipeline on a GPU target: tensor data stays in device memory; every op
// on it is a kernel or a runtime call; the host keeps control flow,
// launches and the scalar the program reads (the loss).
//
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" | FileCheck %s --check-prefix=DEVICE
// RUN: te-opt %s --te-pipeline="target=sm_90 gpu-format=isa" | FileCheck %s --check-prefix=ISA
// RUN: te-opt %s --te-pipeline="target=cpu" | FileCheck %s --check-prefix=CPU
// RUN: %if cuda-toolkit %{ te-opt %s --te-pipeline="target=sm_90" | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=FATBIN %}

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

func.func @step(%x: tensor<?x256xbf16>, %w: tensor<512x256xbf16>, %t: tensor<?x512xbf16>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x256xbf16>
  %steps = arith.divui %n, %c128 : index
  %loss = scf.for %i = %c0 to %steps step %c1 iter_args(%acc = %zero) -> f32 {
    %row = arith.muli %i, %c128 : index
    %xi = tensor.extract_slice %x[%row, 0] [128, 256] [1, 1] : tensor<?x256xbf16> to tensor<128x256xbf16>
    %ti = tensor.extract_slice %t[%row, 0] [128, 512] [1, 1] : tensor<?x512xbf16> to tensor<128x512xbf16>
    %y, %xs, %ws = te.linear %xi, %w
        {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
        : tensor<128x256xbf16>, tensor<512x256xbf16>
    %e = tensor.empty() : tensor<f32>
    %l0 = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
    %l = linalg.generic {indexing_maps = [#id, #id, #scalar], iterator_types = ["reduction", "reduction"]}
        ins(%y, %ti : tensor<128x512xbf16>, tensor<128x512xbf16>) outs(%l0 : tensor<f32>) {
    ^bb0(%a: bf16, %b: bf16, %s: f32):
      %af = arith.extf %a : bf16 to f32
      %bf = arith.extf %b : bf16 to f32
      %d = arith.subf %af, %bf : f32
      %d2 = arith.mulf %d, %d : f32
      %r = arith.addf %s, %d2 : f32
      linalg.yield %r : f32
    } -> tensor<f32>
    %li = tensor.extract %l[] : tensor<f32>
    %next = arith.addf %acc, %li : f32
    scf.yield %next : f32
  }
  return %loss : f32
}

// Before the LLVM lowering: no linalg and no memref.copy left on the host;
// the loss is two kernels (partials, then their sum with the fill's value:
// the fill of its output has no kernel of its own; the vector kernels, and
// the scalar ones for a misaligned slice); the weight quantized once, the
// slice passed by address; the loss read by the host through the runtime,
// once per microbatch.
// DEVICE-LABEL: func.func @step
// DEVICE-NOT: linalg.
// DEVICE-NOT: memref.copy
// DEVICE: call @te_rt_mlir_quantize
// DEVICE: scf.for
// DEVICE: memref.extract_strided_metadata
// DEVICE: call @te_rt_mlir_quantize
// DEVICE: call @te_rt_mlir_gemm
// DEVICE-NOT: _elementwise
// DEVICE: gpu.launch {{.*}} module(@step_reduce_rows_L[[#LOSS:]]_kernel)
// DEVICE: gpu.all_reduce add
// DEVICE: gpu.launch {{.*}} module(@step_reduce_combine_L[[#LOSS]]_kernel)
// DEVICE: gpu.launch {{.*}} module(@step_reduce_rows_L[[#LOSS]]_kernel_0)
// DEVICE: gpu.launch {{.*}} module(@step_reduce_combine_L[[#LOSS]]_kernel_0)
// DEVICE-NOT: gpu.launch
// DEVICE: call @te_rt_mlir_read
// DEVICE-NOT: linalg.
// DEVICE-NOT: memref.copy

// The LLVM lowering: kernels outlined and embedded (PTX here), launched
// through gpu.launch_func (mgpu* calls, libte_rt); host allocations are the
// runtime's (MLIR's generic allocation functions); the loss kernel reads
// 16 bytes at a time.
// ISA-DAG: gpu.binary @step_reduce_combine_L{{[0-9]+}}_kernel
// ISA-DAG: gpu.launch_func @step_reduce_rows_L[[L:[0-9]+]]_kernel::@step_reduce_rows_L[[L]]_kernel
// ISA-DAG: llvm.call @_mlir_memref_to_llvm_alloc
// ISA-DAG: llvm.call @te_rt_mlir_read
// ISA-NOT: llvm.call @malloc

// target=cpu keeps the host path: loops on the host, no kernels.
// CPU-NOT: {{ gpu\.}}
// CPU: llvm.call @te_rt_mlir_gemm

// The object: kernels loaded lazily by libte_rt (mgpuModuleLoad in a global
// constructor), launched on the context's stream.
// FATBIN-DAG: @llvm.global_ctors
// FATBIN-DAG: call ptr @mgpuModuleLoad
// FATBIN-DAG: call void @mgpuLaunchKernel
