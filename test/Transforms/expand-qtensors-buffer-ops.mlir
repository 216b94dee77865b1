// RUN: te-opt %s -split-input-file | te-opt -split-input-file | FileCheck %s
// RUN: te-opt %s -split-input-file --mlir-print-op-generic | te-opt -split-input-file | FileCheck %s

// The buffer-level ops te-expand-qtensors produces round-trip, on tensors
// and (after bufferization) on memrefs. Buffer types are docs/formats.md §3's
// by hand: current 32x64 rowwise = _data 32x64, _scale_inv 1; MXFP8 32x64
// rowwise = data 32x64, scales (rup(32, 128), rup(64/32, 4)) = 128x4.

// CHECK-LABEL: func.func @tensors
// CHECK: te.quantize_buffers %{{.*}} quantizer #te.mxfp8<f8E4M3FN> usage rowwise outs(%{{.*}}, %{{.*}} : tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
// CHECK: te.dequantize_buffers %{{.*}}, %{{.*}} quantizer #te.mxfp8<f8E4M3FN> usage rowwise outs(%{{.*}} : tensor<32x64xf32>) : tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> tensor<32x64xf32>
// CHECK: te.gemm_buffers layout TN a(%{{.*}}, %{{.*}} : tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) quantizer #te.mxfp8<f8E4M3FN> usage rowwise shape [32, 64] b(%{{.*}}, %{{.*}} : tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) quantizer #te.mxfp8<f8E4M3FN> usage rowwise shape [32, 64] outs(%{{.*}} : tensor<32x32xbf16>) -> tensor<32x32xbf16>
func.func @tensors(%x: tensor<32x64xbf16>, %d0: tensor<32x64xf8E4M3FN>, %s0: tensor<128x4xf8E8M0FNU>,
                   %y0: tensor<32x64xf32>, %o: tensor<32x32xbf16>) -> (tensor<32x64xf32>, tensor<32x32xbf16>) {
  %d, %s = te.quantize_buffers %x quantizer #te.mxfp8<f8E4M3FN> usage rowwise
      outs(%d0, %s0 : tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>)
      : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  %y = te.dequantize_buffers %d, %s quantizer #te.mxfp8<f8E4M3FN> usage rowwise outs(%y0 : tensor<32x64xf32>)
      : tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> tensor<32x64xf32>
  %g = te.gemm_buffers layout TN
      a(%d, %s : tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) quantizer #te.mxfp8<f8E4M3FN> usage rowwise shape [32, 64]
      b(%d, %s : tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) quantizer #te.mxfp8<f8E4M3FN> usage rowwise shape [32, 64]
      outs(%o : tensor<32x32xbf16>) -> tensor<32x32xbf16>
  return %y, %g : tensor<32x64xf32>, tensor<32x32xbf16>
}

// CHECK-LABEL: func.func @memrefs
// CHECK: te.quantize_buffers %{{.*}} scale(%{{.*}} : memref<1xf32>) quantizer #te.delayed<f8E4M3FN> usage rowwise outs(%{{.*}}, %{{.*}}, %{{.*}} : memref<32x64xf8E4M3FN>, memref<1xf32>, memref<1xf32>) : memref<32x64xbf16>{{$}}
// CHECK: te.gemm_buffers layout NT {{.*}} quantizer #te.current<f8E4M3FN> usage columnwise shape [32, 64] {{.*}} quantizer #te.current<f8E5M2> usage columnwise shape [32, 16] outs(%{{.*}} : memref<16x64xf32>) {accumulate}{{$}}
func.func @memrefs(%x: memref<32x64xbf16>, %sc: memref<1xf32>, %d: memref<32x64xf8E4M3FN>,
                   %si: memref<1xf32>, %amax: memref<1xf32>, %xt: memref<64x32xf8E4M3FN>,
                   %dyt: memref<16x32xf8E5M2>, %acc: memref<16x64xf32>) {
  te.quantize_buffers %x scale(%sc : memref<1xf32>) quantizer #te.delayed<f8E4M3FN> usage rowwise
      outs(%d, %si, %amax : memref<32x64xf8E4M3FN>, memref<1xf32>, memref<1xf32>) : memref<32x64xbf16>
  te.gemm_buffers layout NT
      a(%xt, %si : memref<64x32xf8E4M3FN>, memref<1xf32>) quantizer #te.current<f8E4M3FN> usage columnwise shape [32, 64]
      b(%dyt, %si : memref<16x32xf8E5M2>, memref<1xf32>) quantizer #te.current<f8E5M2> usage columnwise shape [32, 16]
      outs(%acc : memref<16x64xf32>) {accumulate}
  return
}
