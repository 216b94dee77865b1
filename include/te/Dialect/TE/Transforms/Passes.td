//===- Passes.td - te dialect passes -----------------------*- tablegen -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The te dialect's transforms: the passes of te-pipeline that work on te ops
// and types (docs/guide/passes.md), and te-print-buffers. Each pass has lit
// tests of its own in test/Transforms/ (te-set-target and te-deallocate in
// test/Conversion/). te's passes on upstream dialects only are in
// te/Transforms/Passes.td, its conversions in te/Conversion/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef TE_DIALECT_TE_TRANSFORMS_PASSES_TD
#define TE_DIALECT_TE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// te-set-target
//===----------------------------------------------------------------------===//

def TESetTarget : Pass<"te-set-target", "::mlir::ModuleOp"> {
  let summary = "set the module's te.target and remark on emulated GEMMs";
  let description = [{
    The first stage of `te-pipeline`. Sets the module attribute `te.target`
    from the `target` option (`cpu` executes `sm_90` layouts on the cpu
    backend) and remarks on GEMMs whose recipe has no native kernel on the
    target: MXFP8 and NVFP4 GEMMs (`te.gemm`, `te.linear`, `te.linear_grad`)
    run natively only on `sm_100`; on `sm_90` and `cpu` the runtime emulates
    them exactly (dequantize the operands, GEMM in fp32). One remark per
    function and emulated recipe, at the first such op, without the op
    printed; `remarks=false` emits none. A module whose `te.target` differs
    from the option is an error.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "cpu | sm_90 | sm_100">,
    Option<"remarks", "remarks", "bool", /*default=*/"true",
           "remark on GEMMs the runtime emulates on the target">
  ];
  let dependentDialects = ["::mlir::te::TEDialect"];
  let statistics = [
    Statistic<"numRemarks", "remarks", "remarks on emulated GEMMs">
  ];
}

//===----------------------------------------------------------------------===//
// te-infer-shapes
//===----------------------------------------------------------------------===//

def TEInferShapes : Pass<"te-infer-shapes", "::mlir::ModuleOp"> {
  let summary = "propagate static shapes into dynamic tensors and qtensors";
  let description = [{
    TransformerEngine's fake-shape inference (TensorSpec, docs/formats.md
    §7.2) as a compiler pass: static dimensions flow forward into `?`
    dimensions of `tensor` and `!te.qtensor` types until a fixpoint, through

    * te ops, each by its own shape rule (`ShapeInferenceOpInterface`:
      `te.quantize`, `te.dequantize`, `te.gemm`, `te.linear`,
      `te.linear_grad`, `te.buffers` re-infer their result shapes from their
      operands; `te.empty` takes a constant size operand into its type and
      drops it),
    * `tensor.cast` (a more static source refines the result),
    * `tensor.collapse_shape` / `tensor.expand_shape` of leading dimensions,
    * `scf.for` (init -> region argument -> result: an argument takes what
      its init and the value yielded back agree on, or its init's shape when
      the body, given that shape, yields back a value at least as static)
      and `scf.if` (results where both branches agree),
    * `func.call` into private functions: a callee whose callers all pass
      the same refined argument types is refined in place; callers that
      disagree each get a clone specialised to their static signature
      (`@f` -> `@f_<shape>`); results flow back to the callers.

    A dimension is refined only where it was dynamic; types never become
    less static; a dimension nothing makes static stays dynamic (the
    buffers of such a quantized tensor are sized at run time by
    `te-expand-qtensors`). Once a quantized type is fully static its buffers are too,
    and the recipe's shape rules (Format's `verifyShape`, e.g. "MXFP8 needs
    the last dimension divisible by 32, got 100") and Linear's alignment
    rules are checked at the op that produces it; a violation is an error
    there, naming the dimension and the rule.

    A worklist drives the inference: an op's rule runs again when one of its
    operand types changed. Loop arguments are refined to their init's shape
    optimistically once nothing else changes; an optimistic step whose loop
    gets back a less static value is undone (an undo log, not a restart),
    and that argument keeps what its init and the value yielded back agree
    on.

    Example: after `te-infer-shapes`,

    ```mlir
    func.func private @layer(%x: tensor<?x64xbf16>) -> tensor<?x64xbf16>
    func.func @main(%x: tensor<32x64xbf16>) -> tensor<?x64xbf16> {
      %y = call @layer(%x) : (tensor<32x64xbf16>) -> tensor<?x64xbf16>
      return %y : tensor<?x64xbf16>
    }
    ```

    has `@layer` typed `(tensor<32x64xbf16>) -> tensor<32x64xbf16>` and the
    public `@main` returns `tensor<32x64xbf16>` (a public function's
    results are refined; its arguments are the program's inputs and stay).
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numTypesRefined", "types-refined",
              "values whose type was made more static">,
    Statistic<"numOpsVisited", "worklist-iterations",
              "shape rules run: ops taken from the worklist (an op is queued "
              "again when an operand type changes)">,
    Statistic<"numRounds", "call-rounds",
              "rounds of the steps across functions (callee signatures, "
              "function results, call results)">,
    Statistic<"numSpecialisations", "functions-specialised",
              "functions cloned for a static signature">,
    Statistic<"numLoopRounds", "optimistic-loop-rounds",
              "rounds refining loop arguments optimistically to their "
              "init's shape">,
    Statistic<"numLoopRoundsUndone", "optimistic-loop-rounds-undone",
              "optimistic rounds undone: a value yielded back was less "
              "static than its loop argument">
  ];
}

//===----------------------------------------------------------------------===//
// te-print-buffers
//===----------------------------------------------------------------------===//

def TEPrintBuffers : Pass<"te-print-buffers", "::mlir::ModuleOp"> {
  let summary = "print the buffers of every quantized value (analysis)";
  let description = [{
    For every value of type `!te.qtensor` -- op results and block
    arguments, in program order -- prints one line to stdout with the
    buffers the Format library lays out for it on the module's target:
    TransformerEngine name, shape and element type, in TE's flatten order.

    ```
    te-buffers @f %arg0 : _data 32x64xf8E4M3FN, _scale_inv 1xf32
    te-buffers @f %result = te.quantize : _rowwise_data 128x64xf8E4M3FN, _rowwise_scale_inv 128x4xf8E8M0FNU
    ```

    Values are named as the IR printer names them (`%argN` for block
    arguments, `%result` / `%N` for op results), followed by the name of the
    defining op. A dynamic dimension prints as `?`. A type whose
    layout the Format library refuses prints `<error: ...>` with its message.
    The IR is not changed.
  }];
}

//===----------------------------------------------------------------------===//
// te-infer-usages
//===----------------------------------------------------------------------===//

def TEInferUsages : Pass<"te-infer-usages", "::mlir::ModuleOp"> {
  let summary = "give every quantized value exactly the usages its consumers read";
  let description = [{
    A backward dataflow analysis over quantized values. Each consumer needs
    a set of representations (docs/formats.md §5):

    * `te.gemm` layout `TN`/`NN`/`NT`: A needs rowwise if `transa` else
      columnwise; B needs columnwise if `transb` else rowwise;
    * `te.dequantize`: rowwise (columnwise suffices for per-tensor FP8 and
      128x128 blocks, whose columnwise copy holds the same values);
    * `te.linear_grad`: columnwise of the saved input and saved weight;
      `te.linear`'s workspace: rowwise + columnwise;
    * `te.buffers`, a public function's `return`, and ops the pass does not
      know: every usage the value's type declares (they are kept); a usage
      view nobody reads (`te.from_buffers` without uses of a `te.buffers`
      nothing else reads) is erased first and needs nothing;
    * `func.call` / `return` of private functions, `scf.for` / `scf.if` /
      `scf.yield`: the needs of the callee argument / caller result / region
      argument / op result they flow into.

    The producers `te.quantize` and `te.empty`, the arguments and results of
    private functions, and scf.for / scf.if values -- grouped into classes of
    values whose types must stay equal -- are rewritten to the union of the
    needs (propagated through calls and regions). Since the op verifiers
    already demand every usage a consumer reads, on verified input the pass
    only removes representations nobody reads. A producer nobody
    reads keeps rowwise. Inference-only programs therefore end rowwise-only,
    training programs get exactly what dgrad (W columnwise) and wgrad (X and
    dY columnwise) read.

    A need that cannot be met (unreachable from verified input, where the
    consumer's own verifier reports it first) is an error at the consumer,
    naming the value, the needed usage and why: the value is a public function argument (its
    type is the caller's contract) or the result of an op whose usage is
    fixed (`te.linear`, `te.from_buffers`, ...) and lacks the usage; or the
    recipe cannot derive one representation from the other (MXFP8, NVFP4,
    1x128 blocks quantize rowwise and columnwise independently from the
    high-precision input; per-tensor FP8 cannot recover rowwise data from
    the transpose).
  }];
}

//===----------------------------------------------------------------------===//
// te-expand-qtensors
//===----------------------------------------------------------------------===//

def TEExpandQTensors : Pass<"te-expand-qtensors", "::mlir::ModuleOp"> {
  let summary = "1:N conversion of !te.qtensor into its buffer tensors";
  let description = [{
    Replaces every `!te.qtensor` value by its buffers -- the tensors the
    Format library lays out for the module's target, in TransformerEngine's
    flatten order -- everywhere: function signatures, calls, returns,
    `scf.for` / `scf.if` / `scf.while` region arguments and results.
    te ops are rewritten to their buffer-level forms, which take and return
    plain tensors in destination-passing style (the outputs are `outs`
    operands initialised by `tensor.empty`), so that
    `one-shot-bufferize{bufferize-function-boundaries}` turns them into
    their memref forms:

    * `te.quantize` -> `te.quantize_buffers`,
    * `te.dequantize` -> `te.dequantize_buffers`,
    * `te.gemm` -> `te.gemm_buffers`,
    * `te.amax`, `te.update_scale`, `te.allreduce_max` -> `te.amax_buffers`,
      `te.update_scale_buffers`, `te.allreduce_max_buffers`,
    * `te.attention` -> `te.attention_buffers` (the default scale
      1/sqrt(E) written out; the lse written only where the program reads
      it), `te.attention_grad` -> `te.attention_grad_buffers`, their outputs
      sized like the query, key and value (`tensor.dim` for a dynamic
      dimension),
    * `te.empty` -> one `tensor.empty` per buffer,
    * `te.buffers` / `te.from_buffers` -> the buffers themselves.

    A `!te.qtensor` with dynamic dimensions (a batch known only at run
    time) expands into buffers whose sizes are computed at run time: the
    Format library describes every buffer axis as an expression of the
    logical dimensions (`te::format::getBufferExtents`: `d_i`, products,
    `ceildiv`, exact division, round-up; the same expressions give the
    static layouts), emitted as `arith` index arithmetic where a dimension
    is dynamic and folded where it is not. The logical sizes come from the
    quantized input (`te.quantize`), the size operands (`te.empty`) or a
    quantized operand's buffers (`te.dequantize`, `te.gemm`: the buffer
    axis that holds the dimension). Shape rules that need the size (MXFP8's
    and NVFP4's divisibility, the GEMM's K % 16) are checked by the runtime.

    ```mlir
    %q = te.quantize %x : tensor<?x256xbf16>
        -> !te.qtensor<?x256xbf16, #te.mxfp8<f8E4M3FN>, rowwise>
    ```

    becomes (rowwise scales: `[roundup(M, 128), roundup(ceildiv(K, 32), 4)]`)

    ```mlir
    %m = tensor.dim %x, %c0 : tensor<?x256xbf16>
    %r = arith.ceildivui %m, %c128 : index
    %rows = arith.muli %r, %c128 : index
    %d = tensor.empty(%m) : tensor<?x256xf8E4M3FN>
    %s = tensor.empty(%rows) : tensor<?x8xf8E8M0FNU>
    %q:2 = te.quantize_buffers %x ... outs(%d, %s : ...)
    ```

    `te.linear` and `te.linear_grad` must have been decomposed first
    (`te-decompose-linear`); the pass fails on them. After the pass no value,
    argument or function type mentions `!te.qtensor`; the pass verifies it.
  }];
  let dependentDialects = [
    "::mlir::tensor::TensorDialect",
    "::mlir::func::FuncDialect",
    "::mlir::scf::SCFDialect"
  ];
  let statistics = [
    Statistic<"numBufferOps", "buffer-ops",
              "buffer-level te ops created">
  ];
}

//===----------------------------------------------------------------------===//
// te-decompose-linear
//===----------------------------------------------------------------------===//

def TEDecomposeLinear : Pass<"te-decompose-linear"> {
  let summary = "decompose te.linear / te.linear_grad into te.quantize + te.gemm";
  let description = [{
    Spells out TransformerEngine's Linear module (docs/formats.md §5, §6):

    | op | becomes |
    |---|---|
    | `te.linear` | `X_q = quantize(X)` rowwise+columnwise; `W_q = quantize(W)` rowwise+columnwise, or the `workspace` operand (cache hit); fprop `Y = gemm(W_q, X_q, TN)` with the bias fused; `saved_input` = `X_q` without its rowwise data (a usage view: `te.buffers` + `te.from_buffers`, no copy); `saved_weight` = `new_workspace` = `W_q` |
    | `te.linear_grad` | `dY_q = quantize(dY)` rowwise+columnwise; dgrad `dX = gemm(W_q, dY_q, NN)`; wgrad `dW = gemm(X_q, dY_q, NT)`; bias grad = sum of `dY` over its leading dimensions, in fp32, rounded once to `dY`'s type |

    `use_split_accumulator` follows TE's defaults: off for fprop, on for
    dgrad and wgrad; on for all three with FP8 block scaling (`#te.block`).
    A quantizer that rounds stochastically takes the op's `seed` / `offset`.

    Quantized operands keep their logical N-D shapes (`te.gemm` flattens
    leading dimensions by definition, and `saved_input` must keep the shape
    its type promises); the bias-gradient reduction collapses `dY` to 2-D
    with `tensor.collapse_shape`.

    ```mlir
    %y, %xs, %ws = te.linear %x, %w bias(%b : tensor<64xbf16>)
        {input_quantizer = #te.mxfp8<f8E4M3FN>,
         weight_quantizer = #te.mxfp8<f8E4M3FN>}
        : tensor<32x128xbf16>, tensor<64x128xbf16>
    // becomes
    %xq = te.quantize %x : tensor<32x128xbf16>
        -> !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
    %wq = te.quantize %w : tensor<64x128xbf16>
        -> !te.qtensor<64x128xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
    %y = te.gemm %wq, %xq layout TN bias(%b : tensor<64xbf16>) : ...
    %bufs:4 = te.buffers %xq : ...
    %xs = te.from_buffers %bufs#2, %bufs#3 : ...
        -> !te.qtensor<32x128xbf16, #te.mxfp8<f8E4M3FN>, columnwise>
    ```

    Errors: an output or grad-input quantizer with stochastic rounding
    (`te.gemm` cannot quantize its result that way).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
  let statistics = [
    Statistic<"numLinear", "linear-decomposed", "te.linear ops decomposed">,
    Statistic<"numLinearGrad", "linear-grad-decomposed",
              "te.linear_grad ops decomposed">
  ];
}

//===----------------------------------------------------------------------===//
// te-raise-attention
//===----------------------------------------------------------------------===//

def TERaiseAttention : Pass<"te-raise-attention"> {
  let summary = "softmax(scale · Q·Kᵀ + mask) · V written with linalg ops "
                "becomes te.attention";
  let description = [{
    Scaled dot-product attention written as two batched products around a
    softmax -- the forms Torch-MLIR, einsum-style code and hand-written
    programs produce -- becomes one `te.attention` (docs/guide/passes.md
    "te-raise-attention" lists the forms). The pass anchors on each
    batched contraction (`linalg.batch_matmul`, a `linalg.generic`
    contraction with one or more batch loops) whose left operand is a
    softmax over the last dimension -- `linalg.softmax` or the explicit
    max / exp / sum / divide chain, in f32 or in the input type -- of
    `scale · Q·Kᵀ` plus an optional mask, and replaces the chain when it is
    exactly that:

    * the scale is a splat constant multiplying or dividing the scores (or
      the query and key before the product), or absent (scale 1);
    * the mask is a causal predicate on `linalg.index` values or iota
      tensors keeping key `j` for query `i` iff `j <= i` (-> `causal`), an
      additive float tensor added before the max, or a boolean tensor
      selecting the scores or `-inf` (-> the `mask` operand, its broadcast
      shape kept);
    * K and V repeated along the heads by a broadcast and a collapse
      (`repeat_interleave`, grouped-query attention) are read unrepeated;
    * no intermediate value (scores, probabilities) has a user outside the
      chain.

    The raised op computes the scores and the softmax in f32 whatever the
    program rounded them to, and a row that a mask leaves without keys
    gives 0 (PyTorch SDPA's result) where the literal softmax gave NaN; the
    remark on each raised chain says so when its mask can do that. A chain
    that is almost attention -- a softmax over another dimension, a scale
    that is not a constant, a softcap, a mask added after the max, a causal
    predicate other than `j <= i`, the probabilities changed (dropout) or
    read elsewhere -- is left alone with a remark that says why.
    `remarks=false` silences the remarks. `te-pipeline` runs the pass on
    tensors before `te-decompose-aggregates`, unless
    `raise-attention=false`.

    ```mlir
    %s = linalg.batch_matmul ins(%q, %kt : tensor<8x128x64xbf16>, tensor<8x64x128xbf16>)
        outs(%zero : tensor<8x128x128xf32>) -> tensor<8x128x128xf32>
    %p = linalg.softmax dimension(2) ins(%s : tensor<8x128x128xf32>) ...
    %pb = arith.truncf %p ...       // as a linalg.generic
    %o = linalg.batch_matmul ins(%pb, %v : ...) outs(%zero2 : ...) -> tensor<8x128x64xf32>
    %ob = arith.truncf %o ...       // as a linalg.generic
    // becomes (%k the operand %kt transposes)
    %ob, %lse = te.attention %q, %k, %v {scale = 1.0 : f32}
        : tensor<8x128x64xbf16>, tensor<8x128x64xbf16>, tensor<8x128x64xbf16>
    ```
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"true",
           "remark on each chain raised and each near miss left alone">
  ];
  let dependentDialects = ["::mlir::te::TEDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numRaised", "raised", "chains raised to te.attention">,
    Statistic<"numNearMisses", "near-misses",
              "softmax · V chains left alone (with a remark)">
  ];
}

//===----------------------------------------------------------------------===//
// te-fuse-accumulate
//===----------------------------------------------------------------------===//

def TEFuseAccumulate : Pass<"te-fuse-accumulate"> {
  let summary = "accumulate a GEMM's result into an fp32 tensor inside the GEMM";
  let description = [{
    Gradient accumulation across microbatches, `acc += extf(gemm(...))`
    written as an elementwise `linalg.generic` on the GEMM's result, becomes
    the GEMM's own accumulation: `te.gemm ... accumulate(%acc)` with an fp32
    result (cuBLASLt reads C and writes D in fp32). This is
    TransformerEngine's `fuse_wgrad_accumulation` (Megatron-LM's
    `gradient_accumulation_fusion`): the GEMM's bf16 result is neither
    written nor read again, and the separate read-modify-write of the fp32
    accumulator is gone. The sum is the GEMM's unrounded fp32 result added
    to the accumulator, where the program rounded it to the GEMM's type
    first: a more accurate result, not the same bits. `te-pipeline` runs it
    unless `fuse-accumulate=false`.

    Matched: a `te.gemm` without bias, accumulation or quantized result
    whose result has one use, through `tensor.cast`s, by an all-parallel
    `linalg.generic` with identity maps, that input and one fp32 output,
    whose region is `out + extf(in)` (either order, `extf` omitted for an
    f32 input).

    ```mlir
    %g = te.gemm %xq, %dyq layout NT : ... -> tensor<256x128xbf16>
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%g : tensor<256x128xbf16>) outs(%acc : tensor<256x128xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %e = arith.extf %in : bf16 to f32
      %s = arith.addf %out, %e : f32
      linalg.yield %s : f32
    } -> tensor<256x128xf32>
    // becomes
    %r = te.gemm %xq, %dyq layout NT accumulate(%acc : tensor<256x128xf32>)
        : ... -> tensor<256x128xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numFused", "gemms-fused",
              "accumulations fused into their te.gemm">
  ];
}

//===----------------------------------------------------------------------===//
// te-fuse-quantize
//===----------------------------------------------------------------------===//

def TEFuseQuantize : Pass<"te-fuse-quantize"> {
  let summary = "compute an elementwise producer inside the quantization of its result";
  let description = [{
    A `te.quantize_buffers` whose input an elementwise `linalg.generic`
    produces (a bias add and GELU, SiLU, SwiGLU, a residual add, a cast, a
    LayerNorm / RMSNorm normalize step reading its row statistics, an
    activation gradient times the incoming gradient: whatever
    te-fuse-elementwise left as one generic) becomes one
    `te.quantize_produced_buffers` holding the generic's body: the runtime
    evaluates the body per element inside its quantize kernels (the
    producer program of runtime/include/te_rt_abi.def), so the codecs, scale
    rules and layouts stay the runtime's (Format's) and the high-precision
    tensor is not written. Where other ops also read the generic's result,
    the fused op writes it too (`value_out`) and they read that; current
    scaling's amax is taken from the program as well. The quantized buffers
    are bit-identical to the unfused program's (each element's operations
    run in the same order, rounded to the same types;
    `test/Integration/fuse-quantize*.mlir` compares both).

    Fused when the generic is all-parallel with one result written through
    the identity map, in the quantization's block, its body only the
    operations the program encodes (at most 64, `te.quantize_produced_buffers`
    lists them; constants and scalars defined outside the body become
    constants and inputs), at most 8 inputs, each read at uniform strides of
    the flattened rows and columns (identity, broadcast along the rows or
    the columns, collapsed leading dimensions, a scalar); every other reader
    of its result after the quantization; and the quantization reduces no
    amax across a process group. Each decision is a remark at the
    quantization (`remarks=false`: none): `te-fuse-quantize: fused ...`, or
    `te-fuse-quantize: not fused: <why>` where the input is computed by an
    op that cannot be fused (a reduction, a matrix product, an unsupported
    operation such as `math.sin`, a layout whose strides do not collapse).
    A quantization of a function argument or a view is left alone silently.
    `te-pipeline` runs it after te-fuse-elementwise unless
    `fuse-quantize=false`.

    ```mlir
    %g = linalg.generic {indexing_maps = [#id, #bias, #id], ...}
        ins(%h, %b : tensor<32x64xbf16>, tensor<64xbf16>) outs(%e : tensor<32x64xbf16>) {...}
    %d, %s = te.quantize_buffers %g quantizer #te.current<f8E4M3FN> usage rowwise
        outs(%d0, %s0 : tensor<32x64xf8E4M3FN>, tensor<1xf32>) : ...
    // becomes
    %d, %s = te.quantize_produced_buffers ins(%h, %b : tensor<32x64xbf16>, tensor<64xbf16>)
        maps [#id, #bias] value tensor<32x64xbf16>
        quantizer #te.current<f8E4M3FN> usage rowwise
        outs(%d0, %s0 : tensor<32x64xf8E4M3FN>, tensor<1xf32>) {...}
    ```
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"true",
           "remark on each quantization of a computed tensor: fused, or why not">
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
  let statistics = [
    Statistic<"numFused", "quantizations-fused",
              "quantizations that compute their elementwise producer">,
    Statistic<"numValueOut", "values-written",
              "fused quantizations that also write the value for other readers">,
    Statistic<"numNotFused", "quantizations-not-fused",
              "quantizations of a computed tensor left alone (remarked)">
  ];
}

//===----------------------------------------------------------------------===//
// te-share-emulated-operands
//===----------------------------------------------------------------------===//

def TEShareEmulatedOperands : Pass<"te-share-emulated-operands"> {
  let summary = "dequantize an emulated GEMM's operand once for every GEMM that reads it";
  let description = [{
    On sm_90 a GEMM of MXFP8 or NVFP4 operands is emulated: the runtime
    dequantizes both operands to bf16 and runs a bf16 GEMM
    (docs/guide/runtime.md). A weight that every microbatch's fprop and
    dgrad read is then dequantized by every one of those GEMMs. This pass
    gives such operands one `te.emulated_operand_buffers` each and passes it
    to the GEMMs as `a_emulated` / `b_emulated`, so that the operand is
    dequantized once:

    * it runs on buffer-level ops on tensors (after te-expand-qtensors), on
      a module whose `te.target` is sm_90, and only on GPU targets
      (`te-pipeline target=sm_90`, unless `share-emulated-operands=false`; the cpu
      backend computes its GEMMs from the quantized buffers and refuses
      emulated operands);
    * a GEMM qualifies when `format::gemmEmulation` emulates it in bf16
      (MXFP8; NVFP4 without per-row scales or an RHT the GEMM does not
      cancel) and the operand's logical shape is static;
    * GEMMs read one operand when they name the same buffers (SSA values),
      quantizer, usage, copy and shape; such an operand is shared when two
      or more GEMMs read it, or one GEMM inside a loop whose body does not
      define it. The dequantization is placed in the block that defines the
      buffers, before the first op there that holds one of the GEMMs: out of
      the loops that do not change the operand.

    The bf16 operand lives from that point to the last GEMM that reads it
    (for a weight: the step), which is what the GEMMs save; operands read
    once are left to the GEMM, which dequantizes into its scratch.

    ```mlir
    %y0 = te.gemm_buffers layout TN a(%w0, %w1 : ...) quantizer #te.mxfp8<f8E4M3FN>
        usage rowwise shape [64, 128] b(...) ... outs(%i0 : tensor<32x64xbf16>)
    %y1 = te.gemm_buffers layout TN a(%w0, %w1 : ...) quantizer #te.mxfp8<f8E4M3FN>
        usage rowwise shape [64, 128] b(...) ... outs(%i1 : tensor<32x64xbf16>)
    // becomes
    %e = tensor.empty() : tensor<8192xbf16>
    %w = te.emulated_operand_buffers %w0, %w1 quantizer #te.mxfp8<f8E4M3FN>
        usage rowwise reads rowwise shape [64, 128] outs(%e : tensor<8192xbf16>) ...
    %y0 = te.gemm_buffers layout TN a(%w0, %w1 : ...) ... a_emulated(%w : tensor<8192xbf16>) ...
    %y1 = te.gemm_buffers layout TN a(%w0, %w1 : ...) ... a_emulated(%w : tensor<8192xbf16>) ...
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numShared", "operands-shared",
              "emulated operands dequantized once for several GEMMs">,
    Statistic<"numReads", "gemm-operands-given",
              "GEMM operands read from a shared emulated operand">
  ];
}

//===----------------------------------------------------------------------===//
// te-eliminate-aliases
//===----------------------------------------------------------------------===//

def TEEliminateAliases : Pass<"te-eliminate-aliases", "::mlir::ModuleOp"> {
  let summary = "quantize the weight once; no result aliases an operand or another result";
  let description = [{
    The cached-FP8-weight problem of torch.compile-ing TE's Linear
    (docs/formats.md §6 "Weight workspace caching" and "Aliasing in the
    custom-op path"), solved on the IR. Repeated to a fixpoint:

    (a) **No aliased results.** A function result that returns an argument
        (the cache hit: the saved weight *is* the incoming workspace) or
        repeats another result (the cache miss: the saved weight *is* the
        new workspace) is removed from the signature, the `return`s and
        every `func.call`, whose uses take the call operand or the other
        result instead. Arguments of a private function that every call
        passes the same value are merged. Public functions keep their
        signatures (their callers outside the module, e.g. te-run, call them
        with the signature they read): in each `return`, a result that is an
        argument or repeats an earlier result is replaced by a copy of it
        (`bufferization.alloc_tensor copy`, of each buffer of a qtensor).
        Private functions used other than by `func.call` are left alone.
        Before decomposition, `te.linear`'s
        `new_workspace` is replaced by `saved_weight` (and `cache_weight`
        dropped), and a cache hit's `saved_weight` by the `workspace`
        operand. Results of `scf.for` / `scf.if` / `scf.while` that pass an
        operand through are removed by those ops' canonicalization patterns.
    (b) **Equal quantizations are done once.** `te.quantize` ops of the same
        SSA value into the same `!te.qtensor` type up to usage (so: the same
        quantizer attribute -- attributes are uniqued, identity is value
        equality) with the same `scale` / `seed` / `offset` operands are
        merged when one dominates the other. The survivor produces the
        union of their usages; users that had fewer see a usage view
        (`te.buffers` + `te.from_buffers`, no copy). Scope: one function
        body with the regions nested in it; run `--inline` first to share
        between a forward and a backward function.
    (c) **Loop-invariant quantizations are hoisted.** A `te.quantize` (and
        its usage views) whose operands are all defined outside a loop --
        the weight in a microbatch `scf.for` -- moves before the loop, with
        the union of the usages all its uses in the loop need (after (b)).
        This is TE's `is_first_microbatch` weight caching, derived from the
        program rather than declared: one weight quantization per step for
        any number of microbatches.

    The pass is idempotent: running it twice gives what running it once
    gives.

    ```mlir
    func.func private @fwd(%x: tensor<32x64xbf16>, %w: tensor<64x64xbf16>)
        -> (tensor<32x64xbf16>, !te.qtensor<64x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>,
            !te.qtensor<64x64xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>) {
      %wq = te.quantize %w : ...
      ...
      return %y, %wq, %wq : ...   // wt_save, new_weight_workspace
    }
    // becomes a function with two results; callers use result #1 for both.
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::bufferization::BufferizationDialect"];
  let statistics = [
    Statistic<"numResultsRemoved", "results-removed",
              "function results removed (an argument or another result)">,
    Statistic<"numResultsCopied", "results-copied",
              "returned values of public functions copied">,
    Statistic<"numDeduplicated", "quantizations-deduplicated",
              "te.quantize ops merged into an equal one that dominates them">,
    Statistic<"numHoisted", "quantizations-hoisted",
              "te.quantize ops hoisted out of loops">
  ];
}

//===----------------------------------------------------------------------===//
// te-deallocate
//===----------------------------------------------------------------------===//

def TEDeallocate : Pass<"te-deallocate", "::mlir::ModuleOp"> {
  let summary = "te-pipeline's buffer deallocation: straight-line modules "
                "directly, any other module through upstream's pipeline";
  let description = [{
    Runs after one-shot bufferization (te-pipeline). A module whose
    functions are straight-line code on buffers they allocate -- one block
    each, no op with regions, every memref an argument, a `memref.alloc` or
    a `memref.get_global`, used only by the buffer-level te ops (the ops
    with the `BufferLevelOp` trait), `memref.copy` / `load` / `store` /
    `dim` and `func.return`, and every returned memref a distinct
    `memref.alloc` -- gets what ownership-based deallocation computes for
    it, directly: each allocation that is not returned is freed
    (`memref.dealloc`) before the return, in allocation order; a returned
    one belongs to the caller.

    Any other module runs upstream's buffer deallocation pipeline, nested
    in this pass, after each `cf.switch` becomes a chain of `cf.cond_br`
    (one comparison per case, in case order, the default last; upstream's
    ownership-based deallocation takes at most two successors per branch):
    `expand-realloc{emit-deallocs=false}`, `canonicalize`,
    `ownership-based-buffer-deallocation`, `canonicalize`,
    `te-split-deallocs`, `buffer-deallocation-simplification`,
    `bufferization-lower-deallocations`, `cse`, `canonicalize`
    (`bufferization::buildBufferDeallocationPipeline` with
    `te-split-deallocs` before the simplification, which is quadratic in
    the size of the one `bufferization.dealloc` that ends a straight-line
    function). Which of the two runs is a property of the module:
    `--dump-pass-pipeline` lists this pass, `--mlir-timing` lists the
    nested passes when they ran.

    Why: on a training step the upstream pipeline and its canonicalizations
    were 40% of te-pipeline's time, all to conclude "free every buffer that
    is not returned, at the end" (docs/performance.md "Compile time"). The
    te ops it accepts make it a te pass, not a generic one.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numFreed", "buffers-freed",
              "allocations freed directly (straight-line functions)">,
    Statistic<"numUpstream", "upstream-runs",
              "modules given to upstream's deallocation pipeline">
  ];
}

//===----------------------------------------------------------------------===//
// te-fold-attention-transposes
//===----------------------------------------------------------------------===//

def TEFoldAttentionTransposes : Pass<"te-fold-attention-transposes"> {
  let summary = "attention operands and results as transposed views instead "
                "of transposing copies";
  let description = [{
    Runs on buffers, after one-shot bufferization (te-pipeline). Programs
    split heads with a transpose: [B, S, H, D] -> [B, H, S, D] before
    attention and back after it. On tensors each transpose is a new tensor,
    so bufferization gives each a copy (a kernel that reads and writes the
    whole activation), though `te.attention_buffers` and
    `te.attention_grad_buffers` read and write any strided layout whose
    last dimension is contiguous. This pass removes those copies:

    * a copy with permuted indices (a `linalg.generic` or `linalg.transpose`
      that only moves elements, the last dimension staying last) into a
      fresh buffer (`memref.alloc`) that only attention ops read, after it
      in the same block, with nothing writing the copy's source in between
      (alias analysis): the attention ops read a `memref.transpose` view of
      the source and the copy and its buffer go;
    * a fresh buffer that one attention op writes (an output or a gradient)
      and only such a copy reads afterwards, into a fresh buffer that
      nothing touches before the copy: the attention op writes a
      `memref.transpose` view of the copy's destination (its allocation
      moved before the attention op) and the copy and the first buffer go.

    Anything else is left as it is. Results are bit-identical: the same
    elements reach the same places.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numInputs", "inputs-folded",
              "transposing copies of attention operands removed">,
    Statistic<"numOutputs", "outputs-folded",
              "transposing copies of attention results removed">
  ];
}

//===----------------------------------------------------------------------===//
// te-check-shapes
//===----------------------------------------------------------------------===//

def TECheckShapes : Pass<"te-check-shapes", "::mlir::ModuleOp"> {
  let summary = "check at run time that the operands of every op agree in size";
  let description = [{
    A program on dynamic shapes (`tensor<?x?xf32>`) states in its ops which
    sizes must agree: the operands of a `linalg.matmul` share their `k`, the
    inputs of an elementwise op have the output's shape. The compiled code
    takes each loop's size from one operand and assumes the others agree,
    so operands of other sizes would be read or written past their buffers.
    This pass places a `te.check_size` before each op whose sizes are not
    known to agree at compile time:

    * a linalg op (named or generic, on tensors or memrefs): each dimension
      of an operand indexed by a loop (`d2`) equals the loop's size, which
      is the size of the first operand dimension indexed by that loop alone
      (what the loops are built from); a dimension indexed by any other
      expression that never decreases in a loop (`d0 + d1`, `2 * d0`, a
      constant) is at least the expression's value at the loops' last
      indices + 1, unless some loop is empty (other expressions, a
      difference or a modulo, are not checked);
    * `tensor.cast` to a static size: the source's dimension equals it;
    * `tensor.extract_slice` / `tensor.insert_slice`: each offset is at
      least 0 and the slice ends inside the tensor (offset + (size - 1) ·
      stride + 1, for a non-empty slice); an inserted source has the
      slice's sizes (same rank);
    * `tensor.extract` / `tensor.insert`: each index is inside the tensor;
    * `tensor.expand_shape`: each source dimension equals the product of
      its output dimensions;
    * `tensor.reshape`: the source has as many elements as the new shape
      (its dynamic sizes read from the shape operand);
    * `bufferization.materialize_in_destination`: the destination has the
      source's sizes;
    * `memref.load` / `memref.store`, `affine.load` / `affine.store` (the
      access map applied to its operands), `vector.load` / `vector.store`
      (the vector's last element along the innermost dimensions) and
      `memref.atomic_rmw` indices, a `tensor.dim` / `memref.dim` index that
      is not a constant (0 to rank - 1), a `memref.subview` inside its
      source, a `memref.copy` between buffers of one shape (programs
      written on memrefs);
    * `memref.alloc` as a new tensor (at most 2^62 bytes), `memref.alloca`
      at most 1 MiB (the stack); a static size over either is an error;
    * `tensor.pad`: no amount of padding is negative (pad does not crop) or
      above 2^60;
    * a tensor the program creates (`tensor.empty`, `tensor.generate`,
      `tensor.splat`, `bufferization.alloc_tensor`, `tensor.pad`'s result)
      with sizes it computes: no size is negative, and its bytes are at
      most 2^62 (so that its size in bytes does not wrap around in 64 bits;
      the allocator reports what it cannot allocate): each dynamic size is
      at most what the sizes before it leave (`te.check_size ... le`). A
      tensor with the shape of one the program has (`tensor.empty` of its
      `tensor.dim`s) and elements no larger needs none.

    * `tensor.extract` in the body of a `linalg.generic` (a gather, an
      embedding lookup), where it runs in every iteration (not under an
      `scf.if` of the body): each index inside the tensor for every
      iteration. An index defined before the op is checked once; an affine
      function of the loops (`linalg.index`, sums, products and divisions
      by constants) that never decreases, at the loops' last indices; any
      other index (computed from the inputs' elements, or clamped) by a
      `linalg.generic` placed before the op that reduces it to its smallest
      and largest value over the loops it depends on (on a GPU target, one
      reduction kernel and one read of two numbers by the host). An index
      computed from an output's element (an accumulator) is not checked.

    Only ops of the functions' control flow are checked (in `func.func`,
    `scf.for`, `scf.if`, `scf.while`, `scf.execute_region`,
    `scf.index_switch`, `affine.for`, `affine.if`), and the `tensor.extract`s of a linalg.generic's
    body; not other ops in the body of a linalg op, of a `tensor.generate`
    or of an `scf.forall`, which run per element. Sizes are taken from the
    values that define them (a `tensor.empty`'s operands, an op's tied
    init), so a program whose shapes agree by construction gets no checks; a
    size known to disagree at compile time is an error here. The te ops'
    own sizes are checked by the runtime on every call; where a
    te.quantize or te.dequantize makes a dynamic size static, the sizes its
    buffers hold are checked against the dynamic ones here, and a te.gemm
    with a dynamic size gets its result's rows and columns (and its bias's
    size) checked against those its operands' logical sizes give. Size arithmetic
    saturates at the largest index instead of wrapping. The module gets the
    unit attribute `te.shape_checks`, by which te-run and the AOT driver
    know that inputs of any sizes are safe to pass.

    te-pipeline runs it after the last transformation on tensors (unless
    `check-shapes=false`); te-lower-checks lowers the checks.

    ```mlir
    %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                       outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
    // gets, before it (%k = dim 1 of %a, %kb = dim 0 of %b, ...):
    te.check_size %kb eq %k, "linalg.matmul at prog.mlir:9:8: dimension 0 of operand 1 (loop d2, the size of dimension 1 of operand 0)"
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::te::TEDialect"];
  let statistics = [
    Statistic<"numChecks", "checks", "te.check_size ops placed">,
    Statistic<"numOpsChecked", "ops-checked",
              "ops with at least one run-time check">
  ];
}

#endif // TE_DIALECT_TE_TRANSFORMS_PASSES_TD
