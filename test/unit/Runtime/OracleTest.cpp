//===- OracleTest.cpp - cpu backend vs TransformerEngine's references ---===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// test/data/ holds inputs and the buffers TransformerEngine's own reference
// quantizers produced for them on the GPU machine (test/data/README.md). Each
// line of test/data/manifest.txt is one case; this test quantizes the input
// with the cpu backend and compares every buffer bit for bit: data in full,
// scales in their valid (unpadded) region, amaxes. Buffers that TE's
// references define as a plain transpose or copy of another one are derived
// from the oracle's rowwise data (see manifest notes in the README).
//
//===----------------------------------------------------------------------===//

#include "Npy.h"
#include "TestUtil.h"

#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace te::test;

namespace {

struct Case {
  std::string name;
  std::map<std::string, std::string> kv;
  std::string get(const std::string &k, const std::string &def = "") const {
    auto it = kv.find(k);
    return it == kv.end() ? def : it->second;
  }
  int geti(const std::string &k, int def = 0) const {
    std::string v = get(k);
    return v.empty() ? def : std::stoi(v);
  }
};

/// gtest prints a parameter with this (instead of its bytes).
[[maybe_unused]] void PrintTo(const Case &c, std::ostream *os) {
  *os << c.name;
}

std::string dataDir() { return TE_TEST_DATA_DIR; }

std::vector<Case> loadManifest() {
  std::vector<Case> cases;
  std::ifstream in(dataDir() + "/manifest.txt");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    Case c;
    if (!(ss >> c.name))
      continue;
    std::string tok;
    while (ss >> tok) {
      size_t eq = tok.find('=');
      if (eq != std::string::npos)
        c.kv[tok.substr(0, eq)] = tok.substr(eq + 1);
    }
    cases.push_back(c);
  }
  return cases;
}

te_rt_quantizer quantizerOf(const Case &c) {
  te_rt_quantizer q;
  te_rt_quantizer_init_default(&q);
  std::string r = c.get("recipe");
  std::string dt = c.get("dtype");
  q.dtype = dt == "e5m2"   ? TE_RT_E5M2
            : dt == "e2m1" ? TE_RT_E2M1X2
                           : TE_RT_E4M3;
  if (r == "current") {
    q.recipe = TE_RT_RECIPE_CURRENT;
    q.pow2_scales = c.geti("pow2");
    q.amax_epsilon = std::stof(c.get("eps", "0"));
  } else if (r == "block") {
    q.recipe = TE_RT_RECIPE_BLOCK;
    q.pow2_scales = c.geti("pow2");
    q.block_dim = c.geti("block_dim", 1);
  } else if (r == "mxfp8") {
    q.recipe = TE_RT_RECIPE_MXFP8;
    q.mx_2d = c.geti("mx_2d");
  } else if (r == "nvfp4") {
    q.recipe = TE_RT_RECIPE_NVFP4;
    q.nvfp4_2d = c.geti("nvfp4_2d");
    q.rht = c.geti("rht");
    q.rht_sign_mask = static_cast<uint32_t>(c.geti("rht_sign_mask"));
    q.row_scaled = c.geti("row_scaled");
    q.use_4over6 = c.geti("use_4over6");
    q.e4m3_max = std::stof(c.get("e4m3_max", "448"));
    q.err_mode =
        c.get("err_mode", "MAE") == "MSE" ? TE_RT_ERR_MSE : TE_RT_ERR_MAE;
  }
  return q;
}

class Oracle : public ::testing::TestWithParam<Case> {};

