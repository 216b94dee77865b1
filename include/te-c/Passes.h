/*===- Passes.h - C API of the te passes and te-pipeline ----------*- C -*-===*\
|*                                                                            *|
|* Part of te.                                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * Registration of the te passes (te-infer-shapes, te-infer-usages,
 * te-expand-qtensors, ..., convert-te-to-runtime, te-pipeline) in MLIR's
 * global registry, so that mlirParsePassPipeline / mlirOpPassManagerAddPipeline
 * (mlir-c/Pass.h) accept them by name; and a one-call driver of the whole
 * te flow.
 */

#ifndef TE_C_PASSES_H
#define TE_C_PASSES_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Registers every te pass, te-pipeline, and the upstream passes te-pipeline
 * is made of. Idempotent and thread-safe. */
MLIR_CAPI_EXPORTED void mlirRegisterTEPasses(void);

/** True if this library was built with te-pipeline (the conversion to the
 * runtime); false when only the te-* passes were available. */
MLIR_CAPI_EXPORTED bool mlirTEHasPipeline(void);

/** Runs `te-pipeline{<options>}` on `module` (DESIGN.md "The flow": shape and
 * usage inference, decomposition, alias elimination, 1:N expansion of
 * !te.qtensor, bufferization, conversion to runtime calls and, unless
 * `lower-to-llvm=false`, to the LLVM dialect). `options` is the pipeline's
 * option string, e.g. "target=sm_100" or "target=cpu lower-to-llvm=false";
 * an empty string takes the defaults. The dialects the pipeline needs are
 * appended to the module's context first (mlirTERegisterRequiredDialects).
 *
 * Every error -- a malformed option string, a diagnostic emitted while the
 * passes run -- is reported as one line (location, then message) to
 * `errorCallback` (may be NULL) with `userData`; the diagnostics are not
 * propagated to other handlers. Returns failure if anything failed; the
 * module is then in an unspecified but valid state. Never aborts. */
MLIR_CAPI_EXPORTED MlirLogicalResult
mlirTERunPipeline(MlirModule module, MlirStringRef options,
                  MlirStringCallback errorCallback, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TE_C_PASSES_H */
