// RUN: te-opt %s -split-input-file --te-infer-shapes | FileCheck %s
// RUN: te-opt %s -split-input-file --te-infer-shapes --te-infer-shapes | FileCheck %s

// What the worklist of te-infer-shapes reaches: a chain of ops whose shapes
// each need the one before, loop-carried values refined across the loop's
// iterations (the body derives the value yielded back from the argument),
// nested loops, a loop-carried value through a private callee, an
// optimistic loop refinement undone while the other loops keep theirs, and
// one undone across functions (a specialisation it made taken back).

// A chain: the batch comes from te.empty's constant size and flows through
// te.dequantize, te.quantize, te.gemm (Format's GEMM shape rule), te.buffers
// and tensor.expand_shape; every value ends static, and so do the public
// function's results.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: -> (tensor<2x16x64xbf16>, tensor<32x128xf8E4M3FN>)
// CHECK: %[[E:.*]] = te.empty() : !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: te.dequantize %[[E]] : {{.*}} -> tensor<32x128xbf16>
// CHECK: te.quantize %{{.*}} : tensor<32x128xbf16> -> !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK: te.gemm {{.*}} -> tensor<32x64xbf16>
// CHECK: te.buffers {{.*}} -> tensor<32x128xf8E4M3FN>, tensor<1xf32>
// CHECK: tensor.expand_shape {{.*}} output_shape [2, 16, 64] : tensor<32x64xbf16> into tensor<2x16x64xbf16>
// CHECK: return {{.*}} : tensor<2x16x64xbf16>, tensor<32x128xf8E4M3FN>
func.func @chain(%w: tensor<64x128xbf16>, %n: index) -> (tensor<?x16x64xbf16>, tensor<?x128xf8E4M3FN>) {
  %c32 = arith.constant 32 : index
  %e = te.empty(%c32) : !te.qtensor<?x128xbf16, #te.current<f8E4M3FN>, rowwise>
  %x = te.dequantize %e : !te.qtensor<?x128xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<?x128xbf16>
  %qx = te.quantize %x : tensor<?x128xbf16> -> !te.qtensor<?x128xbf16, #te.current<f8E4M3FN>, rowwise>
  %qw = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %qw, %qx layout TN
      : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>, !te.qtensor<?x128xbf16, #te.current<f8E4M3FN>, rowwise>
      -> tensor<?x64xbf16>
  %b:2 = te.buffers %qx : !te.qtensor<?x128xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<?x128xf8E4M3FN>, tensor<1xf32>
  %y3 = tensor.expand_shape %y [[0, 1], [2]] output_shape [%n, 16, 64] : tensor<?x64xbf16> into tensor<?x16x64xbf16>
  return %y3, %b#0 : tensor<?x16x64xbf16>, tensor<?x128xf8E4M3FN>
}

// -----

// A loop-carried value the body derives from the argument (quantize,
// dequantize, and the other branch of an scf.if): the argument takes the
// init's shape, the body is refined from it, and the value yielded back is
// as static, so the refinement stands. The nested loop's init is the outer
// argument: both are refined together.
// CHECK-LABEL: func.func @carried
// CHECK-SAME: -> (tensor<32x64xbf16>, tensor<32x64xbf16>)
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (tensor<32x64xbf16>)
// CHECK: te.quantize %[[A]] : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK: scf.if {{.*}} -> (tensor<32x64xbf16>)
// CHECK: scf.for {{.*}} -> (tensor<32x64xbf16>)
// CHECK: scf.for {{.*}} -> (tensor<32x64xbf16>)
// CHECK: te.dequantize {{.*}} -> tensor<32x64xbf16>
// CHECK: return {{.*}} : tensor<32x64xbf16>, tensor<32x64xbf16>
func.func @carried(%x: tensor<32x64xbf16>, %n: index, %c: i1) -> (tensor<?x64xbf16>, tensor<?x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cx = tensor.cast %x : tensor<32x64xbf16> to tensor<?x64xbf16>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %cx) -> (tensor<?x64xbf16>) {
    %q = te.quantize %a : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
    %d = te.dequantize %q : !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<?x64xbf16>
    %b = scf.if %c -> (tensor<?x64xbf16>) {
      scf.yield %a : tensor<?x64xbf16>
    } else {
      scf.yield %d : tensor<?x64xbf16>
    }
    scf.yield %b : tensor<?x64xbf16>
  }
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %cx) -> (tensor<?x64xbf16>) {
    %t = scf.for %j = %c0 to %n step %c1 iter_args(%b = %a) -> (tensor<?x64xbf16>) {
      %q = te.quantize %b : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
      %d = te.dequantize %q : !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<?x64xbf16>
      scf.yield %d : tensor<?x64xbf16>
    }
    scf.yield %t : tensor<?x64xbf16>
  }
  return %r, %s : tensor<?x64xbf16>, tensor<?x64xbf16>
}

// -----

