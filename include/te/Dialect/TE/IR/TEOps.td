//===- TEOps.td - te dialect operations --------------------*- tablegen -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_IR_TEOPS_TD
#define TE_DIALECT_TE_IR_TEOPS_TD

include "te/Dialect/TE/IR/TETypes.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class TE_Op<string mnemonic, list<Trait> traits = []>
    : Op<TE_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def TE_QTensor : Type<CPred<"::llvm::isa<::mlir::te::QTensorType>($_self)">,
                      "quantized tensor", "::mlir::te::QTensorType">;

def TE_FloatTensor : RankedTensorOf<[BF16, F16, F32]>;

def TE_F32x1Tensor
    : Type<And<[CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">,
                CPred<"::llvm::cast<::mlir::RankedTensorType>($_self)"
                      ".getShape() == ::llvm::ArrayRef<int64_t>{1}">,
                CPred<"::llvm::cast<::mlir::RankedTensorType>($_self)"
                      ".getElementType().isF32()">]>,
           "tensor<1xf32>", "::mlir::RankedTensorType">,
      BuildableType<"::mlir::RankedTensorType::get({1}, $_builder.getF32Type())">;

def TE_F32Tensor : RankedTensorOf<[F32]>;

//===----------------------------------------------------------------------===//
// Quantize / dequantize
//===----------------------------------------------------------------------===//

def TE_QuantizeOp : TE_Op<"quantize", [Pure, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<TE_ShapeInferenceOpInterface>]> {
  let summary = "quantize a high-precision tensor";
  let description = [{
    Quantizes `input` with the quantizer of the result type, producing the
    representations its usage names (docs/formats.md §3). The result's shape
    and nominal type are those of `input`.

    * Delayed scaling (`#te.delayed`): the live scale is the `scale`
      operand (`tensor<1xf32>`), and the op also yields
      `amax = max|input|` (`tensor<1xf32>`), to be reduced and fed to
      `te.update_scale`. Both are required with `#te.delayed` and forbidden
      otherwise.
    * Stochastic rounding (`#te.nvfp4<..., stochastic_rounding = true>`):
      `seed` and `offset` (`i64`) select the random stream (Philox);
      required iff the quantizer rounds stochastically.
    * RHT (`#te.nvfp4<..., rht = true>` with columnwise usage) needs a
      `bf16` input.
    * Amax reduction (`group "tp"`): the amax is reduced (maximum) across the
      ranks of the named process group before the cast, as TransformerEngine
      does with `with_amax_reduction` in tensor- and sequence-parallel
      layers: for current scaling the per-tensor amax, for NVFP4 (not
      row-scaled) the rowwise and the columnwise (post-RHT) global amaxes.
      `input` is then this rank's shard and the scales are those of the
      gathered tensor. Only those two recipes take a `group`: delayed scaling
      reduces its amax with `te.allreduce_max` before `te.update_scale`,
      block and MX scales are local. The group is named on the op, never in
      the quantizer; te-expand-qtensors copies it onto
      `te.quantize_buffers`, and the runtime finds the communicator
      registered under that name (docs/distributed.md).

    The op is `Pure`: every input of the computation, including the scale and
    the random seed, is an operand, and every output is a result. With a
    `group` this still holds for SPMD programs, where every rank runs the
    same program: the other ranks contribute the same SSA value, so two
    quantizations of one value with one group compute the same bits, and
    erasing or sharing one erases or shares it on every rank.

    ```mlir
    %q = te.quantize %x : tensor<32x64xbf16>
        -> !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
    %q, %amax = te.quantize %x scale %s : tensor<32x64xbf16>
        -> !te.qtensor<32x64xbf16, #te.delayed<f8E4M3FN>, rowwise>, tensor<1xf32>
    %g = te.quantize %dy seed %seed offset %off : tensor<32x64xbf16>
        -> !te.qtensor<32x64xbf16, #te.nvfp4<f4E2M1FN, stochastic_rounding = true>, columnwise>
    // This rank's 64 rows of a tensor-parallel activation: the amax is the
    // maximum over the ranks of the process group "tp".
    %s = te.quantize %x group "tp" : tensor<64x128xbf16>
        -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
    ```
  }];
  let arguments = (ins
    TE_FloatTensor:$input,
    Optional<TE_F32x1Tensor>:$scale,
    Optional<I64>:$seed,
    Optional<I64>:$offset,
    OptionalAttr<StrAttr>:$group
  );
  let results = (outs TE_QTensor:$result, Optional<TE_F32x1Tensor>:$amax);
  let assemblyFormat = [{
    $input (`scale` $scale^)? (`seed` $seed^)? (`offset` $offset^)?
    (`group` $group^)? attr-dict
    `:` type($input) `->` qualified(type($result)) (`,` type($amax)^)?
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::te::QTensorType":$resultType, "::mlir::Value":$input,
                   CArg<"::mlir::Value", "{}">:$scale,
                   CArg<"::mlir::Value", "{}">:$seed,
                   CArg<"::mlir::Value", "{}">:$offset,
                   CArg<"::mlir::StringAttr", "{}">:$group)>
  ];
}

