#!/usr/bin/env python3
"""Writes the MLP training-step examples mlp-train-step-<recipe>.mlir.

One template, one set of quantizers per recipe (docs/formats.md §2, Linear's
quantizer roles §6). Delayed scaling cannot use te.linear (its scale and amax
history are SSA state), so its example threads that state through te.quantize
and te.gemm by hand; it is written from the same skeleton.

Usage:
  python3 examples/generate.py   (rewrites the .mlir files next to it)
  python3 examples/generate.py --hidden 4096 --ffn 16384 --microbatch 2048 --out DIR
      (the same five programs at other sizes, written into DIR; the
      benchmark of the compiled step, bench/step/, uses this)
"""
import argparse
import os

# The committed examples' sizes (the defaults).
HIDDEN, FFN, TOKENS = 256, 1024, 128

_parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
_parser.add_argument("--hidden", type=int, default=HIDDEN, help="model width (default %(default)s)")
_parser.add_argument("--ffn", type=int, default=FFN, help="MLP inner width (default %(default)s)")
_parser.add_argument("--microbatch", type=int, default=TOKENS,
                     help="tokens per microbatch (default %(default)s)")
_parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                     help="output directory (default: next to this script)")
_ARGS = _parser.parse_args()
HIDDEN, FFN, TOKENS = _ARGS.hidden, _ARGS.ffn, _ARGS.microbatch

# (recipe, title, input quantizer, weight quantizer, grad_output quantizer,
#  stochastic rounding of grads)
RECIPES = [
    ("current", "FP8 current scaling (Float8CurrentScaling, HYBRID: E4M3 forward, E5M2 backward)",
     "#te.current<f8E4M3FN>", "#te.current<f8E4M3FN>", "#te.current<f8E5M2>", False),
    ("block", "FP8 block scaling (Float8BlockScaling: 1x128 activations and grads, 128x128 weights, E4M3)",
     "#te.block<f8E4M3FN>", "#te.block<f8E4M3FN, dims = 2>", "#te.block<f8E4M3FN>", False),
    ("mxfp8", "MXFP8 (MXFP8BlockScaling: 32-element blocks, E8M0 scales, E4M3)",
     "#te.mxfp8<f8E4M3FN>", "#te.mxfp8<f8E4M3FN>", "#te.mxfp8<f8E4M3FN>", False),
    ("nvfp4", "NVFP4 (NVFP4BlockScaling: RHT on inputs, 16x16 weight blocks, RHT + stochastic rounding on grads)",
     "#te.nvfp4<f4E2M1FN, rht = true>", "#te.nvfp4<f4E2M1FN, block_2d = true>",
     "#te.nvfp4<f4E2M1FN, rht = true, stochastic_rounding = true>", True),
]

H, F, T = HIDDEN, FFN, TOKENS

