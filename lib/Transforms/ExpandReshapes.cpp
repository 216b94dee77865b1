//===- ExpandReshapes.cpp - memref.reshape as a reinterpret_cast ----------===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// te-expand-reshapes: a memref.reshape of a static-length shape to a ranked
// row-major result as loads of the dynamic sizes and a
// memref.reinterpret_cast (Passes.td says why).
//
//===----------------------------------------------------------------------===//

#include "te/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

namespace mlir::te {
#define GEN_PASS_DEF_TEEXPANDRESHAPES
#include "te/Transforms/Passes.h.inc"
} // namespace mlir::te

using namespace mlir;

namespace {

class TEExpandReshapesPass
    : public mlir::te::impl::TEExpandReshapesBase<TEExpandReshapesPass> {
public:
  void runOnOperation() override {
    SmallVector<memref::ReshapeOp> reshapes;
    getOperation()->walk([&](memref::ReshapeOp op) {
      auto shape = cast<MemRefType>(op.getShape().getType());
      auto result = dyn_cast<MemRefType>(op.getType());
      if (shape.hasStaticShape() && result && result.getLayout().isIdentity())
        reshapes.push_back(op);
    });
    // Nothing changed: the pass manager then skips verifying the module.
    if (reshapes.empty())
      return markAllAnalysesPreserved();
    for (memref::ReshapeOp op : reshapes)
      expand(op);
  }

private:
  static void expand(memref::ReshapeOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto result = cast<MemRefType>(op.getType());
    int64_t rank = result.getRank();
    SmallVector<OpFoldResult> sizes(rank), strides(rank);
    for (int64_t i = 0; i < rank; ++i) {
      if (!result.isDynamicDim(i)) {
        sizes[i] = b.getIndexAttr(result.getDimSize(i));
        continue;
      }
      Value at = arith::ConstantIndexOp::create(b, loc, i);
      Value size = memref::LoadOp::create(b, loc, op.getShape(), at);
      if (!size.getType().isIndex())
        size = arith::IndexCastOp::create(b, loc, b.getIndexType(), size);
      sizes[i] = size;
    }
    // Row-major strides: the product of the sizes after each dimension.
    OpFoldResult stride = b.getIndexAttr(1);
    for (int64_t i = rank - 1; i >= 0; --i) {
      strides[i] = stride;
      if (i == 0)
        break;
      std::optional<int64_t> s = getConstantIntValue(stride);
      std::optional<int64_t> n = getConstantIntValue(sizes[i]);
      if (s && n)
        stride = b.getIndexAttr(*s * *n);
      else
        stride = b.createOrFold<arith::MulIOp>(
            loc, getValueOrCreateConstantIndexOp(b, loc, stride),
            getValueOrCreateConstantIndexOp(b, loc, sizes[i]));
    }
    auto metadata =
        memref::ExtractStridedMetadataOp::create(b, loc, op.getSource());
    OpFoldResult offset = metadata.getOffset();
    if (auto sourceType = dyn_cast<MemRefType>(op.getSource().getType())) {
      int64_t staticOffset = 0;
      SmallVector<int64_t> sourceStrides;
      if (succeeded(
              sourceType.getStridesAndOffset(sourceStrides, staticOffset)) &&
          !ShapedType::isDynamic(staticOffset))
        offset = b.getIndexAttr(staticOffset);
    }
    auto cast = memref::ReinterpretCastOp::create(
        b, loc, result, op.getSource(), offset, sizes, strides);
    op.replaceAllUsesWith(cast.getResult());
    op.erase();
    if (metadata->use_empty())
      metadata.erase();
  }
};

} // namespace
