//===- CpuBackend.cpp - The reference backend of libte_rt -------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Tensor-level loops over the Format library's scalar and block functions,
// for every recipe and option (docs/formats.md §3-§5). This backend defines the
// runtime's numerics: the cuda backend must write the same bits.
//
// Conventions fixed here (documented in te_rt.h / docs):
// * The input is first widened to fp32 (bf16/f16 exactly).
// * Every buffer is zero-filled before it is written, so all padding is 0.
// * NVFP4 stochastic rounding: element i (row-major index in the
//   representation being written) of the rowwise representation takes
//   format::philoxRandomByte(seed, offset, i); the columnwise representation
//   uses the counter range after it (format::nvfp4ColumnwiseRandomOffset), so
//   both draw independent bits.
// * NVFP4 dequantize of an RHT'd columnwise copy applies the inverse
//   transform (the RHT matrix is orthogonal), in double, so it returns the
//   logical tensor.
// * GEMM: operands are dequantized to fp32 and the dot products are
//   accumulated in double; alpha, bias and the old D are added in double and
//   the result is rounded once to D's type.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "Error.h"
#include "cpu/Attention.h"
#include "cpu/Parallel.h"

#include "te/Format/Blocks.h"
#include "te/Format/Codecs.h"
#include "te/Format/Gemm.h"
#include "te/Format/Hadamard.h"
#include "te/Format/Philox.h"
#include "te/Format/ScaleRules.h"
#include "te/Format/Swizzle.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace te::format;

namespace te::rt {
namespace {

using cpu::parallelFor;
using cpu::ScopedIEEEFloatEnvironment;

/// Elements per chunk for the parallel loops.
constexpr int64_t kGrainElements = 1 << 15;

/// memcpy that accepts null pointers when it copies nothing (memcpy from or
/// to null is undefined even for 0 bytes; zero-element tensors and empty
/// vectors have null data).
void copyBytes(void *dst, const void *src, size_t n) {
  if (n)
    std::memcpy(dst, src, n);
}

/// A producer program's value (x.m x x.k, rounded to x.dtype) as f32, the
/// value also written to p.valueOut (x.dtype) and its column sums to
/// p.colsum: each column summed in double over the rows in order and rounded
/// to f32 once (then added to colsum's prior value with colsumAccumulate).
std::vector<float> evaluateProducerToFloat(const Producer &p, const Tensor &x) {
  const int64_t M = x.m, K = x.k;
  const int32_t xType = static_cast<int32_t>(x.dtype);
  std::vector<float> out(static_cast<size_t>(M * K));
  constexpr int kLanes = 8; // elements per opcode dispatch
  for (int64_t r = 0; r < M; ++r)
    for (int64_t c0 = 0; c0 < K; c0 += kLanes) {
      float v[kLanes];
      evaluateProducerN<kLanes>(p, r, c0, K, xType, v);
      for (int j = 0; j < kLanes && c0 + j < K; ++j)
        out[r * K + c0 + j] = v[j];
    }
  if (p.valueOut) {
    for (size_t i = 0; i < out.size(); ++i) {
      switch (x.dtype) {
      case DType::BF16:
        static_cast<uint16_t *>(p.valueOut)[i] = floatToBF16(out[i]);
        break;
      case DType::F16:
        static_cast<uint16_t *>(p.valueOut)[i] = floatToF16(out[i]);
        break;
      default:
        static_cast<float *>(p.valueOut)[i] = out[i];
        break;
      }
    }
  }
  if (p.colsum) {
    for (int64_t c = 0; c < K; ++c) {
      double sum = 0.0;
      for (int64_t r = 0; r < M; ++r)
        sum += static_cast<double>(out[r * K + c]);
      p.colsum[c] = p.colsumAccumulate ? p.colsum[c] + static_cast<float>(sum)
                                       : static_cast<float>(sum);
    }
  }
  return out;
}

/// Widens a high-precision tensor to fp32.
std::vector<float> toFloat(const Tensor &x) {
  std::vector<float> out(static_cast<size_t>(x.numElements));
  switch (x.dtype) {
  case DType::F32:
    if (x.numElements)
      copyBytes(out.data(), x.data, out.size() * sizeof(float));
    break;
  case DType::BF16: {
    auto *p = static_cast<const uint16_t *>(x.data);
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = bf16ToFloat(p[i]);
    break;
  }
  case DType::F16: {
    auto *p = static_cast<const uint16_t *>(x.data);
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = f16ToFloat(p[i]);
    break;
  }
  default:
    break;
  }
  return out;
}

/// Narrows fp32 values into `out` (RNE).
void fromFloat(const float *v, Tensor &out) {
  size_t n = static_cast<size_t>(out.numElements);
  switch (out.dtype) {
  case DType::F32:
    if (n)
      copyBytes(out.data, v, n * sizeof(float));
    break;
  case DType::BF16: {
    auto *p = static_cast<uint16_t *>(out.data);
    for (size_t i = 0; i < n; ++i)
      p[i] = floatToBF16(v[i]);
    break;
  }
  case DType::F16: {
    auto *p = static_cast<uint16_t *>(out.data);
    for (size_t i = 0; i < n; ++i)
      p[i] = floatToF16(v[i]);
    break;
  }
  default:
    break;
  }
}

/// Element i of a dense buffer of `t` (F32, BF16, F16) as a float.
float elementAt(const void *p, DType t, int64_t i) {
  switch (t) {
  case DType::BF16:
    return bf16ToFloat(static_cast<const uint16_t *>(p)[i]);
  case DType::F16:
    return f16ToFloat(static_cast<const uint16_t *>(p)[i]);
  default:
    return static_cast<const float *>(p)[i];
  }
}

float readScalar(const Tensor &t, int64_t i) {
  return elementAt(t.data, t.dtype, i);
}

/// max |x| (NaN ignored), in parallel; the result does not depend on the
/// split because max is exact.
float tensorAmax(const float *x, int64_t n, int threads) {
  int64_t chunks =
      std::max<int64_t>(1, (n + kGrainElements - 1) / kGrainElements);
  std::vector<float> partial(static_cast<size_t>(chunks), 0.0f);
  parallelFor(chunks, threads, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      int64_t lo = c * kGrainElements, hi = std::min(n, lo + kGrainElements);
      partial[c] = blockAmax(x + lo, static_cast<int>(hi - lo), 1);
    }
  });
  float amax = 0.0f;
  for (float p : partial)
    amax = fmaxNum(amax, p);
  return amax;
}

