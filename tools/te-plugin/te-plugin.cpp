//===- te-plugin.cpp - te dialect and pass plugin for mlir-opt --*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// A plugin that a stock mlir-opt of the same MLIR loads:
//
//   mlir-opt --load-dialect-plugin=TEPlugin.so --load-pass-plugin=TEPlugin.so \
//     --pass-pipeline="builtin.module(te-infer-shapes,te-print-buffers)"
//     in.mlir
//
// Plugin passes are registered after mlir-opt parsed its flags, so they are
// reachable through --pass-pipeline only, not as --te-... flags.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/Transforms/Passes.h"
#include "te/Transforms/Passes.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

#ifdef TE_PLUGIN_HAVE_PIPELINE
#include "te/Conversion/Passes.h"
#endif

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TE", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            registry->insert<te::TEDialect>();
            te::registerBufferizableOpInterfaceExternalModels(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TEPasses", LLVM_VERSION_STRING, []() {
            te::registerTEPasses();
            te::registerTEGenericPasses();
#ifdef TE_PLUGIN_HAVE_PIPELINE
            te::registerTEConversionPasses();
            te::registerTEPipeline();
#endif
          }};
}
