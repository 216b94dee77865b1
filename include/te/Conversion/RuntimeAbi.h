//===- RuntimeAbi.h - Calls of libte_rt's entry points from IR --*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// What convert-te-to-runtime and te-linalg-to-gpu both need to call the
// runtime's entry points (runtime/include/te_rt_abi.def): the declaration
// of an entry point as the table states it, and the address of a memref's
// element as the `ptr` the table's functions take.
//
//===----------------------------------------------------------------------===//

#ifndef TE_CONVERSION_RUNTIMEABI_H
#define TE_CONVERSION_RUNTIMEABI_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::te {

/// The private declaration of entry point `name` of te_rt_abi.def in
/// `module`, created on first use (`ptr` is `!llvm.ptr`, `i64`/`i32`/`f32`
/// the builtin types). `name` must be in the table.
func::FuncOp declareRuntimeEntryPoint(ModuleOp module, StringRef name);
/// The same, created through `b` (a pattern's rewriter); `b`'s insertion
/// point is kept.
func::FuncOp declareRuntimeEntryPoint(OpBuilder &b, ModuleOp module,
                                      StringRef name);

/// The `llvm.func` declaration of entry point `name`, for calls made as
/// `llvm.call`: the entry points that return a value (te_rt_mlir_alloc).
/// upstream's func-to-llvm replaces the results of every `func.call` it
/// converts with a use filter that asks the block's op order, which its own
/// insertions keep invalidating: quadratic in a function of thousands of
/// allocations. An `llvm.call` is not converted. Fails (null) where the
/// module declares `name` as a `func.func`.
LLVM::LLVMFuncOp declareRuntimeEntryPointLLVM(OpBuilder &b, ModuleOp module,
                                              StringRef name);

/// The address of element `indices` of `memref` (its offset and strides
/// applied; no indices: the first element) as an `!llvm.ptr`.
Value runtimeElementPointer(OpBuilder &b, Location loc, Value memref,
                            ValueRange indices = {});
/// The same address as an i64 (a word of a descriptor).
Value runtimeElementAddress(OpBuilder &b, Location loc, Value memref,
                            ValueRange indices = {});

/// Bytes of one element of `type` in memory (index: 64 bits; i1: a byte).
int64_t runtimeElementBytes(MemRefType type);

} // namespace mlir::te

#endif // TE_CONVERSION_RUNTIMEABI_H
