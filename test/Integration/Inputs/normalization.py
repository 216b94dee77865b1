#!/usr/bin/env python3
"""Inputs and expected results of normalization.mlir, without NumPy.

  normalization.py DIR   writes into DIR, as .npy (<f4):
    x.npy          45x256 values of bf16 (rounded to nearest even, so that the
                   program and the oracle read the same values): row i
                   uniform in [-2, 2) plus an offset of 40 * (i % 3 - 1)
    gamma.npy, beta.npy   256 scale and shift values
    want-ln.npy    the layer norm of each row of x (mean, mean squared
                   deviation, (x - mean) / sqrt(var + 1e-5) * gamma + beta),
                   in double precision, rounded once to f32
    a.npy, u.npy   8x100: values uniform in [-3, 3), and the "random"
                   numbers of a dropout mask, uniform in [0, 1) (never 0.3)
    want-acc.npy   3 steps of acc += (u > 0.3 ? a / (1 - 0.3) : 0) from
                   zero, each operation rounded to f32 as the program does
    want-total.npy the sum of want-acc, in double precision (0-d)
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402
from npyfile import bf16, f32  # noqa: E402


def main(out):
    os.makedirs(out, exist_ok=True)
    rnd = random.Random(20261205)
    rows, cols = 45, 256
    x = [[bf16(f32(rnd.uniform(-2.0, 2.0) + 40.0 * (i % 3 - 1)))
          for _ in range(cols)] for i in range(rows)]
    gamma = [f32(rnd.uniform(0.5, 1.5)) for _ in range(cols)]
    beta = [f32(rnd.uniform(-0.5, 0.5)) for _ in range(cols)]
    ln = []
    for row in x:
        mean = math.fsum(row) / cols
        var = math.fsum((v - mean) ** 2 for v in row) / cols
        inv = 1.0 / math.sqrt(var + f32(1.0e-5))
        ln.append([f32((v - mean) * inv * g + b)
                   for v, g, b in zip(row, gamma, beta)])

    def write(name, shape, values):
        npyfile.write(os.path.join(out, name + ".npy"), "<f4", shape, values)

    write("x", [rows, cols], [v for row in x for v in row])
    write("gamma", [cols], gamma)
    write("beta", [cols], beta)
    write("want-ln", [rows, cols], [v for row in ln for v in row])

    p = f32(0.3)
    q = f32(1.0 - p)
    a = [f32(rnd.uniform(-3.0, 3.0)) for _ in range(800)]
    u = []
    while len(u) < 800:
        v = f32(rnd.random())
        if v != p:
            u.append(v)
    acc = []
    for av, uv in zip(a, u):
        kept = f32(av / q) if uv > p else 0.0
        s = 0.0
        for _ in range(3):
            s = f32(s + kept)
        acc.append(s)
    write("a", [8, 100], a)
    write("u", [8, 100], u)
    write("want-acc", [8, 100], acc)
    npyfile.write(os.path.join(out, "want-total.npy"), "<f4", [],
                  [f32(math.fsum(acc))])


if __name__ == "__main__":
    main(sys.argv[1])
