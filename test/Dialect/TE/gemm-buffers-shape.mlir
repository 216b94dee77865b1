// RUN: te-opt %s -split-input-file | te-opt -split-input-file | FileCheck %s
// RUN: te-opt %s -split-input-file --mlir-print-op-generic | te-opt -split-input-file | FileCheck %s

// The logical shape of a te.gemm_buffers operand prints its dynamic extents
// as `?`, as a tensor type does, and parses them back.

// CHECK-LABEL: func.func @dynamic_rows
// CHECK: te.gemm_buffers layout TN
// CHECK-SAME: usage rowwise shape [64, 256]
// CHECK-SAME: usage rowwise shape [?, 256]
// CHECK-SAME: -> tensor<?x64xbf16>
func.func @dynamic_rows(%w: tensor<64x256xf8E4M3FN>, %ws: tensor<1xf32>,
                        %x: tensor<?x256xf8E4M3FN>, %xs: tensor<1xf32>,
                        %o: tensor<?x64xbf16>) -> tensor<?x64xbf16> {
  %y = te.gemm_buffers layout TN
      a(%w, %ws : tensor<64x256xf8E4M3FN>, tensor<1xf32>)
        quantizer #te.current<f8E4M3FN> usage rowwise shape [64, 256]
      b(%x, %xs : tensor<?x256xf8E4M3FN>, tensor<1xf32>)
        quantizer #te.current<f8E4M3FN> usage rowwise shape [?, 256]
      outs(%o : tensor<?x64xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
