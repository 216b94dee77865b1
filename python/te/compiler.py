"""Compile a te module and run its functions on numpy arrays.

The module (MLIR text in the te dialect) is parsed and lowered with
te-pipeline through te's C API (libTECAPI), JIT-compiled with MLIR's
ExecutionEngine (its C API, in libte_py_jit next to this package) and called
on a te_rt context, as te-run does:

    prog = te.compile(source)                 # te-pipeline{target=cpu}
    y = prog.run("main", x)                   # numpy in, numpy out

Entry functions take and return ranked tensors (and scalars) of f32, f64,
f16, bf16 (float32 values; results as float32), f8E4M3FN, f8E5M2, f8E8M0FNU
(uint8 bit patterns), i1 (numpy bool), i8, i16, i32, i64 and index (int64).
Programs are compiled for target ``cpu`` (host
memory); on a cuda context the runtime stages the host buffers to the device
around each runtime call (te_rt_context_set_host_memory).
"""

import ctypes
import os
import threading
from ctypes import (CFUNCTYPE, POINTER, Structure, c_bool, c_char_p, c_int,
                    c_int8, c_int64, c_size_t, c_ssize_t, c_void_p)

import numpy as np

from . import _lib
from .errors import CompileError
from . import _interop

_lock = threading.Lock()
_capi = None


class _Handle(Structure):
    _fields_ = [("ptr", c_void_p)]


class MlirStringRef(Structure):
    _fields_ = [("data", c_void_p), ("length", c_size_t)]


MlirContext = MlirModule = MlirOperation = MlirBlock = MlirType = \
    MlirAttribute = MlirDiagnostic = MlirDialectRegistry = MlirIdentifier = \
    MlirExecutionEngine = MlirDialectHandle = _Handle


class MlirLogicalResult(Structure):
    _fields_ = [("value", c_int8)]


_STRING_CALLBACK = CFUNCTYPE(None, MlirStringRef, c_void_p)
# MlirLogicalResult (*)(MlirDiagnostic, void *): a one-byte struct comes back
# in the return register like an int8.
_DIAG_HANDLER = CFUNCTYPE(c_int8, MlirDiagnostic, c_void_p)

