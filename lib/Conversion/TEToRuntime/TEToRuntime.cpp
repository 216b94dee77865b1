//===- TEToRuntime.cpp - Buffer-level te ops to libte_rt calls --*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// convert-te-to-runtime: every te.quantize_buffers / te.dequantize_buffers /
// te.gemm_buffers / te.amax_buffers / te.update_scale_buffers /
// te.allreduce_max_buffers on memrefs becomes a call of the runtime entry
// point of runtime/include/te_rt_abi.def (the process group of an
// all-reduce is passed by name, a constant string). The declarations and the
// quantizer descriptors are generated from that table; nothing here re-types
// it.
//
// What it emits is meant to stay small (docs/performance.md "Compile time"):
// constants, the null pointer and the descriptors' addresses are created once
// per function at its entry, each memref's pointer once after its
// definition, and a buffer that only the runtime sees (a memref.alloc whose
// every use is a call operand or its memref.dealloc) is allocated with
// aligned_alloc and released with free as a plain pointer, without a memref
// descriptor.
//
//===----------------------------------------------------------------------===//

#include "te/Conversion/Passes.h"

#include "te/Conversion/DeviceMemory.h"

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
#include "te/Conversion/RuntimeAbi.h"
#include "te/Dialect/TE/IR/BufferExtents.h"
#include "te/Dialect/TE/IR/TEAttrs.h"
#include "te/Dialect/TE/IR/TEDialect.h"
#include "te/Dialect/TE/IR/TEOps.h"

#include "te_rt.h"
// The table's constants (TE_RT_ABI_MAX_BUFFERS, TE_RT_ABI_QUANTIZER_MAGIC).
#include "te_rt_abi.def"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

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

/// The descriptor of a quantizer: TE_RT_ABI_QUANTIZER_MAGIC, then the
/// fields of the table.
template <typename T> int64_t encodeField(T v) {
  return static_cast<int64_t>(v);
}
int64_t encodeField(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return static_cast<int64_t>(bits);
}

SmallVector<int64_t> encodeQuantizer(const ::te::format::QuantizerConfig &c) {
  SmallVector<int64_t> out{TE_RT_ABI_QUANTIZER_MAGIC};
#define TE_RT_ABI_QUANTIZER_FIELD(cField, configField)                         \
  out.push_back(encodeField(c.configField));
#include "te_rt_abi.def"
  return out;
}

//===----------------------------------------------------------------------===//
// Lowering state
//===----------------------------------------------------------------------===//

int64_t elementBytes(MemRefType type) { return runtimeElementBytes(type); }

class Lowering {
public:
  Lowering(ModuleOp module, bool deviceMemory)
      : module(module), ctx(module.getContext()),
        ptrType(LLVM::LLVMPointerType::get(ctx)), deviceMemory(deviceMemory) {}

  LogicalResult run();

private:
  /// The private declaration of an entry point (created once).
  func::FuncOp declare(StringRef name) {
    return declareRuntimeEntryPoint(module, name);
  }

  /// A pointer to the descriptor of `q` (one constant global per quantizer).
  Value descriptor(OpBuilder &b, Location loc, QuantizerAttrInterface q) {
    auto it = globals.find(q);
    if (it == globals.end()) {
      SmallVector<int64_t> words = encodeQuantizer(q.getFormatConfig());
      auto type = MemRefType::get({static_cast<int64_t>(words.size())},
                                  IntegerType::get(ctx, 64));
      auto tensorType =
          RankedTensorType::get(type.getShape(), type.getElementType());
      std::string name = "__te_quantizer_" + std::to_string(globals.size());
      OpBuilder gb = OpBuilder::atBlockBegin(module.getBody());
      auto g = memref::GlobalOp::create(
          gb, module.getLoc(), name, gb.getStringAttr("private"), type,
          DenseElementsAttr::get(tensorType, ArrayRef<int64_t>(words)),
          /*constant=*/true, /*alignment=*/gb.getI64IntegerAttr(8));
      it = globals.insert({q, g}).first;
    }
    return globalPointer(loc, it->second);
  }

  /// The address of global `g`, created once per function at its entry.
  Value globalPointer(Location loc, memref::GlobalOp g) {
    Value &p = globalPointers[{entry, g.getOperation()}];
    if (!p) {
      OpBuilder eb = OpBuilder::atBlockBegin(entry);
      Value m =
          memref::GetGlobalOp::create(eb, loc, g.getType(), g.getSymName());
      p = pointer(eb, loc, m);
    }
    return p;
  }

