// te-pipeline on a program with te.attention and te.attention_grad (a
// training step's attention: forward, backward from the saved output and
// lse). On every target the ops are runtime calls: te_rt_mlir_attention and
// te_rt_mlir_attention_grad (the cuda backend's kernels on sm_90); no
// kernel is generated for them. The lse lives between the two calls only:
// a buffer only the runtime sees (aligned_alloc on the host,
// te_rt_mlir_alloc in device memory).
//
// RUN: te-opt %s --te-pipeline="target=cpu lower-to-llvm=false" | FileCheck %s --check-prefixes=CHECK,CPU
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" | FileCheck %s --check-prefixes=CHECK,GPU --implicit-check-not=gpu.launch
// RUN: te-opt %s --te-pipeline="target=cpu" | FileCheck %s --check-prefix=LLVM
// RUN: te-opt %s --te-pipeline="target=sm_90 gpu-format=isa" | FileCheck %s --check-prefix=LLVM
//
// CHECK-LABEL: func.func @step
// CPU: llvm.call @aligned_alloc(
// GPU: call @te_rt_mlir_alloc(
// CHECK: call @te_rt_mlir_attention(
// CHECK: call @te_rt_mlir_attention_grad(
// CPU: llvm.call @free(
// GPU: call @te_rt_mlir_free(
// CHECK-NOT: te.attention
// CHECK-LABEL: func.func @dynamic
// CHECK: memref.dim
// CHECK: call @te_rt_mlir_attention(
// CHECK-NOT: te.attention
// Query, key and value sliced from one [B, 3H, S, D] tensor (a fused QKV
// projection) are passed as views at their offsets, with their strides
// [196608, 8192, 64, 1]: no copy.
// CHECK-LABEL: func.func @fused_qkv
// CHECK-NOT: copy
// CHECK: llvm.mlir.constant(dense<[499914964997, 3, 0, 2, 8, 128, 64, 196608, 8192, 64, 1, 0, 2, 8, 128, 64, 196608, 8192, 64, 1, 0, 2, 8, 128, 64, 196608, 8192, 64, 1,
// CHECK-NOT: copy
// CHECK: call @te_rt_mlir_attention(
// CHECK-NOT: copy
// CHECK: return
//
// LLVM-DAG: llvm.func @te_rt_mlir_attention(!llvm.ptr)
// LLVM-DAG: llvm.func @te_rt_mlir_attention_grad(!llvm.ptr)
// LLVM: llvm.func @step(
// LLVM: llvm.call @te_rt_mlir_attention(
// LLVM: llvm.call @te_rt_mlir_attention_grad(
// LLVM: llvm.func @dynamic(
// LLVM: llvm.call @te_rt_mlir_attention(
// LLVM: llvm.func @fused_qkv(
// LLVM: llvm.call @te_rt_mlir_attention(

func.func @step(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x2x128x64xbf16>,
                %v: tensor<2x2x128x64xbf16>, %do: tensor<2x8x128x64xbf16>)
    -> (tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>,
        tensor<2x2x128x64xbf16>) {
  %o, %lse = te.attention %q, %k, %v {causal}
      : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
  %dq, %dk, %dv = te.attention_grad %q, %k, %v, %o, %lse, %do {causal}
      : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>,
        tensor<2x8x128x64xbf16>, tensor<2x8x128xf32>, tensor<2x8x128x64xbf16>
  return %o, %dq, %dk, %dv : tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>,
      tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
}

func.func @dynamic(%q: tensor<?x128x64xf16>, %m: tensor<1x128x128xi1>) -> tensor<?x128x64xf16> {
  %o, %lse = te.attention %q, %q, %q mask %m
      : tensor<?x128x64xf16>, tensor<?x128x64xf16>, tensor<?x128x64xf16>, tensor<1x128x128xi1>
  return %o : tensor<?x128x64xf16>
}

func.func @fused_qkv(%qkv: tensor<2x24x128x64xbf16>) -> tensor<2x8x128x64xbf16> {
  %q = tensor.extract_slice %qkv[0, 0, 0, 0] [2, 8, 128, 64] [1, 1, 1, 1]
      : tensor<2x24x128x64xbf16> to tensor<2x8x128x64xbf16>
  %k = tensor.extract_slice %qkv[0, 8, 0, 0] [2, 8, 128, 64] [1, 1, 1, 1]
      : tensor<2x24x128x64xbf16> to tensor<2x8x128x64xbf16>
  %v = tensor.extract_slice %qkv[0, 16, 0, 0] [2, 8, 128, 64] [1, 1, 1, 1]
      : tensor<2x24x128x64xbf16> to tensor<2x8x128x64xbf16>
  %o, %lse = te.attention %q, %k, %v {causal}
      : tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>
  return %o : tensor<2x8x128x64xbf16>
}
