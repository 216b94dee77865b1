//===- Attributes.cpp - C API of the te quantizer attributes ----*- C++ -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Constructors go through the attributes' getChecked, so an invalid
// configuration is reported by the dialect's verifier (which asks the Format
// library) as a diagnostic on the context, and a null attribute is returned.
//
//===----------------------------------------------------------------------===//

#include "te-c/Attributes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "te/Dialect/TE/IR/TEAttrs.h"
#include "te/Dialect/TE/IR/TEDialect.h"

#include <cstring>

using namespace mlir;
using namespace mlir::te;

// The C API's enums have the dialect's values (and so Format's and te_rt's,
// TEInterfaces.cpp): conversions are casts.
static_assert(MlirTEAmaxAlgoMax == static_cast<int>(AmaxAlgo::Max) &&
                  MlirTEAmaxAlgoMostRecent ==
                      static_cast<int>(AmaxAlgo::MostRecent),
              "MlirTEAmaxAlgo");
static_assert(MlirTEE8M0RoundingUp == static_cast<int>(E8M0Rounding::Up) &&
                  MlirTEE8M0RoundingFloor ==
                      static_cast<int>(E8M0Rounding::Floor),
              "MlirTEE8M0Rounding");
static_assert(MlirTEErrModeMAE == static_cast<int>(ErrMode::MAE) &&
                  MlirTEErrModeMSE == static_cast<int>(ErrMode::MSE),
              "MlirTEErrMode");

namespace {
/// Emits at an unknown location of `ctx`: the C API has no location for a
/// constructor's arguments.
auto emitterFor(MLIRContext *ctx) {
  return [ctx] { return emitError(UnknownLoc::get(ctx)); };
}

float toFloat(APFloat value) {
  bool losesInfo = false;
  value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToFloat();
}

/// The te dialect must be loaded before its attributes are built.
MLIRContext *loadTE(MlirContext ctx) {
  MLIRContext *context = unwrap(ctx);
  context->getOrLoadDialect<TEDialect>();
  return context;
}

template <typename AttrT> AttrT castOrNull(MlirAttribute attr) {
  return dyn_cast_or_null<AttrT>(unwrap(attr));
}

/// C enums may hold any int: checks `value` is one of the `count` cases of
/// the enum called `what` before it is cast.
bool isEnumValue(MLIRContext *ctx, int value, int count, const char *what) {
  if (value >= 0 && value < count)
    return true;
  emitError(UnknownLoc::get(ctx)) << "invalid " << what << " " << value;
  return false;
}
} // namespace

//===----------------------------------------------------------------------===//
// Any quantizer
//===----------------------------------------------------------------------===//

bool mlirAttributeIsATEQuantizer(MlirAttribute attr) {
  return isa<QuantizerAttrInterface>(unwrap(attr));
}

MlirStringRef mlirTEQuantizerAttrGetRecipe(MlirAttribute attr) {
  auto q = castOrNull<QuantizerAttrInterface>(attr);
  if (!q)
    return mlirStringRefCreate("", 0);
  return mlirStringRefCreateFromCString(
      ::te::format::recipeName(q.getFormatConfig().recipe));
}

MlirType mlirTEQuantizerAttrGetElementType(MlirAttribute attr) {
  auto q = castOrNull<QuantizerAttrInterface>(attr);
  return wrap(q ? q.getElementType() : Type());
}

//===----------------------------------------------------------------------===//
// #te.delayed
//===----------------------------------------------------------------------===//

bool mlirAttributeIsATEDelayed(MlirAttribute attr) {
  return isa<DelayedAttr>(unwrap(attr));
}

MlirAttribute mlirTEDelayedAttrGet(MlirContext ctx, MlirType dtype, int margin,
                                   int history, MlirTEAmaxAlgo algo) {
  MLIRContext *context = loadTE(ctx);
  if (!isEnumValue(context, algo, 2, "MlirTEAmaxAlgo"))
    return wrap(Attribute());
  return wrap(DelayedAttr::getChecked(emitterFor(context), context,
                                      unwrap(dtype), margin, history,
                                      static_cast<AmaxAlgo>(algo)));
}

int mlirTEDelayedAttrGetMargin(MlirAttribute attr) {
  return cast<DelayedAttr>(unwrap(attr)).getMargin();
}

int mlirTEDelayedAttrGetHistory(MlirAttribute attr) {
  return cast<DelayedAttr>(unwrap(attr)).getHistory();
}

MlirTEAmaxAlgo mlirTEDelayedAttrGetAlgo(MlirAttribute attr) {
  return static_cast<MlirTEAmaxAlgo>(cast<DelayedAttr>(unwrap(attr)).getAlgo());
}

//===----------------------------------------------------------------------===//
// #te.current
//===----------------------------------------------------------------------===//

bool mlirAttributeIsATECurrent(MlirAttribute attr) {
  return isa<CurrentAttr>(unwrap(attr));
}

MlirAttribute mlirTECurrentAttrGet(MlirContext ctx, MlirType dtype,
                                   bool pow2Scales, float amaxEpsilon) {
  MLIRContext *context = loadTE(ctx);
  return wrap(CurrentAttr::getChecked(emitterFor(context), context,
                                      unwrap(dtype), pow2Scales,
                                      APFloat(amaxEpsilon)));
}

bool mlirTECurrentAttrGetPow2Scales(MlirAttribute attr) {
  return cast<CurrentAttr>(unwrap(attr)).getPow2Scales();
}

float mlirTECurrentAttrGetAmaxEpsilon(MlirAttribute attr) {
  return toFloat(cast<CurrentAttr>(unwrap(attr)).getAmaxEpsilon());
}

