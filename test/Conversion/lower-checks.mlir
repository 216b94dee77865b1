// RUN: te-opt %s --split-input-file --te-lower-checks --verify-diagnostics | FileCheck %s
// RUN: te-opt %s --split-input-file --te-lower-checks --convert-to-llvm --reconcile-unrealized-casts --verify-diagnostics | FileCheck %s --check-prefix=LLVM

// te-lower-checks: a failed te.check_size or cf.assert records its message
// (te_rt_mlir_check_failed) and the function returns zeros at once; a
// caller of a function that may fail asks te_rt_mlir_status after the call.

// CHECK-DAG: llvm.mlir.global internal constant @[[ASSERT:__te_check_message_[0-9]+]]("{{.*}}lower-checks.mlir:{{[0-9]+}}:3: flag must be set\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[MSG:__te_check_message_[0-9]+]]("dimension 0 of %a\00")
// CHECK-DAG: llvm.func @te_rt_mlir_status() -> i32
// CHECK-DAG: func.func private @te_rt_mlir_check_failed(!llvm.ptr, i32, i64, i64)

// CHECK-LABEL: func.func @callee
// CHECK-SAME: (%[[A:.*]]: memref<?xf32>, %[[N:.*]]: index) -> (memref<?xf32>, index)
// CHECK: %[[D:.*]] = memref.dim %[[A]]
// The check costs a comparison and a branch while it holds.
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi eq, %[[D]], %[[N]] : index
// CHECK-NEXT: cf.cond_br %[[OK]], ^[[CONT:.*]], ^[[REPORT:[a-z0-9]+]]
// CHECK: ^[[CONT]]:
// CHECK-NEXT: return %[[A]], %[[D]]
// CHECK: ^[[REPORT]]:
// CHECK: %[[PTR:.*]] = llvm.mlir.addressof @[[MSG]]
// CHECK: %[[KIND:.*]] = arith.constant 0 : i32
// CHECK: %[[G:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK: %[[E:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: call @te_rt_mlir_check_failed(%[[PTR]], %[[KIND]], %[[G]], %[[E]])
// CHECK-NEXT: cf.br ^[[FAIL:[a-z0-9]+]]
// Zeros: a null memref descriptor and 0.
// CHECK: ^[[FAIL]]:
// CHECK-NEXT: %[[Z:.*]] = llvm.mlir.zero : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK-NEXT: %[[ZM:.*]] = builtin.unrealized_conversion_cast %[[Z]] {{.*}} to memref<?xf32>
// CHECK-NEXT: %[[ZI:.*]] = llvm.mlir.zero : i64
// CHECK-NEXT: %[[ZX:.*]] = builtin.unrealized_conversion_cast %[[ZI]] : i64 to index
// CHECK-NEXT: return %[[ZM]], %[[ZX]]
func.func @callee(%a: memref<?xf32>, %n: index) -> (memref<?xf32>, index) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %a, %c0 : memref<?xf32>
  te.check_size %d eq %n, "dimension 0 of %a"
  return %a, %d : memref<?xf32>, index
}

// CHECK-LABEL: func.func @caller
// CHECK: call @callee
// CHECK-NEXT: %[[S:.*]] = llvm.call @te_rt_mlir_status() : () -> i32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi eq, %[[S]], %[[Z]] : i32
// CHECK-NEXT: cf.cond_br %[[OK]], ^[[CONT:[a-z0-9]+]], ^[[FAIL:[a-z0-9]+]]
// CHECK: ^[[CONT]]:
// CHECK-NEXT: cf.cond_br %{{.*}}, ^[[CONT2:[a-z0-9]+]], ^[[REPORT:[a-z0-9]+]]
// CHECK: ^[[CONT2]]:
// CHECK: memref.load
// CHECK: ^[[REPORT]]:
// CHECK: llvm.mlir.addressof @[[ASSERT]]
// CHECK: %[[KIND:.*]] = arith.constant 2 : i32
// CHECK: call @te_rt_mlir_check_failed(%{{.*}}, %[[KIND]],
// CHECK: ^[[FAIL]]:
// CHECK-NEXT: llvm.mlir.zero : f32
func.func @caller(%a: memref<?xf32>, %n: index, %flag: i1) -> f32 {
  %r:2 = call @callee(%a, %n) : (memref<?xf32>, index) -> (memref<?xf32>, index)
  cf.assert %flag, "flag must be set"
  %c0 = arith.constant 0 : index
  %v = memref.load %r#0[%c0] : memref<?xf32>
  return %v : f32
}

// A function that neither checks nor calls one that does: unchanged.
// CHECK-LABEL: func.func @plain
// CHECK-NEXT: call @other
// CHECK-NEXT: return
func.func @plain(%x: f32) -> f32 {
  %y = call @other(%x) : (f32) -> f32
  return %y : f32
}
func.func @other(%x: f32) -> f32 {
  return %x : f32
}

// After convert-to-llvm: no abort, the casts reconciled.
// LLVM-NOT: abort
// LLVM-NOT: unrealized_conversion_cast
// LLVM: llvm.func @callee
// LLVM: llvm.mlir.zero : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// LLVM: llvm.call @te_rt_mlir_check_failed

// -----

// The relations: eq, ge (sge, kind 1), le (sle, kind 3).
// CHECK-LABEL: func.func @relations
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi sle
// CHECK: arith.constant 1 : i32
// CHECK: arith.constant 3 : i32
func.func @relations(%a: index, %b: index) {
  te.check_size %a ge %b, "at least"
  te.check_size %a le %b, "at most"
  return
}

// -----

// Structured control flow must be lowered first.
func.func @in_loop(%n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{'te.check_size' op is inside a region of its function: te-lower-checks runs after the structured control flow is lowered to blocks}}
    te.check_size %i eq %m, "the loop's index"
  }
  return
}
