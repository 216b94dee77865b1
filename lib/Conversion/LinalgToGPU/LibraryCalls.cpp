//===- LibraryCalls.cpp - Matrix products as runtime library calls -------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Contractions that the runtime's te_rt_mlir_matmul computes (one
// strided-batched cuBLASLt call on cuda): linalg.matmul, linalg.batch_matmul
// and their transposed forms, and every linalg.generic contraction with one
// M, N and K loop and any number of batch loops (the 4-D [B, H, S, D]
// products of attention written einsum-style), its operands' strides read
// at run time. The batch loops become the call's one batch dimension when
// their strides collapse (stride[b_i] = stride[b_i+1] * size[b_i+1] for
// every operand), decided at compile time where the sizes and strides are
// static and by an scf.if otherwise; else a host loop over the outer batch
// loops makes one call per index. A contraction the library cannot compute
// (integer types, two M loops, no unit-stride matrix dimension...) is left
// to the reduction kernels with a remark naming the reason.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "te/Conversion/RuntimeAbi.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include "te_rt.h"

#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "te-linalg-to-gpu"

using namespace mlir;

namespace mlir::te::linalg_to_gpu {
namespace {

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

std::string typeText(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// Matches operand `name` (map `map`, memref `value`) of a product whose
/// matrix loops are `outer` and `inner` when not transposed (A: M, K; B:
/// K, N; C: M, N). Sets *whyNot on failure.
std::optional<MatmulOperand> matchOperand(StringRef name, Value value,
                                          AffineMap map,
                                          ArrayRef<unsigned> batch,
                                          unsigned outer, unsigned inner,
                                          std::string *whyNot) {
  auto fail = [&](const Twine &why) -> std::optional<MatmulOperand> {
    *whyNot = (name + " " + why).str();
    return std::nullopt;
  };
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type)
    return fail("is not a memref");
  if (map.getNumResults() != batch.size() + 2)
    return fail("is indexed by loops other than the batch loops and its two "
                "matrix loops");
  MatmulOperand o;
  o.memref = value;
  o.batchDims.assign(batch.size(), 0);
  std::optional<unsigned> outerPos, innerPos;
  for (auto [pos, e] : llvm::enumerate(map.getResults())) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d)
      return fail("has an index that is not a loop");
    unsigned loop = d.getPosition();
    if (loop == outer)
      outerPos = pos;
    else if (loop == inner)
      innerPos = pos;
    else if (const auto *it = llvm::find(batch, loop); it != batch.end())
      o.batchDims[it - batch.begin()] = pos;
    else
      return fail("is indexed by loops other than the batch loops and its "
                  "two matrix loops");
  }
  if (!outerPos || !innerPos)
    return fail("does not have both of its matrix loops");
  unsigned last = map.getNumResults() - 1;
  if (*outerPos != last && *innerPos != last)
    return fail("has a batch dimension innermost: neither of its matrix "
                "dimensions has unit stride");
  if (!innerStrideIsOne(type))
    return fail("does not have a static unit innermost stride: neither of "
                "its matrix dimensions is known to have unit stride");
  o.trans = *outerPos == last;
  o.rowDim = o.trans ? *innerPos : *outerPos;
  return o;
}

} // namespace

