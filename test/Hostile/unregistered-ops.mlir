// Unregistered ops (no dialect) inside a te program: te-infer-shapes used to
// ask for their dialect's TypeID and crashed. They are left alone.
// RUN: te-opt %s --allow-unregistered-dialect --te-infer-shapes | FileCheck %s

// CHECK-LABEL: func.func @unregistered
// CHECK: "foreign.op"
// CHECK: te.quantize
func.func @unregistered(%x: tensor<128x128xbf16>) -> !te.qtensor<128x128xbf16, #te.current<f8E4M3FN>, rowwise> {
  %y = "foreign.op"(%x) : (tensor<128x128xbf16>) -> tensor<128x128xbf16>
  %q = te.quantize %y : tensor<128x128xbf16> -> !te.qtensor<128x128xbf16, #te.current<f8E4M3FN>, rowwise>
  return %q : !te.qtensor<128x128xbf16, #te.current<f8E4M3FN>, rowwise>
}
