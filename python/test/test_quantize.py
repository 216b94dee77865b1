"""te.quantize / te.dequantize on the cpu backend against te-quantize.

Every buffer must be byte-identical to the .npy te-quantize writes for the
same input and options, and so must the dequantized tensor and the amax.
"""

import unittest

import numpy as np

import te
from common import TeQuantize, bf16_exact, sample, tool

# (quantizer, options): options are te-quantize's (usage, target, swizzled,
# input_type, scale, seed, offset); one case per recipe and per option of
# each recipe.
CASES = [
    ("#te.delayed<f8E4M3FN>", {}),
    ("#te.delayed<f8E5M2, margin = 1, history = 16, algo = most_recent>",
     {"scale": 0.375}),
    ("#te.current<f8E4M3FN>", {}),
    ("#te.current<f8E5M2, pow2_scales = true, amax_epsilon = 1.0e-06>", {}),
    ("#te.current<f8E4M3FN>", {"target": "sm_100"}),
    ("#te.current<f8E4M3FN>", {"usage": "columnwise"}),
    ("#te.block<f8E4M3FN>", {}),
    ("#te.block<f8E4M3FN, dims = 2, pow2_scales = false>", {}),
    ("#te.block<f8E5M2, dims = 1, amax_epsilon = 0.5>", {"usage": "rowwise"}),
    ("#te.mxfp8<f8E4M3FN>", {}),
    ("#te.mxfp8<f8E5M2, block_2d = true, e8m0_rounding = floor>", {}),
    ("#te.mxfp8<f8E4M3FN>", {"swizzled": True}),
    ("#te.mxfp8<f8E4M3FN>", {"target": "sm_90"}),
    ("#te.nvfp4<f4E2M1FN>", {}),
    ("#te.nvfp4<f4E2M1FN, rht = true>", {"input_type": "bf16"}),
    ("#te.nvfp4<f4E2M1FN, rht = true, rht_sign_mask = 0x1234>",
     {"input_type": "bf16", "usage": "columnwise"}),
    ("#te.nvfp4<f4E2M1FN, block_2d = true>", {}),
    ("#te.nvfp4<f4E2M1FN, stochastic_rounding = true>",
     {"seed": 1234, "offset": 77}),
    ("#te.nvfp4<f4E2M1FN, row_scaled = true>", {"usage": "rowwise"}),
    ("#te.nvfp4<f4E2M1FN, four_over_six = true, e4m3_max = 256.0, "
     "err_mode = mse>", {}),
    ("#te.nvfp4<f4E2M1FN>", {"swizzled": True}),
]

SHAPES = [(128, 256), (2, 96, 160)]


def _kwargs(opts):
    kw = {k: v for k, v in opts.items() if k in (
        "usage", "target", "swizzled", "input_type", "scale", "seed",
        "offset")}
    return kw


@unittest.skipUnless(tool("te-quantize", "TE_QUANTIZE"),
                     "te-quantize not found (set TE_QUANTIZE)")
