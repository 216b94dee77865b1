//===- TEBufferOps.td - buffer-level te operations ---------*- tablegen -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The buffer-level forms of te.quantize, te.dequantize, te.gemm, te.amax,
// te.update_scale, te.allreduce_max, te.attention and te.attention_grad that
// te-expand-qtensors produces: a
// quantized tensor is spelled out as its buffers (TransformerEngine's flatten order, Format's layout for the
// module's target) plus the quantizer, usage and logical shape that describe
// them. The ops are in destination-passing style: on tensors every result is
// tied to an `outs` operand; after one-shot bufferization the same ops take
// memrefs and have no results. convert-te-to-runtime lowers the memref form
// to calls of the runtime's C ABI.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_TEBUFFEROPS_TD
#define TE_DIALECT_TE_IR_TEBUFFEROPS_TD

include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TE_TensorOrMemRef : AnyTypeOf<[AnyRankedTensor, AnyRankedOrUnrankedMemRef]>;

/// A usage as `rowwise`, `columnwise` or `rowwise|columnwise`.
def TE_UsageProp : EnumProp<TE_Usage> {
  let parser = [{
    $_storage = ::mlir::te::Usage::None;
    do {
      ::llvm::SMLoc usageLoc = $_parser.getCurrentLocation();
      ::llvm::StringRef usageKeyword;
      if ($_parser.parseKeyword(&usageKeyword))
        return ::mlir::failure();
      std::optional<::mlir::te::Usage> usageBit =
          ::mlir::te::symbolizeUsage(usageKeyword);
      if (!usageBit || *usageBit == ::mlir::te::Usage::None)
        return $_parser.emitError(usageLoc)
               << "expected usage 'rowwise', 'columnwise' or "
                  "'rowwise|columnwise', got '" << usageKeyword << "'";
      $_storage = $_storage | *usageBit;
    } while (::mlir::succeeded($_parser.parseOptionalVerticalBar()));
  }];
  let printer = [{ $_printer << ::mlir::te::stringifyUsage($_storage); }];
}

/// Marks the buffer-level ops: what te-expand-qtensors produces, one-shot
/// bufferization turns into their memref form (te's BufferizableOpInterface
/// model is attached to every op with the trait), te-deallocate accepts in a
/// straight-line function and convert-te-to-runtime lowers. C++:
/// `op->hasTrait<OpTrait::te::BufferLevelOp>()` (TETraits.h).
def TE_BufferLevelOp : NativeOpTrait<"BufferLevelOp"> {
  let cppNamespace = "::mlir::OpTrait::te";
}

class TE_BufferOp<string mnemonic, list<Trait> traits = []>
    : TE_Op<mnemonic, !listconcat(traits, [
        TE_BufferLevelOp,
        DestinationStyleOpInterface,
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>])> {
  let hasVerifier = 1;
  code dpsDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getOutsMutable();
    }
  }];
}

def TE_QuantizeBuffersOp : TE_BufferOp<"quantize_buffers",
    [AttrSizedOperandSegments]> {
  let summary = "quantize into the buffers of a quantized tensor";
  let description = [{
    The buffer-level `te.quantize`: quantizes `input` with `quantizer`,
    writing the representations `usage` names into `outs`, which are the
    buffers of the quantized tensor (Format's layout of `quantizer`, the
    input's shape, `usage` and the module's target, in TE's flatten order),
    followed, for `#te.delayed`, by a `tensor<1xf32>` that receives the amax.
    `scale` (delayed scaling) and `seed` / `offset` (stochastic rounding) are
    as on `te.quantize`.

    With `group`, the amax is reduced across the ranks of that process group
    before the cast (TransformerEngine's `with_amax_reduction`, the runtime's
    `te_rt_comm_quantize`): for current scaling the per-tensor amax, for
    NVFP4 (not row-scaled) the rowwise and columnwise global amaxes. Other
    recipes take no `group`: delayed scaling reduces its amax with
    `te.allreduce_max` before `te.update_scale`, block and MX scales are
    local.

    On tensors it returns the written buffers (one result per `outs`
    operand); on memrefs it writes them and has no results.

    ```mlir
    %d, %s = te.quantize_buffers %x quantizer #te.mxfp8<f8E4M3FN> usage rowwise
        outs(%d0, %s0 : tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>)
        : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
    te.quantize_buffers %x scale(%s : memref<1xf32>)
        quantizer #te.delayed<f8E4M3FN> usage rowwise
        outs(%d, %si, %amax : memref<32x64xf8E4M3FN>, memref<1xf32>, memref<1xf32>)
        : memref<32x64xbf16>
    ```
  }];
  let arguments = (ins
    TE_TensorOrMemRef:$input,
    Optional<TE_TensorOrMemRef>:$scale,
    Optional<I64>:$seed,
    Optional<I64>:$offset,
    Variadic<TE_TensorOrMemRef>:$outs,
    TE_QuantizerAttrInterface:$quantizer,
    TE_UsageProp:$usage,
    OptionalAttr<StrAttr>:$group
  );
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $input (`scale` `(` $scale^ `:` type($scale) `)`)?
    (`seed` $seed^)? (`offset` $offset^)?
    `quantizer` qualified($quantizer) `usage` $usage (`group` $group^)?
    `outs` `(` $outs `:` type($outs) `)` attr-dict
    `:` type($input) (`->` type($results)^)?
  }];
  let extraClassDeclaration = dpsDeclaration;
}

