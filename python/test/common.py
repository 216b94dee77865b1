"""Shared helpers of the te Python tests."""

import os
import shutil
import subprocess
import tempfile

import numpy as np

from te import _interop


def tool(name, env):
    """The path of a te tool: $<env>, else the build's tools dir."""
    path = os.environ.get(env)
    if path:
        return path
    try:
        from te import _location
        d = getattr(_location, "TOOLS_DIR", None)
    except ImportError:
        d = None
    if d and os.path.exists(os.path.join(d, name)):
        return os.path.join(d, name)
    return shutil.which(name)


def bf16_exact(x):
    """x rounded to values exactly representable in bfloat16 (float32)."""
    bits = _interop.to_bf16_bits(x).astype(np.uint32) << 16
    return bits.view(np.float32).reshape(np.shape(x))


def sample(shape, seed=0):
    """Normal values over several magnitudes, a few exact zeros."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-3, 4, shape))
    x = x.astype(np.float32)
    x.reshape(-1)[::97] = 0.0
    return x


class TeQuantize:
    """Runs te-quantize on an input; its outputs as {name: array}."""

    def __init__(self, path):
        self.path = path

    def run(self, x, quantizer, usage=None, target=None, swizzled=False,
            input_type=None, scale=None, seed=None, offset=None,
            backend=None):
        with tempfile.TemporaryDirectory() as d:
            inp = os.path.join(d, "x.npy")
            np.save(inp, np.asarray(x, np.float32))
            out = os.path.join(d, "out")
            cmd = [self.path, "--quantizer", quantizer, "--input", inp,
                   "--output-dir", out]
            for flag, value in (("--usage", usage), ("--target", target),
                                ("--input-type", input_type),
                                ("--scale", scale), ("--seed", seed),
                                ("--offset", offset),
                                ("--backend", backend)):
                if value is not None:
                    cmd += [flag, str(value)]
            if swizzled:
                cmd.append("--swizzled")
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                return None, r.stderr.strip()
            return {f[:-4]: np.load(os.path.join(out, f))
                    for f in sorted(os.listdir(out))}, None
