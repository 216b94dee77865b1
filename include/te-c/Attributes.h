/*===- Attributes.h - C API of the te quantizer attributes --------*- C -*-===*\
|*                                                                            *|
|* Part of te.                                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * Constructors and queries of the quantizer attributes (`#te.delayed`,
 * `#te.current`, `#te.block`, `#te.mxfp8`, `#te.nvfp4`) and of `#te.target`.
 * The fields and their meaning are those of the dialect reference
 * (docs/dialect/TEAttrs.md). A constructor given a configuration the Format
 * library rejects emits its message as an error diagnostic on the context
 * (see mlirContextAttachDiagnosticHandler) and returns a null attribute.
 * Quantized element types are MLIR builtin types: build them with
 * mlirFloat8E4M3FNTypeGet, mlirFloat8E5M2TypeGet, mlirFloat4E2M1FNTypeGet.
 */

#ifndef TE_C_ATTRIBUTES_H
#define TE_C_ATTRIBUTES_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The GPU generation buffers are laid out for (`#te.target<...>`). */
typedef enum MlirTETarget {
  MlirTETargetSM90 = 0,  /**< sm_90 (Hopper): TN-only FP8 GEMMs */
  MlirTETargetSM100 = 1, /**< sm_100 (Blackwell) */
} MlirTETarget;

/** How delayed scaling reduces its amax history. */
typedef enum MlirTEAmaxAlgo {
  MlirTEAmaxAlgoMax = 0,
  MlirTEAmaxAlgoMostRecent = 1,
} MlirTEAmaxAlgo;

/** How an MXFP8 E8M0 scale is rounded. */
typedef enum MlirTEE8M0Rounding {
  MlirTEE8M0RoundingUp = 0,
  MlirTEE8M0RoundingFloor = 1,
} MlirTEE8M0Rounding;

/** The error NVFP4 4over6 minimizes. */
typedef enum MlirTEErrMode {
  MlirTEErrModeMAE = 0,
  MlirTEErrModeMSE = 1,
} MlirTEErrMode;

/*===----------------------------------------------------------------------===*
 * Any quantizer
 *===----------------------------------------------------------------------===*/

/** True if `attr` is a te quantizer (implements QuantizerAttrInterface). */
MLIR_CAPI_EXPORTED bool mlirAttributeIsATEQuantizer(MlirAttribute attr);

/** The recipe of a quantizer: "delayed", "current", "block", "mxfp8" or
 * "nvfp4"; an empty string if `attr` is not a quantizer. */
MLIR_CAPI_EXPORTED MlirStringRef
mlirTEQuantizerAttrGetRecipe(MlirAttribute attr);

/** The builtin element type of the quantized data (f8E4M3FN, f8E5M2,
 * f4E2M1FN); null if `attr` is not a quantizer. */
MLIR_CAPI_EXPORTED MlirType
mlirTEQuantizerAttrGetElementType(MlirAttribute attr);

/*===----------------------------------------------------------------------===*
 * #te.delayed<dtype, margin, history, algo>
 *===----------------------------------------------------------------------===*/

MLIR_CAPI_EXPORTED bool mlirAttributeIsATEDelayed(MlirAttribute attr);
/** Defaults: margin 0, history 1024, MlirTEAmaxAlgoMax. */
MLIR_CAPI_EXPORTED MlirAttribute mlirTEDelayedAttrGet(MlirContext ctx,
                                                      MlirType dtype,
                                                      int margin, int history,
                                                      MlirTEAmaxAlgo algo);
