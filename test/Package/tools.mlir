// Input of the installed tools in the `package` test
// (run-package-test.cmake): te-opt lowers it, te-run runs it on the cpu
// backend (its result feeds te-quantize). MXFP8 quantize + dequantize of a
// constant 0.5, which E4M3 with a power-of-two block scale holds exactly.
//
// OPT: llvm.func @main
// OPT: llvm.call @te_rt_mlir_quantize
//
// TERUN: result 0: f32[64,128] min 0.5 max 0.5 mean 0.5

func.func @main(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %q = te.quantize %x : tensor<64x128xf32> -> !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise>
  %y = te.dequantize %q : !te.qtensor<64x128xf32, #te.mxfp8<f8E4M3FN>, rowwise> -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