def TE_QuantizeProducedBuffersOp : TE_BufferOp<"quantize_produced_buffers",
    [AttrSizedOperandSegments, IsolatedFromAbove, SingleBlock]> {
  let summary = "quantize the value of an elementwise producer, never written";
  let description = [{
    `te.quantize_buffers` of a tensor that an elementwise computation
    produces, with the computation inside: instead of reading an input
    tensor, the quantization evaluates `body` at every element of the
    logical shape `value_type` (rows x cols: the leading dimensions
    flattened, as for `te.quantize_buffers`) and quantizes the value it
    yields, as if that value had been written to a tensor of `value_type`
    first. The bf16 tensor is not written unless `value_out` is given: then
    the same kernel also writes the value there (for other readers of it).
    `te-fuse-quantize` creates it from a `linalg.generic` that feeds a
    `te.quantize_buffers`; `convert-te-to-runtime` lowers it to
    `te_rt_mlir_quantize_produced` (runtime/include/te_rt_abi.def).

    `body` is the elementwise `linalg.generic`'s region, one block argument
    per element of `inputs` (bf16, f16, f32, or i1 stored as bytes), read at
    the element its `indexing_maps` entry gives for the loops of the logical
    shape (as a generic's map: `(d0, ..., dn-1) -> (...)`), and terminated
    by `te.produce` with the value (`value_type`'s element type). The body
    is exactly the runtime's producer program: only the operations the
    program encodes (`arith.constant`, `extf`, `truncf`, `addf`, `subf`,
    `mulf`, `divf`, `negf`, `maximumf`, `minimumf`, `maxnumf`, `minnumf`,
    `cmpf`, `select`; `math.absf`, `exp`, `exp2`, `log`, `tanh`, `erf`,
    `sqrt`, `rsqrt`, `fma`, `powf`, `log1p`, `expm1`; scalar bf16, f16, f32
    and i1 values, no fastmath flags, at most 64 of them with the casts the
    program adds) and at most 8 inputs. Each input's map must make its
    element a uniform stride of the flattened row and column indices: the
    column loop (the last) at most once, the row loops either all absent
    (the input is broadcast across rows) or all present in order at
    consecutive dimensions (size-1 dimensions between them allowed); a
    size-1 input dimension may be indexed by the constant 0. So a bias
    `(d0, d1) -> (d1)`, a row statistic `(d0, d1) -> (d0)`, a residual
    `(d0, d1) -> (d0, d1)`, a transposed input `(d0, d1) -> (d1, d0)` and a
    scalar `(d0, d1) -> ()` are all inputs; `(d0, d1, d2) -> (d1, d2)` (a
    broadcast over the leading dimension only) is not.

    A new op rather than a region on `te.quantize_buffers`: the two have
    different operands (the tensor read vs. the producer's inputs, maps and
    logical shape), verifiers and entry points, and every pass that reads
    `te.quantize_buffers`' input tensor stays correct without knowing of
    producers.

    The other operands are `te.quantize_buffers`': `scale`, `seed`,
    `offset`, `quantizer`, `usage`, `outs` (no amax-reduction `group`).
    `sizes` are the dynamic sizes of `value_type`, in order. On tensors the
    op returns the `outs` followed by `value_out`; on memrefs it has no
    results.

    ```mlir
    %d, %s, %v = te.quantize_produced_buffers
        ins(%h, %b : tensor<32x64xbf16>, tensor<64xbf16>)
        maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>]
        value tensor<32x64xbf16> quantizer #te.current<f8E4M3FN> usage rowwise
        outs(%d0, %s0 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
        value_out(%v0 : tensor<32x64xbf16>) {
    ^bb0(%x: bf16, %y: bf16):
      %a = arith.extf %x : bf16 to f32
      %c = arith.extf %y : bf16 to f32
      %s = arith.addf %a, %c : f32
      %r = arith.truncf %s : f32 to bf16
      te.produce %r : bf16
    } -> tensor<32x64xf8E4M3FN>, tensor<1xf32>, tensor<32x64xbf16>
    ```
  }];
  let arguments = (ins
    Variadic<TE_TensorOrMemRef>:$inputs,
    Variadic<Index>:$sizes,
    Optional<TE_TensorOrMemRef>:$scale,
    Optional<I64>:$seed,
    Optional<I64>:$offset,
    Variadic<TE_TensorOrMemRef>:$outs,
    Optional<TE_TensorOrMemRef>:$valueOut,
    AffineMapArrayAttr:$indexing_maps,
    TypeAttrOf<AnyRankedTensor>:$value_type,
    TE_QuantizerAttrInterface:$quantizer,
    TE_UsageProp:$usage
  );
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    `maps` $indexing_maps
    `value` $value_type (`sizes` `(` $sizes^ `)`)?
    (`scale` `(` $scale^ `:` type($scale) `)`)?
    (`seed` $seed^)? (`offset` $offset^)?
    `quantizer` qualified($quantizer) `usage` $usage
    `outs` `(` $outs `:` type($outs) `)`
    (`value_out` `(` $valueOut^ `:` type($valueOut) `)`)?
    $body attr-dict (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    /// The `outs` followed by `value_out`: every operand the op writes.
    ::mlir::MutableOperandRange getDpsInitsMutable();
    /// The logical sizes: `value_type`'s, the dynamic ones `sizes`.
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedSizes();
  }];
}

def TE_ProduceOp : TE_Op<"produce", [Pure, Terminator,
    HasParent<"QuantizeProducedBuffersOp">]> {
  let summary = "the value of a te.quantize_produced_buffers body";
  let description = [{
    Terminates the body of `te.quantize_produced_buffers` with the value
    that is quantized at the element (the logical tensor's element type).
  }];
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

def TE_DequantizeBuffersOp : TE_BufferOp<"dequantize_buffers",
    [AttrSizedOperandSegments]> {
  let summary = "dequantize the buffers of a quantized tensor";
  let description = [{
    The buffer-level `te.dequantize`: reads the buffers `inputs` of a tensor
    quantized with `quantizer` holding `usage` (in TE's flatten order) and
    writes the values they represent into the single `outs` operand, whose
    shape is the logical shape.

    ```mlir
    %y = te.dequantize_buffers %d, %s quantizer #te.current<f8E4M3FN>
        usage rowwise outs(%init : tensor<32x64xf32>)
        : tensor<32x64xf8E4M3FN>, tensor<1xf32> -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins
    Variadic<TE_TensorOrMemRef>:$inputs,
    Variadic<TE_TensorOrMemRef>:$outs,
    TE_QuantizerAttrInterface:$quantizer,
    TE_UsageProp:$usage
  );
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $inputs `quantizer` qualified($quantizer) `usage` $usage
    `outs` `(` $outs `:` type($outs) `)` attr-dict
    `:` type($inputs) (`->` type($results)^)?
  }];
  let extraClassDeclaration = dpsDeclaration;
}

def TE_GemmBuffersOp : TE_BufferOp<"gemm_buffers",
    [AttrSizedOperandSegments]> {
  let summary = "quantized GEMM on the buffers of its operands";
  let description = [{
    The buffer-level `te.gemm` (TE's `general_gemm`, docs/formats.md §5):
    operand A is given by its buffers `a` and the quantizer, usage and
    logical shape they describe (`a_quantizer`, `a_usage`, `a_shape`, whose
    dynamic extents are written `?` as in a tensor type), and likewise B. The result D is the single `outs` operand, or -- with
    `out_quantizer` -- the buffers of the rowwise-quantized D followed, for a
    `#te.delayed` output quantizer, by a `tensor<1xf32>` receiving the
    output amax (its live scale is `scale`).

    With `accumulate` the `outs` operand holds C on entry and
    `D = op_b(B)·op_a(A) + C` is written over it; otherwise its contents are
    ignored. `bias` and `use_split_accumulator` are as on `te.gemm`.
    `a_emulated` / `b_emulated`: the operand's bf16 operand written by
    `te.emulated_operand_buffers` from the same buffers, for a GEMM emulated
    in bf16 on sm_90 (MXFP8; NVFP4 without per-row scales or an RHT that the
    GEMM does not cancel), which then reads it instead of dequantizing the
    operand.

    ```mlir
    %y = te.gemm_buffers layout TN
        a(%w0, %w1 : tensor<64x128xf8E4M3FN>, tensor<1xf32>)
          quantizer #te.current<f8E4M3FN> usage rowwise shape [64, 128]
        b(%x0, %x1 : tensor<32x128xf8E4M3FN>, tensor<1xf32>)
          quantizer #te.current<f8E4M3FN> usage rowwise shape [32, 128]
        outs(%init : tensor<32x64xbf16>) -> tensor<32x64xbf16>
    ```
  }];
  let arguments = (ins
    Variadic<TE_TensorOrMemRef>:$a,
    Variadic<TE_TensorOrMemRef>:$b,
    Optional<TE_TensorOrMemRef>:$bias,
    Optional<TE_TensorOrMemRef>:$outScale,
    Optional<TE_TensorOrMemRef>:$aEmulated,
    Optional<TE_TensorOrMemRef>:$bEmulated,
    Variadic<TE_TensorOrMemRef>:$outs,
    TE_GemmLayoutAttr:$layout,
    TE_QuantizerAttrInterface:$a_quantizer,
    TE_UsageProp:$a_usage,
    DenseI64ArrayAttr:$a_shape,
    TE_QuantizerAttrInterface:$b_quantizer,
    TE_UsageProp:$b_usage,
    DenseI64ArrayAttr:$b_shape,
    OptionalAttr<TE_QuantizerAttrInterface>:$out_quantizer,
    UnitAttr:$accumulate,
    UnitAttr:$use_split_accumulator
  );
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    `layout` custom<GemmLayout>($layout)
    `a` `(` $a `:` type($a) `)` `quantizer` qualified($a_quantizer)
      `usage` $a_usage `shape` custom<LogicalShape>($a_shape)
    `b` `(` $b `:` type($b) `)` `quantizer` qualified($b_quantizer)
      `usage` $b_usage `shape` custom<LogicalShape>($b_shape)
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`scale` `(` $outScale^ `:` type($outScale) `)`)?
    (`a_emulated` `(` $aEmulated^ `:` type($aEmulated) `)`)?
    (`b_emulated` `(` $bEmulated^ `:` type($bEmulated) `)`)?
    `outs` `(` $outs `:` type($outs) `)` attr-dict (`->` type($results)^)?
  }];
  let extraClassDeclaration = dpsDeclaration;
}

def TE_EmulatedOperandBuffersOp : TE_BufferOp<"emulated_operand_buffers",
    [AttrSizedOperandSegments]> {
  let summary = "the bf16 operand of an emulated MXFP8 / NVFP4 GEMM";
  let description = [{
    sm_90 has no block-scaled GEMM: a `te.gemm` of MXFP8 or NVFP4 operands
    runs as an exact emulation (docs/guide/runtime.md), each operand
    dequantized to bf16 -- the block-scaled values, without NVFP4's global
    scale, which enters the GEMM's alpha -- and a bf16 GEMM. This op writes
    that bf16 operand of the tensor whose buffers are `inputs` (quantized
    with `quantizer`, holding `usage`, of logical shape `shape`) as a GEMM
    reading its `reads` copy (`rowwise` or `columnwise`) does, into its one
    `outs` operand: a 1-D bf16 tensor of rows x cols elements (the logical
    shape flattened to 2-D). The elements are in the runtime's order (the
    copy's stored orientation) and only `te.gemm_buffers` reads them, as its
    `a_emulated` / `b_emulated` operand, in place of dequantizing the
    operand itself. te-share-emulated-operands creates it where GEMMs read
    one operand several times (a weight read by every microbatch), so that
    it is dequantized once.

    ```mlir
    %w = te.emulated_operand_buffers %w0, %w1, %w2, %w3
        quantizer #te.mxfp8<f8E4M3FN> usage rowwise|columnwise reads rowwise
        shape [64, 128] outs(%init : tensor<8192xbf16>)
        : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>,
          tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU> -> tensor<8192xbf16>
    ```
  }];
  let arguments = (ins
    Variadic<TE_TensorOrMemRef>:$inputs,
    Variadic<TE_TensorOrMemRef>:$outs,
    TE_QuantizerAttrInterface:$quantizer,
    TE_UsageProp:$usage,
    TE_UsageProp:$reads,
    DenseI64ArrayAttr:$shape
  );
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $inputs `quantizer` qualified($quantizer) `usage` $usage `reads` $reads
    `shape` custom<LogicalShape>($shape)
    `outs` `(` $outs `:` type($outs) `)` attr-dict
    `:` type($inputs) (`->` type($results)^)?
  }];
  let extraClassDeclaration = dpsDeclaration;
}

