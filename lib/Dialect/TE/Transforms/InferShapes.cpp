//===- InferShapes.cpp - stub -------------------------------------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::te {
#define GEN_PASS_DEF_TEINFERSHAPES
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

namespace {
struct TEInferShapesPass : public mlir::te::impl::TEInferShapesBase<TEInferShapesPass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
