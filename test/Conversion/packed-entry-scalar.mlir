// te-packed-entry with a single scalar result: the C interface returns it,
// and the wrapper stores it through the last slot; no te.shape_checks, no
// _te_shape_checks_<entry>.
//
// RUN: te-opt %s -pass-pipeline='builtin.module(te-packed-entry{entry=f signature="f32[4] -> f32" target=cpu})' | FileCheck %s

// CHECK: llvm.func @_mlir_ciface_f(%{{.*}}: !llvm.ptr) -> f32
// CHECK: llvm.func @_te_packed_f(
// CHECK: %[[V:[0-9]+]] = llvm.call @_mlir_ciface_f(
// CHECK: %[[OUT:[0-9]+]] = llvm.getelementptr %{{.*}}[1]
// CHECK: %[[PTR:[0-9]+]] = llvm.load %[[OUT]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.store %[[V]], %[[PTR]] : f32, !llvm.ptr
// CHECK: @_te_signature_f("f32[4] -> f32\00")
// CHECK-NOT: _te_shape_checks_f
module {
  llvm.func @_mlir_ciface_f(%x: !llvm.ptr) -> f32 {
    %c = llvm.mlir.constant(1.0 : f32) : f32
    llvm.return %c : f32
  }
}
