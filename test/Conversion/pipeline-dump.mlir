// te-pipeline --dump-pass-pipeline lists exactly the passes that run, for
// each kind of options: no stage is left out or skipped at run time (the
// pipeline is built from pass objects). te-deallocate and
// te-lower-if-present decide inside what they run (docs/guide/passes.md
// "What the pipeline runs"). The printed pipeline parses back and gives the
// same output: pipeline-replay.mlir.
//
// RUN: te-opt %s --te-pipeline="target=cpu" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: te-opt %s --te-pipeline="target=sm_90" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: te-opt %s --te-pipeline="target=sm_100 lower-to-llvm=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOLLVM
// RUN: te-opt %s --te-pipeline="target=cpu reference=true fuse-accumulate=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWIN
// RUN: te-opt %s --te-pipeline="target=sm_90 share-emulated-operands=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHARE
// RUN: te-opt %s --te-pipeline="target=cpu share-emulated-operands=true" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSHARE
// RUN: te-opt %s --te-pipeline="target=sm_90 fuse-elementwise=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFUSE
// RUN: te-opt %s --te-pipeline="target=cpu fuse-quantize=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFUSEQ
// RUN: te-opt %s --te-pipeline="target=cpu check-shapes=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCHECK
// RUN: te-opt %s --te-pipeline="target=sm_90 raise-attention=false remarks=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NORAISE

// CPU: Pass Manager with 29 passes:
// CPU-NEXT: builtin.module(
// CPU-NEXT: te-set-target{remarks=true target=cpu},
// CPU-NEXT: inline{{.*}},
// CPU-NEXT: convert-elementwise-to-linalg,
// CPU-NEXT: te-raise-attention{remarks=true},
// CPU-NEXT: te-decompose-aggregates{softmax-in-f32=true},
// CPU-NEXT: te-expand-integer-powers,
// CPU-NEXT: te-define-integer-division,
// CPU-NEXT: te-expand-float8-extensions,
// CPU-NEXT: te-infer-shapes,
// CPU-NEXT: te-decompose-linear,
// CPU-NEXT: te-fuse-accumulate,
// CPU-NEXT: te-infer-usages,
// CPU-NEXT: te-eliminate-aliases,
// CPU-NEXT: te-expand-qtensors,
// CPU-NEXT: canonicalize{{.*}},
// CPU-NEXT: te-fuse-elementwise,
// CPU-NEXT: te-fuse-quantize{remarks=true},
// CPU-NEXT: te-check-shapes,
// CPU-NEXT: te-bufferize-boundaries,
// CPU-NEXT: te-constant-globals{alignment=64},
// CPU-NEXT: one-shot-bufferize{allow-return-allocs-from-loops=true {{.*}} bufferize-function-boundaries=true {{.*}} function-boundary-type-conversion=identity-layout-map {{.*}}},
// CPU-NEXT: te-fold-attention-transposes,
// CPU-NEXT: te-deallocate,
// CPU-NEXT: te-expand-reshapes,
// CPU-NEXT: convert-te-to-runtime{device-memory=false},
// CPU-NEXT: te-lower-if-present,
// CPU-NEXT: te-lower-checks,
// CPU-NEXT: convert-to-llvm{{.*}},
// CPU-NEXT: reconcile-unrealized-casts
// CPU-NEXT: )

