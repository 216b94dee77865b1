// te-host-math-to-libm: host math ops convert-to-llvm cannot lower become C
// library calls; kernels (inside a gpu.module) keep theirs for NVVM; the
// ops LLVM has intrinsics for are left alone.
//
// RUN: te-opt %s --te-host-math-to-libm | FileCheck %s

// CHECK-DAG: func.func private @erff(f32) -> f32
// CHECK-DAG: func.func private @erf(f64) -> f64
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host
  // CHECK: call @erff(%{{.*}}) : (f32) -> f32
  // CHECK: call @erf(%{{.*}}) : (f64) -> f64
  // CHECK: call @erfcf
  // CHECK: call @cbrtf
  // CHECK: math.exp %{{.*}} : f32
  // CHECK-NOT: math.erf
  func.func @host(%x: f32, %d: f64) -> (f32, f64, f32, f32, f32) {
    %a = math.erf %x : f32
    %b = math.erf %d : f64
    %c = math.erfc %x : f32
    %e = math.cbrt %x : f32
    %f = math.exp %x : f32
    return %a, %b, %c, %e, %f : f32, f64, f32, f32, f32
  }
  // A vector: element by element.
  // CHECK-LABEL: func.func @host_vector
  // CHECK-COUNT-2: call @asinhf
  // CHECK-NOT: math.asinh
  func.func @host_vector(%v: vector<2xf32>) -> vector<2xf32> {
    %r = math.asinh %v : vector<2xf32>
    return %r : vector<2xf32>
  }
  // CHECK: gpu.module @kernels
  // CHECK: math.erf %{{.*}} : f32
  // CHECK-NOT: call @erff
  gpu.module @kernels {
    gpu.func @k(%p: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %p[%c0] : memref<4xf32>
      %y = math.erf %x : f32
      memref.store %y, %p[%c0] : memref<4xf32>
      gpu.return
    }
  }
}