/// max |x| of a high-precision tensor read in place: bf16/f16 chunks are
/// widened one chunk at a time (the same chunks and order as tensorAmax).
float typedAmax(const Tensor &x, int threads) {
  if (x.dtype == DType::F32)
    return tensorAmax(static_cast<const float *>(x.data), x.numElements,
                      threads);
  int64_t n = x.numElements;
  int64_t chunks =
      std::max<int64_t>(1, (n + kGrainElements - 1) / kGrainElements);
  std::vector<float> partial(static_cast<size_t>(chunks), 0.0f);
  parallelFor(chunks, threads, 1, [&](int64_t b, int64_t e) {
    float v[kGrainElements];
    for (int64_t c = b; c < e; ++c) {
      int64_t lo = c * kGrainElements, hi = std::min(n, lo + kGrainElements);
      for (int64_t i = lo; i < hi; ++i)
        v[i - lo] = readScalar(x, i);
      partial[c] = blockAmax(v, static_cast<int>(hi - lo), 1);
    }
  });
  float amax = 0.0f;
  for (float p : partial)
    amax = fmaxNum(amax, p);
  return amax;
}

/// Row-major [rows, cols] -> [cols, rows].
std::vector<float> transpose(const float *x, int64_t rows, int64_t cols) {
  std::vector<float> t(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      t[c * rows + r] = x[r * cols + c];
  return t;
}

bool isBlockScaledBytes(const QTensor &q) {
  return recipeTraits(q.config.recipe).swizzledScales;
}

/// Swizzles (or unswizzles) one compact scale buffer in place.
/// MXFP8 columnwise scales [rup(M/32,4), rup(K,128)] are swizzled as their
/// transpose (docs/formats.md §4); every other scale matrix as it is.
void swizzleBuffer(const QTensor &q, int idx, bool toSwizzled) {
  const BufferDesc &d = q.layout[idx];
  auto *buf = static_cast<uint8_t *>(q.buffers[idx]);
  int64_t R = d.shape[0], C = d.shape[1];
  std::vector<uint8_t> tmp(static_cast<size_t>(R * C));
  bool transposed = q.config.recipe == Recipe::MXFP8 && d.columnwise;
  if (!transposed) {
    if (toSwizzled)
      swizzleScales(buf, tmp.data(), R, C);
    else
      unswizzleScales(buf, tmp.data(), R, C);
    copyBytes(buf, tmp.data(), tmp.size());
    return;
  }
  if (toSwizzled) {
    std::vector<uint8_t> t(tmp.size());
    for (int64_t r = 0; r < R; ++r)
      for (int64_t c = 0; c < C; ++c)
        t[c * R + r] = buf[r * C + c];
    swizzleScales(t.data(), buf, C, R);
  } else {
    unswizzleScales(buf, tmp.data(), C, R); // tmp is [C, R]
    for (int64_t r = 0; r < R; ++r)
      for (int64_t c = 0; c < C; ++c)
        buf[r * C + c] = tmp[c * R + r];
  }
}

/// A compact copy of scale buffer `idx` (unswizzled if needed).
std::vector<uint8_t> compactScaleBytes(const QTensor &q, int idx) {
  const BufferDesc &d = q.layout[idx];
  int64_t bytes = q.bufferBytes[idx];
  std::vector<uint8_t> out(static_cast<size_t>(bytes));
  copyBytes(out.data(), q.buffers[idx], out.size());
  if (q.swizzledScales && isBlockScaledBytes(q) &&
      d.role == BufferRole::ScaleInv) {
    QTensor view = q;
    view.buffers[idx] = out.data();
    swizzleBuffer(view, idx, /*toSwizzled=*/false);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// NVFP4 on a row-major [R, C] fp32 matrix (rows are the 1x16 groups)
//===----------------------------------------------------------------------===//

struct NVFP4Job {
  const QuantizerConfig *config;
  const float *src;
  int64_t R, C;
  const float *rowAmax; ///< per row (row-scaled) or nullptr
  float amax;           ///< tensor amax otherwise
  uint8_t *data;        ///< [R, C/2]
  uint8_t *scales;      ///< compact, row stride scaleStride
  int64_t scaleStride;
  uint64_t seed, offset; ///< stochastic rounding
};

void nvfp4SRGroup(const NVFP4Job &j, int64_t r, int64_t c0, int n, uint8_t code,
                  float globalAmax, uint8_t *nib) {
  float sEnc = nvfp4GlobalEncodeScale(globalAmax, kE4M3Max);
  float factor = nvfp4ElementFactor(code, nvfp4GlobalDecodeScale(sEnc));
  for (int i = 0; i < n; ++i) {
    int64_t idx = r * j.C + c0 + i;
    nib[i] = stochasticRoundE2M1(
        j.src[idx] * factor,
        philoxRandomByte(j.seed, j.offset, static_cast<uint64_t>(idx)));
  }
}

void nvfp4Quantize(const NVFP4Job &j, int threads) {
  const QuantizerConfig &cfg = *j.config;
  const int B = kNVFP4BlockSize;
  const int64_t halfC = j.C / 2;
  auto pack = [&](int64_t r, int64_t c0, const uint8_t *nib, int n) {
    for (int i = 0; i + 1 < n; i += 2)
      j.data[r * halfC + (c0 + i) / 2] = packE2M1x2(nib[i], nib[i + 1]);
  };
  if (!cfg.nvfp4_2D) {
    parallelFor(
        j.R, threads,
        std::max<int64_t>(1, kGrainElements / std::max<int64_t>(j.C, 1)),
        [&](int64_t rb, int64_t re) {
          uint8_t nib[kNVFP4BlockSize];
          for (int64_t r = rb; r < re; ++r) {
            float g = j.rowAmax ? j.rowAmax[r] : j.amax;
            for (int64_t c0 = 0; c0 < j.C; c0 += B) {
              int n = static_cast<int>(std::min<int64_t>(B, j.C - c0));
              const float *x = j.src + r * j.C + c0;
              float bam = blockAmax(x, n, 1);
              uint8_t code;
              if (cfg.stochasticRounding) {
                code = nvfp4BlockScaleCode(bam,
                                           nvfp4GlobalEncodeScale(g, kE4M3Max));
                nvfp4SRGroup(j, r, c0, n, code, g, nib);
              } else {
                quantizeNVFP4Block(x, n, 1, bam, g, cfg.use4over6, cfg.e4m3Max,
                                   cfg.errMode, nib, &code);
              }
              j.scales[r * j.scaleStride + c0 / B] = code;
              pack(r, c0, nib, n);
            }
          }
        });
    return;
  }
  // 16x16 tiles (R % 16 == 0 and C % 16 == 0 by verifyShape).
  int64_t tileRows = j.R / B, tileCols = j.C / B;
  parallelFor(tileRows, threads, 1, [&](int64_t tb, int64_t te) {
    uint8_t nib[kNVFP4BlockSize * kNVFP4BlockSize];
    for (int64_t tr = tb; tr < te; ++tr)
      for (int64_t tc = 0; tc < tileCols; ++tc) {
        const float *x = j.src + tr * B * j.C + tc * B;
        float g = j.amax; // 2D excludes row scaling (verifyConfig)
        uint8_t code =
            quantizeNVFP4Tile(x, j.C, /*columnGroups=*/false, g, cfg.use4over6,
                              cfg.e4m3Max, cfg.errMode, nib);
        for (int gI = 0; gI < B; ++gI) {
          int64_t r = tr * B + gI;
          if (cfg.stochasticRounding)
            nvfp4SRGroup(j, r, tc * B, B, code, g, nib + gI * B);
          j.scales[r * j.scaleStride + tc] = code;
          pack(r, tc * B, nib + gI * B, B);
        }
      }
  });
}

//===----------------------------------------------------------------------===//
// The backend
//===----------------------------------------------------------------------===//

class CpuBackend final : public Backend {
public:
  te_rt_backend kind() const override { return TE_RT_BACKEND_CPU; }
  void setNumThreads(int n) override { threads.store(n); }

  te_rt_status allocate(size_t bytes, void **out) override {
    size_t rounded = (std::max<size_t>(bytes, 1) + 255) / 256 * 256;
    void *p = std::aligned_alloc(256, rounded);
    if (!p)
      return fail(TE_RT_OUT_OF_MEMORY, "out of host memory allocating " +
                                           std::to_string(bytes) + " bytes");
    *out = p;
    return TE_RT_OK;
  }
  te_rt_status deallocate(void *ptr) override {
    std::free(ptr);
    return TE_RT_OK;
  }
  te_rt_status copy(void *dst, const void *src, size_t bytes,
                    te_rt_memcpy_kind) override {
    if (bytes)
      std::memmove(dst, src, bytes);
    return TE_RT_OK;
  }
  te_rt_status fillZero(void *dst, size_t bytes) override {
    if (bytes)
      std::memset(dst, 0, bytes);
    return TE_RT_OK;
  }
  te_rt_status synchronize(void *) override { return TE_RT_OK; }

  te_rt_status quantize(const Tensor &x, QTensor &q,
                        const QuantizeOptions &o) override;
  te_rt_status dequantize(const QTensor &q, Usage from, Tensor &out,
                          void *stream) override;
  te_rt_status amax(const Tensor &x, float *amaxOut, void *) override {
    ScopedIEEEFloatEnvironment ieee;
    *amaxOut = typedAmax(x, threads);
    return TE_RT_OK;
  }
  te_rt_status updateScale(const QuantizerConfig &config, float *history,
                           float *scale, int64_t L, int64_t n,
                           void *) override {
    ScopedIEEEFloatEnvironment ieee;
    std::vector<float> column(static_cast<size_t>(L));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t l = 0; l < L; ++l)
        column[l] = history[l * n + i];
      delayedScalingUpdate(column.data(), static_cast<int>(L), &scale[i],
                           nullptr, config.amaxAlgo, config.margin,
                           fp8Max(config.dtype));
      for (int64_t l = 0; l < L; ++l)
        history[l * n + i] = column[l];
    }
    return TE_RT_OK;
  }
  te_rt_status swizzleScales(QTensor &q, bool toSwizzled, void *) override {
    for (size_t i = 0; i < q.layout.size(); ++i)
      if (q.layout[i].role == BufferRole::ScaleInv)
        swizzleBuffer(q, static_cast<int>(i), toSwizzled);
    return TE_RT_OK;
  }
  te_rt_status gemm(const QTensor &a, const QTensor &b, Tensor *d,
                    const GemmOptions &o) override;
  te_rt_status matmul(const DenseMatmul &mm) override;
  te_rt_status attention(const Attention &a) override {
    return cpu::attentionForward(a, threads.load());
  }
  te_rt_status attentionGrad(const AttentionGrad &a) override {
    return cpu::attentionBackward(a, threads.load());
  }

private:
  void quantizePerTensor(const float *x, QTensor &q, float scale);
  void quantizeBlock(const float *x, QTensor &q, DType inputType);
  void quantizeMXFP8(const float *x, QTensor &q);
  void quantizeNVFP4(const float *x, QTensor &q, const QuantizeOptions &o);
  void dequantizeToFloat(const QTensor &q, Usage from, float *out);
  /// Per-tensor FP8: the values of the codes of `from`, unscaled, in the
  /// logical row-major layout (for per-row scaled GEMMs).
  void perTensorCodes(const QTensor &q, Usage from, float *out);

  /// Worker threads (0: hardware concurrency); atomic because
  /// te_rt_context_set_num_threads may run while another thread quantizes.
  std::atomic<int> threads{0};
};

namespace {
void storeElement(void *p, DType t, int64_t i, float v) {
  switch (t) {
  case DType::BF16:
    static_cast<uint16_t *>(p)[i] = floatToBF16(v);
    break;
  case DType::F16:
    static_cast<uint16_t *>(p)[i] = floatToF16(v);
    break;
  default:
    static_cast<float *>(p)[i] = v;
  }
}
} // namespace

te_rt_status CpuBackend::matmul(const DenseMatmul &mm) {
  // C[b, i, j] (+)= sum_k A'[b, i, k] B'[k, j]: the sum in f32, in k order,
  // added to C once (with accumulate) and rounded once. Rows of C in
  // parallel.
  const int64_t rows = mm.batch * mm.m;
  parallelFor(rows, threads, 16, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t bi = r / mm.m, i = r % mm.m;
      const int64_t aBase = bi * mm.batchStrideA, bBase = bi * mm.batchStrideB,
                    cBase = bi * mm.batchStrideC + i * mm.ldc;
      for (int64_t j = 0; j < mm.n; ++j) {
        float acc = 0.0f;
        for (int64_t kk = 0; kk < mm.k; ++kk) {
          const int64_t ai =
              mm.transA ? aBase + kk * mm.lda + i : aBase + i * mm.lda + kk;
          const int64_t bj =
              mm.transB ? bBase + j * mm.ldb + kk : bBase + kk * mm.ldb + j;
          acc += elementAt(mm.a, mm.aType, ai) * elementAt(mm.b, mm.bType, bj);
        }
        storeElement(mm.c, mm.cType, cBase + j,
                     mm.accumulate ? elementAt(mm.c, mm.cType, cBase + j) + acc
                                   : acc);
      }
    }
  });
  return TE_RT_OK;
}

