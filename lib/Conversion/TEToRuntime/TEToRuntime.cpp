//===- TEToRuntime.cpp - Buffer-level te ops to libte_rt calls --*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// convert-te-to-runtime: every buffer-level te op (the BufferLevelOp trait)
// on memrefs becomes a call of its entry point of runtime/include/
// te_rt_abi.def (the process group of an amax reduction is passed by name,
// a constant string). The declarations and the descriptors' layouts
// (te_rt_abi.h) are generated from that table; nothing here re-types it.
//
// A quantize, dequantize or GEMM call takes one descriptor: an array of i64
// words, its fields at the indices te_rt_abi::quantize / dequantize / gemm
// give (the runtime decodes it through the same header). It is an LLVM
// array value built in place: the words known when compiling (magic,
// target, enums, the quantizers' fields, static sizes; 0 for null) are one
// `llvm.mlir.constant` per function and value, each run-time word (an
// address, a dynamic size, a seed) is an `llvm.insertvalue`, and the result
// is stored to a stack slot of the function. Plain LLVM ops on the host,
// the same on CPU and GPU targets: no memref descriptor for the slot (a
// memref.alloca + memref.store per word would be three ops a word after
// the memref lowering), and per call only the run-time words cost an op.
//
// Two dialect conversions (applyPartialConversion), each fed by an analysis
// of the whole module made before it rewrites anything:
//
//  1. The te ops. One OpConversionPattern per buffer-level op, under a
//     TypeConverter that maps a memref the runtime takes as one pointer
//     (identity layout; on device memory also row-major contiguous at an
//     offset) to its address, an i64: a descriptor's word as it is, a `ptr`
//     operand of the table through `llvm.inttoptr`. Types change here: a
//     memref.alloc that only the runtime sees (isRuntimeOnlyBuffer: a static
//     shape, every use an operand of such a call or its dealloc) is replaced
//     by the address of a plain pointer (aligned_alloc, or te_rt_mlir_alloc
//     on device memory) and its deallocs by free, so that no memref
//     descriptor is built for it; a te pattern receives that address, or the
//     one the type converter materializes once per memref, after its
//     definition. A memref of another layout keeps its
//     type and is copied to a contiguous buffer around the call. The
//     ConversionTarget makes every buffer-level op illegal: one that no
//     pattern lowers (still on tensors, a dtype the runtime has no code for)
//     fails the pass with an error naming it.
//  2. The host's accesses of memrefs, one op at a time (OpRewritePatterns:
//     memrefs stay memrefs). On host memory a memref.copy that the memref
//     lowering would not make one memcpy becomes linalg.copy. On device
//     memory (GPU targets) the HostMemoryPlan analysis decides which small
//     buffers stay on the host stack and which private functions touch only
//     those, and refuses the host ops that would touch device memory; the
//     patterns then send every other host load, store and copy, and every
//     read of a program constant, through the runtime, and the
//     ConversionTarget makes any access left illegal.
//
// Dialect conversion rather than the greedy driver: each op is rewritten
// once (there is no fixed point to reach), the type converter carries the
// pointer of an allocation to its uses, and the target makes an op left
// unlowered an error instead of IR that fails later. Each conversion is
// given only the ops its target makes illegal (convert()), so that the
// driver does not visit the rest of a large module.
//
// What it emits is meant to stay small (docs/performance.md "Compile time"):
// constants, descriptors' constant words and slots, and globals' addresses
// are created once per function at its entry, each memref's pointer (and
// address) once after its definition.
//
//===----------------------------------------------------------------------===//

#include "te/Conversion/Passes.h"

#include "te/Conversion/DeviceMemory.h"
#include "te/Conversion/RuntimeAbi.h"
#include "te/Dialect/TE/IR/BufferExtents.h"
#include "te/Dialect/TE/IR/ProducerProgram.h"
#include "te/Dialect/TE/IR/TEAttrs.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Transforms/DialectConversion.h"

// The descriptors' word indices (te_rt_abi::gemm::a_rows, ...) and the
// table's constants (TE_RT_ABI_MAX_BUFFERS, TE_RT_ABI_QUANTIZER_MAGIC).
#include "te_rt_abi.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "convert-te-to-runtime"

namespace mlir::te {
#define GEN_PASS_DEF_CONVERTTETORUNTIME
#include "te/Conversion/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;
using namespace mlir::te;

namespace {

//===----------------------------------------------------------------------===//
// The ABI table
//===----------------------------------------------------------------------===//

constexpr int kMaxBuffers = TE_RT_ABI_MAX_BUFFERS;

/// The words of a quantizer: the fields of the table, in its order.
SmallVector<int64_t>
encodeQuantizerFields(const ::te::format::QuantizerConfig &c) {
  SmallVector<int64_t> out;
#define TE_RT_ABI_QUANTIZER_FIELD(cField, configField)                         \
  out.push_back(te_rt_abi::toWord(c.configField));
#include "te_rt_abi.def"
  assert(out.size() == static_cast<size_t>(te_rt_abi::kQuantizerWords));
  return out;
}

//===----------------------------------------------------------------------===//
// Addresses and the type converter
//===----------------------------------------------------------------------===//

/// The aligned pointer of an identity-layout memref as an i64 address.
Value alignedAddress(OpBuilder &b, Location loc, Value memref) {
  Value idx = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), idx);
}

/// Whether the runtime takes the elements of a memref of `type` as one
/// pointer: an identity layout; on device memory also row-major contiguous
/// at an offset (a microbatch slice), passed as its address.
bool passedAsPointer(MemRefType type, bool deviceMemory) {
  return type.getLayout().isIdentity() ||
         (deviceMemory && isRowMajorContiguous(type));
}

/// A memref the runtime takes as one pointer is its address, an i64 (its
/// aligned pointer, or its first element's address at an offset): a word of
/// a descriptor as it is, a `ptr` operand through `llvm.inttoptr`. Any
/// other type is itself.
class RuntimeTypeConverter : public TypeConverter {
public:
  RuntimeTypeConverter(MLIRContext *ctx, bool deviceMemory) {
    addConversion([](Type t) { return t; });
    addConversion([ctx, deviceMemory](MemRefType t) -> Type {
      if (passedAsPointer(t, deviceMemory))
        return IntegerType::get(ctx, 64);
      return t;
    });
    addTargetMaterialization([](OpBuilder &b, IntegerType, ValueRange inputs,
                                Location loc) -> Value {
      if (inputs.size() != 1)
        return {};
      auto type = dyn_cast<MemRefType>(inputs[0].getType());
      if (!type)
        return {};
      if (type.getLayout().isIdentity())
        return alignedAddress(b, loc, inputs[0]);
      return runtimeElementAddress(b, loc, inputs[0]);
    });
  }
};

//===----------------------------------------------------------------------===//
// What the patterns share
//===----------------------------------------------------------------------===//

/// The entry block of `op`'s function (null outside one).
Block *entryBlock(Operation *op) {
  auto f = op->getParentOfType<FunctionOpInterface>();
  return f ? &f.getFunctionBody().front() : nullptr;
}

/// What the patterns of one run share: the module's constant globals (one
/// per distinct quantizer and group name), the values made once per function
/// at its entry (integer constants, the null pointer, globals' addresses),
/// and the number of calls of each entry point.
class RuntimeCalls {
public:
  RuntimeCalls(ModuleOp module, bool deviceMemory)
      : module(module), deviceMemory(deviceMemory),
        ptrType(LLVM::LLVMPointerType::get(module.getContext())) {}

  ModuleOp getModule() const { return module; }
  bool onDeviceMemory() const { return deviceMemory; }
  Type getPtrType() const { return ptrType; }

