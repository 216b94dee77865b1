#!/usr/bin/env python3
"""Writes GPT transformer-block programs in the forms frontends emit.

The block (pre-LN, causal self-attention, GELU MLP; PyTorch's nanoGPT `Block`):

    a   = LN1(x)                              layernorm in f32, bf16 out
    qkv = a Wqkv^T + bqkv       [T, 3H]       te.linear, FP8 current scaling
    q, k, v: heads split        [B, NH, S, D] expand_shape + linalg.transpose
    o   = softmax(q k^T / sqrt(D) + causal) v    (the form's attention)
    h   = x + (o, heads merged) Wo^T + bo     te.linear
    out = h + gelu(LN2(h) W1^T + b1) W2^T + b2    te.linear x2, GELU (tanh)

with bf16 activations and parameters, T = B*S tokens, D = H / NH. Forms of
the attention (FORMS below):

  a   3-D: tensor.collapse_shape to [B*NH, S, D], K transposed by
      linalg.transpose, linalg.batch_matmul (f32 accumulator, truncf),
      scale multiplied in bf16, a causal mask tensor built by linalg.index
      i >= j (select 0 / -inf) and added, linalg.softmax in bf16
      (Torch-MLIR's lowering of nanoGPT's eager attention, SDPA decomposed)
  b   4-D einsum: linalg.generic contractions over [B, NH, S, D] (two batch
      loops, K transposed by the indexing map), the scale a bf16 division,
      masked_fill of the scores from iota tensors (cmpi sge, select -inf),
      the explicit softmax chain in f32 (extf, max, sub, exp, sum, div,
      truncf: Torch-MLIR's aten._softmax of bf16)
  c   as a with a dynamic batch (x: tensor<?xSxHxbf16>)
  d   te.attention {causal} on [B, NH, S, D] (a frontend that emits it)

Programs (FILE: entry):
  block-fwd-<form>.mlir: @block(x [B,S,H], ln1_w, ln1_b, wqkv [3H,H],
      bqkv [3H], wo [H,H], bo [H], ln2_w, ln2_b, w1 [F,H], b1 [F],
      w2 [H,F], b2 [H]) -> out [B,S,H]                    (bf16 throughout)
  block-train-<form>.mlir: @block_train(x, dout [B,S,H], the 12 parameters,
      their 12 fp32 gradient buffers) -> (dx [B,S,H] bf16, the 12 buffers
      + this step's gradients, fp32).  Backward: te.linear_grad (E5M2
      gradients), te.attention_grad, GELU and LayerNorm backward in linalg;
      forms d (static batch) and c (dynamic batch, te.attention on [?, ...]).

Usage:
  gen_block.py --out DIR [--batch 4 --seq 2048 --hidden 4096 --heads 32
               --ffn 16384] [--forms a,b,c,d] [--train-forms d,c] [--prefix P]
      writes P<name>.mlir into DIR and prints the file names
  gen_block.py --tests DIR [--forms ...] [--train-forms ...]
      writes the integration tests DIR/gpt-block-<name>.mlir: the programs
      at batch 2, sequence 64, hidden 256, 4 heads, ffn 512 with RUN lines
      against the oracle test/Integration/Inputs/gpt-block.py
"""
import argparse
import math
import os
import re
import sys

FORMS = ["a", "b", "c", "d"]
TRAIN_FORMS = ["d", "c"]
QF = "#te.current<f8E4M3FN>"
QB = "#te.current<f8E5M2>"
PARAMS = ["ln1_w", "ln1_b", "wqkv", "bqkv", "wo", "bo", "ln2_w", "ln2_b", "w1", "b1", "w2", "b2"]


def ty(dims, et):
    return "tensor<" + "x".join("?" if isinstance(d, str) else str(d) for d in dims) + "x" + et + ">"


def dyn(dims):
    return [d for d in dims if isinstance(d, str)]


def amap(n, res):
    ds = ", ".join(f"d{i}" for i in range(n))
    return f"affine_map<({ds}) -> ({', '.join(res)})>"


def ident(n):
    return amap(n, [f"d{i}" for i in range(n)])


class Emitter:
    """Writes one function body; every value gets a fresh name."""

    def __init__(self, indent="  "):
        self.lines = []
        self.n = 0
        self.ind = indent

    def fresh(self, base):
        self.n += 1
        return f"%{base}{self.n}"

    def emit(self, text):
        for line in text.split("\n"):
            self.lines.append(self.ind + line if line else "")

    def const(self, value, t):
        v = self.fresh("cst")
        self.emit(f"{v} = arith.constant {value} : {t}")
        return v

    def empty(self, dims, et):
        v = self.fresh("e")
        args = ", ".join(dyn(dims))
        self.emit(f"{v} = tensor.empty({args}) : {ty(dims, et)}")
        return v

    def filled(self, dims, et, value):
        e = self.empty(dims, et)
        c = self.const(value, et)
        v = self.fresh("z")
        self.emit(f"{v} = linalg.fill ins({c} : {et}) outs({e} : {ty(dims, et)}) -> {ty(dims, et)}")
        return v

    def generic(self, ins, outs, iters, body, name="g"):
        """ins/outs: [(value, dims, elem type, map)], body: lines using the
        block arguments %a0.. (ins then outs) ending in linalg.yield.
        Returns the result names."""
        if len(outs) == 1:
            res = [self.fresh(name)]
            lhs = f"{res[0]} = "
        else:
            base = self.fresh(name)
            lhs = f"{base}:{len(outs)} = "
            res = [f"{base}#{i}" for i in range(len(outs))]
        maps = ", ".join(m for _, _, _, m in ins + outs)
        its = ", ".join(f'"{i}"' for i in iters)
        ins_s = ", ".join(v for v, _, _, _ in ins)
        ins_t = ", ".join(ty(d, e) for _, d, e, _ in ins)
        outs_s = ", ".join(v for v, _, _, _ in outs)
        outs_t = ", ".join(ty(d, e) for _, d, e, _ in outs)
        args = ", ".join(f"%a{i}: {e}" for i, (_, _, e, _) in enumerate(ins + outs))
        self.emit(f"{lhs}linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}}")
        if ins:
            self.emit(f"    ins({ins_s} : {ins_t})")
        self.emit(f"    outs({outs_s} : {outs_t}) {{")
        self.emit(f"^bb0({args}):")
        # The body's own values get a leading underscore: a generic's region
        # sees the enclosing values, whose names never start with one.
        body = re.sub(r"%([A-Za-z][A-Za-z0-9_]*)",
                      lambda m: m.group(0) if re.fullmatch(r"a\d+", m.group(1)) else "%_" + m.group(1), body)
        for line in body.strip("\n").split("\n"):
            self.emit("  " + line.strip())
        self.emit(f"}} -> {outs_t}")
        return res

    def text(self):
        return "\n".join(self.lines)