void CpuBackend::quantizePerTensor(const float *x, QTensor &q, float scale) {
  const int64_t M = q.m, K = q.k;
  const DType t = q.config.dtype;
  auto *data = static_cast<uint8_t *>(q.perTensorData());
  auto *tr = static_cast<uint8_t *>(q.perTensorTranspose());
  auto *scaleInv =
      static_cast<float *>(q.buffer(BufferRole::ScaleInv, Rowwise));
  int64_t n = M * K;
  if (data)
    parallelFor(n, threads, kGrainElements, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        data[i] = quantizeFP8Element(x[i], scale, t);
    });
  if (tr)
    parallelFor(K, threads,
                std::max<int64_t>(1, kGrainElements / std::max<int64_t>(M, 1)),
                [&](int64_t b, int64_t e) {
                  for (int64_t k = b; k < e; ++k)
                    for (int64_t m = 0; m < M; ++m)
                      tr[k * M + m] =
                          quantizeFP8Element(x[m * K + k], scale, t);
                });
  *scaleInv = reciprocalRN(scale);
}

void CpuBackend::quantizeBlock(const float *x, QTensor &q, DType inputType) {
  const QuantizerConfig &c = q.config;
  const int64_t M = q.m, K = q.k, B = kFP8BlockSize;
  const DType t = c.dtype;
  int iRd = q.indexOf(BufferRole::Data, Rowwise),
      iRs = q.indexOf(BufferRole::ScaleInv, Rowwise);
  int iCd = q.indexOf(BufferRole::Data, Columnwise),
      iCs = q.indexOf(BufferRole::ScaleInv, Columnwise);
  auto *rd = iRd >= 0 ? static_cast<uint8_t *>(q.buffers[iRd]) : nullptr;
  auto *rs = iRs >= 0 ? static_cast<float *>(q.buffers[iRs]) : nullptr;
  auto *cd = iCd >= 0 ? static_cast<uint8_t *>(q.buffers[iCd]) : nullptr;
  auto *cs = iCs >= 0 ? static_cast<float *>(q.buffers[iCs]) : nullptr;
  int64_t rsStride = rs ? q.layout[iRs].shape[1] : 0;
  int64_t csStride = cs ? q.layout[iCs].shape[1] : 0;
  int64_t MB = (M + B - 1) / B, KB = (K + B - 1) / B;

  if (c.blockDim == 1) {
    if (rd) // 1x128 along K; scale of (m, kb) at [kb][m].
      parallelFor(M, threads, 64, [&](int64_t b, int64_t e) {
        for (int64_t m = b; m < e; ++m)
          for (int64_t kb = 0; kb < KB; ++kb) {
            int n = static_cast<int>(std::min(B, K - kb * B));
            const float *xs = x + m * K + kb * B;
            rs[kb * rsStride + m] = quantizeFP8BlockWithAmax(
                xs, n, 1, blockAmax(xs, n, 1), t, c.pow2Scales, c.amaxEpsilon,
                inputType, rd + m * K + kb * B);
          }
      });
    if (cd) // 128x1 along M, data [K, M]; scale of (k, mb) at [mb][k].
      parallelFor(K, threads, 64, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k)
          for (int64_t mb = 0; mb < MB; ++mb) {
            int n = static_cast<int>(std::min(B, M - mb * B));
            const float *xs = x + mb * B * K + k;
            cs[mb * csStride + k] = quantizeFP8BlockWithAmax(
                xs, n, K, blockAmax(xs, n, K), t, c.pow2Scales, c.amaxEpsilon,
                inputType, cd + k * M + mb * B);
          }
      });
    return;
  }
  // 128x128 tiles: one scale per tile; the columnwise copy is the transpose.
  parallelFor(MB, threads, 1, [&](int64_t b, int64_t e) {
    uint8_t codes[kFP8BlockSize * kFP8BlockSize];
    for (int64_t mb = b; mb < e; ++mb)
      for (int64_t kb = 0; kb < KB; ++kb) {
        int rows = static_cast<int>(std::min(B, M - mb * B));
        int cols = static_cast<int>(std::min(B, K - kb * B));
        const float *xt = x + mb * B * K + kb * B;
        float amax = 0.0f;
        for (int r = 0; r < rows; ++r)
          amax = fmaxNum(amax, blockAmax(xt + r * K, cols, 1));
        float sInv = 0.0f;
        for (int r = 0; r < rows; ++r)
          sInv = quantizeFP8BlockWithAmax(xt + r * K, cols, 1, amax, t,
                                          c.pow2Scales, c.amaxEpsilon,
                                          inputType, codes + r * B);
        for (int r = 0; r < rows; ++r)
          for (int cI = 0; cI < cols; ++cI) {
            int64_t m = mb * B + r, k = kb * B + cI;
            if (rd)
              rd[m * K + k] = codes[r * B + cI];
            if (cd)
              cd[k * M + m] = codes[r * B + cI];
          }
        if (rs)
          rs[mb * rsStride + kb] = sInv;
        if (cs)
          cs[kb * csStride + mb] = sInv;
      }
  });
}

