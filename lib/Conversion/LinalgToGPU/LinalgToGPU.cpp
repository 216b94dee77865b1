//===- LinalgToGPU.cpp - Tensor computations on memrefs -> GPU kernels
//-----===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-linalg-to-gpu: on GPU targets, after bufferization, every linalg op on
// memrefs and every memref.copy that is not row-major contiguous on both
// sides becomes a `gpu.launch` on the device memory the buffers live in; the
// host keeps control flow and launches only. Upstream has the pieces
// (tiling to scf.forall, vectorization, mapping to blocks and threads), but
// not for what a te program's host code holds after bufferization: dynamic
// shapes, subviews with dynamic offsets (microbatch slices), reductions with
// the accumulator in registers (docs/guide/passes.md explains the choice).
//
//  * All-parallel ops (elementwise, broadcasts, transposes, fills, copies):
//    one thread per V consecutive elements of the innermost loop (V * the
//    smallest element size = 16 bytes, V <= 8), 256 threads per block, a 1-D
//    grid. Operands indexed by the innermost loop as their last, unit-stride
//    dimension are read and written with `vector.load`/`vector.store` of V
//    elements (16-byte accesses); the region is applied to vectors of V
//    lanes (arith/math are elementwise). Where alignment depends on a
//    dynamic offset or stride, the host picks the vector or the scalar
//    kernel at run time.
//  * Reductions whose combiner is one associative op (add, mul, max, min,
//    and, or, xor): partial results per (output, chunk of the reduction)
//    in registers, combined across a block with `gpu.all_reduce` when the
//    innermost loop is reduced (a row reduction: one block per output and
//    chunk), or one thread per output when it is parallel (a column
//    reduction), into a temporary buffer; a second kernel combines the
//    chunks in order with the output's initial value. The chunking depends
//    only on the shapes, so results are deterministic.
//
//===----------------------------------------------------------------------===//

#include "te/Conversion/Passes.h"

#include "te/Conversion/DeviceMemory.h"
#include "te/Conversion/RuntimeAbi.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "te_rt.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

#define DEBUG_TYPE "te-linalg-to-gpu"

namespace mlir::te {
#define GEN_PASS_DEF_TELINALGTOGPU
#include "te/Conversion/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using mlir::te::isOnHost;
using mlir::te::isRowMajorContiguous;

namespace {

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

Value cidx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value ceilDiv(OpBuilder &b, Location loc, Value a, Value d) {
  return arith::CeilDivUIOp::create(b, loc, a, d);
}

Value product(OpBuilder &b, Location loc, ArrayRef<Value> vs) {
  Value p = cidx(b, loc, 1);
  for (Value v : vs)
    p = arith::MulIOp::create(b, loc, p, v);
  return p;
}

/// Splits a linear index into the indices of `sizes` (row-major: the last
/// size varies fastest).
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<Value> sizes) {
  SmallVector<Value> idx(sizes.size());
  Value rem = linear;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (i == 0) {
      idx[i] = rem;
      break;
    }
    idx[i] = arith::RemUIOp::create(b, loc, rem, sizes[i]);
    rem = arith::DivUIOp::create(b, loc, rem, sizes[i]);
  }
  return idx;
}

/// The sizes of `op`'s loops, as index values at `b`.
SmallVector<Value> loopSizes(OpBuilder &b, Location loc, linalg::GenericOp op) {
  SmallVector<Value> sizes;
  for (Range r :
       cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, r.size));
  return sizes;
}

/// The indices of an operand: its indexing map applied to the loop indices.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> loopIdx) {
  SmallVector<Value> out;
  for (AffineExpr e : map.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      out.push_back(loopIdx[d.getPosition()]);
    } else if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      out.push_back(cidx(b, loc, c.getValue()));
    } else {
      out.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, e), loopIdx));
    }
  }
  return out;
}

bool isScalarType(Type t) { return t.isIntOrIndexOrFloat(); }

/// An op of a linalg region that applies lane by lane to vectors.
bool isVectorizableBodyOp(Operation &op) {
  if (isa<linalg::YieldOp, linalg::IndexOp, arith::ConstantOp>(op))
    return true;
  if (op.getNumRegions() != 0 || !op.hasTrait<OpTrait::Elementwise>())
    return false;
  return llvm::all_of(op.getOperandTypes(), isScalarType) &&
         llvm::all_of(op.getResultTypes(), isScalarType);
}

/// The alignment, in elements, of a vector access of `lanes` elements of
/// `type`: the access's bytes, at most 16.
int64_t vectorAlignment(MemRefType type, int64_t lanes) {
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  return std::min<int64_t>(16, lanes * bytes) / bytes;
}

/// Row-major strides of `type`, and whether its innermost stride is 1.
bool innerStrideIsOne(MemRefType type) {
  if (type.getRank() == 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1;
}

//===----------------------------------------------------------------------===//
// The region of a linalg op, applied inside a kernel
//===----------------------------------------------------------------------===//

/// Clones the ops of `body` (except its terminator and `skip`) at `b`,
/// block arguments mapped to `args`. With `lanes` > 1 each op is applied to
/// vectors of `lanes` elements: scalar operands are broadcast where an
/// operand is a vector; linalg.index of the innermost loop is a vector of
/// consecutive indices.
void cloneBody(OpBuilder &b, Location loc, Block &body, ArrayRef<Value> args,
               ArrayRef<Value> loopIdx, int64_t lanes, IRMapping &map,
               Operation *skip = nullptr) {
  for (auto [arg, v] : llvm::zip(body.getArguments(), args))
    if (v)
      map.map(arg, v);
  int64_t inner = static_cast<int64_t>(loopIdx.size()) - 1;
  for (Operation &op : body.without_terminator()) {
    if (&op == skip)
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      int64_t d = index.getDim();
      Value i = loopIdx[d];
      if (lanes > 1 && d == inner) {
        auto vt = VectorType::get({lanes}, b.getIndexType());
        Value base = vector::BroadcastOp::create(b, loc, vt, i);
        // The lane offsets as a constant (vector.step has no lowering in the
        // kernels' NVVM conversion).
        Value step = arith::ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(
                vt, llvm::to_vector(llvm::map_range(
                        llvm::seq<int64_t>(0, lanes), [&](int64_t l) {
                          return Attribute(b.getIndexAttr(l));
                        }))));
        i = arith::AddIOp::create(b, loc, base, step);
      }
      map.map(index.getResult(), i);
      continue;
    }
    if (lanes == 1 || isa<arith::ConstantOp>(op)) {
      b.clone(op, map);
      continue;
    }
    SmallVector<Value> operands;
    bool anyVector = false;
    for (Value v : op.getOperands()) {
      Value m = map.lookupOrDefault(v);
      anyVector |= isa<VectorType>(m.getType());
      operands.push_back(m);
    }
    if (!anyVector) {
      b.clone(op, map);
      continue;
    }
    for (Value &v : operands)
      if (!isa<VectorType>(v.getType()))
        v = vector::BroadcastOp::create(
            b, loc, VectorType::get({lanes}, v.getType()), v);
    SmallVector<Type> types;
    for (Type t : op.getResultTypes())
      types.push_back(VectorType::get({lanes}, t));
    OperationState state(loc, op.getName(), operands, types, op.getAttrs());
    Operation *clone = b.create(state);
    map.map(op.getResults(), clone->getResults());
  }
}

