//===- RegistryTest.cpp - The process-group registry and its entry point --===//
//
// Part of te. te_rt_comm_register_group / unregister / lookup (per thread),
// and te_rt_mlir_allreduce_max, the entry point compiled te.allreduce_max
// calls: it finds the communicator by the group's name, reduces in place and
// reports failures through the sticky status (te_rt_current_status /
// te_rt_current_error); te_rt_mlir_quantize_group, the quantization with
// amax reduction. The oracles are the elementwise maximum computed here from
// the ranks' inputs and the spec's scale computed by hand.
//
//===----------------------------------------------------------------------===//

#include "te_rt_abi.h"
#include "te_rt_comm.h"

#include "../Support/QuantizeDescriptor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

namespace {

/// A CPU group of `size` ranks and the communicator of rank 0.
struct Group {
  te_rt_comm_cpu_group *group = nullptr;
  te_rt_comm *comm = nullptr;
  explicit Group(int size) {
    EXPECT_EQ(te_rt_comm_cpu_group_create(size, &group), TE_RT_OK);
    EXPECT_EQ(te_rt_comm_create_cpu(group, 0, &comm), TE_RT_OK);
  }
  ~Group() {
    te_rt_comm_destroy(comm);
    te_rt_comm_cpu_group_destroy(group);
  }
};

TEST(CommRegistry, RegisterLookupUnregister) {
  Group g(1);
  ASSERT_EQ(te_rt_comm_register_group("tp", g.comm), TE_RT_OK);
  te_rt_comm *found = nullptr;
  ASSERT_EQ(te_rt_comm_lookup_group("tp", &found), TE_RT_OK);
  EXPECT_EQ(found, g.comm);
  ASSERT_EQ(te_rt_comm_unregister_group("tp"), TE_RT_OK);
  EXPECT_EQ(te_rt_comm_lookup_group("tp", &found), TE_RT_INVALID_ARGUMENT);
  EXPECT_EQ(found, nullptr);
}

TEST(CommRegistry, Errors) {
  Group g(1);
  te_rt_comm *found = nullptr;
  EXPECT_EQ(te_rt_comm_lookup_group("tp", &found), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(),
               "no communicator is registered for process group 'tp' on this "
               "thread (te_rt_comm_register_group; te-run --comm-group "
               "tp=cpu:1)");
  EXPECT_EQ(te_rt_comm_register_group(nullptr, g.comm), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "group name is null or empty");
  EXPECT_EQ(te_rt_comm_register_group("", g.comm), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "group name is null or empty");
  EXPECT_EQ(te_rt_comm_register_group("tp", nullptr), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "comm is null");
  ASSERT_EQ(te_rt_comm_register_group("tp", g.comm), TE_RT_OK);
  EXPECT_EQ(te_rt_comm_register_group("tp", g.comm), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(),
               "process group 'tp' is already registered on this thread");
  EXPECT_EQ(te_rt_comm_unregister_group("dp"), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(),
               "process group 'dp' is not registered on this thread");
  EXPECT_EQ(te_rt_comm_unregister_group(""), TE_RT_INVALID_ARGUMENT);
  EXPECT_EQ(te_rt_comm_lookup_group("tp", nullptr), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(te_rt_last_error(), "out is null");
  EXPECT_EQ(te_rt_comm_unregister_group("tp"), TE_RT_OK);
}

TEST(CommRegistry, IsPerThread) {
  Group g(1);
  ASSERT_EQ(te_rt_comm_register_group("tp", g.comm), TE_RT_OK);
  te_rt_status other = TE_RT_OK;
  std::thread([&] {
    te_rt_comm *found = nullptr;
    other = te_rt_comm_lookup_group("tp", &found);
  }).join();
  EXPECT_EQ(other, TE_RT_INVALID_ARGUMENT);
  EXPECT_EQ(te_rt_comm_unregister_group("tp"), TE_RT_OK);
}

/// A cpu context made current on the calling thread, released at exit.
struct Current {
  te_rt_context *ctx = nullptr;
  Current() {
    EXPECT_EQ(te_rt_context_create(TE_RT_BACKEND_CPU, &ctx), TE_RT_OK);
    te_rt_set_current_context(ctx);
  }
  ~Current() {
    te_rt_set_current_context(nullptr);
    te_rt_context_destroy(ctx);
  }
};

TEST(CommEntryPoint, UnknownGroupIsAStickyStatus) {
  Current current;
  float buf[2] = {1.0f, -2.0f};
  te_rt_mlir_allreduce_max(const_cast<char *>("tp"), buf, 2);
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(static_cast<const char *>(te_rt_current_error()),
               "te.allreduce_max: no communicator is registered for process "
               "group 'tp' on this thread (te_rt_comm_register_group; te-run "
               "--comm-group tp=cpu:1)");
  EXPECT_EQ(buf[0], 1.0f); // untouched
  EXPECT_EQ(buf[1], -2.0f);
}

TEST(CommEntryPoint, NullGroupName) {
  Current current;
  float buf[1] = {1.0f};
  te_rt_mlir_allreduce_max(nullptr, buf, 1);
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(static_cast<const char *>(te_rt_current_error()),
               "te.allreduce_max: group name is null or empty");
}

TEST(CommEntryPoint, GroupOfOneIsIdentity) {
  Current current;
  Group g(1);
  ASSERT_EQ(te_rt_comm_register_group("tp", g.comm), TE_RT_OK);
  float buf[3] = {0.5f, -7.0f, 3.0f};
  te_rt_mlir_allreduce_max(const_cast<char *>("tp"), buf, 3);
  EXPECT_EQ(te_rt_current_status(), TE_RT_OK)
      << static_cast<const char *>(te_rt_current_error());
  EXPECT_EQ(buf[0], 0.5f);
  EXPECT_EQ(buf[1], -7.0f);
  EXPECT_EQ(buf[2], 3.0f);
  EXPECT_EQ(te_rt_comm_unregister_group("tp"), TE_RT_OK);
}

TEST(CommEntryPoint, ThreeRanksReduceByName) {
  constexpr int kRanks = 3, kN = 4;
  te_rt_comm_cpu_group *group = nullptr;
  ASSERT_EQ(te_rt_comm_cpu_group_create(kRanks, &group), TE_RT_OK);
  // Rank r holds in[r]; the oracle is the elementwise maximum.
  float in[kRanks][kN] = {{1.0f, -3.0f, 0.0f, 2.5f},
                          {-1.0f, 4.0f, 0.25f, 2.0f},
                          {0.5f, -5.0f, -0.5f, 8.0f}};
  float want[kN];
  for (int i = 0; i < kN; ++i)
    want[i] = std::max({in[0][i], in[1][i], in[2][i]});
  float out[kRanks][kN];
  te_rt_status status[kRanks];
  std::vector<std::thread> threads;
  for (int r = 0; r < kRanks; ++r)
    threads.emplace_back([&, r] {
      Current current;
      te_rt_comm *comm = nullptr;
      te_rt_comm_create_cpu(group, r, &comm);
      te_rt_comm_register_group("tp", comm);
      std::copy(in[r], in[r] + kN, out[r]);
      te_rt_mlir_allreduce_max(const_cast<char *>("tp"), out[r], kN);
      status[r] = static_cast<te_rt_status>(te_rt_current_status());
      te_rt_comm_unregister_group("tp");
      te_rt_comm_destroy(comm);
    });
  for (std::thread &t : threads)
    t.join();
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(status[r], TE_RT_OK) << "rank " << r;
    for (int i = 0; i < kN; ++i)
      EXPECT_EQ(out[r][i], want[i]) << "rank " << r << " element " << i;
  }
  te_rt_comm_cpu_group_destroy(group);
}

/// te_rt_mlir_quantize's descriptor for #te.current<f8E4M3FN>, rowwise.
std::vector<int64_t> currentE4M3Descriptor(int64_t rows, int64_t cols, float *x,
                                           uint8_t *data, float *scaleInv) {
  te_rt_quantizer q;
  te_rt_quantizer_init_default(&q);
  q.recipe = TE_RT_RECIPE_CURRENT;
  q.dtype = TE_RT_E4M3;
  return te::test::rowwiseQuantizeDescriptor(q, rows, cols, x, data, scaleInv);
}

TEST(CommEntryPoint, QuantizeGroupReducesTheAmax) {
  // Two ranks, each a 2x4 f32 shard; rank 1 holds the global amax 7. With
  // the reduction both use scale = 448 / 7 = 64 (docs/formats.md §3.2), so
  // scale_inv = 1/64 on both (rank 0 alone would have 448 / 3.5 = 128) and
  // rank 0's 1.0 becomes E4M3 64 = 0x68 (sign 0, exponent field 6 + bias 7
  // = 13 = 0b1101, mantissa 0: 0b0'1101'000).
  float x[2][8] = {{1.0f, -3.5f, 0.5f, 0.0f, 2.0f, 0.25f, -1.0f, 3.0f},
                   {7.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, -2.0f}};
  te_rt_comm_cpu_group *group = nullptr;
  ASSERT_EQ(te_rt_comm_cpu_group_create(2, &group), TE_RT_OK);
  uint8_t data[2][8];
  float scaleInv[2] = {0, 0};
  te_rt_status status[2];
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      Current current;
      te_rt_comm *comm = nullptr;
      te_rt_comm_create_cpu(group, r, &comm);
      te_rt_comm_register_group("tp", comm);
      std::vector<int64_t> desc =
          currentE4M3Descriptor(2, 4, x[r], data[r], &scaleInv[r]);
      te_rt_mlir_quantize_group(const_cast<char *>("tp"), desc.data());
      status[r] = static_cast<te_rt_status>(te_rt_current_status());
      te_rt_comm_unregister_group("tp");
      te_rt_comm_destroy(comm);
    });
  for (std::thread &t : threads)
    t.join();
  te_rt_comm_cpu_group_destroy(group);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(status[r], TE_RT_OK) << "rank " << r;
    EXPECT_EQ(scaleInv[r], 1.0f / 64.0f) << "rank " << r;
  }
  EXPECT_EQ(data[0][0], 0x68);
}

TEST(CommEntryPoint, QuantizeGroupUnknownGroup) {
  Current current;
  float x[4] = {1, 2, 3, 4};
  uint8_t data[4];
  float scaleInv = 0;
  std::vector<int64_t> desc = currentE4M3Descriptor(1, 4, x, data, &scaleInv);
  te_rt_mlir_quantize_group(const_cast<char *>("dp"), desc.data());
  EXPECT_EQ(te_rt_current_status(), TE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(static_cast<const char *>(te_rt_current_error()),
               "te.quantize: no communicator is registered for process group "
               "'dp' on this thread (te_rt_comm_register_group; te-run "
               "--comm-group dp=cpu:1)");
  EXPECT_EQ(scaleInv, 0.0f); // nothing written
}

} // namespace