void CpuBackend::quantizeMXFP8(const float *x, QTensor &q) {
  const QuantizerConfig &c = q.config;
  const int64_t M = q.m, K = q.k, B = kMXFP8BlockSize;
  const DType t = c.dtype;
  int iRd = q.indexOf(BufferRole::Data, Rowwise),
      iRs = q.indexOf(BufferRole::ScaleInv, Rowwise);
  int iCd = q.indexOf(BufferRole::Data, Columnwise),
      iCs = q.indexOf(BufferRole::ScaleInv, Columnwise);
  auto *rd = iRd >= 0 ? static_cast<uint8_t *>(q.buffers[iRd]) : nullptr;
  auto *rs = iRs >= 0 ? static_cast<uint8_t *>(q.buffers[iRs]) : nullptr;
  auto *cd = iCd >= 0 ? static_cast<uint8_t *>(q.buffers[iCd]) : nullptr;
  auto *cs = iCs >= 0 ? static_cast<uint8_t *>(q.buffers[iCs]) : nullptr;
  int64_t rsStride = rs ? q.layout[iRs].shape[1] : 0;
  int64_t csStride = cs ? q.layout[iCs].shape[1] : 0;
  int64_t MB = (M + B - 1) / B, KB = (K + B - 1) / B;

  if (!c.mx2D) {
    if (rd) // 1x32 along K; compact scale [m][kb].
      parallelFor(M, threads, 64, [&](int64_t b, int64_t e) {
        for (int64_t m = b; m < e; ++m)
          for (int64_t kb = 0; kb < KB; ++kb) {
            int n = static_cast<int>(std::min(B, K - kb * B));
            rs[m * rsStride + kb] =
                quantizeMXFP8Block(x + m * K + kb * B, n, 1, t, c.e8m0Rounding,
                                   rd + m * K + kb * B);
          }
      });
    if (cd) // 32x1 along M, data not transposed; compact scale [mb][k].
      parallelFor(MB, threads, 1, [&](int64_t b, int64_t e) {
        for (int64_t mb = b; mb < e; ++mb)
          for (int64_t k = 0; k < K; ++k) {
            int n = static_cast<int>(std::min(B, M - mb * B));
            cs[mb * csStride + k] =
                quantizeMXFP8Block(x + mb * B * K + k, n, K, t, c.e8m0Rounding,
                                   cd + mb * B * K + k, K);
          }
      });
    return;
  }
  // 32x32 blocks: one code per block, written to every row's and column's
  // scale; rowwise and columnwise data are identical.
  parallelFor(MB, threads, 1, [&](int64_t b, int64_t e) {
    for (int64_t mb = b; mb < e; ++mb)
      for (int64_t kb = 0; kb < KB; ++kb) {
        int rows = static_cast<int>(std::min(B, M - mb * B));
        int cols = static_cast<int>(std::min(B, K - kb * B));
        const float *xt = x + mb * B * K + kb * B;
        float amax = 0.0f;
        for (int r = 0; r < rows; ++r)
          amax = fmaxNum(amax, blockAmax(xt + r * K, cols, 1));
        uint8_t code = 0;
        for (int r = 0; r < rows; ++r) {
          int64_t off = (mb * B + r) * K + kb * B;
          uint8_t *dst = rd ? rd + off : cd + off;
          code = quantizeMXFP8BlockWithAmax(xt + r * K, cols, 1, amax, t,
                                            c.e8m0Rounding, dst);
          if (rd && cd)
            std::memcpy(cd + off, rd + off, static_cast<size_t>(cols));
          if (rs)
            rs[(mb * B + r) * rsStride + kb] = code;
        }
        if (cs)
          for (int cI = 0; cI < cols; ++cI)
            cs[mb * csStride + kb * B + cI] = code;
      }
  });
}

