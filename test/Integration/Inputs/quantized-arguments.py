"""Inputs of quantized-arguments.mlir: DIR/x.npy (f32[32,128]) and
DIR/w.npy (f32[64,128]), standard normal from a fixed seed."""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyfile  # noqa: E402

if len(sys.argv) != 2:
    sys.exit(__doc__)
rng = random.Random(20261205)
for name, shape in (("x", (32, 128)), ("w", (64, 128))):
    values = [npyfile.f32(rng.gauss(0.0, 1.0)) for _ in range(shape[0] * shape[1])]
    npyfile.write(os.path.join(sys.argv[1], name + ".npy"), "<f4", shape, values)