# --- layers --------------------------------------------------------------------


def layernorm(E, x, T, H, w, b):
    """LayerNorm over the last dim of x [T, H] bf16 (eps 1e-5), statistics in
    f32. Returns (y bf16, mean f32 [T], rstd f32 [T])."""
    id2, row = ident(2), amap(2, ["d0"])
    z = E.filled([T], "f32", "0.0")
    (s,) = E.generic([(x, [T, H], "bf16", id2)], [(z, [T], "f32", row)], ["parallel", "reduction"], """
        %e = arith.extf %a0 : bf16 to f32
        %r = arith.addf %a1, %e : f32
        linalg.yield %r : f32""", "sum")
    em = E.empty([T], "f32")
    (mean,) = E.generic([(s, [T], "f32", ident(1))], [(em, [T], "f32", ident(1))], ["parallel"], f"""
        %n = arith.constant {float(H)!r} : f32
        %m = arith.divf %a0, %n : f32
        linalg.yield %m : f32""", "mean")
    (sq,) = E.generic([(x, [T, H], "bf16", id2), (mean, [T], "f32", row)], [(z, [T], "f32", row)],
                      ["parallel", "reduction"], """
        %e = arith.extf %a0 : bf16 to f32
        %d = arith.subf %e, %a1 : f32
        %d2 = arith.mulf %d, %d : f32
        %r = arith.addf %a2, %d2 : f32
        linalg.yield %r : f32""", "sq")
    er = E.empty([T], "f32")
    (rstd,) = E.generic([(sq, [T], "f32", ident(1))], [(er, [T], "f32", ident(1))], ["parallel"], f"""
        %n = arith.constant {float(H)!r} : f32
        %eps = arith.constant 1.0e-05 : f32
        %v = arith.divf %a0, %n : f32
        %ve = arith.addf %v, %eps : f32
        %r = math.rsqrt %ve : f32
        linalg.yield %r : f32""", "rstd")
    eo = E.empty([T, H], "bf16")
    col = amap(2, ["d1"])
    (y,) = E.generic([(x, [T, H], "bf16", id2), (mean, [T], "f32", row), (rstd, [T], "f32", row),
                      (w, [H], "bf16", col), (b, [H], "bf16", col)], [(eo, [T, H], "bf16", id2)],
                     ["parallel", "parallel"], """
        %e = arith.extf %a0 : bf16 to f32
        %d = arith.subf %e, %a1 : f32
        %xh = arith.mulf %d, %a2 : f32
        %wf = arith.extf %a3 : bf16 to f32
        %bf = arith.extf %a4 : bf16 to f32
        %y = arith.mulf %xh, %wf : f32
        %y2 = arith.addf %y, %bf : f32
        %t = arith.truncf %y2 : f32 to bf16
        linalg.yield %t : bf16""", "ln")
    return y, mean, rstd


def layernorm_grad(E, x, mean, rstd, w, dy, T, H):
    """Backward of layernorm: dx (bf16), dw, db (f32 [H]).
      xhat = (x - mean) rstd, g = dy w,
      dx = rstd (g - mean_j(g) - xhat mean_j(g xhat)),
      dw = sum_i dy xhat, db = sum_i dy."""
    id2, row, col = ident(2), amap(2, ["d0"]), amap(2, ["d1"])
    z = E.filled([T], "f32", "0.0")
    ins = [(x, [T, H], "bf16", id2), (mean, [T], "f32", row), (rstd, [T], "f32", row),
           (w, [H], "bf16", col), (dy, [T, H], "bf16", id2)]
    pre = """
        %e = arith.extf %a0 : bf16 to f32
        %d = arith.subf %e, %a1 : f32
        %xh = arith.mulf %d, %a2 : f32
        %wf = arith.extf %a3 : bf16 to f32
        %dyf = arith.extf %a4 : bf16 to f32
        %g = arith.mulf %dyf, %wf : f32"""
    (s1,) = E.generic(ins, [(z, [T], "f32", row)], ["parallel", "reduction"], pre + """
        %r = arith.addf %a5, %g : f32
        linalg.yield %r : f32""", "lng")
    (s2,) = E.generic(ins, [(z, [T], "f32", row)], ["parallel", "reduction"], pre + """
        %gx = arith.mulf %g, %xh : f32
        %r = arith.addf %a5, %gx : f32
        linalg.yield %r : f32""", "lngx")
    eo = E.empty([T, H], "bf16")
    (dx,) = E.generic(ins + [(s1, [T], "f32", row), (s2, [T], "f32", row)], [(eo, [T, H], "bf16", id2)],
                      ["parallel", "parallel"], pre + f"""
        %n = arith.constant {float(H)!r} : f32
        %m1 = arith.divf %a5, %n : f32
        %m2 = arith.divf %a6, %n : f32
        %t1 = arith.subf %g, %m1 : f32
        %t2 = arith.mulf %xh, %m2 : f32
        %t3 = arith.subf %t1, %t2 : f32
        %r = arith.mulf %t3, %a2 : f32
        %t = arith.truncf %r : f32 to bf16
        linalg.yield %t : bf16""", "lndx")
    zc = E.filled([H], "f32", "0.0")
    (dw,) = E.generic(ins[:3] + [(dy, [T, H], "bf16", id2)], [(zc, [H], "f32", col)], ["reduction", "parallel"], """
        %e = arith.extf %a0 : bf16 to f32
        %d = arith.subf %e, %a1 : f32
        %xh = arith.mulf %d, %a2 : f32
        %dyf = arith.extf %a3 : bf16 to f32
        %p = arith.mulf %dyf, %xh : f32
        %r = arith.addf %a4, %p : f32
        linalg.yield %r : f32""", "lndw")
    (db,) = E.generic([(dy, [T, H], "bf16", id2)], [(zc, [H], "f32", col)], ["reduction", "parallel"], """
        %dyf = arith.extf %a0 : bf16 to f32
        %r = arith.addf %a1, %dyf : f32
        linalg.yield %r : f32""", "lndb")
    return dx, dw, db


