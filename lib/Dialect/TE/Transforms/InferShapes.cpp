//===- InferShapes.cpp - static shapes into dynamic types -------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-infer-shapes: TransformerEngine's fake-shape inference as a pass.
// Static dimensions flow forward into dynamic dimensions of tensor and
// !te.qtensor types until a fixpoint.
//
// A worklist of ops drives it. Running an op's shape rule may make result
// types more static; the users of a refined value are queued, and so is the
// loop or branch a refined value is yielded to. te ops state their rules
// themselves (ShapeInferenceOpInterface, lib/Dialect/TE/IR/ShapeRules.cpp);
// the rules of the upstream ops the pass knows are here: tensor.cast /
// collapse_shape / expand_shape, scf.for / scf.if. When the worklist is
// empty the steps across functions run, and queue what they refine: private
// callees take their callers' shapes (specialised per distinct static
// signature when callers disagree), functions the shapes all their returns
// agree on, calls their callees' results.
//
// Specialisations are made once per original function and signature and
// are shared by every call that asks for that signature, so the recursive
// calls of a (mutually) recursive function reach the specialisation of
// their own signature. A function whose calls all moved to specialisations
// is removed. A recursion that asks for a new signature at every level (its
// shapes grow or shrink with the depth) is an error after
// kMaxRecursiveSpecialisations.
//
// Types are refined in place. Where a refined value meets a place whose
// type must not change (an op without a shape rule, a yield whose loop
// argument stays dynamic, a public callee), a cast back is inserted:
// tensor.cast for tensors, and for quantized tensors te.buffers + a
// tensor.cast per buffer + te.from_buffers (a metadata-only view).
//
// Loop arguments take what their init and the value yielded back agree on.
// That cannot see through a value the body derives from the argument
// itself, so once nothing else changes, the loop arguments whose init is
// more static are refined optimistically (to the init's shape) and the
// worklist runs on. At the next fixpoint every optimistic argument is
// checked: the value yielded back must be at least as static. If one is
// not, the changes made since the optimistic step are undone from an undo
// log, that argument is never refined optimistically again, and the others
// are tried again. Nothing restarts from the input.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEOps.h"
#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#include <functional>

#define DEBUG_TYPE "te-infer-shapes"

namespace mlir::te {
#define GEN_PASS_DEF_TEINFERSHAPES
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

/// The id of each scf.for of the input, copied into the loops of
/// specialisations: an argument refused optimistic refinement is refused in
/// every copy of its loop.
constexpr StringLiteral kLoopIdAttr = "te.infer_shapes.loop";

/// Specialisations of one function that its recursive calls may ask for
/// before the inference gives up on giving the recursion static shapes.
constexpr unsigned kMaxRecursiveSpecialisations = 16;

//===----------------------------------------------------------------------===//
// Shape lattice: a static dimension is more precise than `?`.
//===----------------------------------------------------------------------===//

ArrayRef<int64_t> shapeOf(Type type) {
  if (auto q = dyn_cast<QTensorType>(type))
    return q.getShape();
  if (auto t = dyn_cast<RankedTensorType>(type))
    return t.getShape();
  return {};
}

bool isShaped(Type type) { return isa<QTensorType, RankedTensorType>(type); }

/// Whether `q` with `shape` is a valid quantized type (the recipe's shape
/// rules, its buffers' sizes). An invalid type is never built.
bool isValidWithShape(QTensorType q, ArrayRef<int64_t> shape) {
  MLIRContext *ctx = q.getContext();
  ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
  return succeeded(QTensorType::verifyInvariants(
      [&] { return emitError(UnknownLoc::get(ctx)); }, shape,
      q.getElementType(), q.getQuantizer(), q.getUsage()));
}

/// `type` with `shape`; null for a quantized type that shape makes invalid.
Type withShape(Type type, ArrayRef<int64_t> shape) {
  if (auto q = dyn_cast<QTensorType>(type))
    return isValidWithShape(q, shape) ? q.withShape(shape) : Type();
  return cast<RankedTensorType>(type).clone(shape);
}

/// `'!te.qtensor<...>'` as the type would print, for a shape that makes no
/// valid type.
std::string printWithShape(QTensorType q, ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'!te.qtensor<";
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
    os << "x";
  }
  os << q.getElementType() << ", " << q.getQuantizer() << ", "
     << stringifyUsage(q.getUsage()) << ">'";
  return text;
}

/// The most precise shape both describe; nullopt when they conflict.
std::optional<SmallVector<int64_t>> meetShapes(ArrayRef<int64_t> a,
                                               ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return std::nullopt;
  SmallVector<int64_t> result;
  for (auto [x, y] : llvm::zip_equal(a, b)) {
    if (ShapedType::isDynamic(x))
      result.push_back(y);
    else if (ShapedType::isDynamic(y) || x == y)
      result.push_back(x);
    else
      return std::nullopt;
  }
  return result;
}

