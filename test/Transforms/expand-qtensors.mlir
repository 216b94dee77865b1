// RUN: te-opt %s -split-input-file --te-expand-qtensors | FileCheck %s
// RUN: te-opt %s -split-input-file --te-expand-qtensors --te-expand-qtensors | FileCheck %s
// RUN: te-opt %s -split-input-file --te-expand-qtensors --one-shot-bufferize="bufferize-function-boundaries allow-return-allocs-from-loops" | FileCheck %s --check-prefix=BUF

// After te-expand-qtensors nothing is quantized any more: every !te.qtensor
// is its buffers (docs/formats.md §3 layouts, computed by hand in each
// comment), in function signatures, calls, returns and scf regions.
// CHECK-NOT: !te.qtensor
// BUF-NOT: !te.qtensor

// Per-tensor current scaling on sm_90, X = 32x64 rowwise|columnwise:
// _data 32x64, _transpose 64x32, _scale_inv 1; W = 16x64 rowwise: _data
// 16x64, _scale_inv 1.
// CHECK-LABEL: func.func private @identity
// CHECK-SAME: (%[[D:.*]]: tensor<32x64xf8E4M3FN>, %[[T:.*]]: tensor<64x32xf8E4M3FN>, %[[S:.*]]: tensor<1xf32>)
// CHECK-SAME: -> (tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>)
// CHECK-NEXT: return %[[D]], %[[T]], %[[S]]
func.func private @identity(%q: !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>)
    -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> {
  return %q : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
}

// CHECK-LABEL: func.func @fprop
// CHECK-SAME: (%[[X:.*]]: tensor<32x64xbf16>, %[[W:.*]]: tensor<16x64xbf16>) -> tensor<32x16xbf16>
// CHECK-DAG: %[[E0:.*]] = tensor.empty() : tensor<32x64xf8E4M3FN>
// CHECK-DAG: %[[E1:.*]] = tensor.empty() : tensor<64x32xf8E4M3FN>
// CHECK-DAG: %[[E2:.*]] = tensor.empty() : tensor<1xf32>
// CHECK: %[[QX:.*]]:3 = te.quantize_buffers %[[X]] quantizer #te.current<f8E4M3FN> usage rowwise|columnwise
// CHECK-SAME: outs(%[[E0]], %[[E1]], %[[E2]] : tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>)
// CHECK-SAME: : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
// CHECK: %[[C:.*]]:3 = call @identity(%[[QX]]#0, %[[QX]]#1, %[[QX]]#2)
// CHECK: %[[QW:.*]]:2 = te.quantize_buffers %[[W]] quantizer #te.current<f8E4M3FN> usage rowwise
// CHECK-SAME: -> tensor<16x64xf8E4M3FN>, tensor<1xf32>
// CHECK: %[[Y0:.*]] = tensor.empty() : tensor<32x16xbf16>
// CHECK: %[[Y:.*]] = te.gemm_buffers layout TN
// CHECK-SAME: a(%[[QW]]#0, %[[QW]]#1 : tensor<16x64xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [16, 64]
// CHECK-SAME: b(%[[C]]#0, %[[C]]#1, %[[C]]#2 : tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise|columnwise shape [32, 64]
// CHECK-SAME: outs(%[[Y0]] : tensor<32x16xbf16>) -> tensor<32x16xbf16>
// CHECK: return %[[Y]]

// One-shot bufferization turns the destination-passing ops into their
// memref forms, writing into the allocations of the `outs`.
// BUF-LABEL: func.func @fprop
// BUF: %[[A0:.*]] = memref.alloc() {{.*}} : memref<32x64xf8E4M3FN>
// BUF: %[[A1:.*]] = memref.alloc() {{.*}} : memref<64x32xf8E4M3FN>
// BUF: %[[A2:.*]] = memref.alloc() {{.*}} : memref<1xf32>
// BUF: te.quantize_buffers %{{.*}} quantizer #te.current<f8E4M3FN> usage rowwise|columnwise outs(%[[A0]], %[[A1]], %[[A2]] : memref<32x64xf8E4M3FN>, memref<64x32xf8E4M3FN>, memref<1xf32>) : memref<32x64xbf16{{.*}}>{{$}}
// BUF: call @identity
// BUF: %[[Y:.*]] = memref.alloc() {{.*}} : memref<32x16xbf16>
// BUF: te.gemm_buffers layout TN {{.*}} outs(%[[Y]] : memref<32x16xbf16>){{$}}
// BUF: return %[[Y]]
func.func @fprop(%x: tensor<32x64xbf16>, %w: tensor<16x64xbf16>) -> tensor<32x16xbf16> {
  %qx = te.quantize %x : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  %c = call @identity(%qx) : (!te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>)
      -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  %qw = te.quantize %w : tensor<16x64xbf16>
      -> !te.qtensor<16x64xbf16, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %qw, %c layout TN
      : !te.qtensor<16x64xbf16, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
      -> tensor<32x16xbf16>
  return %y : tensor<32x16xbf16>
}

