//===- InferShapes.cpp - static shapes into dynamic types -------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-infer-shapes: TransformerEngine's fake-shape inference as a pass.
// Static dimensions flow forward into dynamic dimensions of tensor and
// !te.qtensor types until a fixpoint: from te.empty's constant size
// operands, through te ops, tensor.cast /
// collapse_shape / expand_shape, scf.for / scf.if, and into private callees
// (specialised per distinct static signature when callers disagree).
//
// Specialisations are made once per original function and signature and
// are shared by every call that asks for that signature, so the recursive
// calls of a (mutually) recursive function reach the specialisation of
// their own signature. A function whose calls all moved to specialisations
// is erased. A recursion that asks for a new signature at every level (its
// shapes grow or shrink with the depth) is an error after
// kMaxRecursiveSpecialisations.
//
// Types are refined in place. Where a refined value meets a place whose
// type must not change (an op the pass does not know, a yield whose loop
// argument stays dynamic, a public callee), a cast back is inserted:
// tensor.cast for tensors, and for quantized tensors te.buffers + a
// tensor.cast per buffer + te.from_buffers (a metadata-only view).
//
// Loops are refined optimistically (a loop argument takes its init's shape);
// if the value yielded back is then not at least as static, that loop
// argument is blocked and the inference restarts from the input.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEOps.h"
#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "te-infer-shapes"

namespace mlir::te {
#define GEN_PASS_DEF_TEINFERSHAPES
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

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

/// Ops whose operands may take refined types: their results are re-inferred
/// or their types are kept in sync by the pass. Other users of a refined
/// value get a cast back to the type they had.
bool acceptsRefinedOperands(Operation *op) {
  return isa<QuantizeOp, DequantizeOp, GemmOp, LinearOp, LinearGradOp, AmaxOp,
             BuffersOp, tensor::CastOp, tensor::CollapseShapeOp,
             tensor::ExpandShapeOp, scf::IfOp, scf::ForOp, scf::YieldOp,
             func::CallOp, func::ReturnOp>(op);
}

//===----------------------------------------------------------------------===//
// The inference
//===----------------------------------------------------------------------===//

class ShapeInference {
public:
  ShapeInference(ModuleOp module,
                 const DenseSet<std::pair<int64_t, unsigned>> &blocked)
      : module(module), blocked(blocked), target(getTarget(module)) {}

  /// Runs to a fixpoint. Returns failure after an error; adds the loop
  /// arguments that must stay as they were to `conflicts`.
  LogicalResult run(SmallVectorImpl<std::pair<int64_t, unsigned>> &conflicts);

private:
  ModuleOp module;
  const DenseSet<std::pair<int64_t, unsigned>> &blocked;
  Target target;
  bool changed = false;
  /// The input type of every value whose type was refined.
  DenseMap<Value, Type> original;
  /// Quantized values whose refined shape breaks their recipe's rules: the
  /// shape they would have had (reported by finish(), not applied).
  DenseMap<Value, SmallVector<int64_t>> invalid;
  /// te ops whose result types could not be inferred from refined operands
  /// (finish() reports why).
  llvm::SetVector<Operation *> failedInference;
  /// The input's function each specialisation was cloned from.
  DenseMap<StringAttr, StringAttr> originOf;
  /// (input function, argument types) -> the specialisation for them.
  DenseMap<std::pair<StringAttr, Attribute>, StringAttr> specialisations;
  /// Per input function: the specialisations its recursive calls asked for.
  DenseMap<StringAttr, unsigned> numRecursive;
  /// Functions that have specialisations or are one: erased once no function
  /// outside this set reaches them through calls.
  DenseSet<StringAttr> specialised;
  /// The input's call graph, closed: the functions each function reaches
  /// through one or more calls.
  DenseMap<StringAttr, DenseSet<StringAttr>> reaches;
  /// Set after an error in inferCalls.
  bool failedCalls = false;

