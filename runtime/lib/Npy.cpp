//===- Npy.cpp - Minimal .npy reader and writer -----------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace te::npy {

int64_t Array::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

const char *descr(Kind k) {
  switch (k) {
  case Kind::F32:
    return "<f4";
  case Kind::U8:
    return "|u1";
  case Kind::U16:
    return "<u2";
  case Kind::F16:
    return "<f2";
  case Kind::F64:
    return "<f8";
  case Kind::I8:
    return "|i1";
  case Kind::I16:
    return "<i2";
  case Kind::I32:
    return "<i4";
  case Kind::I64:
    return "<i8";
  case Kind::U32:
    return "<u4";
  case Kind::U64:
    return "<u8";
  case Kind::Bool:
    return "|b1";
  }
  return "?";
}

namespace {

bool setError(std::string *error, const std::string &msg) {
  if (error)
    *error = msg;
  return false;
}

/// `s` with every byte outside printable ASCII written as \xNN, so that a
/// message quoting header text is one line and is not cut by a NUL.
std::string printable(const std::string &s) {
  std::string r;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      r += static_cast<char>(c);
      continue;
    }
    char buf[8];
    std::snprintf(buf, sizeof(buf), "\\x%02x", c);
    r += buf;
  }
  return r;
}

/// A value of the header dict: numpy reads the header with
/// ast.literal_eval, so these are Python literals.
struct Value {
  enum { Str, Bool, Tuple, Other } kind = Other;
  std::string str;
  bool boolean = false;
  std::vector<int64_t> ints; ///< Tuple of non-negative ints
  bool badTuple = false;     ///< a tuple with a negative or non-int element
  bool overflow = false;     ///< a tuple element beyond int64
};

/// A parser of the Python dict literal numpy writes as the header: string
/// keys, and string, True/False, tuple-of-int and int values. Anything
/// else numpy might accept (escapes, other number syntaxes) is rejected.
struct HeaderParser {
  const std::string &h;
  size_t i = 0;
  std::string error;