/// The least precise shape: static only where both agree.
SmallVector<int64_t> joinShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  SmallVector<int64_t> result;
  for (auto [x, y] : llvm::zip_equal(a, b))
    result.push_back(x == y ? x : ShapedType::kDynamic);
  return result;
}

/// `type` refined with `shape` (same kind of type, same rank); null if the
/// shapes conflict, nothing is learnt or the refined type would be invalid.
Type meet(Type type, ArrayRef<int64_t> shape) {
  if (!isShaped(type))
    return {};
  std::optional<SmallVector<int64_t>> m = meetShapes(shapeOf(type), shape);
  if (!m || ArrayRef<int64_t>(*m) == shapeOf(type))
    return {};
  return withShape(type, *m);
}

/// True if `a` is `b` with some dynamic dimensions made static.
bool isRefinementOf(Type a, Type b) {
  if (a == b)
    return true;
  if (!isShaped(a) || !isShaped(b) || withShape(a, shapeOf(b)) != b)
    return false;
  std::optional<SmallVector<int64_t>> m = meetShapes(shapeOf(a), shapeOf(b));
  return m && ArrayRef<int64_t>(*m) == shapeOf(a);
}

std::string mangle(ArrayRef<Type> types) {
  std::string text;
  for (Type type : types) {
    if (!isShaped(type))
      continue;
    if (!text.empty())
      text += "_";
    llvm::interleave(
        shapeOf(type),
        [&](int64_t d) {
          text +=
              ShapedType::isDynamic(d) ? std::string("d") : std::to_string(d);
        },
        [&] { text += "x"; });
  }
  return text;
}

/// The upstream ops whose shape rules the pass runs itself (scf.for,
/// scf.if and their yields, the tensor ops) or whose types it keeps in sync
/// (calls and returns, by the steps across functions).
bool isUpstreamOpWithShapeRule(Operation *op) {
  if (isa<scf::YieldOp>(op))
    return isa<scf::ForOp, scf::IfOp>(op->getParentOp());
  return isa<tensor::CastOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
             scf::IfOp, scf::ForOp, func::CallOp, func::ReturnOp>(op);
}

/// Ops whose operands may take refined types: te ops with a shape rule and
/// the upstream ops above. Other users of a refined value get a cast back
/// to the type they had.
bool acceptsRefinedOperands(Operation *op) {
  return isa<ShapeInferenceOpInterface>(op) || isUpstreamOpWithShapeRule(op);
}

/// Ops waiting for their shape rule to run: first in, first out, each at
/// most once.
class OpWorklist {
public:
  void push(Operation *op) {
    if (queued.insert(op).second)
      ops.push_back(op);
  }
  /// The next op; null when the worklist is empty.
  Operation *pop() {
    while (next < ops.size()) {
      Operation *op = ops[next++];
      if (queued.erase(op))
        return op;
    }
    ops.clear();
    next = 0;
    return nullptr;
  }
  /// Takes `op` off the worklist (its entry is skipped).
  void remove(Operation *op) { queued.erase(op); }

private:
  std::vector<Operation *> ops;
  size_t next = 0;
  DenseSet<Operation *> queued;
};

//===----------------------------------------------------------------------===//
// The inference
//===----------------------------------------------------------------------===//

class ShapeInference {
public:
  struct Counts {
    unsigned opsVisited = 0;
    unsigned rounds = 0;
    unsigned specialisations = 0;
    unsigned loopRounds = 0;
    unsigned loopRoundsUndone = 0;
    unsigned typesRefined = 0;
  };

  explicit ShapeInference(ModuleOp module)
      : module(module), symbols(module), target(getTarget(module)) {}
  ShapeInference(const ShapeInference &) = delete;
  ShapeInference &operator=(const ShapeInference &) = delete;
  /// Functions still out of the module (after an error) are erased.
  ~ShapeInference() {
    for (Operation *func : removedFunctions)
      func->erase();
  }

  /// Runs to a fixpoint and inserts the casts back. Returns failure after an
  /// error.
  LogicalResult run();
  const Counts &getCounts() const { return counts; }

private:
  ModuleOp module;
  SymbolTable symbols;
  Target target;
  Counts counts;
  OpWorklist worklist;
  /// Set when a call's or a return's operand types or a function changed:
  /// the steps across functions run again once the worklist is empty.
  bool acrossFunctionsChanged = true;
  /// The input type of every value whose type was refined.
  DenseMap<Value, Type> original;
  /// Quantized values whose refined shape breaks their recipe's rules: the
  /// shape they would have had (reported by finish(), not applied).
  DenseMap<Value, SmallVector<int64_t>> invalid;
  /// te ops whose shape rule failed on refined operands (finish() reports
  /// why).
  llvm::SetVector<Operation *> failedInference;
  /// The input's function each specialisation was cloned from.
  DenseMap<StringAttr, StringAttr> originOf;
  /// (input function, argument types) -> the specialisation for them.
  DenseMap<std::pair<StringAttr, Attribute>, StringAttr> specialisations;
  /// Per input function: the specialisations its recursive calls asked for.
  DenseMap<StringAttr, unsigned> numRecursive;
  /// Functions that have specialisations or are one: removed once no
  /// function outside this set reaches them through calls.
  DenseSet<StringAttr> specialised;
  /// Functions removed from the module (erased at the end: an undo may put
  /// one back).
  llvm::SetVector<Operation *> removedFunctions;
  /// The input's call graph, closed: the functions each function reaches
  /// through one or more calls.
  DenseMap<StringAttr, DenseSet<StringAttr>> reaches;
  /// Set after an error in inferCalls.
  bool failedCalls = false;

