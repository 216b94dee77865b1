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

// A strided operand is copied to a contiguous buffer (linalg.copy: loops
// once lowered, no call of MLIR's memrefCopy); an output is copied back
// after the call.
// CHECK-LABEL: func.func @strided
// CHECK: %[[TMP:.*]] = memref.alloc() : memref<32x64xf32>
// CHECK: linalg.copy ins(%{{.*}} : memref<32x64xf32, strided<[128, 1]>>) outs(%[[TMP]] : memref<32x64xf32>)
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

// -----

// te.amax_buffers: te_rt_mlir_amax(x_dtype, numel, x, amax); bf16 is 3,
// 32 * 64 = 2048 elements (a constant for a static shape).
// CHECK-DAG: func.func private @te_rt_mlir_amax(i32, i64, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: func.func @amax
// CHECK: call @te_rt_mlir_amax(%c3_i32, %c2048_i64, %{{.*}}, %{{.*}}) : (i32, i64, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT: te.amax_buffers
func.func @amax(%x: memref<32x64xbf16>, %a: memref<1xf32>) {
  te.amax_buffers %x outs(%a : memref<1xf32>) : memref<32x64xbf16>
  return
}

// -----

// A dynamic shape: rows = (product of the static leading dimensions) times
// the dynamic ones, numel = rows * cols, computed in the program.
// CHECK-LABEL: func.func @amax_dynamic
// CHECK-SAME: %[[X:[^:]*]]: memref<4x?x8xbf16>
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK: %[[D:.*]] = memref.dim %[[X]], %[[C1]]
// CHECK: %[[DI:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK: %[[R:.*]] = arith.muli %[[C4]], %[[DI]] : i64
// CHECK: %[[N:.*]] = arith.muli %[[R]], %[[C8]] : i64
// CHECK: call @te_rt_mlir_amax(%{{.*}}, %[[N]],
func.func @amax_dynamic(%x: memref<4x?x8xbf16>, %a: memref<1xf32>) {
  te.amax_buffers %x outs(%a : memref<1xf32>) : memref<4x?x8xbf16>
  return
}

// -----

// What is emitted per function once: the constants, the null pointer and a
// descriptor's address at the function's entry; a memref's pointer once.
// A buffer only the runtime sees (used by the calls and freed) becomes
// aligned_alloc (alignment 64; 32 * 64 bytes, and 4 bytes rounded up to 64)
// and free, without a memref; a returned buffer stays a memref.alloc.
// CHECK-DAG: llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @free(!llvm.ptr)
// CHECK-LABEL: func.func @shared
// CHECK-SAME: %[[X:[^:]*]]: memref<32x64xbf16>
// CHECK-DAG: memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-DAG: memref.get_global @__te_quantizer_0
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[C2048:.*]] = arith.constant 2048 : i64
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[D:.*]] = llvm.call @aligned_alloc(%[[C64]], %[[C2048]])
// CHECK: %[[S:.*]] = llvm.call @aligned_alloc(%[[C64]], %[[C64]])
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32x64xbf16>
// CHECK: call @te_rt_mlir_quantize(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[D]], %[[S]], %[[NULL]], %[[NULL]],
// The second call reuses all of it.
// CHECK-NOT: memref.get_global
// CHECK-NOT: memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-NOT: arith.constant
// CHECK-NOT: llvm.mlir.zero
// CHECK: call @te_rt_mlir_dequantize(
// CHECK-SAME: %[[D]], %[[S]], %[[NULL]], %[[NULL]],
// CHECK: llvm.call @free(%[[D]]) : (!llvm.ptr) -> ()
// CHECK: llvm.call @free(%[[S]]) : (!llvm.ptr) -> ()
// CHECK-NOT: memref.dealloc
// CHECK: return %[[OUT]]
func.func @shared(%x: memref<32x64xbf16>) -> memref<32x64xbf16> {
  %d = memref.alloc() {alignment = 64 : i64} : memref<32x64xf8E4M3FN>
  %s = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
  %out = memref.alloc() {alignment = 64 : i64} : memref<32x64xbf16>
  te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : memref<32x64xbf16>
  te.dequantize_buffers %d, %s quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%out : memref<32x64xbf16>) : memref<32x64xf8E4M3FN>, memref<1xf32>
  memref.dealloc %d : memref<32x64xf8E4M3FN>
  memref.dealloc %s : memref<1xf32>
  return %out : memref<32x64xbf16>
}

// -----

// Buffers that stay memrefs: one also copied (memref.copy needs the
// descriptor), one without an alignment (aligned_alloc would get 16 but the
// buffer is read by memref.load), one of sub-byte elements, one dynamic.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: llvm.call @aligned_alloc
// CHECK-COUNT-4: memref.alloc
// CHECK-NOT: llvm.call @free
func.func @kept(%x: memref<32x64xbf16>, %n: index) -> f32 {
  %d = memref.alloc() {alignment = 64 : i64} : memref<32x64xf8E4M3FN>
  %s = memref.alloc() : memref<1xf32>
  %copy = memref.alloc() : memref<32x64xf8E4M3FN>
  %dyn = memref.alloc(%n) : memref<?xf32>
  te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : memref<32x64xbf16>
  memref.copy %d, %copy : memref<32x64xf8E4M3FN> to memref<32x64xf8E4M3FN>
  te.amax_buffers %x outs(%dyn : memref<?xf32>) : memref<32x64xbf16>
  %c0 = arith.constant 0 : index
  %v = memref.load %s[%c0] : memref<1xf32>
  memref.dealloc %d : memref<32x64xf8E4M3FN>
  memref.dealloc %s : memref<1xf32>
  memref.dealloc %copy : memref<32x64xf8E4M3FN>
  memref.dealloc %dyn : memref<?xf32>
  return %v : f32
}

