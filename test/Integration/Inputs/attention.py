#!/usr/bin/env python3
"""Inputs and expected results of attention.mlir, without NumPy.

  attention.py DIR   writes into DIR, as .npy (<f4, |b1 for boolean masks):
    NAME-q.npy, NAME-k.npy, NAME-v.npy, NAME-mask.npy, NAME-do.npy
        the operands of case NAME (values uniform in [-2, 2); bf16 cases
        hold values already rounded to bf16, so that te-run reads them
        exactly)
    NAME-o.npy, NAME-lse.npy
        the attention's output and row log-sum-exp, computed in double
        precision from PyTorch SDPA's definition and rounded once to f32
    NAME-dq.npy, NAME-dk.npy, NAME-dv.npy
        the gradients (cases with a backward), from the backward's formulas
        in double precision (the output they read rounded to bf16 in a bf16
        case, as the program's forward writes it)

The definition (docs/guide/concepts.md#attention): per batch b and query
head h (key/value head h // (Hq // Hkv)), scores s_ij = scale * q_i . k_j
plus an additive mask; key j takes part iff (not causal or j <= i), a
boolean mask holds true there and s_ij is not -inf. o_i = sum_j p_ij v_j
with p_ij = exp(s_ij - m_i) / l_i; lse_i = m_i + log(l_i). A row where no
key takes part: o_i = 0, lse_i = -inf. Backward: P = exp(s - lse) (0 where
the key does not take part), D_i = dO_i . O_i, dV = P^T dO, dS = P o (dO V^T
- D), dQ = scale * dS K, dK = scale * dS^T Q, dK and dV summed over each
group's query heads.
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402
from npyfile import bf16, f32  # noqa: E402

INF = float("inf")


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Tensor:
    """A flat list in C order with its shape; 3-D shapes are [1, N, ...]."""

    def __init__(self, shape, values):
        assert len(values) == numel(shape)
        self.shape = list(shape)
        self.values = values

    def as4d(self):
        if len(self.shape) == 3:
            return Tensor([1] + self.shape, self.values)
        return self

    def at(self, idx):
        off = 0
        for i, d in zip(idx, self.shape):
            off = off * d + (0 if d == 1 else i)  # size 1 broadcasts
        return self.values[off]


def random_tensor(rnd, shape, to16=False):
    vals = [f32(rnd.uniform(-2.0, 2.0)) for _ in range(numel(shape))]
    if to16:
        vals = [bf16(v) for v in vals]
    return Tensor(shape, vals)


def scores(q, k, mask, scale, causal):
    """s[b][h][i][j] (None where key j does not take part), 4-D inputs."""
    B, Hq, L, E = q.shape
    Hkv, S = k.shape[1], k.shape[2]
    g = Hq // Hkv
    out = []
    for b in range(B):
        ob = []
        for h in range(Hq):
            oh = []
            for i in range(L):
                row = []
                for j in range(S):
                    s = scale * math.fsum(
                        q.at((b, h, i, e)) * k.at((b, h // g, j, e))
                        for e in range(E))
                    keep = not causal or j <= i
                    if mask is not None:
                        m = mask.at((b, h, i, j))
                        if mask.boolean:
                            keep = keep and bool(m)
                        else:
                            s += m
                    if s == -INF:
                        keep = False
                    row.append(s if keep else None)
                oh.append(row)
            ob.append(oh)
        out.append(ob)
    return out


def forward(q, k, v, mask, scale, causal):
    q, k, v = q.as4d(), k.as4d(), v.as4d()
    if mask is not None:
        boolean = mask.boolean
        mask = mask.as4d()
        mask.boolean = boolean
    B, Hq, L, _ = q.shape
    Hkv, S, Ev = v.shape[1], v.shape[2], v.shape[3]
    g = Hq // Hkv
    s = scores(q, k, mask, scale, causal)
    o, lse, p = [], [], []
    for b in range(B):
        for h in range(Hq):
            for i in range(L):
                row = s[b][h][i]
                live = [x for x in row if x is not None]
                if not live:
                    o.extend([0.0] * Ev)
                    lse.append(-INF)
                    p.append([0.0] * S)
                    continue
                m = max(live)
                e = [0.0 if x is None else math.exp(x - m) for x in row]
                l_ = math.fsum(e)
                p.append([x / l_ for x in e])
                for c in range(Ev):
                    o.append(math.fsum(e[j] * v.at((b, h // g, j, c))
                                       for j in range(S)) / l_)
                lse.append(m + math.log(l_))
    return o, lse, p


def backward(q, k, v, o, p, do, scale):
    """dq, dk, dv (flat) from P (per row), O and dO (flat, [B, Hq, L, Ev])."""
    q, k, v = q.as4d(), k.as4d(), v.as4d()
    B, Hq, L, E = q.shape
    Hkv, S, Ev = v.shape[1], v.shape[2], v.shape[3]
    g = Hq // Hkv
    dq = [0.0] * (B * Hq * L * E)
    dk = [[0.0] for _ in range(B * Hkv * S * E)]
    dv = [[0.0] for _ in range(B * Hkv * S * Ev)]
    for b in range(B):
        for h in range(Hq):
            kh = h // g
            for i in range(L):
                r = (b * Hq + h) * L + i
                P = p[r]
                dO = do[r * Ev:(r + 1) * Ev]
                D = math.fsum(dO[c] * o[r * Ev + c] for c in range(Ev))
                dS = []
                for j in range(S):
                    dP = math.fsum(dO[c] * v.at((b, kh, j, c))
                                   for c in range(Ev))
                    dS.append(P[j] * (dP - D))
                    for c in range(Ev):
                        dv[((b * Hkv + kh) * S + j) * Ev + c].append(
                            P[j] * dO[c])
                for e in range(E):
                    dq[r * E + e] = scale * math.fsum(
                        dS[j] * k.at((b, kh, j, e)) for j in range(S))
                for j in range(S):
                    for e in range(E):
                        dk[((b * Hkv + kh) * S + j) * E + e].append(
                            scale * dS[j] * q.at((b, h, i, e)))
    return dq, [math.fsum(x) for x in dk], [math.fsum(x) for x in dv]


def write(out, name, tensor):
    npyfile.write(os.path.join(out, name + ".npy"), "<f4", tensor.shape,
                  tensor.values)


def write_mask(out, name, mask):
    if mask.boolean:
        npyfile.write(os.path.join(out, name + ".npy"), "|b1", mask.shape,
                      [1 if x else 0 for x in mask.values])
    else:
        write(out, name, mask)


def case(out, rnd, name, qs, ks, vs, causal=False, scale=None, mask=None,
         to16=False, grad=False):
    q = random_tensor(rnd, qs, to16)
    k = random_tensor(rnd, ks, to16)
    v = random_tensor(rnd, vs, to16)
    if scale is None:
        scale = 1.0 / math.sqrt(qs[-1])
    # The program's scale is an f32.
    scale = f32(scale)
    for suffix, t in (("q", q), ("k", k), ("v", v)):
        write(out, name + "-" + suffix, t)
    if mask is not None:
        write_mask(out, name + "-mask", mask)
    o, lse, p = forward(q, k, v, mask, scale, causal)
    oshape = qs[:-1] + [vs[-1]]
    write(out, name + "-o", Tensor(oshape, [f32(x) for x in o]))
    write(out, name + "-lse", Tensor(qs[:-1], [f32(x) for x in lse]))
    if grad:
        do = random_tensor(rnd, oshape, to16)
        write(out, name + "-do", do)
        # The backward reads the forward's output as the program passes it:
        # rounded to bf16 in a bf16 program.
        saved = [bf16(f32(x)) for x in o] if to16 else o
        dq, dk, dv = backward(q, k, v, saved, p, do.values, scale)
        write(out, name + "-dq", Tensor(qs, [f32(x) for x in dq]))
        write(out, name + "-dk", Tensor(ks, [f32(x) for x in dk]))
        write(out, name + "-dv", Tensor(vs, [f32(x) for x in dv]))


def main(out):
    os.makedirs(out, exist_ok=True)
    rnd = random.Random(20261207)

    # Causal, grouped-query heads (4 query heads on 2 key/value heads),
    # ragged lengths L = 16 != S = 17, the default scale 1/sqrt(8).
    case(out, rnd, "causal", [2, 4, 16, 8], [2, 2, 17, 8], [2, 2, 17, 8],
         causal=True)
    # The same shapes without causal, a dynamic batch of 3.
    case(out, rnd, "dynamic", [3, 4, 16, 8], [3, 2, 17, 8], [3, 2, 17, 8])

    # 3-D [N, L, E], a boolean mask [1, L, S] broadcast over N: rows 1 and 4
    # keep no key (output 0, lse -inf); value head size Ev = 5 != E;
    # scale 0.3.
    keep = [[(i not in (1, 4)) and (j % 3 != 0 or j == i) for j in range(17)]
            for i in range(6)]
    mask = Tensor([1, 6, 17], [x for row in keep for x in row])
    mask.boolean = True
    case(out, rnd, "boolean", [4, 6, 8], [4, 17, 8], [4, 17, 5], scale=0.3,
         mask=mask)

    # bf16, 4-D, an additive bf16 mask [1, 2, 8, 9] broadcast over the batch:
    # values in [-1, 1), -inf on a diagonal and on the whole of row 3 of
    # head 1 (no key: output 0, lse -inf).
    add = []
    for h in range(2):
        for i in range(8):
            for j in range(9):
                if (h == 1 and i == 3) or j == i + 1:
                    add.append(-INF)
                else:
                    add.append(bf16(f32(rnd.uniform(-1.0, 1.0))))
    mask = Tensor([1, 2, 8, 9], add)
    mask.boolean = False
    case(out, rnd, "additive", [2, 2, 8, 16], [2, 2, 9, 16], [2, 2, 9, 16],
         mask=mask, to16=True)

    # 3-D grouped-query heads with N dynamic in the program: 8 query heads
    # on 2 key/value heads (the group size known at run time only), causal.
    case(out, rnd, "gqa3d", [8, 5, 8], [2, 9, 8], [2, 9, 8], causal=True)

    # The backward: 4-D, grouped-query heads, causal, a boolean mask
    # [2, 1, 6, 7] broadcast over the heads with a row that keeps no key.
    keep = []
    for b in range(2):
        for i in range(6):
            for j in range(7):
                keep.append(not (b == 1 and i == 2) and (i + j + b) % 4 != 1)
    mask = Tensor([2, 1, 6, 7], keep)
    mask.boolean = True
    case(out, rnd, "grad", [2, 4, 6, 8], [2, 2, 7, 8], [2, 2, 7, 4],
         causal=True, mask=mask, grad=True)
    # The backward in bf16, 3-D, no mask.
    case(out, rnd, "grad16", [4, 9, 16], [4, 11, 16], [4, 11, 16],
         to16=True, grad=True, scale=0.2)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
