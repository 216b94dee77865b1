// RUN: te-opt %s --split-input-file --convert-te-to-runtime | FileCheck %s

// te_rt_mlir_quantize takes a descriptor (te_rt_abi.def, te_rt_abi::quantize:
// 35 words): TE_RT_ABI_MAGIC('Q') (0x7465510005 = 499916013573: "teQ",
// version 5), target (sm_100 = 1), the quantizer's fields in
// TE_RT_ABI_QUANTIZER_FIELD order -- recipe (MXFP8 = 3), dtype (E4M3 = 4),
// pow2_scales, amax_epsilon (bits of 0.0), block_dim 1, mx_2d,
// e8m0_rounding, rht, rht_sign_mask, nvfp4_2d, stochastic_rounding,
// row_scaled, use_4over6, e4m3_max (bits of 448.0f = 0x43E00000 =
// 1138753536), err_mode, margin, history_length 1024, amax_algo --, usage
// (rowwise = 1), rows 32, cols 64, six buffers (words 23-28), x_dtype (bf16
// = 3), x (word 30), scale, amax, seed, offset. What is known when compiling
// is one constant (0 for a null pointer); the addresses of x and of the two
// buffers are inserted, and the array is stored to the function's slot for
// 35-word descriptors, which the call takes.
// CHECK-LABEL: module
// CHECK-NOT: te.target
// CHECK-DAG: func.func private @te_rt_mlir_quantize(!llvm.ptr)
// CHECK-LABEL: func.func @quantize
// CHECK-SAME: %[[X:[^:]*]]: memref<32x64xbf16>, %[[D:[^:]*]]: memref<32x64xf8E4M3FN>, %[[S:[^:]*]]: memref<128x4xf8E8M0FNU>
// CHECK-DAG: %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.array<35 x i64> {alignment = 8 : i64}
// CHECK-DAG: %[[C:.*]] = llvm.mlir.constant(dense<[499916013573, 1, 3, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1138753536, 0, 0, 1024, 0, 1, 32, 64, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0]> : tensor<35xi64>) : !llvm.array<35 x i64>
// CHECK-DAG: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-DAG: %[[XA:.*]] = arith.index_cast %[[XP]] : index to i64
// CHECK-DAG: %[[DP:.*]] = memref.extract_aligned_pointer_as_index %[[D]]
// CHECK-DAG: %[[DA:.*]] = arith.index_cast %[[DP]] : index to i64
// CHECK-DAG: %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
// CHECK-DAG: %[[SA:.*]] = arith.index_cast %[[SP]] : index to i64
// CHECK: %[[W1:.*]] = llvm.insertvalue %[[XA]], %[[C]][30] : !llvm.array<35 x i64>
// CHECK: %[[W2:.*]] = llvm.insertvalue %[[DA]], %[[W1]][23]
// CHECK: %[[W3:.*]] = llvm.insertvalue %[[SA]], %[[W2]][24]
// CHECK: llvm.store %[[W3]], %[[SLOT]] {alignment = 8 : i64}
// CHECK: call @te_rt_mlir_quantize(%[[SLOT]]) : (!llvm.ptr) -> ()
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
// [32, 64] rowwise; D [M = 32, N = 128] f32 (dtype 1), no bias (f32, null),
// no output quantizer. Target sm_90 (0) when the module has no te.target.
// The GEMM descriptor (te_rt_abi::gemm, 94 words): TE_RT_ABI_MAGIC('G')
// (0x7465470005), target, layout; A's quantizer (current scaling = 1, E4M3,
// ..., words 3-20), usage, rows, cols, buffers (words 24-29); the same for B
// (buffers at 51-56); d_dtype, d_rows, d_cols, d (word 60), bias_dtype,
// bias, accumulate, use_split_accumulator, out_quantized 0, the output
// quantizer and its buffers (zeros), out_scale, out_amax, a_emulated,
// b_emulated.
// CHECK-DAG: func.func private @te_rt_mlir_gemm(!llvm.ptr)
// CHECK-LABEL: func.func @dgrad
// CHECK-SAME: %[[WT:[^:]*]]: memref<128x64xf8E4M3FN>, %[[WS:[^:]*]]: memref<1xf32>, %[[DY:[^:]*]]: memref<32x64xf8E4M3FN>, %[[DYS:[^:]*]]: memref<1xf32>, %[[DX:[^:]*]]: memref<32x128xf32>
// CHECK-DAG: %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.array<94 x i64>
// CHECK-DAG: %[[C:.*]] = llvm.mlir.constant(dense<[499915358213, 0, 1, 1, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1138753536, 0, 0, 1024, 0, 2, 64, 128, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1138753536, 0, 0, 1024, 0, 1, 32, 64, 0, 0, 0, 0, 0, 0, 1, 32, 128, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> : tensor<94xi64>)
// CHECK-DAG: %[[WTP:.*]] = memref.extract_aligned_pointer_as_index %[[WT]]
// CHECK-DAG: %[[WTA:.*]] = arith.index_cast %[[WTP]]
// CHECK-DAG: %[[WSP:.*]] = memref.extract_aligned_pointer_as_index %[[WS]]
// CHECK-DAG: %[[WSA:.*]] = arith.index_cast %[[WSP]]
// CHECK-DAG: %[[DYP:.*]] = memref.extract_aligned_pointer_as_index %[[DY]]
// CHECK-DAG: %[[DYA:.*]] = arith.index_cast %[[DYP]]
// CHECK-DAG: %[[DYSP:.*]] = memref.extract_aligned_pointer_as_index %[[DYS]]
// CHECK-DAG: %[[DYSA:.*]] = arith.index_cast %[[DYSP]]
// CHECK-DAG: %[[DXP:.*]] = memref.extract_aligned_pointer_as_index %[[DX]]
// CHECK-DAG: %[[DXA:.*]] = arith.index_cast %[[DXP]]
// CHECK: %[[W1:.*]] = llvm.insertvalue %[[WTA]], %[[C]][24]
// CHECK: %[[W2:.*]] = llvm.insertvalue %[[WSA]], %[[W1]][25]
// CHECK: %[[W3:.*]] = llvm.insertvalue %[[DYA]], %[[W2]][51]
// CHECK: %[[W4:.*]] = llvm.insertvalue %[[DYSA]], %[[W3]][52]
// CHECK: %[[W5:.*]] = llvm.insertvalue %[[DXA]], %[[W4]][60]
// CHECK: llvm.store %[[W5]], %[[SLOT]]
// CHECK: call @te_rt_mlir_gemm(%[[SLOT]]) : (!llvm.ptr) -> ()
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

