//===- Npy.cpp - Minimal .npy reader and writer -----------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include <cstdio>
#include <cstring>
#include <limits>

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
  }
  return "?";
}

namespace {

bool setError(std::string *error, const std::string &msg) {
  if (error)
    *error = msg;
  return false;
}

void skipSpaces(const std::string &s, size_t &i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
    ++i;
}

/// Finds the value text following 'key': in the header dict.
bool findValue(const std::string &h, const char *key, size_t &pos) {
  std::string k1 = std::string("'") + key + "'";
  std::string k2 = std::string("\"") + key + "\"";
  size_t p = h.find(k1);
  size_t len = k1.size();
  if (p == std::string::npos) {
    p = h.find(k2);
    len = k2.size();
  }
  if (p == std::string::npos)
    return false;
  p += len;
  skipSpaces(h, p);
  if (p >= h.size() || h[p] != ':')
    return false;
  ++p;
  skipSpaces(h, p);
  pos = p;
  return true;
}

} // namespace

bool parse(const std::vector<uint8_t> &f, Array &out, std::string *error) {
  static const uint8_t magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (f.size() < 10 || std::memcmp(f.data(), magic, 6) != 0)
    return setError(error, "not a .npy file (bad magic)");
  int major = f[6];
  size_t headerLen, start;
  if (major == 1) {
    headerLen = f[8] | (size_t(f[9]) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (f.size() < 12)
      return setError(error, "truncated .npy header");
    headerLen = f[8] | (size_t(f[9]) << 8) | (size_t(f[10]) << 16) |
                (size_t(f[11]) << 24);
    start = 12;
  } else {
    return setError(error, "unsupported .npy version " + std::to_string(major));
  }
  if (start + headerLen > f.size())
    return setError(error, "truncated .npy header");
  std::string h(reinterpret_cast<const char *>(f.data() + start), headerLen);

  size_t p;
  if (!findValue(h, "descr", p) || (h[p] != '\'' && h[p] != '"'))
    return setError(error, "the .npy header has no descr");
  char quote = h[p];
  size_t e = h.find(quote, p + 1);
  if (e == std::string::npos)
    return setError(error, "malformed descr in the .npy header");
  std::string d = h.substr(p + 1, e - p - 1);
  if (d == "<f4")
    out.kind = Kind::F32;
  else if (d == "|u1" || d == "u1")
    out.kind = Kind::U8;
  else if (d == "<u2")
    out.kind = Kind::U16;
  else
    return setError(error, "unsupported .npy dtype '" + d +
                               "' (expected '<f4', '|u1' or '<u2')");

  if (!findValue(h, "fortran_order", p))
    return setError(error, "the .npy header has no fortran_order");
  if (h.compare(p, 4, "True") == 0)
    return setError(error, "fortran_order True .npy files are not supported");
  if (h.compare(p, 5, "False") != 0)
    return setError(error, "malformed fortran_order in the .npy header");

  if (!findValue(h, "shape", p) || h[p] != '(')
    return setError(error, "the .npy header has no shape");
  size_t close = h.find(')', p);
  if (close == std::string::npos)
    return setError(error, "malformed shape in the .npy header");
  out.shape.clear();
  std::string dims = h.substr(p + 1, close - p - 1);
  size_t i = 0;
  while (i < dims.size()) {
    skipSpaces(dims, i);
    if (i >= dims.size())
      break;
    if (dims[i] < '0' || dims[i] > '9')
      return setError(error, "malformed shape in the .npy header");
    int64_t v = 0;
    while (i < dims.size() && dims[i] >= '0' && dims[i] <= '9') {
      if (v > (std::numeric_limits<int64_t>::max() - 9) / 10)
        return setError(error, "a .npy dimension overflows int64");
      v = v * 10 + (dims[i] - '0');
      ++i;
    }
    out.shape.push_back(v);
    skipSpaces(dims, i);
    if (i < dims.size() && dims[i] == ',')
      ++i;
  }
  int64_t n = 1;
  for (int64_t dim : out.shape) {
    if (dim != 0 && n > std::numeric_limits<int64_t>::max() / 8 / dim)
      return setError(error, "the .npy array is too large");
    n *= dim;
  }
  int64_t bytes = n * Array::elementBytes(out.kind);
  size_t dataStart = start + headerLen;
  if (static_cast<uint64_t>(f.size() - dataStart) <
      static_cast<uint64_t>(bytes))
    return setError(error, "truncated .npy data: expected " +
                               std::to_string(bytes) + " bytes, got " +
                               std::to_string(f.size() - dataStart));
  out.bytes.assign(f.begin() + dataStart, f.begin() + dataStart + bytes);
  return true;
}

bool read(const std::string &path, Array &out, std::string *error) {
  FILE *fp = std::fopen(path.c_str(), "rb");
  if (!fp)
    return setError(error, "cannot open '" + path + "'");
  std::vector<uint8_t> buf;
  uint8_t chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), fp)) > 0)
    buf.insert(buf.end(), chunk, chunk + got);
  std::fclose(fp);
  std::string err;
  if (!parse(buf, out, &err))
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
  std::vector<uint8_t> bytes = serialize(a);
  FILE *fp = std::fopen(path.c_str(), "wb");
  if (!fp)
    return setError(error, "cannot write '" + path + "'");
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), fp) == bytes.size();
  ok = (std::fclose(fp) == 0) && ok;
  if (!ok)
    return setError(error, "cannot write '" + path + "'");
  return true;
}

} // namespace te::npy
