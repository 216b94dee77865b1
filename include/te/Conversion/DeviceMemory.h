//===- DeviceMemory.h - Memref facts of te's GPU lowering -------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// What te-linalg-to-gpu and convert-te-to-runtime{device-memory} both ask of
// a memref or an op: whether one memcpy moves a memref's elements, and
// whether an op runs on the host.
//
//===----------------------------------------------------------------------===//

#ifndef TE_CONVERSION_DEVICEMEMORY_H
#define TE_CONVERSION_DEVICEMEMORY_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

namespace mlir::te {

/// Whether `type` is laid out row-major without gaps (at any offset): its
/// elements are one contiguous run from the offset on.
inline bool isRowMajorContiguous(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (int64_t i = type.getRank() - 1; i >= 0; --i) {
    if (type.getDimSize(i) == 1)
      continue;
    if (ShapedType::isDynamic(strides[i]) || strides[i] != expected)
      return false;
    // The outermost size needs no stride after it (and may be dynamic).
    if (i == 0)
      break;
    if (type.isDynamicDim(i))
      return false;
    expected *= type.getDimSize(i);
  }
  return true;
}

/// Whether `op` runs on the host: not in a gpu.launch nor a gpu.module.
inline bool isOnHost(Operation *op) {
  return !op->getParentOfType<gpu::LaunchOp>() &&
         !op->getParentOfType<gpu::GPUModuleOp>();
}

} // namespace mlir::te

#endif // TE_CONVERSION_DEVICEMEMORY_H
