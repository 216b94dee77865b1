//===- Matmul.cpp - Dense matrix products of the cuda backend ------------===//
//
// Part of te. Internal to libte_rt.
//
//===----------------------------------------------------------------------===//
//
// te_rt_mlir_matmul's products (what te-linalg-to-gpu makes of linalg
// contractions on GPU targets): one strided-batched cuBLASLt call through
// the executor te_rt_gemm uses (CudaBackend::runMatmul), beta = 1 to
// accumulate into C, else 0 (C not read).
//
//===----------------------------------------------------------------------===//

#include "GemmCommon.h"

#include <algorithm>

namespace te::rt {

using gemm_detail::cudaTypeOf;

te_rt_status CudaBackend::matmul(const DenseMatmul &d) {
  if (d.batch == 0 || d.m == 0 || d.n == 0)
    return TE_RT_OK;
  auto stream = static_cast<cudaStream_t>(d.stream);
  const int64_t ea = format::dtypeBytes(d.aType),
                eb = format::dtypeBytes(d.bType),
                ec = format::dtypeBytes(d.cType);
  if (d.k == 0) {
    // An empty sum: C unchanged, or 0 without accumulate.
    if (!d.accumulate)
      for (int64_t i = 0; i < d.batch; ++i)
        TE_CUDA_CHECK(cudaMemset2DAsync(static_cast<uint8_t *>(d.c) +
                                            i * d.batchStrideC * ec,
                                        d.ldc * ec, 0, d.n * ec, d.m, stream),
                      "cudaMemset2DAsync");
    return TE_RT_OK;
  }
  // Row-major C [M, N] is column-major C^T [N, M] = op(B)^T · op(A)^T: B's
  // buffer is cuBLAS's A (N x K after its op), A's buffer cuBLAS's B. The
  // whole batch is one strided-batched call (cuBLASLt counts products in
  // 32 bits: larger batches take several calls).
  Matmul mm;
  mm.aType = cudaTypeOf(d.bType);
  mm.bType = cudaTypeOf(d.aType);
  mm.cType = mm.dType = cudaTypeOf(d.cType);
  mm.opA = d.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  mm.opB = d.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  mm.m = d.n;
  mm.n = d.m;
  mm.k = d.k;
  mm.lda = d.ldb;
  mm.ldb = d.lda;
  mm.ldc = d.ldc;
  mm.hostScalars = true;
  mm.alpha = 1.0f;
  mm.beta = d.accumulate ? 1.0f : 0.0f;
  mm.strideA = d.batchStrideB;
  mm.strideB = d.batchStrideA;
  mm.strideC = d.batchStrideC;
  constexpr int64_t kMaxBatch = int64_t(1) << 30;
  for (int64_t first = 0; first < d.batch; first += kMaxBatch) {
    mm.batch = std::min(kMaxBatch, d.batch - first);
    mm.A = static_cast<const uint8_t *>(d.b) + first * d.batchStrideB * eb;
    mm.B = static_cast<const uint8_t *>(d.a) + first * d.batchStrideA * ea;
    mm.C = mm.D = static_cast<uint8_t *>(d.c) + first * d.batchStrideC * ec;
    bool biasApplied = false;
    if (te_rt_status s =
            runMatmul(mm, workspace, workspaceBytes, stream, &biasApplied))
      return s;
  }
  return TE_RT_OK;
}

} // namespace te::rt
