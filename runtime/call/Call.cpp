//===- Call.cpp - Signatures and call frames of compiled entries -*- C++
//-*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "Call.h"

#include "te_call.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <limits>
#include <memory>
#include <new>
#include <sstream>
#include <utility>

namespace te::call {

namespace {

struct ElementInfo {
  const char *name;
  int64_t bytes;
};
const ElementInfo kElements[] = {
    {"f32", 4},      {"f16", 2},    {"bf16", 2},      {"i8", 1},
    {"f8E4M3FN", 1}, {"f8E5M2", 1}, {"f8E8M0FNU", 1}, {"i64", 8},
    {"i32", 4},      {"f64", 8},    {"i1", 1},        {"i16", 2},
};

std::string trim(const std::string &s) {
  // '\r' too: a signature file written with CRLF line ends.
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
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

} // namespace

bool resultsByPointer(const Signature &sig) {
  return !sig.results.empty() &&
         !(sig.results.size() == 1 && sig.results[0].scalar);
}

int64_t TensorType::elementBytes() const {
  for (const ElementInfo &e : kElements)
    if (elementType == e.name)
      return e.bytes;
  return 0;
}

bool TensorType::isFloat() const {
  return elementType == "f32" || elementType == "f64" || elementType == "f16" ||
         elementType == "bf16";
}

bool TensorType::isInteger() const {
  return elementType == "i1" || elementType == "i8" || elementType == "i16" ||
         elementType == "i32" || elementType == "i64";
}

void TensorType::integerRange(int64_t &lo, int64_t &hi) const {
  if (elementType == "i1") {
    lo = 0;
    hi = 1;
    return;
  }
  int64_t bits = 8 * elementBytes();
  hi = bits >= 64 ? std::numeric_limits<int64_t>::max()
                  : (int64_t(1) << (bits - 1)) - 1;
  lo = -hi - 1;
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

bool parseSignatureFile(const std::string &text, Signature &out,
                        std::string &target, std::string *error) {
  target = "cpu";
  std::stringstream lines(text);
  std::string line;
  bool haveSignature = false;
  while (std::getline(lines, line)) {
    line = trim(line);
    if (line.empty())
      continue;
    if (!haveSignature) {
      if (!parseSignature(line, out, error))
        return false;
      haveSignature = true;
      continue;
    }
    size_t space = line.find_first_of(" \t");
    std::string key = line.substr(0, space);
    std::string value =
        space == std::string::npos ? "" : trim(line.substr(space));
    if (key == "shape-checks" && (value == "on" || value == "off")) {
      out.shapeChecks = value == "on";
      continue;
    }
    if (key != "target" ||
        (value != "cpu" && value != "sm_90" && value != "sm_100")) {
      *error = "signature file: unknown line '" + line +
               "' (expected 'target cpu|sm_90|sm_100' or "
               "'shape-checks on|off')";
      return false;
    }
    target = value;
  }
  if (!haveSignature) {
    *error = "signature file: no signature";
    return false;
  }
  return true;
}

bool isGpuTarget(const std::string &target) {
  return target.rfind("sm_", 0) == 0;
}

std::string packedName(const std::string &entry) {
  return "_te_packed_" + entry;
}

std::string signatureSymbolName(const std::string &entry) {
  return "_te_signature_" + entry;
}

std::string targetSymbolName(const std::string &entry) {
  return "_te_target_" + entry;
}

std::string shapeChecksSymbolName(const std::string &entry) {
  return "_te_shape_checks_" + entry;
}

size_t packedSlots(const Signature &sig) {
  return (resultsByPointer(sig) ? 1 : 0) + sig.args.size() +
         (sig.results.size() == 1 && sig.results[0].scalar ? 1 : 0);
}

bool parseInteger(const std::string &text, int64_t min, int64_t max,
                  int64_t &out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])))
    return false;
  // Decimal, or hexadecimal after 0x: a leading 0 is no octal prefix (010
  // is 10, as a float's text reads).
  size_t sign = text[0] == '-' || text[0] == '+' ? 1 : 0;
  bool hex = text.size() > sign + 1 && text[sign] == '0' &&
             (text[sign + 1] == 'x' || text[sign + 1] == 'X');
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, hex ? 16 : 10);
  if (errno == ERANGE || *end || v < min || v > max)
    return false;
  out = v;
  return true;
}