GELU = """
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k = arith.constant 0.797884583 : f32
    %c = arith.constant 0.044715 : f32
    %x = arith.extf %a0 : bf16 to f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %cx3 = arith.mulf %c, %x3 : f32
    %s = arith.addf %x, %cx3 : f32
    %u = arith.mulf %k, %s : f32
    %t = math.tanh %u : f32
    %opt = arith.addf %one, %t : f32"""


def gelu(E, h, T, F):
    """gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in f32."""
    e = E.empty([T, F], "bf16")
    (g,) = E.generic([(h, [T, F], "bf16", ident(2))], [(e, [T, F], "bf16", ident(2))],
                     ["parallel", "parallel"], GELU + """
        %hx = arith.mulf %half, %x : f32
        %g = arith.mulf %hx, %opt : f32
        %r = arith.truncf %g : f32 to bf16
        linalg.yield %r : bf16""", "gelu")
    return g


def gelu_grad(E, h, dg, T, F):
    """dh = dg gelu'(h), gelu'(x) = 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 0.044715 x^2)."""
    e = E.empty([T, F], "bf16")
    (d,) = E.generic([(h, [T, F], "bf16", ident(2)), (dg, [T, F], "bf16", ident(2))],
                     [(e, [T, F], "bf16", ident(2))], ["parallel", "parallel"], GELU + """
        %c3 = arith.constant 0.134145 : f32
        %left = arith.mulf %half, %opt : f32
        %t2 = arith.mulf %t, %t : f32
        %sech2 = arith.subf %one, %t2 : f32
        %c3x2 = arith.mulf %c3, %x2 : f32
        %du = arith.addf %one, %c3x2 : f32
        %kdu = arith.mulf %k, %du : f32
        %hx = arith.mulf %half, %x : f32
        %r0 = arith.mulf %hx, %sech2 : f32
        %right = arith.mulf %r0, %kdu : f32
        %dd = arith.addf %left, %right : f32
        %gf = arith.extf %a1 : bf16 to f32
        %dh = arith.mulf %gf, %dd : f32
        %r = arith.truncf %dh : f32 to bf16
        linalg.yield %r : bf16""", "dgelu")
    return d


def add(E, a, b, dims):
    e = E.empty(dims, "bf16")
    n = len(dims)
    (r,) = E.generic([(a, dims, "bf16", ident(n)), (b, dims, "bf16", ident(n))], [(e, dims, "bf16", ident(n))],
                     ["parallel"] * n, """
        %x = arith.extf %a0 : bf16 to f32
        %y = arith.extf %a1 : bf16 to f32
        %s = arith.addf %x, %y : f32
        %r = arith.truncf %s : f32 to bf16
        linalg.yield %r : bf16""", "res")
    return r


def accumulate(E, acc, g, dims, gty):
    """acc (f32) + g, elementwise: the gradient accumulation."""
    n = len(dims)
    if gty == "f32":
        body = """
        %s = arith.addf %a1, %a0 : f32
        linalg.yield %s : f32"""
    else:
        body = """
        %x = arith.extf %a0 : bf16 to f32
        %s = arith.addf %a1, %x : f32
        linalg.yield %s : f32"""
    (r,) = E.generic([(g, dims, gty, ident(n))], [(acc, dims, "f32", ident(n))], ["parallel"] * n, body, "acc")
    return r


def linear(E, x, w, b, T, IN, OUT):
    y, xs, ws = E.fresh("y"), E.fresh("xs"), E.fresh("ws")
    E.emit(f"{y}, {xs}, {ws} = te.linear {x}, {w} bias({b} : {ty([OUT], 'bf16')})\n"
           f"    {{input_quantizer = {QF}, weight_quantizer = {QF}}}\n"
           f"    : {ty([T, IN], 'bf16')}, {ty([OUT, IN], 'bf16')}")
    return y, xs, ws


def qt(dims, usage):
    return "!te.qtensor<" + "x".join("?" if isinstance(d, str) else str(d) for d in dims) + f"xbf16, {QF}, {usage}>"


def linear_grad(E, dy, xs, ws, T, IN, OUT):
    dx, dw, db = E.fresh("dx"), E.fresh("dw"), E.fresh("db")
    E.emit(f"{dx}, {dw}, {db} = te.linear_grad {dy}, {xs}, {ws}\n"
           f"    {{grad_output_quantizer = {QB}, has_bias}}\n"
           f"    : {ty([T, OUT], 'bf16')}, {qt([T, IN], 'columnwise')},\n"
           f"      {qt([OUT, IN], 'rowwise|columnwise')}")
    return dx, dw, db


# --- heads -----------------------------------------------------------------------


