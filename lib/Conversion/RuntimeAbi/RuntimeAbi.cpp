//===- RuntimeAbi.cpp - Calls of libte_rt's entry points from IR ----------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "te/Conversion/RuntimeAbi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/Support/ErrorHandling.h"

#include <vector>

using namespace mlir;

namespace {

// The table's type vocabulary, suffixed (`void` is a keyword).
enum class AbiType { void_, ptr_, i64_, i32_, f32_ };

struct EntryPoint {
  const char *name;
  AbiType result;
  std::vector<AbiType> params;
};

#define TE_RT_ABI_ARG(type, name) AbiType::type##_,
#define TE_RT_ABI_FUNCTION(ret, name, ...)                                     \
  {#name, AbiType::ret##_, {__VA_ARGS__}},
const EntryPoint kEntryPoints[] = {
#include "te_rt_abi.def"
};
#undef TE_RT_ABI_ARG

const EntryPoint &lookup(StringRef name) {
  for (const EntryPoint &e : kEntryPoints)
    if (name == e.name)
      return e;
  llvm_unreachable("entry point missing from te_rt_abi.def");
}

Type toMlir(MLIRContext *ctx, AbiType t) {
  switch (t) {
  case AbiType::ptr_:
    return LLVM::LLVMPointerType::get(ctx);
  case AbiType::i64_:
    return IntegerType::get(ctx, 64);
  case AbiType::i32_:
    return IntegerType::get(ctx, 32);
  case AbiType::f32_:
    return Float32Type::get(ctx);
  case AbiType::void_:
    break;
  }
  return {};
}

} // namespace

func::FuncOp mlir::te::declareRuntimeEntryPoint(ModuleOp module,
                                                StringRef name) {
  OpBuilder b(module.getContext());
  return declareRuntimeEntryPoint(b, module, name);
}

func::FuncOp mlir::te::declareRuntimeEntryPoint(OpBuilder &b, ModuleOp module,
                                                StringRef name) {
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  MLIRContext *ctx = module.getContext();
  const EntryPoint &e = lookup(name);
  SmallVector<Type> params;
  for (AbiType t : e.params)
    params.push_back(toMlir(ctx, t));
  SmallVector<Type> results;
  if (e.result != AbiType::void_)
    results.push_back(toMlir(ctx, e.result));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto f = func::FuncOp::create(b, module.getLoc(), name,
                                FunctionType::get(ctx, params, results));
  f.setPrivate();
  return f;
}

LLVM::LLVMFuncOp mlir::te::declareRuntimeEntryPointLLVM(OpBuilder &b,
                                                        ModuleOp module,
                                                        StringRef name) {
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return f;
  if (module.lookupSymbol(name))
    return {};
  MLIRContext *ctx = module.getContext();
  const EntryPoint &e = lookup(name);
  SmallVector<Type> params;
  for (AbiType t : e.params)
    params.push_back(toMlir(ctx, t));
  Type result = e.result == AbiType::void_ ? LLVM::LLVMVoidType::get(ctx)
                                           : toMlir(ctx, e.result);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name,
                                  LLVM::LLVMFunctionType::get(result, params));
}

int64_t mlir::te::runtimeElementBytes(MemRefType type) {
  Type e = type.getElementType();
  if (e.isIndex() || !e.isIntOrFloat())
    return 8;
  return (e.getIntOrFloatBitWidth() + 7) / 8;
}

Value mlir::te::runtimeElementPointer(OpBuilder &b, Location loc, Value memref,
                                      ValueRange indices) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()),
      runtimeElementAddress(b, loc, memref, indices));
}

Value mlir::te::runtimeElementAddress(OpBuilder &b, Location loc, Value memref,
                                      ValueRange indices) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t bytes = runtimeElementBytes(type);
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value linear = meta.getOffset();
  for (auto [i, stride] : llvm::zip(indices, meta.getStrides()))
    linear = arith::AddIOp::create(b, loc, linear,
                                   arith::MulIOp::create(b, loc, i, stride));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value addr = arith::AddIOp::create(
      b, loc, base,
      arith::MulIOp::create(b, loc, linear,
                            arith::ConstantIndexOp::create(b, loc, bytes)));
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), addr);
}
