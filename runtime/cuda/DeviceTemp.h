//===- DeviceTemp.h - Stream-ordered device temporaries ---------*- C++ -*-===//
//
// The cuda backend's device temporaries, and its allocation poisoning.
//
// TE_RT_CUDA_POISON=1 (read once per process) fills every device allocation
// the backend makes -- te_rt_malloc (te_rt_qtensor_alloc then zero-fills its
// buffers, its contract), the stream-ordered temporaries of the
// quantize and GEMM paths, the GEMM emulation's scratch -- with 0xFF bytes
// before first use: a NaN in fp32, bf16, f16, E4M3 and E5M2. A kernel that
// reads an element nobody wrote then propagates NaN into results the tests
// compare with their oracles, like glibc's MALLOC_PERTURB_. The filled memory
// also counts as initialized for compute-sanitizer's initcheck, which does
// not see the stores of some cuBLASLt kernels (docs/perf/cuda-notebook.md,
// entry 2c91a4c): with poisoning, a passing suite shows every element read was
// written. Off by default (it costs a memset per allocation).
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_DEVICETEMP_H
#define TE_RT_CUDA_DEVICETEMP_H

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

namespace te::rt::cuda {

/// Whether TE_RT_CUDA_POISON is set to a value other than "0" or "".
inline bool poisonAllocations() {
  static const bool on = [] {
    const char *v = std::getenv("TE_RT_CUDA_POISON");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}

/// Stream-ordered fill of a fresh allocation when poisoning is on.
inline cudaError_t poisonIfRequested(void *ptr, size_t bytes,
                                     cudaStream_t stream) {
  if (!poisonAllocations() || !ptr || !bytes)
    return cudaSuccess;
  return cudaMemsetAsync(ptr, 0xFF, bytes, stream);
}

/// A stream-ordered device temporary, freed (stream-ordered) on scope exit.
class DeviceTemp {
public:
  explicit DeviceTemp(cudaStream_t s) : stream(s) {}
  DeviceTemp(const DeviceTemp &) = delete;
  DeviceTemp &operator=(const DeviceTemp &) = delete;
  ~DeviceTemp() {
    if (ptr)
      cudaFreeAsync(ptr, stream);
  }
  cudaError_t allocate(size_t bytes) {
    cudaError_t e = cudaMallocAsync(&ptr, bytes ? bytes : 1, stream);
    if (e != cudaSuccess)
      return e;
    return poisonIfRequested(ptr, bytes, stream);
  }
  template <typename T> T *as() const { return static_cast<T *>(ptr); }

private:
  cudaStream_t stream;
  void *ptr = nullptr;
};

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_DEVICETEMP_H
