"""Inputs and expected results of reductions.mlir, computed here in double
precision (float32 where the program's order makes the result exact),
independently of te.

  reductions.py DIR    writes DIR/<entry>.in<i>.npy and DIR/<entry>.want<i>.npy

@argmax(x f32[64,1000]) -> (max f32[64], first index of the max i32[64])
@ema(x f32[300,512]) -> acc[j] = fold(acc * 0.9 + x[i, j]) over rows i, from 0
@xent(logits f32[128,100]) -> mean over rows i of logsumexp(row) - row[label]
                             with label = (37 * i) % 100
@welford(x f32[32,4096]) -> (mean f32[32], M2 f32[32]) of each row
@moments(x f32[64,2048]) -> (sum f32[64], sum of squares f32[64]) of each row
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402
from npyfile import f32  # noqa: E402


def matrix(rng, rows, cols):
    return [[f32(rng.gauss(0.0, 1.0)) for _ in range(cols)]
            for _ in range(rows)]


def flat(m):
    return [v for row in m for v in row]


def main(out):
    rng = random.Random(20261205)

    def save(name, arrays_in, arrays_want):
        for i, (descr, shape, values) in enumerate(arrays_in):
            npyfile.write(os.path.join(out, "%s.in%d.npy" % (name, i)),
                          descr, shape, values)
        for i, (descr, shape, values) in enumerate(arrays_want):
            npyfile.write(os.path.join(out, "%s.want%d.npy" % (name, i)),
                          descr, shape, values)

    # argmax: the first position of the row's maximum (ties: the first).
    x = matrix(rng, 64, 1000)
    best = [max(range(1000), key=lambda j: (row[j], -j)) for row in x]
    save("argmax", [("<f4", (64, 1000), flat(x))],
         [("<f4", (64,), [row[j] for row, j in zip(x, best)]),
          ("<i4", (64,), best)])

    # ema: a running average down the columns.
    x = matrix(rng, 300, 512)
    acc = [0.0] * 512
    for row in x:
        acc = [a * 0.9 + v for a, v in zip(acc, row)]
    save("ema", [("<f4", (300, 512), flat(x))], [("<f4", (512,), acc)])

    # xent: softmax cross-entropy against labels the program derives from
    # the row index.
    x = matrix(rng, 128, 100)
    loss = 0.0
    for i, row in enumerate(x):
        m = max(row)
        lse = m + math.log(sum(math.exp(v - m) for v in row))
        loss += lse - row[(37 * i) % 100]
    save("xent", [("<f4", (128, 100), flat(x))], [("<f4", (), [loss / 128])])

    # welford: mean and sum of squared deviations of each row.
    x = matrix(rng, 32, 4096)
    means = [sum(row) / len(row) for row in x]
    m2 = [sum((v - mu) ** 2 for v in row) for row, mu in zip(x, means)]
    save("welford", [("<f4", (32, 4096), flat(x))],
         [("<f4", (32,), means), ("<f4", (32,), m2)])

    # moments: a sum and a sum of squares in one op.
    x = matrix(rng, 64, 2048)
    save("moments", [("<f4", (64, 2048), flat(x))],
         [("<f4", (64,), [sum(row) for row in x]),
          ("<f4", (64,), [sum(v * v for v in row) for row in x])])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
