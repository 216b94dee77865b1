//===- ProducerProgram.h - te.quantize_produced_buffers' program -*- C++
//-*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The body of te.quantize_produced_buffers is the runtime's producer program
// (runtime/include/te_rt_abi.def, TE_RT_ABI_PRODUCER_OP and the `producer`
// descriptor): one instruction {opcode, type, a, b, c} per operation,
// values numbered inputs first. This is the one encoder of that program:
// the verifier accepts exactly the bodies it encodes, te-fuse-quantize asks
// it whether (and why not) a linalg.generic's body can be fused, and
// convert-te-to-runtime emits its words. The opcodes come from the ABI
// table itself, so the dialect and the runtime cannot disagree on them.
//
// How an input is read is part of the same contract: at element (r, c) of
// the flattened rows x cols value, input i is read at
// r * row_stride_i + c * col_stride_i (elements, row-major input).
// getProducerInputLayout says whether an indexing map allows that and which
// input dimensions give the two strides.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_PRODUCERPROGRAM_H
#define TE_DIALECT_TE_IR_PRODUCERPROGRAM_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Block.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace mlir::te {

/// One instruction of a producer program: five i32 words.
struct ProducerInstruction {
  int32_t opcode, type, a, b, c;
};

/// The most inputs and instructions of a program (te_rt_abi.def).
int64_t getProducerMaxInputs();
int64_t getProducerMaxInstructions();

/// te_rt_dtype of a value of the program (f32, f16, bf16; i1 as U8), or -1.
int32_t getProducerTypeCode(Type type);

/// The program of `body`, whose arguments are the inputs and whose
/// terminator's only operand is the value: one instruction per operation
/// (operations without uses left out), and a CAST of the value to its own
/// type at the end where the value is not the last instruction's (an input,
/// an earlier result). On failure `*why` says what cannot be encoded ("an
/// unsupported op 'math.sin'", "more than 64 instructions", ...) and
/// `*where` is that op (or null).
FailureOr<SmallVector<ProducerInstruction>>
encodeProducerProgram(Block &body, std::string *why = nullptr,
                      Operation **where = nullptr);

/// Which dimensions of an input give its row and column strides: -1 for a
/// stride of 0 (the input is broadcast along the rows / columns).
struct ProducerInputLayout {
  int64_t rowDim = -1;
  int64_t colDim = -1;
};

/// How an input of shape `inputShape` indexed by `map` (whose dimensions are
/// the loops of the logical shape `loopShape`, the last one the columns)
/// reads the flattened value: the row loops of a size other than 1 (a
/// dynamic size counts as such) all absent, or all present in order at
/// consecutive input dimensions (size-1 dimensions between them allowed);
/// the column loop at most once; every other result the constant 0 on a
/// dimension of static size 1. On failure `*why` says why not ("loop d0
/// (rows) is broadcast but d1 is not", ...).
FailureOr<ProducerInputLayout>
getProducerInputLayout(AffineMap map, ArrayRef<int64_t> loopShape,
                       ArrayRef<int64_t> inputShape,
                       std::string *why = nullptr);

} // namespace mlir::te

#endif // TE_DIALECT_TE_IR_PRODUCERPROGRAM_H
