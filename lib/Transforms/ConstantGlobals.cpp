//===- ConstantGlobals.cpp - Tensor constants' globals in program order ---===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-constant-globals: runs before one-shot-bufferize and creates the
// memref.global of every ranked tensor constant (without encoding), in the
// order of a walk of the module, with the function bufferization itself uses
// (bufferization::getGlobalFor). Bufferization then finds each constant's
// global (same value, same alignment) and creates none.
//
// Why: one-shot-bufferize with function boundaries takes the functions in
// the order of getFuncOpsOrderedByCalls (upstream's
// OneShotModuleBufferize.cpp), which orders them by iterating a DenseMap
// keyed by the functions' addresses: functions that do not call each other
// come in an order that changes from run to run. It creates a constant's
// global when it bufferizes the constant's function, so without this pass
// the globals' order and their uniqued names (`__constant_2xf32` or
// `__constant_2xf32_0`) follow that order, and so does te-pipeline's
// output. Upstream's order cannot be changed from here; the globals it
// would create can be created first, in an order fixed by the program.
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferUtils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#define DEBUG_TYPE "te-constant-globals"

namespace mlir::te {
#define GEN_PASS_DEF_TECONSTANTGLOBALS
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

namespace {

struct TEConstantGlobalsPass
    : public te::impl::TEConstantGlobalsBase<TEConstantGlobalsPass> {
  using TEConstantGlobalsBase::TEConstantGlobalsBase;

  void runOnOperation() override {
    // Collected first: getGlobalFor inserts into the module being walked.
    SmallVector<arith::ConstantOp> constants;
    getOperation().walk([&](arith::ConstantOp op) {
      auto type = dyn_cast<RankedTensorType>(op.getType());
      if (type && !type.getEncoding())
        constants.push_back(op);
    });
    // The globals the module has: one getGlobalFor returns that is not among
    // them is new.
    DenseSet<Operation *> known;
    getOperation().walk([&](memref::GlobalOp g) { known.insert(g); });
    SymbolTableCollection symbolTables;
    for (arith::ConstantOp op : constants) {
      // getGlobalFor fails only for a constant outside any module.
      FailureOr<memref::GlobalOp> global =
          bufferization::getGlobalFor(op, symbolTables, alignment);
      if (succeeded(global) && known.insert(*global).second)
        ++numGlobals;
    }
  }
};

} // namespace
