//===- ShapeRules.cpp - shape rules of the te operations --------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// ShapeInferenceOpInterface: each te op's shape rule, the result shapes its
// current operand types imply. te-infer-shapes runs them to a fixpoint.
// Format facts (GEMM shapes, buffer layouts) are asked of the Format library
// and the quantizer attributes, never re-derived here.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEOps.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::te;
namespace fmt = ::te::format;

/// The logical shape of a tensor or quantized tensor type; none for another
/// type.
static std::optional<ArrayRef<int64_t>> logicalShape(Type type) {
  if (auto q = dyn_cast<QTensorType>(type))
    return q.getShape();
  if (auto t = dyn_cast<RankedTensorType>(type))
    return t.getShape();
  return std::nullopt;
}

LogicalResult mlir::te::detail::inferResultShapesFromReturnTypes(
    Operation *op, std::optional<Location> location,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  auto infer = cast<InferTypeOpInterface>(op);
  SmallVector<Type> types;
  if (failed(infer.inferReturnTypes(
          op->getContext(), location, op->getOperands(),
          op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
          op->getRegions(), types)))
    return failure();
  for (Type type : types) {
    if (std::optional<ArrayRef<int64_t>> shape = logicalShape(type))
      shapes.emplace_back(*shape);
    else
      shapes.emplace_back();
  }
  return success();
}

/// te.quantize: the result has the input's shape; the amax is tensor<1xf32>.
LogicalResult
QuantizeOp::inferResultShapes(std::optional<Location>,
                              SmallVectorImpl<ShapedTypeComponents> &shapes) {
  shapes.emplace_back(getInput().getType().getShape());
  if (getAmax())
    shapes.emplace_back();
  return success();
}

/// te.dequantize: the result has the input's shape.
LogicalResult
DequantizeOp::inferResultShapes(std::optional<Location>,
                                SmallVectorImpl<ShapedTypeComponents> &shapes) {
  shapes.emplace_back(getInput().getType().getShape());
  return success();
}

/// te.gemm: the result shape of the layout (Format's gemmShape). Operands
/// that break a GEMM shape rule give no shape; the verifier says why.
LogicalResult
GemmOp::inferResultShapes(std::optional<Location>,
                          SmallVectorImpl<ShapedTypeComponents> &shapes) {
  ArrayRef<int64_t> as = getA().getType().getShape();
  ArrayRef<int64_t> bs = getB().getType().getShape();
  fmt::GemmShape shape;
  if (fmt::gemmShape(toFormat(getLayout()), fmt::Shape(as.begin(), as.end()),
                     fmt::Shape(bs.begin(), bs.end()), &shape)
          .empty())
    shapes.emplace_back(shape.result);
  else
    shapes.emplace_back();
  if (getAmax())
    shapes.emplace_back();
  return success();
}

/// te.amax: always tensor<1xf32>, whatever the input's shape.
LogicalResult
AmaxOp::inferResultShapes(std::optional<Location>,
                          SmallVectorImpl<ShapedTypeComponents> &shapes) {
  shapes.emplace_back();
  return success();
}

/// te.empty: a constant size operand is a static dimension.
LogicalResult
EmptyOp::inferResultShapes(std::optional<Location>,
                           SmallVectorImpl<ShapedTypeComponents> &shapes) {
  SmallVector<int64_t> shape(getResult().getType().getShape());
  OperandRange sizes = getDynamicSizes();
  size_t next = 0;
  for (int64_t &d : shape) {
    if (!ShapedType::isDynamic(d) || next == sizes.size())
      continue;
    std::optional<int64_t> c = getConstantIntValue(sizes[next++]);
    if (c && *c >= 0)
      d = *c;
  }
  shapes.emplace_back(shape);
  return success();
}

/// te.empty: the size operands of dimensions that became static go.
void EmptyOp::resultTypesRefined(TypeRange previousTypes) {
  auto before = cast<QTensorType>(previousTypes.front());
  QTensorType after = getResult().getType();
  OperandRange sizes = getDynamicSizes();
  SmallVector<Value> kept;
  size_t next = 0;
  for (auto [was, is] : llvm::zip_equal(before.getShape(), after.getShape())) {
    if (!ShapedType::isDynamic(was) || next == sizes.size())
      continue;
    Value size = sizes[next++];
    if (ShapedType::isDynamic(is))
      kept.push_back(size);
  }
  getDynamicSizesMutable().assign(kept);
}

/// te.buffers: the buffer types of the input's quantizer, shape and usage
/// on the module's target (Format's layout).
LogicalResult
BuffersOp::inferResultShapes(std::optional<Location>,
                             SmallVectorImpl<ShapedTypeComponents> &shapes) {
  SmallVector<RankedTensorType> types =
      getInput().getType().getBufferTypes(getTarget(*this));
  if (types.size() != getNumResults()) {
    shapes.append(getNumResults(), ShapedTypeComponents());
    return success();
  }
  for (RankedTensorType type : types)
    shapes.emplace_back(type.getShape());
  return success();
}

/// te.linear: the shapes of the result types it infers.
LogicalResult
LinearOp::inferResultShapes(std::optional<Location> location,
                            SmallVectorImpl<ShapedTypeComponents> &shapes) {
  return detail::inferResultShapesFromReturnTypes(*this, location, shapes);
}

/// te.linear_grad: the shapes of the result types it infers.
LogicalResult
LinearGradOp::inferResultShapes(std::optional<Location> location,
                                SmallVectorImpl<ShapedTypeComponents> &shapes) {
  return detail::inferResultShapesFromReturnTypes(*this, location, shapes);
}

/// te.attention: the shapes of the result types it infers (the output is the
/// query's shape with the value's last dimension, lse the query's without
/// its last), so a query refined by te-infer-shapes refines both.
LogicalResult
AttentionOp::inferResultShapes(std::optional<Location> location,
                               SmallVectorImpl<ShapedTypeComponents> &shapes) {
  return detail::inferResultShapesFromReturnTypes(*this, location, shapes);
}

/// te.attention_grad: the shapes of query, key and value.
LogicalResult AttentionGradOp::inferResultShapes(
    std::optional<Location> location,
    SmallVectorImpl<ShapedTypeComponents> &shapes) {
  return detail::inferResultShapesFromReturnTypes(*this, location, shapes);
}
