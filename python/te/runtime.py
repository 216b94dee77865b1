"""Contexts, quantized tensors, quantize / dequantize / GEMM over libte_rt.

A Context is one te_rt_context on the ``cpu`` backend (host memory: numpy
arrays are used in place) or the ``cuda`` backend (device memory: device
arrays of PyTorch, CuPy, ... are used in place through DLPack or
``__cuda_array_interface__``; numpy arguments are copied to the device and
results come back as DeviceArray).
"""

import ctypes
import threading
from collections import namedtuple
from typing import Any, Optional, Union

import numpy as np

from . import _abi, _dlpack, _interop, _lib
from .errors import InvalidArgumentError, check
from .quantizer import Quantizer

_USAGES = {"rowwise": _abi.ROWWISE, "columnwise": _abi.COLUMNWISE}
_TARGETS = {"sm_90": _abi.SM90, "sm_100": _abi.SM100}
_LAYOUTS = {"TN": _abi.GEMM_TN, "NN": _abi.GEMM_NN, "NT": _abi.GEMM_NT}
_BACKENDS = {"cpu": _abi.BACKEND_CPU, "cuda": _abi.BACKEND_CUDA}

BufferInfo = namedtuple(
    "BufferInfo", "name role columnwise dtype shape size_bytes")
BufferInfo.__doc__ = """One buffer of a quantized tensor as TE allocates it:
``name`` (TE attribute name, e.g. '_rowwise_data'), ``role`` ('data',
'scale_inv' or 'amax'), ``columnwise`` (bool), ``dtype`` ('e4m3', 'e5m2',
'e2m1x2', 'f32', 'e8m0'), ``shape`` (E2M1X2: the last dim counts bytes),
``size_bytes``."""

_ROLE_NAMES = {_abi.BUFFER_DATA: "data", _abi.BUFFER_SCALE_INV: "scale_inv",
               _abi.BUFFER_AMAX: "amax"}


def backend_available(backend):
    """True if `backend` ('cpu' or 'cuda') can be used on this machine."""
    lib = _lib.load()
    return bool(lib.te_rt_backend_available(_backend_code(backend)))


def api_version():
    """TE_RT_API_VERSION of the loaded libte_rt."""
    return _lib.load().te_rt_api_version()


def _backend_code(backend):
    try:
        return _BACKENDS[backend]
    except KeyError:
        raise ValueError(f"backend expects 'cpu' or 'cuda', got {backend!r}")\
            from None


def _usage_code(usage):
    if isinstance(usage, int):
        return usage
    code = 0
    for part in str(usage).replace("+", ",").split(","):
        part = part.strip()
        if part not in _USAGES:
            raise ValueError("usage expects 'rowwise', 'columnwise' or "
                             f"'rowwise,columnwise', got {usage!r}")
        code |= _USAGES[part]
    return code


def _usage_name(code):
    return ",".join(n for n, c in _USAGES.items() if code & c)


def _target_code(target):
    try:
        return _TARGETS[target]
    except KeyError:
        raise ValueError(f"target expects 'sm_90' or 'sm_100', got "
                         f"{target!r}") from None


def _aligned_host(nbytes, align=256):
    raw = np.empty(nbytes + align, np.uint8)
    off = (-raw.ctypes.data) % align
    return raw[off:off + nbytes]



