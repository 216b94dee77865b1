//===- Harness.cpp - Calling compiled entry functions on data ---*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"

#include "Npy.h"
#include "te/Format/Codecs.h"
#include "te_call.h"
#include "te_rt_abi.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <random>
#include <sstream>
#include <stdexcept>
#include <sys/resource.h>
#include <unistd.h>
#include <utility>

namespace te::run {

namespace {

double readFloat(const TensorType &t, const uint8_t *p) {
  if (t.elementType == "f32") {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (t.elementType == "f64") {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return t.elementType == "bf16" ? te::format::bf16ToFloat(h)
                                 : te::format::f16ToFloat(h);
}

void writeFloat(const TensorType &t, uint8_t *p, float v) {
  if (t.elementType == "f32") {
    std::memcpy(p, &v, 4);
    return;
  }
  if (t.elementType == "f64") {
    double d = v;
    std::memcpy(p, &d, 8);
    return;
  }
  uint16_t h = t.elementType == "bf16" ? te::format::floatToBF16(v)
                                       : te::format::floatToF16(v);
  std::memcpy(p, &h, 2);
}

/// Stores the integer `v` (in the range of `t`) as an element of `t`.
void writeInt(const TensorType &t, uint8_t *p, int64_t v) {
  // Little endian: the low bytes of the two's complement.
  std::memcpy(p, &v, static_cast<size_t>(t.elementBytes()));
}

/// "lo..hi" of an integer type.
std::string rangeText(const TensorType &t) {
  int64_t lo = 0, hi = 0;
  t.integerRange(lo, hi);
  return std::to_string(lo) + ".." + std::to_string(hi);
}

int64_t product(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// a * b, or false if it overflows int64.
bool checkedMul(int64_t a, int64_t b, int64_t &out) {
  return !__builtin_mul_overflow(a, b, &out);
}

/// The largest array (bytes) the harness hands to or takes from compiled
/// code: 64 TiB. Keeping every byte size and every extent below it keeps the
/// compiled code's own size arithmetic (elements x element size, offsets)
/// far from int64 overflow.
constexpr int64_t kMaxBytes = int64_t(1) << 46;

/// Checks that `shape` of `elementBytes`-byte elements is an array the
/// harness can hold: no negative dimension, and the byte size -- counting a
/// zero dimension as 1, since compiled code may still multiply the others --
/// at most kMaxBytes. Sets `bytes` to the real byte size.
bool checkArrayBytes(const std::string &what, const std::vector<int64_t> &shape,
                     int64_t elementBytes, int64_t &bytes, std::string *error) {
  int64_t extent = elementBytes;
  bytes = elementBytes;
  for (int64_t d : shape) {
    if (d < 0) {
      *error = what + " has a negative dimension (" + std::to_string(d) + ")";
      return false;
    }
    if (!checkedMul(extent, std::max<int64_t>(d, 1), extent) ||
        extent > kMaxBytes) {
      *error = what + " is too large: more than 2^46 bytes";
      return false;
    }
    bytes *= d;
  }
  return true;
}

/// Resizes `bytes` to `n`, or sets the "out of memory" error.
bool allocate(std::vector<uint8_t> &bytes, int64_t n, const std::string &what,
              std::string *error) {
  try {
    bytes.resize(static_cast<size_t>(n));
    return true;
  } catch (const std::bad_alloc &) {
  } catch (const std::length_error &) {
  }
  *error =
      "out of memory allocating " + std::to_string(n) + " bytes for " + what;
  return false;
}

/// The memory this process may use in bytes: the machine's physical memory,
/// or less under an address-space limit (ulimit -v) or a cgroup memory limit
/// (kMaxBytes if nothing is known).
int64_t physicalMemoryBytes() {
  int64_t limit = kMaxBytes;
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && size > 0)
    limit = std::min<int64_t>(limit, int64_t(pages) * size);
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    limit = std::min<int64_t>(
        limit, static_cast<int64_t>(std::min<rlim_t>(rl.rlim_cur, kMaxBytes)));
  if (FILE *f = std::fopen("/sys/fs/cgroup/memory.max", "r")) {
    unsigned long long v = 0;
    if (std::fscanf(f, "%llu", &v) == 1 && v > 0)
      limit = std::min<int64_t>(
          limit, static_cast<int64_t>(std::min<unsigned long long>(
                     v, static_cast<unsigned long long>(kMaxBytes))));
    std::fclose(f);
  }
  return limit;
}

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The runtime's message for a failed call `what`.
std::string runtimeMessage(const std::string &what, te_rt_status status) {
  const char *message = te_rt_last_error();
  return what + ": " +
         (message && *message ? message : te_rt_status_string(status));
}

/// Argument buffers in the context's memory, freed at the end of invoke().
struct DeviceBuffers {
  te_rt_context *ctx = nullptr;
  std::vector<void *> ptrs;
  ~DeviceBuffers() {
    for (void *p : ptrs)
      te_rt_free(ctx, p);
  }
};

} // namespace

namespace {
/// The tool named by the progress line.
const char *progressTool = "te-run";
} // namespace

void setAllocationTool(const char *tool) {
  te_call_set_tool_name(tool);
  progressTool = tool;
}

std::string backendMismatch(const std::string &backend,
                            const std::string &target) {
  if (backend == "cpu" && isGpuTarget(target))
    return "compiled for " + target +
           ": run it with --backend cuda, or compile with --target cpu";
  return "";
}

bool selectMemory(te_rt_context *ctx, const std::string &backend,
                  const std::string &target, Memory &memory,
                  std::string *error) {
  memory.ctx = ctx;
  memory.device = false;
  std::string mismatch = backendMismatch(backend, target);
  if (!mismatch.empty()) {
    *error = mismatch;
    return false;
  }
  if (backend != "cuda")
    return true;
  if (isGpuTarget(target)) {
    memory.device = true;
    return true;
  }
  // A host program on a cuda context: the runtime stages its buffers.
  te_rt_status s = te_rt_context_set_host_memory(ctx, 1);
  if (s != TE_RT_OK) {
    *error = runtimeMessage("te_rt_context_set_host_memory", s);
    return false;
  }
  return true;
}

int64_t Buffer::numElements() const { return product(type.shape); }

double Buffer::at(int64_t i) const {
  const uint8_t *p = bytes.data() + i * type.elementBytes();
  if (type.isFloat())
    return readFloat(type, p);
  if (type.isInteger())
    return static_cast<double>(intAt(i));
  return p[0];
}

int64_t Buffer::intAt(int64_t i) const {
  int64_t eb = type.elementBytes();
  const uint8_t *p = bytes.data() + i * eb;
  if (type.elementType == "i1")
    return p[0];
  uint64_t u = 0;
  std::memcpy(&u, p, static_cast<size_t>(eb)); // little endian
  if (eb < 8) {
    uint64_t sign = uint64_t(1) << (8 * eb - 1);
    u = (u ^ sign) - sign; // sign-extend
  }
  return static_cast<int64_t>(u);
}

namespace {

/// A scalar argument's value: its --input text, else its --fill value, else
/// the seed. Integers are read exactly (out of range is an error, never
/// saturated or wrapped).
bool makeScalar(const TensorType &t, size_t i, const Options &opts, Buffer &b,
                const std::string &which, std::string *error) {
  bool integer = t.isInteger();
  if (!integer && t.elementType != "f32" && t.elementType != "f64") {
    *error = which +
             ": scalar arguments must be i1, i8, i16, i32, i64 (index), f32 "
             "or f64 (pass a " +
             t.elementType + " as a tensor of one element)";
    return false;
  }
  int64_t lo = 0, hi = 0;
  if (integer)
    t.integerRange(lo, hi);
  std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  int64_t intValue = 0;
  double floatValue = static_cast<double>(opts.seed);
  bool given = !opts.inputs.empty() ||
               std::any_of(opts.fills.begin(), opts.fills.end(),
                           [&](const Options::Fill &f) {
                             return f.index == static_cast<int>(i);
                           });
  if (integer && !given && opts.seed > static_cast<uint64_t>(hi)) {
    *error = which + ": the seed " + std::to_string(opts.seed) +
             " (its value without --input or --fill) is outside " + range;
    return false;
  }
  intValue = static_cast<int64_t>(opts.seed);
  for (const Options::Fill &f : opts.fills)
    if (f.index == static_cast<int>(i)) {
      double v = f.value;
      floatValue = v;
      // An integer read exactly; else a number with an integer value.
      if (!integer || parseInteger(f.text, lo, hi, intValue))
        continue;
      if (!(v >= static_cast<double>(lo) && v < static_cast<double>(hi) + 1.0 &&
            v == std::trunc(v))) {
        *error = which + ": --fill value " + std::to_string(v) +
                 " is not an integer in " + range;
        return false;
      }
      intValue = static_cast<int64_t>(v);
    }
  if (!opts.inputs.empty()) {
    const std::string &text = opts.inputs[i];
    if (integer) {
      if (!parseInteger(text, lo, hi, intValue)) {
        *error = which + ": --input '" + text + "' is not an integer in " +
                 range + " (a scalar argument's --input is its value)";
        return false;
      }
    } else {
      char *end = nullptr;
      errno = 0;
      floatValue = std::strtod(text.c_str(), &end);
      if (!text.empty() && !*end && errno == ERANGE && std::isinf(floatValue)) {
        *error = which + ": --input '" + text +
                 "' is outside the range of f64 (write inf for infinity)";
        return false;
      }
      if (text.empty() || *end) {
        *error = which + ": --input '" + text +
                 "' is not a number (a scalar argument's --input is its "
                 "value)";
        return false;
      }
    }
  }
  if (integer && intValue > hi) {
    *error = which + ": " + std::to_string(intValue) + " is outside " + range;
    return false;
  }
  if (t.elementType == "f32" && std::isfinite(floatValue) &&
      std::fabs(floatValue) > std::numeric_limits<float>::max()) {
    *error = which + ": " + std::to_string(floatValue) +
             " is outside the range of f32";
    return false;
  }
  b.bytes.resize(t.elementBytes());
  if (integer) {
    // Little-endian: the value's low bytes (in range, checked above).
    for (int64_t k = 0; k < t.elementBytes(); ++k)
      b.bytes[k] =
          static_cast<uint8_t>(static_cast<uint64_t>(intValue) >> (8 * k));
  } else if (t.elementType == "f32") {
    float v = static_cast<float>(floatValue);
    std::memcpy(b.bytes.data(), &v, 4);
  } else {
    std::memcpy(b.bytes.data(), &floatValue, 8);
  }
  return true;
}

/// Element e of a .npy array of a float kind, as a double.
double npyFloat(const te::npy::Array &a, int64_t e) {
  const uint8_t *p = a.bytes.data() + e * te::npy::Array::elementBytes(a.kind);
  if (a.kind == te::npy::Kind::F32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (a.kind == te::npy::Kind::F64) {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return te::format::f16ToFloat(h);
}

bool isNpyFloat(te::npy::Kind k) { return te::npy::isFloat(k); }

/// Element e of an integer or bool .npy array: its value, or false for a
/// <u8 value above INT64_MAX (`text` is then its decimal form, as always).
bool npyInteger(const te::npy::Array &a, int64_t e, int64_t &value,
                std::string &text) {
  int64_t eb = te::npy::Array::elementBytes(a.kind);
  const uint8_t *p = a.bytes.data() + e * eb;
  uint64_t u = 0;
  std::memcpy(&u, p, static_cast<size_t>(eb)); // little endian
  bool isSigned = a.kind == te::npy::Kind::I8 || a.kind == te::npy::Kind::I16 ||
                  a.kind == te::npy::Kind::I32 || a.kind == te::npy::Kind::I64;
  if (isSigned && eb < 8) {
    uint64_t sign = uint64_t(1) << (8 * eb - 1);
    u = (u ^ sign) - sign; // sign-extend
  }
  if (!isSigned &&
      u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    text = std::to_string(u);
    return false;
  }
  value = static_cast<int64_t>(u);
  text = std::to_string(value);
  return true;
}

/// The integer dtypes an integer argument or result takes.
const char *kNpyIntegerKinds = "|i1, <i2, <i4, <i8, |u1, <u2, <u4, <u8 or |b1";

/// Fills `b` (an integer type `t`) from the integer or bool .npy array `a`,
/// exactly: a value outside `t`'s range is an error, never wrapped or
/// saturated.
bool convertIntegerInput(const TensorType &t, te::npy::Array &a,
                         const std::string &path, Buffer &b,
                         const std::string &which, std::string *error) {
  if (!te::npy::isInteger(a.kind) && a.kind != te::npy::Kind::Bool) {
    *error = which + ": " + path + " has dtype " + te::npy::descr(a.kind) +
             ", expected an integer array (" + kNpyIntegerKinds +
             "): integer arguments are not converted from " +
             (isNpyFloat(a.kind) ? "floats" : "other data");
    return false;
  }
  int64_t n = a.numElements();
  int64_t eb = t.elementBytes();
  if (!allocate(b.bytes, n * eb, which, error))
    return false;
  int64_t lo = 0, hi = 0;
  t.integerRange(lo, hi);
  for (int64_t e = 0; e < n; ++e) {
    int64_t v = 0;
    std::string text;
    bool fits = npyInteger(a, e, v, text);
    if (a.kind == te::npy::Kind::Bool && (v < 0 || v > 1)) {
      *error = which + ": " + path + ": element " + std::to_string(e) + " (" +
               text + ") of the |b1 array is not 0 or 1";
      return false;
    }
    if (!fits || v < lo || v > hi) {
      *error = which + ": " + path + ": element " + std::to_string(e) + " (" +
               text + ") is outside the range of " + t.elementType + " (" +
               rangeText(t) + ")";
      return false;
    }
    writeInt(t, b.bytes.data() + e * eb, v);
  }
  return true;
}

/// Fills `b` (type `t`, shape already set) from the .npy array `a`.
bool convertInput(const TensorType &t, te::npy::Array &a,
                  const std::string &path, Buffer &b, const std::string &which,
                  std::string *error) {
  int64_t n = a.numElements();
  int64_t eb = t.elementBytes();
  // Raw bits: |u1 for 8-bit types but i1 (i8 too: packed data), <u2 for
  // bf16/f16, <f2 for f16, <f8 for f64.
  bool raw =
      (eb == 1 && a.kind == te::npy::Kind::U8 && t.elementType != "i1") ||
      ((t.elementType == "bf16" || t.elementType == "f16") &&
       a.kind == te::npy::Kind::U16) ||
      (t.elementType == "f16" && a.kind == te::npy::Kind::F16) ||
      (t.elementType == "f64" && a.kind == te::npy::Kind::F64);
  if (raw) {
    b.bytes = std::move(a.bytes);
    return true;
  }
  if (t.isInteger())
    return convertIntegerInput(t, a, path, b, which, error);
  if (!t.isFloat() || !isNpyFloat(a.kind)) {
    *error = which + ": " + path + " has dtype " + te::npy::descr(a.kind) +
             ", expected " +
             (t.isFloat() ? std::string("<f4, <f2 or <f8") +
                                (eb == 2 ? " or <u2 (raw bits)" : "")
              : eb == 1 ? std::string("|u1 (raw bits)")
                        : std::string("a float array"));
    return false;
  }
  if (!allocate(b.bytes, n * eb, which, error))
    return false;
  for (int64_t e = 0; e < n; ++e) {
    double v = npyFloat(a, e);
    if (t.elementType == "f64") {
      std::memcpy(b.bytes.data() + e * 8, &v, 8);
      continue;
    }
    if (std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max()) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%g", v);
      *error = which + ": " + path + ": element " + std::to_string(e) + " (" +
               buf + ") is outside the range of f32";
      return false;
    }
    writeFloat(t, b.bytes.data() + e * eb, static_cast<float>(v));
  }
  return true;
}

/// Why an integer tensor argument without --input or --fill is refused.
std::string integerNotGenerated(size_t i) {
  return "integer arguments are not generated (they are often indices): "
         "give its data with --input FILE.npy or a constant with --fill " +
         std::to_string(i) + "=V";
}

/// The message for a --fill value that is not an integer of `t`.
std::string fillNotInteger(const TensorType &t, const Options::Fill &f) {
  return "--fill " + std::to_string(f.index) + "=" + f.text +
         ": the value is not an integer in " + rangeText(t) +
         " (an integer argument's constant is read exactly)";
}

} // namespace

bool makeArguments(const Signature &sig, const Options &opts,
                   std::vector<Buffer> &args, std::string *error) {
  int64_t generatedBytes = 0;
  if (!opts.inputs.empty() && opts.inputs.size() != sig.args.size()) {
    *error = "the entry function takes " + std::to_string(sig.args.size()) +
             " arguments, " + std::to_string(opts.inputs.size()) +
             " --input files were given";
    return false;
  }
  for (const Options::Fill &f : opts.fills) {
    int index = f.index;
    if (!opts.inputs.empty()) {
      *error = "--fill and --input exclude each other (give every argument "
               "with --input)";
      return false;
    }
    if (index >= static_cast<int>(sig.args.size())) {
      *error = "--fill " + std::to_string(index) +
               "=...: the entry function takes " +
               std::to_string(sig.args.size()) + " arguments";
      return false;
    }
  }
  // Generated arguments give every `?` dimension one size. Files give
  // theirs: each its own where the compiled code checks that operands agree
  // (te-check-shapes), else one size across the files, since code without
  // the checks would read past the smaller of two operands that disagree.
  int64_t dynamicSize = opts.inputs.empty() ? opts.dynamicDim : -1;
  std::string dynamicFrom = "--dynamic-dim";
  std::mt19937_64 rng(opts.seed);
  args.clear();
  for (size_t i = 0; i < sig.args.size(); ++i) {
    const TensorType &t = sig.args[i];
    Buffer b;
    b.type = t;
    std::string which = "argument " + std::to_string(i) + " (" + t.str() + ")";
    if (t.scalar) {
      if (!makeScalar(t, i, opts, b, which, error))
        return false;
      args.push_back(std::move(b));
      continue;
    }
    if (opts.inputs.empty()) {
      for (int64_t &d : b.type.shape)
        if (d < 0) {
          if (opts.dynamicDim < 0) {
            *error = which + " has a dynamic shape: give its data with "
                             "--input or its size with --dynamic-dim";
            return false;
          }
          d = opts.dynamicDim;
        }
      const Options::Fill *fill = nullptr;
      for (const Options::Fill &f : opts.fills)
        if (f.index == static_cast<int>(i))
          fill = &f;
      if (t.isInteger() && !fill && t.elementType != "i1") {
        *error = which + ": " + integerNotGenerated(i);
        return false;
      }
      if (!t.isFloat() && !t.isInteger()) {
        *error = which + ": only float arguments can be generated";
        return false;
      }
      // A size that cannot be allocated is an error, not an abort.
      int64_t bytes = 0;
      if (!checkArrayBytes(which + ": " + b.type.str(), b.type.shape,
                           t.elementBytes(), bytes, error))
        return false;
      // Generated inputs live in host memory first: more than the machine
      // has would have the process killed, not refused.
      generatedBytes += bytes;
      if (generatedBytes > physicalMemoryBytes()) {
        *error = which + ": " + b.type.str() + " needs " +
                 std::to_string(generatedBytes >> 20) +
                 " MiB of host memory for the generated arguments so far; "
                 "this machine has " +
                 std::to_string(physicalMemoryBytes() >> 20) + " MiB";
        return false;
      }
      if (!allocate(b.bytes, bytes, which, error))
        return false;
      int64_t n = bytes / t.elementBytes();
      if (fill && t.isInteger()) {
        int64_t lo = 0, hi = 0, v = 0;
        t.integerRange(lo, hi);
        if (!parseInteger(fill->text, lo, hi, v)) {
          *error = which + ": " + fillNotInteger(t, *fill);
          return false;
        }
        for (int64_t e = 0; e < n; ++e)
          writeInt(t, b.bytes.data() + e * t.elementBytes(), v);
        args.push_back(std::move(b));
        continue;
      }
      if (fill) {
        // The value in the element type: f64 exactly, a finite value
        // beyond a narrower type's largest refused (never inf silently).
        double largest = t.elementType == "f16"
                             ? 65504.0
                             : std::numeric_limits<float>::max();
        if (t.elementType != "f64" && std::isfinite(fill->value) &&
            std::fabs(fill->value) > largest) {
          *error = which + ": --fill value " + fill->text +
                   " is outside the range of " + t.elementType;
          return false;
        }
        for (int64_t e = 0; e < n; ++e) {
          uint8_t *p = b.bytes.data() + e * t.elementBytes();
          if (t.elementType == "f64")
            std::memcpy(p, &fill->value, 8);
          else
            writeFloat(t, p, static_cast<float>(fill->value));
        }
        args.push_back(std::move(b));
        continue;
      }
      if (t.elementType == "i1") {
        // 0 or 1, one bit of the generator per element.
        for (int64_t e = 0; e < n; ++e)
          b.bytes[e] = static_cast<uint8_t>(rng() >> 63);
        args.push_back(std::move(b));
        continue;
      }
      // Standard normal values (Box-Muller on the 64-bit Mersenne twister,
      // the same on every platform).
      for (int64_t e = 0; e < n; ++e) {
        double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;
        double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
        double v =
            std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
        writeFloat(t, b.bytes.data() + e * t.elementBytes(),
                   static_cast<float>(v));
      }
      args.push_back(std::move(b));
      continue;
    }
    te::npy::Array a;
    if (!te::npy::read(opts.inputs[i], a, error))
      return false;
    if (a.shape.size() != t.shape.size()) {
      *error = which + ": " + opts.inputs[i] + " has rank " +
               std::to_string(a.shape.size());
      return false;
    }
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (t.shape[d] >= 0 && t.shape[d] != a.shape[d]) {
        *error = which + ": " + opts.inputs[i] + " has dimension " +
                 std::to_string(d) + " = " + std::to_string(a.shape[d]);
        return false;
      }
      if (t.shape[d] >= 0 || sig.shapeChecks)
        continue;
      if (dynamicSize < 0) {
        dynamicSize = a.shape[d];
        dynamicFrom = "argument " + std::to_string(i) + " (" + opts.inputs[i] +
                      ") dimension " + std::to_string(d);
      } else if (a.shape[d] != dynamicSize) {
        *error = which + ": " + opts.inputs[i] + " has " +
                 std::to_string(a.shape[d]) + " at the dynamic dimension " +
                 std::to_string(d) + ", " + dynamicFrom + " has " +
                 std::to_string(dynamicSize) +
                 ": every `?` dimension takes one size (the program was "
                 "compiled without te-check-shapes)";
        return false;
      }
    }
    b.type.shape = a.shape;
    int64_t bytes = 0;
    if (!checkArrayBytes(which + ": " + opts.inputs[i], a.shape,
                         t.elementBytes(), bytes, error))
      return false;
    if (!convertInput(t, a, opts.inputs[i], b, which, error))
      return false;
    args.push_back(std::move(b));
  }
  return true;
}

bool invoke(EntryFn fn, const Signature &sig, std::vector<Buffer> &args,
            const Memory &memory, int repeat, std::vector<Buffer> &results,
            Timing &timing, std::string *error, int warmup) {
  te_rt_context *ctx = memory.ctx;
  const bool device = memory.device;
  if (repeat < 1)
    repeat = 1;
  timing = Timing();
  timing.repeat = repeat;

  // The memory of every memref argument: its host bytes, or a buffer of the
  // context's that holds a copy of them.
  DeviceBuffers owned;
  owned.ctx = ctx;
  std::vector<void *> data(args.size(), nullptr);
  for (size_t i = 0; i < args.size(); ++i) {
    Buffer &b = args[i];
    if (b.type.scalar)
      continue;
    if (!device) {
      data[i] = b.bytes.data();
      continue;
    }
    te_rt_status s = te_rt_malloc(ctx, b.bytes.size(), &data[i]);
    if (s != TE_RT_OK) {
      *error = runtimeMessage("argument " + std::to_string(i) + " (" +
                                  b.type.str() + "): te_rt_malloc of " +
                                  std::to_string(b.bytes.size()) + " bytes",
                              s);
      return false;
    }
    owned.ptrs.push_back(data[i]);
  }
  if (device) {
    Clock::time_point start = Clock::now();
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].type.scalar || args[i].bytes.empty())
        continue;
      te_rt_status s = te_rt_memcpy(ctx, data[i], args[i].bytes.data(),
                                    args[i].bytes.size(), TE_RT_HOST_TO_DEVICE);
      if (s != TE_RT_OK) {
        *error = runtimeMessage(
            "argument " + std::to_string(i) + ": copy to the device", s);
        return false;
      }
    }
    te_rt_status s = te_rt_synchronize(ctx, nullptr);
    if (s != TE_RT_OK) {
      *error = runtimeMessage("te_rt_synchronize after the upload", s);
      return false;
    }
    timing.upload = secondsSince(start);
  }