def TE_AmaxBuffersOp : TE_BufferOp<"amax_buffers"> {
  let summary = "maximum absolute value of a tensor, into a buffer";
  let description = [{
    The buffer-level `te.amax`: writes `max |input|` (fp32, NaN ignored, 0
    for an empty tensor) into the single `outs` operand, a `1xf32` buffer.

    ```mlir
    %a = te.amax_buffers %x outs(%init : tensor<1xf32>)
        : tensor<32x64xbf16> -> tensor<1xf32>
    ```
  }];
  let arguments = (ins TE_TensorOrMemRef:$input,
                       Variadic<TE_TensorOrMemRef>:$outs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $input `outs` `(` $outs `:` type($outs) `)` attr-dict
    `:` type($input) (`->` type($results)^)?
  }];
  let extraClassDeclaration = dpsDeclaration;
}

def TE_UpdateScaleBuffersOp : TE_BufferOp<"update_scale_buffers"> {
  let summary = "delayed-scaling update into buffers";
  let description = [{
    The buffer-level `te.update_scale`: `outs` are the new amax history
    (`[L]` f32, `L` the quantizer's `history`) and the new scale (`1xf32`),
    computed from the step's `amax`, the current `history` and `scale` by
    the rule of `te.update_scale` (docs/formats.md §3.1). The inputs are only
    read; the outputs may be the same buffers as the inputs (in place).

    ```mlir
    %h2, %s2 = te.update_scale_buffers %amax, %h, %s
        quantizer #te.delayed<f8E4M3FN, history = 16>
        outs(%h0, %s0 : tensor<16xf32>, tensor<1xf32>)
        : tensor<1xf32>, tensor<16xf32>, tensor<1xf32>
        -> tensor<16xf32>, tensor<1xf32>
    ```
  }];
  let arguments = (ins TE_TensorOrMemRef:$amax, TE_TensorOrMemRef:$history,
                       TE_TensorOrMemRef:$scale,
                       Variadic<TE_TensorOrMemRef>:$outs,
                       TE_DelayedAttr:$quantizer);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $amax `,` $history `,` $scale `quantizer` qualified($quantizer)
    `outs` `(` $outs `:` type($outs) `)` attr-dict
    `:` type($amax) `,` type($history) `,` type($scale)
    (`->` type($results)^)?
  }];
  let extraClassDeclaration = dpsDeclaration;
}

