//===- TEInterfaces.cpp - te attribute and op interfaces --------*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The bridge between MLIR and the Format library: enum conversions, element
// types, and the default implementations of QuantizerAttrInterface. No format
// fact is computed here; everything is asked of Format. The op interface
// ShapeInferenceOpInterface is defined here too; the te ops' shape rules are
// in ShapeRules.cpp.
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
#include "te/Dialect/TE/IR/TEOpInterfaces.cpp.inc"

// The dialect's enums have the Format library's values (and so the
// runtime's te_rt_* values, runtime/lib/Api.cpp): the bridges are casts.
static_assert(static_cast<uint32_t>(Usage::None) == fmt::UsageNone &&
                  static_cast<uint32_t>(Usage::Rowwise) == fmt::Rowwise &&
                  static_cast<uint32_t>(Usage::Columnwise) == fmt::Columnwise,
              "Usage");
static_assert(static_cast<int>(Target::SM90) ==
                      static_cast<int>(fmt::Target::SM90) &&
                  static_cast<int>(Target::SM100) ==
                      static_cast<int>(fmt::Target::SM100),
              "Target");
static_assert(static_cast<int>(AmaxAlgo::Max) ==
                      static_cast<int>(fmt::AmaxAlgo::Max) &&
                  static_cast<int>(AmaxAlgo::MostRecent) ==
                      static_cast<int>(fmt::AmaxAlgo::MostRecent),
              "AmaxAlgo");
static_assert(static_cast<int>(E8M0Rounding::Up) ==
                      static_cast<int>(fmt::E8M0Rounding::Up) &&
                  static_cast<int>(E8M0Rounding::Floor) ==
                      static_cast<int>(fmt::E8M0Rounding::Floor),
              "E8M0Rounding");
static_assert(static_cast<int>(ErrMode::MAE) ==
                      static_cast<int>(fmt::ErrMode::MAE) &&
                  static_cast<int>(ErrMode::MSE) ==
                      static_cast<int>(fmt::ErrMode::MSE),
              "ErrMode");
static_assert(static_cast<int>(GemmLayout::TN) ==
                      static_cast<int>(fmt::GemmLayout::TN) &&
                  static_cast<int>(GemmLayout::NN) ==
                      static_cast<int>(fmt::GemmLayout::NN) &&
                  static_cast<int>(GemmLayout::NT) ==
                      static_cast<int>(fmt::GemmLayout::NT),
              "GemmLayout");

fmt::Usage mlir::te::toFormat(Usage usage) {
  return static_cast<fmt::Usage>(static_cast<uint32_t>(usage) &
                                 fmt::RowwiseAndColumnwise);
}

Usage mlir::te::fromFormat(fmt::Usage usage) {
  return static_cast<Usage>(static_cast<uint32_t>(usage));
}

GemmLayout mlir::te::fromFormat(fmt::GemmLayout layout) {
  return static_cast<GemmLayout>(layout);
}

AmaxAlgo mlir::te::fromFormat(fmt::AmaxAlgo algo) {
  return static_cast<AmaxAlgo>(algo);
}

E8M0Rounding mlir::te::fromFormat(fmt::E8M0Rounding rounding) {
  return static_cast<E8M0Rounding>(rounding);
}

ErrMode mlir::te::fromFormat(fmt::ErrMode mode) {
  return static_cast<ErrMode>(mode);
}

fmt::Target mlir::te::toFormat(Target target) {
  return static_cast<fmt::Target>(target);
}

fmt::AmaxAlgo mlir::te::toFormat(AmaxAlgo algo) {
  return static_cast<fmt::AmaxAlgo>(algo);
}

fmt::E8M0Rounding mlir::te::toFormat(E8M0Rounding rounding) {
  return static_cast<fmt::E8M0Rounding>(rounding);
}

fmt::ErrMode mlir::te::toFormat(ErrMode mode) {
  return static_cast<fmt::ErrMode>(mode);
}

fmt::GemmLayout mlir::te::toFormat(GemmLayout layout) {
  return static_cast<fmt::GemmLayout>(layout);
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

std::optional<fmt::DType> mlir::te::getHighPrecisionFormatType(Type type) {
  if (type.isF32())
    return fmt::DType::F32;
  if (type.isF16())
    return fmt::DType::F16;
  if (type.isBF16())
    return fmt::DType::BF16;
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
