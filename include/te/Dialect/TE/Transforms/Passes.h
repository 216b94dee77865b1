//===- Passes.h - te dialect passes -----------------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Declarations of the te-* passes, generated from Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_TRANSFORMS_PASSES_H
#define TE_DIALECT_TE_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "te/Dialect/TE/IR/TEDialect.h"

namespace mlir {
class DialectRegistry;

namespace te {

#define GEN_PASS_DECL
#include "te/Dialect/TE/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "te/Dialect/TE/Transforms/Passes.h.inc"

/// Attaches BufferizableOpInterface to the buffer-level te ops (every op
/// with the BufferLevelOp trait) so that one-shot bufferization turns their
/// tensor form into their memref form.
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);

} // namespace te
} // namespace mlir

#endif // TE_DIALECT_TE_TRANSFORMS_PASSES_H
