//===- Passes.td - te conversion passes --------------------*- tablegen -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#ifndef TE_CONVERSION_PASSES_TD
#define TE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTEToRuntime : Pass<"convert-te-to-runtime", "::mlir::ModuleOp"> {
  let summary = "lower buffer-level te ops on memrefs to calls of libte_rt";
  let description = [{
    Runs after `te-expand-qtensors` and one-shot bufferization. Every
    buffer-level te op on memrefs becomes a `func.call` of an entry point of
    the runtime's MLIR-facing ABI (`runtime/include/te_rt_abi.def`, the one
    table from which the `func.func private` declarations are built):

    | op | entry point |
    |---|---|
    | `te.quantize_buffers` | `te_rt_mlir_quantize` (`te_rt_mlir_quantize_group`, the group's name first, with `group`) |
    | `te.dequantize_buffers` | `te_rt_mlir_dequantize` |
    | `te.gemm_buffers` | `te_rt_mlir_gemm` |
    | `te.amax_buffers` | `te_rt_mlir_amax` |
    | `te.update_scale_buffers` | `te_rt_mlir_update_scale` (in place on the outputs, after copying the inputs into them) |
    | `te.allreduce_max_buffers` | `te_rt_mlir_allreduce_max` (the group's name as a constant NUL-terminated string; in place on the output) |

    Buffers are passed as pointers (`memref.extract_aligned_pointer_as_index`
    + `llvm.inttoptr`, once per memref, right after its definition); a memref
    with a non-identity layout is first copied to a contiguous one (and back,
    for outputs). A `memref.alloc` of static shape, identity layout and
    whole-byte elements whose only uses are operands of these calls (not of
    `te.update_scale_buffers` / `te.allreduce_max_buffers`, which copy) and
    `memref.dealloc`s is allocated as a plain pointer instead: `llvm.call
    @aligned_alloc(alignment, size)` (the alloc's alignment, at least 16; the
    size rounded up to a multiple of it) and `llvm.call @free` in place of
    the deallocs, so that no memref descriptor is built for it. Integer
    constants, the null pointer and the descriptors' addresses are created
    once per function, at its entry. The LLVM struct of a function's memref
    results (what convert-to-llvm packs several results into) is printed
    once, as the alias `!te_results`. Shapes are flattened to 2-D
    `[rows, cols]` (leading dimensions multiplied). Each distinct quantizer
    becomes one `memref.global constant` i64 descriptor
    (`TE_RT_ABI_QUANTIZER_FIELD` order) passed by pointer; the target
    (`te.target`) is an i32 constant. Entry points run on the calling
    thread's current runtime context (`te_rt_set_current_context`).

    The tensor-level `te.amax`, `te.update_scale` and `te.allreduce_max`
    are refused: `te-expand-qtensors` turns them into their buffer forms.

    ```mlir
    te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise
        outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : memref<32x64xbf16>
    // becomes
    %q = memref.get_global @__te_quantizer_0 : memref<19xi64>
    ...
    call @te_rt_mlir_quantize(%qp, %c1_i32, %c0_i32, %c32, %c64, %c3_i32, %xp,
        %dp, %sp, %null, %null, %null, %null, %null, %null, %c0, %c0) : ...

    // and a buffer only the runtime sees,
    %d = memref.alloc() {alignment = 64 : i64} : memref<32x64xf8E4M3FN>
    ... (operands of te ops) ...
    memref.dealloc %d : memref<32x64xf8E4M3FN>
    // becomes
    %dp = llvm.call @aligned_alloc(%c64, %c2048) : (i64, i64) -> !llvm.ptr
    ...
    llvm.call @free(%dp) : (!llvm.ptr) -> ()
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def TESetTarget : Pass<"te-set-target", "::mlir::ModuleOp"> {
  let summary = "set the module's te.target and remark on emulated GEMMs";
  let description = [{
    The first stage of `te-pipeline`. Sets the module attribute `te.target`
    from the `target` option (`cpu` executes `sm_90` layouts on the cpu
    backend) and emits a remark at every `te.gemm`, `te.linear` and
    `te.linear_grad` whose recipe has no native GEMM on the target: MXFP8 and
    NVFP4 GEMMs run natively only on `sm_100`; on `sm_90` and `cpu` the
    runtime emulates them exactly (dequantize the operands, GEMM in fp32).
    A module whose `te.target` differs from the option is an error.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "cpu | sm_90 | sm_100">
  ];
  let dependentDialects = ["::mlir::te::TEDialect"];
}

def ConvertTEToReference
    : Pass<"convert-te-to-reference", "::mlir::ModuleOp"> {
  let summary = "replace te ops by high-precision arithmetic (a program's fp32 twin)";
  let description = [{
    The reference a quantized program is measured against: the same program
    with quantization removed. Runs after `te-decompose-linear` (so only
    `te.quantize`, `te.dequantize`, `te.gemm` and the scaling ops remain)
    and before `te-expand-qtensors`. Every `!te.qtensor<shape x T, ...>`
    becomes `tensor<shape x T>` (function signatures, calls, returns, `scf`
    regions too), and

    * `te.quantize` is the identity on its input;
    * `te.dequantize` is the identity, or an element-type cast;
    * `te.gemm` is `D = op_b(B)·op_a(A) (+ bias) (+ C)` with the operands
      extended to f32 and accumulated in f32 (`linalg.generic`), rounded once
      to D's element type;
    * a usage view (`te.from_buffers` of one `te.buffers`) is its source;
    * the delayed-scaling state is inert: amaxes are 0, `te.update_scale`
      returns its history and scale unchanged.

    Nothing else changes, so the twin runs through the same `te-pipeline`
    and `te-run`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // TE_CONVERSION_PASSES_TD
