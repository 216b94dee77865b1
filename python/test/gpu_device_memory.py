"""GPU test (ctest label `gpu`): quantize tensors that live in device memory
(PyTorch CUDA tensors, through DLPack and through __cuda_array_interface__)
on the cuda backend, in place, and compare every buffer bit for bit with the
cpu backend on the same values."""

import unittest

import numpy as np

import te
from te import _interop
from common import bf16_exact, sample

try:
    import torch
except ImportError:
    torch = None

RECIPES = [
    ("#te.delayed<f8E4M3FN>", {"scale": 2.0}),
    ("#te.current<f8E4M3FN>", {}),
    ("#te.current<f8E5M2, pow2_scales = true>", {}),
    ("#te.block<f8E4M3FN>", {}),
    ("#te.block<f8E4M3FN, dims = 2>", {}),
    ("#te.mxfp8<f8E4M3FN>", {}),
    ("#te.mxfp8<f8E4M3FN>", {"swizzled": True}),
    ("#te.nvfp4<f4E2M1FN>", {}),
    ("#te.nvfp4<f4E2M1FN, block_2d = true>", {}),
    ("#te.nvfp4<f4E2M1FN, stochastic_rounding = true>", {"seed": 7}),
    ("#te.nvfp4<f4E2M1FN, rht = true>", {"bf16": True}),
]


class CaiOnly:
    """Exposes a tensor only through __cuda_array_interface__."""

    def __init__(self, t):
        self._t = t
        self.__cuda_array_interface__ = t.__cuda_array_interface__


@unittest.skipUnless(te.backend_available("cuda"),
                     "no CUDA device or no cuda backend")
@unittest.skipIf(torch is None, "PyTorch is not installed")
class DeviceMemory(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.gpu = te.Context("cuda")
        cls.cpu = te.Context("cpu")

    def assertSameBuffers(self, qg, qc, what):
        self.assertEqual(qg.ctx.backend, "cuda")
        bg, bc = qg.buffers(), qc.buffers()
        self.assertEqual(sorted(bg), sorted(bc))
        for name in bc:
            self.assertEqual(bg[name].tobytes(), bc[name].tobytes(),
                             f"{what}: {name}")
        if qc.amax is not None:
            self.assertEqual(np.float32(qg.amax), np.float32(qc.amax))

    def test_quantize_torch_tensor_in_place(self):
        for quantizer, opts in RECIPES:
            opts = dict(opts)
            bf16 = opts.pop("bf16", False)
            with self.subTest(quantizer=quantizer, opts=opts):
                x = sample((256, 512), 1)
                if bf16:
                    x = bf16_exact(x)
                t = torch.from_numpy(x).cuda()
                if bf16:
                    t = t.to(torch.bfloat16)
                qg = self.gpu.quantize(t, quantizer, **opts)
                qc = self.cpu.quantize(
                    x, quantizer, input_type="bf16" if bf16 else None, **opts)
                self.assertSameBuffers(qg, qc, quantizer)
                # Dequantized on the GPU into a torch tensor (out=).
                out = torch.empty(x.shape, dtype=torch.float32, device="cuda")
                self.gpu.dequantize(qg, out=out)
                torch.cuda.synchronize()
                self.assertEqual(out.cpu().numpy().tobytes(),
                                 self.cpu.dequantize(qc).tobytes())

    def test_views_are_the_tensor_memory(self):
        t = torch.from_numpy(sample((64, 128))).cuda()
        v = _interop.view(t)
        self.assertEqual(v.ptr, t.data_ptr())
        self.assertEqual(v.device, _interop.CUDA)
        c = _interop.view(CaiOnly(t))
        self.assertEqual(c.ptr, t.data_ptr())
        tb = t.to(torch.bfloat16)
        self.assertEqual(_interop.view(tb).ptr, tb.data_ptr())

    def test_cuda_array_interface_path(self):
        x = sample((128, 256), 2)
        t = torch.from_numpy(x).cuda()
        qg = self.gpu.quantize(CaiOnly(t), "#te.mxfp8<f8E4M3FN>")
        qc = self.cpu.quantize(x, "#te.mxfp8<f8E4M3FN>")
        self.assertSameBuffers(qg, qc, "cai")

    def test_module_functions_pick_the_cuda_context(self):
        x = sample((128, 128), 3)
        q = te.quantize(torch.from_numpy(x).cuda(), "#te.current<f8E4M3FN>")
        self.assertEqual(q.ctx.backend, "cuda")
        y = te.dequantize(q)                      # a DeviceArray
        yt = torch.as_tensor(y, device="cuda")    # __cuda_array_interface__
        self.assertEqual(yt.data_ptr(), y.ptr)
        ref = self.cpu.dequantize(self.cpu.quantize(
            x, "#te.current<f8E4M3FN>"))
        self.assertEqual(yt.cpu().numpy().tobytes(), ref.tobytes())
        self.assertEqual(y.numpy().tobytes(), ref.tobytes())

    def test_gemm_on_device(self):
        w, x = sample((256, 512), 4), sample((128, 512), 5)
        q = "#te.current<f8E4M3FN>"
        wg = self.gpu.quantize(torch.from_numpy(w).cuda(), q)
        xg = self.gpu.quantize(torch.from_numpy(x).cuda(), q)
        d = torch.empty((128, 256), dtype=torch.float32, device="cuda")
        self.gpu.gemm(wg, xg, "TN", out=d, use_split_accumulator=True)
        torch.cuda.synchronize()
        self.assertEqual(self.gpu.last_gemm_path(), "native_fp8")
        dc = self.cpu.gemm(self.cpu.quantize(w, q), self.cpu.quantize(x, q))
        # cuBLASLt's fp32 accumulation against the cpu backend's float64.
        np.testing.assert_allclose(d.cpu().numpy(), dc, rtol=1e-3,
                                   atol=1e-3 * np.abs(dc).max())

    def test_device_array_refused_by_cpu_context(self):
        t = torch.zeros((32, 32), device="cuda")
        with self.assertRaises(te.InvalidArgumentError):
            self.cpu.quantize(t, "#te.current<f8E4M3FN>")


if __name__ == "__main__":
    unittest.main()
