//===- Attention.h - The cpu backend's attention ----------------*- C++ -*-===//
//
// Part of te. Internal to the cpu backend of libte_rt.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_LIB_CPU_ATTENTION_H
#define TE_RT_LIB_CPU_ATTENTION_H

#include "Backend.h"

namespace te::rt::cpu {

/// Backend::attention of the cpu backend: the reference, in f32 (the
/// formulas are in Attention.cpp). `threads`: workers, 0 = hardware
/// concurrency; the results do not depend on it.
te_rt_status attentionForward(const Attention &a, int threads);
/// Backend::attentionGrad of the cpu backend.
te_rt_status attentionBackward(const AttentionGrad &a, int threads);

} // namespace te::rt::cpu

#endif // TE_RT_LIB_CPU_ATTENTION_H
