//===- BufferizableOpInterfaceImpl.cpp - stub -------------------*- C++ -*-===//
#include "te/Dialect/TE/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
void mlir::te::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {}
