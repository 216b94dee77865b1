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
    | `te.quantize_buffers` | `te_rt_mlir_quantize` (`te_rt_mlir_quantize_group`, the group's name first, with `group`), a quantize descriptor |
    | `te.dequantize_buffers` | `te_rt_mlir_dequantize`, a dequantize descriptor |
    | `te.gemm_buffers` | `te_rt_mlir_gemm`, a GEMM descriptor |
    | `te.amax_buffers` | `te_rt_mlir_amax` |
    | `te.update_scale_buffers` | `te_rt_mlir_update_scale` (in place on the outputs, after copying the inputs into them) |
    | `te.allreduce_max_buffers` | `te_rt_mlir_allreduce_max` (the group's name as a constant NUL-terminated string; in place on the output) |
    | `te.attention_buffers` | `te_rt_mlir_attention`, an attention descriptor |
    | `te.attention_grad_buffers` | `te_rt_mlir_attention_grad`, an attention_grad descriptor |

    The quantize, dequantize and GEMM calls take one descriptor each
    (`TE_RT_ABI_DESCRIPTOR`: an array of i64 words, laid out by the table's
    field list): the target, the quantizers' fields, usages, shapes
    flattened to 2-D `[rows, cols]` (leading dimensions multiplied), dtypes,
    flags and buffer addresses. What is known when compiling is one
    `llvm.mlir.constant` array per function and value, each run-time word
    (an address, a dynamic size, a seed) is inserted into it with
    `llvm.insertvalue`, and the array is stored to a stack slot at the
    function's entry (one per descriptor size) whose address is the call's
    operand. The attention descriptors hold every operand as 4-D
    `[batch, heads, rows, cols]` sizes and strides in elements (a 3-D
    `[N, rows, cols]` operand is `[1, N, rows, cols]`), read from the
    memref's type where static and with `memref.extract_strided_metadata`
    where not, so that a strided view whose last dimension is contiguous (a slice
    of a fused QKV projection) is passed as it is; an operand whose last
    dimension is not contiguous is copied first. The scale is passed as its
    f32 bits, an `i1` mask as bytes (`U8`, nonzero = the key takes part),
    and a mask dimension of size 1 with stride 0 (broadcast). The other
    calls take their operands one by one; the quantizer
    of `te.update_scale_buffers` is a `memref.global constant` i64
    descriptor (`TE_RT_ABI_QUANTIZER_FIELD` order) passed by pointer.

    Buffers are passed as pointers (`memref.extract_aligned_pointer_as_index`
    + `llvm.inttoptr`, once per memref, right after its definition; in a
    descriptor the address as i64); a memref with a non-identity layout is
    first copied to a contiguous one (and back, for outputs). A
    `memref.alloc` of static shape, identity layout and whole-byte elements
    whose only uses are operands of these calls (not of
    `te.update_scale_buffers` / `te.allreduce_max_buffers`, which copy) and
    `memref.dealloc`s is allocated as a plain pointer instead: `llvm.call
    @aligned_alloc(alignment, size)` (the alloc's alignment, at least 16; the
    size rounded up to a multiple of it) and `llvm.call @free` in place of
    the deallocs, so that no memref descriptor is built for it. Integer
    constants, descriptors' constant words and stack slots, and globals'
    addresses are created once per function, at its entry. The LLVM struct
    of a function's memref results (what convert-to-llvm packs several
    results into) is printed once, as the alias `!te_results`. Entry points
    run on the calling thread's current runtime context
    (`te_rt_set_current_context`).

    The tensor-level `te.amax`, `te.update_scale` and `te.allreduce_max`
    are refused: `te-expand-qtensors` turns them into their buffer forms.
    A buffer-level op that cannot be lowered (still on tensors, outside a
    function) fails the pass with an error naming it: the lowering is a
    dialect conversion whose target makes every buffer-level op illegal.

    ```mlir
    te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise
        outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : memref<32x64xbf16>
    // becomes (the words of te_rt_abi::quantize: magic, target, the
    // quantizer's fields, usage, rows, cols, six buffers, x_dtype, x, ...)
    %slot = llvm.alloca %c1 x !llvm.array<35 x i64> : (i64) -> !llvm.ptr
    %c = llvm.mlir.constant(dense<[499916013570, 0, 1, 4, ..., 1, 32, 64, 0,
        ..., 3, 0, 0, 0, 0, 0]> : tensor<35xi64>) : !llvm.array<35 x i64>
    ...
    %w1 = llvm.insertvalue %x_address, %c[30] : !llvm.array<35 x i64>
    %w2 = llvm.insertvalue %d_address, %w1[23] : !llvm.array<35 x i64>
    %w3 = llvm.insertvalue %s_address, %w2[24] : !llvm.array<35 x i64>
    llvm.store %w3, %slot : !llvm.array<35 x i64>, !llvm.ptr
    call @te_rt_mlir_quantize(%slot) : (!llvm.ptr) -> ()

    // and a buffer only the runtime sees,
    %d = memref.alloc() {alignment = 64 : i64} : memref<32x64xf8E4M3FN>
    ... (operands of te ops) ...
    memref.dealloc %d : memref<32x64xf8E4M3FN>
    // becomes
    %dp = llvm.call @aligned_alloc(%c64, %c2048) : (i64, i64) -> !llvm.ptr
    ...
    llvm.call @free(%dp) : (!llvm.ptr) -> ()
    ```

    Any `memref.copy` left between memrefs that are not both row-major
    contiguous (a `tensor.insert_slice` at a column offset, a strided
    operand's copy above) becomes `linalg.copy`: loops on host memory, a
    kernel on device memory (`te-linalg-to-gpu`); the memref lowering would
    call MLIR's `memrefCopy`, which te-run and AOT objects do not link.

    With `device-memory` (te-pipeline sets it on GPU targets) every memref
    is in the context's memory (device memory on the cuda backend), so the
    host never touches tensor data itself:

    * a buffer only the runtime sees is allocated with `te_rt_mlir_alloc`
      and freed with `te_rt_mlir_free` (stream-ordered, cached);
    * a row-major contiguous operand with an offset (a microbatch slice) is
      passed as its address, without a copy; any other strided operand is
      copied with `linalg.copy` (a kernel, `te-linalg-to-gpu`);
    * a `memref.copy` between row-major contiguous memrefs is
      `te_rt_mlir_copy`; any other is a `linalg.copy`;
    * a `memref.load`/`memref.store` on the host (`tensor.extract`, a scalar
      the program reads, e.g. a loss) is `te_rt_mlir_read`/`te_rt_mlir_write`
      of one element through a stack slot (a read waits for the stream);
    * a constant global (`memref.get_global` of a program's dense constant)
      is uploaded to a device buffer at the function's entry, freed before
      its returns;
    * any other op outside `gpu.launch` that reads or writes tensor data is
      an error naming it.
  }];
  let options = [
    Option<"deviceMemory", "device-memory", "bool", /*default=*/"false",
           "memrefs are in the context's memory (GPU targets): allocations, "
           "copies and host scalar accesses go through the runtime">
  ];
  let statistics = [
    Statistic<"numQuantizeCalls", "quantize-calls",
              "te_rt_mlir_quantize and te_rt_mlir_quantize_group calls">,
    Statistic<"numDequantizeCalls", "dequantize-calls",
              "te_rt_mlir_dequantize calls">,
    Statistic<"numGemmCalls", "gemm-calls", "te_rt_mlir_gemm calls">,
    Statistic<"numAmaxCalls", "amax-calls", "te_rt_mlir_amax calls">,
    Statistic<"numUpdateScaleCalls", "update-scale-calls",
              "te_rt_mlir_update_scale calls">,
    Statistic<"numAllReduceMaxCalls", "allreduce-max-calls",
              "te_rt_mlir_allreduce_max calls">,
    Statistic<"numAttentionCalls", "attention-calls",
              "te_rt_mlir_attention and te_rt_mlir_attention_grad calls">,
    Statistic<"numRuntimeOnlyBuffers", "runtime-only-buffers",
              "buffers only the runtime sees, allocated as plain pointers">,
    Statistic<"numHostAccesses", "host-accesses",
              "te_rt_mlir_read, te_rt_mlir_write and te_rt_mlir_copy calls "
              "for the host's accesses of device memory">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def TELowerChecks : Pass<"te-lower-checks", "::mlir::ModuleOp"> {
  let summary = "lower te.check_size and cf.assert to a failure the caller sees, and an early return";
  let description = [{
    Runs on functions whose structured control flow is lowered to blocks
    (te-pipeline: right after te-lower-if-present). A failed check must
    stop the program -- the ops after it would read or write past a buffer
    -- but never the process (upstream's `cf.assert` lowering calls
    `abort`). So, in each `func.func`:

    * `te.check_size` compares its sizes (`arith.cmpi eq` / `sge` / `sle`)
      and branches; on failure it calls `te_rt_mlir_check_failed` with its
      message and both sizes, which records
      `shape check: <message> is <size>, expected [at least | at most]
      <expected>` in
      the runtime's sticky status (`te_rt_current_error`);
    * `cf.assert` (the program's own, or upstream's runtime verification)
      likewise, recording `cf.assert: <file>:<line>:<column>: <message>`;
    * after a call of a function that may fail (one that checks, or calls
      one that does), the caller asks `te_rt_mlir_status` and fails too;
    * a failing function returns at once, zero values for its results (a
      memref result is a null descriptor, so that a caller that frees
      results after a failure frees nothing), after freeing the buffers it
      allocated before the failure (a `memref.alloc`, an `aligned_alloc` /
      `te_rt_mlir_alloc` pointer, a memref a callee returned that the
      function frees): those allocated on every path to the failure and
      freed on none yet (dominance, and no release that reaches the
      failure without passing the allocation again). Where some release
      frees a value of unknown origin (a block argument, a loaded
      pointer), a buffer that flows into a block argument, a `select` or
      memory is not freed there (it may be that value): a long-running
      process stays bounded for straight-line programs and loops whose
      buffers are allocated and freed within an iteration.

    Checks inside `gpu.module` kernels are not lowered here.

    ```mlir
    te.check_size %kb eq %k, "linalg.matmul at prog.mlir:9:8: ..."
    // becomes
    %ok = arith.cmpi eq, %kb, %k : index
    cf.cond_br %ok, ^continue, ^failed
    ^failed:
      func.call @te_rt_mlir_check_failed(%message, %c0_i32, %kb_i64, %k_i64)
      cf.br ^return_zeros
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect"
  ];
  let statistics = [
    Statistic<"numFreed", "buffers-freed",
              "frees placed on the paths of failed checks">,
    Statistic<"numChecks", "checks-lowered",
              "te.check_size and cf.assert ops lowered">,
    Statistic<"numCallsChecked", "calls-checked",
              "calls of functions that may fail followed by a status check">
  ];
}

def TELinalgToGPU : Pass<"te-linalg-to-gpu", "::mlir::ModuleOp"> {
  let summary = "run every linalg op and strided copy on memrefs as a GPU kernel";
  let description = [{
    The device-code stage of `te-pipeline` on GPU targets (`sm_90`,
    `sm_100`), after bufferization: buffers live in device memory, so every
    op on tensor data outside the runtime's calls becomes a `gpu.launch`.
    Named linalg ops are generalized first.

    * An all-parallel `linalg.generic` (elementwise, broadcast, transpose,
      fill, copy) gets one thread per `V` consecutive elements of its
      innermost loop (`V` elements of the smallest element type make 16
      bytes, at most 8), 256 threads per block and a 1-D grid. Operands
      indexed by the innermost loop as their last, unit-stride dimension are
      accessed with `vector.load`/`vector.store` of `V` lanes (16-byte
      accesses); the region runs on vectors (arith and math ops are
      elementwise). Where the alignment of those accesses depends on a
      dynamic offset or stride (a microbatch slice), or the innermost size is
      dynamic, the host chooses between that kernel and the scalar one
      (`V = 1`) at run time. Entry arguments must be 16-byte aligned (the
      runtime's allocations are 256-byte aligned).
    * A matrix product (a contraction with one M, N and K loop and any
      number of batch loops at any position of each operand's map:
      `linalg.matmul`, `linalg.batch_matmul`, their transposed forms, a
      `linalg.generic` such as a 4-D `[B, H, S, D]` product), whose operands
      have a static unit innermost stride along one of their matrix
      dimensions (which one decides the transposition), A and B one type of
      f32, f16, bf16 and C that type or f32, is one call of the runtime's
      `te_rt_mlir_matmul` (one strided-batched cuBLASLt call, fp32 products
      and sums, C rounded once: for 16-bit C more accurate than the region's
      rounding at every step), strides read at run time. Its batch loops are
      the call's batch when their strides collapse (checked at run time
      where sizes or strides are dynamic); else a host loop over the outer
      batch loops makes one call each (with a remark). A `linalg.fill` of
      zero of its output right before it is folded into the call
      (`accumulate = 0`: cuBLASLt's beta = 0, no fill kernel). A
      contraction the library cannot compute (integer or mixed types, two
      M loops, no unit-stride matrix dimension...) is a reduction, with a
      remark naming the reason.
    * A reduction whose region yields `combine(acc, value)` with one
      associative combiner (`arith.addf`, `mulf`, `maxnumf`, `maximumf`,
      `minnumf`, `minimumf`, `addi`, `muli`, `max/min[su]i`, `andi`, `ori`,
      `xori`) becomes two kernels: partial results per output and chunk of
      the reduction, accumulated in registers on the same `V` lanes as an
      elementwise op, four loop steps per iteration (`gpu.all_reduce` across
      a block of 256 threads when the innermost loop is reduced; one thread
      per `V` adjacent outputs otherwise), in a temporary buffer; then a
      kernel combining each output's initial value with its chunks (one
      block per output with `gpu.all_reduce` when the innermost loop is
      reduced, else one thread per output, in order). The chunking depends
      only on the shapes: results are deterministic.
    * A reduction with several outputs that do not read each other's
      accumulator (a sum and a sum of squares in one op) is one reduction
      per output, each lowered as above, unless an output's buffer is
      another output's or an input's.
    * Any other reduction (outputs that read each other's accumulator, such
      as an argmax's value and index; a region that uses the accumulator
      otherwise, such as a running
      average `acc * 0.9 + x`) runs one thread per output, which walks the
      reduction loops in order from the output's initial values, as the cpu
      backend does: correct for any region, parallel over the outputs only
      (a remark says so unless `remarks=false`). An output indexed by a
      reduction loop is an error.
    * A `memref.copy` that is not row-major contiguous on both sides is a
      `linalg.copy`, lowered as above; contiguous copies are left to
      `convert-te-to-runtime` (one stream-ordered memcpy).

    Kernels are named `<function>_<role>_L<line>_kernel[_<n>]` (role
    `elementwise`, `elementwise_scalar`, `reduce_rows`, `reduce_columns`,
    `reduce_combine`, `reduce_serial`; the line of the linalg op), so that
    profiles point at the source.

    Any other op of the linalg dialect (`linalg.softmax` is decomposed
    before bufferization by `te-decompose-aggregates`), or a float conversion to or from an 8- or 4-bit format inside a region (no
    NVVM lowering; `te.quantize` quantizes) is an error naming the op.

    ```mlir
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%h : memref<128x1024xbf16>) outs(%a : memref<128x1024xbf16>) { ... }
    // becomes (grid 64 = 128 * 1024 / 8 / 256)
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, ...) threads(%tx, ...) in (%c256, ...) {
      ...
      %v = vector.load %h[%i, %j] {alignment = 16 : i64} : memref<128x1024xbf16>, vector<8xbf16>
      ... (the region on vector<8xf32>) ...
      vector.store %r, %a[%i, %j] {alignment = 16 : i64} : memref<128x1024xbf16>, vector<8xbf16>
      gpu.terminator
    }
    ```
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"true",
           "remark on each reduction that runs one thread per output, each "
           "contraction that is not a cuBLASLt call, and each product that "
           "takes one call per outer batch index">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
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
    * `te.attention` is its definition in f32 with the scores materialized
      (`linalg.generic`s: `S = scale · Q Kᵀ + mask`, causal and boolean
      masks as `-inf`, the row maximum, `exp`, the row sum, `P V / sum`;
      `lse = max + log(sum)`), a row where no key takes part giving 0 and
      `lse = -inf`; `te.attention_grad` the same probabilities recomputed
      from the forward's lse and the backward's formulas in f32
      (`dV = Pᵀ dO`, `dS = P ∘ (dO Vᵀ − rowsum(dO ∘ O))`, `dQ = scale · dS K`,
      `dK = scale · dSᵀ Q`, summed over each group's query heads for
      grouped-query attention); the results are rounded once to the
      operands' element type. A mask dimension left dynamic is taken as
      the full size there (a mask that broadcasts has static size-1
      dimensions; with `check-shapes` a run where it is 1 stops with the
      shape check's error, where the runtime would broadcast it);
    * a usage view (`te.from_buffers` of one `te.buffers`) is its source;
    * the delayed-scaling state is inert: amaxes are 0, `te.update_scale`
      returns its history and scale unchanged.

    Nothing else changes, so the twin runs through the same `te-pipeline`
    and `te-run`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def TEPackedEntry : Pass<"te-packed-entry", "::mlir::ModuleOp"> {
  let summary = "add the packed wrapper `_te_packed_<entry>(void **args)` "
                "of a lowered entry, and its signature";
  let description = [{
    Runs on a lowered module (LLVM dialect) whose entry was given
    `llvm.emit_c_interface` before lowering. Adds
    `void _te_packed_<entry>(ptr args)`: it loads the i-th parameter of
    `_mlir_ciface_<entry>` from the pointer `args[i]` (a memref's parameter
    is the pointer to its descriptor), calls it, and stores a returned
    scalar through the last slot. This is the one calling convention of
    te-run, the AOT driver and the Python package (runtime/include/te_call.h,
    whose call frames fill the slots). Also adds the constant strings
    `_te_signature_<entry>` (`signature`, which must describe the C
    interface: its slot count is checked) and `_te_target_<entry>` (when
    `target` is given), and the byte `_te_shape_checks_<entry>` when the
    module has `te.shape_checks`, so that a loaded object says how to call
    it. The entry, and any function `main`, become internal (an AOT object
    links beside a C `main`); with `checked-malloc` the module's `malloc`
    calls go to `te_run_checked_malloc`, which reports an allocation that
    fails and exits instead of returning NULL.

    The signature comes from the func-level entry
    (`mlir::te::getEntrySignature`, include/te/Conversion/PackedEntry.h).
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "the entry function">,
    Option<"signature", "signature", "std::string", /*default=*/"\"\"",
           "the entry's harness signature, e.g. \"f32[4] -> f32[4]\"">,
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "the target the module was compiled for (cpu, sm_90, sm_100); "
           "recorded as _te_target_<entry> when given">,
    Option<"checkedMalloc", "checked-malloc", "bool", /*default=*/"true",
           "route malloc to te_run_checked_malloc">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TE_CONVERSION_PASSES_TD
