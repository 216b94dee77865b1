// Input of the downstream consumers of test/Package (cxx/ and c/): each prints
// the buffers of every !te.qtensor value on the module's target. Both are
// checked against the same lines, derived by hand from docs/formats.md §3.3
// (MXFP8: data not transposed; rowwise scales (rup(M,128), rup(ceil(K/32),4)),
// columnwise scales (rup(ceil(M/32),4), rup(K,128)), E8M0).

// CHECK: target sm_100
module attributes {te.target = #te.target<sm_100>} {
  // M = 256, K = 96: rowwise scales (256, 4), columnwise scales (8, 128).
  // CHECK-NEXT: value !te.qtensor<256x96xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>: 4 buffers
  // CHECK-NEXT:   _rowwise_data tensor<256x96xf8E4M3FN>
  // CHECK-NEXT:   _rowwise_scale_inv tensor<256x4xf8E8M0FNU>
  // CHECK-NEXT:   _columnwise_data tensor<256x96xf8E4M3FN>
  // CHECK-NEXT:   _columnwise_scale_inv tensor<8x128xf8E8M0FNU>
  %0 = te.empty() : !te.qtensor<256x96xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  // N-D, M = 4*8 = 32, K = 64, columnwise only: data keeps the logical
  // shape, scales (rup(1,4), rup(64,128)) = (4, 128).
  // CHECK-NEXT: value !te.qtensor<4x8x64xbf16, #te.mxfp8<f8E5M2>, columnwise>: 2 buffers
  // CHECK-NEXT:   _columnwise_data tensor<4x8x64xf8E5M2>
  // CHECK-NEXT:   _columnwise_scale_inv tensor<4x128xf8E8M0FNU>
  %1 = te.empty() : !te.qtensor<4x8x64xbf16, #te.mxfp8<f8E5M2>, columnwise>
}
// CHECK-NEXT: done
