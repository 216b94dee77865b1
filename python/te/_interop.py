"""Views of caller arrays as te_rt tensors, without copies.

Host arrays: numpy (float32, float16, and bfloat16 where the dtype exists,
e.g. ml_dtypes). Device arrays: any object with ``__dlpack__`` on a CUDA
device (PyTorch, CuPy, JAX), or with ``__cuda_array_interface__`` (versions
2 and 3). Device arrays must be C-contiguous; they are used in place.
"""

import ctypes

import numpy as np

from . import _abi

HOST = "cpu"
CUDA = "cuda"


class View:
    """A dense row-major array somewhere: ``ptr`` (int), ``shape``,
    ``dtype`` (te_rt dtype), ``device`` (HOST or CUDA), ``stream`` (a
    CUDA stream the producer asks consumers to order with, or None);
    ``keepalive`` holds what keeps the memory valid."""

    def __init__(self, ptr, shape, dtype, device, keepalive, stream=None,
                 readonly=False):
        self.ptr = ptr
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype
        self.device = device
        self.keepalive = keepalive
        self.stream = stream
        self.readonly = readonly

    @property
    def nbytes(self):
        return int(np.prod(self.shape, dtype=np.int64)) * \
            ELEMENT_BYTES[self.dtype]

    def tensor(self, lib):
        if len(self.shape) > _abi.MAX_RANK:
            raise ValueError(f"rank {len(self.shape)} is above te_rt's "
                             f"maximum {_abi.MAX_RANK}")
        t = _abi.new_tensor(lib)
        t.data = self.ptr
        t.dtype = self.dtype
        t.rank = len(self.shape)
        for i, d in enumerate(self.shape):
            t.shape[i] = d
        t.size_bytes = self.nbytes
        return t


ELEMENT_BYTES = {_abi.F32: 4, _abi.F16: 2, _abi.BF16: 2, _abi.U8: 1}
_TYPESTR = {"<f4": _abi.F32, "<f2": _abi.F16}


def numpy_dtype_code(dtype):
    """The te_rt dtype of a numpy dtype (F32, F16, BF16), or None."""
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        return _abi.F32
    if dtype == np.float16:
        return _abi.F16
    if dtype.name == "bfloat16" and dtype.itemsize == 2:
        return _abi.BF16
    return None


def numpy_dtype_of(code):
    if code == _abi.F32:
        return np.dtype(np.float32)
    if code == _abi.F16:
        return np.dtype(np.float16)
    if code == _abi.BF16:
        try:
            import ml_dtypes
            return np.dtype(ml_dtypes.bfloat16)
        except ImportError:
            raise TypeError("bfloat16 numpy arrays need the ml_dtypes "
                            "package; write into a device tensor with out= "
                            "instead") from None
    raise TypeError(f"no numpy dtype for te_rt dtype {code}")


def _has_cai(obj):
    # PyTorch raises TypeError (not AttributeError) for dtypes the
    # interface cannot describe (bfloat16).
    try:
        return hasattr(obj, "__cuda_array_interface__")
    except Exception:
        return True


def is_device_array(obj):
    if isinstance(obj, np.ndarray):
        return False
    dev = getattr(obj, "__dlpack_device__", None)
    if dev is not None and hasattr(obj, "__dlpack__"):
        try:
            if dev()[0] in (_DL_CUDA, _DL_CUDA_MANAGED):
                return True
        except Exception:
            pass
    return _has_cai(obj)


def to_bf16_bits(array):
    """float32 values rounded to bfloat16 (nearest, ties to even) as their
    uint16 bit patterns; NaN stays NaN."""
    a = np.asarray(array, np.float32, order="C")
    u = a.view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    bits = rounded.astype(np.uint16)
    nan = np.isnan(a)
    bits[nan] = ((a.view(np.uint32)[nan] >> 16) | 0x40).astype(np.uint16)
    return bits


def host_bf16_view(array):
    """A View of a host array as bfloat16 (rounded from float32)."""
    bits = to_bf16_bits(np.asarray(array))
    return View(bits.ctypes.data, bits.shape, _abi.BF16, HOST, bits)


