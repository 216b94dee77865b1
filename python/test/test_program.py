"""Programs called on DLPack tensors (torch 1.13 CPU, numpy) without copies;
te arrays exported through DLPack (the legacy and the 1.x versioned
capsules); dtype coverage; errors for a wrong device, dtype or shape; te.load
of programs compiled ahead of time (scripts/te-aot.sh compile)."""

import ctypes
import os
import subprocess
import tempfile
import unittest

import numpy as np

import te
from te import _dlpack
from te.program import Array

try:
    import torch
except ImportError:
    torch = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

MODULE = """
func.func @add(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %r = linalg.add ins(%x, %y : tensor<?x8xf32>, tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

func.func @bf16_scale(%x: tensor<4x8xbf16>, %s: f32) -> (tensor<4x8xbf16>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %x32 = arith.extf %x : tensor<4x8xbf16> to tensor<4x8xf32>
  %sc = tensor.splat %s : tensor<4x8xf32>
  %y = arith.mulf %x32, %sc : tensor<4x8xf32>
  %y16 = arith.truncf %y : tensor<4x8xf32> to tensor<4x8xbf16>
  return %y16, %y : tensor<4x8xbf16>, tensor<4x8xf32>
}

func.func @select(%m: tensor<16xi1>, %a: tensor<16xi32>, %b: tensor<16xi32>) -> tensor<16xi32> {
  %r = arith.select %m, %a, %b : tensor<16xi1>, tensor<16xi32>
  return %r : tensor<16xi32>
}

func.func @to_fp8(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<1xf32>) {
  %d0 = tensor.empty() : tensor<32x64xf8E4M3FN>
  %s0 = tensor.empty() : tensor<1xf32>
  %d, %s = te.quantize_buffers %x quantizer #te.current<f8E4M3FN> usage rowwise
      outs(%d0, %s0 : tensor<32x64xf8E4M3FN>, tensor<1xf32>)
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1xf32>
  return %d, %s : tensor<32x64xf8E4M3FN>, tensor<1xf32>
}
"""


def _bits_bf16(x):
    return np.asarray(x, np.float32).view(np.uint32) >> 16


class _Producer:
    """A DLPack producer that is neither numpy nor torch."""

    def __init__(self, obj, device=None):
        self.obj = obj
        self.device = device

    def __dlpack__(self, **kw):
        return self.obj.__dlpack__(**{k: v for k, v in kw.items()
                                      if k == "stream" and v is not None})

    def __dlpack_device__(self):
        return self.device or self.obj.__dlpack_device__()