  // The call frame: descriptors, the packed wrapper's slots and the
  // results struct (te_call.h).
  call::Frame frame(sig);
  for (size_t i = 0; i < args.size(); ++i) {
    bool ok = args[i].type.scalar
                  ? frame.setScalar(i, args[i].bytes.data(), error)
                  : frame.setTensor(i, data[i], args[i].type.shape, {}, error);
    if (!ok)
      return false;
  }
  void **slots = nullptr;
  if (!frame.prepare(&slots, error))
    return false;

  // Free each allocation the call handed over once; in device memory
  // through the runtime.
  auto freeReturnedBuffers = [&]() {
    for (size_t r = 0; r < sig.results.size(); ++r) {
      call::Frame::Result result;
      if (!frame.result(r, result, error))
        return false;
      if (!result.owned)
        continue;
      if (!device) {
        std::free(result.allocated);
        continue;
      }
      te_rt_status s = te_rt_free(ctx, result.allocated);
      if (s != TE_RT_OK) {
        *error =
            runtimeMessage("result " + std::to_string(r) + ": te_rt_free", s);
        return false;
      }
    }
    return true;
  };

  using PackedFn = void (*)(void **);
  double total = 0, fastest = std::numeric_limits<double>::infinity();
  std::vector<double> times;
  if (warmup < 0)
    warmup = 0;
  // Progress of long runs on a terminal: `<tool>: call K/N`, on one line
  // rewritten at most five times a second, cleared at the end.
  const bool progress = warmup + repeat > 1 && isatty(STDERR_FILENO);
  Clock::time_point lastProgress = Clock::now();
  bool progressShown = false;
  auto showProgress = [&](int done, bool last) {
    if (!progress || (!last && secondsSince(lastProgress) < 0.2))
      return;
    lastProgress = Clock::now();
    progressShown = true;
    std::fprintf(stderr, "\r%s: call %d/%d%s", progressTool, done,
                 warmup + repeat, done <= warmup ? " (warmup)" : "");
    if (last)
      std::fprintf(stderr, "\n");
    std::fflush(stderr);
  };
  for (int r = 0; r < warmup + repeat; ++r) {
    showProgress(r, false);
    Clock::time_point start = Clock::now();
    reinterpret_cast<PackedFn>(fn)(slots);
    te_rt_status sync = te_rt_synchronize(ctx, nullptr);
    double seconds = secondsSince(start);
    if (te_rt_current_status() != 0) {
      *error = std::string("runtime error in ") +
               static_cast<const char *>(te_rt_current_error());
      return false;
    }
    if (sync != TE_RT_OK) {
      *error = runtimeMessage(
          "te_rt_synchronize after call " + std::to_string(r + 1), sync);
      return false;
    }
    if (r >= warmup) {
      total += seconds;
      fastest = std::min(fastest, seconds);
      times.push_back(seconds);
    }
    if (r + 1 < warmup + repeat && !freeReturnedBuffers())
      return false;
  }
  if (progressShown)
    showProgress(warmup + repeat, true);
  timing.stepMean = total / repeat;
  timing.stepMin = fastest;
  std::sort(times.begin(), times.end());
  timing.stepMedian =
      times.size() % 2
          ? times[times.size() / 2]
          : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
  timing.warmup = warmup;