// What is emitted per function once: the constants, a descriptor's constant
// words and its stack slot at the function's entry; a memref's address
// once. A buffer only the runtime sees (used by the calls and freed) becomes
// aligned_alloc (alignment 64; 32 * 64 bytes, and 4 bytes rounded up to 64)
// and free, without a memref; a returned buffer stays a memref.alloc.
// CHECK-DAG: llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @free(!llvm.ptr)
// CHECK-LABEL: func.func @shared
// CHECK-SAME: %[[X:[^:]*]]: memref<32x64xbf16>
// CHECK-DAG: llvm.alloca %{{.*}} x !llvm.array<35 x i64>
// CHECK-DAG: llvm.alloca %{{.*}} x !llvm.array<31 x i64>
// CHECK-DAG: memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[C2048:.*]] = arith.constant 2048 : i64
// CHECK: %[[D:.*]] = llvm.call @aligned_alloc(%[[C64]], %[[C2048]])
// CHECK: %[[DA:.*]] = llvm.ptrtoint %[[D]] : !llvm.ptr to i64
// CHECK: %[[S:.*]] = llvm.call @aligned_alloc(%[[C64]], %[[C64]])
// CHECK: %[[SA:.*]] = llvm.ptrtoint %[[S]] : !llvm.ptr to i64
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32x64xbf16>
// CHECK: llvm.insertvalue %[[DA]], %{{.*}}[23] : !llvm.array<35 x i64>
// CHECK: llvm.insertvalue %[[SA]], %{{.*}}[24] : !llvm.array<35 x i64>
// CHECK: call @te_rt_mlir_quantize(
// The second call reuses all of it.
// CHECK-NOT: memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-NOT: arith.constant
// CHECK-NOT: llvm.ptrtoint
// CHECK: llvm.insertvalue %[[DA]], %{{.*}}[23] : !llvm.array<31 x i64>
// CHECK: llvm.insertvalue %[[SA]], %{{.*}}[24] : !llvm.array<31 x i64>
// CHECK: call @te_rt_mlir_dequantize(
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
// entry point updates in place; the quantizer is a constant global: its
// descriptor is TE_RT_ABI_QUANTIZER_MAGIC (0x7465710005: "teq", version 5)
// and the delayed quantizer's fields (recipe 0, E4M3 = 4, e4m3_max 448,
// margin 0, history_length 16, amax_algo max = 0).
// CHECK-DAG: func.func private @te_rt_mlir_update_scale(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr)
// CHECK-DAG: memref.global "private" constant @__te_quantizer_0 : memref<19xi64> = dense<[499918110725, 0, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1138753536, 0, 0, 16, 0]>
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
// name, then the quantize descriptor.
// CHECK-DAG: func.func private @te_rt_mlir_quantize_group(!llvm.ptr, !llvm.ptr)
// CHECK-DAG: memref.global "private" constant @__te_string_0 : memref<3xi8> = dense<[116, 112, 0]>
// CHECK-LABEL: func.func @quantize_group
// CHECK-DAG: %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.array<35 x i64>
// CHECK-DAG: %[[G:.*]] = memref.get_global @__te_string_0
// CHECK-DAG: %[[GI:.*]] = memref.extract_aligned_pointer_as_index %[[G]]
// CHECK-DAG: %[[GA:.*]] = arith.index_cast %[[GI]]
// CHECK-DAG: %[[GP:.*]] = llvm.inttoptr %[[GA]]
// CHECK: llvm.store %{{.*}}, %[[SLOT]]
// CHECK: call @te_rt_mlir_quantize_group(%[[GP]], %[[SLOT]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT: call @te_rt_mlir_quantize(
func.func @quantize_group(%x: memref<32x64xbf16>, %d: memref<32x64xf8E4M3FN>, %s: memref<1xf32>) {
  te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise group "tp"
      outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : memref<32x64xbf16>
  return
}

