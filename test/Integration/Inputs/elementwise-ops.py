#!/usr/bin/env python3
"""Inputs and expected results of elementwise-ops.mlir, without NumPy.

  elementwise-ops.py DIR   writes into DIR, as .npy:
    x.npy, b.npy     37x512 and 512 values of bf16 (<f4, already rounded to
                     nearest even, so that the program reads these values)
    want-gelu.npy    GELU (tanh form) of bf16(x + b), each f32 operation
                     rounded to f32 as the program does, tanh in double,
                     rounded once to bf16
    m.npy            31x31 uniform values in [-3, 3) (<f4) and, |b1, a mask
    mask.npy         of about 60% ones
    want-masked.npy  mask ? f32(x * 1.5) : 0
    want-rows.npy    each row's sum of f32(y * y), summed in order in f32
    a.npy, e.npy     64 bases (-9..9, +-2^15, extremes) and exponents 0..40
                     (<i4)
    want-int.npy     (a ** e wrapped to 32 bits) + a, wrapped, shifted right
                     (arithmetically) by e & 15
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402
from npyfile import bf16, f32  # noqa: E402


def wrap32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def main(out):
    os.makedirs(out, exist_ok=True)
    rnd = random.Random(20261206)

    def write(name, descr, shape, values):
        npyfile.write(os.path.join(out, name + ".npy"), descr, shape, values)

    rows, cols = 37, 512
    x = [bf16(f32(rnd.gauss(0.0, 1.5))) for _ in range(rows * cols)]
    b = [bf16(f32(rnd.uniform(-1.0, 1.0))) for _ in range(cols)]
    c, k, half = f32(0.044715), f32(0.7978845608), f32(0.5)
    gelu = []
    for i, v in enumerate(x):
        h = bf16(f32(v + b[i % cols]))
        h3 = f32(f32(h * h) * h)
        inner = f32(h + f32(c * h3))
        t = f32(math.tanh(f32(k * inner)))
        gelu.append(bf16(f32(f32(half * h) * f32(1.0 + t))))
    write("x", "<f4", [rows, cols], x)
    write("b", "<f4", [cols], b)
    write("want-gelu", "<f4", [rows, cols], gelu)

    rows, cols = 31, 31
    m = [f32(rnd.uniform(-3.0, 3.0)) for _ in range(rows * cols)]
    mask = [1 if rnd.random() < 0.6 else 0 for _ in range(rows * cols)]
    y = [f32(v * f32(1.5)) if on else 0.0 for v, on in zip(m, mask)]
    sums = []
    for r in range(rows):
        acc = 0.0
        for v in y[r * cols:(r + 1) * cols]:
            acc = f32(acc + f32(v * v))
        sums.append(acc)
    write("m", "<f4", [rows, cols], m)
    write("mask", "|b1", [rows, cols], mask)
    write("want-masked", "<f4", [rows, cols], y)
    write("want-rows", "<f4", [rows], sums)

    bases = list(range(-9, 10)) + [1 << 15, -(1 << 15), 46341, 2**31 - 1,
                                   -2**31]
    bases += [rnd.randint(-1000, 1000) for _ in range(64 - len(bases))]
    exps = [rnd.randint(0, 40) for _ in range(64)]
    want = []
    for a, e in zip(bases, exps):
        q = wrap32(wrap32(a ** e) + a)
        want.append(q >> (e & 15))
    write("a", "<i4", [64], bases)
    write("e", "<i4", [64], exps)
    write("want-int", "<i4", [64], want)


if __name__ == "__main__":
    main(sys.argv[1])