  results.clear();
  Clock::time_point downloadStart = Clock::now();
  std::vector<uint8_t> staging;
  for (size_t r = 0; r < sig.results.size(); ++r) {
    const TensorType &t = sig.results[r];
    call::Frame::Result result;
    if (!frame.result(r, result, error))
      return false;
    if (t.scalar) {
      Buffer b;
      b.type = t;
      b.bytes.assign(result.value, result.value + t.elementBytes());
      results.push_back(std::move(b));
      continue;
    }
    Buffer b;
    b.type = t;
    size_t rank = t.shape.size();
    const int64_t *sizes = result.shape.data(),
                  *strides = result.strides.data();
    for (size_t i = 0; i < rank; ++i)
      b.type.shape[i] = sizes[i];
    std::string which = "result " + std::to_string(r) + " (" + t.str() + ")";
    int64_t eb = t.elementBytes(), resultBytes = 0;
    if (!checkArrayBytes(which + ": the returned shape " + b.type.str(),
                         b.type.shape, eb, resultBytes, error) ||
        !allocate(b.bytes, resultBytes, which, error))
      return false;
    int64_t n = resultBytes / eb;
    if (n == 0) {
      results.push_back(std::move(b));
      continue;
    }
    // The span of elements the (possibly strided) view covers, relative to
    // the aligned pointer.
    int64_t lo = result.offset, hi = result.offset;
    for (size_t i = 0; i < rank; ++i) {
      int64_t extent = 0;
      if (!checkedMul(sizes[i] - 1, strides[i], extent) ||
          __builtin_add_overflow(extent < 0 ? lo : hi, extent,
                                 extent < 0 ? &lo : &hi)) {
        *error = which + ": the returned strides overflow int64";
        return false;
      }
    }
    int64_t spanSize = 0;
    if (__builtin_sub_overflow(hi, lo, &spanSize) ||
        !checkedMul(spanSize, eb, spanSize) || spanSize >= kMaxBytes) {
      *error = which + ": the returned strides span more than 2^46 bytes";
      return false;
    }
    const uint8_t *aligned = static_cast<const uint8_t *>(result.aligned);
    const uint8_t *span = aligned + lo * eb;
    // A row-major contiguous view: one copy, straight into the result.
    bool contiguous = true;
    for (int64_t i = static_cast<int64_t>(rank) - 1, expect = 1; i >= 0; --i) {
      if (sizes[i] != 1 && strides[i] != expect)
        contiguous = false;
      expect *= sizes[i];
    }
    if (contiguous) {
      if (device) {
        te_rt_status s =
            te_rt_memcpy(ctx, b.bytes.data(), span, static_cast<size_t>(n * eb),
                         TE_RT_DEVICE_TO_HOST);
        if (s != TE_RT_OK) {
          *error = runtimeMessage(
              "result " + std::to_string(r) + ": copy from the device", s);
          return false;
        }
      } else {
        std::memcpy(b.bytes.data(), span, static_cast<size_t>(n * eb));
      }
      results.push_back(std::move(b));
      continue;
    }
    if (device) {
      size_t spanBytes = static_cast<size_t>(hi - lo + 1) * eb;
      if (!allocate(staging, static_cast<int64_t>(spanBytes),
                    "staging " + which, error))
        return false;
      te_rt_status s = te_rt_memcpy(ctx, staging.data(), span, spanBytes,
                                    TE_RT_DEVICE_TO_HOST);
      if (s != TE_RT_OK) {
        *error = runtimeMessage(
            "result " + std::to_string(r) + ": copy from the device", s);
        return false;
      }
      span = staging.data();
    }
    // Gather through the strides.
    std::vector<int64_t> idx(rank, 0);
    for (int64_t e = 0; e < n; ++e) {
      int64_t off = result.offset - lo;
      for (size_t i = 0; i < rank; ++i)
        off += idx[i] * strides[i];
      std::memcpy(b.bytes.data() + e * eb, span + off * eb, eb);
      for (size_t i = rank; i-- > 0;) {
        if (++idx[i] < b.type.shape[i])
          break;
        idx[i] = 0;
      }
    }
    results.push_back(std::move(b));
  }
  if (device) {
    te_rt_status s = te_rt_synchronize(ctx, nullptr);
    if (s != TE_RT_OK) {
      *error = runtimeMessage("te_rt_synchronize after the download", s);
      return false;
    }
    timing.download = secondsSince(downloadStart);
  }
  return freeReturnedBuffers();
}

