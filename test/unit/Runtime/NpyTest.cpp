//===- NpyTest.cpp - The .npy reader and writer ---------------------------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Headers are written out by hand here, byte for byte as NumPy writes them
// (format 1.0 / 2.0: magic, version, little-endian header length, a Python
// dict literal padded with spaces to a multiple of 64 bytes, '\n').
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace {

std::vector<uint8_t> npyFile(int version, const std::string &dict,
                             const std::vector<uint8_t> &data) {
  size_t pre = version == 1 ? 10 : 12;
  std::string h = dict;
  while ((pre + h.size() + 1) % 64)
    h += ' ';
  h += '\n';
  std::vector<uint8_t> f = {
      0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(version), 0};
  f.push_back(static_cast<uint8_t>(h.size() & 0xFF));
  f.push_back(static_cast<uint8_t>(h.size() >> 8));
  if (version != 1) {
    f.push_back(0);
    f.push_back(0);
  }
  f.insert(f.end(), h.begin(), h.end());
  f.insert(f.end(), data.begin(), data.end());
  return f;
}

TEST(Npy, ParsesVersion1Float32) {
  std::vector<uint8_t> data(2 * 3 * 4);
  float v[6] = {1, 2, 3, 4, 5, -6.5f};
  std::memcpy(data.data(), v, sizeof(v));
  te::npy::Array a;
  std::string err;
  ASSERT_TRUE(te::npy::parse(
      npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
              data),
      a, &err))
      << err;
  EXPECT_EQ(a.kind, te::npy::Kind::F32);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.numElements(), 6);
  EXPECT_EQ(std::memcmp(a.bytes.data(), v, sizeof(v)), 0);
}

TEST(Npy, ParsesVersion2AndOtherKinds) {
  te::npy::Array a;
  std::string err;
  ASSERT_TRUE(te::npy::parse(
      npyFile(2, "{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }",
              {1, 2, 3, 4}),
      a, &err))
      << err;
  EXPECT_EQ(a.kind, te::npy::Kind::U8);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{4}));
  ASSERT_TRUE(te::npy::parse(
      npyFile(1, "{'descr': '<u2', 'fortran_order': False, 'shape': (), }",
              {0x80, 0x3F}),
      a, &err))
      << err;
  EXPECT_EQ(a.kind, te::npy::Kind::U16);
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(a.numElements(), 1);
}

TEST(Npy, ParsesIntegerAndBoolKinds) {
  struct Case {
    const char *descr;
    te::npy::Kind kind;
    int64_t bytes;
  } cases[] = {
      {"|i1", te::npy::Kind::I8, 1},   {"<i2", te::npy::Kind::I16, 2},
      {"<i4", te::npy::Kind::I32, 4},  {"<i8", te::npy::Kind::I64, 8},
      {"<u4", te::npy::Kind::U32, 4},  {"<u8", te::npy::Kind::U64, 8},
      {"|b1", te::npy::Kind::Bool, 1},
  };
  for (const Case &c : cases) {
    te::npy::Array a;
    std::string err;
    std::vector<uint8_t> data(3 * c.bytes, 1);
    ASSERT_TRUE(te::npy::parse(npyFile(1,
                                       std::string("{'descr': '") + c.descr +
                                           "', 'fortran_order': False, "
                                           "'shape': (3,), }",
                                       data),
                               a, &err))
        << c.descr << ": " << err;
    EXPECT_EQ(a.kind, c.kind) << c.descr;
    EXPECT_EQ(te::npy::Array::elementBytes(a.kind), c.bytes) << c.descr;
    EXPECT_EQ(a.bytes, data) << c.descr;
    EXPECT_STREQ(te::npy::descr(a.kind), c.descr);
    te::npy::Array b;
    ASSERT_TRUE(te::npy::parse(te::npy::serialize(a), b, &err)) << err;
    EXPECT_EQ(b.kind, a.kind);
    EXPECT_EQ(b.bytes, a.bytes);
  }
}

TEST(Npy, RejectsWithAMessage) {
  te::npy::Array a;
  std::string err;
  EXPECT_FALSE(te::npy::parse({'x', 'y'}, a, &err));
  EXPECT_EQ(err, "not a .npy file (bad magic)");
  EXPECT_FALSE(te::npy::parse(
      npyFile(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
              std::vector<uint8_t>(8)),
      a, &err));
  EXPECT_EQ(err, "unsupported .npy dtype '<c8' (expected '<f4', '<f2', '<f8', "
                 "'|u1', '<u2', '<u4', '<u8', '|i1', '<i2', '<i4', '<i8' or "
                 "'|b1')");
  EXPECT_FALSE(te::npy::parse(
      npyFile(1, "{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }",
              std::vector<uint8_t>(4)),
      a, &err));
  EXPECT_EQ(err, "big-endian .npy data ('>i4') is not supported: convert it "
                 "with a.astype('<i4')");
  EXPECT_FALSE(te::npy::parse(
      npyFile(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
              std::vector<uint8_t>(4)),
      a, &err));
  EXPECT_EQ(err, "big-endian .npy data ('>f4') is not supported: convert it "
                 "with a.astype('<f4')");
  EXPECT_FALSE(te::npy::parse(
      npyFile(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
              std::vector<uint8_t>(16)),
      a, &err));
  EXPECT_EQ(err, "fortran_order True .npy files are not supported");
  EXPECT_FALSE(te::npy::parse(
      npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
              std::vector<uint8_t>(8)),
      a, &err));
  EXPECT_EQ(err, "truncated .npy data: expected 12 bytes, got 8");
  // A header that announces terabytes in front of a few bytes is refused
  // before anything is allocated for them.
  EXPECT_FALSE(te::npy::parse(
      npyFile(1,
              "{'descr': '<f8', 'fortran_order': False, 'shape': "
              "(1099511627776,), }",
              std::vector<uint8_t>(8)),
      a, &err));
  EXPECT_EQ(err, "truncated .npy data: expected 8796093022208 bytes, got 8");
  std::vector<uint8_t> v9 = npyFile(1, "{}", {});
  v9[6] = 9;
  EXPECT_FALSE(te::npy::parse(v9, a, &err));
  EXPECT_EQ(err,
            "unsupported .npy format version 9.0 (numpy writes 1.0, 2.0 and "
            "3.0)");
  EXPECT_FALSE(te::npy::parse(
      npyFile(1,
              "{'descr': '<f4', 'fortran_order': False, 'shape': "
              "(99999999999999999999,), }",
              {}),
      a, &err));
  EXPECT_EQ(err, "a .npy dimension overflows int64");
  EXPECT_FALSE(te::npy::read("/nonexistent/dir/x.npy", a, &err));
  EXPECT_EQ(err, "cannot open '/nonexistent/dir/x.npy': No such file or "
                 "directory");
}