MLIR_CAPI_EXPORTED int mlirTEDelayedAttrGetMargin(MlirAttribute attr);
MLIR_CAPI_EXPORTED int mlirTEDelayedAttrGetHistory(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirTEAmaxAlgo mlirTEDelayedAttrGetAlgo(MlirAttribute attr);

/*===----------------------------------------------------------------------===*
 * #te.current<dtype, pow2_scales, amax_epsilon>
 *===----------------------------------------------------------------------===*/

MLIR_CAPI_EXPORTED bool mlirAttributeIsATECurrent(MlirAttribute attr);
/** Defaults: pow2Scales false, amaxEpsilon 0. */
MLIR_CAPI_EXPORTED MlirAttribute mlirTECurrentAttrGet(MlirContext ctx,
                                                      MlirType dtype,
                                                      bool pow2Scales,
                                                      float amaxEpsilon);
MLIR_CAPI_EXPORTED bool mlirTECurrentAttrGetPow2Scales(MlirAttribute attr);
MLIR_CAPI_EXPORTED float mlirTECurrentAttrGetAmaxEpsilon(MlirAttribute attr);

/*===----------------------------------------------------------------------===*
 * #te.block<dtype, dims, pow2_scales, amax_epsilon>
 *===----------------------------------------------------------------------===*/

MLIR_CAPI_EXPORTED bool mlirAttributeIsATEBlock(MlirAttribute attr);
/** `dims`: 1 = 1x128 tiles, 2 = 128x128 tiles. TE's defaults: dims 1,
 * pow2Scales true, amaxEpsilon 0. */
MLIR_CAPI_EXPORTED MlirAttribute mlirTEBlockAttrGet(MlirContext ctx,
                                                    MlirType dtype, int dims,
                                                    bool pow2Scales,
                                                    float amaxEpsilon);
MLIR_CAPI_EXPORTED int mlirTEBlockAttrGetDims(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool mlirTEBlockAttrGetPow2Scales(MlirAttribute attr);
MLIR_CAPI_EXPORTED float mlirTEBlockAttrGetAmaxEpsilon(MlirAttribute attr);

/*===----------------------------------------------------------------------===*
 * #te.mxfp8<dtype, block_2d, e8m0_rounding>
 *===----------------------------------------------------------------------===*/

MLIR_CAPI_EXPORTED bool mlirAttributeIsATEMXFP8(MlirAttribute attr);
/** Defaults: block2D false, MlirTEE8M0RoundingUp. */
MLIR_CAPI_EXPORTED MlirAttribute mlirTEMXFP8AttrGet(
    MlirContext ctx, MlirType dtype, bool block2D, MlirTEE8M0Rounding rounding);
MLIR_CAPI_EXPORTED bool mlirTEMXFP8AttrGetBlock2D(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirTEE8M0Rounding
mlirTEMXFP8AttrGetE8M0Rounding(MlirAttribute attr);

/*===----------------------------------------------------------------------===*
 * #te.nvfp4<dtype, rht, rht_sign_mask, block_2d, stochastic_rounding,
 *           row_scaled, four_over_six, e4m3_max, err_mode>
 *===----------------------------------------------------------------------===*/

/** The configuration of an NVFP4 quantizer. Initialise it with
 * mlirTENVFP4OptionsGetDefault() so that fields added later get defaults. */
typedef struct MlirTENVFP4Options {
  bool rht;             /**< random Hadamard transform of the columnwise copy */
  uint32_t rhtSignMask; /**< RHT signs (only with rht; TE's 0xD7E8) */
  bool block2D;         /**< 16x16 blocks (weights) */
  bool stochasticRounding;
  bool rowScaled;        /**< one global amax per row */
  bool fourOverSix;      /**< 4over6 block-scale selection */
  float e4m3Max;         /**< 448, or 256 with 4over6 */
  MlirTEErrMode errMode; /**< MSE only with 4over6 */
} MlirTENVFP4Options;

/** TE's defaults: everything off, rhtSignMask 0, e4m3Max 448, MAE. */
MLIR_CAPI_EXPORTED MlirTENVFP4Options mlirTENVFP4OptionsGetDefault(void);

MLIR_CAPI_EXPORTED bool mlirAttributeIsATENVFP4(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirAttribute mlirTENVFP4AttrGet(
    MlirContext ctx, MlirType dtype, const MlirTENVFP4Options *options);
/** The fields of an NVFP4 quantizer (all defaults if `attr` is not one). */
MLIR_CAPI_EXPORTED MlirTENVFP4Options
mlirTENVFP4AttrGetOptions(MlirAttribute attr);

/*===----------------------------------------------------------------------===*
 * #te.target<sm_90 | sm_100>
 *===----------------------------------------------------------------------===*/

MLIR_CAPI_EXPORTED bool mlirAttributeIsATETarget(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirAttribute mlirTETargetAttrGet(MlirContext ctx,
                                                     MlirTETarget target);
MLIR_CAPI_EXPORTED MlirTETarget mlirTETargetAttrGetValue(MlirAttribute attr);

/** The target of a module: its `te.target` attribute, sm_90 when unset. */
MLIR_CAPI_EXPORTED MlirTETarget mlirTEModuleGetTarget(MlirModule module);

#ifdef __cplusplus
}
#endif

#endif /* TE_C_ATTRIBUTES_H */
