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

#include "Error.h"
#include "Kernels.h"

#include "te/Format/Codecs.h"

#include <sstream>

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

class DeviceTemp {
public:
  DeviceTemp(cudaStream_t s) : stream(s) {}
  ~DeviceTemp() {
    if (ptr)
      cudaFreeAsync(ptr, stream);
  }
  cudaError_t allocate(size_t bytes) {
    return cudaMallocAsync(&ptr, bytes ? bytes : 1, stream);
  }
  template <typename T> T *as() const { return static_cast<T *>(ptr); }

private:
  cudaStream_t stream;
  void *ptr = nullptr;
};

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
      cublasLtMatmulPreferenceDestroy(pref);
    if (d)
      cublasLtMatrixLayoutDestroy(d);
    if (c)
      cublasLtMatrixLayoutDestroy(c);
    if (b)
      cublasLtMatrixLayoutDestroy(b);
    if (a)
      cublasLtMatrixLayoutDestroy(a);
    if (op)
      cublasLtMatmulDescDestroy(op);
  }
};

bool isPerTensor(Recipe r) {
  return r == Recipe::Delayed || r == Recipe::Current;
}

} // namespace

//===----------------------------------------------------------------------===//
// One matmul
//===----------------------------------------------------------------------===//

te_rt_status CudaBackend::runMatmul(const Matmul &mm, void *ws, size_t wsBytes,
                                    cudaStream_t stream, bool *biasApplied) {
  *biasApplied = false;
  std::ostringstream key;
  key << mm.aType << ',' << mm.bType << ',' << mm.cType << ',' << mm.dType
      << ',' << mm.opA << mm.opB << ',' << mm.m << ',' << mm.n << ',' << mm.k
      << ',' << mm.lda << ',' << mm.ldb << ',' << mm.ldc << ',' << mm.aScaleMode
      << ',' << mm.bScaleMode << ',' << (mm.dScale != nullptr) << ','
      << (mm.amaxD != nullptr) << ',' << mm.fastAccum << ','
      << (mm.bias ? static_cast<int>(mm.biasType) : -1) << ','
      << alignmentOf(mm.A) << ',' << alignmentOf(mm.B) << ','
      << alignmentOf(mm.C) << ',' << alignmentOf(mm.D) << ',' << wsBytes;

  auto build = [&](Descs &ds, bool withBias) -> te_rt_status {
    TE_CUBLAS_CHECK(
        cublasLtMatmulDescCreate(&ds.op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
        "cublasLtMatmulDescCreate");
    auto set = [&](cublasLtMatmulDescAttributes_t attr, const void *v,
                   size_t n) {
      return cublasLtMatmulDescSetAttribute(ds.op, attr, v, n);
    };
    int32_t opA = mm.opA, opB = mm.opB;
    TE_CUBLAS_CHECK(set(CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof(opA)),
                    "setting TRANSA");
    TE_CUBLAS_CHECK(set(CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof(opB)),
                    "setting TRANSB");
    int32_t pm = CUBLASLT_POINTER_MODE_DEVICE;
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
    TE_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&ds.a, mm.aType,
                                               aT ? mm.k : mm.m,
                                               aT ? mm.m : mm.k, mm.lda),
                    "creating A's layout");
    TE_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&ds.b, mm.bType,
                                               bT ? mm.n : mm.k,
                                               bT ? mm.k : mm.n, mm.ldb),
                    "creating B's layout");
    TE_CUBLAS_CHECK(
        cublasLtMatrixLayoutCreate(&ds.c, mm.cType, mm.m, mm.n, mm.ldc),
        "creating C's layout");
    TE_CUBLAS_CHECK(
        cublasLtMatrixLayoutCreate(&ds.d, mm.dType, mm.m, mm.n, mm.ldc),
        "creating D's layout");
    TE_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&ds.pref),
                    "cublasLtMatmulPreferenceCreate");
    uint64_t wsb = wsBytes;
    TE_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
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
      TE_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
                          ds.pref, alignAttrs[i], &al, sizeof(al)),
                      "setting an alignment preference");
    }
    return TE_RT_OK;
  };

  CachedAlgo chosen{};
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    auto it = algoCache.find(key.str());
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
      cublasLtMatmulHeuristicResult_t result{};
      int returned = 0;
      cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(
          lt, trial.op, trial.a, trial.b, trial.c, trial.d, trial.pref, 1,
          &result, &returned);
      if (st == CUBLAS_STATUS_SUCCESS && returned > 0) {
        chosen = CachedAlgo{result.algo, withBias};
        found = true;
        std::lock_guard<std::mutex> lock(cacheMutex);
        algoCache.emplace(key.str(), chosen);
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
  TE_CUBLAS_CHECK(cublasLtMatmul(lt, ds.op, mm.alphaBeta, mm.A, ds.a, mm.B,
                                 ds.b, mm.alphaBeta + 1, mm.C, ds.c, mm.D, ds.d,
                                 &chosen.algo, ws, wsBytes, stream),
                  "cublasLtMatmul");
  TE_CUDA_CHECK(cudaGetLastError(), "cublasLtMatmul launch");
  *biasApplied = chosen.withBias;
  return TE_RT_OK;
}

