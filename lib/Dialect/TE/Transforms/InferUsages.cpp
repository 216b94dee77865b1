//===- InferUsages.cpp - minimal usages of quantized values -----*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-infer-usages: which representations (rowwise, columnwise) each
// quantized value must hold, from what its consumers read (docs/formats.md §5,
// §6), propagated through calls, returns and scf regions.
//
// Values whose types must stay equal (a call operand and the callee's
// argument, a return operand and the call's result, the init, region
// argument, yielded value and result of an scf.for, the yields and result
// of an scf.if) form one class (union-find). A class is *free* when every
// member's type may be rewritten (results of te.quantize and te.empty,
// arguments and results of private functions, scf values) and *fixed*
// otherwise (a public function's argument or result, the result of an op
// whose usage is set by its semantics, a value whose buffers are spelled
// out by te.buffers, a value used by an op the pass does not know). A free
// class gets the union of its needs (rowwise if nobody reads it); a fixed
// class must already hold every need, else the consumer gets an error.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEOps.h"
#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"

#define DEBUG_TYPE "te-infer-usages"

namespace mlir::te {
#define GEN_PASS_DEF_TEINFERUSAGES
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;
namespace fmt = ::te::format;

namespace {

/// What one consumer reads of a quantized value.
struct Need {
  Operation *consumer;
  Usage usage;
  std::string why; ///< e.g. "layout NT reads operand A columnwise"
  /// te.dequantize of per-tensor FP8 / 128x128 blocks: columnwise data
  /// holds the same values, so a columnwise-only tensor is enough.
  bool columnwiseSuffices = false;
};

/// Why a value's type cannot be rewritten; empty when it can.
using FixedReason = std::string;

bool isQTensor(Value value) { return isa<QTensorType>(value.getType()); }

/// A private function whose symbol is used only by func.call: its signature
/// may change with its callers.
bool isRewritableFunction(func::FuncOp func, ModuleOp module) {
  if (!func.isPrivate() || func.isExternal())
    return false;
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(func, module);
  if (!uses)
    return false;
  return llvm::all_of(*uses, [](const SymbolTable::SymbolUse &use) {
    return isa<func::CallOp>(use.getUser());
  });
}

std::string describe(Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto func = dyn_cast<func::FuncOp>(parent))
      os << "argument #" << arg.getArgNumber() << " of @" << func.getName();
    else
      os << "region argument #" << arg.getArgNumber() << " of '"
         << parent->getName() << "'";
  } else {
    auto result = cast<OpResult>(value);
    os << "result #" << result.getResultNumber() << " of '"
       << result.getOwner()->getName() << "'";
  }
  return text;
}

/// Why `need` cannot be derived from what a tensor of `type` holds.
std::string recipeReason(QTensorType type, Usage need, Target target) {
  fmt::QuantizerConfig config = type.getQuantizer().getFormatConfig();
  bool perTensor = fmt::recipeTraits(config.recipe).perTensor;
  StringRef family = fmt::recipeFamilyName(config.recipe);
  if (bitEnumContainsAll(need, Usage::Rowwise) && !type.hasRowwise()) {
    if (perTensor)
      return "per-tensor FP8 cannot recover rowwise data from the transpose";
    return (family + " quantizes rowwise and columnwise data independently "
                     "from the high-precision input; rowwise data cannot be "
                     "made from columnwise data")
        .str();
  }
  if (fmt::columnwiseHoldsRowwiseValues(config)) {
    if (perTensor && target == Target::SM100)
      return "on sm_100 per-tensor FP8 columnwise reads use the same _data "
             "buffer: give the value columnwise usage";
    return "its columnwise data is a transpose the program does not compute: "
           "quantize it with columnwise usage";
  }
  return (family + " quantizes rowwise and columnwise data independently "
                   "from the high-precision input; columnwise data cannot be "
                   "made from rowwise data")
      .str();
}

