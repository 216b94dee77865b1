"""Inputs and expected results of arg-reductions.mlir: the sequential loops
`m, i = x > m ? (x, j) : (m, i)` (argmax; argmin with <) and Torch-MLIR's
`i = x > m ? j : i; m = maximumf(x, m)` computed here in Python,
independently of te, on rows full of ties, NaNs, infinities and signed
zeros.

  arg-reductions.py DIR    writes DIR/<name>.npy (see main)
"""
import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402
from npyfile import f32  # noqa: E402

NAN = float("nan")
INF = float("inf")


def special_rows(rng, rows, cols):
    """Rows of random values from a small set (ties), with NaNs, +-inf,
    +-0.0; some rows all NaN, all -inf, all zeros."""
    pool = [NAN, INF, -INF, 0.0, -0.0, 1.5, -1.5, 2.0, -2.0, 0.25]
    out = []
    for r in range(rows):
        if r == 0:
            row = [NAN] * cols
        elif r == 1:
            row = [-INF] * cols
        elif r == 2:
            row = [-0.0 if j % 2 else 0.0 for j in range(cols)]
        elif r == 3:
            row = [0.0 if j % 2 else -0.0 for j in range(cols)]
        else:
            row = [rng.choice(pool) if rng.random() < 0.3 else
                   f32(rng.gauss(0.0, 1.0)) for _ in range(cols)]
        out.append(row)
    return out


def arg_loop(values, m, i, greater, cast):
    for j, v in enumerate(values):
        if (v > m) if greater else (v < m):
            m, i = v, cast(j)
    return m, i


def maximumf(a, b):
    """arith.maximumf: NaN if either is NaN; -0.0 below +0.0."""
    if math.isnan(a) or math.isnan(b):
        return NAN
    if a == b == 0.0:
        return a if math.copysign(1.0, a) > 0 else b
    return max(a, b)


def minimumf(a, b):
    """arith.minimumf: NaN if either is NaN; -0.0 below +0.0."""
    if math.isnan(a) or math.isnan(b):
        return NAN
    if a == b == 0.0:
        return a if math.copysign(1.0, a) < 0 else b
    return min(a, b)


def torch_loop(values, m, i, greater):
    """Torch-MLIR's form: m = maximumf(x, m) (minimumf), i = x > m ? j : i."""
    for j, v in enumerate(values):
        if (v > m) if greater else (v < m):
            i = j
        m = maximumf(v, m) if greater else minimumf(v, m)
    return m, i


def wrap8(j):
    return (j + 128) % 256 - 128


def bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def main(out):
    rng = random.Random(20261205)

    def w(name, descr, shape, values):
        npyfile.write(os.path.join(out, name + ".npy"), descr, shape, values)

    # argmax over rows of x[16, 300] from initial values m0 (per row; some
    # above every element, some NaN) and i0.
    x = special_rows(rng, 16, 300)
    m0 = [-INF, -INF, -INF, -INF, 1.0, INF, NAN, -INF] + [-INF] * 8
    i0 = [7] * 16
    w("x", "<f4", (16, 300), [v for row in x for v in row])
    w("m0", "<f4", (16,), m0)
    w("i0", "<i4", (16,), i0)
    res = [arg_loop(row, m0[r], i0[r], True, lambda j: j)
           for r, row in enumerate(x)]
    w("argmax_m", "<f4", (16,), [m for m, _ in res])
    w("argmax_i", "<i4", (16,), [i for _, i in res])
    # The same rows with an i8 position (the loop's index_cast wraps past 127).
    res8 = [arg_loop(row, -INF, 0, True, wrap8) for row in x]
    w("argmax8_m", "<f4", (16,), [m for m, _ in res8])
    w("argmax8_i", "|i1", (16,), [i for _, i in res8])
    # argmin down the columns of x (dimension 0), position as index (i64).
    cols = [[x[r][c] for r in range(16)] for c in range(300)]
    resc = [arg_loop(col, INF, 0, False, lambda j: j) for col in cols]
    w("argmin_m", "<f4", (300,), [m for m, _ in resc])
    w("argmin_i", "<i8", (300,), [i for _, i in resc])
    # Torch-MLIR's form (maximumf value, NaN-propagating), from -inf / 0
    # over the rows; and its argmin (minimumf) from +inf.
    rest = [torch_loop(row, -INF, 0, True) for row in x]
    w("torch_m", "<f4", (16,), [m for m, _ in rest])
    w("torch_i", "<i8", (16,), [i for _, i in rest])
    resn = [torch_loop(row, INF, 0, False) for row in x]
    w("torchmin_m", "<f4", (16,), [m for m, _ in resn])
    w("torchmin_i", "<i8", (16,), [i for _, i in resn])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
