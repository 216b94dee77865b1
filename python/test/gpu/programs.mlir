// Programs of python/test/gpu/test_torch_cuda.py, compiled ahead of time
// for sm_90 by prepare.sh (one shared library per entry) and run on the
// GPU machine from Python on CUDA torch tensors (te.load), compared with
// torch eager in fp32.
//
// gelu_chain: bf16 in and out, a dynamic batch (tanh GELU of x + b).
// masked_rows: an f32 tensor, an i1 mask and an f32 scalar; two results.
// linear_current / linear_mxfp8: te.linear + te.linear_grad (Y, dX, dW, db)
// with FP8 current scaling (HYBRID: E5M2 gradients) and MXFP8.

func.func @gelu_chain(%x: tensor<?x512xbf16>, %b: tensor<512xbf16>) -> tensor<?x512xbf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x512xbf16>
  %e16 = tensor.empty(%n) : tensor<?x512xbf16>
  %e32 = tensor.empty(%n) : tensor<?x512xf32>
  %bb = linalg.broadcast ins(%b : tensor<512xbf16>) outs(%e16 : tensor<?x512xbf16>) dimensions = [0]
  %h16 = linalg.add ins(%x, %bb : tensor<?x512xbf16>, tensor<?x512xbf16>) outs(%e16 : tensor<?x512xbf16>) -> tensor<?x512xbf16>
  %h = arith.extf %h16 : tensor<?x512xbf16> to tensor<?x512xf32>
  %fc = arith.constant 0.044715 : f32
  %fk = arith.constant 0.7978845608 : f32
  %fh = arith.constant 0.5 : f32
  %f1 = arith.constant 1.0 : f32
  %c = linalg.fill ins(%fc : f32) outs(%e32 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %k = linalg.fill ins(%fk : f32) outs(%e32 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %half = linalg.fill ins(%fh : f32) outs(%e32 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %one = linalg.fill ins(%f1 : f32) outs(%e32 : tensor<?x512xf32>) -> tensor<?x512xf32>
  %h2 = arith.mulf %h, %h : tensor<?x512xf32>
  %h3 = arith.mulf %h2, %h : tensor<?x512xf32>
  %ch3 = arith.mulf %c, %h3 : tensor<?x512xf32>
  %in = arith.addf %h, %ch3 : tensor<?x512xf32>
  %kin = arith.mulf %k, %in : tensor<?x512xf32>
  %t = math.tanh %kin : tensor<?x512xf32>
  %t1 = arith.addf %one, %t : tensor<?x512xf32>
  %hh = arith.mulf %half, %h : tensor<?x512xf32>
  %y = arith.mulf %hh, %t1 : tensor<?x512xf32>
  %y16 = arith.truncf %y : tensor<?x512xf32> to tensor<?x512xbf16>
  return %y16 : tensor<?x512xbf16>
}

// Dropout-style masking of a scaled tensor (an i1 mask tensor, a scalar
// scale as a tensor.splat), and each row's sum of squares of the result.
func.func @masked_rows(%x: tensor<?x?xf32>, %m: tensor<?x?xi1>, %s: f32) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %sc = tensor.splat %s[%r, %cols] : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%r, %cols) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %xs = arith.mulf %x, %sc : tensor<?x?xf32>
  %y = arith.select %m, %xs, %z : tensor<?x?xi1>, tensor<?x?xf32>
  %sq = arith.mulf %y, %y : tensor<?x?xf32>
  %er = tensor.empty(%r) : tensor<?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.reduce ins(%sq : tensor<?x?xf32>) outs(%acc : tensor<?xf32>) dimensions = [1]
    (%v: f32, %a: f32) {
      %p = arith.addf %a, %v : f32
      linalg.yield %p : f32
    }
  return %y, %sum : tensor<?x?xf32>, tensor<?xf32>
}

func.func @linear_current(%x: tensor<32x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<32x64xf32>)
    -> (tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
      : tensor<32x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.current<f8E5M2>, has_bias}
      : tensor<32x64xf32>, !te.qtensor<32x128xf32, #te.current<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.current<f8E4M3FN>, rowwise|columnwise>
  return %y, %dx, %dw, %db : tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>
}

func.func @linear_mxfp8(%x: tensor<32x128xf32>, %w: tensor<64x128xf32>, %b: tensor<64xf32>, %dy: tensor<32x64xf32>)
    -> (tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>) {
  %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xf32>)
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xf32>, tensor<64x128xf32>
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.mxfp8<f8E4M3FN>, has_bias}
      : tensor<32x64xf32>, !te.qtensor<32x128xf32, #te.mxfp8<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  return %y, %dx, %dw, %db : tensor<32x64xf32>, tensor<32x128xf32>, tensor<64x128xf32>, tensor<64xf32>
}
