//===- Reductions.cpp - Reductions as GPU kernels
//--------------------------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Reductions whose combiner is one associative op (add, mul, max, min, and,
// or, xor): partial results per (output, chunk of the reduction) in
// registers, combined across a block with `gpu.all_reduce` when the
// innermost loop is reduced (a row reduction: one block per output and
// chunk), or one thread per output when it is parallel (a column
// reduction), into a temporary buffer; a second kernel combines the chunks
// in order with the output's initial value. The chunking depends only on
// the shapes, so results are deterministic. Any other reduction: one thread
// per output, walking the reduction loops in order.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "te-linalg-to-gpu"

using namespace mlir;

namespace mlir::te::linalg_to_gpu {

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
        !roots.insert(viewRoot(o.get())).second && op.isDpsInit(&o))
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

} // namespace mlir::te::linalg_to_gpu