std::optional<DenseMatmul> matchDenseMatmul(linalg::LinalgOp op,
                                            std::string *whyNot) {
  std::string ignored;
  if (!whyNot)
    whyNot = &ignored;
  whyNot->clear();
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureBufferSemantics() || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  auto fail = [&](const Twine &why) -> std::optional<DenseMatmul> {
    *whyNot = why.str();
    return std::nullopt;
  };
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return fail("it has no M, N or K loop");
  auto count = [&](StringRef what, size_t n) -> std::optional<std::string> {
    if (n == 1)
      return std::nullopt;
    if (n == 0)
      return (Twine("it has no ") + what + " loop" +
              (what == "N" ? " (a matrix-vector product)" : ""))
          .str();
    return (Twine("it has ") + Twine(n) + " " + what +
            " loops (the library takes one M, one N and one K loop)")
        .str();
  };
  if (auto why = count("M", dims->m.size()))
    return fail(*why);
  if (auto why = count("N", dims->n.size()))
    return fail(*why);
  if (auto why = count("K", dims->k.size()))
    return fail(*why);
  DenseMatmul mm;
  mm.batch.assign(dims->batch.begin(), dims->batch.end());
  llvm::sort(mm.batch);
  mm.m = dims->m[0];
  mm.n = dims->n[0];
  mm.k = dims->k[0];
  if (op.getNumLoops() != mm.batch.size() + 3)
    return fail("it has loops that are neither batch, M, N nor K loops");
  // Types.
  auto elem = [&](unsigned i) {
    return getElementTypeOrSelf(op->getOperand(i).getType());
  };
  Type at = elem(0), bt = elem(1), ct = elem(2);
  if (!runtimeDType(at) || !runtimeDType(bt) || !runtimeDType(ct))
    return fail("its element types (" + typeText(at) + ", " + typeText(bt) +
                ", " + typeText(ct) + ") are not all f32, f16 or bf16");
  if (at != bt)
    return fail("its inputs have different types (" + typeText(at) + ", " +
                typeText(bt) + ")");
  if (!ct.isF32() && ct != at)
    return fail("its output type " + typeText(ct) +
                " is neither f32 nor its inputs' type (" + typeText(at) + ")");
  // Layouts.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  std::optional<MatmulOperand> a = matchOperand(
      "operand A", op->getOperand(0), maps[0], mm.batch, mm.m, mm.k, whyNot);
  if (!a)
    return std::nullopt;
  std::optional<MatmulOperand> b = matchOperand(
      "operand B", op->getOperand(1), maps[1], mm.batch, mm.k, mm.n, whyNot);
  if (!b)
    return std::nullopt;
  std::optional<MatmulOperand> c = matchOperand(
      "the output", op->getOperand(2), maps[2], mm.batch, mm.m, mm.n, whyNot);
  if (!c)
    return std::nullopt;
  if (!c->trans) {
    mm.a = *a;
    mm.b = *b;
    mm.c = *c;
    return mm;
  }
  // C stored [N, M]: Cᵀ = B'ᵀ A'ᵀ, B as the runtime's A (transposed if it
  // was not) and A as its B.
  std::swap(mm.m, mm.n);
  mm.a = *b;
  mm.a.trans = !b->trans;
  mm.b = *a;
  mm.b.trans = !a->trans;
  mm.c = *c;
  mm.c.trans = false;
  return mm;
}

bool isFloatZero(Value v) { return matchPattern(v, m_AnyZeroFloat()); }