def split_heads(E, qkv, cfg, which):
    """qkv [T, 3H] -> q, k or v [B, NH, S, D] (nanoGPT: split, view, transpose(1, 2))."""
    B, S, H, NH, D, T = cfg["B"], cfg["S"], cfg["H"], cfg["NH"], cfg["D"], cfg["T"]
    sl = E.fresh("sl")
    off = which * H
    E.emit(f"{sl} = tensor.extract_slice {qkv}[0, {off}] [{fmt_dim(T)}, {H}] [1, 1]\n"
           f"    : {ty([T, 3 * H], 'bf16')} to {ty([T, H], 'bf16')}")
    ex = E.fresh("ex")
    E.emit(f"{ex} = tensor.expand_shape {sl} [[0, 1], [2, 3]] output_shape [{fmt_dim(B)}, {S}, {NH}, {D}]\n"
           f"    : {ty([T, H], 'bf16')} into {ty([B, S, NH, D], 'bf16')}")
    e = E.empty([B, NH, S, D], "bf16")
    tr = E.fresh("heads")
    E.emit(f"{tr} = linalg.transpose ins({ex} : {ty([B, S, NH, D], 'bf16')})\n"
           f"    outs({e} : {ty([B, NH, S, D], 'bf16')}) permutation = [0, 2, 1, 3]")
    return tr


def merge_heads(E, o, cfg):
    """[B, NH, S, D] -> [T, H] (transpose(1, 2), contiguous, view)."""
    B, S, H, NH, D, T = cfg["B"], cfg["S"], cfg["H"], cfg["NH"], cfg["D"], cfg["T"]
    e = E.empty([B, S, NH, D], "bf16")
    tr = E.fresh("mt")
    E.emit(f"{tr} = linalg.transpose ins({o} : {ty([B, NH, S, D], 'bf16')})\n"
           f"    outs({e} : {ty([B, S, NH, D], 'bf16')}) permutation = [0, 2, 1, 3]")
    c = E.fresh("merged")
    E.emit(f"{c} = tensor.collapse_shape {tr} [[0, 1], [2, 3]]\n"
           f"    : {ty([B, S, NH, D], 'bf16')} into {ty([T, H], 'bf16')}")
    return c


def fmt_dim(d):
    return d if isinstance(d, str) else str(d)


def bf16_const(x):
    """The bf16 nearest x (round to nearest even), as MLIR's hex float of bf16."""
    import struct
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return f"0x{bits:04X}"


# --- attention forms ---------------------------------------------------------------


def attention_3d(E, q, k, v, cfg):
    """Form a / c: collapse to [B*NH, S, D], batch_matmul, linalg.softmax (bf16)."""
    B, S, NH, D = cfg["B"], cfg["S"], cfg["NH"], cfg["D"]
    BH = E.fresh("bh") if isinstance(B, str) else B * NH
    if isinstance(B, str):
        c = E.const(NH, "index")
        E.emit(f"{BH} = arith.muli {B}, {c} : index")
    d4, d3 = [B, NH, S, D], [BH, S, D]

    def collapse(x, dims4, dims3):
        r = E.fresh("c3")
        E.emit(f"{r} = tensor.collapse_shape {x} [[0, 1], [2], [3]]\n"
               f"    : {ty(dims4, 'bf16')} into {ty(dims3, 'bf16')}")
        return r

    q3 = collapse(q, d4, d3)
    ek = E.empty([B, NH, D, S], "bf16")
    kt = E.fresh("kt")
    E.emit(f"{kt} = linalg.transpose ins({k} : {ty(d4, 'bf16')})\n"
           f"    outs({ek} : {ty([B, NH, D, S], 'bf16')}) permutation = [0, 1, 3, 2]")
    kt3 = collapse(kt, [B, NH, D, S], [BH, D, S])
    v3 = collapse(v, d4, d3)
    acc = E.filled([BH, S, S], "f32", "0.0")
    s32 = E.fresh("scores")
    E.emit(f"{s32} = linalg.batch_matmul ins({q3}, {kt3} : {ty(d3, 'bf16')}, {ty([BH, D, S], 'bf16')})\n"
           f"    outs({acc} : {ty([BH, S, S], 'f32')}) -> {ty([BH, S, S], 'f32')}")
    id3 = ident(3)
    e = E.empty([BH, S, S], "bf16")
    (s16,) = E.generic([(s32, [BH, S, S], "f32", id3)], [(e, [BH, S, S], "bf16", id3)], ["parallel"] * 3, """
        %t = arith.truncf %a0 : f32 to bf16
        linalg.yield %t : bf16""", "s16_")
    # att * (1.0 / math.sqrt(D)): a bf16 scalar multiply.
    e2 = E.empty([BH, S, S], "bf16")
    (ss,) = E.generic([(s16, [BH, S, S], "bf16", id3)], [(e2, [BH, S, S], "bf16", id3)], ["parallel"] * 3, f"""
        %sc = arith.constant {bf16_const(1.0 / math.sqrt(D))} : bf16
        %m = arith.mulf %a0, %sc : bf16
        linalg.yield %m : bf16""", "scaled")
    # The causal mask as torch-mlir materializes it: i >= j ? 0 : -inf.
    em = E.empty([S, S], "bf16")
    (mask,) = E.generic([], [(em, [S, S], "bf16", ident(2))], ["parallel", "parallel"], """
        %i = linalg.index 0 : index
        %j = linalg.index 1 : index
        %keep = arith.cmpi sge, %i, %j : index
        %zero = arith.constant 0.0 : bf16
        %ninf = arith.constant 0xFF80 : bf16
        %m = arith.select %keep, %zero, %ninf : bf16
        linalg.yield %m : bf16""", "causal")
    e3 = E.empty([BH, S, S], "bf16")
    (sm,) = E.generic([(ss, [BH, S, S], "bf16", id3), (mask, [S, S], "bf16", amap(3, ["d1", "d2"]))],
                      [(e3, [BH, S, S], "bf16", id3)], ["parallel"] * 3, """
        %s = arith.addf %a0, %a1 : bf16
        linalg.yield %s : bf16""", "masked")
    e4 = E.empty([BH, S, S], "bf16")
    p = E.fresh("probs")
    E.emit(f"{p} = linalg.softmax dimension(2) ins({sm} : {ty([BH, S, S], 'bf16')})\n"
           f"    outs({e4} : {ty([BH, S, S], 'bf16')}) -> {ty([BH, S, S], 'bf16')}")
    acc2 = E.filled([BH, S, D], "f32", "0.0")
    o32 = E.fresh("pv")
    E.emit(f"{o32} = linalg.batch_matmul ins({p}, {v3} : {ty([BH, S, S], 'bf16')}, {ty(d3, 'bf16')})\n"
           f"    outs({acc2} : {ty(d3, 'f32')}) -> {ty(d3, 'f32')}")
    e5 = E.empty(d3, "bf16")
    (o16,) = E.generic([(o32, d3, "f32", id3)], [(e5, d3, "bf16", id3)], ["parallel"] * 3, """
        %t = arith.truncf %a0 : f32 to bf16
        linalg.yield %t : bf16""", "o16_")
    o4 = E.fresh("o4")
    E.emit(f"{o4} = tensor.expand_shape {o16} [[0, 1], [2], [3]] output_shape [{fmt_dim(B)}, {NH}, {S}, {D}]\n"
           f"    : {ty(d3, 'bf16')} into {ty(d4, 'bf16')}")
    return o4


