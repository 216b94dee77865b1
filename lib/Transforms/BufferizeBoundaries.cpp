//===- BufferizeBoundaries.cpp - Memref signatures for entry points -------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-bufferize-boundaries: runs before one-shot-bufferize and gives every
// entry point (a func.func with a body that no op of the module calls) the
// signature one-shot-bufferize would give it with
// `function-boundary-type-conversion=identity-layout-map`: each ranked
// tensor argument and result becomes a memref of the same shape and element
// type with the identity layout. The body still works on tensors: an
// argument is turned back into a tensor by `bufferization.to_tensor
// restrict` (`writable` unless the argument says `bufferization.writable =
// false`, as one-shot-bufferize assumes of function arguments), a returned
// tensor into a buffer by `bufferization.to_buffer read_only` (returning is
// no write, as for func.return).
//
// Why (docs/performance.md "Compile time"): one-shot-bufferize's module
// analysis (`aliasingFuncOpBBArgsAnalysis`) compares every tensor argument of
// a function with every tensor it returns, O(arguments x results): for a
// training step with N weights in and N weight gradients out, quadratic in N.
// The result of that analysis only serves callers of the function; an entry
// point has none, so here it is never asked.
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#define DEBUG_TYPE "te-bufferize-boundaries"

namespace mlir::te {
#define GEN_PASS_DEF_TEBUFFERIZEBOUNDARIES
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

/// The identity-layout memref a ranked tensor boundary value becomes, or
/// null for a type this pass leaves to one-shot-bufferize.
MemRefType boundaryType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getEncoding())
    return {};
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

bool isTensor(Type type) { return isa<TensorType>(type); }

/// Whether `func` can be rewritten: a body of one block that ends in
/// func.return (so that every return is seen), and every tensor argument and
/// result a ranked tensor without encoding.
bool isRewritable(func::FuncOp func) {
  if (func.isExternal() || !func.getBody().hasOneBlock() ||
      !isa<func::ReturnOp>(func.getBody().front().getTerminator()))
    return false;
  FunctionType type = func.getFunctionType();
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    if (isTensor(t) && !boundaryType(t))
      return false;
  return llvm::any_of(type.getInputs(), isTensor) ||
         llvm::any_of(type.getResults(), isTensor);
}

void rewrite(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  Block &body = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  for (BlockArgument arg : body.getArguments()) {
    MemRefType memref = boundaryType(arg.getType());
    if (!memref)
      continue;
    Type tensor = arg.getType();
    auto writable = func.getArgAttrOfType<BoolAttr>(
        arg.getArgNumber(),
        bufferization::BufferizationDialect::kWritableAttrName);
    arg.setType(memref);
    auto toTensor = bufferization::ToTensorOp::create(
        b, arg.getLoc(), tensor, arg, /*restrict=*/true,
        /*writable=*/!writable || writable.getValue());
    arg.replaceAllUsesExcept(toTensor.getResult(), toTensor);
    // The attribute has done its work: the argument is no tensor now.
    if (writable)
      func.removeArgAttr(
          arg.getArgNumber(),
          bufferization::BufferizationDialect::kWritableAttrName);
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  b.setInsertionPoint(ret);
  for (OpOperand &operand : ret->getOpOperands())
    if (MemRefType memref = boundaryType(operand.get().getType()))
      operand.set(bufferization::ToBufferOp::create(
          b, ret.getLoc(), memref, operand.get(), /*read_only=*/true));
  SmallVector<Type> inputs(body.getArgumentTypes());
  func.setFunctionType(FunctionType::get(ctx, inputs, ret->getOperandTypes()));
}

struct TEBufferizeBoundariesPass
    : public mlir::te::impl::TEBufferizeBoundariesBase<
          TEBufferizeBoundariesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Unranked tensors: neither target lowers their buffers (a copy of one
    // calls a library te does not link, a kernel cannot index one), and
    // one such function would break the whole module's lowering.
    bool unranked = false;
    module.walk([&](Operation *op) {
      if (auto func = dyn_cast<func::FuncOp>(op)) {
        // The first unranked argument or result of the function.
        FunctionType type = func.getFunctionType();
        for (auto [kind, types] : {std::make_pair("argument", type.getInputs()),
                                   std::make_pair("result", type.getResults())})
          for (auto [i, t] : llvm::enumerate(types))
            if (isa<UnrankedTensorType>(t)) {
              emitError(func.getLoc())
                  << "@" << func.getSymName() << ": " << kind << " " << i
                  << " has the unranked type " << t
                  << "; te compiles ranked tensors (a size "
                     "known at run time only is `?`, as in "
                     "tensor<?x?xf32>)";
              unranked = true;
              return;
            }
        return;
      }
      for (Value result : op->getResults())
        if (isa<UnrankedTensorType>(result.getType())) {
          op->emitOpError("has the unranked result type ")
              << result.getType()
              << "; te compiles ranked tensors (a size known at run time "
                 "only is `?`, as in tensor<?x?xf32>)";
          unranked = true;
          return;
        }
    });
    if (unranked)
      return signalPassFailure();
    // Every symbol used by an op of the module (calls, or anything else
    // that names a function): those functions keep their signature.
    // Unknown uses (an op that may hide them): change nothing.
    DenseSet<StringAttr> used;
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(&module.getBodyRegion());
    if (!uses)
      return;
    for (const SymbolTable::SymbolUse &use : *uses)
      used.insert(use.getSymbolRef().getRootReference());
    for (auto func : module.getOps<func::FuncOp>())
      if (!used.contains(func.getSymNameAttr()) && isRewritable(func)) {
        rewrite(func);
        ++numEntryPoints;
      }
  }
};

} // namespace
