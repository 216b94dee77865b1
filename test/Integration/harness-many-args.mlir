// Any number of arguments and results: te-run and the AOT driver call the
// entry through its packed wrapper (_te_packed_main, one pointer to an array
// of pointers to the parameters), here with 80 memref arguments and 40
// results of three ranks and element types (Inputs/harness-many-args.py:
// result j = argument 2j + argument 2j+1; with --fill i=i it is 4j+1).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/harness-many-args.py module > %t/many.mlir
// RUN: %python %S/Inputs/harness-many-args.py checks > %t/checks.txt
// RUN: %python %S/Inputs/harness-many-args.py run te-run %t/many.mlir | FileCheck %t/checks.txt
// RUN: te-run %t/many.mlir --print-signature | FileCheck %s --check-prefix=SIG
// SIG: f32[4], f32[4], f64[2,3], f64[2,3], f32[1,2,2], f32[1,2,2],
// SIG-SAME: -> f32[4], f64[2,3], f32[1,2,2],
//
// Ahead of time, for target cpu (the .sig records it), and the timing line.
// RUN: env TE_BUILD_DIR=%te_lib_dir/.. %te_src_root/scripts/te-aot.sh compile %t/many.mlir %t/many.o --target cpu > /dev/null
// RUN: FileCheck %s --check-prefix=SIGFILE < %t/many.sig
// SIGFILE: f32[4], f32[4], f64[2,3]
// SIGFILE-NEXT: target cpu
// RUN: %te_src_root/scripts/te-aot.sh link %t/many.o %t/many %te_lib_dir > /dev/null
// RUN: %python %S/Inputs/harness-many-args.py run %t/many --signature-file %t/many.sig | FileCheck %t/checks.txt
// RUN: %python %S/Inputs/harness-many-args.py run %t/many --signature-file %t/many.sig --repeat 3 --quiet | FileCheck %s --check-prefix=TIMING
// TIMING: timing: step_ms={{[0-9.]+}} min_ms={{[0-9.]+}} repeat=3 upload_ms=0.000000 download_ms=0.000000
