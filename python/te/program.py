"""Calling compiled te programs on arrays: DLPack tensors (PyTorch, CuPy,
JAX, numpy) without copies, numpy arrays by value.

A program comes from ``te.compile`` (JIT, needs MLIR) or ``te.load`` (an
object or shared library compiled ahead of time by ``scripts/te-aot.sh
compile``; needs only libte_rt and libte_call). Both call an entry through
libte_call's call frames (te_call.h), the convention te-run and te-aot-run
use.

Memory: a program compiled for target ``cpu`` takes host memory; one
compiled for a GPU target (``sm_90``, ``sm_100``) takes device memory of a
cuda context. ``run`` passes each DLPack tensor on the program's device in
place (same pointer), checks its dtype, shape and contiguity, and returns
results te allocated as :class:`Array` objects that export themselves
through DLPack without copies, as torch tensors when a torch tensor was
passed (``torch.from_dlpack``). numpy arrays are converted to the
parameter's type (and copied to the device for a GPU program); with only
numpy arguments the results come back as numpy arrays (bf16 as float32,
the 8-bit floats as uint8 bit patterns).

Streams: te_rt runs on the device's legacy default stream. Arguments are
imported with ``__dlpack__(stream=1)``, so their producers order pending
work before it. With another caller stream (``stream=``, or torch's current
stream when a torch tensor is passed), the call first waits for that stream
and the results are complete before ``run`` returns.
"""

import ctypes
import os
import shutil
import struct
import subprocess
import tempfile
import threading
from typing import Any, List, Optional, Tuple, Union

import numpy as np

from . import _call, _dlpack, _interop, _lib
from .errors import InvalidArgumentError

# numpy storage of each element type (bf16 as its bits, the 8-bit floats as
# uint8 bit patterns).
_STORAGE = {
    "f32": np.float32, "f64": np.float64, "f16": np.float16,
    "bf16": np.uint16, "i1": np.bool_, "i8": np.int8, "i16": np.int16,
    "i32": np.int32, "i64": np.int64, "f8E4M3FN": np.uint8,
    "f8E5M2": np.uint8, "f8E8M0FNU": np.uint8,
}
# The names TensorSpec (te.compile's signatures) uses.
_SPEC_NAMES = {
    "f32": "float32", "f64": "float64", "f16": "float16",
    "bf16": "bfloat16", "i1": "bool", "i8": "int8", "i16": "int16",
    "i32": "int32", "i64": "int64",
}
_SCALAR_FORMATS = {"f32": "<f", "f64": "<d", "i1": "<?", "i8": "<b",
                   "i16": "<h", "i32": "<i", "i64": "<q"}
_TORCH_FP8 = {"f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2",
              "f8E8M0FNU": "float8_e8m0fnu"}


def is_gpu_target(target):
    return target.startswith("sm_")


class TensorSpec:
    """A parameter or result of an entry: ``dtype`` (numpy dtype name,
    'bfloat16', or the 8-bit float's name, e.g. 'f8E4M3FN'), ``shape``
    (None for dynamic dimensions), ``scalar``, ``element`` (te's name)."""

    def __init__(self, element, shape, scalar):
        self.element = element
        self.dtype = _SPEC_NAMES.get(element, element)
        self.shape, self.scalar = shape, scalar

    def __repr__(self):
        if self.scalar:
            return self.dtype
        dims = ",".join("?" if d is None else str(d) for d in self.shape)
        return f"{self.dtype}[{dims}]"

    @property
    def storage(self):
        """The numpy dtype holding the values."""
        return np.dtype(_STORAGE[self.element])

    @property
    def itemsize(self):
        return self.storage.itemsize


class _Allocation:
    """Memory a call handed over, released once when the last Array (or
    DLPack consumer) drops it: free() for host memory, te_rt_free for a
    context's device memory."""

    _libc = None

    def __init__(self, ptr, ctx=None):
        self.ptr = ptr
        self.ctx = ctx

    def release(self):
        ptr, self.ptr = self.ptr, 0
        if not ptr:
            return
        if self.ctx is not None:
            if self.ctx._handle:
                self.ctx._lib.te_rt_free(self.ctx._handle, ptr)
            return
        if _Allocation._libc is None:
            libc = ctypes.CDLL(None)
            libc.free.argtypes = [ctypes.c_void_p]
            libc.free.restype = None
            _Allocation._libc = libc
        _Allocation._libc.free(ptr)

    def __del__(self):
        try:
            self.release()
        except Exception:
            pass


