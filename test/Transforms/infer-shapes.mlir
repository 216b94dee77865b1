// RUN: te-opt %s -split-input-file --te-infer-shapes | FileCheck %s
// RUN: te-opt %s -split-input-file --te-infer-shapes --te-infer-shapes | FileCheck %s

// A dynamic-batch layer: @main fixes the batch to 32, @layer (private) takes
// it, and every quantized value and tensor in it ends static. The public
// @main keeps its argument types (the program's inputs) and gets a static
// result.
// CHECK-LABEL: func.func private @layer
// CHECK-SAME: (%{{.*}}: tensor<32x64xbf16>, %{{.*}}: tensor<32x64xbf16>) -> tensor<32x32xbf16>
// CHECK: te.quantize %{{.*}} : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK: te.gemm {{.*}} -> tensor<32x32xbf16>
// CHECK: te.dequantize %{{.*}} -> tensor<32x64xf32>
// CHECK: return %{{.*}} : tensor<32x32xbf16>
func.func private @layer(%x: tensor<?x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<?x32xbf16> {
  %qx = te.quantize %x : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  %qw = te.quantize %w : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  %y = te.gemm %qw, %qx layout TN
      : !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>, !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
      -> tensor<?x32xbf16>
  %d = te.dequantize %qx : !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<?x64xf32>
  return %y : tensor<?x32xbf16>
}

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%{{.*}}: tensor<32x64xbf16>, %{{.*}}: tensor<32x64xbf16>) -> tensor<32x32xbf16>
// CHECK: %[[C:.*]] = tensor.cast %{{.*}} : tensor<32x64xbf16> to tensor<32x64xbf16>
// CHECK: call @layer(%[[C]], %{{.*}}) : (tensor<32x64xbf16>, tensor<32x64xbf16>) -> tensor<32x32xbf16>
func.func @main(%x: tensor<32x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<?x32xbf16> {
  %c = tensor.cast %x : tensor<32x64xbf16> to tensor<?x64xbf16>
  %y = call @layer(%c, %w) : (tensor<?x64xbf16>, tensor<32x64xbf16>) -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}

// -----

// Callers that disagree get one specialisation each; the generic callee
// goes away. The cast in @main is refined too.
// CHECK-NOT: func.func private @quantize(
// CHECK-DAG: func.func private @quantize_32x64(%{{.*}}: tensor<32x64xbf16>) -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK-DAG: func.func private @quantize_64x64(%{{.*}}: tensor<64x64xbf16>) -> !te.qtensor<64x64xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK-LABEL: func.func @two_batches
// CHECK: call @quantize_32x64
// CHECK: call @quantize_64x64
// CHECK: return {{.*}} : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>, !te.qtensor<64x64xbf16, #te.current<f8E4M3FN>, rowwise>
func.func private @quantize(%x: tensor<?x64xbf16>) -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise> {
  %q = te.quantize %x : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
  return %q : !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
}

func.func @two_batches(%a: tensor<32x64xbf16>, %b: tensor<64x64xbf16>)
    -> (!te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>, !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>) {
  %ca = tensor.cast %a : tensor<32x64xbf16> to tensor<?x64xbf16>
  %qa = call @quantize(%ca) : (tensor<?x64xbf16>) -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
  %cb = tensor.cast %b : tensor<64x64xbf16> to tensor<?x64xbf16>
  %qb = call @quantize(%cb) : (tensor<?x64xbf16>) -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
  return %qa, %qb : !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>, !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
}

// -----

// scf.for: a loop-carried quantized value takes its init's shape when the
// body yields it back unchanged; scf.if results are static where both
// branches agree. Leading dimensions flow through collapse_shape and
// expand_shape.
// CHECK-LABEL: func.func private @loop
// CHECK: tensor.collapse_shape {{.*}} : tensor<4x8x64xbf16> into tensor<32x64xbf16>
// CHECK: %[[Q:.*]] = te.quantize %{{.*}} : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.block<f8E4M3FN>, rowwise>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Q]]) -> (!te.qtensor<32x64xbf16, #te.block<f8E4M3FN>, rowwise>)
// CHECK: scf.if {{.*}} -> (!te.qtensor<32x64xbf16, #te.block<f8E4M3FN>, rowwise>)
// CHECK: te.dequantize {{.*}} -> tensor<32x64xbf16>
// CHECK: tensor.expand_shape {{.*}} output_shape [4, 8, 64] : tensor<32x64xbf16> into tensor<4x8x64xbf16>
// CHECK: return {{.*}} : tensor<4x8x64xbf16>
func.func private @loop(%x3: tensor<?x8x64xbf16>, %n: index, %c: i1) -> tensor<?x8x64xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %x = tensor.collapse_shape %x3 [[0, 1], [2]] : tensor<?x8x64xbf16> into tensor<?x64xbf16>
  %q = te.quantize %x : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.block<f8E4M3FN>, rowwise>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %q) -> (!te.qtensor<?x64xbf16, #te.block<f8E4M3FN>, rowwise>) {
    %b = scf.if %c -> (!te.qtensor<?x64xbf16, #te.block<f8E4M3FN>, rowwise>) {
      scf.yield %a : !te.qtensor<?x64xbf16, #te.block<f8E4M3FN>, rowwise>
    } else {
      %q2 = te.quantize %x : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.block<f8E4M3FN>, rowwise>
      scf.yield %q2 : !te.qtensor<?x64xbf16, #te.block<f8E4M3FN>, rowwise>
    }
    scf.yield %b : !te.qtensor<?x64xbf16, #te.block<f8E4M3FN>, rowwise>
  }
  %y = te.dequantize %r : !te.qtensor<?x64xbf16, #te.block<f8E4M3FN>, rowwise> -> tensor<?x64xbf16>
  %d = tensor.dim %x3, %c0 : tensor<?x8x64xbf16>
  %y3 = tensor.expand_shape %y [[0, 1], [2]] output_shape [%d, 8, 64] : tensor<?x64xbf16> into tensor<?x8x64xbf16>
  return %y3 : tensor<?x8x64xbf16>
}