// SM90: Pass Manager with 42 passes:
// SM90-NEXT: builtin.module(
// SM90-NEXT: te-set-target{remarks=true target=sm_90},
// SM90-NEXT: inline{{.*}},
// SM90-NEXT: convert-elementwise-to-linalg,
// SM90-NEXT: te-raise-attention{remarks=true},
// SM90-NEXT: te-decompose-aggregates{softmax-in-f32=true},
// SM90-NEXT: te-expand-integer-powers,
// SM90-NEXT: te-define-integer-division,
// SM90-NEXT: te-expand-float8-extensions,
// SM90-NEXT: te-split-arg-reductions,
// SM90-NEXT: te-infer-shapes,
// SM90-NEXT: te-decompose-linear,
// SM90-NEXT: te-fuse-accumulate,
// SM90-NEXT: te-infer-usages,
// SM90-NEXT: te-eliminate-aliases,
// SM90-NEXT: te-expand-qtensors,
// SM90-NEXT: canonicalize{{.*}},
// SM90-NEXT: te-fuse-elementwise,
// SM90-NEXT: te-share-emulated-operands,
// SM90-NEXT: te-check-shapes,
// SM90-NEXT: te-bufferize-boundaries,
// SM90-NEXT: te-constant-globals{alignment=64},
// SM90-NEXT: one-shot-bufferize{allow-return-allocs-from-loops=true {{.*}} bufferize-function-boundaries=true {{.*}} function-boundary-type-conversion=identity-layout-map {{.*}}},
// SM90-NEXT: te-fold-attention-transposes,
// SM90-NEXT: te-deallocate,
// SM90-NEXT: te-expand-reshapes,
// SM90-NEXT: convert-bufferization-to-memref,
// SM90-NEXT: te-linalg-to-gpu{remarks=true},
// SM90-NEXT: convert-te-to-runtime{device-memory=true},
// SM90-NEXT: te-linalg-to-gpu{remarks=true},
// SM90-NEXT: gpu-launch-sink-index-computations,
// SM90-NEXT: gpu-kernel-outlining{{.*}},
// SM90-NEXT: te-lower-if-present,
// SM90-NEXT: te-lower-checks,
// SM90-NEXT: nvvm-attach-target{O=3 chip=sm_90 {{.*}} features=+ptx80 {{.*}}},
// SM90-NEXT: gpu.module(
// SM90-NEXT: convert-gpu-to-nvvm{{.*}},
// SM90-NEXT: canonicalize{{.*}},
// SM90-NEXT: cse,
// SM90-NEXT: reconcile-unrealized-casts
// SM90-NEXT: ),
// SM90-NEXT: te-split-entry-blocks{min-ops=1024},
// SM90-NEXT: finalize-memref-to-llvm{{.*}} use-generic-functions=true},
// SM90-NEXT: gpu-to-llvm{{.*}},
// SM90-NEXT: gpu-module-to-binary{format=fatbin {{.*}}},
// SM90-NEXT: te-strip-binary-properties,
// SM90-NEXT: convert-to-llvm{{.*}},
// SM90-NEXT: reconcile-unrealized-casts
// SM90-NEXT: )

// NOLLVM: Pass Manager with 28 passes:
// NOLLVM-NEXT: builtin.module(
// NOLLVM-NEXT: te-set-target{remarks=true target=sm_100},
// NOLLVM-NEXT: inline{{.*}},
// NOLLVM-NEXT: convert-elementwise-to-linalg,
// NOLLVM-NEXT: te-raise-attention{remarks=true},
// NOLLVM-NEXT: te-decompose-aggregates{softmax-in-f32=true},
// NOLLVM-NEXT: te-expand-integer-powers,
// NOLLVM-NEXT: te-define-integer-division,
// NOLLVM-NEXT: te-expand-float8-extensions,
// NOLLVM-NEXT: te-split-arg-reductions,
// NOLLVM-NEXT: te-infer-shapes,
// NOLLVM-NEXT: te-decompose-linear,
// NOLLVM-NEXT: te-fuse-accumulate,
// NOLLVM-NEXT: te-infer-usages,
// NOLLVM-NEXT: te-eliminate-aliases,
// NOLLVM-NEXT: te-expand-qtensors,
// NOLLVM-NEXT: canonicalize{{.*}},
// NOLLVM-NEXT: te-fuse-elementwise,
// NOLLVM-NEXT: te-check-shapes,
// NOLLVM-NEXT: te-bufferize-boundaries,
// NOLLVM-NEXT: te-constant-globals{alignment=64},
// NOLLVM-NEXT: one-shot-bufferize{allow-return-allocs-from-loops=true {{.*}} bufferize-function-boundaries=true {{.*}} function-boundary-type-conversion=identity-layout-map {{.*}}},
// NOLLVM-NEXT: te-fold-attention-transposes,
// NOLLVM-NEXT: te-deallocate,
// NOLLVM-NEXT: te-expand-reshapes,
// NOLLVM-NEXT: convert-bufferization-to-memref,
// NOLLVM-NEXT: te-linalg-to-gpu{remarks=true},
// NOLLVM-NEXT: convert-te-to-runtime{device-memory=true},
// NOLLVM-NEXT: te-linalg-to-gpu{remarks=true}
// NOLLVM-NEXT: )