  void refine(Value value, Type type) {
    if (!type || type == value.getType())
      return;
    original.try_emplace(value, value.getType());
    value.setType(type);
    changed = true;
  }
  /// Drops the values of `op` (about to be erased) from `original`.
  void forget(Operation *op) {
    op->walk([&](Operation *nested) {
      failedInference.remove(nested);
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
  void refineShape(Value value, ArrayRef<int64_t> shape) {
    if (auto q = dyn_cast<QTensorType>(value.getType()))
      if (std::optional<SmallVector<int64_t>> m =
              meetShapes(q.getShape(), shape);
          m && ArrayRef<int64_t>(*m) != q.getShape() &&
          !isValidWithShape(q, *m)) {
        invalid.try_emplace(value, *m);
        return;
      }
    refine(value, meet(value.getType(), shape));
  }

  void inferOp(Operation *op);
  void computeCallGraph();
  StringAttr originOfFunction(func::FuncOp func) const {
    StringAttr origin = originOf.lookup(func.getSymNameAttr());
    return origin ? origin : func.getSymNameAttr();
  }
  bool isRecursiveCall(func::CallOp call, StringAttr calleeOrigin) const;
  void inferCalls();
  void eraseUnreachableSpecialisations(SymbolTable &symbols);
  void inferFunctionResults();
  Value castTo(OpBuilder &builder, Location loc, Value value, Type type);
  LogicalResult finish(SmallVectorImpl<std::pair<int64_t, unsigned>> &);
};

void ShapeInference::inferOp(Operation *op) {
  if (auto quantize = dyn_cast<QuantizeOp>(op)) {
    refineShape(quantize.getResult(), quantize.getInput().getType().getShape());
    return;
  }
  if (auto dequantize = dyn_cast<DequantizeOp>(op)) {
    refineShape(dequantize.getResult(),
                dequantize.getInput().getType().getShape());
    return;
  }
  if (auto gemm = dyn_cast<GemmOp>(op)) {
    ArrayRef<int64_t> as = gemm.getA().getType().getShape();
    ArrayRef<int64_t> bs = gemm.getB().getType().getShape();
    ::te::format::GemmShape shape;
    if (::te::format::gemmShape(toFormat(gemm.getLayout()),
                                ::te::format::Shape(as.begin(), as.end()),
                                ::te::format::Shape(bs.begin(), bs.end()),
                                &shape)
            .empty())
      refineShape(gemm.getResult(), shape.result);
    return;
  }
  if (auto empty = dyn_cast<EmptyOp>(op)) {
    // A constant size operand is a static dimension: the type takes it and
    // the operand goes.
    QTensorType type = empty.getResult().getType();
    SmallVector<int64_t> shape(type.getShape());
    OperandRange sizes = empty.getDynamicSizes();
    size_t next = 0;
    for (int64_t &d : shape) {
      if (!ShapedType::isDynamic(d))
        continue;
      std::optional<int64_t> c = getConstantIntValue(sizes[next++]);
      if (c && *c >= 0)
        d = *c;
    }
    refineShape(empty.getResult(), shape);
    QTensorType refined = empty.getResult().getType();
    if (refined == type)
      return;
    SmallVector<Value> kept;
    next = 0;
    for (auto [before, after] :
         llvm::zip_equal(type.getShape(), refined.getShape())) {
      if (!ShapedType::isDynamic(before))
        continue;
      Value size = sizes[next++];
      if (ShapedType::isDynamic(after))
        kept.push_back(size);
    }
    empty.getDynamicSizesMutable().assign(kept);
    return;
  }
  if (auto buffers = dyn_cast<BuffersOp>(op)) {
    SmallVector<RankedTensorType> types =
        buffers.getInput().getType().getBufferTypes(target);
    if (types.size() == buffers.getNumResults())
      for (auto [result, type] : llvm::zip_equal(buffers.getResults(), types))
        refineShape(result, type.getShape());
    return;
  }
  if (auto cast = dyn_cast<tensor::CastOp>(op)) {
    // A cast that only feeds ops keeping their types (e.g. a cast back) is
    // left alone.
    if (llvm::any_of(cast->getUsers(), acceptsRefinedOperands))
      refineShape(cast.getResult(), shapeOf(cast.getSource().getType()));
    return;
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    ArrayRef<int64_t> src = collapse.getSrcType().getShape();
    SmallVector<int64_t> shape;
    for (const ReassociationIndices &group :
         collapse.getReassociationIndices()) {
      int64_t size = 1;
      for (int64_t i : group)
        size = ShapedType::isDynamic(src[i]) || ShapedType::isDynamic(size)
                   ? ShapedType::kDynamic
                   : size * src[i];
      shape.push_back(size);
    }
    refineShape(collapse.getResult(), shape);
    return;
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    // A group with one dynamic dimension gets the source size divided by the
    // static ones; the op is rebuilt with a static output shape.
    ArrayRef<int64_t> src = expand.getSrcType().getShape();
    SmallVector<int64_t> shape(expand.getResultType().getShape());
    bool learnt = false;
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
      if (numDynamic == 1 && known != 0 && src[srcDim] % known == 0) {
        shape[dynamicAt] = src[srcDim] / known;
        learnt = true;
      }
    }
    if (!learnt)
      return;
    OpBuilder builder(expand);
    auto type = expand.getResultType().clone(shape);
    auto rebuilt = tensor::ExpandShapeOp::create(
        builder, expand.getLoc(), type, expand.getSrc(),
        expand.getReassociationIndices());
    original.try_emplace(rebuilt.getResult(), expand.getResultType());
    if (auto it = original.find(expand.getResult()); it != original.end())
      original[rebuilt.getResult()] = it->second;
    expand.getResult().replaceAllUsesWith(rebuilt.getResult());
    forget(expand);
    expand.erase();
    changed = true;
    return;
  }
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    auto id = forOp->getAttrOfType<IntegerAttr>(kLoopIdAttr);
    for (auto [i, init, arg, result] :
         llvm::enumerate(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                         forOp.getResults())) {
      if (id && blocked.contains(std::make_pair(id.getInt(), (unsigned)i)))
        continue;
      refineShape(arg, shapeOf(init.getType()));
      refineShape(result, shapeOf(arg.getType()));
    }
    return;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    if (ifOp.getElseRegion().empty())
      return;
    auto thenYield = ifOp.thenYield(), elseYield = ifOp.elseYield();
    for (auto [i, result] : llvm::enumerate(ifOp.getResults())) {
      Type a = thenYield.getOperand(i).getType();
      Type b = elseYield.getOperand(i).getType();
      if (isShaped(a) && isShaped(b))
        refineShape(result, joinShapes(shapeOf(a), shapeOf(b)));
    }
    return;
  }
  // Other te ops infer their result types (te.linear, te.linear_grad).
  if (isa_and_nonnull<TEDialect>(op->getDialect()))
    if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
      // Silently here (the inference runs to a fixpoint); finish() reports.
      SmallVector<Type> types;
      if (failed(infer.inferReturnTypes(
              op->getContext(), /*location=*/std::nullopt, op->getOperands(),
              op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
              op->getRegions(), types))) {
        failedInference.insert(op);
        return;
      }
      if (types.size() == op->getNumResults())
        for (auto [result, type] : llvm::zip_equal(op->getResults(), types))
          if (isShaped(type))
            refineShape(result, shapeOf(type));
    }
}

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
  SymbolTable symbols(module);
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
      func.setType(FunctionType::get(func.getContext(),
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
        if (llvm::any_of(calls,
                         [&](func::CallOp call) {
                           return isRecursiveCall(call, origin);
                         }) &&
            ++numRecursive[origin] > kMaxRecursiveSpecialisations) {
          std::string types;
          llvm::raw_string_ostream os(types);
          llvm::interleaveComma(sig, os);
          calls.front().emitOpError()
              << "asks for a specialisation of recursive function '"
              << origin.getValue() << "' for (" << types
              << "), a new signature after " << kMaxRecursiveSpecialisations
              << " others: its argument shapes change with the depth of the "
                 "recursion, so te-infer-shapes cannot make them static";
          failedCalls = true;
          return;
        }
        target = func.clone();
        target.setSymName((origin.getValue() + "_" + mangle(sig)).str());
        symbols.insert(target, Block::iterator(func));
        for (auto [arg, type] : llvm::zip_equal(target.getArguments(), sig))
          refine(arg, type);
        target.setType(FunctionType::get(target.getContext(),
                                         target.front().getArgumentTypes(),
                                         target.getResultTypes()));
        originOf[target.getSymNameAttr()] = origin;
        specialisations[{origin, key}] = target.getSymNameAttr();
        specialised.insert(target.getSymNameAttr());
      }
      for (func::CallOp call : calls)
        call.setCallee(target.getSymName());
      specialised.insert(func.getSymNameAttr());
      changed = true;
    }
  }
  eraseUnreachableSpecialisations(symbols);

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

