//===- LayoutTest.cpp - Buffer layouts of every recipe
//---------------------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Every expected shape below is a literal worked out by hand from the tables
// of docs/formats.md §3 (TE's C++ create_tensor layouts), at the shapes of TE's
// own tests (§8) plus N-D, odd, dynamic and overflowing shapes.
//
//===----------------------------------------------------------------------===//

#include "te/Format/Layout.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace te::format;

namespace {

constexpr int64_t D = kDynamic;
constexpr auto F32 = DType::F32;
constexpr auto E4M3 = DType::E4M3;
constexpr auto E5M2 = DType::E5M2;
constexpr auto E8M0 = DType::E8M0;
constexpr auto FP4 = DType::E2M1x2;
constexpr auto Data = BufferRole::Data;
constexpr auto Scale = BufferRole::ScaleInv;
constexpr auto Amax = BufferRole::Amax;
constexpr Target SM90 = Target::SM90, SM100 = Target::SM100;

struct Expected {
  const char *name;
  Shape shape;
  DType dtype;
  BufferRole role;
  bool columnwise;
};

std::string str(const Shape &s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i)
    os << (i ? "," : "")
       << (s[i] == D ? std::string("?") : std::to_string(s[i]));
  return os.str() + "]";
}

void expectLayout(const QuantizerConfig &c, const Shape &shape, Usage u,
                  Target t, const std::vector<Expected> &want) {
  std::vector<BufferDesc> got;
  std::string err;
  ASSERT_TRUE(getBufferLayout(c, shape, u, t, got, &err))
      << str(shape) << ": " << err;
  ASSERT_EQ(got.size(), want.size()) << str(shape);
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(std::string(want[i].name) + " of " + str(shape));
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_EQ(str(got[i].shape), str(want[i].shape));
    EXPECT_EQ(got[i].dtype, want[i].dtype);
    EXPECT_EQ(got[i].role, want[i].role);
    EXPECT_EQ(got[i].columnwise, want[i].columnwise);
  }
}

void expectError(const QuantizerConfig &c, const Shape &shape, Usage u,
                 Target t, const std::string &msg) {
  std::vector<BufferDesc> got{BufferDesc{"stale", Data, false, {}, F32}};
  std::string err;
  EXPECT_FALSE(getBufferLayout(c, shape, u, t, got, &err)) << str(shape);
  EXPECT_EQ(err, msg);
  EXPECT_TRUE(got.empty());
}

QuantizerConfig cfg(Recipe r) { return defaultConfig(r); }
QuantizerConfig blockCfg(int dim) {
  QuantizerConfig c = defaultConfig(Recipe::Block);
  c.blockDim = dim;
  return c;
}

//===----------------------------------------------------------------------===//
// Per-tensor FP8 (delayed and current scaling)
//===----------------------------------------------------------------------===//

TEST(Layout, PerTensorHopperTransposes) {
  for (Recipe r : {Recipe::Delayed, Recipe::Current}) {
    auto c = cfg(r);
    expectLayout(c, {16, 48}, Rowwise, SM90,
                 {{"_data", {16, 48}, E4M3, Data, false},
                  {"_scale_inv", {1}, F32, Scale, false}});
    expectLayout(c, {16, 48}, RowwiseAndColumnwise, SM90,
                 {{"_data", {16, 48}, E4M3, Data, false},
                  {"_transpose", {48, 16}, E4M3, Data, true},
                  {"_scale_inv", {1}, F32, Scale, false}});
    expectLayout(c, {16, 48}, Columnwise, SM90,
                 {{"_transpose", {48, 16}, E4M3, Data, true},
                  {"_scale_inv", {1}, F32, Scale, false}});
  }
  auto c = cfg(Recipe::Current);
  expectLayout(c, {7, 5, 3}, RowwiseAndColumnwise, SM90,
               {{"_data", {7, 5, 3}, E4M3, Data, false},
                {"_transpose", {3, 7, 5}, E4M3, Data, true},
                {"_scale_inv", {1}, F32, Scale, false}});
  expectLayout(c, {2, 3, 5, 3}, Columnwise, SM90,
               {{"_transpose", {3, 2, 3, 5}, E4M3, Data, true},
                {"_scale_inv", {1}, F32, Scale, false}});
  expectLayout(c, {311}, RowwiseAndColumnwise, SM90,
               {{"_data", {311}, E4M3, Data, false},
                {"_transpose", {311}, E4M3, Data, true},
                {"_scale_inv", {1}, F32, Scale, false}});
  c.dtype = E5M2;
  expectLayout(c, {611, 782}, RowwiseAndColumnwise, SM90,
               {{"_data", {611, 782}, E5M2, Data, false},
                {"_transpose", {782, 611}, E5M2, Data, true},
                {"_scale_inv", {1}, F32, Scale, false}});
}