/// `v` as a vector of `lanes` (broadcast if scalar).
Value asVector(OpBuilder &b, Location loc, Value v, int64_t lanes) {
  if (lanes == 1 || isa<VectorType>(v.getType()))
    return v;
  return vector::BroadcastOp::create(b, loc,
                                     VectorType::get({lanes}, v.getType()), v);
}

//===----------------------------------------------------------------------===//
// All-parallel ops
//===----------------------------------------------------------------------===//

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

/// Whether operand `opOperand` of `op` is read or written along the
/// innermost loop with unit stride, as its last index.
bool contiguousAlongInner(linalg::GenericOp op, OpOperand &opOperand) {
  auto type = dyn_cast<MemRefType>(opOperand.get().getType());
  AffineMap map = op.getMatchingIndexingMap(&opOperand);
  unsigned inner = op.getNumLoops() - 1;
  if (!map.isFunctionOfDim(inner))
    return true; // broadcast along the innermost loop: a scalar load
  if (!type || map.getNumResults() == 0)
    return false;
  for (unsigned i = 0; i + 1 < map.getNumResults(); ++i)
    if (map.getResult(i).isFunctionOfDim(inner))
      return false;
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  return last && last.getPosition() == inner && innerStrideIsOne(type);
}

int64_t KernelLowering::vectorLanes(linalg::GenericOp op) {
  if (op.getNumLoops() == 0)
    return 1;
  if (!llvm::all_of(op.getRegion().front(), isVectorizableBodyOp))
    return 1;
  int64_t minBytes = 16;
  for (OpOperand &o : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(o.get().getType());
    if (!type)
      continue;
    Type e = type.getElementType();
    if (!e.isIntOrFloat() || e.getIntOrFloatBitWidth() % 8 != 0)
      return 1;
    if (!contiguousAlongInner(op, o))
      return 1;
    if (op.getMatchingIndexingMap(&o).isFunctionOfDim(op.getNumLoops() - 1))
      minBytes = std::min<int64_t>(minBytes, e.getIntOrFloatBitWidth() / 8);
  }
  int64_t lanes = std::min<int64_t>(8, 16 / minBytes);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t inner = ranges.back();
  if (!ShapedType::isDynamic(inner) && inner % lanes != 0)
    return 1;
  return lanes;
}

Value KernelLowering::vectorCondition(OpBuilder &b, Location loc,
                                      linalg::GenericOp op,
                                      ArrayRef<Value> sizes, int64_t lanes) {
  Value cond;
  auto conj = [&](Value c) {
    cond = cond ? arith::AndIOp::create(b, loc, cond, c).getResult() : c;
  };
  Value zero = cidx(b, loc, 0);
  auto divisible = [&](Value v, int64_t by) {
    Value r = arith::RemUIOp::create(b, loc, v, cidx(b, loc, by));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r, zero);
  };
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamic(ranges.back()))
    conj(divisible(sizes.back(), lanes));
  unsigned innerLoop = op.getNumLoops() - 1;
  for (OpOperand &o : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(o.get().getType());
    if (!type || !op.getMatchingIndexingMap(&o).isFunctionOfDim(innerLoop))
      continue;
    // Vector accesses start at element offset + sum(i_k * stride_k) with
    // the innermost index a multiple of `lanes`: aligned (in elements) when
    // the offset and the outer strides are multiples of `align` / bytes.
    // Base pointers are at least 16-byte aligned (runtime allocations;
    // entry arguments by contract).
    int64_t align = vectorAlignment(type, lanes);
    if (align <= 1)
      continue;
    SmallVector<int64_t> strides;
    int64_t offset;
    (void)type.getStridesAndOffset(strides, offset);
    bool dynamic = ShapedType::isDynamic(offset) ||
                   llvm::any_of(ArrayRef<int64_t>(strides).drop_back(),
                                ShapedType::isDynamic);
    if (!dynamic) {
      // Static: checked by vectorLanes' caller.
      continue;
    }
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, o.get());
    conj(divisible(meta.getOffset(), align));
    for (Value s : meta.getStrides().drop_back())
      conj(divisible(s, align));
  }
  return cond;
}

/// Whether the static offsets and strides of the vector-accessed operands
/// keep every vector access aligned.
bool staticallyAligned(linalg::GenericOp op, int64_t lanes) {
  unsigned innerLoop = op.getNumLoops() - 1;
  for (OpOperand &o : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(o.get().getType());
    if (!type || !op.getMatchingIndexingMap(&o).isFunctionOfDim(innerLoop))
      continue;
    int64_t align = vectorAlignment(type, lanes);
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)))
      return false;
    if (!ShapedType::isDynamic(offset) && offset % align != 0)
      return false;
    for (int64_t s : ArrayRef<int64_t>(strides).drop_back())
      if (!ShapedType::isDynamic(s) && s % align != 0)
        return false;
  }
  return true;
}