  /// An integer constant, created once per function at its entry.
  Value intConstant(Location loc, int64_t v, unsigned width) {
    Value &c = constants[{entry, width, v}];
    if (!c) {
      OpBuilder eb = OpBuilder::atBlockBegin(entry);
      c = arith::ConstantIntOp::create(eb, loc, v, width);
    }
    return c;
  }
  Value i64c(OpBuilder &, Location loc, int64_t v) {
    return intConstant(loc, v, 64);
  }
  Value i32c(OpBuilder &, Location loc, int64_t v) {
    return intConstant(loc, v, 32);
  }
  /// The null pointer, created once per function at its entry.
  Value null(OpBuilder &, Location loc) {
    Value &z = nulls[entry];
    if (!z) {
      OpBuilder eb = OpBuilder::atBlockBegin(entry);
      z = LLVM::ZeroOp::create(eb, loc, ptrType);
    }
    return z;
  }

  /// The aligned pointer of an identity-layout memref: created once per
  /// memref, right after its definition (or a raw allocation's pointer).
  Value pointer(OpBuilder &b, Location loc, Value memref) {
    auto it = pointers.find(memref);
    if (it != pointers.end())
      return it->second;
    OpBuilder pb(ctx);
    if (Operation *def = memref.getDefiningOp())
      pb.setInsertionPointAfter(def);
    else
      pb.setInsertionPointToStart(memref.getParentBlock());
    Value idx = memref::ExtractAlignedPointerAsIndexOp::create(pb, loc, memref);
    Value i64 =
        arith::IndexCastOp::create(pb, loc, IntegerType::get(ctx, 64), idx);
    Value p = LLVM::IntToPtrOp::create(pb, loc, ptrType, i64);
    pointers[memref] = p;
    return p;
  }

  /// A memref.alloc that only the runtime sees becomes aligned_alloc (its
  /// pointer then stands for the memref in `pointers`), and its
  /// memref.deallocs become free. Returns false (and changes nothing) for
  /// any other alloc.
  bool allocateRaw(memref::AllocOp alloc);

  /// A pointer to `memref`'s elements in row-major order. A memref with a
  /// non-identity layout is copied into a fresh contiguous one (copied back
  /// after the call when `written`; freed after the call).
  Value operandPointer(OpBuilder &b, Location loc, Value memref, bool read,
                       bool written) {
    auto type = cast<MemRefType>(memref.getType());
    if (type.getLayout().isIdentity())
      return pointer(b, loc, memref);
    if (deviceMemory && isRowMajorContiguous(type))
      return elementPointer(b, loc, memref, {});
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(memref::DimOp::create(b, loc, memref, i));
    auto contiguous = MemRefType::get(type.getShape(), type.getElementType());
    Value tmp = memref::AllocOp::create(b, loc, contiguous, dyn);
    if (read)
      copy(b, loc, memref, tmp);
    after.push_back({tmp, written ? memref : Value()});
    return pointer(b, loc, tmp);
  }

  /// A copy of one memref into another: memref.copy on host memory; on
  /// device memory a linalg.copy (a kernel, te-linalg-to-gpu) where a
  /// layout is strided, else memref.copy (te_rt_mlir_copy, below).
  void copy(OpBuilder &b, Location loc, Value from, Value to) {
    if (deviceMemory &&
        (!isRowMajorContiguous(cast<MemRefType>(from.getType())) ||
         !isRowMajorContiguous(cast<MemRefType>(to.getType()))))
      linalg::CopyOp::create(b, loc, from, to);
    else
      memref::CopyOp::create(b, loc, from, to);
  }

  /// Emits the copy-backs and frees of operandPointer after the call.
  void finish(OpBuilder &b, Location loc) {
    for (auto [tmp, dst] : after) {
      if (dst)
        copy(b, loc, tmp, dst);
      memref::DeallocOp::create(b, loc, tmp);
    }
    after.clear();
  }

  /// rows = product of the leading dimensions, cols = the last one.
  std::pair<Value, Value> flatten(OpBuilder &b, Location loc, Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    auto dim = [&](int64_t i) -> Value {
      if (!type.isDynamicDim(i))
        return i64c(b, loc, type.getDimSize(i));
      Value d = memref::DimOp::create(b, loc, memref, i);
      return arith::IndexCastOp::create(b, loc, IntegerType::get(ctx, 64), d);
    };
    int64_t rank = type.getRank();
    if (rank == 0)
      return {i64c(b, loc, 1), i64c(b, loc, 1)};
    // The static leading dimensions multiplied here, the dynamic ones in
    // the program.
    int64_t staticRows = 1;
    for (int64_t i = 0; i + 1 < rank; ++i)
      if (!type.isDynamicDim(i))
        staticRows *= type.getDimSize(i);
    Value rows = i64c(b, loc, staticRows);
    for (int64_t i = 0; i + 1 < rank; ++i)
      if (type.isDynamicDim(i))
        rows = arith::MulIOp::create(b, loc, rows, dim(i));
    return {rows, dim(rank - 1)};
  }

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

