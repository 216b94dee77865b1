// Argmax and argmin in one linalg.generic (TOSA's and Torch-MLIR's form), on
// rows full of ties, NaNs, infinities and signed zeros, from initial values
// that some rows never beat: the program as written and the program after
// te-split-arg-reductions (two parallel reductions and an elementwise op,
// what GPU targets run) both give the loop's results, computed
// independently in Python (Inputs/arg-reductions.py), bit for bit.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/arg-reductions.py %t
// RUN: te-opt %s --te-split-arg-reductions -o %t/split.mlir
// RUN: te-run %s --entry argmax --input %t/x.npy --input %t/m0.npy --input %t/i0.npy --compare %t/argmax_m.npy --compare %t/argmax_i.npy --exact 0 --exact 1 | FileCheck %s
// RUN: te-run %t/split.mlir --entry argmax --input %t/x.npy --input %t/m0.npy --input %t/i0.npy --compare %t/argmax_m.npy --compare %t/argmax_i.npy --exact 0 --exact 1 | FileCheck %s
// RUN: te-run %s --entry argmax_i8 --input %t/x.npy --compare %t/argmax8_m.npy --compare %t/argmax8_i.npy --exact 0 --exact 1 | FileCheck %s
// RUN: te-run %t/split.mlir --entry argmax_i8 --input %t/x.npy --compare %t/argmax8_m.npy --compare %t/argmax8_i.npy --exact 0 --exact 1 | FileCheck %s
// RUN: te-run %s --entry argmin_columns --input %t/x.npy --compare %t/argmin_m.npy --compare %t/argmin_i.npy --exact 0 --exact 1 | FileCheck %s
// RUN: te-run %t/split.mlir --entry argmin_columns --input %t/x.npy --compare %t/argmin_m.npy --compare %t/argmin_i.npy --exact 0 --exact 1 | FileCheck %s
// RUN: te-run %s --entry torch_argmax --input %t/x.npy --compare %t/torch_m.npy --compare %t/torch_i.npy --exact 0 --exact 1 | FileCheck %s
// RUN: te-run %t/split.mlir --entry torch_argmax --input %t/x.npy --compare %t/torch_m.npy --compare %t/torch_i.npy --exact 0 --exact 1 | FileCheck %s
// RUN: te-run %s --entry torch_argmin --input %t/x.npy --compare %t/torchmin_m.npy --compare %t/torchmin_i.npy --exact 0 --exact 1 | FileCheck %s
// RUN: te-run %t/split.mlir --entry torch_argmin --input %t/x.npy --compare %t/torchmin_m.npy --compare %t/torchmin_i.npy --exact 0 --exact 1 | FileCheck %s
// CHECK: result 0: PASS
// CHECK: result 1: PASS
//
// The split: per op, a maxnumf (minnumf) reduction, a minsi reduction of
// positions, the elementwise results; an op of another form is left alone.
// RUN: FileCheck %s --check-prefix=SPLIT < %t/split.mlir
// SPLIT-LABEL: func.func @argmax(
// SPLIT: arith.maxnumf
// SPLIT: arith.minsi
// SPLIT: tensor.extract
// SPLIT-LABEL: func.func @argmax_i8(
// SPLIT: arith.maxnumf
// SPLIT: arith.minsi
// SPLIT: arith.index_cast %{{.*}} : index to i8
// SPLIT-LABEL: func.func @argmin_columns(
// SPLIT: arith.minnumf
// SPLIT: arith.cmpf olt
// SPLIT: arith.minsi
// SPLIT-LABEL: func.func @torch_argmax(
// SPLIT: arith.cmpf uno
// SPLIT: arith.maxnumf
// SPLIT: arith.minsi
// SPLIT: arith.maximumf
// SPLIT-LABEL: func.func @torch_argmin(
// SPLIT: arith.minnumf
// SPLIT: arith.minimumf
// SPLIT-LABEL: func.func @last_index(
// SPLIT-NOT: arith.minsi
// SPLIT: arith.cmpf oge
//
// On sm_90 the argmax and argmin are parallel reductions, not one thread
// per output; the last-index form (oge) is not matched and stays serial.
// RUN: te-opt %s --te-pipeline="target=sm_90 gpu-format=isa" 2>&1 | FileCheck %s --check-prefix=GPU
// GPU-NOT: argmax_reduce_serial
// GPU-NOT: argmin_columns_reduce_serial
// GPU-DAG: gpu.binary @argmax_reduce_rows_L
// GPU-DAG: gpu.binary @argmin_columns_reduce_columns_L
// GPU-DAG: gpu.binary @last_index_reduce_serial_L
// GPU-NOT: torch_argmax_reduce_serial
//
// Generated inputs for the GPU check (scripts/gpu/gpu-programs.py).
// RUN: te-run %s --entry argmax --seed 2 --fill 2=7 | FileCheck %s --check-prefix=SEEDED
// RUN: te-run %s --entry argmin_columns --seed 2 | FileCheck %s --check-prefix=SEEDED
// RUN: te-run %s --entry torch_argmax --seed 2 | FileCheck %s --check-prefix=SEEDED
// SEEDED: result 1:

#in = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>

func.func @argmax(%x: tensor<16x300xf32>, %m0: tensor<16xf32>, %i0: tensor<16xi32>) -> (tensor<16xf32>, tensor<16xi32>) {
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x300xf32>) outs(%m0, %i0 : tensor<16xf32>, tensor<16xi32>) {
  ^bb0(%a: f32, %m: f32, %i: i32):
    %j = linalg.index 1 : index
    %jc = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %a, %m : f32
    %v = arith.select %gt, %a, %m : f32
    %k = arith.select %gt, %jc, %i : i32
    linalg.yield %v, %k : f32, i32
  } -> (tensor<16xf32>, tensor<16xi32>)
  return %r#0, %r#1 : tensor<16xf32>, tensor<16xi32>
}

// The position as i8: the loop's cast wraps past 127; the comparison
// written the other way round (m < x).
func.func @argmax_i8(%x: tensor<16x300xf32>) -> (tensor<16xf32>, tensor<16xi8>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i8
  %em = tensor.empty() : tensor<16xf32>
  %ei = tensor.empty() : tensor<16xi8>
  %m0 = linalg.fill ins(%ninf : f32) outs(%em : tensor<16xf32>) -> tensor<16xf32>
  %i0 = linalg.fill ins(%c0 : i8) outs(%ei : tensor<16xi8>) -> tensor<16xi8>
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x300xf32>) outs(%m0, %i0 : tensor<16xf32>, tensor<16xi8>) {
  ^bb0(%a: f32, %m: f32, %i: i8):
    %j = linalg.index 1 : index
    %jc = arith.index_cast %j : index to i8
    %gt = arith.cmpf olt, %m, %a : f32
    %v = arith.select %gt, %a, %m : f32
    %k = arith.select %gt, %jc, %i : i8
    linalg.yield %v, %k : f32, i8
  } -> (tensor<16xf32>, tensor<16xi8>)
  return %r#0, %r#1 : tensor<16xf32>, tensor<16xi8>
}