void KernelLowering::emitParallelKernel(OpBuilder &b, Location loc,
                                        linalg::GenericOp op,
                                        ArrayRef<Value> sizes, int64_t lanes) {
  int64_t n = op.getNumLoops();
  SmallVector<Value> threadSizes(sizes.begin(), sizes.end());
  if (n > 0 && lanes > 1)
    threadSizes.back() =
        arith::DivUIOp::create(b, loc, threadSizes.back(), cidx(b, loc, lanes));
  Value total = product(b, loc, threadSizes);
  Value block = cidx(b, loc, kBlockSize);
  Value one = cidx(b, loc, 1);
  Value grid = ceilDiv(b, loc, total, block);
  // An empty iteration space launches nothing.
  Value nonEmpty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                         total, cidx(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, nonEmpty, /*withElse=*/false);
  OpBuilder hb = ifOp.getThenBodyBuilder();
  auto launch = gpu::LaunchOp::create(hb, loc, grid, one, one, block, one, one);
  namer.name(launch, lanes > 1 ? "elementwise" : "elementwise_scalar", op);
  Block &kbody = launch.getBody().front();
  OpBuilder kb = OpBuilder::atBlockEnd(&kbody);
  auto term = gpu::TerminatorOp::create(kb, loc);
  kb.setInsertionPoint(term);
  Value tid = arith::AddIOp::create(
      kb, loc,
      arith::MulIOp::create(kb, loc, launch.getBlockIds().x,
                            cidx(kb, loc, kBlockSize)),
      launch.getThreadIds().x);
  Value inRange =
      arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, tid, total);
  auto guard = scf::IfOp::create(kb, loc, inRange, /*withElse=*/false);
  OpBuilder tb = guard.getThenBodyBuilder();
  SmallVector<Value> idx = delinearize(tb, loc, tid, threadSizes);
  if (n > 0 && lanes > 1)
    idx.back() =
        arith::MulIOp::create(tb, loc, idx.back(), cidx(tb, loc, lanes));
  unsigned innerLoop = n > 0 ? n - 1 : 0;
  auto access = [&](OpOperand &o) -> SmallVector<Value> {
    return applyMap(tb, loc, op.getMatchingIndexingMap(&o), idx);
  };
  auto vectorAccess = [&](OpOperand &o) {
    return lanes > 1 && n > 0 &&
           op.getMatchingIndexingMap(&o).isFunctionOfDim(innerLoop);
  };
  auto alignment = [&](Type memref) {
    auto type = cast<MemRefType>(memref);
    return llvm::MaybeAlign(vectorAlignment(type, lanes) *
                            type.getElementTypeBitWidth() / 8);
  };
  // Loads.
  Block &body = op.getRegion().front();
  SmallVector<Value> args;
  for (OpOperand &o : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&o);
    if (arg.use_empty()) {
      args.push_back(Value());
      continue;
    }
    Value v = o.get();
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type) {
      args.push_back(v); // a scalar operand
      continue;
    }
    SmallVector<Value> at = access(o);
    if (vectorAccess(o))
      args.push_back(vector::LoadOp::create(
          tb, loc, VectorType::get({lanes}, type.getElementType()), v, at,
          /*nontemporal=*/false, alignment(type)));
    else
      args.push_back(memref::LoadOp::create(tb, loc, v, at));
  }
  IRMapping map;
  cloneBody(tb, loc, body, args, idx, lanes, map);
  // Stores.
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (auto [i, o] : llvm::enumerate(op.getDpsInitsMutable())) {
    Value v = map.lookupOrDefault(yield.getOperand(i));
    SmallVector<Value> at = access(o);
    if (vectorAccess(o))
      vector::StoreOp::create(tb, loc, asVector(tb, loc, v, lanes), o.get(), at,
                              /*nontemporal=*/false,
                              alignment(o.get().getType()));
    else
      memref::StoreOp::create(tb, loc, v, o.get(), at);
  }
}

LogicalResult KernelLowering::lowerParallel(linalg::GenericOp op) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  SmallVector<Value> sizes = loopSizes(b, loc, op);
  int64_t lanes = vectorLanes(op);
  if (lanes > 1 && !staticallyAligned(op, lanes))
    lanes = 1;
  Value cond;
  if (lanes > 1)
    cond = vectorCondition(b, loc, op, sizes, lanes);
  if (lanes == 1 || !cond) {
    emitParallelKernel(b, loc, op, sizes, lanes);
  } else {
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/true);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    emitParallelKernel(tb, loc, op, sizes, lanes);
    OpBuilder eb = ifOp.getElseBodyBuilder();
    emitParallelKernel(eb, loc, op, sizes, 1);
  }
  rewriter.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

