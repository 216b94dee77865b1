// Batched contractions as attention writes them -- 4-D [B, H, S, D]
// products with two batch loops, K transposed by its map, the heads inside
// the sequence ([B, S, H, D]) on an input or on the output, an output
// stored transposed, a strided view -- lowered by te-linalg-to-gpu to
// te_rt_mlir_matmul calls (one strided-batched call, or one per outer batch
// index) and run on the cpu backend's te_rt_mlir_matmul, against an oracle:
// Inputs/batched-matmul.py writes the inputs (multiples of 2^-4, exact in
// bf16) and the products summed in double precision (exact here), rounded
// once to f32 or bf16. The programs are at memref level (after
// bufferization), where te-linalg-to-gpu runs; every fill is one it folds
// into a call (accumulate = 0), so no GPU kernel is left for the cpu.
//
// RUN: rm -rf %t && %python %S/Inputs/batched-matmul.py %t
// RUN: te-opt %s --te-linalg-to-gpu="remarks=false" -o %t/lowered.mlir
// RUN: FileCheck %s --check-prefix=LOWERED < %t/lowered.mlir
// LOWERED-NOT: gpu.launch
// LOWERED-NOT: linalg.
//
// Dynamic batch and heads: the strides collapse at run time, one call.
// RUN: te-run %t/lowered.mlir --entry bhsd --input %t/q.npy --input %t/k.npy --compare %t/want-scores.npy | FileCheck %s --check-prefix=PASS
// [B, S, H, D] inputs, bf16 in and out: one call per batch index.
// RUN: te-run %t/lowered.mlir --entry bshd_bf16 --input %t/qs.npy --input %t/ks.npy --compare %t/want-scores-bshd-bf16.npy | FileCheck %s --check-prefix=PASS
// The output in [B, S, H, D] order (its heads interleaved with its rows).
// RUN: te-run %t/lowered.mlir --entry pv_out_bshd --input %t/p.npy --input %t/v.npy --compare %t/want-out-bshd-bf16.npy | FileCheck %s --check-prefix=PASS
// The output stored transposed (Cᵀ = Vᵀ Pᵀ).
// RUN: te-run %t/lowered.mlir --entry out_t --input %t/p.npy --input %t/v.npy --compare %t/want-out-t.npy | FileCheck %s --check-prefix=PASS
// Row strides wider than the rows (views of [B, S, 16] and [B, 16, 7]).
// RUN: te-run %t/lowered.mlir --entry strided --input %t/x.npy --input %t/w.npy --compare %t/want-strided.npy | FileCheck %s --check-prefix=PASS
// PASS: PASS
//
// A wrong oracle fails (the comparison can fail).
// RUN: not te-run %t/lowered.mlir --entry bhsd --input %t/q.npy --input %t/k.npy --compare %t/want-strided.npy 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: {{FAIL|shape}}