// -----

// A GEMM with a bias and a delayed output quantizer: bias_dtype (f32 = 1)
// and the bias's address (word 62), out_quantized 1 (word 65), the output
// quantizer's fields (delayed = 0, E4M3 = 4, ..., history_length 1024;
// words 66-83), its buffers (data and scale_inv: words 84, 85), out_scale
// (90) and out_amax (91); D itself is not written (d, word 60, stays 0).
// CHECK-LABEL: func.func @fused_output
// CHECK-SAME: %[[B:[^:]*]]: memref<64xf32>, %[[S:[^:]*]]: memref<1xf32>, %[[Y:[^:]*]]: memref<32x64xf8E4M3FN>, %[[YS:[^:]*]]: memref<1xf32>, %[[YA:[^:]*]]: memref<1xf32>
// CHECK-DAG: %[[C:.*]] = llvm.mlir.constant(dense<[499915358213, 0, 0, 1, 4, {{.*}}, 1, 32, 128, 0, 0, 0, 0, 0, 0, 1, 32, 64, 0, 1, 0, 0, 0, 1, 0, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1138753536, 0, 0, 1024, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> : tensor<94xi64>)
// CHECK-DAG: %[[BP:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK-DAG: %[[BA:.*]] = arith.index_cast %[[BP]]
// CHECK-DAG: %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
// CHECK-DAG: %[[SA:.*]] = arith.index_cast %[[SP]]
// CHECK-DAG: %[[YP:.*]] = memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK-DAG: %[[YAD:.*]] = arith.index_cast %[[YP]]
// CHECK-DAG: %[[YSP:.*]] = memref.extract_aligned_pointer_as_index %[[YS]]
// CHECK-DAG: %[[YSA:.*]] = arith.index_cast %[[YSP]]
// CHECK-DAG: %[[YAP:.*]] = memref.extract_aligned_pointer_as_index %[[YA]]
// CHECK-DAG: %[[YAA:.*]] = arith.index_cast %[[YAP]]
// CHECK: llvm.insertvalue %{{.*}}, %[[C]][24]
// CHECK: llvm.insertvalue %{{.*}}[25]
// CHECK: llvm.insertvalue %{{.*}}[51]
// CHECK: llvm.insertvalue %{{.*}}[52]
// CHECK: llvm.insertvalue %[[BA]], %{{.*}}[62]
// CHECK: llvm.insertvalue %[[YAD]], %{{.*}}[84]
// CHECK: llvm.insertvalue %[[YSA]], %{{.*}}[85]
// CHECK: llvm.insertvalue %[[SA]], %{{.*}}[90]
// CHECK: %[[LAST:.*]] = llvm.insertvalue %[[YAA]], %{{.*}}[91]
// CHECK: llvm.store %[[LAST]]
// CHECK: call @te_rt_mlir_gemm(
func.func @fused_output(%w: memref<64x128xf8E4M3FN>, %ws: memref<1xf32>,
                        %x: memref<32x128xf8E4M3FN>, %xs: memref<1xf32>,
                        %b: memref<64xf32>, %s: memref<1xf32>,
                        %y: memref<32x64xf8E4M3FN>, %ys: memref<1xf32>, %ya: memref<1xf32>) {
  te.gemm_buffers layout TN
      a(%w, %ws : memref<64x128xf8E4M3FN>, memref<1xf32>)
        quantizer #te.current<f8E4M3FN> usage rowwise shape [64, 128]
      b(%x, %xs : memref<32x128xf8E4M3FN>, memref<1xf32>)
        quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 128]
      bias(%b : memref<64xf32>) scale(%s : memref<1xf32>)
      outs(%y, %ys, %ya : memref<32x64xf8E4M3FN>, memref<1xf32>, memref<1xf32>)
      {out_quantizer = #te.delayed<f8E4M3FN>}
  return
}

