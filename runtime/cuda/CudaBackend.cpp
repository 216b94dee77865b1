//===- CudaBackend.cpp - The cuda backend: memory and quantization -*- C++
//-*-===//
//
// Part of te. Internal to libte_rt.
//
//===----------------------------------------------------------------------===//
//
// Device memory, and the dispatch of quantize / dequantize / amax / delayed
// update / swizzle onto the kernels' launchers (Quantize*.h, Dequantize.h,
// AmaxScale.h, ScaleSwizzle.h, Elementwise.h), mirroring the cpu
// backend's steps (runtime/lib/cpu/CpuBackend.cpp) so that both write the
// same bits. Allocations and temporaries are stream-ordered (cudaMallocAsync
// from the device's default memory pool; te_rt_malloc on the legacy default
// stream, the context's stream).
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "DeviceTemp.h"

#include "AmaxScale.h"
#include "Dequantize.h"
#include "Elementwise.h"
#include "Error.h"
#include "ProducerKernels.h"
#include "QuantizeBlock.h"
#include "QuantizeMXFP8.h"
#include "QuantizeNVFP4.h"
#include "QuantizePerTensor.h"
#include "ScaleSwizzle.h"
#include "attention/FlashAttention.h"

#include "te/Format/Codecs.h"
#include "te/Format/Philox.h"

#include <cstdint>
#include <new>
#include <type_traits>

using namespace te::format;

namespace te::rt {

std::string cudaErrorText(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

std::string cublasStatusText(cublasStatus_t s) {
  switch (s) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_LICENSE_ERROR:
    return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "cublasStatus " + std::to_string(static_cast<int>(s));
}

namespace {

te_rt_status cudaFail(cudaError_t e, const std::string &what) {
  return fail(TE_RT_CUDA_ERROR, what + ": " + cudaErrorText(e));
}

#define TE_CUDA_CHECK(expr, what)                                              \
  do {                                                                         \
    cudaError_t teErr_ = (expr);                                               \
    if (teErr_ != cudaSuccess)                                                 \
      return cudaFail(teErr_, what);                                           \
  } while (0)

using cuda::DeviceTemp;

} // namespace

//===----------------------------------------------------------------------===//
// Creation and memory
//===----------------------------------------------------------------------===//

std::unique_ptr<CudaBackend> CudaBackend::create(std::string *error) {
  // cuBLASLt and the driver first (CudaLibraries.h): no CUDA call before.
  if (!cuda::loadCudaLibraries(error))
    return nullptr;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    if (error)
      *error = e != cudaSuccess
                   ? "no usable CUDA device (cudaGetDeviceCount: " +
                         cudaErrorText(e) + ")"
                   : std::string("no CUDA device found");
    cudaGetLastError(); // clear
    return nullptr;
  }
  std::unique_ptr<CudaBackend> b(new (std::nothrow) CudaBackend());
  if (!b) {
    if (error)
      *error = "out of host memory";
    return nullptr;
  }
  cudaGetDevice(&b->device);
  cudaDeviceGetAttribute(&b->ccMajor, cudaDevAttrComputeCapabilityMajor,
                         b->device);
  cudaDeviceGetAttribute(&b->ccMinor, cudaDevAttrComputeCapabilityMinor,
                         b->device);
  e = cuda::probeKernels();
  if (e != cudaSuccess) {
    if (error)
      *error = "the kernels of this build do not run on the sm_" +
               std::to_string(b->ccMajor * 10 + b->ccMinor) +
               " device (built for sm_90a/sm_100a): " + cudaErrorText(e);
    cudaGetLastError();
    return nullptr;
  }
  cublasStatus_t s = cuda::cublasLt().cublasLtCreate(&b->lt);
  if (s != CUBLAS_STATUS_SUCCESS) {
    if (error)
      *error = "cublasLtCreate failed: " + cublasStatusText(s);
    b->lt = nullptr;
    return nullptr;
  }
  // The context's memory comes from the device's default memory pool,
  // stream-ordered; a release threshold of UINT64_MAX keeps freed memory in
  // the pool instead of returning it to the driver at each synchronization,
  // so that a training step stops calling the driver's allocator after the
  // first step.
  int pools = 0;
  cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, b->device);
  cudaMemPool_t pool = nullptr;
  if (pools && cudaDeviceGetDefaultMemPool(&pool, b->device) == cudaSuccess) {
    uint64_t threshold = UINT64_MAX;
    b->memoryPools =
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
                                &threshold) == cudaSuccess;
  }
  cudaGetLastError();
  b->workspaceBytes = size_t(32) << 20; // 32 MiB on Hopper (doc §1.6)
  e = cudaMalloc(&b->workspace, b->workspaceBytes);
  if (e != cudaSuccess) {
    if (error)
      *error =
          "cannot allocate the 32 MiB cuBLASLt workspace: " + cudaErrorText(e);
    b->workspace = nullptr;
    cudaGetLastError();
    return nullptr;
  }
  return b;
}

