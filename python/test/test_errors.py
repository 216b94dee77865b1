"""Failures raise Python exceptions carrying the runtime's message."""

import unittest

import numpy as np

import te
from common import TeQuantize, sample, tool

BAD_SYNTAX = [
    "mxfp8<f8E4M3FN>",
    "#te.foo<f8E4M3FN>",
    "#te.mxfp8 f8E4M3FN",
    "#te.mxfp8<>",
    "#te.mxfp8<bf16>",
    "#te.current<f8E4M3FN, pow2_scales>",
    "#te.current<f8E4M3FN, pow2_scales = maybe>",
    "#te.current<f8E4M3FN, amax_epsilon = inf>",
    "#te.delayed<f8E4M3FN, margin = 1, margin = 2>",
    "#te.delayed<f8E4M3FN, history = 12x>",
    "#te.delayed<f8E4M3FN, algo = min>",
    "#te.block<f8E4M3FN, dims = 99999999999>",
    "#te.mxfp8<f8E4M3FN, e8m0_rounding = down>",
    "#te.nvfp4<f4E2M1FN, rht_sign_mask = -1>",
    "#te.nvfp4<f4E2M1FN, err_mode = max>",
    "#te.nvfp4<f4E2M1FN, dims = 2>",
    "#te.nvfp4<f4E2M1FN",
    "#te.nvfp4<f4E2M1FN> trailing",
    "#te.mxfp8<f8E4M3FN,>",
]

# Parse, but TransformerEngine does not accept the configuration
# (te_rt_quantizer_verify).
REJECTED = [
    "#te.nvfp4<f8E4M3FN>",
    "#te.mxfp8<f4E2M1FN>",
    "#te.block<f8E4M3FN, dims = 3>",
    "#te.delayed<f8E4M3FN, margin = -2>",
    "#te.nvfp4<f4E2M1FN, rht_sign_mask = 8>",
    "#te.nvfp4<f4E2M1FN, err_mode = mse>",
]

GOOD_SYNTAX = {
    # text: expected te_rt_quantizer fields
    "#te.block<f8E4M3FN>": {"recipe": 2, "pow2_scales": 1, "block_dim": 1},
    "  #te.nvfp4 < f4E2M1FN , rht = true >  ": {"rht": 1,
                                                "rht_sign_mask": 0xD7E8},
    "#te.nvfp4<f4E2M1FN, rht = true, rht_sign_mask = 0x1234>":
        {"rht_sign_mask": 0x1234},
    "#te.delayed<f8E5M2, margin = 2, history = 16, algo = most_recent>":
        {"dtype": 5, "margin": 2, "history_length": 16, "amax_algo": 1},
    "#te.current<f8E4M3FN, amax_epsilon = 1.0e-03>":
        {"amax_epsilon": float(np.float32(1e-3))},
    "#te.nvfp4<f4E2M1FN, four_over_six = true, e4m3_max = 256.0>":
        {"use_4over6": 1, "e4m3_max": 256.0},
}


def assertSameMessage(test, exc, stderr):
    """te-quantize's error output carries the exception's message."""
    test.assertTrue(str(exc))
    test.assertIn(str(exc), stderr)


class QuantizerSyntax(unittest.TestCase):
    def test_good(self):
        for text, fields in GOOD_SYNTAX.items():
            with self.subTest(text=text):
                got = te.Quantizer(text).fields()
                for k, v in fields.items():
                    self.assertEqual(got[k], v, k)

    @unittest.skipUnless(tool("te-quantize", "TE_QUANTIZE"),
                         "te-quantize not found (set TE_QUANTIZE)")
    def test_same_messages_as_te_quantize(self):
        tq = TeQuantize(tool("te-quantize", "TE_QUANTIZE"))
        x = sample((32, 64))
        for text in BAD_SYNTAX:
            with self.subTest(text=text):
                with self.assertRaises(te.QuantizerSyntaxError) as cm:
                    te.Quantizer(text)
                _, err = tq.run(x, text)
                self.assertIsNotNone(err)
                assertSameMessage(self, cm.exception, err)
        for text in REJECTED:
            with self.subTest(text=text):
                with self.assertRaises(te.InvalidArgumentError) as cm:
                    te.Quantizer(text)
                self.assertTrue(str(cm.exception))
                self.assertEqual(cm.exception.status_name,
                                 "INVALID_ARGUMENT")
                _, err = tq.run(x, text)
                assertSameMessage(self, cm.exception, err)

    def test_not_a_string(self):
        with self.assertRaises(TypeError):
            te.Quantizer(3)


