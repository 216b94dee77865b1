// RUN: te-opt %s -split-input-file --te-infer-shapes -verify-diagnostics | FileCheck %s

// te.empty with a constant size operand: the dimension becomes static and
// the operand goes; it flows on into the ops that use the tensor.
// CHECK-LABEL: func.func @constant
// CHECK: %[[E:.*]] = te.empty() : !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK: te.dequantize %[[E]] : !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
func.func @constant() -> tensor<32x64xf32> {
  %c32 = arith.constant 32 : index
  %q = te.empty(%c32) : !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  %y = te.dequantize %q : !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<?x64xf32>
  %c = tensor.cast %y : tensor<?x64xf32> to tensor<32x64xf32>
  return %c : tensor<32x64xf32>
}

// -----

// Only the constant operands go; a size known at run time stays dynamic.
// CHECK-LABEL: func.func @mixed
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: te.empty(%[[N]]) : !te.qtensor<?x4x64xbf16, #te.current<f8E4M3FN>, rowwise>
func.func @mixed(%n: index) -> !te.qtensor<?x?x64xbf16, #te.current<f8E4M3FN>, rowwise> {
  %c4 = arith.constant 4 : index
  %q = te.empty(%n, %c4) : !te.qtensor<?x?x64xbf16, #te.current<f8E4M3FN>, rowwise>
  return %q : !te.qtensor<?x?x64xbf16, #te.current<f8E4M3FN>, rowwise>
}

// -----

// A constant size that breaks the recipe's rules is an error at compile
// time, as for a static type.
func.func @invalid() -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> {
  %c40 = arith.constant 40 : index
  // expected-error @below {{MXFP8 needs the flattened leading dimension divisible by 32, got 40}}
  %q = te.empty(%c40) : !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  return %q : !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
}
