//===- CudaLibraries.cpp - The CUDA libraries the cuda backend loads ------===//
//
// Part of te. Internal to libte_rt's cuda backend. See CudaLibraries.h.
//
//===----------------------------------------------------------------------===//

#include "CudaLibraries.h"

#include <dlfcn.h>

#include <cstdlib>

namespace te::rt::cuda {
namespace {

/// The driver's file name; cudart (linked statically) opens the same name.
constexpr const char *driverLibrary = "libcuda.so.1";

struct Loaded {
  bool ok = false;
  std::string error;
  CublasLtApi api;
};

std::string dlText() {
  const char *e = dlerror();
  return e ? std::string(e) : std::string("unknown dlopen error");
}

Loaded load() {
  Loaded l;
  std::string lt = cublasLtLibraryName();
  void *handle = dlopen(lt.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::string why = dlText();
#ifdef TE_RT_CUDA_TOOLKIT_LIBRARY_DIR
    // A plain file name the loader does not find: the library directory of
    // the toolkit libte_rt was built with, as a linked library's RUNPATH
    // would have it.
    if (lt.find('/') == std::string::npos) {
      std::string path = std::string(TE_RT_CUDA_TOOLKIT_LIBRARY_DIR) + "/" + lt;
      handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle)
        lt = path;
    }
#endif
    if (!handle) {
      l.error = "cannot load cuBLASLt (" + lt + "): " + why +
                " (TE_RT_CUBLASLT_LIBRARY names another file)";
      return l;
    }
  }
#define TE_RT_CUBLASLT_RESOLVE(name)                                           \
  l.api.name = reinterpret_cast<decltype(l.api.name)>(dlsym(handle, #name));   \
  if (!l.api.name) {                                                           \
    l.error = "cuBLASLt (" + lt + ") has no " #name;                           \
    return l;                                                                  \
  }
  TE_RT_CUBLASLT_FUNCTIONS(TE_RT_CUBLASLT_RESOLVE)
#undef TE_RT_CUBLASLT_RESOLVE
  size_t version = l.api.cublasLtGetVersion();
  if (version / 10000 != CUBLAS_VER_MAJOR) {
    l.error = "cuBLASLt (" + lt + ") is version " + std::to_string(version) +
              "; libte_rt was built against cuBLASLt " +
              std::to_string(CUBLAS_VER_MAJOR) + ".x";
    return l;
  }
  // The handle stays open for the life of the process.
  if (!dlopen(driverLibrary, RTLD_NOW | RTLD_LOCAL)) {
    l.error = std::string("cannot load the CUDA driver (") + driverLibrary +
              "): " + dlText();
    return l;
  }
  l.ok = true;
  return l;
}

const Loaded &loaded() {
  static const Loaded l = load();
  return l;
}

} // namespace

std::string cublasLtLibraryName() {
  const char *env = std::getenv("TE_RT_CUBLASLT_LIBRARY");
  if (env && *env)
    return env;
  return "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR);
}

const CublasLtApi &cublasLt() { return loaded().api; }

bool loadCudaLibraries(std::string *error) {
  const Loaded &l = loaded();
  if (!l.ok && error)
    *error = l.error;
  return l.ok;
}

} // namespace te::rt::cuda
