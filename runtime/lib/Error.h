//===- Error.h - Thread-local error message of libte_rt ---------*- C++ -*-===//
//
// Part of te. Internal to libte_rt; shared by the front end and backends.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_LIB_ERROR_H
#define TE_RT_LIB_ERROR_H

#include "te_rt.h"

#include <string>

namespace te::rt {

/// Records `message` as this thread's te_rt_last_error() and returns
/// `status`, so that a failing path reads `return fail(status, "...")`.
te_rt_status fail(te_rt_status status, const std::string &message);

/// Clears this thread's message.
void clearError();

/// This thread's message ("" if none).
const char *lastErrorMessage();

} // namespace te::rt

#endif // TE_RT_LIB_ERROR_H