def _uint64(value, what):
    """`value` as an integer in 0..2^64-1 (te-quantize's --seed / --offset
    range); anything else is refused, never wrapped or truncated."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, np.integer)):
        raise TypeError(f"quantize: {what} must be an integer, got "
                        f"{value!r}")
    if not 0 <= int(value) < 2**64:
        raise InvalidArgumentError(
            f"quantize: {what} must be in 0..2^64-1, got {int(value)}")
    return int(value)


def _check_amax_in(quantizer, amax_in):
    """amax_in holds what the runtime reads: one float for current scaling,
    two for NVFP4 (the rowwise and columnwise global amaxes)."""
    if amax_in is None:
        return
    n = np.asarray(amax_in).size
    want = quantizer._traits.amax_inputs or None
    if want is not None and n != want:
        what = ("one float (the tensor's amax)" if want == 1 else
                "two floats (the rowwise and columnwise global amaxes)")
        raise InvalidArgumentError(
            f"quantize: amax_in for {quantizer.recipe} is {what}, got {n}")

class _Memory:
    """`nbytes` of context memory: a numpy array on cpu, a te_rt_malloc
    allocation on cuda (freed with the object)."""

    def __init__(self, ctx, nbytes):
        self.ctx = ctx
        self.nbytes = int(nbytes)
        if ctx.is_host:
            self.host = _aligned_host(self.nbytes)
            self.ptr = self.host.ctypes.data
        else:
            self.host = None
            p = ctypes.c_void_p()
            ctx._call("te_rt_malloc", ctx._handle, self.nbytes,
                      ctypes.byref(p))
            self.ptr = p.value or 0

    def free(self):
        if self.host is None and self.ptr and self.ctx._handle:
            self.ctx._lib.te_rt_free(self.ctx._handle, self.ptr)
        self.ptr = 0

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass

    def to_host(self):
        if self.host is not None:
            return self.host
        out = np.empty(self.nbytes, np.uint8)
        self.ctx.memcpy(out.ctypes.data, self.ptr, self.nbytes,
                        _abi.DEVICE_TO_HOST)
        return out

    def from_host(self, data):
        data = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        if data.nbytes != self.nbytes:
            raise ValueError(f"{data.nbytes} bytes given for a buffer of "
                             f"{self.nbytes}")
        if self.host is not None:
            self.host[:] = data
        else:
            self.ctx.memcpy(self.ptr, data.ctypes.data, self.nbytes,
                            _abi.HOST_TO_DEVICE)


class DeviceArray:
    """A dense array in a cuda context's memory. Exposes DLPack
    (``__dlpack__`` / ``__dlpack_device__``, bfloat16 included:
    ``torch.from_dlpack(a)``, ``cupy.from_dlpack(a)`` share it),
    ``__cuda_array_interface__`` (float32 / float16) and ``numpy()`` (a
    host copy)."""

    def __init__(self, ctx, shape, dtype_code, memory=None):
        self.ctx = ctx
        self.shape = tuple(shape)
        self._dtype = dtype_code
        nbytes = int(np.prod(self.shape, dtype=np.int64)) * \
            _interop.ELEMENT_BYTES[dtype_code]
        self._mem = memory or _Memory(ctx, nbytes)

    @property
    def ptr(self):
        return self._mem.ptr

    @property
    def dtype(self):
        return {_abi.F32: "float32", _abi.F16: "float16",
                _abi.BF16: "bfloat16"}[self._dtype]

    @property
    def __cuda_array_interface__(self):
        typestr = {_abi.F32: "<f4", _abi.F16: "<f2"}.get(self._dtype)
        if typestr is None:
            raise AttributeError("bfloat16 has no __cuda_array_interface__ "
                                 "typestr")
        # The array's last writer is the context's stream, the legacy
        # default stream (1).
        return {"shape": self.shape, "typestr": typestr,
                "data": (self.ptr, False), "strides": None, "version": 3,
                "stream": 1}

    _TE_NAMES = {_abi.F32: "f32", _abi.F16: "f16", _abi.BF16: "bf16"}

    def __dlpack_device__(self):
        return (_dlpack.CUDA, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                   copy=None):
        """A DLPack capsule sharing the array (a versioned one when
        ``max_version >= (1, 0)``); see te.Array.__dlpack__."""
        if copy:
            raise BufferError("te arrays are shared without copies "
                              "(copy=True asked for one)")
        if dl_device is not None and \
                tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"the array is on {self.__dlpack_device__()},"
                              f" dl_device={tuple(dl_device)} asked for")
        if stream not in (None, 1, -1):
            self.ctx.synchronize(None)
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        return _dlpack.capsule(self.ptr, self.shape, None,
                               self._TE_NAMES[self._dtype],
                               self.__dlpack_device__(), self._mem, versioned)

    def numpy(self):
        raw = self._mem.to_host()
        return raw.view(_interop.numpy_dtype_of(self._dtype)) \
            .reshape(self.shape)

    def view(self):
        return _interop.View(self.ptr, self.shape, self._dtype,
                             _interop.CUDA, self)

    def __repr__(self):
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype})"


class QTensor:
    """A quantized tensor: the buffers TransformerEngine allocates for it,
    in TE's flatten order, in a context's memory.

    ``quantizer``, ``shape`` (logical), ``usage`` ('rowwise',
    'columnwise' or 'rowwise,columnwise'), ``target`` ('sm_90' /
    'sm_100'), ``swizzled`` (GEMM-swizzled MXFP8/NVFP4 scales),
    ``layout`` (BufferInfo per buffer), ``amax`` (the amax the quantization
    computed, per-tensor recipes; else None).
    """

    def __init__(self, ctx, quantizer, shape, usage="rowwise,columnwise",
                 target=None, swizzled=False):
        self.ctx = ctx
        self.quantizer = Quantizer(quantizer)
        self.shape = tuple(int(d) for d in shape)
        self._usage = _usage_code(usage)
        self.target = target or self.quantizer.default_target
        self.swizzled = bool(swizzled)
        self.amax = None
        lib = ctx._lib
        q = self.quantizer._q
        rank = len(self.shape)
        shape_arr = (ctypes.c_int64 * max(rank, 1))(*self.shape)
        descs = (_abi.BufferDesc * _abi.MAX_BUFFERS)()
        n = ctypes.c_int32()
        check(lib, lib.te_rt_qtensor_layout(
            ctypes.byref(q), rank, shape_arr, self._usage,
            _target_code(self.target), descs, _abi.MAX_BUFFERS,
            ctypes.byref(n)))
        self.layout = [
            BufferInfo(d.name.decode(), _ROLE_NAMES.get(d.role, d.role),
                       bool(d.columnwise),
                       _abi.DTYPE_NAMES.get(d.dtype, d.dtype),
                       tuple(d.shape[i] for i in range(d.rank)),
                       int(d.size_bytes))
            for d in descs[:n.value]]
        self._descs = [descs[i] for i in range(n.value)]
        self._mem = [_Memory(ctx, b.size_bytes) for b in self.layout]

    @property
    def usage(self):
        return _usage_name(self._usage)

    def _struct(self):
        lib = self.ctx._lib
        s = _abi.QTensor()
        rank = len(self.shape)
        shape_arr = (ctypes.c_int64 * max(rank, 1))(*self.shape)
        check(lib, lib.te_rt_qtensor_init(
            ctypes.byref(s), ctypes.byref(self.quantizer._q), rank,
            shape_arr, self._usage, _target_code(self.target)))
        s.swizzled_scales = 1 if self.swizzled else 0
        for i, m in enumerate(self._mem):
            s.buffers[i].data = m.ptr
        return s

    def buffers(self):
        """{name: numpy array} of every buffer, as te-quantize writes them:
        data and E8M0/E4M3 scales as uint8 bit patterns, fp32 scales and
        amaxes as float32, each in its TE (padded) shape. Views of the
        buffers on cpu, host copies on cuda."""
        out = {}
        for info, desc, m in zip(self.layout, self._descs, self._mem):
            raw = m.to_host()
            dtype = np.float32 if desc.dtype == _abi.F32 else np.uint8
            out[info.name] = raw.view(dtype).reshape(info.shape)
        return out

    def set_buffers(self, buffers):
        """Overwrites the buffers from {name: array} (every buffer, with the
        bytes of the layout), e.g. te-quantize's .npy outputs."""
        names = [b.name for b in self.layout]
        missing = set(names) - set(buffers)
        extra = set(buffers) - set(names)
        if missing or extra:
            raise ValueError(f"buffers {sorted(names)} expected; missing "
                             f"{sorted(missing)}, unknown {sorted(extra)}")
        for info, m in zip(self.layout, self._mem):
            m.from_host(np.asarray(buffers[info.name]))

    def device_pointers(self):
        """{name: address} of the buffers in the context's memory."""
        return {b.name: m.ptr for b, m in zip(self.layout, self._mem)}

    def swizzle_scales(self):
        """MXFP8/NVFP4: converts the scales to the GEMM-swizzled layout."""
        s = self._struct()
        self.ctx._call("te_rt_swizzle_scales", self.ctx._handle,
                       ctypes.byref(s))
        self.swizzled = bool(s.swizzled_scales)

    def unswizzle_scales(self):
        s = self._struct()
        self.ctx._call("te_rt_unswizzle_scales", self.ctx._handle,
                       ctypes.byref(s))
        self.swizzled = bool(s.swizzled_scales)

    def __repr__(self):
        return (f"QTensor({self.quantizer.text!r}, shape={self.shape}, "
                f"usage={self.usage!r}, target={self.target!r}, "
                f"backend={self.ctx.backend!r})")