std::optional<Combiner> classifyCombiner(Operation *op, Type t) {
  Builder b(op->getContext());
  auto fl = [&](double v) -> TypedAttr { return b.getFloatAttr(t, v); };
  auto inf = [&](bool negative) -> TypedAttr {
    auto ft = cast<FloatType>(t);
    return b.getFloatAttr(t, APFloat::getInf(ft.getFloatSemantics(), negative));
  };
  auto in = [&](APInt v) -> TypedAttr { return b.getIntegerAttr(t, v); };
  unsigned w = t.isIntOrFloat() ? t.getIntOrFloatBitWidth() : 64;
  using K = gpu::AllReduceOperation;
  return TypeSwitch<Operation *, std::optional<Combiner>>(op)
      .Case<arith::AddFOp>([&](auto) {
        return Combiner{K::ADD, fl(0.0)};
      })
      .Case<arith::MulFOp>([&](auto) {
        return Combiner{K::MUL, fl(1.0)};
      })
      .Case<arith::MaxNumFOp>([&](auto) {
        return Combiner{K::MAXNUMF, inf(true)};
      })
      .Case<arith::MaximumFOp>([&](auto) {
        return Combiner{K::MAXIMUMF, inf(true)};
      })
      .Case<arith::MinNumFOp>([&](auto) {
        return Combiner{K::MINNUMF, inf(false)};
      })
      .Case<arith::MinimumFOp>([&](auto) {
        return Combiner{K::MINIMUMF, inf(false)};
      })
      .Case<arith::AddIOp>([&](auto) {
        return Combiner{K::ADD, in(APInt(w, 0))};
      })
      .Case<arith::MulIOp>([&](auto) {
        return Combiner{K::MUL, in(APInt(w, 1))};
      })
      .Case<arith::MaxSIOp>([&](auto) {
        return Combiner{K::MAXSI, in(APInt::getSignedMinValue(w))};
      })
      .Case<arith::MinSIOp>([&](auto) {
        return Combiner{K::MINSI, in(APInt::getSignedMaxValue(w))};
      })
      .Case<arith::MaxUIOp>([&](auto) {
        return Combiner{K::MAXUI, in(APInt(w, 0))};
      })
      .Case<arith::MinUIOp>([&](auto) {
        return Combiner{K::MINUI, in(APInt::getMaxValue(w))};
      })
      .Case<arith::AndIOp>([&](auto) {
        return Combiner{K::AND, in(APInt::getAllOnes(w))};
      })
      .Case<arith::OrIOp>([&](auto) {
        return Combiner{K::OR, in(APInt(w, 0))};
      })
      .Case<arith::XOrIOp>([&](auto) {
        return Combiner{K::XOR, in(APInt(w, 0))};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// `combine` (an arith op of the region) applied to `a` and `v` at `b`, on
/// vectors when `a` is one (a scalar `v` is broadcast).
Value applyCombiner(OpBuilder &b, Location loc, Operation *combine,
                    unsigned accPos, Value a, Value v) {
  auto vt = dyn_cast<VectorType>(a.getType());
  if (vt && !isa<VectorType>(v.getType()))
    v = vector::BroadcastOp::create(b, loc, vt, v);
  SmallVector<Value> operands(2);
  operands[accPos] = a;
  operands[1 - accPos] = v;
  OperationState state(loc, combine->getName(), operands, {a.getType()},
                       combine->getAttrs());
  return b.create(state)->getResult(0);
}

/// `init` folded with `body(r, acc)` over r = lo, lo + stride, ... < end,
/// in that order: kUnroll steps per loop iteration (their loads do not
/// depend on the accumulator, so they are in flight together), then the
/// remaining ones.
Value unrolledFold(OpBuilder &b, Location loc, Value lo, Value end,
                   Value stride, Value init,
                   function_ref<Value(OpBuilder &, Value, Value)> body) {
  Value zero = cidx(b, loc, 0);
  Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lo, end);
  Value count = arith::SelectOp::create(
      b, loc, has,
      ceilDiv(b, loc, arith::SubIOp::create(b, loc, end, lo), stride), zero);
  Value mainTrips =
      arith::DivUIOp::create(b, loc, count, cidx(b, loc, kUnroll));
  Value span = arith::MulIOp::create(b, loc, stride, cidx(b, loc, kUnroll));
  Value mainEnd = arith::AddIOp::create(
      b, loc, lo, arith::MulIOp::create(b, loc, mainTrips, span));
  auto main = scf::ForOp::create(
      b, loc, lo, mainEnd, span, ValueRange{init},
      [&](OpBuilder &lb, Location, Value r, ValueRange iter) {
        Value a = iter[0];
        for (int64_t k = 0; k < kUnroll; ++k) {
          Value rk = k == 0 ? r
                            : arith::AddIOp::create(
                                  lb, loc, r,
                                  arith::MulIOp::create(lb, loc, stride,
                                                        cidx(lb, loc, k)));
          a = body(lb, rk, a);
        }
        scf::YieldOp::create(lb, loc, a);
      });
  Value restEnd = arith::MaxUIOp::create(b, loc, mainEnd, end);
  auto rest = scf::ForOp::create(
      b, loc, mainEnd, restEnd, stride, ValueRange{main.getResult(0)},
      [&](OpBuilder &lb, Location, Value r, ValueRange iter) {
        scf::YieldOp::create(lb, loc, body(lb, r, iter[0]));
      });
  return rest.getResult(0);
}

/// `v` combined over the threads of the block (gpu.all_reduce, uniform).
Value blockReduce(OpBuilder &b, Location loc, Value v,
                  gpu::AllReduceOperation kind) {
  return gpu::AllReduceOp::create(
             b, loc, v, gpu::AllReduceOperationAttr::get(b.getContext(), kind),
             b.getUnitAttr())
      .getResult();
}

/// A builder in an `scf.if` that only thread `tx` = 0 enters.
OpBuilder firstThread(OpBuilder &b, Location loc, Value tx) {
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tx,
                                      cidx(b, loc, 0));
  auto w = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  return w.getThenBodyBuilder();
}

/// The loops of a reduction: the parallel ones (they index the outputs) and
/// the reduced ones, in loop order, with their sizes.
struct ReductionLoops {
  ReductionLoops(linalg::GenericOp op, ArrayRef<Value> sizes)
      : numLoops(sizes.size()) {
    for (auto [i, it] : llvm::enumerate(op.getIteratorTypesArray())) {
      bool isRed = it == utils::IteratorType::reduction;
      (isRed ? red : par).push_back(i);
      (isRed ? redSizes : parSizes).push_back(sizes[i]);
    }
  }

  /// The loop indices of the output at linear index `p` and the reduction's
  /// linear step `r` (both row-major over their loops).
  SmallVector<Value> indices(OpBuilder &b, Location loc, Value p,
                             Value r) const {
    return indices(b, loc, delinearize(b, loc, p, parSizes), r);
  }
  /// The same with the output's indices `pIdx` given.
  SmallVector<Value> indices(OpBuilder &b, Location loc, ArrayRef<Value> pIdx,
                             Value r) const {
    SmallVector<Value> ri = delinearize(b, loc, r, redSizes);
    SmallVector<Value> idx(numLoops);
    for (auto [k, d] : llvm::enumerate(par))
      idx[d] = pIdx[k];
    for (auto [k, d] : llvm::enumerate(red))
      idx[d] = ri[k];
    return idx;
  }

  size_t numLoops;
  SmallVector<unsigned> par, red;
  SmallVector<Value> parSizes, redSizes;
};

/// The buffer `v` views (through subviews, casts, reshapes), or `v`.
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// A reduction whose outputs are independent -- each yielded value computed
/// from the inputs and that output's own accumulator only, as a sum and a
/// sum of squares in one op -- as one op per output, in output order; none
/// where an output reads another's accumulator (an argmax's index reads the
/// running maximum), the region has ops with regions, or an output buffer
/// is another output's or an input's (one op's writes would reach the
/// next one's reads).
SmallVector<linalg::GenericOp> splitIndependentOutputs(RewriterBase &rewriter,
                                                       linalg::GenericOp op) {
  unsigned numOutputs = op.getNumDpsInits();
  Block &body = op.getRegion().front();
  if (numOutputs < 2 || llvm::any_of(body, [](Operation &inner) {
        return inner.getNumRegions() != 0;
      }))
    return {};
  // Inputs come first: an output whose buffer is already in the set is an
  // input's or an earlier output's.
  llvm::SmallPtrSet<Value, 8> roots;
  for (OpOperand &o : op->getOpOperands())
    if (isa<MemRefType>(o.get().getType()) &&
        !roots.insert(rootBuffer(o.get())).second && op.isDpsInit(&o))
      return {};
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  // The ops of the region each output's value needs.
  SmallVector<llvm::SmallPtrSet<Operation *, 16>> slices(numOutputs);
  for (unsigned i = 0; i < numOutputs; ++i) {
    SmallVector<Value> work{yield.getOperand(i)};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (arg.getOwner() == &body &&
            arg.getArgNumber() >= op.getNumDpsInputs() &&
            arg != op.getRegionOutputArgs()[i])
          return {}; // another output's accumulator
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (def->getBlock() != &body || !slices[i].insert(def).second)
        continue;
      llvm::append_range(work, def->getOperands());
    }
  }
  SmallVector<linalg::GenericOp> parts;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<AffineMap> inputMaps(maps.begin(),
                                   maps.begin() + op.getNumDpsInputs());
  rewriter.setInsertionPoint(op);
  for (unsigned i = 0; i < numOutputs; ++i) {
    SmallVector<AffineMap> partMaps = inputMaps;
    partMaps.push_back(maps[op.getNumDpsInputs() + i]);
    auto part = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{}, op.getDpsInputs(),
        ValueRange{op.getDpsInits()[i]}, partMaps, op.getIteratorTypesArray(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          IRMapping map;
          for (unsigned k = 0; k < op.getNumDpsInputs(); ++k)
            map.map(body.getArgument(k), args[k]);
          map.map(op.getRegionOutputArgs()[i], args.back());
          for (Operation &inner : body.without_terminator())
            if (slices[i].contains(&inner))
              b.clone(inner, map);
          linalg::YieldOp::create(b, loc,
                                  map.lookupOrDefault(yield.getOperand(i)));
        });
    parts.push_back(part);
  }
  rewriter.eraseOp(op);
  return parts;
}