// -----

// An emulated GEMM operand (te_rt_abi::gemm_operand, 31 words):
// TE_RT_ABI_MAGIC('O') (0x74654F0005 = 499915882501), target, the
// quantizer (MXFP8, words 2-19), usage (rowwise = 1), reads (rowwise = 1),
// rows 64, cols 128, the buffers (words 24-29), out (word 30). The GEMM that
// reads it has its address as a_emulated (word 92).
// CHECK-LABEL: func.func @emulated_operand
// CHECK-SAME: %[[D:[^:]*]]: memref<64x128xf8E4M3FN>, %[[S:[^:]*]]: memref<128x4xf8E8M0FNU>, %[[O:[^:]*]]: memref<8192xbf16>
// CHECK-DAG: llvm.alloca %{{.*}} x !llvm.array<31 x i64>
// CHECK-DAG: %[[C:.*]] = llvm.mlir.constant(dense<[499915882501, 0, 3, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1138753536, 0, 0, 1024, 0, 1, 1, 64, 128, 0, 0, 0, 0, 0, 0, 0]> : tensor<31xi64>)
// CHECK-DAG: %[[OP:.*]] = memref.extract_aligned_pointer_as_index %[[O]]
// CHECK-DAG: %[[OA:.*]] = arith.index_cast %[[OP]]
// CHECK: llvm.insertvalue %[[OA]], %{{.*}}[30] : !llvm.array<31 x i64>
// CHECK: call @te_rt_mlir_gemm_operand(
// CHECK: llvm.insertvalue %[[OA]], %{{.*}}[92] : !llvm.array<94 x i64>
// CHECK: call @te_rt_mlir_gemm(
func.func @emulated_operand(%d: memref<64x128xf8E4M3FN>, %s: memref<128x4xf8E8M0FNU>,
                            %o: memref<8192xbf16>, %x: memref<32x128xf8E4M3FN>,
                            %xs: memref<128x4xf8E8M0FNU>, %y: memref<32x64xbf16>) {
  te.emulated_operand_buffers %d, %s quantizer #te.mxfp8<f8E4M3FN> usage rowwise
      reads rowwise shape [64, 128] outs(%o : memref<8192xbf16>)
      : memref<64x128xf8E4M3FN>, memref<128x4xf8E8M0FNU>
  te.gemm_buffers layout TN
      a(%d, %s : memref<64x128xf8E4M3FN>, memref<128x4xf8E8M0FNU>) quantizer #te.mxfp8<f8E4M3FN> usage rowwise shape [64, 128]
      b(%x, %xs : memref<32x128xf8E4M3FN>, memref<128x4xf8E8M0FNU>) quantizer #te.mxfp8<f8E4M3FN> usage rowwise shape [32, 128]
      a_emulated(%o : memref<8192xbf16>) outs(%y : memref<32x64xbf16>)
  return
}