CudaBackend::~CudaBackend() {
  if (emuScratch)
    cudaFree(emuScratch);
  if (emuDone)
    cudaEventDestroy(emuDone);
  if (workspace)
    cudaFree(workspace);
  if (lt)
    cuda::cublasLt().cublasLtDestroy(lt);
}

te_rt_status CudaBackend::allocate(size_t bytes, void **out) {
  // The context's stream: the legacy default stream.
  constexpr cudaStream_t stream = nullptr;
  size_t rounded = (std::max<size_t>(bytes, 1) + 255) / 256 * 256;
  void *p = nullptr;
  cudaError_t e = memoryPools ? cudaMallocAsync(&p, rounded, stream)
                              : cudaMalloc(&p, rounded);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return fail(e == cudaErrorMemoryAllocation ? TE_RT_OUT_OF_MEMORY
                                               : TE_RT_CUDA_ERROR,
                "cannot allocate " + std::to_string(bytes) +
                    " bytes of device memory: " + cudaErrorText(e));
  }
  if (reinterpret_cast<uintptr_t>(p) % 256 != 0) {
    deallocate(p);
    return fail(TE_RT_INTERNAL, "the device memory pool returned a pointer "
                                "that is not 256-byte aligned");
  }
  // TE_RT_CUDA_POISON (DeviceTemp.h), ordered before any use of p.
  e = cuda::poisonIfRequested(p, rounded, stream);
  if (e != cudaSuccess) {
    cudaGetLastError();
    deallocate(p);
    return fail(TE_RT_CUDA_ERROR,
                std::string("TE_RT_CUDA_POISON: ") + cudaErrorText(e));
  }
  *out = p;
  return TE_RT_OK;
}

te_rt_status CudaBackend::deallocate(void *ptr) {
  if (memoryPools)
    TE_CUDA_CHECK(cudaFreeAsync(ptr, nullptr), "cudaFreeAsync");
  else
    TE_CUDA_CHECK(cudaFree(ptr), "cudaFree");
  return TE_RT_OK;
}

te_rt_status CudaBackend::copy(void *dst, const void *src, size_t bytes,
                               te_rt_memcpy_kind kind) {
  if (!bytes)
    return TE_RT_OK;
  cudaMemcpyKind k = cudaMemcpyDefault;
  switch (kind) {
  case TE_RT_HOST_TO_HOST:
    k = cudaMemcpyHostToHost;
    break;
  case TE_RT_HOST_TO_DEVICE:
    k = cudaMemcpyHostToDevice;
    break;
  case TE_RT_DEVICE_TO_HOST:
    k = cudaMemcpyDeviceToHost;
    break;
  case TE_RT_DEVICE_TO_DEVICE:
    k = cudaMemcpyDeviceToDevice;
    break;
  }
  if (k == cudaMemcpyDeviceToDevice)
    TE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, k, nullptr),
                  "cudaMemcpyAsync");
  else
    TE_CUDA_CHECK(cudaMemcpy(dst, src, bytes, k), "cudaMemcpy");
  return TE_RT_OK;
}

te_rt_status CudaBackend::writeFromHost(void *dst, const void *src,
                                        size_t bytes, void *stream) {
  if (!bytes)
    return TE_RT_OK;
  auto s = static_cast<cudaStream_t>(stream);
  // From pageable memory the driver copies `src` to a staging buffer before
  // cudaMemcpyAsync returns. From page-locked memory the copy is a DMA that
  // runs when the stream reaches it: wait for it, so that src is consumed
  // on return either way.
  TE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s),
                "cudaMemcpyAsync");
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, src) != cudaSuccess) {
    cudaGetLastError();
    attr.type = cudaMemoryTypeUnregistered;
  }
  if (attr.type != cudaMemoryTypeUnregistered)
    TE_CUDA_CHECK(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  return TE_RT_OK;
}

te_rt_status CudaBackend::fillZero(void *dst, size_t bytes) {
  if (bytes)
    TE_CUDA_CHECK(cudaMemset(dst, 0, bytes), "cudaMemset");
  return TE_RT_OK;
}

te_rt_status CudaBackend::synchronize(void *stream) {
  TE_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)),
                "cudaStreamSynchronize");
  return TE_RT_OK;
}

//===----------------------------------------------------------------------===//
// Quantize
//===----------------------------------------------------------------------===//

static bool isBlockScaledBytes(const QTensor &q) {
  return recipeTraits(q.config.recipe).swizzledScales;
}

template <typename T>
static T *bufferAs(const QTensor &q, BufferRole role, Usage usage) {
  return static_cast<T *>(q.buffer(role, usage));
}

/// The row length of the `usage` copy's 2-D scale matrix, or 0 without one.
static int64_t scaleStride(const QTensor &q, Usage usage) {
  int i = q.indexOf(BufferRole::ScaleInv, usage);
  return i >= 0 ? q.layout[i].shape[1] : 0;
}

