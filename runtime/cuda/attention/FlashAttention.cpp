//===- FlashAttention.cpp - The cuda backend's attention entry points -----===//
//
// Part of te. Internal to libte_rt's cuda backend.
//
//===----------------------------------------------------------------------===//
//
// Checks what the flash kernels cover (the front end has checked shapes,
// strides and dtypes against each other), fills their parameters, takes the
// backward's workspace (stream-ordered, DeviceTemp.h) and launches.
//
//===----------------------------------------------------------------------===//

#include "FlashAttention.h"

#include "Backend.h"
#include "DeviceTemp.h"
#include "Error.h"

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>

namespace te::rt::cuda::attn {
namespace {

te_rt_status unsupported(const std::string &why) {
  return fail(TE_RT_UNSUPPORTED, "cuda attention: " + why);
}

te_rt_status cudaFailure(cudaError_t e, const char *what) {
  return fail(TE_RT_CUDA_ERROR, std::string("cuda attention: ") + what + ": " +
                                    cudaGetErrorString(e));
}

/// 16-byte aligned data and row/head/batch strides (cp.async moves 16
/// bytes), contiguous last dimension.
bool alignedOperand(const AttentionOperand &x) {
  if (reinterpret_cast<uintptr_t>(x.data) % 16 != 0 || x.strides[3] != 1)
    return false;
  for (int d = 0; d < 3; ++d)
    if (x.shape[d] > 1 && x.strides[d] % 8 != 0)
      return false;
  return true;
}

Operand operand(const AttentionOperand &x) {
  // A size-1 dimension is never stepped; its stride may be anything.
  return Operand{const_cast<void *>(x.data), x.shape[0] > 1 ? x.strides[0] : 0,
                 x.shape[1] > 1 ? x.strides[1] : 0,
                 x.shape[2] > 1 ? x.strides[2] : 0};
}

/// Fills `p` from `a`, or returns why the kernels do not cover it.
te_rt_status forwardParams(const Attention &a, FwdParams &p) {
  if (a.dtype != format::DType::BF16 && a.dtype != format::DType::F16)
    return unsupported("the kernels take bf16 and f16 inputs (f32 runs on "
                       "the cpu backend)");
  const int64_t E = a.q.shape[3], Ev = a.v.shape[3];
  if (E != Ev || (E != 64 && E != 128))
    return unsupported("head dims " + std::to_string(E) + " (query, key) and " +
                       std::to_string(Ev) +
                       " (value): the kernels take equal head dims of 64 or "
                       "128");
  for (const AttentionOperand *x : {&a.q, &a.k, &a.v, &a.o})
    if (!alignedOperand(*x))
      return unsupported("q, k, v and o need 16-byte aligned data and "
                         "strides that are multiples of 8 elements, with a "
                         "contiguous last dimension");
  const int64_t B = a.q.shape[0], Hq = a.q.shape[1], L = a.q.shape[2],
                Hkv = a.k.shape[1], S = a.k.shape[2];
  if (B > 65535 || Hq > 65535 || L > std::numeric_limits<int32_t>::max() / 2 ||
      S > std::numeric_limits<int32_t>::max() / 2)
    return unsupported("batch and heads up to 65535, sequences up to 2^30");
  if (Hkv == 0 || Hq % Hkv != 0)
    return fail(TE_RT_INVALID_ARGUMENT,
                "cuda attention: query heads not a multiple of key heads");
  p = FwdParams{};
  p.q = operand(a.q);
  p.k = operand(a.k);
  p.v = operand(a.v);
  p.o = operand(a.o);
  p.lse = a.lse;
  p.B = static_cast<int>(B);
  p.Hq = static_cast<int>(Hq);
  p.Hkv = static_cast<int>(Hkv);
  p.L = static_cast<int>(L);
  p.S = static_cast<int>(S);
  p.headDim = static_cast<int>(E);
  p.group = static_cast<int>(Hq / Hkv);
  p.scale = a.scale;
  p.scaleLog2 = a.scale * kLog2e;
  p.causal = a.causal ? 1 : 0;
  p.maskCode = kMaskNone;
  if (a.maskKind == AttentionMask::Additive) {
    switch (a.maskType) {
    case format::DType::F32:
      p.maskCode = kMaskF32;
      break;
    case format::DType::BF16:
      p.maskCode = kMaskBF16;
      break;
    case format::DType::F16:
      p.maskCode = kMaskF16;
      break;
    default:
      return unsupported("an additive mask is f32, bf16 or f16");
    }
  } else if (a.maskKind == AttentionMask::Boolean) {
    p.maskCode = kMaskBool;
  }
  if (p.maskCode != kMaskNone) {
    const AttentionOperand &m = a.mask;
    p.mask = m.data;
    // Broadcast dimensions read element 0.
    p.msb = m.shape[0] > 1 ? m.strides[0] : 0;
    p.msh = m.shape[1] > 1 ? m.strides[1] : 0;
    p.msr = m.shape[2] > 1 ? m.strides[2] : 0;
    p.msc = m.shape[3] > 1 ? m.strides[3] : 0;
    const int64_t esize = p.maskCode == kMaskF32    ? 4
                          : p.maskCode == kMaskBool ? 1
                                                    : 2;
    p.maskPairs = p.msc == 1 && p.msb % 2 == 0 && p.msh % 2 == 0 &&
                  p.msr % 2 == 0 &&
                  reinterpret_cast<uintptr_t>(m.data) % (2 * esize) == 0;
  }
  return TE_RT_OK;
}

std::atomic<int> forwardChoice{static_cast<int>(ForwardKernel::Auto)};

/// What Auto runs on compute capability 9.0: the warp-specialized wgmma
/// forward (0.408 ms against the overlapped kernel's 0.486 ms, causal bf16
/// B4 H32 S2048 D128 on an H100; README.md).
constexpr ForwardKernel kAutoSm90 = ForwardKernel::WgmmaWs;

} // namespace

void setForwardKernel(ForwardKernel k) {
  forwardChoice.store(static_cast<int>(k));
}

bool wgmmaForwardAvailable() {
  int dev = 0, major = 0, minor = 0;
  return cudaGetDevice(&dev) == cudaSuccess &&
         cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                                dev) == cudaSuccess &&
         cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor,
                                dev) == cudaSuccess &&
         major == 9 && minor == 0;
}

