//===- te-layout.cpp - downstream user of the te dialect --------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Parses a module and prints the buffers of every !te.qtensor result on the
// module's target, through the dialect's C++ API.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "te/Dialect/TE/IR/TEAttrs.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/IR/TETypes.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: te-layout <file.mlir>\n";
    return 2;
  }
  mlir::MLIRContext context;
  context.loadDialect<mlir::te::TEDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;

  mlir::te::Target target = mlir::te::getTarget(*module);
  llvm::outs() << "target " << mlir::te::stringifyTarget(target) << "\n";
  module->walk([&](mlir::Operation *op) {
    for (mlir::Value result : op->getResults()) {
      auto type = llvm::dyn_cast<mlir::te::QTensorType>(result.getType());
      if (!type)
        continue;
      auto buffers = type.getBuffers(target);
      if (mlir::failed(buffers))
        continue;
      llvm::outs() << "value " << type << ": " << buffers->size()
                   << " buffers\n";
      for (const mlir::te::QTensorBuffer &buffer : *buffers)
        llvm::outs() << "  " << buffer.name << " " << buffer.type << "\n";
    }
  });
  llvm::outs() << "done\n";
  return 0;
}