/// A quantize kernel's buffers of both copies (BlockArgs, MXFP8Args,
/// NVFP4FusedArgs: rowData, rowScale, rowScaleStride and the col* three): null
/// and 0 for a copy q does not hold.
template <typename Args> static void setCopies(Args &a, const QTensor &q) {
  using Scale = std::remove_pointer_t<decltype(a.rowScale)>;
  a.rowData = bufferAs<uint8_t>(q, BufferRole::Data, Rowwise);
  a.rowScale = bufferAs<Scale>(q, BufferRole::ScaleInv, Rowwise);
  a.rowScaleStride = scaleStride(q, Rowwise);
  a.colData = bufferAs<uint8_t>(q, BufferRole::Data, Columnwise);
  a.colScale = bufferAs<Scale>(q, BufferRole::ScaleInv, Columnwise);
  a.colScaleStride = scaleStride(q, Columnwise);
}

/// True if the fused NVFP4 kernel (QuantizeNVFP4.cu) quantizes x into q: plain
/// 1D NVFP4 (RHT and stochastic rounding included), or 16x16 (2D) tiles of a
/// bf16 x without stochastic rounding and without an RHT columnwise copy
/// (TE's weight quantizer), on nvfp4FastPath's shapes. Everything else takes
/// the general kernels.
static bool nvfp4Fused(const Tensor &x, const QTensor &q) {
  const QuantizerConfig &c = q.config;
  if (c.rowScaled || c.use4over6)
    return false;
  if (c.nvfp4_2D && (x.dtype != DType::BF16 || c.stochasticRounding ||
                     (c.rht && q.indexOf(BufferRole::Data, Columnwise) >= 0)))
    return false;
  return cuda::nvfp4FastPath(x.data, x.dtype, q.m, q.k,
                             q.buffer(BufferRole::Data, Rowwise),
                             q.buffer(BufferRole::Data, Columnwise));
}

/// A quantize of a producer program's value: the program evaluated into
/// value_out (or a temporary), with current scaling's amax, its column sums
/// taken from there, and that buffer quantized as x by the kernels of every
/// other quantize.
te_rt_status CudaBackend::quantizeProduced(const Tensor &x, QTensor &q,
                                           const QuantizeOptions &o) {
  const Producer &p = *o.producer;
  auto stream = static_cast<cudaStream_t>(o.stream);
  const int64_t M = q.m, K = q.k;
  DeviceTemp temp(stream);
  void *value = p.valueOut;
  if (!value) {
    TE_CUDA_CHECK(
        temp.allocate(static_cast<size_t>(M * K * format::dtypeBytes(x.dtype))),
        "cudaMallocAsync");
    value = temp.as<void>();
  }
  // Current scaling's amax is taken by the evaluation kernel and passed to
  // the quantize as its amax: no amax pass over the value.
  const bool amaxHere = q.config.recipe == Recipe::Current && !o.amaxIn;
  DeviceTemp amax(stream);
  if (amaxHere)
    TE_CUDA_CHECK(amax.allocate(sizeof(float)), "cudaMallocAsync");
  TE_CUDA_CHECK(cuda::launchProducerEvaluate(
                    p, M, K, x.dtype, value,
                    amaxHere ? amax.as<float>() : nullptr, stream),
                "producer evaluation kernel");
  if (p.colsum)
    TE_CUDA_CHECK(cuda::launchColumnSum(value, x.dtype, M, K, p.colsum,
                                        p.colsumAccumulate, stream),
                  "column sum kernel");
  Tensor xv = x;
  xv.data = value;
  QuantizeOptions ov = o;
  ov.producer = nullptr;
  if (amaxHere)
    ov.amaxIn = amax.as<float>();
  return quantize(xv, q, ov);
}