  /// While loop arguments are optimistic: the undo of every change since
  /// they were refined, in order, and the arguments refined optimistically.
  bool optimistic = false;
  SmallVector<std::function<void()>> undoLog;
  SmallVector<std::pair<scf::ForOp, unsigned>> optimisticArgs;
  /// Loop arguments (loop id, index) never refined optimistically again: the
  /// value yielded back was less static.
  DenseSet<std::pair<int64_t, unsigned>> blocked;

  /// Records how to undo a change, while loop arguments are optimistic.
  void onUndo(std::function<void()> undo) {
    if (optimistic)
      undoLog.push_back(std::move(undo));
  }
  /// Queues the ops whose rules read the type of an operand of `user`.
  void queueUser(Operation *user) {
    worklist.push(user);
    if (isa<scf::YieldOp>(user))
      worklist.push(user->getParentOp());
    if (isa<func::CallOp, func::ReturnOp>(user))
      acrossFunctionsChanged = true;
  }
  void refine(Value value, Type type) {
    if (!type || type == value.getType())
      return;
    Type before = value.getType();
    original.try_emplace(value, before);
    value.setType(type);
    onUndo([value, before]() mutable { value.setType(before); });
    for (Operation *user : value.getUsers())
      queueUser(user);
  }
  void refineShape(Value value, ArrayRef<int64_t> shape) {
    if (auto q = dyn_cast<QTensorType>(value.getType()))
      if (std::optional<SmallVector<int64_t>> m =
              meetShapes(q.getShape(), shape);
          m && ArrayRef<int64_t>(*m) != q.getShape() &&
          !isValidWithShape(q, *m)) {
        if (invalid.try_emplace(value, *m).second)
          onUndo([this, value] { invalid.erase(value); });
        return;
      }
    refine(value, meet(value.getType(), shape));
  }
  void setFunctionType(func::FuncOp func, FunctionType type) {
    FunctionType before = func.getFunctionType();
    if (type == before)
      return;
    func.setType(type);
    onUndo([func, before]() mutable { func.setType(before); });
    acrossFunctionsChanged = true;
  }
  void setCallee(func::CallOp call, StringRef callee) {
    FlatSymbolRefAttr before = call.getCalleeAttr();
    call.setCallee(callee);
    onUndo([call, before]() mutable { call.setCalleeAttr(before); });
    acrossFunctionsChanged = true;
  }
  void markSpecialised(StringAttr name) {
    if (specialised.insert(name).second)
      onUndo([this, name] { specialised.erase(name); });
  }
  /// Drops the values of `op` (about to be erased) from the maps.
  void forget(Operation *op) {
    op->walk([&](Operation *nested) {
      failedInference.remove(nested);
      worklist.remove(nested);
      for (Value result : nested->getResults()) {
        original.erase(result);
        invalid.erase(result);
      }
      for (Region &region : nested->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments()) {
            original.erase(arg);
            invalid.erase(arg);
          }
    });
  }

  void runToFixpoint();
  void visit(Operation *op);
  void runShapeRule(ShapeInferenceOpInterface rule);
  void refineCast(tensor::CastOp cast);
  void refineCollapseShape(tensor::CollapseShapeOp collapse);
  void refineExpandShape(tensor::ExpandShapeOp expand);
  void refineLoop(scf::ForOp forOp);
  void refineBranches(scf::IfOp ifOp);
  bool canRefineOptimistically(scf::ForOp forOp, unsigned i);
  bool startOptimisticRound();
  void checkOptimisticRound();

  void computeCallGraph();
  StringAttr originOfFunction(func::FuncOp func) const {
    StringAttr origin = originOf.lookup(func.getSymNameAttr());
    return origin ? origin : func.getSymNameAttr();
  }
  bool isRecursiveCall(func::CallOp call, StringAttr calleeOrigin) const;
  void inferCalls();
  void removeFunction(func::FuncOp func);
  void removeUnreachableSpecialisations();
  void inferFunctionResults();

  void rebuildRefinedExpandShapes();
  Value castTo(OpBuilder &builder, Location loc, Value value, Type type);
  LogicalResult finish();
};