// Argmin down the columns, the position an index, the outputs yielded
// index first.
func.func @argmin_columns(%x: tensor<16x300xf32>) -> (tensor<300xf32>, tensor<300xindex>) {
  %inf = arith.constant 0x7F800000 : f32
  %c0 = arith.constant 0 : index
  %em = tensor.empty() : tensor<300xf32>
  %ei = tensor.empty() : tensor<300xindex>
  %m0 = linalg.fill ins(%inf : f32) outs(%em : tensor<300xf32>) -> tensor<300xf32>
  %i0 = linalg.fill ins(%c0 : index) outs(%ei : tensor<300xindex>) -> tensor<300xindex>
  %r:2 = linalg.generic {indexing_maps = [#in, #col, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<16x300xf32>) outs(%i0, %m0 : tensor<300xindex>, tensor<300xf32>) {
  ^bb0(%a: f32, %i: index, %m: f32):
    %j = linalg.index 0 : index
    %lt = arith.cmpf olt, %a, %m : f32
    %v = arith.select %lt, %a, %m : f32
    %k = arith.select %lt, %j, %i : index
    linalg.yield %k, %v : index, f32
  } -> (tensor<300xindex>, tensor<300xf32>)
  return %r#1, %r#0 : tensor<300xf32>, tensor<300xindex>
}

// Torch-MLIR's (and IREE's) form: the value by maximumf, NaN-propagating,
// the position by the strict comparison; from -inf and 0.
func.func @torch_argmax(%x: tensor<16x300xf32>) -> (tensor<16xf32>, tensor<16xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %em = tensor.empty() : tensor<16xf32>
  %ei = tensor.empty() : tensor<16xi64>
  %m0 = linalg.fill ins(%ninf : f32) outs(%em : tensor<16xf32>) -> tensor<16xf32>
  %i0 = linalg.fill ins(%c0 : i64) outs(%ei : tensor<16xi64>) -> tensor<16xi64>
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x300xf32>) outs(%m0, %i0 : tensor<16xf32>, tensor<16xi64>) {
  ^bb0(%a: f32, %m: f32, %i: i64):
    %j = linalg.index 1 : index
    %jc = arith.index_cast %j : index to i64
    %v = arith.maximumf %a, %m : f32
    %gt = arith.cmpf ogt, %a, %m : f32
    %k = arith.select %gt, %jc, %i : i64
    linalg.yield %v, %k : f32, i64
  } -> (tensor<16xf32>, tensor<16xi64>)
  return %r#0, %r#1 : tensor<16xf32>, tensor<16xi64>
}

func.func @torch_argmin(%x: tensor<16x300xf32>) -> (tensor<16xf32>, tensor<16xi64>) {
  %inf = arith.constant 0x7F800000 : f32
  %c0 = arith.constant 0 : i64
  %em = tensor.empty() : tensor<16xf32>
  %ei = tensor.empty() : tensor<16xi64>
  %m0 = linalg.fill ins(%inf : f32) outs(%em : tensor<16xf32>) -> tensor<16xf32>
  %i0 = linalg.fill ins(%c0 : i64) outs(%ei : tensor<16xi64>) -> tensor<16xi64>
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x300xf32>) outs(%m0, %i0 : tensor<16xf32>, tensor<16xi64>) {
  ^bb0(%a: f32, %m: f32, %i: i64):
    %j = linalg.index 1 : index
    %jc = arith.index_cast %j : index to i64
    %v = arith.minimumf %m, %a : f32
    %lt = arith.cmpf olt, %a, %m : f32
    %k = arith.select %lt, %jc, %i : i64
    linalg.yield %v, %k : f32, i64
  } -> (tensor<16xf32>, tensor<16xi64>)
  return %r#0, %r#1 : tensor<16xf32>, tensor<16xi64>
}

// The last index of the maximum (oge): another reduction, left alone.
func.func @last_index(%x: tensor<16x300xf32>, %m0: tensor<16xf32>, %i0: tensor<16xi32>) -> (tensor<16xf32>, tensor<16xi32>) {
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x300xf32>) outs(%m0, %i0 : tensor<16xf32>, tensor<16xi32>) {
  ^bb0(%a: f32, %m: f32, %i: i32):
    %j = linalg.index 1 : index
    %jc = arith.index_cast %j : index to i32
    %ge = arith.cmpf oge, %a, %m : f32
    %v = arith.select %ge, %a, %m : f32
    %k = arith.select %ge, %jc, %i : i32
    linalg.yield %v, %k : f32, i32
  } -> (tensor<16xf32>, tensor<16xi32>)
  return %r#0, %r#1 : tensor<16xf32>, tensor<16xi32>
}
