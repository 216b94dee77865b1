/*===- Dialect.h - C API of the te dialect ------------------------*- C -*-===*\
|*                                                                            *|
|* Part of te.                                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The te dialect's registration handle, in the conventions of the upstream
 * MLIR C API (mlir-c/): opaque handles, `mlirTE...` functions, null results
 * for invalid requests (after a diagnostic on the context).
 *
 * Everything is exported from one shared library, libTECAPI.so.0, which also
 * carries the upstream C API it is built on (mlir-c/IR.h, mlir-c/Pass.h,
 * mlir-c/Dialect/Func.h, ...), so a C program links only that library.
 * Neither MLIR's C API nor this one promises ABI stability across MLIR
 * releases: rebuild against the MLIR the host uses.
 */

#ifndef TE_C_DIALECT_H
#define TE_C_DIALECT_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the te C API headers; bumped on every incompatible change. */
#define TE_CAPI_VERSION 1

/** `mlirGetDialectHandle__te__()`: loads or registers the te dialect. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(TE, te);

/** TE_CAPI_VERSION of the library actually loaded. */
MLIR_CAPI_EXPORTED int mlirTEGetAPIVersion(void);

/** Inserts into `registry` the te dialect, its external interface models, and
 * every upstream dialect and extension that programs using te and the te
 * passes need (func, arith, tensor, scf, linalg, bufferization, memref, llvm,
 * ..., with their bufferization and convert-to-llvm interfaces): the registry
 * of `te-opt`. */
MLIR_CAPI_EXPORTED void
mlirTERegisterRequiredDialects(MlirDialectRegistry registry);

#ifdef __cplusplus
}
#endif

#endif /* TE_C_DIALECT_H */
