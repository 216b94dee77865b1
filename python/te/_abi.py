"""The structs, enums and prototypes of te_rt.h (API versions 3 and 4) for
ctypes.

Structs that te_rt.h initialises with an ``_init`` function carry reserved
bytes after their last field and are always initialised through that
function, so that a library with fields appended in a later API version
writes their defaults into memory this package owns.

Quantizer takes te_rt_quantizer's fields from _quantizer_fields.py, which
the build generates (python/gen_abi.py) from runtime/include/te_rt_abi.def,
the one list of the quantizer's fields, and te_rt.h, their C types; the
enumerators come from _enums.py, generated from te_rt.h.
"""

import ctypes
from ctypes import (POINTER, Structure, c_char, c_char_p, c_float, c_int,
                    c_int32, c_int64, c_size_t, c_uint64, c_void_p)

from . import _quantizer_fields

MAX_RANK = 8
MAX_BUFFERS = 8
MAX_NAME = 32
_RESERVED = 128  # bytes after the known fields of structs with an _init

# The enumerators of te_rt.h (RECIPE_DELAYED, E4M3, ROWWISE, GEMM_TN, ...),
# generated from the header with _quantizer_fields.py.
from ._enums import *  # noqa: E402,F401,F403
from ._enums import ENUMERATORS as _ENUMERATORS  # noqa: E402

STATUS_NAMES = _ENUMERATORS["te_rt_status"]
DTYPE_NAMES = {v: n.lower() for v, n in _ENUMERATORS["te_rt_dtype"].items()}


class Quantizer(Structure):
    _fields_ = _quantizer_fields.FIELDS


class Tensor(Structure):
    _fields_ = [
        ("data", c_void_p),
        ("dtype", c_int),
        ("rank", c_int32),
        ("shape", c_int64 * MAX_RANK),
        # API version 4: the capacity of `data` (0: not stated). A version 3
        # library does not read it.
        ("size_bytes", c_int64),
        ("_reserved", c_char * _RESERVED),
    ]


class BufferDesc(Structure):
    _fields_ = [
        ("name", c_char * MAX_NAME),
        ("role", c_int),
        ("columnwise", c_int32),
        ("dtype", c_int),
        ("rank", c_int32),
        ("shape", c_int64 * MAX_RANK),
        ("size_bytes", c_int64),
    ]


class Buffer(Structure):
    _fields_ = [("data", c_void_p), ("size_bytes", c_int64)]


class QTensor(Structure):
    _fields_ = [
        ("quantizer", Quantizer),
        ("rank", c_int32),
        ("shape", c_int64 * MAX_RANK),
        ("usage", c_int),
        ("target", c_int),
        ("swizzled_scales", c_int32),
        ("num_buffers", c_int32),
        ("buffers", Buffer * MAX_BUFFERS),
        ("_reserved", c_char * _RESERVED),
    ]


class QuantizeArgs(Structure):
    _fields_ = [
        ("scale", c_void_p),
        ("amax", c_void_p),
        ("amax_in", c_void_p),
        ("seed", c_uint64),
        ("offset", c_uint64),
        ("stream", c_void_p),
        ("_reserved", c_char * _RESERVED),
    ]


class GemmArgs(Structure):
    _fields_ = [
        ("layout", c_int),
        ("bias", POINTER(Tensor)),
        ("alpha", c_float),
        ("accumulate", c_int32),
        ("use_split_accumulator", c_int32),
        ("output", POINTER(QTensor)),
        ("output_args", POINTER(QuantizeArgs)),
        ("workspace", c_void_p),
        ("workspace_bytes", c_size_t),
        ("stream", c_void_p),
        ("a_row_scale_inv", c_void_p),
        ("b_row_scale_inv", c_void_p),
        ("_reserved", c_char * _RESERVED),
    ]


