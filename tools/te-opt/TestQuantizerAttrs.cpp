//===- TestQuantizerAttrs.cpp - Test pass for quantizer attributes -*- C++
//-*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// `te-test-quantizer-attrs`: for every quantizer attribute on an op, checks
// that QuantizerAttrInterface's C++ view is consistent with the attribute:
// getQuantizerAttr(getFormatConfig()) gives the attribute back, and the recipe
// and element type agree with the mnemonic and the printed element type. It
// reports one remark per attribute so that a lit test can pin the result.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEAttrs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::te;

namespace {
struct TestQuantizerAttrsPass
    : public PassWrapper<TestQuantizerAttrsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestQuantizerAttrsPass)

  StringRef getArgument() const final { return "te-test-quantizer-attrs"; }
  StringRef getDescription() const final {
    return "Check the C++ view (Format config, recipe, element type) of every "
           "quantizer attribute";
  }

  void runOnOperation() override {
    getOperation()->walk([&](Operation *op) {
      for (NamedAttribute named : op->getAttrs()) {
        auto quantizer = dyn_cast<QuantizerAttrInterface>(named.getValue());
        if (!quantizer)
          continue;
        ::te::format::QuantizerConfig config = quantizer.getFormatConfig();
        QuantizerAttrInterface rebuilt = getQuantizerAttr(
            op->getContext(), config, [&] { return op->emitError(); });
        if (rebuilt != quantizer) {
          op->emitError() << named.getName().getValue()
                          << ": the Format config does not rebuild "
                          << quantizer << ", got " << rebuilt;
          return signalPassFailure();
        }
        op->emitRemark() << named.getName().getValue() << ": "
                         << ::te::format::recipeName(quantizer.getRecipe())
                         << " " << quantizer.getElementType()
                         << " round-trips through te::format::QuantizerConfig";
      }
    });
  }
};
} // namespace

namespace mlir::te {
void registerTestQuantizerAttrsPass() {
  PassRegistration<TestQuantizerAttrsPass>();
}
} // namespace mlir::te
