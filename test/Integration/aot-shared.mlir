// Ahead of time into a shared library: scripts/te-aot.sh compile OUT.so, run
// by the built driver te-aot-run, which opens it (te_call.h) and takes the
// entry's signature and target from it (no .sig needed). Its results must
// equal the JIT's bit for bit. Also: every option as --opt=value, a
// signature file that disagrees with the library, an entry it lacks, a
// library that does not exist, and the progress line of --repeat on a
// terminal (script(1) gives the driver one) but not on a pipe.
//
// RUN: rm -rf %t && mkdir -p %t/jit
// RUN: env TE_BUILD_DIR=%te_lib_dir/.. %te_src_root/scripts/te-aot.sh compile %s %t/prog.so --entry scale --target cpu | FileCheck %s --check-prefix=COMPILE
// RUN: te-run %s --entry=scale --seed=5 --output-dir=%t/jit --quiet
// RUN: te-aot-run %t/prog.so --entry=scale --seed=5 --exact=0 --compare=%t/jit/result0.npy | FileCheck %s
// RUN: te-aot-run %t/prog.so --entry scale --seed 5 --signature-file %t/prog.sig --exact 0 --compare %t/jit/result0.npy | FileCheck %s
// RUN: printf 'f32[8,16] -> f32[8,16]\ntarget cpu\n' > %t/wrong.sig
// RUN: not te-aot-run %t/prog.so --entry scale --signature-file %t/wrong.sig 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: not te-aot-run %t/prog.so --entry nope 2>&1 | FileCheck %s --check-prefix=NOENTRY
// RUN: not te-aot-run %t/none.so 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: te-aot-run %t/prog.so --entry scale --repeat 3 --quiet 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: script -qec "te-aot-run %t/prog.so --entry scale --repeat=3000 --quiet" /dev/null | FileCheck %s --check-prefix=TTY
// RUN: script -qec "te-run %s --entry scale --repeat=3000 --quiet" /dev/null | FileCheck %s --check-prefix=TTYJIT
//
// COMPILE: te-aot.sh: wrote {{.*}}prog.so and {{.*}}prog.sig (f32[512,512], f32 -> f32[512,512]; target cpu; shape checks
// CHECK: result 0: PASS
// WRONG: te-aot-run: error: the signature file gives @scale as 'f32[8,16] -> f32[8,16]', but the object was compiled for 'f32[512,512], f32 -> f32[512,512]'
// NOENTRY: te-aot-run: the program has no entry @nope (no _te_packed_nope; compiled with --entry nope?)
// NOFILE: te-aot-run: cannot load the program {{.*}}none.so
// PIPE-NOT: call 3/3
// PIPE: timing: step_ms
// TTY: te-aot-run: call 3000/3000
// TTYJIT: te-run: call 3000/3000

func.func @scale(%x: tensor<512x512xf32>, %s: f32) -> tensor<512x512xf32> {
  %sc = tensor.splat %s : tensor<512x512xf32>
  %y = arith.mulf %x, %sc : tensor<512x512xf32>
  return %y : tensor<512x512xf32>
}
