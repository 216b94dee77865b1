//===- te-opt.cpp - te optimizer driver -------------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with the te dialect, all upstream dialects, their interface
// implementations (bufferization, convert-to-llvm, ...) and passes, te's
// passes and te-pipeline.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "te/Conversion/Passes.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/Transforms/Passes.h"
#include "te/ToolVersion.h"
#include "te/Transforms/Passes.h"

#include "llvm/Support/CommandLine.h"

namespace mlir::te {
// tools/te-opt/TestQuantizerAttrs.cpp
void registerTestQuantizerAttrsPass();
} // namespace mlir::te

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::te::TEDialect>();
  // func, arith, tensor, scf, linalg, bufferization, memref, math, llvm, ...
  mlir::registerAllDialects(registry);
  // Bufferization and convert-to-llvm interface implementations.
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();
  mlir::te::registerTestQuantizerAttrsPass();

  // te's passes and te-pipeline.
  mlir::te::registerTEPasses();
  mlir::te::registerTEGenericPasses();
  mlir::te::registerTEConversionPasses();
  mlir::te::registerTEPipeline();
  mlir::te::registerBufferizableOpInterfaceExternalModels(registry);

  // --version: LLVM's own lines, then te's and the CUDA toolkit's.
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "te " TE_VERSION_STRING "\nCUDA: " TE_CUDA_VERSION_STRING "\n";
  });

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "te optimizer driver\n", registry));
}
