//===- ProducerKernels.h - Producer programs on the GPU ----------*- C++
//-*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Launchers of ProducerKernels.cu: the evaluation of a producer program
// (runtime/lib/Producer.h) into a buffer, and the column sums of a buffer.
// Every pointer is a device pointer; every launcher enqueues on `stream` and
// returns the launch status.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_PRODUCERKERNELS_H
#define TE_RT_CUDA_PRODUCERKERNELS_H

#include "Producer.h"

#include "te/Format/Types.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace te::rt::cuda {

/// out (M x K row-major, xType F32 / BF16 / F16) = the program's value at
/// every (r, c), rounded to xType (te::rt::evaluateProducerN); amax (may be
/// null) = max |out| (NaN ignored; zeroed first).
cudaError_t launchProducerEvaluate(const Producer &p, int64_t M, int64_t K,
                                   format::DType xType, void *out, float *amax,
                                   cudaStream_t stream);

/// colsum[c] (= or += with accumulate) the sum over r of x[r, c] (M x K,
/// xType), in double, rounded to f32 once before the add: partial sums of
/// row chunks into a temporary, then the chunks in order (deterministic, no
/// atomics).
cudaError_t launchColumnSum(const void *x, format::DType xType, int64_t M,
                            int64_t K, float *colsum, bool accumulate,
                            cudaStream_t stream);

} // namespace te::rt::cuda

#endif // TE_RT_CUDA_PRODUCERKERNELS_H