  /// An integer constant of `width` bits at the entry of `at`'s function.
  Value integer(OpBuilder &b, Operation *at, int64_t v, unsigned width) {
    Block *entry = entryBlock(at);
    Value &c = constants[{entry, width, v}];
    if (!c) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(entry);
      c = arith::ConstantIntOp::create(b, at->getLoc(), v, width);
    }
    return c;
  }
  Value i64(OpBuilder &b, Operation *at, int64_t v) {
    return integer(b, at, v, 64);
  }
  Value i32(OpBuilder &b, Operation *at, int64_t v) {
    return integer(b, at, v, 32);
  }

  /// A pointer to the descriptor of `q` (one constant global per
  /// quantizer).
  Value quantizerDescriptor(OpBuilder &b, Operation *at,
                            QuantizerAttrInterface q) {
    memref::GlobalOp &g = quantizers[q];
    if (!g) {
      SmallVector<int64_t> words{TE_RT_ABI_QUANTIZER_MAGIC};
      words.append(encodeQuantizerFields(q.getFormatConfig()));
      g = constantGlobal(b, "__te_quantizer_", quantizers.size() - 1,
                         IntegerType::get(b.getContext(), 64),
                         ArrayRef<int64_t>(words), b.getI64IntegerAttr(8));
    }
    return globalAddress(b, at, g);
  }

  /// A pointer to the constant i32 array `words` in host memory (one
  /// constant global per distinct array: a producer program's code).
  Value int32Array(OpBuilder &b, Operation *at, ArrayRef<int32_t> words) {
    auto i32 = IntegerType::get(b.getContext(), 32);
    auto key = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(words.size())}, i32),
        words);
    memref::GlobalOp &g = int32Arrays[key];
    if (!g)
      g = constantGlobal(b, "__te_producer_", int32Arrays.size() - 1, i32,
                         words, b.getI64IntegerAttr(4));
    return globalAddress(b, at, g);
  }

  /// A pointer to the NUL-terminated `text` (one constant global per
  /// distinct string).
  Value cString(OpBuilder &b, Operation *at, StringRef text) {
    memref::GlobalOp &g = strings[text];
    if (!g) {
      SmallVector<int8_t> bytes(text.begin(), text.end());
      bytes.push_back(0);
      g = constantGlobal(b, "__te_string_", strings.size() - 1,
                         IntegerType::get(b.getContext(), 8),
                         ArrayRef<int8_t>(bytes), IntegerAttr());
    }
    return globalAddress(b, at, g);
  }

  /// The constant array of i64 `words` at the entry of `at`'s function
  /// (one per distinct value).
  Value wordsConstant(OpBuilder &b, Operation *at, ArrayRef<int64_t> words) {
    auto i64 = b.getI64Type();
    auto value = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(words.size())}, i64),
        words);
    Block *entry = entryBlock(at);
    Value &c = wordConstants[{entry, value}];
    if (!c) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(entry);
      c = LLVM::ConstantOp::create(
          b, at->getLoc(), LLVM::LLVMArrayType::get(i64, words.size()), value);
    }
    return c;
  }

  /// The stack slot of `at`'s function for descriptors of `numWords` words
  /// (one per size at the function's entry: every call's descriptor is
  /// consumed before the call returns).
  Value descriptorSlot(OpBuilder &b, Operation *at, int64_t numWords) {
    Block *entry = entryBlock(at);
    Value &slot = slots[{entry, numWords}];
    if (!slot) {
      Value one = i64(b, at, 1);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfterValue(one);
      slot = LLVM::AllocaOp::create(
          b, at->getLoc(), ptrType,
          LLVM::LLVMArrayType::get(b.getI64Type(), numWords), one,
          /*alignment=*/8);
    }
    return slot;
  }

  /// The pointer at `address` (an i64): the pointer it was taken of, or
  /// `llvm.inttoptr` once, after its definition.
  Value pointer(OpBuilder &b, Value address) {
    if (auto taken = address.getDefiningOp<LLVM::PtrToIntOp>())
      return taken.getArg();
    Value &p = pointers[address];
    if (!p) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfterValue(address);
      p = LLVM::IntToPtrOp::create(b, address.getLoc(), ptrType, address);
    }
    return p;
  }

  /// Whether `global` is one of the constant globals made here.
  bool isOwnGlobal(Operation *global) const {
    return ownGlobals.contains(global);
  }

  /// A call of entry point `name` of te_rt_abi.def, counted.
  func::CallOp call(OpBuilder &b, Location loc, StringRef name,
                    ValueRange args) {
    ++callCounts[name];
    return func::CallOp::create(
        b, loc, declareRuntimeEntryPoint(b, module, name), args);
  }
  /// A call of entry point `name` that returns a value, as `llvm.call`
  /// (declareRuntimeEntryPointLLVM says why), counted; a `func.call` where
  /// the module declares `name` as a `func.func`.
  Value callForValue(OpBuilder &b, Location loc, StringRef name,
                     ValueRange args) {
    if (LLVM::LLVMFuncOp f = declareRuntimeEntryPointLLVM(b, module, name)) {
      ++callCounts[name];
      return LLVM::CallOp::create(b, loc, f, args).getResult();
    }
    return call(b, loc, name, args).getResult(0);
  }
  unsigned getCallCount(StringRef name) const {
    return callCounts.lookup(name);
  }

  /// aligned_alloc and free of the C library, for buffers only the runtime
  /// sees on host memory (the declarations the memref lowering would create
  /// and reuses). False where the module declares them otherwise.
  bool declareHostAllocation() {
    OpBuilder b(module.getContext());
    FailureOr<LLVM::LLVMFuncOp> a = LLVM::lookupOrCreateAlignedAllocFn(
        b, module, IntegerType::get(module.getContext(), 64));
    FailureOr<LLVM::LLVMFuncOp> f = LLVM::lookupOrCreateFreeFn(b, module);
    if (failed(a) || failed(f))
      return false;
    alignedAllocFn = *a;
    freeFn = *f;
    return true;
  }
  LLVM::LLVMFuncOp getAlignedAllocFn() const { return alignedAllocFn; }
  LLVM::LLVMFuncOp getFreeFn() const { return freeFn; }

private:
  /// A private constant global `<prefix><index>` holding `values`.
  template <typename T>
  memref::GlobalOp constantGlobal(OpBuilder &b, StringRef prefix, size_t index,
                                  IntegerType elementType, ArrayRef<T> values,
                                  IntegerAttr alignment) {
    auto type =
        MemRefType::get({static_cast<int64_t>(values.size())}, elementType);
    auto tensorType = RankedTensorType::get(type.getShape(), elementType);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto g = memref::GlobalOp::create(
        b, module.getLoc(), (prefix + Twine(index)).str(),
        b.getStringAttr("private"), type,
        DenseElementsAttr::get(tensorType, values),
        /*constant=*/true, alignment);
    ownGlobals.insert(g);
    return g;
  }

  /// The address of global `g`, created once per function at its entry.
  Value globalAddress(OpBuilder &b, Operation *at, memref::GlobalOp g) {
    Block *entry = entryBlock(at);
    Value &p = globalAddresses[{entry, g.getOperation()}];
    if (!p) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(entry);
      Location loc = at->getLoc();
      Value m =
          memref::GetGlobalOp::create(b, loc, g.getType(), g.getSymName());
      p = LLVM::IntToPtrOp::create(b, loc, ptrType, alignedAddress(b, loc, m));
    }
    return p;
  }

  ModuleOp module;
  bool deviceMemory;
  Type ptrType;
  llvm::DenseMap<Attribute, memref::GlobalOp> quantizers;
  llvm::DenseMap<Attribute, memref::GlobalOp> int32Arrays;
  llvm::StringMap<memref::GlobalOp> strings;
  llvm::DenseSet<Operation *> ownGlobals;
  llvm::DenseMap<std::tuple<Block *, unsigned, int64_t>, Value> constants;
  llvm::DenseMap<std::pair<Block *, Operation *>, Value> globalAddresses;
  llvm::DenseMap<std::pair<Block *, Attribute>, Value> wordConstants;
  llvm::DenseMap<std::pair<Block *, int64_t>, Value> slots;
  llvm::DenseMap<Value, Value> pointers;
  llvm::StringMap<unsigned> callCounts;
  LLVM::LLVMFuncOp alignedAllocFn, freeFn;
};

/// A copy of one memref into another: memref.copy on host memory; on
/// device memory a linalg.copy (a kernel, te-linalg-to-gpu) where a layout
/// is strided, else memref.copy (te_rt_mlir_copy, below).
void copyMemRef(OpBuilder &b, Location loc, bool deviceMemory, Value from,
                Value to) {
  if (deviceMemory &&
      (!isRowMajorContiguous(cast<MemRefType>(from.getType())) ||
       !isRowMajorContiguous(cast<MemRefType>(to.getType()))))
    linalg::CopyOp::create(b, loc, from, to);
  else
    memref::CopyOp::create(b, loc, from, to);
}

/// A descriptor of te_rt_abi.def (its words numbered by te_rt_abi::<name>),
/// built for one call: the words known when compiling (the magic, enums,
/// static sizes, quantizers; 0 for a null pointer) form one constant array,
/// made once per function and value; every other word is inserted into it
/// (`llvm.insertvalue`), and the array is stored to the function's slot for
/// descriptors of its size, whose address is the call's operand.
class Descriptor {
public:
  template <typename Words> static Descriptor of() {
    return Descriptor(Words::kWords, Words::kMagic);
  }

  void set(int64_t word, int64_t value) { words[word] = value; }
  /// An i64 (a size, an address) known at run time.
  void set(int64_t word, Value value) { runTime.push_back({word, value}); }
  /// An i64 size, known when compiling or not.
  void set(int64_t word, OpFoldResult size) {
    if (std::optional<int64_t> c = getConstantIntValue(size))
      words[word] = *c;
    else
      set(word, cast<Value>(size));
  }
  /// A value that may be absent (a null pointer, 0).
  void setIfPresent(int64_t word, Value value) {
    if (value)
      set(word, value);
  }
  void setQuantizer(int64_t word, QuantizerAttrInterface q) {
    llvm::copy(encodeQuantizerFields(q.getFormatConfig()),
               words.begin() + word);
  }
  /// A quantized operand's buffers (TE_RT_ABI_MAX_BUFFERS words, the
  /// pattern checked the count).
  void setBuffers(int64_t word, ArrayRef<Value> addresses) {
    for (auto [i, a] : llvm::enumerate(addresses))
      set(word + static_cast<int64_t>(i), a);
  }

  /// The descriptor's address in `at`'s function.
  Value build(RuntimeCalls &rt, OpBuilder &b, Operation *at) const {
    Location loc = at->getLoc();
    Value array = rt.wordsConstant(b, at, words);
    for (auto [word, value] : runTime)
      array = LLVM::InsertValueOp::create(b, loc, array, value, word);
    Value slot = rt.descriptorSlot(b, at, words.size());
    LLVM::StoreOp::create(b, loc, array, slot, /*alignment=*/8);
    return slot;
  }

private:
  Descriptor(int64_t numWords, int64_t magic) : words(numWords, 0) {
    words[0] = magic;
  }

  SmallVector<int64_t> words;
  SmallVector<std::pair<int64_t, Value>> runTime;
};

/// The operands of one runtime call, built before the op `op` it replaces:
/// buffers as pointers (a memref the runtime cannot take as one pointer is
/// copied to a contiguous buffer, and back after the call when the call
/// writes it), shapes flattened to [rows, cols], constants.
class CallOperands {
public:
  CallOperands(RuntimeCalls &rt, OpBuilder &b, Operation *op)
      : rt(rt), b(b), op(op), loc(op->getLoc()) {}

  OpBuilder &builder() { return b; }
  Value i64(int64_t v) { return rt.i64(b, op, v); }
  Value i32(int64_t v) { return rt.i32(b, op, v); }
  Value cString(StringRef text) { return rt.cString(b, op, text); }
  Value int32Array(ArrayRef<int32_t> words) {
    return rt.int32Array(b, op, words);
  }
  Value quantizerDescriptor(QuantizerAttrInterface q) {
    return rt.quantizerDescriptor(b, op, q);
  }
  /// Descriptor `d` as the next operand.
  void append(const Descriptor &d) { args.push_back(d.build(rt, b, op)); }

  /// The address of `memref`'s elements in row-major order; `converted` is
  /// its value in the conversion (the address, or the memref where the
  /// runtime cannot take it as one pointer).
  Value address(Value memref, Value converted, bool read, bool written) {
    if (!isa<MemRefType>(converted.getType()))
      return converted;
    auto type = cast<MemRefType>(converted.getType());
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(memref::DimOp::create(b, loc, converted, i));
    auto contiguous = MemRefType::get(type.getShape(), type.getElementType());
    Value tmp = memref::AllocOp::create(b, loc, contiguous, dyn);
    if (read)
      copy(converted, tmp);
    after.push_back({tmp, written ? converted : Value()});
    return alignedAddress(b, loc, tmp);
  }
  /// The same as a `ptr` operand.
  Value pointer(Value memref, Value converted, bool read, bool written) {
    return rt.pointer(b, address(memref, converted, read, written));
  }