bool parseUnsigned(const std::string &text, uint64_t &out) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])))
    return false;
  bool hex =
      text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, hex ? 16 : 10);
  if (errno == ERANGE || *end)
    return false;
  out = v;
  return true;
}

Frame::Frame(Signature signature) : sig(std::move(signature)) {
  size_t n = sig.args.size();
  set.assign(n, false);
  descriptors.resize(n);
  descriptorPointers.assign(n, nullptr);
  scalars.resize(n);
  // The results struct: a descriptor (8-byte words) per memref result, a
  // naturally aligned value per scalar result. A single scalar result is
  // stored at its start.
  size_t bytes = 0;
  for (const TensorType &t : sig.results) {
    size_t size = t.scalar ? t.elementBytes() : 8 * (3 + 2 * t.shape.size());
    size_t align = t.scalar ? t.elementBytes() : 8;
    bytes = (bytes + align - 1) / align * align;
    offsets.push_back(bytes);
    bytes += size;
  }
  resultStruct.assign(bytes / 8 + 2, 0);
  resultsPointer = resultStruct.data();
}

bool Frame::setTensor(size_t i, void *data, const std::vector<int64_t> &shape,
                      const std::vector<int64_t> &strides, std::string *error) {
  std::string which = "argument " + std::to_string(i);
  if (i >= sig.args.size()) {
    *error = which + ": the entry takes " + std::to_string(sig.args.size()) +
             " arguments";
    return false;
  }
  const TensorType &t = sig.args[i];
  which += " (" + t.str() + ")";
  if (t.scalar) {
    *error = which + " is a scalar, not a tensor";
    return false;
  }
  if (shape.size() != t.shape.size()) {
    *error = which + ": rank " + std::to_string(shape.size()) + " given";
    return false;
  }
  if (!strides.empty() && strides.size() != shape.size()) {
    *error = which + ": " + std::to_string(strides.size()) +
             " strides for rank " + std::to_string(shape.size());
    return false;
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      *error = which + ": negative size " + std::to_string(shape[d]) +
               " at dimension " + std::to_string(d);
      return false;
    }
    if (t.shape[d] >= 0 && shape[d] != t.shape[d]) {
      *error = which + ": size " + std::to_string(shape[d]) + " at dimension " +
               std::to_string(d) + ", expected " + std::to_string(t.shape[d]);
      return false;
    }
  }
  std::vector<int64_t> &d = descriptors[i];
  d.clear();
  d.push_back(reinterpret_cast<int64_t>(data));
  d.push_back(reinterpret_cast<int64_t>(data));
  d.push_back(0);
  d.insert(d.end(), shape.begin(), shape.end());
  if (!strides.empty()) {
    d.insert(d.end(), strides.begin(), strides.end());
  } else {
    std::vector<int64_t> rowMajor(shape.size());
    int64_t stride = 1;
    for (size_t k = shape.size(); k-- > 0;) {
      rowMajor[k] = stride;
      stride *= std::max<int64_t>(shape[k], 1);
    }
    d.insert(d.end(), rowMajor.begin(), rowMajor.end());
  }
  descriptorPointers[i] = d.data();
  set[i] = true;
  return true;
}

bool Frame::setScalar(size_t i, const void *value, std::string *error) {
  if (i >= sig.args.size()) {
    *error = "argument " + std::to_string(i) + ": the entry takes " +
             std::to_string(sig.args.size()) + " arguments";
    return false;
  }
  const TensorType &t = sig.args[i];
  if (!t.scalar) {
    *error = "argument " + std::to_string(i) + " (" + t.str() +
             ") is a tensor, not a scalar";
    return false;
  }
  const auto *p = static_cast<const uint8_t *>(value);
  scalars[i].assign(p, p + t.elementBytes());
  set[i] = true;
  return true;
}

