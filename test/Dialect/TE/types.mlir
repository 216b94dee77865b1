// RUN: te-opt %s | te-opt | FileCheck %s
// RUN: te-opt %s --mlir-print-op-generic | te-opt | FileCheck %s
// RUN: te-opt %s --emit-bytecode | te-opt | FileCheck %s

// Round trip of !te.qtensor: every recipe, every usage, every nominal type,
// ranks 0..3, static and dynamic dimensions.

// CHECK-LABEL: func.func private @usages
// CHECK-SAME: !te.qtensor<16x32xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK-SAME: !te.qtensor<16x32xf16, #te.current<f8E4M3FN>, columnwise>
// CHECK-SAME: !te.qtensor<16x32xf32, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: !te.qtensor<16x32xf32, #te.current<f8E4M3FN>, rowwise|columnwise>
func.func private @usages(
  !te.qtensor<16x32xbf16, #te.current<f8E4M3FN>, rowwise>,
  !te.qtensor<16x32xf16, #te.current<f8E4M3FN>, columnwise>,
  !te.qtensor<16x32xf32, #te.current<f8E4M3FN>, rowwise|columnwise>,
  !te.qtensor<16x32xf32, #te.current<f8E4M3FN>, columnwise|rowwise>)

// CHECK-LABEL: func.func private @recipes
// CHECK-SAME: !te.qtensor<16x32xbf16, #te.delayed<f8E5M2, history = 16>, rowwise>
// CHECK-SAME: !te.qtensor<7x11xbf16, #te.current<f8E4M3FN, pow2_scales = true>, rowwise|columnwise>
// CHECK-SAME: !te.qtensor<300x200xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>
// CHECK-SAME: !te.qtensor<64x96xf32, #te.mxfp8<f8E4M3FN, block_2d = true>, columnwise>
// CHECK-SAME: !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>
func.func private @recipes(
  !te.qtensor<16x32xbf16, #te.delayed<f8E5M2, history = 16>, rowwise>,
  !te.qtensor<7x11xbf16, #te.current<f8E4M3FN, pow2_scales = true>, rowwise|columnwise>,
  !te.qtensor<300x200xbf16, #te.block<f8E4M3FN, dims = 2>, rowwise|columnwise>,
  !te.qtensor<64x96xf32, #te.mxfp8<f8E4M3FN, block_2d = true>, columnwise>,
  !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>)

// CHECK-LABEL: func.func private @shapes
// CHECK-SAME: !te.qtensor<311xbf16, #te.current<f8E4M3FN>, rowwise>
// CHECK-SAME: !te.qtensor<2x16x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK-SAME: !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
// CHECK-SAME: !te.qtensor<?x?x?xbf16, #te.nvfp4<f4E2M1FN>, columnwise>
// CHECK-SAME: !te.qtensor<0x16xbf16, #te.current<f8E4M3FN>, rowwise>
func.func private @shapes(
  !te.qtensor<311xbf16, #te.current<f8E4M3FN>, rowwise>,
  !te.qtensor<2x16x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>,
  !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>,
  !te.qtensor<?x?x?xbf16, #te.nvfp4<f4E2M1FN>, columnwise>,
  !te.qtensor<0x16xbf16, #te.current<f8E4M3FN>, rowwise>)

// A 0-d tensor, one element: per-tensor scaling (current, delayed) only.
// CHECK-LABEL: func.func private @scalars
// CHECK-SAME: !te.qtensor<bf16, #te.current<f8E4M3FN>, rowwise|columnwise>
// CHECK-SAME: !te.qtensor<f32, #te.delayed<f8E5M2>, rowwise>
func.func private @scalars(
  !te.qtensor<bf16, #te.current<f8E4M3FN>, rowwise|columnwise>,
  !te.qtensor<f32, #te.delayed<f8E5M2>, rowwise>)
