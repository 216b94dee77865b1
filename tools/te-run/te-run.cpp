//===- te-run.cpp - Execute a te module with the JIT ------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-run FILE.mlir [--entry NAME] [--backend cpu|cuda] [--target T]
//        [--comm-group NAME=cpu:1|nccl:1]
//        [harness flags: --input, --seed, --fill, --output-dir, --compare, ...]
//
// Parses a module, lowers it with te-pipeline{target}, adds the packed
// wrapper `_te_packed_<entry>(void **args)` of the entry's C interface
// (te-packed-entry, include/te/Conversion/PackedEntry.h; te_call.h),
// JIT-compiles it with MLIR's ExecutionEngine (libte_rt linked into this tool:
// the entry points of te_rt_abi.def are registered with the engine's symbol
// map) and calls the wrapper on the chosen backend; a GPU-target program on the
// cuda backend gets its arguments in device memory. --comm-group registers a
// single-rank communicator under a process group's name
// (te_rt_comm_register_group), for the te.allreduce_max of the program.
//
//===----------------------------------------------------------------------===//

#include "Args.h"
#include "Harness.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "te/Conversion/PackedEntry.h"
#include "te/Conversion/Passes.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/IR/TETypes.h"
#include "te/Dialect/TE/Transforms/Passes.h"
#include "te/ToolVersion.h"
#include "te/Transforms/Passes.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"

#include "te_rt_abi.h"
#include "te_rt_comm.h"

#include <cstdio>
#include <cstring>
#include <string>

using namespace mlir;

namespace {

void usage() {
  std::printf(
      "usage: te-run FILE.mlir [options]\n"
      "Executes the entry function of a te module (lowered with te-pipeline\n"
      "unless it is already in the LLVM dialect) on libte_rt. FILE '-' reads\n"
      "standard input.\n"
      "Exit status: 0 success (every --compare PASS), 1 a failure (parse,\n"
      "lowering, runtime error, out of memory, a FAIL), 2 a usage error\n"
      "(unknown option, malformed or out-of-range value, options the\n"
      "signature contradicts). Every number is read exactly: out of range\n"
      "is an error, never saturated. An option's value follows it or an\n"
      "`=`: --seed 3 or --seed=3.\n"
      "  --version            te's version and the LLVM/CUDA it was built "
      "with\n"
      "  --entry NAME         the function to call (default: main)\n"
      "  --backend cpu|cuda   runtime backend (default: cpu)\n"
      "  --target T           te-pipeline target cpu|sm_90|sm_100 (default:\n"
      "                       cpu on the cpu backend, sm_90 on cuda); an\n"
      "                       sm_90/sm_100 program needs --backend cuda and\n"
      "                       gets its arguments and results in device\n"
      "                       memory (copied once, outside the timed calls)\n"
      "  --threads N          cpu backend worker threads, 0..4096 (default\n"
      "                       0: all)\n"
      "  --reference          run the program's high-precision twin\n"
      "                       (te-pipeline{reference}: te ops replaced by\n"
      "                       plain arithmetic, no runtime calls)\n"
      "  --pipeline-options S more te-pipeline options, as in\n"
      "                       te-pipeline{...} (\"fuse-accumulate=false\n"
      "                       share-emulated-operands=true\"); target and\n"
      "                       reference come from --target and --reference\n"
      "  --print-signature    print the entry's harness signature and exit\n"
      "  --emit-lowered FILE  write the lowered (LLVM dialect) module with "
      "the\n"
      "                       entry's C interface and its packed wrapper\n"
      "                       _te_packed_<entry> to FILE and exit (for AOT)\n"
      "  --comm-group NAME=cpu:1|nccl:1\n"
      "                       register a single-rank communicator for the\n"
      "                       process group NAME (te.allreduce_max group\n"
      "                       \"NAME\"): a CPU group (cpu backend) or NCCL\n"
      "                       (cuda backend); repeatable\n"
      "%s",
      ::te::run::kHarnessFlagsHelp);
}

/// Single-rank communicators registered for --comm-group.
struct CommGroups {
  std::vector<std::string> names;
  std::vector<te_rt_comm *> comms;
  std::vector<te_rt_comm_cpu_group *> groups;

