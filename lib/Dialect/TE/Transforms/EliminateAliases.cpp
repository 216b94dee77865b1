//===- EliminateAliases.cpp - one quantized weight, no aliased results ----===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The compiler's answer to two problems of torch.compile-ing TE's Linear
// (docs/formats.md §6 "Weight workspace caching", "Aliasing in the custom-op
// path"; the seed's wt_save / new_weight_workspace slots):
//
// (a) No result aliases an operand or another result. On a cache miss the
//     quantized weight is both saved for backward and the new workspace; on a
//     cache hit it is the incoming workspace. One value remains: duplicate
//     function results and results that return an argument are removed
//     (their uses at call sites redirected), arguments that every call site
//     passes the same value are merged (private functions), `te.linear`'s
//     new_workspace / saved_weight are redirected to the one quantized
//     weight, and scf ops drop pass-through results (their canonicalization).
//     Public functions keep their signatures (the host calls them with the
//     signature it read): a result that returns an argument or repeats an
//     earlier result of the same return is a copy instead.
// (b) Equal quantizations are done once. `te.quantize` ops of the same SSA
//     value into the same quantized type up to usage (the quantizer attribute
//     compared by identity -- attributes are uniqued, so this is value
//     equality of the configuration) and with the same scale / random-stream
//     operands are merged when one dominates the other; the survivor produces
//     the union of the usages, and narrower users see a usage view
//     (te.buffers + te.from_buffers, no copy). Scope: one function body and
//     the regions nested in it. To share between a forward and a backward
//     function, inline them first (`--inline`).
// (c) A quantization whose operands are all defined outside a loop (the
//     weight in a microbatch loop) is hoisted out of it, after (b) gave it
//     every usage the loop body needs: TE's `is_first_microbatch` weight
//     cache, derived from the program instead of declared.
//
// The steps repeat until nothing changes; running the pass twice is the same
// as running it once.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/Transforms/Passes.h"

#include "UsageView.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "te/Dialect/TE/IR/TEOps.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

#define DEBUG_TYPE "te-eliminate-aliases"

namespace mlir::te {
#define GEN_PASS_DEF_TEELIMINATEALIASES
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

/// What the steps did, for the pass statistics.
struct Counts {
  unsigned resultsRemoved = 0;
  unsigned resultsCopied = 0;
  unsigned deduplicated = 0;
  unsigned hoisted = 0;
};

//===----------------------------------------------------------------------===//
// (a) te.linear results
//===----------------------------------------------------------------------===//

/// `te.linear` before decomposition: the saved weight of a cache hit is the
/// workspace operand, and the new workspace of a cache miss is the saved
/// weight. Returns true if something changed.
bool eliminateLinearAliases(LinearOp op) {
  bool changed = false;
  if (Value workspace = op.getWorkspace()) {
    if (!op.getSavedWeight().use_empty()) {
      op.getSavedWeight().replaceAllUsesWith(workspace);
      changed = true;
    }
  }
  if (!op.getCacheWeight())
    return changed;
  op.getNewWorkspace().replaceAllUsesWith(op.getSavedWeight());
  OpBuilder builder(op);
  auto replacement = LinearOp::create(
      builder, op.getLoc(), op.getInput(), op.getWeight(), op.getBias(),
      op.getWorkspace(), op.getSeed(), op.getOffset(), op.getInputQuantizer(),
      op.getWeightQuantizer(), op.getOutputQuantizerAttr(),
      /*cache_weight=*/false);
  replacement->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  for (unsigned i = 0; i < replacement->getNumResults(); ++i)
    op->getResult(i).replaceAllUsesWith(replacement->getResult(i));
  op->erase();
  return true;
}

//===----------------------------------------------------------------------===//
// (a) Function results and arguments
//===----------------------------------------------------------------------===//

SmallVector<func::ReturnOp> getReturns(func::FuncOp func) {
  SmallVector<func::ReturnOp> returns;
  for (Block &block : func.getBody())
    if (auto ret = dyn_cast<func::ReturnOp>(block.getTerminator()))
      returns.push_back(ret);
  return returns;
}

/// The calls of `func`, or nothing if it is used otherwise than by func.call.
std::optional<SmallVector<func::CallOp>> getCalls(func::FuncOp func,
                                                  ModuleOp module) {
  SmallVector<func::CallOp> calls;
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(func, module);
  if (!uses)
    return std::nullopt;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto call = dyn_cast<func::CallOp>(use.getUser());
    if (!call)
      return std::nullopt;
    calls.push_back(call);
  }
  return calls;
}