struct TEInferUsagesPass
    : public mlir::te::impl::TEInferUsagesBase<TEInferUsagesPass> {
  using Base::Base;

  llvm::EquivalenceClasses<Value> classes;
  llvm::MapVector<Value, SmallVector<Need>> needs;
  llvm::DenseMap<Value, FixedReason> fixed;
  SmallVector<Value> members; ///< every quantized value, in program order

  void addNeed(Value value, Operation *consumer, Usage usage, Twine why,
               bool columnwiseSuffices = false) {
    needs[value].push_back({consumer, usage, why.str(), columnwiseSuffices});
  }

  void fix(Value value, Twine reason) {
    if (!fixed.count(value))
      fixed[value] = reason.str();
  }

  void unite(Value a, Value b) {
    if (isQTensor(a) && isQTensor(b))
      classes.unionSets(a, b);
  }

  /// Drops the state of a run. A pass instance runs once per op it is
  /// scheduled on (e.g. every nested module of
  /// `builtin.module(builtin.module(te-infer-usages))` in turn): values of
  /// an earlier op must not reach the next run, where they may be freed.
  void reset() {
    classes = llvm::EquivalenceClasses<Value>();
    needs.clear();
    fixed.clear();
    members.clear();
  }

  void runOnOperation() override {
    reset();
    auto dropState = llvm::make_scope_exit([&] { reset(); });
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;

    // A usage view nobody reads (a te.from_buffers without uses, of a
    // te.buffers nothing else reads) needs nothing of the value it views;
    // its te.buffers would pin every usage of that value. Both are pure:
    // erased.
    SmallVector<Operation *> deadViews;
    module.walk([&](FromBuffersOp op) {
      if (op->use_empty())
        deadViews.push_back(op);
    });
    for (Operation *op : deadViews)
      op->erase();
    deadViews.clear();
    module.walk([&](BuffersOp op) {
      if (op->use_empty())
        deadViews.push_back(op);
    });
    for (Operation *op : deadViews)
      op->erase();

    // Members and their fixed-ness.
    module.walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (isQTensor(arg)) {
              classes.insert(arg);
              members.push_back(arg);
              if (auto func = dyn_cast<func::FuncOp>(op);
                  func && !isRewritableFunction(func, module))
                fix(arg, "it is an argument of public function @" +
                             func.getName() +
                             ", whose type is the caller's contract");
              else if (!isa<func::FuncOp, scf::ForOp>(op))
                fix(arg, Twine("it is a region argument of '") +
                             op->getName().getStringRef() + "'");
            }
      for (Value result : op->getResults()) {
        if (!isQTensor(result))
          continue;
        classes.insert(result);
        members.push_back(result);
        if (isa<GemmOp>(op))
          fix(result, "te.gemm writes a quantized result rowwise only");
        else if (!isa<QuantizeOp, EmptyOp, func::CallOp, scf::ForOp, scf::IfOp>(
                     op))
          fix(result, Twine("its usage is set by '") +
                          op->getName().getStringRef() + "'");
        else if (auto call = dyn_cast<func::CallOp>(op)) {
          auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
              call, call.getCalleeAttr());
          if (!callee || !isRewritableFunction(callee, module))
            fix(result,
                "it is returned by public function @" + call.getCallee());
        }
      }
    });

    // Consumers: needs and flow edges.
    module.walk([&](Operation *op) {
      if (auto gemm = dyn_cast<GemmOp>(op)) {
        StringRef layout = stringifyGemmLayout(gemm.getLayout());
        fmt::GemmUsages reads =
            fmt::gemmOperandUsages(toFormat(gemm.getLayout()));
        Usage a = fromFormat(reads.a), b = fromFormat(reads.b);
        addNeed(gemm.getA(), op, a,
                "layout " + layout + " reads operand A " + stringifyUsage(a));
        addNeed(gemm.getB(), op, b,
                "layout " + layout + " reads operand B " + stringifyUsage(b));
        return;
      }
      if (auto dq = dyn_cast<DequantizeOp>(op)) {
        addNeed(dq.getInput(), op, Usage::Rowwise,
                "te.dequantize reads rowwise data",
                fmt::columnwiseHoldsRowwiseValues(
                    dq.getInput().getType().getQuantizer().getFormatConfig()));
        return;
      }
      if (auto grad = dyn_cast<LinearGradOp>(op)) {
        const fmt::LinearSavedUsages reads = fmt::linearSavedUsages();
        Usage input = fromFormat(reads.input);
        Usage weight = fromFormat(reads.weight);
        addNeed(grad.getSavedInput(), op, input,
                "wgrad reads the saved input " + stringifyUsage(input));
        addNeed(grad.getSavedWeight(), op, weight,
                "dgrad reads the saved weight " + stringifyUsage(weight));
        return;
      }
      if (auto call = dyn_cast<func::CallOp>(op)) {
        auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        bool rewritable = callee && isRewritableFunction(callee, module);
        for (auto [i, operand] : llvm::enumerate(call.getOperands())) {
          if (!isQTensor(operand))
            continue;
          if (rewritable)
            unite(operand, callee.getArgument(i));
          else
            fixUse(operand, op,
                   "it is passed to public function @" + call.getCallee());
        }
        return;
      }
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        auto func = op->getParentOfType<func::FuncOp>();
        bool rewritable = isRewritableFunction(func, module);
        for (auto [i, operand] : llvm::enumerate(ret.getOperands())) {
          if (!isQTensor(operand))
            continue;
          if (!rewritable) {
            fixUse(operand, op,
                   "it is returned by public function @" + func.getName());
            continue;
          }
          // Every call's result i has this operand's type.
          std::optional<SymbolTable::UseRange> uses =
              SymbolTable::getSymbolUses(func, module);
          for (const SymbolTable::SymbolUse &use : *uses)
            unite(operand, use.getUser()->getResult(i));
        }
        return;
      }
      if (auto forOp = dyn_cast<scf::ForOp>(op)) {
        for (auto [init, arg, result] :
             llvm::zip_equal(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                             forOp.getResults())) {
          unite(init, arg);
          unite(arg, result);
        }
        return;
      }
      if (auto yield = dyn_cast<scf::YieldOp>(op)) {
        Operation *parent = op->getParentOp();
        if (isa<scf::ForOp, scf::IfOp>(parent)) {
          for (auto [operand, result] :
               llvm::zip_equal(yield.getOperands(), parent->getResults()))
            unite(operand, result);
          return;
        }
      }
      // te.buffers spells out the buffers (so the usage), te.linear's
      // workspace must equal its saved weight, and unknown ops keep what
      // they were given.
      for (Value operand : op->getOperands())
        if (isQTensor(operand))
          fixUse(operand, op,
                 Twine("it is used by '") + op->getName().getStringRef() + "'");
    });

    if (failed(solve(module)))
      return signalPassFailure();
  }

  /// A use that pins the value's type.
  void fixUse(Value value, Operation *user, Twine reason) {
    fix(value, reason);
    (void)user;
  }

  LogicalResult solve(ModuleOp module) {
    Target target = getTarget(module);
    bool ok = true;
    llvm::DenseMap<Value, Usage> solution; // leader -> usage
    for (auto it = classes.begin(), e = classes.end(); it != e; ++it) {
      if (!(*it)->isLeader())
        continue;
      Value leader = (*it)->getData();
      SmallVector<Value> group(classes.member_begin(**it),
                               classes.member_end());
      // The first fixed member, if any, decides the class's usage.
      Value pinned;
      for (Value member : group)
        if (fixed.count(member)) {
          pinned = member;
          break;
        }
      Usage need = Usage::None;
      for (Value member : group)
        for (const Need &n : needs.lookup(member))
          need = need | n.usage;
      if (!pinned) {
        solution[leader] = need == Usage::None ? Usage::Rowwise : need;
        continue;
      }
      auto type = cast<QTensorType>(pinned.getType());
      for (Value member : group)
        for (const Need &n : needs.lookup(member)) {
          if (bitEnumContainsAll(type.getUsage(), n.usage) ||
              (n.columnwiseSuffices && type.hasColumnwise()))
            continue;
          InFlightDiagnostic diag = n.consumer->emitOpError();
          diag << "needs " << describe(member) << " with "
               << stringifyUsage(n.usage) << " usage (" << n.why
               << "), but it holds only " << stringifyUsage(type.getUsage())
               << " and cannot be given more: " << fixed.lookup(pinned) << "; "
               << recipeReason(type, n.usage, target);
          if (pinned != member)
            diag.attachNote(pinned.getLoc())
                << "its usage is fixed by " << describe(pinned);
          ok = false;
        }
      solution[leader] = type.getUsage();
    }
    if (!ok)
      return failure();

    // The usage a free class needs may make no valid type (NVFP4 with RHT
    // gives columnwise usage to bf16 tensors only; the added buffers may
    // overflow int64): say so instead of building it.
    for (Value member : members) {
      Usage usage = solution.lookup(classes.getLeaderValue(member));
      auto type = cast<QTensorType>(member.getType());
      if (usage == Usage::None || type.getUsage() == usage)
        continue;
      if (failed(QTensorType::verifyInvariants(
              [&] {
                return emitError(member.getLoc())
                       << "cannot give " << describe(member) << " "
                       << stringifyUsage(usage) << " usage: ";
              },
              type.getShape(), type.getElementType(), type.getQuantizer(),
              usage)))
        return failure();
    }

    // Rewrite the types of free classes.
    for (Value member : members) {
      Usage usage = solution.lookup(classes.getLeaderValue(member));
      auto type = cast<QTensorType>(member.getType());
      if (usage != Usage::None && type.getUsage() != usage)
        member.setType(type.withUsage(usage));
    }
    // Function types follow their entry blocks and returns.
    module.walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      SmallVector<Type> results(func.getResultTypes());
      func.walk([&](func::ReturnOp ret) {
        if (ret->getParentOp() == func)
          results.assign(ret.getOperandTypes().begin(),
                         ret.getOperandTypes().end());
      });
      func.setType(FunctionType::get(func.getContext(),
                                     func.front().getArgumentTypes(), results));
    });
    return success();
  }
};

} // namespace