def helpers():
    """The helper functions, at the current token count T."""
    return f"""\
  // GELU with the tanh approximation, elementwise in f32:
  //   gelu(x) = 0.5 x (1 + tanh(u)),  u = sqrt(2/pi) (x + 0.044715 x^3).
  func.func private @gelu(%h: tensor<{T}x{F}xbf16>) -> tensor<{T}x{F}xbf16> {{
    %init = tensor.empty() : tensor<{T}x{F}xbf16>
    %a = linalg.generic {{indexing_maps = [#id, #id],
                         iterator_types = ["parallel", "parallel"]}}
        ins(%h : tensor<{T}x{F}xbf16>) outs(%init : tensor<{T}x{F}xbf16>) {{
    ^bb0(%in: bf16, %out: bf16):
      %half = arith.constant 0.5 : f32
      %one = arith.constant 1.0 : f32
      %k = arith.constant 0.797884583 : f32
      %c = arith.constant 0.044715 : f32
      %x = arith.extf %in : bf16 to f32
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
    }} -> tensor<{T}x{F}xbf16>
    return %a : tensor<{T}x{F}xbf16>
  }}

  // dL/dh = dL/da * gelu'(h),
  //   gelu'(x) = 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2).
  func.func private @gelu_grad(%h: tensor<{T}x{F}xbf16>, %da: tensor<{T}x{F}xbf16>)
      -> tensor<{T}x{F}xbf16> {{
    %init = tensor.empty() : tensor<{T}x{F}xbf16>
    %dh = linalg.generic {{indexing_maps = [#id, #id, #id],
                          iterator_types = ["parallel", "parallel"]}}
        ins(%h, %da : tensor<{T}x{F}xbf16>, tensor<{T}x{F}xbf16>)
        outs(%init : tensor<{T}x{F}xbf16>) {{
    ^bb0(%in: bf16, %g: bf16, %out: bf16):
      %half = arith.constant 0.5 : f32
      %one = arith.constant 1.0 : f32
      %k = arith.constant 0.797884583 : f32
      %c = arith.constant 0.044715 : f32
      %c3 = arith.constant 0.134145 : f32
      %x = arith.extf %in : bf16 to f32
      %x2 = arith.mulf %x, %x : f32
      %x3 = arith.mulf %x2, %x : f32
      %cx3 = arith.mulf %c, %x3 : f32
      %s = arith.addf %x, %cx3 : f32
      %u = arith.mulf %k, %s : f32
      %t = math.tanh %u : f32
      %opt = arith.addf %one, %t : f32
      %left = arith.mulf %half, %opt : f32
      %t2 = arith.mulf %t, %t : f32
      %sech2 = arith.subf %one, %t2 : f32
      %c3x2 = arith.mulf %c3, %x2 : f32
      %du = arith.addf %one, %c3x2 : f32
      %kdu = arith.mulf %k, %du : f32
      %hx = arith.mulf %half, %x : f32
      %r0 = arith.mulf %hx, %sech2 : f32
      %right = arith.mulf %r0, %kdu : f32
      %d = arith.addf %left, %right : f32
      %gf = arith.extf %g : bf16 to f32
      %dhf = arith.mulf %gf, %d : f32
      %r = arith.truncf %dhf : f32 to bf16
      linalg.yield %r : bf16
    }} -> tensor<{T}x{F}xbf16>
    return %dh : tensor<{T}x{F}xbf16>
  }}

  // Mean-squared-error loss of one microbatch, scaled by 1/(total tokens):
  //   loss = sum 0.5 (y - t)^2 / T,   dL/dy = (y - t) / T.
  func.func private @mse(%y: tensor<{T}x{H}xbf16>, %t: tensor<{T}x{H}xbf16>, %inv: f32)
      -> (f32, tensor<{T}x{H}xbf16>) {{
    %zero = arith.constant 0.0 : f32
    %linit = tensor.empty() : tensor<f32>
    %l0 = linalg.fill ins(%zero : f32) outs(%linit : tensor<f32>) -> tensor<f32>
    %l = linalg.generic {{indexing_maps = [#id, #id, #scalar],
                         iterator_types = ["reduction", "reduction"]}}
        ins(%y, %t : tensor<{T}x{H}xbf16>, tensor<{T}x{H}xbf16>) outs(%l0 : tensor<f32>) {{
    ^bb0(%a: bf16, %b: bf16, %acc: f32):
      %half = arith.constant 0.5 : f32
      %af = arith.extf %a : bf16 to f32
      %bf = arith.extf %b : bf16 to f32
      %d = arith.subf %af, %bf : f32
      %d2 = arith.mulf %d, %d : f32
      %hd2 = arith.mulf %half, %d2 : f32
      %s = arith.mulf %hd2, %inv : f32
      %r = arith.addf %acc, %s : f32
      linalg.yield %r : f32
    }} -> tensor<f32>
    %loss = tensor.extract %l[] : tensor<f32>
    %dinit = tensor.empty() : tensor<{T}x{H}xbf16>
    %dy = linalg.generic {{indexing_maps = [#id, #id, #id],
                          iterator_types = ["parallel", "parallel"]}}
        ins(%y, %t : tensor<{T}x{H}xbf16>, tensor<{T}x{H}xbf16>)
        outs(%dinit : tensor<{T}x{H}xbf16>) {{
    ^bb0(%a: bf16, %b: bf16, %out: bf16):
      %af = arith.extf %a : bf16 to f32
      %bf = arith.extf %b : bf16 to f32
      %d = arith.subf %af, %bf : f32
      %s = arith.mulf %d, %inv : f32
      %r = arith.truncf %s : f32 to bf16
      linalg.yield %r : bf16
    }} -> tensor<{T}x{H}xbf16>
    return %loss, %dy : f32, tensor<{T}x{H}xbf16>
  }}

  // acc += g, in f32 (gradient accumulation across microbatches).
  func.func private @accumulate_2d(%acc: tensor<?x?xf32>, %g: tensor<?x?xbf16>) -> tensor<?x?xf32> {{
    %r = linalg.generic {{indexing_maps = [#id, #id],
                         iterator_types = ["parallel", "parallel"]}}
        ins(%g : tensor<?x?xbf16>) outs(%acc : tensor<?x?xf32>) {{
    ^bb0(%in: bf16, %out: f32):
      %x = arith.extf %in : bf16 to f32
      %s = arith.addf %out, %x : f32
      linalg.yield %s : f32
    }} -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }}
  func.func private @accumulate_1d(%acc: tensor<?xf32>, %g: tensor<?xbf16>) -> tensor<?xf32> {{
    %r = linalg.generic {{indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}}
        ins(%g : tensor<?xbf16>) outs(%acc : tensor<?xf32>) {{
    ^bb0(%in: bf16, %out: f32):
      %x = arith.extf %in : bf16 to f32
      %s = arith.addf %out, %x : f32
      linalg.yield %s : f32
    }} -> tensor<?xf32>
    return %r : tensor<?xf32>
  }}
"""