TEST(Layout, PerTensorBlackwellHasNoTranspose) {
  auto c = cfg(Recipe::Current);
  expectLayout(c, {128, 128}, RowwiseAndColumnwise, SM100,
               {{"_data", {128, 128}, E4M3, Data, false},
                {"_scale_inv", {1}, F32, Scale, false}});
  expectLayout(c, {128, 128}, Columnwise, SM100,
               {{"_data", {128, 128}, E4M3, Data, true},
                {"_scale_inv", {1}, F32, Scale, false}});
  expectLayout(c, {7, 11}, Rowwise, SM100,
               {{"_data", {7, 11}, E4M3, Data, false},
                {"_scale_inv", {1}, F32, Scale, false}});
  auto d = cfg(Recipe::Delayed);
  d.dtype = E5M2;
  expectLayout(d, {2, 3, 5, 3}, Columnwise, SM100,
               {{"_data", {2, 3, 5, 3}, E5M2, Data, true},
                {"_scale_inv", {1}, F32, Scale, false}});
}

TEST(Layout, PerTensorZeroDim) {
  // A 0-d tensor is one element: _data and _transpose are that element
  // (0-d), _scale_inv is (1,) as for any per-tensor FP8 tensor.
  for (Recipe r : {Recipe::Delayed, Recipe::Current}) {
    auto c = cfg(r);
    expectLayout(c, {}, RowwiseAndColumnwise, SM90,
                 {{"_data", {}, E4M3, Data, false},
                  {"_transpose", {}, E4M3, Data, true},
                  {"_scale_inv", {1}, F32, Scale, false}});
    expectLayout(c, {}, Columnwise, SM100,
                 {{"_data", {}, E4M3, Data, true},
                  {"_scale_inv", {1}, F32, Scale, false}});
    EXPECT_EQ(verifyShape(c, {}), "");
  }
  int64_t m, k;
  flatten2D({}, m, k);
  EXPECT_EQ(m, 1);
  EXPECT_EQ(k, 1);
}

//===----------------------------------------------------------------------===//
// Float8Block
//===----------------------------------------------------------------------===//

TEST(Layout, Block1D) {
  auto c = blockCfg(1);
  for (Target t : {SM90, SM100}) {
    expectLayout(c, {128, 128}, RowwiseAndColumnwise, t,
                 {{"_rowwise_data", {128, 128}, E4M3, Data, false},
                  {"_rowwise_scale_inv", {1, 128}, F32, Scale, false},
                  {"_columnwise_data", {128, 128}, E4M3, Data, true},
                  {"_columnwise_scale_inv", {1, 128}, F32, Scale, true}});
    expectLayout(c, {256, 272}, RowwiseAndColumnwise, t,
                 {{"_rowwise_data", {256, 272}, E4M3, Data, false},
                  {"_rowwise_scale_inv", {3, 256}, F32, Scale, false},
                  {"_columnwise_data", {272, 256}, E4M3, Data, true},
                  {"_columnwise_scale_inv", {2, 272}, F32, Scale, true}});
  }
  expectLayout(c, {303, 300}, RowwiseAndColumnwise, SM90,
               {{"_rowwise_data", {303, 300}, E4M3, Data, false},
                {"_rowwise_scale_inv", {3, 304}, F32, Scale, false},
                {"_columnwise_data", {300, 303}, E4M3, Data, true},
                {"_columnwise_scale_inv", {3, 300}, F32, Scale, true}});
  expectLayout(c, {2048, 2000}, Rowwise, SM90,
               {{"_rowwise_data", {2048, 2000}, E4M3, Data, false},
                {"_rowwise_scale_inv", {16, 2048}, F32, Scale, false}});
  expectLayout(c, {2048, 2000}, Columnwise, SM90,
               {{"_columnwise_data", {2000, 2048}, E4M3, Data, true},
                {"_columnwise_scale_inv", {16, 2000}, F32, Scale, true}});
  expectLayout(c, {8, 32, 1024}, RowwiseAndColumnwise, SM90,
               {{"_rowwise_data", {8, 32, 1024}, E4M3, Data, false},
                {"_rowwise_scale_inv", {8, 256}, F32, Scale, false},
                {"_columnwise_data", {1024, 8, 32}, E4M3, Data, true},
                {"_columnwise_scale_inv", {2, 1024}, F32, Scale, true}});
  expectLayout(c, {7, 5, 3}, RowwiseAndColumnwise, SM90,
               {{"_rowwise_data", {7, 5, 3}, E4M3, Data, false},
                {"_rowwise_scale_inv", {1, 36}, F32, Scale, false},
                {"_columnwise_data", {3, 7, 5}, E4M3, Data, true},
                {"_columnwise_scale_inv", {1, 4}, F32, Scale, true}});
}

