//===- PipelineUnregisteredTest.cpp - te-pipeline with an empty registry --===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// An embedder calls mlir::te::buildTEPipeline in a process that has
// registered no pass at all (no registerAllPasses, no registerTEPasses). The
// pipeline must still be the whole flow -- buildTEPipeline adds pass objects,
// it looks nothing up in the registry and registers nothing -- and compile a
// training step down to the LLVM dialect.
//
// Usage: te-pipeline-unregistered-test INPUT.mlir. Exit 0 and one line on
// success; exit 1 with the reason otherwise.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "te/Conversion/Passes.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;

static int fail(const std::string &why) {
  llvm::errs() << "te-pipeline-unregistered-test: " << why << "\n";
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2)
    return fail("usage: te-pipeline-unregistered-test INPUT.mlir");
  for (const char *name : {"te-infer-shapes", "one-shot-bufferize",
                           "convert-to-llvm", "te-deallocate"})
    if (PassInfo::lookup(name))
      return fail(std::string("precondition: '") + name +
                  "' is registered before the test");

  DialectRegistry registry;
  registry.insert<te::TEDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  te::registerBufferizableOpInterfaceExternalModels(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(argv[1], &ctx);
  if (!module)
    return fail(std::string("cannot parse ") + argv[1]);

  PassManager pm(&ctx);
  te::TEPipelineOptions options;
  te::buildTEPipeline(pm, options);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  for (const char *name :
       {"te-decompose-aggregates", "te-infer-shapes", "te-decompose-linear",
        "te-infer-usages", "te-eliminate-aliases", "te-expand-qtensors",
        "te-bufferize-boundaries", "one-shot-bufferize", "te-deallocate",
        "convert-te-to-runtime", "te-lower-if-present", "convert-to-llvm"})
    if (text.find(name) == std::string::npos)
      return fail(std::string("the pipeline lacks ") + name + ": " + text);
  for (const char *name : {"te-infer-shapes", "one-shot-bufferize",
                           "convert-to-llvm", "te-deallocate"})
    if (PassInfo::lookup(name))
      return fail(std::string("buildTEPipeline registered '") + name + "'");
  if (failed(pm.run(*module)))
    return fail("te-pipeline failed");

  int teOps = 0, gemmCalls = 0;
  module->walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "te")
      ++teOps;
    if (auto callee = op->getAttrOfType<FlatSymbolRefAttr>("callee"))
      if (callee.getValue() == "te_rt_mlir_gemm")
        ++gemmCalls;
  });
  if (teOps != 0 || gemmCalls == 0)
    return fail("unexpected result: " + std::to_string(teOps) +
                " te ops left, " + std::to_string(gemmCalls) +
                " te_rt_mlir_gemm calls");
  llvm::outs() << "te-pipeline built and ran with no pass registered before: "
               << gemmCalls << " te_rt_mlir_gemm calls\n";
  return 0;
}
