// Loops that carry fresh values (issue 18, item 3): an SGD loop that
// updates the weight it quantizes, and a loop-carried !te.qtensor
// re-quantized every iteration. Bufferization yields a new buffer per
// iteration (allow-return-allocs-from-loops); each loop must equal the same
// program unrolled, bit for bit.
//
// RUN: rm -rf %t && mkdir -p %t/sgd %t/req
// RUN: te-run %s --entry sgd_unrolled --seed 4 --output-dir %t/sgd --quiet
// RUN: te-run %s --entry sgd --seed 4 --exact 0 --compare %t/sgd/result0.npy | FileCheck %s
// RUN: te-run %s --entry requantize_unrolled --seed 4 --output-dir %t/req --quiet
// RUN: te-run %s --entry requantize --seed 4 --exact 0 --compare %t/req/result0.npy | FileCheck %s
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" | FileCheck %s --check-prefix=GPU
//
// CHECK: result 0: PASS
// GPU-LABEL: func.func @sgd
// GPU: scf.for
// GPU: gpu.launch

#id = affine_map<(d0, d1) -> (d0, d1)>
!q = !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise>

func.func private @update(%w: tensor<64x128xbf16>, %g: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  %e = tensor.empty() : tensor<64x128xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g : tensor<64x128xbf16>, tensor<64x128xbf16>) outs(%e : tensor<64x128xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %s = arith.constant 0.01 : bf16
    %m = arith.mulf %b, %s : bf16
    %d = arith.subf %a, %m : bf16
    linalg.yield %d : bf16
  } -> tensor<64x128xbf16>
  return %r : tensor<64x128xbf16>
}

func.func private @halve(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %e = tensor.empty() : tensor<64x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %h = arith.constant 0.75 : f32
    %m = arith.mulf %a, %h : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

func.func @sgd(%x: tensor<32x128xbf16>, %w0: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %w = scf.for %i = %c0 to %c3 step %c1 iter_args(%wi = %w0) -> tensor<64x128xbf16> {
    %y, %xs, %ws = te.linear %x, %wi
        {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
        : tensor<32x128xbf16>, tensor<64x128xbf16>
    %dx, %gw = te.linear_grad %y, %xs, %ws {grad_output_quantizer = #te.current<f8E5M2>}
        : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>,
          !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
    %wn = func.call @update(%wi, %gw) : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x128xbf16>
    scf.yield %wn : tensor<64x128xbf16>
  }
  return %w : tensor<64x128xbf16>
}

func.func @sgd_unrolled(%x: tensor<32x128xbf16>, %w0: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
    %y0, %xs0, %ws0 = te.linear %x, %w0
        {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
        : tensor<32x128xbf16>, tensor<64x128xbf16>
    %dx0, %gw0 = te.linear_grad %y0, %xs0, %ws0 {grad_output_quantizer = #te.current<f8E5M2>}
        : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>,
          !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
    %wn0 = func.call @update(%w0, %gw0) : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x128xbf16>
    %y1, %xs1, %ws1 = te.linear %x, %wn0
        {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
        : tensor<32x128xbf16>, tensor<64x128xbf16>
    %dx1, %gw1 = te.linear_grad %y1, %xs1, %ws1 {grad_output_quantizer = #te.current<f8E5M2>}
        : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>,
          !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
    %wn1 = func.call @update(%wn0, %gw1) : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x128xbf16>
    %y2, %xs2, %ws2 = te.linear %x, %wn1
        {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
        : tensor<32x128xbf16>, tensor<64x128xbf16>
    %dx2, %gw2 = te.linear_grad %y2, %xs2, %ws2 {grad_output_quantizer = #te.current<f8E5M2>}
        : tensor<32x64xbf16>, !te.qtensor<32x128xbf16, #te.current<f8E4M3FN>, columnwise>,
          !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
    %wn2 = func.call @update(%wn1, %gw2) : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x128xbf16>
  return %wn2 : tensor<64x128xbf16>
}

func.func @requantize(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %q0 = te.quantize %x : tensor<64x128xf32> -> !q
  %q = scf.for %i = %c0 to %c3 step %c1 iter_args(%qi = %q0) -> !q {
    %d = te.dequantize %qi : !q -> tensor<64x128xf32>
    %h = func.call @halve(%d) : (tensor<64x128xf32>) -> tensor<64x128xf32>
    %qn = te.quantize %h : tensor<64x128xf32> -> !q
    scf.yield %qn : !q
  }
  %r = te.dequantize %q : !q -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

func.func @requantize_unrolled(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %q0 = te.quantize %x : tensor<64x128xf32> -> !q
    %d0 = te.dequantize %q0 : !q -> tensor<64x128xf32>
    %h0 = func.call @halve(%d0) : (tensor<64x128xf32>) -> tensor<64x128xf32>
    %q1 = te.quantize %h0 : tensor<64x128xf32> -> !q
    %d1 = te.dequantize %q1 : !q -> tensor<64x128xf32>
    %h1 = func.call @halve(%d1) : (tensor<64x128xf32>) -> tensor<64x128xf32>
    %q2 = te.quantize %h1 : tensor<64x128xf32> -> !q
    %d2 = te.dequantize %q2 : !q -> tensor<64x128xf32>
    %h2 = func.call @halve(%d2) : (tensor<64x128xf32>) -> tensor<64x128xf32>
    %q3 = te.quantize %h2 : tensor<64x128xf32> -> !q
  %r = te.dequantize %q3 : !q -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