  /// Appends `bufs` as kMaxBuffers pointers (null-padded).
  LogicalResult appendBuffers(Operation *op, OpBuilder &b, Location loc,
                              ValueRange bufs, bool read, bool written,
                              SmallVectorImpl<Value> &args) {
    if (bufs.size() > static_cast<size_t>(kMaxBuffers))
      return op->emitOpError("has ")
             << bufs.size() << " buffers; the runtime ABI passes at most "
             << kMaxBuffers;
    for (Value v : bufs)
      args.push_back(operandPointer(b, loc, v, read, written));
    for (size_t i = bufs.size(); i < static_cast<size_t>(kMaxBuffers); ++i)
      args.push_back(null(b, loc));
    return success();
  }

  LogicalResult checkMemRefs(Operation *op) {
    for (Value v : op->getOperands())
      if (isa<TensorType>(v.getType()))
        return op->emitOpError(
            "is still on tensors; run one-shot bufferization before "
            "convert-te-to-runtime");
    return success();
  }

  void call(OpBuilder &b, Location loc, StringRef name, ValueRange args) {
    func::CallOp::create(b, loc, declare(name), args);
    finish(b, loc);
  }

  LogicalResult lower(QuantizeBuffersOp op);
  LogicalResult lower(DequantizeBuffersOp op);
  LogicalResult lower(GemmBuffersOp op);
  LogicalResult lower(AmaxBuffersOp op);
  LogicalResult lower(UpdateScaleBuffersOp op);
  LogicalResult lower(AllReduceMaxBuffersOp op);

  /// A pointer to the NUL-terminated name `text` (one constant global per
  /// distinct string).
  Value cString(OpBuilder &b, Location loc, StringRef text) {
    auto it = strings.find(text);
    if (it == strings.end()) {
      SmallVector<int8_t> bytes(text.begin(), text.end());
      bytes.push_back(0);
      auto i8 = IntegerType::get(ctx, 8);
      auto type = MemRefType::get({static_cast<int64_t>(bytes.size())}, i8);
      auto tensorType = RankedTensorType::get(type.getShape(), i8);
      std::string name = "__te_string_" + std::to_string(strings.size());
      OpBuilder gb = OpBuilder::atBlockBegin(module.getBody());
      auto g = memref::GlobalOp::create(
          gb, module.getLoc(), name, gb.getStringAttr("private"), type,
          DenseElementsAttr::get(tensorType, ArrayRef<int8_t>(bytes)),
          /*constant=*/true, /*alignment=*/IntegerAttr());
      it = strings.insert({text, g}).first;
    }
    return globalPointer(loc, it->second);
  }

  /// Copies `from` into `to` unless they are the same buffer.
  void copyIfDistinct(OpBuilder &b, Location loc, Value from, Value to) {
    if (from != to)
      copy(b, loc, from, to);
  }

  /// The number of elements of a memref, as i64.
  Value numElements(OpBuilder &b, Location loc, Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    if (type.hasStaticShape())
      return i64c(b, loc, type.getNumElements());
    auto [rows, cols] = flatten(b, loc, memref);
    return arith::MulIOp::create(b, loc, rows, cols);
  }

  /// Device memory (GPU targets): the host-side accesses of memrefs.
  LogicalResult lowerHostCopy(memref::CopyOp op);
  LogicalResult lowerHostLoad(memref::LoadOp op);
  LogicalResult lowerHostStore(memref::StoreOp op);
  LogicalResult uploadGlobal(memref::GetGlobalOp op);
  LogicalResult lowerHostAccesses();
  /// The address of element `indices` of `memref` (the start with none).
  Value elementPointer(OpBuilder &b, Location loc, Value memref,
                       ValueRange indices);
  /// Bytes of the elements of `memref`, as i64.
  Value byteSize(OpBuilder &b, Location loc, Value memref);

  ModuleOp module;
  MLIRContext *ctx;
  Type ptrType;
  bool deviceMemory;
  llvm::DenseMap<Attribute, memref::GlobalOp> globals;
  llvm::StringMap<memref::GlobalOp> strings;
  SmallVector<std::pair<Value, Value>> after;
  /// The entry block of the function of the op being lowered, where the
  /// per-function values below live.
  Block *entry = nullptr;
  llvm::DenseMap<std::tuple<Block *, unsigned, int64_t>, Value> constants;
  llvm::DenseMap<Block *, Value> nulls;
  llvm::DenseMap<std::pair<Block *, Operation *>, Value> globalPointers;
  llvm::DenseMap<Value, Value> pointers;
  std::optional<FailureOr<LLVM::LLVMFuncOp>> alignedAlloc, freeFn;
};

/// The ops whose memref operands all reach the runtime as pointers only
/// (operandPointer / appendBuffers; no memref.copy, no dim of a static
/// shape).
bool passesOnlyPointers(Operation *op) {
  return isa<QuantizeBuffersOp, DequantizeBuffersOp, GemmBuffersOp,
             AmaxBuffersOp>(op);
}