// A loop-carried value through a private callee: the callee takes the
// argument's optimistic shape, its result flows back into the value
// yielded, and the refinement stands.
// CHECK-LABEL: func.func private @step
// CHECK-SAME: (%{{.*}}: tensor<32x64xbf16>) -> tensor<32x64xbf16>
// CHECK-LABEL: func.func @through_call
// CHECK: scf.for {{.*}} -> (tensor<32x64xbf16>)
// CHECK: func.call @step(%{{.*}}) : (tensor<32x64xbf16>) -> tensor<32x64xbf16>
func.func private @step(%x: tensor<?x64xbf16>) -> tensor<?x64xbf16> {
  %q = te.quantize %x : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
  %d = te.dequantize %q : !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<?x64xbf16>
  return %d : tensor<?x64xbf16>
}

func.func @through_call(%x: tensor<32x64xbf16>, %n: index) -> tensor<?x64xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cx = tensor.cast %x : tensor<32x64xbf16> to tensor<?x64xbf16>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %cx) -> (tensor<?x64xbf16>) {
    %b = func.call @step(%a) : (tensor<?x64xbf16>) -> tensor<?x64xbf16>
    scf.yield %b : tensor<?x64xbf16>
  }
  return %r : tensor<?x64xbf16>
}

// -----

// Three loops: the first yields a value of unknown batch, so its optimistic
// refinement is undone; its argument keeps what its init and that value
// agree on (the 64 columns; the input said ?x?) and its init is cast. The
// second yields a static value that does not depend on its argument: it is
// refined without optimism. The third is refined optimistically after the
// undo, as if the first had never been tried.
// CHECK-LABEL: func.func @undone
// CHECK: %[[I:.*]] = tensor.cast %{{.*}} : tensor<32x64xbf16> to tensor<?x64xbf16>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[I]]) -> (tensor<?x64xbf16>)
// CHECK: scf.for {{.*}} -> (tensor<32x64xbf16>)
// CHECK: scf.for {{.*}} -> (tensor<32x64xbf16>)
// CHECK: te.quantize %{{.*}} : tensor<32x64xbf16>
// CHECK: return {{.*}} : tensor<?x64xbf16>, tensor<32x64xbf16>, tensor<32x64xbf16>
func.func @undone(%x: tensor<32x64xbf16>, %y: tensor<?x64xbf16>, %n: index)
    -> (tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?x?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cx = tensor.cast %x : tensor<32x64xbf16> to tensor<?x?xbf16>
  %cy = tensor.cast %y : tensor<?x64xbf16> to tensor<?x?xbf16>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %cx) -> (tensor<?x?xbf16>) {
    scf.yield %cy : tensor<?x?xbf16>
  }
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %cx) -> (tensor<?x?xbf16>) {
    scf.yield %cx : tensor<?x?xbf16>
  }
  %t = scf.for %i = %c0 to %n step %c1 iter_args(%a = %cx) -> (tensor<?x?xbf16>) {
    %q = te.quantize %a : tensor<?x?xbf16> -> !te.qtensor<?x?xbf16, #te.current<f8E4M3FN>, rowwise>
    %d = te.dequantize %q : !te.qtensor<?x?xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<?x?xbf16>
    scf.yield %d : tensor<?x?xbf16>
  }
  return %r, %s, %t : tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?x?xbf16>
}

// -----

// An undone round across functions: optimistically the call in the loop
// asks for @layer at 32x64, which makes a specialisation and leaves the
// generic @layer without callers; the loop yields a value of unknown batch,
// so the round is undone: the specialisation goes and the call and @layer
// are as they were. The call after the loop keeps its own specialisation.
// CHECK-LABEL: func.func private @layer_64x64(
// CHECK-NOT: @layer_32x64
// CHECK-LABEL: func.func private @layer(
// CHECK-SAME: tensor<?x64xbf16>) -> tensor<?x64xbf16>
// CHECK-LABEL: func.func @undone_call
// CHECK: scf.for {{.*}} -> (tensor<?x64xbf16>)
// CHECK: func.call @layer(%{{.*}}) : (tensor<?x64xbf16>) -> tensor<?x64xbf16>
// CHECK: call @layer_64x64(%{{.*}}) : (tensor<64x64xbf16>) -> tensor<64x64xbf16>
func.func private @layer(%x: tensor<?x64xbf16>) -> tensor<?x64xbf16> {
  %q = te.quantize %x : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
  %d = te.dequantize %q : !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise> -> tensor<?x64xbf16>
  return %d : tensor<?x64xbf16>
}

func.func @undone_call(%x: tensor<32x64xbf16>, %w: tensor<64x64xbf16>, %y: tensor<?x64xbf16>, %n: index)
    -> (tensor<?x64xbf16>, tensor<?x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cx = tensor.cast %x : tensor<32x64xbf16> to tensor<?x64xbf16>
  %cw = tensor.cast %w : tensor<64x64xbf16> to tensor<?x64xbf16>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %cx) -> (tensor<?x64xbf16>) {
    %b = func.call @layer(%a) : (tensor<?x64xbf16>) -> tensor<?x64xbf16>
    scf.yield %y : tensor<?x64xbf16>
  }
  %z = func.call @layer(%cw) : (tensor<?x64xbf16>) -> tensor<?x64xbf16>
  return %r, %z : tensor<?x64xbf16>, tensor<?x64xbf16>
}