_CAPI_PROTOTYPES = {
    "mlirContextCreateWithThreading": (MlirContext, [c_bool]),
    "mlirContextDestroy": (None, [MlirContext]),
    "mlirDialectRegistryCreate": (MlirDialectRegistry, []),
    "mlirDialectRegistryDestroy": (None, [MlirDialectRegistry]),
    "mlirTERegisterRequiredDialects": (None, [MlirDialectRegistry]),
    "mlirContextAppendDialectRegistry": (None, [MlirContext,
                                                MlirDialectRegistry]),
    "mlirContextLoadAllAvailableDialects": (None, [MlirContext]),
    "mlirContextAttachDiagnosticHandler": (c_int64, [MlirContext,
                                                     _DIAG_HANDLER, c_void_p,
                                                     c_void_p]),
    "mlirDiagnosticPrint": (None, [MlirDiagnostic, _STRING_CALLBACK,
                                   c_void_p]),
    "mlirDiagnosticGetSeverity": (c_int, [MlirDiagnostic]),
    "mlirDiagnosticGetLocation": (_Handle, [MlirDiagnostic]),
    "mlirLocationPrint": (None, [_Handle, _STRING_CALLBACK, c_void_p]),
    "mlirModuleCreateParse": (MlirModule, [MlirContext, MlirStringRef]),
    "mlirModuleDestroy": (None, [MlirModule]),
    "mlirModuleGetOperation": (MlirOperation, [MlirModule]),
    "mlirModuleGetBody": (MlirBlock, [MlirModule]),
    "mlirBlockGetFirstOperation": (MlirOperation, [MlirBlock]),
    "mlirOperationGetNextInBlock": (MlirOperation, [MlirOperation]),
    "mlirOperationGetName": (MlirIdentifier, [MlirOperation]),
    "mlirIdentifierStr": (MlirStringRef, [MlirIdentifier]),
    "mlirOperationGetAttributeByName": (MlirAttribute, [MlirOperation,
                                                        MlirStringRef]),
    "mlirStringAttrGetValue": (MlirStringRef, [MlirAttribute]),
    "mlirOperationSetAttributeByName": (None, [MlirOperation, MlirStringRef,
                                               MlirAttribute]),
    "mlirUnitAttrGet": (MlirAttribute, [MlirContext]),
    "mlirTypeAttrGetValue": (MlirType, [MlirAttribute]),
    "mlirFunctionTypeGetNumInputs": (c_ssize_t, [MlirType]),
    "mlirFunctionTypeGetNumResults": (c_ssize_t, [MlirType]),
    "mlirFunctionTypeGetInput": (MlirType, [MlirType, c_ssize_t]),
    "mlirFunctionTypeGetResult": (MlirType, [MlirType, c_ssize_t]),
    "mlirTypeIsARankedTensor": (c_bool, [MlirType]),
    "mlirTypeIsAShaped": (c_bool, [MlirType]),
    "mlirShapedTypeGetRank": (c_int64, [MlirType]),
    "mlirShapedTypeGetDimSize": (c_int64, [MlirType, c_ssize_t]),
    "mlirShapedTypeIsDynamicDim": (c_bool, [MlirType, c_ssize_t]),
    "mlirShapedTypeGetElementType": (MlirType, [MlirType]),
    "mlirTypeIsAF32": (c_bool, [MlirType]),
    "mlirTypeIsAF64": (c_bool, [MlirType]),
    "mlirTypeIsAF16": (c_bool, [MlirType]),
    "mlirTypeIsABF16": (c_bool, [MlirType]),
    "mlirTypeIsAInteger": (c_bool, [MlirType]),
    "mlirTypeIsAIndex": (c_bool, [MlirType]),
    "mlirTypeIsAFloat8E4M3FN": (c_bool, [MlirType]),
    "mlirTypeIsAFloat8E5M2": (c_bool, [MlirType]),
    "mlirTypeIsAFloat8E8M0FNU": (c_bool, [MlirType]),
    "mlirIntegerTypeGetWidth": (c_int, [MlirType]),
    "mlirTypePrint": (None, [MlirType, _STRING_CALLBACK, c_void_p]),
    "mlirTERunPipeline": (MlirLogicalResult, [MlirModule, MlirStringRef,
                                              _STRING_CALLBACK, c_void_p]),
    "mlirTEHasPipeline": (c_bool, []),
}

_JIT_PROTOTYPES = {
    "mlirExecutionEngineCreate": (MlirExecutionEngine,
                                  [MlirModule, c_int, c_int,
                                   POINTER(MlirStringRef), c_bool]),
    "mlirExecutionEngineDestroy": (None, [MlirExecutionEngine]),
    "mlirExecutionEngineInvokePacked": (MlirLogicalResult,
                                        [MlirExecutionEngine, MlirStringRef,
                                         POINTER(c_void_p)]),
    "mlirExecutionEngineLookupPacked": (c_void_p, [MlirExecutionEngine,
                                                   MlirStringRef]),
}


