// RUN: te-opt %s --split-input-file --convert-te-to-runtime | FileCheck %s

// A quantizer descriptor is TE_RT_ABI_QUANTIZER_MAGIC (0x7465710001) and the
// fields of te_rt_abi.def in order: recipe (MXFP8 = 3), dtype (E4M3 = 4),
// pow2_scales, amax_epsilon (bits of 0.0), block_dim 1, mx_2d, e8m0_rounding,
// rht, rht_sign_mask, nvfp4_2d, stochastic_rounding, row_scaled, use_4over6,
// e4m3_max (bits of 448.0f = 0x43E00000 = 1138753536), err_mode, margin,
// history_length 1024, amax_algo.
// CHECK-LABEL: module
// CHECK-NOT: te.target
// CHECK-DAG: func.func private @te_rt_mlir_quantize(!llvm.ptr, i32, i32, i64, i64, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64)
// CHECK-DAG: memref.global "private" constant @__te_quantizer_0 : memref<19xi64> = dense<[499918110721, 3, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1138753536, 0, 0, 1024, 0]>
// CHECK-LABEL: func.func @quantize
// CHECK: memref.get_global @__te_quantizer_0
// CHECK: call @te_rt_mlir_quantize(
// CHECK-NOT: te.quantize_buffers
module attributes {te.target = #te.target<sm_100>} {
  func.func @quantize(%x: memref<32x64xbf16>, %d: memref<32x64xf8E4M3FN>, %s: memref<128x4xf8E8M0FNU>) {
    te.quantize_buffers %x quantizer #te.mxfp8<f8E4M3FN> usage rowwise
        outs(%d, %s : memref<32x64xf8E4M3FN>, memref<128x4xf8E8M0FNU>) : memref<32x64xbf16>
    return
  }
}

// -----

// A strided operand is copied to a contiguous buffer; an output is copied
// back after the call.
// CHECK-LABEL: func.func @strided
// CHECK: %[[TMP:.*]] = memref.alloc() : memref<32x64xf32>
// CHECK: memref.copy %{{.*}}, %[[TMP]]
// CHECK: call @te_rt_mlir_quantize(
// CHECK: memref.dealloc %[[TMP]]
func.func @strided(%x: memref<32x64xf32, strided<[128, 1]>>, %d: memref<32x64xf8E4M3FN>, %s: memref<1xf32>) {
  te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : memref<32x64xf32, strided<[128, 1]>>
  return
}

// -----

// dgrad: NN (layout 1), A = W [64, 128] columnwise (usage 2), B = dY
// [32, 64] rowwise; D [M = 32, N = 128] f32 (dtype 1), no bias, no output
// quantizer. Target sm_90 (0) when the module has no te.target.
// CHECK-DAG: func.func private @te_rt_mlir_gemm(i32, i32, !llvm.ptr, i32, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i64, i64, !llvm.ptr, i32, !llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: func.func @dgrad
// CHECK: call @te_rt_mlir_gemm(%c0_i32, %c1_i32, %{{.*}}, %c2_i32, %c64_i64, %c128_i64,
func.func @dgrad(%wt: memref<128x64xf8E4M3FN>, %ws: memref<1xf32>,
                 %dy: memref<32x64xf8E4M3FN>, %dys: memref<1xf32>, %dx: memref<32x128xf32>) {
  te.gemm_buffers layout NN
      a(%wt, %ws : memref<128x64xf8E4M3FN>, memref<1xf32>)
        quantizer #te.current<f8E4M3FN> usage columnwise shape [64, 128]
      b(%dy, %dys : memref<32x64xf8E4M3FN>, memref<1xf32>)
        quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 64]
      outs(%dx : memref<32x128xf32>)
  return
}
