// RUN: te-opt %s -split-input-file -verify-diagnostics

// Every diagnostic of te.attention, te.attention_grad, te.attention_buffers
// and te.attention_grad_buffers, one per split.

// Operands that are not tensors.
func.func @f(%q: memref<4x8x64xbf16>) {
  // expected-error @+1 {{custom op 'te.attention' invalid kind of type specified: expected builtin.tensor, but found 'memref<4x8x64xbf16>'}}
  %o, %l = te.attention %q, %q, %q : memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8x64xbf16>
  return
}

// -----

// A query of rank 0: the result types cannot be inferred; the verifier's
// words.
func.func @f(%q: tensor<bf16>, %k: tensor<4x8x64xbf16>) {
  // expected-error @+1 {{'te.attention' op query must be 3-D [N, L, E] or 4-D [B, H, L, E], got rank 0}}
  %o, %l = te.attention %q, %k, %k : tensor<bf16>, tensor<4x8x64xbf16>, tensor<4x8x64xbf16>
  return
}

// -----

// A value of rank 0.
func.func @f(%q: tensor<4x8x64xbf16>, %v: tensor<bf16>) {
  // expected-error @+1 {{'te.attention' op query, key and value must have one rank, got 3, 3, 0}}
  %o, %l = te.attention %q, %q, %v : tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<bf16>
  return
}

// -----

func.func @f(%q: tensor<8x64xbf16>) {
  // expected-error @+1 {{'te.attention' op query must be 3-D [N, L, E] or 4-D [B, H, L, E], got rank 2}}
  %o, %l = te.attention %q, %q, %q : tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8x64xbf16>
  return
}

// -----

func.func @f(%q: tensor<4x8x64xbf16>, %k: tensor<1x4x8x64xbf16>) {
  // expected-error @+1 {{'te.attention' op query, key and value must have one rank, got 3, 4, 3}}
  %o, %l = te.attention %q, %k, %q : tensor<4x8x64xbf16>, tensor<1x4x8x64xbf16>, tensor<4x8x64xbf16>
  return
}

// -----

func.func @f(%q: tensor<4x8x64xbf16>, %k: tensor<4x8x64xf16>) {
  // expected-error @+1 {{'te.attention' op query, key and value must have one element type, got 'bf16', 'f16', 'bf16'}}
  %o, %l = te.attention %q, %k, %q : tensor<4x8x64xbf16>, tensor<4x8x64xf16>, tensor<4x8x64xbf16>
  return
}

// -----

func.func @f(%q: tensor<4x8x64xi8>) {
  // expected-error @+1 {{'te.attention' op operand #0 must be ranked tensor of bfloat16 type or 16-bit float or 32-bit float values, but got 'tensor<4x8x64xi8>'}}
  %o, %l = te.attention %q, %q, %q : tensor<4x8x64xi8>, tensor<4x8x64xi8>, tensor<4x8x64xi8>
  return
}

// -----

func.func @f(%q: tensor<2x4x8x64xbf16>, %k: tensor<3x4x8x64xbf16>) {
  // expected-error @+1 {{'te.attention' op batch dimension 0 differs: query 2, key 3, value 2}}
  %o, %l = te.attention %q, %k, %q : tensor<2x4x8x64xbf16>, tensor<3x4x8x64xbf16>, tensor<2x4x8x64xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x4x8x64xbf16>, %k: tensor<2x2x8x64xbf16>, %v: tensor<2x4x8x64xbf16>) {
  // expected-error @+1 {{'te.attention' op key and value must have the same number of heads, got 2 and 4}}
  %o, %l = te.attention %q, %k, %v : tensor<2x4x8x64xbf16>, tensor<2x2x8x64xbf16>, tensor<2x4x8x64xbf16>
  return
}

// -----

// Grouped-query heads in 3-D: N plays the heads.
func.func @f(%q: tensor<8x16x64xbf16>, %k: tensor<3x16x64xbf16>) {
  // expected-error @+1 {{'te.attention' op the query's heads (8) must be a multiple of the key's and value's (3) for grouped-query attention}}
  %o, %l = te.attention %q, %k, %k : tensor<8x16x64xbf16>, tensor<3x16x64xbf16>, tensor<3x16x64xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x4x8x64xbf16>, %k: tensor<2x4x8x32xbf16>) {
  // expected-error @+1 {{'te.attention' op query and key must have one head size E, got 64 and 32}}
  %o, %l = te.attention %q, %k, %k : tensor<2x4x8x64xbf16>, tensor<2x4x8x32xbf16>, tensor<2x4x8x32xbf16>
  return
}