namespace {

/// Compares integer result `r` with the reference `ref` (same shape)
/// exactly, whatever the tolerances, and prints its PASS/FAIL line. The
/// reference is any integer or bool array (for an i8 result a |u1 array is
/// compared byte for byte, as the raw data it holds), or a float array
/// whose values must equal the integers. Returns whether it passed.
bool compareIntegers(size_t r, const Buffer &b, const te::npy::Array &ref,
                     const std::string &path) {
  int64_t n = b.numElements();
  bool rawBytes = b.type.elementType == "i8" && ref.kind == te::npy::Kind::U8;
  double maxAbs = 0, num = 0, den = 0;
  int64_t bad = 0, firstBad = -1;
  std::string firstGot, firstWant;
  for (int64_t e = 0; e < n; ++e) {
    int64_t got = rawBytes ? b.bytes[e] : b.intAt(e);
    bool same = false;
    double want = 0;
    std::string wantText;
    if (isNpyFloat(ref.kind)) {
      want = npyFloat(ref, e);
      // Exact: the float equals the integer (an int64 beyond 2^53 is
      // compared as the nearest double, as numpy's == does).
      same = static_cast<double>(got) == want;
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.17g", want);
      wantText = buf;
    } else {
      int64_t w = 0;
      bool fits = npyInteger(ref, e, w, wantText);
      same = fits && w == got;
      want = fits ? static_cast<double>(w)
                  : std::strtod(wantText.c_str(), nullptr);
    }
    double diff = std::fabs(static_cast<double>(got) - want);
    if (!same) {
      if (firstBad < 0) {
        firstBad = e;
        firstGot = std::to_string(got);
        firstWant = wantText;
      }
      ++bad;
      maxAbs = std::fmax(maxAbs, diff);
    }
    num += diff * diff;
    den += want * want;
  }
  double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  bool pass = bad == 0;
  std::printf("result %zu: %s vs %s: max_abs_err %.6g rel_err %.6g "
              "mismatches %lld",
              r, pass ? "PASS" : "FAIL", path.c_str(), maxAbs, rel,
              static_cast<long long>(bad));
  if (firstBad >= 0)
    std::printf(" (first at flat index %lld: got %s, want %s)",
                static_cast<long long>(firstBad), firstGot.c_str(),
                firstWant.c_str());
  std::printf("\n");
  return pass;
}

} // namespace

