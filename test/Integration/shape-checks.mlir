// Programs on dynamic shapes, run with inputs of their own sizes: every
// `?` takes its --input file's size (te-check-shapes places the checks that
// make that safe). Operands whose sizes disagree stop the program with a
// message naming the op, its location, the dimension and both sizes; te-run
// exits 1, nothing is read or written past a buffer, the process does not
// abort. Results against an independent oracle (Inputs/shape-checks.py).
//
// RUN: rm -rf %t && %python %S/Inputs/shape-checks.py %t
//
// x (5x7) . w (7x3) + b (3): non-square `?x?` operands.
// RUN: te-run %s --entry linear --input %t/x.npy --input %t/w.npy --input %t/b.npy --compare %t/want-linear.npy | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry linear --input %t/x.npy --input %t/w-short.npy --input %t/b.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not te-run %s --entry linear --input %t/x.npy --input %t/w.npy --input %t/b-long.npy 2>&1 | FileCheck %s --check-prefix=LONG
// The same on the GPU target's lowering: the checks are host code before
// the kernels and the GEMM.
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" | FileCheck %s --check-prefix=GPU
//
// Three microbatches of 4 rows, summed: the slice of a fourth is past the
// 12 rows.
// RUN: te-run %s --entry sum_blocks --input %t/rows.npy --input 3 --compare %t/want-sum.npy | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry sum_blocks --input %t/rows.npy --input 4 2>&1 | FileCheck %s --check-prefix=PAST
//
// The program's own cf.assert: a message and exit 1, not abort().
// RUN: te-run %s --entry scaled --input %t/v.npy --input 2.5 --compare %t/want-scaled.npy | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry scaled --input %t/v.npy --input -1 2>&1 | FileCheck %s --check-prefix=ASSERT
//
// A reshape to a shape read at run time: as many elements; writing into a
// destination argument: of the source's sizes.
// RUN: te-run %s --entry reshaped --input %t/rows.npy --input %t/shape-48x2.npy --compare %t/want-reshaped.npy | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry reshaped --input %t/rows.npy --input %t/shape-47x2.npy 2>&1 | FileCheck %s --check-prefix=RESHAPE
// The same with an index shape (te-expand-reshapes: convert-to-llvm alone
// leaves such a reshape unlowered).
// RUN: te-run %s --entry reshaped_index --input %t/rows.npy --input %t/shape-48x2.npy --compare %t/want-reshaped.npy | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry reshaped_index --input %t/rows.npy --input %t/shape-47x2.npy 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RUN: te-run %s --entry into --input %t/x.npy --input %t/x.npy --compare %t/x.npy | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry into --input %t/x.npy --input %t/rows.npy 2>&1 | FileCheck %s --check-prefix=INTO
// RESHAPE: te-run: runtime error in shape check: tensor.reshape at {{.*}}: the source's element count (the new shape's element count) is 96, expected 94
// INTO: te-run: runtime error in shape check: bufferization.materialize_in_destination at {{.*}}: dimension 0 of the destination (the source's) is 12, expected 5
//
// A cache update (KV-cache style): 3 new rows written at row 5 of 16, the
// filled 8 rows summed and concatenated with the new ones; at row 14 the
// new rows do not fit.
// RUN: te-run %s --entry update --input %t/cache.npy --input %t/new.npy --input 5 --compare %t/want-cat.npy --compare %t/want-sums.npy | FileCheck %s --check-prefixes=PASS,PASS1
// RUN: not te-run %s --entry update --input %t/cache.npy --input %t/new.npy --input 14 2>&1 | FileCheck %s --check-prefix=NOFIT
// NOFIT: te-run: runtime error in shape check: tensor.insert_slice at {{.*}}: dimension 0 of the destination (the slice's offset + size) is 16, expected at least 17
//
// An embedding lookup: the table's rows picked by the ids, a gather in the
// body of a linalg.generic. An id past the table, or a negative one, stops
// the program before the lookup reads outside the table.
// RUN: te-run %s --entry embed --input %t/table.npy --input %t/ids.npy --input %t/pos.npy --compare %t/want-embed.npy | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry embed --input %t/table.npy --input %t/ids-past.npy --input %t/pos.npy 2>&1 | FileCheck %s --check-prefix=IDPAST
// RUN: not te-run %s --entry embed --input %t/table.npy --input %t/ids-negative.npy --input %t/pos.npy 2>&1 | FileCheck %s --check-prefix=IDNEG
// IDPAST: te-run: runtime error in shape check: linalg.generic at {{.*}}: dimension 0 of the tensor of the tensor.extract at {{.*}} in its body (index 0's largest value + 1) is 10, expected at least 11
// IDNEG: te-run: runtime error in shape check: linalg.generic at {{.*}}: index 0 of the tensor.extract at {{.*}} in its body (its smallest value) is -1, expected at least 0
//
// Sizes the program computes: a negative padding, a tensor whose bytes do
// not fit in 64 bits, a negative size.
// RUN: te-run %s --entry padded --input %t/v.npy --input 2 --compare %t/want-padded.npy | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry padded --input %t/v.npy --input -1 2>&1 | FileCheck %s --check-prefix=PADNEG
// RUN: not te-run %s --entry zeros --input 1152921504606846976 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not te-run %s --entry zeros --input -5 2>&1 | FileCheck %s --check-prefix=NEGSIZE
// PADNEG: te-run: runtime error in shape check: tensor.pad at {{.*}}: the low padding of dimension 0 is -1, expected at least 0
// HUGE: te-run: runtime error in shape check: tensor.empty at {{.*}}: dimension 0 of the new tensor (at most 2^62 bytes in all) is 1152921504606846976, expected at most 288230376151711744
// NEGSIZE: te-run: runtime error in shape check: tensor.empty at {{.*}}: dimension 0 of the new tensor is -5, expected at least 0
//
// A program on memrefs: an element past the buffer.
// RUN: te-run %s --entry element --input %t/v.npy --input 8 | FileCheck %s --check-prefix=ELEM
// RUN: not te-run %s --entry element --input %t/v.npy --input 9 2>&1 | FileCheck %s --check-prefix=ELEMPAST
// ELEM: result 0: f32
// ELEMPAST: te-run: runtime error in shape check: memref.load at {{.*}}: dimension 0 of the memref (index 0 + 1) is 9, expected at least 10
//
// Compiled without the checks, te-run keeps one size for every `?`.
// RUN: not te-run %s --entry linear --pipeline-options check-shapes=false --input %t/x.npy --input %t/w.npy --input %t/b.npy 2>&1 | FileCheck %s --check-prefix=UNCHECKED
//
// Ahead of time (scripts/te-aot.sh): the signature file says the object
// checks its shapes, and the driver takes each `?` from its file too.
// RUN: env TE_BUILD_DIR=%te_lib_dir/.. %te_src_root/scripts/te-aot.sh compile %s %t/linear.o --entry linear --target cpu | FileCheck %s --check-prefix=AOTON
// RUN: %te_src_root/scripts/te-aot.sh link %t/linear.o %t/linear %te_lib_dir > /dev/null
// RUN: %t/linear --signature-file %t/linear.sig --entry linear --input %t/x.npy --input %t/w.npy --input %t/b.npy --compare %t/want-linear.npy | FileCheck %s --check-prefix=PASS
// RUN: not %t/linear --signature-file %t/linear.sig --entry linear --input %t/x.npy --input %t/w-short.npy --input %t/b.npy 2>&1 | FileCheck %s --check-prefix=AOTSHORT
// RUN: env TE_BUILD_DIR=%te_lib_dir/.. %te_src_root/scripts/te-aot.sh compile %s %t/unchecked.o --entry linear --target cpu --pipeline-options check-shapes=false | FileCheck %s --check-prefix=AOTOFF
// The object holds its signature and whether it checks its shapes: a
// signature file of another program is refused, and one that claims checks
// the object does not make is not believed.
// RUN: sed '1s/.*/f32[?,?], f32[?,?] -> f32[?,?]/' %t/linear.sig > %t/wrong.sig
// RUN: not %t/linear --signature-file %t/wrong.sig --entry linear --seed 1 --dynamic-dim 4 2>&1 | FileCheck %s --check-prefix=AOTWRONG
// RUN: %te_src_root/scripts/te-aot.sh link %t/unchecked.o %t/unchecked %te_lib_dir > /dev/null
// RUN: sed 's/shape-checks off/shape-checks on/' %t/unchecked.sig > %t/claims.sig
// RUN: not %t/unchecked --signature-file %t/claims.sig --entry linear --input %t/x.npy --input %t/w-short.npy --input %t/b.npy 2>&1 | FileCheck %s --check-prefix=AOTCLAIMS
// AOTWRONG: te-aot-run: error: the signature file gives @linear as 'f32[?,?], f32[?,?] -> f32[?,?]', but the object was compiled for 'f32[?,?], f32[?,?], f32[?] -> f32[?,?]'
// AOTCLAIMS: every `?` dimension takes one size
// AOTON: shape checks on
// AOTSHORT: te-aot-run: runtime error in shape check: linalg.matmul at {{.*}} is 6, expected 7
// AOTOFF: shape checks off
//
// Seeded (gpu-programs.py compiles it for gpu-check): one size for all.
// RUN: te-run %s --entry linear --seed 3 --dynamic-dim 33 | FileCheck %s --check-prefix=RAN
// RUN: te-run %s --entry update --seed 4 --dynamic-dim 40 --fill 2=0 | FileCheck %s --check-prefix=RANCAT
// RUN: te-run %s --entry embed --seed 5 --dynamic-dim 24 --fill 1=7 | FileCheck %s --check-prefix=RANEMBED
// RANCAT: result 0: f32[80,64]
// RANEMBED: result 0: f32[24,24]
//
// PASS: result 0: PASS
// PASS1: result 1: PASS
// RAN: result 0: f32[33,33]
// SHORT: te-run: runtime error in shape check: linalg.matmul at {{.*}}shape-checks.mlir:[[#@LINE+18]]:8: dimension 0 of operand 1 (loop d2, the size of dimension 1 of operand 0) is 6, expected 7
// LONG: te-run: runtime error in shape check: linalg.generic at {{.*}}shape-checks.mlir:[[#@LINE+16]]:11: dimension 1 of operand 1 (loop d1, the size of dimension 0 of operand 0) is 3, expected 4
// PAST: te-run: runtime error in shape check: tensor.extract_slice at {{.*}}shape-checks.mlir:[[#@LINE+31]]:12: dimension 0 of the source (the slice's offset + size) is 12, expected at least 16
// ASSERT: te-run: runtime error in cf.assert: {{.*}}shape-checks.mlir:[[#@LINE+41]]:3: the scale must be positive
// UNCHECKED: every `?` dimension takes one size (the program was compiled without te-check-shapes)
// GPU-LABEL: func.func @linear(
// GPU: te.check_size
// GPU: gpu.launch
// GPU: call @te_rt_mlir_matmul

