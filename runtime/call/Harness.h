//===- Harness.h - Calling compiled entry functions on data -----*- C++ -*-===//
//
// Part of te. Plain C++17 (no MLIR): shared by te-run (JIT) and te-aot-run
// (ahead-of-time driver for machines without MLIR).
//
//===----------------------------------------------------------------------===//
//
// The harness builds the arguments of a compiled entry from .npy files or
// seeded random data, calls it through a call frame (Call.h, te_call.h: the
// packed wrapper's calling convention), and writes, summarises or compares
// the results.
//
// Memory: a program compiled for a GPU target (sm_90, sm_100) takes and
// returns memrefs in the current te_rt context's memory, and on the cuda
// backend that is device memory: the harness allocates the arguments with
// te_rt_malloc, copies them to the device once before the timed calls,
// copies the results back once after them and frees them with te_rt_free.
// A program compiled for target cpu uses host memory (results allocated with
// malloc); on the cuda backend the context stages host buffers per call
// (te_rt_context_set_host_memory).
//
//===----------------------------------------------------------------------===//

#ifndef TE_RUNTIME_CALL_HARNESS_H
#define TE_RUNTIME_CALL_HARNESS_H

#include "Call.h"
#include "te_call.h"
#include "te_rt.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace te::run {

using call::isGpuTarget;
using call::packedName;
using call::packedSlots;
using call::parseInteger;
using call::parseSignature;
using call::parseSignatureFile;
using call::parseUnsigned;
using call::shapeChecksSymbolName;
using call::Signature;
using call::signatureSymbolName;
using call::targetSymbolName;
using call::TensorType;

/// A dense row-major array of one of the signature's element types.
struct Buffer {
  TensorType type; ///< static shape
  std::vector<uint8_t> bytes;
  int64_t numElements() const;
  /// Element i as a double (float and integer types; the raw byte for the
  /// 8-bit float types).
  double at(int64_t i) const;
  /// Element i of an integer type, sign-extended (i1: 0 or 1).
  int64_t intAt(int64_t i) const;
};

struct Options {
  std::vector<std::string> inputs; ///< .npy per argument, in order
  uint64_t seed = 0;
  /// --fill I=V: argument I is V (`text`, read exactly for an integer
  /// argument).
  struct Fill {
    int index = 0;
    double value = 0;
    std::string text;
  };
  std::vector<Fill> fills;
  int64_t dynamicDim = -1;          ///< size of `?` dims of generated args
  std::string outputDir;            ///< write result<i>.npy here
  std::vector<std::string> compare; ///< reference .npy per result
  double rtol = 0, atol = 0;        ///< elementwise |a-b| <= atol+rtol*|b|
  double maxRelErr = -1;            ///< normwise ||a-b|| / ||b|| bound
  std::vector<int> exact;           ///< results compared bit for bit
  int repeat = 1;
  int warmup = 0; ///< untimed calls before the timed ones
  bool quiet = false;
};

/// Makes the argument buffers: from the .npy files (checked against the
/// signature; f32 data is rounded to nearest even for bf16/f16 arguments;
/// integer data is converted exactly, a value out of the argument's range
/// is an error) or seeded standard-normal values (i1: 0/1 values; the other
/// integer types are not generated), or the constant of --fill. A scalar
/// argument is the number its --input or --fill gives, or the seed.
bool makeArguments(const Signature &sig, const Options &opts,
                   std::vector<Buffer> &args, std::string *error);

/// The packed entry point: `void _te_packed_f(void **args)`.
using EntryFn = void *;

/// Where a program's memrefs live and which context runs it.
struct Memory {
  te_rt_context *ctx = nullptr;
  /// Memrefs in the context's device memory (te_rt_malloc); else host
  /// memory (results allocated with malloc).
  bool device = false;
};

/// Chooses the memory of a program compiled for `target` run on `backend`
/// (cpu|cuda) with `ctx`: device memory for a GPU target on cuda; host
/// memory for target cpu (on cuda the context is told to stage host
/// buffers: te_rt_context_set_host_memory). A GPU target on the cpu backend
/// is an error.
bool selectMemory(te_rt_context *ctx, const std::string &backend,
                  const std::string &target, Memory &memory,
                  std::string *error);

/// The message for a GPU-target program on the cpu backend, or "" if
/// `backend` can run a program compiled for `target`.
std::string backendMismatch(const std::string &backend,
                            const std::string &target);

/// Times of invoke(), in seconds.
struct Timing {
  double stepMean = 0, stepMin = 0; ///< one call, device-synchronised
  double stepMedian = 0;
  int warmup = 0;
  int repeat = 1;
  double upload = 0;   ///< arguments host -> device, once
  double download = 0; ///< results device -> host, once
};

/// Calls `fn` (the packed wrapper) `repeat` times; the results of the last
/// call are copied into `results`. In device memory the arguments are
/// uploaded once before the calls and the results downloaded once after
/// them; only the calls are timed as steps. The runtime's sticky status is
/// checked after every call: a failure is an error with its message.
/// `warmup` calls come first, untimed (module loading, the allocator's
/// first allocations).
bool invoke(EntryFn fn, const Signature &sig, std::vector<Buffer> &args,
            const Memory &memory, int repeat, std::vector<Buffer> &results,
            Timing &timing, std::string *error, int warmup = 0);

/// Prints a summary line per result, writes .npy files and compares with
/// the references. Returns the process exit code (0 = all PASS).
/// Ends with the line
/// `timing: step_ms=M min_ms=M repeat=N upload_ms=X download_ms=Y
/// median_ms=M warmup=W`.
int report(const Signature &sig, const std::vector<Buffer> &results,
           const Options &opts, const Timing &timing);

/// checkOptions + makeArguments + invoke + report, with messages prefixed by
/// `tool`. Returns the process exit code: 0 all PASS, 1 a failure while
/// running (or a FAIL), 2 options the signature contradicts.
int runEntry(const char *tool, EntryFn fn, const Signature &sig,
             const Options &opts, const Memory &memory);

/// Checks the options against the signature before anything runs: --exact
/// and --compare name existing results, --input gives every argument, the
/// --fill of an integer tensor is an integer in its range, and --output-dir
/// exists (it is created) and is writable.
bool checkOptions(const Signature &sig, const Options &opts,
                  std::string *error);

/// The tool named by te_run_checked_malloc's message.
void setAllocationTool(const char *tool);

/// The name compiled code calls instead of `malloc` (te-packed-entry
/// renames the lowered module's calls; te_call.h).
inline constexpr const char *kCheckedMallocName = "te_run_checked_malloc";

/// Parses the harness flags shared by te-run and te-aot-run (--input,
/// --seed, --output-dir, --compare, --rtol, --atol, --max-rel-err,
/// --exact, --repeat, --quiet, --dynamic-dim) at argv[i]; advances i. False if
/// argv[i] is not one.
bool parseHarnessFlag(int argc, char **argv, int &i, Options &opts,
                      std::string *error);
extern const char *kHarnessFlagsHelp;

} // namespace te::run

#endif // TE_RUNTIME_CALL_HARNESS_H
