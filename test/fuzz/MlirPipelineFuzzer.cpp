//===- MlirPipelineFuzzer.cpp - libFuzzer target: parse, verify, passes ---===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Input bytes are MLIR source. They are parsed with the te dialect (and every
// upstream dialect, as in te-opt) registered and a diagnostic handler that
// swallows errors; if the module verifies, the te passes that te-pipeline
// runs on tensors (its passes named te-* before one-shot-bufferize, every
// option on, sm_90: the list comes from the pipeline) run on a clone, and
// then each te pass alone on a fresh clone, so that a pass is also fed IR its
// predecessors did not normalise. Then the whole flow, `te-pipeline` (down to
// the LLVM dialect: bufferization, te-deallocate, convert-te-to-runtime,
// te-lower-if-present) for sm_90 and its high-precision twin on the cpu
// target. The result is printed to a null stream. A failing parse, verifier
// or pass is fine; a crash, an ASan/UBSan report or a leak is a bug, and so
// is a parse, a verification or a te pass that fails without an error
// diagnostic (a user would get a failure and no message). The whole
// pipelines are exempt from the last rule: they include upstream passes.
//
// Only te's own code is instrumented for coverage: libMLIR.so comes
// precompiled from Debian.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "te/Conversion/Passes.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/Transforms/Passes.h"
#include "te/Transforms/Passes.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// te's passes on tensors in te-pipeline's order: its passes named te-*
/// before one-shot-bufferize, with every optional pass of sm_90 on.
std::vector<std::string> tePassesOnTensors() {
  te::TEPipelineOptions options;
  options.target = "sm_90";
  options.fuseAccumulate = true;
  options.raiseAttention = true;
  options.shareEmulatedOperands = true;
  options.fuseElementwise = true;
  options.checkShapes = true;
  std::vector<std::string> passes;
  for (const std::string &p : te::tePipelinePasses(options)) {
    if (p == "one-shot-bufferize")
      break;
    if (llvm::StringRef(p).starts_with("te-"))
      passes.push_back(p);
  }
  return passes;
}

/// The whole flow (registered by registerTEPipeline), each on a fresh clone.
/// The GPU target down to its kernels and runtime calls (te-linalg-to-gpu,
/// convert-te-to-runtime's device memory), not through LLVM's NVPTX backend
/// and ptxas.
const char *const kTEPipelines[] = {
    "te-pipeline{target=sm_90 lower-to-llvm=false}",
    "te-pipeline{target=cpu}",
    "te-pipeline{target=cpu reference=true}",
};

struct Fixture {
  DialectRegistry registry;
  std::vector<std::string> passes;

  Fixture() {
    registry.insert<te::TEDialect>();
    registerAllDialects(registry);
    registerAllExtensions(registry);
    te::registerTEPasses();
    te::registerTEGenericPasses();
    te::registerBufferizableOpInterfaceExternalModels(registry);
    // Only te's registrations, as an embedder would: te-pipeline is built
    // from pass objects and needs no upstream pass registered
    // (test/Pipeline/).
    te::registerTEConversionPasses();
    te::registerTEPipeline();
    for (const std::string &name : tePassesOnTensors()) {
      if (!PassInfo::lookup(name)) {
        llvm::errs() << "fuzzer: te pass '" << name << "' is not registered\n";
        std::abort();
      }
      passes.push_back(name);
    }
    if (passes.size() < 10) {
      llvm::errs() << "fuzzer: te-pipeline names " << passes.size()
                   << " te passes before one-shot-bufferize\n";
      std::abort();
    }
  }
};

Fixture &fixture() {
  static Fixture *f = new Fixture();
  return *f;
}

/// Runs `pipeline` (a comma-separated list of module-level passes) on a clone
/// of `module`, then prints the result. Failures are expected and ignored.
/// The pass manager is anchored on builtin.module and the passes are added
/// to it directly: the passes run on the parsed module itself (and reach
/// nested modules through their own walks). Parsing the pipeline as
/// `builtin.module(...)` into an op-agnostic PassManager would nest it: the
/// passes would run only on modules nested in the input, i.e. on almost no
/// input.
/// Error diagnostics emitted in the context since the last reset.
int errorCount = 0;

/// Traps when `failed` holds and no error was reported since `before`.
void requireMessage(bool failed, int before) {
  if (failed && errorCount == before)
    __builtin_trap();
}

/// Returns true when the pipeline failed.
bool runPipeline(MLIRContext &ctx, ModuleOp module,
                 const std::string &pipeline) {
  OwningOpRef<ModuleOp> clone = module.clone();
  PassManager pm(&ctx, ModuleOp::getOperationName());
  std::string errors;
  llvm::raw_string_ostream errStream(errors);
  if (failed(parsePassPipeline(pipeline, pm, errStream))) {
    // A pipeline that does not parse is the harness's bug, not the input's.
    llvm::errs() << "te-fuzz-mlir: cannot parse '" << pipeline
                 << "': " << errors << "\n";
    abort();
  }
  if (failed(pm.run(*clone)))
    return true;
  llvm::raw_null_ostream os;
  clone->print(os);
  return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Deep nesting makes the recursive-descent parser and the printer recurse;
  // that stack exhaustion is upstream's, not te's.
  if (size > 64 * 1024)
    return 0;
  // linalg.reduce's custom parser stores a null `dimensions` attribute when
  // the array does not parse (`linalg.reduce dimensions=` segfaults in
  // NamedAttrList::set): upstream llvm/llvm-project#132747, open in MLIR 22.
  // te-opt shares it; te's passes never see linalg.reduce. Kept as
  // test/fuzz/regressions/mlir/upstream-linalg-reduce-dimensions.
  if (llvm::StringRef(reinterpret_cast<const char *>(data), size)
          .contains("linalg.reduce"))
    return 0;
  Fixture &f = fixture();
  MLIRContext ctx(f.registry, MLIRContext::Threading::DISABLED);
  ctx.allowUnregisteredDialects(false);
  ctx.printOpOnDiagnostic(false);
  errorCount = 0;
  ScopedDiagnosticHandler swallow(&ctx, [](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      ++errorCount;
    return success();
  });

  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz");
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&ctx));
  if (!module) {
    requireMessage(true, 0);
    return 0;
  }
  int before = errorCount;
  if (failed(verify(*module))) {
    requireMessage(true, before);
    return 0;
  }
  {
    llvm::raw_null_ostream os;
    module->print(os);
  }
  if (f.passes.empty())
    return 0;
  std::string all;
  for (const std::string &p : f.passes)
    all += (all.empty() ? "" : ",") + p;
  before = errorCount;
  requireMessage(runPipeline(ctx, *module, all), before);
  if (f.passes.size() > 1)
    for (const std::string &p : f.passes) {
      before = errorCount;
      requireMessage(runPipeline(ctx, *module, p), before);
    }
  for (const char *p : kTEPipelines)
    runPipeline(ctx, *module, p);
  return 0;
}
