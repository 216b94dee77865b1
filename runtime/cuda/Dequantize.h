//===- Dequantize.h - Dequantization ----------------------------*- C++ -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Launchers of Dequantize.cu. Every pointer is a device pointer; every
// launcher enqueues on `stream` and returns the launch status
// (cudaGetLastError).
//
// launchDequantize: every recipe and representation, one thread per element,
// as the cpu backend's dequantizeToFloat (logical [M, K] output).
//
// launchVectorDequantize (MXFP8, NVFP4):
// One launch per operand: each thread turns 16 consecutive elements of a row
// of the *stored* representation into 16 bf16 (two 16-byte stores) or fp32
// values, from one 16-byte (MXFP8) or 8-byte (NVFP4) load. The values are
// Format's (decodeFP8 / decodeE8M0 / decodeE2M1 / decodeE4M3 /
// nvfp4DequantFactor, multiplied in the same order as the general
// dequantKernel of Dequantize.cu, then floatToBF16), so the output is
// bit-identical to it; MXFP8 E4M3·2^k and NVFP4 E2M1·E4M3 are exact in bf16.
//
// The GEMM emulation (Gemm.cpp) uses the stored orientation directly: an
// NVFP4 columnwise copy, stored [K, M], is dequantized to a [K, M] matrix and
// the GEMM's transpose flag is flipped instead of transposing the data.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_DEQUANTIZE_H
#define TE_RT_CUDA_DEQUANTIZE_H

#include "te/Format/Types.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace te::rt::cuda {

/// Dequantization of one representation into a row-major [M, K] tensor of
/// `outType` (F32/BF16/F16), as the cpu backend's dequantizeToFloat.
struct DequantArgs {
  format::Recipe recipe = format::Recipe::Current;
  format::DType fp8 = format::DType::E4M3;
  int64_t M = 0, K = 0;
  bool columnwise = false;
  /// Per-tensor: the data is `_transpose` [K, M] (else [M, K]).
  bool transposedData = false;
  const uint8_t *data = nullptr;
  const void *scale = nullptr; ///< scale_inv buffer
  int64_t scaleRows = 0, scaleCols = 0;
  bool swizzled = false;
  int blockDim = 1;
  /// NVFP4.
  const float *amax = nullptr;
  bool rowScaled = false;
  float e4m3Max = 448.0f;
  bool inverseRHT = false;
  uint32_t signMask = 0;
  /// NVFP4: multiply by the block scale only (E2M1 * E4M3, exact in bf16),
  /// leaving the global factor amax / (6 * e4m3Max) to the caller.
  bool blockScaleOnly = false;
  void *out = nullptr;
  format::DType outType = format::DType::F32;
};
cudaError_t launchDequantize(const DequantArgs &args, cudaStream_t stream);

/// The vector kernels' operand: the stored representation of an MXFP8 or
/// NVFP4 tensor.
struct VectorDequantArgs {
  format::Recipe recipe = format::Recipe::MXFP8; ///< MXFP8 or NVFP4
  format::DType fp8 = format::DType::E4M3;       ///< MXFP8 element type
  /// The stored representation: R rows of C elements (NVFP4: C / 2 bytes).
  const uint8_t *data = nullptr;
  int64_t R = 0, C = 0;
  /// The scale buffer ([scaleRows, scaleCols] compact, or swizzled).
  const uint8_t *scale = nullptr;
  int64_t scaleRows = 0, scaleCols = 0;
  bool swizzled = false;
  /// MXFP8 columnwise (32x1 blocks): element (r, c) uses scale (r / 32, c),
  /// stored transposed when swizzled. Otherwise (r, c / block).
  bool columnBlocks = false;
  /// NVFP4: block scale only (E2M1 * E4M3), or the full factor with the
  /// global amax (one, or one per stored row when rowScaled).
  bool blockScaleOnly = true;
  const float *amax = nullptr;
  bool rowScaled = false;
  float e4m3Max = 448.0f;
  void *out = nullptr;                         ///< [R, C] row-major
  format::DType outType = format::DType::BF16; ///< BF16 or F32
};

/// True if the vector kernel handles `a`: MXFP8 or NVFP4, C % 16 == 0, the
/// data 16-byte (MXFP8) / 8-byte (NVFP4) aligned, out 16-byte aligned, BF16
/// or F32 output. te_rt_context_set_fast_kernels(ctx, 0) turns it off
/// (before/after timings).
bool vectorDequantizeApplies(const VectorDequantArgs &a);
cudaError_t launchVectorDequantize(const VectorDequantArgs &a,
                                   cudaStream_t stream);

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_DEQUANTIZE_H