//===----------------------------------------------------------------------===//
// #te.block
//===----------------------------------------------------------------------===//

bool mlirAttributeIsATEBlock(MlirAttribute attr) {
  return isa<BlockAttr>(unwrap(attr));
}

MlirAttribute mlirTEBlockAttrGet(MlirContext ctx, MlirType dtype, int dims,
                                 bool pow2Scales, float amaxEpsilon) {
  MLIRContext *context = loadTE(ctx);
  return wrap(BlockAttr::getChecked(emitterFor(context), context, unwrap(dtype),
                                    dims, pow2Scales, APFloat(amaxEpsilon)));
}

int mlirTEBlockAttrGetDims(MlirAttribute attr) {
  return cast<BlockAttr>(unwrap(attr)).getDims();
}

bool mlirTEBlockAttrGetPow2Scales(MlirAttribute attr) {
  return cast<BlockAttr>(unwrap(attr)).getPow2Scales();
}

float mlirTEBlockAttrGetAmaxEpsilon(MlirAttribute attr) {
  return toFloat(cast<BlockAttr>(unwrap(attr)).getAmaxEpsilon());
}

//===----------------------------------------------------------------------===//
// #te.mxfp8
//===----------------------------------------------------------------------===//

bool mlirAttributeIsATEMXFP8(MlirAttribute attr) {
  return isa<MXFP8Attr>(unwrap(attr));
}

MlirAttribute mlirTEMXFP8AttrGet(MlirContext ctx, MlirType dtype, bool block2D,
                                 MlirTEE8M0Rounding rounding) {
  MLIRContext *context = loadTE(ctx);
  if (!isEnumValue(context, rounding, 2, "MlirTEE8M0Rounding"))
    return wrap(Attribute());
  return wrap(MXFP8Attr::getChecked(emitterFor(context), context, unwrap(dtype),
                                    block2D,
                                    static_cast<E8M0Rounding>(rounding)));
}

bool mlirTEMXFP8AttrGetBlock2D(MlirAttribute attr) {
  return cast<MXFP8Attr>(unwrap(attr)).getBlock2D();
}

MlirTEE8M0Rounding mlirTEMXFP8AttrGetE8M0Rounding(MlirAttribute attr) {
  return static_cast<MlirTEE8M0Rounding>(
      cast<MXFP8Attr>(unwrap(attr)).getE8m0Rounding());
}

//===----------------------------------------------------------------------===//
// #te.nvfp4
//===----------------------------------------------------------------------===//

MlirTENVFP4Options mlirTENVFP4OptionsGetDefault(void) {
  MlirTENVFP4Options options;
  options.rht = false;
  options.rhtSignMask = 0;
  options.block2D = false;
  options.stochasticRounding = false;
  options.rowScaled = false;
  options.fourOverSix = false;
  options.e4m3Max = 448.0f;
  options.errMode = MlirTEErrModeMAE;
  return options;
}

bool mlirAttributeIsATENVFP4(MlirAttribute attr) {
  return isa<NVFP4Attr>(unwrap(attr));
}

MlirAttribute mlirTENVFP4AttrGet(MlirContext ctx, MlirType dtype,
                                 const MlirTENVFP4Options *options) {
  MLIRContext *context = loadTE(ctx);
  MlirTENVFP4Options o = options ? *options : mlirTENVFP4OptionsGetDefault();
  // The field may hold any int (C); loading it as the C++ enum is UB unless
  // it is one of the cases (UBSan, -fsanitize=enum): read the int.
  int errMode;
  static_assert(sizeof(errMode) == sizeof(o.errMode), "C enums are ints");
  std::memcpy(&errMode, &o.errMode, sizeof(errMode));
  if (!isEnumValue(context, errMode, 2, "MlirTEErrMode"))
    return wrap(Attribute());
  return wrap(NVFP4Attr::getChecked(
      emitterFor(context), context, unwrap(dtype), o.rht, o.rhtSignMask,
      o.block2D, o.stochasticRounding, o.rowScaled, o.fourOverSix,
      APFloat(o.e4m3Max), static_cast<ErrMode>(errMode)));
}

MlirTENVFP4Options mlirTENVFP4AttrGetOptions(MlirAttribute attr) {
  MlirTENVFP4Options o = mlirTENVFP4OptionsGetDefault();
  auto q = castOrNull<NVFP4Attr>(attr);
  if (!q)
    return o;
  o.rht = q.getRht();
  o.rhtSignMask = q.getRhtSignMask();
  o.block2D = q.getBlock2D();
  o.stochasticRounding = q.getStochasticRounding();
  o.rowScaled = q.getRowScaled();
  o.fourOverSix = q.getFourOverSix();
  o.e4m3Max = toFloat(q.getE4m3Max());
  o.errMode = static_cast<MlirTEErrMode>(q.getErrMode());
  return o;
}

//===----------------------------------------------------------------------===//
// #te.target
//===----------------------------------------------------------------------===//

bool mlirAttributeIsATETarget(MlirAttribute attr) {
  return isa<TargetAttr>(unwrap(attr));
}

MlirAttribute mlirTETargetAttrGet(MlirContext ctx, MlirTETarget target) {
  MLIRContext *context = loadTE(ctx);
  if (!isEnumValue(context, target, 2, "MlirTETarget"))
    return wrap(Attribute());
  return wrap(TargetAttr::get(context, static_cast<Target>(target)));
}

MlirTETarget mlirTETargetAttrGetValue(MlirAttribute attr) {
  return static_cast<MlirTETarget>(cast<TargetAttr>(unwrap(attr)).getValue());
}

MlirTETarget mlirTEModuleGetTarget(MlirModule module) {
  return static_cast<MlirTETarget>(getTarget(unwrap(module).getOperation()));
}
