//===- Gemm.cpp - Quantized GEMMs of the cuda backend (cuBLASLt) -*- C++
//-*-===//
//
// Part of te. Internal to libte_rt.
//
//===----------------------------------------------------------------------===//
//
// te_rt_gemm's layouts in row-major terms (te_rt.h): D[M, N] = op(B) op(A),
// A [N, K] (TN) or [K, N] (NN, NT), B [M, K] (TN, NN) or [K, M] (NT). In
// cuBLAS's column-major terms the row-major D[M, N] is an N x M matrix, so
// cuBLAS m = N, n = M, k = K, with A as cuBLAS's A and B as cuBLAS's B
// (cublaslt-fp8-hopper.md §1.1). Hopper FP8 needs TN: both operands
// K-contiguous; the columnwise copies of per-tensor and block FP8 are
// physically transposed, which is what makes every layout a TN call.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "DeviceTemp.h"

#include "AmaxScale.h"
#include "Dequantize.h"
#include "Elementwise.h"
#include "Error.h"

#include "te/Format/Codecs.h"
#include "te/Format/Gemm.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

using namespace te::format;

namespace te::rt {
namespace {

te_rt_status cudaFail(cudaError_t e, const std::string &what) {
  return fail(TE_RT_CUDA_ERROR, what + ": " + cudaErrorText(e));
}

te_rt_status cublasFail(cublasStatus_t s, const std::string &what) {
  return fail(TE_RT_CUBLAS_ERROR, what + ": " + cublasStatusText(s));
}

#define TE_CUDA_CHECK(expr, what)                                              \
  do {                                                                         \
    cudaError_t teErr_ = (expr);                                               \
    if (teErr_ != cudaSuccess)                                                 \
      return cudaFail(teErr_, what);                                           \
  } while (0)

#define TE_CUBLAS_CHECK(expr, what)                                            \
  do {                                                                         \
    cublasStatus_t teSt_ = (expr);                                             \
    if (teSt_ != CUBLAS_STATUS_SUCCESS)                                        \
      return cublasFail(teSt_, what);                                          \
  } while (0)

using cuda::DeviceTemp;

cudaDataType_t cudaTypeOf(DType t) {
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

bool isPerTensor(Recipe r) {
  return r == Recipe::Delayed || r == Recipe::Current;
}

/// TE_RT_GEMM_POINTER_MODE=device: device alpha/beta for every GEMM (as
/// before host mode was used); for before/after comparisons.
bool forceDevicePointerMode() {
  static const bool v = [] {
    const char *e = std::getenv("TE_RT_GEMM_POINTER_MODE");
    return e && std::string(e) == "device";
  }();
  return v;
}

/// TE_RT_GEMM_AUTOTUNE=k (k >= 2): time the heuristic's first k candidates
/// once per problem and keep the fastest. Default 0: the heuristic's first.
/// te_rt_context_set_gemm_autotune overrides it per context.
int autotuneFromEnvironment() {
  static const int v = [] {
    const char *e = std::getenv("TE_RT_GEMM_AUTOTUNE");
    int k = e ? std::atoi(e) : 0;
    return std::max(0, std::min(k, 16));
  }();
  return v;
}

size_t roundUp256(size_t v) { return (v + 255) / 256 * 256; }

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

//===----------------------------------------------------------------------===//
// The emulation's scratch
//===----------------------------------------------------------------------===//

te_rt_status CudaBackend::acquireEmuScratch(size_t bytes, cudaStream_t stream) {
  emuMutex.lock();
  auto failUnlocked = [&](cudaError_t e, const char *what) {
    emuMutex.unlock();
    cudaGetLastError();
    return cudaFail(e, what);
  };
  if (!emuDone) {
    cudaError_t e = cudaEventCreateWithFlags(&emuDone, cudaEventDisableTiming);
    if (e != cudaSuccess) {
      emuDone = nullptr;
      return failUnlocked(e, "cudaEventCreate");
    }
  }
  if (emuScratchBytes < bytes) {
    if (emuScratch) {
      // The previous user may still read it on its stream.
      if (emuDoneRecorded) {
        cudaError_t e = cudaEventSynchronize(emuDone);
        if (e != cudaSuccess)
          return failUnlocked(e, "cudaEventSynchronize");
      }
      cudaFree(emuScratch);
      emuScratch = nullptr;
      emuScratchBytes = 0;
    }
    size_t grown =
        (bytes + (size_t(2) << 20) - 1) / (size_t(2) << 20) * (size_t(2) << 20);
    cudaError_t e = cudaMalloc(&emuScratch, grown);
    if (e != cudaSuccess) {
      emuScratch = nullptr;
      return failUnlocked(e, "allocating the GEMM emulation's scratch");
    }
    emuScratchBytes = grown;
    if (cuda::poisonAllocations()) { // TE_RT_CUDA_POISON (DeviceTemp.h)
      e = cudaMemset(emuScratch, 0xFF, grown);
      if (e != cudaSuccess)
        return failUnlocked(e, "TE_RT_CUDA_POISON of the emulation's scratch");
    }
  } else if (emuDoneRecorded) {
    cudaError_t e = cudaStreamWaitEvent(stream, emuDone, 0);
    if (e != cudaSuccess)
      return failUnlocked(e, "cudaStreamWaitEvent");
  }
  return TE_RT_OK; // still locked: releaseEmuScratch unlocks
}

void CudaBackend::releaseEmuScratch() { emuMutex.unlock(); }

void CudaBackend::setGemmAutotune(int candidates) {
  std::lock_guard<std::mutex> lock(cacheMutex);
  autotuneK = std::max(0, std::min(candidates, 16));
}

//===----------------------------------------------------------------------===//
// One matmul
//===----------------------------------------------------------------------===//

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
    if (autotuneK < 0)
      autotuneK = autotuneFromEnvironment();
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
            mm.hostScalars, mm.C != nullptr, tuneK);

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

//===----------------------------------------------------------------------===//
// te_rt_gemm
//===----------------------------------------------------------------------===//

te_rt_status CudaBackend::quantizeOutput(float *d, int64_t M, int64_t N,
                                         const GemmOptions &o) {
  // The fp32 result [M, N] into the GEMM's quantized output.
  Tensor t;
  t.data = d;
  t.dtype = DType::F32;
  t.shape = {M, N};
  t.m = M;
  t.k = N;
  t.numElements = M * N;
  QuantizeOptions qo = o.outputOptions;
  qo.stream = o.stream;
  return quantize(t, *o.output, qo);
}

te_rt_status CudaBackend::emptyGemm(Tensor *d, const GemmOptions &o,
                                    cudaStream_t stream) {
  // cuBLASLt refuses zero sizes (a dynamic batch of 0). M or N = 0: D has no
  // elements (an output amax is 0). K = 0: the product is 0, so D is the
  // bias, broadcast, plus D itself when accumulating; a quantized output
  // quantizes that.
  const int64_t M = o.m, N = o.n;
  if (M == 0 || N == 0) {
    if (o.output && o.outputOptions.amaxOut)
      TE_CUDA_CHECK(
          cudaMemsetAsync(o.outputOptions.amaxOut, 0, sizeof(float), stream),
          "zeroing amax");
    return TE_RT_OK;
  }
  DeviceTemp t(stream);
  TE_CUDA_CHECK(t.allocate(sizeof(float) * M * N), "cudaMallocAsync");
  float *v = t.as<float>();
  if (o.accumulate && d)
    TE_CUDA_CHECK(cuda::launchToFloat(d->data, d->dtype, M * N, v, stream),
                  "conversion kernel");
  else
    TE_CUDA_CHECK(cudaMemsetAsync(v, 0, sizeof(float) * M * N, stream),
                  "zeroing D");
  if (o.bias)
    TE_CUDA_CHECK(cuda::launchAddBias(v, DType::F32, o.bias->data,
                                      o.bias->dtype, M, N, stream),
                  "bias kernel");
  if (d)
    TE_CUDA_CHECK(cuda::launchFromFloat(v, M * N, d->data, d->dtype, stream),
                  "conversion kernel");
  if (o.output)
    return quantizeOutput(v, M, N, o);
  return TE_RT_OK;
}

te_rt_status CudaBackend::gemm(const QTensor &a, const QTensor &b, Tensor *d,
                               const GemmOptions &o) {
  auto stream = static_cast<cudaStream_t>(o.stream);
  const int64_t M = o.m, N = o.n, K = o.k;
  const GemmLayout layout = static_cast<GemmLayout>(o.layout);
  const bool transa = gemmTransA(layout), transb = gemmTransB(layout);
  const GemmUsages reads = gemmOperandUsages(layout);
  const Usage fromA = reads.a, fromB = reads.b;
  const Recipe recipe = a.config.recipe;
  void *ws = o.workspace ? o.workspace : workspace;
  size_t wsBytes = o.workspace ? o.workspaceBytes : workspaceBytes;
  lastPath = CudaGemmPath::None;
  const bool rowScaled = o.aRowScaleInv != nullptr;
  if (M == 0 || N == 0 || K == 0)
    return emptyGemm(d, o, stream);

  Matmul mm;
  mm.m = N;
  mm.n = M;
  mm.k = K;
  mm.ldc = N;
  mm.alpha = o.alpha;
  mm.beta = o.accumulate ? 1.0f : 0.0f;
  mm.mayAutotune = !o.accumulate;
  bool emulated = false, emulateF32 = false;
  // Which D types the chosen path writes directly.
  bool fp8Path = isPerTensor(recipe) || recipe == Recipe::Block;
  bool nativeBlockScaled = false;
  if (!fp8Path) {
    // MXFP8 / NVFP4: native only on sm_100 with swizzled scales, TN, no row
    // scaling; else exact emulation.
    bool nvRowScaled =
        recipe == Recipe::NVFP4 && (a.config.rowScaled || b.config.rowScaled);
    nativeBlockScaled = ccMajor == 10 && transa && !transb &&
                        a.swizzledScales && b.swizzledScales && !nvRowScaled;
    if (!nativeBlockScaled) {
      emulated = true;
      emulateF32 =
          gemmEmulation(layout, a.config, b.config) == GemmEmulation::F32;
    }
  }

  // A delayed-scaling FP8 output (rowwise only, no D, no bias) is written by
  // cuBLASLt itself: D = scale * (result) rounded to FP8, AMAX_D = amax of
  // the result before scaling; scale_inv = 1 / scale. The FP8 D takes a
  // 16-bit C that is not passed: beta must be a host value known to be 0
  // (not in the device pointer mode forced for comparisons).
  const bool fuseFP8Output =
      !forceDevicePointerMode() && fp8Path && isPerTensor(recipe) &&
      !rowScaled && o.output && !d && !o.bias && !o.accumulate &&
      o.output->config.recipe == Recipe::Delayed &&
      o.output->usage == Rowwise && o.outputOptions.scale &&
      o.output->perTensorData() &&
      o.output->buffer(BufferRole::ScaleInv, Rowwise);

  // D target: the caller's D, or an fp32 temporary when the output is also
  // quantized (the cpu backend quantizes the unrounded fp32 result) or when
  // the path cannot write D's type.
  DType dType = d ? d->dtype : DType::F32;
  bool dDirect = d && !o.output;
  if (dDirect && emulated)
    dDirect = emulateF32 ? dType == DType::F32
                         : (dType == DType::F32 || dType == DType::BF16);
  DeviceTemp dTemp(stream);
  void *dPtr = dDirect ? d->data : nullptr;
  DType dPtrType = dDirect ? dType : DType::F32;
  if (!dDirect && !fuseFP8Output) {
    TE_CUDA_CHECK(dTemp.allocate(sizeof(float) * M * N), "cudaMallocAsync");
    dPtr = dTemp.as<void>();
    if (o.accumulate)
      TE_CUDA_CHECK(cuda::launchToFloat(d->data, d->dtype, M * N,
                                        dTemp.as<float>(), stream),
                    "conversion kernel");
  }
  mm.C = dPtr;
  mm.D = dPtr;
  mm.cType = mm.dType = cudaTypeOf(dPtrType);

  const float *amaxA = nullptr, *amaxB = nullptr;
  float e4A = kE4M3Max, e4B = kE4M3Max;
  // The emulation's scratch: [alpha, beta] | A dequantized | B dequantized.
  bool scratchHeld = false;
  // On an early return: mark the scratch's enqueued writers before letting
  // another GEMM use it.
  struct ScratchRelease {
    CudaBackend *b;
    bool *held;
    cudaStream_t stream;
    ~ScratchRelease() {
      if (!*held)
        return;
      if (cudaEventRecord(b->emuDone, stream) == cudaSuccess)
        b->emuDoneRecorded = true;
      else
        cudaEventSynchronize(b->emuDone);
      cudaGetLastError();
      b->releaseEmuScratch();
    }
  } scratchRelease{this, &scratchHeld, stream};
  size_t scalarsBytes = 256;

  if (isPerTensor(recipe)) {
    // TN on the physical buffers: A [N, K] and B [M, K], K-contiguous.
    auto *aT = static_cast<const uint8_t *>(a.perTensorTranspose());
    auto *bT = static_cast<const uint8_t *>(b.perTensorTranspose());
    const void *aData = a.perTensorData(), *bData = b.perTensorData();
    mm.aType = cudaTypeOf(a.config.dtype);
    mm.bType = cudaTypeOf(b.config.dtype);
    if (fromA == Rowwise || aT) {
      mm.A = fromA == Rowwise ? aData : aT;
      mm.opA = CUBLAS_OP_T;
      mm.lda = K;
    } else { // sm_100 layout: columnwise reads _data [K, N]
      mm.A = aData;
      mm.opA = CUBLAS_OP_N;
      mm.lda = N;
    }
    if (fromB == Rowwise || bT) {
      mm.B = fromB == Rowwise ? bData : bT;
      mm.opB = CUBLAS_OP_N;
      mm.ldb = K;
    } else { // sm_100 layout: _data [K, M]
      mm.B = bData;
      mm.opB = CUBLAS_OP_T;
      mm.ldb = M;
    }
    if (rowScaled) {
      // OUTER_VEC_32F: one scale per cuBLAS row of A (our n) and per
      // column of B (our m).
      mm.aScale = o.aRowScaleInv;
      mm.bScale = o.bRowScaleInv;
      mm.aScaleMode = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
      mm.bScaleMode = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
    } else {
      mm.aScale = a.buffer(BufferRole::ScaleInv, Rowwise);
      mm.bScale = b.buffer(BufferRole::ScaleInv, Rowwise);
    }
    mm.fastAccum = !o.useSplitAccumulator;
    lastPath = CudaGemmPath::NativeFP8;
  } else if (recipe == Recipe::Block) {
    const Usage aCopy = fromA == Rowwise ? Rowwise : Columnwise;
    const Usage bCopy = fromB == Rowwise ? Rowwise : Columnwise;
    mm.aType = cudaTypeOf(a.config.dtype);
    mm.bType = cudaTypeOf(b.config.dtype);
    mm.A = a.buffer(BufferRole::Data, aCopy);
    mm.B = b.buffer(BufferRole::Data, bCopy);
    mm.opA = CUBLAS_OP_T;
    mm.opB = CUBLAS_OP_N;
    mm.lda = K;
    mm.ldb = K;
    mm.aScale = a.buffer(BufferRole::ScaleInv, aCopy);
    mm.bScale = b.buffer(BufferRole::ScaleInv, bCopy);
    mm.aScaleMode = a.config.blockDim == 1
                        ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F
                        : CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    mm.bScaleMode = b.config.blockDim == 1
                        ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F
                        : CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    mm.fastAccum = false; // block scaling requires split accumulation
    lastPath = CudaGemmPath::NativeFP8;
  } else if (nativeBlockScaled) {
    // sm_100: VEC32_UE8M0 (MXFP8) / VEC16_UE4M3 (NVFP4), TN on the rowwise
    // data, GEMM-swizzled scales. Not runnable on sm_90.
    mm.aType = cudaTypeOf(a.config.dtype);
    mm.bType = cudaTypeOf(b.config.dtype);
    mm.A = a.buffer(BufferRole::Data, Rowwise);
    mm.B = b.buffer(BufferRole::Data, Rowwise);
    mm.opA = CUBLAS_OP_T;
    mm.opB = CUBLAS_OP_N;
    mm.lda = K;
    mm.ldb = K;
    mm.aScale = a.buffer(BufferRole::ScaleInv, Rowwise);
    mm.bScale = b.buffer(BufferRole::ScaleInv, Rowwise);
    int mode = recipe == Recipe::MXFP8
                   ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0
                   : CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
    mm.aScaleMode = mode;
    mm.bScaleMode = mode;
    if (recipe == Recipe::NVFP4) {
      amaxA = static_cast<const float *>(a.buffer(BufferRole::Amax, Rowwise));
      amaxB = static_cast<const float *>(b.buffer(BufferRole::Amax, Rowwise));
      e4A = a.config.use4over6 ? a.config.e4m3Max : kE4M3Max;
      e4B = b.config.use4over6 ? b.config.e4m3Max : kE4M3Max;
    }
    lastPath = CudaGemmPath::NativeBlockScaled;
  } else {
    // Exact emulation: dequantize both operands and run a bf16 (or fp32)
    // GEMM. The bf16 path dequantizes each operand in its stored
    // orientation with one vectorized launch (Dequantize.h) and adapts
    // the transpose flags; the general kernel (logical layout) is the
    // fallback and the fp32 path.
    DType deqType = emulateF32 ? DType::F32 : DType::BF16;
    size_t elem = emulateF32 ? 4 : 2;
    bool blockOnly = recipe == Recipe::NVFP4 && !emulateF32;
    // Operands dequantized by an earlier te_rt_mlir_gemm_operand (bf16
    // emulation only: the front end refuses them otherwise) need no scratch.
    const void *aGiven = emulateF32 ? nullptr : o.aEmulated;
    const void *bGiven = emulateF32 ? nullptr : o.bEmulated;
    size_t aBytes = aGiven ? 0 : roundUp256(elem * a.m * a.k);
    size_t bBytes = bGiven ? 0 : roundUp256(elem * b.m * b.k);
    if (te_rt_status s =
            acquireEmuScratch(scalarsBytes + aBytes + bBytes, stream))
      return s;
    scratchHeld = true;
    auto *base = static_cast<uint8_t *>(emuScratch);
    void *aDeq = aGiven ? const_cast<void *>(aGiven) : base + scalarsBytes;
    void *bDeq =
        bGiven ? const_cast<void *>(bGiven) : base + scalarsBytes + aBytes;
    // Dequantizes one operand (or only finds the orientation of one given);
    // *storedTransposed: the buffer holds the transpose of the logical
    // operand (NVFP4 columnwise).
    auto deq = [&](const QTensor &q, Usage from, void *out, bool given,
                   bool *storedTransposed) -> te_rt_status {
      if (!emulateF32)
        return bf16EmulationOperand(q, from, out, /*write=*/!given, stream,
                                    storedTransposed);
      *storedTransposed = false;
      return dequantizeInto(q, from, out, deqType, /*inverseRHT=*/true,
                            blockOnly, stream);
    };
    bool aTr = false, bTr = false;
    if (te_rt_status s = deq(a, fromA, aDeq, aGiven != nullptr, &aTr))
      return s;
    if (te_rt_status s = deq(b, fromB, bDeq, bGiven != nullptr, &bTr))
      return s;
    if (blockOnly) {
      amaxA = static_cast<const float *>(a.buffer(
          BufferRole::Amax, fromA == Columnwise ? Columnwise : Rowwise));
      amaxB = static_cast<const float *>(b.buffer(
          BufferRole::Amax, fromB == Columnwise ? Columnwise : Rowwise));
      e4A = a.config.use4over6 ? a.config.e4m3Max : kE4M3Max;
      e4B = b.config.use4over6 ? b.config.e4m3Max : kE4M3Max;
    }
    mm.aType = mm.bType = cudaTypeOf(deqType);
    mm.A = aDeq;
    mm.B = bDeq;
    // cuBLAS needs op(A) = N x K and op(B) = K x M (column-major). A buffer
    // that is row-major [K, N] is N x K column-major (no transpose).
    const bool aKN = (!transa) != aTr;
    const bool bKM = transb != bTr;
    mm.opA = aKN ? CUBLAS_OP_N : CUBLAS_OP_T;
    mm.lda = aKN ? N : K;
    mm.opB = bKM ? CUBLAS_OP_T : CUBLAS_OP_N;
    mm.ldb = bKM ? M : K;
    lastPath =
        emulateF32 ? CudaGemmPath::EmulatedF32 : CudaGemmPath::EmulatedBF16;
  }

  // alpha / beta: host values unless a global NVFP4 scale (device amax)
  // enters alpha.
  mm.hostScalars = !amaxA && !amaxB && !forceDevicePointerMode();
  DeviceTemp scalarsTemp(stream);
  if (!mm.hostScalars) {
    float *ab = nullptr;
    if (scratchHeld) {
      ab = static_cast<float *>(emuScratch);
    } else {
      TE_CUDA_CHECK(scalarsTemp.allocate(2 * sizeof(float)), "cudaMallocAsync");
      ab = scalarsTemp.as<float>();
    }
    TE_CUDA_CHECK(cuda::launchGemmScalars(o.alpha, mm.beta, amaxA, e4A, amaxB,
                                          e4B, ab, stream),
                  "GEMM scalar kernel");
    mm.alphaBeta = ab;
  }
  if (o.bias) {
    mm.bias = o.bias->data;
    mm.biasType = cudaTypeOf(o.bias->dtype);
  }
  te_rt_gemm_info *info = o.info;
  auto setPath = [&]() {
    if (!info)
      return;
    switch (lastPath) {
    case CudaGemmPath::NativeFP8:
      info->path = TE_RT_GEMM_PATH_NATIVE_FP8;
      break;
    case CudaGemmPath::NativeBlockScaled:
      info->path = TE_RT_GEMM_PATH_NATIVE_BLOCK_SCALED;
      break;
    case CudaGemmPath::EmulatedBF16:
      info->path = TE_RT_GEMM_PATH_EMULATED_BF16;
      break;
    case CudaGemmPath::EmulatedF32:
      info->path = TE_RT_GEMM_PATH_EMULATED_F32;
      break;
    case CudaGemmPath::None:
      info->path = TE_RT_GEMM_PATH_NONE;
      break;
    }
  };

  if (fuseFP8Output) {
    Matmul f = mm;
    QTensor &out = *o.output;
    f.D = out.perTensorData();
    f.dType = cudaTypeOf(out.config.dtype);
    f.C = nullptr; // beta = 0: C is not read; its type must be 16-bit
    f.cType = CUDA_R_16BF;
    f.dScale = o.outputOptions.scale;
    f.amaxD = o.outputOptions.amaxOut;
    if (f.amaxD)
      TE_CUDA_CHECK(cudaMemsetAsync(f.amaxD, 0, sizeof(float), stream),
                    "zeroing amax");
    bool biasApplied = false;
    te_rt_status s = runMatmul(f, ws, wsBytes, stream, &biasApplied, info);
    if (s == TE_RT_OK) {
      TE_CUDA_CHECK(cuda::launchReciprocal(o.outputOptions.scale,
                                           static_cast<float *>(out.buffer(
                                               BufferRole::ScaleInv, Rowwise)),
                                           stream),
                    "reciprocal kernel");
      setPath();
      if (info)
        info->fused_fp8_output = 1;
      return TE_RT_OK;
    }
    if (s != TE_RT_UNSUPPORTED)
      return s;
    // cuBLASLt cannot write this FP8 output: quantize an fp32 result.
    TE_CUDA_CHECK(dTemp.allocate(sizeof(float) * M * N), "cudaMallocAsync");
    dPtr = dTemp.as<void>();
    mm.C = mm.D = dPtr;
    mm.cType = mm.dType = CUDA_R_32F;
  }

  bool biasApplied = false;
  if (te_rt_status s = runMatmul(mm, ws, wsBytes, stream, &biasApplied, info))
    return s;
  if (scratchHeld) {
    // The scratch's last reader has been enqueued.
    TE_CUDA_CHECK(cudaEventRecord(emuDone, stream), "cudaEventRecord");
    emuDoneRecorded = true;
    scratchHeld = false;
    releaseEmuScratch();
  }
  setPath();
  if (o.bias && !biasApplied)
    TE_CUDA_CHECK(cuda::launchAddBias(dPtr, dPtrType, o.bias->data,
                                      o.bias->dtype, M, N, stream),
                  "bias kernel");
  if (!dDirect) {
    if (d)
      TE_CUDA_CHECK(cuda::launchFromFloat(static_cast<float *>(dPtr), M * N,
                                          d->data, d->dtype, stream),
                    "conversion kernel");
    if (o.output)
      return quantizeOutput(static_cast<float *>(dPtr), M, N, o);
  }
  return TE_RT_OK;
}

te_rt_status CudaBackend::matmul(const DenseMatmul &d) {
  if (d.batch == 0 || d.m == 0 || d.n == 0)
    return TE_RT_OK;
  auto stream = static_cast<cudaStream_t>(d.stream);
  if (d.k == 0) {
    // An empty sum: C unchanged, or 0 without accumulate.
    if (!d.accumulate) {
      const int64_t ec = format::dtypeBytes(d.cType);
      for (int64_t i = 0; i < d.batch; ++i)
        TE_CUDA_CHECK(cudaMemset2DAsync(static_cast<uint8_t *>(d.c) +
                                            i * d.batchStrideC * ec,
                                        d.ldc * ec, 0, d.n * ec, d.m, stream),
                      "cudaMemset2DAsync");
    }
    return TE_RT_OK;
  }
  // Row-major C [M, N] is column-major C^T [N, M] = op(B)^T · op(A)^T: B's
  // buffer is cuBLAS's A (N x K after its op), A's buffer cuBLAS's B.
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
  const int64_t ea = format::dtypeBytes(d.aType),
                eb = format::dtypeBytes(d.bType),
                ec = format::dtypeBytes(d.cType);
  for (int64_t i = 0; i < d.batch; ++i) {
    mm.A = static_cast<const uint8_t *>(d.b) + i * d.batchStrideB * eb;
    mm.B = static_cast<const uint8_t *>(d.a) + i * d.batchStrideA * ea;
    mm.C = mm.D = static_cast<uint8_t *>(d.c) + i * d.batchStrideC * ec;
    bool biasApplied = false;
    if (te_rt_status s =
            runMatmul(mm, workspace, workspaceBytes, stream, &biasApplied))
      return s;
  }
  return TE_RT_OK;
}

} // namespace te::rt
