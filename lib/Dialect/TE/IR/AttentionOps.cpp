//===- AttentionOps.cpp - te.attention and te.attention_grad -----*- C++
//-*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Result types and verifiers of the attention ops: the shape rules of
// PyTorch's scaled_dot_product_attention (docs/guide/concepts.md#attention).
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

#include <cmath>

using namespace mlir;
using namespace mlir::te;

namespace {

/// `a` and `b` may be the same size: equal, or either dynamic.
bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

std::string dimString(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

std::string shapeString(ArrayRef<int64_t> shape, Type elementType) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (int64_t d : shape)
    os << dimString(d) << "x";
  os << elementType;
  return text;
}

/// `t` has the shape `shape` (dynamic sizes compatible) and `elementType`.
bool matches(ShapedType t, ArrayRef<int64_t> shape, Type elementType) {
  if (t.getElementType() != elementType ||
      t.getRank() != static_cast<int64_t>(shape.size()))
    return false;
  for (auto [a, b] : llvm::zip_equal(t.getShape(), shape))
    if (!compatible(a, b))
      return false;
  return true;
}

std::optional<float> scaleOf(std::optional<APFloat> attr) {
  if (!attr)
    return std::nullopt;
  return attr->convertToFloat();
}

/// The scale attribute's rules: finite; absent only where E is static and
/// nonzero (the default 1/sqrt(E) is a number then).
LogicalResult verifyScale(Operation *op, std::optional<APFloat> attr,
                          ShapedType query) {
  if (std::optional<float> s = scaleOf(attr)) {
    if (!std::isfinite(*s))
      return op->emitOpError("scale must be finite, got ") << *s;
    return success();
  }
  if (query.getRank() < 1)
    return success(); // the rank rule reports it
  int64_t e = query.getShape().back();
  if (ShapedType::isDynamic(e) || e == 0)
    return op->emitOpError("without 'scale' the head size E must be static "
                           "and nonzero (the default scale is 1/sqrt(E)), "
                           "got ")
           << dimString(e);
  return success();
}

float defaultScale(ShapedType query) {
  return 1.0f / std::sqrt(static_cast<float>(query.getShape().back()));
}

} // namespace

LogicalResult mlir::te::verifyAttentionOperands(Operation *op, ShapedType q,
                                                ShapedType k, ShapedType v,
                                                ShapedType m) {
  int64_t rank = q.getRank();
  if (rank != 3 && rank != 4)
    return op->emitOpError("query must be 3-D [N, L, E] or 4-D [B, H, L, E], "
                           "got rank ")
           << rank;
  if (k.getRank() != rank || v.getRank() != rank)
    return op->emitOpError("query, key and value must have one rank, got ")
           << rank << ", " << k.getRank() << ", " << v.getRank();
  if (q.getElementType() != k.getElementType() ||
      q.getElementType() != v.getElementType())
    return op->emitOpError("query, key and value must have one element type, "
                           "got ")
           << q.getElementType() << ", " << k.getElementType() << ", "
           << v.getElementType();
  int64_t hd = rank - 3; // the heads (or N) dimension
  for (int64_t d = 0; d < hd; ++d)
    if (!compatible(q.getDimSize(d), k.getDimSize(d)) ||
        !compatible(q.getDimSize(d), v.getDimSize(d)))
      return op->emitOpError("batch dimension ")
             << d << " differs: query " << dimString(q.getDimSize(d))
             << ", key " << dimString(k.getDimSize(d)) << ", value "
             << dimString(v.getDimSize(d));
  int64_t hq = q.getDimSize(hd), hk = k.getDimSize(hd), hv = v.getDimSize(hd);
  if (!compatible(hk, hv))
    return op->emitOpError("key and value must have the same number of heads, "
                           "got ")
           << dimString(hk) << " and " << dimString(hv);
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hk) &&
      (hk == 0 ? hq != 0 : hq % hk != 0))
    return op->emitOpError("the query's heads (")
           << hq << ") must be a multiple of the key's and value's (" << hk
           << ") for grouped-query attention";
  if (!compatible(q.getDimSize(rank - 1), k.getDimSize(rank - 1)))
    return op->emitOpError("query and key must have one head size E, got ")
           << dimString(q.getDimSize(rank - 1)) << " and "
           << dimString(k.getDimSize(rank - 1));
  if (!compatible(k.getDimSize(rank - 2), v.getDimSize(rank - 2)))
    return op->emitOpError("key and value must have one sequence length S, "
                           "got ")
           << dimString(k.getDimSize(rank - 2)) << " and "
           << dimString(v.getDimSize(rank - 2));
  if (m) {
    if (m.getRank() != rank)
      return op->emitOpError("the mask must have the query's rank ")
             << rank << ", got " << m.getRank();
    if (!m.getElementType().isInteger(1) &&
        m.getElementType() != q.getElementType() && !m.getElementType().isF32())
      return op->emitOpError("an additive mask must have the query's element "
                             "type or f32, got ")
             << m.getElementType();
    SmallVector<int64_t> full(q.getShape());
    full[rank - 1] = k.getDimSize(rank - 2);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t md = m.getDimSize(d);
      bool lastDim = d == rank - 1;
      if (!compatible(md, full[d]) && (lastDim || md != 1))
        return op->emitOpError("mask dimension ")
               << d << " is " << dimString(md) << ", expected "
               << dimString(full[d]) << (lastDim ? "" : " or 1")
               << " (the mask broadcasts to [..., L, S])";
    }
  }
  return success();
}

