//===- LinalgToGPU.h - The lowerings of te-linalg-to-gpu --------*- C++ -*-===//
//
// Part of te. Private to lib/Conversion/LinalgToGPU.
//
//===----------------------------------------------------------------------===//
//
// What the files of te-linalg-to-gpu share: the pass (LinalgToGPU.cpp)
// walks the host's linalg ops and hands each to one lowering --
// Elementwise.cpp (all-parallel ops, and the kernel building blocks every
// kernel uses), Reductions.cpp (reductions), LibraryCalls.cpp (matrix
// products as runtime library calls).
//
//===----------------------------------------------------------------------===//

#ifndef TE_LIB_CONVERSION_LINALGTOGPU_LINALGTOGPU_H
#define TE_LIB_CONVERSION_LINALGTOGPU_LINALGTOGPU_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>

namespace mlir::te::linalg_to_gpu {

constexpr int64_t kBlockSize = 256;
/// Blocks a reduction aims at: enough to fill an H200 (132 SMs) several
/// times over.
constexpr int64_t kTargetBlocks = 1056;
/// Steps of a reduction's loop per iteration: their loads in flight
/// together.
constexpr int64_t kUnroll = 4;
/// Threads per output in the combine kernel of a column reduction: each
/// folds every kCombineSlices-th chunk of its output, so that the chunks'
/// loads are spread over kCombineSlices times more threads.
constexpr int64_t kCombineSlices = 8;

inline Value cidx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

inline Value ceilDiv(OpBuilder &b, Location loc, Value a, Value d) {
  return arith::CeilDivUIOp::create(b, loc, a, d);
}

/// The product of `vs` (1 for none).
inline Value product(OpBuilder &b, Location loc, ArrayRef<Value> vs) {
  Value p = cidx(b, loc, 1);
  for (Value v : vs)
    p = arith::MulIOp::create(b, loc, p, v);
  return p;
}

/// Splits a linear index into the indices of `sizes` (row-major: the last
/// size varies fastest).
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<Value> sizes);

/// The sizes of `op`'s loops, as index values at `b`.
SmallVector<Value> loopSizes(OpBuilder &b, Location loc, linalg::GenericOp op);

/// The indices of an operand: its indexing map applied to the loop indices.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> loopIdx);

/// The alignment, in elements, of a vector access of `lanes` elements of
/// `type`: the access's bytes, at most 16.
int64_t vectorAlignment(MemRefType type, int64_t lanes);

/// Whether `type` has static strides with the innermost one 1.
bool innerStrideIsOne(MemRefType type);

/// Clones the ops of `body` (except its terminator and `skip`) at `b`,
/// block arguments mapped to `args`. With `lanes` > 1 each op is applied to
/// vectors of `lanes` elements: scalar operands are broadcast where an
/// operand is a vector; linalg.index of the innermost loop is a vector of
/// consecutive indices.
void cloneBody(OpBuilder &b, Location loc, Block &body, ArrayRef<Value> args,
               ArrayRef<Value> loopIdx, int64_t lanes, IRMapping &map,
               Operation *skip = nullptr);

/// Whether the static offsets and strides of the vector-accessed operands
/// keep every vector access aligned.
bool staticallyAligned(linalg::GenericOp op, int64_t lanes);