//===----------------------------------------------------------------------===//
// Shape rules of te ops (their own) and of upstream ops (below)
//===----------------------------------------------------------------------===//

/// Runs the shape rule of `op`; ops without one are left as they are.
void ShapeInference::visit(Operation *op) {
  ++counts.opsVisited;
  if (auto rule = dyn_cast<ShapeInferenceOpInterface>(op))
    return runShapeRule(rule);
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](tensor::CastOp cast) { refineCast(cast); })
      .Case([&](tensor::CollapseShapeOp op) { refineCollapseShape(op); })
      .Case([&](tensor::ExpandShapeOp op) { refineExpandShape(op); })
      .Case([&](scf::ForOp forOp) { refineLoop(forOp); })
      .Case([&](scf::IfOp ifOp) { refineBranches(ifOp); });
}

/// A te op's own rule (ShapeInferenceOpInterface).
void ShapeInference::runShapeRule(ShapeInferenceOpInterface rule) {
  Operation *op = rule;
  SmallVector<ShapedTypeComponents> shapes;
  // Silently here (the inference runs to a fixpoint); finish() reports.
  if (failed(rule.inferResultShapes(/*location=*/std::nullopt, shapes))) {
    if (failedInference.insert(op))
      onUndo([this, op] { failedInference.remove(op); });
    return;
  }
  SmallVector<Type> before(op->getResultTypes());
  for (auto [result, shape] : llvm::zip(op->getResults(), shapes))
    if (shape.hasRank())
      refineShape(result, shape.getDims());
  if (llvm::equal(before, op->getResultTypes()))
    return;
  SmallVector<Value> operands(op->getOperands());
  rule.resultTypesRefined(before);
  if (!llvm::equal(operands, op->getOperands()))
    onUndo([op, operands] { op->setOperands(operands); });
}

//===----------------------------------------------------------------------===//
// Shape rules of the upstream ops the pass knows
//===----------------------------------------------------------------------===//

/// tensor.cast: a more static source refines the result. A cast that only
/// feeds ops keeping their types (e.g. a cast back) is left alone.
void ShapeInference::refineCast(tensor::CastOp cast) {
  if (llvm::any_of(cast->getUsers(), acceptsRefinedOperands))
    refineShape(cast.getResult(), shapeOf(cast.getSource().getType()));
}

/// tensor.collapse_shape: a group of static dimensions is their product.
void ShapeInference::refineCollapseShape(tensor::CollapseShapeOp collapse) {
  ArrayRef<int64_t> src = collapse.getSrcType().getShape();
  SmallVector<int64_t> shape;
  for (const ReassociationIndices &group : collapse.getReassociationIndices()) {
    int64_t size = 1;
    for (int64_t i : group)
      size = ShapedType::isDynamic(src[i]) || ShapedType::isDynamic(size)
                 ? ShapedType::kDynamic
                 : size * src[i];
    shape.push_back(size);
  }
  refineShape(collapse.getResult(), shape);
}

/// tensor.expand_shape: a group with one dynamic dimension gets the source
/// size divided by the static ones. The op's output shape is rebuilt to
/// match once the inference is done (rebuildRefinedExpandShapes).
void ShapeInference::refineExpandShape(tensor::ExpandShapeOp expand) {
  ArrayRef<int64_t> src = expand.getSrcType().getShape();
  SmallVector<int64_t> shape(expand.getResultType().getShape());
  for (auto [srcDim, group] :
       llvm::enumerate(expand.getReassociationIndices())) {
    if (ShapedType::isDynamic(src[srcDim]))
      continue;
    int64_t known = 1, dynamicAt = -1, numDynamic = 0;
    for (int64_t i : group) {
      if (ShapedType::isDynamic(shape[i])) {
        dynamicAt = i;
        ++numDynamic;
      } else {
        known *= shape[i];
      }
    }
    if (numDynamic == 1 && known != 0 && src[srcDim] % known == 0)
      shape[dynamicAt] = src[srcDim] / known;
  }
  refineShape(expand.getResult(), shape);
}

/// scf.for: each argument takes what its init and the value yielded back
/// agree on; while loop arguments are optimistic, the init's shape (checked
/// by checkOptimisticRound). Results follow their arguments.
void ShapeInference::refineLoop(scf::ForOp forOp) {
  auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
  for (auto [i, init, arg, result] :
       llvm::enumerate(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                       forOp.getResults())) {
    Type yielded = yield.getOperand(i).getType();
    if (!isShaped(arg.getType()) || !isShaped(yielded))
      continue;
    refineShape(arg, joinShapes(shapeOf(init.getType()), shapeOf(yielded)));
    if (optimistic && canRefineOptimistically(forOp, i)) {
      refineShape(arg, shapeOf(init.getType()));
      optimisticArgs.emplace_back(forOp, i);
    }
    refineShape(result, shapeOf(arg.getType()));
  }
}