LogicalResult KernelLowering::lowerReduction(linalg::GenericOp op) {
  // Independent outputs: one reduction each (the parallel kernels where
  // each is one associative combiner).
  SmallVector<linalg::GenericOp> parts = splitIndependentOutputs(rewriter, op);
  for (linalg::GenericOp part : parts)
    if (failed(lowerReduction(part)))
      return failure();
  if (!parts.empty())
    return success();
  std::optional<Combiner> combiner;
  SmallVector<Operation *> combiners;
  if (op.getNumDpsInits() == 1) {
    BlockArgument acc = op.getRegionOutputArgs()[0];
    Value reduced = matchReduction(op.getRegionOutputArgs(), 0, combiners);
    if (reduced && combiners.size() == 1 &&
        combiners[0]->getNumOperands() == 2 && acc.hasOneUse() &&
        isa<linalg::YieldOp>(*combiners[0]->getUsers().begin()))
      combiner = classifyCombiner(combiners[0], acc.getType());
  }
  if (!combiner)
    return lowerSerialReduction(op);
  Location loc = op.getLoc();
  OpBuilder b(op);
  SmallVector<Value> sizes = loopSizes(b, loc, op);
  // Vector lanes as for an all-parallel op: along the innermost loop, which
  // the reduction walks (inner-reduced) or whose outputs a thread owns.
  int64_t lanes = vectorLanes(op);
  if (lanes > 1 && !staticallyAligned(op, lanes))
    lanes = 1;
  Value cond;
  if (lanes > 1)
    cond = vectorCondition(b, loc, op, sizes, lanes);
  if (lanes == 1 || !cond) {
    emitReduction(b, loc, op, sizes, *combiner, combiners[0], lanes);
  } else {
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/true);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    emitReduction(tb, loc, op, sizes, *combiner, combiners[0], lanes);
    OpBuilder eb = ifOp.getElseBodyBuilder();
    emitReduction(eb, loc, op, sizes, *combiner, combiners[0], 1);
  }
  rewriter.eraseOp(op);
  return success();
}