TEST(Layout, Block2D) {
  auto c = blockCfg(2);
  c.dtype = E5M2;
  expectLayout(c, {2000, 2000}, RowwiseAndColumnwise, SM90,
               {{"_rowwise_data", {2000, 2000}, E5M2, Data, false},
                {"_rowwise_scale_inv", {16, 16}, F32, Scale, false},
                {"_columnwise_data", {2000, 2000}, E5M2, Data, true},
                {"_columnwise_scale_inv", {16, 16}, F32, Scale, true}});
  expectLayout(c, {305, 256}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {305, 256}, E5M2, Data, false},
                {"_rowwise_scale_inv", {3, 4}, F32, Scale, false},
                {"_columnwise_data", {256, 305}, E5M2, Data, true},
                {"_columnwise_scale_inv", {2, 4}, F32, Scale, true}});
  expectLayout(c, {1024, 256}, Rowwise, SM90,
               {{"_rowwise_data", {1024, 256}, E5M2, Data, false},
                {"_rowwise_scale_inv", {8, 4}, F32, Scale, false}});
  expectLayout(c, {256, 1024}, Columnwise, SM90,
               {{"_columnwise_data", {1024, 256}, E5M2, Data, true},
                {"_columnwise_scale_inv", {8, 4}, F32, Scale, true}});
}

//===----------------------------------------------------------------------===//
// MXFP8
//===----------------------------------------------------------------------===//

TEST(Layout, MXFP8) {
  auto c = cfg(Recipe::MXFP8);
  for (Target t : {SM90, SM100}) {
    expectLayout(c, {128, 128}, RowwiseAndColumnwise, t,
                 {{"_rowwise_data", {128, 128}, E4M3, Data, false},
                  {"_rowwise_scale_inv", {128, 4}, E8M0, Scale, false},
                  {"_columnwise_data", {128, 128}, E4M3, Data, true},
                  {"_columnwise_scale_inv", {4, 128}, E8M0, Scale, true}});
  }
  expectLayout(c, {8, 32, 1024}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {8, 32, 1024}, E4M3, Data, false},
                {"_rowwise_scale_inv", {256, 32}, E8M0, Scale, false},
                {"_columnwise_data", {8, 32, 1024}, E4M3, Data, true},
                {"_columnwise_scale_inv", {8, 1024}, E8M0, Scale, true}});
  expectLayout(c, {16, 8, 4, 512}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {16, 8, 4, 512}, E4M3, Data, false},
                {"_rowwise_scale_inv", {512, 16}, E8M0, Scale, false},
                {"_columnwise_data", {16, 8, 4, 512}, E4M3, Data, true},
                {"_columnwise_scale_inv", {16, 512}, E8M0, Scale, true}});
  expectLayout(c, {8192, 7168}, Rowwise, SM100,
               {{"_rowwise_data", {8192, 7168}, E4M3, Data, false},
                {"_rowwise_scale_inv", {8192, 224}, E8M0, Scale, false}});
  expectLayout(c, {8192, 7168}, Columnwise, SM100,
               {{"_columnwise_data", {8192, 7168}, E4M3, Data, true},
                {"_columnwise_scale_inv", {256, 7168}, E8M0, Scale, true}});
  c.dtype = E5M2;
  expectLayout(c, {256, 288}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {256, 288}, E5M2, Data, false},
                {"_rowwise_scale_inv", {256, 12}, E8M0, Scale, false},
                {"_columnwise_data", {256, 288}, E5M2, Data, true},
                {"_columnwise_scale_inv", {8, 384}, E8M0, Scale, true}});
  expectLayout(c, {64, 128}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {64, 128}, E5M2, Data, false},
                {"_rowwise_scale_inv", {128, 4}, E8M0, Scale, false},
                {"_columnwise_data", {64, 128}, E5M2, Data, true},
                {"_columnwise_scale_inv", {4, 128}, E8M0, Scale, true}});
  expectLayout(c, {352, 256}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {352, 256}, E5M2, Data, false},
                {"_rowwise_scale_inv", {384, 8}, E8M0, Scale, false},
                {"_columnwise_data", {352, 256}, E5M2, Data, true},
                {"_columnwise_scale_inv", {12, 256}, E8M0, Scale, true}});
  // 2D (32x32) blocks keep the 1D buffer shapes.
  auto c2 = cfg(Recipe::MXFP8);
  c2.mx2D = true;
  expectLayout(c2, {64, 64}, Rowwise, SM100,
               {{"_rowwise_data", {64, 64}, E4M3, Data, false},
                {"_rowwise_scale_inv", {128, 4}, E8M0, Scale, false}});
}

