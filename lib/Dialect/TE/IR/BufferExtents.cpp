//===- BufferExtents.cpp - Buffer sizes of quantized tensors as IR --------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/BufferExtents.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::te;
namespace fmt = ::te::format;

Value mlir::te::toIndexValue(OpBuilder &b, Location loc, OpFoldResult size) {
  if (auto v = dyn_cast<Value>(size))
    return v;
  return arith::ConstantIndexOp::create(
      b, loc, cast<IntegerAttr>(cast<Attribute>(size)).getInt());
}

OpFoldResult mlir::te::emitExtent(OpBuilder &b, Location loc,
                                  const fmt::Extent &extent,
                                  ArrayRef<OpFoldResult> dims) {
  // The static sizes; the Format library evaluates every subexpression that
  // depends on them only.
  fmt::Shape shape;
  for (OpFoldResult d : dims) {
    std::optional<int64_t> c = getConstantIntValue(d);
    shape.push_back(c ? *c : fmt::kDynamic);
  }
  int64_t value = extent.evaluate(shape);
  if (value != fmt::kDynamic)
    return b.getIndexAttr(value);
  using Kind = fmt::Extent::Kind;
  auto constant = [&](int64_t c) -> Value {
    return arith::ConstantIndexOp::create(b, loc, c);
  };
  auto sub = [&](const fmt::Extent &e) {
    return toIndexValue(b, loc, emitExtent(b, loc, e, dims));
  };
  switch (extent.kind()) {
  case Kind::Const:
    return b.getIndexAttr(extent.value());
  case Kind::Dim:
    return dims[extent.dimIndex()];
  case Kind::Mul:
    return arith::MulIOp::create(b, loc, sub(extent.lhs()), sub(extent.rhs()))
        .getResult();
  case Kind::CeilDiv:
    return arith::CeilDivUIOp::create(b, loc, sub(extent.lhs()),
                                      constant(extent.value()))
        .getResult();
  case Kind::ExactDiv:
    return arith::DivUIOp::create(b, loc, sub(extent.lhs()),
                                  constant(extent.value()))
        .getResult();
  case Kind::RoundUp: {
    Value c = constant(extent.value());
    Value q = arith::CeilDivUIOp::create(b, loc, sub(extent.lhs()), c);
    return arith::MulIOp::create(b, loc, q, c).getResult();
  }
  }
  llvm_unreachable("unknown extent kind");
}

/// The Format library's extents of a quantized tensor's buffers.
static LogicalResult getExtents(QuantizerAttrInterface quantizer, Usage usage,
                                Target target, int64_t rank,
                                std::vector<fmt::BufferExtents> &extents,
                                function_ref<InFlightDiagnostic()> emitError) {
  std::string error;
  if (fmt::getBufferExtents(quantizer.getFormatConfig(), rank, toFormat(usage),
                            toFormat(target), extents, &error))
    return success();
  if (emitError)
    emitError() << error;
  return failure();
}

FailureOr<SmallVector<SmallVector<OpFoldResult>>>
mlir::te::emitBufferSizes(OpBuilder &b, Location loc,
                          QuantizerAttrInterface quantizer, Usage usage,
                          Target target, ArrayRef<OpFoldResult> dims,
                          function_ref<InFlightDiagnostic()> emitError) {
  std::vector<fmt::BufferExtents> extents;
  if (failed(getExtents(quantizer, usage, target, dims.size(), extents,
                        emitError)))
    return failure();
  SmallVector<SmallVector<OpFoldResult>> sizes;
  for (const fmt::BufferExtents &buffer : extents) {
    SmallVector<OpFoldResult> &s = sizes.emplace_back();
    for (const fmt::Extent &e : buffer.shape)
      s.push_back(emitExtent(b, loc, e, dims));
  }
  return sizes;
}

/// The size of `buffer` along `axis`.
static Value bufferDim(OpBuilder &b, Location loc, Value buffer, size_t axis) {
  if (isa<MemRefType>(buffer.getType()))
    return memref::DimOp::create(b, loc, buffer, axis);
  return tensor::DimOp::create(b, loc, buffer, axis);
}

