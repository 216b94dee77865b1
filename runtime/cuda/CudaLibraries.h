//===- CudaLibraries.h - The CUDA libraries the cuda backend loads -*- C++
//-*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// libte_rt has no NEEDED entry for a CUDA library, so that it loads, and its
// cpu backend runs, on a machine without CUDA. The cuda backend's libraries
// come in when a cuda context is first asked for (te_rt_context_create,
// te_rt_backend_available):
//
//  * cudart is linked statically (CUDA::cudart_static, its symbols kept out
//    of libte_rt's exports). It opens the driver, libcuda.so.1, itself on its
//    first call. The mgpu* host ABI of compiled GPU programs
//    (GpuHostAbi.cpp) and the te_rt_mlir_* entry points therefore stay plain
//    cudart calls inside libte_rt, the library AOT objects link; nothing has
//    to forward into a second library. cudart handles are driver handles, so
//    streams and device pointers of a caller's own cudart (a test, PyTorch)
//    are interchangeable with libte_rt's (as with NCCL, which links cudart
//    statically too).
//  * cuBLASLt is opened with dlopen (libcublasLt.so.<CUBLAS_VER_MAJOR>, or
//    the file TE_RT_CUBLASLT_LIBRARY names; a plain file name the loader
//    does not find is tried in the library directory of the toolkit libte_rt
//    was built with) and used through the table of function pointers below.
//
// loadCudaLibraries checks both before any other CUDA call: a missing
// library makes the cuda backend unavailable (TE_RT_BACKEND_UNAVAILABLE) with
// a message naming the file and the loader's reason.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_CUDALIBRARIES_H
#define TE_RT_CUDA_CUDALIBRARIES_H

#include <cublasLt.h>

#include <string>

/// Every cuBLASLt function the backend calls.
#define TE_RT_CUBLASLT_FUNCTIONS(X)                                            \
  X(cublasLtGetVersion)                                                        \
  X(cublasLtCreate)                                                            \
  X(cublasLtDestroy)                                                           \
  X(cublasLtMatmul)                                                            \
  X(cublasLtMatmulAlgoConfigGetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatrixLayoutSetAttribute)

namespace te::rt::cuda {

/// cuBLASLt's functions, resolved from the library loadCudaLibraries opened.
struct CublasLtApi {
#define TE_RT_CUBLASLT_POINTER(name) decltype(&::name) name = nullptr;
  TE_RT_CUBLASLT_FUNCTIONS(TE_RT_CUBLASLT_POINTER)
#undef TE_RT_CUBLASLT_POINTER
};

/// The table. Valid once loadCudaLibraries has succeeded, which a cuda
/// backend's existence implies.
const CublasLtApi &cublasLt();

/// Opens the CUDA driver and cuBLASLt once per process (later calls return
/// the first outcome). On failure returns false and sets `*error` to a
/// message naming the library that could not be loaded.
bool loadCudaLibraries(std::string *error);

/// The file name loadCudaLibraries opens for cuBLASLt: TE_RT_CUBLASLT_LIBRARY
/// when set and not empty, else libcublasLt.so.<CUBLAS_VER_MAJOR>.
std::string cublasLtLibraryName();

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_CUDALIBRARIES_H