void KernelLowering::emitReduction(OpBuilder &b, Location loc,
                                   linalg::GenericOp op, ArrayRef<Value> sizes,
                                   const Combiner &combiner, Operation *combine,
                                   int64_t lanes) {
  Block &body = op.getRegion().front();
  BlockArgument acc = op.getRegionOutputArgs()[0];
  unsigned accPos = combine->getOperand(0) == acc ? 0 : 1;
  Type accType = acc.getType();
  ReductionLoops loops(op, sizes);
  bool innerReduced =
      op.getIteratorTypesArray().back() == utils::IteratorType::reduction;
  unsigned innerLoop = op.getNumLoops() - 1;
  Value pTotal = product(b, loc, loops.parSizes);
  Value rTotal = product(b, loc, loops.redSizes);
  Value zero = cidx(b, loc, 0), one = cidx(b, loc, 1);
  Value vlanes = cidx(b, loc, lanes);
  Value block = cidx(b, loc, kBlockSize);
  // Threads along the outputs: one per output (inner-reduced: one block per
  // output), or one per `lanes` adjacent outputs; chunks of the reduction
  // to reach kTargetBlocks, each at least `minChunk` elements, a multiple
  // of `lanes` where the lanes walk the reduction.
  Value pThreads =
      innerReduced ? pTotal : arith::DivUIOp::create(b, loc, pTotal, vlanes);
  Value pBlocks = innerReduced ? pTotal : ceilDiv(b, loc, pThreads, block);
  int64_t minChunk = innerReduced ? kUnroll * kBlockSize * lanes : 16;
  Value pBlocksOr1 = arith::MaxUIOp::create(b, loc, pBlocks, one);
  Value wantChunks = ceilDiv(b, loc, cidx(b, loc, kTargetBlocks), pBlocksOr1);
  Value maxChunks = ceilDiv(b, loc, rTotal, cidx(b, loc, minChunk));
  Value chunks = arith::MaxUIOp::create(
      b, loc, one, arith::MinUIOp::create(b, loc, wantChunks, maxChunks));
  Value chunk =
      arith::MaxUIOp::create(b, loc, one, ceilDiv(b, loc, rTotal, chunks));
  if (innerReduced && lanes > 1)
    chunk =
        arith::MulIOp::create(b, loc, ceilDiv(b, loc, chunk, vlanes), vlanes);
  Value partialCount = arith::MulIOp::create(b, loc, chunks, pTotal);
  auto partialType = MemRefType::get({ShapedType::kDynamic}, accType);
  Value partial =
      memref::AllocOp::create(b, loc, partialType, ValueRange{partialCount});
  Value nonEmpty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, pTotal, zero);
  auto ifOp = scf::IfOp::create(b, loc, nonEmpty, /*withElse=*/false);
  OpBuilder hb = ifOp.getThenBodyBuilder();

  // Loop indices from the output index p and the reduction index r.
  auto loopIndices = [&](OpBuilder &kb, Value p, Value r) {
    return loops.indices(kb, loc, p, r);
  };
  auto alignment = [&](Type memref) {
    auto type = cast<MemRefType>(memref);
    return llvm::MaybeAlign(vectorAlignment(type, lanes) *
                            type.getElementTypeBitWidth() / 8);
  };
  // The region's contribution of iteration `idx` (of `lanes` consecutive
  // iterations of the innermost loop), combined into `a`.
  auto step = [&](OpBuilder &kb, ArrayRef<Value> idx, Value a) -> Value {
    SmallVector<Value> args;
    for (OpOperand *o : op.getDpsInputOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(o);
      if (arg.use_empty()) {
        args.push_back(Value());
        continue;
      }
      Value v = o->get();
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type) {
        args.push_back(v);
        continue;
      }
      AffineMap map = op.getMatchingIndexingMap(o);
      SmallVector<Value> at = applyMap(kb, loc, map, idx);
      if (lanes > 1 && map.isFunctionOfDim(innerLoop))
        args.push_back(vector::LoadOp::create(
            kb, loc, VectorType::get({lanes}, type.getElementType()), v, at,
            /*nontemporal=*/false, alignment(type)));
      else
        args.push_back(memref::LoadOp::create(kb, loc, v, at));
    }
    args.push_back(Value()); // the accumulator: only the combiner uses it
    IRMapping map;
    cloneBody(kb, loc, body, args, idx, lanes, map, combine);
    Value contribution = map.lookupOrDefault(combine->getOperand(1 - accPos));
    return applyCombiner(kb, loc, combine, accPos, a, contribution);
  };
  auto identity = [&](OpBuilder &kb) -> Value {
    if (lanes == 1)
      return arith::ConstantOp::create(kb, loc, combiner.identity);
    auto vt = VectorType::get({lanes}, accType);
    return arith::ConstantOp::create(
        kb, loc, DenseElementsAttr::get(vt, combiner.identity));
  };

  // Kernel 1: partial[s * pTotal + p] = combine over chunk s of output p.
  {
    Value gx = innerReduced ? pTotal : ceilDiv(hb, loc, pThreads, block);
    auto launch =
        gpu::LaunchOp::create(hb, loc, gx, chunks, one, block, one, one);
    namer.name(launch, innerReduced ? "reduce_rows" : "reduce_columns", op);
    OpBuilder kb = OpBuilder::atBlockEnd(&launch.getBody().front());
    auto term = gpu::TerminatorOp::create(kb, loc);
    kb.setInsertionPoint(term);
    Value bx = launch.getBlockIds().x, s = launch.getBlockIds().y;
    Value tx = launch.getThreadIds().x;
    Value init = identity(kb);
    Value start = arith::MulIOp::create(kb, loc, s, chunk);
    Value end = arith::MinUIOp::create(
        kb, loc, arith::AddIOp::create(kb, loc, start, chunk), rTotal);
    auto walk = [&](OpBuilder &wb, Value p, Value lo, Value end, Value stride,
                    Value init) -> Value {
      return unrolledFold(wb, loc, lo, end, stride, init,
                          [&](OpBuilder &lb, Value r, Value a) {
                            return step(lb, loopIndices(lb, p, r), a);
                          });
    };
    if (innerReduced) {
      // One block per output and chunk; threads stride the chunk, `lanes`
      // consecutive elements each.
      Value p = bx;
      Value lo = arith::AddIOp::create(
          kb, loc, start, arith::MulIOp::create(kb, loc, tx, vlanes));
      Value stride = cidx(kb, loc, kBlockSize * lanes);
      Value mine = walk(kb, p, lo, end, stride, init);
      if (lanes > 1) {
        // The thread's lanes, in order.
        Value a = vector::ExtractOp::create(kb, loc, mine, int64_t(0));
        for (int64_t l = 1; l < lanes; ++l)
          a = applyCombiner(kb, loc, combine, accPos, a,
                            vector::ExtractOp::create(kb, loc, mine, l));
        mine = a;
      }
      Value total = blockReduce(kb, loc, mine, combiner.kind);
      OpBuilder wb = firstThread(kb, loc, tx);
      Value at = arith::AddIOp::create(
          wb, loc, arith::MulIOp::create(wb, loc, s, pTotal), p);
      memref::StoreOp::create(wb, loc, total, partial, at);
    } else {
      // One thread per `lanes` adjacent outputs; the chunk walked in order
      // (each output's sum in the order of the scalar kernel).
      Value t = arith::AddIOp::create(
          kb, loc, arith::MulIOp::create(kb, loc, bx, block), tx);
      Value inRange = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult,
                                            t, pThreads);
      auto g = scf::IfOp::create(kb, loc, inRange, /*withElse=*/false);
      OpBuilder gb = g.getThenBodyBuilder();
      Value p = arith::MulIOp::create(gb, loc, t, vlanes);
      Value mine = walk(gb, p, start, end, one, init);
      Value at = arith::AddIOp::create(
          gb, loc, arith::MulIOp::create(gb, loc, s, pTotal), p);
      if (lanes > 1)
        vector::StoreOp::create(gb, loc, mine, partial, at,
                                /*nontemporal=*/false,
                                alignment(partial.getType()));
      else
        memref::StoreOp::create(gb, loc, mine, partial, at);
    }
  }
  // Kernel 2: out[p] = combine(out[p], the chunks of p). Inner-reduced (few
  // outputs, many chunks: a loss has one output and ~1000 chunks): one block
  // per output, its threads stride the chunks and combine with
  // gpu.all_reduce; otherwise kCombineSlices threads per output, slice k
  // folding chunks k, k + kCombineSlices, ... in order, and the slices'
  // results folded in slice order into out[p] (a fixed order: the same bits
  // on every run).
  {
    Value out = op.getDpsInits()[0];
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    auto partialAt = [&](OpBuilder &lb, Value s, Value p) {
      Value i = arith::AddIOp::create(
          lb, loc, arith::MulIOp::create(lb, loc, s, pTotal), p);
      return memref::LoadOp::create(lb, loc, partial, i).getResult();
    };
    auto fold = [&](Value p) {
      return [&, p](OpBuilder &lb, Value s, Value a) {
        return applyCombiner(lb, loc, combine, accPos, a, partialAt(lb, s, p));
      };
    };
    if (innerReduced) {
      auto launch =
          gpu::LaunchOp::create(hb, loc, pTotal, one, one, block, one, one);
      namer.name(launch, "reduce_combine", op);
      OpBuilder kb = OpBuilder::atBlockEnd(&launch.getBody().front());
      auto term = gpu::TerminatorOp::create(kb, loc);
      kb.setInsertionPoint(term);
      Value p = launch.getBlockIds().x, tx = launch.getThreadIds().x;
      Value init = arith::ConstantOp::create(kb, loc, combiner.identity);
      Value mine = unrolledFold(kb, loc, tx, chunks, block, init, fold(p));
      Value total = blockReduce(kb, loc, mine, combiner.kind);
      OpBuilder wb = firstThread(kb, loc, tx);
      SmallVector<Value> at =
          applyMap(wb, loc, outMap, loopIndices(wb, p, zero));
      Value initial = initialValue(wb, loc, out, at);
      memref::StoreOp::create(
          wb, loc, applyCombiner(wb, loc, combine, accPos, initial, total), out,
          at);
    } else {
      const int64_t perBlock = kBlockSize / kCombineSlices;
      Value vPerBlock = cidx(hb, loc, perBlock);
      Value gx = ceilDiv(hb, loc, pTotal, vPerBlock);
      auto shared =
          MemRefType::get({kBlockSize}, accType, MemRefLayoutAttrInterface(),
                          gpu::AddressSpaceAttr::get(
                              b.getContext(), gpu::AddressSpace::Workgroup));
      auto launch = gpu::LaunchOp::create(
          hb, loc, gx, one, one, block, one, one,
          /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
          /*asyncDependencies=*/ValueRange{}, TypeRange{shared});
      namer.name(launch, "reduce_combine", op);
      OpBuilder kb = OpBuilder::atBlockEnd(&launch.getBody().front());
      auto term = gpu::TerminatorOp::create(kb, loc);
      kb.setInsertionPoint(term);
      Value slots = launch.getWorkgroupAttributions()[0];
      Value tx = launch.getThreadIds().x;
      Value q = arith::RemUIOp::create(kb, loc, tx, vPerBlock);
      Value slice = arith::DivUIOp::create(kb, loc, tx, vPerBlock);
      Value p = arith::AddIOp::create(
          kb, loc,
          arith::MulIOp::create(kb, loc, launch.getBlockIds().x, vPerBlock), q);
      Value inRange =
          arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, p, pTotal);
      // Slice `slice` of output p: every kCombineSlices-th chunk, in order.
      auto g = scf::IfOp::create(kb, loc, TypeRange{accType}, inRange,
                                 /*withElseRegion=*/true);
      {
        OpBuilder gb = g.getThenBodyBuilder();
        Value init = arith::ConstantOp::create(gb, loc, combiner.identity);
        scf::YieldOp::create(gb, loc,
                             unrolledFold(gb, loc, slice, chunks,
                                          cidx(gb, loc, kCombineSlices), init,
                                          fold(p)));
        OpBuilder eb = g.getElseBodyBuilder();
        Value none = arith::ConstantOp::create(eb, loc, combiner.identity);
        scf::YieldOp::create(eb, loc, none);
      }
      memref::StoreOp::create(kb, loc, g.getResult(0), slots, tx);
      gpu::BarrierOp::create(kb, loc);
      Value first = arith::AndIOp::create(
          kb, loc, inRange,
          arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq, slice,
                                zero));
      auto w = scf::IfOp::create(kb, loc, first, /*withElse=*/false);
      OpBuilder wb = w.getThenBodyBuilder();
      SmallVector<Value> at =
          applyMap(wb, loc, outMap, loopIndices(wb, p, zero));
      Value total = initialValue(wb, loc, out, at);
      for (int64_t k = 0; k < kCombineSlices; ++k) {
        Value slot =
            arith::AddIOp::create(wb, loc, q, cidx(wb, loc, k * perBlock));
        total = applyCombiner(
            wb, loc, combine, accPos, total,
            memref::LoadOp::create(wb, loc, slots, slot).getResult());
      }
      memref::StoreOp::create(wb, loc, total, out, at);
    }
  }
  memref::DeallocOp::create(b, loc, partial);
}

