// te-pipeline: the whole flow down to the LLVM dialect, with a remark where
// the target has no native GEMM for the recipe, and per-stage timing.
//
// RUN: te-opt %s --te-pipeline="target=cpu" --verify-diagnostics | FileCheck %s
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" --verify-diagnostics | FileCheck %s --check-prefix=CALLS

// The LLVM struct of several memref results is printed once, as an alias
// (its text would otherwise repeat in every llvm.insertvalue that packs it).
// CHECK: !te_results = !llvm.struct<(struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>)>
// CHECK-NOT: {{^ *(%.* = )?te\.}}
// CHECK-DAG: llvm.func @te_rt_mlir_quantize(
// CHECK-DAG: llvm.func @te_rt_mlir_gemm(
// CHECK: llvm.func @fprop(
// One stack slot per descriptor size (quantize 35 words, GEMM 92).
// CHECK-DAG: llvm.alloca %{{.*}} x !llvm.array<35 x i64>
// CHECK-DAG: llvm.alloca %{{.*}} x !llvm.array<94 x i64>
// CHECK-COUNT-2: llvm.call @te_rt_mlir_quantize(
// CHECK: llvm.call @te_rt_mlir_gemm(


// CALLS-LABEL: func.func @fprop
// CALLS-COUNT-2: call @te_rt_mlir_quantize(
// CALLS: call @te_rt_mlir_gemm(
// CALLS: return

func.func @fprop(%w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>) -> tensor<32x64xbf16> {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  %xq = te.quantize %x : tensor<32x128xbf16> -> !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  // expected-remark @+1 {{GEMM has no native kernel on}}
  %y = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<32x64xbf16>
  return %y : tensor<32x64xbf16>
}

// CHECK-LABEL: llvm.func @two_results(
// CHECK: llvm.insertvalue %{{.*}}, %{{.*}}[1] : !te_results
// CHECK: llvm.return %{{.*}} : !te_results
func.func @two_results(%w: tensor<64x128xbf16>, %x: tensor<32x128xbf16>) -> (tensor<32x64xbf16>, tensor<32x32xbf16>) {
  %wq = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
  %xq = te.quantize %x : tensor<32x128xbf16> -> !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<32x64xbf16>
  %z = te.gemm %xq, %xq layout TN
      : !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<32x32xbf16>
  return %y, %z : tensor<32x64xbf16>, tensor<32x32xbf16>
}