/// What a removed function result is at a call site.
struct ResultAlias {
  enum Kind { None, OtherResult, Argument } kind = None;
  unsigned index = 0;
};

/// Removes the function results that return an argument or repeat another
/// result; call sites use the argument's operand or the other result.
bool eliminateResultAliases(func::FuncOp func, ArrayRef<func::CallOp> calls,
                            Counts &counts) {
  SmallVector<func::ReturnOp> returns = getReturns(func);
  if (returns.empty() || func.getNumResults() == 0)
    return false;
  unsigned numResults = func.getNumResults();
  auto sameInAllReturns = [&](unsigned i, unsigned j) {
    return llvm::all_of(returns, [&](func::ReturnOp ret) {
      return ret.getOperand(i) == ret.getOperand(j);
    });
  };

  SmallVector<ResultAlias> aliases(numResults);
  llvm::BitVector removed(numResults);
  Block &entry = func.getBody().front();
  for (unsigned j = 0; j < numResults; ++j) {
    Value first = returns.front().getOperand(j);
    auto arg = dyn_cast<BlockArgument>(first);
    if (arg && arg.getOwner() == &entry &&
        llvm::all_of(returns, [&](func::ReturnOp ret) {
          return ret.getOperand(j) == first;
        })) {
      aliases[j] = {ResultAlias::Argument, arg.getArgNumber()};
      removed.set(j);
      continue;
    }
    for (unsigned i = 0; i < j; ++i) {
      if (removed.test(i) || !sameInAllReturns(i, j))
        continue;
      aliases[j] = {ResultAlias::OtherResult, i};
      removed.set(j);
      break;
    }
  }
  if (removed.none())
    return false;

  for (func::ReturnOp ret : returns)
    ret->eraseOperands(removed);
  if (failed(func.eraseResults(removed)))
    return false;
  counts.resultsRemoved += removed.count();

  for (func::CallOp call : calls) {
    for (unsigned j = 0; j < numResults; ++j) {
      if (!removed.test(j))
        continue;
      Value replacement = aliases[j].kind == ResultAlias::Argument
                              ? call.getOperand(aliases[j].index)
                              : call.getResult(aliases[j].index);
      call.getResult(j).replaceAllUsesWith(replacement);
    }
    OpBuilder builder(call);
    auto newCall =
        func::CallOp::create(builder, call.getLoc(), func, call.getOperands());
    newCall->setDiscardableAttrs(call->getDiscardableAttrDictionary());
    unsigned next = 0;
    for (unsigned j = 0; j < numResults; ++j)
      if (!removed.test(j))
        call.getResult(j).replaceAllUsesWith(newCall.getResult(next++));
    call->erase();
  }
  return true;
}

/// Merges the arguments of a private function that every call site passes
/// the same value.
bool eliminateArgumentAliases(func::FuncOp func, ArrayRef<func::CallOp> calls) {
  if (!func.isPrivate() || calls.empty() || func.isExternal())
    return false;
  unsigned numArgs = func.getNumArguments();
  llvm::BitVector removed(numArgs);
  for (unsigned j = 0; j < numArgs; ++j) {
    for (unsigned i = 0; i < j; ++i) {
      if (removed.test(i))
        continue;
      if (!llvm::all_of(calls, [&](func::CallOp call) {
            return call.getOperand(i) == call.getOperand(j);
          }))
        continue;
      func.getArgument(j).replaceAllUsesWith(func.getArgument(i));
      removed.set(j);
      break;
    }
  }
  if (removed.none())
    return false;
  if (failed(func.eraseArguments(removed)))
    return false;
  for (func::CallOp call : calls)
    call->eraseOperands(removed);
  return true;
}

/// A copy of `value` in a new buffer: `bufferization.alloc_tensor copy` of
/// a ranked tensor, of each buffer of a `!te.qtensor`. Null for other types
/// (scalars are values; nothing aliases them).
Value createCopy(OpBuilder &builder, Location loc, Value value) {
  if (auto tensor = dyn_cast<RankedTensorType>(value.getType()))
    return bufferization::AllocTensorOp::create(builder, loc, tensor,
                                                ValueRange(), value)
        .getResult();
  auto qtensor = dyn_cast<QTensorType>(value.getType());
  if (!qtensor)
    return {};
  Operation *anchor = builder.getInsertionBlock()->getParentOp();
  FailureOr<SmallVector<QTensorBuffer>> buffers =
      qtensor.getBuffers(getTarget(anchor), [&]() { return emitError(loc); });
  if (failed(buffers))
    return {};
  SmallVector<Type> types;
  for (const QTensorBuffer &buffer : *buffers)
    types.push_back(buffer.type);
  auto split = BuffersOp::create(builder, loc, types, value);
  SmallVector<Value> copies;
  for (Value buffer : split.getResults()) {
    Value copy = createCopy(builder, loc, buffer);
    if (!copy)
      return {};
    copies.push_back(copy);
  }
  return FromBuffersOp::create(builder, loc, qtensor, copies).getResult();
}

