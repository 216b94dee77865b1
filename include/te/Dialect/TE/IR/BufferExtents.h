//===- BufferExtents.h - Buffer sizes of quantized tensors as IR -*- C++
//-*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The Format library's buffer extents (te::format::getBufferExtents) in IR:
// the sizes of a quantized tensor's buffers for logical sizes that may be
// known only at run time (constants where they are static, `arith` index
// arithmetic where not), and the reverse, the logical sizes of a quantized
// tensor read from its buffers (tensor.dim / memref.dim of the buffer axis
// that holds them).
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_BUFFEREXTENTS_H
#define TE_DIALECT_TE_IR_BUFFEREXTENTS_H

#include "te/Dialect/TE/IR/TEInterfaces.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::te {

/// `extent` for the logical sizes `dims` (one per logical dimension): an
/// index attribute where it depends on static sizes only (evaluated by the
/// Format library), else the `arith` index ops computing it.
OpFoldResult emitExtent(OpBuilder &b, Location loc,
                        const ::te::format::Extent &extent,
                        ArrayRef<OpFoldResult> dims);

/// The sizes of every buffer of a quantized tensor of logical sizes `dims`
/// (static or index values), in the order of its buffer types. Fails (after
/// `emitError`) where the Format library refuses the layout.
FailureOr<SmallVector<SmallVector<OpFoldResult>>>
emitBufferSizes(OpBuilder &b, Location loc, QuantizerAttrInterface quantizer,
                Usage usage, Target target, ArrayRef<OpFoldResult> dims,
                function_ref<InFlightDiagnostic()> emitError);

/// The logical sizes of a quantized tensor of shape `shape` whose buffers are
/// `buffers` (ranked tensors or memrefs): static sizes as attributes, each
/// dynamic one read from the buffer axis that holds it
/// (te::format::findExtent), or, for a leading dimension held only through
/// the flattened M, M divided by the other (static) leading dimensions.
/// Fails (after `emitError`) where no buffer holds a dynamic size the caller
/// needs: `needed[i]` says whether dimension i is (empty: all are); one not
/// needed and not held stays unknown (the attribute ShapedType::kDynamic).
FailureOr<SmallVector<OpFoldResult>> emitLogicalSizes(
    OpBuilder &b, Location loc, QuantizerAttrInterface quantizer, Usage usage,
    Target target, ArrayRef<int64_t> shape, ValueRange buffers,
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<bool> needed = {});

/// The flattened leading dimension M (te::format::rowsExtent) of a quantized
/// tensor of shape `shape` whose buffers are `buffers`: static, or read from
/// the buffer axis that holds M, or the product of the leading dimensions
/// (emitLogicalSizes).
FailureOr<OpFoldResult> emitRows(OpBuilder &b, Location loc,
                                 QuantizerAttrInterface quantizer, Usage usage,
                                 Target target, ArrayRef<int64_t> shape,
                                 ValueRange buffers,
                                 function_ref<InFlightDiagnostic()> emitError);

/// An index value of `size` (an arith.constant for an attribute).
Value toIndexValue(OpBuilder &b, Location loc, OpFoldResult size);

} // namespace mlir::te

#endif // TE_DIALECT_TE_IR_BUFFEREXTENTS_H
