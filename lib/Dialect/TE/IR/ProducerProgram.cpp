//===- ProducerProgram.cpp - te.quantize_produced_buffers' program -------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The encoder of producer programs and the rule of their inputs' layouts
// (ProducerProgram.h). The opcodes, their arities and the limits are the
// ABI table's (te_rt_abi.def); what is written here is which MLIR operation
// each opcode implements.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/ProducerProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

#include "te_rt.h"
#include "te_rt_abi.def"

using namespace mlir;
using namespace mlir::te;

namespace {

/// The opcodes of the ABI table.
enum class Opcode : int32_t {
#define TE_RT_ABI_PRODUCER_OP(name, code, arity) name = code,
#include "te_rt_abi.def"
};

/// The number of operands of `op` in the ABI table.
int arityOf(Opcode op) {
  switch (op) {
#define TE_RT_ABI_PRODUCER_OP(name, code, arity)                               \
  case Opcode::name:                                                           \
    return arity;
#include "te_rt_abi.def"
  }
  return -1;
}

/// The opcode of an operation on scalars, if the program has one for it.
std::optional<Opcode> opcodeOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<Opcode>>(op)
      .Case<arith::ConstantOp>([](auto) { return Opcode::CONST; })
      .Case<arith::ExtFOp, arith::TruncFOp>([](auto) { return Opcode::CAST; })
      .Case<arith::AddFOp>([](auto) { return Opcode::ADDF; })
      .Case<arith::SubFOp>([](auto) { return Opcode::SUBF; })
      .Case<arith::MulFOp>([](auto) { return Opcode::MULF; })
      .Case<arith::DivFOp>([](auto) { return Opcode::DIVF; })
      .Case<arith::NegFOp>([](auto) { return Opcode::NEGF; })
      .Case<math::AbsFOp>([](auto) { return Opcode::ABSF; })
      .Case<arith::MaximumFOp>([](auto) { return Opcode::MAXIMUMF; })
      .Case<arith::MinimumFOp>([](auto) { return Opcode::MINIMUMF; })
      .Case<arith::MaxNumFOp>([](auto) { return Opcode::MAXNUMF; })
      .Case<arith::MinNumFOp>([](auto) { return Opcode::MINNUMF; })
      .Case<math::ExpOp>([](auto) { return Opcode::EXP; })
      .Case<math::Exp2Op>([](auto) { return Opcode::EXP2; })
      .Case<math::LogOp>([](auto) { return Opcode::LOG; })
      .Case<math::TanhOp>([](auto) { return Opcode::TANH; })
      .Case<math::ErfOp>([](auto) { return Opcode::ERF; })
      .Case<math::SqrtOp>([](auto) { return Opcode::SQRT; })
      .Case<math::RsqrtOp>([](auto) { return Opcode::RSQRT; })
      .Case<math::FmaOp>([](auto) { return Opcode::FMA; })
      .Case<arith::CmpFOp>([](auto) { return Opcode::CMPF; })
      .Case<arith::SelectOp>([](auto) { return Opcode::SELECT; })
      .Case<math::PowFOp>([](auto) { return Opcode::POWF; })
      .Case<math::Log1pOp>([](auto) { return Opcode::LOG1P; })
      .Case<math::ExpM1Op>([](auto) { return Opcode::EXPM1; })
      .Default([](Operation *) { return std::nullopt; });
}

void fail(std::string *why, Operation **where, Operation *op,
          const Twine &text) {
  if (why)
    *why = text.str();
  if (where)
    *where = op;
}

/// The f32 bits of a constant of one of the program's types (a float
/// attribute of bf16, f16 or f32, exact in f32; an i1 as 0 or 1).
int32_t constantBits(arith::ConstantOp c) {
  float value = 0.0f;
  if (auto f = dyn_cast<FloatAttr>(c.getValue())) {
    bool lost = false;
    APFloat v = f.getValue();
    v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    value = v.convertToFloat();
  } else if (auto i = dyn_cast<IntegerAttr>(c.getValue())) {
    value = i.getValue().isZero() ? 0.0f : 1.0f;
  }
  int32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

} // namespace

