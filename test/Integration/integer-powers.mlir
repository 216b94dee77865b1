// math.ipowi (te-expand-integer-powers: exponentiation by squaring; no
// target lowers the op itself) on the cpu backend, against an independent
// oracle: Inputs/integer-powers.py computes the powers with Python's
// integers, wrapped to 32 or 64 bits, and upstream's results for negative
// exponents. Bases -9..9, +-2^15, 46341, the extremes, with exponents
// -3..40 (products that wrap), and random pairs.
//
// RUN: rm -rf %t && %python %S/Inputs/integer-powers.py %t
// RUN: te-run %s --entry ipow32 --input %t/base32.npy --input %t/exp32.npy --compare %t/want32.npy | FileCheck %s --check-prefix=PASS
// RUN: te-run %s --entry ipow64 --input %t/base64.npy --input %t/exp64.npy --compare %t/want64.npy | FileCheck %s --check-prefix=PASS
//
// A table of (i - 8) ** (j - 4) from linalg.index, for a dynamic batch of
// 24 rows (its input only sets the size); seeded, so gpu-programs.py
// compiles it for gpu-check (cuda against cpu).
// RUN: te-run %s --entry table --seed 1 --dynamic-dim 24 --compare %t/want-table.npy | FileCheck %s --check-prefix=PASS
//
// sm_90: kernels, no math.ipowi left.
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" | FileCheck %s --check-prefix=GPU --implicit-check-not=math.ipowi
//
// PASS: result 0: PASS
// GPU-LABEL: func.func @ipow32(
// GPU: gpu.launch
// GPU-LABEL: func.func @table(
// GPU: gpu.launch

#id = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @ipow32(%x: tensor<?xi32>, %e: tensor<?xi32>) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xi32>
  %o0 = tensor.empty(%n) : tensor<?xi32>
  %o = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %e : tensor<?xi32>, tensor<?xi32>) outs(%o0 : tensor<?xi32>) {
  ^bb0(%a: i32, %b: i32, %out: i32):
    %p = math.ipowi %a, %b : i32
    linalg.yield %p : i32
  } -> tensor<?xi32>
  return %o : tensor<?xi32>
}

func.func @ipow64(%x: tensor<?xi64>, %e: tensor<?xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xi64>
  %o0 = tensor.empty(%n) : tensor<?xi64>
  %o = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %e : tensor<?xi64>, tensor<?xi64>) outs(%o0 : tensor<?xi64>) {
  ^bb0(%a: i64, %b: i64, %out: i64):
    %p = math.ipowi %a, %b : i64
    linalg.yield %p : i64
  } -> tensor<?xi64>
  return %o : tensor<?xi64>
}

func.func @table(%x: tensor<?x40xf32>) -> tensor<?x40xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x40xf32>
  %o0 = tensor.empty(%n) : tensor<?x40xi32>
  %o = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x40xf32>) outs(%o0 : tensor<?x40xi32>) {
  ^bb0(%unused: f32, %out: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %jj = arith.index_cast %j : index to i32
    %c8 = arith.constant 8 : i32
    %c4 = arith.constant 4 : i32
    %b = arith.subi %ii, %c8 : i32
    %e = arith.subi %jj, %c4 : i32
    %p = math.ipowi %b, %e : i32
    linalg.yield %p : i32
  } -> tensor<?x40xi32>
  return %o : tensor<?x40xi32>
}
