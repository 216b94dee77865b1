//===- GpuHostAbi.cpp - The mgpu* functions compiled GPU code calls -*- C++
//-*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Implements include/te_rt_gpu_abi.h over cudart: modules are CUDA libraries
// (cudaLibraryLoadData, context-independent: the driver loads them into the
// primary context cudart uses when a kernel first runs there), kernels are
// cudaKernel_t handles launched with cudaLaunchKernelExC on the context's
// stream. Everything runs on the thread's current te_rt context and its
// sticky status (MlirState.h). In a libte_rt built without CUDA the symbols
// exist and record why they cannot run.
//
//===----------------------------------------------------------------------===//

#include "te_rt_gpu_abi.h"

#include "te_rt_abi.h"

#include "Backend.h"
#include "MlirState.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_set>
#include <vector>

#if defined(TE_RT_HAVE_CUDA) && TE_RT_HAVE_CUDA
#include <cuda.h>
#include <cuda_runtime.h>
#define TE_RT_GPU_ABI_CUDA 1
#else
#define TE_RT_GPU_ABI_CUDA 0
#endif

namespace {

using te::rt::mlir::contextStream;
using te::rt::mlir::currentContext;
using te::rt::mlir::recordFailure;
using te::rt::mlir::statusOk;

std::atomic<int64_t> kernelLookups{0};

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

struct Module;

/// One (module, kernel name); its address is the handle compiled code gets.
struct Kernel {
  Module *module = nullptr;
  const char *namePtr = nullptr; ///< the pointer compiled code passes
  std::string name;
  std::string where; ///< "gpu.launch_func @name", for messages
#if TE_RT_GPU_ABI_CUDA
  cudaKernel_t kernel = nullptr;
#endif
  /// Largest dynamic shared memory the kernel has been allowed to use.
  std::atomic<int32_t> smemAllowed{48 << 10};
};

struct Module {
  const void *blob = nullptr;
  size_t size = 0; ///< 0 for PTX (NUL-terminated)
  bool ptx = false;
  int optLevel = 0;
  std::mutex mutex;
  bool loadTried = false;
  std::string loadError; ///< why the load failed, if it did
#if TE_RT_GPU_ABI_CUDA
  cudaLibrary_t library = nullptr;
#endif
  std::vector<std::unique_ptr<Kernel>> kernels;
};

/// "sm_90" from the blob (PTX `.target`, a fatbin's first entry, a cubin's
/// ELF flags), or "" when it cannot be read.
std::string blobTarget(const Module &m) {
  if (!m.blob)
    return "";
  const auto *b = static_cast<const unsigned char *>(m.blob);
  auto u16 = [&](size_t o) { return uint32_t(b[o]) | uint32_t(b[o + 1]) << 8; };
  auto u32 = [&](size_t o) { return u16(o) | u16(o + 2) << 16; };
  auto sm = [](uint32_t v) { return "sm_" + std::to_string(v); };
  if (m.ptx) {
    const char *t = std::strstr(static_cast<const char *>(m.blob), ".target ");
    if (!t)
      return "";
    t += 8;
    std::string out;
    while ((*t >= 'a' && *t <= 'z') || (*t >= '0' && *t <= '9') || *t == '_')
      out += *t++;
    return out;
  }
  // fatbin: a 16-byte header, then the first entry, whose 32-bit SM
  // version is at offset 28 (after kind, version, header size, payload
  // sizes and flags).
  if (m.size >= 16 + 32 && u32(0) == 0xBA55ED50u)
    return sm(u32(16 + 28));
  if (m.size >= 52 && std::memcmp(b,
                                  "\x7f"
                                  "ELF",
                                  4) == 0) // cubin: EF_CUDA_SM
    return sm(b[8] >= 8 ? (u32(48) >> 8) & 0xff : u32(48) & 0xff);
  return "";
}

/// Whether the current context can run GPU code; records why not. `op` names
/// the operation; `m` and `kernel`, if given, the module and kernel.
bool requireCuda(const char *op, const Module *m = nullptr,
                 const char *kernel = nullptr) {
  if (!statusOk())
    return false;
  te_rt_context *ctx = currentContext();
  te_rt_backend b = TE_RT_BACKEND_CPU;
  if (ctx)
    te_rt_context_get_backend(ctx, &b);
#if TE_RT_GPU_ABI_CUDA
  if (ctx && b != TE_RT_BACKEND_CPU && !te::rt::contextHostMemory(ctx))
    return true;
#endif
  // The failure message, built only now.
  std::string target = m ? blobTarget(*m) : std::string();
  std::string where =
      std::string(op) + (kernel ? std::string(" @") + kernel : std::string());
  std::string why = std::string(m ? "this module" : "this program") +
                    " was compiled for a GPU target" +
                    (target.empty() ? std::string() : " (" + target + ")") +
                    " and needs a cuda context";
  if (!ctx) {
    recordFailure(TE_RT_INVALID_ARGUMENT, where,
                  (why + "; there is no current context (call "
                         "te_rt_set_current_context first)")
                      .c_str());
    return false;
  }
  if (b == TE_RT_BACKEND_CPU) {
    recordFailure(TE_RT_BACKEND_UNAVAILABLE, where,
                  (why + "; the current context is a cpu context").c_str());
    return false;
  }
  if (te::rt::contextHostMemory(ctx)) {
    recordFailure(TE_RT_INVALID_ARGUMENT, where,
                  (why + " in device-memory mode; host-memory mode "
                         "(te_rt_context_set_host_memory) is on")
                      .c_str());
    return false;
  }
  recordFailure(TE_RT_BACKEND_UNAVAILABLE, where,
                (why + "; libte_rt was built without CUDA").c_str());
  return false;
}

#if TE_RT_GPU_ABI_CUDA

std::string cudaText(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

/// Records a failed CUDA call (and clears cudart's last error); true if ok.
bool check(cudaError_t e, const std::string &where, const std::string &what) {
  if (e == cudaSuccess)
    return true;
  cudaGetLastError();
  recordFailure(e == cudaErrorMemoryAllocation ? TE_RT_OUT_OF_MEMORY
                                               : TE_RT_CUDA_ERROR,
                where, (what + ": " + cudaText(e)).c_str());
  return false;
}

/// Loads m's library once; false (recorded) on failure. m.mutex is held.
bool loadLibrary(Module &m, const char *kernel) {
  if (!m.loadTried) {
    m.loadTried = true;
    cudaError_t e;
    if (m.ptx) {
      char log[4096] = {0};
      cudaJitOption opts[] = {cudaJitErrorLogBuffer,
                              cudaJitErrorLogBufferSizeBytes,
                              cudaJitOptimizationLevel};
      void *values[] = {
          log, reinterpret_cast<void *>(sizeof(log)),
          reinterpret_cast<void *>(static_cast<uintptr_t>(m.optLevel))};
      e = cudaLibraryLoadData(&m.library, m.blob, opts, values, 3, nullptr,
                              nullptr, 0);
      if (e != cudaSuccess)
        m.loadError = "cannot JIT-compile the module's PTX: " + cudaText(e) +
                      (log[0] ? std::string(": ") + log : std::string());
    } else {
      e = cudaLibraryLoadData(&m.library, m.blob, nullptr, nullptr, 0, nullptr,
                              nullptr, 0);
      if (e != cudaSuccess)
        m.loadError = "cannot load the module: " + cudaText(e);
    }
    if (e != cudaSuccess) {
      cudaGetLastError();
      m.library = nullptr;
    }
  }
  if (!m.library) {
    recordFailure(TE_RT_CUDA_ERROR, std::string("gpu.launch_func @") + kernel,
                  m.loadError.c_str());
    return false;
  }
  return true;
}

/// cuMemsetD32Async / cuMemsetD16Async through cudart (libte_rt does not
/// link the driver library itself).
template <typename Fn> Fn driverFunction(const char *name) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault,
                                       &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<Fn>(fn);
}

/// The managed allocations of mgpuMemAlloc (freed with cudaFree).
std::mutex managedMutex;
std::unordered_set<void *> &managed() {
  static auto *set = new std::unordered_set<void *>;
  return *set;
}

#endif // TE_RT_GPU_ABI_CUDA

void launch(void *function, const int64_t cluster[3], const int64_t grid[3],
            const int64_t block[3], int32_t smem, void **params, void **extra) {
  if (!statusOk())
    return;
  auto *k = static_cast<Kernel *>(function);
  if (!k) {
    recordFailure(TE_RT_INVALID_ARGUMENT, "gpu.launch_func",
                  "the kernel handle is null");
    return;
  }
  if (!requireCuda("gpu.launch_func", k->module, k->name.c_str()))
    return;
  const std::string &where = k->where;
  if (extra) {
    recordFailure(TE_RT_INVALID_ARGUMENT, where,
                  "kernel arguments through `extra` are not supported");
    return;
  }
  for (int i = 0; i < 3; ++i)
    if (grid[i] < 1 || grid[i] > INT32_MAX || block[i] < 1 ||
        block[i] > INT32_MAX || cluster[i] < 1 || cluster[i] > INT32_MAX) {
      recordFailure(TE_RT_INVALID_ARGUMENT, where,
                    ("grid (" + std::to_string(grid[0]) + ", " +
                     std::to_string(grid[1]) + ", " + std::to_string(grid[2]) +
                     "), block (" + std::to_string(block[0]) + ", " +
                     std::to_string(block[1]) + ", " +
                     std::to_string(block[2]) +
                     ") or cluster dimensions out "
                     "of range")
                        .c_str());
      return;
    }
  if (smem < 0) {
    recordFailure(TE_RT_INVALID_ARGUMENT, where,
                  "negative dynamic shared memory size");
    return;
  }
#if TE_RT_GPU_ABI_CUDA
  if (smem > k->smemAllowed.load(std::memory_order_relaxed)) {
    int device = 0;
    cudaGetDevice(&device);
    if (!check(cudaKernelSetAttributeForDevice(
                   k->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem,
                   device),
               where,
               "cannot allow " + std::to_string(smem) +
                   " bytes of dynamic shared memory"))
      return;
    k->smemAllowed.store(smem, std::memory_order_relaxed);
  }
  cudaLaunchConfig_t config{};
  config.gridDim =
      dim3(unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2]));
  config.blockDim =
      dim3(unsigned(block[0]), unsigned(block[1]), unsigned(block[2]));
  config.dynamicSmemBytes = static_cast<size_t>(smem);
  config.stream = static_cast<cudaStream_t>(contextStream(currentContext()));
  cudaLaunchAttribute attr{};
  if (cluster[0] * cluster[1] * cluster[2] > 1) {
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = unsigned(cluster[0]);
    attr.val.clusterDim.y = unsigned(cluster[1]);
    attr.val.clusterDim.z = unsigned(cluster[2]);
    config.attrs = &attr;
    config.numAttrs = 1;
  }
  check(cudaLaunchKernelExC(&config, reinterpret_cast<const void *>(k->kernel),
                            params),
        where, "cannot launch the kernel");
