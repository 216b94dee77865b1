//===- FastKernels.h - Whether the bandwidth kernels may run ----*- C++ -*-===//
//
// Part of te. Internal to libte_rt.
//
//===----------------------------------------------------------------------===//
//
// The quantize, amax and dequantize launchers choose between a bandwidth
// kernel and the general one by shape and alignment, and by whether the
// calling context allows the bandwidth kernels
// (te_rt_context_set_fast_kernels). The cuda backend sets that for the
// duration of each of its calls with a FastKernelsScope on the calling
// thread, where the launchers, several calls down, read it.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_FASTKERNELS_H
#define TE_RT_CUDA_FASTKERNELS_H

namespace te::rt::cuda {

/// The calling thread's setting (true outside any scope).
inline bool &fastKernelsFlag() {
  static thread_local bool enabled = true;
  return enabled;
}

/// Whether the bandwidth kernels may run for the current call.
inline bool fastKernelsEnabled() { return fastKernelsFlag(); }

/// Sets the calling thread's setting for its lifetime.
class FastKernelsScope {
public:
  explicit FastKernelsScope(bool enabled) : saved(fastKernelsFlag()) {
    fastKernelsFlag() = enabled;
  }
  ~FastKernelsScope() { fastKernelsFlag() = saved; }
  FastKernelsScope(const FastKernelsScope &) = delete;
  FastKernelsScope &operator=(const FastKernelsScope &) = delete;

private:
  bool saved;
};

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_FASTKERNELS_H
