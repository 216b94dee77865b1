//===- SplitEntryBlocks.cpp - Large function bodies out of the entry block ===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-split-entry-blocks: a func.func whose entry block has arguments and
// many operations gets an entry block that only branches to the body, so
// that the LLVM conversion of the arguments re-numbers a block of a few ops
// (Passes.td says why it would re-number the whole body once per argument).
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "te-split-entry-blocks"

namespace mlir::te {
#define GEN_PASS_DEF_TESPLITENTRYBLOCKS
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

namespace {

struct TESplitEntryBlocksPass
    : public te::impl::TESplitEntryBlocksBase<TESplitEntryBlocksPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      Block &entry = func.front();
      if (entry.getNumArguments() == 0 ||
          static_cast<int64_t>(entry.getOperations().size()) < minOps)
        continue;
      // Every op moves to the new block, which follows the entry block.
      Block *body = entry.splitBlock(entry.begin());
      OpBuilder b = OpBuilder::atBlockEnd(&entry);
      cf::BranchOp::create(b, func.getLoc(), body);
      ++numSplit;
    }
  }
};

} // namespace
