//===- LowerChecks.cpp - te.check_size and cf.assert to early returns ----===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-lower-checks: a failed check records its message in the runtime's
// sticky status and its function returns zeros at once; so does a caller of
// a function that may fail (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "te/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "te/Conversion/RuntimeAbi.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::te {
#define GEN_PASS_DEF_TELOWERCHECKS
#include "te/Conversion/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

class TELowerChecksPass
    : public mlir::te::impl::TELowerChecksBase<TELowerChecksPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    messages.clear();
    numMessages = 0;
    // The functions that may fail: those with a check, then their callers.
    // A module without checks is left at the first walk; the calls are
    // looked at only where some function checks.
    llvm::SetVector<func::FuncOp> mayFail;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() &&
          func.walk([](Operation *op) {
                return isa<mlir::te::CheckSizeOp, cf::AssertOp>(op)
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              })
              .wasInterrupted())
        mayFail.insert(func);
    if (mayFail.empty()) {
      markAllAnalysesPreserved();
      return;
    }
    // One symbol table: a lookup per call would scan the module each.
    SymbolTable symbols(module);
    llvm::DenseMap<func::FuncOp, SmallVector<func::CallOp>> callers;
    module.walk([&](func::CallOp call) {
      if (auto callee = symbols.lookup<func::FuncOp>(call.getCallee()))
        if (!callee.isExternal())
          callers[callee].push_back(call);
    });
    for (size_t i = 0; i < mayFail.size(); ++i)
      for (func::CallOp call : callers.lookup(mayFail[i]))
        if (auto caller = call->getParentOfType<func::FuncOp>())
          mayFail.insert(caller);

    LLVMTypeConverter types(module.getContext());
    for (func::FuncOp func : mayFail)
      if (failed(lower(func, mayFail, symbols, types)))
        return signalPassFailure();
  }

private:
  /// The address of the NUL-terminated string `text` (one global each,
  /// named apart from the module's symbols).
  Value message(OpBuilder &b, Location loc, SymbolTable &symbols,
                StringRef text) {
    LLVM::GlobalOp &global = messages[text];
    if (!global) {
      std::string name;
      do
        name = "__te_check_message_" + std::to_string(numMessages++);
      while (symbols.lookup(name));
      std::string terminated = text.str();
      terminated.push_back('\0');
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(
          &cast<ModuleOp>(symbols.getOp()).getBodyRegion().front());
      auto type = LLVM::LLVMArrayType::get(b.getI8Type(), terminated.size());
      global = LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                      LLVM::Linkage::Internal, name,
                                      b.getStringAttr(terminated));
    }
    return LLVM::AddressOfOp::create(b, loc, global);
  }

  LogicalResult lower(func::FuncOp func,
                      const llvm::SetVector<func::FuncOp> &mayFail,
                      SymbolTable &symbols, const LLVMTypeConverter &types) {
    ModuleOp module = func->getParentOfType<ModuleOp>();
    Region &body = func.getBody();
    Location funcLoc = func.getLoc();
    SmallVector<Operation *> points;
    func.walk([&](Operation *op) {
      if (isa<mlir::te::CheckSizeOp, cf::AssertOp>(op))
        points.push_back(op);
      else if (auto call = dyn_cast<func::CallOp>(op))
        if (auto callee = symbols.lookup<func::FuncOp>(call.getCallee()))
          if (mayFail.contains(callee))
            points.push_back(op);
    });
    for (Operation *op : points)
      if (op->getParentRegion() != &body)
        return op->emitOpError(
            "is inside a region of its function: te-lower-checks runs after "
            "the structured control flow is lowered to blocks");

    // The block that returns zeros.
    OpBuilder b(func.getContext());
    Block *fail = b.createBlock(&body, body.end());
    SmallVector<Value> zeros;
    for (Type t : func.getResultTypes()) {
      Type lowered = types.convertType(t);
      if (!lowered)
        return func.emitOpError("result type ")
               << t
               << " has no LLVM type for the early return of a failed "
                  "check";
      Value zero = LLVM::ZeroOp::create(b, funcLoc, lowered);
      if (lowered != t)
        zero = UnrealizedConversionCastOp::create(b, funcLoc, t, zero)
                   .getResult(0);
      zeros.push_back(zero);
    }
    func::ReturnOp::create(b, funcLoc, zeros);

    func::FuncOp checkFailed =
        declareRuntimeEntryPoint(b, module, "te_rt_mlir_check_failed");
    LLVM::LLVMFuncOp status =
        declareRuntimeEntryPointLLVM(b, module, "te_rt_mlir_status");
    if (!status)
      return module.emitError("te_rt_mlir_status is declared as a func.func; "
                              "te-lower-checks calls it as an llvm.func");

    for (Operation *op : points) {
      Location loc = op->getLoc();
      Block *block = op->getBlock();
      b.setInsertionPoint(op);
      auto check = dyn_cast<mlir::te::CheckSizeOp>(op);
      auto assertOp = dyn_cast<cf::AssertOp>(op);
      Value ok;
      if (check) {
        ok = arith::CmpIOp::create(
            b, loc,
            check.getAtLeast()  ? arith::CmpIPredicate::sge
            : check.getAtMost() ? arith::CmpIPredicate::sle
                                : arith::CmpIPredicate::eq,
            check.getSize(), check.getExpected());
      } else if (assertOp) {
        ok = assertOp.getArg();
      } else {
        // After the call: did the callee fail?
        b.setInsertionPointAfter(op);
        Value s =
            LLVM::CallOp::create(b, loc, status, ValueRange{}).getResult();
        Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
        ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s, zero);
        ++numCallsChecked;
      }
      // The rest of the block continues: from the check (erased below), or
      // after the call's status test.
      Block *rest = block->splitBlock(
          check || assertOp ? op : ok.getDefiningOp()->getNextNode());
      b.setInsertionPointToEnd(block);
      if (!check && !assertOp) {
        cf::CondBranchOp::create(b, loc, ok, rest, ValueRange{}, fail,
                                 ValueRange{});
        continue;
      }
      // The report, in a block of its own (nothing of it runs while the
      // check holds), then the shared return.
      Block *report = b.createBlock(fail);
      Value msg, kind, size, expected;
      if (check) {
        msg = message(b, loc, symbols, check.getMessage());
        kind = arith::ConstantIntOp::create(b, loc,
                                            check.getAtLeast()  ? 1
                                            : check.getAtMost() ? 3
                                                                : 0,
                                            32);
        size =
            arith::IndexCastOp::create(b, loc, b.getI64Type(), check.getSize());
        expected = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                              check.getExpected());
      } else {
        msg = message(b, loc, symbols,
                      (mlir::te::CheckSizeOp::locationText(loc) + ": " +
                       assertOp.getMsg())
                          .str());
        kind = arith::ConstantIntOp::create(b, loc, 2, 32);
        size = expected = arith::ConstantIntOp::create(b, loc, 0, 64);
      }
      func::CallOp::create(b, loc, checkFailed,
                           ValueRange{msg, kind, size, expected});
      cf::BranchOp::create(b, loc, fail);
      b.setInsertionPointToEnd(block);
      cf::CondBranchOp::create(b, loc, ok, rest, ValueRange{}, report,
                               ValueRange{});
      op->erase();
      ++numChecks;
    }
    return success();
  }

  llvm::StringMap<LLVM::GlobalOp> messages;
  unsigned numMessages = 0;
};

} // namespace
