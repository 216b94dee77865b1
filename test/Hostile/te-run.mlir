// te-run under hostile sizes, inputs and flags: each case is a one-line
// error and exit status 1 (a failure) or 2 (a usage error), never a signal,
// an uncaught exception or a silent wrong answer. Sizes: every argument and
// result byte size is checked against 2^46 bytes (a zero dimension counted
// as 1) and against the memory the process may use (physical, ulimit -v,
// cgroup); an allocation that fails is "out of memory allocating N bytes".
//
// RUN: rm -rf %t && mkdir -p %t && %python %S/Inputs/make-run-inputs.py %t/in
//
// Sizes (--dynamic-dim 10^12 was std::bad_alloc, 2^54 std::length_error,
// 2^55 and 2^62 a SIGSEGV in the compiled code's memcpy).
// RUN: not te-run %s --entry id1 --dynamic-dim 1000000000000 2>&1 | FileCheck %s --check-prefix=MEM
// RUN: not te-run %s --entry id1 --dynamic-dim 18014398509481984 2>&1 | FileCheck %s --check-prefix=LARGE
// RUN: not te-run %s --entry id1 --dynamic-dim 36028797018963968 2>&1 | FileCheck %s --check-prefix=LARGE
// RUN: not te-run %s --entry id1 --dynamic-dim 4611686018427387904 2>&1 | FileCheck %s --check-prefix=LARGE
// RUN: not te-run %s --entry id2 --dynamic-dim 4611686018427387904 2>&1 | FileCheck %s --check-prefix=LARGE2
// RUN: not te-run %s --entry id2 --dynamic-dim 9223372036854775808 2>&1 | FileCheck %s --check-prefix=DYNRANGE
// MEM: te-run: argument 0 (f32[?]): f32[1000000000000] needs {{[0-9]+}} MiB of host memory for the generated arguments so far; this machine has {{[0-9]+}} MiB
// LARGE: te-run: argument 0 (f32[?]): f32[{{[0-9]+}}] is too large: more than 2^46 bytes
// LARGE2: te-run: argument 0 (f32[?,?]): f32[4611686018427387904,4611686018427387904] is too large: more than 2^46 bytes
// DYNRANGE: te-run: error: --dynamic-dim: '9223372036854775808' is not an integer in 0..9223372036854775807
//
// A static argument of 4 TiB (was std::bad_alloc), also under ulimit -v.
// RUN: not te-run %s --entry big 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not %python %S/Inputs/run-limited.py as=4294967296 te-run %s --entry big 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: te-run: argument 0 (f32[1048576,1048576]): f32[1048576,1048576] needs 4194304 MiB of host memory for the generated arguments so far; this machine has {{[0-9]+}} MiB
//
// An allocation of the compiled program that fails (a 2^48-byte outer
// product of two 32 MiB arguments): a message, not a write through NULL.
// RUN: not te-run %s --entry outer --dynamic-dim 8388608 --fill 0=1 --fill 1=1 2>&1 | FileCheck %s --check-prefix=PROGOOM
// PROGOOM: te-run: out of memory allocating 2814749767{{[0-9]+}} bytes in the compiled program
//
// --input arrays whose `?` disagree were run, the compiled code reading past
// the smaller one. The compiled code checks them (te-check-shapes): a
// runtime error naming the op, its location and both sizes. Compiled
// without the checks, every `?` takes one size.
// RUN: not te-run %s --entry add --input %t/in/a4x8.npy --input %t/in/a5x8.npy 2>&1 | FileCheck %s --check-prefix=DYNAGREE
// DYNAGREE: te-run: runtime error in shape check: linalg.generic at {{.*}}te-run.mlir:[[@LINE+137]]:8: dimension 0 of operand 1 (loop d0, the size of dimension 0 of operand 0) is 5, expected 4
// RUN: not te-run %s --entry add --pipeline-options check-shapes=false --input %t/in/a4x8.npy --input %t/in/a5x8.npy 2>&1 | FileCheck %s --check-prefix=DYNONE
// DYNONE: te-run: argument 1 (f32[?,8]): {{.*}}a5x8.npy has 5 at the dynamic dimension 0, argument 0 ({{.*}}a4x8.npy) dimension 0 has 4: every `?` dimension takes one size (the program was compiled without te-check-shapes)
// RUN: te-run %s --entry add --input %t/in/a4x8.npy --input %t/in/a4x8.npy | FileCheck %s --check-prefix=ADD
// ADD: result 0: f32[4,8] min 0 max 62
//
// float16 and float64 .npy inputs are converted (float64 range-checked);
// big-endian data is refused; '-' reads the module from standard input.
// RUN: te-run %s --entry add --input %t/in/a4x8-f16.npy --input %t/in/a4x8-f64.npy | FileCheck %s --check-prefix=ADD
// RUN: not te-run %s --entry add --input %t/in/a4x8-f64big.npy --input %t/in/a4x8.npy 2>&1 | FileCheck %s --check-prefix=F64BIG
// F64BIG: te-run: argument 0 (f32[?,8]): {{.*}}a4x8-f64big.npy: element 0 (1e+39) is outside the range of f32
// RUN: not te-run %s --entry add --input %t/in/a4x8-be.npy --input %t/in/a4x8.npy 2>&1 | FileCheck %s --check-prefix=BE
// BE: te-run: '{{.*}}a4x8-be.npy': big-endian .npy data ('>f4') is not supported: convert it with a.astype('<f4')
// RUN: te-run - --entry add --input %t/in/a4x8.npy --input %t/in/a4x8.npy < %s | FileCheck %s --check-prefix=ADD
//
// Scalars are read exactly (i64 saturated, i32 wrapped).
// RUN: not te-run %s --entry si64 --input 99999999999999999999 2>&1 | FileCheck %s --check-prefix=I64
// RUN: not te-run %s --entry si32 --input 2147483648 2>&1 | FileCheck %s --check-prefix=I32
// RUN: te-run %s --entry si32 --input -2147483648 | FileCheck %s --check-prefix=I32OK
// I64: te-run: argument 0 (i64): --input '99999999999999999999' is not an integer in -9223372036854775808..9223372036854775807 (a scalar argument's --input is its value)
// I32: te-run: argument 0 (i32): --input '2147483648' is not an integer in -2147483648..2147483647 (a scalar argument's --input is its value)
// I32OK: result 0: i32 min -2.14748e+09 max -2.14748e+09
//
// Flags: every number validated before anything runs (usage errors, 2).
// RUN: not te-run %s --entry add --threads -1 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not te-run %s --entry add --dynamic-dim 4 --repeat -1 2>&1 | FileCheck %s --check-prefix=REPEAT
// RUN: not te-run %s --entry add --dynamic-dim 4 --exact 7 --compare %t/in/a4x8.npy 2>&1 | FileCheck %s --check-prefix=EXACT
// RUN: not te-run %s --entry add --dynamic-dim -256 2>&1 | FileCheck %s --check-prefix=NEGDYN
// RUN: not te-run %s --entry add --dynamic-dim 4 --rtol nan 2>&1 | FileCheck %s --check-prefix=RTOL
// RUN: not te-run %s --entry add --dynamic-dim 4 --seed -1 2>&1 | FileCheck %s --check-prefix=SEED
// RUN: not te-run %s --entry add --dynamic-dim 4 --warmup 1e9 2>&1 | FileCheck %s --check-prefix=WARMUP
// THREADS: te-run: error: --threads: '-1' is not an integer in 0..4096
// RUN: (te-run %s --entry add --pipeline-options "bogus=1" 2>&1; echo "status $?") | FileCheck %s --check-prefix=POPTS
// POPTS: te-run: error: --pipeline-options 'bogus=1': {{.*}}no such option bogus
// POPTS: status 2
// RUN: (te-run %s --entry add --pipeline-options "target=sm_90" 2>&1; echo "status $?") | FileCheck %s --check-prefix=POPTARGET
// POPTARGET: te-run: error: --pipeline-options: give the target with --target and the twin with --reference
// POPTARGET: status 2
// The options reach the pipeline: a valid one runs the program.
// RUN: te-run %s --entry add --dynamic-dim 4 --pipeline-options "fuse-accumulate=false" | FileCheck %s --check-prefix=POPTOK
// POPTOK: result 0: f32[4,8]
// REPEAT: te-run: error: --repeat: '-1' is not an integer in 1..1073741824
// EXACT: te-run: error: --exact 7: the entry function has 1 result
// NEGDYN: te-run: error: --dynamic-dim: '-256' is not an integer in 0..9223372036854775807
// RTOL: te-run: error: --rtol: 'nan' is not a finite number >= 0
// SEED: te-run: error: --seed: '-1' is not an integer in 0..2^64-1
// WARMUP: te-run: error: --warmup: '1e9' is not an integer in 0..1073741824
// RUN: (te-run %s --entry add --dynamic-dim 4 --threads 2 --repeat 0 2>&1; echo "status $?") | FileCheck %s --check-prefix=USAGE2
// RUN: (te-run %s --entry add --input %t/in/a4x8.npy --input %t/in/a5x8.npy 2>&1; echo "status $?") | FileCheck %s --check-prefix=FAIL1
// USAGE2: status 2
// FAIL1: status 1
//
// The output directory is made and checked before the program runs.
// RUN: touch %t/file
// RUN: not te-run %s --entry add --dynamic-dim 4 --output-dir %t/file/out 2>&1 | FileCheck %s --check-prefix=OUTDIR
// OUTDIR-NOT: result 0
// OUTDIR: te-run: error: --output-dir '{{.*}}file/out': cannot create it: {{.*}}
// RUN: te-run %s --entry add --dynamic-dim 4 --output-dir %t/new/deep/out | FileCheck %s --check-prefix=ADD4
// RUN: test -f %t/new/deep/out/result0.npy
// ADD4: result 0: f32[4,8]
//
// The entry is a public function with a body.
// RUN: not te-run %s --entry hidden --dynamic-dim 4 2>&1 | FileCheck %s --check-prefix=PRIVATE
// RUN: not te-run %s --entry declared --print-signature 2>&1 | FileCheck %s --check-prefix=DECLARED
// PRIVATE: te-run: @hidden is private: the entry must be a public function (the pipeline may inline or remove private ones)
// DECLARED: te-run: @declared is a declaration: the entry needs a body
//
// An empty file is not "already lowered".
// RUN: not te-run %t/in/empty.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: te-run: no function @main in {{.*}}empty.mlir (the module is empty)
//
// RUN: te-run --version | FileCheck %s --check-prefix=VERSION
// VERSION: te-run (te) {{[0-9.]+}}
// VERSION-NEXT: LLVM: 22.{{.*}}
// VERSION-NEXT: CUDA: {{.*}}