bool Lowering::allocateRaw(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getMemorySpace() || !type.getElementType().isIntOrFloat() ||
      type.getElementTypeBitWidth() % 8 != 0)
    return false;
  SmallVector<memref::DeallocOp> deallocs;
  for (Operation *user : alloc->getUsers()) {
    if (auto d = dyn_cast<memref::DeallocOp>(user))
      deallocs.push_back(d);
    else if (!passesOnlyPointers(user))
      return false;
  }
  // aligned_alloc wants a power-of-two alignment and a size that is a
  // multiple of it (C11); an empty buffer still gets one block, so that the
  // runtime never sees a null buffer.
  uint64_t alignment =
      std::max<uint64_t>(alloc.getAlignment().value_or(16), 16);
  uint64_t bytes = static_cast<uint64_t>(type.getNumElements()) *
                   (type.getElementTypeBitWidth() / 8);
  bytes = std::max(llvm::alignTo(bytes, alignment), alignment);
  entry =
      &alloc->getParentOfType<FunctionOpInterface>().getFunctionBody().front();
  OpBuilder b(alloc);
  Location loc = alloc.getLoc();
  if (deviceMemory) {
    // The context's memory, stream-ordered (te_rt_mlir_alloc/free).
    Value p = func::CallOp::create(
                  b, loc, declare("te_rt_mlir_alloc"),
                  ValueRange{i64c(b, loc, static_cast<int64_t>(bytes)),
                             i64c(b, loc, static_cast<int64_t>(alignment))})
                  .getResult(0);
    pointers[alloc.getResult()] = p;
    for (memref::DeallocOp d : deallocs) {
      OpBuilder db(d);
      func::CallOp::create(db, d.getLoc(), declare("te_rt_mlir_free"),
                           ValueRange{p});
      d.erase();
    }
    return true;
  }
  if (!alignedAlloc) {
    // The declarations the memref lowering would create (and reuses).
    alignedAlloc = LLVM::lookupOrCreateAlignedAllocFn(
        b, module, IntegerType::get(ctx, 64));
    freeFn = LLVM::lookupOrCreateFreeFn(b, module);
  }
  if (failed(*alignedAlloc) || failed(*freeFn))
    return false;
  Value p = LLVM::CallOp::create(
                b, loc, **alignedAlloc,
                ValueRange{i64c(b, loc, static_cast<int64_t>(alignment)),
                           i64c(b, loc, static_cast<int64_t>(bytes))})
                .getResult();
  pointers[alloc.getResult()] = p;
  for (memref::DeallocOp d : deallocs) {
    OpBuilder db(d);
    LLVM::CallOp::create(db, d.getLoc(), **freeFn, ValueRange{p});
    d.erase();
  }
  return true;
}

bool isDelayed(QuantizerAttrInterface q) {
  return q.getFormatConfig().recipe == ::te::format::Recipe::Delayed;
}

LogicalResult Lowering::lower(QuantizeBuffersOp op) {
  if (failed(checkMemRefs(op)))
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto q = cast<QuantizerAttrInterface>(op.getQuantizer());
  FailureOr<int64_t> xDtype = dtypeCode(op, op.getInput());
  if (failed(xDtype))
    return failure();
  ValueRange outs = op.getOuts();
  Value amax;
  if (isDelayed(q)) {
    if (outs.empty())
      return op.emitOpError("delayed scaling needs the amax output");
    amax = outs.back();
    outs = outs.drop_back();
  }
  auto [rows, cols] = flatten(b, loc, op.getInput());
  SmallVector<Value> args;
  if (std::optional<StringRef> group = op.getGroup())
    args.push_back(cString(b, loc, *group));
  args.append({descriptor(b, loc, q),
               i32c(b, loc, static_cast<int64_t>(toFormat(op.getUsage()))),
               i32c(b, loc, targetCode(op)), rows, cols, i32c(b, loc, *xDtype),
               operandPointer(b, loc, op.getInput(), true, false)});
  if (failed(appendBuffers(op, b, loc, outs, false, true, args)))
    return failure();
  args.push_back(op.getScale()
                     ? operandPointer(b, loc, op.getScale(), true, false)
                     : null(b, loc));
  args.push_back(amax ? operandPointer(b, loc, amax, false, true)
                      : null(b, loc));
  args.push_back(op.getSeed() ? op.getSeed() : i64c(b, loc, 0));
  args.push_back(op.getOffset() ? op.getOffset() : i64c(b, loc, 0));
  call(b, loc,
       op.getGroup() ? "te_rt_mlir_quantize_group" : "te_rt_mlir_quantize",
       args);
  op.erase();
  return success();
}

