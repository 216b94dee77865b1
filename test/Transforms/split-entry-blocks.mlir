// te-split-entry-blocks: a function with arguments and at least min-ops ops
// in its entry block gets an entry block that only branches to the body
// (every op moved, in order); smaller entries, functions without arguments
// and declarations are left alone.
//
// RUN: te-opt %s --te-split-entry-blocks="min-ops=3" | FileCheck %s

// CHECK-LABEL: func.func @large(
// CHECK-SAME: %[[A:[^:]*]]: f32, %[[B:[^:]*]]: f32)
// CHECK-NEXT: cf.br ^[[BODY:bb[0-9]+]]
// CHECK-NEXT: ^[[BODY]]:
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]]
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[S]], %[[A]]
// CHECK-NEXT: return %[[M]]
func.func @large(%a: f32, %b: f32) -> f32 {
  %s = arith.addf %a, %b : f32
  %m = arith.mulf %s, %a : f32
  return %m : f32
}

// CHECK-LABEL: func.func @small(
// CHECK-NEXT: return
func.func @small(%a: f32) -> f32 {
  return %a : f32
}

// CHECK-LABEL: func.func @no_arguments(
// CHECK-NOT: cf.br
// CHECK: return
func.func @no_arguments() -> f32 {
  %c = arith.constant 1.0 : f32
  %s = arith.addf %c, %c : f32
  %m = arith.mulf %s, %c : f32
  return %m : f32
}

// CHECK: func.func private @declaration(f32)
func.func private @declaration(f32)
