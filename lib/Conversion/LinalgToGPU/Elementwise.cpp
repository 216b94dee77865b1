//===- Elementwise.cpp - All-parallel linalg ops as GPU kernels
//------------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// All-parallel ops (elementwise, broadcasts, transposes, fills, copies):
// one thread per V consecutive elements of the innermost loop (V * the
// smallest element size = 16 bytes, V <= 8), 256 threads per block, a 1-D
// grid. Operands indexed by the innermost loop as their last, unit-stride
// dimension are read and written with `vector.load`/`vector.store` of V
// elements (16-byte accesses); the region is applied to vectors of V lanes
// (arith/math are elementwise). Where alignment depends on a dynamic offset
// or stride, the host picks the vector or the scalar kernel at run time.
// Also the building blocks every kernel shares (index arithmetic, the
// region cloned into a kernel, vector widths and alignment).
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#define DEBUG_TYPE "te-linalg-to-gpu"

using namespace mlir;

namespace mlir::te::linalg_to_gpu {

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
               Operation *skip) {
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

} // namespace mlir::te::linalg_to_gpu
