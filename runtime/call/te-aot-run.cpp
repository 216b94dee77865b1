//===- te-aot-run.cpp - Driver for ahead-of-time compiled modules -*- C++
//-*-===//
//
// Part of te. No MLIR: runs where only libte_rt (and CUDA) exists.
//
//===----------------------------------------------------------------------===//
//
//   te-aot-run PROGRAM.so [--entry main] [--backend cpu|cuda]
//              [--signature-file F.sig] [harness flags: --input, ...]
//
// Runs an entry of a program compiled ahead of time (scripts/te-aot.sh
// compile IN.mlir OUT.so: a shared library holding the lowered module, its
// packed wrappers and their signatures, te_call.h). The program is opened
// with te_call_program_open; without a PROGRAM the driver looks in its own
// symbols (an executable linked with the module's object by
// scripts/te-aot.sh link). The entry's signature and target come from the
// program (`_te_signature_<entry>`, `_te_target_<entry>`); a signature file
// (--signature-file, or --signature TEXT and --target T) is checked against
// them, or, for an object without them, says what they are. The target
// decides where the arguments live (device memory for sm_90/sm_100 on the
// cuda backend), and `shape-checks on|off` whether each `?` of --input
// files may take its own size (only where the object checks them).
//
//===----------------------------------------------------------------------===//

#include "Args.h"
#include "Harness.h"

#include "te_call.h"
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
#include <sys/stat.h>

