// RUN: te-opt %s | te-opt | FileCheck %s
// RUN: te-opt %s --mlir-print-op-generic | te-opt | FileCheck %s
// RUN: te-opt %s --emit-bytecode | te-opt | FileCheck %s

// Round trip of every quantizer attribute with every field set to a
// non-default value, fields given in any order, and of the target attribute.

// Fields equal to their default are omitted when printing.
// CHECK-LABEL: func.func private @defaults()
// CHECK-SAME: a = #te.delayed<f8E4M3FN>
// CHECK-SAME: b = #te.current<f8E4M3FN>
// CHECK-SAME: c = #te.block<f8E4M3FN>
// CHECK-SAME: d = #te.mxfp8<f8E4M3FN>
// CHECK-SAME: e = #te.nvfp4<f4E2M1FN>
// CHECK-SAME: f = #te.nvfp4<f4E2M1FN, rht = true>
func.func private @defaults() attributes {
  a = #te.delayed<f8E4M3FN, margin = 0, history = 1024, algo = max>,
  b = #te.current<f8E4M3FN, pow2_scales = false, amax_epsilon = 0.0>,
  c = #te.block<f8E4M3FN, dims = 1, pow2_scales = true, amax_epsilon = 0.0>,
  d = #te.mxfp8<f8E4M3FN, block_2d = false, e8m0_rounding = up>,
  e = #te.nvfp4<f4E2M1FN, rht = false, rht_sign_mask = 0, block_2d = false,
                stochastic_rounding = false, row_scaled = false,
                four_over_six = false, e4m3_max = 448.0, err_mode = mae>,
  f = #te.nvfp4<f4E2M1FN, rht_sign_mask = 0xD7E8, rht = true>
}

// CHECK-LABEL: func.func private @delayed()
// CHECK-SAME: a = #te.delayed<f8E5M2, margin = 2, history = 16, algo = most_recent>
// CHECK-SAME: b = #te.delayed<f8E4M3FN, history = 1>
func.func private @delayed() attributes {
  a = #te.delayed<f8E5M2, algo = most_recent, history = 16, margin = 2>,
  b = #te.delayed<f8E4M3FN, history = 1>
}

// CHECK-LABEL: func.func private @current()
// CHECK-SAME: a = #te.current<f8E5M2, pow2_scales = true, amax_epsilon = 1.0e-06>
// CHECK-SAME: b = #te.current<f8E4M3FN, amax_epsilon = 0.5>
// CHECK-SAME: c = #te.current<f8E4M3FN, amax_epsilon = 3.0>
func.func private @current() attributes {
  a = #te.current<f8E5M2, amax_epsilon = 1.0e-6, pow2_scales = true>,
  b = #te.current<f8E4M3FN, amax_epsilon = 5.0e-1>,
  c = #te.current<f8E4M3FN, amax_epsilon = 3.0>
}

// CHECK-LABEL: func.func private @block()
// CHECK-SAME: a = #te.block<f8E5M2, dims = 2, pow2_scales = false, amax_epsilon = 1.0e-12>
// CHECK-SAME: b = #te.block<f8E4M3FN, dims = 2>
func.func private @block() attributes {
  a = #te.block<f8E5M2, pow2_scales = false, amax_epsilon = 1.0e-12, dims = 2>,
  b = #te.block<f8E4M3FN, dims = 2>
}

// CHECK-LABEL: func.func private @mxfp8()
// CHECK-SAME: a = #te.mxfp8<f8E5M2, block_2d = true, e8m0_rounding = floor>
// CHECK-SAME: b = #te.mxfp8<f8E4M3FN, block_2d = true>
func.func private @mxfp8() attributes {
  a = #te.mxfp8<f8E5M2, e8m0_rounding = floor, block_2d = true>,
  b = #te.mxfp8<f8E4M3FN, block_2d = true>
}

// NVFP4: every field non-default somewhere (TE's legal combinations only).
// CHECK-LABEL: func.func private @nvfp4()
// CHECK-SAME: a = #te.nvfp4<f4E2M1FN, rht = true, rht_sign_mask = 0x1234, stochastic_rounding = true>
// CHECK-SAME: b = #te.nvfp4<f4E2M1FN, rht = true, rht_sign_mask = 0x0000>
// CHECK-SAME: c = #te.nvfp4<f4E2M1FN, block_2d = true>
// CHECK-SAME: d = #te.nvfp4<f4E2M1FN, row_scaled = true>
// CHECK-SAME: e = #te.nvfp4<f4E2M1FN, block_2d = true, four_over_six = true, e4m3_max = 256.0, err_mode = mse>
// CHECK-SAME: f = #te.nvfp4<f4E2M1FN, block_2d = true, stochastic_rounding = true>
func.func private @nvfp4() attributes {
  a = #te.nvfp4<f4E2M1FN, stochastic_rounding = true, rht_sign_mask = 4660, rht = true>,
  b = #te.nvfp4<f4E2M1FN, rht = true, rht_sign_mask = 0>,
  c = #te.nvfp4<f4E2M1FN, block_2d = true>,
  d = #te.nvfp4<f4E2M1FN, row_scaled = true>,
  e = #te.nvfp4<f4E2M1FN, err_mode = mse, e4m3_max = 256.0, four_over_six = true, block_2d = true>,
  f = #te.nvfp4<f4E2M1FN, block_2d = true, stochastic_rounding = true>
}

// The target attribute and the GEMM layout attribute.
// CHECK-LABEL: func.func private @enums()
// CHECK-SAME: a = #te.target<sm_90>
// CHECK-SAME: b = #te.target<sm_100>
// CHECK-SAME: c = #te<layout NT>
func.func private @enums() attributes {
  a = #te.target<sm_90>, b = #te.target<sm_100>, c = #te<layout NT>
}

// The module attribute that selects the target.
// CHECK: module attributes {te.target = #te.target<sm_100>}
module attributes {te.target = #te.target<sm_100>} {
}
