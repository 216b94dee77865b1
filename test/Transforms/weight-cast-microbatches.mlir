// One weight quantization per step, whatever the number of microbatches: a
// Linear's forward + backward over NUM_MB static microbatches of 128 tokens
// (the program is instantiated with sed for 1, 4 and 16), through
// te-decompose-linear, te-eliminate-aliases, te-expand-qtensors and one-shot
// bufferization. The weight argument is quantized exactly once (before the
// loop, or in the body when one microbatch makes the loop go away), never
// copied; the microbatch input and the gradient are quantized per microbatch.
//
// RUN: sed -e 's/NUM_TOKENS/128/g' -e 's/NUM_MB/1/g' %s | te-opt --te-decompose-linear --te-eliminate-aliases --te-expand-qtensors --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefixes=CHECK,ONE --implicit-check-not=memref.copy --implicit-check-not=bufferization.clone
// RUN: sed -e 's/NUM_TOKENS/512/g' -e 's/NUM_MB/4/g' %s | te-opt --te-decompose-linear --te-eliminate-aliases --te-expand-qtensors --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefixes=CHECK,MANY --implicit-check-not=memref.copy --implicit-check-not=bufferization.clone
// RUN: sed -e 's/NUM_TOKENS/2048/g' -e 's/NUM_MB/16/g' %s | te-opt --te-decompose-linear --te-eliminate-aliases --te-expand-qtensors --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefixes=CHECK,MANY --implicit-check-not=memref.copy --implicit-check-not=bufferization.clone
//
// The same with the TE-style explicit cache (cache_weight on the first
// microbatch, workspace afterwards): still one quantization of the weight.
// RUN: sed -e 's/NUM_TOKENS/512/g' -e 's/NUM_MB/4/g' %s | te-opt --te-decompose-linear --te-eliminate-aliases --te-expand-qtensors --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=CACHED --implicit-check-not=memref.copy --implicit-check-not=bufferization.clone

!XS = !te.qtensor<128x256xbf16, #te.mxfp8<f8E4M3FN>, columnwise>
!WS = !te.qtensor<512x256xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>

// CHECK-LABEL: func.func @step(
// CHECK-SAME: %{{[^:]*}}: memref<{{[0-9]+}}x256xbf16
// CHECK-SAME: %[[W:[^:]*]]: memref<512x256xbf16
// CHECK: te.quantize_buffers %[[W]] quantizer #te.mxfp8<f8E4M3FN> usage rowwise|columnwise outs(
// CHECK-NOT: te.quantize_buffers %[[W]]
// MANY: scf.for
// ONE-NOT: scf.for
// CHECK: te.quantize_buffers %{{.*}} quantizer #te.mxfp8<f8E4M3FN> usage rowwise|columnwise outs({{.*}} : memref<128x256xf8E4M3FN>
// CHECK: te.gemm_buffers layout TN
// CHECK: te.quantize_buffers %{{.*}} quantizer #te.mxfp8<f8E4M3FN> usage rowwise|columnwise outs({{.*}} : memref<128x512xf8E4M3FN>
// CHECK: te.gemm_buffers layout NN
// CHECK: te.gemm_buffers layout NT
// CHECK-NOT: te.quantize_buffers
// CHECK: return
func.func @step(%x: tensor<NUM_TOKENSx256xbf16>, %w: tensor<512x256xbf16>, %dys: tensor<NUM_TOKENSx512xbf16>)
    -> (tensor<512xf32>, tensor<512x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %n = arith.constant NUM_MB : index
  %zero = arith.constant 0.0 : f32
  %ey = tensor.empty() : tensor<512xf32>
  %ys0 = linalg.fill ins(%zero : f32) outs(%ey : tensor<512xf32>) -> tensor<512xf32>
  %e = tensor.empty() : tensor<512x256xf32>
  %dw0 = linalg.fill ins(%zero : f32) outs(%e : tensor<512x256xf32>) -> tensor<512x256xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%ys = %ys0, %dw = %dw0)
      -> (tensor<512xf32>, tensor<512x256xf32>) {
    %row = arith.muli %i, %c128 : index
    %xi = tensor.extract_slice %x[%row, 0] [128, 256] [1, 1] : tensor<NUM_TOKENSx256xbf16> to tensor<128x256xbf16>
    %dyi = tensor.extract_slice %dys[%row, 0] [128, 512] [1, 1] : tensor<NUM_TOKENSx512xbf16> to tensor<128x512xbf16>
    %y, %xs, %ws = te.linear %xi, %w
        {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
        : tensor<128x256xbf16>, tensor<512x256xbf16>
    %dx, %dwi = te.linear_grad %dyi, %xs, %ws {grad_output_quantizer = #te.mxfp8<f8E4M3FN>}
        : tensor<128x512xbf16>, !XS, !WS
    %ys2 = func.call @column_sums(%y, %ys) : (tensor<128x512xbf16>, tensor<512xf32>) -> tensor<512xf32>
    %dw2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                           iterator_types = ["parallel", "parallel"]}
        ins(%dwi : tensor<512x256xbf16>) outs(%dw : tensor<512x256xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %f = arith.extf %in : bf16 to f32
      %s = arith.addf %out, %f : f32
      linalg.yield %s : f32
    } -> tensor<512x256xf32>
    scf.yield %ys2, %dw2 : tensor<512xf32>, tensor<512x256xf32>
  }
  return %r#0, %r#1 : tensor<512xf32>, tensor<512x256xf32>
}

