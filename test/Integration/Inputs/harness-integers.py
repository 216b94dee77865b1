"""Inputs and expected results of harness-integers.mlir, without numpy.

  harness-integers.py inputs DIR    writes the .npy arguments of @classify
                                    and @widen, the expected results
                                    (computed here, independently of te-run)
                                    and the hostile files
  harness-integers.py describe F    prints F's dtype, shape and values
  harness-integers.py count DIR     checks that DIR/result1.npy (i64[1]) is
                                    the number of ones in DIR/result0.npy
                                    (i1[100]) and prints both

@classify(ids i32[64], table f32[50,16], labels i64[64], mask i1[64]):
  emb[i, j] = mask[i] ? table[ids[i], j] : 0       f32[64,16]
  max[i], idx[i] = max and first argmax of emb[i]   f32[64], i32[64]
  ok[i] = mask[i] and idx[i] == labels[i]           i1[64]
  count = number of ok                              i64[1]
@widen(a i8[6], b i16[6]) -> (a + b : i32, b >> 1 : i16, a / 2 : i8).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npyfile import encode as npy, f32, read  # noqa: E402


class Lcg:
    """A 64-bit linear congruential generator: the same on every Python."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return self.state >> 33

    def below(self, n):
        return self.next() % n


def inputs(out):
    os.makedirs(out, exist_ok=True)

    def write(name, content):
        with open(os.path.join(out, name), "wb") as f:
            f.write(content)

    rng = Lcg(12345)
    tokens, vocab, dim = 64, 50, 16
    ids = [rng.below(vocab) for _ in range(tokens)]
    table = [f32((rng.below(1 << 20) - (1 << 19)) / 65536.0) for _ in range(vocab * dim)]
    mask = [1 if rng.below(4) else 0 for _ in range(tokens)]
    emb = []
    for i in range(tokens):
        row = table[ids[i] * dim:(ids[i] + 1) * dim]
        emb += row if mask[i] else [0.0] * dim
    mx, idx = [], []
    for i in range(tokens):
        best, k = float("-inf"), 0
        for j in range(dim):
            if emb[i * dim + j] > best:
                best, k = emb[i * dim + j], j
        mx.append(best)
        idx.append(k)
    # Half of the labels are the argmax, the others mostly not.
    labels = [idx[i] if rng.below(2) else rng.below(dim) for i in range(tokens)]
    ok = [1 if mask[i] and idx[i] == labels[i] else 0 for i in range(tokens)]

    write("ids.npy", npy("<i4", [tokens], ids))
    write("ids-i8.npy", npy("<i8", [tokens], ids))  # wider: converted
    write("ids-u1.npy", npy("|u1", [tokens], ids))
    write("table.npy", npy("<f4", [vocab, dim], table))
    write("labels.npy", npy("<i8", [tokens], labels))
    write("labels-i2.npy", npy("<i2", [tokens], labels))
    write("mask.npy", npy("|b1", [tokens], mask))
    write("mask-u1.npy", npy("|u1", [tokens], mask))
    write("emb.npy", npy("<f4", [tokens, dim], emb))
    write("max.npy", npy("<f4", [tokens], mx))
    write("idx.npy", npy("<i4", [tokens], idx))
    write("idx-i8.npy", npy("<i8", [tokens], idx))
    write("idx-f4.npy", npy("<f4", [tokens], idx))
    write("ok.npy", npy("|b1", [tokens], ok))
    write("count.npy", npy("<i8", [1], [sum(ok)]))
    write("count-u1.npy", npy("|u1", [1], [sum(ok)]))
    # A wrong reference: index 9 off by one.
    wrong = list(idx)
    wrong[9] = (wrong[9] + 1) % dim
    write("idx-wrong.npy", npy("<i4", [tokens], wrong))

    # Hostile arguments.
    big = list(ids)
    big[5] = 3000000000
    write("ids-big.npy", npy("<i8", [tokens], big))
    neg = list(ids)
    neg[3] = -2147483649
    write("ids-neg.npy", npy("<i8", [tokens], neg))
    write("ids-f4.npy", npy("<f4", [tokens], ids))
    huge = list(labels)
    huge[0] = (1 << 64) - 1
    write("labels-huge.npy", npy("<u8", [tokens], huge))
    two = list(mask)
    two[7] = 2
    write("mask-2.npy", npy("|u1", [tokens], two))
    write("mask-b2.npy", npy("|b1", [tokens], two))
    write("table-i4.npy", npy("<i4", [vocab, dim], [0] * (vocab * dim)))

    # @widen.
    a = [-128, -1, 0, 1, 100, 127]
    b = [-32768, -2, 0, 3, 1000, 32767]
    write("a.npy", npy("|i1", [6], a))
    write("a-u1.npy", npy("|u1", [6], [x & 0xFF for x in a]))  # raw bytes
    write("b.npy", npy("<i2", [6], b))
    write("b-u2.npy", npy("<u2", [6], [x & 0xFFFF for x in b]))  # 32768 > i16
    write("sum.npy", npy("<i4", [6], [x + y for x, y in zip(a, b)]))
    write("half-b.npy", npy("<i2", [6], [y >> 1 for y in b]))  # floor
    write("half-a.npy", npy("|i1", [6], [int(x / 2) for x in a]))  # toward 0
    write("half-a-u1.npy", npy("|u1", [6], [int(x / 2) & 0xFF for x in a]))


def describe(path):
    descr, shape, values = read(path)
    print("%s %s %s" % (descr, list(shape), " ".join(str(v) for v in values)))


def count(d):
    _, _, mask = read(os.path.join(d, "result0.npy"))
    _, _, n = read(os.path.join(d, "result1.npy"))
    assert set(mask) <= {0, 1}, mask
    assert n == [sum(mask)], (n, sum(mask))
    print("ones %d of %d, count %d" % (sum(mask), len(mask), n[0]))


if __name__ == "__main__":
    {"inputs": inputs, "describe": describe, "count": count}[sys.argv[1]](sys.argv[2])