bool Frame::prepare(void ***slots, std::string *error) {
  int64_t dynamicSize = -1;
  size_t dynamicFrom = 0;
  for (size_t i = 0; i < sig.args.size(); ++i) {
    if (!set[i]) {
      *error = "argument " + std::to_string(i) + " (" + sig.args[i].str() +
               ") is not set";
      return false;
    }
    if (sig.shapeChecks || sig.args[i].scalar)
      continue;
    // Without the entry's own checks every `?` takes one size.
    for (size_t d = 0; d < sig.args[i].shape.size(); ++d) {
      if (sig.args[i].shape[d] >= 0)
        continue;
      int64_t size = descriptors[i][3 + d];
      if (dynamicSize < 0) {
        dynamicSize = size;
        dynamicFrom = i;
      } else if (size != dynamicSize) {
        *error = "argument " + std::to_string(i) + " (" + sig.args[i].str() +
                 ") has size " + std::to_string(size) +
                 " at the dynamic dimension " + std::to_string(d) +
                 ", argument " + std::to_string(dynamicFrom) + " has " +
                 std::to_string(dynamicSize) +
                 ": the entry was compiled without te-check-shapes, so "
                 "every `?` takes one size";
        return false;
      }
    }
  }
  slotArray.clear();
  if (resultsByPointer(sig))
    slotArray.push_back(&resultsPointer);
  for (size_t i = 0; i < sig.args.size(); ++i)
    slotArray.push_back(sig.args[i].scalar
                            ? static_cast<void *>(scalars[i].data())
                            : static_cast<void *>(&descriptorPointers[i]));
  if (!resultsByPointer(sig) && !sig.results.empty())
    slotArray.push_back(resultStruct.data());
  std::fill(resultStruct.begin(), resultStruct.end(), 0);
  *slots = slotArray.data();
  return true;
}

bool Frame::invoke(void *packed, std::string *error) {
  void **slots = nullptr;
  if (!prepare(&slots, error))
    return false;
  using PackedFn = void (*)(void **);
  reinterpret_cast<PackedFn>(packed)(slots);
  return true;
}

bool Frame::result(size_t r, Result &out, std::string *error) const {
  if (r >= sig.results.size()) {
    *error = "result " + std::to_string(r) + ": the entry has " +
             std::to_string(sig.results.size()) + " results";
    return false;
  }
  const TensorType &t = sig.results[r];
  const uint8_t *raw =
      reinterpret_cast<const uint8_t *>(resultStruct.data()) + offsets[r];
  out = Result();
  out.scalar = t.scalar;
  if (t.scalar) {
    std::memcpy(out.value, raw, static_cast<size_t>(t.elementBytes()));
    return true;
  }
  const int64_t *d = reinterpret_cast<const int64_t *>(raw);
  size_t rank = t.shape.size();
  out.allocated = reinterpret_cast<void *>(static_cast<intptr_t>(d[0]));
  out.aligned = reinterpret_cast<void *>(static_cast<intptr_t>(d[1]));
  out.offset = d[2];
  out.shape.assign(d + 3, d + 3 + rank);
  out.strides.assign(d + 3 + rank, d + 3 + 2 * rank);
  // The memrefs the compiled function returns are owned by the caller (the
  // deallocation pipeline hands them over), each distinct allocation once,
  // except an argument's (a result may alias an argument) or a global's
  // (memref.get_global gives the allocated pointer 0xdeadbeef).
  int64_t allocated = d[0];
  if (allocated == 0 || allocated == 0xdeadbeef)
    return true;
  for (size_t i = 0; i < sig.args.size(); ++i)
    if (!sig.args[i].scalar && descriptors[i][0] == allocated)
      return true;
  for (size_t e = 0; e < r; ++e) {
    if (sig.results[e].scalar)
      continue;
    const int64_t *other = reinterpret_cast<const int64_t *>(
        reinterpret_cast<const uint8_t *>(resultStruct.data()) + offsets[e]);
    if (other[0] == allocated)
      return true;
  }
  out.owned = true;
  return true;
}

} // namespace te::call

//===----------------------------------------------------------------------===//
// C API (te_call.h)
//===----------------------------------------------------------------------===//

struct te_call_signature {
  te::call::Signature sig;
  std::string target = "cpu";
  std::string text;
  std::vector<std::string> names; // element type names, args then results
};

struct te_call_frame {
  explicit te_call_frame(te::call::Signature sig) : frame(std::move(sig)) {}
  te::call::Frame frame;
  std::vector<te::call::Frame::Result> results;
};

struct te_call_program {
  void *handle = nullptr;
  bool own = false;
};