  /// The addresses of `memrefs` (`converted` in the conversion).
  SmallVector<Value> addresses(ValueRange memrefs, ValueRange converted,
                               bool read, bool written) {
    SmallVector<Value> out;
    for (auto [m, c] : llvm::zip_equal(memrefs, converted))
      out.push_back(address(m, c, read, written));
    return out;
  }

  /// [rows, cols]: rows = product of the leading dimensions, cols = the
  /// last one; i64, a static size as an attribute.
  std::pair<OpFoldResult, OpFoldResult> flatten(Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    auto dim = [&](int64_t i) -> OpFoldResult {
      if (!type.isDynamicDim(i))
        return b.getI64IntegerAttr(type.getDimSize(i));
      Value d = memref::DimOp::create(b, loc, memref, i);
      return arith::IndexCastOp::create(b, loc, b.getI64Type(), d).getResult();
    };
    int64_t rank = type.getRank();
    if (rank == 0)
      return {b.getI64IntegerAttr(1), b.getI64IntegerAttr(1)};
    // The static leading dimensions multiplied here, the dynamic ones in
    // the program.
    int64_t staticRows = 1;
    for (int64_t i = 0; i + 1 < rank; ++i)
      if (!type.isDynamicDim(i))
        staticRows *= type.getDimSize(i);
    OpFoldResult rows = b.getI64IntegerAttr(staticRows);
    for (int64_t i = 0; i + 1 < rank; ++i)
      if (type.isDynamicDim(i))
        rows = arith::MulIOp::create(b, loc, value(rows), value(dim(i)))
                   .getResult();
    return {rows, dim(rank - 1)};
  }

  /// The number of elements of a memref, as i64.
  Value numElements(Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    if (type.hasStaticShape())
      return i64(type.getNumElements());
    auto [rows, cols] = flatten(memref);
    return arith::MulIOp::create(b, loc, value(rows), value(cols));
  }

  /// An i64 size as a value.
  Value value(OpFoldResult size) {
    if (std::optional<int64_t> c = getConstantIntValue(size))
      return i64(*c);
    return cast<Value>(size);
  }

  void copy(Value from, Value to) {
    copyMemRef(b, loc, rt.onDeviceMemory(), from, to);
  }
  /// Copies `from` into `to` unless they are the same buffer.
  void copyIfDistinct(Value from, Value to) {
    if (from != to)
      copy(from, to);
  }

  /// The call of `name` with `args`, then the copy-backs and frees of
  /// pointer().
  void call(StringRef name) {
    rt.call(b, loc, name, args);
    for (auto [tmp, dst] : after) {
      if (dst)
        copy(tmp, dst);
      memref::DeallocOp::create(b, loc, tmp);
    }
    after.clear();
  }

  SmallVector<Value> args;

private:
  RuntimeCalls &rt;
  OpBuilder &b;
  Operation *op;
  Location loc;
  SmallVector<std::pair<Value, Value>> after;
};

//===----------------------------------------------------------------------===//
// Buffers only the runtime sees
//===----------------------------------------------------------------------===//

/// The ops whose memref operands all reach the runtime as pointers only
/// (CallOperands::pointer; no memref.copy, no dim of a static shape).
bool passesOnlyPointers(Operation *op) {
  return isa<QuantizeBuffersOp, QuantizeProducedBuffersOp, DequantizeBuffersOp,
             GemmBuffersOp, EmulatedOperandBuffersOp, AmaxBuffersOp,
             AttentionBuffersOp, AttentionGradBuffersOp>(op);
}

/// Whether `alloc` is a buffer only the runtime sees: in a function, a
/// static shape, identity layout, whole-byte elements, and every use an
/// operand of a te op that passes only pointers or a memref.dealloc.
bool isRuntimeOnlyBuffer(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (!alloc->getParentOfType<FunctionOpInterface>() ||
      !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getMemorySpace() || !type.getElementType().isIntOrFloat() ||
      type.getElementTypeBitWidth() % 8 != 0)
    return false;
  return llvm::all_of(alloc->getUsers(), [](Operation *user) {
    return isa<memref::DeallocOp>(user) || passesOnlyPointers(user);
  });
}

/// A buffer only the runtime sees: a plain pointer (its address replaces
/// the memref). On host memory
/// aligned_alloc, whose C11 contract wants a power-of-two alignment and a
/// size that is a multiple of it (an empty buffer still gets one block, so
/// that the runtime never sees a null buffer); on device memory the
/// context's memory, stream-ordered (te_rt_mlir_alloc).
struct RuntimeOnlyAllocLowering : OpConversionPattern<memref::AllocOp> {
  RuntimeOnlyAllocLowering(const TypeConverter &converter, MLIRContext *ctx,
                           RuntimeCalls &rt)
      : OpConversionPattern(converter, ctx), rt(rt) {}

  LogicalResult
  matchAndRewrite(memref::AllocOp alloc, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = alloc.getType();
    uint64_t alignment =
        std::max<uint64_t>(alloc.getAlignment().value_or(16), 16);
    uint64_t bytes = static_cast<uint64_t>(type.getNumElements()) *
                     (type.getElementTypeBitWidth() / 8);
    bytes = std::max(llvm::alignTo(bytes, alignment), alignment);
    Value size = rt.i64(rewriter, alloc, static_cast<int64_t>(bytes));
    Value align = rt.i64(rewriter, alloc, static_cast<int64_t>(alignment));
    Location loc = alloc.getLoc();
    Value p =
        rt.onDeviceMemory()
            ? rt.callForValue(rewriter, loc, "te_rt_mlir_alloc", {size, align})
            : LLVM::CallOp::create(rewriter, loc, rt.getAlignedAllocFn(),
                                   ValueRange{align, size})
                  .getResult();
    rewriter.replaceOp(alloc, LLVM::PtrToIntOp::create(
                                  rewriter, loc, rewriter.getI64Type(), p));
    return success();
  }

  RuntimeCalls &rt;
};

/// The memref.dealloc of a buffer only the runtime sees: free of its
/// pointer (te_rt_mlir_free on device memory).
struct RuntimeOnlyDeallocLowering : OpConversionPattern<memref::DeallocOp> {
  RuntimeOnlyDeallocLowering(const TypeConverter &converter, MLIRContext *ctx,
                             RuntimeCalls &rt)
      : OpConversionPattern(converter, ctx), rt(rt) {}

  LogicalResult
  matchAndRewrite(memref::DeallocOp dealloc, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value p = rt.pointer(rewriter, adaptor.getMemref());
    if (rt.onDeviceMemory())
      rt.call(rewriter, dealloc.getLoc(), "te_rt_mlir_free", p);
    else
      LLVM::CallOp::create(rewriter, dealloc.getLoc(), rt.getFreeFn(), p);
    rewriter.eraseOp(dealloc);
    return success();
  }

  RuntimeCalls &rt;
};

//===----------------------------------------------------------------------===//
// The te ops
//===----------------------------------------------------------------------===//

/// te_rt_dtype of a high-precision element type.
FailureOr<int64_t> dtypeCode(Operation *op, Value v) {
  Type t = getElementTypeOrSelf(v.getType());
  if (t.isF32())
    return static_cast<int64_t>(TE_RT_F32);
  if (t.isF16())
    return static_cast<int64_t>(TE_RT_F16);
  if (t.isBF16())
    return static_cast<int64_t>(TE_RT_BF16);
  return op->emitOpError("high-precision operand must be f32, f16 or bf16, "
                         "got ")
         << t;
}

int64_t targetCode(Operation *op) {
  return static_cast<int64_t>(toFormat(getTarget(op)));
}

bool isDelayed(QuantizerAttrInterface q) {
  return ::te::format::recipeTraits(q.getFormatConfig().recipe).liveScale;
}

/// `outs` of a te op and their values in the conversion, the amax buffer
/// that a delayed quantizer writes last taken apart.
struct Outputs {
  Outputs(QuantizerAttrInterface q, ValueRange outs, ValueRange outsConverted)
      : buffers(outs), converted(outsConverted) {
    if (q && isDelayed(q) && !buffers.empty()) {
      amax = buffers.back();
      amaxConverted = converted.back();
      buffers = buffers.drop_back();
      converted = converted.drop_back();
    }
  }
  ValueRange buffers, converted;
  Value amax, amaxConverted;
};

/// The base of the te op patterns. `check` states what the op needs before
/// anything is built (a pattern that fails leaves the op, and the target
/// then reports it); `lower` fills the call's operands and names its entry
/// point.
template <typename OpTy> struct TEOpLowering : OpConversionPattern<OpTy> {
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  TEOpLowering(const TypeConverter &converter, MLIRContext *ctx,
               RuntimeCalls &rt)
      : OpConversionPattern<OpTy>(converter, ctx), rt(rt) {}

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (failed(checkLowerable(op)) || failed(check(op)))
      return failure();
    CallOperands c(rt, rewriter, op);
    FailureOr<StringRef> entryPoint = lower(op, adaptor, c);
    if (failed(entryPoint))
      return failure();
    c.call(*entryPoint);
    rewriter.eraseOp(op);
    return success();
  }

  virtual LogicalResult check(OpTy) const { return success(); }
  virtual FailureOr<StringRef> lower(OpTy op, OpAdaptor adaptor,
                                     CallOperands &c) const = 0;

  /// The op is on memrefs and in a function.
  static LogicalResult checkLowerable(Operation *op) {
    auto module = op->getParentOfType<ModuleOp>();
    if (module && module->getParentOp())
      return op->emitOpError(
          "is in a nested module: te-pipeline compiles the functions of the "
          "top-level module only; move them out of the nested "
          "'builtin.module'");
    if (op->getParentOfType<gpu::LaunchOp>())
      return op->emitOpError(
          "is inside a GPU kernel (the body of a linalg op or tensor.generate "
          "becomes one, run per element): te ops run from the host on whole "
          "tensors; apply it to the tensor before that op");
    for (Value v : op->getOperands())
      if (isa<TensorType>(v.getType()))
        return op->emitOpError(
            "is still on tensors; run one-shot bufferization before "
            "convert-te-to-runtime");
    if (!entryBlock(op))
      return op->emitOpError("is not in a function");
    return success();
  }

  /// The buffers of a quantized operand fit the ABI.
  static LogicalResult checkBufferCount(Operation *op, ValueRange buffers) {
    if (buffers.size() <= static_cast<size_t>(kMaxBuffers))
      return success();
    return op->emitOpError("has ")
           << buffers.size() << " buffers; the runtime ABI passes at most "
           << kMaxBuffers;
  }

  RuntimeCalls &rt;
};

