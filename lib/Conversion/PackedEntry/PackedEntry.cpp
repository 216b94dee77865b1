//===- PackedEntry.cpp - The packed entry wrapper of a lowered module -----===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "te/Conversion/PackedEntry.h"

#include "te/Conversion/Passes.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/IR/TETypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::te {
#define GEN_PASS_DEF_TEPACKEDENTRY
#include "te/Conversion/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

/// What compiled code calls instead of malloc (te_call.h).
constexpr const char *kCheckedMallocName = "te_run_checked_malloc";

/// One parameter or result in the harness's terms.
struct HarnessType {
  std::string elementType;
  SmallVector<int64_t> shape; // -1: dynamic
  bool scalar = false;
  std::string str() const {
    if (scalar)
      return elementType;
    std::string s = elementType + "[";
    for (size_t i = 0; i < shape.size(); ++i)
      s += (i ? "," : "") +
           (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
    return s + "]";
  }
};

/// The element types te_call.h knows.
bool known(StringRef name) {
  return llvm::is_contained(
      ArrayRef<StringRef>{"f32", "f64", "f16", "bf16", "f8E4M3FN", "f8E5M2",
                          "f8E8M0FNU", "i1", "i8", "i16", "i32", "i64"},
      name);
}

/// What the C interface of a signature looks like: whether each argument is
/// a tensor (a pointer to its descriptor), and whether the results come back
/// through a struct pointer (a memref result or several results) or as the
/// returned value (a single scalar). False if the text is not a signature.
struct CInterfaceShape {
  SmallVector<bool> argIsTensor;
  bool resultsByPointer = false;
  bool returnsValue = false;
  size_t slots() const {
    return (resultsByPointer ? 1 : 0) + argIsTensor.size() +
           (returnsValue ? 1 : 0);
  }
};

bool shapeOf(StringRef signature, CInterfaceShape &out) {
  auto [args, results] = signature.split("->");
  if (args.size() == signature.size())
    return false;
  // The top-level items of a list and whether each is a tensor.
  auto items = [](StringRef list, SmallVectorImpl<bool> &isTensor) {
    list = list.trim();
    if (list.empty())
      return;
    int depth = 0;
    bool tensor = false;
    for (char c : list) {
      if (c == '[') {
        ++depth;
        tensor = true;
      } else if (c == ']') {
        --depth;
      } else if (c == ',' && depth == 0) {
        isTensor.push_back(tensor);
        tensor = false;
      }
    }
    isTensor.push_back(tensor);
  };
  SmallVector<bool> resultIsTensor;
  items(args, out.argIsTensor);
  items(results, resultIsTensor);
  out.returnsValue = resultIsTensor.size() == 1 && !resultIsTensor[0];
  out.resultsByPointer = !resultIsTensor.empty() && !out.returnsValue;
  return true;
}

/// The harness type of an argument/result type, or an error. `index` is
/// i64: the LLVM lowering's index width.
bool toHarnessType(Type type, HarnessType &out, std::string &error) {
  unsigned intBits =
      type.isSignlessInteger() ? type.getIntOrFloatBitWidth() : 0;
  if (type.isF32() || type.isF64() || type.isIndex() || intBits == 1 ||
      intBits == 8 || intBits == 16 || intBits == 32 || intBits == 64) {
    out.scalar = true;
    out.shape.clear();
    out.elementType = type.isF32()   ? "f32"
                      : type.isF64() ? "f64"
                      : type.isIndex()
                          ? "i64"
                          : "i" + std::to_string(type.getIntOrFloatBitWidth());
    return true;
  }
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank() ||
      !isa<RankedTensorType, MemRefType>(type)) {
    llvm::raw_string_ostream os(error);
    os << "the harness supports ranked tensor and memref arguments and "
          "results, got "
       << type;
    return false;
  }
  std::string name;
  llvm::raw_string_ostream ns(name);
  Type e = shaped.getElementType();
  if (e.isInteger(1))
    name = "i1";
  else if (e.isInteger(8))
    name = "i8";
  else if (e.isInteger(16))
    name = "i16";
  else if (e.isInteger(32))
    name = "i32";
  else if (e.isInteger(64) || e.isIndex())
    name = "i64";
  else
    ns << e;
  out.elementType = name;
  out.shape.clear();
  for (int64_t d : shaped.getShape())
    out.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  if (!known(name)) {
    error = "unsupported element type " + name;
    return false;
  }
  return true;
}