  /// Creates and registers the communicator of `spec` (NAME=cpu:1 or
  /// NAME=nccl:1); false with `error` set on failure.
  bool add(const std::string &spec, const std::string &backend,
           std::string &error) {
    size_t eq = spec.find('=');
    std::string name = eq == std::string::npos ? "" : spec.substr(0, eq);
    std::string kind = eq == std::string::npos ? "" : spec.substr(eq + 1);
    if (name.empty() || (kind != "cpu:1" && kind != "nccl:1")) {
      error = "--comm-group '" + spec +
              "': expected NAME=cpu:1 or NAME=nccl:1 (te-run runs one rank)";
      return false;
    }
    bool cpu = kind == "cpu:1";
    if (cpu != (backend == "cpu")) {
      error = "--comm-group '" + spec + "': a " +
              (cpu ? "CPU group needs --backend cpu"
                   : "NCCL communicator needs --backend cuda");
      return false;
    }
    te_rt_comm *comm = nullptr;
    te_rt_status s;
    if (cpu) {
      te_rt_comm_cpu_group *group = nullptr;
      s = te_rt_comm_cpu_group_create(1, &group);
      if (s == TE_RT_OK) {
        groups.push_back(group);
        s = te_rt_comm_create_cpu(group, 0, &comm);
      }
    } else {
      te_rt_comm_unique_id id;
      s = te_rt_comm_nccl_get_unique_id(&id);
      if (s == TE_RT_OK)
        s = te_rt_comm_create_nccl(&id, 0, 1, &comm);
    }
    if (s == TE_RT_OK) {
      comms.push_back(comm);
      s = te_rt_comm_register_group(name.c_str(), comm);
    }
    if (s != TE_RT_OK) {
      error = "--comm-group '" + spec + "': " + te_rt_last_error();
      return false;
    }
    names.push_back(name);
    return true;
  }

  ~CommGroups() {
    for (const std::string &n : names)
      te_rt_comm_unregister_group(n.c_str());
    for (te_rt_comm *c : comms)
      te_rt_comm_destroy(c);
    for (te_rt_comm_cpu_group *g : groups)
      te_rt_comm_cpu_group_destroy(g);
  }
};

/// Whether the module is in the LLVM dialect already (and not empty).
bool isLowered(ModuleOp module) {
  bool lowered = true, any = false;
  module.walk([&](Operation *op) {
    if (op == module.getOperation())
      return;
    any = true;
    if (!isa<LLVM::LLVMDialect>(op->getDialect()))
      lowered = false;
  });
  return lowered && any;
}

} // namespace