// acc += column sums of y (keeps the forward output live without a copy).
func.func private @column_sums(%y: tensor<128x512xbf16>, %acc: tensor<512xf32>) -> tensor<512xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%y : tensor<128x512xbf16>) outs(%acc : tensor<512xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    %s = arith.addf %out, %f : f32
    linalg.yield %s : f32
  } -> tensor<512xf32>
  return %r : tensor<512xf32>
}

// CACHED-LABEL: func.func @step_cached(
// CACHED-SAME: %[[W:[^:]*]]: memref<512x256xbf16
// CACHED-COUNT-1: te.quantize_buffers %[[W]]
// CACHED-NOT: te.quantize_buffers %[[W]]
// CACHED: return
func.func @step_cached(%w: tensor<512x256xbf16>, %x: tensor<NUM_TOKENSx256xbf16>)
    -> tensor<512xf32> {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %n = arith.constant NUM_MB : index
  %zero = arith.constant 0.0 : f32
  %ey = tensor.empty() : tensor<512xf32>
  %ys0 = linalg.fill ins(%zero : f32) outs(%ey : tensor<512xf32>) -> tensor<512xf32>
  %x0 = tensor.extract_slice %x[0, 0] [128, 256] [1, 1] : tensor<NUM_TOKENSx256xbf16> to tensor<128x256xbf16>
  // First microbatch: quantize and cache.
  %y0, %xs0, %ws0, %cache = te.linear %x0, %w
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>, cache_weight}
      : tensor<128x256xbf16>, tensor<512x256xbf16>
  %ys1 = func.call @column_sums(%y0, %ys0) : (tensor<128x512xbf16>, tensor<512xf32>) -> tensor<512xf32>
  // Later microbatches: reuse the cached workspace.
  %r = scf.for %i = %c1 to %n step %c1 iter_args(%ys = %ys1) -> (tensor<512xf32>) {
    %row = arith.muli %i, %c128 : index
    %xi = tensor.extract_slice %x[%row, 0] [128, 256] [1, 1] : tensor<NUM_TOKENSx256xbf16> to tensor<128x256xbf16>
    %y, %xs, %ws = te.linear %xi, %w workspace(%cache : !WS)
        {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
        : tensor<128x256xbf16>, tensor<512x256xbf16>
    %ys2 = func.call @column_sums(%y, %ys) : (tensor<128x512xbf16>, tensor<512xf32>) -> tensor<512xf32>
    scf.yield %ys2 : tensor<512xf32>
  }
  return %r : tensor<512xf32>
}
