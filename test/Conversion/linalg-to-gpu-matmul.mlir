// te-linalg-to-gpu: every contraction with one M, N and K loop and any
// number of batch loops, f32/f16/bf16, is te_rt_mlir_matmul (one
// strided-batched cuBLASLt call): batch loops at any position of each
// operand's map, transposition from which matrix dimension is innermost,
// the batch loops collapsed into the call's one batch dimension when their
// strides allow it (a run-time check where they or the sizes are dynamic),
// else one call per index of the outer batch loops. A fill of zero right
// before the product is the call's accumulate = 0. Contractions the library
// cannot compute get a remark naming the reason.
//
// Arguments of te_rt_mlir_matmul: batch, M, N, K, then A (address, dtype,
// trans, row stride, batch stride), B (the same), C (address, dtype, row
// stride, batch stride), accumulate. te_rt_dtype: f32 = 1, bf16 = 3, f16 = 2.
//
// RUN: te-opt %s --te-linalg-to-gpu --canonicalize --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sed -e "s/expected-remark.*//" %s | te-opt --te-linalg-to-gpu="remarks=false" --split-input-file 2>&1 | FileCheck %s --check-prefix=QUIET
// QUIET-NOT: remark

// A batch_matmul into a fresh, zero-filled buffer: one call for the whole
// batch, accumulate = 0, no fill kernel.
// CHECK-LABEL: func.func @batch_matmul_fresh
// CHECK-NOT: gpu.launch
// CHECK-NOT: linalg.fill
// CHECK: %[[B:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: call @te_rt_mlir_matmul(%[[B]], %c128_i64, %c64_i64, %c256_i64, %{{.*}}, %c3_i32, %c0_i32, %c256_i64, %c32768_i64, %{{.*}}, %c3_i32, %c0_i32, %c64_i64, %c16384_i64, %{{.*}}, %c1_i32, %c64_i64, %c8192_i64, %c0_i32)
// CHECK-NOT: gpu.launch
func.func @batch_matmul_fresh(%a: memref<?x128x256xbf16>, %b: memref<?x256x64xbf16>) -> memref<?x128x64xf32> {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?x128x256xbf16>
  %c = memref.alloc(%n) : memref<?x128x64xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x128x64xf32>)
  linalg.batch_matmul ins(%a, %b : memref<?x128x256xbf16>, memref<?x256x64xbf16>) outs(%c : memref<?x128x64xf32>)
  return %c : memref<?x128x64xf32>
}

// -----

// -0.0 of bf16 folds too; a product into an output that is not filled right
// before it accumulates (accumulate = 1), and a fill of another value keeps
// its kernel.
// CHECK-LABEL: func.func @fills
// CHECK-NOT: gpu.launch
// CHECK: call @te_rt_mlir_matmul({{.*}}, %c0_i32)
// CHECK: call @te_rt_mlir_matmul({{.*}}, %c1_i32)
// CHECK: gpu.launch {{.*}}elementwise
// CHECK: call @te_rt_mlir_matmul({{.*}}, %c1_i32)
func.func @fills(%a: memref<32x64xbf16>, %b: memref<64x16xbf16>, %c: memref<32x16xbf16>, %d: memref<32x16xbf16>) {
  %nz = arith.constant -0.0 : bf16
  %one = arith.constant 1.0 : bf16
  linalg.fill ins(%nz : bf16) outs(%c : memref<32x16xbf16>)
  linalg.matmul ins(%a, %b : memref<32x64xbf16>, memref<64x16xbf16>) outs(%c : memref<32x16xbf16>)
  linalg.matmul ins(%a, %b : memref<32x64xbf16>, memref<64x16xbf16>) outs(%c : memref<32x16xbf16>)
  linalg.fill ins(%one : bf16) outs(%d : memref<32x16xbf16>)
  linalg.matmul ins(%a, %b : memref<32x64xbf16>, memref<64x16xbf16>) outs(%d : memref<32x16xbf16>)
  return
}

// -----

// A zero fill the product reads as an input is not folded.
// CHECK-LABEL: func.func @fill_read
// CHECK: gpu.launch
// CHECK: call @te_rt_mlir_matmul({{.*}}, %c1_i32)
func.func @fill_read(%a: memref<32x32xf32>, %c: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %c : memref<32x32xf32>, memref<32x32xf32>) outs(%c : memref<32x32xf32>)
  return
}

// -----