// A loop whose body yields something less static keeps its dynamic
// argument; the init is cast (te.buffers + tensor.cast + te.from_buffers
// for a quantized value). The tensor.dim above keeps its operand type
// through a cast back.
// CHECK-LABEL: func.func @caller
// CHECK: call @loop(%{{.*}}) : (tensor<4x8x64xbf16>, index, i1) -> tensor<4x8x64xbf16>
// CHECK: %[[Q:.*]] = te.quantize %{{.*}} : tensor<4x64xbf16> -> !te.qtensor<4x64xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: %[[B:.*]]:2 = te.buffers %[[Q]] : !te.qtensor<4x64xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<4x64xf8E4M3FN>, tensor<1xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[B]]#0 : tensor<4x64xf8E4M3FN> to tensor<?x64xf8E4M3FN>
// CHECK: %[[V:.*]] = te.from_buffers %[[C]], %[[B]]#1 : tensor<?x64xf8E4M3FN>, tensor<1xf32> -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[V]]) -> (!te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>)
func.func @caller(%x3: tensor<4x8x64xbf16>, %x: tensor<4x64xbf16>, %y: tensor<?x64xbf16>, %n: index, %c: i1)
    -> (tensor<?x8x64xbf16>, !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x3c = tensor.cast %x3 : tensor<4x8x64xbf16> to tensor<?x8x64xbf16>
  %r = call @loop(%x3c, %n, %c) : (tensor<?x8x64xbf16>, index, i1) -> tensor<?x8x64xbf16>
  %q = te.quantize %x : tensor<4x64xbf16> -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %q) -> (!te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>) {
    %q2 = te.quantize %y : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
    scf.yield %q2 : !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
  }
  return %r, %s : tensor<?x8x64xbf16>, !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
}

// -----

