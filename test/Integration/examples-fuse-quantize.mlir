// The MLP training step of examples/ (generate.py) with te-fuse-quantize and
// without it (fuse-quantize=false), on the cpu backend: the loss and every
// gradient bit for bit the same, for every recipe, the static examples (two
// microbatches of 128 tokens) and the dynamic-batch ones (one batch of 256).
// What fuses in the step (the remarks): the forward GELU into the second
// layer's input quantization; the loss gradient dY (with its 1/tokens
// scalar) into its E5M2 quantization and dGELU * dY into its own, both also
// writing the value their bias gradient (a column sum) reads.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: te-opt %te_src_root/examples/mlp-train-step-current.mlir --te-pipeline="target=cpu" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARKS
// On GPU targets te-pipeline does not run te-fuse-quantize (the cuda
// backend's producer evaluation is slower than the generated kernels):
// RUN: te-opt %te_src_root/examples/mlp-train-step-dynamic-nvfp4.mlir --te-pipeline="target=sm_90 lower-to-llvm=false" 2>&1 | FileCheck %s --check-prefix=GPU --allow-empty
// GPU-NOT: te-fuse-quantize
// REMARKS: remark: te-fuse-quantize: fused the elementwise producer (1 input: {{.*}}math.tanh{{.*}}) into the quantization{{$}}
// REMARKS: remark: te-fuse-quantize: fused the elementwise producer (3 inputs: {{.*}}) into the quantization; it also writes the value for 1 other reader
// REMARKS: remark: te-fuse-quantize: fused the elementwise producer (2 inputs: {{.*}}math.tanh{{.*}}) into the quantization; it also writes the value for 1 other reader
// REMARKS-NOT: te-fuse-quantize: not fused
//
// RUN: te-run %te_src_root/examples/mlp-train-step-current.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --pipeline-options "fuse-quantize=false" --output-dir %t/current
// RUN: te-run %te_src_root/examples/mlp-train-step-current.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --compare %t/current/result0.npy --exact 0 --compare %t/current/result1.npy --exact 1 --compare %t/current/result2.npy --exact 2 --compare %t/current/result3.npy --exact 3 --compare %t/current/result4.npy --exact 4 | FileCheck %s --check-prefix=SAME5
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-current.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --pipeline-options "fuse-quantize=false" --output-dir %t/dyn-current
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-current.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --compare %t/dyn-current/result0.npy --exact 0 --compare %t/dyn-current/result1.npy --exact 1 --compare %t/dyn-current/result2.npy --exact 2 --compare %t/dyn-current/result3.npy --exact 3 --compare %t/dyn-current/result4.npy --exact 4 | FileCheck %s --check-prefix=SAME5
// RUN: te-run %te_src_root/examples/mlp-train-step-block.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --pipeline-options "fuse-quantize=false" --output-dir %t/block
// RUN: te-run %te_src_root/examples/mlp-train-step-block.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --compare %t/block/result0.npy --exact 0 --compare %t/block/result1.npy --exact 1 --compare %t/block/result2.npy --exact 2 --compare %t/block/result3.npy --exact 3 --compare %t/block/result4.npy --exact 4 | FileCheck %s --check-prefix=SAME5
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-block.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --pipeline-options "fuse-quantize=false" --output-dir %t/dyn-block
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-block.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --compare %t/dyn-block/result0.npy --exact 0 --compare %t/dyn-block/result1.npy --exact 1 --compare %t/dyn-block/result2.npy --exact 2 --compare %t/dyn-block/result3.npy --exact 3 --compare %t/dyn-block/result4.npy --exact 4 | FileCheck %s --check-prefix=SAME5
// RUN: te-run %te_src_root/examples/mlp-train-step-mxfp8.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --pipeline-options "fuse-quantize=false" --output-dir %t/mxfp8
// RUN: te-run %te_src_root/examples/mlp-train-step-mxfp8.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --compare %t/mxfp8/result0.npy --exact 0 --compare %t/mxfp8/result1.npy --exact 1 --compare %t/mxfp8/result2.npy --exact 2 --compare %t/mxfp8/result3.npy --exact 3 --compare %t/mxfp8/result4.npy --exact 4 | FileCheck %s --check-prefix=SAME5
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-mxfp8.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --pipeline-options "fuse-quantize=false" --output-dir %t/dyn-mxfp8
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-mxfp8.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --compare %t/dyn-mxfp8/result0.npy --exact 0 --compare %t/dyn-mxfp8/result1.npy --exact 1 --compare %t/dyn-mxfp8/result2.npy --exact 2 --compare %t/dyn-mxfp8/result3.npy --exact 3 --compare %t/dyn-mxfp8/result4.npy --exact 4 | FileCheck %s --check-prefix=SAME5
// RUN: te-run %te_src_root/examples/mlp-train-step-nvfp4.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --pipeline-options "fuse-quantize=false" --output-dir %t/nvfp4
// RUN: te-run %te_src_root/examples/mlp-train-step-nvfp4.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --compare %t/nvfp4/result0.npy --exact 0 --compare %t/nvfp4/result1.npy --exact 1 --compare %t/nvfp4/result2.npy --exact 2 --compare %t/nvfp4/result3.npy --exact 3 --compare %t/nvfp4/result4.npy --exact 4 | FileCheck %s --check-prefix=SAME5
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-nvfp4.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --pipeline-options "fuse-quantize=false" --output-dir %t/dyn-nvfp4
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-nvfp4.mlir --entry train_step --seed 3 --dynamic-dim 256 --quiet --compare %t/dyn-nvfp4/result0.npy --exact 0 --compare %t/dyn-nvfp4/result1.npy --exact 1 --compare %t/dyn-nvfp4/result2.npy --exact 2 --compare %t/dyn-nvfp4/result3.npy --exact 3 --compare %t/dyn-nvfp4/result4.npy --exact 4 | FileCheck %s --check-prefix=SAME5
// RUN: te-run %te_src_root/examples/mlp-train-step-delayed.mlir --entry train_step --seed 3 --dynamic-dim 256 --fill 6=1 --fill 7=0 --quiet --pipeline-options "fuse-quantize=false" --output-dir %t/delayed
// RUN: te-run %te_src_root/examples/mlp-train-step-delayed.mlir --entry train_step --seed 3 --dynamic-dim 256 --fill 6=1 --fill 7=0 --quiet --compare %t/delayed/result0.npy --exact 0 --compare %t/delayed/result1.npy --exact 1 --compare %t/delayed/result2.npy --exact 2 --compare %t/delayed/result3.npy --exact 3 --compare %t/delayed/result4.npy --exact 4 --compare %t/delayed/result5.npy --exact 5 --compare %t/delayed/result6.npy --exact 6 | FileCheck %s --check-prefix=SAME7
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-delayed.mlir --entry train_step --seed 3 --dynamic-dim 256 --fill 6=1 --fill 7=0 --quiet --pipeline-options "fuse-quantize=false" --output-dir %t/dyn-delayed
// RUN: te-run %te_src_root/examples/mlp-train-step-dynamic-delayed.mlir --entry train_step --seed 3 --dynamic-dim 256 --fill 6=1 --fill 7=0 --quiet --compare %t/dyn-delayed/result0.npy --exact 0 --compare %t/dyn-delayed/result1.npy --exact 1 --compare %t/dyn-delayed/result2.npy --exact 2 --compare %t/dyn-delayed/result3.npy --exact 3 --compare %t/dyn-delayed/result4.npy --exact 4 --compare %t/dyn-delayed/result5.npy --exact 5 --compare %t/dyn-delayed/result6.npy --exact 6 | FileCheck %s --check-prefix=SAME7
//
// SAME5-COUNT-5: : PASS vs
// SAME5-NOT: FAIL
// SAME7-COUNT-7: : PASS vs
// SAME7-NOT: FAIL