TEST(Layout, MXFP8ShapeRules) {
  auto c = cfg(Recipe::MXFP8);
  expectError(c, {16, 48}, Rowwise, SM100,
              "MXFP8 needs the last dimension divisible by 32, got 48");
  expectError(c, {1, 16}, Rowwise, SM100,
              "MXFP8 needs the last dimension divisible by 32, got 16");
  expectError(c, {993, 512}, Rowwise, SM100,
              "MXFP8 needs the flattened leading dimension divisible by 32, "
              "got 993");
  expectError(c, {48, 64}, Columnwise, SM100,
              "MXFP8 needs the flattened leading dimension divisible by 32, "
              "got 48");
  expectError(c, {1024}, Rowwise, SM100,
              "MXFP8 needs the flattened leading dimension divisible by 32, "
              "got 1");
  expectError(c, {7, 5, 3}, Rowwise, SM100,
              "MXFP8 needs the last dimension divisible by 32, got 3");
  EXPECT_EQ(verifyShape(c, {3, 3, 32}),
            "MXFP8 needs the flattened leading dimension divisible by 32, got "
            "9");
  EXPECT_EQ(verifyShape(c, {4, 8, 32}), "");
}

//===----------------------------------------------------------------------===//
// NVFP4
//===----------------------------------------------------------------------===//

TEST(Layout, NVFP4) {
  auto c = cfg(Recipe::NVFP4);
  for (Target t : {SM90, SM100}) {
    expectLayout(c, {128, 128}, RowwiseAndColumnwise, t,
                 {{"_rowwise_data", {128, 64}, FP4, Data, false},
                  {"_rowwise_scale_inv", {128, 8}, E4M3, Scale, false},
                  {"_columnwise_data", {128, 64}, FP4, Data, true},
                  {"_columnwise_scale_inv", {128, 8}, E4M3, Scale, true},
                  {"_amax_rowwise", {1}, F32, Amax, false},
                  {"_amax_columnwise", {1}, F32, Amax, true}});
  }
  expectLayout(c, {256, 272}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {256, 136}, FP4, Data, false},
                {"_rowwise_scale_inv", {256, 20}, E4M3, Scale, false},
                {"_columnwise_data", {272, 128}, FP4, Data, true},
                {"_columnwise_scale_inv", {384, 16}, E4M3, Scale, true},
                {"_amax_rowwise", {1}, F32, Amax, false},
                {"_amax_columnwise", {1}, F32, Amax, true}});
  expectLayout(c, {304, 304}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {304, 152}, FP4, Data, false},
                {"_rowwise_scale_inv", {384, 20}, E4M3, Scale, false},
                {"_columnwise_data", {304, 152}, FP4, Data, true},
                {"_columnwise_scale_inv", {384, 20}, E4M3, Scale, true},
                {"_amax_rowwise", {1}, F32, Amax, false},
                {"_amax_columnwise", {1}, F32, Amax, true}});
  expectLayout(c, {320, 256}, Columnwise, SM100,
               {{"_columnwise_data", {256, 160}, FP4, Data, true},
                {"_columnwise_scale_inv", {256, 20}, E4M3, Scale, true},
                {"_amax_columnwise", {1}, F32, Amax, true}});
  expectLayout(c, {16, 128}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {16, 64}, FP4, Data, false},
                {"_rowwise_scale_inv", {128, 8}, E4M3, Scale, false},
                {"_columnwise_data", {128, 8}, FP4, Data, true},
                {"_columnwise_scale_inv", {128, 4}, E4M3, Scale, true},
                {"_amax_rowwise", {1}, F32, Amax, false},
                {"_amax_columnwise", {1}, F32, Amax, true}});
  expectLayout(c, {8192, 5120}, Rowwise, SM100,
               {{"_rowwise_data", {8192, 2560}, FP4, Data, false},
                {"_rowwise_scale_inv", {8192, 320}, E4M3, Scale, false},
                {"_amax_rowwise", {1}, F32, Amax, false}});
  // N-D: rowwise data halves the last dim; columnwise data is 2-D (K, M/2).
  expectLayout(c, {2, 8, 64}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {2, 8, 32}, FP4, Data, false},
                {"_rowwise_scale_inv", {128, 4}, E4M3, Scale, false},
                {"_columnwise_data", {64, 8}, FP4, Data, true},
                {"_columnwise_scale_inv", {128, 4}, E4M3, Scale, true},
                {"_amax_rowwise", {1}, F32, Amax, false},
                {"_amax_columnwise", {1}, F32, Amax, true}});
  // Row-scaled: one amax per row (M) and per column (K).
  auto r = cfg(Recipe::NVFP4);
  r.rowScaled = true;
  expectLayout(r, {32, 128}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {32, 64}, FP4, Data, false},
                {"_rowwise_scale_inv", {128, 8}, E4M3, Scale, false},
                {"_columnwise_data", {128, 16}, FP4, Data, true},
                {"_columnwise_scale_inv", {128, 4}, E4M3, Scale, true},
                {"_amax_rowwise", {32}, F32, Amax, false},
                {"_amax_columnwise", {128}, F32, Amax, true}});
  expectLayout(r, {4, 4, 48}, Rowwise, SM100,
               {{"_rowwise_data", {4, 4, 24}, FP4, Data, false},
                {"_rowwise_scale_inv", {128, 4}, E4M3, Scale, false},
                {"_amax_rowwise", {16}, F32, Amax, false}});
}

