//===- GemmExecutor.cpp - The cuda backend's one cuBLASLt executor -------===//
//
// Part of te. Internal to libte_rt.
//
//===----------------------------------------------------------------------===//
//
// CudaBackend::runMatmul: one cuBLASLt matmul, in column-major terms, for
// every product the cuda backend computes -- te_rt_gemm's paths (Gemm.cpp)
// and te_rt_mlir_matmul's dense, strided-batched products (Matmul.cpp).
// It builds the descriptors (scale modes, FP8 output scale and amax, bias
// epilogue, strided batch, alignment preferences), asks the heuristic once
// per problem (optionally timing its first candidates:
// te_rt_context_set_gemm_autotune) and caches the algorithm.
//
//===----------------------------------------------------------------------===//

#include "GemmCommon.h"

#include <algorithm>
#include <sstream>
#include <vector>

using namespace te::format;

namespace te::rt {

cudaDataType_t gemm_detail::cudaTypeOf(DType t) {
  switch (t) {
  case DType::F32:
    return CUDA_R_32F;
  case DType::F16:
    return CUDA_R_16F;
  case DType::BF16:
    return CUDA_R_16BF;
  case DType::E4M3:
    return CUDA_R_8F_E4M3;
  case DType::E5M2:
    return CUDA_R_8F_E5M2;
  case DType::E2M1x2:
    return CUDA_R_4F_E2M1;
  case DType::E8M0:
    return CUDA_R_8F_UE8M0;
  default:
    return CUDA_R_8U;
  }
}

namespace {

using gemm_detail::cublasFail;
using gemm_detail::cudaFail;

/// Largest power of two <= 256 dividing the address (cuBLASLt's
/// MIN_ALIGNMENT preference, doc §1.5).
uint32_t alignmentOf(const void *p) {
  auto v = reinterpret_cast<uintptr_t>(p);
  uint32_t a = 256;
  while (a > 1 && (v % a))
    a /= 2;
  return a;
}

/// RAII holders of the cuBLASLt descriptors.
struct Descs {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~Descs() {
    if (pref)
      cuda::cublasLt().cublasLtMatmulPreferenceDestroy(pref);
    if (d)
      cuda::cublasLt().cublasLtMatrixLayoutDestroy(d);
    if (c)
      cuda::cublasLt().cublasLtMatrixLayoutDestroy(c);
    if (b)
      cuda::cublasLt().cublasLtMatrixLayoutDestroy(b);
    if (a)
      cuda::cublasLt().cublasLtMatrixLayoutDestroy(a);
    if (op)
      cuda::cublasLt().cublasLtMatmulDescDestroy(op);
  }
};

/// The algorithm's configuration into `info`.
void describeAlgo(const cublasLtMatmulAlgo_t &algo, te_rt_gemm_info *info) {
  struct Field {
    cublasLtMatmulAlgoConfigAttributes_t attr;
    int32_t *out;
  } fields[] = {
      {CUBLASLT_ALGO_CONFIG_ID, &info->algo_id},
      {CUBLASLT_ALGO_CONFIG_TILE_ID, &info->algo_tile},
      {CUBLASLT_ALGO_CONFIG_STAGES_ID, &info->algo_stages},
      {CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &info->algo_split_k},
      {CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &info->algo_swizzle},
      {CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &info->algo_custom_option}};
  for (const Field &f : fields) {
    uint32_t v = 0; // every one of these is a 32-bit value
    size_t written = 0;
    if (cuda::cublasLt().cublasLtMatmulAlgoConfigGetAttribute(
            &algo, f.attr, &v, sizeof(v), &written) == CUBLAS_STATUS_SUCCESS &&
        written == sizeof(v))
      *f.out = static_cast<int32_t>(v);
  }
}

} // namespace

void CudaBackend::setGemmAutotune(int candidates) {
  std::lock_guard<std::mutex> lock(cacheMutex);
  autotuneK = std::max(0, std::min(candidates, 16));
}

/// Appends each value, as a decimal integer and a comma, to `key`.
template <typename... T>
static void appendKey(std::string &key, const T &...values) {
  ((key += std::to_string(static_cast<long long>(values)), key += ','), ...);
}

te_rt_status CudaBackend::runMatmul(const Matmul &mm, void *ws, size_t wsBytes,
                                    cudaStream_t stream, bool *biasApplied,
                                    te_rt_gemm_info *info) {
  *biasApplied = false;
  int tuneK;
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    tuneK = mm.mayAutotune && autotuneK >= 2 ? autotuneK : 1;
  }
  // The plan cache's key: every field that changes the descriptors or the
  // algorithm (no iostreams on this per-call path).
  std::string key;
  key.reserve(128);
  appendKey(key, mm.aType, mm.bType, mm.cType, mm.dType, mm.opA, mm.opB, mm.m,
            mm.n, mm.k, mm.lda, mm.ldb, mm.ldc, mm.aScaleMode, mm.bScaleMode,
            mm.dScale != nullptr, mm.amaxD != nullptr, mm.fastAccum,
            mm.bias ? static_cast<int>(mm.biasType) : -1, alignmentOf(mm.A),
            alignmentOf(mm.B), alignmentOf(mm.C), alignmentOf(mm.D), wsBytes,
            mm.hostScalars, mm.C != nullptr, tuneK, mm.batch, mm.strideA,
            mm.strideB, mm.strideC);