def TE_AllReduceMaxBuffersOp : TE_BufferOp<"allreduce_max_buffers"> {
  let summary = "element-wise maximum across a process group, into a buffer";
  let description = [{
    The buffer-level `te.allreduce_max`: the single `outs` operand (f32, the
    shape of `input`) receives the elementwise maximum of `input` over the
    ranks of the process group named `group`. `outs` may be `input` itself
    (in place). The op communicates: it is never removed, even when its
    result is unused.

    ```mlir
    %r = te.allreduce_max_buffers %amax group "tp"
        outs(%init : tensor<1xf32>) : tensor<1xf32> -> tensor<1xf32>
    ```
  }];
  let arguments = (ins TE_TensorOrMemRef:$input,
                       Variadic<TE_TensorOrMemRef>:$outs, StrAttr:$group);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $input `group` $group `outs` `(` $outs `:` type($outs) `)` attr-dict
    `:` type($input) (`->` type($results)^)?
  }];
  let extraClassDeclaration = dpsDeclaration;
}

def TE_AttentionBuffersOp : TE_BufferOp<"attention_buffers",
    [AttrSizedOperandSegments]> {
  let summary = "scaled dot-product attention into buffers";
  let description = [{
    The buffer-level `te.attention` (docs/guide/concepts.md#attention):
    reads `query`, `key`, `value` and the optional `mask` (the shapes and
    element types of `te.attention`) and writes the output `[..., L, Ev]` in
    the query's element type into the first `outs` operand and, when a
    second `outs` operand is given, the row log-sum-exp `[..., L]` (f32)
    into it (without it the log-sum-exp is not saved). `scale` is the
    factor on the scores, always present here (`te-expand-qtensors` writes
    `te.attention`'s default, 1/sqrt(E)); `causal` as on `te.attention`.
    `convert-te-to-runtime` lowers it to `te_rt_mlir_attention`.

    ```mlir
    %o, %lse = te.attention_buffers %q, %k, %v {causal, scale = 0.125 : f32}
        outs(%o0, %lse0 : tensor<2x8x128x64xbf16>, tensor<2x8x128xf32>)
        : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>,
          tensor<2x2x128x64xbf16>
        -> tensor<2x8x128x64xbf16>, tensor<2x8x128xf32>
    te.attention_buffers %q, %k, %v mask %m {scale = 0.125 : f32}
        outs(%o : memref<16x128x64xf16>)
        : memref<16x128x64xf16>, memref<16x128x64xf16>,
          memref<16x128x64xf16>, memref<1x128x128xi1>
    ```
  }];
  let arguments = (ins
    TE_TensorOrMemRef:$query,
    TE_TensorOrMemRef:$key,
    TE_TensorOrMemRef:$value,
    Optional<TE_TensorOrMemRef>:$mask,
    Variadic<TE_TensorOrMemRef>:$outs,
    F32Attr:$scale,
    UnitAttr:$causal
  );
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? attr-dict
    `outs` `(` $outs `:` type($outs) `)`
    `:` type($query) `,` type($key) `,` type($value) (`,` type($mask)^)?
    (`->` type($results)^)?
  }];
  let extraClassDeclaration = dpsDeclaration;
}