void CpuBackend::quantizeNVFP4(const float *x, QTensor &q,
                               const QuantizeOptions &o) {
  const QuantizerConfig &c = q.config;
  const int64_t M = q.m, K = q.k;
  int iRd = q.indexOf(BufferRole::Data, Rowwise),
      iRs = q.indexOf(BufferRole::ScaleInv, Rowwise);
  int iCd = q.indexOf(BufferRole::Data, Columnwise),
      iCs = q.indexOf(BufferRole::ScaleInv, Columnwise);
  auto *ra = static_cast<float *>(q.buffer(BufferRole::Amax, Rowwise));
  auto *ca = static_cast<float *>(q.buffer(BufferRole::Amax, Columnwise));

  // Rowwise: plain x, pre-RHT amax.
  std::vector<float> rowAmax;
  float amax = 0.0f;
  if (c.rowScaled) {
    rowAmax.resize(static_cast<size_t>(M));
    for (int64_t m = 0; m < M; ++m)
      rowAmax[m] = blockAmax(x + m * K, static_cast<int>(K), 1);
  } else {
    // amax_in (after an all-reduce): [0] rowwise amax, [1] columnwise amax.
    amax = o.amaxIn ? o.amaxIn[0] : tensorAmax(x, M * K, threads);
  }
  if (iRd >= 0) {
    NVFP4Job j{&c,
               x,
               M,
               K,
               c.rowScaled ? rowAmax.data() : nullptr,
               amax,
               static_cast<uint8_t *>(q.buffers[iRd]),
               static_cast<uint8_t *>(q.buffers[iRs]),
               q.layout[iRs].shape[1],
               o.seed,
               o.offset};
    nvfp4Quantize(j, threads);
    if (ra) {
      if (c.rowScaled)
        copyBytes(ra, rowAmax.data(), rowAmax.size() * sizeof(float));
      else
        *ra = amax;
    }
  }
  if (iCd < 0)
    return;
  // Columnwise: x^T [K, M], with the RHT along M (16-element chunks of each
  // row of x^T), rounded to bf16.
  std::vector<float> xt = transpose(x, M, K);
  if (c.rht) {
    parallelFor(K, threads, 16, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k)
        for (int64_t m0 = 0; m0 + kRHTSize <= M; m0 += kRHTSize) {
          float *chunk = xt.data() + k * M + m0;
          float in[kRHTSize];
          std::memcpy(in, chunk, sizeof(in));
          rht16(in, c.rhtSignMask, chunk);
        }
    });
  }
  std::vector<float> colAmax;
  float amaxT = amax;
  if (c.rowScaled) {
    colAmax.resize(static_cast<size_t>(K));
    for (int64_t k = 0; k < K; ++k)
      colAmax[k] = blockAmax(xt.data() + k * M, static_cast<int>(M), 1);
  } else if (o.amaxIn) {
    amaxT = o.amaxIn[1];
  } else if (c.rht) {
    amaxT = tensorAmax(xt.data(), M * K, threads);
  }
  uint64_t colOffset = nvfp4ColumnwiseRandomOffset(o.offset, M * K);
  NVFP4Job j{&c,
             xt.data(),
             K,
             M,
             c.rowScaled ? colAmax.data() : nullptr,
             amaxT,
             static_cast<uint8_t *>(q.buffers[iCd]),
             static_cast<uint8_t *>(q.buffers[iCs]),
             q.layout[iCs].shape[1],
             o.seed,
             colOffset};
  nvfp4Quantize(j, threads);
  if (ca) {
    if (c.rowScaled)
      copyBytes(ca, colAmax.data(), colAmax.size() * sizeof(float));
    else
      *ca = amaxT;
  }
}