// -----

func.func @f(%q: tensor<4x8x64xbf16>, %k: tensor<4x17x64xbf16>, %v: tensor<4x16x64xbf16>) {
  // expected-error @+1 {{'te.attention' op key and value must have one sequence length S, got 17 and 16}}
  %o, %l = te.attention %q, %k, %v : tensor<4x8x64xbf16>, tensor<4x17x64xbf16>, tensor<4x16x64xbf16>
  return
}

// -----

func.func @f(%q: tensor<2x4x8x64xbf16>, %m: tensor<4x8x8xbf16>) {
  // expected-error @+1 {{'te.attention' op the mask must have the query's rank 4, got 3}}
  %o, %l = te.attention %q, %q, %q mask %m : tensor<2x4x8x64xbf16>, tensor<2x4x8x64xbf16>, tensor<2x4x8x64xbf16>, tensor<4x8x8xbf16>
  return
}

// -----

func.func @f(%q: tensor<4x8x64xbf16>, %m: tensor<1x8x8xf16>) {
  // expected-error @+1 {{'te.attention' op an additive mask must have the query's element type or f32, got 'f16'}}
  %o, %l = te.attention %q, %q, %q mask %m : tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<1x8x8xf16>
  return
}

// -----

func.func @f(%q: tensor<4x8x64xbf16>, %m: tensor<1x8x8xi8>) {
  // expected-error @+1 {{'te.attention' op operand #3 must be ranked tensor of bfloat16 type or 16-bit float or 32-bit float or 1-bit signless integer values, but got 'tensor<1x8x8xi8>'}}
  %o, %l = te.attention %q, %q, %q mask %m : tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<1x8x8xi8>
  return
}

// -----

// A leading mask dimension neither the full size nor 1.
func.func @f(%q: tensor<2x8x16x64xbf16>, %m: tensor<2x4x16x16xi1>) {
  // expected-error @+1 {{'te.attention' op mask dimension 1 is 4, expected 8 or 1 (the mask broadcasts to [..., L, S])}}
  %o, %l = te.attention %q, %q, %q mask %m : tensor<2x8x16x64xbf16>, tensor<2x8x16x64xbf16>, tensor<2x8x16x64xbf16>, tensor<2x4x16x16xi1>
  return
}

// -----

// The key dimension S does not broadcast.
func.func @f(%q: tensor<4x16x64xbf16>, %k: tensor<4x17x64xbf16>, %m: tensor<1x16x1xi1>) {
  // expected-error @+1 {{'te.attention' op mask dimension 2 is 1, expected 17 (the mask broadcasts to [..., L, S])}}
  %o, %l = te.attention %q, %k, %k mask %m : tensor<4x16x64xbf16>, tensor<4x17x64xbf16>, tensor<4x17x64xbf16>, tensor<1x16x1xi1>
  return
}

// -----

func.func @f(%q: tensor<4x8x64xbf16>) {
  // expected-error @+1 {{'te.attention' op scale must be finite, got INF}}
  %o, %l = te.attention %q, %q, %q {scale = 0x7F800000 : f32} : tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<4x8x64xbf16>
  return
}

// -----

// The default scale 1/sqrt(E) needs E.
func.func @f(%q: tensor<4x8x?xbf16>) {
  // expected-error @+1 {{'te.attention' op without 'scale' the head size E must be static and nonzero (the default scale is 1/sqrt(E)), got ?}}
  %o, %l = te.attention %q, %q, %q : tensor<4x8x?xbf16>, tensor<4x8x?xbf16>, tensor<4x8x?xbf16>
  return
}

// -----

func.func @f(%q: tensor<4x8x0xbf16>) {
  // expected-error @+1 {{'te.attention' op without 'scale' the head size E must be static and nonzero (the default scale is 1/sqrt(E)), got 0}}
  %o, %l = te.attention %q, %q, %q : tensor<4x8x0xbf16>, tensor<4x8x0xbf16>, tensor<4x8x0xbf16>
  return
}

