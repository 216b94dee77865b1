//===- AttentionOps.cpp - te.attention and te.attention_grad -----*- C++ -*-===//
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

/// The shape checks shared by the forward and the backward: query [..., L, E],
/// key [..., S, E], value [..., S, Ev], the leading dimensions equal but the
/// head dimension (rank - 3), which may be a divisor of the query's
/// (grouped-query attention).
LogicalResult verifyOperands(Operation *op, RankedTensorType q,
                             RankedTensorType k, RankedTensorType v,
                             Value mask) {
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
  if (mask) {
    auto m = cast<RankedTensorType>(mask.getType());
    if (m.getRank() != rank)
      return op->emitOpError("the mask must have the query's rank ")
             << rank << ", got " << m.getRank();
    if (!m.getElementType().isInteger(1) &&
        m.getElementType() != q.getElementType() &&
        !m.getElementType().isF32())
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

std::optional<float> scaleOf(std::optional<APFloat> attr) {
  if (!attr)
    return std::nullopt;
  return attr->convertToFloat();
}

} // namespace

//===----------------------------------------------------------------------===//
// te.attention
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto q = dyn_cast<RankedTensorType>(adaptor.getQuery().getType());
  auto v = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
  if (!q || !v || q.getRank() < 1 || v.getRank() < 1)
    return emitOptionalError(location,
                             "te.attention needs ranked query and value");
  SmallVector<int64_t> out(q.getShape());
  out.back() = v.getShape().back();
  inferredReturnTypes.push_back(
      RankedTensorType::get(out, q.getElementType()));
  inferredReturnTypes.push_back(RankedTensorType::get(
      q.getShape().drop_back(), Float32Type::get(context)));
  return success();
}

LogicalResult AttentionOp::verify() {
  if (std::optional<float> s = scaleOf(getScale()); s && !std::isfinite(*s))
    return emitOpError("scale must be finite, got ") << *s;
  return verifyOperands(getOperation(), getQuery().getType(),
                        getKey().getType(), getValue().getType(), getMask());
}

float AttentionOp::getScaleValue() {
  if (std::optional<float> s = scaleOf(getScale()))
    return *s;
  return 1.0f / std::sqrt(static_cast<float>(getQuery().getType().getShape().back()));
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
  if (std::optional<float> s = scaleOf(getScale()); s && !std::isfinite(*s))
    return emitOpError("scale must be finite, got ") << *s;
  RankedTensorType q = getQuery().getType(), v = getValue().getType();
  if (failed(verifyOperands(getOperation(), q, getKey().getType(), v,
                            getMask())))
    return failure();
  SmallVector<int64_t> out(q.getShape());
  out.back() = v.getShape().back();
  for (auto [name, t] : {std::pair<const char *, RankedTensorType>{
                             "output", getOutput().getType()},
                         {"grad_output", getGradOutput().getType()}}) {
    if (t.getElementType() != q.getElementType())
      return emitOpError() << name << " must have the query's element type "
                           << q.getElementType() << ", got "
                           << t.getElementType();
    if (t.getRank() != q.getRank() ||
        !llvm::all_of(llvm::seq<int64_t>(0, q.getRank()), [&](int64_t d) {
          return compatible(t.getDimSize(d), out[d]);
        }))
      return emitOpError() << name << " must be the forward's output shape "
                           << RankedTensorType::get(out, q.getElementType())
                           << ", got " << t;
  }
  RankedTensorType lse = getLse().getType();
  if (lse.getRank() != q.getRank() - 1 ||
      !llvm::all_of(llvm::seq<int64_t>(0, lse.getRank()), [&](int64_t d) {
        return compatible(lse.getDimSize(d), q.getDimSize(d));
      }))
    return emitOpError("lse must be the query's shape without its last "
                       "dimension, got ")
           << lse;
  return success();
}

float AttentionGradOp::getScaleValue() {
  if (std::optional<float> s = scaleOf(getScale()))
    return *s;
  return 1.0f / std::sqrt(static_cast<float>(getQuery().getType().getShape().back()));
}
