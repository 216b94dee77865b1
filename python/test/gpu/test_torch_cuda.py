"""te programs compiled ahead of time, run from Python on CUDA torch tensors
(the GPU machine: PyTorch with CUDA, te's runtime, no MLIR).

Prepare the programs on a machine with te's MLIR build:

    python/test/gpu/prepare.sh OUT_DIR            # sm_90 shared libraries

then on the GPU machine (builds the runtime alone, cmake -S runtime, and
runs this file with pytest, or without it):

    python/test/gpu/run.sh OUT_DIR

or by hand, with te's Python package and runtime on the path:

    PYTHONPATH=<runtime build>/python TE_GPU_PROGRAMS=OUT_DIR \
        python3 -m pytest -v python/test/gpu/test_torch_cuda.py

Checks: arguments are passed in place and results come back as torch
tensors over te's own buffers (data_ptr equality, no copies); bf16, i1 and
scalar arguments; a caller's side stream; te.Array's DLPack export; a
PyTorch MLP imported by te.torch on the dev machine and compiled for the
GPU (fp32 and FP8 current scaling, dynamic batch); results against torch
eager in fp32 at the recipe's tolerance (docs/formats.md §8: E4M3 operands 0.06,
E5M2 gradients 0.12 normwise); clear errors for a wrong dtype, device or
shape.
"""

import os
import shutil
import sys

import torch

import te

PROGRAMS = os.environ.get("TE_GPU_PROGRAMS")
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def _load(name):
    path = os.path.join(PROGRAMS, name)
    assert os.path.exists(path), f"{path} missing: run prepare.sh OUT_DIR"
    return te.load(path)


def _rel(got, want):
    got, want = got.double(), want.double()
    return ((got - want).norm() / want.norm()).item()


def _gelu_reference(x, b):
    # The program adds in bf16 (linalg.add on bf16), then works in f32.
    h = (x + b).float()
    return 0.5 * h * (1 + torch.tanh(0.7978845608 * (h + 0.044715 * h ** 3)))


def test_bf16_in_place_and_zero_copy_results():
    prog = _load("gelu_chain.so")
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(96, 512, device="cuda", generator=g).to(torch.bfloat16)
    b = torch.randn(512, device="cuda", generator=g).to(torch.bfloat16)
    y = prog.run("gelu_chain", x, b)
    assert isinstance(y, torch.Tensor) and y.is_cuda
    assert y.dtype == torch.bfloat16 and tuple(y.shape) == (96, 512)
    # The arguments were read in place, the result is te's buffer.
    assert prog.last_arguments == [x.data_ptr(), b.data_ptr()]
    assert prog.last_results == [y.data_ptr()]
    torch.testing.assert_close(y.float(), _gelu_reference(x, b),
                               rtol=0.016, atol=1e-5)


def test_dynamic_batch_and_side_stream():
    prog = _load("gelu_chain.so")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.randn(40, 512, device="cuda").to(torch.bfloat16)
        b = torch.randn(512, device="cuda").to(torch.bfloat16)
        y = prog.run("gelu_chain", x, b)   # ordered with s (torch's current)
        total = y.float().sum()             # consumed on s
    s.synchronize()
    assert prog.last_arguments == [x.data_ptr(), b.data_ptr()]
    want = _gelu_reference(x, b)
    torch.testing.assert_close(y.float(), want, rtol=0.016, atol=1e-5)
    assert abs(total.item() - want.sum().item()) <= 1e-2 * want.abs().sum()


def test_bool_mask_scalar_two_results():
    prog = _load("masked_rows.so")
    x = torch.randn(64, 96, device="cuda")
    m = torch.rand(64, 96, device="cuda") > 0.3
    y, rows = prog.run("masked_rows", x, m, 1.5)
    assert prog.last_arguments == [x.data_ptr(), m.data_ptr(), None]
    assert prog.last_results == [y.data_ptr(), rows.data_ptr()]
    want = torch.where(m, x * 1.5, torch.zeros_like(x))
    torch.testing.assert_close(y, want, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(rows, (want * want).sum(1), rtol=1e-5,
                               atol=1e-5)


def _linear(name, bound_y, bound_grads):
    prog = _load(name + ".so")
    g = torch.Generator(device="cuda").manual_seed(9)
    x = torch.randn(32, 128, device="cuda", generator=g)
    w = torch.randn(64, 128, device="cuda", generator=g)
    b = torch.randn(64, device="cuda", generator=g)
    dy = torch.randn(32, 64, device="cuda", generator=g)
    y, dx, dw, db = prog.run(name, x, w, b, dy)
    assert prog.last_arguments == [t.data_ptr() for t in (x, w, b, dy)]
    assert prog.last_results == [t.data_ptr() for t in (y, dx, dw, db)]
    assert _rel(y, x @ w.t() + b) <= bound_y
    assert _rel(dx, dy @ w) <= bound_grads
    assert _rel(dw, dy.t() @ x) <= bound_grads
    torch.testing.assert_close(db, dy.sum(0), rtol=1e-5, atol=1e-5)


def test_linear_current_scaling():
    _linear("linear_current", 0.06, 0.12)   # HYBRID: E5M2 gradients


def test_linear_mxfp8():
    _linear("linear_mxfp8", 0.06, 0.06)


def test_te_array_exports_through_dlpack():
    prog = _load("gelu_chain.so")

    class Producer:  # a DLPack producer that is not torch
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, **kw):
            return self.t.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    x = torch.randn(8, 512, device="cuda").to(torch.bfloat16)
    b = torch.zeros(512, device="cuda", dtype=torch.bfloat16)
    y = prog.run("gelu_chain", Producer(x), Producer(b))
    assert isinstance(y, te.Array) and y.dtype == "bf16"
    assert y.__dlpack_device__() == (2, 0)
    t = torch.from_dlpack(y)
    assert t.data_ptr() == y.ptr and t.dtype == torch.bfloat16
    torch.testing.assert_close(t.float(), _gelu_reference(x, b), rtol=0.016,
                               atol=1e-5)


