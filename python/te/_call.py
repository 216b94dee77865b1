"""ctypes bindings of libte_call (runtime/include/te_call.h): signatures,
call frames and program loading, shared with te-run and te-aot-run.

The library is found like libte_rt (_lib.py): $TE_CALL_LIBRARY, the
locations recorded by the build or install, next to this package, the
loader's search path. It is loaded globally: compiled code calls its
te_run_checked_malloc.
"""

import ctypes
import os
import threading
from ctypes import (POINTER, Structure, c_char_p, c_int, c_int32, c_int64,
                    c_uint8, c_void_p)

from . import _lib

_lock = threading.Lock()
_libcall = None


class CallType(Structure):
    _fields_ = [("element_type", c_char_p), ("element_bytes", c_int32),
                ("scalar", c_int32), ("rank", c_int32),
                ("shape", POINTER(c_int64))]


class CallResult(Structure):
    _fields_ = [("scalar", c_int32), ("rank", c_int32),
                ("value", c_uint8 * 8), ("allocated", c_void_p),
                ("data", c_void_p), ("shape", POINTER(c_int64)),
                ("strides", POINTER(c_int64)), ("owned", c_int32)]


_PROTOTYPES = {
    "te_call_api_version": (c_int, []),
    "te_call_last_error": (c_char_p, []),
    "te_call_signature_parse": (c_int, [c_char_p, POINTER(c_void_p)]),
    "te_call_signature_destroy": (None, [c_void_p]),
    "te_call_signature_num_args": (c_int, [c_void_p]),
    "te_call_signature_num_results": (c_int, [c_void_p]),
    "te_call_signature_arg": (c_int, [c_void_p, c_int, POINTER(CallType)]),
    "te_call_signature_result": (c_int, [c_void_p, c_int,
                                         POINTER(CallType)]),
    "te_call_signature_target": (c_char_p, [c_void_p]),
    "te_call_signature_shape_checks": (c_int, [c_void_p]),
    "te_call_signature_text": (c_char_p, [c_void_p]),
    "te_call_program_open": (c_int, [c_char_p, POINTER(c_void_p)]),
    "te_call_program_close": (None, [c_void_p]),
    "te_call_program_entry": (c_int, [c_void_p, c_char_p, POINTER(c_void_p),
                                      POINTER(c_void_p)]),
    "te_call_frame_create": (c_int, [c_void_p, POINTER(c_void_p)]),
    "te_call_frame_destroy": (None, [c_void_p]),
    "te_call_frame_set_tensor": (c_int, [c_void_p, c_int, c_void_p, c_int,
                                         POINTER(c_int64), POINTER(c_int64)]),
    "te_call_frame_set_scalar": (c_int, [c_void_p, c_int, c_void_p]),
    "te_call_frame_invoke": (c_int, [c_void_p, c_void_p]),
    "te_call_frame_slots": (c_int, [c_void_p, POINTER(c_void_p)]),
    "te_call_frame_result": (c_int, [c_void_p, c_int, POINTER(CallResult)]),
    "te_call_set_tool_name": (None, [c_char_p]),
}