#else
  (void)params;
#endif
}

/// gpu.memset of `count` elements of type T (uint32_t, uint16_t) to
/// `value`, on the context's stream: cudaMemsetAsync when every byte of the
/// pattern is the same, else the driver's `driverName` (cuMemsetD32Async,
/// cuMemsetD16Async).
template <typename T>
void memsetPattern(void *dst, T value, int64_t count, const char *driverName) {
  if (count <= 0 || !requireCuda("gpu.memset"))
    return;
#if TE_RT_GPU_ABI_CUDA
  auto s = static_cast<cudaStream_t>(contextStream(currentContext()));
  T bytes = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    bytes = T(bytes << 8 | (value & 0xff));
  if (bytes == value) {
    check(cudaMemsetAsync(dst, int(value & 0xff), size_t(count) * sizeof(T), s),
          "gpu.memset", "cudaMemsetAsync");
    return;
  }
  using Fn = CUresult (*)(CUdeviceptr, T, size_t, CUstream);
  static const Fn fn = driverFunction<Fn>(driverName);
  if (!fn) {
    recordFailure(TE_RT_CUDA_ERROR, "gpu.memset",
                  (std::string(driverName) + " is not available").c_str());
    return;
  }
  if (CUresult r =
          fn(reinterpret_cast<CUdeviceptr>(dst), value,
             static_cast<size_t>(count), reinterpret_cast<CUstream>(s)))
    recordFailure(
        TE_RT_CUDA_ERROR, "gpu.memset",
        (std::string(driverName) + " failed with CUresult " + std::to_string(r))
            .c_str());
#else
  (void)dst;
  (void)value;
  (void)driverName;
#endif
}

} // namespace

