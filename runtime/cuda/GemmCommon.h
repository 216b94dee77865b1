//===- GemmCommon.h - What the GEMM files share ------------------*- C++
//-*-===//
//
// Part of te. Internal to libte_rt (runtime/cuda).
//
//===----------------------------------------------------------------------===//
//
// Status helpers and type mapping shared by GemmExecutor.cpp (the one
// cuBLASLt executor, CudaBackend::runMatmul), Gemm.cpp (te_rt_gemm: the
// path and its operands) and Matmul.cpp (te_rt_mlir_matmul's dense
// products).
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_GEMMCOMMON_H
#define TE_RT_CUDA_GEMMCOMMON_H

#include "CudaBackend.h"
#include "Error.h"

#include "te/Format/Types.h"

#include <string>

namespace te::rt::gemm_detail {

inline te_rt_status cudaFail(cudaError_t e, const std::string &what) {
  return fail(TE_RT_CUDA_ERROR, what + ": " + cudaErrorText(e));
}

inline te_rt_status cublasFail(cublasStatus_t s, const std::string &what) {
  return fail(TE_RT_CUBLAS_ERROR, what + ": " + cublasStatusText(s));
}

/// The CUDA data type of a te element type (CUDA_R_8U for the others).
cudaDataType_t cudaTypeOf(format::DType t);

} // namespace te::rt::gemm_detail

#define TE_CUDA_CHECK(expr, what)                                              \
  do {                                                                         \
    cudaError_t teErr_ = (expr);                                               \
    if (teErr_ != cudaSuccess)                                                 \
      return ::te::rt::gemm_detail::cudaFail(teErr_, what);                    \
  } while (0)

#define TE_CUBLAS_CHECK(expr, what)                                            \
  do {                                                                         \
    cublasStatus_t teSt_ = (expr);                                             \
    if (teSt_ != CUBLAS_STATUS_SUCCESS)                                        \
      return ::te::rt::gemm_detail::cublasFail(teSt_, what);                   \
  } while (0)

#endif // TE_RT_CUDA_GEMMCOMMON_H