class Array:
    """An array in te's memory: a program's result (host memory for target
    cpu, device memory of a cuda context for a GPU target). Shared without
    copies through DLPack (``__dlpack__`` / ``__dlpack_device__``:
    ``torch.from_dlpack(a)``, ``cupy.from_dlpack(a)``, ``np.from_dlpack(a)``
    for host arrays of numpy's dtypes), or copied with ``numpy()``.

    ``shape``, ``strides`` (elements), ``dtype`` (te's element type: 'f32',
    'bf16', 'f8E4M3FN', 'i1', ...), ``device`` ('cpu' or 'cuda'), ``ptr``.
    """

    def __init__(self, ptr, shape, strides, dtype, device, owner, ctx=None,
                 device_id=0):
        self.ptr = int(ptr or 0)
        self.shape = tuple(int(d) for d in shape)
        self.strides = tuple(int(s) for s in strides)
        self.dtype = dtype
        self.device = device
        self.device_id = device_id
        self._owner = owner
        self._ctx = ctx

    @property
    def itemsize(self):
        return np.dtype(_STORAGE[self.dtype]).itemsize

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def __repr__(self):
        return (f"te.Array(shape={self.shape}, dtype={self.dtype!r}, "
                f"device={self.device!r})")

    def __dlpack_device__(self):
        if self.device == "cuda":
            return (_dlpack.CUDA, self.device_id)
        return (_dlpack.CPU, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                   copy=None):
        """A DLPack capsule of the array, no copy: a versioned one
        (DLManagedTensorVersioned) when ``max_version >= (1, 0)`` (with the
        DLPack 1.1 codes of the 8-bit floats when ``max_version >= (1,
        1)``; uint8 before), else the legacy one. `stream`: the consumer's
        CUDA stream; te's pending work on the array is complete before a
        stream other than the legacy default one (None, 1) may use it."""
        if copy:
            raise BufferError("te arrays are shared without copies "
                              "(copy=True asked for one)")
        if dl_device is not None and \
                tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"the array is on {self.__dlpack_device__()},"
                              f" dl_device={tuple(dl_device)} asked for")
        if self.device == "cuda" and stream not in (None, 1, -1) and \
                self._ctx is not None:
            self._ctx.synchronize(None)
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        fp8 = max_version is not None and tuple(max_version) >= (1, 1)
        return _dlpack.capsule(self.ptr, self.shape, self.strides, self.dtype,
                               self.__dlpack_device__(), self, versioned,
                               fp8_codes=fp8)

    def _as_bytes_of(self, dtype):
        """An object exporting the same memory as `dtype` (uint8 for the
        8-bit floats and i1, for consumers without those DLPack codes)."""
        return Array(self.ptr, self.shape, self.strides, dtype, self.device,
                     self, self._ctx, self.device_id)

    def storage(self):
        """The host values in their numpy storage (bf16 as uint16 bits, the
        8-bit floats as uint8): a view of host memory, a copy of device
        memory."""
        dtype = np.dtype(_STORAGE[self.dtype])
        n = self.size
        if n == 0:
            return np.empty(self.shape, dtype)
        span = sum((d - 1) * s for d, s in zip(self.shape, self.strides)) + 1
        byte_strides = [s * dtype.itemsize for s in self.strides]
        if self.device == "cpu":
            raw = (ctypes.c_uint8 * (span * dtype.itemsize)).from_address(
                self.ptr)
            raw._owner = self  # the view keeps the memory alive
            return np.ndarray(self.shape, dtype, buffer=raw,
                              strides=byte_strides)
        host = np.empty(span * dtype.itemsize, np.uint8)
        from . import _abi
        self._ctx.memcpy(host.ctypes.data, self.ptr, host.nbytes,
                         _abi.DEVICE_TO_HOST)
        return np.ndarray(self.shape, dtype, buffer=host,
                          strides=byte_strides).copy()

    def numpy(self) -> np.ndarray:
        """A host copy as numpy (bf16 as float32, the 8-bit floats as uint8
        bit patterns)."""
        a = np.array(self.storage(), copy=True)
        if self.dtype == "bf16":
            a = (a.astype(np.uint32) << 16).view(np.float32)
        return a

    def torch(self) -> Any:
        """The array as a torch tensor sharing its memory (DLPack); the
        8-bit floats as torch's float8 dtypes where torch has them (uint8
        otherwise), i1 as torch.bool."""
        import torch
        if self.dtype in _dlpack.FP8 or self.dtype == "i1":
            t = torch.from_dlpack(self._as_bytes_of("u8"))
            if self.dtype == "i1":
                return t.view(torch.bool)
            fp8 = getattr(torch, _TORCH_FP8[self.dtype], None)
            return t.view(fp8) if fp8 is not None else t
        return torch.from_dlpack(self)