te_rt_status CpuBackend::quantize(const Tensor &x, QTensor &q,
                                  const QuantizeOptions &o) {
  ScopedIEEEFloatEnvironment ieee;
  for (size_t i = 0; i < q.buffers.size(); ++i)
    std::memset(q.buffers[i], 0, static_cast<size_t>(q.bufferBytes[i]));
  std::vector<float> xf =
      o.producer ? evaluateProducerToFloat(*o.producer, x) : toFloat(x);
  const QuantizerConfig &c = q.config;
  switch (c.recipe) {
  case Recipe::Delayed: {
    float amax = tensorAmax(xf.data(), x.numElements, threads);
    quantizePerTensor(xf.data(), q, *o.scale);
    if (o.amaxOut)
      *o.amaxOut = amax;
    break;
  }
  case Recipe::Current: {
    float amax =
        o.amaxIn ? *o.amaxIn : tensorAmax(xf.data(), x.numElements, threads);
    float scale = computeScaleFromAmax(amax, fp8Max(c.dtype), c.pow2Scales,
                                       c.amaxEpsilon, kFloatMax);
    quantizePerTensor(xf.data(), q, scale);
    if (o.amaxOut)
      *o.amaxOut = amax;
    break;
  }
  case Recipe::Block:
    quantizeBlock(xf.data(), q, x.dtype);
    break;
  case Recipe::MXFP8:
    quantizeMXFP8(xf.data(), q);
    break;
  case Recipe::NVFP4:
    quantizeNVFP4(xf.data(), q, o);
    break;
  }
  if (q.swizzledScales && isBlockScaledBytes(q))
    for (size_t i = 0; i < q.layout.size(); ++i)
      if (q.layout[i].role == BufferRole::ScaleInv)
        swizzleBuffer(q, static_cast<int>(i), /*toSwizzled=*/true);
  return TE_RT_OK;
}

