//===- TEInterfaces.h - te attribute and op interfaces ----------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// QuantizerAttrInterface and the enums it speaks in (Usage, Target, ...),
// with the bridges to the Format library's C++ types; the op interface
// ShapeInferenceOpInterface (the shape rules te-infer-shapes runs).
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_TEINTERFACES_H
#define TE_DIALECT_TE_IR_TEINTERFACES_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Support/LLVM.h"
#include "te/Format/Gemm.h"
#include "te/Format/Layout.h"
#include "te/Format/Quantizer.h"

#include <string>

#include "te/Dialect/TE/IR/TEEnums.h.inc"

namespace mlir::te {

/// One buffer of a quantized tensor, as the Format library describes it, with
/// its MLIR tensor type.
struct QTensorBuffer {
  std::string name; ///< TE attribute name, e.g. "_rowwise_scale_inv"
  ::te::format::BufferRole role;
  bool columnwise; ///< belongs to the columnwise representation
  RankedTensorType type;
};

/// Enum bridges between the dialect and the Format library (the same
/// values, tied by static_asserts).
::te::format::Usage toFormat(Usage usage);
::te::format::Target toFormat(Target target);
::te::format::AmaxAlgo toFormat(AmaxAlgo algo);
::te::format::E8M0Rounding toFormat(E8M0Rounding rounding);
::te::format::ErrMode toFormat(ErrMode mode);
::te::format::GemmLayout toFormat(GemmLayout layout);
Usage fromFormat(::te::format::Usage usage);
GemmLayout fromFormat(::te::format::GemmLayout layout);
AmaxAlgo fromFormat(::te::format::AmaxAlgo algo);
E8M0Rounding fromFormat(::te::format::E8M0Rounding rounding);
ErrMode fromFormat(::te::format::ErrMode mode);

/// The MLIR type of a quantized-data element type (E4M3 -> f8E4M3FN, E5M2 ->
/// f8E5M2, E2M1x2 -> f4E2M1FN); null for other types.
Type getQuantizedElementType(MLIRContext *ctx, ::te::format::DType dtype);
/// The inverse of getQuantizedElementType.
std::optional<::te::format::DType> getQuantizedFormatType(Type type);
/// The Format type of a high-precision element type (f32 -> F32, f16 -> F16,
/// bf16 -> BF16); nullopt for other types.
std::optional<::te::format::DType> getHighPrecisionFormatType(Type type);
/// The MLIR element type of a buffer (E4M3 -> f8E4M3FN, E5M2 -> f8E5M2,
/// E8M0 -> f8E8M0FNU, F32 -> f32, packed E2M1x2 -> i8, U8 -> i8, ...).
Type getBufferElementType(MLIRContext *ctx, ::te::format::DType dtype);

namespace detail {
Type getQuantizedElementType(MLIRContext *ctx,
                             const ::te::format::QuantizerConfig &config);
FailureOr<SmallVector<QTensorBuffer>>
getBufferLayout(MLIRContext *ctx, const ::te::format::QuantizerConfig &config,
                ArrayRef<int64_t> shape, Usage usage, Target target,
                function_ref<InFlightDiagnostic()> emitError);
LogicalResult verifyShape(const ::te::format::QuantizerConfig &config,
                          ArrayRef<int64_t> shape,
                          function_ref<InFlightDiagnostic()> emitError);
/// ShapeInferenceOpInterface's default rule: the shapes of the result types
/// `op`'s InferTypeOpInterface infers from its current operands.
LogicalResult
inferResultShapesFromReturnTypes(Operation *op,
                                 std::optional<Location> location,
                                 SmallVectorImpl<ShapedTypeComponents> &shapes);
} // namespace detail

} // namespace mlir::te

#include "te/Dialect/TE/IR/TEAttrInterfaces.h.inc"
#include "te/Dialect/TE/IR/TEOpInterfaces.h.inc"

#endif // TE_DIALECT_TE_IR_TEINTERFACES_H
