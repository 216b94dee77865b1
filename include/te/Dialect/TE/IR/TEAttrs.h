//===- TEAttrs.h - te quantizer and target attributes ------------*- C++
//-*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_TEATTRS_H
#define TE_DIALECT_TE_IR_TEATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "te/Dialect/TE/IR/TEInterfaces.h"

#define GET_ATTRDEF_CLASSES
#include "te/Dialect/TE/IR/TEAttrs.h.inc"

namespace mlir::te {

/// The target of the module enclosing `op` (or of `op` itself if it is a
/// module): the first `te.target` attribute found walking up from `op`,
/// `sm_90` when none is set.
Target getTarget(Operation *op);

/// Builds the quantizer attribute that describes `config`; null (after
/// emitting through `emitError`, when given) if `config` is not valid.
QuantizerAttrInterface
getQuantizerAttr(MLIRContext *ctx, const ::te::format::QuantizerConfig &config,
                 function_ref<InFlightDiagnostic()> emitError = {});

} // namespace mlir::te

#endif // TE_DIALECT_TE_IR_TEATTRS_H