LogicalResult Lowering::lower(DequantizeBuffersOp op) {
  if (failed(checkMemRefs(op)))
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  if (op.getOuts().size() != 1)
    return op.emitOpError("expects one output");
  Value out = op.getOuts()[0];
  FailureOr<int64_t> outDtype = dtypeCode(op, out);
  if (failed(outDtype))
    return failure();
  auto q = cast<QuantizerAttrInterface>(op.getQuantizer());
  auto [rows, cols] = flatten(b, loc, out);
  SmallVector<Value> args{
      descriptor(b, loc, q),
      i32c(b, loc, static_cast<int64_t>(toFormat(op.getUsage()))),
      i32c(b, loc, targetCode(op)), rows, cols};
  if (failed(appendBuffers(op, b, loc, op.getInputs(), true, false, args)))
    return failure();
  args.push_back(i32c(b, loc, *outDtype));
  args.push_back(operandPointer(b, loc, out, false, true));
  call(b, loc, "te_rt_mlir_dequantize", args);
  op.erase();
  return success();
}

LogicalResult Lowering::lower(GemmBuffersOp op) {
  if (failed(checkMemRefs(op)))
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto aq = cast<QuantizerAttrInterface>(op.getAQuantizer());
  auto bq = cast<QuantizerAttrInterface>(op.getBQuantizer());
  // An operand's logical [rows, cols] as i64: static sizes from its shape,
  // dynamic ones read from its buffers (the Format library's extents).
  auto flat2D = [&](QuantizerAttrInterface q, Usage usage,
                    ArrayRef<int64_t> shape, ValueRange buffers, Value &rows,
                    Value &cols) -> LogicalResult {
    if (shape.empty())
      return op.emitOpError("needs operands of rank >= 1");
    auto emitError = [&] { return op.emitOpError(); };
    FailureOr<OpFoldResult> m =
        emitRows(b, loc, q, usage, getTarget(op), shape, buffers, emitError);
    if (failed(m))
      return failure();
    OpFoldResult k = b.getIndexAttr(shape.back());
    if (ShapedType::isDynamic(shape.back())) {
      FailureOr<SmallVector<OpFoldResult>> dims = emitLogicalSizes(
          b, loc, q, usage, getTarget(op), shape, buffers, emitError);
      if (failed(dims))
        return failure();
      k = dims->back();
    }
    auto i64 = [&](OpFoldResult d) -> Value {
      if (std::optional<int64_t> c = getConstantIntValue(d))
        return i64c(b, loc, *c);
      return arith::IndexCastOp::create(b, loc, IntegerType::get(ctx, 64),
                                        cast<Value>(d));
    };
    rows = i64(*m);
    cols = i64(k);
    return success();
  };
  Value aRows, aCols, bRows, bCols;
  if (failed(flat2D(aq, op.getAUsage(), op.getAShape(), op.getA(), aRows,
                    aCols)) ||
      failed(
          flat2D(bq, op.getBUsage(), op.getBShape(), op.getB(), bRows, bCols)))
    return failure();
  // The runtime's enums have Format's values (runtime/lib/Api.cpp).
  ::te::format::GemmLayout layout = toFormat(op.getLayout());
  ::te::format::GemmAxes axes = ::te::format::gemmAxes(layout);
  Value n = axes.aN == 0 ? aRows : aCols;
  Value m = axes.bM == 0 ? bRows : bCols;
  SmallVector<Value> args{i32c(b, loc, targetCode(op)),
                          i32c(b, loc, static_cast<int64_t>(layout))};
  args.append({descriptor(b, loc, aq),
               i32c(b, loc, static_cast<int64_t>(toFormat(op.getAUsage()))),
               aRows, aCols});
  if (failed(appendBuffers(op, b, loc, op.getA(), true, false, args)))
    return failure();
  args.append({descriptor(b, loc, bq),
               i32c(b, loc, static_cast<int64_t>(toFormat(op.getBUsage()))),
               bRows, bCols});
  if (failed(appendBuffers(op, b, loc, op.getB(), true, false, args)))
    return failure();

  ValueRange outs = op.getOuts();
  auto outQ = op.getOutQuantizer()
                  ? cast<QuantizerAttrInterface>(*op.getOutQuantizer())
                  : QuantizerAttrInterface();
  Value d, outAmax;
  if (!outQ) {
    if (outs.size() != 1)
      return op.emitOpError("expects one output without an output quantizer");
    d = outs[0];
  } else if (isDelayed(outQ)) {
    if (outs.empty())
      return op.emitOpError("delayed output quantizer needs the amax output");
    outAmax = outs.back();
    outs = outs.drop_back();
  }
  // D.
  int64_t dDtype = TE_RT_F32;
  if (d) {
    FailureOr<int64_t> code = dtypeCode(op, d);
    if (failed(code))
      return failure();
    dDtype = *code;
  }
  args.append(
      {i32c(b, loc, dDtype), m, n,
       d ? operandPointer(b, loc, d, op.getAccumulate(), true) : null(b, loc)});
  // Bias.
  int64_t biasDtype = TE_RT_F32;
  if (op.getBias()) {
    FailureOr<int64_t> code = dtypeCode(op, op.getBias());
    if (failed(code))
      return failure();
    biasDtype = *code;
  }
  args.append({i32c(b, loc, biasDtype),
               op.getBias() ? operandPointer(b, loc, op.getBias(), true, false)
                            : null(b, loc),
               i32c(b, loc, op.getAccumulate() ? 1 : 0),
               i32c(b, loc, op.getUseSplitAccumulator() ? 1 : 0)});
  // Output quantizer.
  args.push_back(outQ ? descriptor(b, loc, outQ) : null(b, loc));
  if (outQ) {
    if (failed(appendBuffers(op, b, loc, outs, false, true, args)))
      return failure();
  } else {
    for (int i = 0; i < kMaxBuffers; ++i)
      args.push_back(null(b, loc));
  }
  args.push_back(op.getOutScale()
                     ? operandPointer(b, loc, op.getOutScale(), true, false)
                     : null(b, loc));
  args.push_back(outAmax ? operandPointer(b, loc, outAmax, false, true)
                         : null(b, loc));
  call(b, loc, "te_rt_mlir_gemm", args);
  op.erase();
  return success();
}

