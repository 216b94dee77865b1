//===- ExpandQTensors.cpp - stub -------------------------------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::te {
#define GEN_PASS_DEF_TEEXPANDQTENSORS
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

namespace {
struct TEExpandQTensorsPass : public mlir::te::impl::TEExpandQTensorsBase<TEExpandQTensorsPass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
