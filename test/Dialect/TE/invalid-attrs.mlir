// RUN: te-opt %s -split-input-file -verify-diagnostics

// Every diagnostic of the quantizer attributes, the target attribute and
// !te.qtensor. Quantizer legality messages come from the Format library
// (te::format::verifyConfig / verifyShape) and are pinned here as emitted.

// expected-error @+1 {{quantized element type must be f8E4M3FN, f8E5M2 or f4E2M1FN, got 'bf16'}}
func.func private @f() attributes {a = #te.delayed<bf16>}

// -----

// expected-error @+1 {{unknown field 'pow2' of #te.current, expected one of: pow2_scales, amax_epsilon}}
func.func private @f() attributes {a = #te.current<f8E4M3FN, pow2 = true>}

// -----

// expected-error @+1 {{field 'block_2d' of #te.mxfp8 is given twice}}
func.func private @f() attributes {a = #te.mxfp8<f8E4M3FN, block_2d = true, block_2d = false>}

// -----

// expected-error @+1 {{expected 'true' or 'false' for 'rht' of #te.nvfp4, got '1'}}
func.func private @f() attributes {a = #te.nvfp4<f4E2M1FN, rht = 1>}

// -----

// expected-error @+1 {{expected 'max' or 'most_recent' for 'algo' of #te.delayed, got 'mean'}}
func.func private @f() attributes {a = #te.delayed<f8E4M3FN, algo = mean>}

// -----

// expected-error @+1 {{expected 'up' or 'floor' for 'e8m0_rounding' of #te.mxfp8, got 'nearest'}}
func.func private @f() attributes {a = #te.mxfp8<f8E4M3FN, e8m0_rounding = nearest>}

// -----

// expected-error @+1 {{expected 'mae' or 'mse' for 'err_mode' of #te.nvfp4, got 'rmse'}}
func.func private @f() attributes {a = #te.nvfp4<f4E2M1FN, four_over_six = true, err_mode = rmse>}

// -----

// A field of the wrong kind names the field, what it takes and what was
// written. (MLIR's integer parser would read `true` as the i1 value -1.)
// expected-error @+1 {{expected an integer for 'history' of #te.delayed, got 'true'}}
func.func private @f() attributes {a = #te.delayed<f8E4M3FN, history = true>}

// -----

// expected-error @+1 {{expected an integer for 'margin' of #te.delayed, got 'true'}}
func.func private @f() attributes {a = #te.delayed<f8E4M3FN, margin = true>}

// -----

// expected-error @+1 {{expected an integer for 'dims' of #te.block, got 'true'}}
func.func private @f() attributes {a = #te.block<f8E4M3FN, dims = true>}

// -----

// expected-error @+1 {{expected an integer for 'history' of #te.delayed, got '16.0'}}
func.func private @f() attributes {a = #te.delayed<f8E4M3FN, history = 16.0>}

// -----

// expected-error @+1 {{expected a 32-bit integer for 'dims' of #te.block, got '99999999999999'}}
func.func private @f() attributes {a = #te.block<f8E4M3FN, dims = 99999999999999>}

// -----

// expected-error @+1 {{expected an integer for 'rht_sign_mask' of #te.nvfp4, got '"0xD7E8"'}}
func.func private @f() attributes {a = #te.nvfp4<f4E2M1FN, rht = true, rht_sign_mask = "0xD7E8">}

// -----

// expected-error @+1 {{expected 'true' or 'false' for 'pow2_scales' of #te.current, got 'yes'}}
func.func private @f() attributes {a = #te.current<f8E4M3FN, pow2_scales = yes>}

// -----

// expected-error @+1 {{expected a number for 'amax_epsilon' of #te.current, got 'true'}}
func.func private @f() attributes {a = #te.current<f8E4M3FN, amax_epsilon = true>}

// -----

// expected-error @+1 {{expected 'max' or 'most_recent' for 'algo' of #te.delayed, got '"max"'}}
func.func private @f() attributes {a = #te.delayed<f8E4M3FN, algo = "max">}

// -----

// expected-note @+2 {{add a trailing dot to make the literal a float}}
// expected-error @+1 {{unexpected decimal integer literal for a floating point value}}
func.func private @f() attributes {a = #te.current<f8E4M3FN, amax_epsilon = 1>}

// -----

// expected-error @+1 {{delayed scaling needs element type f8E4M3FN or f8E5M2, got f4E2M1FN}}
func.func private @f() attributes {a = #te.delayed<f4E2M1FN>}

// -----

// expected-error @+1 {{current scaling needs element type f8E4M3FN or f8E5M2, got f4E2M1FN}}
func.func private @f() attributes {a = #te.current<f4E2M1FN>}

// -----

// expected-error @+1 {{block scaling needs element type f8E4M3FN or f8E5M2, got f4E2M1FN}}
func.func private @f() attributes {a = #te.block<f4E2M1FN>}

// -----

// expected-error @+1 {{MXFP8 needs element type f8E4M3FN or f8E5M2, got f4E2M1FN}}
func.func private @f() attributes {a = #te.mxfp8<f4E2M1FN>}

// -----

// expected-error @+1 {{NVFP4 needs element type f4E2M1FN, got f8E4M3FN}}
func.func private @f() attributes {a = #te.nvfp4<f8E4M3FN>}

// -----

// expected-error @+1 {{'amax_epsilon' of #te.current must be finite and >= 0, got -1}}
func.func private @f() attributes {a = #te.current<f8E4M3FN, amax_epsilon = -1.0>}

// -----

// expected-error @+1 {{'amax_epsilon' of #te.block must be finite and >= 0, got inf}}
func.func private @f() attributes {a = #te.block<f8E4M3FN, amax_epsilon = 0x7F800000>}

// -----

// expected-error @+1 {{'dims' of #te.block must be 1 (1x128 blocks) or 2 (128x128 blocks), got 3}}
func.func private @f() attributes {a = #te.block<f8E4M3FN, dims = 3>}

// -----

// expected-error @+1 {{'history' of #te.delayed (the amax history length) must be >= 1, got 0}}
func.func private @f() attributes {a = #te.delayed<f8E4M3FN, history = 0>}

// -----

// expected-error @+1 {{'margin' of #te.delayed must be >= 0, got -1}}
func.func private @f() attributes {a = #te.delayed<f8E4M3FN, margin = -1>}

// -----

// expected-error @+1 {{NVFP4 row-scaled is incompatible with RHT}}
func.func private @f() attributes {a = #te.nvfp4<f4E2M1FN, rht = true, row_scaled = true>}

// -----

// expected-error @+1 {{NVFP4 row-scaled is incompatible with 2D quantization}}
func.func private @f() attributes {a = #te.nvfp4<f4E2M1FN, block_2d = true, row_scaled = true>}

// -----

// expected-error @+1 {{NVFP4 row-scaled is incompatible with stochastic rounding}}
func.func private @f() attributes {a = #te.nvfp4<f4E2M1FN, stochastic_rounding = true, row_scaled = true>}

// -----

// expected-error @+1 {{NVFP4 4over6 is incompatible with RHT}}
func.func private @f() attributes {a = #te.nvfp4<f4E2M1FN, rht = true, four_over_six = true>}

// -----

// expected-error @+1 {{NVFP4 4over6 is incompatible with stochastic rounding}}
func.func private @f() attributes {a = #te.nvfp4<f4E2M1FN, stochastic_rounding = true, four_over_six = true>}

// -----

// expected-error @+1 {{'e4m3_max' of #te.nvfp4 must be 448.0 or 256.0, got 300}}
func.func private @f() attributes {a = #te.nvfp4<f4E2M1FN, four_over_six = true, e4m3_max = 300.0>}

// -----

// expected-error @+1 {{'e4m3_max' = 256.0 of #te.nvfp4 needs four_over_six = true}}
func.func private @f() attributes {a = #te.nvfp4<f4E2M1FN, e4m3_max = 256.0>}

// -----

// expected-error @+1 {{'err_mode' = mse of #te.nvfp4 needs four_over_six = true}}
func.func private @f() attributes {a = #te.nvfp4<f4E2M1FN, err_mode = mse>}

// -----

// expected-error @+1 {{'rht_sign_mask' of #te.nvfp4 needs rht = true}}
func.func private @f() attributes {a = #te.nvfp4<f4E2M1FN, rht_sign_mask = 0xD7E8>}

// -----

// expected-error @+1 {{'rht_sign_mask' of #te.nvfp4 must be below 0x10000 (one sign bit per row of the 16x16 Hadamard matrix), got 0x10000}}
func.func private @f() attributes {a = #te.nvfp4<f4E2M1FN, rht = true, rht_sign_mask = 0x10000>}

// -----

// expected-error @+2 {{expected ::mlir::te::Target to be one of: sm_90, sm_100}}
// expected-error @+1 {{failed to parse TE_TargetAttr parameter 'value' which is to be a `::mlir::te::Target`}}
func.func private @f() attributes {a = #te.target<sm_80>}

// -----

// expected-error @+1 {{'te.target' is a module attribute, found on 'func.func'}}
func.func private @f() attributes {te.target = #te.target<sm_90>}

// -----

// expected-error @+1 {{'te.target' must be a #te.target<sm_90 | sm_100> attribute, got 1 : i64}}
module attributes {te.target = 1} {}

// -----

// A 0-d tensor is quantized per tensor only.
// expected-error @+1 {{MXFP8 needs rank >= 1 (a 0-d tensor has no blocks); per-tensor current and delayed scaling quantize 0-d tensors}}
func.func private @f(!te.qtensor<bf16, #te.mxfp8<f8E4M3FN>, rowwise>)

// -----

// expected-error @+1 {{NVFP4 needs rank >= 1 (a 0-d tensor has no blocks)}}
func.func private @f(!te.qtensor<bf16, #te.nvfp4<f4E2M1FN>, rowwise>)

// -----

// expected-error @+1 {{block scaling needs rank >= 1 (a 0-d tensor has no blocks)}}
func.func private @f(!te.qtensor<f32, #te.block<f8E4M3FN>, columnwise>)

// -----

// expected-error @+1 {{!te.qtensor nominal type must be bf16, f16 or f32, got 'i32'}}
func.func private @f(!te.qtensor<16xi32, #te.current<f8E4M3FN>, rowwise>)

// -----

// expected-error @+1 {{expected a quantizer attribute (#te.delayed, #te.current, #te.block, #te.mxfp8, #te.nvfp4), got 42 : i32}}
func.func private @f(!te.qtensor<16xf32, 42 : i32, rowwise>)

// -----

// expected-error @+1 {{expected usage 'rowwise', 'columnwise' or 'rowwise|columnwise', got 'both'}}
func.func private @f(!te.qtensor<16xf32, #te.current<f8E4M3FN>, both>)

// -----

// expected-error @+1 {{!te.qtensor usage must be rowwise, columnwise or rowwise|columnwise}}
func.func private @f(!te.qtensor<16xf32, #te.current<f8E4M3FN>, none>)

// -----

// expected-error @+1 {{NVFP4 with RHT quantizes bf16 tensors only, got 'f32'}}
func.func private @f(!te.qtensor<32x64xf32, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>)

// -----

// expected-error @+1 {{MXFP8 needs the last dimension divisible by 32, got 100}}
func.func private @f(!te.qtensor<64x100xbf16, #te.mxfp8<f8E4M3FN>, rowwise>)

// -----

// expected-error @+1 {{MXFP8 needs the flattened leading dimension divisible by 32, got 16}}
func.func private @f(!te.qtensor<2x8x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>)

// -----

// expected-error @+1 {{NVFP4 needs the last dimension divisible by 16, got 24}}
func.func private @f(!te.qtensor<16x24xbf16, #te.nvfp4<f4E2M1FN>, rowwise>)

// -----

// expected-error @+1 {{NVFP4 needs the flattened leading dimension divisible by 16, got 8}}
func.func private @f(!te.qtensor<8x?xbf16, #te.nvfp4<f4E2M1FN>, columnwise>)
