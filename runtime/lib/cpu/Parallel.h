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

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define TE_RT_HAVE_MXCSR 1
#endif

namespace te::rt::cpu {

/// Puts the calling thread's floating-point unit into the IEEE state the
/// reference numerics assume -- round to nearest even, subnormals neither
/// flushed (FTZ) nor treated as zero (DAZ) -- and restores the caller's state
/// on destruction. A host process may have turned FTZ/DAZ on (a library built
/// with -ffast-math does so at load time through crtfastmath.o); without this
/// guard a subnormal amax would compare equal to zero and the cpu backend
/// would no longer be bit-exact with TransformerEngine and with the cuda
/// backend.
class ScopedIEEEFloatEnvironment {
public:
  ScopedIEEEFloatEnvironment() {
#ifdef TE_RT_HAVE_MXCSR
    saved = _mm_getcsr();
    constexpr unsigned kFlushToZero = 0x8000, kDenormalsAreZero = 0x0040,
                       kRoundingControl = 0x6000;
    _mm_setcsr(saved & ~(kFlushToZero | kDenormalsAreZero | kRoundingControl));
#endif
  }
  ~ScopedIEEEFloatEnvironment() {
#ifdef TE_RT_HAVE_MXCSR
    _mm_setcsr(saved);
#endif
  }
  ScopedIEEEFloatEnvironment(const ScopedIEEEFloatEnvironment &) = delete;
  ScopedIEEEFloatEnvironment &
  operator=(const ScopedIEEEFloatEnvironment &) = delete;

private:
#ifdef TE_RT_HAVE_MXCSR
  unsigned saved = 0;
#endif
};

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
  ScopedIEEEFloatEnvironment ieee;
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
      threads.emplace_back([=] {
        ScopedIEEEFloatEnvironment ieee;
        body(b, e);
      });
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