int report(const Signature &sig, const std::vector<Buffer> &results,
           const Options &opts, const Timing &timing) {
  int rc = 0;
  if (!opts.compare.empty() && opts.compare.size() != results.size()) {
    std::fprintf(stderr, "te-run: %zu --compare files for %zu results\n",
                 opts.compare.size(), results.size());
    return 1;
  }
  for (size_t r = 0; r < results.size(); ++r) {
    const Buffer &b = results[r];
    int64_t n = b.numElements();
    // FNV-1a over the raw bytes.
    uint64_t h = 1469598103934665603ull;
    for (uint8_t c : b.bytes)
      h = (h ^ c) * 1099511628211ull;
    // min and max of the numbers, NaN where there is none; the NaNs
    // counted apart.
    double mn = INFINITY, mx = -INFINITY, sum = 0;
    int64_t nans = 0;
    for (int64_t e = 0; e < n; ++e) {
      double v = b.at(e);
      nans += std::isnan(v) ? 1 : 0;
      mn = std::fmin(mn, v);
      mx = std::fmax(mx, v);
      sum += v;
    }
    if (n > 0 && nans == n)
      mn = mx = NAN;
    if (!opts.quiet) {
      std::printf("result %zu: %s min %.6g max %.6g mean %.6g checksum "
                  "%016llx",
                  r, b.type.str().c_str(), mn, mx, n ? sum / n : 0.0,
                  static_cast<unsigned long long>(h));
      if (nans)
        std::printf(" nan %lld", static_cast<long long>(nans));
      std::printf("\n");
    }
    if (!opts.outputDir.empty()) {
      te::npy::Array a;
      a.shape = b.type.shape;
      const std::string &et = b.type.elementType;
      if (b.type.isFloat()) {
        a.kind = te::npy::Kind::F32;
        a.bytes.resize(4 * n);
        for (int64_t e = 0; e < n; ++e) {
          float f = static_cast<float>(b.at(e));
          std::memcpy(a.bytes.data() + 4 * e, &f, 4);
        }
      } else if (b.type.isInteger()) {
        // The same bytes: i1 is one byte of 0 or 1, as numpy's bool.
        a.kind = et == "i1"    ? te::npy::Kind::Bool
                 : et == "i8"  ? te::npy::Kind::I8
                 : et == "i16" ? te::npy::Kind::I16
                 : et == "i32" ? te::npy::Kind::I32
                               : te::npy::Kind::I64;
        a.bytes = b.bytes;
      } else if (b.type.elementBytes() == 1) {
        a.kind = te::npy::Kind::U8;
        a.bytes = b.bytes;
      } else {
        std::fprintf(stderr, "te-run: result %zu: cannot write %s as .npy\n", r,
                     b.type.elementType.c_str());
        return 1;
      }
      std::string path =
          opts.outputDir + "/result" + std::to_string(r) + ".npy";
      std::string err;
      if (!te::npy::write(path, a, &err)) {
        std::fprintf(stderr, "te-run: %s\n", err.c_str());
        return 1;
      }
    }
    if (opts.compare.empty())
      continue;
    te::npy::Array ref;
    std::string err;
    if (!te::npy::read(opts.compare[r], ref, &err)) {
      std::fprintf(stderr, "te-run: %s\n", err.c_str());
      return 1;
    }
    if (ref.shape != b.type.shape) {
      std::printf("result %zu: FAIL shape %s differs from %s\n", r,
                  b.type.str().c_str(), opts.compare[r].c_str());
      rc = 1;
      continue;
    }
    if (b.type.isInteger()) {
      if (!compareIntegers(r, b, ref, opts.compare[r]))
        rc = 1;
      continue;
    }
    bool floats = ref.kind == te::npy::Kind::F32;
    if (!floats && ref.kind != te::npy::Kind::U8) {
      std::fprintf(stderr, "te-run: %s: compare needs <f4 or |u1 data\n",
                   opts.compare[r].c_str());
      return 1;
    }
    double maxAbs = 0, num = 0, den = 0;
    int64_t bad = 0, firstBad = -1;
    bool exact = false;
    for (int e : opts.exact)
      exact |= e == static_cast<int>(r);
    for (int64_t e = 0; e < n; ++e) {
      double want;
      if (floats) {
        float f;
        std::memcpy(&f, ref.bytes.data() + 4 * e, 4);
        want = f;
      } else {
        want = ref.bytes[e];
      }
      double got = b.at(e);
      double diff = std::fabs(got - want);
      bool same = (std::isnan(got) && std::isnan(want)) || got == want;
      if (!same &&
          (exact || !(diff <= opts.atol + opts.rtol * std::fabs(want)))) {
        if (firstBad < 0)
          firstBad = e;
        ++bad;
      }
      if (!same)
        maxAbs = std::fmax(maxAbs, diff);
      num += (got - want) * (got - want);
      den += want * want;
    }
    double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    bool pass = bad == 0 && (opts.maxRelErr < 0 || rel <= opts.maxRelErr);
    std::printf("result %zu: %s vs %s: max_abs_err %.6g rel_err %.6g "
                "mismatches %lld",
                r, pass ? "PASS" : "FAIL", opts.compare[r].c_str(), maxAbs, rel,
                static_cast<long long>(bad));
    if (firstBad >= 0)
      std::printf(" (first at flat index %lld)",
                  static_cast<long long>(firstBad));
    std::printf("\n");
    if (!pass)
      rc = 1;
  }
  if (!opts.quiet)
    std::printf("time %.6f s per call\n", timing.stepMean);
  std::printf("timing: step_ms=%.6f min_ms=%.6f repeat=%d upload_ms=%.6f "
              "download_ms=%.6f median_ms=%.6f warmup=%d\n",
              1e3 * timing.stepMean, 1e3 * timing.stepMin, timing.repeat,
              1e3 * timing.upload, 1e3 * timing.download,
              1e3 * timing.stepMedian, timing.warmup);
  (void)sig;
  return rc;
}

