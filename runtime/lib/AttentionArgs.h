//===- AttentionArgs.h - Checking the arguments of an attention -*- C++ -*-===//
//
// Part of te. Internal to libte_rt.
//
//===----------------------------------------------------------------------===//
//
// The one validation of an attention's arguments, shared by the C API
// (te_rt_attention, te_rt_attention_grad in Api.cpp) and the entry points of
// compiled code (te_rt_mlir_attention(_grad) in MlirEntryPoints.cpp, which
// build the C API's argument structs from their descriptors).
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_LIB_ATTENTIONARGS_H
#define TE_RT_LIB_ATTENTIONARGS_H

#include "Backend.h"

#include <cstdint>

namespace te::rt {

/// The bytes each operand of an attention spans from its data pointer: 0 for
/// an empty or absent operand, else (1 + sum of (size - 1) * stride) elements.
/// What host-memory mode stages to device memory.
struct AttentionSpans {
  int64_t q = 0, k = 0, v = 0, o = 0, lse = 0, mask = 0;
  int64_t dout = 0, dq = 0, dk = 0, dv = 0;
};

/// Checks `args` (te_rt_attention's rules, te_rt.h) and decodes them; on
/// failure returns INVALID_ARGUMENT with a message (Error.h) that names the
/// operand, the dimension, the value found and the value expected. `out`'s
/// stream is null (the context's stream); a size-1 dimension of the mask gets
/// stride 0 and an innermost dimension of size <= 1 stride 1.
te_rt_status decodeAttention(const te_rt_attention_args *args, Attention &out,
                             AttentionSpans &spans);

/// The same for te_rt_attention_grad: the forward's arguments (lse required,
/// o read) and dout, dq, dk, dv.
te_rt_status decodeAttentionGrad(const te_rt_attention_grad_args *args,
                                 AttentionGrad &out, AttentionSpans &spans);

} // namespace te::rt

#endif // TE_RT_LIB_ATTENTIONARGS_H
