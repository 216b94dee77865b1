//===- FlashAttention.h - Flash attention kernels of the cuda backend -*- C++
//-*-===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// The cuda backend's attention (README.md beside this file): the kernel
// parameters, the launchers (FlashForward.cu, FlashBackward.cu), and the
// entry points that check what the kernels cover and run them
// (FlashAttention.cpp), called by CudaBackend::attention / attentionGrad.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_CUDA_ATTENTION_FLASHATTENTION_H
#define TE_RT_CUDA_ATTENTION_FLASHATTENTION_H

#include "te_rt.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace te::rt {
struct Attention;
struct AttentionGrad;
} // namespace te::rt

namespace te::rt::cuda::attn {

/// The mask of a launch (AttentionMask + its element type).
enum MaskCode : int {
  kMaskNone = 0,
  kMaskF32 = 1,
  kMaskBF16 = 2,
  kMaskF16 = 3,
  kMaskBool = 4, ///< U8, nonzero = keep
};

/// One 4-D operand: [B, H, rows, cols] with element strides of the first
/// three dimensions (the last is contiguous).
struct Operand {
  void *data;
  int64_t sb, sh, sr;
};

/// The forward's parameters (and what the backward reads of the forward).
struct FwdParams {
  Operand q, k, v, o;
  float *lse; ///< [B, Hq, L] contiguous, or null
  int B, Hq, Hkv, L, S;
  int headDim;      ///< E = Ev: 64 or 128
  int group;        ///< Hq / Hkv
  float scale;      ///< softmax scale (mask added after it)
  float scaleLog2;  ///< scale * log2(e)
  int causal;       ///< top-left
  int maskCode;     ///< MaskCode
  const void *mask; ///< element (b, h, i, j) at b*msb + h*msh + i*msr + j*msc
  int64_t msb, msh, msr, msc;
  int maskPairs; ///< msc = 1, even msb, msh, msr, data aligned to two elements
};

/// The backward's parameters.
struct BwdParams {
  FwdParams f;
  Operand dout, dq, dk, dv;
  float *dqAccum; ///< fp32 [B, Hq, L, D] contiguous, zeroed
  float *delta;   ///< [B, Hq, L]: rowsum(dO * O)
  float *lse2;    ///< [B, Hq, L]: lse * log2(e); +inf where lse = -inf
};

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

/// Launches the forward on `stream` (f16: __half, else bf16).
cudaError_t forward(const FwdParams &p, bool f16, cudaStream_t stream);

/// Launches the Hopper forward (FlashForwardSm90.cu, wgmma; compute
/// capability 9.0 only) on `stream`; `overlap`: the pipelined kernel.
cudaError_t forwardSm90(const FwdParams &p, bool f16, bool overlap,
                        cudaStream_t stream);

/// Launches the warp-specialized Hopper forward (FlashForwardSm90Ws.cu: TMA
/// producer warp, two ping-pong consumer warpgroups; compute capability 9.0
/// only) on `stream`.
cudaError_t forwardSm90Ws(const FwdParams &p, bool f16, cudaStream_t stream);

/// Which forward kernel runs: Auto takes kAutoSm90 (FlashAttention.cpp) on
/// compute capability 9.0 and MmaSync elsewhere; the wgmma kernels run on
/// 9.0 only. Process-wide; tests and benchmarks set it to run each.
enum class ForwardKernel {
  Auto = 0,
  MmaSync = 1,      ///< FlashForward.cu
  Wgmma = 2,        ///< FlashForwardSm90.cu, products then softmax
  WgmmaOverlap = 3, ///< FlashForwardSm90.cu, products under the softmax
  WgmmaWs = 4,      ///< FlashForwardSm90Ws.cu, warp-specialized, ping-pong
};
void setForwardKernel(ForwardKernel k);
/// Whether the current device runs the wgmma forward.
bool wgmmaForwardAvailable();

/// Launches the backward on `stream`: the preprocess (delta, lse2), the
/// key-block kernel (dK, dV; dQ added into p.dqAccum, which the caller
/// zeroed) and the dQ conversion.
cudaError_t backward(const BwdParams &p, bool f16, cudaStream_t stream);

/// The backward's key-block kernel (step 2 of FlashBackward.cu): CTAs of 64
/// keys (FlashBackward.cu, the default) or of 128 keys with the next query
/// block prefetched (FlashBackwardWide.cu). Process-wide, for tests and
/// benchmarks.
enum class BackwardKernel {
  Keys64 = 0,
  Keys128 = 1,
};
void setBackwardKernel(BackwardKernel k);
/// Launches FlashBackwardWide.cu's key-block kernel on `stream`.
cudaError_t backwardKeyBlocksWide(const BwdParams &p, bool f16,
                                  cudaStream_t stream);

/// The cuda backend's Backend::attention: TE_RT_UNSUPPORTED (with the
/// reason) for what the kernels do not cover.
te_rt_status runAttention(const Attention &a);
/// The cuda backend's Backend::attentionGrad.
te_rt_status runAttentionGrad(const AttentionGrad &a);

} // namespace te::rt::cuda::attn

#endif // TE_RT_CUDA_ATTENTION_FLASHATTENTION_H
