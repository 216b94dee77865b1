// Integer division and remainder on tensors, divisors 0 and INT_MIN / -1
// among them: the results te-define-integer-division defines (XLA's), no
// trap, compared exactly with a Python oracle. Scalar host code (index
// arithmetic) divides by zero without a trap too.
//
// RUN: rm -rf %t && %python %S/Inputs/integer-division.py %t
// RUN: te-run %s --entry divide --input %t/a.npy --input %t/b.npy \
// RUN:   --compare %t/want-divsi.npy --compare %t/want-remsi.npy --compare %t/want-divui.npy \
// RUN:   --compare %t/want-remui.npy --compare %t/want-floordivsi.npy --compare %t/want-ceildivsi.npy \
// RUN:   | FileCheck %s
// RUN: te-run %s --entry rows_per_group --input 10 --input 0 | FileCheck %s --check-prefix=HOST
// RUN: te-run %s --entry rows_per_group --input 10 --input 3 | FileCheck %s --check-prefix=HOST3
// Seeded (gpu-programs.py compiles it for gpu-check): divisors all 0.
// RUN: te-run %s --entry divide --dynamic-dim 1000 --fill 0=5 --fill 1=0 | FileCheck %s --check-prefix=RAN
// CHECK-COUNT-6: result {{[0-5]}}: PASS
// HOST: result 0: i64 min -1 max -1
// HOST3: result 0: i64 min 3 max 3
// RAN: result 0: i32[1000] min -1 max -1
// RAN: result 1: i32[1000] min 5 max 5

#map = affine_map<(d0) -> (d0)>
func.func @divide(%a: tensor<?xi32>, %b: tensor<?xi32>)
    -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %divsi = arith.divsi %a, %b : tensor<?xi32>
  %remsi = arith.remsi %a, %b : tensor<?xi32>
  %divui = arith.divui %a, %b : tensor<?xi32>
  %remui = arith.remui %a, %b : tensor<?xi32>
  %floor = arith.floordivsi %a, %b : tensor<?xi32>
  %ceil = arith.ceildivsi %a, %b : tensor<?xi32>
  return %divsi, %remsi, %divui, %remui, %floor, %ceil
      : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}

// Rows per group on the host: a division of the program's scalars.
func.func @rows_per_group(%rows: i64, %groups: i64) -> i64 {
  %q = arith.divsi %rows, %groups : i64
  return %q : i64
}
