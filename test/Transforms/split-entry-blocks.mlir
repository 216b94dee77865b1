// te-split-entry-blocks: a function with arguments and at least min-ops ops
// in its entry block gets an entry block that keeps its stack slots (an
// llvm.alloca of a constant size, with the constant) and branches to the
// body (every other op moved, in order);
// smaller entries, functions without arguments and declarations are left
// alone.
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

// The stack slots (descriptor slots: llvm.alloca of a constant size) stay
// in the entry block, first, with their sizes, wherever they were.
// CHECK-LABEL: func.func @slots(
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i64)
// CHECK-NEXT: %[[SLOT:.*]] = llvm.alloca %[[ONE]] x i64
// CHECK-NEXT: %[[SLOT2:.*]] = llvm.alloca %[[ONE]] x i32
// CHECK-NEXT: cf.br ^[[BODY:bb[0-9]+]]
// CHECK-NEXT: ^[[BODY]]:
// CHECK-NEXT: arith.addi
// CHECK-NEXT: llvm.store %{{.*}}, %[[SLOT]]
func.func @slots(%v: i64) -> i64 {
  %w = arith.addi %v, %v : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %slot = llvm.alloca %one x i64 : (i64) -> !llvm.ptr
  llvm.store %w, %slot : i64, !llvm.ptr
  %slot2 = llvm.alloca %one x i32 : (i64) -> !llvm.ptr
  %r = llvm.load %slot : !llvm.ptr -> i64
  return %r : i64
}

// CHECK: func.func private @declaration(f32)
func.func private @declaration(f32)