// -----

// Delayed scaling: the amax is one more `outs` operand (tensor<1xf32>), in
// te.quantize_buffers and for a delayed output quantizer of a GEMM. MXFP8
// 64x64 rowwise: data 64x64, scales (rup(64, 128), rup(64/32, 4)) = 128x4;
// columnwise (needed by NN's A): data 64x64, scales (rup(64/32, 4),
// rup(64, 128)) = 4x128.
// CHECK-LABEL: func.func @delayed_output
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<32x64xbf16>, %[[S:[a-z0-9]+]]: tensor<1xf32>
// CHECK: %[[Q:.*]]:3 = te.quantize_buffers %[[X]] scale(%[[S]] : tensor<1xf32>) quantizer #te.delayed<f8E4M3FN> usage rowwise
// CHECK-SAME: : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
// CHECK: %[[G:.*]]:3 = te.gemm_buffers layout TN
// CHECK-SAME: scale(%[[S]] : tensor<1xf32>)
// CHECK-SAME: {out_quantizer = #te.delayed<f8E4M3FN>}
// CHECK-SAME: -> tensor<32x32xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
// CHECK: return %[[G]]#0, %[[G]]#1, %[[Q]]#2, %[[G]]#2
func.func @delayed_output(%x: tensor<32x64xbf16>, %s: tensor<1xf32>,
                          %w: !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>)
    -> (!te.qtensor<32x32xbf16, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>, tensor<1xf32>) {
  %q, %amax = te.quantize %x scale %s : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  %y, %yamax = te.gemm %w, %q layout TN scale %s
      : !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>,
        !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>
      -> !te.qtensor<32x32xbf16, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
  return %y, %amax, %yamax : !te.qtensor<32x32xbf16, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>, tensor<1xf32>
}

// Accumulation writes over the accumulator (the `outs` operand) and the
// bias is passed through.
// CHECK-LABEL: func.func @dgrad_accumulate
// CHECK-SAME: %[[ACC:[a-z0-9]+]]: tensor<32x64xf32>, %[[B:[a-z0-9]+]]: tensor<64xf32>
// CHECK-NOT: tensor.empty
// CHECK: te.gemm_buffers layout NN
// CHECK-SAME: a(%{{.*}}, %{{.*}} : tensor<64x64xf8E4M3FN>, tensor<4x128xf8E8M0FNU>) quantizer #te.mxfp8<f8E4M3FN> usage columnwise shape [64, 64]
// CHECK-SAME: b(%{{.*}}, %{{.*}} : tensor<32x64xf8E5M2>, tensor<128x4xf8E8M0FNU>) quantizer #te.mxfp8<f8E5M2> usage rowwise shape [32, 64]
// CHECK-SAME: bias(%[[B]] : tensor<64xf32>) outs(%[[ACC]] : tensor<32x64xf32>) {accumulate, use_split_accumulator} -> tensor<32x64xf32>
func.func @dgrad_accumulate(%w: !te.qtensor<64x64xbf16, #te.mxfp8<f8E4M3FN>, columnwise>,
                            %dy: !te.qtensor<32x64xbf16, #te.mxfp8<f8E5M2>, rowwise>,
                            %acc: tensor<32x64xf32>, %b: tensor<64xf32>) -> tensor<32x64xf32> {
  %dx = te.gemm %w, %dy layout NN bias(%b : tensor<64xf32>) accumulate(%acc : tensor<32x64xf32>)
      {use_split_accumulator}
      : !te.qtensor<64x64xbf16, #te.mxfp8<f8E4M3FN>, columnwise>,
        !te.qtensor<32x64xbf16, #te.mxfp8<f8E5M2>, rowwise>
      -> tensor<32x64xf32>
  return %dx : tensor<32x64xf32>
}

// -----