int64_t mlir::te::getProducerMaxInputs() {
  return TE_RT_ABI_PRODUCER_MAX_INPUTS;
}
int64_t mlir::te::getProducerMaxInstructions() {
  return TE_RT_ABI_PRODUCER_MAX_INSTRS;
}

int32_t mlir::te::getProducerTypeCode(Type type) {
  if (type.isF32())
    return TE_RT_F32;
  if (type.isF16())
    return TE_RT_F16;
  if (type.isBF16())
    return TE_RT_BF16;
  if (type.isInteger(1))
    return TE_RT_U8;
  return -1;
}

FailureOr<SmallVector<ProducerInstruction>>
mlir::te::encodeProducerProgram(Block &body, std::string *why,
                                Operation **where) {
  if (where)
    *where = nullptr;
  Operation *terminator =
      body.mightHaveTerminator() ? body.getTerminator() : nullptr;
  if (!terminator || terminator->getNumOperands() != 1) {
    fail(why, where, terminator, "the body does not end in one value");
    return failure();
  }
  llvm::DenseMap<Value, int32_t> number;
  for (BlockArgument arg : body.getArguments()) {
    if (getProducerTypeCode(arg.getType()) < 0) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "an input of type " << arg.getType()
         << " (the program reads bf16, f16, f32 and i1)";
      fail(why, where, nullptr, text);
      return failure();
    }
    number[arg] = static_cast<int32_t>(arg.getArgNumber());
  }
  if (static_cast<int64_t>(body.getNumArguments()) > getProducerMaxInputs()) {
    fail(why, where, nullptr,
         "more than " + Twine(getProducerMaxInputs()) + " inputs (" +
             Twine(body.getNumArguments()) + ")");
    return failure();
  }
  SmallVector<ProducerInstruction> code;
  auto next = [&] {
    return static_cast<int32_t>(body.getNumArguments() + code.size());
  };
  for (Operation &op : body.without_terminator()) {
    if (op.use_empty())
      continue;
    std::optional<Opcode> opcode = opcodeOf(&op);
    if (!opcode) {
      fail(why, where, &op,
           "an unsupported op '" + op.getName().getStringRef() + "'");
      return failure();
    }
    if (op.getNumResults() != 1 || op.getNumRegions() != 0) {
      fail(why, where, &op,
           "'" + op.getName().getStringRef() + "' is not one scalar value");
      return failure();
    }
    Type resultType = op.getResult(0).getType();
    int32_t type = getProducerTypeCode(resultType);
    if (type < 0) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "'" << op.getName() << "' of type " << resultType
         << " (the program computes bf16, f16, f32 and i1)";
      fail(why, where, &op, text);
      return failure();
    }
    if (auto fm = dyn_cast<arith::ArithFastMathInterface>(&op))
      if (fm.getFastMathFlagsAttr() &&
          fm.getFastMathFlagsAttr().getValue() != arith::FastMathFlags::none) {
        fail(why, where, &op,
             "'" + op.getName().getStringRef() +
                 "' with fastmath flags (the program rounds every op)");
        return failure();
      }
    if (auto trunc = dyn_cast<arith::TruncFOp>(&op))
      if (trunc.getRoundingmodeAttr() &&
          *trunc.getRoundingmode() != arith::RoundingMode::to_nearest_even) {
        fail(why, where, &op,
             "'arith.truncf' with a rounding mode other than to_nearest_even");
        return failure();
      }
    ProducerInstruction in{static_cast<int32_t>(*opcode), type, 0, 0, 0};
    if (auto c = dyn_cast<arith::ConstantOp>(&op)) {
      in.a = constantBits(c);
    } else {
      if (static_cast<int>(op.getNumOperands()) != arityOf(*opcode)) {
        fail(why, where, &op,
             "'" + op.getName().getStringRef() + "' with " +
                 Twine(op.getNumOperands()) + " operands");
        return failure();
      }
      int32_t *slots[] = {&in.a, &in.b, &in.c};
      for (auto [i, operand] : llvm::enumerate(op.getOperands())) {
        auto it = number.find(operand);
        if (it == number.end()) {
          fail(why, where, &op,
               "'" + op.getName().getStringRef() +
                   "' reads a value defined outside the body");
          return failure();
        }
        *slots[i] = it->second;
      }
      if (auto cmp = dyn_cast<arith::CmpFOp>(&op))
        in.c = static_cast<int32_t>(cmp.getPredicate());
    }
    number[op.getResult(0)] = next();
    code.push_back(in);
  }
  Value value = terminator->getOperand(0);
  auto it = number.find(value);
  if (it == number.end()) {
    fail(why, where, terminator, "the value is defined outside the body");
    return failure();
  }
  int32_t type = getProducerTypeCode(value.getType());
  if (type < 0 || value.getType().isInteger(1)) {
    fail(why, where, terminator, "the value is not bf16, f16 or f32");
    return failure();
  }
  if (code.empty() || it->second != next() - 1)
    code.push_back(
        {static_cast<int32_t>(Opcode::CAST), type, it->second, 0, 0});
  if (static_cast<int64_t>(code.size()) > getProducerMaxInstructions()) {
    fail(why, where, nullptr,
         "more than " + Twine(getProducerMaxInstructions()) +
             " instructions (" + Twine(code.size()) + ")");
    return failure();
  }
  return code;
}