class GemmInfo(Structure):
    _fields_ = [
        ("path", c_int),
        ("fused_fp8_output", c_int32),
        ("host_pointer_mode", c_int32),
        ("autotuned", c_int32),
        ("algo_id", c_int32),
        ("algo_tile", c_int32),
        ("algo_stages", c_int32),
        ("algo_split_k", c_int32),
        ("algo_swizzle", c_int32),
        ("algo_custom_option", c_int32),
        ("_reserved", c_char * _RESERVED),
    ]


_S = c_int  # te_rt_status
_PROTOTYPES = {
    "te_rt_last_error": (c_char_p, []),
    "te_rt_clear_error": (None, []),
    "te_rt_status_string": (c_char_p, [c_int]),
    "te_rt_api_version": (c_int, []),
    "te_rt_backend_available": (c_int, [c_int]),
    "te_rt_context_create": (_S, [c_int, POINTER(c_void_p)]),
    "te_rt_context_destroy": (_S, [c_void_p]),
    "te_rt_context_set_num_threads": (_S, [c_void_p, c_int]),
    "te_rt_context_last_gemm_info": (_S, [c_void_p, POINTER(GemmInfo)]),
    "te_rt_malloc": (_S, [c_void_p, c_size_t, POINTER(c_void_p)]),
    "te_rt_free": (_S, [c_void_p, c_void_p]),
    "te_rt_memcpy": (_S, [c_void_p, c_void_p, c_void_p, c_size_t, c_int]),
    "te_rt_memset_zero": (_S, [c_void_p, c_void_p, c_size_t]),
    "te_rt_synchronize": (_S, [c_void_p, c_void_p]),
    "te_rt_quantizer_init_default": (None, [POINTER(Quantizer)]),
    "te_rt_quantizer_verify": (_S, [POINTER(Quantizer)]),
    "te_rt_qtensor_layout": (_S, [POINTER(Quantizer), c_int32,
                                  POINTER(c_int64), c_int, c_int,
                                  POINTER(BufferDesc), c_int32,
                                  POINTER(c_int32)]),
    "te_rt_qtensor_init": (_S, [POINTER(QTensor), POINTER(Quantizer),
                                c_int32, POINTER(c_int64), c_int, c_int]),
    "te_rt_quantize_args_init": (None, [POINTER(QuantizeArgs)]),
    "te_rt_quantize": (_S, [c_void_p, POINTER(Tensor), POINTER(QTensor),
                            POINTER(QuantizeArgs)]),
    "te_rt_dequantize": (_S, [c_void_p, POINTER(QTensor), c_int,
                              POINTER(Tensor)]),
    "te_rt_amax": (_S, [c_void_p, POINTER(Tensor), c_void_p]),
    "te_rt_swizzle_scales": (_S, [c_void_p, POINTER(QTensor)]),
    "te_rt_unswizzle_scales": (_S, [c_void_p, POINTER(QTensor)]),
    "te_rt_gemm_args_init": (None, [POINTER(GemmArgs)]),
    "te_rt_gemm": (_S, [c_void_p, POINTER(QTensor), POINTER(QTensor),
                        POINTER(Tensor), POINTER(GemmArgs)]),
    "te_rt_context_set_host_memory": (_S, [c_void_p, c_int]),
    # te_rt_abi.def: the current context of compiled code.
    "te_rt_set_current_context": (None, [c_void_p]),
    "te_rt_current_status": (c_int32, []),
    "te_rt_current_error": (c_char_p, []),
}

# Functions of later API versions, used when the library has them.
_OPTIONAL_PROTOTYPES = {
    "te_rt_tensor_init": (None, [POINTER(Tensor)]),
}


def declare(lib):
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    for name, (restype, argtypes) in _OPTIONAL_PROTOTYPES.items():
        fn = getattr(lib, name, None)
        if fn is not None:
            fn.restype = restype
            fn.argtypes = argtypes


def new_tensor(lib):
    t = Tensor()
    init = getattr(lib, "te_rt_tensor_init", None)
    if init is not None:
        init(ctypes.byref(t))
    return t