namespace {

thread_local std::string lastError;
const char *toolName = "te";

int fail(std::string message) {
  lastError = std::move(message);
  return 1;
}

int ok() {
  lastError.clear();
  return 0;
}

void fillType(const te::call::TensorType &t, te_call_type *out) {
  out->element_type = nullptr;
  static const char *const kNames[] = {
      "f32",       "f16", "bf16", "i8",  "f8E4M3FN", "f8E5M2",
      "f8E8M0FNU", "i64", "i32",  "f64", "i1",       "i16"};
  for (const char *n : kNames)
    if (t.elementType == n)
      out->element_type = n;
  out->element_bytes = static_cast<int32_t>(t.elementBytes());
  out->scalar = t.scalar ? 1 : 0;
  out->rank = static_cast<int32_t>(t.shape.size());
  out->shape = t.shape.empty() ? nullptr : t.shape.data();
}

te_call_signature *newSignature(te::call::Signature sig, std::string target) {
  auto *s = new (std::nothrow) te_call_signature();
  if (!s)
    return nullptr;
  s->sig = std::move(sig);
  s->target = std::move(target);
  s->text = s->sig.str();
  return s;
}

} // namespace

extern "C" {

int te_call_api_version(void) { return TE_CALL_API_VERSION; }

const char *te_call_last_error(void) { return lastError.c_str(); }

int te_call_signature_parse(const char *text, te_call_signature **out) {
  if (!text || !out)
    return fail("te_call_signature_parse: NULL argument");
  *out = nullptr;
  te::call::Signature sig;
  std::string target, error;
  if (!te::call::parseSignatureFile(text, sig, target, &error))
    return fail(error);
  *out = newSignature(std::move(sig), target);
  return *out ? ok() : fail("out of memory");
}

void te_call_signature_destroy(te_call_signature *sig) { delete sig; }

int te_call_signature_num_args(const te_call_signature *sig) {
  return sig ? static_cast<int>(sig->sig.args.size()) : 0;
}

int te_call_signature_num_results(const te_call_signature *sig) {
  return sig ? static_cast<int>(sig->sig.results.size()) : 0;
}

int te_call_signature_arg(const te_call_signature *sig, int index,
                          te_call_type *out) {
  if (!sig || !out || index < 0 ||
      static_cast<size_t>(index) >= sig->sig.args.size())
    return fail("te_call_signature_arg: no argument " + std::to_string(index));
  fillType(sig->sig.args[index], out);
  return ok();
}

int te_call_signature_result(const te_call_signature *sig, int index,
                             te_call_type *out) {
  if (!sig || !out || index < 0 ||
      static_cast<size_t>(index) >= sig->sig.results.size())
    return fail("te_call_signature_result: no result " + std::to_string(index));
  fillType(sig->sig.results[index], out);
  return ok();
}

const char *te_call_signature_target(const te_call_signature *sig) {
  return sig ? sig->target.c_str() : "";
}

int te_call_signature_shape_checks(const te_call_signature *sig) {
  return sig && sig->sig.shapeChecks ? 1 : 0;
}

const char *te_call_signature_text(const te_call_signature *sig) {
  return sig ? sig->text.c_str() : "";
}

int te_call_program_open(const char *path, te_call_program **out) {
  if (!out)
    return fail("te_call_program_open: NULL argument");
  *out = nullptr;
  void *handle = nullptr;
  if (path) {
    dlerror();
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *e = dlerror();
      return fail(std::string("cannot load the program ") + path + ": " +
                  (e ? e : "unknown error") +
                  " (a shared library made by scripts/te-aot.sh compile; "
                  "libte_rt and libte_call loaded first)");
    }
  } else {
    handle = dlopen(nullptr, RTLD_NOW);
  }
  auto *p = new (std::nothrow) te_call_program();
  if (!p) {
    if (path)
      dlclose(handle);
    return fail("out of memory");
  }
  p->handle = handle;
  p->own = path != nullptr;
  *out = p;
  return ok();
}

void te_call_program_close(te_call_program *program) {
  if (!program)
    return;
  if (program->own && program->handle)
    dlclose(program->handle);
  delete program;
}