HEADER = """\
// A transformer-block MLP training step, recipe:
// {title}.
//
//   h = x W1^T + b1     [tokens, {F}]    te.linear
//   a = gelu(h)                          tanh approximation (linalg.generic)
//   y = a W2^T + b2     [tokens, {H}]    te.linear
//   loss = sum 0.5 (y - target)^2 / tokens
//
// over the microbatches of {T} tokens of the (dynamic) batch, with forward,
// backward (te.linear_grad) and fp32 gradient accumulation in an scf.for.
// The weights are loop-invariant: after te-decompose-linear,
// te-eliminate-aliases quantizes each weight once per step, whatever the
// number of microbatches (TE's is_first_microbatch caching, derived).
//
// Entry: @train_step(x: [N*{T}, {H}] bf16, target: [N*{T}, {H}] bf16,
//                    w1: [{F}, {H}], b1: [{F}], w2: [{H}, {F}], b2: [{H}] bf16{seedarg})
//        -> (loss: f32, dW1: [{F}, {H}], db1: [{F}], dW2: [{H}, {F}], db2: [{H}] f32)
//
// Generated by examples/generate.py; see examples/README.md.

#id = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0, d1) -> ()>

module {{
"""

STEP = """\
  func.func @train_step(%x: tensor<?x{H}xbf16>, %target: tensor<?x{H}xbf16>,
                        %w1: tensor<{F}x{H}xbf16>, %b1: tensor<{F}xbf16>,
                        %w2: tensor<{H}x{F}xbf16>, %b2: tensor<{H}xbf16>{seedparam})
      -> (f32, tensor<{F}x{H}xf32>, tensor<{F}xf32>, tensor<{H}x{F}xf32>, tensor<{H}xf32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cmb = arith.constant {T} : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %tokens = tensor.dim %x, %c0 : tensor<?x{H}xbf16>
    %steps = arith.divui %tokens, %cmb : index
    %tokens_i = arith.index_cast %tokens : index to i64
    %tokens_f = arith.uitofp %tokens_i : i64 to f32
    %inv = arith.divf %one, %tokens_f : f32

    %e1 = tensor.empty() : tensor<{F}x{H}xf32>
    %dw1_0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<{F}x{H}xf32>) -> tensor<{F}x{H}xf32>
    %e2 = tensor.empty() : tensor<{F}xf32>
    %db1_0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<{F}xf32>) -> tensor<{F}xf32>
    %e3 = tensor.empty() : tensor<{H}x{F}xf32>
    %dw2_0 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<{H}x{F}xf32>) -> tensor<{H}x{F}xf32>
    %e4 = tensor.empty() : tensor<{H}xf32>
    %db2_0 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<{H}xf32>) -> tensor<{H}xf32>

    %res:5 = scf.for %i = %c0 to %steps step %c1
        iter_args(%loss = %zero, %dw1 = %dw1_0, %db1 = %db1_0, %dw2 = %dw2_0, %db2 = %db2_0)
        -> (f32, tensor<{F}x{H}xf32>, tensor<{F}xf32>, tensor<{H}x{F}xf32>, tensor<{H}xf32>) {{
      %row = arith.muli %i, %cmb : index
      %xi = tensor.extract_slice %x[%row, 0] [{T}, {H}] [1, 1]
          : tensor<?x{H}xbf16> to tensor<{T}x{H}xbf16>
      %ti = tensor.extract_slice %target[%row, 0] [{T}, {H}] [1, 1]
          : tensor<?x{H}xbf16> to tensor<{T}x{H}xbf16>
{body}
      %loss_n = arith.addf %loss, %li : f32
      %dw1c = tensor.cast %dw1 : tensor<{F}x{H}xf32> to tensor<?x?xf32>
      %gw1c = tensor.cast %gw1 : tensor<{F}x{H}xbf16> to tensor<?x?xbf16>
      %dw1a = func.call @accumulate_2d(%dw1c, %gw1c) : (tensor<?x?xf32>, tensor<?x?xbf16>) -> tensor<?x?xf32>
      %dw1_n = tensor.cast %dw1a : tensor<?x?xf32> to tensor<{F}x{H}xf32>
      %db1c = tensor.cast %db1 : tensor<{F}xf32> to tensor<?xf32>
      %gb1c = tensor.cast %gb1 : tensor<{F}xbf16> to tensor<?xbf16>
      %db1a = func.call @accumulate_1d(%db1c, %gb1c) : (tensor<?xf32>, tensor<?xbf16>) -> tensor<?xf32>
      %db1_n = tensor.cast %db1a : tensor<?xf32> to tensor<{F}xf32>
      %dw2c = tensor.cast %dw2 : tensor<{H}x{F}xf32> to tensor<?x?xf32>
      %gw2c = tensor.cast %gw2 : tensor<{H}x{F}xbf16> to tensor<?x?xbf16>
      %dw2a = func.call @accumulate_2d(%dw2c, %gw2c) : (tensor<?x?xf32>, tensor<?x?xbf16>) -> tensor<?x?xf32>
      %dw2_n = tensor.cast %dw2a : tensor<?x?xf32> to tensor<{H}x{F}xf32>
      %db2c = tensor.cast %db2 : tensor<{H}xf32> to tensor<?xf32>
      %gb2c = tensor.cast %gb2 : tensor<{H}xbf16> to tensor<?xbf16>
      %db2a = func.call @accumulate_1d(%db2c, %gb2c) : (tensor<?xf32>, tensor<?xbf16>) -> tensor<?xf32>
      %db2_n = tensor.cast %db2a : tensor<?xf32> to tensor<{H}xf32>
      scf.yield %loss_n, %dw1_n, %db1_n, %dw2_n, %db2_n
          : f32, tensor<{F}x{H}xf32>, tensor<{F}xf32>, tensor<{H}x{F}xf32>, tensor<{H}xf32>
    }}
    return %res#0, %res#1, %res#2, %res#3, %res#4
        : f32, tensor<{F}x{H}xf32>, tensor<{F}xf32>, tensor<{H}x{F}xf32>, tensor<{H}xf32>
  }}
}}
"""

