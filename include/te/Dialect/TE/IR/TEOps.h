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

/// The shape rules of te.attention and te.attention_buffers (tensors or
/// memrefs): query [..., L, E], key [..., S, E], value [..., S, Ev] of rank
/// 3 or 4 and one element type, the leading dimensions equal but the heads
/// (the query's a multiple of the key's), the optional `mask` (null: none)
/// additive or boolean, broadcasting to [..., L, S]. Emits the op's error.
LogicalResult verifyAttentionOperands(Operation *op, ShapedType query,
                                      ShapedType key, ShapedType value,
                                      ShapedType mask);
/// The same for te.attention_grad and te.attention_grad_buffers, with the
/// forward's `output` and `lse` and the gradient `gradOutput`.
LogicalResult verifyAttentionGradOperands(Operation *op, ShapedType query,
                                          ShapedType key, ShapedType value,
                                          ShapedType output, ShapedType lse,
                                          ShapedType gradOutput,
                                          ShapedType mask);
/// That `t` (named `what` in the error) is `shape` x `elementType`, dynamic
/// sizes matching any size.
LogicalResult verifyAttentionResult(Operation *op, StringRef what, ShapedType t,
                                    ArrayRef<int64_t> shape, Type elementType);
/// The attention output's shape: the query's with the value's last size.
SmallVector<int64_t> attentionOutputShape(ShapedType query, ShapedType value);
} // namespace mlir::te

#endif // TE_DIALECT_TE_IR_TEOPS_H