void CpuBackend::perTensorCodes(const QTensor &q, Usage from, float *out) {
  const int64_t M = q.m, K = q.k;
  auto *tr = static_cast<const uint8_t *>(q.perTensorTranspose());
  auto *data = static_cast<const uint8_t *>(q.perTensorData());
  if (from == Columnwise && tr) {
    for (int64_t k = 0; k < K; ++k)
      for (int64_t m = 0; m < M; ++m)
        out[m * K + k] = decodeFP8(tr[k * M + m], q.config.dtype);
  } else {
    for (int64_t i = 0; i < M * K; ++i)
      out[i] = decodeFP8(data[i], q.config.dtype);
  }
}

void CpuBackend::dequantizeToFloat(const QTensor &q, Usage from, float *out) {
  const QuantizerConfig &c = q.config;
  const int64_t M = q.m, K = q.k;
  const bool col = from == Columnwise;
  switch (c.recipe) {
  case Recipe::Delayed:
  case Recipe::Current: {
    float sInv =
        *static_cast<const float *>(q.buffer(BufferRole::ScaleInv, Rowwise));
    auto *tr = static_cast<const uint8_t *>(q.perTensorTranspose());
    auto *data = static_cast<const uint8_t *>(q.perTensorData());
    if (col && tr) {
      for (int64_t k = 0; k < K; ++k)
        for (int64_t m = 0; m < M; ++m)
          out[m * K + k] = decodeFP8(tr[k * M + m], c.dtype) * sInv;
    } else {
      for (int64_t i = 0; i < M * K; ++i)
        out[i] = decodeFP8(data[i], c.dtype) * sInv;
    }
    return;
  }
  case Recipe::Block: {
    const int64_t B = kFP8BlockSize;
    int iD = q.indexOf(BufferRole::Data, col ? Columnwise : Rowwise);
    int iS = q.indexOf(BufferRole::ScaleInv, col ? Columnwise : Rowwise);
    auto *d = static_cast<const uint8_t *>(q.buffers[iD]);
    auto *s = static_cast<const float *>(q.buffers[iS]);
    int64_t S = q.layout[iS].shape[1];
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k) {
        float sInv;
        if (c.blockDim == 1)
          sInv = col ? s[(m / B) * S + k] : s[(k / B) * S + m];
        else
          sInv = col ? s[(k / B) * S + m / B] : s[(m / B) * S + k / B];
        uint8_t code = col ? d[k * M + m] : d[m * K + k];
        out[m * K + k] = decodeFP8(code, c.dtype) * sInv;
      }
    return;
  }
  case Recipe::MXFP8: {
    const int64_t B = kMXFP8BlockSize;
    int iD = q.indexOf(BufferRole::Data, col ? Columnwise : Rowwise);
    int iS = q.indexOf(BufferRole::ScaleInv, col ? Columnwise : Rowwise);
    auto *d = static_cast<const uint8_t *>(q.buffers[iD]);
    std::vector<uint8_t> s = compactScaleBytes(q, iS);
    int64_t S = q.layout[iS].shape[1];
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k) {
        uint8_t e = col ? s[(m / B) * S + k] : s[m * S + k / B];
        out[m * K + k] = decodeFP8(d[m * K + k], c.dtype) * decodeE8M0(e);
      }
    return;
  }
  case Recipe::NVFP4: {
    const int64_t B = kNVFP4BlockSize;
    const float e4m3Max = c.use4over6 ? c.e4m3Max : kE4M3Max;
    int iD = q.indexOf(BufferRole::Data, col ? Columnwise : Rowwise);
    int iS = q.indexOf(BufferRole::ScaleInv, col ? Columnwise : Rowwise);
    auto *d = static_cast<const uint8_t *>(q.buffers[iD]);
    auto *amax = static_cast<const float *>(
        q.buffer(BufferRole::Amax, col ? Columnwise : Rowwise));
    std::vector<uint8_t> s = compactScaleBytes(q, iS);
    int64_t S = q.layout[iS].shape[1];
    // Rows of the stored representation: M (rowwise) or K (columnwise).
    int64_t R = col ? K : M, C = col ? M : K;
    std::vector<float> v(static_cast<size_t>(R * C));
    for (int64_t r = 0; r < R; ++r) {
      float g = c.rowScaled ? amax[r] : amax[0];
      for (int64_t cI = 0; cI < C; ++cI) {
        uint8_t byte = d[r * (C / 2) + cI / 2];
        uint8_t nib = (cI & 1) ? (byte >> 4) : (byte & 0xF);
        v[r * C + cI] =
            decodeE2M1(nib) * nvfp4DequantFactor(s[r * S + cI / B], g, e4m3Max);
      }
    }
    if (col && c.rht) {
      // v' = v * Mrht with Mrht orthogonal: v = v' * Mrht^T.
      for (int64_t r = 0; r < R; ++r)
        for (int64_t c0 = 0; c0 + kRHTSize <= C; c0 += kRHTSize) {
          float *chunk = v.data() + r * C + c0;
          double res[kRHTSize];
          for (int i = 0; i < kRHTSize; ++i) {
            double sum = 0.0;
            for (int jI = 0; jI < kRHTSize; ++jI)
              sum += static_cast<double>(chunk[jI]) *
                     rhtMatrixEntry(c.rhtSignMask, i, jI);
            res[i] = sum;
          }
          for (int i = 0; i < kRHTSize; ++i)
            chunk[i] = static_cast<float>(res[i]);
        }
    }
    if (col) {
      for (int64_t k = 0; k < K; ++k)
        for (int64_t m = 0; m < M; ++m)
          out[m * K + k] = v[k * M + m];
    } else {
      copyBytes(out, v.data(), v.size() * sizeof(float));
    }
    return;
  }
  }
}