TEST(Layout, NVFP4ShapeRules) {
  auto c = cfg(Recipe::NVFP4);
  expectError(c, {100, 100}, Rowwise, SM100,
              "NVFP4 needs the last dimension divisible by 16, got 100");
  expectError(c, {611, 782}, Rowwise, SM100,
              "NVFP4 needs the last dimension divisible by 16, got 782");
  expectError(c, {8, 64}, Columnwise, SM100,
              "NVFP4 needs the flattened leading dimension divisible by 16, "
              "got 8");
  expectError(c, {1, 16}, Rowwise, SM100,
              "NVFP4 needs the flattened leading dimension divisible by 16, "
              "got 1");
}

//===----------------------------------------------------------------------===//
// Dynamic dims
//===----------------------------------------------------------------------===//

TEST(Layout, DynamicDims) {
  expectLayout(cfg(Recipe::Current), {D, 64}, RowwiseAndColumnwise, SM90,
               {{"_data", {D, 64}, E4M3, Data, false},
                {"_transpose", {64, D}, E4M3, Data, true},
                {"_scale_inv", {1}, F32, Scale, false}});
  expectLayout(cfg(Recipe::MXFP8), {D, 64}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {D, 64}, E4M3, Data, false},
                {"_rowwise_scale_inv", {D, 4}, E8M0, Scale, false},
                {"_columnwise_data", {D, 64}, E4M3, Data, true},
                {"_columnwise_scale_inv", {D, 128}, E8M0, Scale, true}});
  // Any dynamic leading dim makes M dynamic.
  expectLayout(cfg(Recipe::MXFP8), {4, D, 64}, Rowwise, SM100,
               {{"_rowwise_data", {4, D, 64}, E4M3, Data, false},
                {"_rowwise_scale_inv", {D, 4}, E8M0, Scale, false}});
  expectLayout(cfg(Recipe::MXFP8), {64, D}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {64, D}, E4M3, Data, false},
                {"_rowwise_scale_inv", {128, D}, E8M0, Scale, false},
                {"_columnwise_data", {64, D}, E4M3, Data, true},
                {"_columnwise_scale_inv", {4, D}, E8M0, Scale, true}});
  auto r = cfg(Recipe::NVFP4);
  r.rowScaled = true;
  expectLayout(r, {D, 32}, RowwiseAndColumnwise, SM100,
               {{"_rowwise_data", {D, 16}, FP4, Data, false},
                {"_rowwise_scale_inv", {D, 4}, E4M3, Scale, false},
                {"_columnwise_data", {32, D}, FP4, Data, true},
                {"_columnwise_scale_inv", {128, D}, E4M3, Scale, true},
                {"_amax_rowwise", {D}, F32, Amax, false},
                {"_amax_columnwise", {32}, F32, Amax, true}});
  expectLayout(blockCfg(2), {300, D}, RowwiseAndColumnwise, SM90,
               {{"_rowwise_data", {300, D}, E4M3, Data, false},
                {"_rowwise_scale_inv", {3, D}, F32, Scale, false},
                {"_columnwise_data", {D, 300}, E4M3, Data, true},
                {"_columnwise_scale_inv", {D, 4}, F32, Scale, true}});
  // Dynamic dims pass the shape rules.
  EXPECT_EQ(verifyShape(cfg(Recipe::NVFP4), {D, D}), "");
  EXPECT_EQ(verifyShape(cfg(Recipe::NVFP4), {3, D, 16}), "");
  EXPECT_EQ(verifyShape(cfg(Recipe::NVFP4), {D, 17}),
            "NVFP4 needs the last dimension divisible by 16, got 17");
}