def _is_torch(x):
    return type(x).__module__.startswith("torch") and \
        hasattr(x, "data_ptr")


def _torch_stream(args):
    """torch's current CUDA stream (an int) when a torch CUDA tensor is
    among `args`, else None."""
    for a in args:
        if _is_torch(a) and getattr(a, "is_cuda", False):
            import torch
            return torch.cuda.current_stream(a.device).cuda_stream
    return None


def _torch_dtype(name):
    import torch
    return getattr(torch, name)


def _is_dlpack(x):
    return not isinstance(x, np.ndarray) and hasattr(x, "__dlpack__") and \
        hasattr(x, "__dlpack_device__")


# The values of te's integer element types (i1: 0 or 1).
_INT_RANGES = {"i1": (0, 1), "i8": (-2**7, 2**7 - 1),
               "i16": (-2**15, 2**15 - 1), "i32": (-2**31, 2**31 - 1),
               "i64": (-2**63, 2**63 - 1), "index": (-2**63, 2**63 - 1)}


def _check_integers(src, p, where):
    """The elements of an integer or i1 argument fit its type, as te-run
    reads them: a value outside is refused, not wrapped (an i1 tensor took
    2), and so is a non-integral float."""
    bounds = _INT_RANGES.get(p.element)
    if bounds is None or src.size == 0:
        return
    if src.dtype.kind == "f":
        if not np.all(np.isfinite(src) & (src == np.trunc(src))):
            raise ValueError(f"{where}: {p!r} takes integers, got "
                             "non-integral values")
    elif src.dtype.kind not in "iub":
        return
    lo, hi = bounds
    smallest, largest = int(src.min()), int(src.max())
    if smallest < lo or largest > hi:
        bad = smallest if smallest < lo else largest
        raise ValueError(f"{where}: element {bad} is outside {p!r}'s range "
                         f"{lo}..{hi}")


def _scalar_bytes(value, p, where):
    fmt = _SCALAR_FORMATS.get(p.element)
    if fmt is None:
        raise TypeError(f"{where}: scalar {p.element} is not supported "
                        "(pass it as a tensor of one element)")
    if _is_torch(value) or isinstance(value, np.ndarray):
        value = value.item()
    try:
        if p.element == "i1":
            if isinstance(value, (float, np.floating)) or \
                    int(value) not in (0, 1):
                raise ValueError
            return struct.pack(fmt, bool(value))
        if p.element.startswith("i"):
            if int(value) != value:
                raise ValueError
            return struct.pack(fmt, int(value))
        return struct.pack(fmt, float(value))
    except (struct.error, ValueError, TypeError, OverflowError):
        raise ValueError(f"{where}: {value!r} is not a {p.element}") \
            from None


def _host_argument(a, p, where):
    """A numpy array holding `a` in p's storage (converted as te-run's
    --input: floats rounded to bfloat16 for bf16)."""
    if p.element == "bf16":
        src = np.asarray(a)
        if _interop.numpy_dtype_code(src.dtype) == _interop._abi.BF16:
            arr = np.asarray(src, order="C").view(np.uint16)
        else:
            arr = _interop.to_bf16_bits(src)
    elif p.element in _dlpack.FP8:
        arr = np.asarray(a, order="C")
        if arr.dtype != np.uint8:
            raise TypeError(f"{where}: {p!r} takes uint8 bit patterns, got "
                            f"{arr.dtype}")
    else:
        # order="C": np.ascontiguousarray would make a 0-d array 1-d.
        src = np.asarray(a)
        _check_integers(src, p, where)
        arr = np.asarray(src, dtype=_STORAGE[p.element], order="C")
    if arr.ndim != len(p.shape) or any(
            d is not None and d != n for d, n in zip(p.shape, arr.shape)):
        raise ValueError(f"{where}: shape {arr.shape} does not match {p!r}")
    return arr


