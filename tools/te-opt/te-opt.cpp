//===- te-opt.cpp - te optimizer driver -------------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with the te dialect, all upstream dialects, their interface
// implementations (bufferization, convert-to-llvm, ...) and passes, and the te
// passes once their registration headers exist.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/ToolVersion.h"

#include "llvm/Support/CommandLine.h"

// Registration of te passes; the guard keeps te-opt building in a tree
// without the transforms library.
#if __has_include("te/Dialect/TE/Transforms/Passes.h")
#include "te/Dialect/TE/Transforms/Passes.h"
#define TE_OPT_HAVE_TE_PASSES 1
#endif
#if __has_include("te/Conversion/Passes.h")
#include "te/Conversion/Passes.h"
#define TE_OPT_HAVE_TE_CONVERSION 1
#endif

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

  // --- te passes ---
#ifdef TE_OPT_HAVE_TE_PASSES
  mlir::te::registerTEPasses();
  mlir::te::registerBufferizableOpInterfaceExternalModels(registry);
#endif
  // (conversion passes, e.g. convert-te-to-runtime: register them here)
#ifdef TE_OPT_HAVE_TE_CONVERSION
  mlir::te::registerTEConversionPasses();
  mlir::te::registerTEPipeline();
#endif
  // --- end of te passes ---

  // --version: LLVM's own lines, then te's and the CUDA toolkit's.
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "te " TE_VERSION_STRING "\nCUDA: " TE_CUDA_VERSION_STRING "\n";
  });

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "te optimizer driver\n", registry));
}
