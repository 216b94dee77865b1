//===- Harness.h - Calling compiled entry functions on data -----*- C++ -*-===//
//
// Part of te. Plain C++17 (no MLIR): shared by te-run (JIT) and te-aot-run
// (ahead-of-time driver for machines without MLIR).
//
//===----------------------------------------------------------------------===//
//
// A compiled entry function is called through its C interface
// (`llvm.emit_c_interface`): `void _mlir_ciface_f(R *results, D0 *arg0, ...)`
// where every argument and result is a ranked memref descriptor
// {allocated, aligned, offset, sizes[rank], strides[rank]}. The harness
// builds the descriptors from .npy files or seeded random data, calls the
// function, and writes, summarises or compares the results.
//
// A signature is written `f32[32,64], bf16[?,64] -> f32, f32[32,64]`:
// element types f32, f16, bf16, i8, f8E4M3FN, f8E5M2, f8E8M0FNU, i32, i64;
// `?` is a dynamic dimension; a type without brackets is a scalar (allowed
// among several results).
//
//===----------------------------------------------------------------------===//

#ifndef TE_TOOLS_TE_RUN_HARNESS_H
#define TE_TOOLS_TE_RUN_HARNESS_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace te::run {

struct TensorType {
  std::string elementType; ///< "f32", "bf16", ...
  std::vector<int64_t> shape; ///< -1: dynamic
  bool scalar = false;        ///< a scalar, e.g. `f32` (arguments: i64/i32)
  int64_t elementBytes() const;
  bool isFloat() const; ///< f32 / f16 / bf16
  std::string str() const;
};

struct Signature {
  std::vector<TensorType> args, results;
  std::string str() const;
};

/// Parses `f32[32,64], bf16[?,64] -> f32[32,64]`.
bool parseSignature(const std::string &text, Signature &out,
                    std::string *error);

/// A dense row-major array of one of the signature's element types.
struct Buffer {
  TensorType type; ///< static shape
  std::vector<uint8_t> bytes;
  int64_t numElements() const;
  /// Element i as a double (float types; raw bytes for the others).
  double at(int64_t i) const;
};

struct Options {
  std::vector<std::string> inputs;  ///< .npy per argument, in order
  uint64_t seed = 0;
  std::vector<std::pair<int, double>> fills; ///< --fill I=V: argument I is V
  int64_t dynamicDim = -1;          ///< size of `?` dims of generated args
  std::string outputDir;            ///< write result<i>.npy here
  std::vector<std::string> compare; ///< reference .npy per result
  double rtol = 0, atol = 0;        ///< elementwise |a-b| <= atol+rtol*|b|
  double maxRelErr = -1;            ///< normwise ||a-b|| / ||b|| bound
  std::vector<int> exact;           ///< results compared bit for bit
  int repeat = 1;
  bool quiet = false;
};

/// Makes the argument buffers: from the .npy files (checked against the
/// signature; f32 data is rounded to nearest even for bf16/f16 arguments) or
/// seeded standard-normal values, or the constant of --fill. An i64/i32
/// scalar argument is the number its --input or --fill gives, or the seed.
bool makeArguments(const Signature &sig, const Options &opts,
                   std::vector<Buffer> &args, std::string *error);

/// The entry point: `void f(void *results, void *desc...)`.
using EntryFn = void *;

/// Calls `fn` through its C interface `repeat` times; the results of the
/// last call are copied into `results`. `seconds` gets the mean wall time
/// of a call.
bool invoke(EntryFn fn, const Signature &sig, std::vector<Buffer> &args,
            int repeat, std::vector<Buffer> &results, double &seconds,
            std::string *error);

/// Prints a summary line per result, writes .npy files and compares with
/// the references. Returns the process exit code (0 = all PASS).
int report(const Signature &sig, const std::vector<Buffer> &results,
           const Options &opts, double seconds);

/// Parses the harness flags shared by te-run and te-aot-run (--input,
/// --seed, --output-dir, --compare, --rtol, --atol, --max-rel-err,
/// --exact, --repeat, --quiet, --dynamic-dim) at argv[i]; advances i. False if argv[i] is not one.
bool parseHarnessFlag(int argc, char **argv, int &i, Options &opts,
                      std::string *error);
extern const char *kHarnessFlagsHelp;

} // namespace te::run

#endif // TE_TOOLS_TE_RUN_HARNESS_H