int te_call_program_entry(te_call_program *program, const char *entry,
                          void **packed, te_call_signature **sig) {
  if (!program || !entry || !packed || !sig)
    return fail("te_call_program_entry: NULL argument");
  *packed = nullptr;
  *sig = nullptr;
  std::string name = te::call::packedName(entry);
  void *fn = dlsym(program->handle, name.c_str());
  if (!fn)
    return fail(std::string("the program has no entry @") + entry + " (no " +
                name + "; compiled with --entry " + entry + "?)");
  const auto *text = static_cast<const char *>(
      dlsym(program->handle, te::call::signatureSymbolName(entry).c_str()));
  if (!text)
    return fail(std::string("the program holds no signature of @") + entry +
                " (" + te::call::signatureSymbolName(entry) +
                "): compile it again with this te");
  const auto *target = static_cast<const char *>(
      dlsym(program->handle, te::call::targetSymbolName(entry).c_str()));
  te::call::Signature parsed;
  std::string error;
  if (!te::call::parseSignature(text, parsed, &error))
    return fail("the program's signature of @" + std::string(entry) + ": " +
                error);
  parsed.shapeChecks =
      dlsym(program->handle, te::call::shapeChecksSymbolName(entry).c_str()) !=
      nullptr;
  *sig = newSignature(std::move(parsed), target ? target : "cpu");
  if (!*sig)
    return fail("out of memory");
  *packed = fn;
  return ok();
}

int te_call_frame_create(const te_call_signature *sig, te_call_frame **out) {
  if (!sig || !out)
    return fail("te_call_frame_create: NULL argument");
  *out = new (std::nothrow) te_call_frame(sig->sig);
  return *out ? ok() : fail("out of memory");
}

void te_call_frame_destroy(te_call_frame *frame) { delete frame; }

int te_call_frame_set_tensor(te_call_frame *frame, int index, void *data,
                             int rank, const int64_t *shape,
                             const int64_t *strides) {
  if (!frame || index < 0 || rank < 0 || (rank > 0 && !shape))
    return fail("te_call_frame_set_tensor: bad argument");
  std::vector<int64_t> s(shape, shape + rank), st;
  if (strides)
    st.assign(strides, strides + rank);
  std::string error;
  if (!frame->frame.setTensor(static_cast<size_t>(index), data, s, st, &error))
    return fail(error);
  return ok();
}

int te_call_frame_set_scalar(te_call_frame *frame, int index,
                             const void *value) {
  if (!frame || index < 0 || !value)
    return fail("te_call_frame_set_scalar: bad argument");
  std::string error;
  if (!frame->frame.setScalar(static_cast<size_t>(index), value, &error))
    return fail(error);
  return ok();
}

int te_call_frame_slots(te_call_frame *frame, void ***slots) {
  if (!frame || !slots)
    return fail("te_call_frame_slots: NULL argument");
  std::string error;
  if (!frame->frame.prepare(slots, &error))
    return fail(error);
  return ok();
}

int te_call_frame_invoke(te_call_frame *frame, void *packed) {
  if (!frame || !packed)
    return fail("te_call_frame_invoke: NULL argument");
  std::string error;
  if (!frame->frame.invoke(packed, &error))
    return fail(error);
  return ok();
}

int te_call_frame_result(te_call_frame *frame, int index, te_call_result *out) {
  if (!frame || !out || index < 0)
    return fail("te_call_frame_result: bad argument");
  const te::call::Signature &sig = frame->frame.signature();
  frame->results.resize(sig.results.size());
  std::string error;
  if (static_cast<size_t>(index) >= sig.results.size())
    return fail("result " + std::to_string(index) + ": the entry has " +
                std::to_string(sig.results.size()) + " results");
  te::call::Frame::Result &r = frame->results[index];
  if (!frame->frame.result(static_cast<size_t>(index), r, &error))
    return fail(error);
  out->scalar = r.scalar ? 1 : 0;
  out->rank = static_cast<int32_t>(r.shape.size());
  std::memcpy(out->value, r.value, sizeof(out->value));
  out->allocated = r.allocated;
  out->data = r.scalar ? nullptr : r.data(sig.results[index].elementBytes());
  out->shape = r.shape.empty() ? nullptr : r.shape.data();
  out->strides = r.strides.empty() ? nullptr : r.strides.data();
  out->owned = r.owned ? 1 : 0;
  return ok();
}

void te_call_set_tool_name(const char *name) {
  if (name)
    toolName = name;
}

void *te_run_checked_malloc(size_t bytes) {
  void *p = std::malloc(bytes);
  if (!p && bytes) {
    std::fprintf(stderr,
                 "%s: out of memory allocating %zu bytes in the compiled "
                 "program\n",
                 toolName, bytes);
    std::fflush(nullptr);
    std::_Exit(1);
  }
  return p;
}

} // extern "C"