def _dtype_name(imported):
    if imported.dtype is not None:
        return imported.dtype
    code, bits, lanes = imported.dl_dtype
    return f"DLPack dtype (code {code}, {bits} bits, {lanes} lanes)"


def _accepts(p_element, imported):
    d = imported.dtype
    if d == p_element:
        return True
    # 8-bit floats travel as uint8 bit patterns (DLPack before 1.1, torch
    # without float8 export); i1 as one byte.
    if p_element in _dlpack.FP8 and d in ("u8", "i8"):
        return True
    return p_element == "i1" and d == "u8"


class Program:
    """A compiled te program: ``entries()``, ``signature(entry)``,
    ``run(entry, *args, ctx=None, stream=None)``. After a call,
    ``last_arguments`` holds the address each tensor argument was passed
    at (None for scalars) and ``last_results`` the address of each result
    te returned (None for scalars): the caller's tensors' own addresses
    where nothing was copied."""

    target = "cpu"
    last_arguments = None
    last_results = None

    def _entry(self, entry):  # -> (packed address, _call.Signature)
        raise NotImplementedError

    def entries(self):
        raise NotImplementedError

    def signature(self, entry: str = "main") -> Tuple[List["TensorSpec"],
                                                       List["TensorSpec"]]:
        """([TensorSpec of each parameter], [TensorSpec of each result])."""
        _, sig = self._entry(entry)
        return ([TensorSpec(t.element, t.shape, t.scalar) for t in sig.args],
                [TensorSpec(t.element, t.shape, t.scalar)
                 for t in sig.results])

    def run(self, entry: str, *args: Any, ctx: Optional[Any] = None,
            stream: Optional[int] = None) -> Any:
        """Calls @entry on `args`: DLPack tensors on the program's device
        in place, numpy arrays and scalars converted to the parameter
        types. Returns the result, or a tuple of them: torch tensors when a
        torch tensor was passed, te Arrays when another DLPack tensor was,
        else numpy arrays (numpy scalars for scalar results).

        ctx: the te_rt Context (default: the process's cpu context for
        target cpu, cuda for a GPU target). stream: the caller's CUDA
        stream (default: torch's current stream when a torch CUDA tensor is
        passed, else the legacy default stream)."""
        from .runtime import default_context
        packed, sig = self._entry(entry)
        params, results = sig.args, sig.results
        specs = [TensorSpec(t.element, t.shape, t.scalar) for t in params]
        if len(args) != len(params):
            raise TypeError(f"@{entry} takes {len(params)} arguments "
                            f"({', '.join(map(repr, specs))}), got "
                            f"{len(args)}")
        gpu = is_gpu_target(sig.target)
        if ctx is None:
            ctx = default_context("cuda" if gpu else "cpu")
        if gpu and ctx.is_host:
            raise InvalidArgumentError(
                f"@{entry} was compiled for {sig.target}: it runs on a cuda "
                "context (te.Context('cuda')), not on cpu")
        torch_caller = any(_is_torch(a) for a in args)
        dlpack_caller = any(_is_dlpack(a) for a in args)
        if gpu and stream is None:
            stream = _torch_stream(args)
        side_stream = gpu and stream not in (None, 0, 1)
        if side_stream:
            ctx.synchronize(stream)

        frame = _call.Frame(sig)
        keep = []
        by_address = {}
        addresses = []
        for i, (a, p) in enumerate(zip(args, specs)):
            where = f"@{entry} argument {i} ({p!r})"
            if p.scalar:
                frame.set_scalar(i, _scalar_bytes(a, p, where))
                addresses.append(None)
                continue
            ptr, shape, owner = self._tensor_argument(a, p, where, gpu, ctx)
            keep.append(owner)
            addresses.append(ptr)
            try:
                frame.set_tensor(i, ptr, shape)
            except InvalidArgumentError as e:
                raise ValueError(f"@{entry}: {e}") from None
            by_address.setdefault(ptr, owner)

        lib = ctx._lib
        if not gpu and not ctx.is_host:
            ctx._call("te_rt_context_set_host_memory", ctx._handle, 1)
        lib.te_rt_set_current_context(ctx._handle)
        try:
            try:
                frame.invoke(packed)
            except InvalidArgumentError as e:
                raise ValueError(f"@{entry}: {e}") from None
            status = lib.te_rt_current_status()
            message = lib.te_rt_current_error() or b""
        finally:
            lib.te_rt_set_current_context(None)

        outs = self._results(frame, results, gpu, ctx, by_address)
        # The addresses the call passed and te's result buffers, for
        # checking that nothing was copied.
        self.last_arguments = addresses
        self.last_results = [o.ptr if isinstance(o, Array) else None
                             for o in outs]
        if status != 0:
            lib.te_rt_clear_error()
            from .errors import _CLASSES, Error
            raise _CLASSES.get(status, Error)(
                message.decode("utf-8", "replace") or
                lib.te_rt_status_string(status).decode(), status)
        if side_stream:
            ctx.synchronize(None)
        if torch_caller:
            outs = [o.torch() if isinstance(o, Array) else o for o in outs]
        elif not dlpack_caller:
            outs = [o.numpy() if isinstance(o, Array) else o for o in outs]
        if len(outs) == 1:
            return outs[0]
        return tuple(outs)

    @staticmethod
    def _tensor_argument(a, p, where, gpu, ctx):
        """(address, shape, owner) of tensor argument `a`."""
        if _is_torch(a) and (a.dtype == _torch_dtype("bool") or
                             str(a.dtype).startswith("torch.float8")):
            # torch exports neither bool (1.13) nor the float8 types
            # everywhere: their bytes, in place.
            a = a.view(_torch_dtype("uint8"))
        if _is_dlpack(a):
            device = a.__dlpack_device__()
            on_cuda = device[0] in (_dlpack.CUDA, _dlpack.CUDA_MANAGED)
            if on_cuda and not gpu:
                raise InvalidArgumentError(
                    f"{where} is on cuda:{device[1]}, but the program was "
                    "compiled for target cpu and takes host memory (compile "
                    "for sm_90 / sm_100, or copy it to the host)")
            if on_cuda and device[1] != 0:
                raise InvalidArgumentError(
                    f"{where} is on cuda:{device[1]}; te's cuda context "
                    "uses device 0")
            if on_cuda or device[0] in (_dlpack.CPU, _dlpack.CUDA_HOST):
                if not on_cuda and gpu:
                    raise InvalidArgumentError(
                        f"{where} is in host memory, but the program was "
                        "compiled for a GPU and takes device memory (move it "
                        "to the GPU first, e.g. .cuda(); numpy arrays are "
                        "copied)")
                v = _dlpack.view_of(a, stream=1 if on_cuda else None)
                if not _accepts(p.element, v):
                    raise TypeError(f"{where}: {_dtype_name(v)} given, the "
                                    f"program takes {p.element}")
                if not v.contiguous:
                    raise ValueError(f"{where}: the tensor is not "
                                     "C-contiguous (strides "
                                     f"{v.strides} for shape {v.shape}); "
                                     "make it contiguous first, e.g. "
                                     ".contiguous()")
                return v.ptr, v.shape, v
            raise InvalidArgumentError(f"{where}: DLPack device type "
                                       f"{device[0]} is not supported "
                                       "(CPU or CUDA)")
        arr = _host_argument(a, p, where)
        if gpu:
            return Program._upload(arr, ctx)
        return arr.ctypes.data, arr.shape, arr

    @staticmethod
    def _upload(arr, ctx):
        from . import _abi
        p = ctypes.c_void_p()
        ctx._call("te_rt_malloc", ctx._handle, max(arr.nbytes, 1),
                  ctypes.byref(p))
        owner = _Allocation(p.value, ctx)
        if arr.nbytes:
            ctx.memcpy(p.value, arr.ctypes.data, arr.nbytes,
                       _abi.HOST_TO_DEVICE)
        return p.value, arr.shape, owner

    def _results(self, frame, results, gpu, ctx, by_address):
        owners, outs = {}, []
        device = "cuda" if gpu else "cpu"
        for r, t in enumerate(results):
            res = frame.result(r)
            if t.scalar:
                fmt = _SCALAR_FORMATS[t.element]
                value = struct.unpack(fmt, bytes(
                    res.value[:struct.calcsize(fmt)]))[0]
                outs.append(np.dtype(_STORAGE[t.element]).type(value))
                continue
            shape = [res.shape[i] for i in range(len(t.shape))]
            strides = [res.strides[i] for i in range(len(t.shape))]
            allocated = res.allocated or 0
            if res.owned:
                owner = owners[allocated] = _Allocation(
                    allocated, ctx if gpu else None)
            else:
                owner = owners.get(allocated) or by_address.get(allocated)
            arr = Array(res.data, shape, strides, t.element, device, owner,
                        ctx)
            if owner is None:
                # A global's memory (or none): a copy the caller may own.
                arr = self._copy(arr, ctx, gpu)
            outs.append(arr)
        return outs

    @staticmethod
    def _copy(arr, ctx, gpu):
        host = np.asarray(arr.storage(), order="C")
        if not gpu:
            return Array(host.ctypes.data, host.shape,
                         [s // max(host.itemsize, 1) for s in host.strides],
                         arr.dtype, "cpu", host)
        ptr, shape, owner = Program._upload(host, ctx)
        strides, acc = [], 1
        for d in reversed(shape):
            strides.append(acc)
            acc *= d
        return Array(ptr, shape, list(reversed(strides)), arr.dtype, "cuda",
                     owner, ctx)


class LoadedProgram(Program):
    """A program compiled ahead of time (``scripts/te-aot.sh compile``),
    opened with ``te.load``: needs only libte_rt and libte_call."""

    def __init__(self, path):
        self._lib = _call.load()
        self.path = path
        self._tmp = None
        if path.endswith(".o"):
            path = self._link(path)
        h = ctypes.c_void_p()
        try:
            _call.check(self._lib, self._lib.te_call_program_open(
                os.fsencode(path), ctypes.byref(h)))
        finally:
            if self._tmp is not None:  # loaded (or not): no longer needed
                self._tmp.cleanup()
                self._tmp = None
        self._handle = h.value
        self._entries = {}
        self._lock = threading.Lock()

    def _link(self, obj):
        if not os.path.exists(obj):
            raise FileNotFoundError(obj)
        cc = os.environ.get("CC") or shutil.which("cc") or \
            shutil.which("gcc") or shutil.which("c++")
        if cc is None:
            raise InvalidArgumentError(
                f"te.load({obj!r}): linking an object needs a C compiler "
                "(cc); or compile it as a shared library "
                "(scripts/te-aot.sh compile IN.mlir OUT.so)")
        self._tmp = tempfile.TemporaryDirectory(prefix="te-load-")
        out = os.path.join(self._tmp.name, "program.so")
        r = subprocess.run([cc, "-shared", obj, "-o", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise InvalidArgumentError(f"te.load({obj!r}): linking failed: "
                                       f"{r.stderr.strip()}")
        return out

    def _entry(self, entry):
        with self._lock:
            got = self._entries.get(entry)
            if got is None:
                if not self._handle:
                    raise ValueError("the program is closed")
                fn, sig = ctypes.c_void_p(), ctypes.c_void_p()
                rc = self._lib.te_call_program_entry(
                    self._handle, entry.encode(), ctypes.byref(fn),
                    ctypes.byref(sig))
                if rc != 0:
                    raise KeyError(self._lib.te_call_last_error().decode())
                got = self._entries[entry] = (fn.value,
                                              _call.Signature(sig.value))
            return got

    def entries(self):
        return sorted(self._entries)

    @property
    def target(self):
        return self._entry("main")[1].target

    def close(self):
        if getattr(self, "_handle", None):
            self._lib.te_call_program_close(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return f"te.LoadedProgram({self.path!r})"


def load(path: Union[str, "os.PathLike[str]"]) -> LoadedProgram:
    """Opens a program compiled ahead of time: a shared library
    (``scripts/te-aot.sh compile IN.mlir OUT.so``) or an object file
    (``OUT.o``, linked into a temporary shared library with the system's C
    compiler). Needs only te's runtime (libte_rt, libte_call): no MLIR.

        prog = te.load("linear.so")
        y = prog.run("main", x)          # x: torch / CuPy / numpy
    """
    return LoadedProgram(os.fspath(path))