struct QuantizeLowering : TEOpLowering<QuantizeBuffersOp> {
  using TEOpLowering::TEOpLowering;

  LogicalResult check(QuantizeBuffersOp op) const override {
    auto q = cast<QuantizerAttrInterface>(op.getQuantizer());
    Outputs outs(q, op.getOuts(), op.getOuts());
    if (isDelayed(q) && !outs.amax)
      return op.emitOpError("delayed scaling needs the amax output");
    if (failed(checkBufferCount(op, outs.buffers)))
      return failure();
    return dtypeCode(op, op.getInput());
  }

  FailureOr<StringRef> lower(QuantizeBuffersOp op, OpAdaptor adaptor,
                             CallOperands &c) const override {
    using W = te_rt_abi::quantize;
    auto q = cast<QuantizerAttrInterface>(op.getQuantizer());
    Outputs outs(q, op.getOuts(), adaptor.getOuts());
    auto [rows, cols] = c.flatten(op.getInput());
    Descriptor d = Descriptor::of<W>();
    d.set(W::target, targetCode(op));
    d.setQuantizer(W::quantizer, q);
    d.set(W::usage, static_cast<int64_t>(toFormat(op.getUsage())));
    d.set(W::rows, rows);
    d.set(W::cols, cols);
    d.set(W::x_dtype, *dtypeCode(op, op.getInput()));
    d.set(W::x, c.address(op.getInput(), adaptor.getInput(), true, false));
    d.setBuffers(W::bufs,
                 c.addresses(outs.buffers, outs.converted, false, true));
    if (op.getScale())
      d.set(W::scale,
            c.address(op.getScale(), adaptor.getScale(), true, false));
    if (outs.amax)
      d.set(W::amax, c.address(outs.amax, outs.amaxConverted, false, true));
    d.setIfPresent(W::seed, adaptor.getSeed());
    d.setIfPresent(W::offset, adaptor.getOffset());
    std::optional<StringRef> group = op.getGroup();
    if (group)
      c.args.push_back(c.cString(*group));
    c.append(d);
    return StringRef(group ? "te_rt_mlir_quantize_group"
                           : "te_rt_mlir_quantize");
  }
};

/// te.quantize_produced_buffers: a quantize descriptor without x and the
/// producer descriptor of its body (the program's code a constant global,
/// each input's address, dtype and the row and column strides its
/// indexing map gives on its row-major elements).
struct QuantizeProducedLowering : TEOpLowering<QuantizeProducedBuffersOp> {
  using TEOpLowering::TEOpLowering;

  // The two descriptors of one call need two stack slots (one per size).
  static_assert(te_rt_abi::quantize::kWords != te_rt_abi::producer::kWords,
                "the quantize and producer descriptors share a slot size");

  LogicalResult check(QuantizeProducedBuffersOp op) const override {
    auto q = cast<QuantizerAttrInterface>(op.getQuantizer());
    Outputs outs(q, op.getOuts(), op.getOuts());
    if (isDelayed(q) && !outs.amax)
      return op.emitOpError("delayed scaling needs the amax output");
    if (failed(checkBufferCount(op, outs.buffers)))
      return failure();
    for (Value input : op.getInputs())
      if (!cast<MemRefType>(input.getType()).getElementType().isIntOrFloat())
        return op.emitOpError("input of an element type the runtime has no "
                              "code for");
    return success();
  }

  FailureOr<StringRef> lower(QuantizeProducedBuffersOp op, OpAdaptor adaptor,
                             CallOperands &c) const override {
    using W = te_rt_abi::quantize;
    using P = te_rt_abi::producer;
    OpBuilder &b = c.builder();
    Location loc = op.getLoc();
    auto q = cast<QuantizerAttrInterface>(op.getQuantizer());
    Outputs outs(q, op.getOuts(), adaptor.getOuts());
    RankedTensorType valueType = op.getValueType();

    // The logical sizes as i64; rows = the leading ones' product.
    SmallVector<OpFoldResult> sizes;
    unsigned nextSize = 0;
    for (int64_t d : valueType.getShape()) {
      if (!ShapedType::isDynamic(d)) {
        sizes.push_back(b.getI64IntegerAttr(d));
        continue;
      }
      Value v = adaptor.getSizes()[nextSize++];
      sizes.push_back(
          arith::IndexCastOp::create(b, loc, b.getI64Type(), v).getResult());
    }
    OpFoldResult rows = product(c, ArrayRef(sizes).drop_back());

    Descriptor d = Descriptor::of<W>();
    d.set(W::target, targetCode(op));
    d.setQuantizer(W::quantizer, q);
    d.set(W::usage, static_cast<int64_t>(toFormat(op.getUsage())));
    d.set(W::rows, rows);
    d.set(W::cols, sizes.back());
    d.set(W::x_dtype, static_cast<int64_t>(
                          getProducerTypeCode(valueType.getElementType())));
    d.setBuffers(W::bufs,
                 c.addresses(outs.buffers, outs.converted, false, true));
    if (op.getScale())
      d.set(W::scale,
            c.address(op.getScale(), adaptor.getScale(), true, false));
    if (outs.amax)
      d.set(W::amax, c.address(outs.amax, outs.amaxConverted, false, true));
    d.setIfPresent(W::seed, adaptor.getSeed());
    d.setIfPresent(W::offset, adaptor.getOffset());

    Descriptor p = Descriptor::of<P>();
    p.set(P::num_inputs, static_cast<int64_t>(op.getInputs().size()));
    ArrayRef<Attribute> maps = op.getIndexingMaps().getValue();
    for (auto [i, input, converted] :
         llvm::enumerate(op.getInputs(), adaptor.getInputs())) {
      auto type = cast<MemRefType>(input.getType());
      int64_t slot = static_cast<int64_t>(i);
      p.set(P::inputs + slot, c.address(input, converted, true, false));
      p.set(P::input_dtypes + slot,
            static_cast<int64_t>(getProducerTypeCode(type.getElementType())));
      FailureOr<ProducerInputLayout> layout =
          getProducerInputLayout(cast<AffineMapAttr>(maps[i]).getValue(),
                                 valueType.getShape(), type.getShape());
      if (failed(layout))
        return op.emitOpError("input #")
               << i << " is not read at uniform strides";
      // Row-major elements: the stride of dimension j is the product of
      // the sizes after it.
      auto stride = [&](int64_t dim) -> OpFoldResult {
        if (dim < 0)
          return b.getI64IntegerAttr(0);
        SmallVector<OpFoldResult> after;
        for (int64_t k = dim + 1; k < type.getRank(); ++k) {
          if (!type.isDynamicDim(k)) {
            after.push_back(b.getI64IntegerAttr(type.getDimSize(k)));
            continue;
          }
          Value dimValue = memref::DimOp::create(b, loc, input, k);
          after.push_back(
              arith::IndexCastOp::create(b, loc, b.getI64Type(), dimValue)
                  .getResult());
        }
        return product(c, after);
      };
      p.set(P::input_row_strides + slot, stride(layout->rowDim));
      p.set(P::input_col_strides + slot, stride(layout->colDim));
    }
    FailureOr<SmallVector<ProducerInstruction>> program =
        encodeProducerProgram(op.getBody().front());
    if (failed(program))
      return op.emitOpError("body is not a producer program");
    SmallVector<int32_t> words;
    for (const ProducerInstruction &in : *program)
      words.append({in.opcode, in.type, in.a, in.b, in.c});
    p.set(P::num_instrs, static_cast<int64_t>(program->size()));
    p.set(P::code,
          LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), c.int32Array(words))
              .getResult());
    if (op.getValueOut())
      p.set(P::value_out,
            c.address(op.getValueOut(), adaptor.getValueOut(), false, true));
    c.append(d);
    c.append(p);
    return StringRef("te_rt_mlir_quantize_produced");
  }

  /// The product of i64 sizes, constants folded.
  static OpFoldResult product(CallOperands &c, ArrayRef<OpFoldResult> sizes) {
    int64_t constant = 1;
    Value dynamic;
    for (OpFoldResult s : sizes) {
      if (std::optional<int64_t> v = getConstantIntValue(s)) {
        constant *= *v;
        continue;
      }
      Value v = cast<Value>(s);
      dynamic = dynamic
                    ? arith::MulIOp::create(c.builder(), v.getLoc(), dynamic, v)
                          .getResult()
                    : v;
    }
    if (!dynamic)
      return c.builder().getI64IntegerAttr(constant);
    if (constant == 1)
      return dynamic;
    return arith::MulIOp::create(c.builder(), dynamic.getLoc(), dynamic,
                                 c.i64(constant))
        .getResult();
  }
};

struct DequantizeLowering : TEOpLowering<DequantizeBuffersOp> {
  using TEOpLowering::TEOpLowering;

  LogicalResult check(DequantizeBuffersOp op) const override {
    if (failed(checkBufferCount(op, op.getInputs())))
      return failure();
    if (op.getOuts().size() != 1)
      return op.emitOpError("expects one output");
    return dtypeCode(op, op.getOuts()[0]);
  }

  FailureOr<StringRef> lower(DequantizeBuffersOp op, OpAdaptor adaptor,
                             CallOperands &c) const override {
    using W = te_rt_abi::dequantize;
    Value out = op.getOuts()[0];
    auto [rows, cols] = c.flatten(out);
    Descriptor d = Descriptor::of<W>();
    d.set(W::target, targetCode(op));
    d.setQuantizer(W::quantizer,
                   cast<QuantizerAttrInterface>(op.getQuantizer()));
    d.set(W::usage, static_cast<int64_t>(toFormat(op.getUsage())));
    d.set(W::rows, rows);
    d.set(W::cols, cols);
    d.setBuffers(W::bufs,
                 c.addresses(op.getInputs(), adaptor.getInputs(), true, false));
    d.set(W::out_dtype, *dtypeCode(op, out));
    d.set(W::out, c.address(out, adaptor.getOuts()[0], false, true));
    c.append(d);
    return StringRef("te_rt_mlir_dequantize");
  }
};

