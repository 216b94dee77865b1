//===- QTensorLookupTest.cpp - QTensor's buffer lookup by role -----------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The backends find a quantized tensor's buffers by role and copy
// (QTensor::indexOf(role, usage), perTensorDataIndex,
// perTensorTransposeIndex, runtime/lib/Backend.h). For every recipe and
// option that changes the buffers, every usage, both targets and tensors of
// rank 0 to 3, each lookup must give the buffer (the same index, the same
// pointer) that TE's attribute name gives, and none where the name is
// absent:
//
//   every recipe        "_data"                 perTensorDataIndex()
//                       "_transpose"            perTensorTransposeIndex()
//                       "_amax_rowwise"         (Amax, Rowwise)
//                       "_amax_columnwise"      (Amax, Columnwise)
//                       d.name == "_scale_inv"  isPerTensor() && ScaleInv
//   delayed, current    "_scale_inv"            (ScaleInv, Rowwise)
//   block, MXFP8, NVFP4 "_rowwise_data"         (Data, Rowwise)
//                       "_columnwise_data"      (Data, Columnwise)
//                       "_rowwise_scale_inv"    (ScaleInv, Rowwise)
//                       "_columnwise_scale_inv" (ScaleInv, Columnwise)
//
// The backends read the names of the second and third group only in the
// branches of those recipes.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

using namespace te::format;
using te::rt::QTensor;

