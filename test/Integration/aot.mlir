// Ahead-of-time path: scripts/te-aot.sh compiles this module to an object
// file (te-pipeline, mlir-translate, llc), links it with the te-aot-run
// driver and libte_rt, and the executable's results -- the quantized buffers
// of every recipe and a GEMM on them -- must equal the JIT's (te-run), bit
// for bit, on the cpu backend. The object is compiled for target cpu (host
// memory; it also runs with --backend cuda, which stages the buffers); an
// sm_90 object is a GPU program for --backend cuda (see scripts/te-aot.sh).
//
// RUN: rm -rf %t && mkdir -p %t/jit
// RUN: env TE_BUILD_DIR=%te_lib_dir/.. %te_src_root/scripts/te-aot.sh compile %s %t/aot.o --entry current --target cpu > /dev/null
// RUN: %te_src_root/scripts/te-aot.sh link %t/aot.o %t/aot %te_lib_dir > /dev/null
// RUN: te-run %s --entry current --seed 11 --output-dir %t/jit --quiet
// RUN: %t/aot --signature-file %t/aot.sig --entry current --seed 11 --exact 0 --exact 1 --exact 2 --exact 3 --compare %t/jit/result0.npy --compare %t/jit/result1.npy --compare %t/jit/result2.npy --compare %t/jit/result3.npy | FileCheck %s
// CHECK: result 0: PASS
// CHECK: result 1: PASS
// CHECK: result 2: PASS
// CHECK: result 3: PASS
//
// Hostile signature files (exit 2, one line): empty, a directory, /dev/zero
// (read without bound before), an unknown target (was accepted); a CRLF
// file reads as its LF twin (was "unknown element type ''").
// RUN: sed 's/$/\r/' %t/aot.sig > %t/crlf.sig
// RUN: %t/aot --signature-file %t/crlf.sig --entry current --seed 11 --exact 0 --exact 1 --exact 2 --exact 3 --compare %t/jit/result0.npy --compare %t/jit/result1.npy --compare %t/jit/result2.npy --compare %t/jit/result3.npy | FileCheck %s
// RUN: printf '' > %t/empty.sig
// RUN: not %t/aot --signature-file %t/empty.sig --entry current 2>&1 | FileCheck %s --check-prefix=SIGEMPTY
// RUN: not %t/aot --signature-file %t --entry current 2>&1 | FileCheck %s --check-prefix=SIGDIR
// RUN: not %t/aot --signature-file /dev/zero --entry current 2>&1 | FileCheck %s --check-prefix=SIGZERO
// RUN: sed 's/^target .*/target foo/' %t/aot.sig > %t/foo.sig
// RUN: not %t/aot --signature-file %t/foo.sig --entry current 2>&1 | FileCheck %s --check-prefix=SIGFOO
// SIGEMPTY: te-aot-run: error: --signature-file '{{.*}}empty.sig' is empty
// SIGDIR: te-aot-run: error: --signature-file '{{.*}}' is a directory
// SIGZERO: te-aot-run: error: --signature-file '/dev/zero' is larger than 1 MiB (a signature file is a few lines)
// SIGFOO: te-aot-run: error: signature file: unknown line 'target foo' (expected 'target cpu|sm_90|sm_100' or 'shape-checks on|off')

// Per-tensor current scaling on sm_90: _data, _transpose, _scale_inv, and
// the fprop GEMM Y = X W^T.
func.func @current(%x: tensor<64x128xbf16>, %w: tensor<64x128xbf16>)
    -> (tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN>, tensor<1xf32>, tensor<64x64xf32>) {
  %xq = te.quantize %x : tensor<64x128xbf16>
      -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
  %d, %t, %s = te.buffers %xq : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise>
      -> tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN>, tensor<1xf32>
  %wq = te.quantize %w : tensor<64x128xbf16> -> !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>
  %y = te.gemm %wq, %xq layout TN
      : !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise>,
        !te.qtensor<64x128xbf16, #te.current<f8E4M3FN>, rowwise|columnwise> -> tensor<64x64xf32>
  return %d, %t, %s, %y : tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN>, tensor<1xf32>, tensor<64x64xf32>
}

// MXFP8: rowwise and columnwise data and E8M0 scales, and the wgrad-style
// NT GEMM on the columnwise copies.
func.func @mxfp8(%x: tensor<128x256xbf16>, %dy: tensor<128x64xbf16>)
    -> (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<128x256xf8E4M3FN>, tensor<4x256xf8E8M0FNU>, tensor<64x256xf32>) {
  %xq = te.quantize %x : tensor<128x256xbf16>
      -> !te.qtensor<128x256xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
  %rd, %rs, %cd, %cs = te.buffers %xq : !te.qtensor<128x256xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>
      -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<128x256xf8E4M3FN>, tensor<4x256xf8E8M0FNU>
  %dyq = te.quantize %dy : tensor<128x64xbf16> -> !te.qtensor<128x64xbf16, #te.mxfp8<f8E4M3FN>, columnwise>
  %dw = te.gemm %xq, %dyq layout NT
      : !te.qtensor<128x256xbf16, #te.mxfp8<f8E4M3FN>, rowwise|columnwise>,
        !te.qtensor<128x64xbf16, #te.mxfp8<f8E4M3FN>, columnwise> -> tensor<64x256xf32>
  return %rd, %rs, %cd, %cs, %dw
      : tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<128x256xf8E4M3FN>, tensor<4x256xf8E8M0FNU>, tensor<64x256xf32>
}

// NVFP4 with the RHT on the columnwise copy: packed E2M1 data (i8), E4M3
// block scales, fp32 amaxes.
func.func @nvfp4(%x: tensor<128x256xbf16>)
    -> (tensor<128x128xi8>, tensor<128x16xf8E4M3FN>, tensor<256x64xi8>, tensor<256x8xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>) {
  %xq = te.quantize %x : tensor<128x256xbf16>
      -> !te.qtensor<128x256xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>
  %a, %b, %c, %d, %e, %f = te.buffers %xq : !te.qtensor<128x256xbf16, #te.nvfp4<f4E2M1FN, rht = true>, rowwise|columnwise>
      -> tensor<128x128xi8>, tensor<128x16xf8E4M3FN>, tensor<256x64xi8>, tensor<256x8xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
  return %a, %b, %c, %d, %e, %f
      : tensor<128x128xi8>, tensor<128x16xf8E4M3FN>, tensor<256x64xi8>, tensor<256x8xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
}

// FP8 block scaling 1x128: rowwise + columnwise data and GEMM-ready scales.
func.func @block(%x: tensor<128x256xbf16>)
    -> (tensor<128x256xf8E4M3FN>, tensor<2x128xf32>, tensor<256x128xf8E4M3FN>, tensor<1x256xf32>) {
  %xq = te.quantize %x : tensor<128x256xbf16>
      -> !te.qtensor<128x256xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
  %a, %b, %c, %d = te.buffers %xq : !te.qtensor<128x256xbf16, #te.block<f8E4M3FN>, rowwise|columnwise>
      -> tensor<128x256xf8E4M3FN>, tensor<2x128xf32>, tensor<256x128xf8E4M3FN>, tensor<1x256xf32>
  return %a, %b, %c, %d : tensor<128x256xf8E4M3FN>, tensor<2x128xf32>, tensor<256x128xf8E4M3FN>, tensor<1x256xf32>
}