/// scf.if: results are static where both branches agree.
void ShapeInference::refineBranches(scf::IfOp ifOp) {
  if (ifOp.getElseRegion().empty())
    return;
  auto thenYield = ifOp.thenYield(), elseYield = ifOp.elseYield();
  for (auto [i, result] : llvm::enumerate(ifOp.getResults())) {
    Type a = thenYield.getOperand(i).getType();
    Type b = elseYield.getOperand(i).getType();
    if (isShaped(a) && isShaped(b))
      refineShape(result, joinShapes(shapeOf(a), shapeOf(b)));
  }
}

//===----------------------------------------------------------------------===//
// The fixpoint and optimistic loop arguments
//===----------------------------------------------------------------------===//

void ShapeInference::runToFixpoint() {
  while (true) {
    while (Operation *op = worklist.pop())
      visit(op);
    if (!acrossFunctionsChanged)
      return;
    acrossFunctionsChanged = false;
    ++counts.rounds;
    inferCalls();
    if (failedCalls)
      return;
    inferFunctionResults();
  }
}

/// Whether argument `i` of `forOp` may be refined optimistically: its init
/// is more static and it was never refused.
bool ShapeInference::canRefineOptimistically(scf::ForOp forOp, unsigned i) {
  auto id = forOp->getAttrOfType<IntegerAttr>(kLoopIdAttr);
  if (!id || blocked.contains(std::make_pair(id.getInt(), i)))
    return false;
  Value arg = forOp.getRegionIterArgs()[i];
  return isShaped(arg.getType()) &&
         meet(arg.getType(), shapeOf(forOp.getInitArgs()[i].getType()));
}

/// Queues the loops with an argument to refine optimistically. Returns false
/// if there is none.
bool ShapeInference::startOptimisticRound() {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp forOp) {
    for (unsigned i = 0, e = forOp.getNumRegionIterArgs(); i < e; ++i)
      if (canRefineOptimistically(forOp, i)) {
        loops.push_back(forOp);
        return;
      }
  });
  if (loops.empty())
    return false;
  LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": " << loops.size()
                          << " loop(s) refined optimistically\n");
  ++counts.loopRounds;
  optimistic = true;
  for (scf::ForOp forOp : loops)
    worklist.push(forOp);
  return true;
}

/// At the fixpoint after startOptimisticRound: keeps the changes if every
/// optimistic argument gets back a value at least as static, else undoes
/// them and refuses the arguments that did not.
void ShapeInference::checkOptimisticRound() {
  SmallVector<std::pair<int64_t, unsigned>> refused;
  for (auto [forOp, i] : optimisticArgs) {
    if (!module->isProperAncestor(forOp))
      continue; // in a function no longer reached
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    if (!isRefinementOf(yield.getOperand(i).getType(),
                        forOp.getRegionIterArgs()[i].getType()))
      refused.emplace_back(
          forOp->getAttrOfType<IntegerAttr>(kLoopIdAttr).getInt(), i);
  }
  optimistic = false;
  optimisticArgs.clear();
  if (refused.empty()) {
    undoLog.clear();
    return;
  }
  LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": " << refused.size()
                          << " loop argument(s) yield less static values; "
                             "undoing "
                          << undoLog.size() << " change(s)\n");
  ++counts.loopRoundsUndone;
  while (!undoLog.empty())
    undoLog.pop_back_val()();
  blocked.insert(refused.begin(), refused.end());
}

LogicalResult ShapeInference::run() {
  computeCallGraph();
  module.walk([&](Operation *op) {
    if (op != module)
      worklist.push(op);
  });
  while (true) {
    runToFixpoint();
    if (failedCalls)
      return failure();
    if (optimistic)
      checkOptimisticRound();
    else if (!startOptimisticRound())
      break;
  }
  for (Operation *func : removedFunctions) {
    forget(func);
    func->erase();
  }
  removedFunctions.clear();
  for (auto &[value, type] : original)
    if (value.getType() != type)
      ++counts.typesRefined;
  return finish();
}

//===----------------------------------------------------------------------===//
// Steps across functions
//===----------------------------------------------------------------------===//

/// Fills `reaches` from the module as it is before the inference.
void ShapeInference::computeCallGraph() {
  DenseMap<StringAttr, SmallVector<StringAttr>> callees;
  for (func::FuncOp func : module.getOps<func::FuncOp>())
    func.walk([&](func::CallOp call) {
      callees[func.getSymNameAttr()].push_back(call.getCalleeAttr().getAttr());
    });
  for (auto &[func, direct] : callees) {
    DenseSet<StringAttr> &seen = reaches[func];
    SmallVector<StringAttr> worklist(direct.begin(), direct.end());
    while (!worklist.empty()) {
      StringAttr next = worklist.pop_back_val();
      if (!seen.insert(next).second)
        continue;
      auto it = callees.find(next);
      if (it != callees.end())
        worklist.append(it->second.begin(), it->second.end());
    }
  }
}