te_rt_status CudaBackend::quantize(const Tensor &x, QTensor &q,
                                   const QuantizeOptions &o) {
  if (o.producer)
    return quantizeProduced(x, q, o);
  cuda::FastKernelsScope fastScope(fastKernels);
  auto stream = static_cast<cudaStream_t>(o.stream);
  const QuantizerConfig &c = q.config;
  const int64_t M = q.m, K = q.k;
  // The bandwidth kernels write every byte of the data buffers and the
  // unpadded part of the scale buffers: only the padding of those is zeroed
  // (the general kernels' buffers are zeroed whole first).
  bool fast = false;
  switch (c.recipe) {
  case Recipe::Delayed:
  case Recipe::Current:
    fast = cuda::perTensorFastPath(x.data, x.dtype, M, K, q.perTensorData(),
                                   q.perTensorTranspose()) &&
           q.buffer(BufferRole::ScaleInv, Rowwise);
    break;
  case Recipe::Block:
    fast = cuda::blockFastPath(x.data, x.dtype, M, K,
                               q.buffer(BufferRole::Data, Rowwise),
                               q.buffer(BufferRole::Data, Columnwise));
    break;
  case Recipe::MXFP8:
    fast = cuda::mxfp8FastPath(x.data, x.dtype, M, K,
                               q.buffer(BufferRole::Data, Rowwise),
                               q.buffer(BufferRole::Data, Columnwise));
    break;
  case Recipe::NVFP4:
    fast = nvfp4Fused(x, q);
    break;
  default:
    break;
  }
  const int64_t dataBytes = c.recipe == Recipe::NVFP4 ? M * K / 2 : M * K;
  // The layout's extents, in the order of q.layout: where the scales of the
  // fast kernels end and the padding starts.
  std::vector<format::BufferExtents> extents;
  if (fast && !format::getBufferExtents(c, static_cast<int64_t>(q.shape.size()),
                                        q.usage, q.target, extents))
    extents.clear();
  for (size_t i = 0; i < q.buffers.size(); ++i) {
    const format::BufferDesc &d = q.layout[i];
    if (fast && d.role == format::BufferRole::Data &&
        q.bufferBytes[i] == dataBytes)
      continue;
    if (fast && d.role == format::BufferRole::ScaleInv && d.shape.size() == 2 &&
        i < extents.size()) {
      // Rows x columns of the scale matrix the kernel writes (the tensor
      // tiles exactly); the rest is padding.
      const format::Shape valid = format::unpaddedShape(extents[i], q.shape);
      const int64_t rows = valid[0], cols = valid[1];
      const int64_t R = d.shape[0], C = d.shape[1];
      if (rows > 0 && cols > 0 && rows <= R && cols <= C) {
        const size_t e = static_cast<size_t>(q.bufferBytes[i] / (R * C));
        auto *b = static_cast<uint8_t *>(q.buffers[i]);
        if (cols < C)
          TE_CUDA_CHECK(cudaMemset2DAsync(b + cols * e, C * e, 0,
                                          (C - cols) * e, rows, stream),
                        "zeroing the padding of " + d.name);
        if (rows < R)
          TE_CUDA_CHECK(
              cudaMemsetAsync(b + rows * C * e, 0, (R - rows) * C * e, stream),
              "zeroing the padding of " + d.name);
        continue;
      }
    }
    if (fast && q.isPerTensor() && d.role == BufferRole::ScaleInv)
      continue; // written by the per-tensor kernels
    TE_CUDA_CHECK(cudaMemsetAsync(q.buffers[i], 0,
                                  static_cast<size_t>(q.bufferBytes[i]),
                                  stream),
                  "zeroing buffer " + d.name);
  }
  switch (c.recipe) {
  case Recipe::Delayed: {
    if (o.amaxOut)
      TE_CUDA_CHECK(cudaMemsetAsync(o.amaxOut, 0, sizeof(float), stream),
                    "zeroing amax");
    TE_CUDA_CHECK(cuda::launchPerTensorCast(
                      x.data, x.dtype, M, K, o.scale, c.dtype,
                      static_cast<uint8_t *>(q.perTensorData()),
                      static_cast<uint8_t *>(q.perTensorTranspose()),
                      bufferAs<float>(q, BufferRole::ScaleInv, Rowwise),
                      o.amaxOut, stream),
                  "per-tensor FP8 cast kernel");
    break;
  }
  case Recipe::Current: {
    if (fast) {
      // No scratch: the amax pass accumulates into the scale_inv buffer, the
      // cast computes the scale from it, and its last kernel overwrites it
      // with 1 / scale.
      auto *scaleInv = bufferAs<float>(q, BufferRole::ScaleInv, Rowwise);
      if (!o.amaxIn) { // amax + cast in one launch (or its fallback)
        TE_CUDA_CHECK(cuda::launchCurrentQuantizeFast(
                          x.data, x.dtype, M, K, c.dtype, c.pow2Scales,
                          c.amaxEpsilon,
                          static_cast<uint8_t *>(q.perTensorData()),
                          static_cast<uint8_t *>(q.perTensorTranspose()),
                          scaleInv, o.amaxOut, stream),
                      "per-tensor FP8 current-scaling kernel");
        break;
      }
      TE_CUDA_CHECK(cuda::launchCurrentCastFast(
                        x.data, x.dtype, M, K, o.amaxIn ? o.amaxIn : scaleInv,
                        c.dtype, c.pow2Scales, c.amaxEpsilon,
                        static_cast<uint8_t *>(q.perTensorData()),
                        static_cast<uint8_t *>(q.perTensorTranspose()),
                        scaleInv, o.amaxOut, stream),
                    "per-tensor FP8 cast kernel");
      break;
    }
    DeviceTemp scratch(stream); // [amax, scale]
    TE_CUDA_CHECK(scratch.allocate(2 * sizeof(float)), "cudaMallocAsync");
    float *amax = scratch.as<float>(), *scale = amax + 1;
    if (!o.amaxIn)
      TE_CUDA_CHECK(
          cuda::launchAmax(x.data, x.dtype, x.numElements, amax, stream),
          "amax kernel");
    TE_CUDA_CHECK(cuda::launchCurrentScale(
                      amax, o.amaxIn, c.dtype, c.pow2Scales, c.amaxEpsilon,
                      scale, bufferAs<float>(q, BufferRole::ScaleInv, Rowwise),
                      o.amaxOut, stream),
                  "current-scaling scale kernel");
    TE_CUDA_CHECK(cuda::launchPerTensorCast(
                      x.data, x.dtype, M, K, scale, c.dtype,
                      static_cast<uint8_t *>(q.perTensorData()),
                      static_cast<uint8_t *>(q.perTensorTranspose()), nullptr,
                      nullptr, stream),
                  "per-tensor FP8 cast kernel");
    break;
  }
  case Recipe::Block: {
    cuda::BlockArgs a;
    a.fp8 = c.dtype;
    a.inType = x.dtype;
    a.blockDim = c.blockDim;
    a.pow2 = c.pow2Scales;
    a.eps = c.amaxEpsilon;
    setCopies(a, q);
    TE_CUDA_CHECK(cuda::launchBlockQuantize(x.data, M, K, a, stream),
                  "Float8Block quantize kernel");
    break;
  }
  case Recipe::MXFP8: {
    cuda::MXFP8Args a;
    a.fp8 = c.dtype;
    a.inType = x.dtype;
    a.twoD = c.mx2D;
    a.rounding = c.e8m0Rounding;
    setCopies(a, q);
    TE_CUDA_CHECK(cuda::launchMXFP8Quantize(x.data, M, K, a, stream),
                  "MXFP8 quantize kernel");
    break;
  }
  case Recipe::NVFP4:
    if (te_rt_status s = quantizeNVFP4(x, q, o, stream))
      return s;
    break;
  }
  if (q.swizzledScales && isBlockScaledBytes(q))
    return swizzleScales(q, /*toSwizzled=*/true, o.stream);
  return TE_RT_OK;
}

