// te-fuse-quantize: elementwise producers computed inside the quantization
// of their result. One case per form the pass fuses; the ones it leaves
// alone, with their remarks, are in fuse-quantize-not-fused.mlir.
//
// RUN: te-opt %s --te-fuse-quantize --split-input-file -verify-diagnostics | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Bias add + GELU (tanh approximation): two inputs, the bias broadcast along
// the rows; the constants defined outside the body move into it; the bf16
// tensor nobody else reads is not written.
// CHECK-LABEL: func.func @bias_gelu_tanh
// CHECK-SAME: (%[[H:.*]]: tensor<32x64xbf16>, %[[B:.*]]: tensor<64xbf16>)
// CHECK-NOT: linalg.generic
// CHECK: %[[Q:.*]]:3 = te.quantize_produced_buffers ins(%[[H]], %[[B]] : tensor<32x64xbf16>, tensor<64xbf16>)
// CHECK-SAME: maps [#{{.*}}, #{{.*}}] value tensor<32x64xbf16>
// CHECK-SAME: quantizer #te.current<f8E4M3FN> usage rowwise|columnwise
// CHECK-SAME: outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: bf16, %[[BB:.*]]: bf16):
// CHECK-DAG: arith.constant 5.000000e-01 : f32
// CHECK-DAG: arith.constant 0.797884583 : f32
// CHECK: %[[XF:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK: %[[BF:.*]] = arith.extf %[[BB]] : bf16 to f32
// CHECK: arith.addf %[[XF]], %[[BF]] : f32
// CHECK: math.tanh
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: te.produce %[[R]] : bf16
// CHECK-NEXT: } -> tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
// CHECK: return %[[Q]]#0, %[[Q]]#1, %[[Q]]#2
func.func @bias_gelu_tanh(%h: tensor<32x64xbf16>, %b: tensor<64xbf16>)
    -> (tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>) {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %k = arith.constant 0.797884583 : f32
  %c = arith.constant 0.044715 : f32
  %init = tensor.empty() : tensor<32x64xbf16>
  %a = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b : tensor<32x64xbf16>, tensor<64xbf16>) outs(%init : tensor<32x64xbf16>) {
  ^bb0(%in: bf16, %bias: bf16, %out: bf16):
    %xf = arith.extf %in : bf16 to f32
    %bf = arith.extf %bias : bf16 to f32
    %x = arith.addf %xf, %bf : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %cx3 = arith.mulf %c, %x3 : f32
    %s = arith.addf %x, %cx3 : f32
    %u = arith.mulf %k, %s : f32
    %t = math.tanh %u : f32
    %opt = arith.addf %one, %t : f32
    %hx = arith.mulf %half, %x : f32
    %g = arith.mulf %hx, %opt : f32
    %r = arith.truncf %g : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x64xbf16>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<64x32xf8E4M3FN>
  %e2 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: fused the elementwise producer (2 inputs: arith.extf, arith.addf, arith.mulf, math.tanh, arith.truncf) into the quantization}}
  %q:3 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise|columnwise
      outs(%e0, %e1, %e2 : tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1, %q#2 : tensor<32x64xf8E4M3FN>, tensor<64x32xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// GELU (erf) in f32 into MXFP8.
// CHECK-LABEL: func.func @gelu_erf
// CHECK: te.quantize_produced_buffers ins(%{{.*}} : tensor<32x64xf32>)
// CHECK-SAME: value tensor<32x64xf32> quantizer #te.mxfp8<f8E4M3FN> usage rowwise
// CHECK: math.erf
// CHECK: te.produce %{{.*}} : f32
func.func @gelu_erf(%h: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) {
  %init = tensor.empty() : tensor<32x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%x: f32, %out: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rs2 = arith.constant 0.707106769 : f32
    %u = arith.mulf %x, %rs2 : f32
    %e = math.erf %u : f32
    %p = arith.addf %e, %one : f32
    %hx = arith.mulf %x, %half : f32
    %g = arith.mulf %hx, %p : f32
    linalg.yield %g : f32
  } -> tensor<32x64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<128x4xf8E8M0FNU>
  // expected-remark @below {{te-fuse-quantize: fused the elementwise producer (1 input: arith.mulf, math.erf, arith.addf) into the quantization}}
  %q:2 = te.quantize_buffers %a quantizer #te.mxfp8<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// SiLU, x * sigmoid(x) = x / (1 + exp(-x)), into 1x128 blocks.
// CHECK-LABEL: func.func @silu
// CHECK: te.quantize_produced_buffers
// CHECK-SAME: quantizer #te.block<f8E4M3FN> usage rowwise
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.divf
func.func @silu(%h: tensor<16x128xbf16>) -> (tensor<16x128xf8E4M3FN>, tensor<1x16xf32>) {
  %init = tensor.empty() : tensor<16x128xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<16x128xbf16>) outs(%init : tensor<16x128xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %one = arith.constant 1.0 : f32
    %x = arith.extf %in : bf16 to f32
    %n = arith.negf %x : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %x, %d : f32
    %r = arith.truncf %s : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<16x128xbf16>
  %e0 = tensor.empty() : tensor<16x128xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1x16xf32>
  // expected-remark @below {{te-fuse-quantize: fused the elementwise producer (1 input: arith.extf, arith.negf, math.exp, arith.addf, arith.divf, arith.truncf) into the quantization}}
  %q:2 = te.quantize_buffers %a quantizer #te.block<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<16x128xf8E4M3FN>, tensor<1x16xf32>)
      : tensor<16x128xbf16> -> tensor<16x128xf8E4M3FN>, tensor<1x16xf32>
  return %q#0, %q#1 : tensor<16x128xf8E4M3FN>, tensor<1x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// ReLU on bf16 directly (maximumf with a zero defined outside the body),
// delayed scaling: the live scale and the amax output carry over.
// CHECK-LABEL: func.func @relu_delayed
// CHECK-SAME: (%[[H:.*]]: tensor<32x64xbf16>, %[[S:.*]]: tensor<1xf32>)
// CHECK: te.quantize_produced_buffers ins(%[[H]] : tensor<32x64xbf16>)
// CHECK-SAME: value tensor<32x64xbf16> scale(%[[S]] : tensor<1xf32>) quantizer #te.delayed<f8E4M3FN>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : bf16
// CHECK: arith.maximumf %{{.*}}, %[[Z]] : bf16
func.func @relu_delayed(%h: tensor<32x64xbf16>, %s: tensor<1xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>) {
  %zero = arith.constant 0.0 : bf16
  %init = tensor.empty() : tensor<32x64xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<32x64xbf16>) outs(%init : tensor<32x64xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %r = arith.maximumf %in, %zero : bf16
    linalg.yield %r : bf16
  } -> tensor<32x64xbf16>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  %e2 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: fused the elementwise producer (1 input: arith.maximumf) into the quantization}}
  %q:3 = te.quantize_buffers %a scale(%s : tensor<1xf32>) quantizer #te.delayed<f8E4M3FN> usage rowwise
      outs(%e0, %e1, %e2 : tensor<32x64xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>)
      : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
  return %q#0, %q#1, %q#2 : tensor<32x64xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// SwiGLU: silu(gate) * up, two inputs of the same shape, into NVFP4.
