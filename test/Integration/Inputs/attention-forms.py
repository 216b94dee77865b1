#!/usr/bin/env python3
"""Inputs and expected results of attention-forms.mlir, without NumPy.

  attention-forms.py DIR   writes into DIR, as .npy:
    q.npy, k.npy, v.npy    [2, 4, 13, 16], [2, 4, 21, 16], [2, 4, 21, 16]
                           (<f4, every value a bf16: the bf16 and f32 forms
                           read the same numbers); L = 13 queries, S = 21
                           keys (ragged: neither a multiple of anything)
    kg.npy, vg.npy         [2, 2, 21, 16]: two key/value heads for the
                           grouped-query form (q.npy's 4 heads read
                           head h // 2)
    pad.npy                [2, 1, 1, 21] <f4 additive padding mask: 0, or
                           -inf for keys 16..20 of batch 0
    keep.npy               [8, 13, 21] |b1 boolean mask (true = the key
                           takes part), random, with row 5 of head 3 all
                           false
    want-NAME.npy          <f4, PyTorch's scaled_dot_product_attention
                           computed in double precision from the stored
                           values: softmax(scale · q kᵀ + mask) v, a row
                           without keys 0:
      causal               top-left causal (key j for query i iff j <= i),
                           scale 1/sqrt(16)
      pad                  the padding mask, scale 0.25
      gqa                  kg, vg, no mask, scale 1
      keep                 3-D [8, 13, 16] (q, k, v with [B, H] merged),
                           the boolean mask, scale 1/8
      drop                 the same with keep.npy read as true = masked
                           out (TransformerEngine's convention)
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402
from npyfile import bf16  # noqa: E402

B, H, L, S, E = 2, 4, 13, 21, 16


def tensor(rnd, shape):
    """Nested lists of bf16 values uniform in [-1, 1)."""
    if len(shape) == 1:
        return [bf16(rnd.uniform(-1.0, 1.0)) for _ in range(shape[0])]
    return [tensor(rnd, shape[1:]) for _ in range(shape[0])]


def flat(x):
    if isinstance(x, list):
        return [v for e in x for v in flat(e)]
    return [x]


def head(q, k, v, scale, keep, bias):
    """One head: q [L][E], k, v [S][E]; keep(i, j) and bias(i, j)."""
    out = []
    for i, qi in enumerate(q):
        scores = []
        for j, kj in enumerate(k):
            if not keep(i, j):
                continue
            s = scale * math.fsum(a * b for a, b in zip(qi, kj)) + bias(i, j)
            if s != -math.inf:
                scores.append((j, s))
        if not scores:
            out.append([0.0] * len(v[0]))
            continue
        m = max(s for _, s in scores)
        w = [(j, math.exp(s - m)) for j, s in scores]
        total = math.fsum(p for _, p in w)
        out.append([math.fsum(p * v[j][e] for j, p in w) / total
                    for e in range(len(v[0]))])
    return out


def main(out):
    os.makedirs(out, exist_ok=True)
    rnd = random.Random(20261207)
    q = tensor(rnd, [B, H, L, E])
    k = tensor(rnd, [B, H, S, E])
    v = tensor(rnd, [B, H, S, E])
    kg = tensor(rnd, [B, 2, S, E])
    vg = tensor(rnd, [B, 2, S, E])
    pad = [[[[-math.inf if b == 0 and j >= 16 else 0.0 for j in range(S)]]]
           for b in range(B)]
    keep = [[[rnd.random() < 0.6 and not (n == 3 and i == 5)
              for j in range(S)] for i in range(L)] for n in range(B * H)]

    def write(name, descr, shape, values):
        npyfile.write(os.path.join(out, name + ".npy"), descr, shape, values)

    write("q", "<f4", [B, H, L, E], flat(q))
    write("k", "<f4", [B, H, S, E], flat(k))
    write("v", "<f4", [B, H, S, E], flat(v))
    write("kg", "<f4", [B, 2, S, E], flat(kg))
    write("vg", "<f4", [B, 2, S, E], flat(vg))
    write("pad", "<f4", [B, 1, 1, S], flat(pad))
    write("keep", "|b1", [B * H, L, S], [int(x) for x in flat(keep)])

    always = lambda i, j: True  # noqa: E731
    none = lambda i, j: 0.0  # noqa: E731
    want = {
        "causal": [[head(q[b][h], k[b][h], v[b][h], 0.25,
                         lambda i, j: j <= i, none) for h in range(H)]
                   for b in range(B)],
        "pad": [[head(q[b][h], k[b][h], v[b][h], 0.25, always,
                      lambda i, j, b=b: pad[b][0][0][j]) for h in range(H)]
                for b in range(B)],
        "gqa": [[head(q[b][h], kg[b][h // 2], vg[b][h // 2], 1.0, always,
                      none) for h in range(H)] for b in range(B)],
        "keep": [head(q[n // H][n % H], k[n // H][n % H], v[n // H][n % H],
                      0.125, lambda i, j, n=n: keep[n][i][j], none)
                 for n in range(B * H)],
        "drop": [head(q[n // H][n % H], k[n // H][n % H], v[n // H][n % H],
                      0.125, lambda i, j, n=n: not keep[n][i][j], none)
                 for n in range(B * H)],
    }
    for name, w in want.items():
        shape = [B * H, L, E] if name in ("keep", "drop") else [B, H, L, E]
        write("want-" + name, "<f4", shape, flat(w))


if __name__ == "__main__":
    main(sys.argv[1])
