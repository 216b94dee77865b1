//===- QuantizeMXFP8.h - MXFP8 quantization ---------------------*- C++ -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Launcher of QuantizeMXFP8.cu: MXFP8 (1x32 / 32x1, or 32x32) quantization.
// Every pointer is a device pointer; the launcher enqueues on `stream` and
// returns the launch status (cudaGetLastError).
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_QUANTIZEMXFP8_H
#define TE_RT_CUDA_QUANTIZEMXFP8_H

#include "te/Format/Types.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace te::rt::cuda {

/// MXFP8 quantization (1x32 / 32x1, or 32x32), compact scales.
struct MXFP8Args {
  format::DType fp8 = format::DType::E4M3;
  format::DType inType = format::DType::F32;
  bool twoD = false;
  format::E8M0Rounding rounding = format::E8M0Rounding::Up;
  uint8_t *rowData = nullptr;
  uint8_t *rowScale = nullptr;
  int64_t rowScaleStride = 0;
  uint8_t *colData = nullptr;
  uint8_t *colScale = nullptr;
  int64_t colScaleStride = 0;
};
cudaError_t launchMXFP8Quantize(const void *x, int64_t M, int64_t K,
                                const MXFP8Args &args, cudaStream_t stream);

/// True if the tile kernels take x [M, K]: M % 32 == 0, K % 64 == 0, x
/// F32/BF16/F16 and 16-byte aligned, the data buffers 8-byte aligned (null
/// allowed), the bandwidth kernels not turned off (FastKernels.h).
/// launchMXFP8Quantize dispatches to them by itself; the predicate tells the
/// backend that every byte of the data buffers will be written (no zeroing
/// needed).
bool mxfp8FastPath(const void *x, format::DType t, int64_t M, int64_t K,
                   const void *rowData, const void *colData);

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_QUANTIZEMXFP8_H
