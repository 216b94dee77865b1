//===- RegistryTest.cpp - The process-group registry and its entry point --===//
//
// Part of te. te_rt_comm_register_group / unregister / lookup (per thread),
// and te_rt_mlir_allreduce_max, the entry point compiled te.allreduce_max
// calls: it finds the communicator by the group's name, reduces in place and
// reports failures through the sticky status (te_rt_current_status /
// te_rt_current_error). The oracle of the reduction is the elementwise
// maximum computed here from the ranks' inputs.
//
//===----------------------------------------------------------------------===//

#include "te_rt_abi.h"
#include "te_rt_comm.h"

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

} // namespace
