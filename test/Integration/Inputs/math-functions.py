"""Inputs and expected results of math-functions.mlir, computed here with
Python's math module in double precision, independently of te.

  math-functions.py DIR    writes DIR/x.npy (f32[8,512]: values in [-3, 3])
                           and DIR/want<i>.npy, one per result of @math
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402
from npyfile import f32  # noqa: E402

# Result i of @math: f(x) elementwise (x as f32).
FUNCTIONS = [
    lambda x: math.exp(x),
    lambda x: math.log(abs(x) + 1.0),
    lambda x: math.tanh(x),
    lambda x: math.erf(x),
    lambda x: math.sqrt(abs(x)),
    lambda x: 1.0 / math.sqrt(abs(x) + 1.0),
    lambda x: math.sin(x),
    lambda x: math.cos(x),
    lambda x: (abs(x) + 1.0) ** 1.5,
    lambda x: math.floor(x),
    lambda x: math.log1p(abs(x)),
    lambda x: 2.0 ** x,
    # GELU, tanh form, as TE's activation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    lambda x: 0.5 * x * (1.0 + math.tanh(0.7978845608 * (x + 0.044715 * x ** 3))),
    # GELU, exact form (PyTorch's default): 0.5 x (1 + erf(x / sqrt(2)))
    lambda x: 0.5 * x * (1.0 + math.erf(x * 0.70710678)),
    lambda x: math.erfc(x),
    lambda x: math.asinh(x),
    lambda x: math.copysign(abs(x) ** (1.0 / 3.0), x),
]


def main(out):
    rng = random.Random(20261205)
    x = [f32(rng.uniform(-3.0, 3.0)) for _ in range(8 * 512)]
    npyfile.write(os.path.join(out, "x.npy"), "<f4", (8, 512), x)
    for i, f in enumerate(FUNCTIONS):
        npyfile.write(os.path.join(out, "want%d.npy" % i), "<f4", (8, 512),
                      [f(v) for v in x])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
