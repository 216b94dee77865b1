"""Exceptions carrying libte_rt's messages (te_rt_last_error)."""

from . import _abi


class Error(RuntimeError):
    """A failing te_rt call: ``status`` is the te_rt_status value,
    ``status_name`` its name, str() the runtime's one-line message."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.status_name = _abi.STATUS_NAMES.get(status, "UNKNOWN") \
            if status is not None else None


class InvalidArgumentError(Error, ValueError):
    """TE_RT_INVALID_ARGUMENT: bad shape, size, dtype, combination..."""


class UnsupportedError(Error):
    """TE_RT_UNSUPPORTED: valid, but not implemented or not allowed."""


class BackendUnavailableError(Error):
    """TE_RT_BACKEND_UNAVAILABLE: e.g. cuda without a GPU."""


class OutOfMemoryError(Error, MemoryError):
    """TE_RT_OUT_OF_MEMORY."""


class QuantizerSyntaxError(ValueError):
    """Text that is not a quantizer in the te dialect's syntax."""


class CompileError(RuntimeError):
    """A te module that does not parse, verify or lower; str() holds the
    MLIR diagnostics."""


_CLASSES = {1: InvalidArgumentError, 2: UnsupportedError,
            3: OutOfMemoryError, 4: BackendUnavailableError}


def check(lib, status):
    """Raises the exception of a failing te_rt status with its message."""
    if status == _abi.OK:
        return
    message = lib.te_rt_last_error().decode("utf-8", "replace")
    if not message:
        message = lib.te_rt_status_string(status).decode()
    lib.te_rt_clear_error()
    raise _CLASSES.get(status, Error)(message, status)
