// The fp32 twin (te-run --reference, convert-te-to-reference) of a loop
// that carries a !te.qtensor initialised by te.empty: te.empty becomes an
// uninitialised tensor of the nominal type, as its buffers are in the
// quantized program (before, "failed to legalize operation 'te.empty'").
// The loop quantizes x in its first iteration and halves the carried value
// in the others, so the twin's result is x / 4 exactly; the oracle is that
// product written in plain linalg. The quantized program runs too.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: te-run %s --entry quarter --seed 4 --output-dir %t --quiet
// RUN: te-run %s --entry halve_loop --reference --seed 4 --exact 0 --compare %t/result0.npy | FileCheck %s
// RUN: te-run %s --entry halve_loop --seed 4 | FileCheck %s --check-prefix=QUANTIZED
//
// CHECK: result 0: PASS
// QUANTIZED: result 0: f32[64,128]

#id = affine_map<(d0, d1) -> (d0, d1)>
!q = !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>

func.func private @scale(%x: tensor<64x128xf32>, %s: f32) -> tensor<64x128xf32> {
  %e = tensor.empty() : tensor<64x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

func.func @quarter(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %s = arith.constant 0.25 : f32
  %r = func.call @scale(%x, %s) : (tensor<64x128xf32>, f32) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

func.func @halve_loop(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %half = arith.constant 0.5 : f32
  %e = te.empty() : !q
  %q = scf.for %i = %c0 to %c3 step %c1 iter_args(%qi = %e) -> !q {
    %first = arith.cmpi eq, %i, %c0 : index
    %v = scf.if %first -> tensor<64x128xf32> {
      scf.yield %x : tensor<64x128xf32>
    } else {
      %d = te.dequantize %qi : !q -> tensor<64x128xf32>
      %h = func.call @scale(%d, %half) : (tensor<64x128xf32>, f32) -> tensor<64x128xf32>
      scf.yield %h : tensor<64x128xf32>
    }
    %qn = te.quantize %v : tensor<64x128xf32> -> !q
    scf.yield %qn : !q
  }
  %r = te.dequantize %q : !q -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
