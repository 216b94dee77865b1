"""te.gemm on the cpu backend against a float64 numpy reference.

The reference is the float64 product of the operands' dequantized values
(te.dequantize, itself bit-exact with te-quantize) in the representation the
layout reads. The cpu backend multiplies the same fp32 values, sums in
float64 and rounds once, so it agrees within

    |D - D_ref| <= 1e-5 * (|op(B)| @ |op(A)|) + 1e-30

elementwise (float64 summation order, the final fp32 rounding, and for an
NVFP4 columnwise RHT operand the float rounding of the transform back).
"""

import unittest

import numpy as np

import te
from common import bf16_exact, sample

# (A's quantizer, B's quantizer): 2-D blocks only on A (weights), as TE.
RECIPES = [
    ("#te.delayed<f8E4M3FN>", "#te.delayed<f8E4M3FN>"),
    ("#te.current<f8E4M3FN>", "#te.current<f8E4M3FN>"),
    ("#te.current<f8E4M3FN>", "#te.current<f8E5M2>"),
    ("#te.block<f8E4M3FN>", "#te.block<f8E4M3FN>"),
    ("#te.block<f8E4M3FN, dims = 2>", "#te.block<f8E4M3FN>"),
    ("#te.mxfp8<f8E4M3FN>", "#te.mxfp8<f8E4M3FN>"),
    ("#te.mxfp8<f8E4M3FN, block_2d = true>", "#te.mxfp8<f8E5M2>"),
    ("#te.nvfp4<f4E2M1FN>", "#te.nvfp4<f4E2M1FN>"),
    ("#te.nvfp4<f4E2M1FN, block_2d = true>", "#te.nvfp4<f4E2M1FN>"),
]

M, N, K = 64, 128, 256


class Gemm(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ctx = te.Context("cpu")

    def assertClose(self, d, ref, bound):
        d = np.asarray(d, np.float64)
        tol = 1e-5 * bound + 1e-30
        worst = np.max(np.abs(d - ref) - tol)
        self.assertLessEqual(worst, 0.0, "outside the documented tolerance")

    def operands(self, recipe, layout, seed):
        a_recipe, b_recipe = recipe if isinstance(recipe, tuple) \
            else (recipe, recipe)
        ctx = self.ctx
        # Logical operand shapes and the representation each layout reads.
        a_shape, b_shape, a_rep, b_rep = {
            "TN": ((N, K), (M, K), "rowwise", "rowwise"),
            "NN": ((K, N), (M, K), "columnwise", "rowwise"),
            "NT": ((K, N), (K, M), "columnwise", "columnwise"),
        }[layout]
        xa, xb = sample(a_shape, seed), sample(b_shape, seed + 1)
        a = ctx.quantize(xa, a_recipe)
        b = ctx.quantize(xb, b_recipe)
        da = ctx.dequantize(a, a_rep).astype(np.float64)
        db = ctx.dequantize(b, b_rep).astype(np.float64)
        opa = da.T if layout == "TN" else da          # [K, N]
        opb = db.T if layout == "NT" else db          # [M, K]
        return a, b, opa, opb

    def test_layouts_and_recipes(self):
        for i, recipe in enumerate(RECIPES):
            for layout in ("TN", "NN", "NT"):
                with self.subTest(recipe=recipe, layout=layout):
                    a, b, opa, opb = self.operands(recipe, layout, 10 * i)
                    d = te.gemm(a, b, layout)
                    self.assertEqual(d.shape, (M, N))
                    self.assertEqual(d.dtype, np.float32)
                    self.assertClose(d, opb @ opa, np.abs(opb) @ np.abs(opa))
                    self.assertEqual(self.ctx.last_gemm_path(),
                                     "cpu_reference")

    def test_rht_wgrad(self):
        # NVFP4 with the RHT on both columnwise operands (wgrad).
        q = "#te.nvfp4<f4E2M1FN, rht = true>"
        xa = bf16_exact(sample((K, N), 1))
        xb = bf16_exact(sample((K, M), 2))
        a = self.ctx.quantize(xa, q, input_type="bf16")
        b = self.ctx.quantize(xb, q, input_type="bf16")
        opa = self.ctx.dequantize(a, "columnwise").astype(np.float64)
        opb = self.ctx.dequantize(b, "columnwise").astype(np.float64).T
        d = te.gemm(a, b, "NT")
        self.assertClose(d, opb @ opa, np.abs(opb) @ np.abs(opa))

    def test_alpha_bias_accumulate(self):
        a, b, opa, opb = self.operands("#te.mxfp8<f8E4M3FN>", "TN", 3)
        bias = sample((N,), 4)
        prev = sample((M, N), 5)
        out = prev.copy()
        r = te.gemm(a, b, "TN", out=out, alpha=0.5, bias=bias,
                    accumulate=True)
        self.assertIs(r, out)
        ref = 0.5 * (opb @ opa) + bias + prev
        bound = 0.5 * (np.abs(opb) @ np.abs(opa)) + np.abs(bias) + \
            np.abs(prev)
        self.assertClose(out, ref, bound)

    def test_float16_output(self):
        a, b, opa, opb = self.operands("#te.current<f8E4M3FN>", "TN", 6)
        d32 = te.gemm(a, b)
        d16 = te.gemm(a, b, dtype=np.float16)
        self.assertEqual(d16.dtype, np.float16)
        np.testing.assert_array_equal(d16, d32.astype(np.float16))

    def test_quantized_output(self):
        a, b, _, _ = self.operands("#te.current<f8E4M3FN>", "TN", 7)
        out_q = self.ctx.empty_qtensor("#te.current<f8E4M3FN>", (M, N))
        d = te.gemm(a, b, output=out_q)
        direct = self.ctx.quantize(d, "#te.current<f8E4M3FN>")
        for name, buf in out_q.buffers().items():
            self.assertEqual(buf.tobytes(), direct.buffers()[name].tobytes(),
                             name)
        self.assertEqual(out_q.amax, direct.amax)

    def test_batched_operand_is_flattened(self):
        ctx = self.ctx
        x = sample((2, 32, K), 8)
        w = sample((N, K), 9)
        xq = ctx.quantize(x, "#te.mxfp8<f8E4M3FN>")
        wq = ctx.quantize(w, "#te.mxfp8<f8E4M3FN>")
        d = te.gemm(wq, xq, "TN")
        self.assertEqual(d.shape, (64, N))
        x2 = ctx.quantize(x.reshape(64, K), "#te.mxfp8<f8E4M3FN>")
        np.testing.assert_array_equal(d, te.gemm(wq, x2, "TN"))


if __name__ == "__main__":
    unittest.main()
