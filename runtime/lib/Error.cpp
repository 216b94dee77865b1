//===- Error.cpp - Thread-local error message of libte_rt -------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "Error.h"

namespace te::rt {

namespace {
thread_local std::string lastError;
} // namespace

te_rt_status fail(te_rt_status status, const std::string &message) {
  try {
    lastError = message;
  } catch (...) {
    // Out of memory while recording the message: keep the status.
  }
  return status;
}

void clearError() { lastError.clear(); }

const char *lastErrorMessage() { return lastError.c_str(); }

} // namespace te::rt