class BitExactAgainstTeQuantize(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tq = TeQuantize(tool("te-quantize", "TE_QUANTIZE"))
        cls.ctx = te.Context("cpu")

    def check_case(self, quantizer, opts, shape, seed):
        x = sample(shape, seed)
        if opts.get("input_type") == "bf16":
            x = bf16_exact(x)
        expected, err = self.tq.run(x, quantizer, **opts)
        self.assertIsNone(err, f"te-quantize failed: {err}")
        kw = _kwargs(opts)
        if kw.get("usage") is None:
            kw.pop("usage", None)
        q = self.ctx.quantize(x, quantizer, **kw)
        got = q.buffers()
        names = [b.name for b in q.layout]
        self.assertEqual(
            sorted(names),
            sorted(k for k in expected if k not in ("dequantized", "amax")))
        for name in names:
            e, g = expected[name], got[name]
            self.assertEqual(e.dtype, g.dtype, name)
            self.assertEqual(e.shape, g.shape, name)
            if e.tobytes() != g.tobytes():
                diff = np.flatnonzero(e.view(np.uint8).reshape(-1) !=
                                      g.view(np.uint8).reshape(-1))
                self.fail(f"{quantizer} {opts} {shape}: buffer {name} "
                          f"differs in {diff.size} bytes, first at byte "
                          f"{diff[0]}")
        if "amax" in expected:
            self.assertEqual(np.float32(q.amax).tobytes(),
                             expected["amax"].tobytes())
        else:
            self.assertIsNone(q.amax)
        y = self.ctx.dequantize(q)
        self.assertEqual(y.dtype, np.float32)
        self.assertEqual(y.shape, x.shape)
        self.assertEqual(y.tobytes(), expected["dequantized"].tobytes(),
                         f"{quantizer} {opts}: dequantized")

    def test_every_recipe(self):
        for i, (quantizer, opts) in enumerate(CASES):
            for shape in SHAPES:
                with self.subTest(quantizer=quantizer, opts=opts,
                                  shape=shape):
                    self.check_case(quantizer, opts, shape, seed=i)

    def test_zero_dimensional(self):
        # A 0-d tensor keeps its shape: buffers as te-quantize writes them.
        for quantizer in ("#te.current<f8E4M3FN>", "#te.delayed<f8E4M3FN>"):
            with self.subTest(quantizer=quantizer):
                self.check_case(quantizer, {}, (), seed=5)

    def test_set_buffers_of_te_quantize_output(self):
        # te-quantize's buffers loaded into a QTensor dequantize to the
        # same tensor te-quantize wrote.
        for quantizer, opts in [("#te.mxfp8<f8E4M3FN>", {}),
                                ("#te.block<f8E4M3FN, dims = 2>", {}),
                                ("#te.nvfp4<f4E2M1FN>", {"swizzled": True})]:
            with self.subTest(quantizer=quantizer):
                x = sample((64, 128), 5)
                expected, err = self.tq.run(x, quantizer, **opts)
                self.assertIsNone(err)
                q = self.ctx.empty_qtensor(quantizer, x.shape,
                                           swizzled=opts.get("swizzled",
                                                             False))
                q.set_buffers({k: v for k, v in expected.items()
                               if k not in ("dequantized", "amax")})
                self.assertEqual(self.ctx.dequantize(q).tobytes(),
                                 expected["dequantized"].tobytes())

    def test_swizzle_roundtrip(self):
        x = sample((128, 128), 3)
        plain = self.ctx.quantize(x, "#te.mxfp8<f8E4M3FN>")
        swz, _ = self.tq.run(x, "#te.mxfp8<f8E4M3FN>", swizzled=True)
        plain.swizzle_scales()
        self.assertTrue(plain.swizzled)
        for name, buf in plain.buffers().items():
            self.assertEqual(buf.tobytes(), swz[name].tobytes(), name)
        plain.unswizzle_scales()
        again = self.ctx.quantize(x, "#te.mxfp8<f8E4M3FN>")
        for name, buf in plain.buffers().items():
            self.assertEqual(buf.tobytes(), again.buffers()[name].tobytes())


class Dequantize(unittest.TestCase):
    """Round trips: dequantize(quantize(x)) approximates x in both
    representations within the format's precision."""

    # Relative Frobenius error bounds (element format and scale rounding).
    BOUNDS = {"f8E4M3FN": 0.05, "f8E5M2": 0.1, "f4E2M1FN": 0.2}

    def test_both_representations_approximate_x(self):
        ctx = te.Context("cpu")
        x = bf16_exact(sample((256, 128), 11))
        for quantizer, _ in CASES:
            with self.subTest(quantizer=quantizer):
                q = ctx.quantize(x, quantizer, input_type="bf16"
                                 if "rht" in quantizer else None,
                                 seed=1)
                bound = self.BOUNDS[q.quantizer.element_type]
                for rep in q.usage.split(","):
                    y = ctx.dequantize(q, rep).astype(np.float64)
                    err = np.linalg.norm(y - x) / np.linalg.norm(x)
                    self.assertLess(err, bound, f"{rep}: {err}")

    def test_per_tensor_representations_agree(self):
        x = sample((64, 96), 2)
        for quantizer in ("#te.current<f8E4M3FN>", "#te.delayed<f8E5M2>"):
            q = te.quantize(x, quantizer)
            self.assertEqual(te.dequantize(q, "rowwise").tobytes(),
                             te.dequantize(q, "columnwise").tobytes())

    def test_requantize_is_identity(self):
        # Delayed scaling with a power-of-two scale: the dequantized values
        # are codes times 2^-k and quantize back to the same codes.
        x = sample((128, 64), 4)
        q = te.quantize(x, "#te.delayed<f8E4M3FN>", scale=4.0)
        y = te.dequantize(q)
        q2 = te.quantize(y, "#te.delayed<f8E4M3FN>", scale=4.0)
        for name, buf in q.buffers().items():
            self.assertEqual(buf.tobytes(), q2.buffers()[name].tobytes())
        self.assertEqual(te.dequantize(q2).tobytes(), y.tobytes())

    def test_float16_output_and_input(self):
        x = sample((32, 64), 6).astype(np.float16)
        q = te.quantize(x, "#te.mxfp8<f8E4M3FN>")
        y = te.dequantize(q, dtype=np.float16)
        self.assertEqual(y.dtype, np.float16)
        y32 = te.dequantize(q)
        np.testing.assert_array_equal(y, y32.astype(np.float16))

    def test_out_argument(self):
        x = sample((32, 64), 7)
        q = te.quantize(x, "#te.block<f8E4M3FN>")
        out = np.empty_like(x)
        self.assertIs(te.dequantize(q, out=out), out)
        np.testing.assert_array_equal(out, te.dequantize(q))

    def test_amax(self):
        x = sample((33, 17), 8)
        x[3, 4] = np.nan
        self.assertEqual(te.amax(x), np.float32(np.nanmax(np.abs(x))))


if __name__ == "__main__":
    unittest.main()
