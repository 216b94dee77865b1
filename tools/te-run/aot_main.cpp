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
// The entry's C interface `_mlir_ciface_<entry>` is found with dlsym in the
// executable itself (linked with --export-dynamic); the signature file is
// the one `te-run --print-signature` wrote when the object was made.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"

#include "te_rt_abi.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

int main(int argc, char **argv) {
  std::string entry = "main", backend = "cpu", sigText, sigFile;
  int threads = 0;
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
                  "[--backend cpu|cuda] [--threads N] [--signature TEXT]\n%s",
                  te::run::kHarnessFlagsHelp);
      return 0;
    } else if (a == "--entry") {
      value(entry);
    } else if (a == "--backend") {
      value(backend);
    } else if (a == "--signature") {
      value(sigText);
    } else if (a == "--signature-file") {
      value(sigFile);
    } else if (a == "--threads") {
      std::string v;
      value(v);
      threads = std::atoi(v.c_str());
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
  std::string err;
  if (sigText.empty() || !te::run::parseSignature(sigText, sig, &err)) {
    std::fprintf(stderr, "te-aot-run: %s\n",
                 sigText.empty() ? "--signature-file is required"
                                 : err.c_str());
    return 2;
  }
  void *fn = dlsym(RTLD_DEFAULT, ("_mlir_ciface_" + entry).c_str());
  if (!fn) {
    std::fprintf(stderr,
                 "te-aot-run: no _mlir_ciface_%s in this executable (was it "
                 "linked with the module's object and --export-dynamic?)\n",
                 entry.c_str());
    return 1;
  }
  te_rt_context *ctx = nullptr;
  te_rt_backend kind =
      backend == "cuda" ? TE_RT_BACKEND_CUDA : TE_RT_BACKEND_CPU;
  if (backend != "cpu" && backend != "cuda") {
    std::fprintf(stderr, "te-aot-run: --backend must be cpu or cuda\n");
    return 2;
  }
  if (te_rt_context_create(kind, &ctx) != TE_RT_OK) {
    std::fprintf(stderr, "te-aot-run: backend %s: %s\n", backend.c_str(),
                 te_rt_last_error());
    return 1;
  }
  if (threads > 0)
    te_rt_context_set_num_threads(ctx, threads);
  te_rt_set_current_context(ctx);
  std::vector<te::run::Buffer> args, results;
  if (!te::run::makeArguments(sig, opts, args, &err)) {
    std::fprintf(stderr, "te-aot-run: %s\n", err.c_str());
    return 1;
  }
  double seconds = 0;
  if (!te::run::invoke(fn, sig, args, opts.repeat, results, seconds, &err)) {
    std::fprintf(stderr, "te-aot-run: %s\n", err.c_str());
    return 1;
  }
  if (te_rt_current_status() != 0) {
    std::fprintf(stderr, "te-aot-run: runtime error in %s\n",
                 static_cast<const char *>(te_rt_current_error()));
    return 1;
  }
  int rc = te::run::report(sig, results, opts, seconds);
  te_rt_set_current_context(nullptr);
  te_rt_context_destroy(ctx);
  return rc;
}