  bool fail(const std::string &msg) {
    if (error.empty())
      error = msg;
    return false;
  }
  void ws() {
    while (i < h.size() && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' ||
                            h[i] == '\r' || h[i] == '\f' || h[i] == '\v'))
      ++i;
  }
  bool eat(char c) {
    ws();
    if (i < h.size() && h[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool malformed() {
    return fail("malformed .npy header (numpy reads it as a Python dict "
                "literal)");
  }
  bool string(std::string &out) {
    ws();
    if (i >= h.size() || (h[i] != '\'' && h[i] != '"'))
      return malformed();
    char q = h[i++];
    size_t b = i;
    while (i < h.size() && h[i] != q) {
      if (h[i] == '\\')
        return fail("escapes in .npy header strings are not supported");
      if (h[i] == '\n')
        return malformed();
      ++i;
    }
    if (i >= h.size())
      return malformed();
    out = h.substr(b, i - b);
    ++i;
    return true;
  }
  /// A Python int literal: 0 or [1-9][0-9]*, optionally signed.
  bool integer(int64_t &out, bool &negative, bool &overflow) {
    ws();
    negative = false;
    overflow = false;
    while (i < h.size() && (h[i] == '-' || h[i] == '+')) {
      negative ^= h[i] == '-';
      ++i;
      ws();
    }
    if (i >= h.size() || h[i] < '0' || h[i] > '9')
      return malformed();
    if (h[i] == '0' && i + 1 < h.size() && h[i + 1] >= '0' && h[i + 1] <= '9')
      return malformed(); // Python 3 has no leading zeros
    int64_t v = 0;
    while (i < h.size() && h[i] >= '0' && h[i] <= '9') {
      if (v > (std::numeric_limits<int64_t>::max() - (h[i] - '0')) / 10)
        overflow = true;
      else
        v = v * 10 + (h[i] - '0');
      ++i;
    }
    if (i < h.size() && (std::isalnum(static_cast<unsigned char>(h[i])) ||
                         h[i] == '_' || h[i] == '.'))
      return malformed();
    out = v;
    return true;
  }
  bool keyword(const char *word) {
    ws();
    size_t n = std::strlen(word);
    if (h.compare(i, n, word) != 0)
      return false;
    size_t e = i + n;
    if (e < h.size() &&
        (std::isalnum(static_cast<unsigned char>(h[e])) || h[e] == '_'))
      return false;
    i = e;
    return true;
  }
  bool value(Value &v) {
    ws();
    if (i >= h.size())
      return malformed();
    if (h[i] == '\'' || h[i] == '"') {
      v.kind = Value::Str;
      return string(v.str);
    }
    if (keyword("True") || keyword("False")) {
      v.kind = Value::Bool;
      v.boolean = h.compare(i - 4, 4, "True") == 0;
      return true;
    }
    if (h[i] == '(') {
      ++i;
      // `(3)` is the int 3, `(3,)` and `()` are tuples.
      v.kind = Value::Tuple;
      if (eat(')'))
        return true;
      size_t count = 0;
      bool comma = false;
      while (true) {
        int64_t d;
        bool negative, overflow;
        if (!integer(d, negative, overflow))
          return false;
        ++count;
        if (negative && d != 0)
          v.badTuple = true;
        v.overflow |= overflow;
        v.ints.push_back(d);
        if (eat(')'))
          break;
        if (!eat(','))
          return malformed();
        comma = true;
        if (eat(')'))
          break;
      }
      if (count == 1 && !comma)
        v.kind = Value::Other;
      return true;
    }
    int64_t d;
    bool negative, overflow;
    v.kind = Value::Other;
    return integer(d, negative, overflow);
  }
  /// The dict; a repeated key keeps its last value, as in Python.
  bool dict(std::map<std::string, Value> &out) {
    if (!eat('{'))
      return malformed();
    while (true) {
      if (eat('}'))
        break;
      std::string key;
      if (!string(key))
        return false;
      if (!eat(':'))
        return malformed();
      Value v;
      if (!value(v))
        return false;
      out[key] = v;
      if (eat('}'))
        break;
      if (!eat(','))
        return malformed();
    }
    ws();
    if (i != h.size())
      return malformed();
    return true;
  }
};

/// numpy's limit on the header (numpy.lib.format._MAX_HEADER_SIZE): longer
/// headers are refused unless pickles are allowed.
constexpr size_t kMaxHeader = 10000;

/// Parses the header dict and fills `out`'s kind and shape; returns the byte
/// size of the data.
bool parseHeader(const std::string &h, Array &out, int64_t &dataBytes,
                 std::string *error) {
  if (h.find('\0') != std::string::npos)
    return setError(error, "the .npy header contains a NUL byte");
  std::map<std::string, Value> d;
  HeaderParser p{h};
  if (!p.dict(d)) {
    // The messages the files of older releases pinned.
    size_t shape = h.find("'shape'");
    if (shape != std::string::npos && p.i > shape)
      return setError(error, "malformed shape in the .npy header");
    return setError(error, p.error);
  }
  if (!d.count("descr"))
    return setError(error, "the .npy header has no descr");
  if (!d.count("fortran_order"))
    return setError(error, "the .npy header has no fortran_order");
  if (!d.count("shape"))
    return setError(error, "the .npy header has no shape");
  for (const auto &[key, v] : d)
    if (key != "descr" && key != "fortran_order" && key != "shape")
      return setError(error, "the .npy header has the key '" + printable(key) +
                                 "'; numpy accepts only descr, "
                                 "fortran_order and shape");
  const Value &descrV = d["descr"];
  if (descrV.kind != Value::Str)
    return setError(error, "malformed descr in the .npy header");
  const std::string &ds = descrV.str;
  if (ds == "<f4")
    out.kind = Kind::F32;
  else if (ds == "|u1" || ds == "u1")
    out.kind = Kind::U8;
  else if (ds == "<u2")
    out.kind = Kind::U16;
  else if (ds == "<f2")
    out.kind = Kind::F16;
  else if (ds == "<f8")
    out.kind = Kind::F64;
  else if (ds == "|i1" || ds == "i1")
    out.kind = Kind::I8;
  else if (ds == "<i2")
    out.kind = Kind::I16;
  else if (ds == "<i4")
    out.kind = Kind::I32;
  else if (ds == "<i8")
    out.kind = Kind::I64;
  else if (ds == "<u4")
    out.kind = Kind::U32;
  else if (ds == "<u8")
    out.kind = Kind::U64;
  else if (ds == "|b1" || ds == "b1")
    out.kind = Kind::Bool;
  else if (ds == ">f4" || ds == ">f2" || ds == ">f8" || ds == ">u2" ||
           ds == ">u4" || ds == ">u8" || ds == ">i2" || ds == ">i4" ||
           ds == ">i8")
    return setError(error, "big-endian .npy data ('" + ds +
                               "') is not supported: convert it with "
                               "a.astype('<" +
                               ds.substr(1) + "')");
  else
    return setError(error, "unsupported .npy dtype '" + printable(ds) +
                               "' (expected '<f4', '<f2', '<f8', '|u1', "
                               "'<u2', '<u4', '<u8', '|i1', '<i2', '<i4', "
                               "'<i8' or '|b1')");
  const Value &fo = d["fortran_order"];
  if (fo.kind != Value::Bool)
    return setError(error, "malformed fortran_order in the .npy header");
  if (fo.boolean)
    return setError(error, "fortran_order True .npy files are not supported");
  const Value &sh = d["shape"];
  if (sh.kind == Value::Tuple && sh.overflow && !sh.badTuple)
    return setError(error, "a .npy dimension overflows int64");
  if (sh.kind != Value::Tuple || sh.badTuple)
    return setError(error, "malformed shape in the .npy header");
  out.shape = sh.ints;
  int64_t n = 1;
  for (int64_t dim : out.shape) {
    if (dim != 0 && n > std::numeric_limits<int64_t>::max() / 8 / dim)
      return setError(error, "the .npy array is too large");
    n *= dim;
  }
  dataBytes = n * Array::elementBytes(out.kind);
  return true;
}

/// A source of bytes: reads up to n bytes into dst, returns how many.
struct Source {
  virtual ~Source() = default;
  virtual size_t read(void *dst, size_t n) = 0;
  /// The bytes left to read, where the source knows it (a buffer, a regular
  /// file); a pipe does not.
  virtual std::optional<size_t> remaining() const = 0;
};

struct MemorySource final : Source {
  const std::vector<uint8_t> &f;
  size_t pos = 0;
  explicit MemorySource(const std::vector<uint8_t> &f) : f(f) {}
  size_t read(void *dst, size_t n) override {
    size_t got = std::min(n, f.size() - pos);
    if (got)
      std::memcpy(dst, f.data() + pos, got);
    pos += got;
    return got;
  }
  std::optional<size_t> remaining() const override { return f.size() - pos; }
};

struct FileSource final : Source {
  FILE *fp;
  explicit FileSource(FILE *fp) : fp(fp) {}
  size_t read(void *dst, size_t n) override {
    size_t total = 0;
    auto *p = static_cast<uint8_t *>(dst);
    while (total < n) {
      size_t chunk = std::min<size_t>(n - total, size_t(1) << 26);
      size_t got = std::fread(p + total, 1, chunk, fp);
      total += got;
      if (got < chunk)
        break;
    }
    return total;
  }
  std::optional<size_t> remaining() const override {
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode))
      return std::nullopt;
    long at = std::ftell(fp);
    if (at < 0 || static_cast<uint64_t>(at) > static_cast<uint64_t>(st.st_size))
      return std::nullopt;
    return static_cast<size_t>(st.st_size - at);
  }
};