struct EmulatedOperandLowering : TEOpLowering<EmulatedOperandBuffersOp> {
  using TEOpLowering::TEOpLowering;

  LogicalResult check(EmulatedOperandBuffersOp op) const override {
    if (failed(checkBufferCount(op, op.getInputs())))
      return failure();
    if (ShapedType::isDynamicShape(op.getShape()))
      return op.emitOpError("needs a static operand shape");
    return success();
  }

  FailureOr<StringRef> lower(EmulatedOperandBuffersOp op, OpAdaptor adaptor,
                             CallOperands &c) const override {
    using W = te_rt_abi::gemm_operand;
    ::te::format::Shape shape(op.getShape().begin(), op.getShape().end());
    int64_t rows = 0, cols = 0;
    ::te::format::flatten2D(shape, rows, cols);
    Descriptor d = Descriptor::of<W>();
    d.set(W::target, targetCode(op));
    d.setQuantizer(W::quantizer,
                   cast<QuantizerAttrInterface>(op.getQuantizer()));
    d.set(W::usage, static_cast<int64_t>(toFormat(op.getUsage())));
    d.set(W::reads, static_cast<int64_t>(toFormat(op.getReads())));
    d.set(W::rows, rows);
    d.set(W::cols, cols);
    d.setBuffers(W::bufs,
                 c.addresses(op.getInputs(), adaptor.getInputs(), true, false));
    d.set(W::out,
          c.address(op.getOuts()[0], adaptor.getOuts()[0], false, true));
    c.append(d);
    return StringRef("te_rt_mlir_gemm_operand");
  }
};

struct GemmLowering : TEOpLowering<GemmBuffersOp> {
  using TEOpLowering::TEOpLowering;

  static QuantizerAttrInterface outQuantizer(GemmBuffersOp op) {
    return op.getOutQuantizer()
               ? cast<QuantizerAttrInterface>(*op.getOutQuantizer())
               : QuantizerAttrInterface();
  }

  LogicalResult check(GemmBuffersOp op) const override {
    QuantizerAttrInterface outQ = outQuantizer(op);
    Outputs outs(outQ, op.getOuts(), op.getOuts());
    if (!outQ && outs.buffers.size() != 1)
      return op.emitOpError("expects one output without an output quantizer");
    if (outQ && isDelayed(outQ) && !outs.amax)
      return op.emitOpError("delayed output quantizer needs the amax output");
    if (failed(checkBufferCount(op, op.getA())) ||
        failed(checkBufferCount(op, op.getB())) ||
        failed(checkBufferCount(op, outs.buffers)))
      return failure();
    if (op.getAShape().empty() || op.getBShape().empty())
      return op.emitOpError("needs operands of rank >= 1");
    if (!outQ && failed(dtypeCode(op, outs.buffers[0])))
      return failure();
    return success(!op.getBias() || succeeded(dtypeCode(op, op.getBias())));
  }

  FailureOr<StringRef> lower(GemmBuffersOp op, OpAdaptor adaptor,
                             CallOperands &c) const override {
    using W = te_rt_abi::gemm;
    OpBuilder &b = c.builder();
    OpFoldResult aRows, aCols, bRows, bCols;
    auto aq = cast<QuantizerAttrInterface>(op.getAQuantizer());
    auto bq = cast<QuantizerAttrInterface>(op.getBQuantizer());
    if (failed(flat2D(b, op, aq, op.getAUsage(), op.getAShape(), op.getA(),
                      aRows, aCols)) ||
        failed(flat2D(b, op, bq, op.getBUsage(), op.getBShape(), op.getB(),
                      bRows, bCols)))
      return failure();
    // The runtime's enums have Format's values (runtime/lib/Api.cpp).
    ::te::format::GemmLayout layout = toFormat(op.getLayout());
    ::te::format::GemmAxes axes = ::te::format::gemmAxes(layout);
    Descriptor g = Descriptor::of<W>();
    g.set(W::target, targetCode(op));
    g.set(W::layout, static_cast<int64_t>(layout));
    g.setQuantizer(W::a_quantizer, aq);
    g.set(W::a_usage, static_cast<int64_t>(toFormat(op.getAUsage())));
    g.set(W::a_rows, aRows);
    g.set(W::a_cols, aCols);
    g.setBuffers(W::a_bufs,
                 c.addresses(op.getA(), adaptor.getA(), true, false));
    g.setQuantizer(W::b_quantizer, bq);
    g.set(W::b_usage, static_cast<int64_t>(toFormat(op.getBUsage())));
    g.set(W::b_rows, bRows);
    g.set(W::b_cols, bCols);
    g.setBuffers(W::b_bufs,
                 c.addresses(op.getB(), adaptor.getB(), true, false));
    g.set(W::d_rows, axes.bM == 0 ? bRows : bCols);
    g.set(W::d_cols, axes.aN == 0 ? aRows : aCols);
    // D and the bias: f32 where absent.
    g.set(W::d_dtype, static_cast<int64_t>(TE_RT_F32));
    g.set(W::bias_dtype, static_cast<int64_t>(TE_RT_F32));
    QuantizerAttrInterface outQ = outQuantizer(op);
    Outputs outs(outQ, op.getOuts(), adaptor.getOuts());
    if (!outQ) {
      Value d = outs.buffers[0];
      g.set(W::d_dtype, *dtypeCode(op, d));
      g.set(W::d, c.address(d, outs.converted[0], op.getAccumulate(), true));
    }
    if (Value bias = op.getBias()) {
      g.set(W::bias_dtype, *dtypeCode(op, bias));
      g.set(W::bias, c.address(bias, adaptor.getBias(), true, false));
    }
    g.set(W::accumulate, op.getAccumulate() ? 1 : 0);
    g.set(W::use_split_accumulator, op.getUseSplitAccumulator() ? 1 : 0);
    if (outQ) {
      g.set(W::out_quantized, 1);
      g.setQuantizer(W::out_quantizer, outQ);
      g.setBuffers(W::out_bufs,
                   c.addresses(outs.buffers, outs.converted, false, true));
    }
    if (op.getOutScale())
      g.set(W::out_scale,
            c.address(op.getOutScale(), adaptor.getOutScale(), true, false));
    if (outs.amax)
      g.set(W::out_amax, c.address(outs.amax, outs.amaxConverted, false, true));
    if (Value e = op.getAEmulated())
      g.set(W::a_emulated, c.address(e, adaptor.getAEmulated(), true, false));
    if (Value e = op.getBEmulated())
      g.set(W::b_emulated, c.address(e, adaptor.getBEmulated(), true, false));
    c.append(g);
    return StringRef("te_rt_mlir_gemm");
  }

  /// An operand's logical [rows, cols] as i64: static sizes from its shape,
  /// dynamic ones read from its buffers (the Format library's extents).
  static LogicalResult flat2D(OpBuilder &b, GemmBuffersOp op,
                              QuantizerAttrInterface q, Usage usage,
                              ArrayRef<int64_t> shape, ValueRange buffers,
                              OpFoldResult &rows, OpFoldResult &cols) {
    Location loc = op.getLoc();
    auto emitError = [&] { return op.emitOpError(); };
    FailureOr<OpFoldResult> m =
        emitRows(b, loc, q, usage, getTarget(op), shape, buffers, emitError);
    if (failed(m))
      return failure();
    OpFoldResult k = b.getIndexAttr(shape.back());
    if (ShapedType::isDynamic(shape.back())) {
      SmallVector<bool> lastOnly(shape.size(), false);
      lastOnly.back() = true;
      FailureOr<SmallVector<OpFoldResult>> dims = emitLogicalSizes(
          b, loc, q, usage, getTarget(op), shape, buffers, emitError, lastOnly);
      if (failed(dims))
        return failure();
      k = dims->back();
    }
    auto i64 = [&](OpFoldResult d) -> OpFoldResult {
      if (std::optional<int64_t> v = getConstantIntValue(d))
        return b.getI64IntegerAttr(*v);
      return arith::IndexCastOp::create(b, loc, b.getI64Type(), cast<Value>(d))
          .getResult();
    };
    rows = i64(*m);
    cols = i64(k);
    return success();
  }
};

struct AmaxLowering : TEOpLowering<AmaxBuffersOp> {
  using TEOpLowering::TEOpLowering;

  LogicalResult check(AmaxBuffersOp op) const override {
    return dtypeCode(op, op.getInput());
  }

  FailureOr<StringRef> lower(AmaxBuffersOp op, OpAdaptor adaptor,
                             CallOperands &c) const override {
    c.args.append(
        {c.i32(*dtypeCode(op, op.getInput())), c.numElements(op.getInput()),
         c.pointer(op.getInput(), adaptor.getInput(), true, false),
         c.pointer(op.getOuts()[0], adaptor.getOuts()[0], false, true)});
    return StringRef("te_rt_mlir_amax");
  }
};

/// The entry point updates history and scale in place: the inputs are
/// copied into the outputs first.
struct UpdateScaleLowering : TEOpLowering<UpdateScaleBuffersOp> {
  using TEOpLowering::TEOpLowering;

  FailureOr<StringRef> lower(UpdateScaleBuffersOp op, OpAdaptor adaptor,
                             CallOperands &c) const override {
    Value history = op.getOuts()[0], scale = op.getOuts()[1];
    c.copyIfDistinct(op.getHistory(), history);
    c.copyIfDistinct(op.getScale(), scale);
    c.args.append(
        {c.quantizerDescriptor(cast<QuantizerAttrInterface>(op.getQuantizer())),
         c.pointer(op.getAmax(), adaptor.getAmax(), true, false),
         c.pointer(history, adaptor.getOuts()[0], true, true),
         c.numElements(history),
         c.pointer(scale, adaptor.getOuts()[1], true, true)});
    return StringRef("te_rt_mlir_update_scale");
  }
};

/// In place on the output, after copying the input into it.
struct AllReduceMaxLowering : TEOpLowering<AllReduceMaxBuffersOp> {
  using TEOpLowering::TEOpLowering;

