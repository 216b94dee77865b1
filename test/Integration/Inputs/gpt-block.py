#!/usr/bin/env python3
"""Inputs and expected results of the gpt-block-*.mlir tests, without NumPy.

  gpt-block.py DIR fwd|train [--batch 2 --seq 64 --hidden 256 --heads 4 --ffn 512]

The GPT block of bench/block/gen_block.py (pre-LN, causal self-attention,
FP8 current-scaling linears, GELU MLP, bf16), computed here from its
definition in double precision, rounded to bf16 where the program stores
bf16:

  LayerNorm   mean and variance of the row, (x - mean) / sqrt(var + 1e-5) * w + b
  linear      current scaling (docs/formats.md 3.2): scale = f32(448 / amax),
              q = e4m3(f32(x * scale)) (nearest even, saturating); the same for
              the weight; y = sum(qx * qw) / (scale_x * scale_w) + bias
  attention   softmax(q k^T / sqrt(D), keys j <= i) v per batch and head,
              without rounding the scores or the probabilities (the fused
              op keeps them in f32; the literal forms round them to bf16:
              the tests' tolerance covers it)
  GELU        0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))

train: the backward from dout: te.linear_grad (dY quantized to E5M2 with
scale f32(57344 / amax); dgrad = dYq Wq, wgrad = dYq^T Xq, both unscaled by
the two scales; bias gradient = the sum of the bf16 dY), the attention's
(P = exp(scale q k^T - lse), dV = P^T dO, dP = dO V^T, D = rowsum(dO o O),
dS = P (dP - D), dQ = scale dS K, dK = scale dS^T Q), GELU's and
LayerNorm's derivatives, and each parameter's gradient added to its fp32
buffer (random, so that the addition is checked).

Writes <f4 .npy files: x, the 12 parameters (ln1_w ... b2, as the entry
takes them), want-out (fwd); dout, acc_<p> and want-dx, want-acc_<p>
(train). Inputs are bf16 values (the program reads the same numbers). The
expected results once more without quantization, want-*-twin.npy: what the
high-precision twin (te-run --reference) computes.
"""
import argparse
import math
import os
import random
import sys
from operator import mul

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402
from npyfile import bf16, f32  # noqa: E402

PARAMS = ["ln1_w", "ln1_b", "wqkv", "bqkv", "wo", "bo", "ln2_w", "ln2_b", "w1", "b1", "w2", "b2"]


def fp8(x, mbits, emin, fmax):
    """x rounded to the FP8 grid (mbits mantissa bits, smallest normal
    exponent emin), nearest even, saturated to +-fmax."""
    if x == 0.0:
        return 0.0
    e = max(math.frexp(abs(x))[1] - 1, emin)
    quantum = math.ldexp(1.0, e - mbits)
    r = round(x / quantum) * quantum  # round() is nearest even
    return max(-fmax, min(fmax, r))


# False: the high-precision twin (te-pipeline{reference}), whose te.linear
# and te.linear_grad are plain f32-accumulated products, without quantization.
FP8 = [True]
E4M3 = (3, -6, 448.0)
E5M2 = (2, -14, 57344.0)


def quantize(m, fmt):
    """Per-tensor current scaling of a matrix: (q, scale)."""
    if not FP8[0]:
        return m, 1.0
    amax = max(abs(v) for row in m for v in row)
    scale = f32(fmt[2] / amax) if amax > 0 else 1.0
    return [[fp8(f32(v * scale), *fmt) for v in row] for row in m], scale


def transpose(m):
    return [list(c) for c in zip(*m)]


def matmul_t(a, bt):
    """a [M, K] times bt^T ([N, K] given): [M, N], in double."""
    return [[sum(map(mul, ra, rb)) for rb in bt] for ra in a]


def bf16m(m):
    return [[bf16(v) for v in row] for row in m]


def linear(x, w, b):
    """te.linear: (y, saved (qx, sx), saved (qw, sw))."""
    qx, sx = quantize(x, E4M3)
    qw, sw = quantize(w, E4M3)
    acc = matmul_t(qx, qw)
    y = [[bf16(v / (sx * sw) + bb) for v, bb in zip(row, b)] for row in acc]
    return y, (qx, sx), (qw, sw)


def linear_grad(dy, saved_x, saved_w):
    """te.linear_grad: (dx, dw, db), bf16."""
    qx, sx = saved_x
    qw, sw = saved_w
    qd, sd = quantize(dy, E5M2)
    dx = [[bf16(v / (sd * sw)) for v in row] for row in matmul_t(qd, transpose(qw))]
    dw = [[bf16(v / (sd * sx)) for v in row] for row in matmul_t(transpose(qd), transpose(qx))]
    db = [bf16(math.fsum(c)) for c in zip(*dy)]
    return dx, dw, db


def layernorm(x, w, b):
    y, stats = [], []
    n = len(x[0])
    for row in x:
        mean = math.fsum(row) / n
        var = math.fsum((v - mean) ** 2 for v in row) / n
        rstd = 1.0 / math.sqrt(var + f32(1e-5))
        stats.append((mean, rstd))
        y.append([bf16((v - mean) * rstd * ww + bb) for v, ww, bb in zip(row, w, b)])
    return y, stats