/// The buffer axis holding `extent`, times its factor; null if none does.
static Value readExtent(OpBuilder &b, Location loc,
                        const std::vector<fmt::BufferExtents> &extents,
                        ValueRange buffers, const fmt::Extent &extent) {
  size_t buffer = 0, axis = 0;
  int64_t factor = 1;
  if (!fmt::findExtent(extents, extent, &buffer, &axis, &factor))
    return Value();
  Value v = bufferDim(b, loc, buffers[buffer], axis);
  if (factor != 1)
    v = arith::MulIOp::create(b, loc, v,
                              arith::ConstantIndexOp::create(b, loc, factor));
  return v;
}

FailureOr<OpFoldResult>
mlir::te::emitRows(OpBuilder &b, Location loc, QuantizerAttrInterface quantizer,
                   Usage usage, Target target, ArrayRef<int64_t> shape,
                   ValueRange buffers,
                   function_ref<InFlightDiagnostic()> emitError) {
  const int64_t rank = shape.size();
  fmt::Shape staticShape(shape.begin(), shape.end());
  int64_t rows = fmt::rowsExtent(rank).evaluate(staticShape);
  if (rows != fmt::kDynamic)
    return OpFoldResult(b.getIndexAttr(rows));
  std::vector<fmt::BufferExtents> extents;
  if (failed(getExtents(quantizer, usage, target, rank, extents, emitError)))
    return failure();
  if (extents.size() == buffers.size())
    if (Value m = readExtent(b, loc, extents, buffers, fmt::rowsExtent(rank)))
      return OpFoldResult(m);
  // The product of the leading dimensions, each read where it is held.
  SmallVector<bool> leading(shape.size(), true);
  if (!leading.empty())
    leading.back() = false;
  FailureOr<SmallVector<OpFoldResult>> dims = emitLogicalSizes(
      b, loc, quantizer, usage, target, shape, buffers, emitError, leading);
  if (failed(dims))
    return failure();
  fmt::Extent m = fmt::rowsExtent(rank);
  return emitExtent(b, loc, m, *dims);
}

FailureOr<SmallVector<OpFoldResult>> mlir::te::emitLogicalSizes(
    OpBuilder &b, Location loc, QuantizerAttrInterface quantizer, Usage usage,
    Target target, ArrayRef<int64_t> shape, ValueRange buffers,
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<bool> needed) {
  SmallVector<OpFoldResult> dims;
  for (int64_t d : shape)
    dims.push_back(b.getIndexAttr(d));
  if (!ShapedType::isDynamicShape(shape))
    return dims;
  const int64_t rank = shape.size();
  std::vector<fmt::BufferExtents> extents;
  if (failed(getExtents(quantizer, usage, target, rank, extents, emitError)))
    return failure();
  if (extents.size() != buffers.size()) {
    if (emitError)
      emitError() << "has " << buffers.size()
                  << " buffers where the layout has " << extents.size();
    return failure();
  }
  auto read = [&](const fmt::Extent &extent) {
    return readExtent(b, loc, extents, buffers, extent);
  };
  for (int64_t i = 0; i < rank; ++i) {
    if (!ShapedType::isDynamic(shape[i]))
      continue;
    if (Value v = read(fmt::Extent::dim(i))) {
      dims[i] = v;
      continue;
    }
    // A leading dimension held only through M = d0 * ... * d_{n-2}: M over
    // the other leading dimensions, when they are static.
    int64_t others = 1;
    bool othersStatic = true;
    for (int64_t j = 0; j + 1 < rank; ++j)
      if (j != i) {
        othersStatic &= !ShapedType::isDynamic(shape[j]);
        others = othersStatic ? fmt::mulDim(others, shape[j]) : others;
      }
    Value m;
    if (i + 1 < rank && othersStatic && others > 0)
      m = read(fmt::rowsExtent(rank));
    if (!m) {
      if (!needed.empty() && !needed[i])
        continue; // unknown, and not asked for
      if (emitError) {
        InFlightDiagnostic diag = emitError();
        diag << "cannot read dynamic dimension " << i
             << " of a quantized tensor of shape [";
        llvm::interleave(
            shape,
            [&](int64_t d) {
              if (ShapedType::isDynamic(d))
                diag << "?";
              else
                diag << d;
            },
            [&] { diag << ", "; });
        diag << "] from its buffers (no buffer holds it: more than one "
                "dynamic leading dimension where the layout keeps only "
                "their product)";
      }
      return failure();
    }
    dims[i] = others == 1 ? m
                          : arith::DivUIOp::create(
                                b, loc, m,
                                arith::ConstantIndexOp::create(b, loc, others))
                                .getResult();
  }
  return dims;
}