int runEntry(const char *tool, EntryFn fn, const Signature &sig,
             const Options &opts, const Memory &memory) {
  std::vector<Buffer> args, results;
  std::string err;
  setAllocationTool(tool);
  if (!checkOptions(sig, opts, &err)) {
    std::fprintf(stderr, "%s: error: %s\n", tool, err.c_str());
    return 2;
  }
  if (!makeArguments(sig, opts, args, &err)) {
    std::fprintf(stderr, "%s: %s\n", tool, err.c_str());
    return 1;
  }
  Timing timing;
  if (!invoke(fn, sig, args, memory, opts.repeat, results, timing, &err,
              opts.warmup)) {
    std::fprintf(stderr, "%s: %s\n", tool, err.c_str());
    return 1;
  }
  return report(sig, results, opts, timing);
}

const char *kHarnessFlagsHelp =
    "  --input FILE.npy     argument data, once per argument in order (<f4,\n"
    "                       <f2 or <f8, converted (<f8 within f32's range);\n"
    "                       <u2 raw bits for bf16/f16, |u1 for 8-bit types);\n"
    "                       floats are rounded to nearest even for bf16/f16;\n"
    "                       an integer argument (i1, i8, i16, i32, i64) takes\n"
    "                       |i1, <i2, <i4, <i8, |u1, <u2, <u4, <u8 or |b1,\n"
    "                       converted exactly (a value out of the type's\n"
    "                       range is an error; i1 takes 0 and 1; |u1 is an\n"
    "                       i8's raw bytes); each `?` dimension takes its\n"
    "                       file's size (one size across the files for a\n"
    "                       program compiled without te-check-shapes); for\n"
    "                       a scalar argument, its value (read exactly: out\n"
    "                       of the type's range is an error)\n"
    "  --seed N             without --input: standard-normal arguments from\n"
    "                       seed N (default 0), random 0/1 for i1; other\n"
    "                       integer tensors are not generated (they are\n"
    "                       often indices: give --input or --fill); scalar\n"
    "                       arguments are N\n"
    "  --dynamic-dim N      without --input: the size of every `?` dimension\n"
    "  --fill I=V           without --input: argument I (from 0) is the\n"
    "                       constant V instead of random (for an integer\n"
    "                       tensor an integer in its type's range, read\n"
    "                       exactly); repeatable\n"
    "  --output-dir DIR     write result<i>.npy (floats as <f4, integers as\n"
    "                       |i1, <i2, <i4, <i8, i1 as |b1, 8-bit float types\n"
    "                       as |u1); created and checked before the program\n"
    "                       runs\n"
    "  --compare FILE.npy   reference per result, in order; prints PASS/FAIL\n"
    "                       and exits 1 on FAIL; an integer result is\n"
    "                       compared exactly, with any integer or |b1 array\n"
    "                       (|u1 byte for byte for i8): the tolerances below\n"
    "                       apply to floats only\n"
    "  --rtol X --atol Y    elementwise |got-want| <= Y + X*|want| (default "
    "0:\n"
    "                       bit-exact)\n"
    "  --max-rel-err E      also require ||got-want||_2 / ||want||_2 <= E\n"
    "  --exact I            compare result I bit for bit (value equality,\n"
    "                       NaN = NaN) whatever the tolerances; needs\n"
    "                       --compare; repeatable\n"
    "  --repeat N           call N times (each call device-synchronised);\n"
    "                       prints `timing: step_ms=MEAN min_ms=MIN repeat=N\n"
    "                       upload_ms=X download_ms=Y median_ms=M warmup=W`\n"
    "                       (transfers of device memory once, outside the\n"
    "                       steps); on a terminal, a progress line on stderr\n"
    "  --warmup N           N untimed calls before the timed ones (module\n"
    "                       loading, first allocations)\n"
    "  --quiet              no summary lines (te-run: and no compiler "
    "remarks)\n";