/// Whether `call`, a call of a function cloned from `calleeOrigin`, lies on
/// a cycle of the input's call graph.
bool ShapeInference::isRecursiveCall(func::CallOp call,
                                     StringAttr calleeOrigin) const {
  auto caller = call->getParentOfType<func::FuncOp>();
  if (!caller)
    return false;
  auto it = reaches.find(calleeOrigin);
  return it != reaches.end() && it->second.contains(originOfFunction(caller));
}

/// Private callees take their callers' shapes: refined in place when all
/// callers agree, specialised per distinct signature otherwise (calls asking
/// for the callee's own signature keep calling it). Call results take the
/// callee's result shapes.
void ShapeInference::inferCalls() {
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  for (func::FuncOp func : funcs) {
    if (!func.isPrivate() || func.isExternal())
      continue;
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(func, module);
    if (!uses || llvm::any_of(*uses, [](const SymbolTable::SymbolUse &use) {
          return !isa<func::CallOp>(use.getUser());
        }))
      continue;
    // The signature each call asks for.
    llvm::MapVector<Attribute, SmallVector<func::CallOp>> bySignature;
    for (const SymbolTable::SymbolUse &use : *uses) {
      auto call = cast<func::CallOp>(use.getUser());
      SmallVector<Type> sig;
      for (auto [argType, operand] :
           llvm::zip_equal(func.getArgumentTypes(), call.getOperands())) {
        Type refined = meet(argType, shapeOf(operand.getType()));
        sig.push_back(refined ? refined : argType);
      }
      Attribute key =
          TypeAttr::get(FunctionType::get(func.getContext(), sig, {}));
      bySignature[key].push_back(call);
    }
    if (bySignature.empty())
      continue;
    auto signatureOf = [](Attribute key) {
      return cast<FunctionType>(cast<TypeAttr>(key).getValue()).getInputs();
    };
    StringAttr origin = originOfFunction(func);
    if (bySignature.size() == 1) {
      ArrayRef<Type> sig = signatureOf(bySignature.front().first);
      if (llvm::equal(sig, func.getArgumentTypes()))
        continue;
      for (auto [arg, type] : llvm::zip_equal(func.getArguments(), sig))
        refine(arg, type);
      setFunctionType(func, FunctionType::get(func.getContext(),
                                              func.front().getArgumentTypes(),
                                              func.getResultTypes()));
      if (specialised.contains(func.getSymNameAttr()))
        specialisations[{origin, bySignature.front().first}] =
            func.getSymNameAttr();
      continue;
    }
    // Callers disagree: each signature other than the callee's own goes to
    // the specialisation made for it, cloned from this function when there
    // is none yet.
    for (auto &[key, calls] : bySignature) {
      ArrayRef<Type> sig = signatureOf(key);
      if (llvm::equal(sig, func.getArgumentTypes()))
        continue;
      func::FuncOp target;
      if (StringAttr name = specialisations.lookup({origin, key}))
        if (auto existing = symbols.lookup<func::FuncOp>(name);
            existing && llvm::equal(existing.getArgumentTypes(), sig))
          target = existing;
      if (!target) {
        if (llvm::any_of(calls, [&](func::CallOp call) {
              return isRecursiveCall(call, origin);
            })) {
          unsigned &num = numRecursive[origin];
          if (++num > kMaxRecursiveSpecialisations) {
            std::string types;
            llvm::raw_string_ostream os(types);
            llvm::interleaveComma(sig, os);
            calls.front().emitOpError()
                << "asks for a specialisation of recursive function '"
                << origin.getValue() << "' for (" << types
                << "), a new signature after " << kMaxRecursiveSpecialisations
                << " others: its argument shapes change with the depth of "
                   "the recursion, so te-infer-shapes cannot make them static";
            failedCalls = true;
            return;
          }
          onUndo([this, origin] { --numRecursive[origin]; });
        }
        target = func.clone();
        target.setSymName((origin.getValue() + "_" + mangle(sig)).str());
        symbols.insert(target, Block::iterator(func));
        ++counts.specialisations;
        onUndo([this, target]() mutable {
          --counts.specialisations;
          forget(target);
          symbols.erase(target);
        });
        for (auto [arg, type] : llvm::zip_equal(target.getArguments(), sig))
          refine(arg, type);
        setFunctionType(target,
                        FunctionType::get(target.getContext(),
                                          target.front().getArgumentTypes(),
                                          target.getResultTypes()));
        originOf[target.getSymNameAttr()] = origin;
        specialisations[{origin, key}] = target.getSymNameAttr();
        markSpecialised(target.getSymNameAttr());
        target.walk([&](Operation *op) { worklist.push(op); });
      }
      for (func::CallOp call : calls)
        setCallee(call, target.getSymName());
      markSpecialised(func.getSymNameAttr());
    }
  }
  removeUnreachableSpecialisations();

  module.walk([&](func::CallOp call) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if (!callee)
      return;
    for (auto [result, type] :
         llvm::zip_equal(call.getResults(), callee.getResultTypes()))
      if (isShaped(type))
        refineShape(result, shapeOf(type));
  });
}