def _host_array(values, dtype):
    """A te.Array over a numpy buffer (owner: the buffer)."""
    storage = np.ascontiguousarray(values)
    strides = [s // storage.itemsize for s in storage.strides]
    return Array(storage.ctypes.data, storage.shape, strides, dtype, "cpu",
                 storage), storage


@unittest.skipUnless(te.has_compiler(), "te.compile needs the MLIR build")
class ProgramTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.prog = te.compile(MODULE)

    def test_numpy_in_numpy_out(self):
        x = np.arange(24, dtype=np.float32).reshape(3, 8)
        y = self.prog.run("add", x, 2 * x)
        self.assertIsInstance(y, np.ndarray)
        np.testing.assert_array_equal(y, 3 * x)

    @unittest.skipIf(torch is None, "needs torch")
    def test_torch_in_place_and_result_shared(self):
        x = torch.arange(40, dtype=torch.float32).reshape(5, 8)
        y = torch.ones(5, 8)
        r = self.prog.run("add", x, y)
        self.assertIsInstance(r, torch.Tensor)
        self.assertEqual(self.prog.last_arguments,
                         [x.data_ptr(), y.data_ptr()])
        self.assertEqual(self.prog.last_results, [r.data_ptr()])
        torch.testing.assert_close(r, x + 1)
        del r  # released by torch through the DLPack deleter

    @unittest.skipIf(torch is None, "needs torch")
    def test_torch_compile_passes_parameters_in_place(self):
        import te.torch as tt
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                    torch.nn.Linear(32, 8)).eval()
        x = torch.randn(8, 16)
        fn = tt.compile(model, (x,))
        y = fn(x)
        params = [p.data_ptr() for p in model.parameters()]
        self.assertEqual(fn.program.last_arguments, params + [x.data_ptr()])
        self.assertEqual(fn.program.last_results, [y.data_ptr()])
        with torch.no_grad():
            torch.testing.assert_close(y, model(x), rtol=2e-5, atol=2e-5)

    def test_other_producer_gets_te_arrays(self):
        x = np.arange(16, dtype=np.float32).reshape(2, 8)
        r = self.prog.run("add", _Producer(x), _Producer(x))
        self.assertIsInstance(r, te.Array)
        self.assertEqual(self.prog.last_arguments[0], x.ctypes.data)
        self.assertEqual(r.ptr, self.prog.last_results[0])
        np.testing.assert_array_equal(r.numpy(), 2 * x)
        view = np.from_dlpack(r)
        self.assertEqual(view.ctypes.data, r.ptr)
        np.testing.assert_array_equal(view, 2 * x)

    @unittest.skipIf(torch is None, "needs torch")
    def test_bf16_and_scalar(self):
        x = torch.randn(4, 8).to(torch.bfloat16)
        y16, y32 = self.prog.run("bf16_scale", x, 0.5)
        self.assertEqual(y16.dtype, torch.bfloat16)
        self.assertEqual(self.prog.last_arguments[0], x.data_ptr())
        self.assertIsNone(self.prog.last_arguments[1])
        torch.testing.assert_close(y32, x.float() * 0.5, rtol=0, atol=0)
        torch.testing.assert_close(y16, (x.float() * 0.5).to(torch.bfloat16),
                                   rtol=0, atol=0)

    @unittest.skipIf(torch is None, "needs torch")
    def test_bool_and_integers(self):
        m = torch.arange(16) % 3 == 0
        a = torch.arange(16, dtype=torch.int32)
        b = -a
        r = self.prog.run("select", m, a, b)
        self.assertEqual(r.dtype, torch.int32)
        self.assertEqual(self.prog.last_arguments,
                         [m.data_ptr(), a.data_ptr(), b.data_ptr()])
        torch.testing.assert_close(r, torch.where(m, a, b))

    def test_fp8_result(self):
        # amax 448 = E4M3's largest: the current scale is 1, and the values
        # are exact in E4M3: 0 -> 0x00, 1 -> 0x38, -2 -> 0xC0, 448 -> 0x7E.
        x = np.tile(np.array([0.0, 1.0, -2.0, 448.0], np.float32),
                    (32, 16))
        r, scale_inv = self.prog.run("to_fp8", _Producer(x))
        self.assertEqual(r.dtype, "f8E4M3FN")
        self.assertEqual(scale_inv.numpy().tolist(), [1.0])
        np.testing.assert_array_equal(r.numpy()[0, :4], [0, 0x38, 0xC0, 0x7E])
        if torch is not None:
            t = r.torch()  # uint8 bit patterns on torch without float8
            self.assertEqual(t.data_ptr(), r.ptr)
            self.assertEqual(t[0, :4].tolist(), [0, 0x38, 0xC0, 0x7E])

    def test_wrong_device(self):
        x = np.zeros((2, 8), np.float32)
        fake_cuda = _Producer(x, device=(_dlpack.CUDA, 0))
        with self.assertRaisesRegex(te.InvalidArgumentError,
                                    r"@add argument 0 \(float32\[\?,8\]\) "
                                    r"is on cuda:0, but the program was "
                                    r"compiled for target cpu"):
            self.prog.run("add", fake_cuda, x)

    @unittest.skipIf(torch is None, "needs torch")
    def test_wrong_dtype_shape_layout(self):
        x = torch.zeros(2, 8)
        with self.assertRaisesRegex(TypeError, r"@add argument 1 "
                                    r"\(float32\[\?,8\]\): f64 given, the "
                                    r"program takes f32"):
            self.prog.run("add", x, torch.zeros(2, 8, dtype=torch.float64))
        with self.assertRaisesRegex(ValueError, r"@add: argument 1 "
                                    r"\(f32\[\?,8\]\): size 4 at dimension "
                                    r"1, expected 8"):
            self.prog.run("add", x, torch.zeros(2, 4))
        # The program checks its dynamic sizes (te-check-shapes).
        with self.assertRaisesRegex(te.InvalidArgumentError,
                                    r"shape check: .* is 3, expected 2"):
            self.prog.run("add", x, torch.zeros(3, 8))
        with self.assertRaisesRegex(ValueError, "not C-contiguous"):
            self.prog.run("add", x, torch.zeros(8, 2).t())
        with self.assertRaisesRegex(TypeError, r"@add takes 2 arguments"):
            self.prog.run("add", x)

    def test_targets(self):
        with self.assertRaisesRegex(ValueError, "target expects one of"):
            te.compile(MODULE, target="sm_80")
        # A GPU program (compiled here without a GPU) takes device memory.
        with te.compile(MODULE, target="sm_90") as gpu:
            self.assertEqual(gpu.target, "sm_90")
            x = np.zeros((2, 8), np.float32)
            with te.Context("cpu") as cpu, self.assertRaisesRegex(
                    te.InvalidArgumentError, r"@add was compiled for sm_90: "
                    r"it runs on a cuda context"):
                gpu.run("add", x, x, ctx=cpu)


