// te-infer-usages keeps no state from one op to the next. One pass instance
// runs on every nested module in turn (no threading): the second run must
// not see the first module's values, which te-expand-qtensors has replaced
// in between (a heap-use-after-free before; found by te-fuzz-mlir, kept in
// test/fuzz/regressions/mlir/infer-usages-state-across-modules; the ASan
// build of scripts/sanitize.sh reports it on this test too).
//
// RUN: te-opt %s --mlir-disable-threading --pass-pipeline="builtin.module(builtin.module(te-infer-usages,te-expand-qtensors))" | FileCheck %s

// CHECK-LABEL: func.func @first(
// CHECK-SAME: tensor<64x96xf8E4M3FN>, %{{.*}}: tensor<128x4xf8E8M0FNU>
module @a {
  func.func @first(%a: !te.qtensor<64x96xbf16, #te.mxfp8<f8E4M3FN>, rowwise>) {
    return
  }
}

// CHECK-LABEL: func.func @second(
// CHECK-SAME: tensor<32x64xf8E4M3FN>, %{{.*}}: tensor<1xf32>
module @b {
  func.func @second(%b: !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>) {
    return
  }
}