class RuntimeErrors(unittest.TestCase):
    def test_shape_refused_by_recipe(self):
        with self.assertRaises(te.InvalidArgumentError) as cm:
            te.quantize(sample((3, 5)), "#te.mxfp8<f8E4M3FN>")
        self.assertRegex(str(cm.exception), r"\S")
        self.assertEqual(cm.exception.status, 1)

    @unittest.skipUnless(tool("te-quantize", "TE_QUANTIZE"),
                         "te-quantize not found (set TE_QUANTIZE)")
    def test_shape_message_is_te_quantizes(self):
        tq = TeQuantize(tool("te-quantize", "TE_QUANTIZE"))
        x = sample((3, 5))
        for q in ("#te.mxfp8<f8E4M3FN>", "#te.nvfp4<f4E2M1FN>"):
            with self.subTest(q=q):
                with self.assertRaises(te.Error) as cm:
                    te.quantize(x, q)
                _, err = tq.run(x, q)
                assertSameMessage(self, cm.exception, err)

    def test_rht_needs_bf16(self):
        with self.assertRaisesRegex(te.UnsupportedError,
                                    "RHT needs a bf16 input"):
            te.quantize(sample((64, 64)), "#te.nvfp4<f4E2M1FN, rht = true>")

    def test_gemm_shape_mismatch(self):
        a = te.quantize(sample((64, 128)), "#te.mxfp8<f8E4M3FN>")
        b = te.quantize(sample((64, 96)), "#te.mxfp8<f8E4M3FN>")
        with self.assertRaises(te.InvalidArgumentError) as cm:
            te.gemm(a, b, "TN")
        self.assertTrue(str(cm.exception))

    def test_gemm_missing_representation(self):
        a = te.quantize(sample((64, 128)), "#te.current<f8E4M3FN>",
                        usage="rowwise")
        b = te.quantize(sample((64, 128)), "#te.current<f8E4M3FN>")
        with self.assertRaises(te.Error) as cm:
            te.gemm(a, b, "NN")
        self.assertIn("columnwise", str(cm.exception))

    def test_dequantize_representation_not_held(self):
        q = te.quantize(sample((64, 128)), "#te.mxfp8<f8E4M3FN>",
                        usage="rowwise")
        with self.assertRaises(te.Error) as cm:
            te.dequantize(q, "columnwise")
        self.assertTrue(str(cm.exception))

    def test_delayed_scale_with_other_recipe(self):
        with self.assertRaises(te.InvalidArgumentError) as cm:
            te.quantize(sample((32, 32)), "#te.current<f8E4M3FN>", scale=2.0)
        self.assertIn("scale", str(cm.exception))

    def test_cuda_unavailable(self):
        if te.backend_available("cuda"):
            self.skipTest("a GPU is present")
        with self.assertRaises(te.BackendUnavailableError) as cm:
            te.Context("cuda")
        self.assertTrue(str(cm.exception))

    def test_context_mismatch_and_closed(self):
        c1, c2 = te.Context("cpu"), te.Context("cpu")
        q = c1.quantize(sample((32, 32)), "#te.current<f8E4M3FN>")
        with self.assertRaises(te.InvalidArgumentError):
            c2.dequantize(q)
        c2.close()
        with self.assertRaisesRegex(ValueError, "closed"):
            c2.quantize(sample((32, 32)), "#te.current<f8E4M3FN>")

    def test_bad_arguments(self):
        x = sample((32, 32))
        with self.assertRaises(ValueError):
            te.quantize(x, "#te.current<f8E4M3FN>", usage="both")
        with self.assertRaises(ValueError):
            te.quantize(x, "#te.current<f8E4M3FN>", target="sm_80")
        with self.assertRaises(TypeError):
            te.quantize(np.array(["a"]), "#te.current<f8E4M3FN>")
        with self.assertRaises(ValueError):
            te.Context("tpu")

    def test_error_is_cleared(self):
        with self.assertRaises(te.Error):
            te.quantize(sample((3, 5)), "#te.mxfp8<f8E4M3FN>")
        from te import _lib
        self.assertEqual(_lib.load().te_rt_last_error(), b"")


if __name__ == "__main__":
    unittest.main()