te_rt_status CudaBackend::quantizeNVFP4(const Tensor &x, QTensor &q,
                                        const QuantizeOptions &o,
                                        cudaStream_t stream) {
  const QuantizerConfig &c = q.config;
  const int64_t M = q.m, K = q.k;
  int iRd = q.indexOf(BufferRole::Data, Rowwise),
      iCd = q.indexOf(BufferRole::Data, Columnwise);
  auto *ra = bufferAs<float>(q, BufferRole::Amax, Rowwise);
  auto *ca = bufferAs<float>(q, BufferRole::Amax, Columnwise);

  // Fused path (QuantizeNVFP4.cu, nvfp4Fused): tensor amax, tiling shapes. Pass
  // 1 is the amax (with the RHT: amax and post-RHT amax in one read), pass 2
  // reads x once and writes both representations.
  if (nvfp4Fused(x, q)) {
    DeviceTemp amaxes(stream); // [amax, amax of the columnwise copy]
    TE_CUDA_CHECK(amaxes.allocate(2 * sizeof(float)), "cudaMallocAsync");
    float *amax = amaxes.as<float>();
    const float *amaxCol = amax;
    if (o.amaxIn) { // external amaxes (te_rt.h, e.g. all-reduced): no pass 1
      TE_CUDA_CHECK(cudaMemcpyAsync(amax, o.amaxIn, 2 * sizeof(float),
                                    cudaMemcpyDeviceToDevice, stream),
                    "copying args->amax_in");
      amaxCol = amax + 1;
    } else if (c.rht && iCd >= 0) {
      TE_CUDA_CHECK(cuda::launchNVFP4AmaxRHT(x.data, x.dtype, M, K,
                                             c.rhtSignMask, amax, stream),
                    "NVFP4 amax/RHT amax kernel");
      amaxCol = amax + 1;
    } else {
      TE_CUDA_CHECK(cuda::launchAmax(x.data, x.dtype, M * K, amax, stream),
                    "amax kernel");
    }
    cuda::NVFP4FusedArgs a;
    a.inType = x.dtype;
    a.x = x.data;
    a.M = M;
    a.K = K;
    a.amax = amax;
    a.amaxCol = amaxCol;
    setCopies(a, q);
    a.twoD = c.nvfp4_2D;
    a.rht = c.rht;
    a.signMask = c.rhtSignMask;
    a.stochasticRounding = c.stochasticRounding;
    a.seed = o.seed;
    a.rowOffset = o.offset;
    a.colOffset = format::nvfp4ColumnwiseRandomOffset(o.offset, M * K);
    TE_CUDA_CHECK(cuda::launchNVFP4QuantizeFast(a, stream),
                  "NVFP4 fused quantize kernel");
    if (ra && iRd >= 0)
      TE_CUDA_CHECK(cudaMemcpyAsync(ra, amax, sizeof(float),
                                    cudaMemcpyDeviceToDevice, stream),
                    "copying the rowwise amax");
    if (ca && iCd >= 0)
      TE_CUDA_CHECK(cudaMemcpyAsync(ca, amaxCol, sizeof(float),
                                    cudaMemcpyDeviceToDevice, stream),
                    "copying the columnwise amax");
    return TE_RT_OK;
  }

  // fp32 copy of x (the cpu backend's toFloat).
  DeviceTemp xfTemp(stream);
  const float *xf = static_cast<const float *>(x.data);
  // The group kernels read 16-byte vectors: stage unaligned inputs too.
  if (x.dtype != DType::F32 || reinterpret_cast<uintptr_t>(x.data) % 16 != 0) {
    TE_CUDA_CHECK(xfTemp.allocate(sizeof(float) * M * K), "cudaMallocAsync");
    TE_CUDA_CHECK(
        cuda::launchToFloat(x.data, x.dtype, M * K, xfTemp.as<float>(), stream),
        "conversion kernel");
    xf = xfTemp.as<float>();
  }
  DeviceTemp scalars(stream); // [amax, amax of the columnwise copy]
  TE_CUDA_CHECK(scalars.allocate(2 * sizeof(float)), "cudaMallocAsync");
  float *amax = scalars.as<float>(), *amaxT = amax + 1;
  DeviceTemp rowAmaxTemp(stream);
  float *rowAmax = nullptr;
  if (c.rowScaled) {
    TE_CUDA_CHECK(rowAmaxTemp.allocate(sizeof(float) * M), "cudaMallocAsync");
    rowAmax = rowAmaxTemp.as<float>();
    TE_CUDA_CHECK(cuda::launchRowAmax(xf, M, K, rowAmax, stream),
                  "row amax kernel");
  } else if (o.amaxIn) { // external amaxes: [0] rowwise, [1] columnwise
    TE_CUDA_CHECK(cudaMemcpyAsync(amax, o.amaxIn, 2 * sizeof(float),
                                  cudaMemcpyDeviceToDevice, stream),
                  "copying args->amax_in");
  } else {
    TE_CUDA_CHECK(cuda::launchAmax(xf, DType::F32, M * K, amax, stream),
                  "amax kernel");
  }
  auto job = [&](const float *src, int64_t R, int64_t C, const float *rowA,
                 const float *a, Usage copy, uint64_t offset) {
    cuda::NVFP4Args j;
    j.src = src;
    j.R = R;
    j.C = C;
    j.rowAmax = rowA;
    j.amax = a;
    j.data = bufferAs<uint8_t>(q, BufferRole::Data, copy);
    j.scales = bufferAs<uint8_t>(q, BufferRole::ScaleInv, copy);
    j.scaleStride = scaleStride(q, copy);
    j.seed = o.seed;
    j.offset = offset;
    j.twoD = c.nvfp4_2D;
    j.stochasticRounding = c.stochasticRounding;
    j.use4over6 = c.use4over6;
    j.e4m3Max = c.e4m3Max;
    j.errMode = c.errMode;
    return j;
  };
  if (iRd >= 0) {
    TE_CUDA_CHECK(cuda::launchNVFP4Quantize(
                      job(xf, M, K, rowAmax, amax, Rowwise, o.offset), stream),
                  "NVFP4 rowwise quantize kernel");
    if (ra)
      TE_CUDA_CHECK(cudaMemcpyAsync(ra, c.rowScaled ? rowAmax : amax,
                                    sizeof(float) * (c.rowScaled ? M : 1),
                                    cudaMemcpyDeviceToDevice, stream),
                    "copying the rowwise amax");
  }
  if (iCd < 0)
    return TE_RT_OK;
  DeviceTemp xtTemp(stream);
  TE_CUDA_CHECK(xtTemp.allocate(sizeof(float) * M * K), "cudaMallocAsync");
  float *xt = xtTemp.as<float>();
  TE_CUDA_CHECK(
      cuda::launchNVFP4Transpose(xf, M, K, c.rht, c.rhtSignMask, xt, stream),
      "NVFP4 transpose/RHT kernel");
  DeviceTemp colAmaxTemp(stream);
  float *colAmax = nullptr;
  const float *amaxCol = amax;
  if (c.rowScaled) {
    TE_CUDA_CHECK(colAmaxTemp.allocate(sizeof(float) * K), "cudaMallocAsync");
    colAmax = colAmaxTemp.as<float>();
    TE_CUDA_CHECK(cuda::launchRowAmax(xt, K, M, colAmax, stream),
                  "column amax kernel");
  } else if (o.amaxIn) {
    amaxCol = amaxT; // args->amax_in[1]
  } else if (c.rht) {
    TE_CUDA_CHECK(cuda::launchAmax(xt, DType::F32, M * K, amaxT, stream),
                  "post-RHT amax kernel");
    amaxCol = amaxT;
  }
  uint64_t colOffset = format::nvfp4ColumnwiseRandomOffset(o.offset, M * K);
  TE_CUDA_CHECK(
      cuda::launchNVFP4Quantize(
          job(xt, K, M, colAmax, amaxCol, Columnwise, colOffset), stream),
      "NVFP4 columnwise quantize kernel");
  if (ca)
    TE_CUDA_CHECK(cudaMemcpyAsync(ca, c.rowScaled ? colAmax : amaxCol,
                                  sizeof(float) * (c.rowScaled ? K : 1),
                                  cudaMemcpyDeviceToDevice, stream),
                  "copying the columnwise amax");
  return TE_RT_OK;
}

