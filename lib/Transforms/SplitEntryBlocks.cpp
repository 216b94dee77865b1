//===- SplitEntryBlocks.cpp - Large function bodies out of the entry block ===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-split-entry-blocks: a func.func whose entry block has arguments and
// many operations gets an entry block that only branches to the body (its
// stack slots stay), so
// that the LLVM conversion of the arguments re-numbers a block of a few ops
// (Passes.td says why it would re-number the whole body once per argument).
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"

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
      // The stack slots (llvm.alloca of a constant size) stay in the entry
      // block, first, with their sizes, so that LLVM keeps them static;
      // every other op moves, in order, to the new block after it.
      SmallVector<Operation *> keep;
      for (auto alloca : entry.getOps<LLVM::AllocaOp>()) {
        Operation *size = alloca.getArraySize().getDefiningOp();
        if (!size || size->getBlock() != &entry ||
            !size->hasTrait<OpTrait::ConstantLike>())
          continue;
        keep.push_back(size);
        keep.push_back(alloca);
      }
      Operation *last = nullptr;
      llvm::SmallPtrSet<Operation *, 8> moved;
      for (Operation *op : keep) {
        if (!moved.insert(op).second)
          continue; // a size shared with an earlier slot
        if (last)
          op->moveAfter(last);
        else
          op->moveBefore(&entry, entry.begin());
        last = op;
      }
      Block *body = entry.splitBlock(last ? std::next(last->getIterator())
                                          : entry.begin());
      OpBuilder b = OpBuilder::atBlockEnd(&entry);
      cf::BranchOp::create(b, func.getLoc(), body);
      ++numSplit;
    }
  }
};

} // namespace
