"""Inputs and expected results of clip-gradients.mlir, computed here in
double precision, independently of te.

  clip-gradients.py DIR    writes DIR/g.npy (f32[512,256], standard
                           normal), DIR/clipped.npy (g scaled to global
                           norm 10) and DIR/norm.npy (its norm, f32[])
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402
from npyfile import f32  # noqa: E402

if len(sys.argv) != 2:
    sys.exit(__doc__)
rng = random.Random(20261205)
g = [f32(rng.gauss(0.0, 1.0)) for _ in range(512 * 256)]
norm = math.sqrt(math.fsum(v * v for v in g))
out = sys.argv[1]
npyfile.write(os.path.join(out, "g.npy"), "<f4", (512, 256), g)
npyfile.write(os.path.join(out, "clipped.npy"), "<f4", (512, 256),
              [v * 10.0 / norm for v in g])
npyfile.write(os.path.join(out, "norm.npy"), "<f4", (), [norm])
