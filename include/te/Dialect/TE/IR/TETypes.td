//===- TETypes.td - te dialect types -----------------------*- tablegen -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_TETYPES_TD
#define TE_DIALECT_TE_IR_TETYPES_TD

include "te/Dialect/TE/IR/TEAttrs.td"
include "mlir/IR/AttrTypeBase.td"

def TE_QTensorType : TypeDef<TE_Dialect, "QTensor"> {
  let mnemonic = "qtensor";
  let summary = "a logical tensor stored in a quantized format";
  let description = [{
    Syntax:

    ```
    qtensor-type ::= `!te.qtensor<` dimension-list nominal-type `,`
                     quantizer `,` usage `>`
    dimension-list ::= (integer | `?`) `x` ...
    nominal-type ::= `bf16` | `f16` | `f32`
    usage ::= `rowwise` | `columnwise` | `rowwise|columnwise`
    ```

    One logical tensor of shape `shape` whose values were `nominal-type`
    (TransformerEngine's "fake dtype") before `quantizer` quantized them.
    `usage` says which representations it holds: **rowwise** is read when
    the tensor is consumed non-transposed (fprop operands), **columnwise**
    when it is consumed transposed (dgrad weight, wgrad operands).

    Its buffers -- names, order, shapes (with padding) and element types --
    are a function of quantizer, shape, usage and the module's target, given
    by the Format library (`getBufferTypes(target)`, docs/formats.md §3).
    Example, on `sm_90`:

    ```mlir
    !te.qtensor<128x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
    // _data: tensor<128x64xf8E4M3FN>, _transpose: tensor<64x128xf8E4M3FN>,
    // _scale_inv: tensor<1xf32>
    ```

    Buffer element types: E4M3 `f8E4M3FN`, E5M2 `f8E5M2`, E8M0 scales
    `f8E8M0FNU`, fp32 scales and amaxes `f32`, packed FP4 data (two values
    per byte, element 2i in the low nibble) `i8`.

    Integrity rules:
    * Rank ≥ 1, nominal type `bf16`, `f16` or `f32`, a non-empty usage.
      Incorrect: `!te.qtensor<16xi32, #te.current<f8E4M3FN>, rowwise>`.
      Correct: `!te.qtensor<16xf32, #te.current<f8E4M3FN>, rowwise>`.
    * Static dimensions satisfy the recipe's shape rules (Format's
      `verifyShape`); dynamic dimensions (`?`) are checked once known.
      Incorrect: `!te.qtensor<16x24xbf16, #te.nvfp4<f4E2M1FN>, rowwise>`.
      Correct: `!te.qtensor<16x?xbf16, #te.nvfp4<f4E2M1FN>, rowwise>`.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "logical shape">:$shape,
    "::mlir::Type":$elementType,
    "::mlir::te::QuantizerAttrInterface":$quantizer,
    "::mlir::te::Usage":$usage
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    int64_t getDimSize(unsigned i) const { return getShape()[i]; }
    /// Number of logical elements; ShapedType::kDynamic if a dim is dynamic.
    int64_t getNumElements() const {
      return hasStaticShape() ? ::mlir::ShapedType::getNumElements(getShape())
                              : ::mlir::ShapedType::kDynamic;
    }
    bool hasStaticShape() const {
      return ::mlir::ShapedType::isStaticShape(getShape());
    }
    int64_t getNumDynamicDims() const {
      return ::llvm::count_if(getShape(), ::mlir::ShapedType::isDynamic);
    }
    bool isDynamicDim(unsigned i) const {
      return ::mlir::ShapedType::isDynamic(getShape()[i]);
    }
    bool hasRowwise() const {
      return ::mlir::te::bitEnumContainsAll(getUsage(),
                                            ::mlir::te::Usage::Rowwise);
    }
    bool hasColumnwise() const {
      return ::mlir::te::bitEnumContainsAll(getUsage(),
                                            ::mlir::te::Usage::Columnwise);
    }
    /// The same tensor holding `usage`.
    QTensorType withUsage(::mlir::te::Usage usage) const;
    /// The same quantized tensor with another logical shape.
    QTensorType withShape(::llvm::ArrayRef<int64_t> shape) const;
    /// The high-precision tensor type this qtensor stands for.
    ::mlir::RankedTensorType getNominalTensorType() const;

    /// The buffers for `target`, with names, in TE's flatten order.
    ::mlir::FailureOr<::llvm::SmallVector<::mlir::te::QTensorBuffer>>
    getBuffers(::mlir::te::Target target,
               ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError
                   = {}) const;
    /// The buffer types for `target`, in TE's flatten order. Dynamic dims
    /// stay dynamic. Empty on an invalid request.
    ::llvm::SmallVector<::mlir::RankedTensorType>
    getBufferTypes(::mlir::te::Target target) const;
  }];
}

#endif // TE_DIALECT_TE_IR_TETYPES_TD