bool parseHarnessFlag(int argc, char **argv, int &i, Options &opts,
                      std::string *error) {
  std::string a = argv[i];
  auto value = [&](std::string &out) {
    if (i + 1 >= argc) {
      *error = a + " needs a value";
      return false;
    }
    out = argv[++i];
    return true;
  };
  std::string v;
  // A finite number >= 0.
  auto nonNegative = [&](double &out) {
    if (!value(v))
      return;
    char *end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !std::isfinite(d) || d < 0) {
      *error = a + ": '" + v + "' is not a finite number >= 0";
      return;
    }
    out = d;
  };
  // An integer in [min, max], read exactly.
  auto integer = [&](int64_t min, int64_t max, int64_t &out) {
    if (!value(v))
      return false;
    if (!parseInteger(v, min, max, out)) {
      *error = a + ": '" + v + "' is not an integer in " + std::to_string(min) +
               ".." + std::to_string(max);
      return false;
    }
    return true;
  };
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  int64_t n = 0;
  if (a == "--input") {
    if (value(v))
      opts.inputs.push_back(v);
  } else if (a == "--seed") {
    if (value(v) && !parseUnsigned(v, opts.seed))
      *error = "--seed: '" + v + "' is not an integer in 0..2^64-1";
  } else if (a == "--fill") {
    if (!value(v))
      return true;
    size_t eq = v.find('=');
    int64_t index = -1;
    char *end = nullptr;
    errno = 0;
    double d2 =
        eq == std::string::npos ? 0 : std::strtod(v.c_str() + eq + 1, &end);
    if (eq != std::string::npos && end && !*end && errno == ERANGE &&
        std::isinf(d2)) {
      *error = "--fill '" + v +
               "': the value is outside the range of f64 (write inf for "
               "infinity)";
      return true;
    }
    if (eq == std::string::npos ||
        !parseInteger(v.substr(0, eq), 0, kIntMax, index) ||
        eq + 1 == v.size() || *end) {
      *error = "--fill '" + v + "': expected INDEX=VALUE, e.g. --fill 6=1";
      return true;
    }
    opts.fills.push_back({static_cast<int>(index), d2, v.substr(eq + 1)});
  } else if (a == "--dynamic-dim") {
    // The size is checked with the shapes it makes (makeArguments).
    if (integer(0, std::numeric_limits<int64_t>::max(), n))
      opts.dynamicDim = n;
  } else if (a == "--output-dir") {
    value(opts.outputDir);
  } else if (a == "--compare") {
    if (value(v))
      opts.compare.push_back(v);
  } else if (a == "--exact") {
    if (integer(0, kIntMax, n))
      opts.exact.push_back(static_cast<int>(n));
  } else if (a == "--rtol") {
    nonNegative(opts.rtol);
  } else if (a == "--atol") {
    nonNegative(opts.atol);
  } else if (a == "--max-rel-err") {
    nonNegative(opts.maxRelErr);
  } else if (a == "--repeat") {
    if (integer(1, 1 << 30, n))
      opts.repeat = static_cast<int>(n);
  } else if (a == "--warmup") {
    if (integer(0, 1 << 30, n))
      opts.warmup = static_cast<int>(n);
  } else if (a == "--quiet") {
    opts.quiet = true;
  } else {
    return false;
  }
  return true;
}