te_rt_status runAttention(const Attention &a) {
  FwdParams p;
  if (te_rt_status s = forwardParams(a, p))
    return s;
  auto stream = static_cast<cudaStream_t>(a.stream);
  const bool f16 = a.dtype == format::DType::F16;
  auto choice = static_cast<ForwardKernel>(forwardChoice.load());
  if (choice == ForwardKernel::Auto)
    choice = kAutoSm90;
  const bool wgmma =
      choice != ForwardKernel::MmaSync && wgmmaForwardAvailable();
  cudaError_t e = cudaSuccess;
  if (!wgmma)
    e = forward(p, f16, stream);
  else if (choice == ForwardKernel::WgmmaWs)
    e = forwardSm90Ws(p, f16, stream);
  else
    e = forwardSm90(p, f16, choice != ForwardKernel::Wgmma, stream);
  if (e != cudaSuccess)
    return cudaFailure(e, "forward launch");
  return TE_RT_OK;
}

te_rt_status runAttentionGrad(const AttentionGrad &g) {
  BwdParams p{};
  if (te_rt_status s = forwardParams(g.forward, p.f))
    return s;
  if (!g.forward.lse)
    return fail(TE_RT_INVALID_ARGUMENT,
                "cuda attention backward: the forward's lse is required");
  for (const AttentionOperand *x : {&g.dout, &g.dq, &g.dk, &g.dv})
    if (!alignedOperand(*x))
      return unsupported("dout, dq, dk and dv need 16-byte aligned data and "
                         "strides that are multiples of 8 elements, with a "
                         "contiguous last dimension");
  p.dout = operand(g.dout);
  p.dq = operand(g.dq);
  p.dk = operand(g.dk);
  p.dv = operand(g.dv);
  auto stream = static_cast<cudaStream_t>(g.forward.stream);
  const int64_t rows = static_cast<int64_t>(p.f.B) * p.f.Hq * p.f.L;
  const size_t accBytes = rows * p.f.headDim * sizeof(float);
  DeviceTemp work(stream);
  if (cudaError_t e = work.allocate(accBytes + 2 * rows * sizeof(float)))
    return e == cudaErrorMemoryAllocation
               ? fail(TE_RT_OUT_OF_MEMORY,
                      "cuda attention backward: allocating the workspace")
               : cudaFailure(e, "allocating the backward's workspace");
  p.dqAccum = work.as<float>();
  p.delta = p.dqAccum + rows * p.f.headDim;
  p.lse2 = p.delta + rows;
  if (rows > 0)
    if (cudaError_t e = cudaMemsetAsync(p.dqAccum, 0, accBytes, stream))
      return cudaFailure(e, "zeroing the dQ accumulator");
  if (cudaError_t e =
          backward(p, g.forward.dtype == format::DType::F16, stream))
    return cudaFailure(e, "backward launch");
  return TE_RT_OK;
}

} // namespace te::rt::cuda::attn