// te.linear and te.linear_grad re-infer their results once the batch is
// known.
// CHECK-LABEL: func.func private @linear
// CHECK-SAME: (%{{.*}}: tensor<2x16x64xbf16>
// CHECK: te.linear
// CHECK: te.linear_grad {{.*}} : tensor<2x16x32xbf16>, !te.qtensor<2x16x64xbf16, #te.nvfp4<f4E2M1FN>, columnwise>, !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
// CHECK: return {{.*}} : tensor<2x16x32xbf16>, tensor<2x16x64xbf16>
func.func private @linear(%x: tensor<?x16x64xbf16>, %w: tensor<32x64xbf16>, %dy: tensor<?x16x32xbf16>)
    -> (tensor<?x16x32xbf16>, tensor<?x16x64xbf16>) {
  %y, %xs, %ws = te.linear %x, %w {input_quantizer = #te.nvfp4<f4E2M1FN>, weight_quantizer = #te.nvfp4<f4E2M1FN>}
      : tensor<?x16x64xbf16>, tensor<32x64xbf16>
  %dx, %dw = te.linear_grad %dy, %xs, %ws {grad_output_quantizer = #te.nvfp4<f4E2M1FN>}
      : tensor<?x16x32xbf16>, !te.qtensor<?x16x64xbf16, #te.nvfp4<f4E2M1FN>, columnwise>,
        !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN>, rowwise|columnwise>
  return %y, %dx : tensor<?x16x32xbf16>, tensor<?x16x64xbf16>
}

func.func @step(%x: tensor<2x16x64xbf16>, %w: tensor<32x64xbf16>, %dy: tensor<2x16x32xbf16>)
    -> (tensor<?x16x32xbf16>, tensor<?x16x64xbf16>) {
  %xc = tensor.cast %x : tensor<2x16x64xbf16> to tensor<?x16x64xbf16>
  %dyc = tensor.cast %dy : tensor<2x16x32xbf16> to tensor<?x16x32xbf16>
  %y, %dx = call @linear(%xc, %w, %dyc) : (tensor<?x16x64xbf16>, tensor<32x64xbf16>, tensor<?x16x32xbf16>)
      -> (tensor<?x16x32xbf16>, tensor<?x16x64xbf16>)
  return %y, %dx : tensor<?x16x32xbf16>, tensor<?x16x64xbf16>
}

// -----

// A self-recursive private function (a stack of n layers written as a
// recursion): the caller's static batch reaches the layer and the recursive
// call, which calls the specialisation it lives in; the generic function
// goes away, and no call is left to a function that does not exist.
// CHECK-NOT: func.func private @stack(
// CHECK-LABEL: func.func private @stack_32x64_64x64(
// CHECK-SAME: %{{.*}}: tensor<32x64xbf16>, %{{.*}}: tensor<64x64xbf16>, %{{.*}}: index) -> tensor<?x64xbf16>
// CHECK: te.quantize %{{.*}} : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: %[[H:.*]] = te.gemm {{.*}} -> tensor<32x64xbf16>
// CHECK: call @stack_32x64_64x64(%[[H]], %{{.*}}, %{{.*}}) : (tensor<32x64xbf16>, tensor<64x64xbf16>, index) -> tensor<?x64xbf16>
// CHECK-LABEL: func.func @stack_main
// CHECK: call @stack_32x64_64x64(
// CHECK-NOT: call @stack(
func.func private @stack(%x: tensor<?x64xbf16>, %w: tensor<64x64xbf16>, %n: index) -> tensor<?x64xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %done = arith.cmpi eq, %n, %c0 : index
  %y = scf.if %done -> tensor<?x64xbf16> {
    scf.yield %x : tensor<?x64xbf16>
  } else {
    %qx = te.quantize %x : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
    %qw = te.quantize %w : tensor<64x64xbf16> -> !te.qtensor<64x64xbf16, #te.current<f8E4M3FN>, rowwise>
    %h = te.gemm %qw, %qx layout TN
        : !te.qtensor<64x64xbf16, #te.current<f8E4M3FN>, rowwise>, !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
        -> tensor<?x64xbf16>
    %m = arith.subi %n, %c1 : index
    %r = func.call @stack(%h, %w, %m) : (tensor<?x64xbf16>, tensor<64x64xbf16>, index) -> tensor<?x64xbf16>
    scf.yield %r : tensor<?x64xbf16>
  }
  return %y : tensor<?x64xbf16>
}

func.func @stack_main(%x: tensor<32x64xbf16>, %w: tensor<64x64xbf16>, %n: index) -> tensor<?x64xbf16> {
  %c = tensor.cast %x : tensor<32x64xbf16> to tensor<?x64xbf16>
  %y = call @stack(%c, %w, %n) : (tensor<?x64xbf16>, tensor<64x64xbf16>, index) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}

// -----

// Mutually recursive private functions (layers alternating between two
// recipes), called with two batch sizes: each batch gets its pair of
// specialisations calling each other, and a call with a dynamic batch keeps
// the generic pair.
// CHECK-DAG: func.func private @even_64x64_64x64(%{{.*}}: tensor<64x64xbf16>
// CHECK-DAG: func.func private @odd_64x64_64x64(%{{.*}}: tensor<64x64xbf16>
// CHECK-DAG: func.func private @even_32x64_64x64(%{{.*}}: tensor<32x64xbf16>
// CHECK-DAG: func.func private @odd_32x64_64x64(%{{.*}}: tensor<32x64xbf16>
// CHECK-DAG: func.func private @even(%{{.*}}: tensor<?x64xbf16>
// CHECK-DAG: func.func private @odd(%{{.*}}: tensor<?x64xbf16>
// CHECK-DAG: call @odd_64x64_64x64({{.*}}) : (tensor<64x64xbf16>,
// CHECK-DAG: call @even_64x64_64x64({{.*}}) : (tensor<64x64xbf16>,
// CHECK-DAG: call @odd_32x64_64x64({{.*}}) : (tensor<32x64xbf16>,
// CHECK-DAG: call @even_32x64_64x64({{.*}}) : (tensor<32x64xbf16>,
// CHECK-DAG: call @odd({{.*}}) : (tensor<?x64xbf16>,
// CHECK-DAG: call @even({{.*}}) : (tensor<?x64xbf16>,
// CHECK-LABEL: func.func @alternate
// CHECK: call @even_64x64_64x64(
// CHECK: call @even_32x64_64x64(
// CHECK: call @even(
func.func private @even(%x: tensor<?x64xbf16>, %w: tensor<64x64xbf16>, %n: index) -> tensor<?x64xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %done = arith.cmpi eq, %n, %c0 : index
  %y = scf.if %done -> tensor<?x64xbf16> {
    scf.yield %x : tensor<?x64xbf16>
  } else {
    %qx = te.quantize %x : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
    %qw = te.quantize %w : tensor<64x64xbf16> -> !te.qtensor<64x64xbf16, #te.current<f8E4M3FN>, rowwise>
    %h = te.gemm %qw, %qx layout TN
        : !te.qtensor<64x64xbf16, #te.current<f8E4M3FN>, rowwise>, !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
        -> tensor<?x64xbf16>
    %m = arith.subi %n, %c1 : index
    %r = func.call @odd(%h, %w, %m) : (tensor<?x64xbf16>, tensor<64x64xbf16>, index) -> tensor<?x64xbf16>
    scf.yield %r : tensor<?x64xbf16>
  }
  return %y : tensor<?x64xbf16>
}