/// A public function keeps its signature: in each return, an operand that is
/// an argument of the function or repeats an earlier operand is replaced by
/// a copy of it.
bool copyAliasedResults(func::FuncOp func, Counts &counts) {
  bool changed = false;
  Block &entry = func.getBody().front();
  for (func::ReturnOp ret : getReturns(func)) {
    OpBuilder builder(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      Value value = operand.get();
      auto arg = dyn_cast<BlockArgument>(value);
      bool returnsArgument = arg && arg.getOwner() == &entry;
      bool repeats = llvm::any_of(
          ret->getOpOperands().take_front(operand.getOperandNumber()),
          [&](OpOperand &earlier) { return earlier.get() == value; });
      if (!returnsArgument && !repeats)
        continue;
      if (Value copy = createCopy(builder, ret.getLoc(), value)) {
        operand.set(copy);
        ++counts.resultsCopied;
        changed = true;
      }
    }
  }
  return changed;
}

bool eliminateFunctionAliases(ModuleOp module, Counts &counts) {
  bool changed = false;
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
    if (func.isExternal())
      continue;
    if (func.isPublic()) {
      changed |= copyAliasedResults(func, counts);
      continue;
    }
    std::optional<SmallVector<func::CallOp>> calls = getCalls(func, module);
    if (!calls)
      continue;
    if (eliminateResultAliases(func, *calls, counts)) {
      changed = true;
      calls = getCalls(func, module); // the calls were rebuilt
    }
    changed |= eliminateArgumentAliases(func, *calls);
  }
  return changed;
}

//===----------------------------------------------------------------------===//
// (b) Shared quantizations
//===----------------------------------------------------------------------===//

/// What makes two te.quantize ops compute the same bits: input, quantized
/// type up to usage (shape and nominal type, quantizer), live scale, random
/// stream, amax reduction group. (Not the type with both usages: that one
/// may be invalid.)
using QuantizeKey =
    std::tuple<Value, Type, Attribute, Value, Value, Value, Attribute>;

QuantizeKey getKey(QuantizeOp op) {
  QTensorType type = op.getResult().getType();
  return {op.getInput(),       type.getNominalTensorType(),
          type.getQuantizer(), op.getScale(),
          op.getSeed(),        op.getOffset(),
          op.getGroupAttr()};
}

class QuantizationSharing {
public:
  QuantizationSharing(Operation *root, Counts &counts)
      : root(root), dominance(root), counts(counts) {}

  bool run() {
    // Each quantization joins the first earlier one of its group that
    // dominates it.
    DenseMap<QuantizeKey, SmallVector<QuantizeOp>> groups;
    llvm::MapVector<Operation *, SmallVector<QuantizeOp>> members;
    root->walk<WalkOrder::PreOrder>([&](QuantizeOp op) {
      SmallVector<QuantizeOp> &leaders = groups[getKey(op)];
      auto *leader = llvm::find_if(leaders, [&](QuantizeOp candidate) {
        return dominance.properlyDominates(candidate.getOperation(), op);
      });
      if (leader == leaders.end())
        leaders.push_back(op);
      else
        members[leader->getOperation()].push_back(op);
    });
    bool changed = false;
    for (auto &[leader, ops] : members) {
      if (failed(merge(cast<QuantizeOp>(leader), ops)))
        break;
      counts.deduplicated += ops.size();
      changed = true;
    }
    return changed;
  }

private:
  /// A view of `leader`'s result holding `usage`, placed right after the
  /// leader so that it dominates every former user; one per usage.
  FailureOr<Value> view(QuantizeOp leader, Usage usage) {
    if (leader.getResult().getType().getUsage() == usage)
      return leader.getResult();
    Value &cached = views[static_cast<uint32_t>(usage)];
    if (cached)
      return cached;
    OpBuilder builder(leader->getContext());
    if (buffers)
      builder.setInsertionPointAfter(buffers);
    else
      builder.setInsertionPointAfter(leader);
    FailureOr<Value> result = createUsageView(
        builder, leader.getLoc(), leader.getResult(), usage, &buffers);
    if (succeeded(result))
      cached = *result;
    return result;
  }

