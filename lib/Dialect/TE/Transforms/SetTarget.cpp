//===- SetTarget.cpp - te-set-target ----------------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-set-target: the module's te.target, and a remark on each GEMM recipe
// the runtime emulates on that target.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "te/Dialect/TE/IR/TEAttrs.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "llvm/ADT/DenseSet.h"

#define DEBUG_TYPE "te-set-target"

namespace mlir::te {
#define GEN_PASS_DEF_TESETTARGET
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

bool isEmulatedOnSm90(Attribute q) {
  auto quantizer = dyn_cast_or_null<QuantizerAttrInterface>(q);
  if (!quantizer)
    return false;
  return ::te::format::recipeTraits(quantizer.getFormatConfig().recipe)
      .emulatedOnSM90;
}

Attribute quantizerOf(Type t) {
  if (auto q = dyn_cast<QTensorType>(t))
    return q.getQuantizer();
  return {};
}

struct TESetTargetPass
    : public mlir::te::impl::TESetTargetBase<TESetTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Target t;
    if (target == "sm_90" || target == "cpu")
      t = Target::SM90;
    else if (target == "sm_100")
      t = Target::SM100;
    else {
      // At the module's location only: an error on the module op would
      // print the whole module after it.
      emitError(module.getLoc(), "te-set-target: target must be cpu, sm_90 "
                                 "or sm_100, got '")
          << target << "'";
      return signalPassFailure();
    }
    if (auto existing = module->getAttrOfType<TargetAttr>("te.target")) {
      if (existing.getValue() != t) {
        emitError(module.getLoc(), "module has te.target = ")
            << existing << " but the pipeline targets " << target;
        return signalPassFailure();
      }
    } else {
      module->setAttr("te.target", TargetAttr::get(&getContext(), t));
    }
    if (t == Target::SM100 || !remarks)
      return;
    // One remark per function and emulated recipe, at its first GEMM, with
    // the location only (emitRemark on the op would print the op).
    DenseSet<std::pair<Operation *, int>> remarked;
    module.walk([&](Operation *op) {
      Attribute q;
      if (auto gemm = dyn_cast<GemmOp>(op))
        q = quantizerOf(gemm.getA().getType());
      else if (auto linear = dyn_cast<LinearOp>(op))
        q = linear.getInputQuantizer();
      else if (auto grad = dyn_cast<LinearGradOp>(op))
        q = grad.getGradOutputQuantizer();
      if (!isEmulatedOnSm90(q))
        return;
      ::te::format::Recipe recipe =
          cast<QuantizerAttrInterface>(q).getFormatConfig().recipe;
      Operation *function = op->getParentOfType<FunctionOpInterface>();
      if (!remarked.insert({function, static_cast<int>(recipe)}).second)
        return;
      // How each backend emulates it: the cuda backend in bf16 or fp32
      // (format::gemmEmulation), the cpu backend in float64 dot products.
      emitRemark(op->getLoc())
          << ::te::format::recipeName(recipe)
          << " GEMM has no native kernel on " << target
          << ": the runtime emulates it exactly ("
          << (target == "cpu" ? "dequantized operands, float64 dot products"
                              : "operands dequantized to bf16, or fp32 where "
                                "bf16 is not exact, and a cuBLASLt GEMM")
          << "); remarked once per function, remarks=false silences it";
      ++numRemarks;
    });
  }
};

} // namespace
