// RUN: te-opt %s --split-input-file --te-bufferize-boundaries --verify-diagnostics
// RUN: not te-run %s --entry main --dynamic-dim 4 2>&1 | FileCheck %s --check-prefix=UNRANKED

// Unranked tensors are an error that names them (neither target lowers
// their buffers), even in a function the entry does not call: te-run stops
// at compile time, before anything runs.
// UNRANKED: error: @passthrough: argument 0 has the unranked type 'tensor<*xf32>'; te compiles ranked tensors (a size known at run time only is `?`, as in tensor<?x?xf32>)
// UNRANKED-NOT: result 0

func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}

// expected-error @+1 {{@passthrough: argument 0 has the unranked type 'tensor<*xf32>'; te compiles ranked tensors (a size known at run time only is `?`, as in tensor<?x?xf32>)}}
func.func @passthrough(%a: tensor<*xf32>) -> tensor<*xf32> {
  return %a : tensor<*xf32>
}

// -----

func.func @erase_rank(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tensor.cast' op has the unranked result type 'tensor<*xf32>'; te compiles ranked tensors}}
  %u = tensor.cast %a : tensor<4xf32> to tensor<*xf32>
  %r = tensor.cast %u : tensor<*xf32> to tensor<4xf32>
  return %r : tensor<4xf32>
}