int main(int argc, char **argv) {
  // --opt=value is --opt value.
  std::vector<std::string> argStore = ::te::run::splitOptionValues(argc, argv);
  std::vector<char *> argPointers = ::te::run::argvOf(argStore);
  argc = static_cast<int>(argStore.size());
  argv = argPointers.data();
  std::string entry = "main", backend = "cpu", sigText, sigFile, target;
  std::string programPath;
  int64_t threads = 0;
  te::run::Options opts;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], err;
    if (te::run::parseHarnessFlag(argc, argv, i, opts, &err)) {
      if (!err.empty()) {
        std::fprintf(stderr, "te-aot-run: error: %s\n", err.c_str());
        return 2;
      }
      continue;
    }
    auto value = [&](std::string &out) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "te-aot-run: error: %s needs a value\n",
                     a.c_str());
        std::exit(2);
      }
      out = argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::printf("usage: te-aot-run [PROGRAM.so] [--entry NAME] "
                  "[--backend cpu|cuda] [--threads N]\n"
                  "                  [--signature-file F.sig | --signature "
                  "TEXT --target T] [harness flags]\n"
                  "Runs an entry of a program compiled by scripts/te-aot.sh "
                  "compile (without\n"
                  "PROGRAM: of the executable itself, linked by "
                  "scripts/te-aot.sh link).\n"
                  "Exit status: 0 success, 1 a failure while running (or a "
                  "FAIL), 2 a usage\n"
                  "error. An option's value follows it or an `=`: --seed 3 or "
                  "--seed=3.\n"
                  "  --entry NAME         the function to call (default: "
                  "main)\n"
                  "  --backend cpu|cuda   runtime backend (default: cpu)\n"
                  "  --signature-file F   the .sig scripts/te-aot.sh compile "
                  "wrote (checked\n"
                  "                       against the program's own)\n"
                  "  --target T           the target the object was compiled "
                  "for (default:\n"
                  "                       the program's, else the signature "
                  "file's, else cpu)\n"
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
                     "te-aot-run: error: --threads: '%s' is not an integer in "
                     "0..4096\n",
                     v.c_str());
        return 2;
      }
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "te-aot-run: error: unknown option '%s'\n",
                   a.c_str());
      return 2;
    } else if (programPath.empty()) {
      programPath = a;
    } else {
      std::fprintf(stderr, "te-aot-run: error: more than one program\n");
      return 2;
    }
  }
  if (!sigFile.empty()) {
    // A signature file is a few lines: read at most 1 MiB of it (a
    // device or a huge file is not read without bound).
    constexpr size_t kMostSignatureBytes = size_t(1) << 20;
    struct stat st;
    if (stat(sigFile.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      std::fprintf(stderr,
                   "te-aot-run: error: --signature-file '%s' is a directory\n",
                   sigFile.c_str());
      return 2;
    }
    std::ifstream in(sigFile, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "te-aot-run: cannot read %s\n", sigFile.c_str());
      return 1;
    }
    sigText.assign(kMostSignatureBytes + 1, '\0');
    in.read(sigText.data(), static_cast<std::streamsize>(sigText.size()));
    sigText.resize(static_cast<size_t>(in.gcount()));
    if (sigText.size() > kMostSignatureBytes) {
      std::fprintf(stderr,
                   "te-aot-run: error: --signature-file '%s' is larger than "
                   "1 MiB (a signature file is a few lines)\n",
                   sigFile.c_str());
      return 2;
    }
    if (sigText.empty()) {
      std::fprintf(stderr,
                   "te-aot-run: error: --signature-file '%s' is empty\n",
                   sigFile.c_str());
      return 2;
    }
  }
  if (backend != "cpu" && backend != "cuda") {
    std::fprintf(stderr, "te-aot-run: error: --backend must be cpu or cuda\n");
    return 2;
  }
  te::run::setAllocationTool("te-aot-run");
  te_call_program *program = nullptr;
  if (te_call_program_open(programPath.empty() ? nullptr : programPath.c_str(),
                           &program) != 0) {
    std::fprintf(stderr, "te-aot-run: %s\n", te_call_last_error());
    return 1;
  }
  std::string packed = te::run::packedName(entry);
  void *fn = nullptr;
  te_call_signature *embedded = nullptr;
  te::run::Signature sig;
  std::string err, fileTarget;
  if (te_call_program_entry(program, entry.c_str(), &fn, &embedded) == 0) {
    // The object's own signature: a signature file for another entry or
    // program would have the driver pass buffers of the wrong sizes and
    // types.
    te::run::Signature own;
    std::string ownTarget;
    te::run::parseSignatureFile(te_call_signature_text(embedded), own,
                                ownTarget, &err);
    own.shapeChecks = te_call_signature_shape_checks(embedded) != 0;
    std::string embeddedTarget = te_call_signature_target(embedded);
    te_call_signature_destroy(embedded);
    if (!sigText.empty()) {
      if (!te::run::parseSignatureFile(sigText, sig, fileTarget, &err)) {
        std::fprintf(stderr, "te-aot-run: error: %s\n", err.c_str());
        return 2;
      }
      if (sig.str() != own.str()) {
        std::fprintf(
            stderr,
            "te-aot-run: error: the signature file gives @%s as '%s', but "
            "the object was compiled for '%s' (use the .sig that "
            "scripts/te-aot.sh compile wrote with the object)\n",
            entry.c_str(), sig.str().c_str(), own.str().c_str());
        return 2;
      }
    }
    // Each `?` takes its own size only where the object checks them.
    bool fileChecks = !sigText.empty() && sig.shapeChecks;
    sig = own;
    sig.shapeChecks = own.shapeChecks && (sigText.empty() || fileChecks);
    fileTarget = embeddedTarget;
  } else {
    // An object of an older te: the signature file says what it is.
    fn = dlsym(RTLD_DEFAULT, packed.c_str());
    if (!fn && programPath.empty()) {
      std::fprintf(stderr,
                   "te-aot-run: no %s in this executable (give the program's "
                   "shared library, or link the module's object with "
                   "scripts/te-aot.sh link)\n",
                   packed.c_str());
      return 1;
    }
    if (!fn) {
      std::fprintf(stderr, "te-aot-run: %s\n", te_call_last_error());
      return 1;
    }
    if (sigText.empty() ||
        !te::run::parseSignatureFile(sigText, sig, fileTarget, &err)) {
      std::fprintf(stderr, "te-aot-run: error: %s\n",
                   sigText.empty() ? "the object holds no signature: give "
                                     "--signature-file"
                                   : err.c_str());
      return 2;
    }
  }
  if (target.empty())
    target = fileTarget;
  std::string mismatch = te::run::backendMismatch(backend, target);
  if (!mismatch.empty()) {
    std::fprintf(stderr, "te-aot-run: error: %s\n", mismatch.c_str());
    return 2;
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
  te_call_program_close(program);
  return rc;
}