// CHECK-LABEL: func.func @swiglu
// CHECK: te.quantize_produced_buffers ins(%{{.*}}, %{{.*}} : tensor<32x64xbf16>, tensor<32x64xbf16>)
// CHECK-SAME: quantizer #te.nvfp4
func.func @swiglu(%gate: tensor<32x64xbf16>, %up: tensor<32x64xbf16>)
    -> (tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<32x64xbf16>, tensor<32x64xbf16>) outs(%init : tensor<32x64xbf16>) {
  ^bb0(%g: bf16, %u: bf16, %out: bf16):
    %one = arith.constant 1.0 : f32
    %x = arith.extf %g : bf16 to f32
    %n = arith.negf %x : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %x, %d : f32
    %uf = arith.extf %u : bf16 to f32
    %p = arith.mulf %s, %uf : f32
    %r = arith.truncf %p : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x64xbf16>
  %e0 = tensor.empty() : tensor<32x32xi8>
  %e1 = tensor.empty() : tensor<128x4xf8E4M3FN>
  %e2 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: fused the elementwise producer (2 inputs: arith.extf, arith.negf, math.exp, arith.addf, arith.divf, arith.mulf, arith.truncf) into the quantization}}
  %q:3 = te.quantize_buffers %a quantizer #te.nvfp4<f4E2M1FN> usage rowwise
      outs(%e0, %e1, %e2 : tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xbf16> -> tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1, %q#2 : tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A residual add of 3-D tensors: the leading dimensions collapse into the
// rows.
// CHECK-LABEL: func.func @residual_3d
// CHECK: te.quantize_produced_buffers ins(%{{.*}}, %{{.*}} : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>)
// CHECK-SAME: value tensor<2x16x64xbf16>
func.func @residual_3d(%x: tensor<2x16x64xbf16>, %y: tensor<2x16x64xbf16>)
    -> (tensor<2x16x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<2x16x64xbf16>
  %a = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %y : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>) outs(%init : tensor<2x16x64xbf16>) {
  ^bb0(%a0: bf16, %a1: bf16, %out: bf16):
    %s = arith.addf %a0, %a1 : bf16
    linalg.yield %s : bf16
  } -> tensor<2x16x64xbf16>
  %e0 = tensor.empty() : tensor<2x16x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: fused the elementwise producer (2 inputs: arith.addf) into the quantization}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<2x16x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<2x16x64xbf16> -> tensor<2x16x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<2x16x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A cast: the body is one truncf (f32 -> bf16), the value bf16.
