//===- TEAttrs.td - te quantizer and target attributes -----*- tablegen -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_TEATTRS_TD
#define TE_DIALECT_TE_IR_TEATTRS_TD

include "te/Dialect/TE/IR/TEDialect.td"
include "te/Dialect/TE/IR/TEEnums.td"
include "te/Dialect/TE/IR/TEInterfaces.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enum attributes
//===----------------------------------------------------------------------===//

def TE_TargetAttr : EnumAttr<TE_Dialect, TE_Target, "target"> {
  let assemblyFormat = "`<` $value `>`";
  let description = [{
    The target of a module, set as the module attribute `te.target`:

    ```mlir
    module attributes {te.target = #te.target<sm_100>} { ... }
    ```

    A module without `te.target` is compiled for `sm_90`. The target changes
    the buffers of per-tensor FP8 tensors: on `sm_90` (TN-only GEMMs) the
    columnwise representation is the transposed `_transpose` buffer, on
    `sm_100` it is `_data` itself.
  }];
}

def TE_GemmLayoutAttr : EnumAttr<TE_Dialect, TE_GemmLayout, "layout">;

//===----------------------------------------------------------------------===//
// Quantizer attributes
//===----------------------------------------------------------------------===//

class TE_QuantizerAttr<string name, string attrMnemonic>
    : AttrDef<TE_Dialect, name,
              [DeclareAttrInterfaceMethods<TE_QuantizerAttrInterface>]> {
  let mnemonic = attrMnemonic;
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  code commonSyntax = [{
    All quantizers share one syntax: the quantized element type first, then
    `key = value` fields in any order, separated by commas. A field equal to
    its default may be omitted and is not printed:

    ```
    quantizer ::= `#te.` recipe `<` element-type (`,` field `=` value)* `>`
    value     ::= integer | float | `true` | `false` | keyword
    ```

    The configuration is checked by the Format library
    (`te::format::verifyConfig`); its message is the diagnostic. The fields,
    their spelling and defaults are Format's quantizer syntax
    (`include/te/Format/QuantizerSyntax.h`), which te-quantize and the Python
    package read too.
  }];
}

def TE_DelayedAttr : TE_QuantizerAttr<"Delayed", "delayed"> {
  let summary = "per-tensor FP8 quantizer with delayed scaling";
  let description = commonSyntax # [{
    TransformerEngine's `Float8Quantizer` under the `DelayedScaling` recipe
    (docs/formats.md §3.1). Fields:

    | field | type | default | meaning |
    |---|---|---|---|
    | element type | `f8E4M3FN` or `f8E5M2` | required | fp8 format |
    | `margin` | integer | `0` | `scale = fp8_max · 2^(−margin) / amax` |
    | `history` | integer ≥ 1 | `1024` | length `L` of the amax history |
    | `algo` | `max` or `most_recent` | `max` | how the history is reduced |

    Semantics: `q = fp8_rn_satfinite(x · scale)`, `scale_inv = 1 / scale`,
    where `scale` is **live state**: an SSA `tensor<1xf32>` operand of
    `te.quantize`, which also yields `amax = max|x|`. `te.update_scale`
    rolls the history and computes the next scale.

    Integrity rules:
    * The element type is an fp8 type.
      Incorrect: `#te.delayed<f4E2M1FN>`. Correct: `#te.delayed<f8E5M2>`.
    * The history holds at least one amax.
      Incorrect: `#te.delayed<f8E4M3FN, history = 0>`.
      Correct: `#te.delayed<f8E4M3FN, history = 16, algo = most_recent>`.
  }];
  let parameters = (ins
    "::mlir::Type":$dtype,
    "int":$margin,
    "int":$history,
    "::mlir::te::AmaxAlgo":$algo
  );
}

def TE_CurrentAttr : TE_QuantizerAttr<"Current", "current"> {
  let summary = "per-tensor FP8 quantizer with current scaling";
  let description = commonSyntax # [{
    TransformerEngine's `Float8CurrentScalingQuantizer` (docs/formats.md §3.2).

    | field | type | default | meaning |
    |---|---|---|---|
    | element type | `f8E4M3FN` or `f8E5M2` | required | fp8 format |
    | `pow2_scales` | bool | `false` | round the scale down to a power of two |
    | `amax_epsilon` | float ≥ 0 | `0.0` | lower bound of the amax |

    Semantics: `amax = max(max|x|, amax_epsilon)`;
    `scale = fp8_max / amax` (1 when amax is 0, inf or NaN; FLT_MAX when the
    quotient is inf; truncated to a power of two with `pow2_scales`);
    `q = fp8_rn_satfinite(x · scale)`; one `scale_inv = 1 / scale` per tensor.

    Integrity rules:
    * The element type is an fp8 type.
      Incorrect: `#te.current<bf16>`. Correct: `#te.current<f8E4M3FN>`.
    * The epsilon is not negative.
      Incorrect: `#te.current<f8E4M3FN, amax_epsilon = -1.0>`.
      Correct: `#te.current<f8E4M3FN, pow2_scales = true, amax_epsilon = 1.0e-06>`.
  }];
  let parameters = (ins
    "::mlir::Type":$dtype,
    "bool":$pow2Scales,
    APFloatParameter<"amax lower bound">:$amaxEpsilon
  );
}

