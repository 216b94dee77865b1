// te-set-target's remark on GEMMs the runtime emulates (MXFP8 and NVFP4 on
// sm_90 and cpu): one per function and recipe, at the function's first such
// GEMM, without the op printed after it; remarks=false (also an option of
// te-pipeline) silences them.
//
// RUN: te-opt %s --te-set-target="target=sm_90" --verify-diagnostics -o /dev/null
//
// As a user sees them, with the expected-remark lines removed (te-opt
// reports expected-* lines that are not met even without
// --verify-diagnostics):
// RUN: sed -e '/expected-remark/d' %s | te-opt --te-set-target="target=cpu" -o /dev/null 2>&1 | FileCheck %s
// RUN: sed -e '/expected-remark/d' %s | te-opt --te-set-target="target=cpu remarks=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: sed -e '/expected-remark/d' %s | te-opt --te-pipeline="target=cpu remarks=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: sed -e '/expected-remark/d' %s | te-opt --te-set-target="target=sm_100" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty

// CHECK: remark: mxfp8 GEMM has no native kernel on cpu
// CHECK-NEXT: te.linear
// CHECK-NEXT: ^
// CHECK-NEXT: remark: nvfp4 GEMM has no native kernel on cpu
// CHECK-NEXT: te.gemm
// CHECK-NEXT: ^
// CHECK-NEXT: remark: mxfp8 GEMM has no native kernel on cpu
// CHECK-NEXT: te.linear
// CHECK-NEXT: ^
// CHECK-NOT: {{.}}
// QUIET-NOT: {{.}}

// A three-layer MXFP8 MLP with an NVFP4 head: one remark for MXFP8, one for
// NVFP4.
func.func @mlp(%x: tensor<32x128xbf16>, %w0: tensor<128x128xbf16>, %w1: tensor<128x128xbf16>,
               %w2: tensor<128x128xbf16>, %head: tensor<64x128xbf16>) -> tensor<32x64xbf16> {
  // expected-remark @below {{mxfp8 GEMM has no native kernel on sm_90: the runtime emulates it exactly (operands dequantized to bf16, or fp32 where bf16 is not exact, and a cuBLASLt GEMM); remarked once per function, remarks=false silences it}}
  %h0, %s0, %t0 = te.linear %x, %w0
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<128x128xbf16>
  %h1, %s1, %t1 = te.linear %h0, %w1
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<128x128xbf16>
  %h2, %s2, %t2 = te.linear %h1, %w2
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<128x128xbf16>
  %hq = te.quantize %h2 : tensor<32x128xbf16> -> !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise>
  %wq = te.quantize %head : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise>
  // expected-remark @below {{nvfp4 GEMM has no native kernel on sm_90}}
  %y = te.gemm %wq, %hq layout TN
      : !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise>,
        !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise> -> tensor<32x64xbf16>
  return %y : tensor<32x64xbf16>
}

// Another function gets its own remark.
func.func @layer(%x: tensor<32x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<32x128xbf16> {
  // expected-remark @below {{mxfp8 GEMM has no native kernel on sm_90}}
  %y, %s, %t = te.linear %x, %w
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<128x128xbf16>
  %z, %s2, %t2 = te.linear %y, %w
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<128x128xbf16>
  return %z : tensor<32x128xbf16>
}