  /// Makes `leader` produce the union of the usages of itself and `ops`, and
  /// replaces `ops` by views of it.
  LogicalResult merge(QuantizeOp leader, ArrayRef<QuantizeOp> ops) {
    views.clear();
    buffers = nullptr;
    QTensorType leaderType = leader.getResult().getType();
    Usage usage = leaderType.getUsage();
    for (QuantizeOp op : ops)
      usage = usage | op.getResult().getType().getUsage();
    if (usage != leaderType.getUsage()) {
      // Widen the leader; its users keep seeing the type they saw.
      SmallVector<OpOperand *> uses = llvm::map_to_vector(
          leader.getResult().getUses(), [](OpOperand &use) { return &use; });
      leader.getResult().setType(leaderType.withUsage(usage));
      FailureOr<Value> old = view(leader, leaderType.getUsage());
      if (failed(old))
        return failure();
      for (OpOperand *use : uses)
        use->set(*old);
    }
    for (QuantizeOp op : ops) {
      FailureOr<Value> replacement =
          view(leader, op.getResult().getType().getUsage());
      if (failed(replacement))
        return failure();
      op.getResult().replaceAllUsesWith(*replacement);
      if (Value amax = op.getAmax())
        amax.replaceAllUsesWith(leader.getAmax());
      op->erase();
    }
    return success();
  }

  Operation *root;
  DominanceInfo dominance;
  Counts &counts;
  DenseMap<uint32_t, Value> views;
  BuffersOp buffers;
};

//===----------------------------------------------------------------------===//
// (c) Hoisting out of loops
//===----------------------------------------------------------------------===//

/// Moves loop-invariant quantizations (and the usage views of them) out of
/// every loop, innermost loops first.
bool hoistQuantizations(Operation *root, Counts &counts) {
  SmallVector<LoopLikeOpInterface> loops;
  root->walk<WalkOrder::PostOrder>(
      [&](LoopLikeOpInterface loop) { loops.push_back(loop); });
  bool changed = false;
  for (LoopLikeOpInterface loop : loops) {
    for (Region *region : loop.getLoopRegions()) {
      for (Block &block : *region) {
        for (Operation &op : llvm::make_early_inc_range(block)) {
          if (!isa<QuantizeOp, BuffersOp, FromBuffersOp>(op))
            continue;
          if (!llvm::all_of(op.getOperands(), [&](Value value) {
                return loop.isDefinedOutsideOfLoop(value);
              }))
            continue;
          loop.moveOutOfLoop(&op);
          if (isa<QuantizeOp>(op))
            ++counts.hoisted;
          changed = true;
        }
      }
    }
  }
  return changed;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct EliminateAliasesPass
    : public mlir::te::impl::TEEliminateAliasesBase<EliminateAliasesPass> {
  using TEEliminateAliasesBase::TEEliminateAliasesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // scf results that pass an operand through: the scf ops' own
    // canonicalization, applied to them only.
    RewritePatternSet patternList(&getContext());
    scf::ForOp::getCanonicalizationPatterns(patternList, &getContext());
    scf::IfOp::getCanonicalizationPatterns(patternList, &getContext());
    scf::WhileOp::getCanonicalizationPatterns(patternList, &getContext());
    FrozenRewritePatternSet patterns(std::move(patternList));
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);

    // Each step only removes or moves operations, so this terminates; the
    // bound is a guard.
    Counts counts;
    for (int iteration = 0; iteration < 64; ++iteration) {
      bool changed = false;
      module.walk([&](LinearOp op) { changed |= eliminateLinearAliases(op); });
      changed |= QuantizationSharing(module, counts).run();
      changed |= hoistQuantizations(module, counts);
      changed |= eliminateFunctionAliases(module, counts);

      SmallVector<Operation *> scfOps;
      module.walk([&](Operation *op) {
        if (isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op))
          scfOps.push_back(op);
      });
      bool scfChanged = false;
      (void)applyOpPatternsGreedily(scfOps, patterns, config, &scfChanged);
      changed |= scfChanged;
      if (!changed)
        break;
    }
    numResultsRemoved += counts.resultsRemoved;
    numResultsCopied += counts.resultsCopied;
    numDeduplicated += counts.deduplicated;
    numHoisted += counts.hoisted;
  }
};

} // namespace