def TE_BlockAttr : TE_QuantizerAttr<"Block", "block"> {
  let summary = "FP8 block-scaling quantizer (1x128 or 128x128 tiles)";
  let description = commonSyntax # [{
    TransformerEngine's `Float8BlockQuantizer` (docs/formats.md §3.4).

    | field | type | default | meaning |
    |---|---|---|---|
    | element type | `f8E4M3FN` or `f8E5M2` | required | fp8 format |
    | `dims` | `1` or `2` | `1` | 1 = 1x128 tiles, 2 = 128x128 tiles |
    | `pow2_scales` | bool | `true` | round scales down to a power of two |
    | `amax_epsilon` | float ≥ 0 | `0.0` | lower bound of each tile amax |

    Semantics: per tile, `scale = fp8_max / max(amax_tile, amax_epsilon)`
    (1 for an amax of 0, inf or NaN), `q = fp8_rn_satfinite(x · scale)`, and
    an fp32 `scale_inv = 1 / scale` per tile, stored in cuBLAS's GEMM-ready
    layout. Two 128x128-scaled operands cannot meet in one GEMM.

    Integrity rules:
    * Tiles are one- or two-dimensional.
      Incorrect: `#te.block<f8E4M3FN, dims = 3>`.
      Correct: `#te.block<f8E4M3FN, dims = 2>`.
  }];
  let parameters = (ins
    "::mlir::Type":$dtype,
    "int":$dims,
    "bool":$pow2Scales,
    APFloatParameter<"amax lower bound">:$amaxEpsilon
  );
}

def TE_MXFP8Attr : TE_QuantizerAttr<"MXFP8", "mxfp8"> {
  let summary = "MXFP8 quantizer (32-element blocks, E8M0 scales)";
  let description = commonSyntax # [{
    TransformerEngine's `MXFP8Quantizer` (docs/formats.md §3.3).

    | field | type | default | meaning |
    |---|---|---|---|
    | element type | `f8E4M3FN` or `f8E5M2` | required | fp8 format |
    | `block_2d` | bool | `false` | 32x32 blocks (weights) instead of 1x32 / 32x1 |
    | `e8m0_rounding` | `up` or `floor` | `up` | TE rounds the scale exponent up; the OCP MX spec floors it |

    Semantics: per block `e = float_to_e8m0(amax_b · fl(1/fp8_max))`,
    `q = fp8_rn_satfinite(x · 2^(127−e))`, `x ≈ q · 2^(e−127)`. Rowwise
    blocks run along the last dimension, columnwise blocks along the
    flattened leading dimensions; both are quantized from the input.

    Integrity rules:
    * The element type is an fp8 type.
      Incorrect: `#te.mxfp8<f4E2M1FN>`.
      Correct: `#te.mxfp8<f8E4M3FN, block_2d = true>`.
    * Quantized shapes have both flattened dimensions divisible by 32
      (checked where a `!te.qtensor` names the shape).
      Incorrect: `!te.qtensor<64x100xbf16, #te.mxfp8<f8E4M3FN>, rowwise>`.
      Correct: `!te.qtensor<64x96xbf16, #te.mxfp8<f8E4M3FN>, rowwise>`.
  }];
  let parameters = (ins
    "::mlir::Type":$dtype,
    "bool":$block2D,
    "::mlir::te::E8M0Rounding":$e8m0Rounding
  );
}

def TE_NVFP4Attr : TE_QuantizerAttr<"NVFP4", "nvfp4"> {
  let summary = "NVFP4 quantizer (16-element blocks, E4M3 block scales, fp32 global amax)";
  let description = commonSyntax # [{
    TransformerEngine's `NVFP4Quantizer` (docs/formats.md §3.5).

    | field | type | default | meaning |
    |---|---|---|---|
    | element type | `f4E2M1FN` | required | fp4 format |
    | `rht` | bool | `false` | random Hadamard transform of the columnwise copy |
    | `rht_sign_mask` | integer < 2^16 | `0xD7E8` with `rht`, else `0` | bit i set: sign s_i = −1 of the RHT (only with `rht`) |
    | `block_2d` | bool | `false` | 16x16 blocks (weights) instead of 1x16 |
    | `stochastic_rounding` | bool | `false` | stochastic rounding (gradients) |
    | `row_scaled` | bool | `false` | one global amax per row |
    | `four_over_six` | bool | `false` | 4over6 block-scale selection |
    | `e4m3_max` | float | `448.0` | 448, or 256 with 4over6 |
    | `err_mode` | `mae` or `mse` | `mae` | error 4over6 minimizes |

    Semantics: `S_enc = e4m3_max · 6 / amax` (1 when amax is 0 or inf);
    per 16-element block `S_dec_b = e4m3_rn_satfinite(amax_b · S_enc / 6)`;
    `q = e2m1_rn_satfinite(x / (S_dec_b / S_enc))`;
    `x ≈ q · S_dec_b · amax / (6 · e4m3_max)`.
    Stochastic rounding consumes the `seed` / `offset` operands of the op
    that quantizes.

    Integrity rules (from the Format library):
    * The element type is `f4E2M1FN`.
      Incorrect: `#te.nvfp4<f8E4M3FN>`. Correct: `#te.nvfp4<f4E2M1FN>`.
    * Row scaling excludes RHT, 2D blocks and stochastic rounding; 4over6
      excludes RHT and stochastic rounding; `e4m3_max = 256.0` needs 4over6.
      Incorrect: `#te.nvfp4<f4E2M1FN, rht = true, row_scaled = true>`.
      Correct: `#te.nvfp4<f4E2M1FN, four_over_six = true, e4m3_max = 256.0, err_mode = mse>`.
  }];
  let parameters = (ins
    "::mlir::Type":$dtype,
    "bool":$rht,
    "uint32_t":$rhtSignMask,
    "bool":$block2D,
    "bool":$stochasticRounding,
    "bool":$rowScaled,
    "bool":$fourOverSix,
    APFloatParameter<"largest E4M3 block scale">:$e4m3Max,
    "::mlir::te::ErrMode":$errMode
  );
}

#endif // TE_DIALECT_TE_IR_TEATTRS_TD
