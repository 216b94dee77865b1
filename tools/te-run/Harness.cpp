//===- Harness.cpp - Calling compiled entry functions on data ---*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"

#include "Npy.h"
#include "te/Format/Codecs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <utility>

namespace te::run {

namespace {

struct ElementInfo {
  const char *name;
  int64_t bytes;
};
const ElementInfo kElements[] = {
    {"f32", 4},    {"f16", 2},       {"bf16", 2}, {"i8", 1},  {"f8E4M3FN", 1},
    {"f8E5M2", 1}, {"f8E8M0FNU", 1}, {"i64", 8},  {"i32", 4},
};

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool parseType(const std::string &text, TensorType &t, std::string *error) {
  std::string s = trim(text);
  size_t lb = s.find('['), rb = s.rfind(']');
  t.shape.clear();
  t.scalar = lb == std::string::npos && rb == std::string::npos;
  if (t.scalar) {
    t.elementType = s;
    if (t.elementBytes() == 0) {
      *error = "unknown element type '" + s + "'";
      return false;
    }
    return true;
  }
  if (lb == std::string::npos || rb != s.size() - 1) {
    *error = "bad tensor type '" + s + "' (expected e.g. f32[32,64])";
    return false;
  }
  t.elementType = s.substr(0, lb);
  if (t.elementBytes() == 0) {
    *error = "unknown element type '" + t.elementType + "'";
    return false;
  }
  t.shape.clear();
  std::string dims = s.substr(lb + 1, rb - lb - 1);
  std::stringstream ss(dims);
  std::string d;
  while (std::getline(ss, d, ',')) {
    d = trim(d);
    if (d == "?") {
      t.shape.push_back(-1);
      continue;
    }
    char *end = nullptr;
    long long v = std::strtoll(d.c_str(), &end, 10);
    if (d.empty() || *end || v < 0) {
      *error = "bad dimension '" + d + "' in '" + s + "'";
      return false;
    }
    t.shape.push_back(v);
  }
  return true;
}

bool parseList(const std::string &text, std::vector<TensorType> &out,
               std::string *error) {
  out.clear();
  std::string s = trim(text);
  size_t pos = 0;
  while (pos < s.size()) {
    size_t rb = s.find(']', pos), comma = s.find(',', pos),
           lb = s.find('[', pos);
    if (lb == std::string::npos || (comma != std::string::npos && comma < lb))
      rb = (comma == std::string::npos ? s.size() : comma) - 1; // a scalar
    if (rb == std::string::npos) {
      *error = "bad type list '" + s + "'";
      return false;
    }
    TensorType t;
    if (!parseType(s.substr(pos, rb + 1 - pos), t, error))
      return false;
    out.push_back(t);
    pos = s.find_first_not_of(" ,", rb + 1);
    if (pos == std::string::npos)
      break;
  }
  return true;
}

float readFloat(const TensorType &t, const uint8_t *p) {
  if (t.elementType == "f32") {
    float f;
    std::memcpy(&f, p, 4);
    return f;
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
  uint16_t h = t.elementType == "bf16" ? te::format::floatToBF16(v)
                                       : te::format::floatToF16(v);
  std::memcpy(p, &h, 2);
}

int64_t product(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// Memref descriptor {allocated, aligned, offset, sizes, strides} as words.
std::vector<int64_t> descriptor(void *data, const std::vector<int64_t> &shape) {
  std::vector<int64_t> d;
  d.push_back(reinterpret_cast<int64_t>(data));
  d.push_back(reinterpret_cast<int64_t>(data));
  d.push_back(0);
  for (int64_t s : shape)
    d.push_back(s);
  int64_t stride = 1;
  std::vector<int64_t> strides(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  for (int64_t s : strides)
    d.push_back(s);
  return d;
}

template <size_t... I>
void callWith(void *fn, void **p, std::index_sequence<I...>) {
  using F = void (*)(decltype((void)I, (void *)nullptr)...);
  reinterpret_cast<F>(fn)(p[I]...);
}

constexpr size_t kMaxPointers = 32;

template <size_t N> void callN(void *fn, void **p) {
  callWith(fn, p, std::make_index_sequence<N>());
}

template <size_t... N>
bool dispatch(size_t n, void *fn, void **p, std::index_sequence<N...>) {
  bool done = false;
  ((n == N ? (callN<N>(fn, p), done = true) : false), ...);
  return done;
}

} // namespace

int64_t TensorType::elementBytes() const {
  for (const ElementInfo &e : kElements)
    if (elementType == e.name)
      return e.bytes;
  return 0;
}

bool TensorType::isFloat() const {
  return elementType == "f32" || elementType == "f16" || elementType == "bf16";
}

std::string TensorType::str() const {
  if (scalar)
    return elementType;
  std::string s = elementType + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") +
         (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return s + "]";
}

std::string Signature::str() const {
  std::string s;
  for (size_t i = 0; i < args.size(); ++i)
    s += (i ? ", " : "") + args[i].str();
  s += " -> ";
  for (size_t i = 0; i < results.size(); ++i)
    s += (i ? ", " : "") + results[i].str();
  return s;
}

bool parseSignature(const std::string &text, Signature &out,
                    std::string *error) {
  size_t arrow = text.find("->");
  if (arrow == std::string::npos) {
    *error = "signature '" + text + "' has no '->'";
    return false;
  }
  return parseList(text.substr(0, arrow), out.args, error) &&
         parseList(text.substr(arrow + 2), out.results, error);
}

int64_t Buffer::numElements() const { return product(type.shape); }

double Buffer::at(int64_t i) const {
  const uint8_t *p = bytes.data() + i * type.elementBytes();
  if (type.isFloat())
    return readFloat(type, p);
  if (type.elementType == "i64" || type.elementType == "i32") {
    int64_t v = 0;
    std::memcpy(&v, p, type.elementBytes()); // little endian
    if (type.elementType == "i32")
      v = static_cast<int32_t>(v);
    return static_cast<double>(v);
  }
  return p[0];
}

bool makeArguments(const Signature &sig, const Options &opts,
                   std::vector<Buffer> &args, std::string *error) {
  if (!opts.inputs.empty() && opts.inputs.size() != sig.args.size()) {
    *error = "the entry function takes " + std::to_string(sig.args.size()) +
             " arguments, " + std::to_string(opts.inputs.size()) +
             " --input files were given";
    return false;
  }
  for (const auto &[index, v] : opts.fills) {
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
  std::mt19937_64 rng(opts.seed);
  args.clear();
  for (size_t i = 0; i < sig.args.size(); ++i) {
    const TensorType &t = sig.args[i];
    Buffer b;
    b.type = t;
    std::string which = "argument " + std::to_string(i) + " (" + t.str() + ")";
    if (t.scalar) {
      // An integer scalar (e.g. a stochastic-rounding seed) is passed by
      // value: --input gives it as a number, else it is --seed.
      if (t.elementType != "i64" && t.elementType != "i32") {
        *error = which + ": scalar arguments must be i64 or i32 (pass a " +
                 t.elementType + " as a tensor of one element)";
        return false;
      }
      int64_t value = static_cast<int64_t>(opts.seed);
      for (auto [index, v] : opts.fills)
        if (index == static_cast<int>(i))
          value = static_cast<int64_t>(v);
      if (!opts.inputs.empty()) {
        const std::string &text = opts.inputs[i];
        char *end = nullptr;
        long long v = std::strtoll(text.c_str(), &end, 0);
        if (text.empty() || *end) {
          *error = which + ": --input '" + text +
                   "' is not an integer (a scalar argument's --input is its "
                   "value)";
          return false;
        }
        value = v;
      }
      b.bytes.resize(8);
      std::memcpy(b.bytes.data(), &value, 8);
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
      if (!t.isFloat()) {
        *error = which + ": only float arguments can be generated";
        return false;
      }
      b.bytes.resize(product(b.type.shape) * t.elementBytes());
      const std::pair<int, double> *fill = nullptr;
      for (const auto &f : opts.fills)
        if (f.first == static_cast<int>(i))
          fill = &f;
      if (fill) {
        for (int64_t e = 0; e < product(b.type.shape); ++e)
          writeFloat(t, b.bytes.data() + e * t.elementBytes(),
                     static_cast<float>(fill->second));
        args.push_back(std::move(b));
        continue;
      }
      // Standard normal values (Box-Muller on the 64-bit Mersenne twister,
      // the same on every platform).
      for (int64_t e = 0; e < product(b.type.shape); ++e) {
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
    for (size_t d = 0; d < t.shape.size(); ++d)
      if (t.shape[d] >= 0 && t.shape[d] != a.shape[d]) {
        *error = which + ": " + opts.inputs[i] + " has dimension " +
                 std::to_string(d) + " = " + std::to_string(a.shape[d]);
        return false;
      }
    b.type.shape = a.shape;
    int64_t n = a.numElements();
    b.bytes.resize(n * t.elementBytes());
    if (a.kind == te::npy::Kind::F32 && t.isFloat()) {
      for (int64_t e = 0; e < n; ++e) {
        float f;
        std::memcpy(&f, a.bytes.data() + 4 * e, 4);
        writeFloat(t, b.bytes.data() + e * t.elementBytes(), f);
      }
    } else if (te::npy::Array::elementBytes(a.kind) == t.elementBytes() &&
               a.kind != te::npy::Kind::F32) {
      b.bytes = a.bytes; // raw bits: <u2 for bf16/f16, |u1 for 8-bit types
    } else {
      *error = which + ": " + opts.inputs[i] + " has dtype " +
               te::npy::descr(a.kind) + ", expected <f4" +
               (t.elementBytes() == 2 ? " or <u2 (raw bits)" : "");
      return false;
    }
    args.push_back(std::move(b));
  }
  return true;
}

bool invoke(EntryFn fn, const Signature &sig, std::vector<Buffer> &args,
            int repeat, std::vector<Buffer> &results, double &seconds,
            std::string *error) {
  std::vector<std::vector<int64_t>> descs;
  for (Buffer &b : args)
    descs.push_back(b.type.scalar ? std::vector<int64_t>()
                                  : descriptor(b.bytes.data(), b.type.shape));
  // The results struct: a descriptor (8-byte words) per memref result, a
  // naturally aligned value per scalar result.
  for (const TensorType &t : sig.args)
    if (t.scalar && t.elementType != "i64" && t.elementType != "i32") {
      *error = "the harness passes i64 and i32 scalar arguments only, got " +
               t.elementType;
      return false;
    }
  if (sig.results.size() == 1 && sig.results[0].scalar) {
    *error = "a single scalar result is not supported by the harness";
    return false;
  }
  std::vector<size_t> offsets;
  size_t bytes = 0;
  for (const TensorType &t : sig.results) {
    size_t size = t.scalar ? t.elementBytes() : 8 * (3 + 2 * t.shape.size());
    size_t align = t.scalar ? t.elementBytes() : 8;
    bytes = (bytes + align - 1) / align * align;
    offsets.push_back(bytes);
    bytes += size;
  }
  std::vector<int64_t> resultStruct(bytes / 8 + 2, 0);
  std::vector<void *> ptrs;
  if (!sig.results.empty())
    ptrs.push_back(resultStruct.data());
  // A memref argument is passed as a pointer to its descriptor; an integer
  // scalar by value, in an integer register or stack slot like a pointer
  // (x86-64 and AArch64 calling conventions).
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].type.scalar) {
      ptrs.push_back(descs[i].data());
      continue;
    }
    int64_t value;
    std::memcpy(&value, args[i].bytes.data(), 8);
    ptrs.push_back(reinterpret_cast<void *>(static_cast<intptr_t>(value)));
  }
  if (ptrs.size() >= kMaxPointers) {
    *error = "too many arguments and results for the harness";
    return false;
  }
  if (repeat < 1)
    repeat = 1;
  // The memrefs the compiled function returns are owned by the caller (the
  // deallocation pipeline hands them over). Free each distinct allocation once,
  // except those that are an argument's (a result may alias an argument) or a
  // global's (memref.get_global gives the allocated pointer 0xdeadbeef).
  auto freeReturnedBuffers = [&]() {
    // Addresses as integers: they are compared, never dereferenced.
    std::vector<int64_t> keep = {0, 0xdeadbeef}, freed;
    for (size_t i = 0; i < args.size(); ++i)
      if (!args[i].type.scalar)
        keep.push_back(descs[i][0]);
    for (size_t r = 0; r < sig.results.size(); ++r) {
      if (sig.results[r].scalar)
        continue;
      const int64_t *d = reinterpret_cast<const int64_t *>(
          reinterpret_cast<const uint8_t *>(resultStruct.data()) + offsets[r]);
      int64_t allocated = d[0];
      if (std::find(keep.begin(), keep.end(), allocated) != keep.end() ||
          std::find(freed.begin(), freed.end(), allocated) != freed.end())
        continue;
      freed.push_back(allocated);
      std::free(reinterpret_cast<void *>(static_cast<intptr_t>(allocated)));
    }
  };
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeat; ++r) {
    if (!dispatch(ptrs.size(), fn, ptrs.data(),
                  std::make_index_sequence<kMaxPointers>())) {
      *error = "unsupported argument count";
      return false;
    }
    if (r + 1 == repeat)
      break;
    freeReturnedBuffers();
  }
  auto end = std::chrono::steady_clock::now();
  seconds = std::chrono::duration<double>(end - start).count() / repeat;
  results.clear();
  for (size_t r = 0; r < sig.results.size(); ++r) {
    const TensorType &t = sig.results[r];
    const uint8_t *raw =
        reinterpret_cast<const uint8_t *>(resultStruct.data()) + offsets[r];
    if (t.scalar) {
      Buffer b;
      b.type = t;
      b.bytes.assign(raw, raw + t.elementBytes());
      results.push_back(std::move(b));
      continue;
    }
    const int64_t *d = reinterpret_cast<const int64_t *>(raw);
    Buffer b;
    b.type = t;
    size_t rank = t.shape.size();
    for (size_t i = 0; i < rank; ++i)
      b.type.shape[i] = d[3 + i];
    const uint8_t *base =
        reinterpret_cast<const uint8_t *>(d[1]) + d[2] * t.elementBytes();
    int64_t n = product(b.type.shape);
    b.bytes.resize(n * t.elementBytes());
    // Gather through the strides (results may be strided views).
    std::vector<int64_t> idx(rank, 0);
    for (int64_t e = 0; e < n; ++e) {
      int64_t off = 0;
      for (size_t i = 0; i < rank; ++i)
        off += idx[i] * d[3 + rank + i];
      std::memcpy(b.bytes.data() + e * t.elementBytes(),
                  base + off * t.elementBytes(), t.elementBytes());
      for (size_t i = rank; i-- > 0;) {
        if (++idx[i] < b.type.shape[i])
          break;
        idx[i] = 0;
      }
    }
    results.push_back(std::move(b));
  }
  freeReturnedBuffers();
  return true;
}

int report(const Signature &sig, const std::vector<Buffer> &results,
           const Options &opts, double seconds) {
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
    double mn = INFINITY, mx = -INFINITY, sum = 0;
    for (int64_t e = 0; e < n; ++e) {
      double v = b.at(e);
      mn = std::fmin(mn, v);
      mx = std::fmax(mx, v);
      sum += v;
    }
    if (!opts.quiet)
      std::printf("result %zu: %s min %.6g max %.6g mean %.6g checksum "
                  "%016llx\n",
                  r, b.type.str().c_str(), mn, mx, n ? sum / n : 0.0,
                  static_cast<unsigned long long>(h));
    if (!opts.outputDir.empty()) {
      te::npy::Array a;
      a.shape = b.type.shape;
      if (b.type.isFloat()) {
        a.kind = te::npy::Kind::F32;
        a.bytes.resize(4 * n);
        for (int64_t e = 0; e < n; ++e) {
          float f = static_cast<float>(b.at(e));
          std::memcpy(a.bytes.data() + 4 * e, &f, 4);
        }
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
    std::printf("time %.6f s per call\n", seconds);
  (void)sig;
  return rc;
}

const char *kHarnessFlagsHelp =
    "  --input FILE.npy     argument data, once per argument in order (<f4;\n"
    "                       <u2 raw bits for bf16/f16, |u1 for 8-bit types);\n"
    "                       f32 data is rounded to nearest even for bf16/f16;\n"
    "                       for an i64/i32 scalar argument, its value\n"
    "  --seed N             without --input: standard-normal arguments from\n"
    "                       seed N (default 0); i64/i32 scalar arguments are "
    "N\n"
    "  --dynamic-dim N      without --input: the size of every `?` dimension\n"
    "  --fill I=V           without --input: argument I (from 0) is the\n"
    "                       constant V instead of random; repeatable\n"
    "  --output-dir DIR     write result<i>.npy (floats as <f4, 8-bit as |u1)\n"
    "  --compare FILE.npy   reference per result, in order; prints PASS/FAIL\n"
    "                       and exits 1 on FAIL\n"
    "  --rtol X --atol Y    elementwise |got-want| <= Y + X*|want| (default "
    "0:\n"
    "                       bit-exact)\n"
    "  --max-rel-err E      also require ||got-want||_2 / ||want||_2 <= E\n"
    "  --exact I            compare result I bit for bit (value equality,\n"
    "                       NaN = NaN) whatever the tolerances; repeatable\n"
    "  --repeat N           call N times, report the mean time\n"
    "  --quiet              no summary lines\n";

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
  auto number = [&](double &out) {
    if (!value(v))
      return false;
    char *end = nullptr;
    out = std::strtod(v.c_str(), &end);
    if (v.empty() || *end) {
      *error = a + ": '" + v + "' is not a number";
      return false;
    }
    return true;
  };
  double d;
  if (a == "--input") {
    if (!value(v))
      return true;
    opts.inputs.push_back(v);
  } else if (a == "--seed") {
    if (number(d))
      opts.seed = static_cast<uint64_t>(d);
  } else if (a == "--fill") {
    if (!value(v))
      return true;
    size_t eq = v.find('=');
    char *end1 = nullptr, *end2 = nullptr;
    // strtol's end pointer points into this string: it must outlive the
    // `*end1` check below (ASan: stack-use-after-scope on a temporary).
    std::string indexText = eq == std::string::npos ? "" : v.substr(0, eq);
    long index = eq == std::string::npos
                     ? -1
                     : std::strtol(indexText.c_str(), &end1, 10);
    double d2 =
        eq == std::string::npos ? 0 : std::strtod(v.c_str() + eq + 1, &end2);
    if (eq == std::string::npos || eq == 0 || *end1 || index < 0 ||
        eq + 1 == v.size() || *end2) {
      *error = "--fill '" + v + "': expected INDEX=VALUE, e.g. --fill 6=1";
      return true;
    }
    opts.fills.push_back({static_cast<int>(index), d2});
  } else if (a == "--dynamic-dim") {
    if (number(d))
      opts.dynamicDim = static_cast<int64_t>(d);
  } else if (a == "--output-dir") {
    value(opts.outputDir);
  } else if (a == "--compare") {
    if (value(v))
      opts.compare.push_back(v);
  } else if (a == "--exact") {
    if (number(d))
      opts.exact.push_back(static_cast<int>(d));
  } else if (a == "--rtol") {
    number(opts.rtol);
  } else if (a == "--atol") {
    number(opts.atol);
  } else if (a == "--max-rel-err") {
    number(opts.maxRelErr);
  } else if (a == "--repeat") {
    if (number(d))
      opts.repeat = static_cast<int>(d);
  } else if (a == "--quiet") {
    opts.quiet = true;
  } else {
    return false;
  }
  return true;
}

} // namespace te::run