LogicalResult Lowering::lower(AmaxBuffersOp op) {
  if (failed(checkMemRefs(op)))
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  FailureOr<int64_t> xDtype = dtypeCode(op, op.getInput());
  if (failed(xDtype))
    return failure();
  SmallVector<Value> args{i32c(b, loc, *xDtype),
                          numElements(b, loc, op.getInput()),
                          operandPointer(b, loc, op.getInput(), true, false),
                          operandPointer(b, loc, op.getOuts()[0], false, true)};
  call(b, loc, "te_rt_mlir_amax", args);
  op.erase();
  return success();
}

LogicalResult Lowering::lower(UpdateScaleBuffersOp op) {
  if (failed(checkMemRefs(op)))
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  // The entry point updates history and scale in place: copy the inputs
  // into the outputs first.
  Value history = op.getOuts()[0], scale = op.getOuts()[1];
  copyIfDistinct(b, loc, op.getHistory(), history);
  copyIfDistinct(b, loc, op.getScale(), scale);
  auto q = cast<QuantizerAttrInterface>(op.getQuantizer());
  SmallVector<Value> args{
      descriptor(b, loc, q), operandPointer(b, loc, op.getAmax(), true, false),
      operandPointer(b, loc, history, true, true), numElements(b, loc, history),
      operandPointer(b, loc, scale, true, true)};
  call(b, loc, "te_rt_mlir_update_scale", args);
  op.erase();
  return success();
}

LogicalResult Lowering::lower(AllReduceMaxBuffersOp op) {
  if (failed(checkMemRefs(op)))
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value out = op.getOuts()[0];
  copyIfDistinct(b, loc, op.getInput(), out);
  SmallVector<Value> args{cString(b, loc, op.getGroup()),
                          operandPointer(b, loc, out, true, true),
                          numElements(b, loc, out)};
  call(b, loc, "te_rt_mlir_allreduce_max", args);
  op.erase();
  return success();
}

LogicalResult Lowering::run() {
  SmallVector<Operation *> ops;
  bool refused = false;
  module.walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::te::BufferLevelOp>())
      ops.push_back(op);
    else if (isa<AmaxOp, UpdateScaleOp, AllReduceMaxOp>(op)) {
      op->emitOpError("has no runtime lowering on tensors: run "
                      "te-expand-qtensors and one-shot bufferization first");
      refused = true;
    }
  });
  if (refused)
    return failure();
  // Buffers only the runtime sees: plain pointers.
  SmallVector<memref::AllocOp> allocs, raw;
  module.walk([&](memref::AllocOp alloc) {
    if (alloc->getParentOfType<FunctionOpInterface>())
      allocs.push_back(alloc);
  });
  for (memref::AllocOp alloc : allocs)
    if (allocateRaw(alloc))
      raw.push_back(alloc);
  for (Operation *op : ops) {
    entry = nullptr;
    if (auto f = op->getParentOfType<FunctionOpInterface>())
      entry = &f.getFunctionBody().front();
    else
      return op->emitOpError("is not in a function");
    LogicalResult r =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case<QuantizeBuffersOp, DequantizeBuffersOp, GemmBuffersOp,
                  AmaxBuffersOp, UpdateScaleBuffersOp, AllReduceMaxBuffersOp>(
                [&](auto o) { return lower(o); })
            .Default([](Operation *o) {
              return o->emitOpError("has no runtime lowering");
            });
    if (failed(r))
      return failure();
  }
  for (memref::AllocOp alloc : raw)
    alloc.erase();
  if (deviceMemory)
    return lowerHostAccesses();
  // Host memory: a copy the memref lowering would not make one memcpy
  // becomes linalg.copy, i.e. loops (convert-linalg-to-loops); that
  // lowering would call `memrefCopy` of MLIR's C runner utilities, which
  // neither te-run nor an AOT object links. It makes a memcpy only of
  // identity layouts and of static shapes laid out row-major without gaps:
  // not of a column block (tensor.insert_slice at a column offset), a
  // qtensor yielded by scf.if, nor a slice with a dynamic size (a whole
  // dynamic batch taken as one microbatch).
  auto memcpyable = [](MemRefType t) {
    return t.getLayout().isIdentity() ||
           (t.hasStaticShape() && isRowMajorContiguous(t));
  };
  SmallVector<memref::CopyOp> strided;
  module.walk([&](memref::CopyOp c) {
    auto from = dyn_cast<MemRefType>(c.getSource().getType());
    auto to = dyn_cast<MemRefType>(c.getTarget().getType());
    if (from && to && (!memcpyable(from) || !memcpyable(to)))
      strided.push_back(c);
  });
  for (memref::CopyOp c : strided) {
    OpBuilder b(c);
    linalg::CopyOp::create(b, c.getLoc(), c.getSource(), c.getTarget());
    c.erase();
  }
  return success();
}

