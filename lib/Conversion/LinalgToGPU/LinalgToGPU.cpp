//===- LinalgToGPU.cpp - Tensor computations on memrefs -> GPU kernels ---===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-linalg-to-gpu: on GPU targets, after bufferization, every linalg op on
// memrefs and every memref.copy that is not row-major contiguous on both
// sides becomes a `gpu.launch` on the device memory the buffers live in, or
// a call of the runtime's library (matrix products); the host keeps control
// flow and launches only. Upstream has the pieces (tiling to scf.forall,
// vectorization, mapping to blocks and threads), but not for what a te
// program's host code holds after bufferization: dynamic shapes, subviews
// with dynamic offsets (microbatch slices), reductions with the accumulator
// in registers (docs/guide/passes.md explains the choice).
//
// This file is the pass: it collects the ops, folds the fills that only
// initialize an output, and hands each op to its lowering: LibraryCalls.cpp
// (matrix products), Elementwise.cpp (all-parallel ops), Reductions.cpp.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "te/Conversion/DeviceMemory.h"
#include "te/Conversion/Passes.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#define DEBUG_TYPE "te-linalg-to-gpu"

namespace mlir::te {
#define GEN_PASS_DEF_TELINALGTOGPU
#include "te/Conversion/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te::linalg_to_gpu;
using mlir::te::isOnHost;
using mlir::te::isRowMajorContiguous;

namespace {

struct TELinalgToGPUPass
    : public mlir::te::impl::TELinalgToGPUBase<TELinalgToGPUPass> {
  using Base::Base;

  /// Besides the dialects of its kernels: what the rest of te-pipeline's
  /// GPU lowering needs in the context, so that an embedder that registered
  /// none of it gets working kernels (gpu-module-to-binary serializes
  /// through #nvvm.target's interface and translates to LLVM IR).
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    NVVM::registerNVVMTargetInterfaceExternalModels(registry);
    registerBuiltinDialectTranslation(registry);
    registerGPUDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    registerNVVMDialectTranslation(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> work;
    module.walk([&](Operation *op) {
      if (!isOnHost(op))
        return;
      if (isa<linalg::LinalgOp>(op) ||
          (isa<memref::CopyOp>(op) &&
           !contiguousCopy(cast<memref::CopyOp>(op))))
        work.push_back(op);
      else if (op->getDialect() &&
               op->getDialect()->getNamespace() == "linalg" &&
               !isa<linalg::YieldOp, linalg::IndexOp>(op))
        work.push_back(op);
    });
    KernelNamer namer(module);
    KernelLowering lowering(rewriter, namer);
    lowering.remarks = remarks;
    DenseMap<Operation *, SmallVector<linalg::FillOp>> folded = foldFills(work);
    for (Operation *op : work) {
      if (!op)
        continue; // a fill folded into its reduction or product
      lowering.filledInitial.clear();
      bool filled = false;
      for (linalg::FillOp fill : folded.lookup(op)) {
        lowering.filledInitial[fill.getDpsInits()[0]] = fill.getInputs()[0];
        rewriter.eraseOp(fill);
        filled = true;
      }
      rewriter.setInsertionPoint(op);
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        auto c = linalg::CopyOp::create(rewriter, copy.getLoc(),
                                        copy.getSource(), copy.getTarget());
        rewriter.eraseOp(copy);
        op = c;
      }
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if (!linalgOp) {
        op->emitOpError("te-linalg-to-gpu: te has no GPU lowering for this "
                        "op; on GPU targets every op on tensor data runs on "
                        "the device");
        return signalPassFailure();
      }
      if (!linalgOp.hasPureBufferSemantics()) {
        op->emitOpError("te-linalg-to-gpu: expects memref operands (run "
                        "one-shot bufferization first)");
        return signalPassFailure();
      }
      // Matrix products go to cuBLASLt (te_rt_mlir_matmul); a product after
      // a folded fill of zero overwrites its output.
      std::string notLibrary;
      if (std::optional<DenseMatmul> mm =
              matchDenseMatmul(linalgOp, &notLibrary)) {
        lowerMatmul(rewriter, linalgOp, *mm, /*accumulate=*/!filled, remarks);
        continue;
      }
      if (!notLibrary.empty() && remarks)
        op->emitRemark("te-linalg-to-gpu: ")
            << op->getName()
            << " is computed by generated kernels, not cuBLASLt: "
            << notLibrary;
      // Float conversions to or from the 8- and 4-bit formats have no NVVM
      // lowering in MLIR 22 (they stop at the translation to LLVM IR with a
      // message about arith.truncf); quantization is te's.
      bool narrowConversion = false;
      linalgOp->walk([&](Operation *inner) {
        if (!isa<arith::TruncFOp, arith::ExtFOp>(inner))
          return;
        for (Type t : llvm::concat<Type>(inner->getOperandTypes(),
                                         inner->getResultTypes())) {
          auto f = dyn_cast<FloatType>(getElementTypeOrSelf(t));
          if (f && f.getWidth() <= 8 &&
              !isa<Float8E8M0FNUType, Float4E2M1FNType>(f)) {
            inner->emitOpError("te-linalg-to-gpu: a conversion to or from ")
                << f << " has no GPU lowering; quantize with te.quantize";
            narrowConversion = true;
          }
        }
      });
      if (narrowConversion)
        return signalPassFailure();
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (!generic) {
        FailureOr<linalg::GenericOp> g =
            linalg::generalizeNamedOp(rewriter, linalgOp);
        if (failed(g)) {
          op->emitOpError("te-linalg-to-gpu: cannot generalize this op to "
                          "linalg.generic for its GPU lowering");
          return signalPassFailure();
        }
        generic = *g;
      }
      bool reduction = llvm::any_of(
          generic.getIteratorTypesArray(), [](utils::IteratorType t) {
            return t == utils::IteratorType::reduction;
          });
      if (failed(reduction ? lowering.lowerReduction(generic)
                           : lowering.lowerParallel(generic)))
        return signalPassFailure();
    }
  }