class DLPackExportTest(unittest.TestCase):
    """te.Array's capsules, without any compiled program."""

    def test_legacy_and_versioned_capsules(self):
        a, storage = _host_array(np.arange(6, dtype=np.float32)
                                 .reshape(2, 3), "f32")
        before = _dlpack.exported_count()
        legacy = a.__dlpack__()
        self.assertTrue(ctypes.pythonapi.PyCapsule_IsValid(
            ctypes.py_object(legacy), b"dltensor"))
        versioned = a.__dlpack__(max_version=(1, 0))
        self.assertTrue(ctypes.pythonapi.PyCapsule_IsValid(
            ctypes.py_object(versioned), b"dltensor_versioned"))
        managed = _dlpack.DLManagedTensorVersioned.from_address(
            ctypes.pythonapi.PyCapsule_GetPointer(
                ctypes.py_object(versioned), b"dltensor_versioned"))
        self.assertEqual((managed.version.major, managed.version.minor),
                         (1, 0))
        self.assertEqual(managed.dl_tensor.data, storage.ctypes.data)
        self.assertEqual(_dlpack.exported_count(), before + 2)
        del legacy, versioned, managed  # never consumed: released
        self.assertEqual(_dlpack.exported_count(), before)

    def test_fp8_codes_from_dlpack_1_1(self):
        a, _ = _host_array(np.arange(4, dtype=np.uint8), "f8E5M2")
        cap = a.__dlpack__(max_version=(1, 1))
        m = _dlpack.DLManagedTensorVersioned.from_address(
            ctypes.pythonapi.PyCapsule_GetPointer(
                ctypes.py_object(cap), b"dltensor_versioned"))
        self.assertEqual((m.version.major, m.version.minor), (1, 1))
        self.assertEqual((m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits),
                         (_dlpack.FLOAT8_E5M2, 8))
        cap0 = a.__dlpack__(max_version=(1, 0))
        m0 = _dlpack.DLManagedTensorVersioned.from_address(
            ctypes.pythonapi.PyCapsule_GetPointer(
                ctypes.py_object(cap0), b"dltensor_versioned"))
        self.assertEqual((m0.dl_tensor.dtype.code, m0.dl_tensor.dtype.bits),
                         (_dlpack.UINT, 8))

    def test_round_trip_through_te_import(self):
        for dtype, values in (("f32", np.float32), ("f64", np.float64),
                              ("f16", np.float16), ("i8", np.int8),
                              ("i16", np.int16), ("i32", np.int32),
                              ("i64", np.int64), ("i1", np.bool_),
                              ("bf16", np.uint16), ("f8E4M3FN", np.uint8)):
            with self.subTest(dtype=dtype):
                a, storage = _host_array(np.arange(12).astype(values)
                                         .reshape(3, 4), dtype)
                v = _dlpack.view_of(_Legacy(a))
                self.assertEqual(v.ptr, storage.ctypes.data)
                self.assertEqual(v.shape, (3, 4))
                self.assertEqual(v.dtype, dtype if dtype not in _dlpack.FP8
                                 else "u8")
                vv = _dlpack.view_of(_Versioned(a))
                self.assertEqual(vv.ptr, storage.ctypes.data)
                self.assertEqual(vv.dtype, dtype)

    @unittest.skipIf(torch is None, "needs torch")
    def test_torch_dtypes_without_copies(self):
        cases = [("f32", np.float32, torch.float32),
                 ("f64", np.float64, torch.float64),
                 ("f16", np.float16, torch.float16),
                 ("i8", np.int8, torch.int8), ("i16", np.int16, torch.int16),
                 ("i32", np.int32, torch.int32), ("i64", np.int64,
                                                 torch.int64)]
        for dtype, npt, tt in cases:
            with self.subTest(dtype=dtype):
                a, storage = _host_array(np.arange(8).astype(npt), dtype)
                t = torch.from_dlpack(a)
                self.assertEqual(t.dtype, tt)
                self.assertEqual(t.data_ptr(), storage.ctypes.data)
                self.assertEqual(t.tolist(), list(range(8)))
        bits = (np.arange(8, dtype=np.float32).view(np.uint32) >> 16) \
            .astype(np.uint16)
        a, storage = _host_array(bits, "bf16")
        t = torch.from_dlpack(a)
        self.assertEqual(t.dtype, torch.bfloat16)
        self.assertEqual(t.data_ptr(), storage.ctypes.data)
        self.assertEqual(t.float().tolist(), list(range(8)))
        a, storage = _host_array(np.array([1, 0, 1], np.bool_), "i1")
        t = a.torch()
        self.assertEqual(t.dtype, torch.bool)
        self.assertEqual(t.data_ptr(), storage.ctypes.data)
        self.assertEqual(t.tolist(), [True, False, True])
        # torch's own tensors, read by te without copies.
        x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
        v = _dlpack.view_of(x)
        self.assertEqual((v.ptr, v.shape, v.dtype),
                         (x.data_ptr(), (2, 3), "f32"))

    def test_export_errors(self):
        a, _ = _host_array(np.zeros(4, np.float32), "f32")
        with self.assertRaisesRegex(BufferError, "without copies"):
            a.__dlpack__(copy=True)
        with self.assertRaisesRegex(BufferError, "dl_device"):
            a.__dlpack__(dl_device=(_dlpack.CUDA, 0))
        self.assertEqual(a.__dlpack_device__(), (_dlpack.CPU, 0))