// NVFP4 with stochastic rounding: seed and offset pass through. 32x64
// columnwise: data (K, M/2) = 64x16 i8, scales (rup(64, 128), rup(32/16, 4))
// = 128x4 E4M3, _amax_columnwise 1.
// CHECK-LABEL: func.func @nvfp4_sr
// CHECK: %[[Q:.*]]:3 = te.quantize_buffers %{{.*}} seed %{{.*}} offset %{{.*}} quantizer #te.nvfp4<f4E2M1FN, stochastic_rounding = true> usage columnwise
// CHECK-SAME: -> tensor<64x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<64x32xf32>
// CHECK: te.dequantize_buffers %{{.*}}, %{{.*}} quantizer #te.current<f8E4M3FN> usage columnwise outs(%[[E]] : tensor<64x32xf32>)
// CHECK-SAME: : tensor<32x64xf8E4M3FN>, tensor<1xf32> -> tensor<64x32xf32>
func.func @nvfp4_sr(%x: tensor<32x64xbf16>, %seed: i64, %off: i64,
                    %t: !te.qtensor<64x32xbf16, #te.current<f8E4M3FN>, columnwise>)
    -> (!te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, columnwise>, tensor<64x32xf32>) {
  %q = te.quantize %x seed %seed offset %off : tensor<32x64xbf16>
      -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, columnwise>
  %d = te.dequantize %t : !te.qtensor<64x32xbf16, #te.current<f8E4M3FN>, columnwise> -> tensor<64x32xf32>
  return %q, %d : !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, columnwise>, tensor<64x32xf32>
}

// te.empty allocates each buffer (block 1x128, 256x128 rowwise: data
// 256x128, scales (ceil(128/128), rup(256, 4)) = 1x256); te.buffers /
// te.from_buffers are the buffers themselves.
// CHECK-LABEL: func.func @empty_and_views
// CHECK-SAME: (%[[D:.*]]: tensor<16x32xf8E5M2>, %[[S:.*]]: tensor<1xf32>)
// CHECK-DAG: %[[E0:.*]] = tensor.empty() : tensor<256x128xf8E4M3FN>
// CHECK-DAG: %[[E1:.*]] = tensor.empty() : tensor<1x256xf32>
// CHECK: return %[[E0]], %[[E1]], %[[D]], %[[S]], %[[D]]
func.func @empty_and_views(%d: tensor<16x32xf8E5M2>, %s: tensor<1xf32>)
    -> (!te.qtensor<256x128xbf16, #te.block<f8E4M3FN>, rowwise>,
        !te.qtensor<16x32xbf16, #te.current<f8E5M2>, rowwise>, tensor<16x32xf8E5M2>) {
  %e = te.empty() : !te.qtensor<256x128xbf16, #te.block<f8E4M3FN>, rowwise>
  %q = te.from_buffers %d, %s : tensor<16x32xf8E5M2>, tensor<1xf32>
      -> !te.qtensor<16x32xbf16, #te.current<f8E5M2>, rowwise>
  %b:2 = te.buffers %q : !te.qtensor<16x32xbf16, #te.current<f8E5M2>, rowwise>
      -> tensor<16x32xf8E5M2>, tensor<1xf32>
  return %e, %q, %b#0 : !te.qtensor<256x128xbf16, #te.block<f8E4M3FN>, rowwise>,
      !te.qtensor<16x32xbf16, #te.current<f8E5M2>, rowwise>, tensor<16x32xf8E5M2>
}

// -----

// scf.for and scf.if carry all buffers of a quantized value. On sm_100 a
// per-tensor tensor has no _transpose: _data 32x64 and _scale_inv 1 hold
// rowwise|columnwise.
module attributes {te.target = #te.target<sm_100>} {
  // CHECK-LABEL: func.func @loop
  // CHECK: %[[Q:.*]]:2 = te.quantize_buffers {{.*}} -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  // CHECK: %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[A0:.*]] = %[[Q]]#0, %[[A1:.*]] = %[[Q]]#1) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>)
  // CHECK: %[[I:.*]]:2 = scf.if %{{.*}} -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>)
  // CHECK: scf.yield %[[A0]], %[[A1]] : tensor<32x64xf8E4M3FN>, tensor<1xf32>
  // CHECK: } else {
  // CHECK: te.quantize_buffers
  // CHECK: scf.yield
  // CHECK: scf.yield %[[I]]#0, %[[I]]#1
  // CHECK: return %[[R]]#0, %[[R]]#1
  func.func @loop(%x: tensor<32x64xbf16>, %n: index, %cond: i1)
      -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %q = te.quantize %x : tensor<32x64xbf16>
        -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %q)
        -> (!te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
      %b = scf.if %cond -> (!te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
        scf.yield %a : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
      } else {
        %q2 = te.quantize %x : tensor<32x64xbf16>
            -> !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
        scf.yield %q2 : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
      }
      scf.yield %b : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
    }
    return %r : !te.qtensor<32x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  }
}