void lowerMatmul(RewriterBase &rewriter, linalg::LinalgOp op,
                 const DenseMatmul &mm, bool accumulate, bool remarks) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto module = op->getParentOfType<ModuleOp>();
  SmallVector<Value> sizes;
  for (Range r : op.createLoopRanges(b, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, r.size));
  auto i64 = [&](OpBuilder &ob, Value v) {
    return arith::IndexCastOp::create(ob, loc, ob.getI64Type(), v).getResult();
  };
  auto i32c = [&](OpBuilder &ob, int64_t v) {
    return arith::ConstantIntOp::create(ob, loc, v, 32).getResult();
  };
  const MatmulOperand *operands[3] = {&mm.a, &mm.b, &mm.c};
  // Each operand's strides: constants where the type has them (so that the
  // collapse check folds), else read at run time.
  SmallVector<SmallVector<Value>> strides;
  for (const MatmulOperand *o : operands) {
    auto type = cast<MemRefType>(o->memref.getType());
    SmallVector<int64_t> static_;
    int64_t offset;
    if (failed(type.getStridesAndOffset(static_, offset)))
      static_.assign(type.getRank(), ShapedType::kDynamic);
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, o->memref);
    SmallVector<Value> s;
    for (auto [i, v] : llvm::enumerate(static_))
      s.push_back(ShapedType::isDynamic(v) ? meta.getStrides()[i]
                                           : cidx(b, loc, v));
    strides.push_back(s);
  }
  const size_t nb = mm.batch.size();
  // One call: `batch` products, operand i's first element at `at[i]`
  // (indices of its memref), consecutive products `batchStride[i]` apart.
  auto call = [&](OpBuilder &cb, Value batch, ArrayRef<SmallVector<Value>> at,
                  ArrayRef<Value> batchStride) {
    SmallVector<Value> args{i64(cb, batch), i64(cb, sizes[mm.m]),
                            i64(cb, sizes[mm.n]), i64(cb, sizes[mm.k])};
    for (auto [i, o] : llvm::enumerate(operands)) {
      auto type = cast<MemRefType>(o->memref.getType());
      args.push_back(
          mlir::te::runtimeElementPointer(cb, loc, o->memref, at[i]));
      args.push_back(i32c(cb, *runtimeDType(type.getElementType())));
      if (i < 2)
        args.push_back(i32c(cb, o->trans ? 1 : 0));
      args.push_back(i64(cb, strides[i][o->rowDim]));
      args.push_back(i64(cb, batchStride[i]));
    }
    args.push_back(i32c(cb, accumulate ? 1 : 0));
    func::CallOp::create(
        cb, loc,
        mlir::te::declareRuntimeEntryPoint(module, "te_rt_mlir_matmul"), args);
  };
  auto origin = [&](OpBuilder &ob, const MatmulOperand &o) {
    return SmallVector<Value>(cast<MemRefType>(o.memref.getType()).getRank(),
                              cidx(ob, loc, 0));
  };
  SmallVector<SmallVector<Value>> origins;
  for (const MatmulOperand *o : operands)
    origins.push_back(origin(b, *o));
  if (nb <= 1) {
    SmallVector<Value> bs;
    for (auto [i, o] : llvm::enumerate(operands))
      bs.push_back(nb ? strides[i][o->batchDims[0]] : cidx(b, loc, 0));
    call(b, nb ? sizes[mm.batch[0]] : cidx(b, loc, 1), origins, bs);
    rewriter.eraseOp(op);
    return;
  }
  // Several batch loops. Operand X's collapsed batch stride S_X is the
  // stride of its innermost batch loop of size other than 1 (0 if none);
  // they collapse if for every batch loop i of size other than 1,
  // stride_i == S_X * (the product of the sizes of the loops inside i). A
  // size-1 loop's stride is never used; with a size 0 the call computes
  // nothing whatever the strides.
  Value one = cidx(b, loc, 1), zero = cidx(b, loc, 0);
  Value cond = arith::ConstantIntOp::create(b, loc, 1, 1);
  SmallVector<Value> collapsed;
  for (auto [i, o] : llvm::enumerate(operands)) {
    Value s = zero;
    for (size_t j = 0; j < nb; ++j) {
      Value notOne = b.createOrFold<arith::CmpIOp>(
          loc, arith::CmpIPredicate::ne, sizes[mm.batch[j]], one);
      s = b.createOrFold<arith::SelectOp>(loc, notOne,
                                          strides[i][o->batchDims[j]], s);
    }
    collapsed.push_back(s);
    Value inner = s; // S_X * the sizes of the loops inside j
    for (int64_t j = nb - 1; j >= 0; --j) {
      Value stride = strides[i][o->batchDims[j]];
      Value isOne = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                                  sizes[mm.batch[j]], one);
      Value matches = b.createOrFold<arith::CmpIOp>(
          loc, arith::CmpIPredicate::eq, stride, inner);
      cond = b.createOrFold<arith::AndIOp>(
          loc, cond, b.createOrFold<arith::OrIOp>(loc, isOne, matches));
      inner = b.createOrFold<arith::MulIOp>(loc, inner, sizes[mm.batch[j]]);
    }
  }
  // One call for all products.
  auto emitCollapsed = [&](OpBuilder &cb) {
    SmallVector<Value> batchSizes;
    for (unsigned d : mm.batch)
      batchSizes.push_back(sizes[d]);
    call(cb, product(cb, loc, batchSizes), origins, collapsed);
  };
  // A host loop nest over the outer batch loops, one call per index over
  // the innermost batch loop.
  auto emitLoop = [&](OpBuilder &lb) {
    SmallVector<Value> ivs;
    OpBuilder ib(lb.getContext());
    ib.setInsertionPoint(lb.getInsertionBlock(), lb.getInsertionPoint());
    for (size_t j = 0; j + 1 < nb; ++j) {
      auto loop = scf::ForOp::create(ib, loc, cidx(ib, loc, 0),
                                     sizes[mm.batch[j]], cidx(ib, loc, 1));
      ivs.push_back(loop.getInductionVar());
      ib.setInsertionPointToStart(loop.getBody());
    }
    SmallVector<SmallVector<Value>> at;
    SmallVector<Value> bs;
    for (auto [i, o] : llvm::enumerate(operands)) {
      SmallVector<Value> idx = origin(ib, *o);
      for (size_t j = 0; j + 1 < nb; ++j)
        idx[o->batchDims[j]] = ivs[j];
      at.push_back(idx);
      bs.push_back(strides[i][o->batchDims[nb - 1]]);
    }
    call(ib, sizes[mm.batch[nb - 1]], at, bs);
  };
  std::optional<int64_t> known = getConstantIntValue(cond);
  if (known && *known) {
    emitCollapsed(b);
  } else {
    if (remarks)
      op->emitRemark("te-linalg-to-gpu: ")
          << op->getName() << " runs as one cuBLASLt call per index of its "
          << nb - 1 << " outer batch loop" << (nb > 2 ? "s" : "")
          << (known ? ": its batch strides do not collapse into one"
                    : " when its batch strides do not collapse into one at "
                      "run time");
    if (known) {
      emitLoop(b);
    } else {
      auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/true);
      OpBuilder tb = ifOp.getThenBodyBuilder();
      emitCollapsed(tb);
      OpBuilder eb = ifOp.getElseBodyBuilder();
      emitLoop(eb);
    }
  }
  rewriter.eraseOp(op);
}

} // namespace mlir::te::linalg_to_gpu