int main(int argc, char **argv) {
  // --opt=value is --opt value.
  std::vector<std::string> argStore = ::te::run::splitOptionValues(argc, argv);
  std::vector<char *> argPointers = ::te::run::argvOf(argStore);
  argc = static_cast<int>(argStore.size());
  argv = argPointers.data();
  std::string file, entry = "main", backend = "cpu", target;
  int64_t threads = 0;
  bool printSignature = false;
  std::string emitLowered;
  std::vector<std::string> commGroupSpecs;
  bool reference = false;
  std::string pipelineOptionsText;
  ::te::run::Options opts;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], err;
    if (::te::run::parseHarnessFlag(argc, argv, i, opts, &err)) {
      if (!err.empty()) {
        std::fprintf(stderr, "te-run: error: %s\n", err.c_str());
        return 2;
      }
      continue;
    }
    auto value = [&](std::string &out) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "te-run: error: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      out = argv[++i];
    };
    if (a == "--help" || a == "-h") {
      usage();
      return 0;
    }
    if (a == "--version") {
      std::printf("te-run (te) %s\nLLVM: %s\nCUDA: %s\nte_rt API version: "
                  "%d\n",
                  TE_VERSION_STRING, LLVM_VERSION_STRING,
                  TE_CUDA_VERSION_STRING, te_rt_api_version());
      return 0;
    }
    if (a == "--entry") {
      value(entry);
    } else if (a == "--backend") {
      value(backend);
    } else if (a == "--target") {
      value(target);
    } else if (a == "--threads") {
      std::string v;
      value(v);
      if (!::te::run::parseInteger(v, 0, 4096, threads)) {
        std::fprintf(
            stderr,
            "te-run: error: --threads: '%s' is not an integer in 0..4096\n",
            v.c_str());
        return 2;
      }
    } else if (a == "--reference") {
      reference = true;
    } else if (a == "--emit-lowered") {
      value(emitLowered);
    } else if (a == "--pipeline-options") {
      value(pipelineOptionsText);
    } else if (a == "--comm-group") {
      std::string v;
      value(v);
      commGroupSpecs.push_back(v);
    } else if (a == "--print-signature") {
      printSignature = true;
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "te-run: error: unknown option '%s' (see --help)\n",
                   a.c_str());
      return 2;
    } else if (file.empty()) {
      file = a;
    } else {
      std::fprintf(stderr, "te-run: error: more than one input file\n");
      return 2;
    }
  }
  mlir::te::TEPipelineOptions pipelineOptions;
  if (!pipelineOptionsText.empty()) {
    std::string message;
    llvm::raw_string_ostream os(message);
    if (failed(pipelineOptions.parseFromString(pipelineOptionsText, os))) {
      std::fprintf(stderr, "te-run: error: --pipeline-options '%s': %s\n",
                   pipelineOptionsText.c_str(), message.c_str());
      return 2;
    }
    if (pipelineOptions.target.getNumOccurrences() ||
        pipelineOptions.reference.getNumOccurrences()) {
      std::fprintf(stderr, "te-run: error: --pipeline-options: give the target "
                           "with --target and the twin with --reference\n");
      return 2;
    }
  }
  if (file.empty()) {
    usage();
    return 2;
  }
  if (backend != "cpu" && backend != "cuda") {
    std::fprintf(stderr,
                 "te-run: error: --backend must be cpu or cuda, got '%s'\n",
                 backend.c_str());
    return 2;
  }
  if (target.empty())
    target = backend == "cpu" ? "cpu" : "sm_90";

  DialectRegistry registry;
  registry.insert<mlir::te::TEDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  mlir::te::registerBufferizableOpInterfaceExternalModels(registry);
  // GPU targets: gpu.module-to-binary serializes NVVM, and the host code
  // embeds the binary and launches from it (gpu.binary, gpu.launch_func).
  registerAllGPUToLLVMIRTranslations(registry);
  registerAllPasses();
  mlir::te::registerTEPasses();
  mlir::te::registerTEGenericPasses();
  mlir::te::registerTEConversionPasses();
  MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  std::string errorMessage;
  auto input = openInputFile(file, &errorMessage);
  if (!input) {
    std::fprintf(stderr, "te-run: %s\n", errorMessage.c_str());
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  // The entry's signature, from the function before lowering.
  ::te::run::Signature sig;
  if (auto f = module->lookupSymbol<func::FuncOp>(entry)) {
    if (f.isExternal()) {
      std::fprintf(stderr,
                   "te-run: @%s is a declaration: the entry needs a body\n",
                   entry.c_str());
      return 1;
    }
    if (f.isPrivate()) {
      std::fprintf(stderr,
                   "te-run: @%s is private: the entry must be a public "
                   "function (the pipeline may inline or remove private "
                   "ones)\n",
                   entry.c_str());
      return 1;
    }
    std::string err, text;
    if (failed(mlir::te::getEntrySignature(f, target, reference, text, err)) ||
        !::te::run::parseSignature(text, sig, &err)) {
      std::fprintf(stderr, "te-run: @%s: %s\n", entry.c_str(), err.c_str());
      return 1;
    }
    f->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
               UnitAttr::get(&context));
  } else if (!isLowered(*module)) {
    std::fprintf(stderr, "te-run: no function @%s in %s%s\n", entry.c_str(),
                 file.c_str(),
                 module->getBody()->empty() ? " (the module is empty)" : "");
    return 1;
  } else {
    std::fprintf(stderr,
                 "te-run: %s is already lowered; te-run needs the func-level "
                 "module to know @%s's signature\n",
                 file.c_str(), entry.c_str());
    return 1;
  }
  if (printSignature) {
    std::printf("%s\n", sig.str().c_str());
    return 0;
  }
  if (emitLowered.empty()) {
    std::string mismatch = ::te::run::backendMismatch(backend, target);
    if (!mismatch.empty()) {
      std::fprintf(stderr, "te-run: error: %s\n", mismatch.c_str());
      return 2;
    }
  }

  // Lower.
  PassManager pm(&context);
  pipelineOptions.target = target;
  pipelineOptions.reference = reference;
  // --quiet: no remarks on emulated GEMMs either.
  pipelineOptions.remarks = !opts.quiet;
  mlir::te::buildTEPipeline(pm, pipelineOptions);
  if (failed(pm.run(*module))) {
    std::fprintf(stderr, "te-run: lowering %s failed\n", file.c_str());
    return 1;
  }
  sig.shapeChecks = (*module)->hasAttr("te.shape_checks");
  {
    std::string err;
    if (failed(mlir::te::addPackedEntry(*module, entry, sig.str(), target,
                                        /*checkedMalloc=*/true, err))) {
      std::fprintf(stderr, "te-run: %s\n", err.c_str());
      return 1;
    }
  }

  if (!emitLowered.empty()) {
    std::string err;
    auto out = openOutputFile(emitLowered, &err);
    if (!out) {
      std::fprintf(stderr, "te-run: %s\n", err.c_str());
      return 1;
    }
    module->print(out->os());
    out->keep();
    return 0;
  }

  // JIT.
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutionEngineOptions engineOptions;
  auto transformer = makeOptimizingTransformer(2, 0, nullptr);
  engineOptions.transformer = transformer;
  auto engine = ExecutionEngine::create(*module, engineOptions);
  if (!engine) {
    std::fprintf(stderr, "te-run: JIT: %s\n",
                 llvm::toString(engine.takeError()).c_str());
    return 1;
  }
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
#define TE_RT_ABI_FUNCTION(ret, name, ...)                                     \
  map[interner(#name)] = {llvm::orc::ExecutorAddr::fromPtr(&name),             \
                          llvm::JITSymbolFlags::Exported};
#include "te_rt_abi.def"
    map[interner(::te::run::kCheckedMallocName)] = {
        llvm::orc::ExecutorAddr::fromPtr(&te_run_checked_malloc),
        llvm::JITSymbolFlags::Exported};
    return map;
  });
  (*engine)->initialize();
  auto fn = (*engine)->lookup(::te::run::packedName(entry));
  if (!fn) {
    std::fprintf(stderr, "te-run: %s\n",
                 llvm::toString(fn.takeError()).c_str());
    return 1;
  }

  // Runtime context.
  te_rt_context *ctx = nullptr;
  te_rt_backend kind =
      backend == "cuda" ? TE_RT_BACKEND_CUDA : TE_RT_BACKEND_CPU;
  if (te_rt_context_create(kind, &ctx) != TE_RT_OK) {
    std::fprintf(stderr, "te-run: backend %s: %s\n", backend.c_str(),
                 te_rt_last_error());
    return 1;
  }
  if (threads > 0)
    te_rt_context_set_num_threads(ctx, static_cast<int>(threads));
  te_rt_set_current_context(ctx);
  CommGroups commGroups;
  std::string err;
  for (const std::string &spec : commGroupSpecs)
    if (!commGroups.add(spec, backend, err)) {
      std::fprintf(stderr, "te-run: %s\n", err.c_str());
      return 1;
    }

  ::te::run::Memory memory;
  if (!::te::run::selectMemory(ctx, backend, target, memory, &err)) {
    std::fprintf(stderr, "te-run: %s\n", err.c_str());
    return 1;
  }
  int rc = ::te::run::runEntry("te-run", *fn, sig, opts, memory);
  te_rt_set_current_context(nullptr);
  te_rt_context_destroy(ctx);
  return rc;
}
