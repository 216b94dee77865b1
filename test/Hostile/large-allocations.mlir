// Buffers whose static sizes the program cannot allocate: a memref.alloc
// whose byte count overflows (2^62 f32: 2^64 bytes, which wrapped to a
// 0-byte allocation), a memref.alloca of 400 MB (it overflowed the stack).
// te-check-shapes refuses them at compile time, naming the type and the
// limit; dynamic sizes are checked at run time (accesses.mlir).
//
// RUN: te-opt %s --split-input-file --te-check-shapes --verify-diagnostics

func.func @alloc_wraps() -> memref<4611686018427387904xf32> {
  // expected-error @+1 {{the new memref 'memref<4611686018427387904xf32>' is too large: its static sizes take more than 2^62 bytes in all}}
  %m = memref.alloc() : memref<4611686018427387904xf32>
  return %m : memref<4611686018427387904xf32>
}

// -----

func.func @alloca_too_large() -> f32 {
  // expected-error @+1 {{the stack allocation 'memref<100000000xf32>' is too large: its static sizes take more than 1 MiB in all; larger buffers: memref.alloc}}
  %m = memref.alloca() : memref<100000000xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<100000000xf32>
  return %v : f32
}

// -----

// At the limit: no error, no check.
func.func @alloca_at_limit() -> f32 {
  %m = memref.alloca() : memref<262144xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<262144xf32>
  return %v : f32
}
