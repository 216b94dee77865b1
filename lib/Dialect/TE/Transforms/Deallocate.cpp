//===- Deallocate.cpp - te-pipeline's buffer deallocation -------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-deallocate: a module of straight-line functions on buffers they
// allocate gets its memref.deallocs directly (what ownership-based
// deallocation computes there); any other module goes through upstream's
// buffer deallocation pipeline, with te-split-deallocs before
// buffer-deallocation-simplification (Passes.td says why).
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "te/Dialect/TE/IR/TEOps.h"
#include "te/Transforms/Passes.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "te-deallocate"

namespace mlir::te {
#define GEN_PASS_DEF_TEDEALLOCATE
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

class TEDeallocatePass
    : public mlir::te::impl::TEDeallocateBase<TEDeallocatePass> {
public:
  TEDeallocatePass();
  TEDeallocatePass(const TEDeallocatePass &other)
      : TEDeallocateBase(other), upstream(other.upstream) {}

  void getDependentDialects(DialectRegistry &registry) const override {
    upstream.getDependentDialects(registry);
    registry.insert<memref::MemRefDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (Operation &op : module.getBody()->getOperations()) {
      auto func = dyn_cast<func::FuncOp>(op);
      if (func && func.isExternal())
        continue;
      if (func && isStraightLine(func)) {
        funcs.push_back(func);
        continue;
      }
      if (func || op.getNumRegions() != 0) {
        LLVM_DEBUG(llvm::dbgs()
                   << DEBUG_TYPE << ": not straight-line: " << op.getName()
                   << " at " << op.getLoc() << "; upstream's pipeline\n");
        ++numUpstream;
        expandSwitches(module);
        if (failed(runPipeline(upstream, module)) ||
            failed(checkClones(module)))
          signalPassFailure();
        return;
      }
    }
    for (func::FuncOp func : funcs) {
      Block &body = func.getBody().front();
      Operation *ret = body.getTerminator();
      llvm::SmallPtrSet<Value, 16> returned(ret->operand_begin(),
                                            ret->operand_end());
      OpBuilder b(ret);
      for (Operation &op : body.without_terminator())
        if (auto alloc = dyn_cast<memref::AllocOp>(op))
          if (!returned.contains(alloc.getResult())) {
            memref::DeallocOp::create(b, alloc.getLoc(), alloc.getResult());
            ++numFreed;
          }
    }
  }

private:
  static bool isMemRef(Value v) { return isa<BaseMemRefType>(v.getType()); }

  /// The copies deallocation made of views it does not own (a subview of
  /// an argument that a function returns): the memref lowering copies
  /// buffers of the identity layout only, so any other is an error here,
  /// naming the view, instead of a failure to legalize the copy later.
  static LogicalResult checkClones(ModuleOp module) {
    WalkResult result = module.walk([](bufferization::CloneOp clone) {
      auto type = dyn_cast<MemRefType>(clone.getInput().getType());
      if (!type || type.getLayout().isIdentity())
        return WalkResult::advance();
      clone.emitError()
          << "this view " << type
          << " of memory the function does not own is returned (or carried "
             "out of a branch or loop), so it must be copied, and te-pipeline "
             "copies buffers of the identity layout only: return a copy "
             "instead (memref.alloc, then memref.copy into it)";
      return WalkResult::interrupt();
    });
    return failure(result.wasInterrupted());
  }

  /// Each cf.switch as a chain of cf.cond_br, one per case in case order,
  /// the last one's false branch the default: ownership-based deallocation
  /// takes branches with at most two successors.
  static void expandSwitches(ModuleOp module) {
    SmallVector<cf::SwitchOp> switches;
    module.walk([&](cf::SwitchOp op) { switches.push_back(op); });
    for (cf::SwitchOp op : switches) {
      Location loc = op.getLoc();
      Block *block = op->getBlock();
      OpBuilder b(op);
      SmallVector<APInt> values;
      if (std::optional<DenseIntElementsAttr> cases = op.getCaseValues())
        values = llvm::to_vector(cases->getValues<APInt>());
      if (values.empty()) {
        cf::BranchOp::create(b, loc, op.getDefaultDestination(),
                             op.getDefaultOperands());
        op.erase();
        continue;
      }
      Region *region = block->getParent();
      Block *current = block;
      for (auto [i, value] : llvm::enumerate(values)) {
        Value caseValue = arith::ConstantOp::create(
            b, loc, b.getIntegerAttr(op.getFlag().getType(), value));
        Value isCase = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             op.getFlag(), caseValue);
        if (i + 1 == values.size()) {
          cf::CondBranchOp::create(b, loc, isCase, op.getCaseDestinations()[i],
                                   op.getCaseOperands(i),
                                   op.getDefaultDestination(),
                                   op.getDefaultOperands());
          break;
        }
        auto *next = new Block();
        cf::CondBranchOp::create(b, loc, isCase, op.getCaseDestinations()[i],
                                 op.getCaseOperands(i), next, ValueRange{});
        region->getBlocks().insert(std::next(current->getIterator()), next);
        current = next;
        b.setInsertionPointToEnd(next);
      }
      op.erase();
    }
  }

  static bool isStraightLine(func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return false;
    Block &body = func.getBody().front();
    auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
    if (!ret)
      return false;
    for (Operation &op : body) {
      if (op.getNumRegions() != 0)
        return false;
      if (isa<memref::AllocOp, memref::GetGlobalOp>(op))
        continue;
      if (llvm::none_of(op.getOperands(), isMemRef) &&
          llvm::none_of(op.getResults(), isMemRef))
        continue;
      if (!(op.hasTrait<OpTrait::te::BufferLevelOp>() ||
            isa<memref::CopyOp, memref::LoadOp, memref::StoreOp, memref::DimOp,
                func::ReturnOp>(op)) ||
          llvm::any_of(op.getResults(), isMemRef))
        return false;
    }
    llvm::SmallPtrSet<Value, 16> returned;
    for (Value v : ret.getOperands())
      if (isMemRef(v) &&
          (!v.getDefiningOp<memref::AllocOp>() || !returned.insert(v).second))
        return false;
    return true;
  }

  /// Upstream's deallocation pipeline, for any other module.
  OpPassManager upstream{ModuleOp::getOperationName()};
};

/// bufferization::buildBufferDeallocationPipeline's passes, te-split-deallocs
/// before buffer-deallocation-simplification, which is quadratic in the size
/// of the one bufferization.dealloc that ends a straight-line function
/// (docs/performance.md "Compile time").
TEDeallocatePass::TEDeallocatePass() {
  memref::ExpandReallocPassOptions expandRealloc;
  expandRealloc.emitDeallocs = false;
  upstream.addPass(memref::createExpandReallocPass(expandRealloc));
  upstream.addPass(createCanonicalizerPass());
  upstream.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  upstream.addPass(createCanonicalizerPass());
  upstream.addPass(createTESplitDeallocs());
  upstream.addPass(bufferization::createBufferDeallocationSimplificationPass());
  upstream.addPass(bufferization::createLowerDeallocationsPass());
  upstream.addPass(createCSEPass());
  upstream.addPass(createCanonicalizerPass());
}

} // namespace
