//===- Pipeline.cpp - te-pipeline and te-set-target -------------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-pipeline{target=cpu|sm_90|sm_100}: the whole flow of DESIGN.md as one
// registered pipeline, every stage a pass usable alone.
//
//===----------------------------------------------------------------------===//

#include "te/Conversion/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "te/Dialect/TE/IR/TEAttrs.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::te {
#define GEN_PASS_DEF_TESETTARGET
#include "te/Conversion/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

bool isEmulatedOnSm90(Attribute q) {
  auto quantizer = dyn_cast_or_null<QuantizerAttrInterface>(q);
  if (!quantizer)
    return false;
  ::te::format::Recipe r = quantizer.getFormatConfig().recipe;
  return r == ::te::format::Recipe::MXFP8 || r == ::te::format::Recipe::NVFP4;
}

Attribute quantizerOf(Type t) {
  if (auto q = dyn_cast<QTensorType>(t))
    return q.getQuantizer();
  return {};
}

struct TESetTargetPass
    : public mlir::te::impl::TESetTargetBase<TESetTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Target t;
    if (target == "sm_90" || target == "cpu")
      t = Target::SM90;
    else if (target == "sm_100")
      t = Target::SM100;
    else {
      module.emitError("te-set-target: target must be cpu, sm_90 or sm_100, "
                       "got '")
          << target << "'";
      return signalPassFailure();
    }
    if (auto existing = module->getAttrOfType<TargetAttr>("te.target")) {
      if (existing.getValue() != t) {
        module.emitError("module has te.target = ")
            << existing << " but the pipeline targets " << target;
        return signalPassFailure();
      }
    } else {
      module->setAttr("te.target", TargetAttr::get(&getContext(), t));
    }
    if (t == Target::SM100)
      return;
    module.walk(
        [&](Operation *op) {
          Attribute q;
          if (auto gemm = dyn_cast<GemmOp>(op))
            q = quantizerOf(gemm.getA().getType());
          else if (auto linear = dyn_cast<LinearOp>(op))
            q = linear.getInputQuantizer();
          else if (auto grad = dyn_cast<LinearGradOp>(op))
            q = grad.getGradOutputQuantizer();
          if (isEmulatedOnSm90(q))
            op->emitRemark()
                << ::te::format::recipeName(
                       cast<QuantizerAttrInterface>(q).getFormatConfig().recipe)
                << " GEMM has no native kernel on " << target
                << ": the runtime emulates it exactly (dequantized operands, "
                   "fp32 GEMM)";
        });
  }
};

} // namespace

void mlir::te::buildTEPipeline(OpPassManager &pm,
                               const TEPipelineOptions &options) {
  std::string pipeline;
  llvm::raw_string_ostream os(pipeline);
  auto add = [&](StringRef stage) {
    if (!pipeline.empty())
      os << ",";
    os << stage;
  };
  // A te pass another room has not landed yet is skipped (PassInfo lookup);
  // DESIGN.md lists the order.
  auto addIfRegistered = [&](StringRef name, StringRef stage) {
    if (PassInfo::lookup(name))
      add(stage);
  };
  add("te-set-target{target=" + options.target.getValue() + "}");
  // Private helpers (e.g. an accumulation over tensor<?x?xf32>) are inlined
  // first: their dynamic signatures would otherwise survive to bufferization
  // and leave casts the LLVM lowering cannot reconcile.
  add("inline");
  addIfRegistered("te-infer-shapes", "te-infer-shapes");
  addIfRegistered("te-decompose-linear", "te-decompose-linear");
  if (options.reference)
    add("convert-te-to-reference");
  addIfRegistered("te-infer-usages", "te-infer-usages");
  addIfRegistered("te-eliminate-aliases", "te-eliminate-aliases");
  std::string legalizeTarget =
      options.target.getValue() == "cpu" ? "sm_90" : options.target.getValue();
  addIfRegistered("te-legalize", "te-legalize{target=" + legalizeTarget + "}");
  addIfRegistered("te-expand-qtensors", "te-expand-qtensors");
  add("canonicalize");
  add("one-shot-bufferize{bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map}");
  // bufferization::buildBufferDeallocationPipeline's passes, with
  // te-split-deallocs before buffer-deallocation-simplification, which is
  // quadratic in the size of the one bufferization.dealloc that ends a
  // straight-line function (docs/performance.md "Compile time").
  add("expand-realloc{emit-deallocs=false}");
  add("canonicalize");
  add("ownership-based-buffer-deallocation");
  add("canonicalize");
  addIfRegistered("te-split-deallocs", "te-split-deallocs");
  add("buffer-deallocation-simplification");
  add("bufferization-lower-deallocations");
  add("cse");
  add("canonicalize");
  add("convert-te-to-runtime");
  if (options.lowerToLLVM) {
    // bufferization.clone (a returned buffer the deallocation pipeline
    // keeps alive, e.g. a constant) -> memref.alloc + memref.copy.
    add("convert-bufferization-to-memref");
    add("convert-linalg-to-loops");
    add("expand-strided-metadata");
    add("lower-affine");
    add("arith-expand{include-bf16=true include-f8e8m0=true}");
    add("convert-scf-to-cf");
    add("convert-to-llvm");
    add("reconcile-unrealized-casts");
  }
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    llvm::report_fatal_error("te-pipeline: cannot build the pipeline");
}

void mlir::te::registerTEPipeline() {
  PassPipelineRegistration<TEPipelineOptions>(
      "te-pipeline",
      "the te flow: te-set-target, inline, te-infer-shapes, "
      "te-decompose-linear, "
      "te-infer-usages, te-eliminate-aliases, te-legalize, "
      "te-expand-qtensors, one-shot-bufferize, buffer deallocation, "
      "convert-te-to-runtime, convert-bufferization-to-memref, "
      "convert-to-llvm",
      buildTEPipeline);
}