def layernorm_grad(x, stats, w, dy):
    n = len(x[0])
    dx, dw, db = [], [0.0] * n, [0.0] * n
    for row, (mean, rstd), drow in zip(x, stats, dy):
        xh = [(v - mean) * rstd for v in row]
        g = [d * ww for d, ww in zip(drow, w)]
        m1 = math.fsum(g) / n
        m2 = math.fsum(a * b for a, b in zip(g, xh)) / n
        dx.append([bf16(rstd * (gg - m1 - xx * m2)) for gg, xx in zip(g, xh)])
        for j in range(n):
            dw[j] += drow[j] * xh[j]
            db[j] += drow[j]
    return dx, dw, db


K = math.sqrt(2.0 / math.pi)


def gelu(v):
    return 0.5 * v * (1.0 + math.tanh(K * (v + 0.044715 * v ** 3)))


def gelu_grad(v, g):
    t = math.tanh(K * (v + 0.044715 * v ** 3))
    return g * (0.5 * (1 + t) + 0.5 * v * (1 - t * t) * K * (1 + 3 * 0.044715 * v * v))


def add(a, b):
    return [[bf16(x + y) for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]


def heads(m, cfg, col0):
    """Rows [T, ...] -> per (b, h): [S][D] from columns col0 + h*D."""
    B, S, NH, D = cfg
    return [[[m[bi * S + s][col0 + h * D + d] for d in range(D)] for s in range(S)]
            for bi in range(B) for h in range(NH)]


def merge(hs, cfg):
    B, S, NH, D = cfg
    out = []
    for bi in range(B):
        for s in range(S):
            row = []
            for h in range(NH):
                row.extend(hs[bi * NH + h][s])
            out.append(row)
    return out


def attention(q, k, v, scale):
    """One head, causal: (o bf16 [S][D], lse [S], p [S][S] in double)."""
    S = len(q)
    o, lse, probs = [], [], []
    for i in range(S):
        s = [scale * sum(map(mul, q[i], k[j])) for j in range(i + 1)]
        m = max(s)
        e = [math.exp(x - m) for x in s]
        tot = math.fsum(e)
        p = [x / tot for x in e]
        lse.append(m + math.log(tot))
        probs.append(p)
        o.append([bf16(math.fsum(p[j] * v[j][d] for j in range(i + 1))) for d in range(len(v[0]))])
    return o, lse


def attention_grad(q, k, v, o, lse, do, scale):
    S, D = len(q), len(q[0])
    dq = [[0.0] * D for _ in range(S)]
    dk = [[0.0] * D for _ in range(S)]
    dv = [[0.0] * D for _ in range(S)]
    for i in range(S):
        p = [math.exp(scale * sum(map(mul, q[i], k[j])) - lse[i]) for j in range(i + 1)]
        dp = [sum(map(mul, do[i], v[j])) for j in range(i + 1)]
        Di = sum(map(mul, do[i], o[i]))
        ds = [pj * (dpj - Di) for pj, dpj in zip(p, dp)]
        for j in range(i + 1):
            pj, dsj = p[j], ds[j]
            kj, vj, dkj, dvj = k[j], v[j], dk[j], dv[j]
            for d in range(D):
                dvj[d] += pj * do[i][d]
                dkj[d] += scale * dsj * q[i][d]
                dq[i][d] += scale * dsj * kj[d]
    return [bf16m(dq), bf16m(dk), bf16m(dv)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("part", choices=["fwd", "train"])
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--ffn", type=int, default=512)
    a = p.parse_args()
    B, S, H, NH, F = a.batch, a.seq, a.hidden, a.heads, a.ffn
    D, T = H // NH, a.batch * a.seq
    cfg = (B, S, NH, D)
    os.makedirs(a.out, exist_ok=True)
    rnd = random.Random(20261207)

    def mat(rows, cols, lim):
        return [[bf16(f32(rnd.uniform(-lim, lim))) for _ in range(cols)] for _ in range(rows)]

    def vec(n, lo, hi):
        return [bf16(f32(rnd.uniform(lo, hi))) for _ in range(n)]

    def write(name, shape, rows):
        flat = [v for r in rows for v in r] if rows and isinstance(rows[0], list) else rows
        npyfile.write(os.path.join(a.out, name + ".npy"), "<f4", shape, flat)

    # Weights uniform with variance 1/in (outputs of about the inputs' size).
    x = mat(T, H, 1.0)
    prm = {"ln1_w": vec(H, 0.5, 1.5), "ln1_b": vec(H, -0.2, 0.2),
           "wqkv": mat(3 * H, H, math.sqrt(3.0 / H)), "bqkv": vec(3 * H, -0.2, 0.2),
           "wo": mat(H, H, math.sqrt(3.0 / H)), "bo": vec(H, -0.2, 0.2),
           "ln2_w": vec(H, 0.5, 1.5), "ln2_b": vec(H, -0.2, 0.2),
           "w1": mat(F, H, math.sqrt(3.0 / H)), "b1": vec(F, -0.2, 0.2),
           "w2": mat(H, F, math.sqrt(3.0 / F)), "b2": vec(H, -0.2, 0.2)}
    shapes = {"ln1_w": [H], "ln1_b": [H], "wqkv": [3 * H, H], "bqkv": [3 * H], "wo": [H, H], "bo": [H],
              "ln2_w": [H], "ln2_b": [H], "w1": [F, H], "b1": [F], "w2": [H, F], "b2": [H]}
    write("x", [B, S, H], x)
    for n in PARAMS:
        write(n, shapes[n], prm[n])

    dout = mat(T, H, 1.0) if a.part == "train" else None
    accs = {n: [f32(rnd.uniform(-0.5, 0.5)) for _ in range(math.prod(shapes[n]))] for n in PARAMS}
    if dout is not None:
        write("dout", [B, S, H], dout)
    for fp8_on, suffix in ((True, ""), (False, "-twin")):
        FP8[0] = fp8_on
        block(a, cfg, x, prm, shapes, dout, accs, suffix, write)


def block(a, cfg, x, prm, shapes, dout, accs, suffix, write):
    B, S, NH, D = cfg
    H = NH * D
    scale = 1.0 / math.sqrt(D)
    ln1, st1 = layernorm(x, prm["ln1_w"], prm["ln1_b"])
    qkv, sv_qkv_x, sv_qkv_w = linear(ln1, prm["wqkv"], prm["bqkv"])
    qh, kh, vh = heads(qkv, cfg, 0), heads(qkv, cfg, H), heads(qkv, cfg, 2 * H)
    res = [attention(qq, kk, vv, scale) for qq, kk, vv in zip(qh, kh, vh)]
    oh = [r[0] for r in res]
    att = merge(oh, cfg)
    y, sv_o_x, sv_o_w = linear(att, prm["wo"], prm["bo"])
    h1 = add(x, y)
    ln2, st2 = layernorm(h1, prm["ln2_w"], prm["ln2_b"])
    f1, sv_1_x, sv_1_w = linear(ln2, prm["w1"], prm["b1"])
    g = [[bf16(gelu(v)) for v in row] for row in f1]
    f2, sv_2_x, sv_2_w = linear(g, prm["w2"], prm["b2"])
    out = add(h1, f2)
    if a.part == "fwd":
        write("want-out" + suffix, [B, S, H], out)
        return

    dg, dw2, db2 = linear_grad(dout, sv_2_x, sv_2_w)
    df1 = [[bf16(gelu_grad(v, d)) for v, d in zip(rv, rd)] for rv, rd in zip(f1, dg)]
    dln2, dw1, db1 = linear_grad(df1, sv_1_x, sv_1_w)
    dh1_ln, dln2w, dln2b = layernorm_grad(h1, st2, prm["ln2_w"], dln2)
    dh1 = add(dout, dh1_ln)
    datt, dwo, dbo = linear_grad(dh1, sv_o_x, sv_o_w)
    doh = heads(datt, cfg, 0)
    grads = [attention_grad(qq, kk, vv, oo, r[1], dd, scale)
             for qq, kk, vv, oo, r, dd in zip(qh, kh, vh, oh, res, doh)]
    dqkv = [a_ + b_ + c_ for a_, b_, c_ in zip(merge([gq[0] for gq in grads], cfg),
                                             merge([gq[1] for gq in grads], cfg),
                                             merge([gq[2] for gq in grads], cfg))]
    dln1, dwqkv, dbqkv = linear_grad(dqkv, sv_qkv_x, sv_qkv_w)
    dx_ln, dln1w, dln1b = layernorm_grad(x, st1, prm["ln1_w"], dln1)
    dx = add(dh1, dx_ln)
    write("want-dx" + suffix, [B, S, H], dx)
    # Gradients in the program's precision: bf16 from te.linear_grad, f32
    # from the LayerNorm reductions; each added in f32 to a random buffer
    # of about a quarter of its size.
    gr = {"ln1_w": [f32(v) for v in dln1w], "ln1_b": [f32(v) for v in dln1b], "wqkv": dwqkv,
          "bqkv": dbqkv, "wo": dwo, "bo": dbo, "ln2_w": [f32(v) for v in dln2w],
          "ln2_b": [f32(v) for v in dln2b], "w1": dw1, "b1": db1, "w2": dw2, "b2": db2}
    for n in PARAMS:
        flat = [v for r in gr[n] for v in r] if isinstance(gr[n][0], list) else gr[n]
        if n not in ACC_SCALE:  # the first (FP8) pass sets the buffers' size
            ACC_SCALE[n] = math.sqrt(math.fsum(v * v for v in flat) / len(flat))
            npyfile.write(os.path.join(a.out, f"acc_{n}.npy"), "<f4", shapes[n],
                          [f32(u * ACC_SCALE[n]) for u in accs[n]])
        acc = [f32(u * ACC_SCALE[n]) for u in accs[n]]
        npyfile.write(os.path.join(a.out, f"want-acc_{n}{suffix}.npy"), "<f4", shapes[n],
                      [f32(u + v) for u, v in zip(acc, flat)])


ACC_SCALE = {}

if __name__ == "__main__":
    main()