/// The memref `v` is a view of (through view-like ops: subviews, casts,
/// reshapes), or `v`.
inline Value viewRoot(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// The combiner of a reduction: its gpu.all_reduce kind and identity.
struct Combiner {
  gpu::AllReduceOperation kind;
  TypedAttr identity;
};

/// Names of the kernels: `<func>_<role>[_L<line>]_kernel[_<n>]`, unique in
/// the module, so that a profile (nsys, ncu) tells the kernels apart and
/// points at the op each came from. gpu-kernel-outlining names the kernel
/// function and its gpu.module after the launch's `function` attribute.
class KernelNamer {
public:
  explicit KernelNamer(ModuleOp module) {
    module.walk([&](Operation *op) {
      if (auto sym =
              op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
        used.insert(sym.getValue());
      if (auto launch = dyn_cast<gpu::LaunchOp>(op))
        if (FlatSymbolRefAttr f = launch.getFunctionAttr())
          used.insert(f.getValue());
    });
  }

  /// Gives `launch` a unique kernel name for `role` of the op at `origin`.
  void name(gpu::LaunchOp launch, StringRef role, Operation *origin) {
    std::string base;
    if (auto func = launch->getParentOfType<FunctionOpInterface>())
      base = func.getName().str() + "_";
    base += role.str();
    if (auto line = lineOf(origin->getLoc()))
      base += "_L" + std::to_string(*line);
    base += "_kernel";
    std::string name = base;
    for (unsigned n = 0; used.contains(name); ++n)
      name = base + "_" + std::to_string(n);
    used.insert(name);
    auto ref = FlatSymbolRefAttr::get(launch.getContext(), name);
    launch.setFunctionAttr(ref);
    launch.setModuleAttr(ref);
  }

private:
  static std::optional<unsigned> lineOf(Location loc) {
    if (auto f = dyn_cast<FileLineColLoc>(loc))
      return f.getLine();
    if (auto fused = dyn_cast<FusedLoc>(loc))
      for (Location l : fused.getLocations())
        if (auto line = lineOf(l))
          return line;
    if (auto named = dyn_cast<NameLoc>(loc))
      return lineOf(named.getChildLoc());
    if (auto callSite = dyn_cast<CallSiteLoc>(loc))
      return lineOf(callSite.getCallee());
    return std::nullopt;
  }

  llvm::StringSet<> used;
};

class KernelLowering {
public:
  KernelLowering(RewriterBase &rewriter, KernelNamer &namer)
      : rewriter(rewriter), namer(namer) {}

  LogicalResult lowerParallel(linalg::GenericOp op);
  LogicalResult lowerReduction(linalg::GenericOp op);

  /// Whether to remark on reductions that run serially per output.
  bool remarks = true;

  /// The initial value of a reduction's output buffer that a folded
  /// `linalg.fill` would have written (foldReductionFills), for the
  /// reduction being lowered: its kernels take it instead of loading it.
  DenseMap<Value, Value> filledInitial;

private:
  /// Lanes of the vector kernel of `op`, or 1 where only the scalar one
  /// applies.
  int64_t vectorLanes(linalg::GenericOp op);
  /// The host's i1 condition under which the vector kernel applies (null:
  /// always).
  Value vectorCondition(OpBuilder &b, Location loc, linalg::GenericOp op,
                        ArrayRef<Value> sizes, int64_t lanes);
  void emitParallelKernel(OpBuilder &b, Location loc, linalg::GenericOp op,
                          ArrayRef<Value> sizes, int64_t lanes);
  void emitReduction(OpBuilder &b, Location loc, linalg::GenericOp op,
                     ArrayRef<Value> sizes, const Combiner &combiner,
                     Operation *combine, int64_t lanes);
  /// A reduction of any other form: one thread per output.
  LogicalResult lowerSerialReduction(linalg::GenericOp op);
  /// The initial value of `out`[at]: the folded fill's value, else a load.
  Value initialValue(OpBuilder &b, Location loc, Value out, ValueRange at) {
    if (Value v = filledInitial.lookup(out))
      return v;
    return memref::LoadOp::create(b, loc, out, at);
  }

  RewriterBase &rewriter;
  KernelNamer &namer;
};

//===----------------------------------------------------------------------===//
// Matrix products (LibraryCalls.cpp)
//===----------------------------------------------------------------------===//

/// One operand of a matrix product as the runtime reads it: the dimensions
/// of its memref that the batch loops index (in DenseMatmul::batch's
/// order), the one whose stride is the row stride (the outer matrix
/// dimension) and whether it is stored transposed (its innermost, unit-
/// stride dimension is the product's row loop: M of A, K of B).
struct MatmulOperand {
  Value memref;
  SmallVector<unsigned> batchDims;
  unsigned rowDim = 0;
  bool trans = false;
};

/// A linalg contraction that te_rt_mlir_matmul computes: C[b...] (+)=
/// A'[b...] · B'[b...] with one M, N and K loop and any number of batch
/// loops, each at any position of each operand, A and B of one type (f32,
/// f16, bf16), C of that type or f32, every operand with unit innermost
/// stride along one of its matrix dimensions. C stored transposed ([N, M]
/// innermost) is computed as Cᵀ = B'ᵀ A'ᵀ: `a`, `b`, `m` and `n` are then
/// the op's B, A, N and M.
struct DenseMatmul {
  SmallVector<unsigned> batch; ///< the batch loops, in loop order
  unsigned m = 0, n = 0, k = 0;
  MatmulOperand a, b, c;
};

/// `op` as a DenseMatmul; nullopt if it is none. Where `op` is a
/// contraction the library cannot compute, `*whyNot` (if given) says why
/// (left empty where `op` is no contraction).
std::optional<DenseMatmul> matchDenseMatmul(linalg::LinalgOp op,
                                            std::string *whyNot = nullptr);

/// Whether `v` is a float zero (+0.0 or -0.0): a fill with it before a
/// product folds into the product's call (no accumulation).
bool isFloatZero(Value v);

/// Replaces `op` by calls of te_rt_mlir_matmul: one call for all its
/// products when its batch loops collapse into one (checked at run time
/// where the strides or sizes are dynamic), else a host loop over its outer
/// batch loops with one call each (a remark says so when `remarks`).
/// `accumulate`: add to C's contents (else C is overwritten: a fill of zero
/// folded into the call).
void lowerMatmul(RewriterBase &rewriter, linalg::LinalgOp op,
                 const DenseMatmul &mm, bool accumulate, bool remarks);

} // namespace mlir::te::linalg_to_gpu

#endif // TE_LIB_CONVERSION_LINALGTOGPU_LINALGTOGPU_H
