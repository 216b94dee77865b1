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

def TE_ShapeInferenceOpInterface : OpInterface<"ShapeInferenceOpInterface"> {
  let cppNamespace = "::mlir::te";
  let description = [{
    The shape rule of an op: the most precise result shapes its operand
    types imply. `te-infer-shapes` calls it whenever an operand of the op
    became more static, and refines each result to the shape it returns
    (a dimension is only ever made static where it was `?`). Implementing the
    interface also says that the op accepts operands of refined types: its
    verifier takes any refinement of its operand types. A refined value that
    meets an op without the interface is cast back to the type it had.

    ```mlir
    %q = te.quantize %x : tensor<32x64xbf16>
        -> !te.qtensor<?x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
    ```

    `inferResultShapes` of this `te.quantize` gives `[32, 64]` for `%q` (the
    input's shape) and nothing for the absent amax; `te-infer-shapes` makes
    `%q` a `!te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>`, checks the
    recipe's shape rules on it, and re-runs the rules of `%q`'s users.

    A new op with a shape rule declares
    `DeclareOpInterfaceMethods<TE_ShapeInferenceOpInterface>` in its ODS
    definition and defines `inferResultShapes` in
    `lib/Dialect/TE/IR/ShapeRules.cpp`, asking the Format library for format
    facts (`te::format::gemmShape`, buffer layouts).

    Why not only upstream's interfaces: `InferTypeOpInterface` infers whole
    result types, which most te ops cannot do. `te.quantize`'s quantizer and
    usage, `te.dequantize`'s element type and `te.gemm`'s result (a tensor,
    or a quantized tensor with an output quantizer) are spelled in the op's
    type; only their shapes follow from the operands. `te.empty` takes its
    shape from constant operands and `te.buffers` from the module's target,
    which upstream's `InferShapedTypeOpInterface` (a static
    `inferReturnTypeComponents`, made for `ShapedType` results; `!te.qtensor`
    is not one) does not see; and `te.empty` drops the operands its refined
    type makes redundant (`resultTypesRefined`).
    Ops whose result types are wholly inferred (`te.linear`,
    `te.linear_grad`, with `InferTypeOpAdaptor`: their parser and builders
    use it) keep `inferReturnTypes` as their one rule: their
    `inferResultShapes` takes the shapes of the types it infers
    (`detail::inferResultShapesFromReturnTypes`).
  }];

  let methods = [
    InterfaceMethod<[{
        Appends to `shapes` one entry per result: the shape the current
        operand types (and the op's attributes and constant operands) give
        it, dynamic dimensions allowed, or an unranked
        `ShapedTypeComponents()` where the rule says nothing (a result whose
        type does not depend on the operands). Fails when the operands make
        no valid result, with a diagnostic at `location` when one is given
        and silently otherwise.
      }],
      "::llvm::LogicalResult", "inferResultShapes",
      (ins "::std::optional<::mlir::Location>":$location,
           "::llvm::SmallVectorImpl<::mlir::ShapedTypeComponents> &":$shapes),
      [{}]>,
    InterfaceMethod<[{
        Called after some result types were made more static than
        `previousTypes` (the result types before): the op updates the
        operands that restate them, so that it verifies again (`te.empty`
        drops the size operand of each dimension that became static). It may
        change only its operands. The default does nothing.
      }],
      "void", "resultTypesRefined", (ins "::mlir::TypeRange":$previousTypes),
      [{}], [{ return; }]>,
  ];
}

#endif // TE_DIALECT_TE_IR_TEINTERFACES_TD