//===----------------------------------------------------------------------===//
// Dequantize, amax, update, swizzle
//===----------------------------------------------------------------------===//

bool makeVectorDequantArgs(const QTensor &q, Usage from, void *out,
                           DType outType, bool blockScaleOnly,
                           cuda::VectorDequantArgs &a) {
  const QuantizerConfig &c = q.config;
  if (c.recipe != Recipe::MXFP8 && c.recipe != Recipe::NVFP4)
    return false;
  const bool col = from == Columnwise;
  const Usage copy = col ? Columnwise : Rowwise;
  int iS = q.indexOf(BufferRole::ScaleInv, copy);
  if (iS < 0 || q.layout[iS].shape.size() != 2)
    return false;
  a = cuda::VectorDequantArgs();
  a.recipe = c.recipe;
  a.fp8 = c.dtype;
  a.data = bufferAs<uint8_t>(q, BufferRole::Data, copy);
  a.scale = static_cast<const uint8_t *>(q.buffers[iS]);
  a.scaleRows = q.layout[iS].shape[0];
  a.scaleCols = q.layout[iS].shape[1];
  a.swizzled = q.swizzledScales;
  a.out = out;
  a.outType = outType;
  if (c.recipe == Recipe::MXFP8) {
    a.R = q.m; // both copies are stored [M, K]
    a.C = q.k;
    a.columnBlocks = col;
  } else {
    a.R = col ? q.k : q.m;
    a.C = col ? q.m : q.k;
    a.blockScaleOnly = blockScaleOnly;
    a.amax = bufferAs<float>(q, BufferRole::Amax, copy);
    a.rowScaled = c.rowScaled;
    a.e4m3Max = c.use4over6 ? c.e4m3Max : kE4M3Max;
  }
  return cuda::vectorDequantizeApplies(a);
}