// CHECK-LABEL: func.func @cast
// CHECK: te.quantize_produced_buffers ins(%{{.*}} : tensor<32x64xf32>)
// CHECK-SAME: value tensor<32x64xbf16>
// CHECK: arith.truncf
// CHECK-NEXT: te.produce
func.func @cast(%h: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<32x64xf32>) outs(%init : tensor<32x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x64xbf16>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: fused the elementwise producer (1 input: arith.truncf) into the quantization}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// LayerNorm's normalize step: (x - mean) * rstd * gamma + beta, the row
// statistics broadcast along the columns, gamma and beta along the rows.
// CHECK-LABEL: func.func @layernorm_normalize
// CHECK: te.quantize_produced_buffers ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x64xbf16>, tensor<32xf32>, tensor<32xf32>, tensor<64xbf16>, tensor<64xbf16>)
// CHECK-SAME: maps [#[[ID:.*]], #[[ROW:.*]], #[[ROW]], #[[COL:.*]], #[[COL]]]
func.func @layernorm_normalize(%x: tensor<32x64xbf16>, %mean: tensor<32xf32>, %rstd: tensor<32xf32>,
                               %gamma: tensor<64xbf16>, %beta: tensor<64xbf16>)
    -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xbf16>
  %a = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %rstd, %gamma, %beta : tensor<32x64xbf16>, tensor<32xf32>, tensor<32xf32>, tensor<64xbf16>, tensor<64xbf16>)
      outs(%init : tensor<32x64xbf16>) {
  ^bb0(%xi: bf16, %m: f32, %r: f32, %g: bf16, %bt: bf16, %out: bf16):
    %xf = arith.extf %xi : bf16 to f32
    %c = arith.subf %xf, %m : f32
    %n = arith.mulf %c, %r : f32
    %gf = arith.extf %g : bf16 to f32
    %bf = arith.extf %bt : bf16 to f32
    %y = math.fma %n, %gf, %bf : f32
    %yb = arith.truncf %y : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<32x64xbf16>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: fused the elementwise producer (5 inputs: arith.extf, arith.subf, arith.mulf, math.fma, arith.truncf) into the quantization}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#rows3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>