/// Takes `func` out of the module; it is erased at the end unless an undo
/// puts it back.
void ShapeInference::removeFunction(func::FuncOp func) {
  Operation *next = func->getNextNode();
  symbols.remove(func);
  func->remove();
  func.walk([&](Operation *op) { worklist.remove(op); });
  removedFunctions.insert(func);
  acrossFunctionsChanged = true;
  onUndo([this, func, next] {
    removedFunctions.remove(func);
    symbols.insert(func,
                   next ? Block::iterator(next) : module.getBody()->end());
  });
}

/// Removes the functions in `specialised` that no other function reaches
/// through calls: a generic function whose calls all went to
/// specialisations, and the recursive specialisations only they called.
void ShapeInference::removeUnreachableSpecialisations() {
  DenseSet<StringAttr> live;
  SmallVector<func::FuncOp> worklist;
  for (func::FuncOp func : module.getOps<func::FuncOp>())
    if (!specialised.contains(func.getSymNameAttr()) &&
        live.insert(func.getSymNameAttr()).second)
      worklist.push_back(func);
  while (!worklist.empty()) {
    func::FuncOp func = worklist.pop_back_val();
    func.walk([&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (callee && live.insert(callee.getSymNameAttr()).second)
        worklist.push_back(callee);
    });
  }
  SmallVector<func::FuncOp> dead;
  for (func::FuncOp func : module.getOps<func::FuncOp>())
    if (!live.contains(func.getSymNameAttr()))
      dead.push_back(func);
  for (func::FuncOp func : dead) {
    StringAttr name = func.getSymNameAttr();
    specialised.erase(name);
    onUndo([this, name] { specialised.insert(name); });
    removeFunction(func);
  }
}

/// Function results: static where every return agrees.
void ShapeInference::inferFunctionResults() {
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    SmallVector<Type> results(func.getResultTypes());
    SmallVector<std::optional<SmallVector<int64_t>>> joined(results.size());
    func.walk([&](func::ReturnOp ret) {
      for (auto [i, operand] : llvm::enumerate(ret.getOperands())) {
        if (!isShaped(operand.getType()))
          continue;
        ArrayRef<int64_t> shape = shapeOf(operand.getType());
        joined[i] = joined[i] ? joinShapes(*joined[i], shape)
                              : SmallVector<int64_t>(shape);
      }
    });
    bool learnt = false;
    for (auto [i, type] : llvm::enumerate(results))
      if (joined[i])
        if (Type refined = meet(type, *joined[i])) {
          type = refined;
          learnt = true;
        }
    if (learnt)
      setFunctionType(func,
                      FunctionType::get(func.getContext(),
                                        func.getArgumentTypes(), results));
  }
}

//===----------------------------------------------------------------------===//
// After the fixpoint
//===----------------------------------------------------------------------===//

/// tensor.expand_shape ops with a refined result get the output shape that
/// states it.
void ShapeInference::rebuildRefinedExpandShapes() {
  SmallVector<tensor::ExpandShapeOp> refined;
  module.walk([&](tensor::ExpandShapeOp expand) {
    auto it = original.find(expand.getResult());
    if (it != original.end() && it->second != expand.getResultType())
      refined.push_back(expand);
  });
  for (tensor::ExpandShapeOp expand : refined) {
    OpBuilder builder(expand);
    auto rebuilt = tensor::ExpandShapeOp::create(
        builder, expand.getLoc(), expand.getResultType(), expand.getSrc(),
        expand.getReassociationIndices());
    original[rebuilt.getResult()] = original.lookup(expand.getResult());
    expand.getResult().replaceAllUsesWith(rebuilt.getResult());
    forget(expand);
    expand.erase();
  }
}

/// `value` seen as `type`, a type of the same kind differing only in the
/// static-ness of dimensions.
Value ShapeInference::castTo(OpBuilder &builder, Location loc, Value value,
                             Type type) {
  if (value.getType() == type)
    return value;
  if (isa<RankedTensorType>(type))
    return tensor::CastOp::create(builder, loc, type, value);
  auto from = cast<QTensorType>(value.getType());
  auto to = cast<QTensorType>(type);
  SmallVector<RankedTensorType> fromTypes = from.getBufferTypes(target);
  SmallVector<RankedTensorType> toTypes = to.getBufferTypes(target);
  SmallVector<Type> resultTypes(fromTypes.begin(), fromTypes.end());
  auto buffers = BuffersOp::create(builder, loc, resultTypes, value);
  SmallVector<Value> casted;
  for (auto [buffer, bufferType] :
       llvm::zip_equal(buffers.getResults(), toTypes)) {
    Value v = buffer;
    if (buffer.getType() != bufferType)
      v = tensor::CastOp::create(builder, loc, bufferType, buffer);
    casted.push_back(v);
  }
  return FromBuffersOp::create(builder, loc, to, casted);
}