bool checkOptions(const Signature &sig, const Options &opts,
                  std::string *error) {
  size_t results = sig.results.size();
  for (int e : opts.exact)
    if (e < 0 || static_cast<size_t>(e) >= results) {
      *error = "--exact " + std::to_string(e) + ": the entry function has " +
               std::to_string(results) + " result" + (results == 1 ? "" : "s");
      return false;
    }
  if (!opts.exact.empty() && opts.compare.empty()) {
    *error = "--exact needs --compare (the references to compare with)";
    return false;
  }
  if (!opts.compare.empty() && opts.compare.size() != results) {
    *error = std::to_string(opts.compare.size()) + " --compare file" +
             (opts.compare.size() == 1 ? "" : "s") + " for " +
             std::to_string(results) + " result" + (results == 1 ? "" : "s");
    return false;
  }
  if (!opts.inputs.empty() && opts.inputs.size() != sig.args.size()) {
    *error = "the entry function takes " + std::to_string(sig.args.size()) +
             " arguments, " + std::to_string(opts.inputs.size()) +
             " --input files were given";
    return false;
  }
  if (!opts.inputs.empty() && opts.dynamicDim >= 0) {
    *error = "--dynamic-dim and --input exclude each other (the --input "
             "files give the sizes)";
    return false;
  }
  // The constant of an integer tensor is an integer of its type.
  for (const Options::Fill &f : opts.fills) {
    if (f.index < 0 || static_cast<size_t>(f.index) >= sig.args.size())
      continue;
    const TensorType &t = sig.args[f.index];
    int64_t lo = 0, hi = 0, v = 0;
    if (t.scalar || !t.isInteger())
      continue;
    t.integerRange(lo, hi);
    if (!parseInteger(f.text, lo, hi, v)) {
      *error = "argument " + std::to_string(f.index) + " (" + t.str() +
               "): " + fillNotInteger(t, f);
      return false;
    }
  }
  if (opts.outputDir.empty())
    return true;
  // Created and checked before the program runs: its results are not lost
  // to an output directory that cannot be written.
  std::error_code ec;
  std::filesystem::create_directories(opts.outputDir, ec);
  if (ec) {
    *error = "--output-dir '" + opts.outputDir +
             "': cannot create it: " + ec.message();
    return false;
  }
  if (!std::filesystem::is_directory(opts.outputDir, ec)) {
    *error = "--output-dir '" + opts.outputDir + "' is not a directory";
    return false;
  }
  if (access(opts.outputDir.c_str(), W_OK | X_OK) != 0) {
    *error = "--output-dir '" + opts.outputDir +
             "': cannot write there: " + std::strerror(errno);
    return false;
  }
  return true;
}

} // namespace te::run