//===----------------------------------------------------------------------===//
// Exported symbols
//===----------------------------------------------------------------------===//

extern "C" {

void *mgpuModuleLoad(void *data, int64_t size) {
  auto *m = new (std::nothrow) Module;
  if (m) {
    m->blob = data;
    m->size = size > 0 ? static_cast<size_t>(size) : 0;
  }
  return m;
}

void *mgpuModuleLoadJIT(void *data, int32_t optLevel) {
  auto *m = new (std::nothrow) Module;
  if (m) {
    m->blob = data;
    m->ptx = true;
    m->optLevel = optLevel < 0 ? 0 : optLevel > 4 ? 4 : optLevel;
  }
  return m;
}

void mgpuModuleUnload(void *module) {
  auto *m = static_cast<Module *>(module);
  if (!m)
    return;
#if TE_RT_GPU_ABI_CUDA
  // At exit cudart may already be shut down: the error is of no interest.
  if (m->library && cudaLibraryUnload(m->library) != cudaSuccess)
    cudaGetLastError();
#endif
  delete m;
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!statusOk())
    return nullptr;
  auto *m = static_cast<Module *>(module);
  if (!m || !name) {
    recordFailure(TE_RT_INVALID_ARGUMENT, "gpu.launch_func",
                  "the module handle or the kernel name is null (did "
                  "mgpuModuleLoad run out of memory?)");
    return nullptr;
  }
  try {
    std::lock_guard<std::mutex> lock(m->mutex);
    for (auto &k : m->kernels)
      if (k->namePtr == name)
        return k.get();
    for (auto &k : m->kernels)
      if (k->name == name)
        return k.get();
    if (!requireCuda("gpu.launch_func", m, name))
      return nullptr;
#if TE_RT_GPU_ABI_CUDA
    if (!loadLibrary(*m, name))
      return nullptr;
    cudaKernel_t kernel = nullptr;
    kernelLookups.fetch_add(1, std::memory_order_relaxed);
    if (!check(cudaLibraryGetKernel(&kernel, m->library, name),
               std::string("gpu.launch_func @") + name,
               "no kernel of that name in the module"))
      return nullptr;
    auto k = std::make_unique<Kernel>();
    k->module = m;
    k->namePtr = name;
    k->name = name;
    k->where = std::string("gpu.launch_func @") + name;
    k->kernel = kernel;
    m->kernels.push_back(std::move(k));
    return m->kernels.back().get();
#else
    return nullptr;
#endif
  } catch (...) {
    recordFailure(TE_RT_OUT_OF_MEMORY, std::string("gpu.launch_func @") + name,
                  "out of host memory");
    return nullptr;
  }
}