//===----------------------------------------------------------------------===//
// te_rt_gemm
//===----------------------------------------------------------------------===//

te_rt_status CudaBackend::gemm(const QTensor &a, const QTensor &b, Tensor *d,
                               const GemmOptions &o) {
  auto stream = static_cast<cudaStream_t>(o.stream);
  const int64_t M = o.m, N = o.n, K = o.k;
  const bool transa = o.layout == TE_RT_GEMM_TN;
  const bool transb = o.layout == TE_RT_GEMM_NT;
  const Usage fromA = transa ? Rowwise : Columnwise;
  const Usage fromB = transb ? Columnwise : Rowwise;
  const Recipe recipe = a.config.recipe;
  void *ws = o.workspace ? o.workspace : workspace;
  size_t wsBytes = o.workspace ? o.workspaceBytes : workspaceBytes;
  lastPath = CudaGemmPath::None;

  Matmul mm;
  mm.m = N;
  mm.n = M;
  mm.k = K;
  mm.ldc = N;
  bool emulated = false, emulateF32 = false;
  // Which D types the chosen path writes directly.
  bool fp8Path = isPerTensor(recipe) || recipe == Recipe::Block;
  bool nativeBlockScaled = false;
  if (!fp8Path) {
    // MXFP8 / NVFP4: native only on sm_100 with swizzled scales, TN, no row
    // scaling; else exact emulation.
    bool rowScaled =
        recipe == Recipe::NVFP4 && (a.config.rowScaled || b.config.rowScaled);
    nativeBlockScaled = ccMajor == 10 && transa && !transb &&
                        a.swizzledScales && b.swizzledScales && !rowScaled;
    if (!nativeBlockScaled) {
      emulated = true;
      bool aRHT = fromA == Columnwise && a.config.rht;
      bool bRHT = fromB == Columnwise && b.config.rht;
      bool rhtCancels = aRHT && bRHT && transb && !transa &&
                        a.config.rhtSignMask == b.config.rhtSignMask;
      emulateF32 = rowScaled || ((aRHT || bRHT) && !rhtCancels);
    }
  }

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
  if (!dDirect) {
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

  DeviceTemp scalars(stream);
  TE_CUDA_CHECK(scalars.allocate(2 * sizeof(float)), "cudaMallocAsync");
  mm.alphaBeta = scalars.as<float>();
  const float *amaxA = nullptr, *amaxB = nullptr;
  float e4A = kE4M3Max, e4B = kE4M3Max;
  DeviceTemp aDeq(stream), bDeq(stream);

  if (isPerTensor(recipe)) {
    // TN on the physical buffers: A [N, K] and B [M, K], K-contiguous.
    auto *aT = static_cast<const uint8_t *>(a.buffer("_transpose"));
    auto *bT = static_cast<const uint8_t *>(b.buffer("_transpose"));
    const void *aData = a.buffer("_data"), *bData = b.buffer("_data");
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
    mm.aScale = a.buffer("_scale_inv");
    mm.bScale = b.buffer("_scale_inv");
    mm.fastAccum = !o.useSplitAccumulator;
    lastPath = CudaGemmPath::NativeFP8;
  } else if (recipe == Recipe::Block) {
    const char *aD = fromA == Rowwise ? "_rowwise_data" : "_columnwise_data";
    const char *aS =
        fromA == Rowwise ? "_rowwise_scale_inv" : "_columnwise_scale_inv";
    const char *bD = fromB == Rowwise ? "_rowwise_data" : "_columnwise_data";
    const char *bS =
        fromB == Rowwise ? "_rowwise_scale_inv" : "_columnwise_scale_inv";
    mm.aType = cudaTypeOf(a.config.dtype);
    mm.bType = cudaTypeOf(b.config.dtype);
    mm.A = a.buffer(aD);
    mm.B = b.buffer(bD);
    mm.opA = CUBLAS_OP_T;
    mm.opB = CUBLAS_OP_N;
    mm.lda = K;
    mm.ldb = K;
    mm.aScale = a.buffer(aS);
    mm.bScale = b.buffer(bS);
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
    mm.A = a.buffer("_rowwise_data");
    mm.B = b.buffer("_rowwise_data");
    mm.opA = CUBLAS_OP_T;
    mm.opB = CUBLAS_OP_N;
    mm.lda = K;
    mm.ldb = K;
    mm.aScale = a.buffer("_rowwise_scale_inv");
    mm.bScale = b.buffer("_rowwise_scale_inv");
    int mode = recipe == Recipe::MXFP8
                   ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0
                   : CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
    mm.aScaleMode = mode;
    mm.bScaleMode = mode;
    if (recipe == Recipe::NVFP4) {
      amaxA = static_cast<const float *>(a.buffer("_amax_rowwise"));
      amaxB = static_cast<const float *>(b.buffer("_amax_rowwise"));
      e4A = a.config.use4over6 ? a.config.e4m3Max : kE4M3Max;
      e4B = b.config.use4over6 ? b.config.e4m3Max : kE4M3Max;
    }
    lastPath = CudaGemmPath::NativeBlockScaled;
  } else {
    // Exact emulation: dequantize both operands (logical row-major layout)
    // and run a bf16 (or fp32) GEMM with the layout's transposes.
    DType deqType = emulateF32 ? DType::F32 : DType::BF16;
    size_t elem = emulateF32 ? 4 : 2;
    bool blockOnly = recipe == Recipe::NVFP4 && !emulateF32;
    TE_CUDA_CHECK(aDeq.allocate(elem * a.m * a.k), "cudaMallocAsync");
    TE_CUDA_CHECK(bDeq.allocate(elem * b.m * b.k), "cudaMallocAsync");
    if (te_rt_status s =
            dequantizeInto(a, fromA, aDeq.as<void>(), deqType,
                           /*inverseRHT=*/emulateF32, blockOnly, stream))
      return s;
    if (te_rt_status s =
            dequantizeInto(b, fromB, bDeq.as<void>(), deqType,
                           /*inverseRHT=*/emulateF32, blockOnly, stream))
      return s;
    if (blockOnly) {
      amaxA = static_cast<const float *>(
          a.buffer(fromA == Columnwise ? "_amax_columnwise" : "_amax_rowwise"));
      amaxB = static_cast<const float *>(
          b.buffer(fromB == Columnwise ? "_amax_columnwise" : "_amax_rowwise"));
      e4A = a.config.use4over6 ? a.config.e4m3Max : kE4M3Max;
      e4B = b.config.use4over6 ? b.config.e4m3Max : kE4M3Max;
    }
    mm.aType = mm.bType = cudaTypeOf(deqType);
    mm.A = aDeq.as<void>();
    mm.B = bDeq.as<void>();
    mm.opA = transa ? CUBLAS_OP_T : CUBLAS_OP_N;
    mm.lda = transa ? K : N;
    mm.opB = transb ? CUBLAS_OP_T : CUBLAS_OP_N;
    mm.ldb = transb ? M : K;
    lastPath =
        emulateF32 ? CudaGemmPath::EmulatedF32 : CudaGemmPath::EmulatedBF16;
  }

  TE_CUDA_CHECK(cuda::launchGemmScalars(o.alpha, o.accumulate ? 1.0f : 0.0f,
                                        amaxA, e4A, amaxB, e4B,
                                        scalars.as<float>(), stream),
                "GEMM scalar kernel");
  if (o.bias) {
    mm.bias = o.bias->data;
    mm.biasType = cudaTypeOf(o.bias->dtype);
  }
  bool biasApplied = false;
  if (te_rt_status s = runMatmul(mm, ws, wsBytes, stream, &biasApplied))
    return s;
  if (o.bias && !biasApplied)
    TE_CUDA_CHECK(cuda::launchAddBias(dPtr, dPtrType, o.bias->data,
                                      o.bias->dtype, M, N, stream),
                  "bias kernel");
  if (!dDirect) {
    if (d)
      TE_CUDA_CHECK(cuda::launchFromFloat(dTemp.as<float>(), M * N, d->data,
                                          d->dtype, stream),
                    "conversion kernel");
    if (o.output) {
      Tensor t;
      t.data = dTemp.as<void>();
      t.dtype = DType::F32;
      t.shape = {M, N};
      t.m = M;
      t.k = N;
      t.numElements = M * N;
      QuantizeOptions qo = o.outputOptions;
      qo.stream = o.stream;
      return quantize(t, *o.output, qo);
    }
  }
  return TE_RT_OK;
}

} // namespace te::rt