def TE_AttentionGradBuffersOp : TE_BufferOp<"attention_grad_buffers",
    [AttrSizedOperandSegments]> {
  let summary = "backward of scaled dot-product attention into buffers";
  let description = [{
    The buffer-level `te.attention_grad`: from `query`, `key`, `value`, the
    forward's `output` and `lse`, the output's gradient `grad_output` and
    the optional `mask`, writes the gradients of the query, key and value
    into the three `outs` operands (the shapes and element types of
    `query`, `key`, `value`). `scale` is always present (as on
    `te.attention_buffers`); `causal` as on `te.attention_grad`.
    `convert-te-to-runtime` lowers it to `te_rt_mlir_attention_grad`.

    ```mlir
    %dq, %dk, %dv = te.attention_grad_buffers %q, %k, %v, %o, %lse, %do
        {causal, scale = 0.125 : f32}
        outs(%dq0, %dk0, %dv0 : tensor<16x128x64xbf16>,
             tensor<16x128x64xbf16>, tensor<16x128x64xbf16>)
        : tensor<16x128x64xbf16>, tensor<16x128x64xbf16>,
          tensor<16x128x64xbf16>, tensor<16x128x64xbf16>,
          tensor<16x128xf32>, tensor<16x128x64xbf16>
        -> tensor<16x128x64xbf16>, tensor<16x128x64xbf16>,
           tensor<16x128x64xbf16>
    ```
  }];
  let arguments = (ins
    TE_TensorOrMemRef:$query,
    TE_TensorOrMemRef:$key,
    TE_TensorOrMemRef:$value,
    TE_TensorOrMemRef:$output,
    TE_TensorOrMemRef:$lse,
    TE_TensorOrMemRef:$grad_output,
    Optional<TE_TensorOrMemRef>:$mask,
    Variadic<TE_TensorOrMemRef>:$outs,
    F32Attr:$scale,
    UnitAttr:$causal
  );
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $output `,` $lse `,` $grad_output
    (`mask` $mask^)? attr-dict
    `outs` `(` $outs `:` type($outs) `)`
    `:` type($query) `,` type($key) `,` type($value) `,` type($output) `,`
    type($lse) `,` type($grad_output) (`,` type($mask)^)?
    (`->` type($results)^)?
  }];
  let extraClassDeclaration = dpsDeclaration;
}

#endif // TE_DIALECT_TE_IR_TEBUFFEROPS_TD