void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY,
                      int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t smem, void *stream, void **params,
                      void **extra, int64_t paramsCount) {
  (void)stream;
  (void)paramsCount;
  const int64_t cluster[3] = {1, 1, 1};
  const int64_t grid[3] = {gridX, gridY, gridZ};
  const int64_t block[3] = {blockX, blockY, blockZ};
  try {
    launch(function, cluster, grid, block, smem, params, extra);
  } catch (...) {
    recordFailure(TE_RT_INTERNAL, "gpu.launch_func", "internal error");
  }
}

void mgpuLaunchClusterKernel(void *function, int64_t clusterX, int64_t clusterY,
                             int64_t clusterZ, int64_t gridX, int64_t gridY,
                             int64_t gridZ, int64_t blockX, int64_t blockY,
                             int64_t blockZ, int32_t smem, void *stream,
                             void **params, void **extra) {
  (void)stream;
  const int64_t cluster[3] = {clusterX, clusterY, clusterZ};
  const int64_t grid[3] = {gridX, gridY, gridZ};
  const int64_t block[3] = {blockX, blockY, blockZ};
  try {
    launch(function, cluster, grid, block, smem, params, extra);
  } catch (...) {
    recordFailure(TE_RT_INTERNAL, "gpu.launch_func", "internal error");
  }
}

