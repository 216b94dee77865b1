//===- TEInterfaces.cpp - te quantizer attribute interface ------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The bridge between MLIR and the Format library: enum conversions, element
// types, and the default implementations of QuantizerAttrInterface. No format
// fact is computed here; everything is asked of Format.
//
//===----------------------------------------------------------------------===//

#include "te/Dialect/TE/IR/TEInterfaces.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::te;
namespace fmt = ::te::format;

static_assert(fmt::kDynamic == ShapedType::kDynamic,
              "Format's dynamic dimension must be MLIR's");

#include "te/Dialect/TE/IR/TEEnums.cpp.inc"

#include "te/Dialect/TE/IR/TEAttrInterfaces.cpp.inc"

fmt::Usage mlir::te::toFormat(Usage usage) {
  return static_cast<fmt::Usage>(static_cast<uint32_t>(usage) & 3u);
}

fmt::Target mlir::te::toFormat(Target target) {
  return target == Target::SM100 ? fmt::Target::SM100 : fmt::Target::SM90;
}

fmt::AmaxAlgo mlir::te::toFormat(AmaxAlgo algo) {
  return algo == AmaxAlgo::MostRecent ? fmt::AmaxAlgo::MostRecent
                                      : fmt::AmaxAlgo::Max;
}

fmt::E8M0Rounding mlir::te::toFormat(E8M0Rounding rounding) {
  return rounding == E8M0Rounding::Floor ? fmt::E8M0Rounding::Floor
                                         : fmt::E8M0Rounding::Up;
}

fmt::ErrMode mlir::te::toFormat(ErrMode mode) {
  return mode == ErrMode::MSE ? fmt::ErrMode::MSE : fmt::ErrMode::MAE;
}

Type mlir::te::getQuantizedElementType(MLIRContext *ctx, fmt::DType dtype) {
  switch (dtype) {
  case fmt::DType::E4M3:
    return Float8E4M3FNType::get(ctx);
  case fmt::DType::E5M2:
    return Float8E5M2Type::get(ctx);
  case fmt::DType::E2M1x2:
    return Float4E2M1FNType::get(ctx);
  default:
    return {};
  }
}

std::optional<fmt::DType> mlir::te::getQuantizedFormatType(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return fmt::DType::E4M3;
  if (isa<Float8E5M2Type>(type))
    return fmt::DType::E5M2;
  if (isa<Float4E2M1FNType>(type))
    return fmt::DType::E2M1x2;
  return std::nullopt;
}

Type mlir::te::getBufferElementType(MLIRContext *ctx, fmt::DType dtype) {
  switch (dtype) {
  case fmt::DType::U8:
  case fmt::DType::E2M1x2: // two E2M1 values per byte, as TE's uint8 buffers
    return IntegerType::get(ctx, 8);
  case fmt::DType::F32:
    return Float32Type::get(ctx);
  case fmt::DType::F16:
    return Float16Type::get(ctx);
  case fmt::DType::BF16:
    return BFloat16Type::get(ctx);
  case fmt::DType::E4M3:
    return Float8E4M3FNType::get(ctx);
  case fmt::DType::E5M2:
    return Float8E5M2Type::get(ctx);
  case fmt::DType::E8M0:
    return Float8E8M0FNUType::get(ctx);
  }
  return {};
}

StringRef mlir::te::getRecipeFamilyName(fmt::Recipe recipe) {
  switch (recipe) {
  case fmt::Recipe::Delayed:
  case fmt::Recipe::Current:
    return "per-tensor FP8";
  case fmt::Recipe::Block:
    return "FP8 block scaling";
  case fmt::Recipe::MXFP8:
    return "MXFP8";
  case fmt::Recipe::NVFP4:
    return "NVFP4";
  }
  return "unknown";
}

bool mlir::te::isSameRecipeFamily(fmt::Recipe a, fmt::Recipe b) {
  auto family = [](fmt::Recipe r) {
    return r == fmt::Recipe::Delayed ? fmt::Recipe::Current : r;
  };
  return family(a) == family(b);
}

Type mlir::te::detail::getQuantizedElementType(
    MLIRContext *ctx, const fmt::QuantizerConfig &config) {
  return mlir::te::getQuantizedElementType(ctx, config.dtype);
}

FailureOr<SmallVector<QTensorBuffer>> mlir::te::detail::getBufferLayout(
    MLIRContext *ctx, const fmt::QuantizerConfig &config,
    ArrayRef<int64_t> shape, Usage usage, Target target,
    function_ref<InFlightDiagnostic()> emitError) {
  std::vector<fmt::BufferDesc> descs;
  std::string error;
  if (!fmt::getBufferLayout(config, fmt::Shape(shape.begin(), shape.end()),
                            toFormat(usage), toFormat(target), descs, &error)) {
    if (emitError)
      emitError() << error;
    return failure();
  }
  SmallVector<QTensorBuffer> buffers;
  buffers.reserve(descs.size());
  for (const fmt::BufferDesc &desc : descs) {
    auto type = RankedTensorType::get(desc.shape,
                                      getBufferElementType(ctx, desc.dtype));
    buffers.push_back({desc.name, desc.role, desc.columnwise, type});
  }
  return buffers;
}

LogicalResult
mlir::te::detail::verifyShape(const fmt::QuantizerConfig &config,
                              ArrayRef<int64_t> shape,
                              function_ref<InFlightDiagnostic()> emitError) {
  std::string error =
      fmt::verifyShape(config, fmt::Shape(shape.begin(), shape.end()));
  if (error.empty())
    return success();
  if (emitError)
    emitError() << error;
  return failure();
}