LINEAR_BODY = """\
      // Forward.
      %h, %xs1, %ws1 = te.linear %xi, %w1 bias(%b1 : tensor<{F}xbf16>)
          {{input_quantizer = {qi}, weight_quantizer = {qw}}}
          : tensor<{T}x{H}xbf16>, tensor<{F}x{H}xbf16>
      %a = func.call @gelu(%h) : (tensor<{T}x{F}xbf16>) -> tensor<{T}x{F}xbf16>
      %y, %as2, %ws2 = te.linear %a, %w2 bias(%b2 : tensor<{H}xbf16>)
          {{input_quantizer = {qi}, weight_quantizer = {qw}}}
          : tensor<{T}x{F}xbf16>, tensor<{H}x{F}xbf16>
      %li, %dy = func.call @mse(%y, %ti, %inv)
          : (tensor<{T}x{H}xbf16>, tensor<{T}x{H}xbf16>, f32) -> (f32, tensor<{T}x{H}xbf16>)
      // Backward.{srcomment}
      %da, %gw2, %gb2 = te.linear_grad %dy, %as2, %ws2{sr2}
          {{grad_output_quantizer = {qg}, has_bias}}
          : tensor<{T}x{H}xbf16>, !te.qtensor<{T}x{F}xbf16, {qi}, columnwise>,
            !te.qtensor<{H}x{F}xbf16, {qw}, rowwise|columnwise>
      %dh = func.call @gelu_grad(%h, %da)
          : (tensor<{T}x{F}xbf16>, tensor<{T}x{F}xbf16>) -> tensor<{T}x{F}xbf16>
      %dx, %gw1, %gb1 = te.linear_grad %dh, %xs1, %ws1{sr1}
          {{grad_output_quantizer = {qg}, has_bias}}
          : tensor<{T}x{F}xbf16>, !te.qtensor<{T}x{H}xbf16, {qi}, columnwise>,
            !te.qtensor<{F}x{H}xbf16, {qw}, rowwise|columnwise>"""


def fmt(s, **kw):
    return s.format(H=H, F=F, T=T, **kw)


def write(name, text):
    os.makedirs(_ARGS.out, exist_ok=True)
    path = os.path.join(_ARGS.out, name)
    with open(path, "w") as f:
        f.write(text)


def emit_recipes(prefix):
    for recipe, title, qi, qw, qg, sr in RECIPES:
        if sr:
            srcomment = ("\n      // Stochastic rounding of dY: one random stream per GEMM pair\n"
                         "      // and microbatch (offset = 2 i, 2 i + 1).")
            pre = ("      %i64 = arith.index_cast %i : index to i64\n"
                   "      %c2_i64 = arith.constant 2 : i64\n"
                   "      %off2 = arith.muli %i64, %c2_i64 : i64\n"
                   "      %c1_i64 = arith.constant 1 : i64\n"
                   "      %off1 = arith.addi %off2, %c1_i64 : i64\n")
            sr2, sr1 = " seed %seed offset %off2", " seed %seed offset %off1"
            seedparam, seedarg = ",\n                        %seed: i64", ", seed: i64"
        else:
            srcomment, pre, sr2, sr1, seedparam, seedarg = "", "", "", "", "", ""
        body = pre + fmt(LINEAR_BODY, qi=qi, qw=qw, qg=qg, srcomment=srcomment, sr2=sr2, sr1=sr1)
        text = fmt(HEADER, title=title, seedarg=seedarg) + helpers() + "\n" + \
            fmt(STEP, body=body, seedparam=seedparam)
        write(f"mlp-train-step-{prefix}{recipe}.mlir", text)