/// The harness types of an entry's argument or result: a `!te.qtensor` is
/// its buffers on the layout target (te-expand-qtensors' expansion, in TE's
/// flatten order: data, scale_inv, then the columnwise copy's), or in the
/// high-precision twin (`reference`) its nominal tensor; anything else one
/// type. A qtensor argument must be static: its buffers' `?` dimensions
/// are not the logical one, which the harness's one size per `?` would
/// assume.
bool toHarnessTypes(Type type, Target layoutTarget, bool reference,
                    bool argument, SmallVectorImpl<HarnessType> &out,
                    std::string &error) {
  auto q = dyn_cast<QTensorType>(type);
  if (q && reference)
    return toHarnessTypes(q.getNominalTensorType(), layoutTarget, reference,
                          argument, out, error);
  if (!q) {
    HarnessType ht;
    if (!toHarnessType(type, ht, error))
      return false;
    out.push_back(ht);
    return true;
  }
  llvm::raw_string_ostream os(error);
  if (argument && !q.hasStaticShape()) {
    os << "a quantized argument of dynamic shape (" << type
       << ") is not supported: its buffers' sizes are not the `?` of its "
          "logical shape; give it a static shape";
    return false;
  }
  SmallVector<RankedTensorType> buffers = q.getBufferTypes(layoutTarget);
  if (buffers.empty()) {
    os << "no buffer layout for " << type;
    return false;
  }
  for (RankedTensorType buffer : buffers) {
    HarnessType ht;
    if (!toHarnessType(buffer, ht, error))
      return false;
    out.push_back(ht);
  }
  return true;
}

} // namespace

LogicalResult mlir::te::getEntrySignature(func::FuncOp function,
                                          StringRef target, bool reference,
                                          std::string &signature,
                                          std::string &error) {
  // Quantized tensors are laid out for the module's target (te-set-target:
  // sm_100's layouts on sm_100, sm_90's otherwise, the cpu backend's too).
  Target layoutTarget = target == "sm_100" ? Target::SM100 : Target::SM90;
  SmallVector<HarnessType> args, results;
  for (Type t : function.getArgumentTypes())
    if (!toHarnessTypes(t, layoutTarget, reference, /*argument=*/true, args,
                        error))
      return failure();
  for (Type t : function.getResultTypes())
    if (!toHarnessTypes(t, layoutTarget, reference, /*argument=*/false, results,
                        error))
      return failure();
  signature.clear();
  for (size_t i = 0; i < args.size(); ++i)
    signature += (i ? ", " : "") + args[i].str();
  signature += " -> ";
  for (size_t i = 0; i < results.size(); ++i)
    signature += (i ? ", " : "") + results[i].str();
  return success();
}

