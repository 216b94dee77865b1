//===- TEEnums.td - te dialect enums -----------------------*- tablegen -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_TEENUMS_TD
#define TE_DIALECT_TE_IR_TEENUMS_TD

include "mlir/IR/EnumAttr.td"

def TE_Target : I32EnumAttr<"Target",
    "the GPU generation a program is compiled for", [
      I32EnumAttrCase<"SM90", 0, "sm_90">,
      I32EnumAttrCase<"SM100", 1, "sm_100">,
    ]> {
  let cppNamespace = "::mlir::te";
  let genSpecializedAttr = 0;
  let description = [{
    `sm_90` (Hopper) runs FP8 GEMMs in the TN layout only, so the columnwise
    representation of a per-tensor FP8 tensor is a physical transpose;
    `sm_100` (Blackwell) has no such restriction.
  }];
}

def TE_Usage : I32BitEnumAttr<"Usage",
    "which representations a quantized tensor holds", [
      I32BitEnumAttrCaseNone<"None", "none">,
      I32BitEnumAttrCaseBit<"Rowwise", 0, "rowwise">,
      I32BitEnumAttrCaseBit<"Columnwise", 1, "columnwise">,
    ]> {
  let cppNamespace = "::mlir::te";
  let genSpecializedAttr = 0;
  let separator = "|";
  let printBitEnumPrimaryGroups = 0;
}

def TE_AmaxAlgo : I32EnumAttr<"AmaxAlgo",
    "how delayed scaling reduces the amax history", [
      I32EnumAttrCase<"Max", 0, "max">,
      I32EnumAttrCase<"MostRecent", 1, "most_recent">,
    ]> {
  let cppNamespace = "::mlir::te";
  let genSpecializedAttr = 0;
}

def TE_E8M0Rounding : I32EnumAttr<"E8M0Rounding",
    "how an MXFP8 E8M0 scale is rounded", [
      I32EnumAttrCase<"Up", 0, "up">,
      I32EnumAttrCase<"Floor", 1, "floor">,
    ]> {
  let cppNamespace = "::mlir::te";
  let genSpecializedAttr = 0;
}

def TE_ErrMode : I32EnumAttr<"ErrMode",
    "the error NVFP4 4over6 minimizes when it picks a block scale", [
      I32EnumAttrCase<"MAE", 0, "mae">,
      I32EnumAttrCase<"MSE", 1, "mse">,
    ]> {
  let cppNamespace = "::mlir::te";
  let genSpecializedAttr = 0;
}

def TE_GemmLayout : I32EnumAttr<"GemmLayout",
    "TransformerEngine GEMM layout (transa, transb)", [
      I32EnumAttrCase<"TN", 0>,
      I32EnumAttrCase<"NN", 1>,
      I32EnumAttrCase<"NT", 2>,
    ]> {
  let cppNamespace = "::mlir::te";
  let genSpecializedAttr = 0;
}

#endif // TE_DIALECT_TE_IR_TEENUMS_TD
