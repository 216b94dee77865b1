#!/usr/bin/env python3
"""Inputs and expected results of batched-matmul.mlir, without NumPy.

  batched-matmul.py DIR   writes into DIR, as .npy (<f4):
    q.npy, k.npy       [2, 3, 5, 8] and [2, 3, 6, 8]: query and key,
                       [batch, heads, sequence, head dim], values that are
                       exact in bf16
    want-scores.npy    scores[b, h, s, t] = sum_d q[b, h, s, d] k[b, h, t, d]
    qs.npy, ks.npy     the same query and key in [batch, sequence, heads,
                       head dim] order ([2, 5, 3, 8], [2, 6, 3, 8])
    want-scores-bshd-bf16.npy   want-scores rounded to bf16
    p.npy, v.npy       [2, 3, 5, 6] and [2, 3, 6, 4]: probabilities and
                       values
    want-out-bshd-bf16.npy  out[b, s, h, e] = sum_t p[b, h, s, t]
                       v[b, h, t, e], [2, 5, 3, 4], rounded to bf16
    want-out-t.npy     the product p[0, 0] v[0, 0] transposed, [4, 5]
    x.npy, w.npy       [2, 5, 16] and [2, 16, 7]
    want-strided.npy   x[:, :, 0:8] · w[:, 0:8, :] per batch, [2, 5, 7]
Sums are in double precision (math.fsum), rounded once to f32 (or bf16).
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402
from npyfile import bf16, f32  # noqa: E402


def tensor(shape, rng, scale):
    """Nested lists of the given shape; small multiples of 2^-4 (exact in
    bf16, their products and sums exact in double)."""
    if len(shape) == 1:
        return [rng.randint(-24, 24) * scale for _ in range(shape[0])]
    return [tensor(shape[1:], rng, scale) for _ in range(shape[0])]


def flat(t):
    if isinstance(t, list):
        return [v for x in t for v in flat(x)]
    return [t]


def shape_of(t):
    s = []
    while isinstance(t, list):
        s.append(len(t))
        t = t[0]
    return s


def write(d, name, t, rounding=f32):
    npyfile.write(os.path.join(d, name), "<f4", shape_of(t),
                  [rounding(v) for v in flat(t)])


def bshd(t):
    """[B, H, S, D] -> [B, S, H, D]."""
    B, H, S = len(t), len(t[0]), len(t[0][0])
    return [[[t[b][h][s] for h in range(H)] for s in range(S)]
            for b in range(B)]


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    rng = random.Random(32)
    B, H, S, T, D, E = 2, 3, 5, 6, 8, 4
    q = tensor([B, H, S, D], rng, 1 / 16)
    k = tensor([B, H, T, D], rng, 1 / 16)
    scores = [[[[math.fsum(q[b][h][s][x] * k[b][h][t][x] for x in range(D))
                 for t in range(T)] for s in range(S)] for h in range(H)]
              for b in range(B)]
    write(d, "q.npy", q)
    write(d, "k.npy", k)
    write(d, "want-scores.npy", scores)
    write(d, "qs.npy", bshd(q))
    write(d, "ks.npy", bshd(k))
    write(d, "want-scores-bshd-bf16.npy", scores, lambda v: bf16(f32(v)))
    p = tensor([B, H, S, T], rng, 1 / 16)
    v = tensor([B, H, T, E], rng, 1 / 16)
    out = [[[[math.fsum(p[b][h][s][t] * v[b][h][t][e] for t in range(T))
              for e in range(E)] for s in range(S)] for h in range(H)]
           for b in range(B)]
    write(d, "p.npy", p)
    write(d, "v.npy", v)
    write(d, "want-out-bshd-bf16.npy", bshd(out), lambda x: bf16(f32(x)))
    write(d, "want-out-t.npy",
          [[out[0][0][s][e] for s in range(S)] for e in range(E)])
    x = tensor([B, S, 16], rng, 1 / 8)
    w = tensor([B, 16, 7], rng, 1 / 8)
    strided = [[[math.fsum(x[b][i][kk] * w[b][kk][j] for kk in range(8))
                 for j in range(7)] for i in range(S)] for b in range(B)]
    write(d, "x.npy", x)
    write(d, "w.npy", w)
    write(d, "want-strided.npy", strided)


if __name__ == "__main__":
    main()