Value Lowering::byteSize(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t bytes = elementBytes(type);
  return arith::MulIOp::create(b, loc, numElements(b, loc, memref),
                               i64c(b, loc, bytes));
}

Value Lowering::elementPointer(OpBuilder &b, Location loc, Value memref,
                               ValueRange indices) {
  return runtimeElementPointer(b, loc, memref, indices);
}

LogicalResult Lowering::lowerHostCopy(memref::CopyOp op) {
  auto from = cast<MemRefType>(op.getSource().getType());
  auto to = cast<MemRefType>(op.getTarget().getType());
  if (!isRowMajorContiguous(from) || !isRowMajorContiguous(to))
    return op.emitOpError("copies a strided memref on the host; run "
                          "te-linalg-to-gpu first (it makes it a kernel)");
  OpBuilder b(op);
  Location loc = op.getLoc();
  func::CallOp::create(b, loc, declare("te_rt_mlir_copy"),
                       ValueRange{elementPointer(b, loc, op.getTarget(), {}),
                                  elementPointer(b, loc, op.getSource(), {}),
                                  byteSize(b, loc, op.getSource())});
  op.erase();
  return success();
}

LogicalResult Lowering::lowerHostLoad(memref::LoadOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto slotType = MemRefType::get({1}, op.getType());
  Value slot = memref::AllocaOp::create(b, loc, slotType);
  auto type = cast<MemRefType>(op.getMemRef().getType());
  int64_t bytes = elementBytes(type);
  func::CallOp::create(
      b, loc, declare("te_rt_mlir_read"),
      ValueRange{elementPointer(b, loc, slot, {}),
                 elementPointer(b, loc, op.getMemRef(), op.getIndices()),
                 i64c(b, loc, bytes)});
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value v = memref::LoadOp::create(b, loc, slot, ValueRange{zero});
  op.getResult().replaceAllUsesWith(v);
  op.erase();
  return success();
}

LogicalResult Lowering::lowerHostStore(memref::StoreOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto slotType = MemRefType::get({1}, op.getValueToStore().getType());
  Value slot = memref::AllocaOp::create(b, loc, slotType);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  memref::StoreOp::create(b, loc, op.getValueToStore(), slot, ValueRange{zero});
  auto type = cast<MemRefType>(op.getMemRef().getType());
  int64_t bytes = elementBytes(type);
  func::CallOp::create(
      b, loc, declare("te_rt_mlir_write"),
      ValueRange{elementPointer(b, loc, op.getMemRef(), op.getIndices()),
                 elementPointer(b, loc, slot, {}), i64c(b, loc, bytes)});
  op.erase();
  return success();
}

LogicalResult Lowering::uploadGlobal(memref::GetGlobalOp op) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func)
    return op.emitOpError("reads a global outside a function");
  auto type = cast<MemRefType>(op.getType());
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return op.emitOpError("global of non-static shape or layout on a GPU "
                          "target");
  Location loc = op.getLoc();
  // At the very start of the function (before the constants this pass
  // creates there): everything it needs is made here.
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  int64_t bytes = type.getNumElements() * (elementBytes(type));
  Value host = memref::GetGlobalOp::create(b, loc, type, op.getName());
  Value dev = memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(64));
  func::CallOp::create(
      b, loc, declare("te_rt_mlir_write"),
      ValueRange{elementPointer(b, loc, dev, {}),
                 elementPointer(b, loc, host, {}),
                 arith::ConstantIntOp::create(b, loc, bytes, 64)});
  op.getResult().replaceAllUsesWith(dev);
  op.erase();
  // Freed before every return that does not hand it to the caller.
  func.walk([&](func::ReturnOp ret) {
    if (llvm::is_contained(ret.getOperands(), dev))
      return;
    OpBuilder rb(ret);
    memref::DeallocOp::create(rb, loc, dev);
  });
  return success();
}

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