def attention_4d(E, q, k, v, cfg):
    """Form b: einsum-style generics over [B, NH, S, D], explicit f32 softmax chain."""
    B, S, NH, D = cfg["B"], cfg["S"], cfg["NH"], cfg["D"]
    d4, s4 = [B, NH, S, D], [B, NH, S, S]
    id4 = ident(4)
    # torch.einsum("bhid,bhjd->bhij", q, k): f32 accumulator, truncf.
    acc = E.filled(s4, "f32", "0.0")
    (s32,) = E.generic([(q, d4, "bf16", amap(5, ["d0", "d1", "d2", "d4"])),
                        (k, d4, "bf16", amap(5, ["d0", "d1", "d3", "d4"]))],
                       [(acc, s4, "f32", amap(5, ["d0", "d1", "d2", "d3"]))],
                       ["parallel"] * 4 + ["reduction"], """
        %x = arith.extf %a0 : bf16 to f32
        %y = arith.extf %a1 : bf16 to f32
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %a2, %p : f32
        linalg.yield %s : f32""", "qk")
    e = E.empty(s4, "bf16")
    (s16,) = E.generic([(s32, s4, "f32", id4)], [(e, s4, "bf16", id4)], ["parallel"] * 4, """
        %t = arith.truncf %a0 : f32 to bf16
        linalg.yield %t : bf16""", "s16_")
    # att / math.sqrt(D): a bf16 division.
    e2 = E.empty(s4, "bf16")
    (ss,) = E.generic([(s16, s4, "bf16", id4)], [(e2, s4, "bf16", id4)], ["parallel"] * 4, f"""
        %sc = arith.constant {bf16_const(math.sqrt(D))} : bf16
        %m = arith.divf %a0, %sc : bf16
        linalg.yield %m : bf16""", "scaled")
    # Iota tensors of the query and key positions, masked_fill(j > i, -inf).
    ei = E.empty([S], "i64")
    (iota,) = E.generic([], [(ei, [S], "i64", ident(1))], ["parallel"], """
        %i = linalg.index 0 : index
        %c = arith.index_cast %i : index to i64
        linalg.yield %c : i64""", "iota")
    e3 = E.empty(s4, "bf16")
    (sm,) = E.generic([(ss, s4, "bf16", id4), (iota, [S], "i64", amap(4, ["d2"])),
                       (iota, [S], "i64", amap(4, ["d3"]))], [(e3, s4, "bf16", id4)], ["parallel"] * 4, """
        %keep = arith.cmpi sge, %a1, %a2 : i64
        %ninf = arith.constant 0xFF80 : bf16
        %m = arith.select %keep, %a0, %ninf : bf16
        linalg.yield %m : bf16""", "masked")
    # aten._softmax(x, -1) of bf16: extf, max, sub, exp, sum, div, truncf.
    e4 = E.empty(s4, "f32")
    (xf,) = E.generic([(sm, s4, "bf16", id4)], [(e4, s4, "f32", id4)], ["parallel"] * 4, """
        %x = arith.extf %a0 : bf16 to f32
        linalg.yield %x : f32""", "sf")
    r3 = [B, NH, S]
    rmap = amap(4, ["d0", "d1", "d2"])
    mx0 = E.filled(r3, "f32", "0xFF800000")
    (mx,) = E.generic([(xf, s4, "f32", id4)], [(mx0, r3, "f32", rmap)], ["parallel"] * 3 + ["reduction"], """
        %m = arith.maximumf %a0, %a1 : f32
        linalg.yield %m : f32""", "rowmax")
    e5 = E.empty(s4, "f32")
    (ex,) = E.generic([(xf, s4, "f32", id4), (mx, r3, "f32", rmap)], [(e5, s4, "f32", id4)], ["parallel"] * 4, """
        %d = arith.subf %a0, %a1 : f32
        %x = math.exp %d : f32
        linalg.yield %x : f32""", "exp")
    sum0 = E.filled(r3, "f32", "0.0")
    (sm_,) = E.generic([(ex, s4, "f32", id4)], [(sum0, r3, "f32", rmap)], ["parallel"] * 3 + ["reduction"], """
        %s = arith.addf %a0, %a1 : f32
        linalg.yield %s : f32""", "rowsum")
    e6 = E.empty(s4, "f32")
    (pf,) = E.generic([(ex, s4, "f32", id4), (sm_, r3, "f32", rmap)], [(e6, s4, "f32", id4)], ["parallel"] * 4, """
        %p = arith.divf %a0, %a1 : f32
        linalg.yield %p : f32""", "div")
    e7 = E.empty(s4, "bf16")
    (p,) = E.generic([(pf, s4, "f32", id4)], [(e7, s4, "bf16", id4)], ["parallel"] * 4, """
        %t = arith.truncf %a0 : f32 to bf16
        linalg.yield %t : bf16""", "probs")
    # torch.einsum("bhij,bhjd->bhid", p, v).
    acc2 = E.filled(d4, "f32", "0.0")
    (o32,) = E.generic([(p, s4, "bf16", amap(5, ["d0", "d1", "d2", "d4"])),
                        (v, d4, "bf16", amap(5, ["d0", "d1", "d4", "d3"]))],
                       [(acc2, d4, "f32", amap(5, ["d0", "d1", "d2", "d3"]))],
                       ["parallel"] * 4 + ["reduction"], """
        %x = arith.extf %a0 : bf16 to f32
        %y = arith.extf %a1 : bf16 to f32
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %a2, %p : f32
        linalg.yield %s : f32""", "pv")
    e8 = E.empty(d4, "bf16")
    (o,) = E.generic([(o32, d4, "f32", id4)], [(e8, d4, "bf16", id4)], ["parallel"] * 4, """
        %t = arith.truncf %a0 : f32 to bf16
        linalg.yield %t : bf16""", "o16_")
    return o