  /// The fills of `work` that write a reduction's or a matrix product's
  /// output right before it, by op (their entries in `work` become null): a
  /// reduction's kernels take the fill's value as the output's initial
  /// value; a product the library computes (te_rt_mlir_matmul) takes a fill
  /// of zero (+0.0 or -0.0) as `accumulate = 0` (cuBLASLt's beta = 0). The
  /// fill's own kernel (a launch, a write of the output and its reads)
  /// goes. Only where nothing but the op sees the fill's values: only ops
  /// that touch no memory (or allocate) between the fill and the op; no
  /// input of the op a view of the output's buffer; every element of the
  /// output written by the op (its indexing map a projected permutation of
  /// the loops, no constants).
  static DenseMap<Operation *, SmallVector<linalg::FillOp>>
  foldFills(SmallVectorImpl<Operation *> &work) {
    DenseMap<Operation *, SmallVector<linalg::FillOp>> folded;
    DenseMap<Operation *, unsigned> position;
    for (auto [i, op] : llvm::enumerate(work))
      position[op] = i;
    for (Operation *op : work) {
      auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
      if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
          linalgOp.getNumReductionLoops() == 0)
        continue;
      bool product = matchDenseMatmul(linalgOp).has_value();
      for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
        Value out = init.get();
        linalg::FillOp fill = fillBefore(op, out);
        if (!fill || !position.count(fill) ||
            (product && !isFloatZero(fill.getInputs()[0])) ||
            llvm::is_contained(folded[op], fill) ||
            !linalgOp.getMatchingIndexingMap(&init).isProjectedPermutation(
                /*allowZeroInResults=*/false) ||
            llvm::any_of(linalgOp.getDpsInputs(), [&](Value in) {
              return isa<MemRefType>(in.getType()) &&
                     viewRoot(in) == viewRoot(out);
            }))
          continue;
        folded[op].push_back(fill);
        work[position[fill]] = nullptr;
      }
    }
    return folded;
  }

  /// The linalg.fill of `out` before `op` in its block with only ops that
  /// touch no memory (or allocate) between them; else null.
  static linalg::FillOp fillBefore(Operation *op, Value out) {
    for (Operation *prev = op->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (auto fill = dyn_cast<linalg::FillOp>(prev))
        return fill.getDpsInits()[0] == out ? fill : nullptr;
      // A failed te.check_size returns before the op: nothing sees
      // the fill's values either way.
      if (isa<memref::AllocOp, memref::AllocaOp, mlir::te::CheckSizeOp>(prev) ||
          isMemoryEffectFree(prev))
        continue;
      return nullptr;
    }
    return nullptr;
  }

  /// A copy the runtime does as one memcpy (convert-te-to-runtime).
  static bool contiguousCopy(memref::CopyOp copy) {
    auto s = dyn_cast<MemRefType>(copy.getSource().getType());
    auto t = dyn_cast<MemRefType>(copy.getTarget().getType());
    return s && t && isRowMajorContiguous(s) && isRowMajorContiguous(t);
  }
};

} // namespace