// -----

// te.update_scale_buffers: the inputs are copied into the outputs, which the
// entry point updates in place; the descriptor is the delayed quantizer's
// (recipe 0, E4M3 = 4, e4m3_max 448, margin 0, history_length 16, amax_algo
// max = 0).
// CHECK-DAG: func.func private @te_rt_mlir_update_scale(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr)
// CHECK-DAG: memref.global "private" constant @__te_quantizer_0 : memref<19xi64> = dense<[499918110721, 0, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1138753536, 0, 0, 16, 0]>
// CHECK-LABEL: func.func @update_scale
// CHECK-SAME: %[[A:[^:]*]]: memref<1xf32>, %[[H:[^:]*]]: memref<16xf32>, %[[S:[^:]*]]: memref<1xf32>, %[[H2:[^:]*]]: memref<16xf32>, %[[S2:[^:]*]]: memref<1xf32>
// CHECK: memref.copy %[[H]], %[[H2]]
// CHECK: memref.copy %[[S]], %[[S2]]
// CHECK: call @te_rt_mlir_update_scale(%{{.*}}, %{{.*}}, %{{.*}}, %c16_i64, %{{.*}})
func.func @update_scale(%a: memref<1xf32>, %h: memref<16xf32>, %s: memref<1xf32>,
                        %h2: memref<16xf32>, %s2: memref<1xf32>) {
  te.update_scale_buffers %a, %h, %s quantizer #te.delayed<f8E4M3FN, history = 16>
      outs(%h2, %s2 : memref<16xf32>, memref<1xf32>)
      : memref<1xf32>, memref<16xf32>, memref<1xf32>
  return
}

// -----

// In place (outputs = inputs): no copy.
// CHECK-LABEL: func.func @update_scale_in_place
// CHECK-NOT: memref.copy
// CHECK: call @te_rt_mlir_update_scale(
func.func @update_scale_in_place(%a: memref<1xf32>, %h: memref<16xf32>, %s: memref<1xf32>) {
  te.update_scale_buffers %a, %h, %s quantizer #te.delayed<f8E5M2, history = 16>
      outs(%h, %s : memref<16xf32>, memref<1xf32>)
      : memref<1xf32>, memref<16xf32>, memref<1xf32>
  return
}

// -----

// te.allreduce_max_buffers: the group's name is a NUL-terminated constant
// ("tp" = 116, 112), one global per distinct name.
// CHECK-DAG: func.func private @te_rt_mlir_allreduce_max(!llvm.ptr, !llvm.ptr, i64)
// CHECK-DAG: memref.global "private" constant @__te_string_0 : memref<3xi8> = dense<[116, 112, 0]>
// CHECK-DAG: memref.global "private" constant @__te_string_1 : memref<4xi8> = dense<[100, 112, 50, 0]>
// CHECK-NOT: memref.global "private" constant @__te_string_2
// CHECK-LABEL: func.func @allreduce
// CHECK-SAME: %[[IN:[^:]*]]: memref<2xf32>, %[[OUT:[^:]*]]: memref<2xf32>
// CHECK-COUNT-2: memref.get_global @__te_string_{{[01]}} : memref<{{[34]}}xi8>
// CHECK-NOT: memref.get_global
// CHECK: memref.copy %[[IN]], %[[OUT]]
// CHECK: call @te_rt_mlir_allreduce_max(
// CHECK: call @te_rt_mlir_allreduce_max(
// CHECK: call @te_rt_mlir_allreduce_max(
func.func @allreduce(%in: memref<2xf32>, %out: memref<2xf32>) {
  te.allreduce_max_buffers %in group "tp" outs(%out : memref<2xf32>) : memref<2xf32>
  te.allreduce_max_buffers %out group "dp2" outs(%out : memref<2xf32>) : memref<2xf32>
  te.allreduce_max_buffers %out group "tp" outs(%out : memref<2xf32>) : memref<2xf32>
  return
}

// -----

// te.quantize_buffers with a group: te_rt_mlir_quantize_group, the group's
// name first, then te_rt_mlir_quantize's arguments.
// CHECK-DAG: func.func private @te_rt_mlir_quantize_group(!llvm.ptr, !llvm.ptr, i32, i32, i64, i64, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64)
// CHECK-DAG: memref.global "private" constant @__te_string_0 : memref<3xi8> = dense<[116, 112, 0]>
// CHECK-LABEL: func.func @quantize_group
// CHECK: %[[G:.*]] = memref.get_global @__te_string_0
// CHECK: call @te_rt_mlir_quantize_group(
// CHECK-NOT: call @te_rt_mlir_quantize(
func.func @quantize_group(%x: memref<32x64xbf16>, %d: memref<32x64xf8E4M3FN>, %s: memref<1xf32>) {
  te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise group "tp"
      outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : memref<32x64xbf16>
  return
}
