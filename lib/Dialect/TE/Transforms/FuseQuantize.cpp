//===- FuseQuantize.cpp - Elementwise producers into quantization --------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-fuse-quantize: a te.quantize_buffers of the result of an elementwise
// linalg.generic becomes a te.quantize_produced_buffers that holds the
// generic's body (the runtime evaluates it inside its quantize kernels).
// What fuses, and the remarks, are in Passes.td; what a body may hold and
// how its inputs may be indexed is ProducerProgram.h's, asked here before
// anything is rewritten.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "te/Dialect/TE/IR/ProducerProgram.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "te-fuse-quantize"

namespace mlir::te {
#define GEN_PASS_DEF_TEFUSEQUANTIZE
#include "te/Dialect/TE/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

/// The element types an input of the program may have.
bool isProgramElementType(Type t) { return getProducerTypeCode(t) >= 0; }

/// A short account of a body: its inputs and the distinct operations, in
/// order of first appearance (constants left out).
std::string summarize(Block &body, size_t numInputs) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << numInputs << (numInputs == 1 ? " input" : " inputs");
  llvm::SetVector<StringRef> names;
  for (Operation &op : body.without_terminator())
    if (!isa<arith::ConstantOp>(op))
      names.insert(op.getName().getStringRef());
  if (!names.empty()) {
    os << ": ";
    llvm::interleaveComma(names, os);
  }
  return text;
}

/// Whether a quantization of a value `def` computes is worth a remark when
/// it is not fused: ops that compute (linalg, te); views, casts, copies and
/// control flow have nothing to fuse.
bool computes(Operation *def) {
  return isa<linalg::LinalgOp>(def) || isa<TEDialect>(def->getDialect());
}

class Fuser {
public:
  Fuser(Operation *root, bool remarks) : dominance(root), remarks(remarks) {}

  unsigned fused = 0, valuesWritten = 0, notFused = 0;

  void run(QuantizeBuffersOp q) {
    if (!q.hasPureTensorSemantics())
      return;
    Value x = q.getInput();
    Operation *def = x.getDefiningOp();
    if (!def)
      return;
    auto generic = dyn_cast<linalg::GenericOp>(def);
    if (!generic) {
      if (computes(def))
        notFusedRemark(q, "its input is computed by '" +
                              def->getName().getStringRef() +
                              "', not an elementwise linalg.generic");
      return;
    }
    std::string why;
    if (failed(fuse(q, generic, why)))
      notFusedRemark(q, why);
  }

private:
  void notFusedRemark(QuantizeBuffersOp q, const Twine &why) {
    ++notFused;
    if (remarks)
      emitRemark(q.getLoc()) << "te-fuse-quantize: not fused: " << why;
  }