def attention_op(E, q, k, v, cfg):
    """Form d: te.attention {causal} (scale absent: 1/sqrt(D))."""
    B, S, NH, D = cfg["B"], cfg["S"], cfg["NH"], cfg["D"]
    t = ty([B, NH, S, D], "bf16")
    o, lse = E.fresh("attn"), E.fresh("lse")
    E.emit(f"{o}, {lse} = te.attention {q}, {k}, {v} {{causal}}\n    : {t}, {t}, {t}")
    return o, lse


# --- programs ------------------------------------------------------------------------


def param_types(H, F):
    return {"ln1_w": [H], "ln1_b": [H], "wqkv": [3 * H, H], "bqkv": [3 * H], "wo": [H, H], "bo": [H],
            "ln2_w": [H], "ln2_b": [H], "w1": [F, H], "b1": [F], "w2": [H, F], "b2": [H]}


def program(form, train, a, tests=False):
    B, S, H, NH, F = a.batch, a.seq, a.hidden, a.heads, a.ffn
    if H % NH:
        sys.exit(f"gen_block.py: hidden {H} is not a multiple of heads {NH}")
    D = H // NH
    dynamic = form == "c"
    E = Emitter()
    Bd = "%nb" if dynamic else B
    Td = "%ntok" if dynamic else B * S
    cfg = {"B": Bd, "S": S, "H": H, "NH": NH, "D": D, "T": Td}
    pt = param_types(H, F)
    xdims = ["?" if dynamic else B, S, H]

    def xt():
        return ty([Bd, S, H], "bf16")

    args = [f"%x: {xt()}"]
    if train:
        args.append(f"%dout: {xt()}")
    args += [f"%{p}: {ty(pt[p], 'bf16')}" for p in PARAMS]
    if train:
        args += [f"%acc_{p}: {ty(pt[p], 'f32')}" for p in PARAMS]
    results = [xt()] + ([ty(pt[p], "f32") for p in PARAMS] if train else [])
    name = "block_train" if train else "block"

    if dynamic:
        E.emit("%c0 = arith.constant 0 : index")
        E.emit(f"%nb = tensor.dim %x, %c0 : {xt()}")
        E.emit(f"%cs = arith.constant {S} : index")
        E.emit("%ntok = arith.muli %nb, %cs : index")
    x2 = E.fresh("x2d")
    E.emit(f"{x2} = tensor.collapse_shape %x [[0, 1], [2]] : {xt()} into {ty([Td, H], 'bf16')}")
    T = Td
    # Attention sub-block.
    E.emit("// Attention: LN1, QKV projection, heads, attention, output projection.")
    ln1, mean1, rstd1 = layernorm(E, x2, T, H, "%ln1_w", "%ln1_b")
    qkv, qkv_xs, qkv_ws = linear(E, ln1, "%wqkv", "%bqkv", T, H, 3 * H)
    q = split_heads(E, qkv, cfg, 0)
    k = split_heads(E, qkv, cfg, 1)
    v = split_heads(E, qkv, cfg, 2)
    lse = None
    if form in ("a", "c") and not train:
        o = attention_3d(E, q, k, v, cfg)
    elif form == "b" and not train:
        o = attention_4d(E, q, k, v, cfg)
    else:
        o, lse = attention_op(E, q, k, v, cfg)
    att = merge_heads(E, o, cfg)
    y, o_xs, o_ws = linear(E, att, "%wo", "%bo", T, H, H)
    h1 = add(E, x2, y, [T, H])
    E.emit("// MLP sub-block: LN2, fc1, GELU, fc2.")
    ln2, mean2, rstd2 = layernorm(E, h1, T, H, "%ln2_w", "%ln2_b")
    f1, f1_xs, f1_ws = linear(E, ln2, "%w1", "%b1", T, H, F)
    g = gelu(E, f1, T, F)
    f2, f2_xs, f2_ws = linear(E, g, "%w2", "%b2", T, F, H)
    out = add(E, h1, f2, [T, H])
    rets = []
    if not train:
        r = E.fresh("out")
        E.emit(f"{r} = tensor.expand_shape {out} [[0, 1], [2]] output_shape [{fmt_dim(Bd)}, {S}, {H}]\n"
               f"    : {ty([T, H], 'bf16')} into {xt()}")
        rets = [r]
    else:
        E.emit("// Backward, from dout = dL/dout.")
        dout = E.fresh("dout2d")
        E.emit(f"{dout} = tensor.collapse_shape %dout [[0, 1], [2]] : {xt()} into {ty([T, H], 'bf16')}")
        dg, dw2, db2 = linear_grad(E, dout, f2_xs, f2_ws, T, F, H)
        df1 = gelu_grad(E, f1, dg, T, F)
        dln2, dw1, db1 = linear_grad(E, df1, f1_xs, f1_ws, T, H, F)
        dh1_ln, dln2w, dln2b = layernorm_grad(E, h1, mean2, rstd2, "%ln2_w", dln2, T, H)
        dh1 = add(E, dout, dh1_ln, [T, H])
        datt, dwo, dbo = linear_grad(E, dh1, o_xs, o_ws, T, H, H)
        dO = split_heads_from(E, datt, cfg)
        t4 = ty([Bd, NH, S, D], "bf16")
        lt = ty([Bd, NH, S], "f32")
        dq, dk, dv = E.fresh("dq"), E.fresh("dk"), E.fresh("dv")
        E.emit(f"{dq}, {dk}, {dv} = te.attention_grad {q}, {k}, {v}, {o}, {lse}, {dO} {{causal}}\n"
               f"    : {t4}, {t4}, {t4}, {t4}, {lt}, {t4}")
        # The heads of dq, dk, dv merged back into dqkv [T, 3H].
        dqkv0 = E.empty([T, 3 * H], "bf16")
        cur = dqkv0
        for i, dx_ in enumerate([dq, dk, dv]):
            m = merge_heads(E, dx_, cfg)
            nxt = E.fresh("dqkv")
            E.emit(f"{nxt} = tensor.insert_slice {m} into {cur}[0, {i * H}] [{fmt_dim(T)}, {H}] [1, 1]\n"
                   f"    : {ty([T, H], 'bf16')} into {ty([T, 3 * H], 'bf16')}")
            cur = nxt
        dln1, dwqkv, dbqkv = linear_grad(E, cur, qkv_xs, qkv_ws, T, H, 3 * H)
        dx_ln, dln1w, dln1b = layernorm_grad(E, x2, mean1, rstd1, "%ln1_w", dln1, T, H)
        dx = add(E, dh1, dx_ln, [T, H])
        r = E.fresh("dx")
        E.emit(f"{r} = tensor.expand_shape {dx} [[0, 1], [2]] output_shape [{fmt_dim(Bd)}, {S}, {H}]\n"
               f"    : {ty([T, H], 'bf16')} into {xt()}")
        rets = [r]
        E.emit("// fp32 gradient accumulation into the parameters' gradient buffers.")
        grads = {"ln1_w": (dln1w, "f32"), "ln1_b": (dln1b, "f32"), "wqkv": (dwqkv, "bf16"),
                 "bqkv": (dbqkv, "bf16"), "wo": (dwo, "bf16"), "bo": (dbo, "bf16"),
                 "ln2_w": (dln2w, "f32"), "ln2_b": (dln2b, "f32"), "w1": (dw1, "bf16"),
                 "b1": (db1, "bf16"), "w2": (dw2, "bf16"), "b2": (db2, "bf16")}
        for p in PARAMS:
            gv, gt = grads[p]
            rets.append(accumulate(E, f"%acc_{p}", gv, pt[p], gt))
    E.emit(f"return {', '.join(rets)} : {', '.join(results)}")

    desc = {"a": "3-D linalg.batch_matmul over [B*NH, S, D] (collapse_shape), linalg.softmax in bf16, "
                 "causal mask from linalg.index (i >= j ? 0 : -inf) added",
            "b": "4-D linalg.generic contractions over [B, NH, S, D], the explicit f32 softmax chain "
                 "(extf, max, sub, exp, sum, div, truncf), causal masked_fill from iota tensors",
            "c": "as a, with a dynamic batch dimension",
            "d": "te.attention {causal} on [B, NH, S, D]"}[form]
    if train:
        desc = ("te.attention {causal} + te.attention_grad" +
                (", dynamic batch" if dynamic else "") + " (a frontend that emits them)")
    bs = "?" if dynamic else str(B)
    head = [
        f"// GPT block {'training step' if train else 'forward'}, form {form}: {desc}.",
        f"// Batch {bs}, sequence {S}, hidden {H}, {NH} heads (head dim {D}), ffn {F}; pre-LN, causal",
        "// self-attention, FP8 current-scaling te.linear (E4M3 forward"
        + (", E5M2 gradients" if train else "") + "), GELU (tanh), bf16.",
    ]
    if train:
        head.append("// @block_train(x, dout, 12 parameters, their 12 fp32 gradient buffers)"
                    " -> (dx, the buffers + gradients).")
    else:
        head.append("// @block(x, ln1_w, ln1_b, wqkv, bqkv, wo, bo, ln2_w, ln2_b, w1, b1, w2, b2) -> out.")
    head.append("// Generated by bench/block/gen_block.py" + (" --tests test/Integration." if tests else "."))
    sig = ",\n        ".join(args)
    text = "\n".join(head) + "\n" + (test_header(form, train) if tests else "") + "\nmodule {\n" + \
        f"  func.func @{name}({sig})\n      -> ({', '.join(results)}) {{\n" + \
        "\n".join("  " + l if l else "" for l in E.lines) + "\n  }\n}\n"
    return text


