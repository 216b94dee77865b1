#!/usr/bin/env python3
"""Inputs and expected results of softmax.mlir, without NumPy.

  softmax.py DIR   writes into DIR, as .npy (<f4):
    rows.npy       64x1000, each row uniform in [-5, 5), every fourth row
                   shifted by +90 (exp(95) overflows f32: the max is
                   subtracted first or the row is inf/nan)
    rows37.npy     the first 37 rows of rows.npy (a dynamic batch)
    cols.npy       1000x64, the transposed pattern: every fourth column
                   shifted by +90
    rows-bf16.npy  rows.npy rounded to bf16 (round to nearest even), so that
                   the program and the oracle read the same values
    want-NAME.npy  softmax of NAME over its last dimension (rows, rows37,
                   rows-bf16) or its first (cols), computed in double
                   precision from the values stored in NAME.npy, rounded
                   once to f32
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402
from npyfile import bf16, f32  # noqa: E402


def write_npy(path, shape, values):
    npyfile.write(path, "<f4", shape, values)


def softmax(rows):
    """Softmax of each list in rows, in double precision."""
    out = []
    for row in rows:
        m = max(row)
        e = [math.exp(v - m) for v in row]
        s = math.fsum(e)
        out.append([v / s for v in e])
    return out


def transpose(rows):
    return [list(col) for col in zip(*rows)]


def flat(rows):
    return [v for row in rows for v in row]


def main(out):
    os.makedirs(out, exist_ok=True)
    rnd = random.Random(20240611)
    rows = [[f32(rnd.uniform(-5.0, 5.0) + (90.0 if i % 4 == 1 else 0.0))
             for _ in range(1000)] for i in range(64)]
    cols = transpose([[f32(rnd.uniform(-5.0, 5.0) + (90.0 if j % 4 == 1
                                                     else 0.0))
                       for _ in range(1000)] for j in range(64)])
    cases = {
        "rows": rows,
        "rows37": rows[:37],
        "rows-bf16": [[bf16(v) for v in row] for row in rows],
    }
    for name, x in cases.items():
        write_npy(os.path.join(out, name + ".npy"), [len(x), len(x[0])],
                  flat(x))
        write_npy(os.path.join(out, "want-" + name + ".npy"),
                  [len(x), len(x[0])], flat(softmax(x)))
    write_npy(os.path.join(out, "cols.npy"), [1000, 64], flat(cols))
    write_npy(os.path.join(out, "want-cols.npy"), [1000, 64],
              flat(transpose(softmax(transpose(cols)))))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
