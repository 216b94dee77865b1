//===- UsageView.h - views of a quantized tensor with fewer usages -*- C++
//-*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Helpers of te-decompose-linear and te-eliminate-aliases.
//
//===----------------------------------------------------------------------===//

#ifndef TE_LIB_DIALECT_TE_TRANSFORMS_USAGEVIEW_H
#define TE_LIB_DIALECT_TE_TRANSFORMS_USAGEVIEW_H

#include "mlir/IR/Builders.h"
#include "te/Dialect/TE/IR/TEOps.h"

namespace mlir::te {

/// Returns `value` (a `!te.qtensor`) seen as a quantized tensor that holds
/// only `usage`, a subset of its usage: TE's `update_usage(rowwise=False)`,
/// which drops a representation without touching data. It is built as
/// `te.buffers` + `te.from_buffers` of the buffers the narrower type keeps
/// (matched by their TE names, as the Format library lays them out for the
/// module's target), so it costs no copy and folds away when te-expand-qtensors
/// turns both ends into buffers. Returns `value` itself when the usage is
/// unchanged; fails (after emitting an error at `loc`) when `usage` is not a
/// subset or the layout cannot be built.
/// When `buffers` is given and holds a `te.buffers` of `value`, that op is
/// reused (it must dominate the insertion point); otherwise the new one is
/// stored in it.
FailureOr<Value> createUsageView(OpBuilder &builder, Location loc, Value value,
                                 Usage usage, BuffersOp *buffers = nullptr);

} // namespace mlir::te

#endif // TE_LIB_DIALECT_TE_TRANSFORMS_USAGEVIEW_H
