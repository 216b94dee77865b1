//===- SplitDeallocs.cpp - Linear-time split of bufferization.dealloc -----===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-split-deallocs: runs between ownership-based-buffer-deallocation and
// buffer-deallocation-simplification and does, in time linear in the size of
// each `bufferization.dealloc`, what the latter does in quadratic time for
// the common case of a straight-line training step: every memref of the
// dealloc that is the result of an allocation (and not aliased by another
// memref of the list) gets a `bufferization.dealloc` of its own without
// retained values, unless a retained value is a view of that allocation, in
// which case it is not freed and only contributes its condition to the
// retained value's updated condition. See docs/performance.md "Compile
// time" for why (upstream's SplitDeallocWhenNotAliasingAnyOther compares
// every memref with every other one, and every split-off dealloc with every
// retained value: O(M^2 + M*R) for M memrefs and R retained values, which
// are both proportional to the number of layers of one function).
//
// Aliasing is decided only where it is certain: two results of allocating
// ops (memref.alloc, bufferization.clone, ...) are distinct allocations, and
// an allocation made in a function is distinct from the function's
// arguments. A value is traced through view-like ops to its base. A dealloc
// whose memrefs or retained values have any other base (a call result, a
// region argument, ...) is left alone for buffer-deallocation-simplification.
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#define DEBUG_TYPE "te-split-deallocs"

namespace mlir::te {
#define GEN_PASS_DEF_TESPLITDEALLOCS
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

/// The value `value` is a view of (or `value` itself when it is no view).
Value getViewBase(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// What a base value is known to be.
enum class BaseKind {
  /// The result of an op with an Allocate effect on it: a fresh allocation,
  /// distinct from every other such result.
  Allocation,
  /// An argument of the entry block of the enclosing function: distinct from
  /// every allocation made in the function.
  FunctionArgument,
  /// Anything else: may alias anything.
  Unknown,
};

BaseKind classify(Value base, FunctionOpInterface function) {
  if (Operation *def = base.getDefiningOp())
    return hasEffect<MemoryEffects::Allocate>(def, base) ? BaseKind::Allocation
                                                         : BaseKind::Unknown;
  auto arg = cast<BlockArgument>(base);
  if (function && arg.getOwner() == &function.getFunctionBody().front())
    return BaseKind::FunctionArgument;
  return BaseKind::Unknown;
}

/// Splits `dealloc` when every memref and retained value has a known base
/// and returns the number of memrefs split off; returns 0 (and leaves the op
/// alone) otherwise or when there is nothing to split.
unsigned splitDealloc(bufferization::DeallocOp dealloc) {
  auto function = dealloc->getParentOfType<FunctionOpInterface>();
  ValueRange memrefs = dealloc.getMemrefs();
  ValueRange conditions = dealloc.getConditions();
  ValueRange retained = dealloc.getRetained();

  // Retained values by the allocation they are (views of).
  DenseMap<Value, SmallVector<unsigned>> retainedOfAllocation;
  for (auto [j, value] : llvm::enumerate(retained)) {
    Value base = getViewBase(value);
    BaseKind kind = classify(base, function);
    if (kind == BaseKind::Unknown)
      return 0;
    if (kind == BaseKind::Allocation)
      retainedOfAllocation[base].push_back(j);
  }

  // Memrefs by base; an allocation that is the base of more than one memref
  // of the list (the allocation and a view of it, say) stays in the list.
  DenseMap<Value, unsigned> memrefsOfBase;
  SmallVector<Value> bases;
  bases.reserve(memrefs.size());
  for (Value memref : memrefs) {
    Value base = getViewBase(memref);
    if (classify(base, function) == BaseKind::Unknown)
      return 0;
    bases.push_back(base);
    ++memrefsOfBase[base];
  }

  OpBuilder builder(dealloc);
  Location loc = dealloc.getLoc();
  SmallVector<Value> remainingMemrefs, remainingConditions;
  // The conditions OR-ed into each retained value's updated condition.
  SmallVector<SmallVector<Value, 1>> contributions(retained.size());
  unsigned split = 0;
  for (auto [memref, condition, base] :
       llvm::zip_equal(memrefs, conditions, bases)) {
    bool alone = memref == base &&
                 classify(base, function) == BaseKind::Allocation &&
                 memrefsOfBase.lookup(base) == 1;
    if (!alone) {
      remainingMemrefs.push_back(memref);
      remainingConditions.push_back(condition);
      continue;
    }
    ++split;
    auto it = retainedOfAllocation.find(base);
    if (it == retainedOfAllocation.end()) {
      // Aliased by no retained value and by no other memref: freed on its
      // own when its condition holds.
      bufferization::DeallocOp::create(builder, loc, ValueRange{memref},
                                       ValueRange{condition}, ValueRange{});
      continue;
    }
    // A retained value is (a view of) this allocation: it is not freed, and
    // the retained value's updated condition includes this one.
    for (unsigned j : it->second)
      contributions[j].push_back(condition);
  }
  if (split == 0)
    return 0;

  // What is left keeps every retained value (a conservative superset);
  // buffer-deallocation-simplification handles it.
  SmallVector<Value> updated(retained.size());
  if (!remainingMemrefs.empty()) {
    auto rest = bufferization::DeallocOp::create(builder, loc, remainingMemrefs,
                                                 remainingConditions, retained);
    llvm::copy(rest.getUpdatedConditions(), updated.begin());
  }
  Value falseValue;
  for (unsigned j = 0, e = updated.size(); j < e; ++j) {
    Value &value = updated[j];
    for (Value condition : contributions[j])
      value =
          value
              ? arith::OrIOp::create(builder, loc, value, condition).getResult()
              : condition;
    if (!value) {
      if (!falseValue)
        falseValue =
            arith::ConstantOp::create(builder, loc, builder.getBoolAttr(false));
      value = falseValue;
    }
  }
  dealloc->replaceAllUsesWith(updated);
  dealloc->erase();
  return split;
}

struct TESplitDeallocsPass
    : public mlir::te::impl::TESplitDeallocsBase<TESplitDeallocsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> deallocs;
    getOperation()->walk(
        [&](bufferization::DeallocOp op) { deallocs.push_back(op); });
    for (bufferization::DeallocOp dealloc : deallocs)
      if (unsigned split = splitDealloc(dealloc)) {
        ++numSplit;
        numSeparated += split;
      }
  }
};

} // namespace