te_rt_status CudaBackend::bf16EmulationOperand(const QTensor &q, Usage from,
                                               void *out, bool write,
                                               cudaStream_t stream,
                                               bool *storedTransposed) {
  *storedTransposed = false;
  const bool blockOnly = q.config.recipe == Recipe::NVFP4;
  cuda::VectorDequantArgs fa;
  if (makeVectorDequantArgs(q, from, out, DType::BF16, blockOnly, fa)) {
    *storedTransposed = q.config.recipe == Recipe::NVFP4 && from == Columnwise;
    if (write)
      TE_CUDA_CHECK(cuda::launchVectorDequantize(fa, stream),
                    "dequantize kernel");
    return TE_RT_OK;
  }
  if (!write)
    return TE_RT_OK;
  return dequantizeInto(q, from, out, DType::BF16, /*inverseRHT=*/false,
                        blockOnly, stream);
}

te_rt_status CudaBackend::gemmEmulatedOperand(const QTensor &q, Usage reads,
                                              void *out, void *stream) {
  cuda::FastKernelsScope fastScope(fastKernels);
  bool storedTransposed = false;
  return bf16EmulationOperand(q, reads, out, /*write=*/true,
                              static_cast<cudaStream_t>(stream),
                              &storedTransposed);
}

te_rt_status CudaBackend::dequantizeInto(const QTensor &q, Usage from,
                                         void *out, DType outType,
                                         bool inverseRHT, bool blockScaleOnly,
                                         cudaStream_t stream) {
  const QuantizerConfig &c = q.config;
  const bool col = from == Columnwise;
  // The vectorized kernel writes the stored orientation: usable here (the
  // logical layout) for MXFP8 and NVFP4 rowwise.
  if (c.recipe == Recipe::MXFP8 || (c.recipe == Recipe::NVFP4 && !col)) {
    cuda::VectorDequantArgs fa;
    if (makeVectorDequantArgs(q, from, out, outType, blockScaleOnly, fa)) {
      TE_CUDA_CHECK(cuda::launchVectorDequantize(fa, stream),
                    "dequantize kernel");
      return TE_RT_OK;
    }
  }
  cuda::DequantArgs a;
  a.recipe = c.recipe;
  a.fp8 = c.dtype;
  a.M = q.m;
  a.K = q.k;
  a.columnwise = col;
  a.out = out;
  a.outType = outType;
  const Usage copy = col ? Columnwise : Rowwise;
  // Per-tensor FP8: one scale, marked rowwise, for both copies.
  Usage scaleUsage = copy;
  if (recipeTraits(c.recipe).perTensor) {
    auto *tr = static_cast<uint8_t *>(q.perTensorTranspose());
    a.transposedData = col && tr;
    a.data = a.transposedData ? tr : static_cast<uint8_t *>(q.perTensorData());
    scaleUsage = Rowwise;
  } else {
    a.data = bufferAs<uint8_t>(q, BufferRole::Data, copy);
  }
  int iS = q.indexOf(BufferRole::ScaleInv, scaleUsage);
  if (!a.data || iS < 0)
    return fail(TE_RT_INTERNAL, "dequantize: missing buffers");
  a.scale = q.buffers[iS];
  if (q.layout[iS].shape.size() == 2) {
    a.scaleRows = q.layout[iS].shape[0];
    a.scaleCols = q.layout[iS].shape[1];
  }
  a.swizzled = q.swizzledScales && isBlockScaledBytes(q);
  a.blockDim = c.blockDim;
  if (c.recipe == Recipe::NVFP4) {
    a.amax = bufferAs<float>(q, BufferRole::Amax, copy);
    a.rowScaled = c.rowScaled;
    a.e4m3Max = c.use4over6 ? c.e4m3Max : kE4M3Max;
    a.inverseRHT = inverseRHT && col && c.rht;
    a.signMask = c.rhtSignMask;
    a.blockScaleOnly = blockScaleOnly;
  }
  TE_CUDA_CHECK(cuda::launchDequantize(a, stream), "dequantize kernel");
  return TE_RT_OK;
}