namespace {

struct Case {
  const char *name;
  QuantizerConfig config;
};

QuantizerConfig with(Recipe recipe, void (*edit)(QuantizerConfig &)) {
  QuantizerConfig c = defaultConfig(recipe);
  if (edit)
    edit(c);
  return c;
}

/// Every recipe, and each option that changes a recipe's buffers (2D
/// blocks: scale shapes; NVFP4 row-scaled: amax shapes) or that the
/// backends branch on (RHT, stochastic rounding, 4over6).
std::vector<Case> cases() {
  return {
      {"Delayed", with(Recipe::Delayed, nullptr)},
      {"DelayedE5M2", with(Recipe::Delayed,
                           [](QuantizerConfig &c) { c.dtype = DType::E5M2; })},
      {"Current", with(Recipe::Current, nullptr)},
      {"CurrentPow2",
       with(Recipe::Current, [](QuantizerConfig &c) { c.pow2Scales = true; })},
      {"Block1D", with(Recipe::Block, nullptr)},
      {"Block2D",
       with(Recipe::Block, [](QuantizerConfig &c) { c.blockDim = 2; })},
      {"MXFP8", with(Recipe::MXFP8, nullptr)},
      {"MXFP8_2D",
       with(Recipe::MXFP8, [](QuantizerConfig &c) { c.mx2D = true; })},
      {"NVFP4", with(Recipe::NVFP4, nullptr)},
      {"NVFP4_2D",
       with(Recipe::NVFP4, [](QuantizerConfig &c) { c.nvfp4_2D = true; })},
      {"NVFP4_RHT", with(Recipe::NVFP4,
                         [](QuantizerConfig &c) {
                           c.rht = true;
                           c.rhtSignMask = 0xD7E8;
                         })},
      {"NVFP4_RHT_2D", with(Recipe::NVFP4,
                            [](QuantizerConfig &c) {
                              c.rht = true;
                              c.rhtSignMask = 0xD7E8;
                              c.nvfp4_2D = true;
                            })},
      {"NVFP4_RowScaled",
       with(Recipe::NVFP4, [](QuantizerConfig &c) { c.rowScaled = true; })},
      {"NVFP4_SR",
       with(Recipe::NVFP4,
            [](QuantizerConfig &c) { c.stochasticRounding = true; })},
      {"NVFP4_4over6", with(Recipe::NVFP4,
                            [](QuantizerConfig &c) {
                              c.use4over6 = true;
                              c.e4m3Max = 256.0f;
                            })},
  };
}

/// The name lookup the backends used: the first buffer called `name`.
int indexByName(const QTensor &q, const std::string &name) {
  for (size_t i = 0; i < q.layout.size(); ++i)
    if (q.layout[i].name == name)
      return static_cast<int>(i);
  return -1;
}

void *bufferByName(const QTensor &q, const std::string &name) {
  int i = indexByName(q, name);
  return i >= 0 ? q.buffers[static_cast<size_t>(i)] : nullptr;
}

bool perTensorRecipe(Recipe r) {
  return r == Recipe::Delayed || r == Recipe::Current;
}

const std::set<std::string> kPerTensorNames = {"_data", "_transpose",
                                               "_scale_inv"};
const std::set<std::string> kBlockNames = {
    "_rowwise_data",         "_columnwise_data", "_rowwise_scale_inv",
    "_columnwise_scale_inv", "_amax_rowwise",    "_amax_columnwise"};

/// What the checks of one parameter covered.
struct Counts {
  int layouts = 0;
  int comparisons = 0;
};

/// Checks every lookup of `q` against its name; `where` names the tensor in
/// messages.
void checkTensor(const QTensor &q, const std::string &where, Counts &n) {
  SCOPED_TRACE(where);
  ++n.layouts;
  const bool perTensor = perTensorRecipe(q.config.recipe);
  EXPECT_EQ(q.isPerTensor(), perTensor);

  // The layout holds the names the backends know, and nothing else.
  for (const BufferDesc &d : q.layout)
    EXPECT_TRUE(perTensor ? kPerTensorNames.count(d.name)
                          : kBlockNames.count(d.name))
        << "unexpected buffer " << d.name;

  auto same = [&](const char *name, int index, void *pointer,
                  const char *lookup) {
    EXPECT_EQ(index, indexByName(q, name)) << name << " vs " << lookup;
    EXPECT_EQ(pointer, bufferByName(q, name)) << name << " vs " << lookup;
    n.comparisons += 2;
  };

  // Every recipe.
  same("_data", q.perTensorDataIndex(), q.perTensorData(),
       "perTensorDataIndex()");
  same("_transpose", q.perTensorTransposeIndex(), q.perTensorTranspose(),
       "perTensorTransposeIndex()");
  same("_amax_rowwise", q.indexOf(BufferRole::Amax, Rowwise),
       q.buffer(BufferRole::Amax, Rowwise), "(Amax, Rowwise)");
  same("_amax_columnwise", q.indexOf(BufferRole::Amax, Columnwise),
       q.buffer(BufferRole::Amax, Columnwise), "(Amax, Columnwise)");
  for (size_t i = 0; i < q.layout.size(); ++i) {
    const BufferDesc &d = q.layout[i];
    EXPECT_EQ(q.isPerTensor() && d.role == BufferRole::ScaleInv,
              d.name == "_scale_inv")
        << d.name;
    ++n.comparisons;
  }

  if (perTensor) {
    same("_scale_inv", q.indexOf(BufferRole::ScaleInv, Rowwise),
         q.buffer(BufferRole::ScaleInv, Rowwise), "(ScaleInv, Rowwise)");
    // Per-tensor scaling keeps one scale, marked rowwise.
    EXPECT_EQ(q.indexOf(BufferRole::ScaleInv, Columnwise), -1);
    for (const char *name : {"_rowwise_data", "_columnwise_data",
                             "_rowwise_scale_inv", "_columnwise_scale_inv"})
      EXPECT_EQ(indexByName(q, name), -1) << name;
  } else {
    same("_rowwise_data", q.indexOf(BufferRole::Data, Rowwise),
         q.buffer(BufferRole::Data, Rowwise), "(Data, Rowwise)");
    same("_columnwise_data", q.indexOf(BufferRole::Data, Columnwise),
         q.buffer(BufferRole::Data, Columnwise), "(Data, Columnwise)");
    same("_rowwise_scale_inv", q.indexOf(BufferRole::ScaleInv, Rowwise),
         q.buffer(BufferRole::ScaleInv, Rowwise), "(ScaleInv, Rowwise)");
    same("_columnwise_scale_inv", q.indexOf(BufferRole::ScaleInv, Columnwise),
         q.buffer(BufferRole::ScaleInv, Columnwise), "(ScaleInv, Columnwise)");
    EXPECT_EQ(indexByName(q, "_scale_inv"), -1);
  }

  // A lookup names one copy: other usages find nothing.
  for (BufferRole role :
       {BufferRole::Data, BufferRole::ScaleInv, BufferRole::Amax})
    for (Usage u : {UsageNone, RowwiseAndColumnwise}) {
      EXPECT_EQ(q.indexOf(role, u), -1);
      EXPECT_EQ(q.buffer(role, u), nullptr);
    }

  // Each buffer is reached by one of the lookups above.
  std::set<int> reached = {q.perTensorDataIndex(), q.perTensorTransposeIndex()};
  for (BufferRole role :
       {BufferRole::Data, BufferRole::ScaleInv, BufferRole::Amax})
    for (Usage u : {Rowwise, Columnwise})
      reached.insert(q.indexOf(role, u));
  for (size_t i = 0; i < q.layout.size(); ++i)
    EXPECT_TRUE(reached.count(static_cast<int>(i)))
        << q.layout[i].name << " is found by no lookup";
}

class QTensorLookup : public ::testing::TestWithParam<Case> {};

TEST_P(QTensorLookup, RoleLookupFindsTheNamedBuffer) {
  const QuantizerConfig &config = GetParam().config;
  ASSERT_EQ(verifyConfig(config), "");
  const std::vector<Shape> shapes = {
      {}, {64}, {128, 256}, {256, 128}, {128, 128}, {2, 64, 256}, {4, 32, 64}};
  Counts n;
  int valid = 0;
  for (Target target : {Target::SM90, Target::SM100})
    for (Usage usage : {Rowwise, Columnwise, RowwiseAndColumnwise})
      for (const Shape &shape : shapes) {
        QTensor q;
        q.config = config;
        q.shape = shape;
        flatten2D(shape, q.m, q.k);
        q.usage = usage;
        q.target = target;
        std::string err;
        if (!getBufferLayout(config, shape, usage, target, q.layout, &err))
          continue; // a rank or shape the recipe forbids
        ++valid;
        // Distinct, recognisable fake addresses: never dereferenced.
        for (size_t i = 0; i < q.layout.size(); ++i)
          q.buffers.push_back(reinterpret_cast<void *>(0x1000 * (i + 1)));
        q.bufferBytes.assign(q.layout.size(), 0);
        checkTensor(q,
                    std::string(targetName(target)) + " " + usageName(usage) +
                        " " + shapeString(shape),
                    n);
      }
  // Both targets and the three usages, for rank 2 and 3 at least.
  EXPECT_GE(valid, 2 * 3 * 5);
  RecordProperty("layouts", n.layouts);
  RecordProperty("comparisons", n.comparisons);
}

INSTANTIATE_TEST_SUITE_P(AllRecipes, QTensorLookup,
                         ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return info.param.name;
                         });

