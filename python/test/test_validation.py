"""Arguments Python refuses as te-run and te-quantize refuse them: no value
is wrapped, truncated or read past what the caller gave."""

import unittest

import numpy as np

import te
from common import sample

MODULE = """
func.func @scalar_i32(%x: i32) -> i32 {
  return %x : i32
}

func.func @scalar_i1(%x: i1) -> i1 {
  return %x : i1
}

func.func @mask(%m: tensor<4xi1>) -> tensor<4xi1> {
  return %m : tensor<4xi1>
}

func.func @small(%v: tensor<3xi8>) -> tensor<3xi8> {
  return %v : tensor<3xi8>
}

func.func @fails(%a: tensor<?x1024xf32>, %b: tensor<?x1024xf32>) -> (tensor<?x1024xf32>, tensor<?x1024xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x1024xf32>
  %e = tensor.empty(%n) : tensor<?x1024xf32>
  %x = linalg.exp ins(%a : tensor<?x1024xf32>) outs(%e : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  %e2 = tensor.empty(%n) : tensor<?x1024xf32>
  %y = linalg.add ins(%x, %b : tensor<?x1024xf32>, tensor<?x1024xf32>) outs(%e2 : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  return %x, %y : tensor<?x1024xf32>, tensor<?x1024xf32>
}
"""


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


class QuantizeArguments(unittest.TestCase):
    def test_nvfp4_amax_in_is_two_floats(self):
        x = sample((32, 64))
        for bad in (3.0, [1.0], [1.0, 2.0, 3.0]):
            with self.assertRaisesRegex(
                    te.InvalidArgumentError,
                    "amax_in for nvfp4 is two floats .* got "
                    f"{np.asarray(bad).size}$"):
                te.quantize(x, "#te.nvfp4<f4E2M1FN>", amax_in=bad)
        amax = float(np.abs(x).max())
        te.quantize(x, "#te.nvfp4<f4E2M1FN>", amax_in=[amax, amax])

    def test_current_amax_in_is_one_float(self):
        x = sample((32, 64))
        with self.assertRaisesRegex(te.InvalidArgumentError,
                                    "amax_in for current is one float"):
            te.quantize(x, "#te.current<f8E4M3FN>", amax_in=[1.0, 2.0])
        te.quantize(x, "#te.current<f8E4M3FN>", amax_in=2.0)

    def test_seed_and_offset_in_uint64(self):
        x = sample((32, 64))
        q = "#te.nvfp4<f4E2M1FN, stochastic_rounding = true>"
        for what in ("seed", "offset"):
            for bad in (2**64, -1):
                with self.assertRaisesRegex(te.InvalidArgumentError,
                                            f"{what} must be in 0..2\\^64-1"):
                    te.quantize(x, q, **{what: bad})
            with self.assertRaisesRegex(TypeError, f"{what} must be an "
                                        "integer"):
                te.quantize(x, q, **{what: 1.5})
        # The largest seed is not 0: the results differ.
        a = te.dequantize(te.quantize(x, q, seed=2**64 - 1))
        b = te.dequantize(te.quantize(x, q, seed=0))
        self.assertFalse(np.array_equal(a, b))

    def test_scale_is_one_float(self):
        with self.assertRaisesRegex(te.InvalidArgumentError,
                                    "scale is one float, got 2"):
            te.quantize(sample((32, 64)), "#te.delayed<f8E4M3FN>",
                        scale=[1.0, 2.0])


class ProgramArguments(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.prog = te.compile(MODULE)

    @classmethod
    def tearDownClass(cls):
        cls.prog.close()

    def test_i32_scalar_range(self):
        self.assertEqual(int(self.prog.run("scalar_i32", 2**31 - 1)),
                         2**31 - 1)
        self.assertEqual(int(self.prog.run("scalar_i32", -2**31)), -2**31)
        for bad in (2**31, -2**31 - 1, 1.5):
            with self.assertRaisesRegex(ValueError, "is not a i32"):
                self.prog.run("scalar_i32", bad)

    def test_i1_scalar_zero_or_one(self):
        self.assertEqual(bool(self.prog.run("scalar_i1", 1)), True)
        for bad in (2, -1, 0.5):
            with self.assertRaisesRegex(ValueError, "is not a i1"):
                self.prog.run("scalar_i1", bad)

    def test_i1_tensor_zero_or_one(self):
        m = self.prog.run("mask", np.array([0, 1, 1, 0]))
        np.testing.assert_array_equal(m, [False, True, True, False])
        with self.assertRaisesRegex(ValueError, "element 2 is outside"):
            self.prog.run("mask", np.array([0, 2, 1, 0]))

    def test_integer_tensor_range(self):
        with self.assertRaisesRegex(ValueError, "element 128 is outside"):
            self.prog.run("small", np.array([1, 128, 3]))
        with self.assertRaisesRegex(ValueError, "non-integral"):
            self.prog.run("small", np.array([1.5, 2.0, 3.0]))
        np.testing.assert_array_equal(
            self.prog.run("small", np.array([-128, 0, 127])), [-128, 0, 127])


class FailedChecksDoNotLeak(unittest.TestCase):
    """A call stopped by a shape check frees what it allocated before the
    check (@fails's first result, 4 MiB written before the check of its
    second): 300 failing calls leaked 1.2 GB."""

    def test_rss_stays_bounded(self):
        with te.compile(MODULE) as prog:
            a = np.ones((1024, 1024), np.float32)
            b = np.ones((512, 1024), np.float32)
            self.assertEqual(prog.run("fails", a, a)[1].shape, (1024, 1024))

            def fail():
                with self.assertRaisesRegex(te.Error, "shape check"):
                    prog.run("fails", a, b)

            for _ in range(10):
                fail()
            before = resident_bytes()
            for _ in range(300):
                fail()
            grown = resident_bytes() - before
            self.assertLess(grown, 64 << 20,
                            f"300 failing calls grew the process by "
                            f"{grown >> 20} MiB")


if __name__ == "__main__":
    unittest.main()