# --- Delayed scaling: the same step with the live state threaded by hand. ---

DELAYED_HELPERS = """\
  // Bias gradient: the sum over the tokens, accumulated in fp32.
  func.func private @sum_rows(%g: tensor<?x?xbf16>) -> tensor<?xbf16> {{
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %n = tensor.dim %g, %c1 : tensor<?x?xbf16>
    %e = tensor.empty(%n) : tensor<?xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %s = linalg.generic {{indexing_maps = [#id, #col],
                         iterator_types = ["reduction", "parallel"]}}
        ins(%g : tensor<?x?xbf16>) outs(%z : tensor<?xf32>) {{
    ^bb0(%in: bf16, %out: f32):
      %x = arith.extf %in : bf16 to f32
      %r = arith.addf %out, %x : f32
      linalg.yield %r : f32
    }} -> tensor<?xf32>
    %eb = tensor.empty(%n) : tensor<?xbf16>
    %b = linalg.generic {{indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}}
        ins(%s : tensor<?xf32>) outs(%eb : tensor<?xbf16>) {{
    ^bb0(%in: f32, %out: bf16):
      %r = arith.truncf %in : f32 to bf16
      linalg.yield %r : bf16
    }} -> tensor<?xbf16>
    return %b : tensor<?xbf16>
  }}

  // The step's amax of one tensor: the maximum over every cast (TE's
  // atomicMax into amax_history[0]).
  func.func private @amax_max(%a: tensor<1xf32>, %b: tensor<1xf32>) -> tensor<1xf32> {{
    %r = linalg.generic {{indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}}
        ins(%b : tensor<1xf32>) outs(%a : tensor<1xf32>) {{
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %out : f32
      linalg.yield %m : f32
    }} -> tensor<1xf32>
    return %r : tensor<1xf32>
  }}
"""

# Slots of the delayed-scaling state, in TE's order for the two GEMMs of each
# Linear: forward [input, weight] per Linear, backward [grad_output].
SLOTS = ["x", "w1", "a", "w2", "dy", "dh"]
QF = "#te.delayed<f8E4M3FN>"
QB = "#te.delayed<f8E5M2>"


