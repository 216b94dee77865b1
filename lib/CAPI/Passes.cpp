//===- Passes.cpp - C API of the te passes and te-pipeline ------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "te-c/Passes.h"
#include "te-c/Dialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "te/Dialect/TE/Transforms/Passes.h"
#include "te/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#ifdef TE_CAPI_HAVE_PIPELINE
#include "te/Conversion/PackedEntry.h"
#include "te/Conversion/Passes.h"
#endif

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <mutex>
#include <string>

using namespace mlir;

void mlirRegisterTEPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] {
    // te-pipeline is assembled from upstream passes by name.
    registerAllPasses();
    te::registerTEPasses();
    te::registerTEGenericPasses();
#ifdef TE_CAPI_HAVE_PIPELINE
    te::registerTEConversionPasses();
    te::registerTEPipeline();
#endif
  });
}

bool mlirTEHasPipeline(void) {
#ifdef TE_CAPI_HAVE_PIPELINE
  return true;
#else
  return false;
#endif
}

MlirLogicalResult mlirTERunPipeline(MlirModule module, MlirStringRef options,
                                    MlirStringCallback errorCallback,
                                    void *userData) {
  ModuleOp moduleOp = unwrap(module);
  MLIRContext *ctx = moduleOp.getContext();
  bool reported = false;
  auto report = [&](StringRef line) {
    reported = true;
    if (errorCallback)
      errorCallback(wrap(line), userData);
  };

#ifndef TE_CAPI_HAVE_PIPELINE
  (void)ctx;
  (void)options;
  report("te-pipeline is not part of this build of the te C API");
  return mlirLogicalResultFailure();
#else
  mlirRegisterTEPasses();
  DialectRegistry registry;
  mlirTERegisterRequiredDialects(wrap(&registry));
  // GPU targets: the lowered module embeds the kernels' binary
  // (gpu.binary) and launches from it; its translation to LLVM IR (the JIT,
  // mlir-translate) needs the GPU dialects' translations and the offloading
  // handler, as te-run registers them.
  registerAllGPUToLLVMIRTranslations(registry);
  ctx->appendDialectRegistry(registry);

  te::TEPipelineOptions pipelineOptions;
  std::string optionError;
  llvm::raw_string_ostream optionErrorStream(optionError);
  if (failed(pipelineOptions.parseFromString(unwrap(options),
                                             optionErrorStream))) {
    StringRef message = StringRef(optionError).trim();
    report(("te-pipeline: invalid options '" + unwrap(options) + "'" +
            (message.empty() ? "" : ": ") + message)
               .str());
    return mlirLogicalResultFailure();
  }

  // Errors go to the callback, one line each; warnings and remarks go on to
  // the context's other handlers.
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return failure();
    std::string line;
    llvm::raw_string_ostream os(line);
    os << diag.getLocation() << ": " << diag;
    report(line);
    return success();
  });

  PassManager pm(ctx, ModuleOp::getOperationName());
  te::buildTEPipeline(pm, pipelineOptions);
  if (failed(pm.run(moduleOp))) {
    if (!reported)
      report("te-pipeline failed");
    return mlirLogicalResultFailure();
  }
  return mlirLogicalResultSuccess();
#endif
}

MlirLogicalResult mlirTEGetEntrySignature(MlirOperation function,
                                          MlirStringRef target,
                                          MlirStringCallback callback,
                                          void *userData) {
#ifndef TE_CAPI_HAVE_PIPELINE
  (void)function;
  (void)target;
  if (callback)
    callback(wrap(StringRef("entry signatures are not part of this build of "
                            "the te C API")),
             userData);
  return mlirLogicalResultFailure();
#else
  auto f = dyn_cast_or_null<func::FuncOp>(unwrap(function));
  std::string signature, error;
  if (!f)
    error = "not a func.func";
  else if (succeeded(te::getEntrySignature(f, unwrap(target),
                                           /*reference=*/false, signature,
                                           error))) {
    if (callback)
      callback(wrap(StringRef(signature)), userData);
    return mlirLogicalResultSuccess();
  }
  if (callback)
    callback(wrap(StringRef(error)), userData);
  return mlirLogicalResultFailure();
#endif
}

MlirLogicalResult mlirTEAddPackedEntry(MlirModule module, MlirStringRef entry,
                                       MlirStringRef signature,
                                       MlirStringRef target, bool checkedMalloc,
                                       MlirStringCallback errorCallback,
                                       void *userData) {
#ifndef TE_CAPI_HAVE_PIPELINE
  (void)module;
  (void)entry;
  (void)signature;
  (void)target;
  (void)checkedMalloc;
  if (errorCallback)
    errorCallback(wrap(StringRef("te-packed-entry is not part of this build "
                                 "of the te C API")),
                  userData);
  return mlirLogicalResultFailure();
#else
  std::string error;
  if (succeeded(te::addPackedEntry(unwrap(module), unwrap(entry),
                                   unwrap(signature), unwrap(target),
                                   checkedMalloc, error)))
    return mlirLogicalResultSuccess();
  if (errorCallback)
    errorCallback(wrap(StringRef(error)), userData);
  return mlirLogicalResultFailure();
#endif
}
