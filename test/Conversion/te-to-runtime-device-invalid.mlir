// convert-te-to-runtime{device-memory=true}: what the host must not do with
// tensor data in device memory is refused, naming the op.
//
// RUN: te-opt %s --convert-te-to-runtime="device-memory=true" --split-input-file --verify-diagnostics

func.func @atomic(%m: memref<4xf32>, %v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.atomic_rmw' op reads or writes tensor data on the host; on a GPU target tensors live in device memory and te cannot place this op on the GPU}}
  %r = memref.atomic_rmw addf %v, %m[%c0] : (f32, memref<4xf32>) -> f32
  return %r : f32
}

// -----

func.func @strided_copy(%a: memref<32x64xf32>, %b: memref<32x128xf32>) {
  %s = memref.subview %b[0, 64] [32, 64] [1, 1] : memref<32x128xf32> to memref<32x64xf32, strided<[128, 1], offset: 64>>
  // expected-error @+1 {{'memref.copy' op copies a strided memref on the host; run te-linalg-to-gpu first (it makes it a kernel)}}
  memref.copy %a, %s : memref<32x64xf32> to memref<32x64xf32, strided<[128, 1], offset: 64>>
  return
}