/// The recipes' shape rules on the refined quantized types, the output
/// shapes of tensor.expand_shape, and casts where a refined value meets a
/// type that stayed.
LogicalResult ShapeInference::finish() {
  // Shape rules of refined quantized types, at the op that makes them (the
  // first one in program order). A refinement that breaks them was not
  // applied; `invalid` has the shape it would have given.
  auto checkRules = [&](Value value, Operation *at) {
    auto it = invalid.find(value);
    if (it == invalid.end())
      return success();
    auto type = cast<QTensorType>(value.getType());
    std::string inferred = printWithShape(type, it->second);
    return QTensorType::verifyInvariants(
        [&] {
          return at->emitOpError() << "with inferred type " << inferred << ": ";
        },
        it->second, type.getElementType(), type.getQuantizer(),
        type.getUsage());
  };
  WalkResult rules = module.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(checkRules(arg, op)))
            return WalkResult::interrupt();
    for (Value result : op->getResults())
      if (failed(checkRules(result, op)))
        return WalkResult::interrupt();
    // A te op whose rule fails on its refined operands (e.g. te.linear whose
    // quantized input breaks MXFP8's rules once the batch is known): the
    // rule says why, at the op.
    if (failedInference.contains(op)) {
      SmallVector<ShapedTypeComponents> shapes;
      if (failed(cast<ShapeInferenceOpInterface>(op).inferResultShapes(
              op->getLoc(), shapes)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (rules.wasInterrupted())
    return failure();

  rebuildRefinedExpandShapes();

  // Where a type must stay, cast back (or forward: a loop argument that
  // stayed less static than its init, a public callee's argument).
  module.walk([&](Operation *op) {
    OpBuilder builder(op);
    auto fixOperand = [&](OpOperand &operand, Type expected) {
      if (operand.get().getType() == expected || !isShaped(expected))
        return;
      operand.set(castTo(builder, op->getLoc(), operand.get(), expected));
    };
    if (auto yield = dyn_cast<scf::YieldOp>(op)) {
      Operation *parent = op->getParentOp();
      if (auto forOp = dyn_cast<scf::ForOp>(parent)) {
        for (auto [operand, arg] :
             llvm::zip_equal(op->getOpOperands(), forOp.getRegionIterArgs()))
          fixOperand(operand, arg.getType());
        return;
      }
      if (isa<scf::IfOp>(parent)) {
        for (auto [operand, result] :
             llvm::zip_equal(op->getOpOperands(), parent->getResults()))
          fixOperand(operand, result.getType());
        return;
      }
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      for (auto [operand, arg] : llvm::zip_equal(forOp.getInitArgsMutable(),
                                                 forOp.getRegionIterArgs()))
        fixOperand(operand, arg.getType());
      // Results follow their loop arguments.
      for (auto [result, arg] :
           llvm::zip_equal(forOp.getResults(), forOp.getRegionIterArgs()))
        if (result.getType() != arg.getType()) {
          original.try_emplace(result, result.getType());
          result.setType(arg.getType());
        }
      return;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      auto func = cast<func::FuncOp>(op->getParentOp());
      for (auto [operand, type] :
           llvm::zip_equal(op->getOpOperands(), func.getResultTypes()))
        fixOperand(operand, type);
      return;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      if (auto callee = symbols.lookup<func::FuncOp>(call.getCallee()))
        for (auto [operand, type] :
             llvm::zip_equal(op->getOpOperands(), callee.getArgumentTypes()))
          fixOperand(operand, type);
      return;
    }
    if (acceptsRefinedOperands(op))
      return;
    for (OpOperand &operand : op->getOpOperands())
      if (auto it = original.find(operand.get()); it != original.end())
        fixOperand(operand, it->second);
  });
  return success();
}

struct TEInferShapesPass
    : public mlir::te::impl::TEInferShapesBase<TEInferShapesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    int64_t nextId = 0;
    module.walk([&](scf::ForOp forOp) {
      forOp->setAttr(
          kLoopIdAttr,
          IntegerAttr::get(IntegerType::get(&getContext(), 64), nextId++));
    });
    ShapeInference inference(module);
    LogicalResult result = inference.run();
    const ShapeInference::Counts &counts = inference.getCounts();
    numTypesRefined += counts.typesRefined;
    numOpsVisited += counts.opsVisited;
    numRounds += counts.rounds;
    numSpecialisations += counts.specialisations;
    numLoopRounds += counts.loopRounds;
    numLoopRoundsUndone += counts.loopRoundsUndone;
    if (failed(result))
      return signalPassFailure();
    module.walk([](scf::ForOp forOp) { forOp->removeAttr(kLoopIdAttr); });
  }
};

} // namespace
