// RUN: te-opt %s | te-opt | FileCheck %s
// RUN: te-opt %s --mlir-print-op-generic | te-opt | FileCheck %s
// RUN: te-opt %s --emit-bytecode | te-opt | FileCheck %s

// Round trip of every te operation, with and without its optional parts.

// CHECK-LABEL: func.func @quantize
func.func @quantize(%x: tensor<32x64xbf16>, %s: tensor<1xf32>, %seed: i64, %off: i64) {
  // CHECK: te.quantize %{{.*}} : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  %0 = te.quantize %x : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  // CHECK: te.quantize %{{.*}} scale %{{.*}} : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  %1, %amax = te.quantize %x scale %s : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  // CHECK: te.quantize %{{.*}} seed %{{.*}} offset %{{.*}} : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>, columnwise>
  %2 = te.quantize %x seed %seed offset %off : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>, columnwise>
  // Amax reduction across a process group (current scaling, NVFP4).
  // CHECK: te.quantize %{{.*}} group "tp" : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  %3 = te.quantize %x group "tp" : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  // CHECK: te.quantize %{{.*}} group "sp" : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>
  %4 = te.quantize %x group "sp" : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>
  // CHECK: te.quantize %{{.*}} seed %{{.*}} offset %{{.*}} group "tp" : tensor<32x64xbf16> -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, rowwise>
  %5 = te.quantize %x seed %seed offset %off group "tp" : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, rowwise>
  return
}

// CHECK-LABEL: func.func @quantize_dynamic
// CHECK: te.quantize %{{.*}} : tensor<?x64xf16> -> !te.qtensor<?x64xf16, #te.block<f8E4M3FN>, rowwise>
func.func @quantize_dynamic(%x: tensor<?x64xf16>) -> !te.qtensor<?x64xf16, #te.block<f8E4M3FN>, rowwise> {
  %0 = te.quantize %x : tensor<?x64xf16> -> !te.qtensor<?x64xf16, #te.block<f8E4M3FN>, rowwise>
  return %0 : !te.qtensor<?x64xf16, #te.block<f8E4M3FN>, rowwise>
}

// CHECK-LABEL: func.func @dequantize
func.func @dequantize(%a: !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>,
                      %b: !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, columnwise>,
                      %c: !te.qtensor<256x256xf32, #te.block<f8E4M3FN, dims = 2>, columnwise>) {
  // CHECK: te.dequantize %{{.*}} : !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  %0 = te.dequantize %a : !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<32x64xf32>
  // Columnwise-only per-tensor FP8 and 128x128 blocks dequantize.
  // CHECK: te.dequantize %{{.*}} : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, columnwise> -> tensor<32x64xbf16>
  %1 = te.dequantize %b : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, columnwise> -> tensor<32x64xbf16>
  // CHECK: te.dequantize %{{.*}} : !te.qtensor<256x256xf32, #te.block<f8E4M3FN, dims = 2>, columnwise> -> tensor<256x256xf16>
  %2 = te.dequantize %c : !te.qtensor<256x256xf32, #te.block<f8E4M3FN, dims = 2>, columnwise> -> tensor<256x256xf16>
  return
}

// Linear's three GEMMs (docs/formats.md §5): fprop TN, dgrad NN, wgrad NT.
// CHECK-LABEL: func.func @gemm_layouts
func.func @gemm_layouts(%w: !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN, block_2d = true>, rowwise|columnwise>,
                        %x: !te.qtensor<4x8x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>,
                        %dy: !te.qtensor<4x8x64xbf16, #te.mxfp8<f8E5M2>, rowwise|columnwise>,
                        %b: tensor<64xbf16>) {
  // CHECK: te.gemm %{{.*}}, %{{.*}} layout TN bias(%{{.*}} : tensor<64xbf16>) {use_split_accumulator} : {{.*}} -> tensor<4x8x64xbf16>
  %y = te.gemm %w, %x layout TN bias(%b : tensor<64xbf16>) {use_split_accumulator}
      : !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN, block_2d = true>, rowwise|columnwise>,
        !te.qtensor<4x8x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise> -> tensor<4x8x64xbf16>
  // CHECK: te.gemm %{{.*}}, %{{.*}} layout NN : {{.*}} -> tensor<4x8x128xf32>
  %dx = te.gemm %w, %dy layout NN
      : !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN, block_2d = true>, rowwise|columnwise>,
        !te.qtensor<4x8x64xbf16, #te.mxfp8<f8E5M2>, rowwise|columnwise> -> tensor<4x8x128xf32>
  // CHECK: te.gemm %{{.*}}, %{{.*}} layout NT : {{.*}} -> tensor<64x128xbf16>
  %dw = te.gemm %x, %dy layout NT
      : !te.qtensor<4x8x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>,
        !te.qtensor<4x8x64xbf16, #te.mxfp8<f8E5M2>, rowwise|columnwise> -> tensor<64x128xbf16>
  return
}

