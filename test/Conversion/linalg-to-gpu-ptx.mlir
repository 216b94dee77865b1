// The elementwise kernels te-linalg-to-gpu emits make 16-byte global
// accesses in the PTX (no CUDA toolkit needed for gpu-format=isa), and round
// f32 to bf16 with the hardware's cvt (two elements per instruction), not
// with arith-expand's integer arithmetic (te-lower-if-present keeps that for
// host code).
//
// RUN: te-opt %s --te-pipeline="target=sm_90 gpu-format=isa" | FileCheck %s
//
// CHECK: gpu.binary @axpy_elementwise_L{{[0-9]+}}_kernel
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: cvt.rn.bf16x2.f32
// CHECK-NOT: 32767
// CHECK-SAME: st.global.v4.b32

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @axpy(%x: tensor<2048x4096xbf16>, %y: tensor<2048x4096xbf16>) -> tensor<2048x4096xbf16> {
  %e = tensor.empty() : tensor<2048x4096xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<2048x4096xbf16>, tensor<2048x4096xbf16>) outs(%e : tensor<2048x4096xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %k = arith.constant 0.5 : f32
    %m = arith.mulf %af, %k : f32
    %s = arith.addf %m, %bf : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2048x4096xbf16>
  return %r : tensor<2048x4096xbf16>
}