// Attention's scores written einsum-style on [B, H, S, D] with K's
// transpose in the map: two batch loops, static strides that collapse: one
// call for B * H = 8 * 16 products, trans_b = 1 (K's innermost dimension is
// the contraction's).
#q = affine_map<(b, h, s, t, d) -> (b, h, s, d)>
#k = affine_map<(b, h, s, t, d) -> (b, h, t, d)>
#sc = affine_map<(b, h, s, t, d) -> (b, h, s, t)>
// CHECK-LABEL: func.func @scores_4d
// CHECK-NOT: scf.if
// CHECK: call @te_rt_mlir_matmul(%c128_i64, %c256_i64, %c256_i64, %c64_i64, %{{.*}}, %c3_i32, %c0_i32, %c64_i64, %c16384_i64, %{{.*}}, %c3_i32, %c1_i32, %c64_i64, %c16384_i64, %{{.*}}, %c1_i32, %c256_i64, %c65536_i64, %c0_i32)
// CHECK-NOT: call @te_rt_mlir_matmul
func.func @scores_4d(%q: memref<8x16x256x64xbf16>, %k: memref<8x16x256x64xbf16>, %s: memref<8x16x256x256xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<8x16x256x256xf32>)
  linalg.generic {indexing_maps = [#q, #k, #sc], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<8x16x256x64xbf16>, memref<8x16x256x64xbf16>) outs(%s : memref<8x16x256x256xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The same with dynamic batch and head counts: the batch is the product of
// the two sizes; whether the strides collapse is checked at run time (the
// batch loop's stride is read from each operand's metadata and compared
// with the head stride times the head count), else one call per batch
// index with the heads as the call's batch.
#q = affine_map<(b, h, s, t, d) -> (b, h, s, d)>
#k = affine_map<(b, h, s, t, d) -> (b, h, t, d)>
#sc = affine_map<(b, h, s, t, d) -> (b, h, s, t)>
// CHECK-LABEL: func.func @scores_4d_dynamic
// CHECK-SAME: (%[[Q:[^:]*]]: memref<?x?x128x64xf16, strided<[?, ?, 64, 1]>>,
// CHECK-DAG: %[[NB:.*]] = memref.dim %[[Q]], %c0
// CHECK-DAG: %[[NH:.*]] = memref.dim %[[Q]], %c1
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:4, %[[SQ:.*]]:4 = memref.extract_strided_metadata %[[Q]]
// CHECK: %[[HQ:.*]] = arith.cmpi ne, %[[NH]], %c1
// CHECK: %[[CQ:.*]] = arith.select %[[HQ]], %[[SQ]]#1, %{{.*}}
// CHECK: %[[INNERQ:.*]] = arith.muli %[[CQ]], %[[NH]]
// CHECK: arith.cmpi eq, %[[SQ]]#0, %[[INNERQ]]
// CHECK: scf.if %{{.*}} {
// CHECK: %[[BH:.*]] = arith.muli %[[NB]], %[[NH]]
// CHECK: %[[BH64:.*]] = arith.index_cast %[[BH]] : index to i64
// CHECK: call @te_rt_mlir_matmul(%[[BH64]], %c128_i64, %c128_i64, %c64_i64, {{.*}}, %c2_i32, %c0_i32, %c64_i64, %{{.*}}, %{{.*}}, %c2_i32, %c1_i32, %c64_i64, %{{.*}}, %{{.*}}, %c2_i32, %c128_i64, %{{.*}}, %c1_i32)
// CHECK: } else {
// CHECK: scf.for %[[I:.*]] = %c0 to %[[NB]] step %c1 {
// CHECK: %[[H64:.*]] = arith.index_cast %[[NH]] : index to i64
// CHECK: call @te_rt_mlir_matmul(%[[H64]], {{.*}}, %c1_i32)
func.func @scores_4d_dynamic(%q: memref<?x?x128x64xf16, strided<[?, ?, 64, 1]>>, %k: memref<?x?x128x64xf16, strided<[?, ?, 64, 1]>>, %s: memref<?x?x128x128xf16>) {
  // expected-remark @below {{te-linalg-to-gpu: linalg.generic runs as one cuBLASLt call per index of its 1 outer batch loop when its batch strides do not collapse into one at run time}}
  linalg.generic {indexing_maps = [#q, #k, #sc], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<?x?x128x64xf16, strided<[?, ?, 64, 1]>>, memref<?x?x128x64xf16, strided<[?, ?, 64, 1]>>) outs(%s : memref<?x?x128x128xf16>) {
  ^bb0(%x: f16, %y: f16, %acc: f16):
    %p = arith.mulf %x, %y : f16
    %r = arith.addf %acc, %p : f16
    linalg.yield %r : f16
  }
  return
}

// -----

// Dynamic batch count, static head count and strides (a contiguous
// [?, 32, S, D] buffer): the strides collapse whatever the batch count, so
// there is no run-time check.
#p = affine_map<(b, h, s, d, t) -> (b, h, s, t)>
#v = affine_map<(b, h, s, d, t) -> (b, h, t, d)>
#o = affine_map<(b, h, s, d, t) -> (b, h, s, d)>
// CHECK-LABEL: func.func @pv_dynamic_batch
// CHECK-NOT: scf.if
// CHECK: %[[BH:.*]] = arith.muli %{{.*}}, %c32 : index
// CHECK: %[[BH64:.*]] = arith.index_cast %[[BH]] : index to i64
// CHECK: call @te_rt_mlir_matmul(%[[BH64]], %c64_i64, %c128_i64, %c64_i64, %{{.*}}, %c3_i32, %c0_i32, %c64_i64, %c4096_i64, %{{.*}}, %c3_i32, %c0_i32, %c128_i64, %c8192_i64, %{{.*}}, %c3_i32, %c128_i64, %c8192_i64, %c1_i32)
// CHECK-NOT: scf.for
func.func @pv_dynamic_batch(%p: memref<?x32x64x64xbf16>, %v: memref<?x32x64x128xbf16>, %o: memref<?x32x64x128xbf16>) {
  linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : memref<?x32x64x64xbf16>, memref<?x32x64x128xbf16>) outs(%o : memref<?x32x64x128xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %acc: bf16):
    %m = arith.mulf %x, %y : bf16
    %r = arith.addf %acc, %m : bf16
    linalg.yield %r : bf16
  }
  return
}

// -----

// The batch loop not first: [B, S, H, D] (the layout before heads are
// transposed), K read through the same layout. The head stride (64) is not
// the sequence's (16 * 64) times anything: one call per batch index over
// the 16 heads, each operand's row stride its sequence stride (1024) and
// its batch stride the head stride (64).
#q = affine_map<(b, h, s, t, d) -> (b, s, h, d)>
#k = affine_map<(b, h, s, t, d) -> (b, t, h, d)>
#sc = affine_map<(b, h, s, t, d) -> (b, h, s, t)>
// CHECK-LABEL: func.func @scores_bshd
// CHECK-NOT: scf.if
// CHECK: scf.for %[[I:.*]] = %c0 to %c4 step %c1 {
// CHECK: call @te_rt_mlir_matmul(%c16_i64, %c32_i64, %c32_i64, %c64_i64, %{{.*}}, %c1_i32, %c0_i32, %c1024_i64, %c64_i64, %{{.*}}, %c1_i32, %c1_i32, %c1024_i64, %c64_i64, %{{.*}}, %c1_i32, %c32_i64, %c1024_i64, %c1_i32)
func.func @scores_bshd(%q: memref<4x32x16x64xf32>, %k: memref<4x32x16x64xf32>, %s: memref<4x16x32x32xf32>) {
  // expected-remark @below {{te-linalg-to-gpu: linalg.generic runs as one cuBLASLt call per index of its 1 outer batch loop: its batch strides do not collapse into one}}
  linalg.generic {indexing_maps = [#q, #k, #sc], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<4x32x16x64xf32>, memref<4x32x16x64xf32>) outs(%s : memref<4x16x32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// An output stored transposed ([N, M] innermost M) is computed as
// Cᵀ = Bᵀ Aᵀ: B is the call's A (trans_a = 1 since B is [K, N]), A its B
// (trans_b = 1 since A is [M, K]); M and N swap.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#ct = affine_map<(m, n, k) -> (n, m)>
// CHECK-LABEL: func.func @output_transposed
// CHECK: call @te_rt_mlir_matmul(%c1_i64, %c16_i64, %c32_i64, %c64_i64, %{{.*}}, %c1_i32, %c1_i32, %c16_i64, %c0_i64, %{{.*}}, %c1_i32, %c1_i32, %c64_i64, %c0_i64, %{{.*}}, %c1_i32, %c32_i64, %c0_i64, %c1_i32)
func.func @output_transposed(%a: memref<32x64xf32>, %b: memref<64x16xf32>, %c: memref<16x32xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #ct], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%c : memref<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Three batch loops, the outer two collapsing with the third: one call.
#a = affine_map<(x, y, z, m, n, k) -> (x, y, z, m, k)>
#b = affine_map<(x, y, z, m, n, k) -> (x, y, z, k, n)>
#c = affine_map<(x, y, z, m, n, k) -> (x, y, z, m, n)>
// CHECK-LABEL: func.func @three_batch_loops
// CHECK: call @te_rt_mlir_matmul(%c24_i64, %c8_i64, %c8_i64, %c8_i64, {{.*}}, %c64_i64, {{.*}}, %c64_i64, {{.*}}, %c64_i64, %c1_i32)
// CHECK-NOT: call @te_rt_mlir_matmul
func.func @three_batch_loops(%a: memref<2x3x4x8x8xf32>, %b: memref<2x3x4x8x8xf32>, %c: memref<2x3x4x8x8xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x3x4x8x8xf32>, memref<2x3x4x8x8xf32>) outs(%c : memref<2x3x4x8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Contractions the library cannot compute stay reductions, with a remark
// naming the reason.
#a1 = affine_map<(m, n, k) -> (m, k)>
#b1 = affine_map<(m, n, k) -> (k, n)>
#c1 = affine_map<(m, n, k) -> (m, n)>
#a2 = affine_map<(m0, m1, n, k) -> (m0, m1, k)>
#b2 = affine_map<(m0, m1, n, k) -> (k, n)>
#c2 = affine_map<(m0, m1, n, k) -> (m0, m1, n)>
#ab = affine_map<(b, m, n, k) -> (m, k, b)>
#bb = affine_map<(b, m, n, k) -> (b, k, n)>
#cb = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @not_library
// CHECK-NOT: call @te_rt_mlir_matmul
// CHECK: gpu.launch
func.func @not_library(%i: memref<32x64xi32>, %j: memref<64x16xi32>, %k: memref<32x16xi32>,
                       %h: memref<32x64xf16>, %f: memref<64x16xf32>, %c: memref<32x16xf32>,
                       %fa: memref<32x64xf32>, %hc: memref<32x16xf16>,
                       %a3: memref<2x16x64xf32>, %c3: memref<2x16x16xf32>,
                       %ab: memref<32x64x4xf32>, %bbm: memref<4x64x16xf32>, %cbm: memref<4x32x16xf32>,
                       %col: memref<32x64xf32, strided<[1, 32]>>,
                       %dyn: memref<32x64xf32, strided<[?, ?]>>) {
  // expected-remark @below {{te-linalg-to-gpu: linalg.matmul is computed by generated kernels, not cuBLASLt: its element types (i32, i32, i32) are not all f32, f16 or bf16}}
  linalg.matmul ins(%i, %j : memref<32x64xi32>, memref<64x16xi32>) outs(%k : memref<32x16xi32>)
  // expected-remark @below {{te-linalg-to-gpu: linalg.matmul is computed by generated kernels, not cuBLASLt: its inputs have different types (f16, f32)}}
  linalg.matmul ins(%h, %f : memref<32x64xf16>, memref<64x16xf32>) outs(%c : memref<32x16xf32>)
  // expected-remark @below {{te-linalg-to-gpu: linalg.generic is computed by generated kernels, not cuBLASLt: its output type f16 is neither f32 nor its inputs' type (f32)}}
  linalg.generic {indexing_maps = [#a1, #b1, #c1], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%fa, %f : memref<32x64xf32>, memref<64x16xf32>) outs(%hc : memref<32x16xf16>) {
  ^bb0(%x: f32, %y: f32, %acc: f16):
    %p = arith.mulf %x, %y : f32
    %t = arith.truncf %p : f32 to f16
    %r = arith.addf %acc, %t : f16
    linalg.yield %r : f16
  }
  // expected-remark @below {{te-linalg-to-gpu: linalg.generic is computed by generated kernels, not cuBLASLt: it has 2 M loops (the library takes one M, one N and one K loop)}}
  linalg.generic {indexing_maps = [#a2, #b2, #c2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a3, %f : memref<2x16x64xf32>, memref<64x16xf32>) outs(%c3 : memref<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  // expected-remark @below {{te-linalg-to-gpu: linalg.generic is computed by generated kernels, not cuBLASLt: operand A has a batch dimension innermost: neither of its matrix dimensions has unit stride}}
  linalg.generic {indexing_maps = [#ab, #bb, #cb], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%ab, %bbm : memref<32x64x4xf32>, memref<4x64x16xf32>) outs(%cbm : memref<4x32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  // expected-remark @below {{te-linalg-to-gpu: linalg.matmul is computed by generated kernels, not cuBLASLt: operand A does not have a static unit innermost stride: neither of its matrix dimensions is known to have unit stride}}
  linalg.matmul ins(%col, %f : memref<32x64xf32, strided<[1, 32]>>, memref<64x16xf32>) outs(%c : memref<32x16xf32>)
  // expected-remark @below {{te-linalg-to-gpu: linalg.matmul is computed by generated kernels, not cuBLASLt: operand A does not have a static unit innermost stride: neither of its matrix dimensions is known to have unit stride}}
  linalg.matmul ins(%dyn, %f : memref<32x64xf32, strided<[?, ?]>>, memref<64x16xf32>) outs(%c : memref<32x16xf32>)
  return
}

// -----

// A matrix-vector product has no N loop.
// CHECK-LABEL: func.func @matvec
// CHECK-NOT: call @te_rt_mlir_matmul
func.func @matvec(%a: memref<32x64xf32>, %x: memref<64xf32>, %y: memref<32xf32>) {
  // expected-remark @below {{te-linalg-to-gpu: linalg.matvec is computed by generated kernels, not cuBLASLt: it has no N loop (a matrix-vector product)}}
  linalg.matvec ins(%a, %x : memref<32x64xf32>, memref<64xf32>) outs(%y : memref<32xf32>)
  return
}
