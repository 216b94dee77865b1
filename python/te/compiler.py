"""Compile a te module and run its functions.

The module (MLIR text in the te dialect) is parsed and lowered with
te-pipeline through te's C API (libTECAPI), given the packed wrappers of its
entries (te-packed-entry), JIT-compiled with MLIR's ExecutionEngine (its C
API, in libte_py_jit next to this package) and called through libte_call's
call frames on a te_rt context, as te-run does:

    prog = te.compile(source)                 # te-pipeline{target=cpu}
    y = prog.run("main", x)                   # numpy in, numpy out
    prog = te.compile(source, target="sm_90") # a GPU program (cuda context)
    y = prog.run("main", x_cuda)              # torch/CuPy in place

Entry functions take and return ranked tensors (and scalars) of f32, f64,
f16, bf16, f8E4M3FN, f8E5M2, f8E8M0FNU, i1, i8, i16, i32, i64 and index
(int64); quantized tensors as their buffers. See te.program for how
arguments and results are passed (DLPack without copies, numpy by value).
"""

import ctypes
import os
import threading
from typing import Any, Optional
from ctypes import (CFUNCTYPE, POINTER, Structure, c_bool, c_char_p, c_int,
                    c_int8, c_int64, c_size_t, c_ssize_t, c_void_p)

import numpy as np

from . import _call, _lib
from .errors import CompileError
from .program import Program as _ProgramBase
from .program import TensorSpec  # noqa: F401 (te.compiler.TensorSpec)

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
    "mlirTEGetEntrySignature": (MlirLogicalResult, [MlirOperation,
                                                    MlirStringRef,
                                                    _STRING_CALLBACK,
                                                    c_void_p]),
    "mlirTEAddPackedEntry": (MlirLogicalResult, [MlirModule, MlirStringRef,
                                                 MlirStringRef, MlirStringRef,
                                                 c_bool, _STRING_CALLBACK,
                                                 c_void_p]),
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
    "mlirExecutionEngineLookup": (c_void_p, [MlirExecutionEngine,
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


_TARGETS = ("cpu", "sm_90", "sm_100")


class Program(_ProgramBase):
    """A compiled te module: ``entries()``, ``signature(entry)``,
    ``run(entry, *args, ctx=None, stream=None)`` (te.program.Program).
    Close it (or use it as a context manager) to release the JIT and the
    MLIR context."""

    def __init__(self, source, target="cpu", options=""):
        if target not in _TARGETS:
            raise ValueError(f"target expects one of {', '.join(_TARGETS)}, "
                             f"got {target!r}")
        self.target = target
        capi, jit = _load()
        self._capi, self._jit = capi, jit
        self._ctx = capi.mlirContextCreateWithThreading(False)
        self._module = None
        self._engine = None
        self._entries = {}
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
        self.signatures = self._signatures(target)
        errors = _Collector()
        opts = f"target={target} {options}".strip().encode()
        if not capi.mlirTERunPipeline(module, _sref(opts), errors.callback,
                                      None).value:
            lines = errors.parts or self._diagnostics
            raise CompileError("te-pipeline failed:\n" + "\n".join(lines))
        checks = self._has_shape_checks()
        # The packed wrapper of every entry the lowering kept (te_call.h).
        target_b = target.encode()
        for name, sig in list(self.signatures.items()):
            if isinstance(sig, CompileError):
                continue
            err = _Collector()
            if not capi.mlirTEAddPackedEntry(
                    module, _sref(name.encode()), _sref(sig.encode()),
                    _sref(target_b), False, err.callback, None).value:
                self.signatures[name] = CompileError(
                    f"@{name} cannot be called: {err.text()}")
                continue
            self.signatures[name] = (
                f"{sig}\ntarget {target}\n"
                f"shape-checks {'on' if checks else 'off'}\n")
        _lib.load()
        _call.load()  # te_run_checked_malloc, for the compiled code
        rt_path = _lib.path_of_loaded() or ""
        self._rt_path_bytes = rt_path.encode()
        paths = (MlirStringRef * 1)(_sref(self._rt_path_bytes))
        engine = jit.mlirExecutionEngineCreate(module, 2, 1 if rt_path else 0,
                                               paths, False)
        if not engine.ptr:
            raise CompileError("the JIT could not compile the lowered "
                               "module:\n" + "\n".join(self._diagnostics))
        self._engine = engine

    def _has_shape_checks(self):
        capi = self._capi
        op = capi.mlirModuleGetOperation(self._module)
        return bool(capi.mlirOperationGetAttributeByName(
            op, _sref(b"te.shape_checks")).ptr)

    def _signatures(self, target):
        """{entry: harness signature text, or the CompileError of an entry
        the harness cannot call}; gives every function its C interface."""
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
                visibility = capi.mlirOperationGetAttributeByName(
                    op, _sref(b"sym_visibility"))
                private = bool(visibility.ptr) and _str(
                    capi.mlirStringAttrGetValue(visibility)) == "private"
                text = _Collector()
                if private:
                    out[sym] = CompileError(
                        f"@{sym} is private: an entry must be public")
                elif capi.mlirTEGetEntrySignature(
                        op, _sref(target.encode()), text.callback,
                        None).value:
                    # The C interface _mlir_ciface_<name> the wrapper calls.
                    capi.mlirOperationSetAttributeByName(
                        op, _sref(b"llvm.emit_c_interface"),
                        capi.mlirUnitAttrGet(self._ctx))
                    out[sym] = text.text()
                else:
                    out[sym] = CompileError(
                        f"@{sym} cannot be called from Python: "
                        f"{text.text()}")
            op = capi.mlirOperationGetNextInBlock(op)
        return out

    def entries(self):
        return sorted(k for k, v in self.signatures.items()
                      if not isinstance(v, CompileError))

    def _entry(self, entry):
        got = self._entries.get(entry)
        if got is not None:
            return got
        if self._engine is None:
            raise ValueError("the program is closed")
        sig = self.signatures.get(entry)
        if sig is None:
            raise KeyError(f"the module has no function @{entry} "
                           f"(functions: {sorted(self.signatures)})")
        if isinstance(sig, CompileError):
            raise sig
        packed = self._jit.mlirExecutionEngineLookup(
            self._engine, _sref(f"_te_packed_{entry}".encode()))
        if not packed:
            raise CompileError(f"the JIT has no packed entry for @{entry}")
        got = self._entries[entry] = (packed, _call.Signature.parse(sig))
        return got

    def close(self):
        if self._engine is not None and self._engine.ptr:
            self._jit.mlirExecutionEngineDestroy(self._engine)
        self._engine = None
        self._entries = {}
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

    def run(self, entry: str, *args: Any, ctx: Optional[Any] = None,
            stream: Optional[int] = None) -> Any:
        if self._engine is None:
            raise ValueError("the program is closed")
        return super().run(entry, *args, ctx=ctx, stream=stream)

    run.__doc__ = _ProgramBase.run.__doc__


def compile(source: str, target: str = "cpu", options: str = "") -> Program:
    """Parses `source` (a te module, MLIR text), lowers it with
    te-pipeline{target=<target> <options>} and JIT-compiles it; raises
    CompileError with the MLIR diagnostics. `target`: 'cpu' (host memory),
    'sm_90' or 'sm_100' (a GPU program: device memory, a cuda context).
    Needs MLIR (libTECAPI, libte_py_jit); te.load runs programs compiled
    ahead of time without it."""
    return Program(source, target, options)


def has_compiler() -> bool:
    """True if te's C API and the JIT library can be loaded."""
    try:
        _load()
        return True
    except CompileError:
        return False
