//===- host-tool.cpp - a host tool that embeds te ---------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/MLIRContext.h"
#include "te/Dialect/TE/IR/TEDialect.h"

int main() {
  mlir::MLIRContext context;
  context.loadDialect<mlir::te::TEDialect>();
  return 0;
}