/// The extents of every buffer, printed (Extent::str).
std::vector<std::string> extentStrs(const QuantizerConfig &c, int64_t rank,
                                    Usage u, Target t) {
  std::vector<BufferExtents> buffers;
  std::string err;
  EXPECT_TRUE(getBufferExtents(c, rank, u, t, buffers, &err)) << err;
  std::vector<std::string> out;
  for (const BufferExtents &b : buffers) {
    std::string s = b.name + " [";
    for (size_t i = 0; i < b.shape.size(); ++i)
      s += (i ? ", " : "") + b.shape[i].str();
    out.push_back(s + "]");
  }
  return out;
}

TEST(Layout, ExtentsAreTheLayoutRules) {
  using V = std::vector<std::string>;
  EXPECT_EQ(extentStrs(cfg(Recipe::Current), 2, RowwiseAndColumnwise, SM90),
            (V{"_data [d0, d1]", "_transpose [d1, d0]", "_scale_inv [1]"}));
  EXPECT_EQ(
      extentStrs(blockCfg(1), 3, RowwiseAndColumnwise, SM90),
      (V{"_rowwise_data [d0, d1, d2]",
         "_rowwise_scale_inv [ceildiv(d2, 128), roundup(d0 * d1, 4)]",
         "_columnwise_data [d2, d0, d1]",
         "_columnwise_scale_inv [ceildiv(d0 * d1, 128), roundup(d2, 4)]"}));
  EXPECT_EQ(
      extentStrs(blockCfg(2), 2, Rowwise, SM90),
      (V{"_rowwise_data [d0, d1]", "_rowwise_scale_inv [ceildiv(d0, 128), "
                                   "roundup(ceildiv(d1, 128), 4)]"}));
  EXPECT_EQ(extentStrs(cfg(Recipe::MXFP8), 2, RowwiseAndColumnwise, SM100),
            (V{"_rowwise_data [d0, d1]",
               "_rowwise_scale_inv [roundup(d0, 128), "
               "roundup(ceildiv(d1, 32), 4)]",
               "_columnwise_data [d0, d1]",
               "_columnwise_scale_inv [roundup(ceildiv(d0, 32), 4), "
               "roundup(d1, 128)]"}));
  EXPECT_EQ(extentStrs(cfg(Recipe::NVFP4), 2, Columnwise, SM100),
            (V{"_columnwise_data [d1, (d0) / 2]",
               "_columnwise_scale_inv [roundup(d1, 128), "
               "roundup(ceildiv(d0, 16), 4)]",
               "_amax_columnwise [1]"}));
  // Rank 0: per-tensor recipes only.
  EXPECT_EQ(extentStrs(cfg(Recipe::Delayed), 0, Rowwise, SM90),
            (V{"_data []", "_scale_inv [1]"}));
  std::vector<BufferExtents> none;
  std::string err;
  EXPECT_FALSE(
      getBufferExtents(cfg(Recipe::NVFP4), 0, Rowwise, SM100, none, &err));
  EXPECT_NE(err.find("needs rank >= 1"), std::string::npos) << err;
}

TEST(Layout, ExtentsEvaluateToTheLayout) {
  // getBufferLayout is the extents evaluated: spot-check an odd shape.
  std::vector<BufferExtents> e;
  ASSERT_TRUE(getBufferExtents(blockCfg(1), 3, RowwiseAndColumnwise, SM90, e));
  Shape shape{3, 100, 300};
  EXPECT_EQ(e[1].shape[0].evaluate(shape), 3);   // ceil(300/128)
  EXPECT_EQ(e[1].shape[1].evaluate(shape), 300); // rup(300, 4)
  EXPECT_EQ(e[3].shape[0].evaluate({3, D, 300}), D);
  EXPECT_EQ(e[3].shape[1].evaluate({3, D, 300}), 300);
  EXPECT_EQ(rowsExtent(0), Extent::constant(1));
  EXPECT_EQ(rowsExtent(1), Extent::constant(1));
  EXPECT_EQ(rowsExtent(2), Extent::dim(0));
  EXPECT_EQ(colsExtent(3), Extent::dim(2));
  EXPECT_NE(Extent::ceilDiv(Extent::dim(0), 2),
            Extent::exactDiv(Extent::dim(0), 2));
}

