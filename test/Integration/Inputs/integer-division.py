#!/usr/bin/env python3
"""Inputs and expected results of integer-division.mlir, without NumPy.

  integer-division.py DIR   writes into DIR (<i4):
    a.npy, b.npy      dividends and divisors: signs mixed, zeros among the
                      divisors, INT_MIN by -1
    want-<op>.npy     each op's results by the rules te-define-integer-
                      division gives (XLA's): by 0, a signed quotient is -1,
                      an unsigned one all ones, a remainder the dividend;
                      INT_MIN / -1 is INT_MIN, its remainder 0
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402

MIN = -2**31


def wrap(v):
    """v as an i32 (two's complement)."""
    v &= 0xFFFFFFFF
    return v - 2**32 if v >= 2**31 else v


def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def ops(a, b):
    ua, ub = a & 0xFFFFFFFF, b & 0xFFFFFFFF
    if b == 0:
        return {"divsi": -1, "remsi": a, "divui": -1, "remui": a,
                "floordivsi": -1, "ceildivsi": -1}
    if a == MIN and b == -1:
        return {"divsi": MIN, "remsi": 0, "divui": wrap(ua // ub),
                "remui": wrap(ua % ub), "floordivsi": MIN, "ceildivsi": MIN}
    q = trunc_div(a, b)
    return {"divsi": q, "remsi": a - b * q, "divui": wrap(ua // ub),
            "remui": wrap(ua % ub), "floordivsi": a // b,
            "ceildivsi": -((-a) // b)}


def main(out):
    os.makedirs(out, exist_ok=True)
    a = [7, -7, 7, -7, 5, -5, 0, MIN, MIN, 2**31 - 1, 12, -1]
    b = [2, 2, -2, -2, 0, 0, 0, -1, 1, -1, 5, 3]
    npyfile.write(os.path.join(out, "a.npy"), "<i4", (len(a),), a)
    npyfile.write(os.path.join(out, "b.npy"), "<i4", (len(b),), b)
    results = [ops(x, y) for x, y in zip(a, b)]
    for name in results[0]:
        npyfile.write(os.path.join(out, "want-%s.npy" % name), "<i4",
                      (len(a),), [r[name] for r in results])


if __name__ == "__main__":
    main(sys.argv[1])
