// Integer and bool tensors through te-run and the AOT driver: an i32 ids
// argument (an embedding gather: tensor.extract at the row the id names), an
// i64 labels argument, an i1 mask argument, an argmax (a linalg.generic with
// an f32 max and an i32 index output), an i1 and an i64 result; and i8/i16
// arguments and results. Inputs/harness-integers.py writes the .npy
// arguments and computes the expected results itself (no numpy).
//
// RUN: rm -rf %t && mkdir -p %t && %python %S/Inputs/harness-integers.py inputs %t/in
// RUN: te-run %s --entry classify --print-signature | FileCheck %s --check-prefix=SIG
// SIG: i32[64], f32[50,16], i64[64], i1[64] -> f32[64,16], f32[64], i32[64], i1[64], i64[1]
//
// Integer results are compared exactly (the tolerances are for the floats);
// the summary line is the floats' format.
// RUN: te-run %s --entry classify --input %t/in/ids.npy --input %t/in/table.npy --input %t/in/labels.npy --input %t/in/mask.npy \
// RUN:   --rtol 1e-6 --atol 1e-6 --compare %t/in/emb.npy --compare %t/in/max.npy --compare %t/in/idx.npy --compare %t/in/ok.npy --compare %t/in/count.npy \
// RUN:   | FileCheck %s --check-prefix=MAIN
// MAIN: result 2: i32[64] min 0 max 15 mean 5.42188 checksum {{[0-9a-f]+}}
// MAIN-NEXT: result 2: PASS vs {{.*}}idx.npy: max_abs_err 0 rel_err 0 mismatches 0
// MAIN-NEXT: result 3: i1[64] min 0 max 1 mean 0.421875 checksum {{[0-9a-f]+}}
// MAIN-NEXT: result 3: PASS vs {{.*}}ok.npy: max_abs_err 0 rel_err 0 mismatches 0
// MAIN-NEXT: result 4: i64[1] min 27 max 27 mean 27 checksum {{[0-9a-f]+}}
// MAIN-NEXT: result 4: PASS vs {{.*}}count.npy: max_abs_err 0 rel_err 0 mismatches 0
//
// Any integer dtype whose values fit is converted exactly (<i8 ids for i32,
// <i2 labels for i64, |u1 0/1 for i1), and any integer or float reference
// whose values are the integers compares (<i8 and <f4 for i32, |u1 for i64).
// RUN: te-run %s --entry classify --input %t/in/ids-i8.npy --input %t/in/table.npy --input %t/in/labels-i2.npy --input %t/in/mask-u1.npy --quiet \
// RUN:   --compare %t/in/emb.npy --compare %t/in/max.npy --compare %t/in/idx-i8.npy --compare %t/in/ok.npy --compare %t/in/count-u1.npy \
// RUN:   | FileCheck %s --check-prefix=PASS
// RUN: te-run %s --entry classify --input %t/in/ids-u1.npy --input %t/in/table.npy --input %t/in/labels.npy --input %t/in/mask.npy --quiet \
// RUN:   --compare %t/in/emb.npy --compare %t/in/max.npy --compare %t/in/idx-f4.npy --compare %t/in/ok.npy --compare %t/in/count.npy \
// RUN:   | FileCheck %s --check-prefix=PASS
// PASS-COUNT-5: PASS
//
// A wrong integer is a FAIL (exit 1) whatever the tolerances, with the first
// mismatch's index and values.
// RUN: not te-run %s --entry classify --input %t/in/ids.npy --input %t/in/table.npy --input %t/in/labels.npy --input %t/in/mask.npy --quiet --atol 5 \
// RUN:   --compare %t/in/emb.npy --compare %t/in/max.npy --compare %t/in/idx-wrong.npy --compare %t/in/ok.npy --compare %t/in/count.npy \
// RUN:   | FileCheck %s --check-prefix=WRONG
// WRONG: result 2: FAIL vs {{.*}}idx-wrong.npy: max_abs_err 1 rel_err {{[0-9.e-]+}} mismatches 1 (first at flat index 9: got 0, want 1)
//
// --output-dir: <i4, |b1 and <i8 files with the same values.
// RUN: te-run %s --entry classify --input %t/in/ids.npy --input %t/in/table.npy --input %t/in/labels.npy --input %t/in/mask.npy --quiet --output-dir %t/out
// RUN: %python %S/Inputs/harness-integers.py describe %t/out/result2.npy | FileCheck %s --check-prefix=OUT2
// RUN: %python %S/Inputs/harness-integers.py describe %t/out/result3.npy | FileCheck %s --check-prefix=OUT3
// RUN: %python %S/Inputs/harness-integers.py describe %t/out/result4.npy | FileCheck %s --check-prefix=OUT4
// OUT2: <i4 [64] 11 0 5 2 10 1 0 0 11 0 12
// OUT3: |b1 [64] 0 0 0 1 1 1 0 0 0 0 1 0 1
// OUT4: <i8 [1] 27
// RUN: te-run %s --entry classify --input %t/in/ids.npy --input %t/in/table.npy --input %t/in/labels.npy --input %t/in/mask.npy --quiet \
// RUN:   --compare %t/out/result0.npy --compare %t/out/result1.npy --compare %t/out/result2.npy --compare %t/out/result3.npy --compare %t/out/result4.npy \
// RUN:   | FileCheck %s --check-prefix=PASS
//
// i8 and i16: |i1 and <i2 exactly; |u1 is an i8's raw bytes (packed data),
// both as an argument and as a reference; <u2 is a value for i16, checked.
// RUN: te-run %s --entry widen --input %t/in/a.npy --input %t/in/b.npy --compare %t/in/sum.npy --compare %t/in/half-b.npy --compare %t/in/half-a.npy \
// RUN:   | FileCheck %s --check-prefix=WIDEN
// WIDEN: result 0: i32[6] min -32896 max 32894
// WIDEN: result 0: PASS
// WIDEN: result 1: i16[6] min -16384 max 16383
// WIDEN: result 1: PASS
// WIDEN: result 2: i8[6] min -64 max 63
// WIDEN: result 2: PASS
// RUN: te-run %s --entry widen --input %t/in/a-u1.npy --input %t/in/b.npy --quiet --compare %t/in/sum.npy --compare %t/in/half-b.npy --compare %t/in/half-a-u1.npy \
// RUN:   | FileCheck %s --check-prefix=PASS3
// PASS3-COUNT-3: PASS
// RUN: not te-run %s --entry widen --input %t/in/a.npy --input %t/in/b-u2.npy 2>&1 | FileCheck %s --check-prefix=U2
// U2: te-run: argument 1 (i16[6]): {{.*}}b-u2.npy: element 0 (32768) is outside the range of i16 (-32768..32767)
// RUN: te-run %s --entry widen --input %t/in/a.npy --input %t/in/b.npy --quiet --output-dir %t/widen
// RUN: %python %S/Inputs/harness-integers.py describe %t/widen/result1.npy | FileCheck %s --check-prefix=OUTW1
// RUN: %python %S/Inputs/harness-integers.py describe %t/widen/result2.npy | FileCheck %s --check-prefix=OUTW2
// OUTW1: <i2 [6] -16384 -1 0 1 500 16383
// OUTW2: |i1 [6] -64 0 0 0 50 63
//
// Out of range, not 0/1, float data: refused with the argument, file and
// element (exit 1).
// RUN: not te-run %s --entry classify --input %t/in/ids-big.npy --input %t/in/table.npy --input %t/in/labels.npy --input %t/in/mask.npy 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: te-run: argument 0 (i32[64]): {{.*}}ids-big.npy: element 5 (3000000000) is outside the range of i32 (-2147483648..2147483647)
// RUN: not te-run %s --entry classify --input %t/in/ids-neg.npy --input %t/in/table.npy --input %t/in/labels.npy --input %t/in/mask.npy 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: te-run: argument 0 (i32[64]): {{.*}}ids-neg.npy: element 3 (-2147483649) is outside the range of i32 (-2147483648..2147483647)
// RUN: not te-run %s --entry classify --input %t/in/ids.npy --input %t/in/table.npy --input %t/in/labels-huge.npy --input %t/in/mask.npy 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: te-run: argument 2 (i64[64]): {{.*}}labels-huge.npy: element 0 (18446744073709551615) is outside the range of i64 (-9223372036854775808..9223372036854775807)
// RUN: not te-run %s --entry classify --input %t/in/ids.npy --input %t/in/table.npy --input %t/in/labels.npy --input %t/in/mask-2.npy 2>&1 | FileCheck %s --check-prefix=MASK2
// MASK2: te-run: argument 3 (i1[64]): {{.*}}mask-2.npy: element 7 (2) is outside the range of i1 (0..1)
// RUN: not te-run %s --entry classify --input %t/in/ids.npy --input %t/in/table.npy --input %t/in/labels.npy --input %t/in/mask-b2.npy 2>&1 | FileCheck %s --check-prefix=MASKB2
// MASKB2: te-run: argument 3 (i1[64]): {{.*}}mask-b2.npy: element 7 (2) of the |b1 array is not 0 or 1
// RUN: (te-run %s --entry classify --input %t/in/ids-f4.npy --input %t/in/table.npy --input %t/in/labels.npy --input %t/in/mask.npy 2>&1; echo "status $?") | FileCheck %s --check-prefix=FLOATIDS
// FLOATIDS: te-run: argument 0 (i32[64]): {{.*}}ids-f4.npy has dtype <f4, expected an integer array (|i1, <i2, <i4, <i8, |u1, <u2, <u4, <u8 or |b1): integer arguments are not converted from floats
// FLOATIDS: status 1
// RUN: not te-run %s --entry classify --input %t/in/ids.npy --input %t/in/table-i4.npy --input %t/in/labels.npy --input %t/in/mask.npy 2>&1 | FileCheck %s --check-prefix=INTTABLE
// INTTABLE: te-run: argument 1 (f32[50,16]): {{.*}}table-i4.npy has dtype <i4, expected <f4, <f2 or <f8
//
// --fill of an integer tensor: an integer in its type's range, read exactly
// (a usage error otherwise, exit 2); the float arguments stay random and the
// i1 mask is generated (0/1 from the seed).
// RUN: (te-run %s --entry classify --fill 0=1.5 2>&1; echo "status $?") | FileCheck %s --check-prefix=FILLFRAC
// FILLFRAC: te-run: error: argument 0 (i32[64]): --fill 0=1.5: the value is not an integer in -2147483648..2147483647 (an integer argument's constant is read exactly)
// FILLFRAC: status 2
// RUN: (te-run %s --entry classify --fill 0=3000000000 2>&1; echo "status $?") | FileCheck %s --check-prefix=FILLBIG
// FILLBIG: te-run: error: argument 0 (i32[64]): --fill 0=3000000000: the value is not an integer in -2147483648..2147483647 (an integer argument's constant is read exactly)
// FILLBIG: status 2
// RUN: not te-run %s --entry classify --fill 0=7 --fill 2=7 --fill 3=2 2>&1 | FileCheck %s --check-prefix=FILLI1
// FILLI1: te-run: error: argument 3 (i1[64]): --fill 3=2: the value is not an integer in 0..1 (an integer argument's constant is read exactly)
// RUN: te-run %s --entry classify --fill 0=7 --fill 2=10 --fill 3=1 | FileCheck %s --check-prefix=FILL
// FILL: result 2: i32[64] min 10 max 10
// FILL: result 3: i1[64] min 1 max 1
// FILL: result 4: i64[1] min 64 max 64
// RUN: te-run %s --entry classify --fill 0=7 --fill 2=10 | FileCheck %s --check-prefix=GEN
// GEN: result 2: i32[64] min 0 max 10
// GEN: result 3: i1[64] min 0 max 1
//
// Integer tensors other than i1 are not generated (they are often indices).
// RUN: (te-run %s --entry classify 2>&1; echo "status $?") | FileCheck %s --check-prefix=NOGEN
// NOGEN: te-run: argument 0 (i32[64]): integer arguments are not generated (they are often indices): give its data with --input FILE.npy or a constant with --fill 0=V
// NOGEN: status 1
// RUN: not te-run %s --entry classify --fill 0=1 2>&1 | FileCheck %s --check-prefix=NOGEN2
// NOGEN2: te-run: argument 2 (i64[64]): integer arguments are not generated (they are often indices): give its data with --input FILE.npy or a constant with --fill 2=V
//
// An i1 argument alone is generated: random 0/1, counted by the program.
// RUN: te-run %s --entry count --seed 5 --output-dir %t/count | FileCheck %s --check-prefix=COUNT
// COUNT: result 0: i1[100] min 0 max 1
// RUN: %python %S/Inputs/harness-integers.py count %t/count | FileCheck %s --check-prefix=ONES
// ONES: ones {{[0-9]+}} of 100, count {{[0-9]+}}
//
// Ahead of time (target cpu): the same conversions and exact compares.
// RUN: env TE_BUILD_DIR=%te_lib_dir/.. %te_src_root/scripts/te-aot.sh compile %s %t/classify.o --entry classify --target cpu > /dev/null
// RUN: FileCheck %s --check-prefix=SIG < %t/classify.sig
// RUN: %te_src_root/scripts/te-aot.sh link %t/classify.o %t/classify %te_lib_dir > /dev/null
// RUN: %t/classify --signature-file %t/classify.sig --entry classify --input %t/in/ids-i8.npy --input %t/in/table.npy --input %t/in/labels.npy --input %t/in/mask.npy --quiet \
// RUN:   --compare %t/in/emb.npy --compare %t/in/max.npy --compare %t/in/idx.npy --compare %t/in/ok.npy --compare %t/in/count.npy \
// RUN:   | FileCheck %s --check-prefix=PASS
// RUN: not %t/classify --signature-file %t/classify.sig --entry classify --fill 0=3000000000 2>&1 | FileCheck %s --check-prefix=AOTFILL
// AOTFILL: te-aot-run: error: argument 0 (i32[64]): --fill 0=3000000000: the value is not an integer in -2147483648..2147483647

