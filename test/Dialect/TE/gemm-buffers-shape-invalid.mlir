// RUN: te-opt %s -split-input-file -verify-diagnostics

// A logical shape extent is a non-negative integer or `?`.

func.func @negative(%w: tensor<64x256xf8E4M3FN>, %s: tensor<1xf32>, %o: tensor<64x64xbf16>) {
  // expected-error @below {{expected a non-negative extent or '?', got -3}}
  %y = te.gemm_buffers layout TN a(%w, %s : tensor<64x256xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [-3, 256]
      b(%w, %s : tensor<64x256xf8E4M3FN>, tensor<1xf32>) quantizer #te.current<f8E4M3FN> usage rowwise shape [64, 256]
      outs(%o : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return
}
