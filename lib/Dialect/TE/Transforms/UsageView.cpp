//===- UsageView.cpp - views of a quantized tensor with fewer usages ------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "UsageView.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::te;

FailureOr<Value> mlir::te::createUsageView(OpBuilder &builder, Location loc,
                                           Value value, Usage usage,
                                           BuffersOp *buffersCache) {
  auto type = cast<QTensorType>(value.getType());
  if (type.getUsage() == usage)
    return value;
  if (usage == Usage::None || !bitEnumContainsAll(type.getUsage(), usage))
    return emitError(loc) << "cannot view " << type << " as holding "
                          << stringifyUsage(usage)
                          << ": it is not a subset of its usage";

  // The buffers of the narrower tensor are a subset of the wider one's
  // (docs/formats.md §1.2: update_usage drops representations); the Format
  // library decides which, by name.
  Operation *anchor = builder.getInsertionBlock()->getParentOp();
  Target target = getTarget(anchor);
  QTensorType narrow = type.withUsage(usage);
  auto diag = [&]() { return emitError(loc); };
  FailureOr<SmallVector<QTensorBuffer>> all = type.getBuffers(target, diag);
  FailureOr<SmallVector<QTensorBuffer>> kept = narrow.getBuffers(target, diag);
  if (failed(all) || failed(kept))
    return failure();

  BuffersOp buffers;
  if (buffersCache && *buffersCache && buffersCache->getInput() == value)
    buffers = *buffersCache;
  if (!buffers) {
    SmallVector<Type> allTypes;
    for (const QTensorBuffer &buffer : *all)
      allTypes.push_back(buffer.type);
    buffers = BuffersOp::create(builder, loc, allTypes, value);
    if (buffersCache)
      *buffersCache = buffers;
  }

  SmallVector<Value> keptValues;
  for (const QTensorBuffer &buffer : *kept) {
    const auto *it = llvm::find_if(
        *all, [&](const QTensorBuffer &b) { return b.name == buffer.name; });
    if (it == all->end() || it->type != buffer.type)
      return emitError(loc) << "cannot view " << type << " as holding "
                            << stringifyUsage(usage) << ": buffer "
                            << buffer.name << " is not one of its buffers";
    keptValues.push_back(buffers.getResult(it - all->data()));
  }
  return FromBuffersOp::create(builder, loc, narrow, keptValues).getResult();
}
