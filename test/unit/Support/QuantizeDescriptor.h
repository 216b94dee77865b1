//===- QuantizeDescriptor.h - te_rt_mlir_quantize's operands ----*- C++ -*-===//
//
// Part of te. Test support, shared by test/unit/Comm and
// test/unit/RuntimeCuda.
//
// The descriptor that compiled code passes te_rt_mlir_quantize and
// te_rt_mlir_quantize_group (te_rt_abi.h), for the tests that call them by
// hand.
//
//===----------------------------------------------------------------------===//

#ifndef TE_TEST_UNIT_SUPPORT_QUANTIZEDESCRIPTOR_H
#define TE_TEST_UNIT_SUPPORT_QUANTIZEDESCRIPTOR_H

#include "te_rt_abi.h"

#include <vector>

namespace te::test {

/// Quantizer `q` on sm_90, rowwise: x [rows, cols] f32 into `data` and
/// `scaleInv`.
inline std::vector<int64_t>
rowwiseQuantizeDescriptor(const te_rt_quantizer &q, int64_t rows, int64_t cols,
                          float *x, void *data, void *scaleInv) {
  te_rt_abi::quantize::Fields f{};
  f.quantizer = q;
  f.target = TE_RT_SM90;
  f.usage = TE_RT_ROWWISE;
  f.rows = rows;
  f.cols = cols;
  f.x_dtype = TE_RT_F32;
  f.x = x;
  f.bufs[0] = data;
  f.bufs[1] = scaleInv;
  std::vector<int64_t> d(te_rt_abi::quantize::kWords);
  te_rt_abi::encode(f, d.data());
  return d;
}

} // namespace te::test

#endif // TE_TEST_UNIT_SUPPORT_QUANTIZEDESCRIPTOR_H
