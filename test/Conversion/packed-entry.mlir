// te-packed-entry: the packed wrapper of a lowered entry (te_call.h's
// calling convention), its signature and target strings, the shape-checks
// byte, internal linkage of the entry and of @main, malloc routed to
// te_run_checked_malloc; and the errors.
//
// RUN: te-opt %s -pass-pipeline='builtin.module(te-packed-entry{entry=f signature="f32[4] -> f32[4]" target=sm_90})' | FileCheck %s
// RUN: te-opt %s -pass-pipeline='builtin.module(te-packed-entry{entry=f signature="f32[4] -> f32[4]" checked-malloc=false})' | FileCheck %s --check-prefix=PLAIN
// RUN: not te-opt %s -pass-pipeline='builtin.module(te-packed-entry{entry=f})' 2>&1 | FileCheck %s --check-prefix=NOSIG
// RUN: not te-opt %s -pass-pipeline='builtin.module(te-packed-entry{entry=f signature="f32[4], f32[4] -> f32[4]"})' 2>&1 | FileCheck %s --check-prefix=SLOTS
// RUN: not te-opt %s -pass-pipeline='builtin.module(te-packed-entry{entry=f signature="f32[4] -> f32"})' 2>&1 | FileCheck %s --check-prefix=RETURNED
// RUN: not te-opt %s -pass-pipeline='builtin.module(te-packed-entry{entry=f signature="f32 -> f32[4]"})' 2>&1 | FileCheck %s --check-prefix=SCALARARG
// RUN: not te-opt %s -pass-pipeline='builtin.module(te-packed-entry{entry=f signature="f32[4]"})' 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not te-opt %s -pass-pipeline='builtin.module(te-packed-entry{entry=g signature="f32[4] -> f32[4]"})' 2>&1 | FileCheck %s --check-prefix=NOCIFACE

// CHECK: module attributes {te.shape_checks}
// CHECK: llvm.func @te_run_checked_malloc(i64) -> !llvm.ptr
// CHECK: llvm.func internal @f(
// CHECK: llvm.call @te_run_checked_malloc
// CHECK: llvm.func internal @main()
// CHECK: llvm.func @_te_packed_f(%[[ARGS:[a-z0-9]+]]: !llvm.ptr) {
// CHECK:   %[[S0:[0-9]+]] = llvm.getelementptr %[[ARGS]][0]
// CHECK:   %[[P0:[0-9]+]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK:   %[[R:[0-9]+]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK:   %[[S1:[0-9]+]] = llvm.getelementptr %[[ARGS]][1]
// CHECK:   %[[P1:[0-9]+]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK:   %[[X:[0-9]+]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK:   llvm.call @_mlir_ciface_f(%[[R]], %[[X]])
// CHECK: llvm.mlir.global external constant @_te_signature_f("f32[4] -> f32[4]\00")
// CHECK: llvm.mlir.global external constant @_te_target_f("sm_90\00")
// CHECK: llvm.mlir.global external constant @_te_shape_checks_f(1 : i8)

// PLAIN: llvm.func @malloc(i64) -> !llvm.ptr
// PLAIN-NOT: te_run_checked_malloc
// PLAIN-NOT: _te_target_f

// NOSIG: error: te-packed-entry: give the entry's signature (signature="f32[4] -> f32[4]")
// SLOTS: error: te-packed-entry: the C interface of @f (!llvm.func<void (ptr, ptr)>) does not match its signature f32[4], f32[4] -> f32[4]
// The slot counts agree, but a scalar result is returned by value (not
// through a struct pointer) and a scalar argument is passed by value (not
// as a descriptor pointer).
// RETURNED: error: te-packed-entry: the C interface of @f (!llvm.func<void (ptr, ptr)>) does not match its signature f32[4] -> f32
// SCALARARG: error: te-packed-entry: the C interface of @f (!llvm.func<void (ptr, ptr)>) does not match its signature f32 -> f32[4]
// MALFORMED: error: te-packed-entry: malformed signature 'f32[4]'
// NOCIFACE: error: te-packed-entry: the lowered module has no _mlir_ciface_g (was @g given llvm.emit_c_interface?)
module attributes {te.shape_checks} {
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @f(%a: !llvm.ptr) {
    %c = llvm.mlir.constant(16 : i64) : i64
    %p = llvm.call @malloc(%c) : (i64) -> !llvm.ptr
    llvm.return
  }
  llvm.func @main() {
    llvm.return
  }
  llvm.func @_mlir_ciface_f(%r: !llvm.ptr, %x: !llvm.ptr) {
    llvm.call @f(%x) : (!llvm.ptr) -> ()
    llvm.return
  }
}