def _capi_candidates():
    env = os.environ.get("TE_CAPI_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        from . import _location
        dirs = list(getattr(_location, "CAPI_LIBRARY_DIRS", ()))
    except ImportError:
        dirs = []
    for d in dirs + [here]:
        if not d:
            continue
        if not os.path.isabs(d):
            d = os.path.normpath(os.path.join(here, d))
        for name in ("libTECAPI.so", "libTECAPI.so.0"):
            p = os.path.join(d, name)
            if os.path.exists(p):
                yield p
    yield "libTECAPI.so.0"


def _load():
    """(libTECAPI, libte_py_jit), loaded once."""
    global _capi
    with _lock:
        if _capi is not None:
            return _capi
        errors = []
        capi = None
        for path in _capi_candidates():
            try:
                capi = ctypes.CDLL(path)
                break
            except OSError as e:
                errors.append(f"{path}: {e}")
        if capi is None:
            raise CompileError("cannot load te's C API library libTECAPI "
                               "(a build with TE_ENABLE_MLIR; or set "
                               "TE_CAPI_LIBRARY): " + "; ".join(errors))
        here = os.path.dirname(os.path.abspath(__file__))
        jit_path = os.path.join(here, "libte_py_jit.so")
        try:
            jit = ctypes.CDLL(jit_path)
        except OSError as e:
            raise CompileError(f"cannot load the JIT library {jit_path}: "
                               f"{e}") from None
        for lib, table in ((capi, _CAPI_PROTOTYPES), (jit, _JIT_PROTOTYPES)):
            for name, (restype, argtypes) in table.items():
                fn = getattr(lib, name)
                fn.restype = restype
                fn.argtypes = argtypes
        _capi = (capi, jit)
        return _capi


def _sref(b):
    """An MlirStringRef of bytes `b` (kept alive by the caller)."""
    return MlirStringRef(ctypes.cast(c_char_p(b), c_void_p), len(b))


def _str(ref):
    return ctypes.string_at(ref.data, ref.length).decode("utf-8", "replace") \
        if ref.length else ""


class _Collector:
    """Collects strings from MlirStringCallback calls."""

    def __init__(self):
        self.parts = []
        self.callback = _STRING_CALLBACK(self._append)

    def _append(self, ref, _):
        self.parts.append(_str(ref))

    def text(self):
        return "".join(self.parts)


class TensorSpec:
    """A parameter or result of an entry: ``dtype`` (numpy dtype name or
    'bfloat16'), ``shape`` (None for dynamic dimensions), ``scalar``."""

    def __init__(self, dtype, shape, scalar):
        self.dtype, self.shape, self.scalar = dtype, shape, scalar

    def __repr__(self):
        if self.scalar:
            return self.dtype
        dims = ",".join("?" if d is None else str(d) for d in self.shape)
        return f"{self.dtype}[{dims}]"

    @property
    def storage(self):
        """The numpy dtype holding the values: bfloat16 as uint16 bits, the
        8-bit floats as uint8 bits."""
        if self.dtype == "bfloat16":
            return np.dtype(np.uint16)
        if self.dtype.startswith("f8"):
            return np.dtype(np.uint8)
        return np.dtype(self.dtype)

    @property
    def itemsize(self):
        return self.storage.itemsize


def _element_name(capi, t):
    if capi.mlirTypeIsAF32(t):
        return "float32"
    if capi.mlirTypeIsAF64(t):
        return "float64"
    if capi.mlirTypeIsAF16(t):
        return "float16"
    if capi.mlirTypeIsABF16(t):
        return "bfloat16"
    for fp8 in ("Float8E4M3FN", "Float8E5M2", "Float8E8M0FNU"):
        if getattr(capi, "mlirTypeIsA" + fp8)(t):
            return "f8" + fp8[6:]
    if capi.mlirTypeIsAIndex(t):
        return "int64"  # the lowering's index width
    if capi.mlirTypeIsAInteger(t):
        w = capi.mlirIntegerTypeGetWidth(t)
        if w == 1:
            return "bool"  # one byte of 0 or 1, as memref<..xi1> is
        if w in (8, 16, 32, 64):
            return f"int{w}"
    c = _Collector()
    capi.mlirTypePrint(t, c.callback, None)
    raise CompileError(f"element type {c.text()} is not supported by the "
                       "Python harness (f32, f64, f16, bf16, f8E4M3FN, "
                       "f8E5M2, f8E8M0FNU, i1, i8, i16, i32, i64, index)")


def _spec(capi, t):
    if capi.mlirTypeIsARankedTensor(t):
        rank = capi.mlirShapedTypeGetRank(t)
        shape = tuple(None if capi.mlirShapedTypeIsDynamicDim(t, i)
                      else capi.mlirShapedTypeGetDimSize(t, i)
                      for i in range(rank))
        return TensorSpec(_element_name(capi,
                                        capi.mlirShapedTypeGetElementType(t)),
                          shape, False)
    if capi.mlirTypeIsAShaped(t):
        raise CompileError("entry parameters and results are ranked tensors "
                           "or scalars")
    return TensorSpec(_element_name(capi, t), (), True)


_SCALAR_CTYPES = {"float32": ctypes.c_float, "float64": ctypes.c_double,
                  "bool": ctypes.c_bool, "int8": ctypes.c_int8,
                  "int16": ctypes.c_int16, "int32": ctypes.c_int32,
                  "int64": ctypes.c_int64}


class Program:
    """A compiled te module: ``signature(entry)``, ``run(entry, *args,
    ctx=None)``. Close it (or use it as a context manager) to release the
    JIT and the MLIR context."""

    def __init__(self, source, target="cpu", options=""):
        if target != "cpu":
            raise ValueError("the Python harness runs programs compiled for "
                             "target 'cpu' (GPU targets take device memory; "
                             "use te-run for them)")
        capi, jit = _load()
        self._capi, self._jit = capi, jit
        self._ctx = capi.mlirContextCreateWithThreading(False)
        self._module = None
        self._engine = None
        registry = capi.mlirDialectRegistryCreate()
        capi.mlirTERegisterRequiredDialects(registry)
        capi.mlirContextAppendDialectRegistry(self._ctx, registry)
        capi.mlirDialectRegistryDestroy(registry)
        capi.mlirContextLoadAllAvailableDialects(self._ctx)
        self._diagnostics = []

        def on_diagnostic(diag, _):
            loc, msg = _Collector(), _Collector()
            capi.mlirLocationPrint(capi.mlirDiagnosticGetLocation(diag),
                                   loc.callback, None)
            capi.mlirDiagnosticPrint(diag, msg.callback, None)
            severity = {0: "error", 1: "warning", 2: "note", 3: "remark"}.get(
                capi.mlirDiagnosticGetSeverity(diag), "error")
            self._diagnostics.append(f"{loc.text()}: {severity}: "
                                     f"{msg.text()}")
            return 1  # handled

        self._diag_handler = _DIAG_HANDLER(on_diagnostic)
        capi.mlirContextAttachDiagnosticHandler(self._ctx, self._diag_handler,
                                                None, None)
        try:
            self._compile(source, target, options)
        except Exception:
            self.close()
            raise

    def _compile(self, source, target, options):
        capi, jit = self._capi, self._jit
        if isinstance(source, str):
            source = source.encode("utf-8")
        module = capi.mlirModuleCreateParse(self._ctx, _sref(source))
        if not module.ptr:
            raise CompileError("the module does not parse:\n" +
                               "\n".join(self._diagnostics))
        self._module = module
        self.signatures = self._signatures()
        errors = _Collector()
        opts = f"target={target} {options}".strip().encode()
        if not capi.mlirTERunPipeline(module, _sref(opts), errors.callback,
                                      None).value:
            lines = errors.parts or self._diagnostics
            raise CompileError("te-pipeline failed:\n" + "\n".join(lines))
        _lib.load()
        rt_path = _lib.path_of_loaded() or ""
        self._rt_path_bytes = rt_path.encode()
        paths = (MlirStringRef * 1)(_sref(self._rt_path_bytes))
        engine = jit.mlirExecutionEngineCreate(module, 2, 1 if rt_path else 0,
                                               paths, False)
        if not engine.ptr:
            raise CompileError("the JIT could not compile the lowered "
                               "module:\n" + "\n".join(self._diagnostics))
        self._engine = engine

    def _signatures(self):
        capi = self._capi
        out = {}
        op = capi.mlirBlockGetFirstOperation(
            capi.mlirModuleGetBody(self._module))
        while op.ptr:
            name = _str(capi.mlirIdentifierStr(capi.mlirOperationGetName(op)))
            if name == "func.func":
                sym = _str(capi.mlirStringAttrGetValue(
                    capi.mlirOperationGetAttributeByName(
                        op, _sref(b"sym_name"))))
                ftype_attr = capi.mlirOperationGetAttributeByName(
                    op, _sref(b"function_type"))
                if ftype_attr.ptr:
                    # The C interface _mlir_ciface_<name> the harness calls.
                    capi.mlirOperationSetAttributeByName(
                        op, _sref(b"llvm.emit_c_interface"),
                        capi.mlirUnitAttrGet(self._ctx))
                    ft = capi.mlirTypeAttrGetValue(ftype_attr)
                    try:
                        args = [_spec(capi, capi.mlirFunctionTypeGetInput(
                            ft, i)) for i in
                            range(capi.mlirFunctionTypeGetNumInputs(ft))]
                        res = [_spec(capi, capi.mlirFunctionTypeGetResult(
                            ft, i)) for i in
                            range(capi.mlirFunctionTypeGetNumResults(ft))]
                        out[sym] = (args, res)
                    except CompileError as e:
                        out[sym] = e
            op = capi.mlirOperationGetNextInBlock(op)
        return out

    def signature(self, entry="main"):
        """([TensorSpec of each parameter], [TensorSpec of each result])."""
        sig = self.signatures.get(entry)
        if sig is None:
            raise KeyError(f"the module has no function @{entry} "
                           f"(functions: {sorted(self.signatures)})")
        if isinstance(sig, CompileError):
            raise sig
        return sig

    def close(self):
        if self._engine is not None and self._engine.ptr:
            self._jit.mlirExecutionEngineDestroy(self._engine)
        self._engine = None
        if self._module is not None and self._module.ptr:
            self._capi.mlirModuleDestroy(self._module)
        self._module = None
        if self._ctx is not None and self._ctx.ptr:
            self._capi.mlirContextDestroy(self._ctx)
        self._ctx = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def run(self, entry, *args, ctx=None):
        """Calls @entry on `args` (numpy arrays or scalars, converted to the
        parameter types) on `ctx` (default: the cpu context). Returns the
        result, or a tuple of them (numpy arrays; scalars as numpy
        scalars)."""
        from .runtime import default_context
        if self._engine is None:
            raise ValueError("the program is closed")
        params, results = self.signature(entry)
        if len(args) != len(params):
            raise TypeError(f"@{entry} takes {len(params)} arguments "
                            f"({', '.join(map(repr, params))}), got "
                            f"{len(args)}")
        ctx = ctx or default_context("cpu")
        keep = []
        slots = []
        by_pointer = any(not r.scalar for r in results) or len(results) > 1
        # The results struct: memref descriptors and scalars, naturally
        # aligned.
        offsets, size = [], 0
        for r in results:
            align = r.itemsize if r.scalar else 8
            nbytes = r.itemsize if r.scalar else 8 * (3 + 2 * len(r.shape))
            size = (size + align - 1) // align * align
            offsets.append(size)
            size += nbytes
        result_buf = ctypes.create_string_buffer(max(size, 8))
        result_ptr = c_void_p(ctypes.addressof(result_buf))
        if by_pointer:
            slots.append(ctypes.addressof(result_ptr))
        arg_allocs = set()
        for i, (a, p) in enumerate(zip(args, params)):
            if p.scalar:
                v = _SCALAR_CTYPES[p.dtype](a)
                keep.append(v)
                slots.append(ctypes.addressof(v))
                continue
            arr = self._argument(a, p, i, entry)
            keep.append(arr)
            rank = arr.ndim
            desc = (c_int64 * (3 + 2 * rank))()
            desc[0] = desc[1] = arr.ctypes.data
            desc[2] = 0
            strides = [s // arr.itemsize for s in arr.strides]
            for d in range(rank):
                desc[3 + d] = arr.shape[d]
                desc[3 + rank + d] = strides[d]
            arg_allocs.add(arr.ctypes.data)
            dp = c_void_p(ctypes.addressof(desc))
            keep += [desc, dp]
            slots.append(ctypes.addressof(dp))
        if not by_pointer and results:
            slots.append(ctypes.addressof(result_buf))
        packed = (c_void_p * max(len(slots), 1))(*slots)
        lib = ctx._lib
        if not ctx.is_host:
            ctx._call("te_rt_context_set_host_memory", ctx._handle, 1)
        # The C API calls the packed wrapper of _mlir_ciface_<entry>.
        name = entry.encode()
        lib.te_rt_set_current_context(ctx._handle)
        try:
            ok = self._jit.mlirExecutionEngineInvokePacked(
                self._engine, _sref(name), packed).value
            status = lib.te_rt_current_status()
            message = lib.te_rt_current_error() or b""
        finally:
            lib.te_rt_set_current_context(None)
        if not ok:
            raise CompileError(f"the JIT has no packed entry for @{entry}")
        # After a runtime failure the results are not read (their memory
        # may be missing), only released.
        outs = self._collect(results, offsets, result_buf, arg_allocs,
                             copy=status == 0)
        if status != 0:
            lib.te_rt_clear_error()
            from .errors import _CLASSES, Error
            raise _CLASSES.get(status, Error)(
                message.decode("utf-8", "replace") or
                lib.te_rt_status_string(status).decode(), status)
        if len(outs) == 1:
            return outs[0]
        return tuple(outs)

    @staticmethod
    def _argument(a, p, i, entry):
        if p.dtype == "bfloat16":
            src = np.asarray(a)
            if _interop.numpy_dtype_code(src.dtype) == _interop._abi.BF16:
                arr = np.asarray(src, order="C").view(np.uint16)
            else:
                arr = _interop.to_bf16_bits(src)
        elif p.dtype.startswith("f8"):
            arr = np.asarray(a, order="C")
            if arr.dtype != np.uint8:
                raise TypeError(f"@{entry} argument {i}: {p!r} takes uint8 "
                                "bit patterns")
        else:
            arr = np.asarray(a, dtype=p.dtype, order="C")
        if arr.ndim != len(p.shape) or any(
                d is not None and d != n for d, n in zip(p.shape, arr.shape)):
            raise ValueError(f"@{entry} argument {i}: shape {arr.shape} does "
                             f"not match {p!r}")
        return arr

    def _collect(self, results, offsets, buf, arg_allocs, copy=True):
        """The results as numpy arrays (copied when `copy`); frees each
        returned allocation once, except the arguments' and globals'."""
        libc = ctypes.CDLL(None)
        libc.free.argtypes = [c_void_p]
        outs, freed = [], set()
        base = ctypes.addressof(buf)
        for r, off in zip(results, offsets):
            if r.scalar:
                if copy:
                    outs.append(np.dtype(r.dtype).type(
                        _SCALAR_CTYPES[r.dtype].from_address(
                            base + off).value))
                continue
            rank = len(r.shape)
            d = (c_int64 * (3 + 2 * rank)).from_address(base + off)
            allocated, aligned, offset = d[0], d[1], d[2]
            if copy:
                outs.append(self._copy_out(r, d, rank, aligned, offset))
            if allocated and allocated != 0xdeadbeef and \
                    allocated not in arg_allocs and allocated not in freed:
                freed.add(allocated)
                libc.free(allocated)
        return outs

    @staticmethod
    def _copy_out(r, d, rank, aligned, offset):
        shape = tuple(d[3 + i] for i in range(rank))
        strides = tuple(d[3 + rank + i] for i in range(rank))
        dtype = r.storage
        itemsize = dtype.itemsize
        if all(n > 0 for n in shape):
            span = sum((n - 1) * s for n, s in zip(shape, strides)) + 1
            raw = (ctypes.c_char * (span * itemsize)).from_address(
                (aligned or 0) + offset * itemsize)
            arr = np.ndarray(shape, dtype, buffer=raw, strides=[
                s * itemsize for s in strides]).copy()
        else:
            arr = np.empty(shape, dtype)
        if r.dtype == "bfloat16":
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
        return arr


def compile(source, target="cpu", options=""):
    """Parses `source` (a te module, MLIR text), lowers it with
    te-pipeline{target=cpu <options>} and JIT-compiles it; raises
    CompileError with the MLIR diagnostics."""
    return Program(source, target, options)


def has_compiler():
    """True if te's C API and the JIT library can be loaded."""
    try:
        _load()
        return True
    except CompileError:
        return False