// Accumulation, a quantized output, a delayed-scaling output with its amax,
// 1D x 2D block scaling, mixed delayed / current per-tensor operands.
// CHECK-LABEL: func.func @gemm_outputs
func.func @gemm_outputs(%a: !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>,
                        %b: !te.qtensor<32x128xbf16, #te.delayed<f8E5M2>, rowwise>,
                        %c: tensor<32x64xf32>, %s: tensor<1xf32>,
                        %wb: !te.qtensor<256x128xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise>,
                        %xb: !te.qtensor<?x128xbf16, #te.block<f8E4M3FN>, rowwise>) {
  // CHECK: te.gemm %{{.*}}, %{{.*}} layout TN accumulate(%{{.*}} : tensor<32x64xf32>) : {{.*}} -> tensor<32x64xf32>
  %0 = te.gemm %a, %b layout TN accumulate(%c : tensor<32x64xf32>)
      : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xbf16, #te.delayed<f8E5M2>, rowwise> -> tensor<32x64xf32>
  // CHECK: te.gemm %{{.*}}, %{{.*}} layout TN : {{.*}} -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>
  %1 = te.gemm %a, %b layout TN
      : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xbf16, #te.delayed<f8E5M2>, rowwise>
      -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise>
  // CHECK: te.gemm %{{.*}}, %{{.*}} layout TN scale %{{.*}} : {{.*}} -> !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  %2, %amax = te.gemm %a, %b layout TN scale %s
      : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x128xbf16, #te.delayed<f8E5M2>, rowwise>
      -> !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  // CHECK: te.gemm %{{.*}}, %{{.*}} layout TN : {{.*}} -> tensor<?x256xbf16>
  %3 = te.gemm %wb, %xb layout TN
      : !te.qtensor<256x128xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise>,
        !te.qtensor<?x128xbf16, #te.block<f8E4M3FN>, rowwise> -> tensor<?x256xbf16>
  return
}