def _candidates():
    env = os.environ.get("TE_CALL_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        from . import _location
        dirs = list(getattr(_location, "LIBRARY_DIRS", ()))
    except ImportError:
        dirs = []
    for d in dirs + [here]:
        if not os.path.isabs(d):
            d = os.path.normpath(os.path.join(here, d))
        for name in ("libte_call.so", "libte_call.so.1"):
            p = os.path.join(d, name)
            if os.path.exists(p):
                yield p
    yield "libte_call.so.1"


def load():
    """libte_call (ctypes.CDLL with prototypes), after libte_rt."""
    global _libcall
    _lib.load()
    with _lock:
        if _libcall is not None:
            return _libcall
        errors = []
        for path in _candidates():
            try:
                lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
            except OSError as e:
                errors.append(f"{path}: {e}")
                continue
            for name, (restype, argtypes) in _PROTOTYPES.items():
                fn = getattr(lib, name)
                fn.restype = restype
                fn.argtypes = argtypes
            _libcall = lib
            _tool = b"te (Python)"
            lib.te_call_set_tool_name(_tool)
            lib._tool_name = _tool
            return lib
        raise _lib.LibraryNotFound(
            "cannot load libte_call (set TE_CALL_LIBRARY to its path): " +
            "; ".join(errors))


def check(lib, rc, error_type=None):
    if rc != 0:
        from .errors import InvalidArgumentError
        message = (lib.te_call_last_error() or b"").decode("utf-8", "replace")
        raise (error_type or InvalidArgumentError)(message)


class Type:
    """A parameter or result type: ``element`` (te name: 'f32', 'bf16',
    'f8E4M3FN', 'i1', ...), ``shape`` (None for `?`), ``scalar``,
    ``itemsize``."""

    def __init__(self, element, shape, scalar, itemsize):
        self.element, self.shape, self.scalar = element, shape, scalar
        self.itemsize = itemsize

    def __repr__(self):
        if self.scalar:
            return self.element
        dims = ",".join("?" if d is None else str(d) for d in self.shape)
        return f"{self.element}[{dims}]"


class Signature:
    """A parsed signature (te_call_signature): ``args``, ``results``
    (lists of Type), ``target``, ``shape_checks``, ``text``."""

    def __init__(self, handle):
        lib = load()
        self._lib = lib
        self._handle = handle
        self.args = [self._type(lib.te_call_signature_arg, i) for i in
                     range(lib.te_call_signature_num_args(handle))]
        self.results = [self._type(lib.te_call_signature_result, i) for i in
                        range(lib.te_call_signature_num_results(handle))]
        self.target = lib.te_call_signature_target(handle).decode()
        self.shape_checks = bool(lib.te_call_signature_shape_checks(handle))
        self.text = lib.te_call_signature_text(handle).decode()

    @classmethod
    def parse(cls, text):
        lib = load()
        h = c_void_p()
        check(lib, lib.te_call_signature_parse(text.encode(), ctypes.byref(h)))
        return cls(h.value)

    def _type(self, getter, i):
        t = CallType()
        check(self._lib, getter(self._handle, i, ctypes.byref(t)))
        shape = tuple(None if t.shape[d] < 0 else t.shape[d]
                      for d in range(t.rank))
        return Type(t.element_type.decode(), shape, bool(t.scalar),
                    t.element_bytes)

    def __del__(self):
        try:
            if self._handle:
                self._lib.te_call_signature_destroy(self._handle)
                self._handle = None
        except Exception:
            pass

    def __repr__(self):
        return f"Signature({self.text!r}, target={self.target!r})"


class Frame:
    """A call frame (te_call_frame) of a Signature."""

    def __init__(self, sig):
        self._lib = load()
        self.sig = sig
        h = c_void_p()
        check(self._lib, self._lib.te_call_frame_create(sig._handle,
                                                        ctypes.byref(h)))
        self._handle = h.value

    def set_tensor(self, i, ptr, shape, strides=None):
        rank = len(shape)
        s = (c_int64 * max(rank, 1))(*shape)
        st = (c_int64 * max(rank, 1))(*strides) if strides is not None \
            else None
        check(self._lib, self._lib.te_call_frame_set_tensor(
            self._handle, i, ptr or None, rank, s, st))

    def set_scalar(self, i, value_bytes):
        buf = ctypes.create_string_buffer(bytes(value_bytes), 8)
        check(self._lib, self._lib.te_call_frame_set_scalar(self._handle, i,
                                                            buf))

    def invoke(self, packed):
        check(self._lib, self._lib.te_call_frame_invoke(self._handle, packed))

    def result(self, i):
        r = CallResult()
        check(self._lib, self._lib.te_call_frame_result(self._handle, i,
                                                       ctypes.byref(r)))
        return r

    def __del__(self):
        try:
            if self._handle:
                self._lib.te_call_frame_destroy(self._handle)
                self._handle = None
        except Exception:
            pass
