// A user's layer stack with its control flow in the program: a private
// layer function (te.linear, FP8 current scaling) called in an scf.while
// whose trip count is an `index` argument, then once more under an `i1`
// flag, on a dynamic batch. Compared with the program's high-precision
// twin (te-run --reference: te ops replaced by plain arithmetic); FP8 E4M3
// operands through three layers stay within 0.1 normwise.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: te-run %s --reference --seed 4 --dynamic-dim 96 --fill 2=2 --fill 3=1 --output-dir %t/ref3 --quiet
// RUN: te-run %s --seed 4 --dynamic-dim 96 --fill 2=2 --fill 3=1 --atol 1e30 --max-rel-err 0.1 --compare %t/ref3/result0.npy | FileCheck %s
// RUN: te-run %s --reference --seed 4 --dynamic-dim 96 --fill 2=3 --fill 3=0 --output-dir %t/ref3b --quiet
// RUN: te-run %s --seed 4 --dynamic-dim 96 --fill 2=3 --fill 3=0 --atol 1e30 --max-rel-err 0.1 --compare %t/ref3b/result0.npy | FileCheck %s
// The while loop and the flag make the same three layers: the same bits.
// RUN: te-run %s --seed 4 --dynamic-dim 96 --fill 2=2 --fill 3=1 --output-dir %t/q3 --quiet
// RUN: te-run %s --seed 4 --dynamic-dim 96 --fill 2=3 --fill 3=0 --compare %t/q3/result0.npy | FileCheck %s
// No layer at all: the input, unchanged.
// RUN: te-run %s --seed 4 --dynamic-dim 96 --fill 2=0 --fill 3=0 | FileCheck %s --check-prefix=NONE
// CHECK: result 0: PASS
// NONE: result 0: bf16[96,128]

func.func private @layer(%x: tensor<?x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<?x128xbf16> {
  %y, %xs, %ws = te.linear %x, %w
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<?x128xbf16>, tensor<128x128xbf16>
  // y / 8: the stack keeps its scale (128 standard-normal products per sum).
  %c0 = arith.constant 0 : index
  %n = tensor.dim %y, %c0 : tensor<?x128xbf16>
  %e = tensor.empty(%n) : tensor<?x128xbf16>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x128xbf16>) outs(%e : tensor<?x128xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    %k = arith.constant 0.125 : bf16
    %m = arith.mulf %a, %k : bf16
    linalg.yield %m : bf16
  } -> tensor<?x128xbf16>
  return %s : tensor<?x128xbf16>
}

func.func @main(%x: tensor<?x128xbf16>, %w: tensor<128x128xbf16>, %layers: index, %extra: i1) -> tensor<?x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%i = %c0, %h = %x) : (index, tensor<?x128xbf16>) -> (index, tensor<?x128xbf16>) {
    %more = arith.cmpi slt, %i, %layers : index
    scf.condition(%more) %i, %h : index, tensor<?x128xbf16>
  } do {
  ^bb0(%i: index, %h: tensor<?x128xbf16>):
    %y = func.call @layer(%h, %w) : (tensor<?x128xbf16>, tensor<128x128xbf16>) -> tensor<?x128xbf16>
    %next = arith.addi %i, %c1 : index
    scf.yield %next, %y : index, tensor<?x128xbf16>
  }
  %out = scf.if %extra -> tensor<?x128xbf16> {
    %z = func.call @layer(%r#1, %w) : (tensor<?x128xbf16>, tensor<128x128xbf16>) -> tensor<?x128xbf16>
    scf.yield %z : tensor<?x128xbf16>
  } else {
    scf.yield %r#1 : tensor<?x128xbf16>
  }
  return %out : tensor<?x128xbf16>
}