LogicalResult mlir::te::addPackedEntry(ModuleOp module, StringRef entry,
                                       StringRef signature, StringRef target,
                                       bool checkedMalloc, std::string &error) {
  CInterfaceShape expected;
  if (!shapeOf(signature, expected)) {
    error = ("malformed signature '" + signature + "'").str();
    return failure();
  }
  auto ciface =
      module.lookupSymbol<LLVM::LLVMFuncOp>(("_mlir_ciface_" + entry).str());
  if (!ciface) {
    error = ("the lowered module has no _mlir_ciface_" + entry + " (was @" +
             entry + " given llvm.emit_c_interface?)")
                .str();
    return failure();
  }
  LLVM::LLVMFunctionType cifaceType = ciface.getFunctionType();
  bool returnsValue = !isa<LLVM::LLVMVoidType>(cifaceType.getReturnType());
  size_t slots = cifaceType.getNumParams() + (returnsValue ? 1 : 0);
  // The slot count, how results come back, and which parameters are
  // descriptor pointers must all be the signature's.
  bool matches =
      slots == expected.slots() && returnsValue == expected.returnsValue;
  for (auto [i, isTensor] : llvm::enumerate(expected.argIsTensor)) {
    if (!matches)
      break;
    unsigned param = i + (expected.resultsByPointer ? 1 : 0);
    matches =
        isa<LLVM::LLVMPointerType>(cifaceType.getParamType(param)) == isTensor;
  }
  if (!matches) {
    llvm::raw_string_ostream os(error);
    os << "the C interface of @" << entry << " (" << cifaceType
       << ") does not match its signature " << signature;
    return failure();
  }
  MLIRContext *context = module.getContext();
  // The entry itself is reached through the wrappers only: internal, so that
  // an entry named like a C function (`main`) does not clash with the
  // driver's when the object is linked (AOT).
  // So does another function of the module called `main` (its C interface
  // `_mlir_ciface_main`, if any, keeps its name).
  for (StringRef name : {StringRef(entry), StringRef("main")})
    if (auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      if (!function.isExternal())
        function.setLinkageAttr(
            LLVM::LinkageAttr::get(context, LLVM::Linkage::Internal));
  // The program's heap allocations go through te_run_checked_malloc, which
  // reports an allocation that fails instead of returning NULL for the
  // program to write through.
  if (auto malloc = module.lookupSymbol<LLVM::LLVMFuncOp>("malloc"))
    if (checkedMalloc && malloc.isExternal() &&
        !module.lookupSymbol(kCheckedMallocName)) {
      auto name = StringAttr::get(context, kCheckedMallocName);
      if (failed(SymbolTable::replaceAllSymbolUses(malloc, name, module))) {
        error = "cannot redirect the lowered module's malloc";
        return failure();
      }
      malloc.setSymName(kCheckedMallocName);
    }
  Location loc = ciface.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto packed = LLVM::LLVMFuncOp::create(
      builder, loc, ("_te_packed_" + entry).str(),
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), {ptrType}));
  Block *body = packed.addEntryBlock(builder);
  builder.setInsertionPointToStart(body);
  Value args = body->getArgument(0);
  auto slot = [&](unsigned i) -> Value {
    Value address =
        LLVM::GEPOp::create(builder, loc, ptrType, ptrType, args,
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    return LLVM::LoadOp::create(builder, loc, ptrType, address);
  };
  SmallVector<Value> operands;
  for (auto [i, type] : llvm::enumerate(cifaceType.getParams()))
    operands.push_back(LLVM::LoadOp::create(builder, loc, type, slot(i)));
  auto call = LLVM::CallOp::create(builder, loc, ciface, operands);
  if (returnsValue)
    LLVM::StoreOp::create(builder, loc, call.getResult(),
                          slot(cifaceType.getNumParams()));
  LLVM::ReturnOp::create(builder, loc, ValueRange());
  // The signature the wrapper was made for, for the AOT driver to check a
  // signature file against (a wrong one would pass buffers of other sizes).
  builder.setInsertionPointToEnd(module.getBody());
  auto addString = [&](StringRef name, StringRef value) {
    std::string text = value.str();
    text.push_back('\0');
    LLVM::GlobalOp::create(
        builder, loc,
        LLVM::LLVMArrayType::get(IntegerType::get(context, 8), text.size()),
        /*isConstant=*/true, LLVM::Linkage::External, name,
        builder.getStringAttr(text));
  };
  addString(("_te_signature_" + entry).str(), signature);
  // The target the module was compiled for, for te.load and the AOT driver
  // (device memory for a GPU target).
  if (!target.empty())
    addString(("_te_target_" + entry).str(), target);
  if (module->hasAttr("te.shape_checks")) {
    Type i8 = IntegerType::get(context, 8);
    LLVM::GlobalOp::create(
        builder, loc, i8, /*isConstant=*/true, LLVM::Linkage::External,
        ("_te_shape_checks_" + entry).str(), builder.getIntegerAttr(i8, 1));
  }
  return success();
}

namespace {

struct TEPackedEntryPass
    : public mlir::te::impl::TEPackedEntryBase<TEPackedEntryPass> {
  using Base::Base;
  void runOnOperation() override {
    std::string error;
    if (signature.empty()) {
      getOperation().emitError("te-packed-entry: give the entry's signature "
                               "(signature=\"f32[4] -> f32[4]\")");
      return signalPassFailure();
    }
    if (failed(addPackedEntry(getOperation(), entry, signature, target,
                              checkedMalloc, error))) {
      getOperation().emitError("te-packed-entry: ") << error;
      signalPassFailure();
    }
  }
};

} // namespace