  LogicalResult fuse(QuantizeBuffersOp q, linalg::GenericOp generic,
                     std::string &why) {
    auto no = [&](const Twine &text) {
      why = text.str();
      return failure();
    };
    if (q.getGroup())
      return no("it reduces its amax across process group '" + *q.getGroup() +
                "' (no fused entry point)");
    if (generic.getNumDpsInits() != 1 || generic->getNumResults() != 1)
      return no("its producer (linalg.generic) has " +
                Twine(generic->getNumResults()) + " results");
    for (auto [i, it] : llvm::enumerate(generic.getIteratorTypesArray()))
      if (it != utils::IteratorType::parallel)
        return no("its producer is a reduction (loop d" + Twine(i) +
                  "), not elementwise");
    auto valueType = cast<RankedTensorType>(q.getInput().getType());
    OpOperand *init = generic.getDpsInitOperand(0);
    if (!generic.getMatchingIndexingMap(init).isIdentity())
      return no("its producer writes its result through a non-identity map");
    if (generic->getBlock() != q->getBlock())
      return no("its producer is in another block (outside a loop or branch "
                "the quantization is in)");
    if (valueType.getRank() == 0)
      return no("the quantized value is a scalar");
    Value x = q.getInput();
    SmallVector<Operation *> otherReaders;
    for (Operation *user : x.getUsers())
      if (user != q.getOperation())
        otherReaders.push_back(user);
    for (Operation *user : otherReaders)
      if (!dominance.properlyDominates(q.getOperation(), user))
        return no("'" + user->getName().getStringRef() +
                  "' reads the producer's result before the quantization");

    // math.log1p / math.expm1: the program's are the C library's log1pf /
    // expm1f (CUDA's on the GPU), the compiled cpu loops compute logf(1 + x)
    // and expf(x) - 1 (upstream's MathToLLVM): fusing would change the bits.
    for (Operation &op : generic.getBlock()->without_terminator())
      if (isa<math::Log1pOp, math::ExpM1Op>(op))
        return no("its producer's body holds '" + op.getName().getStringRef() +
                  "', which the compiled cpu loops compute as " +
                  (isa<math::Log1pOp>(op) ? "logf(1 + x)" : "expf(x) - 1") +
                  " and the runtime's program with the C library's " +
                  (isa<math::Log1pOp>(op) ? "log1pf" : "expm1f"));

    // Arithmetic on bf16 / f16 values that reads another such op's result:
    // on the host, upstream's arith-emulate-unsupported-floats computes
    // both in f32 with `contract` casts between them, which fold away, so
    // the compiled cpu loops keep the intermediate in f32 where the
    // program (and the GPU's bf16 instructions) round it.
    for (Operation &op : generic.getBlock()->without_terminator()) {
      if (isa<arith::ConstantOp, arith::ExtFOp, arith::TruncFOp>(op) ||
          op.getNumResults() != 1)
        continue;
      Type t = op.getResult(0).getType();
      if (!t.isBF16() && !t.isF16())
        continue;
      for (Operation *user : op.getResult(0).getUsers())
        if (!isa<arith::ExtFOp, arith::TruncFOp, arith::SelectOp,
                 linalg::YieldOp>(user))
          return no("its producer's body computes on " +
                    (t.isBF16() ? StringRef("bf16") : StringRef("f16")) +
                    ": '" + user->getName().getStringRef() + "' reads '" +
                    op.getName().getStringRef() +
                    "''s result, which the compiled cpu loops keep in f32 "
                    "(arith-emulate-unsupported-floats) and the runtime's "
                    "program rounds");
    }

    // The inputs: the generic's, its init where the body reads it, and the
    // scalars the body reads from outside (as rank-0 tensors).
    Block &genericBody = *generic.getBlock();
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    SmallVector<Value> argsFrom; // the generic block argument of each input
    for (OpOperand *in : generic.getDpsInputOperands()) {
      inputs.push_back(in->get());
      maps.push_back(generic.getMatchingIndexingMap(in));
      argsFrom.push_back(generic.getMatchingBlockArgument(in));
    }
    BlockArgument outArg = generic.getMatchingBlockArgument(init);
    if (!outArg.use_empty()) {
      inputs.push_back(init->get());
      maps.push_back(generic.getMatchingIndexingMap(init));
      argsFrom.push_back(outArg);
    }
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(generic.getRegion(), above);
    SmallVector<Value> constantsAbove, scalarsAbove;
    for (Value v : above) {
      if (v.getDefiningOp<arith::ConstantOp>() && v.getType().isIntOrFloat()) {
        constantsAbove.push_back(v);
        continue;
      }
      if (!isProgramElementType(v.getType())) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "its producer's body reads a value of type " << v.getType()
           << " defined outside it";
        return no(text);
      }
      scalarsAbove.push_back(v);
    }
    for (auto [i, input] : llvm::enumerate(inputs)) {
      auto type = dyn_cast<RankedTensorType>(input.getType());
      if (!type || !isProgramElementType(type.getElementType())) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "its producer reads an operand of type " << input.getType()
           << " (the program reads bf16, f16, f32 and i1 tensors)";
        return no(text);
      }
      std::string layoutWhy;
      if (failed(getProducerInputLayout(maps[i], valueType.getShape(),
                                        type.getShape(), &layoutWhy)))
        return no("input #" + Twine(i) + " of its producer: " + layoutWhy);
    }

    // The fused op, with the generic's body. Built, then encoded: a body the
    // program cannot hold takes everything built here back.
    OpBuilder b(q);
    Location loc = q.getLoc();
    SmallVector<Operation *> built;
    MLIRContext *ctx = q.getContext();
    for (Value s : scalarsAbove) {
      auto t = RankedTensorType::get({}, s.getType());
      auto e = tensor::FromElementsOp::create(b, loc, t, s);
      built.push_back(e);
      inputs.push_back(e.getResult());
      maps.push_back(AffineMap::get(valueType.getRank(), 0, ctx));
    }
    SmallVector<Value> sizes;
    for (int64_t i = 0; i < valueType.getRank(); ++i)
      if (valueType.isDynamicDim(i)) {
        auto dim = tensor::DimOp::create(b, loc, init->get(), i);
        built.push_back(dim);
        sizes.push_back(dim);
      }
    Value valueOut;
    if (!otherReaders.empty()) {
      if (outArg.use_empty()) {
        valueOut = init->get();
      } else {
        auto empty = tensor::EmptyOp::create(b, loc, valueType, sizes);
        built.push_back(empty);
        valueOut = empty;
      }
    }
    SmallVector<Type> resultTypes(q->getResultTypes());
    if (valueOut)
      resultTypes.push_back(valueType);
    SmallVector<Attribute> mapAttrs;
    for (AffineMap m : maps)
      mapAttrs.push_back(AffineMapAttr::get(m));
    auto fusedOp = QuantizeProducedBuffersOp::create(
        b, loc, resultTypes, inputs, sizes, q.getScale(), q.getSeed(),
        q.getOffset(), q.getOuts(), valueOut, b.getArrayAttr(mapAttrs),
        TypeAttr::get(valueType), q.getQuantizerAttr(), q.getUsage());
    built.push_back(fusedOp);
    Block *body = b.createBlock(&fusedOp.getBody());
    IRMapping mapping;
    for (auto [arg, input] : llvm::zip(argsFrom, inputs))
      mapping.map(arg, body->addArgument(
                           cast<ShapedType>(input.getType()).getElementType(),
                           arg.getLoc()));
    for (auto [s, input] :
         llvm::zip(scalarsAbove,
                   ArrayRef<Value>(inputs).take_back(scalarsAbove.size())))
      mapping.map(s, body->addArgument(s.getType(), s.getLoc()));
    b.setInsertionPointToStart(body);
    for (Value c : constantsAbove)
      mapping.map(c, b.clone(*c.getDefiningOp())->getResult(0));
    for (Operation &op : genericBody.without_terminator())
      b.clone(op, mapping);
    auto yield = cast<linalg::YieldOp>(genericBody.getTerminator());
    ProduceOp::create(b, yield.getLoc(),
                      mapping.lookupOrDefault(yield.getOperand(0)));

    std::string encodeWhy;
    Operation *where = nullptr;
    if (failed(encodeProducerProgram(*body, &encodeWhy, &where))) {
      for (Operation *op : llvm::reverse(built))
        op->erase();
      return no("its producer's body holds " + encodeWhy);
    }

    unsigned numOuts = q->getNumResults();
    q->replaceAllUsesWith(fusedOp->getResults().take_front(numOuts));
    if (valueOut) {
      Value written = fusedOp->getResult(numOuts);
      for (Operation *user : otherReaders)
        user->replaceUsesOfWith(q.getInput(), written);
    }
    if (remarks) {
      InFlightDiagnostic r = emitRemark(q.getLoc())
                             << "te-fuse-quantize: fused the elementwise "
                                "producer ("
                             << summarize(*body, inputs.size())
                             << ") into the quantization";
      if (valueOut)
        r << "; it also writes the value for " << otherReaders.size()
          << (otherReaders.size() == 1 ? " other reader" : " other readers");
    }
    q.erase();
    if (generic->use_empty())
      generic.erase();
    ++fused;
    if (valueOut)
      ++valuesWritten;
    return success();
  }

  DominanceInfo dominance;
  bool remarks;
};

struct TEFuseQuantizePass
    : public mlir::te::impl::TEFuseQuantizeBase<TEFuseQuantizePass> {
  using TEFuseQuantizeBase::TEFuseQuantizeBase;

  void runOnOperation() override {
    SmallVector<QuantizeBuffersOp> quantizes;
    getOperation()->walk([&](QuantizeBuffersOp q) { quantizes.push_back(q); });
    Fuser fuser(getOperation(), remarks);
    for (QuantizeBuffersOp q : quantizes)
      fuser.run(q);
    numFused += fuser.fused;
    numValueOut += fuser.valuesWritten;
    numNotFused += fuser.notFused;
    if (fuser.fused == 0)
      markAllAnalysesPreserved();
  }
};

} // namespace