class _Legacy:
    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kw):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class _Versioned:
    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kw):
        return self.a.__dlpack__(max_version=(1, 1))

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def _te_aot(args):
    env = dict(os.environ)
    run = os.environ.get("TE_RUN")
    if run and "TE_BUILD_DIR" not in env:
        env["TE_BUILD_DIR"] = os.path.dirname(os.path.dirname(run))
    return subprocess.run([os.path.join(ROOT, "scripts", "te-aot.sh"),
                           "compile"] + args, env=env, capture_output=True,
                          text=True)


@unittest.skipUnless(os.environ.get("TE_RUN"), "needs te-run (TE_RUN)")
class LoadTest(unittest.TestCase):
    """te.load of programs compiled ahead of time: a shared library and an
    object file; the runtime part of the package only."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.mlir = os.path.join(cls.tmp.name, "m.mlir")
        with open(cls.mlir, "w") as f:
            f.write(MODULE)
        for name, entry in (("add.so", "add"), ("bf16.o", "bf16_scale")):
            r = _te_aot([cls.mlir, os.path.join(cls.tmp.name, name),
                         "--entry", entry, "--target", "cpu"])
            if r.returncode != 0:
                raise RuntimeError(r.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_shared_library(self):
        prog = te.load(os.path.join(self.tmp.name, "add.so"))
        args, results = prog.signature("add")
        self.assertEqual(repr(args), "[float32[?,8], float32[?,8]]")
        self.assertEqual(prog._entry("add")[1].target, "cpu")
        x = np.arange(16, dtype=np.float32).reshape(2, 8)
        np.testing.assert_array_equal(prog.run("add", x, x), 2 * x)
        if torch is not None:
            t = torch.ones(3, 8)
            r = prog.run("add", t, t)
            self.assertEqual(prog.last_arguments, [t.data_ptr()] * 2)
            self.assertEqual(prog.last_results, [r.data_ptr()])
            torch.testing.assert_close(r, 2 * t)
        with self.assertRaisesRegex(KeyError, "no entry @bf16_scale"):
            prog.run("bf16_scale", x, 1.0)

    def test_object_file(self):
        prog = te.load(os.path.join(self.tmp.name, "bf16.o"))
        x = np.full((4, 8), 3.0, np.float32)
        y16, y32 = prog.run("bf16_scale", x, 2.0)
        np.testing.assert_array_equal(y32, 6 * np.ones((4, 8), np.float32))
        np.testing.assert_array_equal(y16, y32)  # numpy: bf16 as float32

    def test_missing_file(self):
        with self.assertRaisesRegex(te.InvalidArgumentError,
                                    "cannot load the program"):
            te.load(os.path.join(self.tmp.name, "none.so"))


if __name__ == "__main__":
    unittest.main()