// y = x . w + b
func.func @linear(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %bias = linalg.broadcast ins(%b : tensor<?xf32>) outs(%e : tensor<?x?xf32>) dimensions = [0]
  %y = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%bias : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// The sum of `count` blocks of 4 rows.
func.func @sum_blocks(%rows: tensor<?x8xf32>, %count: index) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %sum = scf.for %i = %c0 to %count step %c1 iter_args(%acc = %init) -> tensor<4x8xf32> {
    %off = arith.muli %i, %c4 : index
    %blk = tensor.extract_slice %rows[%off, 0] [4, 8] [1, 1] : tensor<?x8xf32> to tensor<4x8xf32>
    %next = linalg.add ins(%acc, %blk : tensor<4x8xf32>, tensor<4x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
    scf.yield %next : tensor<4x8xf32>
  }
  return %sum : tensor<4x8xf32>
}

// v * s, for a positive s.
func.func @scaled(%v: tensor<?xf32>, %s: f32) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %positive = arith.cmpf ogt, %s, %zero : f32
  cf.assert %positive, "the scale must be positive"
  %c0 = arith.constant 0 : index
  %n = tensor.dim %v, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %splat = tensor.splat %s[%n] : tensor<?xf32>
  %r = linalg.mul ins(%v, %splat : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// rows as a matrix of the given shape.
func.func @reshaped(%rows: tensor<?x8xf32>, %shape: tensor<2xi64>) -> tensor<?x2xf32> {
  %r = tensor.reshape %rows(%shape) : (tensor<?x8xf32>, tensor<2xi64>) -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}

// A copy of x written into the caller's buffer.
func.func @into(%x: tensor<?x?xf32>, %out: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = bufferization.materialize_in_destination %x in %out : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @reshaped_index(%rows: tensor<?x8xf32>, %shape: tensor<2xindex>) -> tensor<?x2xf32> {
  %r = tensor.reshape %rows(%shape) : (tensor<?x8xf32>, tensor<2xindex>) -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}

// New rows written into a cache at `pos`; the filled rows' sums, and the
// filled rows followed by the new ones.
func.func @update(%cache: tensor<?x64xf32>, %new: tensor<?x64xf32>, %pos: index)
    -> (tensor<?x64xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %new, %c0 : tensor<?x64xf32>
  %c = tensor.insert_slice %new into %cache[%pos, 0] [%n, 64] [1, 1] : tensor<?x64xf32> into tensor<?x64xf32>
  %end = arith.addi %pos, %n : index
  %filled = tensor.extract_slice %c[0, 0] [%end, 64] [1, 1] : tensor<?x64xf32> to tensor<?x64xf32>
  %e = tensor.empty(%end) : tensor<?xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%filled : tensor<?x64xf32>) outs(%f : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %cat = tensor.concat dim(0) %filled, %new : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  return %cat, %s : tensor<?x64xf32>, tensor<?xf32>
}

// Token embeddings plus positions: out[i, j] = table[ids[i], j] + pos[i, j].
func.func @embed(%table: tensor<?x?xf32>, %ids: tensor<?xi32>, %pos: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %ids, %c0 : tensor<?xi32>
  %d = tensor.dim %table, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n, %d) : tensor<?x?xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%ids, %pos : tensor<?xi32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%id: i32, %p: f32, %o: f32):
    %row = arith.index_cast %id : i32 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<?x?xf32>
    %s = arith.addf %v, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// `lo` zeros before v and one after.
func.func @padded(%v: tensor<?xf32>, %lo: index) -> tensor<?xf32> {
  %z = arith.constant 0.0 : f32
  %r = tensor.pad %v low[%lo] high[1] {
  ^bb0(%i: index):
    tensor.yield %z : f32
  } : tensor<?xf32> to tensor<?xf32>
  return %r : tensor<?xf32>
}

// n rows of 4 zeros.
func.func @zeros(%n: index) -> tensor<?x4xf32> {
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %f : tensor<?x4xf32>
}

// Element `i` of a buffer.
func.func @element(%v: memref<?xf32>, %i: index) -> f32 {
  %x = memref.load %v[%i] : memref<?xf32>
  return %x : f32
}
