//===- TEOps.h - te dialect operations --------------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_TEOPS_H
#define TE_DIALECT_TE_IR_TEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "te/Dialect/TE/IR/TEAttrs.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/IR/TETraits.h"
#include "te/Dialect/TE/IR/TETypes.h"

#include <optional>

#define GET_OP_CLASSES
#include "te/Dialect/TE/IR/TEOps.h.inc"

namespace mlir::te {
/// The amax reduction group of te.quantize / te.quantize_buffers: absent, or
/// a non-empty name on a current-scaling or NVFP4 (not row-scaled)
/// quantizer; emits the op's error otherwise.
LogicalResult verifyAmaxGroup(Operation *op, std::optional<StringRef> group,
                              QuantizerAttrInterface quantizer);
} // namespace mlir::te

#endif // TE_DIALECT_TE_IR_TEOPS_H
