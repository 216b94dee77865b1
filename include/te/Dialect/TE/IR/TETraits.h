//===- TETraits.h - te dialect operation traits -----------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_TETRAITS_H
#define TE_DIALECT_TE_IR_TETRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::OpTrait::te {

/// The buffer-level te ops (TE_BufferLevelOp in TEBufferOps.td): the
/// destination-passing forms of the te ops on tensors or memrefs that
/// te-expand-qtensors produces and convert-te-to-runtime lowers. A marker,
/// no verification.
template <typename ConcreteType>
class BufferLevelOp : public TraitBase<ConcreteType, BufferLevelOp> {};

} // namespace mlir::OpTrait::te

#endif // TE_DIALECT_TE_IR_TETRAITS_H
