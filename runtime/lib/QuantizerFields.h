//===- QuantizerFields.h - te_rt_quantizer <-> QuantizerConfig --*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The fields of the C ABI's te_rt_quantizer and of the Format library's
// te::format::QuantizerConfig, converted one by one through the field list
// of te_rt_abi.def (the one list of the quantizer's fields). Enums have the
// same values (tied by static_asserts in Api.cpp), so a field converts with
// a cast. Nothing is validated: te_rt's decodeQuantizer checks a caller's
// enum values before converting.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RT_LIB_QUANTIZERFIELDS_H
#define TE_RT_LIB_QUANTIZERFIELDS_H

#include "te_rt.h"

#include "te/Format/Quantizer.h"

#include <cstring>

namespace te::rt {

/// One field: enums, ints and bools convert with a cast.
template <typename To, typename From> void convertField(To &to, From from) {
  to = static_cast<To>(from);
}

inline te::format::QuantizerConfig toConfig(const te_rt_quantizer &q) {
  te::format::QuantizerConfig c;
#define TE_RT_ABI_QUANTIZER_FIELD(cField, configField)                         \
  convertField(c.configField, q.cField);
#include "te_rt_abi.def"
  return c;
}

inline te_rt_quantizer fromConfig(const te::format::QuantizerConfig &c) {
  te_rt_quantizer q;
  std::memset(&q, 0, sizeof(q));
#define TE_RT_ABI_QUANTIZER_FIELD(cField, configField)                         \
  convertField(q.cField, c.configField);
#include "te_rt_abi.def"
  return q;
}

} // namespace te::rt

#endif // TE_RT_LIB_QUANTIZERFIELDS_H
