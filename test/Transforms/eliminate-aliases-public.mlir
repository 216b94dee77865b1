// RUN: te-opt %s --allow-unregistered-dialect --te-eliminate-aliases | FileCheck %s
// Idempotence: a second run changes nothing.
// RUN: te-opt %s --allow-unregistered-dialect --te-eliminate-aliases > %t.once.mlir
// RUN: te-opt %t.once.mlir --allow-unregistered-dialect --te-eliminate-aliases > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// Public functions keep their signatures: the host (te-run, an AOT driver)
// calls them with the signature it read before the pipeline. In each return,
// a result that is an argument or repeats an earlier result becomes a copy
// (bufferization.alloc_tensor copy; a qtensor buffer by buffer), so no
// result aliases an argument or another result. Their calls inside the
// module are left alone. Private functions lose the aliased results.

!W = !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>

// A tensor argument returned in the middle of the results, and a result
// returned twice.
// CHECK-LABEL: func.func @tensors
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<?x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<?x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK: %[[S:.*]] = "test.op"(%[[X]])
// CHECK: %[[X2:.*]] = bufferization.alloc_tensor() copy(%[[X]]) : tensor<4x8xf32>
// CHECK: %[[Y2:.*]] = bufferization.alloc_tensor() copy(%[[Y]]) : tensor<?x8xf32>
// CHECK: %[[S2:.*]] = bufferization.alloc_tensor() copy(%[[S]]) : tensor<4x8xf32>
// CHECK: %[[S3:.*]] = bufferization.alloc_tensor() copy(%[[S]]) : tensor<4x8xf32>
// CHECK: return %[[S]], %[[X2]], %[[Y2]], %[[S2]], %[[S3]]
func.func @tensors(%x: tensor<4x8xf32>, %y: tensor<?x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<?x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %s = "test.op"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s, %x, %y, %s, %s : tensor<4x8xf32>, tensor<4x8xf32>, tensor<?x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// An argument returned twice: two copies. Scalars are values: left alone.
// CHECK-LABEL: func.func @twice
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[N:.*]]: i64) -> (tensor<4xf32>, tensor<4xf32>, i64, i64) {
// CHECK: %[[A:.*]] = bufferization.alloc_tensor() copy(%[[X]])
// CHECK: %[[B:.*]] = bufferization.alloc_tensor() copy(%[[X]])
// CHECK: return %[[A]], %[[B]], %[[N]], %[[N]]
func.func @twice(%x: tensor<4xf32>, %n: i64) -> (tensor<4xf32>, tensor<4xf32>, i64, i64) {
  return %x, %x, %n, %n : tensor<4xf32>, tensor<4xf32>, i64, i64
}

// A qtensor: a te.buffers / te.from_buffers copy; the private helper loses
// its repeated result, the public entry keeps its three.
// CHECK-LABEL: func.func @entry
// CHECK-SAME: -> (!te.qtensor<{{.*}}>, !te.qtensor<{{.*}}>, !te.qtensor<{{.*}}>) {
// CHECK: %[[R:.*]] = call @helper
// CHECK-DAG: %[[B:.*]]:3 = te.buffers %[[R]]
// CHECK-DAG: %[[D:.*]] = bufferization.alloc_tensor() copy(%[[B]]#0) : tensor<64x128xf8E4M3FN>
// CHECK-DAG: %[[T:.*]] = bufferization.alloc_tensor() copy(%[[B]]#1) : tensor<128x64xf8E4M3FN>
// CHECK-DAG: %[[S:.*]] = bufferization.alloc_tensor() copy(%[[B]]#2) : tensor<1xf32>
// CHECK-DAG: %[[R2:.*]] = te.from_buffers %[[D]], %[[T]], %[[S]]
// CHECK-DAG: %[[CB:.*]]:3 = te.buffers %[[CACHE:arg1]]
// CHECK-DAG: %[[C2:.*]] = te.from_buffers %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK: return %[[R]], %[[R2]], %[[C2]] : !te.qtensor
func.func @entry(%w: tensor<64x128xbf16>, %cache: !W) -> (!W, !W, !W) {
  %q:2 = call @helper(%w) : (tensor<64x128xbf16>) -> (!W, !W)
  return %q#0, %q#1, %cache : !W, !W, !W
}

// CHECK-LABEL: func.func private @helper
// CHECK-SAME: -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> {
func.func private @helper(%w: tensor<64x128xbf16>) -> (!W, !W) {
  %q = te.quantize %w : tensor<64x128xbf16> -> !W
  return %q, %q : !W, !W
}

// The calls of a public function keep their results.
// CHECK-LABEL: func.func @calls_entry
// CHECK: call @entry({{.*}}) : (tensor<64x128xbf16>, !te.qtensor<{{.*}}>) -> (!te.qtensor<{{.*}}>, !te.qtensor<{{.*}}>, !te.qtensor<{{.*}}>)
func.func @calls_entry(%w: tensor<64x128xbf16>, %cache: !W) {
  %r:3 = call @entry(%w, %cache) : (tensor<64x128xbf16>, !W) -> (!W, !W, !W)
  "test.use"(%r#0, %r#1, %r#2) : (!W, !W, !W) -> ()
  return
}

// With several returns each is treated on its own.
// CHECK-LABEL: func.func @branches
// CHECK: ^bb1:
// CHECK: %[[A:.*]] = bufferization.alloc_tensor() copy(%[[X:[^)]*]])
// CHECK: return %[[X]], %[[A]]
// CHECK: ^bb2:
// CHECK-NOT: alloc_tensor
// CHECK: return
func.func @branches(%c: i1, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = "test.make"() : () -> tensor<4xf32>
  %b = "test.make"() : () -> tensor<4xf32>
  cf.cond_br %c, ^same, ^different
^same:
  return %a, %a : tensor<4xf32>, tensor<4xf32>
^different:
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