def test_device_array_exports_through_dlpack():
    # te.dequantize's result on a cuda context is a te.DeviceArray.
    x = torch.randn(64, 128, device="cuda")
    q = te.quantize(x, "#te.mxfp8<f8E4M3FN>")
    import numpy as np
    y = te.dequantize(q, dtype=np.float16)
    assert isinstance(y, te.DeviceArray)
    assert y.__dlpack_device__() == (2, 0)
    t = torch.from_dlpack(y)
    assert t.data_ptr() == y.ptr and t.dtype == torch.float16
    assert _rel(t.float(), x) <= 0.06  # E4M3 operands (formats.md §8)


def test_object_file_linked_by_load():
    if not (shutil.which("cc") or shutil.which("gcc") or shutil.which("c++")):
        return  # no C compiler to link the object with
    prog = _load("gelu_chain.o")
    x = torch.randn(16, 512, device="cuda").to(torch.bfloat16)
    b = torch.randn(512, device="cuda").to(torch.bfloat16)
    y = prog.run("gelu_chain", x, b)
    torch.testing.assert_close(y.float(), _gelu_reference(x, b), rtol=0.016,
                               atol=1e-5)


def _module(name, bound):
    """A PyTorch MLP imported by te.torch on the dev machine
    (export_modules.py), compiled for the GPU: run on CUDA tensors with the
    module's own parameters, against the module in eager fp32."""
    import json
    import numpy as np
    prog = _load(name + ".so")
    data = np.load(os.path.join(PROGRAMS, name + ".npz"))
    with open(os.path.join(PROGRAMS, name + ".json")) as f:
        names = json.load(f)["param_names"]
    params = [torch.from_numpy(data[f"p{i}"]).cuda()
              for i in range(len(names))]
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(),
                                torch.nn.Linear(256, 64)).cuda().eval()
    own = dict(model.named_parameters())
    with torch.no_grad():
        for n, value in zip(names, params):
            own[n].copy_(value)
    for batch in (32, 96):  # the batch is dynamic
        x = torch.randn(batch, 64, device="cuda")
        y = prog.run("main", *params, x)
        assert prog.last_arguments == [t.data_ptr() for t in params + [x]]
        assert prog.last_results == [y.data_ptr()]
        with torch.no_grad():
            want = model(x)
        assert _rel(y, want) <= bound, (name, batch, _rel(y, want))


def test_module_fp32():
    _module("mlp_fp32", 1e-4)


def test_module_fp8_current_scaling():
    _module("mlp_current", 0.1)


def _raises(kind, text, fn):
    try:
        fn()
    except kind as e:
        assert text in str(e), f"{text!r} not in {e}"
        return
    raise AssertionError(f"no {kind.__name__}")


def test_errors():
    prog = _load("gelu_chain.so")
    b = torch.zeros(512, device="cuda", dtype=torch.bfloat16)
    _raises(TypeError, "f32 given, the program takes bf16",
            lambda: prog.run("gelu_chain",
                             torch.zeros(4, 512, device="cuda"), b))
    _raises(te.InvalidArgumentError, "host memory",
            lambda: prog.run("gelu_chain",
                             torch.zeros(4, 512, dtype=torch.bfloat16), b))
    _raises(ValueError, "size 256 at dimension 1, expected 512",
            lambda: prog.run("gelu_chain",
                             torch.zeros(4, 256, device="cuda",
                                         dtype=torch.bfloat16), b))
    _raises(ValueError, "not C-contiguous",
            lambda: prog.run("gelu_chain",
                             torch.zeros(512, 4, device="cuda",
                                         dtype=torch.bfloat16).t(), b))
    _raises(KeyError, "no entry @nope", lambda: prog.run("nope"))


if __name__ == "__main__":
    if len(sys.argv) > 1:
        PROGRAMS = sys.argv[1]
    if not PROGRAMS:
        sys.exit("usage: test_torch_cuda.py OUT_DIR (or TE_GPU_PROGRAMS)")
    failed = 0
    for name, fn in sorted(globals().items()):
        if name.startswith("test_") and callable(fn):
            try:
                fn()
                print(f"PASS {name}")
            except Exception as e:  # report and go on
                failed += 1
                print(f"FAIL {name}: {type(e).__name__}: {e}")
    sys.exit(1 if failed else 0)