// -----

// Result types other than the inferred ones (generic form).
func.func @f(%q: tensor<4x8x64xbf16>) {
  // expected-error @+2 {{'te.attention' op inferred type(s) 'tensor<4x8x64xbf16>', 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x8x64xbf16>', 'tensor<4x9xf32>'}}
  // expected-error @+1 {{'te.attention' op failed to infer returned types}}
  %o:2 = "te.attention"(%q, %q, %q) : (tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<4x8x64xbf16>) -> (tensor<4x8x64xbf16>, tensor<4x9xf32>)
  return
}

// -----

// attention_grad: the forward's shape rules apply.
func.func @f(%q: tensor<4x8x64xbf16>, %k: tensor<4x8x32xbf16>, %o: tensor<4x8x64xbf16>, %l: tensor<4x8xf32>) {
  // expected-error @+1 {{'te.attention_grad' op query and key must have one head size E, got 64 and 32}}
  %g:3 = te.attention_grad %q, %k, %q, %o, %l, %o : tensor<4x8x64xbf16>, tensor<4x8x32xbf16>, tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<4x8xf32>, tensor<4x8x64xbf16>
  return
}

// -----

func.func @f(%q: tensor<4x8x64xbf16>, %v: tensor<4x8x32xbf16>, %o: tensor<4x8x64xbf16>, %l: tensor<4x8xf32>, %do: tensor<4x8x32xbf16>) {
  // expected-error @+1 {{'te.attention_grad' op output (the forward's) must be 4x8x32xbf16, got 4x8x64xbf16}}
  %g:3 = te.attention_grad %q, %q, %v, %o, %l, %do : tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<4x8x32xbf16>, tensor<4x8x64xbf16>, tensor<4x8xf32>, tensor<4x8x32xbf16>
  return
}

// -----

func.func @f(%q: tensor<4x8x64xbf16>, %l: tensor<4x8xf32>, %do: tensor<4x8x64xf16>) {
  // expected-error @+1 {{'te.attention_grad' op grad_output must be 4x8x64xbf16, got 4x8x64xf16}}
  %g:3 = te.attention_grad %q, %q, %q, %q, %l, %do : tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<4x8xf32>, tensor<4x8x64xf16>
  return
}

// -----

func.func @f(%q: tensor<4x8x64xbf16>, %l: tensor<4x8x1xf32>) {
  // expected-error @+1 {{'te.attention_grad' op lse (the forward's) must be 4x8xf32, got 4x8x1xf32}}
  %g:3 = te.attention_grad %q, %q, %q, %q, %l, %q : tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<4x8x1xf32>, tensor<4x8x64xbf16>
  return
}

// -----

func.func @f(%q: tensor<4x8x?xbf16>, %l: tensor<4x8xf32>) {
  // expected-error @+1 {{'te.attention_grad' op without 'scale' the head size E must be static and nonzero (the default scale is 1/sqrt(E)), got ?}}
  %g:3 = te.attention_grad %q, %q, %q, %q, %l, %q : tensor<4x8x?xbf16>, tensor<4x8x?xbf16>, tensor<4x8x?xbf16>, tensor<4x8x?xbf16>, tensor<4x8xf32>, tensor<4x8x?xbf16>
  return
}

// -----

// attention_buffers: an output and at most the lse.
func.func @f(%q: memref<4x8x64xbf16>, %l: memref<4x8xf32>) {
  // expected-error @+1 {{'te.attention_buffers' op writes the output and optionally the lse, got 3 'outs' operands}}
  te.attention_buffers %q, %q, %q {scale = 1.0 : f32} outs(%q, %l, %l : memref<4x8x64xbf16>, memref<4x8xf32>, memref<4x8xf32>) : memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8x64xbf16>
  return
}

// -----

func.func @f(%q: memref<*xbf16>, %o: memref<4x8x64xbf16>) {
  // expected-error @+1 {{'te.attention_buffers' op query must be ranked, got 'memref<*xbf16>'}}
  te.attention_buffers %q, %o, %o {scale = 1.0 : f32} outs(%o : memref<4x8x64xbf16>) : memref<*xbf16>, memref<4x8x64xbf16>, memref<4x8x64xbf16>
  return
}