/// Reads one array: magic and version, then the header (at most kMaxHeader
/// bytes), then exactly the bytes the header announces. Nothing is read
/// before the part it depends on is checked, so a stream of zeros or a
/// huge file costs a few bytes, not its size.
bool parseFrom(Source &src, Array &out, std::string *error) {
  uint8_t pre[12];
  static const uint8_t magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  size_t got = src.read(pre, 8);
  if (got < 8 || std::memcmp(pre, magic, 6) != 0)
    return setError(error, "not a .npy file (bad magic)");
  int major = pre[6], minor = pre[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return setError(error, "unsupported .npy format version " +
                               std::to_string(major) + "." +
                               std::to_string(minor) +
                               " (numpy writes 1.0, 2.0 and 3.0)");
  size_t lenBytes = major == 1 ? 2 : 4;
  if (src.read(pre + 8, lenBytes) < lenBytes)
    return setError(error, "truncated .npy header");
  size_t headerLen = 0;
  for (size_t b = 0; b < lenBytes; ++b)
    headerLen |= size_t(pre[8 + b]) << (8 * b);
  if (headerLen > kMaxHeader)
    return setError(error, "the .npy header is " + std::to_string(headerLen) +
                               " bytes; numpy reads at most " +
                               std::to_string(kMaxHeader));
  std::string h(headerLen, '\0');
  if (src.read(h.data(), headerLen) < headerLen)
    return setError(error, "truncated .npy header");
  int64_t bytes = 0;
  if (!parseHeader(h, out, bytes, error))
    return false;
  // The data is never allocated before it is known to exist: a header that
  // announces gigabytes in front of a few bytes is an error, not an
  // allocation. Where the source cannot tell its size (a pipe), the buffer
  // grows with the bytes that arrive.
  size_t want = static_cast<size_t>(bytes);
  std::optional<size_t> left = src.remaining();
  if (left && *left < want)
    return setError(error, "truncated .npy data: expected " +
                               std::to_string(bytes) + " bytes, got " +
                               std::to_string(*left));
  constexpr size_t kChunk = size_t(1) << 26;
  size_t total = 0;
  try {
    if (left)
      out.bytes.resize(want);
    while (total < want) {
      size_t chunk = std::min(want - total, kChunk);
      if (!left && out.bytes.size() < total + chunk) {
        out.bytes.reserve(
            std::min(want, std::max(2 * out.bytes.capacity(), total + chunk)));
        out.bytes.resize(total + chunk);
      }
      got = src.read(out.bytes.data() + total, chunk);
      total += got;
      if (got < chunk)
        break;
    }
  } catch (const std::exception &) {
    return setError(error, "out of memory allocating " + std::to_string(bytes) +
                               " bytes for the data");
  }
  if (total < want)
    return setError(error, "truncated .npy data: expected " +
                               std::to_string(bytes) + " bytes, got " +
                               std::to_string(total));
  return true;
}

} // namespace