def delayed_step():
    L = 1024
    q = {"x": QF, "w1": QF, "a": QF, "w2": QF, "dy": QB, "dh": QB}
    lines = []
    A = lines.append
    A(f"""\
  func.func @train_step(%x: tensor<?x{H}xbf16>, %target: tensor<?x{H}xbf16>,
                        %w1: tensor<{F}x{H}xbf16>, %b1: tensor<{F}xbf16>,
                        %w2: tensor<{H}x{F}xbf16>, %b2: tensor<{H}xbf16>,
                        %scales: tensor<6xf32>, %histories: tensor<6x{L}xf32>)
      -> (f32, tensor<{F}x{H}xf32>, tensor<{F}xf32>, tensor<{H}x{F}xf32>, tensor<{H}xf32>,
          tensor<6xf32>, tensor<6x{L}xf32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cmb = arith.constant {T} : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %tokens = tensor.dim %x, %c0 : tensor<?x{H}xbf16>
    %steps = arith.divui %tokens, %cmb : index
    %tokens_i = arith.index_cast %tokens : index to i64
    %tokens_f = arith.uitofp %tokens_i : i64 to f32
    %inv = arith.divf %one, %tokens_f : f32
""")
    for k, name in enumerate(SLOTS):
        A(f"    %s_{name} = tensor.extract_slice %scales[{k}] [1] [1] : tensor<6xf32> to tensor<1xf32>")
    A(f"""\
    %e1 = tensor.empty() : tensor<{F}x{H}xf32>
    %dw1_0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<{F}x{H}xf32>) -> tensor<{F}x{H}xf32>
    %e2 = tensor.empty() : tensor<{F}xf32>
    %db1_0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<{F}xf32>) -> tensor<{F}xf32>
    %e3 = tensor.empty() : tensor<{H}x{F}xf32>
    %dw2_0 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<{H}x{F}xf32>) -> tensor<{H}x{F}xf32>
    %e4 = tensor.empty() : tensor<{H}xf32>
    %db2_0 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<{H}xf32>) -> tensor<{H}xf32>
""")
    for name in SLOTS:
        A(f"    %ea_{name} = tensor.empty() : tensor<1xf32>\n"
          f"    %amax0_{name} = linalg.fill ins(%zero : f32) outs(%ea_{name} : tensor<1xf32>)"
          f" -> tensor<1xf32>")
    amax_iter = ", ".join(f"%am_{n} = %amax0_{n}" for n in SLOTS)
    amax_types = ", ".join("tensor<1xf32>" for _ in SLOTS)
    A(f"""\
    %res:11 = scf.for %i = %c0 to %steps step %c1
        iter_args(%loss = %zero, %dw1 = %dw1_0, %db1 = %db1_0, %dw2 = %dw2_0, %db2 = %db2_0,
                  {amax_iter})
        -> (f32, tensor<{F}x{H}xf32>, tensor<{F}xf32>, tensor<{H}x{F}xf32>, tensor<{H}xf32>,
            {amax_types}) {{
      %row = arith.muli %i, %cmb : index
      %xi = tensor.extract_slice %x[%row, 0] [{T}, {H}] [1, 1]
          : tensor<?x{H}xbf16> to tensor<{T}x{H}xbf16>
      %ti = tensor.extract_slice %target[%row, 0] [{T}, {H}] [1, 1]
          : tensor<?x{H}xbf16> to tensor<{T}x{H}xbf16>
      // Forward: fc1.
      %xq, %ax = te.quantize %xi scale %s_x : tensor<{T}x{H}xbf16>
          -> !te.qtensor<{T}x{H}xbf16, {QF}, rowwise|columnwise>, tensor<1xf32>
      %w1q, %aw1 = te.quantize %w1 scale %s_w1 : tensor<{F}x{H}xbf16>
          -> !te.qtensor<{F}x{H}xbf16, {QF}, rowwise|columnwise>, tensor<1xf32>
      %h = te.gemm %w1q, %xq layout TN bias(%b1 : tensor<{F}xbf16>)
          : !te.qtensor<{F}x{H}xbf16, {QF}, rowwise|columnwise>,
            !te.qtensor<{T}x{H}xbf16, {QF}, rowwise|columnwise> -> tensor<{T}x{F}xbf16>
      %a = func.call @gelu(%h) : (tensor<{T}x{F}xbf16>) -> tensor<{T}x{F}xbf16>
      // Forward: fc2.
      %aq, %aa = te.quantize %a scale %s_a : tensor<{T}x{F}xbf16>
          -> !te.qtensor<{T}x{F}xbf16, {QF}, rowwise|columnwise>, tensor<1xf32>
      %w2q, %aw2 = te.quantize %w2 scale %s_w2 : tensor<{H}x{F}xbf16>
          -> !te.qtensor<{H}x{F}xbf16, {QF}, rowwise|columnwise>, tensor<1xf32>
      %y = te.gemm %w2q, %aq layout TN bias(%b2 : tensor<{H}xbf16>)
          : !te.qtensor<{H}x{F}xbf16, {QF}, rowwise|columnwise>,
            !te.qtensor<{T}x{F}xbf16, {QF}, rowwise|columnwise> -> tensor<{T}x{H}xbf16>
      %li, %dy = func.call @mse(%y, %ti, %inv)
          : (tensor<{T}x{H}xbf16>, tensor<{T}x{H}xbf16>, f32) -> (f32, tensor<{T}x{H}xbf16>)
      // Backward: fc2 (dgrad NN, wgrad NT, bias grad).
      %dyq, %ady = te.quantize %dy scale %s_dy : tensor<{T}x{H}xbf16>
          -> !te.qtensor<{T}x{H}xbf16, {QB}, rowwise|columnwise>, tensor<1xf32>
      %da = te.gemm %w2q, %dyq layout NN {{use_split_accumulator}}
          : !te.qtensor<{H}x{F}xbf16, {QF}, rowwise|columnwise>,
            !te.qtensor<{T}x{H}xbf16, {QB}, rowwise|columnwise> -> tensor<{T}x{F}xbf16>
      %gw2 = te.gemm %aq, %dyq layout NT {{use_split_accumulator}}
          : !te.qtensor<{T}x{F}xbf16, {QF}, rowwise|columnwise>,
            !te.qtensor<{T}x{H}xbf16, {QB}, rowwise|columnwise> -> tensor<{H}x{F}xbf16>
      %dyc = tensor.cast %dy : tensor<{T}x{H}xbf16> to tensor<?x?xbf16>
      %gb2c = func.call @sum_rows(%dyc) : (tensor<?x?xbf16>) -> tensor<?xbf16>
      %gb2 = tensor.cast %gb2c : tensor<?xbf16> to tensor<{H}xbf16>
      // Backward: fc1.
      %dh = func.call @gelu_grad(%h, %da)
          : (tensor<{T}x{F}xbf16>, tensor<{T}x{F}xbf16>) -> tensor<{T}x{F}xbf16>
      %dhq, %adh = te.quantize %dh scale %s_dh : tensor<{T}x{F}xbf16>
          -> !te.qtensor<{T}x{F}xbf16, {QB}, rowwise|columnwise>, tensor<1xf32>
      %gw1 = te.gemm %xq, %dhq layout NT {{use_split_accumulator}}
          : !te.qtensor<{T}x{H}xbf16, {QF}, rowwise|columnwise>,
            !te.qtensor<{T}x{F}xbf16, {QB}, rowwise|columnwise> -> tensor<{F}x{H}xbf16>
      %dhc = tensor.cast %dh : tensor<{T}x{F}xbf16> to tensor<?x?xbf16>
      %gb1c = func.call @sum_rows(%dhc) : (tensor<?x?xbf16>) -> tensor<?xbf16>
      %gb1 = tensor.cast %gb1c : tensor<?xbf16> to tensor<{F}xbf16>
""")
    for name, a in zip(SLOTS, ["ax", "aw1", "aa", "aw2", "ady", "adh"]):
        A(f"      %am_{name}_n = func.call @amax_max(%am_{name}, %{a}) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>")
    text = "\n".join(lines) + "\n"
    return text