class Context:
    """A te_rt context: ``Context('cpu')`` or ``Context('cuda')``.

    ``num_threads``: worker threads of the cpu backend (0: all cores).
    Usable as a context manager; closed contexts raise on use.
    """

    def __init__(self, backend="cpu", num_threads=None):
        self._lib = _lib.load()
        self.backend = backend
        h = ctypes.c_void_p()
        self._handle = None
        self._call("te_rt_context_create", _backend_code(backend),
                   ctypes.byref(h))
        self._handle = h.value
        if num_threads is not None:
            self._call("te_rt_context_set_num_threads", self._handle,
                       int(num_threads))

    @property
    def is_host(self):
        return self.backend == "cpu"

    def _call(self, name, *args):
        if name != "te_rt_context_create" and not self._handle:
            raise ValueError("the context is closed")
        check(self._lib, getattr(self._lib, name)(*args))

    def close(self):
        if self._handle:
            self._lib.te_rt_context_destroy(self._handle)
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
        return f"Context({self.backend!r})"

    # -- memory -------------------------------------------------------------

    def memcpy(self, dst, src, nbytes, kind):
        self._call("te_rt_memcpy", self._handle, dst, src, nbytes, kind)

    def synchronize(self, stream=None):
        self._call("te_rt_synchronize", self._handle, stream)

    def _input(self, x, what, input_type=None):
        """A View of `x` in this context's memory (copied to the device for
        host arrays on cuda)."""
        v = _interop.view(x, input_type=input_type)
        if v.device == _interop.CUDA:
            if self.is_host:
                raise InvalidArgumentError(
                    f"{what} is a CUDA array; use a cuda context "
                    "(te.Context('cuda')) or copy it to the host")
            if v.stream not in (None, 1, 2):
                self.synchronize(v.stream)
            return v
        if self.is_host:
            return v
        dev = DeviceArray(self, v.shape, v.dtype)
        self.memcpy(dev.ptr, v.ptr, v.nbytes, _abi.HOST_TO_DEVICE)
        return dev.view()

    def _scalars(self, values):
        """float32 values in context memory (None stays None)."""
        if values is None:
            return None
        a = np.asarray(values, np.float32).reshape(-1)
        m = _Memory(self, a.nbytes)
        m.from_host(a)
        return m

    def _output(self, shape, dtype, out, what):
        """(View to write, result to return) for an output array."""
        if out is not None:
            v = _interop.view(out, writable=True)
            if tuple(v.shape) != tuple(shape):
                raise InvalidArgumentError(
                    f"{what}: out= has shape {v.shape}, expected "
                    f"{tuple(shape)}")
            if (v.device == _interop.CUDA) == self.is_host:
                raise InvalidArgumentError(
                    f"{what}: out= must be in the {self.backend} context's "
                    "memory")
            return v, out
        code = _interop.numpy_dtype_code(dtype) if not isinstance(dtype, int) \
            else dtype
        if code is None:
            raise TypeError(f"{what}: dtype {dtype} is not float32, float16 "
                            "or bfloat16")
        if self.is_host:
            a = np.empty(shape, _interop.numpy_dtype_of(code))
            return _interop.host_view(a, writable=True), a
        d = DeviceArray(self, shape, code)
        return d.view(), d

    # -- operations ---------------------------------------------------------

    def empty_qtensor(self, quantizer, shape, usage="rowwise,columnwise",
                      target=None, swizzled=False):
        """A zero-filled QTensor (e.g. for GEMM outputs, set_buffers)."""
        return QTensor(self, quantizer, shape, usage, target, swizzled)

    def quantize(self, x, quantizer, usage="rowwise,columnwise", target=None,
                 swizzled=False, scale=None, amax_in=None, seed=0, offset=0,
                 input_type=None):
        """Quantizes `x` (float32/float16/bfloat16) into a new QTensor
        holding `usage` laid out for `target` (default: sm_100 for mxfp8 and
        nvfp4, else sm_90, as te-quantize).

        scale: the delayed-scaling scale (default 1.0); amax_in: an amax to
        use instead of computing it (current scaling: one float; NVFP4: the
        rowwise and columnwise global amaxes); seed, offset: NVFP4
        stochastic rounding (Philox key and counter offset); input_type:
        'bf16' rounds a float32 host array to bfloat16 first (the NVFP4 RHT
        needs a bfloat16 input) and checks a device array is bfloat16."""
        quantizer = Quantizer(quantizer)
        seed = _uint64(seed, "seed")
        offset = _uint64(offset, "offset")
        _check_amax_in(quantizer, amax_in)
        if scale is not None and np.asarray(scale).size != 1:
            raise InvalidArgumentError(
                f"quantize: scale is one float, got {np.asarray(scale).size} "
                "values")
        v = self._input(x, "x", input_type)
        qt = QTensor(self, quantizer, v.shape, usage, target, swizzled)
        args = _abi.QuantizeArgs()
        self._lib.te_rt_quantize_args_init(ctypes.byref(args))
        args.seed = seed
        args.offset = offset
        if scale is None and quantizer._traits.live_scale:
            scale = 1.0
        keep = []
        scale_mem = self._scalars(scale)
        if scale_mem is not None:
            args.scale = scale_mem.ptr
            keep.append(scale_mem)
        amax_mem = None
        if quantizer.per_tensor:
            amax_mem = _Memory(self, 4)
            args.amax = amax_mem.ptr
        in_mem = self._scalars(amax_in)
        if in_mem is not None:
            args.amax_in = in_mem.ptr
        s = qt._struct()
        self._call("te_rt_quantize", self._handle,
                   ctypes.byref(v.tensor(self._lib)), ctypes.byref(s),
                   ctypes.byref(args))
        if amax_mem is not None:
            qt.amax = float(amax_mem.to_host().view(np.float32)[0])
        return qt

    def dequantize(self, q, representation=None, dtype=np.float32, out=None):
        """The representation ('rowwise' or 'columnwise'; default: rowwise
        if held) of `q` as a float32/float16/bfloat16 array of its logical
        shape (numpy on cpu, DeviceArray on cuda, or written to `out`)."""
        self._check_own(q, "q")
        if representation is None:
            representation = "rowwise" if q._usage & _abi.ROWWISE \
                else "columnwise"
        if representation not in _USAGES:
            raise ValueError("representation expects 'rowwise' or "
                             f"'columnwise', got {representation!r}")
        view, result = self._output(q.shape, dtype, out, "dequantize")
        s = q._struct()
        self._call("te_rt_dequantize", self._handle, ctypes.byref(s),
                   _USAGES[representation],
                   ctypes.byref(view.tensor(self._lib)))
        return result

    def amax(self, x, input_type=None):
        """max |x| ignoring NaN (float)."""
        v = self._input(x, "x", input_type)
        m = _Memory(self, 4)
        self._call("te_rt_amax", self._handle,
                   ctypes.byref(v.tensor(self._lib)), m.ptr)
        return float(m.to_host().view(np.float32)[0])

    def gemm(self, a, b, layout="TN", dtype=np.float32, out=None, bias=None,
             alpha=1.0, accumulate=False, use_split_accumulator=False,
             output=None, output_scale=None):
        """TransformerEngine's general_gemm on quantized operands:
            TN: A [N, K], B [M, K]: D[M, N] = B · Aᵀ   (fprop)
            NN: A [K, N], B [M, K]: D[M, N] = B · A    (dgrad)
            NT: A [K, N], B [K, M]: D[M, N] = Bᵀ · A   (wgrad)
        (operands of rank > 2 are flattened to [rows, last dim]).
        D = alpha · product + bias (+ out if accumulate), returned as
        `dtype` (or written to `out`). `output`: a QTensor (empty_qtensor)
        that also receives D quantized; `output_scale` its delayed-scaling
        scale."""
        self._check_own(a, "a")
        self._check_own(b, "b")
        if layout not in _LAYOUTS:
            raise ValueError(f"layout expects 'TN', 'NN' or 'NT', got "
                             f"{layout!r}")

        def rows_cols(shape):
            if not shape:
                return 1, 1
            return int(np.prod(shape[:-1], dtype=np.int64)), shape[-1]

        ar, ac = rows_cols(a.shape)
        br, bc = rows_cols(b.shape)
        m, n = {"TN": (br, ar), "NN": (br, ac), "NT": (bc, ac)}[layout]
        if accumulate and out is None:
            raise ValueError("accumulate=True needs out= (the D added to)")
        view, result = self._output((m, n), dtype, out, "gemm")
        args = _abi.GemmArgs()
        self._lib.te_rt_gemm_args_init(ctypes.byref(args))
        args.layout = _LAYOUTS[layout]
        args.alpha = float(alpha)
        args.accumulate = 1 if accumulate else 0
        args.use_split_accumulator = 1 if use_split_accumulator else 0
        keep = []
        if bias is not None:
            bv = self._input(bias, "bias")
            bt = bv.tensor(self._lib)
            keep += [bv, bt]
            args.bias = ctypes.pointer(bt)
        out_struct = None
        if output is not None:
            self._check_own(output, "output")
            out_struct = output._struct()
            args.output = ctypes.pointer(out_struct)
            oargs = _abi.QuantizeArgs()
            self._lib.te_rt_quantize_args_init(ctypes.byref(oargs))
            if output_scale is None and output.quantizer._traits.live_scale:
                output_scale = 1.0
            sm = self._scalars(output_scale)
            if sm is not None:
                oargs.scale = sm.ptr
                keep.append(sm)
            am = None
            if output.quantizer.per_tensor:
                am = _Memory(self, 4)
                oargs.amax = am.ptr
            keep.append(oargs)
            args.output_args = ctypes.pointer(oargs)
        sa, sb = a._struct(), b._struct()
        self._call("te_rt_gemm", self._handle, ctypes.byref(sa),
                   ctypes.byref(sb), ctypes.byref(view.tensor(self._lib)),
                   ctypes.byref(args))
        if output is not None and output.quantizer.per_tensor:
            output.amax = float(am.to_host().view(np.float32)[0])
        return result

    def last_gemm_path(self):
        """How the last GEMM ran: 'none', 'cpu_reference', 'native_fp8',
        'native_block_scaled', 'emulated_bf16' or 'emulated_f32'."""
        info = _abi.GemmInfo()
        self._call("te_rt_context_last_gemm_info", self._handle,
                   ctypes.byref(info))
        return ["none", "cpu_reference", "native_fp8", "native_block_scaled",
                "emulated_bf16", "emulated_f32"][info.path]

    def _check_own(self, q, what):
        if not isinstance(q, QTensor):
            raise TypeError(f"{what} must be a QTensor (from quantize), got "
                            f"{type(q).__name__}")
        if q.ctx is not self:
            raise InvalidArgumentError(
                f"{what} belongs to another context ({q.ctx.backend})")