def TE_DequantizeOp : TE_Op<"dequantize", [Pure,
    DeclareOpInterfaceMethods<TE_ShapeInferenceOpInterface>]> {
  let summary = "dequantize a quantized tensor to high precision";
  let description = [{
    Returns the values `input` represents, as a tensor of its shape with
    element type `bf16`, `f16` or `f32` (not necessarily the nominal type).
    It reads the rowwise representation. A tensor holding only columnwise
    data can be dequantized when the columnwise data carries the same values
    (docs/formats.md §3.1 "Columnwise-only dequantize"): per-tensor FP8
    (`#te.delayed`, `#te.current`) and 128x128 block scaling
    (`#te.block<..., dims = 2>`).

    ```mlir
    %y = te.dequantize %q : !te.qtensor<32x64xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
        -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins TE_QTensor:$input);
  let results = (outs TE_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

def TE_GemmOp : TE_Op<"gemm", [Pure, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<TE_ShapeInferenceOpInterface>]> {
  let summary = "quantized GEMM with TransformerEngine's operand conventions";
  let description = [{
    TransformerEngine's `general_gemm(A, B, layout)` (docs/formats.md §5) on
    two quantized operands. `layout` is `TN`, `NN` or `NT`
    (`transa = layout[0] == 'T'`, `transb = layout[1] == 'T'`); in row-major
    terms `D = op_b(B) · op_a(A)` with `op(X) = Xᵀ` when transposed.
    Writing `[r, c]` for an operand flattened to 2-D (leading dimensions
    multiplied):

    | layout | A | B | D | typical use |
    |---|---|---|---|---|
    | `TN` | `[N, K]` | `[..., K]` (M = leading) | `[..., N]` | fprop `Y = X·Wᵀ` (A = W, B = X) |
    | `NN` | `[K, N]` | `[..., K]` (M = leading) | `[..., N]` | dgrad `dX = dY·W` (A = W, B = dY) |
    | `NT` | `[..., N]` (K = leading) | `[..., M]` (K = leading) | `[M, N]` | wgrad `dW = dYᵀ·X` (A = X, B = dY) |

    In `TN` and `NN` A has rank 2 and D has B's leading dimensions.

    Operand rules (TE's `CanonicalizeGemmInput`):
    * A needs rowwise usage if `transa`, columnwise otherwise; B needs
      columnwise usage if `transb`, rowwise otherwise.
    * Both operands come from the same recipe family (per-tensor FP8 =
      `#te.delayed` / `#te.current`, `#te.block`, `#te.mxfp8`, `#te.nvfp4`).
    * Two `#te.block<..., dims = 2>` operands are refused (2D×2D), and so are
      two `f8E5M2` operands (cuBLASLt).
    * The contraction dimension K is divisible by 16.

    Optional parts:
    * `bias(%bias : tensor<Nx...>)`: added to every row of D.
    * `accumulate(%c : type(D))`: `D = op_b(B)·op_a(A) + C` (not with a
      quantized D).
    * `use_split_accumulator` (unit attribute): promote partial sums to fp32
      every few K blocks (cuBLAS's non-fast-accumulation mode; the absence is
      "fast accumulation").
    * A quantized result: when D has type `!te.qtensor`, its quantizer is
      the output quantizer (rowwise usage only). A `#te.delayed` output
      quantizer takes its live scale as `scale %s` and the op then also
      yields the output amax. Output quantizers with stochastic rounding are
      refused.

    ```mlir
    %y = te.gemm %w, %x layout TN bias(%b : tensor<64xbf16>)
        : !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>,
          !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
        -> tensor<32x64xbf16>
    ```
  }];
  let arguments = (ins
    TE_QTensor:$a,
    TE_QTensor:$b,
    TE_GemmLayoutAttr:$layout,
    Optional<TE_FloatTensor>:$bias,
    Optional<TE_FloatTensor>:$accumulate,
    Optional<TE_F32x1Tensor>:$outScale,
    UnitAttr:$use_split_accumulator
  );
  let results = (outs AnyTypeOf<[TE_FloatTensor, TE_QTensor]>:$result,
                      Optional<TE_F32x1Tensor>:$amax);
  let assemblyFormat = [{
    $a `,` $b `layout` custom<GemmLayout>($layout)
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`accumulate` `(` $accumulate^ `:` type($accumulate) `)`)?
    (`scale` $outScale^)?
    attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `->`
    qualified(type($result)) (`,` type($amax)^)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear
//===----------------------------------------------------------------------===//

def TE_LinearOp : TE_Op<"linear",
    [Pure, AttrSizedOperandSegments, InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<TE_ShapeInferenceOpInterface>]> {
  let summary = "forward pass of TransformerEngine's quantized Linear module";
  let description = [{
    `Y = X·Wᵀ + bias` computed the way `te.Linear` does (docs/formats.md §5,
    §6). A Linear has five quantizer slots; the forward ones are attributes
    of this op, the backward ones of `te.linear_grad`:

    | slot | attribute | TE role | usage produced |
    |---|---|---|---|
    | input | `input_quantizer` | `GEMM1_INPUT` | rowwise (fprop) + columnwise (wgrad) |
    | weight | `weight_quantizer` | `GEMM1_WEIGHT` | rowwise (fprop) + columnwise (dgrad) |
    | output | `output_quantizer` (optional, TE's `fp8_output`) | `GEMM1_OUTPUT` | rowwise |
    | grad_output | on `te.linear_grad` | `GRAD_OUTPUT1` | rowwise (dgrad) + columnwise (wgrad) |
    | grad_input | on `te.linear_grad` (optional, TE's `fp8_grad`) | `GRAD_INPUT1` | rowwise |

    Semantics (what `te-decompose-linear` spells out):
    1. `X_q = quantize(X, input_quantizer)` in both directions;
    2. `W_q = quantize(W, weight_quantizer)` in both directions -- or, with
       `workspace(%ws)`, `W_q = %ws` and `W` is not read (a cache hit);
    3. fprop: `Y = gemm(W_q, X_q, TN)` with the bias added in the GEMM's
       epilogue, without the split accumulator (TE's `_2X_ACC_FPROP = False`;
       FP8 block scaling forces it on); the result is quantized by
       `output_quantizer` when given.

    Results (all types are inferred from operands and attributes):
    1. `output`: `[..., out]`, the input's element type; a `!te.qtensor`
       with rowwise usage when `output_quantizer` is given.
    2. `saved_input`: `X_q` without its rowwise data -- columnwise only, the
       representation wgrad reads (TE's `update_usage(rowwise=False)` before
       `save_for_backward`); the same quantization, not a second one.
    3. `saved_weight`: `W_q`, rowwise + columnwise (TE's `wt_save`).
    4. `new_workspace` (only with `cache_weight`): `W_q` again, the cache to
       pass as `workspace` to later microbatches (TE's
       `new_weight_workspace` on a cache miss).

    Weight caching (TE's `is_first_microbatch`): `cache_weight` = quantize
    and return the cache (first microbatch), `workspace` = reuse it (later
    microbatches); the two are exclusive. `saved_weight` and `new_workspace`
    are the same tensor, as are `saved_weight` and `workspace` on a hit;
    they are separate SSA values here, and `te-eliminate-aliases` makes one
    value of them (and derives the cache by itself when the weight is
    loop-invariant, without `cache_weight`/`workspace`).

    Checks (TE's `assert_dim_for_fp8_exec`, `linear_compile`): the flattened
    leading dimensions of the input are divisible by 8, `in_features` and
    `out_features` by 16; the input and weight quantizers are of the same
    recipe family and not both 128x128 blocks; the quantized shapes pass the
    recipe's shape rules. Delayed-scaling quantizers are refused (their
    state is SSA: use `te.quantize` + `te.gemm`); a quantizer with stochastic
    rounding needs `seed` / `offset`, which every stochastically rounding
    quantization of the op uses.

    ```mlir
    // Plain forward, bias fused.
    %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xbf16>)
        {input_quantizer = #te.mxfp8<f8E4M3FN>,
         weight_quantizer = #te.mxfp8<f8E4M3FN>}
        : tensor<32x128xbf16>, tensor<64x128xbf16>
    // First microbatch: quantize the weight and return the cache ...
    %y0, %xs0, %ws0, %cache = te.linear %x0, %w
        {input_quantizer = #te.current<f8E4M3FN>,
         weight_quantizer = #te.current<f8E4M3FN>, cache_weight}
        : tensor<32x128xbf16>, tensor<64x128xbf16>
    // ... later microbatches reuse it.
    %y1, %xs1, %ws1 = te.linear %x1, %w
        workspace(%cache : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>)
        {input_quantizer = #te.current<f8E4M3FN>,
         weight_quantizer = #te.current<f8E4M3FN>}
        : tensor<32x128xbf16>, tensor<64x128xbf16>
    ```
  }];
  let arguments = (ins
    TE_FloatTensor:$input,
    TE_FloatTensor:$weight,
    Optional<TE_FloatTensor>:$bias,
    Optional<TE_QTensor>:$workspace,
    Optional<I64>:$seed,
    Optional<I64>:$offset,
    TE_QuantizerAttrInterface:$input_quantizer,
    TE_QuantizerAttrInterface:$weight_quantizer,
    OptionalAttr<TE_QuantizerAttrInterface>:$output_quantizer,
    UnitAttr:$cache_weight
  );
  let results = (outs
    AnyTypeOf<[TE_FloatTensor, TE_QTensor]>:$output,
    TE_QTensor:$saved_input,
    TE_QTensor:$saved_weight,
    Optional<TE_QTensor>:$new_workspace
  );
  let assemblyFormat = [{
    $input `,` $weight
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`workspace` `(` $workspace^ `:` qualified(type($workspace)) `)`)?
    (`seed` $seed^)? (`offset` $offset^)?
    attr-dict `:` type($input) `,` type($weight)
  }];
  let hasVerifier = 1;
}

def TE_LinearGradOp : TE_Op<"linear_grad",
    [Pure, AttrSizedOperandSegments, InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<TE_ShapeInferenceOpInterface>]> {
  let summary = "backward pass of TransformerEngine's quantized Linear module";
  let description = [{
    The gradients of `te.linear` (docs/formats.md §5, §6 "Backward"), from the
    gradient of the output `dY` `[..., out]` and the values the forward
    saved: `saved_input` (`[..., in]`, needs columnwise usage) and
    `saved_weight` (`[out, in]`, needs columnwise usage).

    Semantics (what `te-decompose-linear` spells out):
    * `dY_q = quantize(dY, grad_output_quantizer)` once, rowwise +
      columnwise (with `seed` / `offset` when it rounds stochastically, as
      NVFP4's gradient quantizer does);
    * dgrad `dX = dY·W`: GEMM `NN` (A = `saved_weight` columnwise, B =
      `dY_q` rowwise), with the split accumulator (`_2X_ACC_DGRAD`);
      quantized rowwise by `grad_input_quantizer` when given (TE's
      `fp8_grad`);
    * wgrad `dW = dYᵀ·X`: GEMM `NT` (A = `saved_input` columnwise, B =
      `dY_q` columnwise), with the split accumulator (`_2X_ACC_WGRAD`);
    * with `has_bias`, the bias gradient `db = Σ dY` over the leading
      dimensions of the high-precision `dY`, accumulated in fp32 and rounded
      once to `dY`'s element type (TE's `bgrad_quantize` / `sum(0)`).

    Results (inferred): `dgrad` `[..., in]` (a rowwise `!te.qtensor` when
    `grad_input_quantizer` is given, else `dY`'s element type), `wgrad`
    `[out, in]` in `dY`'s element type, and `bias_grad` `[out]` when
    `has_bias`. The checks of `te.linear` apply (alignment, recipe families,
    2D×2D, shape rules, no delayed scaling, `seed`/`offset` iff a quantizer
    rounds stochastically).

    ```mlir
    %dx, %dw, %db = te.linear_grad %dy, %xs, %ws
        {grad_output_quantizer = #te.mxfp8<f8E5M2>, has_bias}
        : tensor<32x64xbf16>,
          !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>,
          !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
    // NVFP4: the gradient is rounded stochastically from a random stream.
    %dx2, %dw2 = te.linear_grad %dy, %xs4, %ws4 seed %seed offset %off
        {grad_output_quantizer = #te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>}
        : tensor<32x64xbf16>,
          !te.qtensor<32x128xbf16, #te.nvfp4<f4E2M1FN, rht = true>, columnwise>,
          !te.qtensor<64x128xbf16, #te.nvfp4<f4E2M1FN, block_2d = true>, rowwise|columnwise>
    ```
  }];
  let arguments = (ins
    TE_FloatTensor:$grad_output,
    TE_QTensor:$saved_input,
    TE_QTensor:$saved_weight,
    Optional<I64>:$seed,
    Optional<I64>:$offset,
    TE_QuantizerAttrInterface:$grad_output_quantizer,
    OptionalAttr<TE_QuantizerAttrInterface>:$grad_input_quantizer,
    UnitAttr:$has_bias
  );
  let results = (outs
    AnyTypeOf<[TE_FloatTensor, TE_QTensor]>:$dgrad,
    TE_FloatTensor:$wgrad,
    Optional<TE_FloatTensor>:$bias_grad
  );
  let assemblyFormat = [{
    $grad_output `,` $saved_input `,` $saved_weight
    (`seed` $seed^)? (`offset` $offset^)?
    attr-dict `:` type($grad_output) `,` qualified(type($saved_input)) `,`
    qualified(type($saved_weight))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def TE_AttentionTensor : RankedTensorOf<[BF16, F16, F32]>;
def TE_AttentionMaskTensor : RankedTensorOf<[BF16, F16, F32, I1]>;

def TE_AttentionOp : TE_Op<"attention",
    [Pure, InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<TE_ShapeInferenceOpInterface>]> {
  let summary = "scaled dot-product attention (PyTorch SDPA), fused";
  let description = [{
    `output = softmax(scale · query · keyᵀ + mask) · value` over the last
    two dimensions, per batch and head, with PyTorch's
    `scaled_dot_product_attention` semantics (docs/guide/concepts.md#attention):

    * `query` `[B, Hq, L, E]` (or 3-D `[N, L, E]`), `key` `[B, Hkv, S, E]`,
      `value` `[B, Hkv, S, Ev]`, one element type (bf16, f16, f32). `Hq`
      a multiple of `Hkv`: query head `h` reads key/value head
      `h / (Hq / Hkv)` (grouped-query attention, `repeat_interleave`'s
      order; in 3-D the same with `N` for the heads).
    * `scale` (f32, finite): the factor on the scores; `1/sqrt(E)` when
      absent, which needs a static, nonzero `E`.
    * `causal`: key `j` is visible to query `i` iff `j <= i` (top-left,
      PyTorch's `is_causal`).
    * `mask` (optional): additive (bf16, f16, f32: added to the scaled
      scores) or boolean (`i1`: true = the key takes part); its shape
      broadcasts to `[B, Hq, L, S]` (`[N, L, S]` in 3-D) with size-1
      dimensions, its last dimension `S`.
    * A row where no key takes part (causal, mask, or `S = 0`) gives 0,
      as PyTorch's SDPA does.

    Results: `output` `[B, Hq, L, Ev]` in the query's element type, and
    `lse` `[B, Hq, L]` f32, the row's natural-log sum of exponentials of the
    masked, scaled scores (`-inf` for a row with no key), which
    `te.attention_grad` reads.

    ```mlir
    %o, %lse = te.attention %q, %k, %v {causal, scale = 0.0883883 : f32}
        : tensor<4x32x2048x128xbf16>, tensor<4x8x2048x128xbf16>,
          tensor<4x8x2048x128xbf16>
    %o2, %lse2 = te.attention %q3, %k3, %v3 mask %m
        : tensor<64x128x64xbf16>, tensor<64x128x64xbf16>,
          tensor<64x128x64xbf16>, tensor<1x128x128xbf16>
    ```
  }];
  let arguments = (ins
    TE_AttentionTensor:$query,
    TE_AttentionTensor:$key,
    TE_AttentionTensor:$value,
    Optional<TE_AttentionMaskTensor>:$mask,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$causal
  );
  let results = (outs TE_AttentionTensor:$output, TE_F32Tensor:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) (`,` type($mask)^)?
  }];
  let extraClassDeclaration = [{
    /// The scale on the scores: the attribute, or 1/sqrt(E).
    float getScaleValue();
  }];
  let hasVerifier = 1;
}

def TE_AttentionGradOp : TE_Op<"attention_grad",
    [Pure, InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<TE_ShapeInferenceOpInterface>]> {
  let summary = "backward of te.attention";
  let description = [{
    The gradients of `te.attention` with respect to `query`, `key` and
    `value`, from the gradient of the output `grad_output` and what the
    forward saved (its `output` and `lse`); `scale`, `causal` and `mask`
    as the forward's. The probabilities are recomputed from `lse`, never
    read from memory (FlashAttention-2's backward):

    ```
    P  = exp(scale · Q Kᵀ + mask − lse)     D = rowsum(dO ∘ O)
    dV = Pᵀ dO    dP = dO Vᵀ    dS = P ∘ (dP − D)
    dQ = scale · dS K    dK = scale · dSᵀ Q
    ```

    For grouped-query attention `grad_key` and `grad_value` are summed
    over each group's query heads; a row where no key takes part (its lse
    `-inf`) contributes nothing. The operands follow `te.attention`'s shape
    rules; `output` and `grad_output` have the forward output's shape and
    the query's element type, `lse` the query's shape without its last
    dimension. Results: `grad_query`, `grad_key`, `grad_value` with the
    shapes and element type of `query`, `key`, `value`.

    ```mlir
    %dq, %dk, %dv = te.attention_grad %q, %k, %v, %o, %lse, %do {causal}
        : tensor<4x32x2048x128xbf16>, tensor<4x32x2048x128xbf16>,
          tensor<4x32x2048x128xbf16>, tensor<4x32x2048x128xbf16>,
          tensor<4x32x2048xf32>, tensor<4x32x2048x128xbf16>
    ```
  }];
  let arguments = (ins
    TE_AttentionTensor:$query,
    TE_AttentionTensor:$key,
    TE_AttentionTensor:$value,
    TE_AttentionTensor:$output,
    TE_F32Tensor:$lse,
    TE_AttentionTensor:$grad_output,
    Optional<TE_AttentionMaskTensor>:$mask,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$causal
  );
  let results = (outs TE_AttentionTensor:$grad_query,
                      TE_AttentionTensor:$grad_key,
                      TE_AttentionTensor:$grad_value);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $output `,` $lse `,` $grad_output
    (`mask` $mask^)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) `,` type($output) `,`
    type($lse) `,` type($grad_output) (`,` type($mask)^)?
  }];
  let extraClassDeclaration = [{
    /// The scale on the scores: the attribute, or 1/sqrt(E).
    float getScaleValue();
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Scaling state
//===----------------------------------------------------------------------===//

def TE_AmaxOp : TE_Op<"amax", [Pure,
    DeclareOpInterfaceMethods<TE_ShapeInferenceOpInterface>]> {
  let summary = "maximum absolute value of a tensor";
  let description = [{
    `max |x|` over all elements of `input`, as `tensor<1xf32>`, computed in
    fp32 with IEEE maxNum (NaN elements are ignored), as TE's
    `nvte_compute_amax` (docs/formats.md §3.2). An empty tensor gives 0.

    ```mlir
    %a = te.amax %x : tensor<32x64xbf16>
    ```
  }];
  let arguments = (ins TE_FloatTensor:$input);
  let results = (outs TE_F32x1Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def TE_UpdateScaleOp : TE_Op<"update_scale", [Pure,
    AllTypesMatch<["history", "new_history"]>]> {
  let summary = "delayed-scaling update: roll the amax history, compute the next scale";
  let description = [{
    TE's delayed-scaling update (docs/formats.md §3.1, `delayed_scaling.cu`)
    for one quantizer. `amax` is the step's (reduced) amax -- TE's
    `amax_history[0]` --, `history` the `[L]` amax history (`L` = the
    quantizer's `history`), `scale` the current scale. With `last = amax`:

    * `new_history[0] = 0`, `new_history[i] = history[i+1]` for
      `1 ≤ i ≤ L−2`, `new_history[L−1] = last` (for `L = 1` the one entry
      becomes 0, as in TE's kernels; `last` still enters `a`);
    * `a = max(history[1..L−1], last)` for `algo = max`, `a = last` for
      `most_recent`;
    * `new_scale = fp8_max · 2^(−margin) / a` if `a` is finite and > 0,
      else `scale`; an infinite quotient becomes `FLT_MAX`.

    ```mlir
    %h2, %s2 = te.update_scale %amax, %history, %scale
        {quantizer = #te.delayed<f8E4M3FN, history = 16>} : tensor<16xf32>
    ```
  }];
  let arguments = (ins
    TE_F32x1Tensor:$amax,
    TE_F32Tensor:$history,
    TE_F32x1Tensor:$scale,
    TE_DelayedAttr:$quantizer
  );
  let results = (outs TE_F32Tensor:$new_history, TE_F32x1Tensor:$new_scale);
  let assemblyFormat = [{
    $amax `,` $history `,` $scale attr-dict `:` type($history)
  }];
  let hasVerifier = 1;
}

def TE_AllReduceMaxOp : TE_Op<"allreduce_max",
    [AllTypesMatch<["input", "result"]>]> {
  let summary = "element-wise maximum across a process group";
  let description = [{
    All-reduces `input` with MAX over the ranks of the process group named
    `group` (e.g. the tensor-parallel group), as TE does with amaxes before
    computing scales. The group is named on the op and never stored in a
    quantizer (the seed's ProcessGroup guard). Not `Pure`: it communicates.

    ```mlir
    %r = te.allreduce_max %amax group "tp" : tensor<1xf32>
    ```
  }];
  let arguments = (ins TE_F32Tensor:$input, StrAttr:$group);
  let results = (outs TE_F32Tensor:$result);
  let assemblyFormat = "$input `group` $group attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Allocation, flatten and unflatten
//===----------------------------------------------------------------------===//

def TE_EmptyOp : TE_Op<"empty", [Pure,
    DeclareOpInterfaceMethods<TE_ShapeInferenceOpInterface,
                              ["resultTypesRefined"]>]> {
  let summary = "allocate an uninitialized quantized tensor";
  let description = [{
    A quantized tensor with uninitialized contents, as
    `Quantizer.make_empty` / TensorSpec allocation (docs/formats.md §7.2).
    Like `tensor.empty`, one `index` operand gives each dynamic dimension of
    the result type, in order.

    ```mlir
    %q = te.empty(%n) : !te.qtensor<?x64xbf16, #te.current<f8E4M3FN>, rowwise>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamicSizes);
  let results = (outs TE_QTensor:$result);
  let assemblyFormat = "`(` $dynamicSizes `)` attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def TE_BuffersOp : TE_Op<"buffers", [Pure,
    DeclareOpInterfaceMethods<TE_ShapeInferenceOpInterface>]> {
  let summary = "the buffers of a quantized tensor (flatten)";
  let description = [{
    Returns the buffers of `input` in TransformerEngine's flatten order
    (`__tensor_flatten__`, docs/formats.md §1.2). The result types must be
    those the Format library gives for the tensor's quantizer, shape and
    usage on the module's target (`te.target`, default `sm_90`).
    `te.buffers(te.from_buffers(%b...))` folds to `%b...`.

    ```mlir
    %d, %t, %s = te.buffers %q
        : !te.qtensor<16x32xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
        -> tensor<16x32xf8E4M3FN>, tensor<32x16xf8E4M3FN>, tensor<1xf32>
    ```
  }];
  let arguments = (ins TE_QTensor:$input);
  let results = (outs Variadic<AnyRankedTensor>:$buffers);
  let assemblyFormat = [{
    $input attr-dict `:` qualified(type($input)) `->` type($buffers)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TE_FromBuffersOp : TE_Op<"from_buffers", [Pure]> {
  let summary = "a quantized tensor from its buffers (unflatten)";
  let description = [{
    The inverse of `te.buffers`: builds a quantized tensor of the result type
    from its buffers, given in TransformerEngine's flatten order with the
    types the Format library gives on the module's target.
    `te.from_buffers(te.buffers(%q))` folds to `%q`.

    ```mlir
    %q = te.from_buffers %d, %t, %s
        : tensor<16x32xf8E4M3FN>, tensor<32x16xf8E4M3FN>, tensor<1xf32>
        -> !te.qtensor<16x32xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$buffers);
  let results = (outs TE_QTensor:$result);
  let assemblyFormat = [{
    $buffers attr-dict `:` type($buffers) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Run-time checks
//===----------------------------------------------------------------------===//

def TE_CheckSizeOp : TE_Op<"check_size", [MemoryEffects<[MemWrite]>]> {
  let summary = "stop the program unless a run-time size is what the program needs";
  let description = [{
    Checks at run time that `size` equals `expected` (`eq`), is at least
    `expected` (`ge`) or at most `expected` (`le`). te-check-shapes places these before the ops of a
    program whose operands must agree in size (the loops of a linalg op, a
    `tensor.cast` to a static size, the bounds of a slice or an element), so
    that operands of mismatched sizes are an error instead of a read or a
    write past a buffer.

    When the check fails, the program records a failure in the runtime's
    sticky status (`te_rt_current_status`, `te_rt_current_error`) with the
    message `shape check: <message> is <size>, expected <expected>` (`at
    least <expected>` for `ge`, `at most <expected>` for `le`) and returns at once from the entry function:
    later ops do not run, results are null memrefs and zeros. te-lower-checks
    lowers it (after the structured control flow is lowered to blocks).

    The op writes no memory; it is declared as writing so that it is neither
    removed nor moved. It folds away when both sizes are constants that
    satisfy it, or the same value.

    ```mlir
    // The matmul's reduction loop d2 has the size of dimension 1 of %a.
    te.check_size %b_rows eq %a_cols,
        "linalg.matmul at prog.mlir:9:8: dimension 0 of operand 1 (loop d2, dimension 1 of operand 0)"
    // A size the program allocates: its bytes fit in an i64.
    te.check_size %rows le %most,
        "tensor.empty at prog.mlir:4:8: dimension 0 (at most 2^62 bytes in all)"
    ```
  }];
  let arguments = (ins Index:$size, Index:$expected, UnitAttr:$at_least,
                       UnitAttr:$at_most, StrAttr:$message);
  let assemblyFormat = [{
    $size custom<SizeRelation>($at_least, $at_most) $expected `,` $message
    attr-dict
  }];
  let extraClassDeclaration = [{
    /// How a message of a run-time check names a place of the program:
    /// `file:line:column` of the first file location in `loc`, else its
    /// text.
    static std::string locationText(::mlir::Location loc);
    /// Whether the relation holds between two sizes.
    bool holds(int64_t size, int64_t expected);
  }];
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
}

include "te/Dialect/TE/IR/TEBufferOps.td"

#endif // TE_DIALECT_TE_IR_TEOPS_TD
