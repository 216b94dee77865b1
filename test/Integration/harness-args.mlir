// te-run's argument handling: scalar arguments (i64, i32, f32, f64, by
// value: --seed, --input N or --fill I=N), a single scalar result, constant
// tensors (--fill), and the messages of bad uses.
//
// RUN: te-run %s --entry scalar --seed 7 | FileCheck %s --check-prefix=SEED
// SEED: result 0: f32 min 7 max 7
// SEED: result 1: f32 min 7 max 7
// RUN: te-run %s --entry scalar --fill 0=-3 --fill 1=12 | FileCheck %s --check-prefix=FILL
// FILL: result 0: f32 min -3 max -3
// FILL: result 1: f32 min 12 max 12
// RUN: te-run %s --entry scalar --input 42 --input 0x10 | FileCheck %s --check-prefix=INPUT
// INPUT: result 0: f32 min 42 max 42
// INPUT: result 1: f32 min 16 max 16
// RUN: te-run %s --entry mixed --fill 0=0.5 --fill 1=3 | FileCheck %s --check-prefix=MIXED
// MIXED: result 0: f32[4] min 1.5 max 1.5
//
// RUN: not te-run %s --entry scalar --input forty --input 1 2>&1 | FileCheck %s --check-prefix=NOTINT
// NOTINT: te-run: argument 0 (i64): --input 'forty' is not an integer in -9223372036854775808..9223372036854775807 (a scalar argument's --input is its value)
// RUN: not te-run %s --entry scalar --input 1 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: te-run: error: the entry function takes 2 arguments, 1 --input files were given
// RUN: not te-run %s --entry scalar --fill 2=1 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: te-run: --fill 2=...: the entry function takes 2 arguments
// RUN: not te-run %s --entry scalar --fill x 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: te-run: error: --fill 'x': expected INDEX=VALUE, e.g. --fill 6=1
// RUN: not te-run %s --entry scalar --fill 0=1 --input 1 --input 2 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: te-run: --fill and --input exclude each other (give every argument with --input)
// RUN: te-run %s --entry float_scalar --fill 0=1.5 | FileCheck %s --check-prefix=FLOAT
// FLOAT: result 0: f32 min 1.5 max 1.5
// FLOAT: result 1: f32 min 1.5 max 1.5
// RUN: te-run %s --entry sum --input 40 --input -3 --input 0.5 --input 2.25 | FileCheck %s --check-prefix=SUM
// SUM: result 0: f64 min 39.75 max 39.75
// RUN: te-run %s --entry sum --seed 3 | FileCheck %s --check-prefix=SUMSEED
// SUMSEED: result 0: f64 min 12 max 12
// RUN: not te-run %s --entry sum --input 1 --input 2 --input x --input 4 2>&1 | FileCheck %s --check-prefix=NOTNUM
// NOTNUM: te-run: argument 2 (f32): --input 'x' is not a number (a scalar argument's --input is its value)
// An `index` argument is an i64 (the lowering's index width), and so is an
// index element: a user's size argument and the positions it yields.
// RUN: te-run %s --entry rows --print-signature | FileCheck %s --check-prefix=INDEXSIG
// INDEXSIG: i64 -> f32[?,8], i64[?]
// RUN: te-run %s --entry rows --input 5 | FileCheck %s --check-prefix=INDEX
// INDEX: result 0: f32[5,8] min 0 max 11 mean 5.5
// INDEX: result 1: i64[5] min 0 max 12 mean 6
// i1, i8 and i16 scalars (a flag, small counts): arguments and results,
// read exactly; the seed stands for an argument only where no --input or
// --fill gives it.
// RUN: te-run %s --entry narrow --print-signature | FileCheck %s --check-prefix=NARROWSIG
// NARROWSIG: i1, i8, i16 -> i1, i8, i16
// RUN: te-run %s --entry narrow --input 1 --input -5 --input 100 | FileCheck %s --check-prefix=NARROW
// NARROW: result 0: i1 min 0 max 0
// NARROW: result 1: i8 min -10 max -10
// NARROW: result 2: i16 min 10000 max 10000
// RUN: te-run %s --entry narrow --seed 7 --fill 0=0 | FileCheck %s --check-prefix=NARROWSEED
// NARROWSEED: result 0: i1 min 1 max 1
// NARROWSEED: result 1: i8 min 14 max 14
// NARROWSEED: result 2: i16 min 49 max 49
// RUN: not te-run %s --entry narrow --seed 7 2>&1 | FileCheck %s --check-prefix=NARROWRANGE
// NARROWRANGE: te-run: argument 0 (i1): the seed 7 (its value without --input or --fill) is outside 0..1
// RUN: not te-run %s --entry narrow --input 2 --input 1 --input 1 2>&1 | FileCheck %s --check-prefix=NARROWBOOL
// NARROWBOOL: te-run: argument 0 (i1): --input '2' is not an integer in 0..1 (a scalar argument's --input is its value)
// RUN: not te-run %s --entry narrow --input 1 --input 128 --input 1 2>&1 | FileCheck %s --check-prefix=NARROWI8
// NARROWI8: te-run: argument 1 (i8): --input '128' is not an integer in -128..127 (a scalar argument's --input is its value)
//
// A GPU-target program needs the cuda backend.
// RUN: not te-run %s --entry scalar --target sm_90 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: te-run: error: compiled for sm_90: run it with --backend cuda, or compile with --target cpu

func.func @scalar(%a: i64, %b: i32) -> (f32, f32) {
  %fa = arith.sitofp %a : i64 to f32
  %fb = arith.sitofp %b : i32 to f32
  return %fa, %fb : f32, f32
}

func.func @mixed(%x: tensor<4xf32>, %n: i64) -> tensor<4xf32> {
  %f = arith.sitofp %n : i64 to f32
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %f : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @float_scalar(%a: f32) -> (f32, f32) {
  return %a, %a : f32, f32
}

func.func @sum(%a: i64, %b: i32, %c: f32, %d: f64) -> f64 {
  %fa = arith.sitofp %a : i64 to f64
  %fb = arith.sitofp %b : i32 to f64
  %fc = arith.extf %c : f32 to f64
  %s0 = arith.addf %fa, %fb : f64
  %s1 = arith.addf %s0, %fc : f64
  %s2 = arith.addf %s1, %d : f64
  return %s2 : f64
}

// Row i, column j holds i + j; positions[i] = 3 * i.
func.func @rows(%n: index) -> (tensor<?x8xf32>, tensor<?xindex>) {
  %g = tensor.generate %n {
  ^bb0(%i: index, %j: index):
    %s = arith.addi %i, %j : index
    %si = arith.index_cast %s : index to i64
    %f = arith.sitofp %si : i64 to f32
    tensor.yield %f : f32
  } : tensor<?x8xf32>
  %p = tensor.generate %n {
  ^bb0(%i: index):
    %c3 = arith.constant 3 : index
    %t = arith.muli %i, %c3 : index
    tensor.yield %t : index
  } : tensor<?xindex>
  return %g, %p : tensor<?x8xf32>, tensor<?xindex>
}

// Not b, 2c and d squared.
func.func @narrow(%b: i1, %c: i8, %d: i16) -> (i1, i8, i16) {
  %t = arith.constant true
  %nb = arith.xori %b, %t : i1
  %c2 = arith.addi %c, %c : i8
  %d2 = arith.muli %d, %d : i16
  return %nb, %c2, %d2 : i1, i8, i16
}