_defaults = {}
_defaults_lock = threading.Lock()


def default_context(backend="cpu"):
    """The process-wide context of a backend, created on first use."""
    with _defaults_lock:
        ctx = _defaults.get(backend)
        if ctx is None:
            ctx = _defaults[backend] = Context(backend)
        return ctx


def _context_for(x, ctx):
    if ctx is not None:
        return ctx
    if isinstance(x, QTensor):
        return x.ctx
    return default_context("cuda" if _interop.is_device_array(x) else "cpu")


def quantize(x: Any, quantizer: Union[str, Quantizer],
             ctx: Optional["Context"] = None,
             usage: str = "rowwise,columnwise", target: Optional[str] = None,
             swizzled: bool = False, scale: Optional[float] = None,
             amax_in: Any = None, seed: int = 0, offset: int = 0,
             input_type: Optional[str] = None) -> "QTensor":
    """Quantizes `x` with `quantizer` (a Quantizer or its text, e.g.
    ``"#te.mxfp8<f8E4M3FN>"``) into a new QTensor: Context.quantize on
    `ctx`, or on the default context of x's memory (cuda for device
    arrays, cpu otherwise).

    usage: 'rowwise', 'columnwise' or both (comma-separated); target:
    'sm_90' or 'sm_100' (the buffers' layout; default sm_100 for mxfp8 and
    nvfp4, else sm_90); swizzled: scales in the GEMM's swizzled layout;
    scale: the delayed-scaling scale (default 1.0); amax_in: an amax to use
    instead of computing it; seed, offset: NVFP4 stochastic rounding;
    input_type: 'bf16' rounds a float32 array to bfloat16 first."""
    return _context_for(x, ctx).quantize(
        x, quantizer, usage=usage, target=target, swizzled=swizzled,
        scale=scale, amax_in=amax_in, seed=seed, offset=offset,
        input_type=input_type)


