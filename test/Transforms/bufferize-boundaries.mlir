// RUN: te-opt %s --split-input-file --te-bufferize-boundaries | FileCheck %s
//
// The oracle of the last case: one-shot-bufferize with
// function-boundary-type-conversion=identity-layout-map alone, on the
// original input, gives the same bufferized function as after this pass.
// RUN: te-opt %s --split-input-file --te-bufferize-boundaries --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s --check-prefix=OSB
// RUN: te-opt %s --split-input-file --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s --check-prefix=OSB

// An entry point: memref signature, to_tensor restrict writable at the
// entry, to_buffer read_only at the return; a non-tensor argument is kept.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[W:[^:]*]]: memref<4x8xf32>, %[[N:[^:]*]]: index, %[[X:[^:]*]]: memref<2x8xbf16>) -> (memref<4x8xf32>, index)
// CHECK-DAG: %[[WT:.*]] = bufferization.to_tensor %[[W]] restrict writable : memref<4x8xf32> to tensor<4x8xf32>
// CHECK-DAG: %[[XT:.*]] = bufferization.to_tensor %[[X]] restrict writable : memref<2x8xbf16> to tensor<2x8xbf16>
// CHECK: %[[E:.*]] = tensor.insert %{{.*}} into %[[WT]]
// CHECK: %[[B:.*]] = bufferization.to_buffer %[[E]] read_only : tensor<4x8xf32> to memref<4x8xf32>
// CHECK: return %[[B]], %[[N]] : memref<4x8xf32>, index
func.func @step(%w: tensor<4x8xf32>, %n: index, %x: tensor<2x8xbf16>) -> (tensor<4x8xf32>, index) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %e = tensor.insert %f into %w[%c0, %c0] : tensor<4x8xf32>
  return %e, %n : tensor<4x8xf32>, index
}

// -----

// bufferization.writable = false: the tensor is not writable (and the
// attribute, now about a memref, is dropped).
// CHECK-LABEL: func.func @read_only(
// CHECK-SAME: %[[W:[^:]*]]: memref<4xf32>) -> memref<4xf32>
// CHECK-NOT: bufferization.writable
// CHECK: bufferization.to_tensor %[[W]] restrict : memref<4xf32> to tensor<4xf32>
func.func @read_only(%w: tensor<4xf32> {bufferization.writable = false}) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}

// -----

// A called function keeps its tensor signature (so does its caller's call);
// the caller, an entry point, is rewritten.
// CHECK-LABEL: func.func private @callee(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @caller(%{{.*}}: memref<4xf32>) -> memref<4xf32>
// CHECK: call @callee(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
func.func private @callee(%t: tensor<4xf32>) -> tensor<4xf32> {
  return %t : tensor<4xf32>
}
func.func @caller(%t: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @callee(%t) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Left alone: a declaration, a body of several blocks, a function without
// tensors. (An unranked tensor is an error:
// bufferize-boundaries-unranked.mlir.)
// CHECK-LABEL: func.func private @external(tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @blocks(%{{.*}}: tensor<4xf32>, %{{.*}}: i1) -> tensor<4xf32>
// CHECK-NOT: bufferization.to_tensor
// CHECK-LABEL: func.func @scalars(%{{.*}}: f32) -> f32
// CHECK-NOT: bufferization.to_tensor
// CHECK: return %{{.*}} : f32
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
func.func @blocks(%t: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  cf.cond_br %c, ^a, ^b
^a:
  return %t : tensor<4xf32>
^b:
  return %t : tensor<4xf32>
}
func.func @scalars(%f: f32) -> f32 {
  return %f : f32
}

// -----

// Bufferized, the same function either way (the second and third RUN
// lines): a fresh buffer for the written copy of a read argument, the
// argument buffer written in place where the argument is not read later.
// OSB-LABEL: func.func @bufferized(
// OSB-SAME: %[[A:[^:]*]]: memref<4xf32>, %[[B:[^:]*]]: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
// OSB: %[[ALLOC:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// OSB: memref.copy %[[A]], %[[ALLOC]]
// OSB: memref.store %{{.*}}, %[[ALLOC]]
// OSB: memref.store %{{.*}}, %[[B]]
// OSB: return %[[ALLOC]], %[[B]] : memref<4xf32>, memref<4xf32>
func.func @bufferized(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %x = tensor.insert %f into %a[%c0] : tensor<4xf32>
  %y = tensor.extract %a[%c0] : tensor<4xf32>
  %z = tensor.insert %y into %b[%c0] : tensor<4xf32>
  return %x, %z : tensor<4xf32>, tensor<4xf32>
}