// Numbers read as written (reliability III): a leading 0 is no octal
// prefix (010 was 8 for integers, 10 for floats); a value beyond f64 or
// beyond the tensor's element type is refused (1e999 and --fill 0=1e300
// became inf silently); an f64 tensor's --fill is exact (it went through
// f32); a result of NaNs reads "min nan max nan" and counts its NaNs (it
// read "min inf max -inf").
// RUN: te-run %s --entry si64 --input 010 | FileCheck %s --check-prefix=OCTAL
// RUN: te-run %s --entry si64 --input 0x10 | FileCheck %s --check-prefix=HEX
// OCTAL: result 0: i64 min 10 max 10
// HEX: result 0: i64 min 16 max 16
// RUN: not te-run %s --entry sf64 --input 1e999 2>&1 | FileCheck %s --check-prefix=HUGEIN
// HUGEIN: te-run: argument 0 (f64): --input '1e999' is outside the range of f64 (write inf for infinity)
// RUN: not te-run %s --entry id1 --dynamic-dim 4 --fill 0=1e300 2>&1 | FileCheck %s --check-prefix=HUGEFILL
// HUGEFILL: te-run: argument 0 (f32[?]): --fill value 1e300 is outside the range of f32
// RUN: not te-run %s --entry id1 --dynamic-dim 4 --fill 0=1e999 2>&1 | FileCheck %s --check-prefix=HUGEFILL64
// HUGEFILL64: te-run: error: --fill '0=1e999': the value is outside the range of f64 (write inf for infinity)
// RUN: te-run %s --entry minus_tenth --fill 0=0.1 | FileCheck %s --check-prefix=F64
// F64: result 0: f64[2] min 0 max 0 mean 0
// RUN: te-run %s --entry id1 --dynamic-dim 4 --fill 0=nan | FileCheck %s --check-prefix=NAN
// NAN: result 0: f32[4] min nan max nan mean nan checksum {{[0-9a-f]+}} nan 4
//
func.func @id1(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

func.func @id2(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  return %x : tensor<?x?xf32>
}

func.func @big(%x: tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32> {
  return %x : tensor<1048576x1048576xf32>
}

func.func @si64(%x: i64) -> i64 {
  return %x : i64
}

func.func @sf64(%x: f64) -> f64 {
  return %x : f64
}

// x - 0.1 in f64: 0 where the --fill value 0.1 arrived exactly (through
// f32 it is 1.49e-09).
func.func @minus_tenth(%x: tensor<2xf64>) -> tensor<2xf64> {
  %e = tensor.empty() : tensor<2xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<2xf64>) outs(%e : tensor<2xf64>) {
  ^bb0(%a: f64, %o: f64):
    %t = arith.constant 0.1 : f64
    %d = arith.subf %a, %t : f64
    linalg.yield %d : f64
  } -> tensor<2xf64>
  return %r : tensor<2xf64>
}

func.func @si32(%x: i32) -> i32 {
  return %x : i32
}

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%a: tensor<?x8xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x8xf32>, tensor<?x8xf32>) outs(%a : tensor<?x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

func.func @outer(%a: tensor<?x1xf32>, %b: tensor<1x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x1xf32>
  %n = tensor.dim %b, %c1 : tensor<1x?xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x1xf32>, tensor<1x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func private @hidden(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

func.func private @declared(%x: tensor<4xf32>) -> tensor<4xf32>
