// The examples' dynamic-batch variants (examples/mlp-train-step-dynamic-
// <recipe>.mlir, generate.py): the whole `tensor<?x256xbf16>` batch is one
// step, not sliced into static microbatches, so every quantized tensor has
// a dynamic leading dimension sized at run time. With 128 tokens (one
// microbatch of the static examples) every result is bit-identical to the
// static example's, in every recipe; with 256 tokens the step runs as one
// batch of 256; and the same programs compile for sm_90.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: te-run %te_src_root/examples/mlp-train-step-current.mlir --entry train_step --seed 1 --dynamic-dim 128 --quiet --output-dir %t/current
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-current.mlir --entry train_step --seed 1 --dynamic-dim 128 --quiet --compare %t/current/result0.npy --exact 0 --compare %t/current/result1.npy --exact 1 --compare %t/current/result2.npy --exact 2 --compare %t/current/result3.npy --exact 3 --compare %t/current/result4.npy --exact 4 | FileCheck %s --check-prefix=SAME5
// RUN: te-run %te_src_root/examples/mlp-train-step-block.mlir --entry train_step --seed 1 --dynamic-dim 128 --quiet --output-dir %t/block
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-block.mlir --entry train_step --seed 1 --dynamic-dim 128 --quiet --compare %t/block/result0.npy --exact 0 --compare %t/block/result1.npy --exact 1 --compare %t/block/result2.npy --exact 2 --compare %t/block/result3.npy --exact 3 --compare %t/block/result4.npy --exact 4 | FileCheck %s --check-prefix=SAME5
// RUN: te-run %te_src_root/examples/mlp-train-step-mxfp8.mlir --entry train_step --seed 1 --dynamic-dim 128 --quiet --output-dir %t/mxfp8
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-mxfp8.mlir --entry train_step --seed 1 --dynamic-dim 128 --quiet --compare %t/mxfp8/result0.npy --exact 0 --compare %t/mxfp8/result1.npy --exact 1 --compare %t/mxfp8/result2.npy --exact 2 --compare %t/mxfp8/result3.npy --exact 3 --compare %t/mxfp8/result4.npy --exact 4 | FileCheck %s --check-prefix=SAME5
// RUN: te-run %te_src_root/examples/mlp-train-step-nvfp4.mlir --entry train_step --seed 1 --dynamic-dim 128 --quiet --output-dir %t/nvfp4
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-nvfp4.mlir --entry train_step --seed 1 --dynamic-dim 128 --quiet --compare %t/nvfp4/result0.npy --exact 0 --compare %t/nvfp4/result1.npy --exact 1 --compare %t/nvfp4/result2.npy --exact 2 --compare %t/nvfp4/result3.npy --exact 3 --compare %t/nvfp4/result4.npy --exact 4 | FileCheck %s --check-prefix=SAME5
// RUN: te-run %te_src_root/examples/mlp-train-step-delayed.mlir --entry train_step --seed 1 --dynamic-dim 128 --fill 6=1 --fill 7=0 --quiet --output-dir %t/delayed
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-delayed.mlir --entry train_step --seed 1 --dynamic-dim 128 --fill 6=1 --fill 7=0 --quiet --compare %t/delayed/result0.npy --exact 0 --compare %t/delayed/result1.npy --exact 1 --compare %t/delayed/result2.npy --exact 2 --compare %t/delayed/result3.npy --exact 3 --compare %t/delayed/result4.npy --exact 4 --compare %t/delayed/result5.npy --exact 5 --compare %t/delayed/result6.npy --exact 6 | FileCheck %s --check-prefix=SAME7
//
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-mxfp8.mlir --entry train_step --seed 1 --dynamic-dim 256 2>/dev/null | FileCheck %s --check-prefix=BATCH
// RUN: te-opt %te_src_root/examples/mlp-train-step-dynamic-current.mlir --te-pipeline="target=sm_90 remarks=false lower-to-llvm=false" | FileCheck %s --check-prefix=GPU
//
// SAME5-COUNT-5: : PASS vs
// SAME5-NOT: FAIL
// SAME7-COUNT-7: : PASS vs
// SAME7-NOT: FAIL
// BATCH: result 1: f32[1024,256]
// GPU: func.func @train_step
// GPU: call @te_rt_mlir_quantize
// GPU: gpu.launch