#row = affine_map<(i, j) -> (i)>
#id2 = affine_map<(i, j) -> (i, j)>
#id1 = affine_map<(i) -> (i)>
#first = affine_map<(i) -> (0)>
func.func @classify(%ids: tensor<64xi32>, %table: tensor<50x16xf32>,
                    %labels: tensor<64xi64>, %mask: tensor<64xi1>)
    -> (tensor<64x16xf32>, tensor<64xf32>, tensor<64xi32>, tensor<64xi1>, tensor<1xi64>) {
  %e = tensor.empty() : tensor<64x16xf32>
  %zero = arith.constant 0.0 : f32
  %emb = linalg.generic {indexing_maps = [#row, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ids, %mask : tensor<64xi32>, tensor<64xi1>) outs(%e : tensor<64x16xf32>) {
  ^bb0(%id: i32, %m: i1, %o: f32):
    %r = arith.index_cast %id : i32 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%r, %j] : tensor<50x16xf32>
    %s = arith.select %m, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<64x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i32
  %em = tensor.empty() : tensor<64xf32>
  %ei = tensor.empty() : tensor<64xi32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%em : tensor<64xf32>) -> tensor<64xf32>
  %i0 = linalg.fill ins(%c0 : i32) outs(%ei : tensor<64xi32>) -> tensor<64xi32>
  %mx:2 = linalg.generic {indexing_maps = [#id2, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%emb : tensor<64x16xf32>) outs(%m0, %i0 : tensor<64xf32>, tensor<64xi32>) {
  ^bb0(%x: f32, %m: f32, %k: i32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %x, %m : f32
    %nm = arith.select %gt, %x, %m : f32
    %nk = arith.select %gt, %ji, %k : i32
    linalg.yield %nm, %nk : f32, i32
  } -> (tensor<64xf32>, tensor<64xi32>)
  %eb = tensor.empty() : tensor<64xi1>
  %ok = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%mx#1, %labels, %mask : tensor<64xi32>, tensor<64xi64>, tensor<64xi1>) outs(%eb : tensor<64xi1>) {
  ^bb0(%k: i32, %l: i64, %m: i1, %o: i1):
    %k64 = arith.extsi %k : i32 to i64
    %eq = arith.cmpi eq, %k64, %l : i64
    %a = arith.andi %eq, %m : i1
    linalg.yield %a : i1
  } -> tensor<64xi1>
  %c0_64 = arith.constant 0 : i64
  %ec = tensor.empty() : tensor<1xi64>
  %n0 = linalg.fill ins(%c0_64 : i64) outs(%ec : tensor<1xi64>) -> tensor<1xi64>
  %count = linalg.generic {indexing_maps = [#id1, #first], iterator_types = ["reduction"]}
      ins(%ok : tensor<64xi1>) outs(%n0 : tensor<1xi64>) {
  ^bb0(%b: i1, %acc: i64):
    %x = arith.extui %b : i1 to i64
    %s = arith.addi %acc, %x : i64
    linalg.yield %s : i64
  } -> tensor<1xi64>
  return %emb, %mx#0, %mx#1, %ok, %count : tensor<64x16xf32>, tensor<64xf32>, tensor<64xi32>, tensor<64xi1>, tensor<1xi64>
}

func.func @widen(%a: tensor<6xi8>, %b: tensor<6xi16>) -> (tensor<6xi32>, tensor<6xi16>, tensor<6xi8>) {
  %e32 = tensor.empty() : tensor<6xi32>
  %e16 = tensor.empty() : tensor<6xi16>
  %e8 = tensor.empty() : tensor<6xi8>
  %one16 = arith.constant 1 : i16
  %two8 = arith.constant 2 : i8
  %r:3 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<6xi8>, tensor<6xi16>) outs(%e32, %e16, %e8 : tensor<6xi32>, tensor<6xi16>, tensor<6xi8>) {
  ^bb0(%x: i8, %y: i16, %o0: i32, %o1: i16, %o2: i8):
    %x32 = arith.extsi %x : i8 to i32
    %y32 = arith.extsi %y : i16 to i32
    %s = arith.addi %x32, %y32 : i32
    %h = arith.shrsi %y, %one16 : i16
    %q = arith.divsi %x, %two8 : i8
    linalg.yield %s, %h, %q : i32, i16, i8
  } -> (tensor<6xi32>, tensor<6xi16>, tensor<6xi8>)
  return %r#0, %r#1, %r#2 : tensor<6xi32>, tensor<6xi16>, tensor<6xi8>
}

func.func @count(%m: tensor<100xi1>) -> (tensor<100xi1>, tensor<1xi64>) {
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<1xi64>
  %n0 = linalg.fill ins(%c0 : i64) outs(%e : tensor<1xi64>) -> tensor<1xi64>
  %n = linalg.generic {indexing_maps = [#id1, #first], iterator_types = ["reduction"]}
      ins(%m : tensor<100xi1>) outs(%n0 : tensor<1xi64>) {
  ^bb0(%b: i1, %acc: i64):
    %x = arith.extui %b : i1 to i64
    %s = arith.addi %acc, %x : i64
    linalg.yield %s : i64
  } -> tensor<1xi64>
  return %m, %n : tensor<100xi1>, tensor<1xi64>
}
