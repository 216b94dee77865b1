// Accesses te-check-shapes checks like memref.load / store: affine.load /
// store (the map applied to its operands; also in an affine.for), vector.load
// / store (every element of the vector), memref.atomic_rmw, tensor.dim with
// a run-time index, and buffers the program allocates with sizes it computes
// (memref.alloc at most 2^62 bytes, so that the byte count cannot wrap;
// memref.alloca at most 1 MiB of stack). Before, one past the end gave exit
// 0, far past SIGSEGV; memref.alloc of 2^62 f32 allocated 0 bytes (its byte
// count wrapped) and the fill segfaulted; a 400 MB alloca overflowed the
// stack. Run on the cpu backend; te-run exits 1 with the check's message.
//
// RUN: te-run %s --entry affine_load --dynamic-dim 4 --fill 1=2 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry affine_load --dynamic-dim 4 --fill 1=3 2>&1 | FileCheck %s --check-prefix=AL
// RUN: not te-run %s --entry affine_load --dynamic-dim 4 --fill 1=100000000 2>&1 | FileCheck %s --check-prefix=ALFAR
// RUN: not te-run %s --entry affine_load --dynamic-dim 4 --fill 1=-2 2>&1 | FileCheck %s --check-prefix=ALNEG
// AL: te-run: runtime error in shape check: affine.load at {{.*}}accesses.mlir:{{[0-9]+}}:{{[0-9]+}}: dimension 0 of the memref (index 0 + 1) is 4, expected at least 5
// ALFAR: te-run: runtime error in shape check: affine.load at {{.*}}: dimension 0 of the memref (index 0 + 1) is 4, expected at least 100000002
// ALNEG: te-run: runtime error in shape check: affine.load at {{.*}}: index 0 is -1, expected at least 0
//
// RUN: te-run %s --entry affine_loop --dynamic-dim 15 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry affine_loop --dynamic-dim 14 2>&1 | FileCheck %s --check-prefix=ALOOP
// ALOOP: te-run: runtime error in shape check: affine.load at {{.*}}: dimension 0 of the memref (index 0 + 1) is 14, expected at least 15
//
// RUN: te-run %s --entry affine_store --dynamic-dim 4 --fill 1=3 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry affine_store --dynamic-dim 4 --fill 1=4 2>&1 | FileCheck %s --check-prefix=AS
// AS: te-run: runtime error in shape check: affine.store at {{.*}}: dimension 0 of the memref (index 0 + 1) is 4, expected at least 5
//
// RUN: te-run %s --entry vector_load --dynamic-dim 4 --fill 1=0 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry vector_load --dynamic-dim 4 --fill 1=1 2>&1 | FileCheck %s --check-prefix=VL
// RUN: not te-run %s --entry vector_load --dynamic-dim 4 --fill 1=9223372036854775806 2>&1 | FileCheck %s --check-prefix=VLWRAP
// VL: te-run: runtime error in shape check: vector.load at {{.*}}: dimension 0 of the memref (index 0 + 3 (the vector's last element) + 1) is 4, expected at least 5
// VLWRAP: te-run: runtime error in shape check: vector.load at {{.*}}: dimension 0 of the memref (index 0 + 3 (the vector's last element) + 1) is 4, expected at least 9223372036854775807
// RUN: not te-run %s --entry vector_store --dynamic-dim 4 --fill 1=1 2>&1 | FileCheck %s --check-prefix=VS
// VS: te-run: runtime error in shape check: vector.store at {{.*}}: dimension 0 of the memref (index 0 + 3 (the vector's last element) + 1) is 4, expected at least 5
//
// RUN: te-run %s --entry atomic --dynamic-dim 4 --fill 1=3 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry atomic --dynamic-dim 4 --fill 1=4 2>&1 | FileCheck %s --check-prefix=RMW
// RMW: te-run: runtime error in shape check: memref.atomic_rmw at {{.*}}: dimension 0 of the memref (index 0 + 1) is 4, expected at least 5
//
// RUN: te-run %s --entry dim --dynamic-dim 4 --fill 1=1 | FileCheck %s --check-prefix=DIM
// RUN: not te-run %s --entry dim --dynamic-dim 4 --fill 1=2 2>&1 | FileCheck %s --check-prefix=DIMHIGH
// RUN: not te-run %s --entry dim --dynamic-dim 4 --fill 1=-1 2>&1 | FileCheck %s --check-prefix=DIMNEG
// DIM: result 0: i64 min 4 max 4
// DIMHIGH: te-run: runtime error in shape check: tensor.dim at {{.*}}: the dimension index (the rank - 1) is 2, expected at most 1
// DIMNEG: te-run: runtime error in shape check: tensor.dim at {{.*}}: the dimension index is -1, expected at least 0
//
// RUN: te-run %s --entry alloc --fill 0=8 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry alloc --fill 0=4611686018427387904 2>&1 | FileCheck %s --check-prefix=ALLOC
// RUN: not te-run %s --entry alloc --fill 0=-1 2>&1 | FileCheck %s --check-prefix=ALLOCNEG
// ALLOC: te-run: runtime error in shape check: memref.alloc at {{.*}}: dimension 0 of the new memref (at most 2^62 bytes in all) is 4611686018427387904, expected at most 1152921504606846976
// ALLOCNEG: te-run: runtime error in shape check: memref.alloc at {{.*}}: dimension 0 of the new memref is -1, expected at least 0
//
// RUN: te-run %s --entry dyn_alloca --fill 0=262144 | FileCheck %s --check-prefix=PASS
// RUN: not te-run %s --entry dyn_alloca --fill 0=100000000 2>&1 | FileCheck %s --check-prefix=ALLOCA
// ALLOCA: te-run: runtime error in shape check: memref.alloca at {{.*}}: dimension 0 of the stack allocation (at most 1 MiB in all; larger buffers: memref.alloc) is 100000000, expected at most 262144
//
// PASS: result 0: f32

