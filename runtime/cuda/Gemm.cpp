//===- Gemm.cpp - Quantized GEMMs of the cuda backend (cuBLASLt) ---------===//
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

#include "GemmCommon.h"

#include "AmaxScale.h"
#include "Dequantize.h"
#include "DeviceTemp.h"
#include "Elementwise.h"

#include "te/Format/Codecs.h"
#include "te/Format/Gemm.h"

#include <algorithm>

using namespace te::format;

namespace te::rt {
namespace {

using cuda::DeviceTemp;
using gemm_detail::cudaFail;
using gemm_detail::cudaTypeOf;

bool isPerTensor(Recipe r) { return recipeTraits(r).perTensor; }

size_t roundUp256(size_t v) { return (v + 255) / 256 * 256; }

/// The device [alpha, beta] at the start of the emulation's scratch.
constexpr size_t kGemmScalarsBytes = 256;

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

//===----------------------------------------------------------------------===//
// The paths
//===----------------------------------------------------------------------===//

CudaGemmPath CudaBackend::chooseGemmPath(const QTensor &a, const QTensor &b,
                                         const GemmOptions &o) const {
  const Recipe recipe = a.config.recipe;
  if (!recipeTraits(recipe).emulatedOnSM90)
    return CudaGemmPath::NativeFP8;
  // MXFP8 / NVFP4: native only on sm_100 with swizzled scales, TN, no row
  // scaling; else exact emulation.
  const GemmLayout layout = static_cast<GemmLayout>(o.layout);
  const bool nvRowScaled = a.config.rowScaled || b.config.rowScaled;
  if (ccMajor == 10 && gemmTransA(layout) && !gemmTransB(layout) &&
      a.swizzledScales && b.swizzledScales && !nvRowScaled)
    return CudaGemmPath::NativeBlockScaled;
  return gemmEmulation(layout, a.config, b.config) == GemmEmulation::F32
             ? CudaGemmPath::EmulatedF32
             : CudaGemmPath::EmulatedBF16;
}

void CudaBackend::nativeFP8Operands(const QTensor &a, const QTensor &b,
                                    const GemmOptions &o, Matmul &mm) const {
  const int64_t M = o.m, N = o.n, K = o.k;
  const GemmUsages reads = gemmOperandUsages(static_cast<GemmLayout>(o.layout));
  const Usage fromA = reads.a, fromB = reads.b;
  if (isPerTensor(a.config.recipe)) {
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
    if (o.aRowScaleInv) {
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
    return;
  }
  // Float8Block.
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
}

void CudaBackend::nativeBlockScaledOperands(const QTensor &a, const QTensor &b,
                                            const GemmOptions &o, Matmul &mm,
                                            GemmGlobalScales &g) const {
  // sm_100: VEC32_UE8M0 (MXFP8) / VEC16_UE4M3 (NVFP4), TN on the rowwise
  // data, GEMM-swizzled scales. Not runnable on sm_90.
  const Recipe recipe = a.config.recipe;
  mm.aType = cudaTypeOf(a.config.dtype);
  mm.bType = cudaTypeOf(b.config.dtype);
  mm.A = a.buffer(BufferRole::Data, Rowwise);
  mm.B = b.buffer(BufferRole::Data, Rowwise);
  mm.opA = CUBLAS_OP_T;
  mm.opB = CUBLAS_OP_N;
  mm.lda = o.k;
  mm.ldb = o.k;
  mm.aScale = a.buffer(BufferRole::ScaleInv, Rowwise);
  mm.bScale = b.buffer(BufferRole::ScaleInv, Rowwise);
  int mode = recipe == Recipe::MXFP8 ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0
                                     : CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
  mm.aScaleMode = mode;
  mm.bScaleMode = mode;
  if (recipe == Recipe::NVFP4) {
    g.amaxA = static_cast<const float *>(a.buffer(BufferRole::Amax, Rowwise));
    g.amaxB = static_cast<const float *>(b.buffer(BufferRole::Amax, Rowwise));
    g.e4A = a.config.use4over6 ? a.config.e4m3Max : kE4M3Max;
    g.e4B = b.config.use4over6 ? b.config.e4m3Max : kE4M3Max;
  }
}

te_rt_status CudaBackend::emulatedOperands(const QTensor &a, const QTensor &b,
                                           const GemmOptions &o,
                                           bool emulateF32, cudaStream_t stream,
                                           Matmul &mm, GemmGlobalScales &g,
                                           bool *scratchHeld) {
  // Exact emulation: dequantize both operands and run a bf16 (or fp32)
  // GEMM. The bf16 path dequantizes each operand in its stored orientation
  // with one vectorized launch (Dequantize.h) and adapts the transpose
  // flags; the general kernel (logical layout) is the fallback and the fp32
  // path. The scratch: [alpha, beta] | A dequantized | B dequantized.
  const int64_t M = o.m, N = o.n, K = o.k;
  const GemmLayout layout = static_cast<GemmLayout>(o.layout);
  const bool transa = gemmTransA(layout), transb = gemmTransB(layout);
  const GemmUsages reads = gemmOperandUsages(layout);
  const Usage fromA = reads.a, fromB = reads.b;
  const Recipe recipe = a.config.recipe;
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
          acquireEmuScratch(kGemmScalarsBytes + aBytes + bBytes, stream))
    return s;
  *scratchHeld = true;
  auto *base = static_cast<uint8_t *>(emuScratch);
  void *aDeq = aGiven ? const_cast<void *>(aGiven) : base + kGemmScalarsBytes;
  void *bDeq =
      bGiven ? const_cast<void *>(bGiven) : base + kGemmScalarsBytes + aBytes;
  // Dequantizes one operand (or only finds the orientation of one given);
  // *storedTransposed: the buffer holds the transpose of the logical
  // operand (NVFP4 columnwise).
  auto deq = [&](const QTensor &q, Usage from, void *out, bool given,
                 bool *storedTransposed) -> te_rt_status {
    if (!emulateF32)
      return bf16EmulationOperand(q, from, out, /*write=*/!given, stream,
                                  storedTransposed);
    *storedTransposed = false;
    return dequantizeInto(q, from, out, deqType, /*inverseRHT=*/true, blockOnly,
                          stream);
  };
  bool aTr = false, bTr = false;
  if (te_rt_status s = deq(a, fromA, aDeq, aGiven != nullptr, &aTr))
    return s;
  if (te_rt_status s = deq(b, fromB, bDeq, bGiven != nullptr, &bTr))
    return s;
  if (blockOnly) {
    g.amaxA = static_cast<const float *>(
        a.buffer(BufferRole::Amax, fromA == Columnwise ? Columnwise : Rowwise));
    g.amaxB = static_cast<const float *>(
        b.buffer(BufferRole::Amax, fromB == Columnwise ? Columnwise : Rowwise));
    g.e4A = a.config.use4over6 ? a.config.e4m3Max : kE4M3Max;
    g.e4B = b.config.use4over6 ? b.config.e4m3Max : kE4M3Max;
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
  return TE_RT_OK;
}

//===----------------------------------------------------------------------===//
// te_rt_gemm
//===----------------------------------------------------------------------===//

te_rt_status CudaBackend::gemm(const QTensor &a, const QTensor &b, Tensor *d,
                               const GemmOptions &o) {
  cuda::FastKernelsScope fastScope(fastKernels);
  auto stream = static_cast<cudaStream_t>(o.stream);
  const int64_t M = o.m, N = o.n, K = o.k;
  const Recipe recipe = a.config.recipe;
  void *ws = o.workspace ? o.workspace : workspace;
  size_t wsBytes = o.workspace ? o.workspaceBytes : workspaceBytes;
  lastPath = CudaGemmPath::None;
  if (M == 0 || N == 0 || K == 0)
    return emptyGemm(d, o, stream);

  const CudaGemmPath path = chooseGemmPath(a, b, o);
  const bool emulated =
      path == CudaGemmPath::EmulatedBF16 || path == CudaGemmPath::EmulatedF32;
  Matmul mm;
  mm.m = N;
  mm.n = M;
  mm.k = K;
  mm.ldc = N;
  mm.alpha = o.alpha;
  mm.beta = o.accumulate ? 1.0f : 0.0f;
  mm.mayAutotune = !o.accumulate;

  // A delayed-scaling FP8 output (rowwise only, no D, no bias) is written by
  // cuBLASLt itself: D = scale * (result) rounded to FP8, AMAX_D = amax of
  // the result before scaling; scale_inv = 1 / scale. The FP8 D takes a
  // 16-bit C that is not passed: beta must be a host value known to be 0.
  const bool fuseFP8Output =
      path == CudaGemmPath::NativeFP8 && isPerTensor(recipe) &&
      !o.aRowScaleInv && o.output && !d && !o.bias && !o.accumulate &&
      recipeTraits(o.output->config.recipe).liveScale &&
      o.output->usage == Rowwise && o.outputOptions.scale &&
      o.output->perTensorData() &&
      o.output->buffer(BufferRole::ScaleInv, Rowwise);

  // D target: the caller's D, or an fp32 temporary when the output is also
  // quantized (the cpu backend quantizes the unrounded fp32 result) or when
  // the path cannot write D's type.
  DType dType = d ? d->dtype : DType::F32;
  bool dDirect = d && !o.output;
  if (dDirect && emulated)
    dDirect = path == CudaGemmPath::EmulatedF32
                  ? dType == DType::F32
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

  // The emulation's scratch, held from its first write until its last
  // reader is enqueued. On an early return: mark the enqueued writers
  // before letting another GEMM use it.
  bool scratchHeld = false;
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

  // The path's executor: its operands, scale modes and global scales.
  GemmGlobalScales g;
  switch (path) {
  case CudaGemmPath::NativeFP8:
    nativeFP8Operands(a, b, o, mm);
    break;
  case CudaGemmPath::NativeBlockScaled:
    nativeBlockScaledOperands(a, b, o, mm, g);
    break;
  case CudaGemmPath::EmulatedBF16:
  case CudaGemmPath::EmulatedF32:
    if (te_rt_status s =
            emulatedOperands(a, b, o, path == CudaGemmPath::EmulatedF32, stream,
                             mm, g, &scratchHeld))
      return s;
    break;
  case CudaGemmPath::None:
    break;
  }
  lastPath = path;

  // alpha / beta: host values unless a global NVFP4 scale (device amax)
  // enters alpha.
  mm.hostScalars = !g.amaxA && !g.amaxB;
  DeviceTemp scalarsTemp(stream);
  if (!mm.hostScalars) {
    float *ab = nullptr;
    if (scratchHeld) {
      ab = static_cast<float *>(emuScratch);
    } else {
      TE_CUDA_CHECK(scalarsTemp.allocate(2 * sizeof(float)), "cudaMallocAsync");
      ab = scalarsTemp.as<float>();
    }
    TE_CUDA_CHECK(cuda::launchGemmScalars(o.alpha, mm.beta, g.amaxA, g.e4A,
                                          g.amaxB, g.e4B, ab, stream),
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

} // namespace te::rt