def delayed_tail():
    L = 1024
    amax_yield = ", ".join(f"%am_{n}_n" for n in SLOTS)
    amax_types = ", ".join("tensor<1xf32>" for _ in SLOTS)
    out = [f"""\
      %loss_n = arith.addf %loss, %li : f32
      %dw1c = tensor.cast %dw1 : tensor<{F}x{H}xf32> to tensor<?x?xf32>
      %gw1c = tensor.cast %gw1 : tensor<{F}x{H}xbf16> to tensor<?x?xbf16>
      %dw1a = func.call @accumulate_2d(%dw1c, %gw1c) : (tensor<?x?xf32>, tensor<?x?xbf16>) -> tensor<?x?xf32>
      %dw1_n = tensor.cast %dw1a : tensor<?x?xf32> to tensor<{F}x{H}xf32>
      %db1c = tensor.cast %db1 : tensor<{F}xf32> to tensor<?xf32>
      %gb1d = tensor.cast %gb1 : tensor<{F}xbf16> to tensor<?xbf16>
      %db1a = func.call @accumulate_1d(%db1c, %gb1d) : (tensor<?xf32>, tensor<?xbf16>) -> tensor<?xf32>
      %db1_n = tensor.cast %db1a : tensor<?xf32> to tensor<{F}xf32>
      %dw2c = tensor.cast %dw2 : tensor<{H}x{F}xf32> to tensor<?x?xf32>
      %gw2c = tensor.cast %gw2 : tensor<{H}x{F}xbf16> to tensor<?x?xbf16>
      %dw2a = func.call @accumulate_2d(%dw2c, %gw2c) : (tensor<?x?xf32>, tensor<?x?xbf16>) -> tensor<?x?xf32>
      %dw2_n = tensor.cast %dw2a : tensor<?x?xf32> to tensor<{H}x{F}xf32>
      %db2c = tensor.cast %db2 : tensor<{H}xf32> to tensor<?xf32>
      %gb2d = tensor.cast %gb2 : tensor<{H}xbf16> to tensor<?xbf16>
      %db2a = func.call @accumulate_1d(%db2c, %gb2d) : (tensor<?xf32>, tensor<?xbf16>) -> tensor<?xf32>
      %db2_n = tensor.cast %db2a : tensor<?xf32> to tensor<{H}xf32>
      scf.yield %loss_n, %dw1_n, %db1_n, %dw2_n, %db2_n, {amax_yield}
          : f32, tensor<{F}x{H}xf32>, tensor<{F}xf32>, tensor<{H}x{F}xf32>, tensor<{H}xf32>,
            {amax_types}
    }}
    // End of step: roll each amax history and compute the next scales
    // (te.update_scale; a multi-GPU program would te.allreduce_max the
    // amaxes first).
    %sc0 = tensor.empty() : tensor<6xf32>
    %hs0 = tensor.empty() : tensor<6x{L}xf32>"""]
    A = out.append
    for k, name in enumerate(SLOTS):
        q = QF if name in ("x", "w1", "a", "w2") else QB
        prev_s = f"%sc{k}"
        prev_h = f"%hs{k}"
        A(f"""\
    %hist_{name} = tensor.extract_slice %histories[{k}, 0] [1, {L}] [1, 1]
        : tensor<6x{L}xf32> to tensor<{L}xf32>
    %nh_{name}, %ns_{name} = te.update_scale %res#{5 + k}, %hist_{name}, %s_{name}
        {{quantizer = {q}}} : tensor<{L}xf32>
    %sc{k + 1} = tensor.insert_slice %ns_{name} into {prev_s}[{k}] [1] [1]
        : tensor<1xf32> into tensor<6xf32>
    %hs{k + 1} = tensor.insert_slice %nh_{name} into {prev_h}[{k}, 0] [1, {L}] [1, 1]
        : tensor<{L}xf32> into tensor<6x{L}xf32>""")
    A(f"""\
    return %res#0, %res#1, %res#2, %res#3, %res#4, %sc6, %hs6
        : f32, tensor<{F}x{H}xf32>, tensor<{F}xf32>, tensor<{H}x{F}xf32>, tensor<{H}xf32>,
          tensor<6xf32>, tensor<6x{L}xf32>
  }}
}}
""")
    return "\n".join(out)


DELAYED_TITLE = ("FP8 delayed scaling (DelayedScaling, HYBRID: E4M3 forward, E5M2 backward, "
                 "amax history 1024)")
