// A stack of layers written as a recursive private function, with a
// dynamic batch that te-infer-shapes specialises for the caller's 32 rows,
// runs end to end (te-pipeline, te-run, cpu backend) and gives the same
// bits as the same three layers written out.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: te-run %s --entry unrolled --seed 7 --output-dir %t --quiet
// RUN: te-run %s --entry recursive --seed 7 --compare %t/result0.npy | FileCheck %s
// CHECK: PASS

func.func private @stack(%x: tensor<?x64xbf16>, %w: tensor<64x64xbf16>, %n: index) -> tensor<?x64xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %done = arith.cmpi eq, %n, %c0 : index
  %y = scf.if %done -> tensor<?x64xbf16> {
    scf.yield %x : tensor<?x64xbf16>
  } else {
    %h, %xs, %ws = te.linear %x, %w
        {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
        : tensor<?x64xbf16>, tensor<64x64xbf16>
    %m = arith.subi %n, %c1 : index
    %r = func.call @stack(%h, %w, %m) : (tensor<?x64xbf16>, tensor<64x64xbf16>, index) -> tensor<?x64xbf16>
    scf.yield %r : tensor<?x64xbf16>
  }
  return %y : tensor<?x64xbf16>
}

func.func @recursive(%x: tensor<32x64xbf16>, %w: tensor<64x64xbf16>) -> tensor<32x64xbf16> {
  %c3 = arith.constant 3 : index
  %c = tensor.cast %x : tensor<32x64xbf16> to tensor<?x64xbf16>
  %y = call @stack(%c, %w, %c3) : (tensor<?x64xbf16>, tensor<64x64xbf16>, index) -> tensor<?x64xbf16>
  %s = tensor.cast %y : tensor<?x64xbf16> to tensor<32x64xbf16>
  return %s : tensor<32x64xbf16>
}

func.func @unrolled(%x: tensor<32x64xbf16>, %w: tensor<64x64xbf16>) -> tensor<32x64xbf16> {
  %h0, %xs0, %ws0 = te.linear %x, %w
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x64xbf16>, tensor<64x64xbf16>
  %h1, %xs1, %ws1 = te.linear %h0, %w
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x64xbf16>, tensor<64x64xbf16>
  %h2, %xs2, %ws2 = te.linear %h1, %w
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x64xbf16>, tensor<64x64xbf16>
  return %h2 : tensor<32x64xbf16>
}
