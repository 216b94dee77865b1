#!/usr/bin/env python3
"""Inputs and expected results of float8-conversions.mlir, without NumPy.

  float8-conversions.py DIR   writes into DIR:
    e4m3.npy, e5m2.npy        |u1: every code of f8E4M3FN / f8E5M2 that is
                              not a NaN
    want-e4m3.npy, want-e5m2.npy
                              <f4: their values by the OCP FP8 formulas
                              (docs/reference/te-formats.md): normal codes
                              (-1)^s * 2^(e - bias) * (1 + m / 2^M),
                              subnormal ones (-1)^s * 2^(1 - bias) * m / 2^M,
                              E5M2's exponent 31 with m = 0 an infinity
    scales.npy                <f4: 4 scales, one per row of 64 codes
    want-dequantized.npy      <f4: want-e4m3 (first 4 x 63 codes, as rows)
                              times each row's scale
    f4-in.npy, want-f4.npy    <f4: values that are not halfway between two
                              f4E2M1FN values, and the nearest one
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402


def decode(code, exponent_bits, mantissa_bits, bias, ieee):
    s = code >> 7
    e = (code >> mantissa_bits) & ((1 << exponent_bits) - 1)
    m = code & ((1 << mantissa_bits) - 1)
    if ieee and e == (1 << exponent_bits) - 1:
        return None if m else (-math.inf if s else math.inf)
    if not ieee and e == (1 << exponent_bits) - 1 and \
            m == (1 << mantissa_bits) - 1:
        return None  # E4M3FN's NaN
    if e == 0:
        v = m * 2.0 ** (1 - bias - mantissa_bits)
    else:
        v = (1 + m / 2.0 ** mantissa_bits) * 2.0 ** (e - bias)
    return -v if s else v


def main(out):
    os.makedirs(out, exist_ok=True)
    for name, e, m, bias, ieee in [("e4m3", 4, 3, 7, False),
                                   ("e5m2", 5, 2, 15, True)]:
        codes = [c for c in range(256) if decode(c, e, m, bias, ieee)
                 is not None]
        npyfile.write(os.path.join(out, name + ".npy"), "|u1",
                      (len(codes),), codes)
        npyfile.write(os.path.join(out, "want-%s.npy" % name), "<f4",
                      (len(codes),), [decode(c, e, m, bias, ieee)
                                      for c in codes])
    e4m3 = [c for c in range(256) if decode(c, 4, 3, 7, False) is not None]
    rows = [e4m3[63 * r:63 * (r + 1)] for r in range(4)]
    scales = [0.5, 2.0, 0.25, 3.0]
    npyfile.write(os.path.join(out, "rows.npy"), "|u1", (4, 63),
                  [c for row in rows for c in row])
    npyfile.write(os.path.join(out, "scales.npy"), "<f4", (4,), scales)
    npyfile.write(os.path.join(out, "want-dequantized.npy"), "<f4", (4, 63),
                  [decode(c, 4, 3, 7, False) * scales[r]
                   for r, row in enumerate(rows) for c in row])
    grid = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
    values = [0.0, 0.3, 0.7, 1.2, 1.6, 2.4, 2.6, 3.3, 3.9, 4.9, 5.1, 6.0,
              -0.2, -0.7, -2.6, -5.9]

    def nearest(v):
        best = min(grid, key=lambda g: abs(abs(v) - g))
        return -best if v < 0 else best
    npyfile.write(os.path.join(out, "f4-in.npy"), "<f4", (len(values),),
                  values)
    npyfile.write(os.path.join(out, "want-f4.npy"), "<f4", (len(values),),
                  [nearest(v) for v in values])


if __name__ == "__main__":
    main(sys.argv[1])
