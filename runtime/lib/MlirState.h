//===- MlirState.h - The thread state of compiled code's calls --*- C++ -*-===//
//
// Part of te. Internal to libte_rt.
//
//===----------------------------------------------------------------------===//
//
// The per-thread current context and sticky status behind te_rt_abi.def
// (MlirEntryPoints.cpp), shared with the GPU host ABI (GpuHostAbi.cpp) so that
// a failed kernel launch stops the te_rt_mlir_* calls after it and the other
// way round.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_LIB_MLIRSTATE_H
#define TE_RT_LIB_MLIRSTATE_H

#include "te_rt.h"

#include <string>

namespace te::rt::mlir {

/// The calling thread's current context (te_rt_set_current_context), or null.
te_rt_context *currentContext();
/// Whether the thread's sticky status is still TE_RT_OK.
bool statusOk();
/// Records the first failure of the thread as "where: msg" (msg empty or
/// null: the status' name); later ones are dropped.
void recordFailure(te_rt_status s, const std::string &where, const char *msg);

/// The context's stream: the legacy default stream (null) on every backend.
/// te_rt's kernels, cuBLASLt, te_rt_malloc / te_rt_free and the launches of
/// compiled kernels are all ordered on it.
inline void *contextStream(te_rt_context *) { return nullptr; }

} // namespace te::rt::mlir

#endif // TE_RT_LIB_MLIRSTATE_H