te_rt_status CpuBackend::dequantize(const QTensor &q, Usage from, Tensor &out,
                                    void *) {
  ScopedIEEEFloatEnvironment ieee;
  std::vector<float> v(static_cast<size_t>(q.m * q.k));
  dequantizeToFloat(q, from, v.data());
  fromFloat(v.data(), out);
  return TE_RT_OK;
}

te_rt_status CpuBackend::gemm(const QTensor &a, const QTensor &b, Tensor *d,
                              const GemmOptions &o) {
  ScopedIEEEFloatEnvironment ieee;
  const GemmLayout layout = static_cast<GemmLayout>(o.layout);
  const GemmUsages reads = gemmOperandUsages(layout);
  std::vector<float> A(static_cast<size_t>(a.m * a.k)),
      Bm(static_cast<size_t>(b.m * b.k));
  const bool rowScaled = o.aRowScaleInv != nullptr;
  if (rowScaled) {
    // Per-row scales replace the per-tensor scale_inv: the operands are the
    // FP8 values of their codes, scaled per output row / column below.
    perTensorCodes(a, reads.a, A.data());
    perTensorCodes(b, reads.b, Bm.data());
  } else {
    dequantizeToFloat(a, reads.a, A.data());
    dequantizeToFloat(b, reads.b, Bm.data());
  }
  const int64_t M = o.m, N = o.n, K = o.k;
  // Row-major 2-D operands (format::gemmAxes): bring both to [rows, K] so
  // that the dot products read contiguous memory.
  const GemmAxes axes = gemmAxes(layout);
  if (axes.aK == 0)
    A = transpose(A.data(), K, N);
  if (axes.bK == 0)
    Bm = transpose(Bm.data(), K, M);
  std::vector<float> result(static_cast<size_t>(M * N));
  std::vector<float> old;
  if (o.accumulate && d)
    old = toFloat(*d);
  parallelFor(
      M, threads, std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(N * K, 1)),
      [&](int64_t mb, int64_t me) {
        for (int64_t m = mb; m < me; ++m) {
          const float *bp = Bm.data() + m * K;
          for (int64_t n = 0; n < N; ++n) {
            const float *ap = A.data() + n * K;
            double acc = 0.0;
            for (int64_t k = 0; k < K; ++k)
              acc += static_cast<double>(ap[k]) * static_cast<double>(bp[k]);
            double r = static_cast<double>(o.alpha) * acc;
            if (rowScaled)
              r *= static_cast<double>(o.bRowScaleInv[m]) *
                   static_cast<double>(o.aRowScaleInv[n]);
            if (o.bias)
              r += static_cast<double>(readScalar(*o.bias, n));
            if (!old.empty())
              r += static_cast<double>(old[m * N + n]);
            result[m * N + n] = static_cast<float>(r);
          }
        }
      });
  if (d)
    fromFloat(result.data(), *d);
  if (o.info)
    o.info->path = TE_RT_GEMM_PATH_CPU_REFERENCE;
  if (o.output) {
    Tensor t;
    t.data = result.data();
    t.dtype = DType::F32;
    t.shape = {M, N};
    t.m = M;
    t.k = N;
    t.numElements = M * N;
    return quantize(t, *o.output, o.outputOptions);
  }
  return TE_RT_OK;
}

} // namespace

std::unique_ptr<Backend> createCpuBackend() {
  return std::unique_ptr<Backend>(new (std::nothrow) CpuBackend());
}

} // namespace te::rt
