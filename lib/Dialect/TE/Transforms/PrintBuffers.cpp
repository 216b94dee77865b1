//===- PrintBuffers.cpp - print the buffers of quantized values -*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-print-buffers: an analysis printer. For every !te.qtensor value it
// prints the buffers the Format library lays out for it on the module's
// target (TE name, shape, element type, in TE's flatten order).
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEOps.h"
#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "te-print-buffers"

namespace mlir::te {
#define GEN_PASS_DEF_TEPRINTBUFFERS
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

struct TEPrintBuffersPass
    : public mlir::te::impl::TEPrintBuffersBase<TEPrintBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    AsmState state(module);
    raw_ostream &os = llvm::outs();

    auto print = [&](Value value, Operation *definingOp) {
      auto type = dyn_cast<QTensorType>(value.getType());
      if (!type)
        return;
      Operation *scope =
          definingOp ? definingOp : value.getParentBlock()->getParentOp();
      os << "te-buffers ";
      if (auto symbol = scope->getParentOfType<SymbolOpInterface>())
        os << "@" << symbol.getName() << " ";
      else if (auto symbol = dyn_cast<SymbolOpInterface>(scope))
        os << "@" << symbol.getName() << " ";
      value.printAsOperand(os, state);
      if (definingOp)
        os << " = " << definingOp->getName();
      os << " : ";
      printBuffers(os, type, getTarget(scope), scope->getLoc());
      os << "\n";
    };

    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            print(arg, nullptr);
      for (Value result : op->getResults())
        print(result, op);
    });
    os.flush();
    markAllAnalysesPreserved();
  }

  static void printBuffers(raw_ostream &os, QTensorType type, Target target,
                           Location loc) {
    std::string error;
    FailureOr<SmallVector<QTensorBuffer>> buffers;
    {
      // Capture Format's message instead of reporting it: an invalid layout
      // is printed, not an error of this analysis.
      ScopedDiagnosticHandler handler(type.getContext(), [&](Diagnostic &d) {
        error = d.str();
        return success();
      });
      buffers = type.getBuffers(target, [&] { return emitError(loc); });
    }
    if (failed(buffers)) {
      os << "<error: " << error << ">";
      return;
    }
    llvm::interleave(
        *buffers,
        [&](const QTensorBuffer &buffer) {
          os << buffer.name << " ";
          for (int64_t d : buffer.type.getShape()) {
            if (ShapedType::isDynamic(d))
              os << "?";
            else
              os << d;
            os << "x";
          }
          os << buffer.type.getElementType();
        },
        [&] { os << ", "; });
  }
};

} // namespace