/// A reduction that is not one associative combiner (several outputs, as
/// an argmax's value and index; a region that uses the accumulator
/// otherwise, as a running average): one thread per output, walking the
/// reduction loops in order from the output's initial values, as the cpu
/// backend does. Correct for any region; parallel only over the outputs.
LogicalResult KernelLowering::lowerSerialReduction(linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (OpOperand &o : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&o);
    for (auto [d, it] : llvm::enumerate(iterators))
      if (it == utils::IteratorType::reduction && map.isFunctionOfDim(d))
        return op.emitOpError("te-linalg-to-gpu: output ")
               << o.getOperandNumber() - op.getNumDpsInputs()
               << " is indexed by reduction loop " << d
               << ", which has no GPU lowering";
  }
  Location loc = op.getLoc();
  OpBuilder b(op);
  SmallVector<Value> sizes = loopSizes(b, loc, op);
  ReductionLoops loops(op, sizes);
  if (remarks) {
    InFlightDiagnostic remark = op.emitRemark(
        "te-linalg-to-gpu: this reduction runs one GPU thread per output, "
        "walking its reduction loops in order (its region is not `combine(acc, "
        "value)` with one associative combiner");
    if (op.getNumDpsInits() != 1)
      remark << " and it has " << op.getNumDpsInits() << " outputs";
    remark << ")";
  }
  Value pTotal = product(b, loc, loops.parSizes);
  Value rTotal = product(b, loc, loops.redSizes);
  Value zero = cidx(b, loc, 0), one = cidx(b, loc, 1);
  Value block = cidx(b, loc, kBlockSize);
  Value nonEmpty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, pTotal, zero);
  auto ifOp = scf::IfOp::create(b, loc, nonEmpty, /*withElse=*/false);
  OpBuilder hb = ifOp.getThenBodyBuilder();
  auto launch = gpu::LaunchOp::create(hb, loc, ceilDiv(hb, loc, pTotal, block),
                                      one, one, block, one, one);
  namer.name(launch, "reduce_serial", op);
  OpBuilder kb = OpBuilder::atBlockEnd(&launch.getBody().front());
  auto term = gpu::TerminatorOp::create(kb, loc);
  kb.setInsertionPoint(term);
  Value p = arith::AddIOp::create(
      kb, loc, arith::MulIOp::create(kb, loc, launch.getBlockIds().x, block),
      launch.getThreadIds().x);
  Value inRange =
      arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, p, pTotal);
  auto guard = scf::IfOp::create(kb, loc, inRange, /*withElse=*/false);
  OpBuilder tb = guard.getThenBodyBuilder();
  SmallVector<Value> pIdx = delinearize(tb, loc, p, loops.parSizes);
  auto loopIndices = [&](OpBuilder &lb, Value r) {
    return loops.indices(lb, loc, pIdx, r);
  };
  // The outputs' initial values, carried through the reduction loop.
  SmallVector<Value> outIdx = loopIndices(tb, zero);
  SmallVector<Value> initial;
  for (OpOperand &o : op.getDpsInitsMutable())
    initial.push_back(
        initialValue(tb, loc, o.get(),
                     applyMap(tb, loc, op.getMatchingIndexingMap(&o), outIdx)));
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto loop = scf::ForOp::create(
      tb, loc, zero, rTotal, one, initial,
      [&](OpBuilder &lb, Location, Value r, ValueRange accs) {
        SmallVector<Value> idx = loopIndices(lb, r);
        SmallVector<Value> args;
        for (OpOperand *o : op.getDpsInputOperands()) {
          Value v = o->get();
          if (op.getMatchingBlockArgument(o).use_empty())
            args.push_back(Value());
          else if (!isa<MemRefType>(v.getType()))
            args.push_back(v); // a scalar operand
          else
            args.push_back(memref::LoadOp::create(
                lb, loc, v,
                applyMap(lb, loc, op.getMatchingIndexingMap(o), idx)));
        }
        llvm::append_range(args, accs);
        IRMapping map;
        cloneBody(lb, loc, body, args, idx, /*lanes=*/1, map);
        SmallVector<Value> next;
        for (Value v : yield.getOperands())
          next.push_back(map.lookupOrDefault(v));
        scf::YieldOp::create(lb, loc, next);
      });
  for (auto [o, v] : llvm::zip(op.getDpsInitsMutable(), loop.getResults()))
    memref::StoreOp::create(
        tb, loc, v, o.get(),
        applyMap(tb, loc, op.getMatchingIndexingMap(&o), outIdx));
  rewriter.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Matrix products: cuBLASLt through the runtime
//===----------------------------------------------------------------------===//

/// A linalg contraction that te_rt_mlir_matmul computes: C[b] += A'[b] ·
/// B'[b] with one M, N and K loop and at most one batch loop, every operand
/// a memref with unit innermost stride, A and B of one type (f32, f16, bf16)
/// and C of that type or f32.
struct DenseMatmul {
  std::optional<unsigned> batch;
  unsigned m, n, k;
  bool transA, transB;
};

