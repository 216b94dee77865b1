// The training-step examples (examples/*.mlir) through te-decompose-linear,
// te-eliminate-aliases, te-expand-qtensors and one-shot bufferization: each
// weight is quantized exactly once per step, before the microbatch loop,
// straight from the weight argument's buffer, and no buffer is copied.
//
// RUN: te-opt %te_src_root/examples/mlp-train-step-current.mlir --te-decompose-linear --te-eliminate-aliases --te-expand-qtensors --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --implicit-check-not=memref.copy --implicit-check-not=bufferization.clone
// RUN: te-opt %te_src_root/examples/mlp-train-step-block.mlir --te-decompose-linear --te-eliminate-aliases --te-expand-qtensors --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --implicit-check-not=memref.copy --implicit-check-not=bufferization.clone
// RUN: te-opt %te_src_root/examples/mlp-train-step-mxfp8.mlir --te-decompose-linear --te-eliminate-aliases --te-expand-qtensors --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --implicit-check-not=memref.copy --implicit-check-not=bufferization.clone
// RUN: te-opt %te_src_root/examples/mlp-train-step-nvfp4.mlir --te-decompose-linear --te-eliminate-aliases --te-expand-qtensors --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --implicit-check-not=memref.copy --implicit-check-not=bufferization.clone
//
// Delayed scaling: the only copies are those of te.update_scale's results
// (the new scales and amax histories) into the packed state, after the loop
// -- never a weight buffer.
// RUN: te-opt %te_src_root/examples/mlp-train-step-delayed.mlir --te-decompose-linear --te-eliminate-aliases --te-expand-qtensors --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefixes=CHECK,DELAYED --implicit-check-not=bufferization.clone
//
// Idempotence of the two passes on every example.
// RUN: for r in current block mxfp8 nvfp4 delayed; do \
// RUN:   te-opt %te_src_root/examples/mlp-train-step-$r.mlir --te-decompose-linear --te-eliminate-aliases > %t.once.mlir && \
// RUN:   te-opt %t.once.mlir --te-decompose-linear --te-eliminate-aliases > %t.twice.mlir && \
// RUN:   diff %t.once.mlir %t.twice.mlir || exit 1; done

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[W1:[^:]*]]: memref<1024x256xbf16
// CHECK-SAME: %[[W2:[^:]*]]: memref<256x1024xbf16
// CHECK: te.quantize_buffers %[[W1]] {{.*}}usage rowwise|columnwise outs(
// CHECK: te.quantize_buffers %[[W2]] {{.*}}usage rowwise|columnwise outs(
// CHECK: scf.for
// Inside the loop: the microbatch input, the GELU output and the two
// gradients are quantized; the weights are not.
// CHECK-COUNT-4: te.quantize_buffers
// CHECK-NOT: te.quantize_buffers
// CHECK: scf.yield
// DELAYED-COUNT-12: memref.copy {{.*}} : memref<{{1|1024}}xf32> to memref<{{1|1024}}xf32, strided<[1]{{.*}}>>
// CHECK: return