// numpy's header rules (numpy.lib.format._read_array_header): the header is
// a Python dict literal with exactly three keys; a repeated key keeps its
// last value; `(3)` is not a tuple; a NUL is refused with a readable
// message.
TEST(Npy, FollowsNumpysHeaderRules) {
  te::npy::Array a;
  std::string err;
  auto parse = [&](const char *header, size_t dataBytes) {
    err.clear();
    return te::npy::parse(npyFile(1, header, std::vector<uint8_t>(dataBytes)),
                          a, &err);
  };
  EXPECT_TRUE(parse("{'descr': '<u2', 'descr': '<f4', 'fortran_order': False, "
                    "'shape': (2,), }",
                    8));
  EXPECT_EQ(a.kind, te::npy::Kind::F32);
  EXPECT_TRUE(
      parse("{\"descr\":\"<f8\",\"fortran_order\":False,\"shape\":(1,)}", 8));
  EXPECT_EQ(a.kind, te::npy::Kind::F64);
  EXPECT_TRUE(
      parse("{'descr': '<f2', 'fortran_order': False, 'shape': (), }", 2));
  EXPECT_EQ(a.kind, te::npy::Kind::F16);
  EXPECT_TRUE(a.shape.empty());
  EXPECT_FALSE(
      parse("{'descr': '<f4', 'fortran_order': False, 'shape': (3), }", 12));
  EXPECT_EQ(err, "malformed shape in the .npy header");
  EXPECT_FALSE(
      parse("{'descr': '<f4', 'fortran_order': 0, 'shape': (3,), }", 12));
  EXPECT_EQ(err, "malformed fortran_order in the .npy header");
  EXPECT_FALSE(parse("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), "
                     "'extra': 1}",
                     12));
  EXPECT_EQ(err, "the .npy header has the key 'extra'; numpy accepts only "
                 "descr, fortran_order and shape");
  EXPECT_FALSE(
      parse("{'descr': 3, 'fortran_order': False, 'shape': (3,), }", 12));
  EXPECT_EQ(err, "malformed descr in the .npy header");
  EXPECT_FALSE(parse("{'descr': '<f4', 'fortran_order': False, 'shape': "
                     "(03,), }",
                     12));
  EXPECT_EQ(err, "malformed shape in the .npy header");
  EXPECT_FALSE(parse("{'descr': '<f4' 'fortran_order': False}", 0));
  EXPECT_EQ(err, "malformed .npy header (numpy reads it as a Python dict "
                 "literal)");
  std::string nul = std::string("{'descr': '<f4") + '\0' +
                    "x', 'fortran_order': False, 'shape': (1,), }";
  EXPECT_FALSE(
      te::npy::parse(npyFile(1, nul, std::vector<uint8_t>(4)), a, &err));
  EXPECT_EQ(err, "the .npy header contains a NUL byte");
  std::vector<uint8_t> v15 = npyFile(1, "{}", {});
  v15[7] = 5;
  EXPECT_FALSE(te::npy::parse(v15, a, &err));
  EXPECT_EQ(err,
            "unsupported .npy format version 1.5 (numpy writes 1.0, 2.0 and "
            "3.0)");
}

TEST(Npy, SerializeRoundTripsAndAligns) {
  te::npy::Array a;
  a.kind = te::npy::Kind::U8;
  a.shape = {3, 1, 2};
  a.bytes = {1, 2, 3, 4, 5, 6};
  std::vector<uint8_t> f = te::npy::serialize(a);
  size_t headerLen = f[8] | (f[9] << 8);
  EXPECT_EQ((10 + headerLen) % 64, 0u);
  std::string h(f.begin() + 10, f.begin() + 10 + headerLen);
  EXPECT_EQ(
      h.rfind("{'descr': '|u1', 'fortran_order': False, 'shape': (3, 1, 2), }",
              0),
      0u)
      << h;
  te::npy::Array b;
  std::string err;
  ASSERT_TRUE(te::npy::parse(f, b, &err)) << err;
  EXPECT_EQ(b.shape, a.shape);
  EXPECT_EQ(b.bytes, a.bytes);
  a.shape = {6};
  f = te::npy::serialize(a);
  std::string h1(f.begin() + 10, f.begin() + 10 + (f[8] | (f[9] << 8)));
  EXPECT_NE(h1.find("'shape': (6,)"), std::string::npos) << h1;
}

} // namespace