void *mgpuStreamCreate(void) {
  requireCuda("gpu.launch_func");
  return contextStream(currentContext());
}

void mgpuStreamDestroy(void *stream) { (void)stream; }

void mgpuStreamSynchronize(void *stream) { (void)stream; }

void mgpuStreamWaitEvent(void *stream, void *event) {
  (void)stream;
  if (!event || !requireCuda("gpu.wait"))
    return;
#if TE_RT_GPU_ABI_CUDA
  check(cudaStreamWaitEvent(
            static_cast<cudaStream_t>(contextStream(currentContext())),
            static_cast<cudaEvent_t>(event), 0),
        "gpu.wait", "cudaStreamWaitEvent");
#endif
}

void *mgpuEventCreate(void) {
  if (!requireCuda("gpu event"))
    return nullptr;
#if TE_RT_GPU_ABI_CUDA
  cudaEvent_t e = nullptr;
  if (check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "gpu event",
            "cudaEventCreateWithFlags"))
    return e;
#endif
  return nullptr;
}

void mgpuEventDestroy(void *event) {
#if TE_RT_GPU_ABI_CUDA
  if (event && cudaEventDestroy(static_cast<cudaEvent_t>(event)) != cudaSuccess)
    cudaGetLastError();
#else
  (void)event;
#endif
}

void mgpuEventSynchronize(void *event) {
  if (!event || !requireCuda("gpu.wait"))
    return;
#if TE_RT_GPU_ABI_CUDA
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(event)), "gpu.wait",
        "cudaEventSynchronize");
#endif
}

void mgpuEventRecord(void *event, void *stream) {
  (void)stream;
  if (!event || !requireCuda("gpu event"))
    return;
#if TE_RT_GPU_ABI_CUDA
  check(cudaEventRecord(
            static_cast<cudaEvent_t>(event),
            static_cast<cudaStream_t>(contextStream(currentContext()))),
        "gpu event", "cudaEventRecord");
#endif
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared) {
  (void)stream;
  if (!requireCuda("gpu.alloc"))
    return nullptr;
  if (sizeBytes > uint64_t(INT64_MAX)) {
    recordFailure(TE_RT_OUT_OF_MEMORY, "gpu.alloc",
                  ("cannot allocate " + std::to_string(sizeBytes) +
                   " bytes of device memory: size too large")
                      .c_str());
    return nullptr;
  }
  if (!isHostShared)
    return te_rt_mlir_alloc(static_cast<int64_t>(sizeBytes), 0);
#if TE_RT_GPU_ABI_CUDA
  void *p = nullptr;
  if (!check(cudaMallocManaged(&p, sizeBytes ? sizeBytes : 1), "gpu.alloc",
             "cannot allocate " + std::to_string(sizeBytes) +
                 " bytes of managed memory"))
    return nullptr;
  try {
    std::lock_guard<std::mutex> lock(managedMutex);
    managed().insert(p);
  } catch (...) {
    cudaFree(p);
    recordFailure(TE_RT_OUT_OF_MEMORY, "gpu.alloc", "out of host memory");
    return nullptr;
  }
  return p;
#else
  return nullptr;
#endif
}

