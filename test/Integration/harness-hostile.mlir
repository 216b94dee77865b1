// Sizes te-run cannot serve are refused with a message and exit status 1,
// never a crash or the process killed for memory.
//
// RUN: not te-run %s --entry scale --dynamic-dim 1000000000 --seed 1 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not te-run %s --entry scale --dynamic-dim 100000000000000 --seed 1 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: te-run %s --entry scale --dynamic-dim 4 --fill 0=2 | FileCheck %s --check-prefix=OK
//
// HOST: te-run: argument 0 (bf16[?,256]): bf16[1000000000,256] needs {{[0-9]+}} MiB of host memory for the generated arguments so far; this machine has {{[0-9]+}} MiB
// HUGE: te-run: argument 0 (bf16[?,256]): bf16[100000000000000,256] is too large
// OK: result 0: bf16[4,256] min 4 max 4

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @scale(%x: tensor<?x256xbf16>) -> tensor<?x256xbf16> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x256xbf16>) outs(%x : tensor<?x256xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %s = arith.addf %in, %in : bf16
    linalg.yield %s : bf16
  } -> tensor<?x256xbf16>
  return %r : tensor<?x256xbf16>
}

// --quiet silences the compiler's remarks too (an emulated MXFP8 GEMM).
// RUN: te-run %s --entry mx --seed 1 --quiet 2>&1 | FileCheck %s --check-prefix=QUIET
// RUN: te-run %s --entry mx --seed 1 2>&1 | FileCheck %s --check-prefix=LOUD
// QUIET-NOT: remark
// LOUD: remark: mxfp8 GEMM has no native kernel on cpu
func.func @mx(%x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<32x64xbf16> {
  %y, %xs, %ws = te.linear %x, %w
      {input_quantizer = #te.mxfp8<f8E4M3FN>, weight_quantizer = #te.mxfp8<f8E4M3FN>}
      : tensor<32x128xbf16>, tensor<64x128xbf16>
  return %y : tensor<32x64xbf16>
}
