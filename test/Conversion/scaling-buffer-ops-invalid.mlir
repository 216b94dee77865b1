// RUN: te-opt %s --split-input-file --te-expand-qtensors -verify-diagnostics

func.func @amax_int(%x: tensor<8xi32>, %e: tensor<1xf32>) {
  // expected-error @+1 {{input must be bf16, f16 or f32, got 'i32'}}
  %r = te.amax_buffers %x outs(%e : tensor<1xf32>) : tensor<8xi32> -> tensor<1xf32>
  return
}

// -----

func.func @amax_shape(%x: tensor<8xf32>, %e: tensor<2xf32>) {
  // expected-error @+1 {{amax must be 1xf32, got 2xf32}}
  %r = te.amax_buffers %x outs(%e : tensor<2xf32>) : tensor<8xf32> -> tensor<2xf32>
  return
}

// -----

func.func @amax_two_outs(%x: memref<8xf32>, %e: memref<1xf32>) {
  // expected-error @+1 {{writes one amax, got 2 'outs' operands}}
  te.amax_buffers %x outs(%e, %e : memref<1xf32>, memref<1xf32>) : memref<8xf32>
  return
}

// -----

func.func @amax_mixed(%x: tensor<8xf32>, %e: memref<1xf32>) {
  // expected-error @+1 {{mixes tensor and memref operands}}
  te.amax_buffers %x outs(%e : memref<1xf32>) : tensor<8xf32>
  return
}

// -----

func.func @update_history(%a: memref<1xf32>, %h: memref<8xf32>, %s: memref<1xf32>) {
  // expected-error @+1 {{history must be 16xf32 (the quantizer's history), got 8xf32}}
  te.update_scale_buffers %a, %h, %s quantizer #te.delayed<f8E4M3FN, history = 16>
      outs(%h, %s : memref<8xf32>, memref<1xf32>) : memref<1xf32>, memref<8xf32>, memref<1xf32>
  return
}

// -----

func.func @update_new_history(%a: memref<1xf32>, %h: memref<16xf32>, %h2: memref<16xf16>, %s: memref<1xf32>) {
  // expected-error @+1 {{new history must be 16xf32 (the quantizer's history), got 16xf16}}
  te.update_scale_buffers %a, %h, %s quantizer #te.delayed<f8E4M3FN, history = 16>
      outs(%h2, %s : memref<16xf16>, memref<1xf32>) : memref<1xf32>, memref<16xf32>, memref<1xf32>
  return
}

// -----

func.func @update_scale_shape(%a: memref<1xf32>, %h: memref<16xf32>, %s: memref<2xf32>) {
  // expected-error @+1 {{scale must be 1xf32, got 2xf32}}
  te.update_scale_buffers %a, %h, %s quantizer #te.delayed<f8E4M3FN, history = 16>
      outs(%h, %s : memref<16xf32>, memref<2xf32>) : memref<1xf32>, memref<16xf32>, memref<2xf32>
  return
}

// -----

func.func @update_amax_shape(%a: memref<2xf32>, %h: memref<16xf32>, %s: memref<1xf32>) {
  // expected-error @+1 {{amax must be 1xf32, got 2xf32}}
  te.update_scale_buffers %a, %h, %s quantizer #te.delayed<f8E4M3FN, history = 16>
      outs(%h, %s : memref<16xf32>, memref<1xf32>) : memref<2xf32>, memref<16xf32>, memref<1xf32>
  return
}

// -----

func.func @update_one_out(%a: memref<1xf32>, %h: memref<16xf32>, %s: memref<1xf32>) {
  // expected-error @+1 {{writes the new history and the new scale, got 1 'outs' operands}}
  te.update_scale_buffers %a, %h, %s quantizer #te.delayed<f8E4M3FN, history = 16>
      outs(%h : memref<16xf32>) : memref<1xf32>, memref<16xf32>, memref<1xf32>
  return
}

// -----