/// Small buffers only the host reads and writes stay in host memory, on the
/// stack of their function: the bookkeeping of upstream's deallocation
/// (bufferization-lower-deallocations' base-pointer and ownership arrays and
/// its `dealloc_helper` function) and the like. A buffer qualifies when it
/// has a static shape of at most 4 KiB and every use of it (through
/// memref.cast) is a host memref.load/store, its memref.dealloc, or an
/// operand of a call of a private function of the module that only loads
/// and stores its memref arguments and calls nothing. Such functions are
/// returned in `hostFunctions`: their accesses stay host accesses. The
/// allocation becomes a memref.alloca at the function's entry (one per
/// call; its uses never outlive one iteration of the block they are in).
void keepHostBuffersOnHost(ModuleOp module,
                           llvm::DenseSet<Operation *> &hostFunctions) {
  auto isHostFunction = [&](func::FuncOp f) {
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
  };
  SmallVector<memref::AllocOp> candidates;
  module.walk([&](memref::AllocOp alloc) {
    if (!isOnHost(alloc) || !alloc->getParentOfType<func::FuncOp>())
      return;
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
        type.getNumElements() * elementBytes(type) > 4096)
      return;
    SmallVector<Value> values;
    castClosure(alloc.getResult(), values);
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
        hostFunctions.insert(f);
      }
    candidates.push_back(alloc);
  });
  for (memref::AllocOp alloc : candidates) {
    auto func = alloc->getParentOfType<func::FuncOp>();
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    Value slot = memref::AllocaOp::create(b, alloc.getLoc(), alloc.getType());
    SmallVector<Value> values;
    castClosure(alloc.getResult(), values);
    for (Value v : values)
      for (Operation *user : llvm::make_early_inc_range(v.getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
    alloc.getResult().replaceAllUsesWith(slot);
    alloc.erase();
  }
}

/// Whether `m` is host memory: a stack slot, through memref.casts.
bool isStackSlot(Value m) {
  while (auto c = m.getDefiningOp<memref::CastOp>())
    m = c.getSource();
  return m.getDefiningOp<memref::AllocaOp>() != nullptr;
}

LogicalResult Lowering::lowerHostAccesses() {
  llvm::DenseSet<Operation *> hostFunctions;
  keepHostBuffersOnHost(module, hostFunctions);
  // Program globals read on the host (not te's descriptors and names).
  SmallVector<memref::GetGlobalOp> uploads;
  SmallVector<Operation *> accesses;
  llvm::DenseSet<Operation *> ownGlobals;
  for (auto &[_, g] : globals)
    ownGlobals.insert(g);
  for (auto &entry : strings)
    ownGlobals.insert(entry.second);
  bool failedAny = false;
  module.walk([&](Operation *op) {
    if (!isOnHost(op))
      return;
    if (auto f = op->getParentOfType<func::FuncOp>();
        f && hostFunctions.contains(f))
      return;
    if (auto g = dyn_cast<memref::GetGlobalOp>(op)) {
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          op, g.getNameAttr());
      if (!global || !ownGlobals.contains(global))
        uploads.push_back(g);
      return;
    }
    if (isa<memref::CopyOp, memref::LoadOp, memref::StoreOp>(op)) {
      Value m = isa<memref::LoadOp>(op) ? cast<memref::LoadOp>(op).getMemRef()
                : isa<memref::StoreOp>(op)
                    ? cast<memref::StoreOp>(op).getMemRef()
                    : Value();
      // Stack slots are host memory.
      if (m && isStackSlot(m))
        return;
      accesses.push_back(op);
      return;
    }
    if (allowedOnHost(op))
      return;
    if (llvm::any_of(op->getOperandTypes(), llvm::IsaPred<BaseMemRefType>)) {
      op->emitOpError("reads or writes tensor data on the host; on a GPU "
                      "target tensors live in device memory and te cannot "
                      "place this op on the GPU");
      failedAny = true;
    }
  });
  if (failedAny)
    return failure();
  for (memref::GetGlobalOp g : uploads) {
    if (auto f = g->getParentOfType<FunctionOpInterface>())
      entry = &f.getFunctionBody().front();
    if (failed(uploadGlobal(g)))
      return failure();
  }
  for (Operation *op : accesses) {
    entry =
        &op->getParentOfType<FunctionOpInterface>().getFunctionBody().front();
    LogicalResult r =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](memref::CopyOp c) { return lowerHostCopy(c); })
            .Case([&](memref::LoadOp l) { return lowerHostLoad(l); })
            .Case([&](memref::StoreOp st) { return lowerHostStore(st); });
    if (failed(r))
      return failure();
  }
  return success();
}

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
    Lowering lowering(getOperation(), deviceMemory);
    if (failed(lowering.run()))
      return signalPassFailure();
    // Nothing te remains: drop the target so that the LLVM-dialect module
    // translates without the te dialect.
    getOperation()->removeAttr("te.target");
  }
};

} // namespace
