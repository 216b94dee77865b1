//===- Passes.h - te's generic transforms -----------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Declarations of te's passes on upstream dialects only
// (te-decompose-aggregates, te-split-deallocs, te-bufferize-boundaries,
// te-constant-globals, te-lower-if-present, te-host-math-to-libm,
// te-split-arg-reductions, te-split-entry-blocks, te-strip-binary-properties,
// te-expand-integer-powers, te-fuse-elementwise),
// generated from Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef TE_TRANSFORMS_PASSES_H
#define TE_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::te {

#define GEN_PASS_DECL
#include "te/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "te/Transforms/Passes.h.inc"

/// Whether `op` is a math op of host code (outside any gpu.module) that
/// convert-to-llvm cannot lower (te-host-math-to-libm rewrites it).
bool isHostMathWithoutLLVMLowering(Operation *op);

} // namespace mlir::te

#endif // TE_TRANSFORMS_PASSES_H
