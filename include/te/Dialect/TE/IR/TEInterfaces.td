//===- TEInterfaces.td - te dialect interfaces -------------*- tablegen -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_TEINTERFACES_TD
#define TE_DIALECT_TE_IR_TEINTERFACES_TD

include "mlir/IR/OpBase.td"

def TE_QuantizerAttrInterface : AttrInterface<"QuantizerAttrInterface"> {
  let cppNamespace = "::mlir::te";
  let description = [{
    A quantizer: the static configuration of one TransformerEngine quantizer
    (one attribute per recipe). Every fact derived from it -- element type,
    buffer layout, shape rules, legality of the configuration -- comes from
    the Format library through `getFormatConfig()`, so the dialect never
    re-derives a block size or a padding rule.
  }];

  let methods = [
    InterfaceMethod<[{
        Returns the Format library's description of this quantizer.
      }],
      "::te::format::QuantizerConfig", "getFormatConfig">,
    InterfaceMethod<[{
        Returns the recipe (delayed, current, block, mxfp8, nvfp4).
      }],
      "::te::format::Recipe", "getRecipe", (ins), [{}], [{
        return $_attr.getFormatConfig().recipe;
      }]>,
    InterfaceMethod<[{
        Returns the MLIR builtin element type of the quantized data:
        `f8E4M3FN`, `f8E5M2` or `f4E2M1FN`.
      }],
      "::mlir::Type", "getElementType", (ins), [{}], [{
        return ::mlir::te::detail::getQuantizedElementType(
            $_attr.getContext(), $_attr.getFormatConfig());
      }]>,
    InterfaceMethod<[{
        Returns the buffers of a tensor of logical shape `shape` (dynamic
        dimensions allowed) holding `usage` on `target`, in
        TransformerEngine's flatten order, with MLIR tensor types. Emits an
        error through `emitError` (when given) and fails for an invalid
        request.
      }],
      "::mlir::FailureOr<::llvm::SmallVector<::mlir::te::QTensorBuffer>>",
      "getBufferLayout",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "::mlir::te::Usage":$usage,
           "::mlir::te::Target":$target,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError),
      [{}], [{
        return ::mlir::te::detail::getBufferLayout(
            $_attr.getContext(), $_attr.getFormatConfig(), shape, usage,
            target, emitError);
      }]>,
    InterfaceMethod<[{
        Checks the recipe's shape rules (e.g. MXFP8: dimensions divisible by
        32) for a logical shape; dynamic dimensions pass. Emits Format's
        message through `emitError` (when given) on failure.
      }],
      "::llvm::LogicalResult", "verifyShape",
      (ins "::llvm::ArrayRef<int64_t>":$shape,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError),
      [{}], [{
        return ::mlir::te::detail::verifyShape($_attr.getFormatConfig(),
                                                shape, emitError);
      }]>,
  ];
}

#endif // TE_DIALECT_TE_IR_TEINTERFACES_TD
