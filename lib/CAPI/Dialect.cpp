//===- Dialect.cpp - C API of the te dialect --------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "te-c/Dialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/Transforms/Passes.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(TE, te, mlir::te::TEDialect)

int mlirTEGetAPIVersion(void) { return TE_CAPI_VERSION; }

void mlirTERegisterRequiredDialects(MlirDialectRegistry registry) {
  mlir::DialectRegistry &r = *unwrap(registry);
  r.insert<mlir::te::TEDialect>();
  mlir::registerAllDialects(r);
  mlir::registerAllExtensions(r);
  mlir::te::registerBufferizableOpInterfaceExternalModels(r);
}
