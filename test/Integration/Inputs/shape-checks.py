#!/usr/bin/env python3
"""Inputs and expected results of shape-checks.mlir, without NumPy.

  shape-checks.py DIR   writes into DIR, as .npy (<f4):
    x.npy, w.npy, b.npy     5x7, 7x3 and 3 small integers (every product and
                            sum exact in f32, so any order of the sums gives
                            the same result)
    want-linear.npy         x . w + b (5x3)
    w-short.npy             6x3: the reduction size disagrees with x's 7
    b-long.npy              4: the bias disagrees with w's 3 columns
    rows.npy                12x8 small integers
    want-sum.npy            the sum of its three 4x8 blocks (4x8)
    v.npy, want-scaled.npy  9 values and each times 2.5
    shape-48x2.npy          <i8 (48, 2): a new shape of rows.npy's 96 values
    shape-47x2.npy          <i8 (47, 2): 94 values, not 96
    want-reshaped.npy       rows.npy as 48x2
    cache.npy, new.npy      16x64 and 3x64 small integers
    want-cat.npy            cache with new written at row 5, its first 8
                            rows, then new (11x64)
    want-sums.npy           the row sums of those 8 rows
    table.npy, pos.npy      10x6 and 4x6 small integers
    ids.npy                 <i4 [3, 0, 9, 3]: rows of the table
    ids-past.npy            <i4 [3, 10, 0, 1]: row 10 is past the table
    ids-negative.npy        <i4 [3, -1, 0, 1]
    want-embed.npy          table[ids] + pos (4x6)
    want-padded.npy         v.npy with 2 zeros before it and 1 after
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402


def matrix(rng, rows, cols):
    return [[float(rng.randint(-3, 3)) for _ in range(cols)]
            for _ in range(rows)]


def flat(m):
    return [v for row in m for v in row]


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = random.Random(17)
    x, w = matrix(rng, 5, 7), matrix(rng, 7, 3)
    b = [float(rng.randint(-9, 9)) for _ in range(3)]
    y = [[sum(x[i][k] * w[k][j] for k in range(7)) + b[j] for j in range(3)]
         for i in range(5)]
    npyfile.write(os.path.join(out, "x.npy"), "<f4", (5, 7), flat(x))
    npyfile.write(os.path.join(out, "w.npy"), "<f4", (7, 3), flat(w))
    npyfile.write(os.path.join(out, "b.npy"), "<f4", (3,), b)
    npyfile.write(os.path.join(out, "want-linear.npy"), "<f4", (5, 3),
                  flat(y))
    npyfile.write(os.path.join(out, "w-short.npy"), "<f4", (6, 3),
                  flat(w[:6]))
    npyfile.write(os.path.join(out, "b-long.npy"), "<f4", (4,), b + [1.0])

    rows = matrix(rng, 12, 8)
    total = [[sum(rows[4 * blk + i][j] for blk in range(3)) for j in range(8)]
             for i in range(4)]
    npyfile.write(os.path.join(out, "rows.npy"), "<f4", (12, 8), flat(rows))
    npyfile.write(os.path.join(out, "want-sum.npy"), "<f4", (4, 8),
                  flat(total))

    v = [float(rng.randint(-20, 20)) / 4 for _ in range(9)]
    npyfile.write(os.path.join(out, "v.npy"), "<f4", (9,), v)
    npyfile.write(os.path.join(out, "want-scaled.npy"), "<f4", (9,),
                  [e * 2.5 for e in v])
    npyfile.write(os.path.join(out, "want-padded.npy"), "<f4", (12,),
                  [0.0, 0.0] + v + [0.0])

    npyfile.write(os.path.join(out, "shape-48x2.npy"), "<i8", (2,), [48, 2])
    npyfile.write(os.path.join(out, "shape-47x2.npy"), "<i8", (2,), [47, 2])
    npyfile.write(os.path.join(out, "want-reshaped.npy"), "<f4", (48, 2),
                  flat(rows))

    cache, new = matrix(rng, 16, 64), matrix(rng, 3, 64)
    updated = cache[:5] + new + cache[8:]
    filled = updated[:8]
    npyfile.write(os.path.join(out, "cache.npy"), "<f4", (16, 64),
                  flat(cache))
    npyfile.write(os.path.join(out, "new.npy"), "<f4", (3, 64), flat(new))
    npyfile.write(os.path.join(out, "want-cat.npy"), "<f4", (11, 64),
                  flat(filled + new))
    npyfile.write(os.path.join(out, "want-sums.npy"), "<f4", (8,),
                  [sum(r) for r in filled])

    table, pos = matrix(rng, 10, 6), matrix(rng, 4, 6)
    ids = [3, 0, 9, 3]
    npyfile.write(os.path.join(out, "table.npy"), "<f4", (10, 6),
                  flat(table))
    npyfile.write(os.path.join(out, "pos.npy"), "<f4", (4, 6), flat(pos))
    npyfile.write(os.path.join(out, "ids.npy"), "<i4", (4,), ids)
    npyfile.write(os.path.join(out, "ids-past.npy"), "<i4", (4,),
                  [3, 10, 0, 1])
    npyfile.write(os.path.join(out, "ids-negative.npy"), "<i4", (4,),
                  [3, -1, 0, 1])
    npyfile.write(os.path.join(out, "want-embed.npy"), "<f4", (4, 6),
                  flat([[table[t][j] + pos[i][j] for j in range(6)]
                        for i, t in enumerate(ids)]))


if __name__ == "__main__":
    main(sys.argv[1])
