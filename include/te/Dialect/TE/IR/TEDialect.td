//===- TEDialect.td - te dialect definition ----------------*- tablegen -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_TEDIALECT_TD
#define TE_DIALECT_TE_IR_TEDIALECT_TD

include "mlir/IR/OpBase.td"

def TE_Dialect : Dialect {
  let name = "te";
  let cppNamespace = "::mlir::te";
  let summary = "TransformerEngine-style quantized tensors, GEMMs and Linear layers";
  let description = [{
    The `te` dialect describes quantized linear layers the way NVIDIA
    TransformerEngine computes them: FP8 with delayed or current per-tensor
    scaling, FP8 block scaling (1x128 / 128x128), MXFP8 and NVFP4.

    * A **quantizer** is an attribute (`#te.delayed`, `#te.current`,
      `#te.block`, `#te.mxfp8`, `#te.nvfp4`), one per recipe. It holds only
      static configuration; every quantizer implements
      `QuantizerAttrInterface`, which converts it to the Format library's
      `te::format::QuantizerConfig` and derives buffer layouts from it.
    * A **quantized tensor** is a value of type
      `!te.qtensor<shape x nominal-type, quantizer, usage>`: one logical
      tensor whose buffers (data, scale-inverse, transposed data, amax) follow
      from the quantizer, the shape, the usage and the target.
    * **Live state is SSA.** Delayed scaling's scale and amax history are
      tensors threaded through the program; amax reductions name their
      process group on `te.allreduce_max`, never inside a quantizer.
    * The **target** (`sm_90`, TN-only, or `sm_100`) is the module attribute
      `te.target = #te.target<sm_90>`; absent means `sm_90`. It changes which
      buffers a quantized tensor has.

    The numerics and layouts are specified in
    `docs/formats.md`; the Format library
    (`include/te/Format/`) is their single implementation.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The name of the module attribute that selects the target.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("te.target");
    }

  private:
    void registerAttributes();
    void registerTypes();

  public:
  }];
}

#endif // TE_DIALECT_TE_IR_TEDIALECT_TD
