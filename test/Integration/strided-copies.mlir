// Copies into and out of strided views run on the host (target=cpu): a
// tensor.insert_slice at a column offset and a qtensor chosen by scf.if
// (bufferized as copies between non-contiguous buffers) execute without
// MLIR's C runner utilities (`memrefCopy`).
//
// RUN: te-run %s --entry columns --fill 0=1 --fill 1=2 | FileCheck %s --check-prefix=COLUMNS
//
// RUN: te-run %s --entry column_view --fill 0=1 --fill 1=2 | FileCheck %s --check-prefix=VIEW
//
// COLUMNS: result 0: f32[4,8] min 1 max 2 mean 1.5
// COLUMNS-NOT: Symbols not found
// A column block of a computed tensor as a result (entry results have the
// identity layout: the block is copied out of the strided view): the right
// half, all 2s.
// VIEW: result 0: f32[4,4] min 2 max 2 mean 2

func.func @column_view(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %w = func.call @columns(%a, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  %r = tensor.extract_slice %w[0, 4] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

func.func @columns(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %l = tensor.insert_slice %a into %e[0, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x8xf32>
  %r = tensor.insert_slice %b into %l[0, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// The same on a GPU target: the strided copy is a kernel.
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" | FileCheck %s --check-prefix=GPU
// GPU-LABEL: func.func @columns
// GPU: gpu.launch
// GPU-NOT: memref.copy