/// The te_rt_dtype of a dense element type, or nullopt.
std::optional<int32_t> runtimeDType(Type t) {
  if (t.isF32())
    return TE_RT_F32;
  if (t.isF16())
    return TE_RT_F16;
  if (t.isBF16())
    return TE_RT_BF16;
  return std::nullopt;
}

std::optional<DenseMatmul> matchDenseMatmul(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureBufferSemantics() || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1)
    return std::nullopt;
  DenseMatmul mm;
  if (!dims->batch.empty())
    mm.batch = dims->batch[0];
  mm.m = dims->m[0];
  mm.n = dims->n[0];
  mm.k = dims->k[0];
  // Each map: [batch,] then the two dims in either order (C: M, N only).
  auto order = [&](AffineMap map, unsigned first,
                   unsigned second) -> std::optional<bool> {
    unsigned lead = mm.batch ? 1 : 0;
    if (map.getNumResults() != lead + 2)
      return std::nullopt;
    auto dim = [&](unsigned i) -> std::optional<unsigned> {
      if (auto d = dyn_cast<AffineDimExpr>(map.getResult(i)))
        return d.getPosition();
      return std::nullopt;
    };
    if (mm.batch && dim(0) != mm.batch)
      return std::nullopt;
    if (dim(lead) == first && dim(lead + 1) == second)
      return false;
    if (dim(lead) == second && dim(lead + 1) == first)
      return true;
    return std::nullopt;
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  std::optional<bool> ta = order(maps[0], mm.m, mm.k);
  std::optional<bool> tb = order(maps[1], mm.k, mm.n);
  std::optional<bool> tc = order(maps[2], mm.m, mm.n);
  if (!ta || !tb || !tc || *tc)
    return std::nullopt;
  mm.transA = *ta;
  mm.transB = *tb;
  // Types and layouts.
  SmallVector<MemRefType> types;
  for (OpOperand &o : op->getOpOperands()) {
    auto t = dyn_cast<MemRefType>(o.get().getType());
    if (!t || !innerStrideIsOne(t))
      return std::nullopt;
    types.push_back(t);
  }
  std::optional<int32_t> a = runtimeDType(types[0].getElementType()),
                         b = runtimeDType(types[1].getElementType()),
                         c = runtimeDType(types[2].getElementType());
  if (!a || !b || !c || *a != *b || (*c != TE_RT_F32 && *c != *a))
    return std::nullopt;
  return mm;
}

/// Replaces `op` by a call of te_rt_mlir_matmul.
void lowerMatmul(RewriterBase &rewriter, linalg::LinalgOp op,
                 const DenseMatmul &mm) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto module = op->getParentOfType<ModuleOp>();
  SmallVector<Value> sizes;
  for (Range r : op.createLoopRanges(b, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, r.size));
  auto i64 = [&](Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v).getResult();
  };
  auto i32c = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32).getResult();
  };
  Value one = cidx(b, loc, 1), zero = cidx(b, loc, 0);
  SmallVector<Value> args{i64(mm.batch ? sizes[*mm.batch] : one),
                          i64(sizes[mm.m]), i64(sizes[mm.n]), i64(sizes[mm.k])};
  bool trans[3] = {mm.transA, mm.transB, false};
  for (auto [i, o] : llvm::enumerate(op->getOpOperands())) {
    Value m = o.get();
    auto type = cast<MemRefType>(m.getType());
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, m);
    ValueRange strides = meta.getStrides();
    unsigned rank = type.getRank();
    args.push_back(mlir::te::runtimeElementPointer(b, loc, m));
    args.push_back(i32c(*runtimeDType(type.getElementType())));
    if (i < 2)
      args.push_back(i32c(trans[i] ? 1 : 0));
    args.push_back(i64(strides[rank - 2]));
    args.push_back(i64(mm.batch ? strides[0] : zero));
  }
  args.push_back(i32c(1)); // accumulate into the output
  func::CallOp::create(
      b, loc, mlir::te::declareRuntimeEntryPoint(module, "te_rt_mlir_matmul"),
      args);
  rewriter.eraseOp(op);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

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
    DenseMap<Operation *, SmallVector<linalg::FillOp>> folded =
        foldReductionFills(work);
    for (Operation *op : work) {
      if (!op)
        continue; // a fill folded into its reduction
      lowering.filledInitial.clear();
      for (linalg::FillOp fill : folded.lookup(op)) {
        lowering.filledInitial[fill.getDpsInits()[0]] = fill.getInputs()[0];
        rewriter.eraseOp(fill);
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
      // Matrix products go to cuBLASLt (te_rt_mlir_matmul).
      if (std::optional<DenseMatmul> mm = matchDenseMatmul(linalgOp)) {
        lowerMatmul(rewriter, linalgOp, *mm);
        continue;
      }
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

  /// The fills of `work` that write a reduction's output right before it,
  /// by reduction (their entries in `work` become null): the reduction's
  /// kernels take the fill's value as the output's initial value, and the
  /// fill's own kernel (a launch, a write of the output and its reads)
  /// goes. Only where nothing but the reduction sees the fill's values: only
  /// ops that touch no memory (or allocate) between the fill and the
  /// reduction; no input of the reduction a view of the output's buffer;
  /// every element of the output written by the reduction (its indexing
  /// map a projected permutation of the loops, no constants). Not for
  /// matrix products, which accumulate into the output
  /// (te_rt_mlir_matmul).
  static DenseMap<Operation *, SmallVector<linalg::FillOp>>
  foldReductionFills(SmallVectorImpl<Operation *> &work) {
    DenseMap<Operation *, SmallVector<linalg::FillOp>> folded;
    DenseMap<Operation *, unsigned> position;
    for (auto [i, op] : llvm::enumerate(work))
      position[op] = i;
    for (Operation *op : work) {
      auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
      if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
          linalgOp.getNumReductionLoops() == 0 || matchDenseMatmul(linalgOp))
        continue;
      for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
        Value out = init.get();
        linalg::FillOp fill = fillBefore(op, out);
        if (!fill || !position.count(fill) ||
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

  /// The memref `v` is a view of (through view-like ops), or `v`.
  static Value viewRoot(Value v) {
    while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
      v = view.getViewSource();
    return v;
  }

  /// The linalg.fill of `out` before `op` in its block with only ops that
  /// touch no memory (or allocate) between them; else null.
  static linalg::FillOp fillBefore(Operation *op, Value out) {
    for (Operation *prev = op->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (auto fill = dyn_cast<linalg::FillOp>(prev))
        return fill.getDpsInits()[0] == out ? fill : nullptr;
      // A failed te.check_size returns before the reduction: nothing sees
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
