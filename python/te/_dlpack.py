"""DLPack export and import (DLPack 1.1 and the legacy 0.x capsule).

Export: :func:`capsule` wraps memory that te owns (an allocation freed by a
callback) into a ``dltensor`` capsule (``DLManagedTensor``) or, for a
consumer that passes ``max_version >= (1, 0)``, a ``dltensor_versioned``
capsule (``DLManagedTensorVersioned``). The consumer renames the capsule
``used_dltensor[_versioned]`` and calls the deleter when it is done; a
capsule never consumed is released by its destructor.

Import: :func:`view_of` reads any object with ``__dlpack__`` (both capsule
kinds) without copying.
"""

import ctypes
import threading

# Device types, dtype codes (dlpack.h v1.1).
CPU, CUDA, CUDA_HOST, CUDA_MANAGED = 1, 2, 3, 13
INT, UINT, FLOAT, BFLOAT, BOOL = 0, 1, 2, 4, 6
FLOAT8_E4M3FN, FLOAT8_E5M2, FLOAT8_E8M0FNU = 10, 12, 14
FLAG_READ_ONLY = 1

# te element type -> (DLPack code, bits). The 8-bit floats have codes of
# their own from DLPack 1.1; older consumers get them as uint8.
TE_TO_DL = {
    "f32": (FLOAT, 32), "f64": (FLOAT, 64), "f16": (FLOAT, 16),
    "bf16": (BFLOAT, 16), "i1": (BOOL, 8), "i8": (INT, 8),
    "i16": (INT, 16), "i32": (INT, 32), "i64": (INT, 64),
    "f8E4M3FN": (FLOAT8_E4M3FN, 8), "f8E5M2": (FLOAT8_E5M2, 8),
    "f8E8M0FNU": (FLOAT8_E8M0FNU, 8), "u8": (UINT, 8),
}
DL_TO_TE = {v: k for k, v in TE_TO_DL.items()}
FP8 = ("f8E4M3FN", "f8E5M2", "f8E8M0FNU")


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
DLManagedTensor._fields_ = [("dl_tensor", DLTensor),
                            ("manager_ctx", ctypes.c_void_p),
                            ("deleter", _DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _DELETER), ("flags", ctypes.c_uint64),
                ("dl_tensor", DLTensor)]


_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                               ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
# The destructor's view of the capsule: a borrowed pointer.
_is_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                                  ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api))
_get_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p,
                                     ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))

# Exported tensors not yet released: address of the managed struct ->
# (struct, shape/strides arrays, owner). The deleter drops the entry, and
# with it the owner's reference to the memory.
_live = {}
_live_lock = threading.Lock()


def _release(address):
    with _live_lock:
        _live.pop(address, None)


@_DELETER
def _deleter(address):
    _release(address)


_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _destructor_for(name):
    @_CAPSULE_DESTRUCTOR
    def destroy(capsule):
        # A capsule that was consumed was renamed "used_..."; its consumer
        # calls the deleter.
        if _is_valid_raw(capsule, name):
            _release(_get_pointer_raw(capsule, name))
    return destroy


_DESTROY_LEGACY = _destructor_for(b"dltensor")
_DESTROY_VERSIONED = _destructor_for(b"dltensor_versioned")


def capsule(data, shape, strides, dtype, device, owner, versioned=False,
            fp8_codes=False, read_only=False):
    """A capsule exporting `shape` elements of te element type `dtype` at
    address `data` on `device` ((type, id)); `strides` in elements (None:
    row-major); `owner` is kept alive until the consumer releases the
    tensor. The 8-bit float types are exported as uint8 unless
    `fp8_codes` (DLPack 1.1 codes, versioned capsules only)."""
    code, bits = TE_TO_DL[dtype]
    if dtype in FP8 and not (fp8_codes and versioned):
        code, bits = UINT, 8
    ndim = len(shape)
    shape_arr = (ctypes.c_int64 * max(ndim, 1))(*shape)
    strides_arr = None
    if strides is not None:
        strides_arr = (ctypes.c_int64 * max(ndim, 1))(*strides)
    managed = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    t = managed.dl_tensor
    t.data = data or None
    t.device = DLDevice(device[0], device[1])
    t.ndim = ndim
    t.dtype = DLDataType(code, bits, 1)
    t.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64)) \
        if strides_arr is not None else None
    t.byte_offset = 0
    managed.deleter = _deleter
    address = ctypes.addressof(managed)
    if versioned:
        minor = 1 if (dtype in FP8 and fp8_codes) else 0
        managed.version = DLPackVersion(1, minor)
        managed.flags = FLAG_READ_ONLY if read_only else 0
    with _live_lock:
        _live[address] = (managed, shape_arr, strides_arr, owner)
    name = b"dltensor_versioned" if versioned else b"dltensor"
    destroy = _DESTROY_VERSIONED if versioned else _DESTROY_LEGACY
    return _api.PyCapsule_New(address, name,
                              ctypes.cast(destroy, ctypes.c_void_p))


