//===- TETypes.h - te dialect types ------------------------------*- C++
//-*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_TETYPES_H
#define TE_DIALECT_TE_IR_TETYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"
#include "te/Dialect/TE/IR/TEAttrs.h"

#define GET_TYPEDEF_CLASSES
#include "te/Dialect/TE/IR/TETypes.h.inc"

#endif // TE_DIALECT_TE_IR_TETYPES_H