  FailureOr<StringRef> lower(AllReduceMaxBuffersOp op, OpAdaptor adaptor,
                             CallOperands &c) const override {
    Value out = op.getOuts()[0];
    c.copyIfDistinct(op.getInput(), out);
    c.args.append({c.cString(op.getGroup()),
                   c.pointer(out, adaptor.getOuts()[0], true, true),
                   c.numElements(out)});
    return StringRef("te_rt_mlir_allreduce_max");
  }
};

/// An attention operand as its descriptor takes it: the address of its
/// first element and its sizes and strides (in elements) as 4-D
/// [batch, heads, rows, cols], i64 words.
struct AttentionOperand {
  Value address;
  SmallVector<OpFoldResult, 4> sizes, strides;
};

/// `memref` (`converted` in the conversion) as an attention operand. A view
/// whose last dimension is contiguous (a strided layout: a slice of a fused
/// QKV projection, a transposed view) is passed as it is, its sizes and strides
/// from its type where static and from memref.extract_strided_metadata where
/// not; any other layout is copied to a row-major buffer first (and back when
/// `written`). A 3-D [N, rows, cols] operand is [1, N, rows, cols]. With
/// `broadcast` (the mask), a dimension of static size 1 has stride 0.
AttentionOperand attentionOperand(CallOperands &c, Location loc, Value memref,
                                  Value converted, bool read, bool written,
                                  bool broadcast = false) {
  OpBuilder &b = c.builder();
  auto type = cast<MemRefType>(memref.getType());
  int64_t rank = type.getRank();
  auto word = [&](int64_t v) -> OpFoldResult { return b.getI64IntegerAttr(v); };
  auto toI64 = [&](Value index) -> OpFoldResult {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index)
        .getResult();
  };
  AttentionOperand r;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  bool strided = succeeded(type.getStridesAndOffset(strides, offset));
  bool lastContiguous =
      strided && (strides.back() == 1 || type.getDimSize(rank - 1) == 1);
  if (isa<MemRefType>(converted.getType()) && lastContiguous) {
    r.address = runtimeElementAddress(b, loc, converted);
    memref::ExtractStridedMetadataOp meta;
    auto metadata = [&] {
      if (!meta)
        meta = memref::ExtractStridedMetadataOp::create(b, loc, converted);
      return meta;
    };
    for (int64_t d = 0; d < rank; ++d) {
      r.sizes.push_back(type.isDynamicDim(d) ? toI64(metadata().getSizes()[d])
                                             : word(type.getDimSize(d)));
      r.strides.push_back(ShapedType::isDynamic(strides[d])
                              ? toI64(metadata().getStrides()[d])
                              : word(strides[d]));
    }
  } else {
    // Row-major from the address: a pointer the runtime takes as it is, or
    // a contiguous copy.
    r.address = c.address(memref, converted, read, written);
    Value shaped = isa<MemRefType>(converted.getType()) ? converted : memref;
    for (int64_t d = 0; d < rank; ++d)
      r.sizes.push_back(
          type.isDynamicDim(d)
              ? toI64(memref::DimOp::create(b, loc, shaped, d).getResult())
              : word(type.getDimSize(d)));
    r.strides.assign(rank, word(1));
    for (int64_t d = rank - 2; d >= 0; --d) {
      std::optional<int64_t> inner = getConstantIntValue(r.strides[d + 1]);
      std::optional<int64_t> size = getConstantIntValue(r.sizes[d + 1]);
      if (inner && size)
        r.strides[d] = word(*inner * *size);
      else
        r.strides[d] = arith::MulIOp::create(b, loc, c.value(r.strides[d + 1]),
                                             c.value(r.sizes[d + 1]))
                           .getResult();
    }
  }
  if (broadcast)
    for (int64_t d = 0; d < rank; ++d)
      if (type.getDimSize(d) == 1)
        r.strides[d] = word(0);
  if (rank == 3) {
    r.sizes.insert(r.sizes.begin(), word(1));
    r.strides.insert(r.strides.begin(), word(0));
  }
  return r;
}

/// The words of an attention operand: its address at `data`, its sizes at
/// `shape` (none where `shape` < 0: the descriptor takes another operand's)
/// and its strides at `strides`.
void setAttentionOperand(Descriptor &d, int64_t data, int64_t shape,
                         int64_t strides, const AttentionOperand &o) {
  d.set(data, o.address);
  for (int64_t i = 0; i < 4; ++i) {
    if (shape >= 0)
      d.set(shape + i, o.sizes[i]);
    d.set(strides + i, o.strides[i]);
  }
}

/// The scale, causal flag and mask words, shared by both descriptors.
template <typename W, typename OpTy>
void setAttentionOptions(Descriptor &d, OpTy op, Value maskConverted,
                         CallOperands &c) {
  d.set(W::scale_bits, te_rt_abi::toWord(op.getScale().convertToFloat()));
  d.set(W::causal, op.getCausal() ? 1 : 0);
  Value mask = op.getMask();
  if (!mask)
    return;
  Type e = cast<MemRefType>(mask.getType()).getElementType();
  d.set(W::mask_kind, e.isInteger(1) ? 2 : 1);
  d.set(W::mask_dtype,
        e.isInteger(1) ? static_cast<int64_t>(TE_RT_U8) : *dtypeCode(op, mask));
  setAttentionOperand(d, W::mask, W::mask_shape, W::mask_strides,
                      attentionOperand(c, op.getLoc(), mask, maskConverted,
                                       true, false, /*broadcast=*/true));
}

/// What both attention lowerings check: the dtypes.
LogicalResult checkAttentionTypes(Operation *op, Value query, Value mask) {
  if (failed(dtypeCode(op, query)))
    return failure();
  if (mask && !getElementTypeOrSelf(mask.getType()).isInteger(1) &&
      failed(dtypeCode(op, mask)))
    return failure();
  return success();
}

struct AttentionLowering : TEOpLowering<AttentionBuffersOp> {
  using TEOpLowering::TEOpLowering;

  LogicalResult check(AttentionBuffersOp op) const override {
    return checkAttentionTypes(op, op.getQuery(), op.getMask());
  }

  FailureOr<StringRef> lower(AttentionBuffersOp op, OpAdaptor adaptor,
                             CallOperands &c) const override {
    using W = te_rt_abi::attention;
    Location loc = op.getLoc();
    Descriptor d = Descriptor::of<W>();
    d.set(W::dtype, *dtypeCode(op, op.getQuery()));
    setAttentionOperand(d, W::q, W::q_shape, W::q_strides,
                        attentionOperand(c, loc, op.getQuery(),
                                         adaptor.getQuery(), true, false));
    setAttentionOperand(
        d, W::k, W::k_shape, W::k_strides,
        attentionOperand(c, loc, op.getKey(), adaptor.getKey(), true, false));
    setAttentionOperand(d, W::v, W::v_shape, W::v_strides,
                        attentionOperand(c, loc, op.getValue(),
                                         adaptor.getValue(), true, false));
    setAttentionOperand(d, W::o, W::o_shape, W::o_strides,
                        attentionOperand(c, loc, op.getOuts()[0],
                                         adaptor.getOuts()[0], false, true));
    if (op.getOuts().size() == 2)
      d.set(W::lse,
            c.address(op.getOuts()[1], adaptor.getOuts()[1], false, true));
    setAttentionOptions<W>(d, op, adaptor.getMask(), c);
    c.append(d);
    return StringRef("te_rt_mlir_attention");
  }
};

struct AttentionGradLowering : TEOpLowering<AttentionGradBuffersOp> {
  using TEOpLowering::TEOpLowering;

  LogicalResult check(AttentionGradBuffersOp op) const override {
    return checkAttentionTypes(op, op.getQuery(), op.getMask());
  }

  FailureOr<StringRef> lower(AttentionGradBuffersOp op, OpAdaptor adaptor,
                             CallOperands &c) const override {
    using W = te_rt_abi::attention_grad;
    Location loc = op.getLoc();
    auto in = [&](Value m, Value converted) {
      return attentionOperand(c, loc, m, converted, true, false);
    };
    auto out = [&](unsigned i) {
      return attentionOperand(c, loc, op.getOuts()[i], adaptor.getOuts()[i],
                              false, true);
    };
    Descriptor d = Descriptor::of<W>();
    d.set(W::dtype, *dtypeCode(op, op.getQuery()));
    setAttentionOperand(d, W::q, W::q_shape, W::q_strides,
                        in(op.getQuery(), adaptor.getQuery()));
    setAttentionOperand(d, W::k, W::k_shape, W::k_strides,
                        in(op.getKey(), adaptor.getKey()));
    setAttentionOperand(d, W::v, W::v_shape, W::v_strides,
                        in(op.getValue(), adaptor.getValue()));
    setAttentionOperand(d, W::o, W::o_shape, W::o_strides,
                        in(op.getOutput(), adaptor.getOutput()));
    setAttentionOperand(d, W::dout, -1, W::dout_strides,
                        in(op.getGradOutput(), adaptor.getGradOutput()));
    d.set(W::lse, c.address(op.getLse(), adaptor.getLse(), true, false));
    setAttentionOperand(d, W::dq, -1, W::dq_strides, out(0));
    setAttentionOperand(d, W::dk, -1, W::dk_strides, out(1));
    setAttentionOperand(d, W::dv, -1, W::dv_strides, out(2));
    setAttentionOptions<W>(d, op, adaptor.getMask(), c);
    c.append(d);
    return StringRef("te_rt_mlir_attention_grad");
  }
};