def exported_count():
    """The number of exported tensors not yet released (for tests)."""
    with _live_lock:
        return len(_live)


class Imported:
    """A tensor read from a DLPack producer: ``ptr`` (first element),
    ``shape``, ``strides`` (elements, row-major filled in), ``dtype`` (te
    element type, or None with ``dl_dtype`` (code, bits, lanes)),
    ``device`` ((type, id)), ``read_only``; ``keepalive`` holds the
    producer and the capsule."""

    def __init__(self, ptr, shape, strides, dtype, dl_dtype, device,
                 read_only, keepalive):
        self.ptr, self.shape, self.strides = ptr, shape, strides
        self.dtype, self.dl_dtype, self.device = dtype, dl_dtype, device
        self.read_only = read_only
        self.keepalive = keepalive

    @property
    def contiguous(self):
        expected = 1
        for d, s in zip(reversed(self.shape), reversed(self.strides)):
            if d != 1 and s != expected:
                return False
            expected *= d
        return True

    @property
    def on_cuda(self):
        return self.device[0] in (CUDA, CUDA_MANAGED)


def _call_dlpack(obj, stream):
    """obj.__dlpack__, asking for a versioned capsule where the producer
    takes max_version (1.13's torch takes `stream` alone)."""
    kwargs = {} if stream is None else {"stream": stream}
    try:
        return obj.__dlpack__(max_version=(1, 1), **kwargs)
    except TypeError:
        pass
    try:
        return obj.__dlpack__(**kwargs)
    except TypeError:
        if stream is None:
            raise
        return obj.__dlpack__()


def view_of(obj, stream=None):
    """An Imported view of `obj` (``__dlpack__``), no copy. `stream`: the
    CUDA stream the data will be used on (the producer orders its work
    before it); None for host data."""
    cap = _call_dlpack(obj, stream)
    if _api.PyCapsule_IsValid(cap, b"dltensor_versioned"):
        managed = DLManagedTensorVersioned.from_address(
            _api.PyCapsule_GetPointer(cap, b"dltensor_versioned"))
        if managed.version.major > 1:
            raise BufferError(f"DLPack {managed.version.major}."
                              f"{managed.version.minor} capsule: te reads "
                              "version 1")
        read_only = bool(managed.flags & FLAG_READ_ONLY)
    elif _api.PyCapsule_IsValid(cap, b"dltensor"):
        managed = DLManagedTensor.from_address(
            _api.PyCapsule_GetPointer(cap, b"dltensor"))
        read_only = False
    else:
        raise BufferError("__dlpack__ returned no DLPack capsule")
    # The capsule keeps its name: its own destructor releases the tensor
    # once the capsule (held by the view) is collected.
    t = managed.dl_tensor
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[i] for i in range(t.ndim))
    else:
        strides, acc = [], 1
        for d in reversed(shape):
            strides.append(acc)
            acc *= d
        strides = tuple(reversed(strides))
    key = (t.dtype.code, t.dtype.bits)
    dtype = DL_TO_TE.get(key) if t.dtype.lanes == 1 else None
    itembytes = (t.dtype.bits * t.dtype.lanes + 7) // 8
    if t.byte_offset % max(itembytes, 1):
        raise BufferError("DLPack tensor with a byte offset that is not a "
                          "whole number of elements")
    ptr = (t.data or 0) + t.byte_offset
    return Imported(ptr, shape, strides, dtype,
                    (t.dtype.code, t.dtype.bits, t.dtype.lanes),
                    (t.device.device_type, t.device.device_id), read_only,
                    (obj, cap))