def emit_delayed(prefix):
    text = fmt(HEADER, title=DELAYED_TITLE,
               seedarg=",\n//                    scales: [6] f32, amax histories: [6, 1024] f32") \
        .replace("#scalar = affine_map<(d0, d1) -> ()>\n",
                 "#scalar = affine_map<(d0, d1) -> ()>\n#col = affine_map<(d0, d1) -> (d1)>\n")
    text = text.replace(
        "// over the microbatches",
        "// te.linear refuses delayed scaling (its scale and amax history are SSA\n"
        "// state), so each Linear is written as te.quantize + te.gemm with the live\n"
        "// scale, and the step ends with te.update_scale for the six quantizer slots\n"
        "// [x, w1, a, w2, dy, dh] (returns the new scales and histories)\n"
        "// over the microbatches")
    text = text.replace("-> (loss: f32, dW1: [{F}, {H}], db1: [{F}], dW2: [{H}, {F}], db2: [{H}] f32)".format(F=F, H=H),
                        "-> (loss: f32, dW1: [{F}, {H}], db1: [{F}], dW2: [{H}, {F}], db2: [{H}] f32,\n"
                        "//            new scales, new histories)".format(F=F, H=H))
    text = text.replace("    te.linear\n", "    te.quantize + te.gemm\n").replace(
        "backward (te.linear_grad)", "backward (te.gemm NN / NT)").replace(
        "loop-invariant: after te-decompose-linear,\n// te-eliminate-aliases",
        "loop-invariant:\n// te-eliminate-aliases")
    text += helpers() + "\n" + fmt(DELAYED_HELPERS) + "\n" + delayed_step() + delayed_tail()
    write(f"mlp-train-step-{prefix}delayed.mlir", text)


def dynamic_batch(text):
    """The program at T = "?": the whole dynamic batch is the one step of
    the loop (no static microbatches; none for an empty batch), and the
    helpers' tensors take their size from their operand."""
    fixes = [
        ("    %cmb = arith.constant ? : index\n",
         f"    %cmb = tensor.dim %x, %c0 : tensor<?x{H}xbf16>\n"),
        ("    %steps = arith.divui %tokens, %cmb : index\n",
         "    %steps = arith.minui %tokens, %c1 : index\n"),
        (f"[?, {H}] [1, 1]", f"[%cmb, {H}] [1, 1]"),
        (f"  func.func private @gelu(%h: tensor<?x{F}xbf16>) -> tensor<?x{F}xbf16> {{\n"
         f"    %init = tensor.empty() : tensor<?x{F}xbf16>\n",
         f"  func.func private @gelu(%h: tensor<?x{F}xbf16>) -> tensor<?x{F}xbf16> {{\n"
         f"    %c0 = arith.constant 0 : index\n"
         f"    %n = tensor.dim %h, %c0 : tensor<?x{F}xbf16>\n"
         f"    %init = tensor.empty(%n) : tensor<?x{F}xbf16>\n"),
        (f"      -> tensor<?x{F}xbf16> {{\n    %init = tensor.empty() : tensor<?x{F}xbf16>\n",
         f"      -> tensor<?x{F}xbf16> {{\n    %c0 = arith.constant 0 : index\n"
         f"    %n = tensor.dim %h, %c0 : tensor<?x{F}xbf16>\n"
         f"    %init = tensor.empty(%n) : tensor<?x{F}xbf16>\n"),
        (f"    %dinit = tensor.empty() : tensor<?x{H}xbf16>\n",
         f"    %c0 = arith.constant 0 : index\n    %n = tensor.dim %y, %c0 : tensor<?x{H}xbf16>\n"
         f"    %dinit = tensor.empty(%n) : tensor<?x{H}xbf16>\n"),
        ("// over the microbatches of ? tokens of the (dynamic) batch, with forward,",
         "// over the whole (dynamic) batch at once, one step of the loop (no static\n"
         "// microbatches: the quantized tensors have a dynamic leading dimension), with forward,"),
    ]
    fixes.append((f"[N*?, {H}]", f"[tokens, {H}]"))
    for old, new in fixes:
        if old not in text:
            raise SystemExit(f"generate.py: dynamic-batch rewrite found no {old!r}")
        text = text.replace(old, new)
    for left in ("arith.constant ? ", "tensor.empty() : tensor<?"):
        if left in text:
            raise SystemExit(f"generate.py: dynamic-batch rewrite left {left!r}")
    return text


_write_static = write


def main():
    global T, write
    emit_recipes("")
    emit_delayed("")
    # The same programs with a dynamic batch not sliced into microbatches
    # (mlp-train-step-dynamic-<recipe>.mlir).
    T = "?"
    write = lambda name, text: _write_static(name, dynamic_batch(text))
    emit_recipes("dynamic-")
    emit_delayed("dynamic-")


main()