func.func @update_not_delayed(%a: memref<1xf32>, %h: memref<16xf32>, %s: memref<1xf32>) {
  // expected-error @+1 {{custom op 'te.update_scale_buffers' invalid kind of attribute specified}}
  te.update_scale_buffers %a, %h, %s quantizer #te.current<f8E4M3FN>
      outs(%h, %s : memref<16xf32>, memref<1xf32>) : memref<1xf32>, memref<16xf32>, memref<1xf32>
  return
}

// -----

func.func @allreduce_group(%v: memref<2xf32>) {
  // expected-error @+1 {{needs a non-empty process group name}}
  te.allreduce_max_buffers %v group "" outs(%v : memref<2xf32>) : memref<2xf32>
  return
}

// -----

func.func @allreduce_shape(%v: memref<2xf32>, %w: memref<3xf32>) {
  // expected-error @+1 {{input and output must be f32 of one shape, got 2xf32 and 3xf32}}
  te.allreduce_max_buffers %v group "tp" outs(%w : memref<3xf32>) : memref<2xf32>
  return
}

// -----

func.func @allreduce_two_outs(%v: memref<2xf32>) {
  // expected-error @+1 {{writes one buffer, got 2 'outs' operands}}
  te.allreduce_max_buffers %v group "tp" outs(%v, %v : memref<2xf32>, memref<2xf32>) : memref<2xf32>
  return
}

// -----

func.func @allreduce_results(%v: tensor<2xf32>) {
  // expected-error @+1 {{on tensors returns one result per 'outs' operand: expected 1, got 0}}
  te.allreduce_max_buffers %v group "tp" outs(%v : tensor<2xf32>) : tensor<2xf32>
  return
}

// -----

// te-expand-qtensors allocates with static shapes only.
func.func @dynamic_history(%a: tensor<1xf32>, %h: tensor<?xf32>, %s: tensor<1xf32>) -> (tensor<?xf32>, tensor<1xf32>) {
  // expected-error @+2 {{needs static buffer shapes to allocate the new amax history and scale, got 'tensor<?xf32>' (run te-infer-shapes first)}}
  // expected-error @+1 {{failed to legalize operation 'te.update_scale' that was explicitly marked illegal}}
  %h2, %s2 = te.update_scale %a, %h, %s {quantizer = #te.delayed<f8E4M3FN, history = 16>} : tensor<?xf32>
  return %h2, %s2 : tensor<?xf32>, tensor<1xf32>
}

// -----

func.func @group_delayed(%x: memref<32x64xf32>, %s: memref<1xf32>, %d: memref<32x64xf8E4M3FN>, %si: memref<1xf32>, %a: memref<1xf32>) {
  // expected-error @+1 {{reduces its amax across a group only with current scaling or NVFP4 (not row-scaled); delayed scaling reduces with te.allreduce_max before te.update_scale, block and MX scales are local}}
  te.quantize_buffers %x scale(%s : memref<1xf32>) quantizer #te.delayed<f8E4M3FN> usage rowwise group "tp"
      outs(%d, %si, %a : memref<32x64xf8E4M3FN>, memref<1xf32>, memref<1xf32>) : memref<32x64xf32>
  return
}

// -----

func.func @group_mxfp8(%x: memref<32x64xbf16>, %d: memref<32x64xf8E4M3FN>, %s: memref<128x4xf8E8M0FNU>) {
  // expected-error @+1 {{reduces its amax across a group only with current scaling or NVFP4 (not row-scaled)}}
  te.quantize_buffers %x quantizer #te.mxfp8<f8E4M3FN> usage rowwise group "tp"
      outs(%d, %s : memref<32x64xf8E4M3FN>, memref<128x4xf8E8M0FNU>) : memref<32x64xbf16>
  return
}

// -----

func.func @group_empty(%x: memref<32x64xbf16>, %d: memref<32x64xf8E4M3FN>, %s: memref<1xf32>) {
  // expected-error @+1 {{needs a non-empty process group name}}
  te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise group ""
      outs(%d, %s : memref<32x64xf8E4M3FN>, memref<1xf32>) : memref<32x64xbf16>
  return
}