// RMSNorm's normalize step on [batch, tokens, hidden]: x * rstd * weight,
// rstd per (batch, token) -- both row loops, so one row stride.
// CHECK-LABEL: func.func @rmsnorm_normalize
// CHECK: te.quantize_produced_buffers ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x16x64xbf16>, tensor<2x16xf32>, tensor<64xbf16>)
func.func @rmsnorm_normalize(%x: tensor<2x16x64xbf16>, %rstd: tensor<2x16xf32>, %w: tensor<64xbf16>)
    -> (tensor<2x16x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<2x16x64xbf16>
  %a = linalg.generic {indexing_maps = [#id3, #rows3, #col3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %rstd, %w : tensor<2x16x64xbf16>, tensor<2x16xf32>, tensor<64xbf16>) outs(%init : tensor<2x16x64xbf16>) {
  ^bb0(%xi: bf16, %r: f32, %wi: bf16, %out: bf16):
    %xf = arith.extf %xi : bf16 to f32
    %n = arith.mulf %xf, %r : f32
    %nb = arith.truncf %n : f32 to bf16
    %y = arith.mulf %nb, %wi : bf16
    linalg.yield %y : bf16
  } -> tensor<2x16x64xbf16>
  %e0 = tensor.empty() : tensor<2x16x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: fused the elementwise producer (3 inputs: arith.extf, arith.mulf, arith.truncf) into the quantization}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<2x16x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<2x16x64xbf16> -> tensor<2x16x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<2x16x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0, 0)>

// A row statistic kept as [rows, 1] (a keepdim reduction): the constant 0
// on its size-1 dimension.
// CHECK-LABEL: func.func @keepdim_row
// CHECK: te.quantize_produced_buffers ins(%{{.*}}, %{{.*}} : tensor<32x64xf32>, tensor<32x1xf32>)
func.func @keepdim_row(%x: tensor<32x64xf32>, %s: tensor<32x1xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #r, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<32x64xf32>, tensor<32x1xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%xi: f32, %si: f32, %out: f32):
    %y = arith.mulf %xi, %si : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: fused the elementwise producer (2 inputs: arith.mulf) into the quantization}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d1)>