bool parse(const std::vector<uint8_t> &f, Array &out, std::string *error) {
  MemorySource src(f);
  return parseFrom(src, out, error);
}

bool read(const std::string &path, Array &out, std::string *error) {
  bool stdinput = path == "-";
  FILE *fp = stdinput ? stdin : std::fopen(path.c_str(), "rb");
  if (!fp)
    return setError(error,
                    "cannot open '" + path + "': " + std::strerror(errno));
  struct stat st;
  if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
    if (!stdinput)
      std::fclose(fp);
    return setError(error, "'" + path + "' is a directory, not a .npy file");
  }
  FileSource src(fp);
  std::string err;
  bool ok = parseFrom(src, out, &err);
  if (ok && std::ferror(fp)) {
    ok = false;
    err = std::string("read error: ") + std::strerror(errno);
  }
  if (!stdinput)
    std::fclose(fp);
  if (!ok)
    return setError(error, "'" + path + "': " + err);
  return true;
}

std::vector<uint8_t> serialize(const Array &a) {
  std::string h = std::string("{'descr': '") + descr(a.kind) +
                  "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < a.shape.size(); ++i)
    h += std::to_string(a.shape[i]) + (a.shape.size() == 1 ? "," : "") +
         (i + 1 < a.shape.size() ? ", " : "");
  h += "), }";
  bool v2 = false;
  size_t pre = 10;
  size_t total = pre + h.size() + 1;
  size_t pad = (64 - total % 64) % 64;
  if (h.size() + pad + 1 > 65535) {
    v2 = true;
    pre = 12;
    total = pre + h.size() + 1;
    pad = (64 - total % 64) % 64;
  }
  h.append(pad, ' ');
  h += '\n';
  std::vector<uint8_t> out = {
      0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(v2 ? 2 : 1), 0};
  size_t len = h.size();
  out.push_back(static_cast<uint8_t>(len & 0xFF));
  out.push_back(static_cast<uint8_t>((len >> 8) & 0xFF));
  if (v2) {
    out.push_back(static_cast<uint8_t>((len >> 16) & 0xFF));
    out.push_back(static_cast<uint8_t>((len >> 24) & 0xFF));
  }
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), a.bytes.begin(), a.bytes.end());
  return out;
}

bool write(const std::string &path, const Array &a, std::string *error) {
  // The header, then the data straight from `a` (no second copy of it).
  Array empty;
  empty.kind = a.kind;
  empty.shape = a.shape;
  std::vector<uint8_t> header = serialize(empty);
  // Written to a temporary file beside `path`, then renamed over it: `path`
  // is either the old file or the complete new one, never a truncated one.
  std::string tmp = path + ".tmp.XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0)
    return setError(error,
                    "cannot write '" + path + "': " + std::strerror(errno));
  FILE *fp = fdopen(fd, "wb");
  if (!fp) {
    int e = errno;
    close(fd);
    unlink(tmp.c_str());
    return setError(error, "cannot write '" + path + "': " + std::strerror(e));
  }
  errno = 0;
  bool ok = std::fwrite(header.data(), 1, header.size(), fp) == header.size();
  ok = ok && (a.bytes.empty() || std::fwrite(a.bytes.data(), 1, a.bytes.size(),
                                             fp) == a.bytes.size());
  ok = std::fflush(fp) == 0 && ok;
  int e = errno;
  ok = std::fclose(fp) == 0 && ok;
  if (!ok && !e)
    e = errno;
  // mkstemp makes the file 0600; a .npy is as readable as any new file.
  mode_t mask = umask(0);
  umask(mask);
  if (ok && chmod(tmp.c_str(), 0666 & ~mask) != 0)
    e = errno, ok = false;
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0)
    e = errno, ok = false;
  if (!ok) {
    unlink(tmp.c_str());
    return setError(error, "cannot write '" + path +
                               "': " + (e ? std::strerror(e) : "write error"));
  }
  return true;
}

} // namespace te::npy