func.func private @odd(%x: tensor<?x64xbf16>, %w: tensor<64x64xbf16>, %n: index) -> tensor<?x64xbf16> {
  %c1 = arith.constant 1 : index
  %qx = te.quantize %x : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  %qw = te.quantize %w : tensor<64x64xbf16> -> !te.qtensor<64x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  %h = te.gemm %qw, %qx layout TN
      : !te.qtensor<64x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>, !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
      -> tensor<?x64xbf16>
  %m = arith.subi %n, %c1 : index
  %r = func.call @even(%h, %w, %m) : (tensor<?x64xbf16>, tensor<64x64xbf16>, index) -> tensor<?x64xbf16>
  return %r : tensor<?x64xbf16>
}

func.func @alternate(%a: tensor<64x64xbf16>, %b: tensor<32x64xbf16>, %c: tensor<?x64xbf16>, %w: tensor<64x64xbf16>, %n: index)
    -> (tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?x64xbf16>) {
  %ca = tensor.cast %a : tensor<64x64xbf16> to tensor<?x64xbf16>
  %ya = call @even(%ca, %w, %n) : (tensor<?x64xbf16>, tensor<64x64xbf16>, index) -> tensor<?x64xbf16>
  %cb = tensor.cast %b : tensor<32x64xbf16> to tensor<?x64xbf16>
  %yb = call @even(%cb, %w, %n) : (tensor<?x64xbf16>, tensor<64x64xbf16>, index) -> tensor<?x64xbf16>
  %yc = call @even(%c, %w, %n) : (tensor<?x64xbf16>, tensor<64x64xbf16>, index) -> tensor<?x64xbf16>
  return %ya, %yb, %yc : tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?x64xbf16>
}

// -----

// scf.while's regions are not refined: a refined value yielded to it is cast
// back to the type the loop expects.
// CHECK-LABEL: func.func @while_loop
// CHECK: scf.while {{.*}} : (tensor<?x64xbf16>) -> tensor<?x64xbf16>
// CHECK: %[[D:.*]] = te.dequantize {{.*}} -> tensor<32x64xbf16>
// CHECK: %[[C:.*]] = tensor.cast %[[D]] : tensor<32x64xbf16> to tensor<?x64xbf16>
// CHECK: scf.yield %[[C]] : tensor<?x64xbf16>
func.func @while_loop(%x: tensor<32x64xbf16>, %n: i1) -> tensor<?x64xbf16> {
  %c = tensor.cast %x : tensor<32x64xbf16> to tensor<?x64xbf16>
  %r = scf.while (%a = %c) : (tensor<?x64xbf16>) -> tensor<?x64xbf16> {
    scf.condition(%n) %a : tensor<?x64xbf16>
  } do {
  ^bb0(%b: tensor<?x64xbf16>):
    %q = te.quantize %c : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
    %d = te.dequantize %q : !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<?x64xbf16>
    scf.yield %d : tensor<?x64xbf16>
  }
  return %r : tensor<?x64xbf16>
}