void mgpuMemFree(void *ptr, void *stream) {
  (void)stream;
  if (!ptr)
    return;
#if TE_RT_GPU_ABI_CUDA
  {
    std::lock_guard<std::mutex> lock(managedMutex);
    if (managed().erase(ptr)) {
      if (cudaFree(ptr) != cudaSuccess)
        cudaGetLastError();
      return;
    }
  }
#endif
  te_rt_mlir_free(ptr);
}

void mgpuMemcpy(void *dst, void *src, int64_t sizeBytes, void *stream) {
  (void)stream;
  if (sizeBytes <= 0 || !requireCuda("gpu.memcpy"))
    return;
#if TE_RT_GPU_ABI_CUDA
  check(cudaMemcpyAsync(
            dst, src, static_cast<size_t>(sizeBytes), cudaMemcpyDefault,
            static_cast<cudaStream_t>(contextStream(currentContext()))),
        "gpu.memcpy", "cudaMemcpyAsync");
#else
  (void)dst;
  (void)src;
#endif
}

void mgpuMemset32(void *dst, uint32_t value, int64_t count, void *stream) {
  (void)stream;
  memsetPattern<uint32_t>(dst, value, count, "cuMemsetD32Async");
}

void mgpuMemset16(void *dst, uint16_t value, int64_t count, void *stream) {
  (void)stream;
  memsetPattern<uint16_t>(dst, value, count, "cuMemsetD16Async");
}

/// A ranked memref descriptor: {allocated, aligned, offset, sizes[rank],
/// strides[rank]}.
static void *memrefData(int64_t rank, void *descriptor, int64_t elementBytes,
                        uint64_t *bytes) {
  auto *d = static_cast<char **>(descriptor);
  auto *words = reinterpret_cast<int64_t *>(d + 2);
  int64_t offset = words[0];
  uint64_t n = 1;
  for (int64_t i = 0; i < rank; ++i)
    n *= static_cast<uint64_t>(words[1 + i]);
  *bytes = n * static_cast<uint64_t>(elementBytes);
  return d[1] + offset * elementBytes;
}

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  if (!descriptor || rank < 0 || !requireCuda("gpu.host_register"))
    return;
  uint64_t bytes = 0;
  void *p = memrefData(rank, descriptor, elementSizeBytes, &bytes);
#if TE_RT_GPU_ABI_CUDA
  if (bytes)
    check(cudaHostRegister(p, bytes, cudaHostRegisterDefault),
          "gpu.host_register", "cudaHostRegister");
#else
  (void)p;
#endif
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes) {
  if (!descriptor || rank < 0 || !requireCuda("gpu.host_unregister"))
    return;
  uint64_t bytes = 0;
  void *p = memrefData(rank, descriptor, elementSizeBytes, &bytes);
#if TE_RT_GPU_ABI_CUDA
  if (bytes)
    check(cudaHostUnregister(p), "gpu.host_unregister", "cudaHostUnregister");
#else
  (void)p;
#endif
}

void mgpuSetDefaultDevice(int32_t device) {
  if (!requireCuda("gpu.set_default_device"))
    return;
#if TE_RT_GPU_ABI_CUDA
  int current = 0;
  if (!check(cudaGetDevice(&current), "gpu.set_default_device",
             "cudaGetDevice"))
    return;
  if (device != current)
    recordFailure(TE_RT_INVALID_ARGUMENT, "gpu.set_default_device",
                  ("device " + std::to_string(device) +
                   ": te programs run on the device of the current context (" +
                   std::to_string(current) + ")")
                      .c_str());
#else
  (void)device;
#endif
}

int64_t te_rt_gpu_kernel_lookups(void) {
  return kernelLookups.load(std::memory_order_relaxed);
}

} // extern "C"
