//===- QuantizeBlock.h - Float8Block quantization ---------------*- C++ -*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Launcher of QuantizeBlock.cu: Float8Block (1x128 / 128x128) quantization.
// Every pointer is a device pointer; the launcher enqueues on `stream` and
// returns the launch status (cudaGetLastError).
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_QUANTIZEBLOCK_H
#define TE_RT_CUDA_QUANTIZEBLOCK_H

#include "te/Format/Types.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace te::rt::cuda {

/// Float8Block quantization (1x128 / 128x128), both representations in one
/// read of x [M, K]. Buffers may be null when the usage lacks them; scale
/// strides are the layout's row lengths.
struct BlockArgs {
  format::DType fp8 = format::DType::E4M3;
  format::DType inType = format::DType::F32;
  int blockDim = 1;
  bool pow2 = false;
  float eps = 0.0f;
  uint8_t *rowData = nullptr;
  float *rowScale = nullptr;
  int64_t rowScaleStride = 0;
  uint8_t *colData = nullptr;
  float *colScale = nullptr;
  int64_t colScaleStride = 0;
};
cudaError_t launchBlockQuantize(const void *x, int64_t M, int64_t K,
                                const BlockArgs &args, cudaStream_t stream);

/// True if the tile kernel takes x [M, K]: M % 128 == 0, K % 128 == 0, x
/// F32/BF16/F16 and 16-byte aligned, the data buffers 8-byte aligned (null
/// allowed), the bandwidth kernels not turned off (FastKernels.h).
/// launchBlockQuantize dispatches to it by itself; the predicate tells the
/// backend that every byte of the data buffers will be written (no zeroing
/// needed).
bool blockFastPath(const void *x, format::DType t, int64_t M, int64_t K,
                   const void *rowData, const void *colData);

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_QUANTIZEBLOCK_H