// dGELU * dY with a bias gradient reading the same value: the fused op also
// writes the value (value_out, into the generic's init) and the column sum
// reads that; the scalar 1/tokens from outside the body becomes a rank-0
// input; the batch is dynamic (the size comes from the init).
// CHECK-LABEL: func.func @dgelu_dbias
// CHECK-SAME: (%[[H:.*]]: tensor<?x64xbf16>, %[[DY:.*]]: tensor<?x64xbf16>, %[[INV:.*]]: f32)
// CHECK: %[[INIT:.*]] = tensor.empty(%{{.*}}) : tensor<?x64xbf16>
// CHECK: %[[S:.*]] = tensor.from_elements %[[INV]] : tensor<f32>
// CHECK: %[[N:.*]] = tensor.dim %[[INIT]], %{{.*}} : tensor<?x64xbf16>
// CHECK: %[[Q:.*]]:3 = te.quantize_produced_buffers ins(%[[H]], %[[DY]], %[[S]] : tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<f32>)
// CHECK-SAME: maps [#{{.*}}, #{{.*}}, #[[SCALAR:.*]]] value tensor<?x64xbf16> sizes(%[[N]])
// CHECK-SAME: quantizer #te.current<f8E5M2> usage columnwise
// CHECK-SAME: value_out(%[[INIT]] : tensor<?x64xbf16>) {
// CHECK-NEXT: ^bb0(%{{.*}}: bf16, %{{.*}}: bf16, %[[INVA:.*]]: f32):
// CHECK: arith.mulf %{{.*}}, %[[INVA]] : f32
// CHECK: } -> tensor<64x?xf8E5M2>, tensor<1xf32>, tensor<?x64xbf16>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[Q]]#2 : tensor<?x64xbf16>)
// CHECK: return %[[Q]]#0, %[[Q]]#1
func.func @dgelu_dbias(%h: tensor<?x64xbf16>, %dy: tensor<?x64xbf16>, %inv: f32)
    -> (tensor<64x?xf8E5M2>, tensor<1xf32>, tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %h, %c0 : tensor<?x64xbf16>
  %init = tensor.empty(%n) : tensor<?x64xbf16>
  %dh = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %dy : tensor<?x64xbf16>, tensor<?x64xbf16>) outs(%init : tensor<?x64xbf16>) {
  ^bb0(%in: bf16, %g: bf16, %out: bf16):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k = arith.constant 0.797884583 : f32
    %x = arith.extf %in : bf16 to f32
    %u = arith.mulf %k, %x : f32
    %t = math.tanh %u : f32
    %t2 = arith.mulf %t, %t : f32
    %sech2 = arith.subf %one, %t2 : f32
    %opt = arith.addf %one, %t : f32
    %left = arith.mulf %half, %opt : f32
    %r0 = arith.mulf %x, %sech2 : f32
    %right = arith.mulf %r0, %k : f32
    %d = arith.addf %left, %right : f32
    %gf = arith.extf %g : bf16 to f32
    %dhf = arith.mulf %gf, %d : f32
    %sc = arith.mulf %dhf, %inv : f32
    %r = arith.truncf %sc : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<?x64xbf16>
  %e0 = tensor.empty(%n) : tensor<64x?xf8E5M2>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: fused the elementwise producer (3 inputs: arith.extf, arith.mulf, math.tanh, arith.subf, arith.addf, arith.truncf) into the quantization; it also writes the value for 1 other reader}}
  %q:2 = te.quantize_buffers %dh quantizer #te.current<f8E5M2> usage columnwise
      outs(%e0, %e1 : tensor<64x?xf8E5M2>, tensor<1xf32>)
      : tensor<?x64xbf16> -> tensor<64x?xf8E5M2>, tensor<1xf32>
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<64xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%se : tensor<64xf32>) -> tensor<64xf32>
  %db = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "parallel"]}
      ins(%dh : tensor<?x64xbf16>) outs(%s0 : tensor<64xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %e = arith.extf %in : bf16 to f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %q#0, %q#1, %db : tensor<64x?xf8E5M2>, tensor<1xf32>, tensor<64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// An accumulating producer (its body reads the init): the init is an input
// too; the value written for the other reader goes to a new tensor.
// CHECK-LABEL: func.func @reads_init
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[ACC:.*]]: tensor<8x16xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x16xf32>
// CHECK: %[[Q:.*]]:3 = te.quantize_produced_buffers ins(%[[X]], %[[ACC]] : tensor<8x16xf32>, tensor<8x16xf32>)
// CHECK-SAME: value_out(%[[E]] : tensor<8x16xf32>)
// CHECK: return %[[Q]]#0, %[[Q]]#1, %[[Q]]#2
func.func @reads_init(%x: tensor<8x16xf32>, %acc: tensor<8x16xf32>)
    -> (tensor<8x16xf8E4M3FN>, tensor<1xf32>, tensor<8x16xf32>) {
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%acc : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %e0 = tensor.empty() : tensor<8x16xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: fused the elementwise producer (2 inputs: arith.addf) into the quantization; it also writes the value for 1 other reader}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<8x16xf8E4M3FN>, tensor<1xf32>)
      : tensor<8x16xf32> -> tensor<8x16xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1, %a : tensor<8x16xf8E4M3FN>, tensor<1xf32>, tensor<8x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// A transposed input: still one row and one column stride.
// CHECK-LABEL: func.func @transposed_input
// CHECK: te.quantize_produced_buffers ins(%{{.*}} : tensor<64x32xf32>)
func.func @transposed_input(%x: tensor<64x32xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %init = tensor.empty() : tensor<32x64xf32>
  %a = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x32xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.absf %in : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  %e0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  // expected-remark @below {{te-fuse-quantize: fused the elementwise producer (1 input: math.absf) into the quantization}}
  %q:2 = te.quantize_buffers %a quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%e0, %e1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %q#0, %q#1 : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}
