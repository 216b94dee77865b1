//===- LowerChecks.cpp - te.check_size and cf.assert to early returns ----===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-lower-checks: a failed check records its message in the runtime's
// sticky status and its function frees the buffers it allocated before the
// check and returns zeros at once; so does a caller of a function that may
// fail (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "te/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "te/Conversion/RuntimeAbi.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::te {
#define GEN_PASS_DEF_TELOWERCHECKS
#include "te/Conversion/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

/// The C library's and the runtime's allocation and release functions (the
/// memref lowering's, and convert-te-to-runtime's for buffers only the
/// runtime sees).
bool isAllocFunction(StringRef name) {
  return name == "malloc" || name == "aligned_alloc" ||
         name == "te_rt_mlir_alloc";
}
bool isFreeFunction(StringRef name) {
  return name == "free" || name == "te_rt_mlir_free";
}

StringRef calleeName(Operation *op) {
  if (auto call = dyn_cast<LLVM::CallOp>(op))
    if (std::optional<StringRef> callee = call.getCallee())
      return *callee;
  if (auto call = dyn_cast<func::CallOp>(op))
    return call.getCallee();
  return {};
}

/// The value `v` is a view, cast or address of (through view-like ops,
/// memref metadata, pointer and integer casts).
Value rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      v = view.getViewSource();
    else if (isa<memref::ExtractStridedMetadataOp,
                 memref::ExtractAlignedPointerAsIndexOp, LLVM::IntToPtrOp,
                 LLVM::PtrToIntOp, arith::IndexCastOp, arith::IndexCastUIOp>(
                 def) ||
             (isa<UnrealizedConversionCastOp>(def) &&
              def->getNumOperands() == 1))
      v = def->getOperand(0);
    else
      break;
  }
  return v;
}

/// Whether the ops from `from` (after it) can run before `to` without
/// running `blocker` in between, in the blocks of one region.
bool reaches(Operation *from, Operation *to, Operation *blocker) {
  auto between = [&](Block *block, Operation *start, Operation *end) {
    // Whether `blocker` is in `block` between `start` (excluded, or the
    // block's start) and `end` (excluded, or the block's end).
    if (blocker->getBlock() != block)
      return false;
    if (start && !start->isBeforeInBlock(blocker))
      return false;
    return !end || blocker->isBeforeInBlock(end);
  };
  Block *first = from->getBlock();
  if (to->getBlock() == first && from->isBeforeInBlock(to))
    return !between(first, from, to);
  if (between(first, from, nullptr))
    return false;
  SmallVector<Block *> work(first->getSuccessors().begin(),
                            first->getSuccessors().end());
  llvm::DenseSet<Block *> seen;
  while (!work.empty()) {
    Block *block = work.pop_back_val();
    if (!seen.insert(block).second)
      continue;
    if (block == to->getBlock() && !between(block, nullptr, to))
      return true;
    if (between(block, nullptr, nullptr))
      continue;
    llvm::append_range(work, block->getSuccessors());
  }
  return false;
}