def split_heads_from(E, t, cfg):
    """A [T, H] gradient -> [B, NH, S, D]."""
    B, S, H, NH, D, T = cfg["B"], cfg["S"], cfg["H"], cfg["NH"], cfg["D"], cfg["T"]
    ex = E.fresh("ex")
    E.emit(f"{ex} = tensor.expand_shape {t} [[0, 1], [2, 3]] output_shape [{fmt_dim(B)}, {S}, {NH}, {D}]\n"
           f"    : {ty([T, H], 'bf16')} into {ty([B, S, NH, D], 'bf16')}")
    e = E.empty([B, NH, S, D], "bf16")
    tr = E.fresh("dheads")
    E.emit(f"{tr} = linalg.transpose ins({ex} : {ty([B, S, NH, D], 'bf16')})\n"
           f"    outs({e} : {ty([B, NH, S, D], 'bf16')}) permutation = [0, 2, 1, 3]")
    return tr


TEST_SIZE = {"batch": 2, "seq": 64, "hidden": 256, "heads": 4, "ffn": 512}


def test_header(form, train):
    """The RUN lines of an integration test (lit) of one program."""
    inputs = " ".join(f"--input %t/{n}.npy" for n in (["x", "dout"] if train else ["x"]) + PARAMS)
    if train:
        inputs += " " + " ".join(f"--input %t/acc_{n}.npy" for n in PARAMS)
    entry = "block_train" if train else "block"
    wants = ["dx"] + [f"acc_{n}" for n in PARAMS] if train else ["out"]
    cmp = " ".join(f"--compare %t/want-{w}.npy" for w in wants)
    cmp_twin = " ".join(f"--compare %t/want-{w}-twin.npy" for w in wants)
    # LayerNorm weights 0.05 and biases 0: with every argument standard
    # normal the scores are in the hundreds, the softmax picks one key and a
    # rounding difference (cuda against cpu) moves the results by tens of
    # percent; so the scores stay of order one.
    first = 2 if train else 1
    fills = f"--fill {first}=0.05 --fill {first + 1}=0 --fill {first + 6}=0.05 --fill {first + 7}=0"
    seed = "--seed 1 " + fills + (" --dynamic-dim 2" if form == "c" else "")
    tol = 0.04 if train else (0.01 if form == "d" else 0.05)
    n = len(wants)
    lines = [
        "//",
        f"// RUN: rm -rf %t && %python %S/Inputs/gpt-block.py %t {'train' if train else 'fwd'}",
        "//",
        "// The FP8 program against the oracle, which quantizes as current scaling",
        "// does (normwise). The program rounds to bf16 where the oracle keeps",
        "// doubles, and each FP8 quantization downstream turns such a rounding",
        "// difference into a whole FP8 step now and then. te.attention keeps the",
        "// scores and probabilities in f32 as the oracle does (0.2% forward, about",
        "// 1% for the gradients); the literal forms, if not raised to it, round",
        "// them to bf16 (3%). A wrong mask, scale or head layout is tens of percent.",
        f"// RUN: te-run %s --entry {entry} {inputs} \\",
        f"// RUN:   --atol 1e30 --max-rel-err {tol} {cmp} | FileCheck %s",
        "//",
        "// The high-precision twin (te ops as f32 arithmetic, no quantization)",
        "// against the oracle without quantization: the bf16 roundings alone.",
        f"// RUN: te-run %s --reference --entry {entry} {inputs} \\",
        f"// RUN:   --atol 1e30 --max-rel-err 0.01 {cmp_twin} | FileCheck %s",
        "//",
        "// Standard-normal arguments but the LayerNorms' (0.05, 0: scores of order",
        "// one, not a one-hot softmax that any rounding difference moves): what",
        "// scripts/gpu/gpu-programs.py runs on the GPU against the cpu backend.",
        f"// RUN: te-run %s --entry {entry} {seed} | FileCheck %s --check-prefix=SEED",
        "//",
        "// Compiled for sm_90 (kernels and runtime calls; no linalg left).",
        "// RUN: %if cuda-toolkit %{ te-opt %s --te-pipeline=\"target=sm_90\" | FileCheck %s --check-prefix=SM90 --implicit-check-not='{{^ *}}linalg.' %}",
        "//",
    ]
    lines += [f"// CHECK: result {i}: PASS" for i in range(n)]
    B, S, H = TEST_SIZE["batch"], TEST_SIZE["seq"], TEST_SIZE["hidden"]
    shapes = [f"bf16[{B},{S},{H}]"] + [f"f32[{','.join(map(str, d))}]"
                                         for d in param_types(H, TEST_SIZE["ffn"]).values()]
    lines += [f"// SEED: result {i}: {shapes[i]}" for i in range(n)]
    lines += ["// SM90-DAG: gpu.binary", f"// SM90-DAG: llvm.func @{entry}("]
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", help="output directory")
    p.add_argument("--tests", help="write the integration tests into this directory")
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--ffn", type=int, default=16384)
    p.add_argument("--forms", default=",".join(FORMS), help="forward forms (default %(default)s)")
    p.add_argument("--train-forms", default=",".join(TRAIN_FORMS),
                   help="training-step forms, d and/or c (default %(default)s)")
    p.add_argument("--prefix", default="", help="file name prefix")
    a = p.parse_args()
    if bool(a.out) == bool(a.tests):
        sys.exit("gen_block.py: give --out DIR or --tests DIR")
    if a.tests:
        for k, v in TEST_SIZE.items():
            setattr(a, k, v)
        a.prefix, a.out = "gpt-", a.tests
    os.makedirs(a.out, exist_ok=True)
    names = []
    for form in [f for f in a.forms.split(",") if f]:
        if form not in FORMS:
            sys.exit(f"gen_block.py: unknown form {form!r} (forms: {', '.join(FORMS)})")
        names.append((f"{a.prefix}block-fwd-{form}.mlir", program(form, False, a, a.tests)))
    for form in [f for f in a.train_forms.split(",") if f]:
        if form not in TRAIN_FORMS:
            sys.exit(f"gen_block.py: no training step of form {form!r} (forms: {', '.join(TRAIN_FORMS)})")
        names.append((f"{a.prefix}block-train-{form}.mlir", program(form, True, a, a.tests)))
    for n, text in names:
        with open(os.path.join(a.out, n), "w") as f:
            f.write(text)
        print(n)


if __name__ == "__main__":
    main()