TEST(Layout, FindExtent) {
  size_t buffer = 9, axis = 9;
  int64_t factor = 0;
  std::vector<BufferExtents> e;
  // Hopper columnwise-only per-tensor: d0 is axis 1 of _transpose.
  ASSERT_TRUE(getBufferExtents(cfg(Recipe::Current), 2, Columnwise, SM90, e));
  ASSERT_TRUE(findExtent(e, Extent::dim(0), &buffer, &axis, &factor));
  EXPECT_EQ(e[buffer].name, "_transpose");
  EXPECT_EQ(axis, 1u);
  EXPECT_EQ(factor, 1);
  // NVFP4 columnwise: M is twice axis 1 of _columnwise_data.
  ASSERT_TRUE(getBufferExtents(cfg(Recipe::NVFP4), 2, Columnwise, SM100, e));
  ASSERT_TRUE(findExtent(e, Extent::dim(0), &buffer, &axis, &factor));
  EXPECT_EQ(e[buffer].name, "_columnwise_data");
  EXPECT_EQ(axis, 1u);
  EXPECT_EQ(factor, 2);
  // ... but a leading dimension of a 3-D one is only inside M.
  ASSERT_TRUE(getBufferExtents(cfg(Recipe::NVFP4), 3, Columnwise, SM100, e));
  EXPECT_FALSE(findExtent(e, Extent::dim(0), &buffer, &axis, &factor));
  ASSERT_TRUE(findExtent(e, rowsExtent(3), &buffer, &axis, &factor));
  EXPECT_EQ(factor, 2);
  // NVFP4 rowwise: the last dimension is twice the packed data's.
  ASSERT_TRUE(getBufferExtents(cfg(Recipe::NVFP4), 2, Rowwise, SM100, e));
  ASSERT_TRUE(findExtent(e, Extent::dim(1), &buffer, &axis, &factor));
  EXPECT_EQ(e[buffer].name, "_rowwise_data");
  EXPECT_EQ(factor, 2);
}

//===----------------------------------------------------------------------===//
// Invalid requests and overflow
//===----------------------------------------------------------------------===//

TEST(Layout, InvalidRequests) {
  auto c = cfg(Recipe::Current);
  expectError(cfg(Recipe::MXFP8), {}, Rowwise, SM100,
              "MXFP8 needs rank >= 1 (a 0-d tensor has no blocks); per-tensor "
              "current and delayed scaling quantize 0-d tensors");
  expectError(cfg(Recipe::NVFP4), {}, Rowwise, SM100,
              "NVFP4 needs rank >= 1 (a 0-d tensor has no blocks); per-tensor "
              "current and delayed scaling quantize 0-d tensors");
  expectError(blockCfg(2), {}, Columnwise, SM90,
              "block scaling needs rank >= 1 (a 0-d tensor has no blocks); "
              "per-tensor current and delayed scaling quantize 0-d tensors");
  expectError(c, {4, 4}, UsageNone, SM90,
              "a quantized tensor needs rowwise and/or columnwise usage");
  expectError(c, {4, -3}, Rowwise, SM90,
              "dimension 1 must be non-negative, got -3");
  auto bad = cfg(Recipe::NVFP4);
  bad.dtype = E4M3;
  expectError(bad, {16, 16}, Rowwise, SM100,
              "NVFP4 needs element type f4E2M1FN, got f8E4M3FN");
  // No error pointer: still false.
  std::vector<BufferDesc> out;
  EXPECT_FALSE(getBufferLayout(c, {4, 4}, UsageNone, SM90, out));
}

TEST(Layout, OverflowIsReported) {
  auto c = cfg(Recipe::Current);
  expectError(c, {int64_t(1) << 62, 4}, Rowwise, SM90,
              "the number of elements overflows int64");
  expectError(c, {int64_t(1) << 40, int64_t(1) << 40, 16}, Rowwise, SM90,
              "the flattened leading dimension overflows int64");
  // 2^62 elements fit, but the fp32 columnwise scales need 2^62 * 4 bytes.
  expectError(blockCfg(1), {1, int64_t(1) << 62}, Columnwise, SM90,
              "the size of buffer _columnwise_scale_inv overflows int64");
  expectLayout(
      blockCfg(1), {1, int64_t(1) << 62}, Rowwise, SM90,
      {{"_rowwise_data", {1, int64_t(1) << 62}, E4M3, Data, false},
       {"_rowwise_scale_inv", {int64_t(1) << 55, 4}, F32, Scale, false}});
}

