#!/usr/bin/env python3
"""Inputs and expected results of integer-powers.mlir, without NumPy.

  integer-powers.py DIR   writes into DIR, as .npy:
    base32.npy, exp32.npy   <i4: every base in -9..9 and some beyond
                            (+-2^15, 46341, 2^31 - 1, -2^31) with every
                            exponent in -3..40, plus random pairs
    want32.npy              base ** exp modulo 2^32 (two's complement), and
                            for a negative exponent 1 for base 1, -1 or 1 for
                            base -1 (odd or even exponent), 0 otherwise
    base64.npy, exp64.npy, want64.npy   the same in 64 bits (<i8)
    want-table.npy          <i4 [24, 40]: (i - 8) ** (j - 4), as above
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402


def ipow(base, exp, bits):
    """math.ipowi's result on `bits`-bit two's complement integers."""
    if exp < 0:
        if base == 1:
            return 1
        if base == -1:
            return -1 if exp % 2 else 1
        return 0
    v = pow(base, exp, 1 << bits)
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def main(out):
    os.makedirs(out, exist_ok=True)
    rnd = random.Random(20261205)
    for bits, descr in ((32, "<i4"), (64, "<i8")):
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        bases = list(range(-9, 10)) + [1 << 15, -(1 << 15), 46341, hi, lo]
        pairs = [(b, e) for b in bases for e in range(-3, 41)]
        pairs += [(rnd.randint(lo, hi), rnd.randint(lo, hi))
                  for _ in range(300)]
        pairs += [(rnd.randint(-50, 50), rnd.randint(0, bits + 2))
                  for _ in range(300)]
        n = len(pairs)
        path = lambda name: os.path.join(out, name)  # noqa: E731
        npyfile.write(path("base%d.npy" % bits), descr, [n],
                      [b for b, _ in pairs])
        npyfile.write(path("exp%d.npy" % bits), descr, [n],
                      [e for _, e in pairs])
        npyfile.write(path("want%d.npy" % bits), descr, [n],
                      [ipow(b, e, bits) for b, e in pairs])
    npyfile.write(os.path.join(out, "want-table.npy"), "<i4", [24, 40],
                  [ipow(i - 8, j - 4, 32) for i in range(24)
                   for j in range(40)])


if __name__ == "__main__":
    main(sys.argv[1])
