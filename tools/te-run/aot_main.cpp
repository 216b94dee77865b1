//===- aot_main.cpp - Driver for ahead-of-time compiled modules -*- C++ -*-===//
//
// Part of te. No MLIR: runs where only libte_rt (and CUDA) exists.
//
//===----------------------------------------------------------------------===//
//
// Linked (by scripts/te-aot.sh link) with the object file of a lowered
// module and libte_rt:
//
//   te-aot-run --signature-file F.sig [--entry main] [--backend cpu|cuda]
//              [harness flags: --input, --seed, --output-dir, --compare, ...]
//
// The entry's packed wrapper `_te_packed_<entry>` (added by te-run
// --emit-lowered, see Harness.h) is found with dlsym in the executable
// itself (linked with --export-dynamic). The signature file is the one
// scripts/te-aot.sh compile wrote: the entry's signature (te-run
// --print-signature) and the line `target T`, the target the object was
// compiled for (`cpu` if the line is absent), which decides where the
// arguments live (device memory for sm_90/sm_100 on the cuda backend), and
// `shape-checks on|off`: whether the object checks that its operands agree
// in their dynamic sizes, so that --input files may give each `?` its own
// size (`off` if absent). --signature TEXT and --target T give the first two
// on the command line instead (a --signature is read as unchecked).
//
//===----------------------------------------------------------------------===//

#include "Harness.h"

#include "te_rt_abi.h"

#include <dlfcn.h>

#if __has_include("te/ToolVersion.h")
#include "te/ToolVersion.h"
#else
#define TE_VERSION_STRING "unknown (built without te's build directory)"
#define TE_CUDA_VERSION_STRING "unknown"
#endif

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

int main(int argc, char **argv) {
  std::string entry = "main", backend = "cpu", sigText, sigFile, target;
  int64_t threads = 0;
  te::run::Options opts;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], err;
    if (te::run::parseHarnessFlag(argc, argv, i, opts, &err)) {
      if (!err.empty()) {
        std::fprintf(stderr, "te-aot-run: %s\n", err.c_str());
        return 2;
      }
      continue;
    }
    auto value = [&](std::string &out) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "te-aot-run: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      out = argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::printf("usage: te-aot-run --signature-file F.sig [--entry NAME] "
                  "[--backend cpu|cuda] [--threads N] [--signature TEXT] "
                  "[--target T]\n"
                  "Exit status: 0 success, 1 a failure while running (or a "
                  "FAIL), 2 a usage\n"
                  "error.\n"
                  "  --target T           the target the object was compiled "
                  "for (default:\n"
                  "                       the signature file's, else cpu)\n"
                  "  --threads N          cpu backend worker threads, "
                  "0..4096 (0: all)\n"
                  "  --version            te's version and the CUDA it was "
                  "built with\n"
                  "%s",
                  te::run::kHarnessFlagsHelp);
      return 0;
    }
    if (a == "--version") {
      std::printf("te-aot-run (te) %s\nCUDA: %s\nte_rt API version: %d\n",
                  TE_VERSION_STRING, TE_CUDA_VERSION_STRING,
                  te_rt_api_version());
      return 0;
    }
    if (a == "--entry") {
      value(entry);
    } else if (a == "--backend") {
      value(backend);
    } else if (a == "--signature") {
      value(sigText);
    } else if (a == "--signature-file") {
      value(sigFile);
    } else if (a == "--target") {
      value(target);
    } else if (a == "--threads") {
      std::string v;
      value(v);
      if (!te::run::parseInteger(v, 0, 4096, threads)) {
        std::fprintf(stderr,
                     "te-aot-run: --threads: '%s' is not an integer in "
                     "0..4096\n",
                     v.c_str());
        return 2;
      }
    } else {
      std::fprintf(stderr, "te-aot-run: unknown option '%s'\n", a.c_str());
      return 2;
    }
  }
  if (!sigFile.empty()) {
    std::ifstream in(sigFile);
    if (!in) {
      std::fprintf(stderr, "te-aot-run: cannot read %s\n", sigFile.c_str());
      return 1;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    sigText = ss.str();
  }
  te::run::Signature sig;
  std::string err, fileTarget;
  if (sigText.empty() ||
      !te::run::parseSignatureFile(sigText, sig, fileTarget, &err)) {
    std::fprintf(stderr, "te-aot-run: %s\n",
                 sigText.empty() ? "--signature-file is required"
                                 : err.c_str());
    return 2;
  }
  if (target.empty())
    target = fileTarget;
  if (backend != "cpu" && backend != "cuda") {
    std::fprintf(stderr, "te-aot-run: --backend must be cpu or cuda\n");
    return 2;
  }
  std::string mismatch = te::run::backendMismatch(backend, target);
  if (!mismatch.empty()) {
    std::fprintf(stderr, "te-aot-run: %s\n", mismatch.c_str());
    return 2;
  }
  std::string packed = te::run::packedName(entry);
  void *fn = dlsym(RTLD_DEFAULT, packed.c_str());
  if (!fn) {
    std::fprintf(stderr,
                 "te-aot-run: no %s in this executable (was it linked with "
                 "the module's object, made by scripts/te-aot.sh compile, and "
                 "--export-dynamic?)\n",
                 packed.c_str());
    return 1;
  }
  // The object's own signature (objects of older te-run versions have
  // none): a signature file for another entry or program would have the
  // driver pass buffers of the wrong sizes and types.
  std::string sigSymbol = te::run::signatureSymbolName(entry);
  if (const auto *embedded =
          static_cast<const char *>(dlsym(RTLD_DEFAULT, sigSymbol.c_str()))) {
    if (sig.str() != embedded) {
      std::fprintf(stderr,
                   "te-aot-run: the signature file gives @%s as '%s', but the "
                   "object was compiled for '%s' (use the .sig that "
                   "scripts/te-aot.sh compile wrote with the object)\n",
                   entry.c_str(), sig.str().c_str(), embedded);
      return 2;
    }
    // An object without the checks takes one size for every `?`.
    std::string checksSymbol = te::run::shapeChecksSymbolName(entry);
    if (!dlsym(RTLD_DEFAULT, checksSymbol.c_str()))
      sig.shapeChecks = false;
  }
  te_rt_context *ctx = nullptr;
  te_rt_backend kind =
      backend == "cuda" ? TE_RT_BACKEND_CUDA : TE_RT_BACKEND_CPU;
  if (te_rt_context_create(kind, &ctx) != TE_RT_OK) {
    std::fprintf(stderr, "te-aot-run: backend %s: %s\n", backend.c_str(),
                 te_rt_last_error());
    return 1;
  }
  if (threads > 0)
    te_rt_context_set_num_threads(ctx, static_cast<int>(threads));
  te_rt_set_current_context(ctx);
  te::run::Memory memory;
  if (!te::run::selectMemory(ctx, backend, target, memory, &err)) {
    std::fprintf(stderr, "te-aot-run: %s\n", err.c_str());
    return 1;
  }
  int rc = te::run::runEntry("te-aot-run", fn, sig, opts, memory);
  te_rt_set_current_context(nullptr);
  te_rt_context_destroy(ctx);
  return rc;
}