LogicalResult mlir::te::verifyAttentionResult(Operation *op, StringRef what,
                                              ShapedType t,
                                              ArrayRef<int64_t> shape,
                                              Type elementType) {
  if (matches(t, shape, elementType))
    return success();
  return op->emitOpError() << what << " must be "
                           << shapeString(shape, elementType) << ", got "
                           << shapeString(t.getShape(), t.getElementType());
}

SmallVector<int64_t> mlir::te::attentionOutputShape(ShapedType q,
                                                    ShapedType v) {
  SmallVector<int64_t> out(q.getShape());
  out.back() = v.getShape().back();
  return out;
}

LogicalResult mlir::te::verifyAttentionGradOperands(
    Operation *op, ShapedType q, ShapedType k, ShapedType v, ShapedType o,
    ShapedType lse, ShapedType dout, ShapedType mask) {
  if (failed(verifyAttentionOperands(op, q, k, v, mask)))
    return failure();
  SmallVector<int64_t> out = attentionOutputShape(q, v);
  if (failed(verifyAttentionResult(op, "output (the forward's)", o, out,
                                   q.getElementType())) ||
      failed(verifyAttentionResult(op, "grad_output", dout, out,
                                   q.getElementType())))
    return failure();
  return verifyAttentionResult(op, "lse (the forward's)", lse,
                               q.getShape().drop_back(),
                               Float32Type::get(op->getContext()));
}

//===----------------------------------------------------------------------===//
// te.attention
//===----------------------------------------------------------------------===//

LogicalResult
AttentionOp::inferReturnTypes(MLIRContext *context,
                              std::optional<Location> location, Adaptor adaptor,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  auto q = dyn_cast<RankedTensorType>(adaptor.getQuery().getType());
  auto k = dyn_cast<RankedTensorType>(adaptor.getKey().getType());
  auto v = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
  // Not reached from the parser, which reads tensor types only.
  if (!q || !k || !v)
    return failure();
  // The types need a query and a value of rank >= 1; the verifier's words
  // where they have none.
  if (q.getRank() < 1)
    return emitOptionalError(location, "'te.attention' op query must be 3-D "
                                       "[N, L, E] or 4-D [B, H, L, E], got "
                                       "rank 0");
  if (v.getRank() < 1)
    return emitOptionalError(location,
                             "'te.attention' op query, key and value must "
                             "have one rank, got ",
                             q.getRank(), ", ", k.getRank(), ", 0");
  inferredReturnTypes.push_back(
      RankedTensorType::get(attentionOutputShape(q, v), q.getElementType()));
  inferredReturnTypes.push_back(RankedTensorType::get(
      q.getShape().drop_back(), Float32Type::get(context)));
  return success();
}

LogicalResult AttentionOp::verify() {
  ShapedType mask =
      getMask() ? cast<ShapedType>(getMask().getType()) : ShapedType();
  if (failed(verifyAttentionOperands(getOperation(), getQuery().getType(),
                                     getKey().getType(), getValue().getType(),
                                     mask)))
    return failure();
  return verifyScale(getOperation(), getScale(), getQuery().getType());
}

float AttentionOp::getScaleValue() {
  if (std::optional<float> s = scaleOf(getScale()))
    return *s;
  return defaultScale(getQuery().getType());
}

//===----------------------------------------------------------------------===//
// te.attention_grad
//===----------------------------------------------------------------------===//

LogicalResult AttentionGradOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  (void)context;
  (void)location;
  inferredReturnTypes.push_back(adaptor.getQuery().getType());
  inferredReturnTypes.push_back(adaptor.getKey().getType());
  inferredReturnTypes.push_back(adaptor.getValue().getType());
  return success();
}

LogicalResult AttentionGradOp::verify() {
  ShapedType mask =
      getMask() ? cast<ShapedType>(getMask().getType()) : ShapedType();
  if (failed(verifyAttentionGradOperands(
          getOperation(), getQuery().getType(), getKey().getType(),
          getValue().getType(), getOutput().getType(), getLse().getType(),
          getGradOutput().getType(), mask)))
    return failure();
  return verifyScale(getOperation(), getScale(), getQuery().getType());
}

float AttentionGradOp::getScaleValue() {
  if (std::optional<float> s = scaleOf(getScale()))
    return *s;
  return defaultScale(getQuery().getType());
}