// TWIN: Pass Manager with 29 passes:
// TWIN-NEXT: builtin.module(
// TWIN-NEXT: te-set-target{remarks=true target=cpu},
// TWIN-NEXT: inline{{.*}},
// TWIN-NEXT: convert-elementwise-to-linalg,
// TWIN-NEXT: te-raise-attention{remarks=true},
// TWIN-NEXT: te-decompose-aggregates{softmax-in-f32=true},
// TWIN-NEXT: te-expand-integer-powers,
// TWIN-NEXT: te-define-integer-division,
// TWIN-NEXT: te-expand-float8-extensions,
// TWIN-NEXT: te-infer-shapes,
// TWIN-NEXT: te-decompose-linear,
// TWIN-NEXT: convert-te-to-reference,
// TWIN-NEXT: te-infer-usages,
// TWIN-NEXT: te-eliminate-aliases,
// TWIN-NEXT: te-expand-qtensors,
// TWIN-NEXT: canonicalize{{.*}},
// TWIN-NEXT: te-fuse-elementwise,
// TWIN-NEXT: te-fuse-quantize{remarks=true},
// TWIN-NEXT: te-check-shapes,
// TWIN-NEXT: te-bufferize-boundaries,
// TWIN-NEXT: te-constant-globals{alignment=64},
// TWIN-NEXT: one-shot-bufferize{allow-return-allocs-from-loops=true {{.*}} bufferize-function-boundaries=true {{.*}} function-boundary-type-conversion=identity-layout-map {{.*}}},
// TWIN-NEXT: te-fold-attention-transposes,
// TWIN-NEXT: te-deallocate,
// TWIN-NEXT: te-expand-reshapes,
// TWIN-NEXT: convert-te-to-runtime{device-memory=false},
// TWIN-NEXT: te-lower-if-present,
// TWIN-NEXT: te-lower-checks,
// TWIN-NEXT: convert-to-llvm{{.*}},
// TWIN-NEXT: reconcile-unrealized-casts
// TWIN-NEXT: )

func.func @f(%w: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  return %w : tensor<64x128xbf16>
}

// te-share-emulated-operands runs after the expansion on sm_90 (SM90 above);
// share-emulated-operands=false leaves it out; the cpu backend computes its
// GEMMs from the quantized buffers, so target=cpu does not run it.
// SHARE: Pass Manager with 41 passes:
// SHARE: te-expand-qtensors,
// SHARE-NEXT: canonicalize{{.*}},
// SHARE-NEXT: te-fuse-elementwise,
// SHARE-NEXT: te-check-shapes,
// NOSHARE: Pass Manager with 29 passes:
// NOSHARE-NOT: te-share-emulated-operands

// fuse-elementwise=false leaves te-fuse-elementwise out (on every target);
// arith / math ops on whole tensors still become linalg.generic ops.
// NOFUSE: Pass Manager with 41 passes:
// NOFUSE: convert-elementwise-to-linalg,
// NOFUSE-NOT: te-fuse-elementwise

// fuse-quantize=false leaves te-fuse-quantize out (on every target).
// NOFUSEQ: Pass Manager with 28 passes:
// NOFUSEQ: te-fuse-elementwise,
// NOFUSEQ-NEXT: te-check-shapes,
// NOFUSEQ-NOT: te-fuse-quantize

// check-shapes=false leaves te-check-shapes out; te-lower-checks still runs
// (it lowers the program's own cf.assert ops).
// NOCHECK: Pass Manager with 28 passes:
// NOCHECK-NOT: te-check-shapes
// NOCHECK: te-lower-checks

// raise-attention=false leaves te-raise-attention out (on every target).
// NORAISE: Pass Manager with 41 passes:
// NORAISE: convert-elementwise-to-linalg,
// NORAISE-NEXT: te-decompose-aggregates
