// RUN: te-opt %s --te-decompose-aggregates --split-input-file --verify-diagnostics

// Upstream's decompositions build tensor ops: an op on memrefs (after
// bufferization) is an error naming it, not IR mixing memrefs and tensors.

func.func @buffers(%x: memref<4x8xf32>, %o: memref<4x8xf32>) {
  // expected-error @+1 {{'linalg.softmax' op has an operand or result of type 'memref<4x8xf32>': te-decompose-aggregates decomposes ops on ranked tensors only (the decomposition builds tensor ops); run it before bufferization}}
  linalg.softmax dimension(1) ins(%x : memref<4x8xf32>) outs(%o : memref<4x8xf32>)
  return
}

// -----

func.func @mixed_buffer(%x: memref<4x8xf32>, %o: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'linalg.softmax' op has an operand or result of type 'memref<4x8xf32>'}}
  %y = linalg.softmax dimension(1) ins(%x : memref<4x8xf32>) outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The verifier accepts an integer softmax; its decomposition (maxnumf, exp,
// divf) has none.

func.func @integer(%x: tensor<4x8xi32>, %o: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'linalg.softmax' op has element type 'i32': its decomposition (max, exp, sum, division) needs a float type}}
  %y = linalg.softmax dimension(1) ins(%x : tensor<4x8xi32>) outs(%o : tensor<4x8xi32>) -> tensor<4x8xi32>
  return %y : tensor<4x8xi32>
}

// -----

// Every op is tried: each one that cannot be decomposed is reported.

func.func @two(%x: tensor<4x8xf32>, %o: tensor<4x8xf32>, %b: memref<4x8xf32>, %i: tensor<4x8xi8>) -> tensor<4x8xf32> {
  %y = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-error @+1 {{'linalg.softmax' op has an operand or result of type 'memref<4x8xf32>'}}
  linalg.softmax dimension(1) ins(%b : memref<4x8xf32>) outs(%b : memref<4x8xf32>)
  // expected-error @+1 {{'linalg.softmax' op has element type 'i8'}}
  %z = linalg.softmax dimension(0) ins(%i : tensor<4x8xi8>) outs(%i : tensor<4x8xi8>) -> tensor<4x8xi8>
  return %y : tensor<4x8xf32>
}