/// Erases the functions in `specialised` that no other function reaches
/// through calls: a generic function whose calls all went to
/// specialisations, and the recursive specialisations only they called.
void ShapeInference::eraseUnreachableSpecialisations(SymbolTable &symbols) {
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
    specialised.erase(func.getSymNameAttr());
    forget(func);
    symbols.erase(func);
    changed = true;
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
    if (!learnt)
      continue;
    func.setType(
        FunctionType::get(func.getContext(), func.getArgumentTypes(), results));
    changed = true;
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

LogicalResult
ShapeInference::run(SmallVectorImpl<std::pair<int64_t, unsigned>> &conflicts) {
  computeCallGraph();
  do {
    changed = false;
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops)
      inferOp(op);
    inferCalls();
    if (failedCalls)
      return failure();
    inferFunctionResults();
  } while (changed);
  return finish(conflicts);
}

/// Casts where a refined value meets a type that stayed, loop conflicts, and
/// the recipes' shape rules on the refined quantized types.
LogicalResult ShapeInference::finish(
    SmallVectorImpl<std::pair<int64_t, unsigned>> &conflicts) {
  // Loops: the value yielded back must be at least as static as the
  // argument it becomes.
  module.walk([&](scf::ForOp forOp) {
    auto id = forOp->getAttrOfType<IntegerAttr>(kLoopIdAttr);
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    for (auto [i, arg] : llvm::enumerate(forOp.getRegionIterArgs())) {
      Type yielded = yield.getOperand(i).getType();
      if (!isRefinementOf(yielded, arg.getType()) && id)
        conflicts.push_back(std::make_pair(id.getInt(), (unsigned)i));
    }
  });
  if (!conflicts.empty())
    return success();

  SymbolTable symbols(module);
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
    // A te op whose results cannot be inferred from its refined operands
    // (e.g. te.linear whose quantized input breaks MXFP8's rules once the
    // batch is known): the inference says why, at the op.
    if (failedInference.contains(op)) {
      SmallVector<Type> types;
      if (failed(cast<InferTypeOpInterface>(op).inferReturnTypes(
              op->getContext(), op->getLoc(), op->getOperands(),
              op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
              op->getRegions(), types)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (rules.wasInterrupted())
    return failure();

  // Where a type must stay, cast back (or forward: a loop argument blocked
  // from refinement, a public callee's argument).
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

    // Optimistic loops, restarted from the input without the loop arguments
    // whose yielded value turned out less static.
    OwningOpRef<ModuleOp> input(module.clone());
    DenseSet<std::pair<int64_t, unsigned>> blocked;
    while (true) {
      SmallVector<std::pair<int64_t, unsigned>> conflicts;
      ShapeInference inference(module, blocked);
      if (failed(inference.run(conflicts)))
        return signalPassFailure();
      if (conflicts.empty())
        break;
      size_t before = blocked.size();
      blocked.insert(conflicts.begin(), conflicts.end());
      if (blocked.size() == before) // no progress: should not happen
        break;
      module.getBody()->getOperations().clear();
      IRMapping mapping;
      for (Operation &op : input->getBody()->getOperations())
        module.getBody()->push_back(op.clone(mapping));
    }
    module.walk([](scf::ForOp forOp) { forOp->removeAttr(kLoopIdAttr); });
  }
};

} // namespace
