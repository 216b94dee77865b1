// The buffer forms of te.amax, te.update_scale and te.allreduce_max: they
// round-trip, te-expand-qtensors produces them (into fresh tensors), and
// one-shot bufferization gives them memrefs.
//
// RUN: te-opt %s --split-input-file | te-opt --split-input-file | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: te-opt %s --split-input-file --te-expand-qtensors | FileCheck %s --check-prefix=EXPAND
// RUN: te-opt %s --split-input-file --te-expand-qtensors --one-shot-bufferize=bufferize-function-boundaries | FileCheck %s --check-prefix=BUFFER

// ROUNDTRIP-LABEL: func.func @scaling
// ROUNDTRIP: te.amax %{{.*}} : tensor<32x64xbf16>
// EXPAND-LABEL: func.func @scaling
// EXPAND-SAME: %[[X:[^:]*]]: tensor<32x64xbf16>, %[[H:[^:]*]]: tensor<16xf32>, %[[S:[^:]*]]: tensor<1xf32>
// EXPAND: %[[E:.*]] = tensor.empty() : tensor<1xf32>
// EXPAND: %[[A:.*]] = te.amax_buffers %[[X]] outs(%[[E]] : tensor<1xf32>) : tensor<32x64xbf16> -> tensor<1xf32>
// EXPAND: %[[E2:.*]] = tensor.empty() : tensor<1xf32>
// EXPAND: %[[R:.*]] = te.allreduce_max_buffers %[[A]] group "tp" outs(%[[E2]] : tensor<1xf32>) : tensor<1xf32> -> tensor<1xf32>
// EXPAND: %[[EH:.*]] = tensor.empty() : tensor<16xf32>
// EXPAND: %[[ES:.*]] = tensor.empty() : tensor<1xf32>
// EXPAND: %[[U:.*]]:2 = te.update_scale_buffers %[[R]], %[[H]], %[[S]] quantizer #te.delayed<f8E4M3FN, history = 16> outs(%[[EH]], %[[ES]] : tensor<16xf32>, tensor<1xf32>) : tensor<1xf32>, tensor<16xf32>, tensor<1xf32> -> tensor<16xf32>, tensor<1xf32>
// EXPAND: return %[[U]]#0, %[[U]]#1
// BUFFER-LABEL: func.func @scaling
// BUFFER-SAME: %[[X:[^:]*]]: memref<32x64xbf16{{.*}}>, %[[H:[^:]*]]: memref<16xf32{{.*}}>, %[[S:[^:]*]]: memref<1xf32{{.*}}>
// BUFFER: %[[A:.*]] = memref.alloc() {{.*}}: memref<1xf32>
// BUFFER: te.amax_buffers %[[X]] outs(%[[A]] : memref<1xf32>) : memref<32x64xbf16{{.*}}>
// BUFFER: %[[R:.*]] = memref.alloc() {{.*}}: memref<1xf32>
// BUFFER: te.allreduce_max_buffers %[[A]] group "tp" outs(%[[R]] : memref<1xf32>) : memref<1xf32>
// BUFFER: te.update_scale_buffers %[[R]], %[[H]], %[[S]] quantizer #te.delayed<f8E4M3FN, history = 16> outs(%{{.*}}, %{{.*}} : memref<16xf32>, memref<1xf32>)
func.func @scaling(%x: tensor<32x64xbf16>, %h: tensor<16xf32>, %s: tensor<1xf32>)
    -> (tensor<16xf32>, tensor<1xf32>) {
  %a = te.amax %x : tensor<32x64xbf16>
  %r = te.allreduce_max %a group "tp" : tensor<1xf32>
  %h2, %s2 = te.update_scale %r, %h, %s
      {quantizer = #te.delayed<f8E4M3FN, history = 16>} : tensor<16xf32>
  return %h2, %s2 : tensor<16xf32>, tensor<1xf32>
}

// -----

// The buffer ops themselves round-trip, on tensors and on memrefs.
// ROUNDTRIP-LABEL: func.func @buffer_forms
// ROUNDTRIP: te.amax_buffers %{{.*}} outs(%{{.*}} : tensor<1xf32>) : tensor<8xf16> -> tensor<1xf32>
// ROUNDTRIP: te.update_scale_buffers %{{.*}}, %{{.*}}, %{{.*}} quantizer #te.delayed<f8E5M2, history = 4> outs(%{{.*}}, %{{.*}} : memref<4xf32>, memref<1xf32>) : memref<1xf32>, memref<4xf32>, memref<1xf32>
// ROUNDTRIP: te.allreduce_max_buffers %{{.*}} group "dp" outs(%{{.*}} : memref<3xf32>) : memref<3xf32>
func.func @buffer_forms(%x: tensor<8xf16>, %e: tensor<1xf32>, %a: memref<1xf32>,
                        %h: memref<4xf32>, %s: memref<1xf32>, %v: memref<3xf32>) -> tensor<1xf32> {
  %r = te.amax_buffers %x outs(%e : tensor<1xf32>) : tensor<8xf16> -> tensor<1xf32>
  te.update_scale_buffers %a, %h, %s quantizer #te.delayed<f8E5M2, history = 4>
      outs(%h, %s : memref<4xf32>, memref<1xf32>) : memref<1xf32>, memref<4xf32>, memref<1xf32>
  te.allreduce_max_buffers %v group "dp" outs(%v : memref<3xf32>) : memref<3xf32>
  return %r : tensor<1xf32>
}

// -----

// An unused all-reduce is not dead (the other ranks wait for it).
// EXPAND-LABEL: func.func @unused_allreduce
// EXPAND: te.allreduce_max_buffers
func.func @unused_allreduce(%a: tensor<1xf32>) {
  %r = te.allreduce_max %a group "tp" : tensor<1xf32>
  return
}
