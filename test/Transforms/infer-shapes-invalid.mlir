// RUN: te-opt %s -split-input-file --te-infer-shapes -verify-diagnostics

// Once the batch is known, the recipe's shape rules (Format's verifyShape)
// are checked at the op that makes the quantized value: MXFP8 needs the
// flattened leading dimensions divisible by 32, and 40 is not.
func.func private @layer(%x: tensor<?x64xbf16>) -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> {
  // expected-error @below {{'te.quantize' op with inferred type '!te.qtensor<40x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>': MXFP8 needs}}
  %q = te.quantize %x : tensor<?x64xbf16> -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  return %q : !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
}

func.func @main(%x: tensor<40x64xbf16>) -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> {
  %c = tensor.cast %x : tensor<40x64xbf16> to tensor<?x64xbf16>
  %q = call @layer(%c) : (tensor<?x64xbf16>) -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  return %q : !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
}

// -----

// Linear's alignment rule (TE's assert_dim_for_fp8_exec: leading dimensions
// divisible by 8) is checked when the batch becomes static.
func.func private @linear(%x: tensor<?x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<?x32xbf16> {
  // expected-error @below {{'te.linear' op needs the flattened leading dimensions of the input divisible by 8, got 12}}
  %y, %xs, %ws = te.linear %x, %w {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<?x64xbf16>, tensor<32x64xbf16>
  return %y : tensor<?x32xbf16>
}

func.func @main(%x: tensor<12x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<?x32xbf16> {
  %c = tensor.cast %x : tensor<12x64xbf16> to tensor<?x64xbf16>
  %y = call @linear(%c, %w) : (tensor<?x64xbf16>, tensor<32x64xbf16>) -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}

// -----

// A recursion whose argument shape changes with its depth: each level
// feeds the next a tensor twice as large ([N, 32] -> GEMM with a [64, 32]
// weight -> [64, N] -> reshaped [2N, 32]). Every level would need its own
// static signature; after 16 specialisations the inference says why it
// stops instead of cloning without end.
func.func private @grow(%a: tensor<?x32xbf16>, %b: tensor<64x32xbf16>, %n: index) -> tensor<?x32xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %done = arith.cmpi eq, %n, %c0 : index
  %y = scf.if %done -> tensor<?x32xbf16> {
    scf.yield %a : tensor<?x32xbf16>
  } else {
    %qa = te.quantize %a : tensor<?x32xbf16> -> !te.qtensor<?x32xbf16, #te.current<f8E4M3FN>, rowwise>
    %qb = te.quantize %b : tensor<64x32xbf16> -> !te.qtensor<64x32xbf16, #te.current<f8E4M3FN>, rowwise>
    %d = te.gemm %qa, %qb layout TN
        : !te.qtensor<?x32xbf16, #te.current<f8E4M3FN>, rowwise>, !te.qtensor<64x32xbf16, #te.current<f8E4M3FN>, rowwise>
        -> tensor<64x?xbf16>
    %flat = tensor.collapse_shape %d [[0, 1]] : tensor<64x?xbf16> into tensor<?xbf16>
    %len = tensor.dim %flat, %c0 : tensor<?xbf16>
    %rows = arith.divui %len, %c32 : index
    %next = tensor.expand_shape %flat [[0, 1]] output_shape [%rows, 32] : tensor<?xbf16> into tensor<?x32xbf16>
    %m = arith.subi %n, %c1 : index
    // expected-error @below {{'func.call' op asks for a specialisation of recursive function 'grow' for (tensor<}}
    %r = func.call @grow(%next, %b, %m) : (tensor<?x32xbf16>, tensor<64x32xbf16>, index) -> tensor<?x32xbf16>
    scf.yield %r : tensor<?x32xbf16>
  }
  return %y : tensor<?x32xbf16>
}

func.func @main(%a: tensor<32x32xbf16>, %b: tensor<64x32xbf16>, %n: index) -> tensor<?x32xbf16> {
  %c = tensor.cast %a : tensor<32x32xbf16> to tensor<?x32xbf16>
  %y = call @grow(%c, %b, %n) : (tensor<?x32xbf16>, tensor<64x32xbf16>, index) -> tensor<?x32xbf16>
  return %y : tensor<?x32xbf16>
}