def host_view(array, convert=True, writable=False):
    """A View of a numpy array (made C-contiguous; other real dtypes are
    converted to float32 when `convert`)."""
    a = np.asarray(array)
    code = numpy_dtype_code(a.dtype)
    if code is None:
        if not convert or not (np.issubdtype(a.dtype, np.floating) or
                               np.issubdtype(a.dtype, np.integer)):
            raise TypeError(f"unsupported array dtype {a.dtype} (float32, "
                            "float16 or bfloat16)")
        a = a.astype(np.float32)
        code = _abi.F32
    if writable:
        if not (a.flags.c_contiguous and a.flags.writeable):
            raise ValueError("out= must be a writable C-contiguous array")
    else:
        a = np.asarray(a, order="C")
    return View(a.ctypes.data, a.shape, code, HOST, a)


# DLPack (dlpack.h, version 0.x ABI of DLManagedTensor).
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_DL_INT, _DL_UINT, _DL_FLOAT, _DL_BFLOAT = 0, 1, 2, 4


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


_capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _contiguous(shape, strides):
    expected = 1
    for d, s in zip(reversed(shape), reversed(strides)):
        if d != 1 and s != expected:
            return False
        expected *= d
    return True


def _dlpack_view(obj):
    # stream=1: the consumer works on the legacy default stream (te_rt's
    # context stream); the producer orders its pending work with it.
    try:
        capsule = obj.__dlpack__(stream=1)
    except TypeError:
        capsule = obj.__dlpack__()
    # The capsule stays named "dltensor": its own destructor releases the
    # tensor once the capsule (held by the View) is collected.
    managed = _DLManagedTensor.from_address(
        _capsule_get_pointer(capsule, b"dltensor"))
    t = managed.dl_tensor
    if t.device.device_type not in (_DL_CUDA, _DL_CUDA_MANAGED, _DL_CPU,
                                    _DL_CUDA_HOST):
        raise TypeError(f"DLPack device type {t.device.device_type} is not "
                        "supported (CPU or CUDA)")
    shape = [t.shape[i] for i in range(t.ndim)]
    if t.strides:
        strides = [t.strides[i] for i in range(t.ndim)]
        if not _contiguous(shape, strides):
            raise ValueError("the array is not C-contiguous (make it "
                             "contiguous first, e.g. .contiguous())")
    code = {(_DL_FLOAT, 32): _abi.F32, (_DL_FLOAT, 16): _abi.F16,
            (_DL_BFLOAT, 16): _abi.BF16}.get((t.dtype.code, t.dtype.bits))
    if code is None or t.dtype.lanes != 1:
        raise TypeError(f"unsupported DLPack dtype (code {t.dtype.code}, "
                        f"{t.dtype.bits} bits): float32, float16 or bfloat16")
    device = CUDA if t.device.device_type in (_DL_CUDA, _DL_CUDA_MANAGED) \
        else HOST
    ptr = (t.data or 0) + t.byte_offset
    return View(ptr, shape, code, device, (obj, capsule))


def _cai_view(obj):
    cai = obj.__cuda_array_interface__
    code = _TYPESTR.get(cai["typestr"])
    if code is None:
        raise TypeError(f"unsupported __cuda_array_interface__ typestr "
                        f"{cai['typestr']!r} (float32 or float16)")
    shape = tuple(cai["shape"])
    strides = cai.get("strides")
    if strides is not None and not _contiguous(
            shape, [s // ELEMENT_BYTES[code] if s % ELEMENT_BYTES[code] == 0
                    else -1 for s in strides]):
        raise ValueError("the array is not C-contiguous")
    ptr, readonly = cai["data"]
    return View(ptr or 0, shape, code, CUDA, obj, stream=cai.get("stream"),
                readonly=readonly)


def device_view(obj):
    """A View of a CUDA array (DLPack preferred: it carries bfloat16)."""
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _dlpack_view(obj)
    if _has_cai(obj):
        return _cai_view(obj)
    raise TypeError(f"{type(obj).__name__} is neither a numpy array nor a "
                    "device array (__dlpack__ / __cuda_array_interface__)")


def view(obj, writable=False, input_type=None):
    """A View of `obj`; input_type 'bf16' rounds host arrays to bfloat16
    and requires device arrays to be bfloat16."""
    if input_type not in (None, "bf16"):
        raise ValueError(f"input_type expects None or 'bf16', got "
                         f"{input_type!r}")
    if input_type == "bf16":
        if is_device_array(obj):
            v = device_view(obj)
            if v.dtype != _abi.BF16:
                raise TypeError("input_type='bf16' needs a bfloat16 device "
                                "array")
            return v
        a = np.asarray(obj)
        if numpy_dtype_code(a.dtype) == _abi.BF16:
            return host_view(a)
        return host_bf16_view(a)
    if is_device_array(obj):
        return device_view(obj)
    return host_view(obj, convert=not writable, writable=writable)
