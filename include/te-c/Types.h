/*===- Types.h - C API of !te.qtensor -----------------------------*- C -*-===*\
|*                                                                            *|
|* Part of te.                                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * `!te.qtensor<shape x nominal-type, quantizer, usage>` and its buffers.
 * The buffers of a quantized tensor -- names, order, shapes with padding,
 * element types -- depend on the quantizer, the shape, the usage and the
 * target; they come from the Format library, in TransformerEngine's flatten
 * order and names ("_rowwise_data", "_rowwise_scale_inv", ...). Each buffer is
 * reported as a ranked tensor type: query its shape and element type with
 * mlirShapedTypeGetRank / mlirShapedTypeGetDimSize /
 * mlirShapedTypeGetElementType (mlir-c/BuiltinTypes.h).
 */

#ifndef TE_C_TYPES_H
#define TE_C_TYPES_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"
#include "te-c/Attributes.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Which representations a quantized tensor holds (a bit set). */
typedef enum MlirTEUsage {
  MlirTEUsageRowwise = 1,
  MlirTEUsageColumnwise = 2,
  MlirTEUsageRowwiseColumnwise = 3,
} MlirTEUsage;

/** What a buffer holds. */
typedef enum MlirTEBufferRole {
  MlirTEBufferRoleData = 0,
  MlirTEBufferRoleScaleInv = 1,
  MlirTEBufferRoleAmax = 2,
} MlirTEBufferRole;

MLIR_CAPI_EXPORTED bool mlirTypeIsATEQTensor(MlirType type);

/** `!te.qtensor` of `shape` (rank >= 1; mlirShapedTypeGetDynamicSize() for a
 * dynamic dimension), nominal type bf16/f16/f32, a quantizer attribute and a
 * non-empty usage. Returns a null type after emitting an error diagnostic on
 * the context if the type is invalid (e.g. a shape the recipe forbids). */
MLIR_CAPI_EXPORTED MlirType mlirTEQTensorTypeGet(intptr_t rank,
                                                 const int64_t *shape,
                                                 MlirType nominalType,
                                                 MlirAttribute quantizer,
                                                 MlirTEUsage usage);

MLIR_CAPI_EXPORTED intptr_t mlirTEQTensorTypeGetRank(MlirType type);
MLIR_CAPI_EXPORTED int64_t mlirTEQTensorTypeGetDimSize(MlirType type,
                                                       intptr_t dim);
/** The nominal (high-precision) element type: bf16, f16 or f32. */
MLIR_CAPI_EXPORTED MlirType mlirTEQTensorTypeGetNominalType(MlirType type);
MLIR_CAPI_EXPORTED MlirAttribute mlirTEQTensorTypeGetQuantizer(MlirType type);
MLIR_CAPI_EXPORTED MlirTEUsage mlirTEQTensorTypeGetUsage(MlirType type);

/** The number of buffers on `target`; -1 if the layout cannot be computed
 * (the Format library's message is emitted as a diagnostic on the
 * context). */
MLIR_CAPI_EXPORTED intptr_t mlirTEQTensorTypeGetNumBuffers(MlirType type,
                                                           MlirTETarget target);
/** The TransformerEngine name of buffer `pos` ("_rowwise_scale_inv"); an
 * empty string when `pos` is out of range. The string lives as long as the
 * context. */
MLIR_CAPI_EXPORTED MlirStringRef mlirTEQTensorTypeGetBufferName(
    MlirType type, MlirTETarget target, intptr_t pos);
/** The ranked tensor type of buffer `pos` (padded shape, element type
 * f8E4M3FN / f8E5M2 / f8E8M0FNU / f32 / i8 for packed FP4); null when `pos`
 * is out of range. */
MLIR_CAPI_EXPORTED MlirType mlirTEQTensorTypeGetBufferType(MlirType type,
                                                           MlirTETarget target,
                                                           intptr_t pos);
MLIR_CAPI_EXPORTED MlirTEBufferRole mlirTEQTensorTypeGetBufferRole(
    MlirType type, MlirTETarget target, intptr_t pos);
/** True if buffer `pos` belongs to the columnwise representation. */
MLIR_CAPI_EXPORTED bool mlirTEQTensorTypeIsBufferColumnwise(MlirType type,
                                                            MlirTETarget target,
                                                            intptr_t pos);

#ifdef __cplusplus
}
#endif

#endif /* TE_C_TYPES_H */