def dequantize(q: "QTensor", representation: Optional[str] = None,
               dtype: Any = np.float32, out: Any = None) -> Any:
    """The representation ('rowwise' or 'columnwise'; default rowwise if
    held) of `q` as a float32/float16/bfloat16 array of its logical shape
    (Context.dequantize on q's context)."""
    return q.ctx.dequantize(q, representation, dtype, out)


def gemm(a: "QTensor", b: "QTensor", layout: str = "TN",
         dtype: Any = np.float32, out: Any = None, bias: Any = None,
         alpha: float = 1.0, accumulate: bool = False,
         use_split_accumulator: bool = False, output: Any = None,
         output_scale: Any = None) -> Any:
    """TransformerEngine's general_gemm on quantized operands (Context.gemm
    on the operands' context): TN ``D = B·Aᵀ`` (fprop), NN ``D = B·A``
    (dgrad), NT ``D = Bᵀ·A`` (wgrad); `bias`, `alpha`, `accumulate`
    (D += ...), `output` (a quantizer for the result)."""
    return a.ctx.gemm(a, b, layout, dtype=dtype, out=out, bias=bias,
                      alpha=alpha, accumulate=accumulate,
                      use_split_accumulator=use_split_accumulator,
                      output=output, output_scale=output_scale)


def amax(x: Any, ctx: Optional["Context"] = None,
         input_type: Optional[str] = None) -> float:
    """Context.amax on `ctx` or the default context of x's memory."""
    return _context_for(x, ctx).amax(x, input_type)