/// Applies `patterns` to `ops` (the ops `needsRewrite` holds for, in the
/// module's order), which the target makes illegal: the driver visits
/// those ops only, not every op of the module.
LogicalResult convert(ModuleOp module, ConversionTarget &target,
                      RewritePatternSet &&patterns,
                      function_ref<bool(Operation *)> needsRewrite) {
  SmallVector<Operation *> ops;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (needsRewrite(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return success();
  target.markUnknownOpDynamicallyLegal(
      [=](Operation *op) { return !needsRewrite(op); });
  ConversionConfig config;
  config.foldingMode = DialectConversionFoldingMode::Never;
  return applyPartialConversion(ops, target, std::move(patterns), config);
}

/// Conversion 1: the te ops and the buffers only the runtime sees.
LogicalResult lowerTEOps(ModuleOp module, RuntimeCalls &rt,
                         unsigned &numRuntimeOnlyBuffers) {
  MLIRContext *ctx = module.getContext();
  bool refused = false;
  llvm::DenseSet<Operation *> runtimeOnly;
  module.walk([&](Operation *op) {
    if (isa<AmaxOp, UpdateScaleOp, AllReduceMaxOp, AttentionOp,
            AttentionGradOp>(op)) {
      op->emitOpError("has no runtime lowering on tensors: run "
                      "te-expand-qtensors and one-shot bufferization first");
      refused = true;
    } else if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (isRuntimeOnlyBuffer(alloc))
        runtimeOnly.insert(alloc);
    }
  });
  if (refused)
    return failure();
  if (!runtimeOnly.empty() && !rt.onDeviceMemory() &&
      !rt.declareHostAllocation())
    runtimeOnly.clear();
  numRuntimeOnlyBuffers = runtimeOnly.size();

  auto needsLowering = [&](Operation *op) {
    if (op->hasTrait<OpTrait::te::BufferLevelOp>())
      return true;
    if (auto d = dyn_cast<memref::DeallocOp>(op))
      op = d.getMemref().getDefiningOp();
    return op && runtimeOnly.contains(op);
  };
  RuntimeTypeConverter converter(ctx, rt.onDeviceMemory());
  ConversionTarget target(*ctx);
  RewritePatternSet patterns(ctx);
  patterns.add<QuantizeLowering, QuantizeProducedLowering, DequantizeLowering,
               GemmLowering, EmulatedOperandLowering, AmaxLowering,
               UpdateScaleLowering, AllReduceMaxLowering, AttentionLowering,
               AttentionGradLowering, RuntimeOnlyAllocLowering,
               RuntimeOnlyDeallocLowering>(converter, ctx, rt);
  if (failed(convert(module, target, std::move(patterns), needsLowering)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Host accesses on host memory
//===----------------------------------------------------------------------===//

/// Whether the memref lowering makes a copy between memrefs of `type` one
/// memcpy: identity layouts, and static shapes laid out row-major without
/// gaps.
bool memcpyable(MemRefType type) {
  return type.getLayout().isIdentity() ||
         (type.hasStaticShape() && isRowMajorContiguous(type));
}

/// A copy the memref lowering would not make one memcpy becomes linalg.copy,
/// i.e. loops (convert-linalg-to-loops): that lowering would call
/// `memrefCopy` of MLIR's C runner utilities, which neither te-run nor an
/// AOT object links. It makes a memcpy only of identity layouts and of
/// static shapes laid out row-major without gaps: not of a column block
/// (tensor.insert_slice at a column offset), a qtensor yielded by scf.if,
/// nor a slice with a dynamic size (a whole dynamic batch taken as one
/// microbatch).
struct StridedCopyLowering : OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::CopyOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(),
                                                op.getTarget());
    return success();
  }
};

bool isStridedCopy(memref::CopyOp c) {
  auto from = dyn_cast<MemRefType>(c.getSource().getType());
  auto to = dyn_cast<MemRefType>(c.getTarget().getType());
  return from && to && (!memcpyable(from) || !memcpyable(to));
}

/// Conversion 2 on host memory.
LogicalResult lowerStridedCopies(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  ConversionTarget target(*ctx);
  RewritePatternSet patterns(ctx);
  patterns.add<StridedCopyLowering>(ctx);
  return convert(module, target, std::move(patterns), [](Operation *op) {
    auto c = dyn_cast<memref::CopyOp>(op);
    return c && isStridedCopy(c);
  });
}

//===----------------------------------------------------------------------===//
// Host accesses on device memory
//===----------------------------------------------------------------------===//

/// Ops that may take memrefs on the host: views and metadata, allocation,
/// control flow, calls, launches and linalg ops (kernels to be).
bool allowedOnHost(Operation *op) {
  if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
          memref::SubViewOp, memref::CastOp, memref::ReinterpretCastOp,
          memref::CollapseShapeOp, memref::ExpandShapeOp, memref::DimOp,
          memref::RankOp, memref::ExtractStridedMetadataOp,
          memref::ExtractAlignedPointerAsIndexOp, memref::ViewOp,
          memref::ReshapeOp, memref::TransposeOp, memref::MemorySpaceCastOp,
          memref::GetGlobalOp, arith::SelectOp, gpu::LaunchOp,
          gpu::LaunchFuncOp>(op))
    return true;
  // linalg ops become kernels (te-linalg-to-gpu, after this pass too: it
  // lowers the copies of strided operands made here).
  StringRef d = op->getName().getDialectNamespace();
  return d == "func" || d == "scf" || d == "cf" || d == "llvm" || d == "linalg";
}

/// `v` and the memref.casts of it, transitively.
void castClosure(Value v, SmallVectorImpl<Value> &out) {
  out.push_back(v);
  for (Operation *user : v.getUsers())
    if (auto c = dyn_cast<memref::CastOp>(user))
      castClosure(c.getResult(), out);
}

/// The value `m` is a memref.cast of, transitively.
Value castSource(Value m) {
  while (auto c = m.getDefiningOp<memref::CastOp>())
    m = c.getSource();
  return m;
}

/// Where the host's accesses of memrefs go on device memory, decided for the
/// whole module before any is rewritten.
///
/// Small buffers only the host reads and writes stay in host memory, on the
/// stack of their function: the bookkeeping of upstream's deallocation
/// (bufferization-lower-deallocations' base-pointer and ownership arrays and
/// its `dealloc_helper` function) and the like. A buffer qualifies when it
/// has a static shape of at most 4 KiB and every use of it (through
/// memref.cast) is a host memref.load/store, its memref.dealloc, or an
/// operand of a call of a private function of the module that only loads
/// and stores its memref arguments and calls nothing; such functions keep
/// their host accesses. The allocation becomes a memref.alloca at the
/// function's entry (one per call; its uses never outlive one iteration of
/// the block they are in).
class HostMemoryPlan {
public:
  HostMemoryPlan(ModuleOp module, const RuntimeCalls &rt)
      : module(module), rt(rt) {}

  /// Fills the plan; fails (with errors naming them) on host ops that would
  /// touch device memory.
  LogicalResult analyze();

  /// Whether `op` is a host op whose accesses of memrefs this plan routes:
  /// not in a kernel nor in a function that stays on the host.
  bool isRouted(Operation *op) const {
    if (!isOnHost(op))
      return false;
    auto f = op->getParentOfType<func::FuncOp>();
    return !f || !hostFunctions.contains(f);
  }
  /// Whether `m` is host memory: a stack slot or a buffer that becomes one,
  /// through memref.casts.
  bool isHostMemory(Value m) const {
    Operation *def = castSource(m).getDefiningOp();
    return def && (isa<memref::AllocaOp>(def) || stackBuffers.contains(def));
  }
  /// Whether a pattern below rewrites `op`: a buffer that becomes a stack
  /// slot and its deallocs, a host load or store of device memory, a host
  /// copy, a read of a program constant.
  bool needsRewrite(Operation *op) const {
    if (isa<memref::AllocOp>(op))
      return stackBuffers.contains(op);
    if (auto d = dyn_cast<memref::DeallocOp>(op)) {
      Operation *def = castSource(d.getMemref()).getDefiningOp();
      return def && stackBuffers.contains(def);
    }
    if (auto l = dyn_cast<memref::LoadOp>(op))
      return isRouted(l) && !isHostMemory(l.getMemRef());
    if (auto st = dyn_cast<memref::StoreOp>(op))
      return isRouted(st) && !isHostMemory(st.getMemRef());
    if (isa<memref::CopyOp>(op))
      return isRouted(op);
    if (auto g = dyn_cast<memref::GetGlobalOp>(op))
      return needsUpload(g);
    return false;
  }
  /// Whether a memref.get_global reads a program constant that must be
  /// uploaded (not one of this pass's globals, nor an upload's source).
  bool needsUpload(memref::GetGlobalOp g) const {
    if (!isRouted(g) || uploadSources.contains(g))
      return false;
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        g, g.getNameAttr());
    return !global || !rt.isOwnGlobal(global);
  }
  /// Records the host-side read of an uploaded constant.
  void addUploadSource(Operation *g) { uploadSources.insert(g); }

private:
  bool isHostFunction(func::FuncOp f) const;

  ModuleOp module;
  const RuntimeCalls &rt;
  llvm::DenseSet<Operation *> hostFunctions, stackBuffers, uploadSources;
};

bool HostMemoryPlan::isHostFunction(func::FuncOp f) const {
  if (!f || !f.isPrivate() || f.isExternal())
    return false;
  bool ok = true;
  f.walk([&](Operation *op) {
    if (isa<func::CallOp, gpu::LaunchOp, gpu::LaunchFuncOp>(op))
      ok = false;
  });
  for (BlockArgument arg : f.getArguments())
    if (isa<BaseMemRefType>(arg.getType()))
      for (Operation *user : arg.getUsers())
        if (!isa<memref::LoadOp, memref::StoreOp, memref::DimOp>(user))
          ok = false;
  return ok;
}