#q = affine_map<(b, h, s, t, d) -> (b, h, s, d)>
#k = affine_map<(b, h, s, t, d) -> (b, h, t, d)>
#sc = affine_map<(b, h, s, t, d) -> (b, h, s, t)>
func.func @bhsd(%q: memref<?x?x5x8xf32>, %k: memref<?x?x6x8xf32>) -> memref<?x?x5x6xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nb = memref.dim %q, %c0 : memref<?x?x5x8xf32>
  %nh = memref.dim %q, %c1 : memref<?x?x5x8xf32>
  %s = memref.alloc(%nb, %nh) : memref<?x?x5x6xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<?x?x5x6xf32>)
  linalg.generic {indexing_maps = [#q, #k, #sc], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<?x?x5x8xf32>, memref<?x?x6x8xf32>) outs(%s : memref<?x?x5x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return %s : memref<?x?x5x6xf32>
}

#qs = affine_map<(b, h, s, t, d) -> (b, s, h, d)>
#ks = affine_map<(b, h, s, t, d) -> (b, t, h, d)>
func.func @bshd_bf16(%q: memref<2x5x3x8xbf16>, %k: memref<2x6x3x8xbf16>) -> memref<2x3x5x6xbf16> {
  %s = memref.alloc() : memref<2x3x5x6xbf16>
  %zero = arith.constant 0.0 : bf16
  linalg.fill ins(%zero : bf16) outs(%s : memref<2x3x5x6xbf16>)
  linalg.generic {indexing_maps = [#qs, #ks, #sc], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x5x3x8xbf16>, memref<2x6x3x8xbf16>) outs(%s : memref<2x3x5x6xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %acc: bf16):
    %p = arith.mulf %x, %y : bf16
    %r = arith.addf %acc, %p : bf16
    linalg.yield %r : bf16
  }
  return %s : memref<2x3x5x6xbf16>
}

#p = affine_map<(b, h, s, e, t) -> (b, h, s, t)>
#v = affine_map<(b, h, s, e, t) -> (b, h, t, e)>
#os = affine_map<(b, h, s, e, t) -> (b, s, h, e)>
func.func @pv_out_bshd(%p: memref<2x3x5x6xbf16>, %v: memref<2x3x6x4xbf16>) -> memref<2x5x3x4xbf16> {
  %o = memref.alloc() : memref<2x5x3x4xbf16>
  %zero = arith.constant -0.0 : bf16
  linalg.fill ins(%zero : bf16) outs(%o : memref<2x5x3x4xbf16>)
  linalg.generic {indexing_maps = [#p, #v, #os], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : memref<2x3x5x6xbf16>, memref<2x3x6x4xbf16>) outs(%o : memref<2x5x3x4xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %acc: bf16):
    %m = arith.mulf %x, %y : bf16
    %r = arith.addf %acc, %m : bf16
    linalg.yield %r : bf16
  }
  return %o : memref<2x5x3x4xbf16>
}

#a2 = affine_map<(s, e, t) -> (s, t)>
#b2 = affine_map<(s, e, t) -> (t, e)>
#ct = affine_map<(s, e, t) -> (e, s)>
func.func @out_t(%p: memref<2x3x5x6xf32>, %v: memref<2x3x6x4xf32>) -> memref<4x5xf32> {
  %p0 = memref.subview %p[0, 0, 0, 0] [1, 1, 5, 6] [1, 1, 1, 1] : memref<2x3x5x6xf32> to memref<5x6xf32, strided<[6, 1]>>
  %v0 = memref.subview %v[0, 0, 0, 0] [1, 1, 6, 4] [1, 1, 1, 1] : memref<2x3x6x4xf32> to memref<6x4xf32, strided<[4, 1]>>
  %o = memref.alloc() : memref<4x5xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%o : memref<4x5xf32>)
  linalg.generic {indexing_maps = [#a2, #b2, #ct], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p0, %v0 : memref<5x6xf32, strided<[6, 1]>>, memref<6x4xf32, strided<[4, 1]>>) outs(%o : memref<4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return %o : memref<4x5xf32>
}

func.func @strided(%x: memref<2x5x16xf32>, %w: memref<2x16x7xf32>) -> memref<2x5x7xf32> {
  %xs = memref.subview %x[0, 0, 0] [2, 5, 8] [1, 1, 1] : memref<2x5x16xf32> to memref<2x5x8xf32, strided<[80, 16, 1]>>
  %ws = memref.subview %w[0, 0, 0] [2, 8, 7] [1, 1, 1] : memref<2x16x7xf32> to memref<2x8x7xf32, strided<[112, 7, 1]>>
  %o = memref.alloc() : memref<2x5x7xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%o : memref<2x5x7xf32>)
  linalg.batch_matmul ins(%xs, %ws : memref<2x5x8xf32, strided<[80, 16, 1]>>, memref<2x8x7xf32, strided<[112, 7, 1]>>) outs(%o : memref<2x5x7xf32>)
  return %o : memref<2x5x7xf32>
}