TEST(Layout, Helpers) {
  int64_t m, k;
  flatten2D({8, 32, 1024}, m, k);
  EXPECT_EQ(m, 256);
  EXPECT_EQ(k, 1024);
  flatten2D({311}, m, k);
  EXPECT_EQ(m, 1);
  EXPECT_EQ(k, 311);
  flatten2D({}, m, k);
  EXPECT_EQ(m, 1);
  EXPECT_EQ(k, 1);
  flatten2D({3, D, 5}, m, k);
  EXPECT_EQ(m, D);
  EXPECT_EQ(k, 5);
  flatten2D({int64_t(1) << 40, int64_t(1) << 40, 2}, m, k);
  EXPECT_EQ(m, -1);
  EXPECT_EQ(numElements({7, 5, 3}), 105);
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({0, 5}), 0);
  EXPECT_EQ(numElements({D, 5}), D);
  EXPECT_EQ(numElements({int64_t(1) << 32, int64_t(1) << 31}), -1);
  EXPECT_EQ(numElements({-2}), -1);
  EXPECT_EQ(dtypeBytes(F32), 4);
  EXPECT_EQ(dtypeBytes(DType::BF16), 2);
  EXPECT_EQ(dtypeBytes(DType::F16), 2);
  EXPECT_EQ(dtypeBytes(E8M0), 1);
  EXPECT_EQ(dtypeBytes(FP4), 1);
  EXPECT_EQ(ceilDivDim(993, 32), 32);
  EXPECT_EQ(ceilDivDim(0, 32), 0);
  EXPECT_EQ(ceilDivDim(D, 32), D);
  EXPECT_EQ(roundUpDim(993, 128), 1024);
  EXPECT_EQ(roundUpDim(std::numeric_limits<int64_t>::max(), 128), -1);
  EXPECT_EQ(mulDim(D, 0), D);
  std::vector<BufferDesc> bufs;
  ASSERT_TRUE(
      getBufferLayout(cfg(Recipe::MXFP8), {32, 32}, Rowwise, SM100, bufs));
  ASSERT_NE(findBuffer(bufs, "_rowwise_scale_inv"), nullptr);
  EXPECT_EQ(findBuffer(bufs, "_rowwise_scale_inv")->dtype, E8M0);
  EXPECT_EQ(findBuffer(bufs, "_columnwise_data"), nullptr);
}

TEST(Layout, UnpaddedScaleShapes) {
  // The scales of the blocks, before the [128 x 4] tile padding of §3.3-3.5
  // (by hand: MXFP8 64x96 has 64 x 3 rowwise and 2 x 96 columnwise scales;
  // 1x128 blocks of 256x384 have 3 x 256 and 2 x 384; NVFP4 32x64 has
  // 32 x 4 and 64 x 2).
  struct Case {
    QuantizerConfig config;
    Shape shape;
    std::vector<Shape> unpadded;
  };
  const Case cases[] = {
      {cfg(Recipe::MXFP8), {64, 96}, {{64, 96}, {64, 3}, {64, 96}, {2, 96}}},
      {blockCfg(1),
       {2, 128, 384},
       {{2, 128, 384}, {3, 256}, {384, 2, 128}, {2, 384}}},
      {blockCfg(2), {256, 384}, {{256, 384}, {2, 3}, {384, 256}, {3, 2}}},
      {cfg(Recipe::NVFP4),
       {32, 64},
       {{32, 32}, {32, 4}, {64, 16}, {64, 2}, {1}, {1}}},
  };
  for (const Case &c : cases) {
    std::vector<BufferExtents> extents;
    ASSERT_TRUE(getBufferExtents(c.config, c.shape.size(), RowwiseAndColumnwise,
                                 SM100, extents));
    ASSERT_EQ(extents.size(), c.unpadded.size());
    for (size_t i = 0; i < extents.size(); ++i)
      EXPECT_EQ(unpaddedShape(extents[i], c.shape), c.unpadded[i])
          << extents[i].name << " of " << str(c.shape);
  }
}

TEST(Layout, TargetRules) {
  EXPECT_EQ(verifyTarget(cfg(Recipe::MXFP8), SM90),
            "MXFP8 needs sm_100 (TE: 10.0 <= compute capability < 12.0), not "
            "sm_90");
  EXPECT_EQ(verifyTarget(cfg(Recipe::NVFP4), SM90),
            "NVFP4 needs sm_100 (TE: compute capability >= 10.0), not sm_90");
  auto b = blockCfg(1);
  b.pow2Scales = false;
  EXPECT_EQ(verifyTarget(b, SM100),
            "block scaling on sm_100 is emulated with MXFP8 GEMMs and needs "
            "pow2Scales");
  EXPECT_EQ(verifyTarget(b, SM90), "");
  EXPECT_EQ(verifyTarget(blockCfg(2), SM100), "");
  EXPECT_EQ(verifyTarget(cfg(Recipe::MXFP8), SM100), "");
  EXPECT_EQ(verifyTarget(cfg(Recipe::Delayed), SM90), "");
}

} // namespace