/// Compares the top-left [rows, cols] region of a row-major [?, ldOut]
/// buffer with an oracle array of shape [rows, cols] (1-D: [1, n]).
template <typename T>
void expectRegion(const char *what, const T *got, int64_t ldOut,
                  const te::npy::Array &want, int transposeWant = 0) {
  int64_t rows = want.shape.size() == 2 ? want.shape[0] : 1;
  int64_t cols = want.shape.empty() ? 1 : want.shape.back();
  const T *w = reinterpret_cast<const T *>(want.bytes.data());
  int64_t bad = 0, first = -1;
  int64_t outRows = transposeWant ? cols : rows,
          outCols = transposeWant ? rows : cols;
  for (int64_t r = 0; r < outRows; ++r)
    for (int64_t cI = 0; cI < outCols; ++cI) {
      T wv = transposeWant ? w[cI * cols + r] : w[r * cols + cI];
      T gv = got[r * ldOut + cI];
      if (std::memcmp(&wv, &gv, sizeof(T)) != 0) {
        if (first < 0)
          first = r * outCols + cI;
        ++bad;
      }
    }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << outRows * outCols
                    << " entries differ, first at flat index " << first;
}

TEST_P(Oracle, BitExact) {
  const Case &c = GetParam();
  std::string dir = dataDir() + "/" + c.name + "/";
  te::npy::Array input, arr;
  std::string err;
  ASSERT_TRUE(te::npy::read(dataDir() + "/inputs/" + c.get("input") + ".npy",
                            input, &err))
      << err;
  bool bf16 = c.get("input_type") == "bf16";
  ASSERT_EQ(input.kind, bf16 ? te::npy::Kind::U16 : te::npy::Kind::F32);

  te_rt_quantizer qz = quantizerOf(c);
  ASSERT_EQ(te_rt_quantizer_verify(&qz), TE_RT_OK) << te_rt_last_error();
  std::string recipe = c.get("recipe");
  bool columnwise = c.geti("columnwise", 1) != 0;
  te_rt_usage usage = columnwise ? TE_RT_ROWWISE_AND_COLUMNWISE : TE_RT_ROWWISE;
  // Per-tensor FP8 on sm_90 has the physical transpose; others use sm_100.
  te_rt_target target = recipe == "current" ? TE_RT_SM90 : TE_RT_SM100;

  Context ctx;
  te_rt_context_set_num_threads(ctx, 2);
  QTensor q(ctx, qz, input.shape, usage, target);
  ASSERT_EQ(q.status, TE_RT_OK) << te_rt_last_error();

  te_rt_tensor x;
  std::memset(&x, 0, sizeof(x));
  x.data = input.bytes.data();
  x.dtype = bf16 ? TE_RT_BF16 : TE_RT_F32;
  x.rank = static_cast<int32_t>(input.shape.size());
  for (size_t i = 0; i < input.shape.size(); ++i)
    x.shape[i] = input.shape[i];
  float amax = -1.0f;
  te_rt_quantize_args args;
  te_rt_quantize_args_init(&args);
  if (recipe == "current")
    args.amax = &amax;
  ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, &args), TE_RT_OK)
      << te_rt_last_error();

  int64_t M = 1, K = input.shape.back();
  for (size_t i = 0; i + 1 < input.shape.size(); ++i)
    M *= input.shape[i];
  auto load = [&](const char *buf) {
    te::npy::Array a;
    std::string e;
    EXPECT_TRUE(te::npy::read(dir + buf + ".npy", a, &e)) << e;
    // Oracle arrays of N-D data are compared as 2-D [M, K] (TE flattens).
    if (a.shape.size() > 2 ||
        (a.shape.size() == 1 &&
         std::string(buf).find("data") != std::string::npos)) {
      int64_t last = a.shape.back();
      a.shape = {a.numElements() / last, last};
    }
    return a;
  };
  auto ld = [&](const char *buf) {
    te_rt_buffer_desc d = q.desc(buf);
    return d.rank >= 2 ? d.shape[d.rank - 1] : 0;
  };
  int checked = 0;
  if (recipe == "current") {
    arr = load("_data");
    expectRegion("_data", q.buf("_data"), K, arr);
    expectRegion("_transpose (= TE's transpose of _data)", q.buf("_transpose"),
                 M, arr, /*transposeWant=*/1);
    expectRegion("_scale_inv", q.buf<uint32_t>("_scale_inv"), 1,
                 load("_scale_inv"));
    te::npy::Array a = load("amax");
    EXPECT_EQ(bits(amax), *reinterpret_cast<const uint32_t *>(a.bytes.data()))
        << "amax " << amax;
    checked = 4;
  } else {
    const char *names[] = {"_rowwise_data", "_rowwise_scale_inv",
                           "_columnwise_data", "_columnwise_scale_inv"};
    for (const char *n : names) {
      bool isCol = std::strstr(n, "columnwise") != nullptr;
      if (isCol && !columnwise)
        continue;
      bool isScale = std::strstr(n, "scale") != nullptr;
      te::npy::Array a;
      int transposeWant = 0;
      if (std::string(n) == "_columnwise_data" &&
          (c.name.rfind("block2d", 0) == 0 ||
           c.name.rfind("mxfp8_2d", 0) == 0)) {
        a = load("_rowwise_data");
        transposeWant = recipe == "block"; // block: [K, M]; MXFP8 2D: equal.
      } else {
        a = load(n);
      }
      int64_t ldOut;
      if (isScale)
        ldOut = ld(n);
      else if (std::string(n) == "_rowwise_data")
        ldOut = recipe == "nvfp4" ? K / 2 : K;
      else if (recipe == "block")
        ldOut = M;
      else
        ldOut = recipe == "nvfp4" ? M / 2 : K;
      if (recipe == "block" && isScale)
        expectRegion(n, q.buf<uint32_t>(n), ldOut, a);
      else
        expectRegion(n, q.buf(n), ldOut, a, transposeWant);
      ++checked;
    }
    if (recipe == "nvfp4") {
      expectRegion("_amax_rowwise", q.buf<uint32_t>("_amax_rowwise"), 0,
                   load("_amax_rowwise"));
      ++checked;
      if (columnwise) {
        expectRegion("_amax_columnwise", q.buf<uint32_t>("_amax_columnwise"), 0,
                     load("_amax_columnwise"));
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 3);
}

TEST(OracleData, ManifestIsPresent) {
  // The parameterized test above would silently run nothing without data.
  EXPECT_GE(loadManifest().size(), 80u) << "missing " << dataDir();
}

INSTANTIATE_TEST_SUITE_P(TE, Oracle, ::testing::ValuesIn(loadManifest()),
                         [](const ::testing::TestParamInfo<Case> &i) {
                           return i.param.name;
                         });

/// The element casts of the GPU machine's ml_dtypes (in-range values, where
/// ml_dtypes agrees with CUDA's satfinite conversions), through the cpu
/// backend: quantizing a [1, n] tensor with current scaling and a scale of
/// exactly 1 casts each element once.
TEST(OracleCasts, FP8ElementCastsMatchMlDtypes) {
  for (const char *fmt : {"e4m3", "e5m2"}) {
    te::npy::Array in, want;
    std::string err;
    ASSERT_TRUE(
        te::npy::read(dataDir() + "/casts/" + fmt + "_in.npy", in, &err))
        << err;
    ASSERT_TRUE(
        te::npy::read(dataDir() + "/casts/" + fmt + "_bits.npy", want, &err))
        << err;
    int64_t n = in.numElements();
    std::vector<float> v(static_cast<size_t>(n));
    std::memcpy(v.data(), in.bytes.data(), v.size() * 4);
    Context ctx;
    te_rt_tensor x = tensorF32(v, {n});
    te_rt_quantizer qz =
        quantizer(TE_RT_RECIPE_DELAYED,
                  std::string(fmt) == "e4m3" ? TE_RT_E4M3 : TE_RT_E5M2);
    QTensor q(ctx, qz, {n}, TE_RT_ROWWISE, TE_RT_SM90);
    ASSERT_EQ(q.status, TE_RT_OK) << te_rt_last_error();
    float one = 1.0f;
    te_rt_quantize_args args;
    te_rt_quantize_args_init(&args);
    args.scale = &one;
    ASSERT_EQ(te_rt_quantize(ctx, &x, &q.q, &args), TE_RT_OK)
        << te_rt_last_error();
    int bad = 0;
    for (int64_t i = 0; i < n; ++i)
      bad += q.buf("_data")[i] != want.bytes[i];
    EXPECT_EQ(bad, 0) << fmt;
  }
}

} // namespace
