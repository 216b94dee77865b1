"""te from Python: TransformerEngine-style quantization, dequantization and
quantized GEMMs on libte_rt (cpu and cuda backends), and te modules compiled
and run through the MLIR C API.

    import numpy as np, te
    x = np.random.default_rng(0).standard_normal((128, 256), np.float32)
    q = te.quantize(x, "#te.mxfp8<f8E4M3FN>")
    y = te.dequantize(q)

Programs: te.compile(source, target="cpu"|"sm_90"|"sm_100") (needs MLIR)
and te.load("prog.so") (compiled ahead of time; runtime only) run entries on
torch / CuPy / numpy arrays, sharing device memory through DLPack.

See docs/guide/python.md; PyTorch modules: te.torch (docs/guide/pytorch.md).
"""

try:  # the build's version, written by CMake next to this package
    from ._location import VERSION as __version__
except ImportError:  # a source tree
    __version__ = "0+unknown"

from .errors import (BackendUnavailableError, CompileError, Error,
                     InvalidArgumentError, OutOfMemoryError,
                     QuantizerSyntaxError, UnsupportedError)
from .compiler import Program, compile, has_compiler
from .program import Array, LoadedProgram, load
from .quantizer import Quantizer
from .runtime import (BufferInfo, Context, DeviceArray, QTensor, amax,
                      api_version, backend_available, default_context,
                      dequantize, gemm, quantize)

__all__ = [
    "Array", "BackendUnavailableError", "BufferInfo", "CompileError", "Context",
    "DeviceArray", "Error", "InvalidArgumentError", "LoadedProgram",
    "OutOfMemoryError", "Program", "QTensor", "Quantizer", "QuantizerSyntaxError",
    "UnsupportedError", "amax", "api_version", "backend_available",
    "compile", "default_context", "dequantize", "gemm", "has_compiler",
    "load", "quantize", "__version__",
]
