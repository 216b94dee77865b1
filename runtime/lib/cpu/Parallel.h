//===- Parallel.h - A minimal parallel-for over std::thread -----*- C++ -*-===//
//
// Part of te. Internal to the cpu backend of libte_rt.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_LIB_CPU_PARALLEL_H
#define TE_RT_LIB_CPU_PARALLEL_H

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace te::rt::cpu {

/// Number of workers for `numThreads` (0 = hardware concurrency).
inline int resolveThreads(int numThreads) {
  if (numThreads > 0)
    return numThreads;
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? static_cast<int>(hw) : 1;
}

/// Calls body(begin, end) on disjoint chunks covering [0, n). Runs inline
/// when the work is small (`grain` items per chunk at least) or one thread is
/// requested. `body` must not throw. Results never depend on the thread
/// count: every chunk writes its own outputs.
template <typename Body>
void parallelFor(int64_t n, int numThreads, int64_t grain, Body body) {
  if (n <= 0)
    return;
  int64_t workers =
      std::min<int64_t>(resolveThreads(numThreads),
                        (n + grain - 1) / std::max<int64_t>(grain, 1));
  if (workers <= 1) {
    body(int64_t(0), n);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(workers - 1));
  int64_t chunk = (n + workers - 1) / workers;
  try {
    for (int64_t w = 1; w < workers; ++w) {
      int64_t b = w * chunk, e = std::min(n, b + chunk);
      if (b >= e)
        break;
      threads.emplace_back([=] { body(b, e); });
    }
  } catch (...) {
    // Could not start a thread: do the rest of the work here.
    int64_t started = static_cast<int64_t>(threads.size()) + 1;
    for (int64_t w = started; w < workers; ++w) {
      int64_t b = w * chunk, e = std::min(n, b + chunk);
      if (b < e)
        body(b, e);
    }
  }
  body(0, std::min(n, chunk));
  for (std::thread &t : threads)
    t.join();
}

} // namespace te::rt::cpu

#endif // TE_RT_LIB_CPU_PARALLEL_H