// CHECK-LABEL: func.func @linear
func.func @linear(%x: tensor<4x8x128xbf16>, %w: tensor<64x128xbf16>, %b: tensor<64xbf16>,
                  %ws: !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise|columnwise>,
                  %seed: i64, %off: i64)
    -> (tensor<4x8x64xbf16>, !te.qtensor<4x8x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN, block_2d = true>, rowwise|columnwise>,
        !te.qtensor<4x8x64xbf16, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
  // CHECK: {{.*}} = te.linear %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<64xbf16>) {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN, block_2d = true>} : tensor<4x8x128xbf16>, tensor<64x128xbf16>
  %y, %xs, %wq = te.linear %x, %w bias(%b : tensor<64xbf16>)
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN, block_2d = true>}
      : tensor<4x8x128xbf16>, tensor<64x128xbf16>
  // Cache miss: the quantized weight is also returned as the new workspace;
  // the output is quantized.
  // CHECK: {{.*}} = te.linear %{{.*}}, %{{.*}} {cache_weight, input_quantizer = #te.current<f8E4M3FN>, output_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>}
  %y1:4 = te.linear %x, %w
      {input_quantizer = #te.current<f8E4M3FN>, weight_quantizer = #te.current<f8E4M3FN>,
       output_quantizer = #te.current<f8E4M3FN>, cache_weight}
      : tensor<4x8x128xbf16>, tensor<64x128xbf16>
  // Cache hit: the workspace is the quantized weight.
  // CHECK: {{.*}} = te.linear %{{.*}}, %{{.*}} workspace(%{{.*}} : !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise|columnwise>) seed %{{.*}} offset %{{.*}} {input_quantizer = #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>, weight_quantizer = #te.nvfp4<f4E2M1FN, block_2d = true>}
  %y2:3 = te.linear %x, %w workspace(%ws : !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise|columnwise>)
      seed %seed offset %off
      {input_quantizer = #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>,
       weight_quantizer = #te.nvfp4<f4E2M1FN, block_2d = true>}
      : tensor<4x8x128xbf16>, tensor<64x128xbf16>
  // Inferred result types.
  // CHECK: return {{.*}} : tensor<4x8x64xbf16>, !te.qtensor<4x8x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>, !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN, block_2d = true>, rowwise|columnwise>, !te.qtensor<4x8x64xbf16, #te.current<f8E4M3FN>, rowwise>, !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return %y, %xs, %wq, %y1#0, %y1#3
      : tensor<4x8x64xbf16>, !te.qtensor<4x8x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>,
        !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN, block_2d = true>, rowwise|columnwise>,
        !te.qtensor<4x8x64xbf16, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
}

// CHECK-LABEL: func.func @linear_grad
func.func @linear_grad(%dy: tensor<4x8x64xbf16>,
                       %xs: !te.qtensor<4x8x128xbf16, #te.nvfp4<f4E2M1FN, rht = true>, columnwise>,
                       %ws: !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise|columnwise>,
                       %seed: i64, %off: i64)
    -> (tensor<4x8x128xbf16>, tensor<64x128xbf16>, tensor<64xbf16>,
        !te.qtensor<4x8x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise>) {
  // CHECK: {{.*}} = te.linear_grad %{{.*}}, %{{.*}}, %{{.*}} seed %{{.*}} offset %{{.*}} {grad_output_quantizer = #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>, has_bias}
  %dx, %dw, %db = te.linear_grad %dy, %xs, %ws seed %seed offset %off
      {grad_output_quantizer = #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>, has_bias}
      : tensor<4x8x64xbf16>,
        !te.qtensor<4x8x128xbf16, #te.nvfp4<f4E2M1FN, rht = true>, columnwise>,
        !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise|columnwise>
  // CHECK: {{.*}} = te.linear_grad %{{.*}}, %{{.*}}, %{{.*}} {grad_input_quantizer = #te.nvfp4<f4E2M1FN>, grad_output_quantizer = #te.nvfp4<f4E2M1FN>}
  %dx2, %dw2 = te.linear_grad %dy, %xs, %ws
      {grad_output_quantizer = #te.nvfp4<f4E2M1FN>, grad_input_quantizer = #te.nvfp4<f4E2M1FN>}
      : tensor<4x8x64xbf16>,
        !te.qtensor<4x8x128xbf16, #te.nvfp4<f4E2M1FN, rht = true>, columnwise>,
        !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise|columnwise>
  // CHECK: return {{.*}} : tensor<4x8x128xbf16>, tensor<64x128xbf16>, tensor<64xbf16>, !te.qtensor<4x8x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise>
  return %dx, %dw, %db, %dx2 : tensor<4x8x128xbf16>, tensor<64x128xbf16>, tensor<64xbf16>,
      !te.qtensor<4x8x128xbf16, #te.nvfp4<f4E2M1FN>, rowwise>
}

// Delayed-scaling state threaded through SSA.
// CHECK-LABEL: func.func @scaling_state
func.func @scaling_state(%x: tensor<32x64xbf16>, %history: tensor<16xf32>, %scale: tensor<1xf32>)
    -> (tensor<16xf32>, tensor<1xf32>) {
  // CHECK: te.amax %{{.*}} : tensor<32x64xbf16>
  %amax = te.amax %x : tensor<32x64xbf16>
  // CHECK: te.allreduce_max %{{.*}} group "tp" : tensor<1xf32>
  %reduced = te.allreduce_max %amax group "tp" : tensor<1xf32>
  // CHECK: te.update_scale %{{.*}}, %{{.*}}, %{{.*}} {quantizer = #te.delayed<f8E4M3FN, margin = 1, history = 16>} : tensor<16xf32>
  %h, %s = te.update_scale %reduced, %history, %scale
      {quantizer = #te.delayed<f8E4M3FN, margin = 1, history = 16>} : tensor<16xf32>
  return %h, %s : tensor<16xf32>, tensor<1xf32>
}

// CHECK-LABEL: func.func @empty
func.func @empty(%n: index, %m: index) {
  // CHECK: te.empty() : !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  %0 = te.empty() : !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
  // CHECK: te.empty(%{{.*}}, %{{.*}}) : !te.qtensor<?x8x?xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  %1 = te.empty(%n, %m) : !te.qtensor<?x8x?xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return
}

// CHECK-LABEL: func.func @flatten
func.func @flatten(%q: !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>)
    -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> {
  // CHECK: te.buffers %{{.*}} : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
  %d, %t, %s = te.buffers %q : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
      -> tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
  // CHECK: te.from_buffers %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32> -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  %q2 = te.from_buffers %d, %t, %s : tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
      -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  return %q2 : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
}