func.func @affine_load(%m: memref<?xf32>, %i: index) -> f32 {
  %v = affine.load %m[%i + 1] : memref<?xf32>
  return %v : f32
}
func.func @affine_loop(%m: memref<?xf32>, %n: index) -> f32 {
  %z = arith.constant 0.0 : f32
  %r = affine.for %i = 0 to 8 iter_args(%a = %z) -> f32 {
    %v = affine.load %m[%i * 2] : memref<?xf32>
    %s = arith.addf %a, %v : f32
    affine.yield %s : f32
  }
  return %r : f32
}
func.func @affine_store(%m: memref<?xf32>, %i: index) -> memref<?xf32> {
  %c = arith.constant 1.0 : f32
  affine.store %c, %m[%i] : memref<?xf32>
  return %m : memref<?xf32>
}
func.func @vector_load(%m: memref<?xf32>, %i: index) -> f32 {
  %v = vector.load %m[%i] : memref<?xf32>, vector<4xf32>
  %e = vector.extract %v[3] : f32 from vector<4xf32>
  return %e : f32
}
func.func @vector_store(%m: memref<?xf32>, %i: index) -> memref<?xf32> {
  %c = arith.constant dense<1.0> : vector<4xf32>
  vector.store %c, %m[%i] : memref<?xf32>, vector<4xf32>
  return %m : memref<?xf32>
}
func.func @atomic(%m: memref<?xf32>, %i: index) -> f32 {
  %c = arith.constant 1.0 : f32
  %v = memref.atomic_rmw addf %c, %m[%i] : (f32, memref<?xf32>) -> f32
  return %v : f32
}
func.func @dim(%t: tensor<?x4xf32>, %i: index) -> index {
  %d = tensor.dim %t, %i : tensor<?x4xf32>
  return %d : index
}
func.func @alloc(%n: index) -> f32 {
  %m = memref.alloc(%n) : memref<?xf32>
  %c1 = arith.constant 1 : index
  %i = arith.subi %n, %c1 : index
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%m : memref<?xf32>)
  %v = memref.load %m[%i] : memref<?xf32>
  return %v : f32
}
func.func @dyn_alloca(%n: index) -> f32 {
  %m = memref.alloca(%n) : memref<?xf32>
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%m : memref<?xf32>)
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<?xf32>
  return %v : f32
}