LogicalResult HostMemoryPlan::analyze() {
  module.walk([&](memref::AllocOp alloc) {
    if (!isOnHost(alloc) || !alloc->getParentOfType<func::FuncOp>())
      return;
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
        type.getNumElements() * runtimeElementBytes(type) > 4096)
      return;
    SmallVector<Value> values;
    castClosure(alloc.getResult(), values);
    SmallVector<Operation *> callees;
    for (Value v : values)
      for (Operation *user : v.getUsers()) {
        // Read or written by a kernel: device memory.
        if (!isOnHost(user))
          return;
        if (isa<memref::CastOp, memref::DeallocOp, memref::LoadOp,
                memref::StoreOp>(user))
          continue;
        auto call = dyn_cast<func::CallOp>(user);
        if (!call)
          return;
        auto f = module.lookupSymbol<func::FuncOp>(call.getCallee());
        if (!isHostFunction(f))
          return;
        callees.push_back(f);
      }
    hostFunctions.insert(callees.begin(), callees.end());
    stackBuffers.insert(alloc);
  });

  bool failedAny = false;
  module.walk([&](Operation *op) {
    if (!isRouted(op))
      return;
    if (auto g = dyn_cast<memref::GetGlobalOp>(op)) {
      if (!needsUpload(g))
        return;
      auto type = cast<MemRefType>(g.getType());
      if (!op->getParentOfType<func::FuncOp>()) {
        op->emitOpError("reads a global outside a function");
        failedAny = true;
      } else if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
        op->emitOpError("global of non-static shape or layout on a GPU "
                        "target");
        failedAny = true;
      }
      return;
    }
    if (auto c = dyn_cast<memref::CopyOp>(op)) {
      if (!isRowMajorContiguous(cast<MemRefType>(c.getSource().getType())) ||
          !isRowMajorContiguous(cast<MemRefType>(c.getTarget().getType()))) {
        op->emitOpError("copies a strided memref on the host; run "
                        "te-linalg-to-gpu first (it makes it a kernel)");
        failedAny = true;
      }
      return;
    }
    if (isa<memref::LoadOp, memref::StoreOp>(op) || allowedOnHost(op))
      return;
    if (llvm::any_of(op->getOperandTypes(), llvm::IsaPred<BaseMemRefType>)) {
      op->emitOpError("reads or writes tensor data on the host; on a GPU "
                      "target tensors live in device memory and te cannot "
                      "place this op on the GPU");
      failedAny = true;
    }
  });
  return failure(failedAny);
}

/// The base of the device-memory patterns.
template <typename OpTy> struct HostAccessLowering : OpRewritePattern<OpTy> {
  HostAccessLowering(MLIRContext *ctx, RuntimeCalls &rt, HostMemoryPlan &plan)
      : OpRewritePattern<OpTy>(ctx), rt(rt), plan(plan) {}

  RuntimeCalls &rt;
  HostMemoryPlan &plan;
};

/// A buffer that stays on the host: a stack slot at its function's entry.
struct StackBufferLowering : HostAccessLowering<memref::AllocOp> {
  using HostAccessLowering::HostAccessLowering;

  LogicalResult matchAndRewrite(memref::AllocOp alloc,
                                PatternRewriter &rewriter) const override {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(entryBlock(alloc));
    rewriter.replaceOpWithNewOp<memref::AllocaOp>(alloc, alloc.getType());
    return success();
  }
};

/// Its deallocs go.
struct StackBufferDeallocLowering : HostAccessLowering<memref::DeallocOp> {
  using HostAccessLowering::HostAccessLowering;

  LogicalResult matchAndRewrite(memref::DeallocOp dealloc,
                                PatternRewriter &rewriter) const override {
    rewriter.eraseOp(dealloc);
    return success();
  }
};

/// A contiguous copy: te_rt_mlir_copy.
struct HostCopyLowering : HostAccessLowering<memref::CopyOp> {
  using HostAccessLowering::HostAccessLowering;

  LogicalResult matchAndRewrite(memref::CopyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<MemRefType>(op.getSource().getType());
    CallOperands c(rt, rewriter, op);
    Value bytes =
        arith::MulIOp::create(rewriter, loc, c.numElements(op.getSource()),
                              c.i64(runtimeElementBytes(type)));
    rt.call(rewriter, loc, "te_rt_mlir_copy",
            {runtimeElementPointer(rewriter, loc, op.getTarget()),
             runtimeElementPointer(rewriter, loc, op.getSource()), bytes});
    rewriter.eraseOp(op);
    return success();
  }
};

/// A host load: te_rt_mlir_read of the element into a stack slot.
struct HostLoadLowering : HostAccessLowering<memref::LoadOp> {
  using HostAccessLowering::HostAccessLowering;

  LogicalResult matchAndRewrite(memref::LoadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value slot = memref::AllocaOp::create(rewriter, loc,
                                          MemRefType::get({1}, op.getType()));
    auto type = cast<MemRefType>(op.getMemRef().getType());
    rt.call(
        rewriter, loc, "te_rt_mlir_read",
        {runtimeElementPointer(rewriter, loc, slot),
         runtimeElementPointer(rewriter, loc, op.getMemRef(), op.getIndices()),
         rt.i64(rewriter, op, runtimeElementBytes(type))});
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    rewriter.replaceOpWithNewOp<memref::LoadOp>(op, slot, ValueRange{zero});
    return success();
  }
};

/// A host store: te_rt_mlir_write of the element from a stack slot.
struct HostStoreLowering : HostAccessLowering<memref::StoreOp> {
  using HostAccessLowering::HostAccessLowering;

  LogicalResult matchAndRewrite(memref::StoreOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value slot = memref::AllocaOp::create(
        rewriter, loc, MemRefType::get({1}, op.getValueToStore().getType()));
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    memref::StoreOp::create(rewriter, loc, op.getValueToStore(), slot,
                            ValueRange{zero});
    auto type = cast<MemRefType>(op.getMemRef().getType());
    rt.call(
        rewriter, loc, "te_rt_mlir_write",
        {runtimeElementPointer(rewriter, loc, op.getMemRef(), op.getIndices()),
         runtimeElementPointer(rewriter, loc, slot),
         rt.i64(rewriter, op, runtimeElementBytes(type))});
    rewriter.eraseOp(op);
    return success();
  }
};

/// A program constant read on the host: uploaded to a device buffer at the
/// very start of the function (before the constants this pass creates
/// there: everything it needs is made here), freed before every return
/// that does not hand it to the caller.
struct ConstantUploadLowering : HostAccessLowering<memref::GetGlobalOp> {
  using HostAccessLowering::HostAccessLowering;

  LogicalResult matchAndRewrite(memref::GetGlobalOp op,
                                PatternRewriter &rewriter) const override {
    auto func = op->getParentOfType<func::FuncOp>();
    auto type = cast<MemRefType>(op.getType());
    Location loc = op.getLoc();
    int64_t bytes = type.getNumElements() * runtimeElementBytes(type);
    Value dev;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&func.getBody().front());
      auto host =
          memref::GetGlobalOp::create(rewriter, loc, type, op.getName());
      plan.addUploadSource(host);
      dev = memref::AllocOp::create(rewriter, loc, type,
                                    rewriter.getI64IntegerAttr(64));
      rt.call(rewriter, loc, "te_rt_mlir_write",
              {runtimeElementPointer(rewriter, loc, dev),
               runtimeElementPointer(rewriter, loc, host),
               arith::ConstantIntOp::create(rewriter, loc, bytes, 64)});
    }
    func.walk([&](func::ReturnOp ret) {
      if (llvm::is_contained(ret.getOperands(), op.getResult()))
        return;
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(ret);
      memref::DeallocOp::create(rewriter, loc, dev);
    });
    rewriter.replaceOp(op, dev);
    return success();
  }
};

/// Conversion 2 on device memory.
LogicalResult lowerHostAccesses(ModuleOp module, RuntimeCalls &rt) {
  HostMemoryPlan plan(module, rt);
  if (failed(plan.analyze()))
    return failure();
  MLIRContext *ctx = module.getContext();
  ConversionTarget target(*ctx);
  RewritePatternSet patterns(ctx);
  patterns
      .add<StackBufferLowering, StackBufferDeallocLowering, HostCopyLowering,
           HostLoadLowering, HostStoreLowering, ConstantUploadLowering>(ctx, rt,
                                                                        plan);
  return convert(module, target, std::move(patterns),
                 [&](Operation *op) { return plan.needsRewrite(op); });
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Prints the LLVM struct of a function's results (a struct of memref
/// descriptors, what convert-to-llvm makes of a function with several memref
/// results) once, as the alias `!te_results`. The LLVM dialect prints a type
/// in full at every use, and every llvm.insertvalue that packs the results
/// names the whole struct: without the alias the text of a function with R
/// results grows as R^2 (a training step with 1000 weight gradients printed
/// 57 MB of types).
struct ResultsAliasInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Type type, raw_ostream &os) const override {
    auto s = dyn_cast<LLVM::LLVMStructType>(type);
    if (!s || s.isIdentified() || s.getBody().size() < 2 ||
        !llvm::all_of(s.getBody(), llvm::IsaPred<LLVM::LLVMStructType>))
      return AliasResult::NoAlias;
    os << "te_results";
    return AliasResult::OverridableAlias;
  }
};

struct ConvertTEToRuntimePass
    : public mlir::te::impl::ConvertTEToRuntimeBase<ConvertTEToRuntimePass> {
  using ConvertTEToRuntimeBase::ConvertTEToRuntimeBase;
  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertTEToRuntimeBase::getDependentDialects(registry);
    registry.insert<TEDialect>();
    registry.addExtension(+[](MLIRContext *, TEDialect *dialect) {
      dialect->addInterfaces<ResultsAliasInterface>();
    });
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    RuntimeCalls rt(module, deviceMemory);
    unsigned runtimeOnly = 0;
    if (failed(lowerTEOps(module, rt, runtimeOnly)))
      return signalPassFailure();
    if (failed(deviceMemory ? lowerHostAccesses(module, rt)
                            : lowerStridedCopies(module)))
      return signalPassFailure();
    numRuntimeOnlyBuffers += runtimeOnly;
    numQuantizeCalls += rt.getCallCount("te_rt_mlir_quantize") +
                        rt.getCallCount("te_rt_mlir_quantize_group") +
                        rt.getCallCount("te_rt_mlir_quantize_produced");
    numDequantizeCalls += rt.getCallCount("te_rt_mlir_dequantize");
    numGemmCalls += rt.getCallCount("te_rt_mlir_gemm");
    numAmaxCalls += rt.getCallCount("te_rt_mlir_amax");
    numUpdateScaleCalls += rt.getCallCount("te_rt_mlir_update_scale");
    numAllReduceMaxCalls += rt.getCallCount("te_rt_mlir_allreduce_max");
    numAttentionCalls += rt.getCallCount("te_rt_mlir_attention") +
                         rt.getCallCount("te_rt_mlir_attention_grad");
    numHostAccesses += rt.getCallCount("te_rt_mlir_read") +
                       rt.getCallCount("te_rt_mlir_write") +
                       rt.getCallCount("te_rt_mlir_copy");
    // Nothing te remains: drop the target so that the LLVM-dialect module
    // translates without the te dialect.
    module->removeAttr("te.target");
  }
};

} // namespace
