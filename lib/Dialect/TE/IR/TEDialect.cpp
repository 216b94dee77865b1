//===- TEDialect.cpp - te dialect -------------------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace mlir::te;

#include "te/Dialect/TE/IR/TEDialect.cpp.inc"

namespace {
/// te ops carry no region and no state tied to their function: calls of
/// functions using them may be inlined (te-eliminate-aliases shares
/// quantizations across a forward and a backward once they are inlined).
struct TEInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void TEDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "te/Dialect/TE/IR/TEOps.cpp.inc"
      >();
  addInterfaces<TEInlinerInterface>();
}

LogicalResult TEDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  // Passes may add other `te.*` discardable attributes; only the target has
  // rules.
  if (attr.getName() != getTargetAttrName())
    return success();
  if (!isa<TargetAttr>(attr.getValue()))
    return op->emitError() << "'te.target' must be a #te.target<sm_90 | "
                              "sm_100> attribute, got "
                           << attr.getValue();
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'te.target' is a module attribute, found on '"
                           << op->getName() << "'";
  return success();
}
