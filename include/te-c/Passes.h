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

/** Runs `te-pipeline{<options>}` on `module` (docs/guide/passes.md, "The
 * passes, in pipeline order": shape and usage inference, decomposition, alias
 * elimination, 1:N expansion of !te.qtensor, bufferization, conversion to
 * runtime calls and, unless `lower-to-llvm=false`, to the LLVM dialect).
 * `options` is the pipeline's option string, e.g. "target=sm_100" or
 * "target=cpu lower-to-llvm=false"; an empty string takes the defaults. The
 * dialects the pipeline needs are appended to the module's context first
 * (mlirTERegisterRequiredDialects).
 *
 * Every error -- a malformed option string, a diagnostic emitted while the
 * passes run -- is reported as one line (location, then message) to
 * `errorCallback` (may be NULL) with `userData`; the diagnostics are not
 * propagated to other handlers. Returns failure if anything failed; the
 * module is then in an unspecified but valid state. Never aborts. */
MLIR_CAPI_EXPORTED MlirLogicalResult
mlirTERunPipeline(MlirModule module, MlirStringRef options,
                  MlirStringCallback errorCallback, void *userData);

/** The harness signature of the func.func `function` (te_call.h, e.g.
 * "f32[32,64], bf16[?,64] -> f32"), its quantized tensors as their buffers
 * laid out for `target` ("cpu", "sm_90", "sm_100"), passed to `callback`;
 * on failure the error is passed instead and failure returned
 * (mlir::te::getEntrySignature). Call it before te-pipeline. */
MLIR_CAPI_EXPORTED MlirLogicalResult
mlirTEGetEntrySignature(MlirOperation function, MlirStringRef target,
                        MlirStringCallback callback, void *userData);

/** Adds the packed wrapper `_te_packed_<entry>` of the lowered module's
 * entry and its signature and target strings (te-packed-entry,
 * mlir::te::addPackedEntry); `checkedMalloc` routes malloc to
 * te_run_checked_malloc. An error is passed to `errorCallback`. */
MLIR_CAPI_EXPORTED MlirLogicalResult mlirTEAddPackedEntry(
    MlirModule module, MlirStringRef entry, MlirStringRef signature,
    MlirStringRef target, bool checkedMalloc, MlirStringCallback errorCallback,
    void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TE_C_PASSES_H */
