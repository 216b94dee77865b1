//===- Passes.td - te's generic transforms -----------------*- tablegen -*-===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// Transforms of te-pipeline that know nothing of the te dialect: they work
// on upstream dialects only (func, linalg, bufferization, memref, gpu) and
// would serve any pipeline with the same needs. The decomposition of
// aggregated linalg ops (linalg.softmax) into ops every target lowers;
// bufferization helpers that make one-shot bufferization and buffer
// deallocation linear in the program's size and bufferization's output
// reproducible; the lowering stages' driver. Lit tests in test/Transforms/
// and test/Conversion/.
//
//===----------------------------------------------------------------------===//

#ifndef TE_TRANSFORMS_PASSES_TD
#define TE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// te-decompose-aggregates
//===----------------------------------------------------------------------===//

def TEDecomposeAggregates : Pass<"te-decompose-aggregates"> {
  let summary = "replace every linalg::AggregatedOpInterface op on tensors "
                "(linalg.softmax) by its decomposition";
  let description = [{
    Every op implementing `linalg::AggregatedOpInterface` is replaced by
    the values its `decomposeOperation` builds -- what upstream's
    `transform.structured.decompose_interface` does, as a pass. For
    `linalg.softmax` that is four linalg ops on tensors: a max reduction
    along the dimension (from NaN, the identity of `maxnumf`), the
    exponential of the difference, a sum reduction, and the division.
    `te-pipeline` runs it on every target right after the inliner, at
    tensor level, so that bufferization and the lowerings (the cpu
    backend's loops, `te-linalg-to-gpu`'s kernels) see only ops they know.
    Dynamic sizes are carried by the decomposition (`tensor.dim` of the
    input, `tensor.empty` of those sizes). An op that a decomposition
    creates is decomposed in turn.

    ```mlir
    %y = linalg.softmax dimension(1) ins(%x : tensor<64x1000xf32>)
        outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
    // becomes
    %r = tensor.empty() : tensor<64xf32>
    %max0 = linalg.fill ins(%nan : f32) outs(%r : tensor<64xf32>) -> tensor<64xf32>
    %max = linalg.generic {reduction over d1: arith.maxnumf}
        ins(%x : tensor<64x1000xf32>) outs(%max0 : tensor<64xf32>) -> tensor<64xf32>
    %exp = linalg.generic {parallel: math.exp(x - max)}
        ins(%x, %max : tensor<64x1000xf32>, tensor<64xf32>)
        outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
    %sum0 = linalg.fill ins(%zero : f32) outs(%r : tensor<64xf32>) -> tensor<64xf32>
    %sum = linalg.generic {reduction over d1: arith.addf}
        ins(%exp : tensor<64x1000xf32>) outs(%sum0 : tensor<64xf32>) -> tensor<64xf32>
    %y = linalg.generic {parallel: exp / sum}
        ins(%exp, %sum : tensor<64x1000xf32>, tensor<64xf32>)
        outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
    ```

    Upstream's decomposition computes in the op's element type: a bf16
    softmax would sum in bf16, and the sum of a long row stalls once it is
    large beside each term (over 1000 columns the result is ~12% off,
    normwise).
    With `softmax-in-f32` (the default) a `linalg.softmax` of a float type
    narrower than f32 (bf16, f16) is computed in f32 instead: the input
    extended (`arith.extf` in an elementwise `linalg.generic`), an f32
    softmax decomposed, its result truncated into the op's output
    (`arith.truncf`): one rounding, as PyTorch computes it.
    `softmax-in-f32=false` keeps upstream's decomposition in the element
    type.

    Where the input and the output of a `linalg.softmax` have different
    but compatible types (`tensor<64x1000xf32>` and `tensor<?x1000xf32>`,
    as canonicalization's folding of casts leaves them), both are first
    cast to their most static common type, which upstream's decomposition
    needs (its exponential takes the input's type as result type and the
    output as init), and the result is cast back to the op's result type.

    Errors, each naming the op: an op with a memref (or unranked) operand
    or result -- upstream's softmax decomposition builds tensor ops even
    then (`linalg.generic` ops mixing memrefs and tensors, which do not
    verify), so the pass runs before bufferization --; a `linalg.softmax`
    of a non-float element type; an op whose `decomposeOperation` fails,
    gives values that do not match its results, or builds IR that does
    not verify (what it built is erased).
  }];
  let options = [
    Option<"softmaxInF32", "softmax-in-f32", "bool", /*default=*/"true",
           "compute a linalg.softmax of a float type narrower than f32 in "
           "f32, its result rounded once">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numDecomposed", "ops-decomposed",
              "aggregated ops replaced by their decomposition">,
    Statistic<"numInF32", "softmax-in-f32",
              "linalg.softmax ops of a narrower float type computed in f32">
  ];
}

//===----------------------------------------------------------------------===//
// te-split-deallocs
//===----------------------------------------------------------------------===//

def TESplitDeallocs : Pass<"te-split-deallocs"> {
  let summary = "split bufferization.dealloc over distinct allocations, in "
                "linear time";
  let description = [{
    Runs between `ownership-based-buffer-deallocation` and
    `buffer-deallocation-simplification` (te-pipeline). Ownership-based
    deallocation frees every buffer of a block with one
    `bufferization.dealloc` at its end, retaining the block's results: for a
    training step of N layers in one function, O(N) memrefs and O(N)
    retained values. `buffer-deallocation-simplification` splits that op by
    comparing every memref with every other one and every split-off op with
    every retained value, O(N^2) (docs/performance.md "Compile time").

    This pass does the same split in linear time where aliasing is certain:
    results of allocating ops are distinct allocations, and an allocation
    made in a function is distinct from the function's arguments (values are
    traced through view-like ops to their base). A memref that is such an
    allocation and the base of no other memref of the list gets a
    `bufferization.dealloc` of its own without retained values -- or, when a
    retained value is (a view of) it, is dropped, its condition OR-ed into
    that retained value's updated condition. The other memrefs stay in one
    `bufferization.dealloc` with every retained value. A dealloc with a
    memref or retained value of unknown origin (a call result, a region
    argument) is left alone; `buffer-deallocation-simplification` then does
    what it can.

    ```mlir
    %0:2 = bufferization.dealloc (%a, %b, %r : ...) if (%c0, %c1, %c2)
                             retain (%r, %arg0 : ...)
    // becomes
    bufferization.dealloc (%a : ...) if (%c0)
    bufferization.dealloc (%b : ...) if (%c1)
    // uses of %0#0 take %c2, uses of %0#1 take false
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numSplit", "deallocs-split",
              "bufferization.dealloc ops split">,
    Statistic<"numSeparated", "memrefs-separated",
              "memrefs freed on their own or folded into a retained value's "
              "condition">
  ];
}

//===----------------------------------------------------------------------===//
// te-bufferize-boundaries
//===----------------------------------------------------------------------===//

def TEBufferizeBoundaries
    : Pass<"te-bufferize-boundaries", "::mlir::ModuleOp"> {
  let summary = "give entry points identity-layout memref signatures before "
                "one-shot-bufferize (linear-time bufferization)";
  let description = [{
    Runs before `one-shot-bufferize{bufferize-function-boundaries
    function-boundary-type-conversion=identity-layout-map}` (te-pipeline).
    Every entry point -- a `func.func` with a body of one block that no
    symbol use of the module names -- gets the signature that bufferization
    would give it: each ranked tensor argument and result (without encoding)
    becomes the memref of the same shape and element type with the identity
    layout. The body keeps its tensors: an argument is read through
    `bufferization.to_tensor restrict writable` (not `writable` when the
    argument has `bufferization.writable = false`), a returned tensor is
    returned through `bufferization.to_buffer read_only`. The ABI is the one
    one-shot-bufferize gives the function.

    A function argument or result, or an op result, of an unranked tensor
    type (`tensor<*xf32>`) is an error naming it: neither target lowers
    unranked buffers (their copies call a library te does not link, a
    kernel cannot index them), and one such function would break the
    lowering of the whole module.

    Why: one-shot-bufferize's module analysis compares every tensor argument
    of a function with every tensor it returns, O(arguments x results) -- for
    a training step with N weights and N weight gradients, quadratic in N
    (docs/performance.md "Compile time"). That analysis serves only the
    callers of a function; an entry point has none.

    ```mlir
    func.func @step(%w: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %g = te.some_op %w ...
      return %g : tensor<4x8xf32>
    }
    // becomes
    func.func @step(%w: memref<4x8xf32>) -> memref<4x8xf32> {
      %0 = bufferization.to_tensor %w restrict writable
          : memref<4x8xf32> to tensor<4x8xf32>
      %g = te.some_op %0 ...
      %1 = bufferization.to_buffer %g read_only
          : tensor<4x8xf32> to memref<4x8xf32>
      return %1 : memref<4x8xf32>
    }
    ```

    A function that is called (or otherwise named) in the module, has no
    body, more than one block, or an unranked or encoded tensor at its
    boundary is left to one-shot-bufferize.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numEntryPoints", "entry-points",
              "entry points given a memref signature">
  ];
}


//===----------------------------------------------------------------------===//
// te-constant-globals
//===----------------------------------------------------------------------===//

def TEConstantGlobals : Pass<"te-constant-globals", "::mlir::ModuleOp"> {
  let summary = "create the memref.global of every tensor constant in "
                "program order before one-shot-bufferize, for reproducible "
                "output";
  let description = [{
    Runs right before `one-shot-bufferize{bufferize-function-boundaries}`
    (te-pipeline). For every `arith.constant` of a ranked tensor type
    without encoding, in the order of a walk of the module, it creates the
    `memref.global` bufferization would create for it, with upstream's own
    `bufferization::getGlobalFor`: a private constant global named
    `__constant_<shape>x<type>` (a suffix `_0`, `_1`, ... where the name is
    taken), placed at the top of the module, one per value (a constant
    whose value and alignment a global already has reuses it). The
    constants stay; bufferization then finds their globals and creates
    none.

    Why: with function boundaries, one-shot-bufferize bufferizes the
    functions in an order taken from a `DenseMap` keyed by the functions'
    addresses (`getFuncOpsOrderedByCalls` in upstream's
    OneShotModuleBufferize.cpp), so functions that do not call each other
    come in an order that changes from run to run. Bufferization creates a
    tensor constant's global when it bufferizes the constant's function, so
    without this pass the globals' order in the module, which of two
    constants of one type gets a suffixed name, and so the compiled object,
    follow that order. Created here, they depend on the program only.

    ```mlir
    func.func @a() -> f32 {
      %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
      ...
    }
    func.func @b() -> f32 {
      %c = arith.constant dense<[3.0, 4.0]> : tensor<2xf32>
      ...
    }
    // gains, whatever order bufferization then takes the functions in
    memref.global "private" constant @__constant_2xf32_0 : memref<2xf32>
        = dense<[3.0, 4.0]> {alignment = 64 : i64}
    memref.global "private" constant @__constant_2xf32 : memref<2xf32>
        = dense<[1.0, 2.0]> {alignment = 64 : i64}
    ```

    The globals have no memory space (one-shot-bufferize's default, which
    te-pipeline keeps).
  }];
  let options = [
    Option<"alignment", "alignment", "uint64_t", /*default=*/"64",
           "alignment of the globals: one-shot-bufferize's buffer-alignment "
           "(it reuses a global only when the alignment is the same)">
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numGlobals", "globals-created",
              "memref.global ops created for tensor constants">
  ];
}

//===----------------------------------------------------------------------===//
// te-lower-if-present
//===----------------------------------------------------------------------===//

def TELowerIfPresent : Pass<"te-lower-if-present", "::mlir::ModuleOp"> {
  let summary = "run te-pipeline's lowering stages before convert-to-llvm "
                "where the module has ops they lower";
  let description = [{
    The upstream stages of `te-pipeline` between `convert-te-to-runtime`
    (on GPU targets, kernel outlining) and `convert-to-llvm`, in this
    order, each run only when some op of the module (kernels included)
    is one it lowers:

    | stage | runs when the module has |
    |---|---|
    | `convert-bufferization-to-memref` | a `bufferization` op (a clone the deallocation pipeline kept) |
    | `convert-linalg-to-loops` | a `linalg` op |
    | `expand-strided-metadata` | a `memref` op other than `alloc`, `alloca`, `dealloc`, `global`, `get_global`, `extract_aligned_pointer_as_index`, `load`, `store`, `copy`, `dim` (views, reshapes, casts) |
    | `lower-affine` | an `affine` op |
    | `func.func(math-extend-to-supported-types)` (host math on bf16 / f16 computed in f32) | a `math` op |
    | `te-host-math-to-libm` (host `erf`, `erfc`, `asinh`, `acosh`, `atanh`, `cbrt`: C library calls) | one of those ops outside a `gpu.module` |
    | `func.func(arith-emulate-unsupported-floats{source-types=bf16 target-type=f32}, arith-expand{include-bf16=true include-f8e8m0=true})` (host bf16 arithmetic computed in f32, each op rounded back: no `__truncsfbf2` libcall, which older C runtimes lack), `gpu.module(arith-expand{include-f8e8m0=true})` (kernels keep bf16 conversions for the hardware's `cvt`) | an `arith` op other than `constant`, `index_cast`, `index_castui`, `addi`, `subi`, `muli`, `cmpi`, `select`, `andi`, `ori`, `xori`, `extui`, `extsi`, `trunci` |
    | `convert-scf-to-cf` | an `scf` op |

    One walk finds the first stage to run (it stops at the first op of that
    stage); after a stage has run, the next walk looks only at the stages
    after it (a stage may create ops for a later one). When no stage runs,
    the module is unchanged and every analysis preserved, so the pass
    manager does not verify it again.

    Why: on a te program most of these stages have nothing to lower, yet
    each would walk, match and fold every op and be followed by a
    verification of the whole module (docs/performance.md "Compile time").
    A stage with nothing to lower is not a no-op on the output either (its
    rewrite driver folds and moves constants), so the stages that run are
    a property of the module: `--dump-pass-pipeline` lists this pass,
    `--mlir-timing` lists the stages that ran, nested under it.
  }];
  let statistics = [
    Statistic<"numStages", "stages-run", "lowering stages run">
  ];
}

//===----------------------------------------------------------------------===//
// te-split-arg-reductions
//===----------------------------------------------------------------------===//

def TESplitArgReductions : Pass<"te-split-arg-reductions"> {
  let summary = "an argmax / argmin in one linalg.generic becomes two "
                "parallel reductions and an elementwise op, same results";
  let description = [{
    An argmax (argmin) written as one `linalg.generic` on tensors that
    carries the extremum and its first position through one reduced loop,
    the form TOSA's and TTIR's lowerings write:

    ```mlir
    %m, %i = linalg.generic {... iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<64x32000xf32>) outs(%m0, %i0 : tensor<64xf32>, tensor<64xi32>) {
    ^bb0(%a: f32, %m: f32, %i: i32):
      %j = linalg.index 1 : index
      %jc = arith.index_cast %j : index to i32
      %gt = arith.cmpf ogt, %a, %m : f32      // argmin: olt
      %v = arith.select %gt, %a, %m : f32
      %k = arith.select %gt, %jc, %i : i32
      linalg.yield %v, %k : f32, i32
    }
    ```

    is rewritten, on tensors, as

    * `M = maxnumf(m0, x[.., j, ..] for every j)` (argmin: `minnumf`), a
      reduction with one associative combiner;
    * `first = min over j of (x[j] == M and M > m0 ? j : INT64_MAX)` (i64,
      `minsi`), likewise;
    * an elementwise op over the outputs: `found = first != INT64_MAX`,
      `i = found ? first : i0` (cast as the loop casts `j`),
      `m = found ? x[.., first, ..] : m0`.

    The results are the loop's, bit for bit: the loop keeps its initial
    values unless an element is greater than `m0`, and then holds the first
    element equal to the maximum (ties keep the first; a NaN is never taken,
    as `>` is false and `maxnumf` ignores it); the value is that element's
    own bits (`-0.0 == +0.0`, so `M`'s sign could differ).

    Torch-MLIR's and IREE's form computes the value with `arith.maximumf
    %x, %m` (argmin: `minimumf`) instead of the select, which propagates
    NaN: from the first NaN on (position `k`, a third reduction) the running
    value is NaN and no position is taken. Then `M` and `first` look at the
    positions before `k` only, and the value is `maximumf(m0, every x)`, a
    fourth reduction (exact in any order).

    Why: on GPU targets an op whose outputs read each other's accumulator
    runs one thread per output (te-linalg-to-gpu), so an argmax over a
    32000-entry vocabulary walks 32000 elements on one thread per row; the
    two reductions run on te-linalg-to-gpu's parallel kernels. `te-pipeline`
    runs this pass on GPU targets only, right after
    `te-decompose-aggregates`; on the cpu target the loop is the fastest
    form.

    Matched: one reduced loop; the compared value an input of the op
    indexed by loops only; the outputs indexed alike by every other loop,
    a float and an integer or `index`; the region exactly the ops above
    (`cmpf ogt %a, %m` or `olt %m, %a` for argmax, `olt %a, %m` or
    `ogt %m, %a` for argmin; the value a `select` on that comparison or
    `maximumf` / `minimumf` of `%a` and `%m` in either order; the position
    `linalg.index` of the reduced loop, cast or not). Anything else (a
    last-index argmax with `oge`, a masked one) is left alone.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numSplit", "split", "argmax / argmin ops split">
  ];
}

//===----------------------------------------------------------------------===//
// te-host-math-to-libm
//===----------------------------------------------------------------------===//

def TEHostMathToLibm : Pass<"te-host-math-to-libm", "::mlir::ModuleOp"> {
  let summary = "host math ops without an LLVM lowering (erf, ...) become "
                "C math library calls";
  let description = [{
    `convert-to-llvm` lowers most `math` ops to LLVM intrinsics, but not
    `math.erf`, `erfc`, `asinh`, `acosh`, `atanh` or `cbrt`: they reached
    the translation to LLVM IR and failed there ("missing
    LLVMTranslationDialectInterface registration ... math.erf"), so a host
    program with the exact GELU (`0.5 x (1 + erf(x / sqrt(2)))`) did not run
    on the cpu target. This pass rewrites those ops outside any
    `gpu.module` into calls of the C library (`erff` / `erf` for f32 / f64,
    upstream's math-to-libm patterns; vectors element by element); kernels
    keep them for the NVVM lowering, which calls libdevice. `te-pipeline`
    runs it as a stage of `te-lower-if-present`, after
    `math-extend-to-supported-types` (so bf16 and f16 are computed in f32).
    A program using them links against libm (`scripts/te-aot.sh link` does;
    te-run's JIT finds the functions in its process).

    ```mlir
    %y = math.erf %x : f32
    // becomes
    %y = func.call @erff(%x) : (f32) -> f32
    func.func private @erff(f32) -> f32 attributes {llvm.readnone}
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numCalls", "libm-calls", "math ops made C library calls">
  ];
}

//===----------------------------------------------------------------------===//
// te-expand-integer-powers
//===----------------------------------------------------------------------===//

def TEDefineIntegerDivision : Pass<"te-define-integer-division"> {
  let summary = "integer division by zero gives XLA's results instead of a "
                "trap";
  let description = [{
    An integer division or remainder by zero, and the signed division of
    the smallest integer by -1, are undefined in `arith`; on x86 they raise
    SIGFPE and end the process, on the GPU they give a value of the
    hardware's choosing. This pass gives them the results XLA defines, on
    every target, so that a program neither traps nor differs between the
    cpu and the cuda backend:

    | op | by 0 | `INT_MIN` by -1 |
    |---|---|---|
    | `divsi`, `floordivsi`, `ceildivsi` | -1 | `INT_MIN` |
    | `divui`, `ceildivui` | all ones | (none) |
    | `remsi` | the dividend | 0 |
    | `remui` | the dividend | (none) |

    Each such op on signless integers or `index` (scalars or vectors) whose
    divisor is not a constant other than 0 (and -1, signed) divides by 1
    where its result is defined otherwise (a `select` of the divisor), and
    a `select` picks the result for a divisor of 0. `te-pipeline` runs it
    on every target after `te-expand-integer-powers`, on the program's own
    ops (arithmetic on tensors is elementwise `linalg.generic` by then; the
    compiler's own index arithmetic comes later and is not touched).

    ```mlir
    %q = arith.divsi %a, %b : i32
    // becomes
    %zero = arith.cmpi eq, %b, %c0 : i32
    %overflow = arith.andi (%a == INT_MIN), (%b == -1)
    %d = arith.select (%zero | %overflow), %c1, %b : i32
    %q0 = arith.divsi %a, %d : i32
    %q = arith.select %zero, %c-1, %q0 : i32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numDefined", "defined", "divisions and remainders guarded">
  ];
}

def TEExpandFloat8Extensions : Pass<"te-expand-float8-extensions"> {
  let summary = "arith.extf from 8-bit float types as integer arithmetic; "
                "arith.truncf to them an error";
  let description = [{
    MLIR 22 lowers no conversion from or to `f8E4M3FN`, `f8E5M2` and the
    other 8-bit float types to LLVM or NVVM (translation fails at an
    unrealized cast or at `arith.truncf`); `arith-expand` covers
    `f8E8M0FNU` and `f4E2M1FN` only, and te-pipeline runs it. This pass
    writes each `arith.extf` from an 8-bit float type with a sign bit
    (scalar or vector) as integer arithmetic on the code: the sign,
    exponent and mantissa fields moved into f32's (exponent rebased) for a
    normal code, the mantissa times the smallest subnormal for a subnormal
    one, and a `select` per code that decodes to something else (NaN,
    infinities; FNUZ's 0x80), then an exact conversion to the result type.
    The fields, the bias and the special codes come from the type's
    APFloat semantics, and before any op is rewritten all 256 codes are
    checked against APFloat's own conversion to f32 (a type whose codes do
    not all follow the formula is an error). So a dequantization written
    by hand (`arith.extf` of FP8 data times its scale) runs on every
    target, inside the kernel of its elementwise op.

    An `arith.truncf` to such a type (or an `arith.extf` from a 6- or 4-bit
    type arith-expand does not cover) is an error naming the op:
    `te.quantize` is the conversion te lowers, with TransformerEngine's
    scaling and saturation. te-pipeline runs the pass on every target
    after `te-define-integer-division`.

    ```mlir
    %x = arith.extf %q : f8E4M3FN to f32
    // becomes, with c = extui(bitcast(%q) : i8) : i32, s = c >> 7,
    // e = (c >> 3) & 15, m = c & 7:
    //   e != 0 ? bitcast(s << 31 | (e + 120) << 23 | m << 20)
    //          : (s ? -1 : 1) * uitofp(m) * 2^-9
    //   and NaN for c = 0x7F, 0xFF
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numExpanded", "expanded", "arith.extf ops expanded">
  ];
}

def TEExpandIntegerPowers : Pass<"te-expand-integer-powers"> {
  let summary = "math.ipowi as multiplications (exponentiation by squaring)";
  let description = [{
    `math.ipowi` has no LLVM or NVVM lowering (translation failed with
    "missing LLVMTranslationDialectInterface registration ... math.ipowi"),
    and upstream's `convert-math-to-funcs` outlines it into a loop of
    unstructured control flow, which neither target's lowering takes. This
    pass expands every `math.ipowi` on a signless integer of 2 bits or more
    (scalar or vector) into straight-line exponentiation by squaring: one
    step per bit of the exponent below its sign bit (a multiplication of the
    base by itself and a `select` of the product), so it runs inside
    kernels and vectorizes like any elementwise op. Multiplications wrap
    modulo 2^bits, as the loop's do. A negative exponent gives what
    upstream's outlined implementation gives: 1 for a base of 1, -1 or 1 for
    a base of -1 (odd or even exponent), and 0 for any other base; a base of
    0 (a division by zero there) gives 0 too. `te-pipeline` runs it on every
    target after `te-decompose-aggregates`, at tensor level.

    ```mlir
    %y = math.ipowi %x, %e : i32
    // becomes, for bits k = 0..30 of %e (p0 = 1, b0 = %x):
    //   p(k+1) = (%e >> k) & 1 ? p(k) * b(k) : p(k);  b(k+1) = b(k) * b(k)
    // then %y = %e < 0 ? (%x == 1 ? 1 : %x == -1 ? (odd %e ? -1 : 1) : 0)
    //                  : p31
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numExpanded", "expanded", "math.ipowi ops expanded">
  ];
}

//===----------------------------------------------------------------------===//
// te-fuse-elementwise
//===----------------------------------------------------------------------===//

def TEFuseElementwise : Pass<"te-fuse-elementwise"> {
  let summary = "fuse elementwise linalg ops on tensors into their consumers "
                "(one kernel or loop nest, not one per op)";
  let description = [{
    A model written as one op per operation -- a GELU as `linalg.mul`,
    `linalg.add`, `math.tanh` on tensors, ..., as front ends and users
    write it -- would otherwise run one kernel (on the cpu target one loop
    nest) per op, each reading and writing the whole tensor. This pass, on
    tensors:

    1. generalizes every named linalg op that is elementwise and has an
       input (`linalg.add`, `linalg.exp`, `linalg.elementwise`, `linalg.map`,
       `linalg.broadcast`, `linalg.transpose`, `linalg.copy`, ...; not
       `linalg.fill`, which step 2 folds as it is);
    2. applies upstream's elementwise fusion patterns
       (`linalg::populateElementwiseOpsFusionPatterns`): an all-parallel
       `linalg.generic` is inlined into the `linalg.generic` that reads its
       result -- an elementwise op or a reduction, whose combiner is then
       `combine(acc, f(inputs))` --; a fill or a splat constant read as an
       input becomes a scalar in the region; an output the region does not
       read becomes a `tensor.empty`; operands and results left unused are
       dropped.

    A producer is fused only where that computes nothing twice: its result
    has one use, the consumer, in the same block (not inside a loop or a
    branch the producer is outside of), and the consumer reads it through a
    permutation of its loops -- or the producer computes nothing (a
    broadcast, a transpose, a copy: its region only yields an input), so a
    bias broadcast over the rows is read from the bias itself. A consumer
    with the shape of a matrix product or a convolution is left alone, so
    that it still becomes one cuBLASLt call on GPU targets. Fusion moves
    each element's ops into one region in the same order: every result is
    the unfused program's, bit for bit.

    `te-pipeline` runs it after `te-expand-qtensors` (te's own rewrites of
    linalg ops, `te-fuse-accumulate`, have matched by then), on every
    target; `fuse-elementwise=false` leaves it out.

    ```mlir
    %h = linalg.add ins(%x, %b : tensor<?x4096xf32>, tensor<?x4096xf32>)
        outs(%e : tensor<?x4096xf32>) -> tensor<?x4096xf32>
    %g = linalg.generic {... ["parallel", "parallel"]} ins(%h : ...) outs(%e : ...) {
    ^bb0(%v: f32, %o: f32):
      %t = math.tanh %v : f32
      linalg.yield %t : f32
    } -> tensor<?x4096xf32>
    // becomes one op:
    %g = linalg.generic {... ["parallel", "parallel"]} ins(%x, %b : ...) outs(%e : ...) {
    ^bb0(%x0: f32, %b0: f32, %o: f32):
      %v = arith.addf %x0, %b0 : f32
      %t = math.tanh %v : f32
      linalg.yield %t : f32
    } -> tensor<?x4096xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numGeneralized", "generalized",
              "named elementwise ops generalized">,
    Statistic<"numFused", "fused", "producers fused into their consumer">
  ];
}

//===----------------------------------------------------------------------===//
// te-expand-reshapes
//===----------------------------------------------------------------------===//

def TEExpandReshapes : Pass<"te-expand-reshapes"> {
  let summary = "memref.reshape as loads of the new shape and a memref.reinterpret_cast";
  let description = [{
    Runs after bufferization (te-pipeline: after te-deallocate, before
    convert-te-to-runtime). A `memref.reshape` to a ranked row-major result
    whose shape operand has a static length becomes a `memref.load` of each
    dynamic size from the shape operand and a `memref.reinterpret_cast` of
    the source (its offset, the new sizes, row-major strides):

    * on GPU targets the shape operand is device memory: the loads are
      host reads that convert-te-to-runtime turns into
      `te_rt_mlir_read`, where the LLVM lowering of `memref.reshape` would
      dereference the device pointer on the host;
    * `convert-to-llvm` leaves a `memref.reshape` whose shape holds `index`
      values unconverted (an unrealized cast the LLVM translation refuses).

    Other reshapes (an unranked result, a shape of dynamic length) are left
    as they are.

    ```mlir
    %r = memref.reshape %a(%shape) : (memref<?x?xf32>, memref<2xindex>) -> memref<?x4xf32>
    // becomes
    %n = memref.load %shape[%c0] : memref<2xindex>
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %a : ...
    %r = memref.reinterpret_cast %a to offset: [%offset], sizes: [%n, 4], strides: [4, 1]
        : memref<?x?xf32> to memref<?x4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

//===----------------------------------------------------------------------===//
// te-strip-binary-properties
//===----------------------------------------------------------------------===//

def TEStripBinaryProperties
    : Pass<"te-strip-binary-properties", "::mlir::ModuleOp"> {
  let summary = "drop the compile-time properties (e.g. ISAToBinaryTimeInMs) "
                "of gpu.binary objects, for reproducible output";
  let description = [{
    Runs after `gpu-module-to-binary` (te-pipeline, GPU targets), which
    records on each object of a `gpu.binary` how long the toolkit took to
    build it. Every object keeps its target, format, binary and kernels;
    its properties are dropped, so that the output of te-pipeline depends
    on its input only.
  }];
}

//===----------------------------------------------------------------------===//
// te-split-entry-blocks
//===----------------------------------------------------------------------===//

def TESplitEntryBlocks : Pass<"te-split-entry-blocks", "::mlir::ModuleOp"> {
  let summary = "move a large function body out of its entry block, before "
                "the LLVM conversion of its arguments";
  let description = [{
    Upstream's dialect conversion (func-to-llvm, as in `gpu-to-llvm`)
    converts each argument of a function by inserting its materialization
    at the start of the entry block, then replaces the argument's uses
    through a filter that asks the block's op order; each insertion at the
    block's start invalidates that order, so each argument re-numbers every
    op of the block: quadratic in a function of thousands of arguments and
    hundreds of thousands of ops (a 1000-layer training step,
    docs/performance.md "Compile time"). With the body moved to a second
    block, reached by `cf.br`, the entry block holds only the
    materializations and the branch.

    A `func.func` whose entry block has arguments and at least `min-ops`
    operations gets an entry block that holds only its stack slots
    (`llvm.alloca` of a constant size, with that constant: LLVM treats an
    alloca as static only in the entry block), then `cf.br ^body`; every
    other operation moves, in order, to `^body` (no arguments, so every use
    of the entry's arguments stays dominated). The semantics are unchanged;
    LLVM merges the blocks again. `te-pipeline` runs it on GPU targets,
    right before `finalize-memref-to-llvm` and `gpu-to-llvm`.

    ```mlir
    func.func @step(%w0: memref<256x256xbf16>, ...) {
      ...                               // 200000 ops
    }
    // becomes
    func.func @step(%w0: memref<256x256xbf16>, ...) {
      cf.br ^bb1
    ^bb1:
      ...
    }
    ```
  }];
  let options = [
    Option<"minOps", "min-ops", "int64_t", /*default=*/"1024",
           "split entry blocks of at least this many operations">
  ];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect"];
  let statistics = [
    Statistic<"numSplit", "entry-blocks-split", "function bodies moved">
  ];
}

#endif // TE_TRANSFORMS_PASSES_TD