/// The per-tensor data lookups on the layouts that differ by target: sm_90
/// stores the columnwise copy as `_transpose`, sm_100 reads `_data` (marked
/// columnwise when it holds that copy alone).
TEST(QTensorLookupPerTensor, TargetsPlaceTheColumnwiseCopy) {
  QTensor q;
  q.config = defaultConfig(Recipe::Current);
  q.shape = {64, 128};
  flatten2D(q.shape, q.m, q.k);
  auto load = [&](Usage usage, Target target) {
    q.usage = usage;
    q.target = target;
    ASSERT_TRUE(getBufferLayout(q.config, q.shape, usage, target, q.layout));
    q.buffers.assign(q.layout.size(), nullptr);
  };
  load(Columnwise, Target::SM100);
  ASSERT_EQ(q.layout[0].name, "_data");
  EXPECT_TRUE(q.layout[0].columnwise);
  EXPECT_EQ(q.perTensorDataIndex(), 0);
  EXPECT_EQ(q.perTensorTransposeIndex(), -1);
  EXPECT_EQ(q.indexOf(BufferRole::Data, Rowwise), -1);

  load(RowwiseAndColumnwise, Target::SM100);
  EXPECT_EQ(q.perTensorDataIndex(), 0);
  EXPECT_EQ(q.perTensorTransposeIndex(), -1);

  load(Columnwise, Target::SM90);
  ASSERT_EQ(q.layout[0].name, "_transpose");
  EXPECT_EQ(q.perTensorDataIndex(), -1);
  EXPECT_EQ(q.perTensorTransposeIndex(), 0);

  load(RowwiseAndColumnwise, Target::SM90);
  EXPECT_EQ(q.layout[q.perTensorDataIndex()].name, "_data");
  EXPECT_EQ(q.layout[q.perTensorTransposeIndex()].name, "_transpose");
  EXPECT_EQ(q.layout[q.indexOf(BufferRole::ScaleInv, Rowwise)].name,
            "_scale_inv");
}

} // namespace
