//===- Types.cpp - C API of !te.qtensor -------------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Buffer queries ask the type (QTensorType::getBuffers), which asks the
// Format library: no layout fact is computed here.
//
//===----------------------------------------------------------------------===//

#include "te-c/Types.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/IR/TETypes.h"

using namespace mlir;
using namespace mlir::te;

// The C API's enums have the dialect's values (and so Format's and te_rt's,
// TEInterfaces.cpp): conversions are casts.
static_assert(MlirTEUsageRowwise == static_cast<int>(Usage::Rowwise) &&
                  MlirTEUsageColumnwise == static_cast<int>(Usage::Columnwise),
              "MlirTEUsage");
static_assert(MlirTETargetSM90 == static_cast<int>(Target::SM90) &&
                  MlirTETargetSM100 == static_cast<int>(Target::SM100),
              "MlirTETarget");

namespace {
QTensorType castQTensor(MlirType type) {
  return cast<QTensorType>(unwrap(type));
}

/// The buffers of `type` on `target`; failure after a diagnostic on the
/// context.
FailureOr<SmallVector<QTensorBuffer>> getBuffers(MlirType type,
                                                 MlirTETarget target) {
  QTensorType qtensor = castQTensor(type);
  MLIRContext *ctx = qtensor.getContext();
  auto emitter = [ctx] { return emitError(UnknownLoc::get(ctx)); };
  if (target != MlirTETargetSM90 && target != MlirTETargetSM100) {
    emitter() << "invalid MlirTETarget " << static_cast<int>(target);
    return failure();
  }
  return qtensor.getBuffers(static_cast<Target>(target), emitter);
}

/// Buffer `pos` of `type` on `target`, or null.
std::optional<QTensorBuffer> getBuffer(MlirType type, MlirTETarget target,
                                       intptr_t pos) {
  FailureOr<SmallVector<QTensorBuffer>> buffers = getBuffers(type, target);
  if (failed(buffers) || pos < 0 ||
      pos >= static_cast<intptr_t>(buffers->size()))
    return std::nullopt;
  return (*buffers)[pos];
}
} // namespace

bool mlirTypeIsATEQTensor(MlirType type) {
  return isa<QTensorType>(unwrap(type));
}

MlirType mlirTEQTensorTypeGet(intptr_t rank, const int64_t *shape,
                              MlirType nominalType, MlirAttribute quantizer,
                              MlirTEUsage usage) {
  Type elementType = unwrap(nominalType);
  MLIRContext *ctx = elementType.getContext();
  ctx->getOrLoadDialect<TEDialect>();
  auto emitter = [ctx] { return emitError(UnknownLoc::get(ctx)); };
  auto q = dyn_cast_or_null<QuantizerAttrInterface>(unwrap(quantizer));
  if (!q) {
    emitter() << "!te.qtensor needs a te quantizer attribute, got "
              << unwrap(quantizer);
    return wrap(Type());
  }
  if (rank < 0 || (rank > 0 && !shape)) {
    emitter() << "!te.qtensor needs a shape, got rank " << rank;
    return wrap(Type());
  }
  if (usage < MlirTEUsageRowwise || usage > MlirTEUsageRowwiseColumnwise) {
    emitter() << "invalid MlirTEUsage " << static_cast<int>(usage);
    return wrap(Type());
  }
  return wrap(
      QTensorType::getChecked(emitter, ctx, ArrayRef<int64_t>(shape, rank),
                              elementType, q, static_cast<Usage>(usage)));
}

intptr_t mlirTEQTensorTypeGetRank(MlirType type) {
  return castQTensor(type).getRank();
}

int64_t mlirTEQTensorTypeGetDimSize(MlirType type, intptr_t dim) {
  return castQTensor(type).getShape()[dim];
}

MlirType mlirTEQTensorTypeGetNominalType(MlirType type) {
  return wrap(castQTensor(type).getElementType());
}

MlirAttribute mlirTEQTensorTypeGetQuantizer(MlirType type) {
  return wrap(castQTensor(type).getQuantizer());
}

MlirTEUsage mlirTEQTensorTypeGetUsage(MlirType type) {
  return static_cast<MlirTEUsage>(castQTensor(type).getUsage());
}

intptr_t mlirTEQTensorTypeGetNumBuffers(MlirType type, MlirTETarget target) {
  FailureOr<SmallVector<QTensorBuffer>> buffers = getBuffers(type, target);
  return failed(buffers) ? -1 : static_cast<intptr_t>(buffers->size());
}

MlirStringRef mlirTEQTensorTypeGetBufferName(MlirType type, MlirTETarget target,
                                             intptr_t pos) {
  std::optional<QTensorBuffer> buffer = getBuffer(type, target, pos);
  if (!buffer)
    return mlirStringRefCreate("", 0);
  // Interned in the context, so the string outlives this call.
  return wrap(
      StringAttr::get(castQTensor(type).getContext(), buffer->name).getValue());
}

MlirType mlirTEQTensorTypeGetBufferType(MlirType type, MlirTETarget target,
                                        intptr_t pos) {
  std::optional<QTensorBuffer> buffer = getBuffer(type, target, pos);
  return wrap(buffer ? Type(buffer->type) : Type());
}

MlirTEBufferRole mlirTEQTensorTypeGetBufferRole(MlirType type,
                                                MlirTETarget target,
                                                intptr_t pos) {
  std::optional<QTensorBuffer> buffer = getBuffer(type, target, pos);
  if (!buffer)
    return MlirTEBufferRoleData;
  switch (buffer->role) {
  case ::te::format::BufferRole::Data:
    return MlirTEBufferRoleData;
  case ::te::format::BufferRole::ScaleInv:
    return MlirTEBufferRoleScaleInv;
  case ::te::format::BufferRole::Amax:
    return MlirTEBufferRoleAmax;
  }
  return MlirTEBufferRoleData;
}

bool mlirTEQTensorTypeIsBufferColumnwise(MlirType type, MlirTETarget target,
                                         intptr_t pos) {
  std::optional<QTensorBuffer> buffer = getBuffer(type, target, pos);
  return buffer && buffer->columnwise;
}
