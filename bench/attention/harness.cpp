//===- harness.cpp - The cuda attention kernels behind the public ABI -----===//
//
// Part of te. A small shared library for bench_attention.py: it exposes the
// cuda backend's attention (runtime/cuda/attention) with te_rt_attention's
// argument structs, for a runtime whose te_rt_attention front end is not
// there. Runs on the legacy default stream (the context's stream).
//
// Built by bench/attention/run.sh against the runtime build's libte_rt_cuda.a.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "Error.h"
#include "attention/FlashAttention.h"

#include "te_rt.h"

namespace {

using namespace te::rt;

AttentionOperand operand(const te_rt_attention_operand &x) {
  AttentionOperand o;
  o.data = x.data;
  for (int i = 0; i < 4; ++i) {
    o.shape[i] = x.shape[i];
    o.strides[i] = x.strides[i];
  }
  return o;
}

te::format::DType dtype(te_rt_dtype t) {
  switch (t) {
  case TE_RT_F16:
    return te::format::DType::F16;
  case TE_RT_BF16:
    return te::format::DType::BF16;
  case TE_RT_U8:
    return te::format::DType::U8;
  default:
    return te::format::DType::F32;
  }
}

Attention attention(const te_rt_attention_args &a) {
  Attention r;
  r.dtype = dtype(a.dtype);
  r.q = operand(a.q);
  r.k = operand(a.k);
  r.v = operand(a.v);
  r.o = operand(a.o);
  r.lse = a.lse;
  r.scale = a.scale;
  r.causal = a.causal != 0;
  r.maskKind = static_cast<AttentionMask>(a.mask_kind);
  r.maskType = dtype(a.mask_dtype);
  r.mask = operand(a.mask);
  r.stream = nullptr;
  return r;
}

} // namespace

extern "C" __attribute__((visibility("default"))) int
te_bench_attention(void *, const te_rt_attention_args *a) {
  return cuda::attn::runAttention(attention(*a));
}

extern "C" __attribute__((visibility("default"))) int
te_bench_attention_grad(void *, const te_rt_attention_grad_args *a) {
  AttentionGrad g;
  g.forward = attention(a->forward);
  g.dout = operand(a->dout);
  g.dq = operand(a->dq);
  g.dk = operand(a->dk);
  g.dv = operand(a->dv);
  return cuda::attn::runAttentionGrad(g);
}

/// 0: the backend's choice, 1: mma.sync, 2: wgmma, 3: wgmma overlapped,
/// 4: wgmma warp-specialized (FlashAttention.h).
extern "C" __attribute__((visibility("default"))) void
te_bench_set_forward_kernel(int k) {
  cuda::attn::setForwardKernel(static_cast<cuda::attn::ForwardKernel>(k));
}

/// 0: 64-key CTAs (the default), 1: 128-key CTAs (FlashAttention.h).
extern "C" __attribute__((visibility("default"))) void
te_bench_set_backward_kernel(int k) {
  cuda::attn::setBackwardKernel(static_cast<cuda::attn::BackwardKernel>(k));
}

extern "C" __attribute__((visibility("default"))) int
te_bench_wgmma_available() {
  return cuda::attn::wgmmaForwardAvailable() ? 1 : 0;
}

extern "C" __attribute__((visibility("default"))) const char *
te_bench_last_error() {
  return lastErrorMessage();
}