// -----

func.func @f(%q: memref<4x8x64xbf16>, %v: memref<4x8x32xbf16>) {
  // expected-error @+1 {{'te.attention_buffers' op output must be 4x8x32xbf16, got 4x8x64xbf16}}
  te.attention_buffers %q, %q, %v {scale = 1.0 : f32} outs(%q : memref<4x8x64xbf16>) : memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8x32xbf16>
  return
}

// -----

func.func @f(%q: memref<4x8x64xbf16>, %o: memref<4x8x64xbf16>, %l: memref<4x8xbf16>) {
  // expected-error @+1 {{'te.attention_buffers' op lse must be 4x8xf32, got 4x8xbf16}}
  te.attention_buffers %q, %q, %q {scale = 1.0 : f32} outs(%o, %l : memref<4x8x64xbf16>, memref<4x8xbf16>) : memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8x64xbf16>
  return
}

// -----

// The shape rules of te.attention.
func.func @f(%q: memref<4x8x64xbf16>, %m: memref<4x8xi1>) {
  // expected-error @+1 {{'te.attention_buffers' op the mask must have the query's rank 3, got 2}}
  te.attention_buffers %q, %q, %q mask %m {scale = 1.0 : f32} outs(%q : memref<4x8x64xbf16>) : memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8xi1>
  return
}

// -----

func.func @f(%q: memref<4x8x64xbf16>) {
  // expected-error @+1 {{'te.attention_buffers' op scale must be finite, got nan}}
  te.attention_buffers %q, %q, %q {scale = 0x7FC00000 : f32} outs(%q : memref<4x8x64xbf16>) : memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8x64xbf16>
  return
}

// -----

func.func @f(%q: memref<4x8x64xbf16>) {
  // expected-error @+1 {{'te.attention_buffers' op requires attribute 'scale'}}
  te.attention_buffers %q, %q, %q outs(%q : memref<4x8x64xbf16>) : memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8x64xbf16>
  return
}

// -----

func.func @f(%q: tensor<4x8x64xbf16>, %o: memref<4x8x64xbf16>) {
  // expected-error @+1 {{'te.attention_buffers' op mixes tensor and memref operands: all buffers are tensors (before bufferization) or all are memrefs (after)}}
  te.attention_buffers %q, %q, %q {scale = 1.0 : f32} outs(%o : memref<4x8x64xbf16>) : tensor<4x8x64xbf16>, tensor<4x8x64xbf16>, tensor<4x8x64xbf16>
  return
}

// -----

func.func @f(%q: memref<4x8x64xbf16>, %l: memref<4x8xf32>) {
  // expected-error @+1 {{'te.attention_grad_buffers' op writes the gradients of the query, key and value, got 2 'outs' operands}}
  te.attention_grad_buffers %q, %q, %q, %q, %l, %q {scale = 1.0 : f32} outs(%q, %q : memref<4x8x64xbf16>, memref<4x8x64xbf16>) : memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8xf32>, memref<4x8x64xbf16>
  return
}

// -----

func.func @f(%q: memref<4x8x64xbf16>, %k: memref<2x8x64xbf16>, %l: memref<4x8xf32>) {
  // expected-error @+1 {{'te.attention_grad_buffers' op grad_key must be 2x8x64xbf16, got 4x8x64xbf16}}
  te.attention_grad_buffers %q, %k, %k, %q, %l, %q {scale = 1.0 : f32} outs(%q, %q, %k : memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<2x8x64xbf16>) : memref<4x8x64xbf16>, memref<2x8x64xbf16>, memref<2x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8xf32>, memref<4x8x64xbf16>
  return
}

// -----

func.func @f(%q: memref<4x8x64xbf16>, %l2: memref<4x9xf32>) {
  // expected-error @+1 {{'te.attention_grad_buffers' op lse (the forward's) must be 4x8xf32, got 4x9xf32}}
  te.attention_grad_buffers %q, %q, %q, %q, %l2, %q {scale = 1.0 : f32} outs(%q, %q, %q : memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8x64xbf16>) : memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x8x64xbf16>, memref<4x9xf32>, memref<4x8x64xbf16>
  return
}