  auto build = [&](Descs &ds, bool withBias) -> te_rt_status {
    TE_CUBLAS_CHECK(cuda::cublasLt().cublasLtMatmulDescCreate(
                        &ds.op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
                    "cublasLtMatmulDescCreate");
    auto set = [&](cublasLtMatmulDescAttributes_t attr, const void *v,
                   size_t n) {
      return cuda::cublasLt().cublasLtMatmulDescSetAttribute(ds.op, attr, v, n);
    };
    int32_t opA = mm.opA, opB = mm.opB;
    TE_CUBLAS_CHECK(set(CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof(opA)),
                    "setting TRANSA");
    TE_CUBLAS_CHECK(set(CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof(opB)),
                    "setting TRANSB");
    int32_t pm = mm.hostScalars ? CUBLASLT_POINTER_MODE_HOST
                                : CUBLASLT_POINTER_MODE_DEVICE;
    TE_CUBLAS_CHECK(set(CUBLASLT_MATMUL_DESC_POINTER_MODE, &pm, sizeof(pm)),
                    "setting the pointer mode");
    if (mm.aScale)
      TE_CUBLAS_CHECK(set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &mm.aScale,
                          sizeof(mm.aScale)),
                      "setting A_SCALE_POINTER");
    if (mm.bScale)
      TE_CUBLAS_CHECK(set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &mm.bScale,
                          sizeof(mm.bScale)),
                      "setting B_SCALE_POINTER");
    if (mm.aScaleMode >= 0) {
      int32_t v = mm.aScaleMode;
      TE_CUBLAS_CHECK(set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &v, sizeof(v)),
                      "setting A_SCALE_MODE");
    }
    if (mm.bScaleMode >= 0) {
      int32_t v = mm.bScaleMode;
      TE_CUBLAS_CHECK(set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &v, sizeof(v)),
                      "setting B_SCALE_MODE");
    }
    if (mm.dScale)
      TE_CUBLAS_CHECK(set(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &mm.dScale,
                          sizeof(mm.dScale)),
                      "setting D_SCALE_POINTER");
    if (mm.amaxD)
      TE_CUBLAS_CHECK(
          set(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &mm.amaxD, sizeof(mm.amaxD)),
          "setting AMAX_D_POINTER");
    if (mm.aScale || mm.aScaleMode >= 0) {
      int8_t fast = mm.fastAccum ? 1 : 0;
      TE_CUBLAS_CHECK(set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof(fast)),
                      "setting FAST_ACCUM");
    }
    if (withBias) {
      int32_t epi = CUBLASLT_EPILOGUE_BIAS;
      TE_CUBLAS_CHECK(set(CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)),
                      "setting the epilogue");
      TE_CUBLAS_CHECK(
          set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &mm.bias, sizeof(mm.bias)),
          "setting BIAS_POINTER");
      int32_t bt = mm.biasType;
      TE_CUBLAS_CHECK(set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof(bt)),
                      "setting BIAS_DATA_TYPE");
    }
    bool aT = mm.opA == CUBLAS_OP_T, bT = mm.opB == CUBLAS_OP_T;
    TE_CUBLAS_CHECK(
        cuda::cublasLt().cublasLtMatrixLayoutCreate(
            &ds.a, mm.aType, aT ? mm.k : mm.m, aT ? mm.m : mm.k, mm.lda),
        "creating A's layout");
    TE_CUBLAS_CHECK(
        cuda::cublasLt().cublasLtMatrixLayoutCreate(
            &ds.b, mm.bType, bT ? mm.n : mm.k, bT ? mm.k : mm.n, mm.ldb),
        "creating B's layout");
    TE_CUBLAS_CHECK(cuda::cublasLt().cublasLtMatrixLayoutCreate(
                        &ds.c, mm.cType, mm.m, mm.n, mm.ldc),
                    "creating C's layout");
    TE_CUBLAS_CHECK(cuda::cublasLt().cublasLtMatrixLayoutCreate(
                        &ds.d, mm.dType, mm.m, mm.n, mm.ldc),
                    "creating D's layout");
    if (mm.batch > 1) {
      const int32_t count = static_cast<int32_t>(mm.batch);
      const cublasLtMatrixLayout_t layouts[4] = {ds.a, ds.b, ds.c, ds.d};
      const int64_t strides[4] = {mm.strideA, mm.strideB, mm.strideC,
                                  mm.strideC};
      for (int i = 0; i < 4; ++i) {
        TE_CUBLAS_CHECK(cuda::cublasLt().cublasLtMatrixLayoutSetAttribute(
                            layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                            &count, sizeof(count)),
                        "setting the batch count");
        TE_CUBLAS_CHECK(cuda::cublasLt().cublasLtMatrixLayoutSetAttribute(
                            layouts[i],
                            CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                            &strides[i], sizeof(strides[i])),
                        "setting the batch stride");
      }
    }
    TE_CUBLAS_CHECK(cuda::cublasLt().cublasLtMatmulPreferenceCreate(&ds.pref),
                    "cublasLtMatmulPreferenceCreate");
    uint64_t wsb = wsBytes;
    TE_CUBLAS_CHECK(cuda::cublasLt().cublasLtMatmulPreferenceSetAttribute(
                        ds.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb,
                        sizeof(wsb)),
                    "setting the workspace size");
    const cublasLtMatmulPreferenceAttributes_t alignAttrs[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    const void *ptrs[4] = {mm.A, mm.B, mm.C, mm.D};
    for (int i = 0; i < 4; ++i) {
      uint32_t al = alignmentOf(ptrs[i]);
      TE_CUBLAS_CHECK(cuda::cublasLt().cublasLtMatmulPreferenceSetAttribute(
                          ds.pref, alignAttrs[i], &al, sizeof(al)),
                      "setting an alignment preference");
    }
    return TE_RT_OK;
  };

  // Times each candidate (1 warm-up + 3 runs, CUDA events on `stream`) on
  // the real operands and picks the fastest; D is overwritten each time.
  auto timeCandidates =
      [&](const Descs &t, const cublasLtMatmulHeuristicResult_t *cands, int n,
          void *w, size_t wb, cudaStream_t s, int *best) -> te_rt_status {
    const void *alphaP =
        mm.hostScalars ? static_cast<const void *>(&mm.alpha) : mm.alphaBeta;
    const void *betaP =
        mm.hostScalars ? static_cast<const void *>(&mm.beta) : mm.alphaBeta + 1;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    TE_CUDA_CHECK(cudaEventCreate(&e0), "cudaEventCreate");
    if (cudaError_t e = cudaEventCreate(&e1); e != cudaSuccess) {
      cudaEventDestroy(e0);
      return cudaFail(e, "cudaEventCreate");
    }
    float bestMs = -1.0f;
    te_rt_status result = TE_RT_OK;
    for (int i = 0; i < n && result == TE_RT_OK; ++i) {
      if (cands[i].state != CUBLAS_STATUS_SUCCESS)
        continue;
      bool ok = true;
      for (int rep = 0; rep < 4 && ok; ++rep) {
        if (rep == 1)
          cudaEventRecord(e0, s);
        ok = cuda::cublasLt().cublasLtMatmul(
                 lt, t.op, alphaP, mm.A, t.a, mm.B, t.b, betaP, mm.C, t.c, mm.D,
                 t.d, &cands[i].algo, w, wb, s) == CUBLAS_STATUS_SUCCESS;
      }
      cudaEventRecord(e1, s);
      if (cudaError_t e = cudaEventSynchronize(e1); e != cudaSuccess) {
        result = cudaFail(e, "timing the GEMM candidates");
        break;
      }
      float ms = 0.0f;
      if (ok && cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess &&
          (bestMs < 0.0f || ms < bestMs)) {
        bestMs = ms;
        *best = i;
      }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaGetLastError();
    return result;
  };

  CachedAlgo chosen{};
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    auto it = algoCache.find(key);
    if (it != algoCache.end()) {
      chosen = it->second;
      found = true;
    }
  }
  Descs ds;
  if (found) {
    if (te_rt_status s = build(ds, chosen.withBias))
      return s;
  } else {
    // Ask the heuristic, with the bias epilogue first if there is a bias.
    cublasStatus_t lastStatus = CUBLAS_STATUS_SUCCESS;
    for (int attempt = 0; attempt < 2 && !found; ++attempt) {
      bool withBias = mm.bias && attempt == 0;
      if (attempt == 1 && !mm.bias)
        break;
      Descs trial;
      if (te_rt_status s = build(trial, withBias))
        return s;
      const int want = tuneK;
      std::vector<cublasLtMatmulHeuristicResult_t> results(want);
      int returned = 0;
      cublasStatus_t st = cuda::cublasLt().cublasLtMatmulAlgoGetHeuristic(
          lt, trial.op, trial.a, trial.b, trial.c, trial.d, trial.pref, want,
          results.data(), &returned);
      if (st == CUBLAS_STATUS_SUCCESS && returned > 0) {
        int best = 0;
        if (returned > 1) {
          if (te_rt_status s = timeCandidates(trial, results.data(), returned,
                                              ws, wsBytes, stream, &best))
            return s;
        }
        chosen = CachedAlgo{results[best].algo, withBias, returned > 1};
        found = true;
        std::lock_guard<std::mutex> lock(cacheMutex);
        algoCache.emplace(key, chosen);
      } else if (!withBias && st != CUBLAS_STATUS_SUCCESS &&
                 st != CUBLAS_STATUS_NOT_SUPPORTED &&
                 st != CUBLAS_STATUS_INVALID_VALUE) {
        return cublasFail(st, "cublasLtMatmulAlgoGetHeuristic");
      } else {
        lastStatus = st; // a bias epilogue the heuristic refuses: retry
      }
    }
    if (!found) {
      std::ostringstream msg;
      msg << "cuBLASLt has no algorithm for this GEMM (heuristic: "
          << (lastStatus == CUBLAS_STATUS_SUCCESS
                  ? std::string("no result")
                  : cublasStatusText(lastStatus))
          << ") on sm_" << ccMajor << ccMinor << " (m=" << mm.m << " n=" << mm.n
          << " k=" << mm.k << ", A type " << mm.aType << ", B type " << mm.bType
          << ", D type " << mm.dType << ", scale modes " << mm.aScaleMode << "/"
          << mm.bScaleMode
          << "; FP8 needs K % 16 == 0 and 16-byte aligned leading dimensions)";
      return fail(TE_RT_UNSUPPORTED, msg.str());
    }
    if (te_rt_status s = build(ds, chosen.withBias))
      return s;
  }
  const void *alphaP =
      mm.hostScalars ? static_cast<const void *>(&mm.alpha) : mm.alphaBeta;
  const void *betaP =
      mm.hostScalars ? static_cast<const void *>(&mm.beta) : mm.alphaBeta + 1;
  TE_CUBLAS_CHECK(cuda::cublasLt().cublasLtMatmul(
                      lt, ds.op, alphaP, mm.A, ds.a, mm.B, ds.b, betaP, mm.C,
                      ds.c, mm.D, ds.d, &chosen.algo, ws, wsBytes, stream),
                  "cublasLtMatmul");
  TE_CUDA_CHECK(cudaGetLastError(), "cublasLtMatmul launch");
  *biasApplied = chosen.withBias;
  if (info) {
    info->host_pointer_mode = mm.hostScalars ? 1 : 0;
    info->autotuned = chosen.autotuned ? 1 : 0;
    describeAlgo(chosen.algo, info);
  }
  return TE_RT_OK;
}

} // namespace te::rt