te_rt_status CudaBackend::dequantize(const QTensor &q, Usage from, Tensor &out,
                                     void *stream) {
  cuda::FastKernelsScope fastScope(fastKernels);
  return dequantizeInto(q, from, out.data, out.dtype, /*inverseRHT=*/true,
                        /*blockScaleOnly=*/false,
                        static_cast<cudaStream_t>(stream));
}

te_rt_status CudaBackend::amax(const Tensor &x, float *amaxOut, void *stream) {
  cuda::FastKernelsScope fastScope(fastKernels);
  TE_CUDA_CHECK(cuda::launchAmax(x.data, x.dtype, x.numElements, amaxOut,
                                 static_cast<cudaStream_t>(stream)),
                "amax kernel");
  return TE_RT_OK;
}

te_rt_status CudaBackend::updateScale(const QuantizerConfig &config,
                                      float *history, float *scale, int64_t L,
                                      int64_t n, void *streamPtr) {
  auto stream = static_cast<cudaStream_t>(streamPtr);
  DeviceTemp scratch(stream);
  TE_CUDA_CHECK(scratch.allocate(sizeof(float) * L * n), "cudaMallocAsync");
  TE_CUDA_CHECK(cuda::launchUpdateScale(
                    history, scale, L, n, scratch.as<float>(), config.amaxAlgo,
                    config.margin, fp8Max(config.dtype), stream),
                "delayed-scaling update kernel");
  return TE_RT_OK;
}

te_rt_status CudaBackend::swizzleScales(QTensor &q, bool toSwizzled,
                                        void *streamPtr) {
  auto stream = static_cast<cudaStream_t>(streamPtr);
  for (size_t i = 0; i < q.layout.size(); ++i) {
    const BufferDesc &d = q.layout[i];
    if (d.role != BufferRole::ScaleInv || d.shape.size() != 2)
      continue;
    int64_t R = d.shape[0], C = d.shape[1];
    size_t bytes = static_cast<size_t>(R * C);
    DeviceTemp tmp(stream);
    TE_CUDA_CHECK(tmp.allocate(bytes), "cudaMallocAsync");
    TE_CUDA_CHECK(cudaMemcpyAsync(tmp.as<uint8_t>(), q.buffers[i], bytes,
                                  cudaMemcpyDeviceToDevice, stream),
                  "copying scales");
    bool transposed = q.config.recipe == Recipe::MXFP8 && d.columnwise;
    TE_CUDA_CHECK(cuda::launchSwizzle(tmp.as<uint8_t>(),
                                      static_cast<uint8_t *>(q.buffers[i]), R,
                                      C, transposed, toSwizzled, stream),
                  "swizzle kernel");
  }
  return TE_RT_OK;
}

//===----------------------------------------------------------------------===//
// Entry points of Backend.h
//===----------------------------------------------------------------------===//

std::unique_ptr<Backend> createCudaBackend(std::string *error) {
  return CudaBackend::create(error);
}

bool cudaBackendAvailable() {
  if (!cuda::loadCudaLibraries(nullptr))
    return false;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return false;
  }
  if (cuda::probeKernels() != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return true;
}

te_rt_status CudaBackend::attention(const Attention &a) {
  return cuda::attn::runAttention(a);
}

te_rt_status CudaBackend::attentionGrad(const AttentionGrad &a) {
  return cuda::attn::runAttentionGrad(a);
}

} // namespace te::rt