/// A buffer a function allocated (a memref.alloc, an allocation function's
/// pointer, or a memref a callee returned and this function frees) and the
/// ops that free it.
struct Allocation {
  Value value;
  SmallVector<Operation *> releases;
  bool escapes = false;
};

} // namespace

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

    // Functions that free what they are given (upstream's dealloc_helper):
    // a call of one counts as a release of its operands.
    releasing.clear();
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() &&
          func.walk([](Operation *op) {
                return isa<memref::DeallocOp>(op) ||
                               isFreeFunction(calleeName(op))
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              })
              .wasInterrupted())
        releasing.insert(func.getName());

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

  /// The buffers `func` allocates, with the ops that free them.
  SmallVector<Allocation> allocations(func::FuncOp func,
                                      const SymbolTable &symbols) {
    llvm::MapVector<Value, Allocation> found;
    auto isAllocation = [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && (isa<memref::AllocOp>(def) ||
                     (isAllocFunction(calleeName(def)) &&
                      isa<LLVM::LLVMPointerType>(v.getType())));
    };
    func.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op))
        found[alloc.getResult()].value = alloc.getResult();
      else if (isAllocFunction(calleeName(op)) && op->getNumResults() == 1 &&
               isa<LLVM::LLVMPointerType>(op->getResult(0).getType()))
        found[op->getResult(0)].value = op->getResult(0);
    });
    // Whether some release frees a value of unknown origin (a block
    // argument, a pointer loaded from memory): it may be one of the
    // buffers, under another name.
    bool unknownRelease = false;
    func.walk([&](Operation *op) {
      bool release =
          isa<memref::DeallocOp>(op) || isFreeFunction(calleeName(op)) ||
          (isa<func::CallOp>(op) && releasing.contains(calleeName(op)));
      if (!release)
        return;
      for (Value operand : op->getOperands()) {
        Value root = rootOf(operand);
        // A memref a callee returned, freed here: this function owns it.
        if (auto result = dyn_cast<OpResult>(root))
          if (isa<MemRefType>(root.getType()) &&
              isa<func::CallOp>(result.getOwner()) &&
              !releasing.contains(calleeName(result.getOwner())) &&
              isa<memref::DeallocOp>(op))
            found[root].value = root;
        if (isAllocation(root) || found.count(root))
          found[root].releases.push_back(op);
        else
          unknownRelease = true;
      }
    });
    (void)symbols;
    // A buffer whose value reaches a block argument, memory or a select
    // may be freed under another name where a release frees a value of
    // unknown origin: it is left alone then.
    for (auto &[root, allocation] : found) {
      if (!unknownRelease)
        break;
      SmallVector<Value> work{root};
      llvm::DenseSet<Value> seen;
      while (!work.empty() && !allocation.escapes) {
        Value v = work.pop_back_val();
        if (!seen.insert(v).second)
          continue;
        for (OpOperand &use : v.getUses()) {
          Operation *user = use.getOwner();
          // A return hands the buffer to the caller, but a failing
          // function returns zeros instead: it stays this function's.
          if (isa<func::ReturnOp>(user))
            continue;
          if (isa<BranchOpInterface, RegionBranchTerminatorOpInterface,
                  arith::SelectOp, LLVM::SelectOp>(user) ||
              (isa<LLVM::StoreOp>(user) && use.getOperandNumber() == 0) ||
              (isa<memref::StoreOp>(user) && use.getOperandNumber() == 0)) {
            allocation.escapes = true;
            break;
          }
          if (isa<ViewLikeOpInterface, memref::ExtractStridedMetadataOp,
                  memref::ExtractAlignedPointerAsIndexOp, LLVM::IntToPtrOp,
                  LLVM::PtrToIntOp, arith::IndexCastOp, arith::IndexCastUIOp,
                  UnrealizedConversionCastOp>(user))
            llvm::append_range(work, user->getResults());
        }
      }
    }
    SmallVector<Allocation> out;
    for (auto &[root, allocation] : found)
      if (!allocation.escapes && (!allocation.releases.empty() ||
                                  isa<memref::AllocOp>(root.getDefiningOp())))
        out.push_back(allocation);
    return out;
  }

  /// Frees, at `b`'s insertion point, the allocations live at `point` (its
  /// op has run on every path to `point`, none of its releases has since).
  void freeLive(OpBuilder &b, Location loc, Operation *point,
                ArrayRef<Allocation> live, DominanceInfo &dominance) {
    for (const Allocation &a : live) {
      Operation *def = a.value.getDefiningOp();
      if (def == point || !dominance.dominates(def, point))
        continue;
      if (llvm::any_of(a.releases, [&](Operation *release) {
            return release->getParentRegion() != point->getParentRegion() ||
                   reaches(release, point, def);
          }))
        continue;
      if (isa<MemRefType>(a.value.getType())) {
        memref::DeallocOp::create(b, loc, a.value);
        ++numFreed;
        continue;
      }
      // A pointer: the call that frees it elsewhere, on it.
      for (Operation *release : a.releases)
        if (isFreeFunction(calleeName(release)) &&
            release->getNumOperands() == 1 &&
            release->getOperand(0).getType() == a.value.getType()) {
          Operation *copy = b.clone(*release);
          copy->setOperand(0, a.value);
          ++numFreed;
          break;
        }
    }
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
    // What each failure frees, decided before the blocks are split.
    SmallVector<Allocation> owned = allocations(func, symbols);
    DominanceInfo dominance(func);
    OpBuilder scratch(func.getContext());
    Block *holding = new Block;
    llvm::DenseMap<Operation *, SmallVector<Operation *>> frees;
    for (Operation *op : points) {
      // A call's failure is seen after it: the allocations before it.
      scratch.setInsertionPointToEnd(holding);
      size_t before = holding->getOperations().size();
      freeLive(scratch, op->getLoc(), op, owned, dominance);
      for (Operation &f : llvm::drop_begin(holding->getOperations(), before))
        frees[op].push_back(&f);
    }

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
      // The buffers allocated before the failure are freed on its way out.
      auto moveFrees = [&](Block *to) {
        for (Operation *f : frees.lookup(op))
          f->moveBefore(to, to->end());
      };
      if (!check && !assertOp) {
        Block *target = fail;
        if (!frees.lookup(op).empty()) {
          target = b.createBlock(fail);
          moveFrees(target);
          cf::BranchOp::create(b, loc, fail);
          b.setInsertionPointToEnd(block);
        }
        cf::CondBranchOp::create(b, loc, ok, rest, ValueRange{}, target,
                                 ValueRange{});
        continue;
      }
      // The report, in a block of its own (nothing of it runs while the
      // check holds), then the shared return.
      Block *report = b.createBlock(fail);
      moveFrees(report);
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
    delete holding;
    return success();
  }

  llvm::StringMap<LLVM::GlobalOp> messages;
  unsigned numMessages = 0;
  llvm::DenseSet<StringRef> releasing;
};

} // namespace