FailureOr<ProducerInputLayout>
mlir::te::getProducerInputLayout(AffineMap map, ArrayRef<int64_t> loopShape,
                                 ArrayRef<int64_t> inputShape,
                                 std::string *why) {
  auto no = [&](const Twine &text) -> FailureOr<ProducerInputLayout> {
    if (why)
      *why = text.str();
    return failure();
  };
  int64_t numLoops = static_cast<int64_t>(loopShape.size());
  if (numLoops == 0 || map.getNumDims() != numLoops ||
      map.getNumSymbols() != 0 || map.getNumResults() != inputShape.size())
    return no("its indexing map does not index it by the loops");
  int64_t colLoop = numLoops - 1;
  auto unit = [](int64_t size) { return size == 1; };
  ProducerInputLayout layout;
  // The input dimension of each loop, -1 where the loop is absent.
  SmallVector<int64_t> dimOf(numLoops, -1);
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
      if (c.getValue() != 0 || !unit(inputShape[i]))
        return no("it is indexed by the constant " + Twine(c.getValue()) +
                  " in a dimension of size other than 1");
      continue;
    }
    auto d = dyn_cast<AffineDimExpr>(expr);
    if (!d)
      return no("it is indexed by an expression of the loops");
    int64_t loop = d.getPosition();
    if (dimOf[loop] >= 0)
      return no("it reads loop d" + Twine(loop) + " twice");
    dimOf[loop] = static_cast<int64_t>(i);
  }
  layout.colDim = dimOf[colLoop];
  // The row loops that are not of size 1: all absent, or all present in
  // order at consecutive dimensions (size-1 dimensions between).
  SmallVector<int64_t> rowLoops;
  for (int64_t l = 0; l < colLoop; ++l)
    if (!unit(loopShape[l]))
      rowLoops.push_back(l);
  int64_t present =
      llvm::count_if(rowLoops, [&](int64_t l) { return dimOf[l] >= 0; });
  if (present == 0)
    return layout;
  if (present != static_cast<int64_t>(rowLoops.size())) {
    int64_t absent =
        *llvm::find_if(rowLoops, [&](int64_t l) { return dimOf[l] < 0; });
    int64_t there =
        *llvm::find_if(rowLoops, [&](int64_t l) { return dimOf[l] >= 0; });
    return no("it is broadcast along row loop d" + Twine(absent) +
              " but not along d" + Twine(there) +
              " (the rows do not collapse into one stride)");
  }
  for (size_t k = 0; k + 1 < rowLoops.size(); ++k) {
    int64_t from = dimOf[rowLoops[k]], to = dimOf[rowLoops[k + 1]];
    if (to < from)
      return no("it reads the row loops d" + Twine(rowLoops[k]) + " and d" +
                Twine(rowLoops[k + 1]) + " transposed");
    for (int64_t j = from + 1; j < to; ++j)
      if (!unit(inputShape[j]))
        return no("dimension " + Twine(j) +
                  " lies between its row dimensions (the rows do not "
                  "collapse into one stride)");
  }
  layout.rowDim = dimOf[rowLoops.back()];
  return layout;
}
