"""Quantizers in the te dialect's attribute syntax.

    quantizer ::= `#te.` recipe `<` element-type (`,` field `=` value)* `>`

Parsed by te-quantize's own parser (tools/te-quantize/QuantizerSyntax.cpp,
built into libte_py_syntax next to this package): the same syntax and error
messages. The fields of each recipe are listed in docs/guide/concepts.md. A
parsed quantizer is checked with te_rt_quantizer_verify, so a configuration
TransformerEngine rejects raises with the runtime's message.
"""

import ctypes

from . import _abi, _lib, _recipes
from .errors import QuantizerSyntaxError, check

_ELEMENT_NAMES = {_abi.E4M3: "f8E4M3FN", _abi.E5M2: "f8E5M2",
                  _abi.E2M1X2: "f4E2M1FN"}


def _parse_struct(text):
    syntax = _lib.load_syntax()
    # Space for fields a later te_rt_quantizer may append.
    size = max(syntax.te_py_quantizer_size(), ctypes.sizeof(_abi.Quantizer))
    raw = ctypes.create_string_buffer(size + 256)
    error = ctypes.create_string_buffer(512)
    if not syntax.te_py_parse_quantizer(text.encode("utf-8"), raw,
                                        len(raw), error, len(error)):
        raise QuantizerSyntaxError(error.value.decode("utf-8", "replace"))
    q = _abi.Quantizer()
    ctypes.memmove(ctypes.byref(q), raw, ctypes.sizeof(q))
    return q


class Quantizer:
    """A TransformerEngine quantizer: ``Quantizer("#te.mxfp8<f8E4M3FN>")``.

    Raises QuantizerSyntaxError for text that is not a quantizer and
    InvalidArgumentError (with the runtime's message) for a configuration
    that TransformerEngine does not accept.
    """

    def __init__(self, text):
        if isinstance(text, Quantizer):
            self.text, self._q = text.text, text._q
            return
        if not isinstance(text, str):
            raise TypeError("a quantizer is given as a string in the te "
                            "dialect's syntax, e.g. '#te.mxfp8<f8E4M3FN>'")
        q = _parse_struct(text)
        lib = _lib.load()
        check(lib, lib.te_rt_quantizer_verify(ctypes.byref(q)))
        self.text = text.strip()
        self._q = q

    @property
    def recipe(self):
        """'delayed', 'current', 'block', 'mxfp8' or 'nvfp4'."""
        return self._traits.name

    @property
    def element_type(self):
        """'f8E4M3FN', 'f8E5M2' or 'f4E2M1FN'."""
        return _ELEMENT_NAMES[self._q.dtype]

    @property
    def per_tensor(self):
        """True for the per-tensor FP8 recipes (delayed, current)."""
        return self._traits.per_tensor

    @property
    def default_target(self):
        """sm_100 for mxfp8 and nvfp4, else sm_90 (as te-quantize)."""
        return "sm_100" if self._traits.emulated_on_sm90 else "sm_90"

    @property
    def _traits(self):
        """The recipe's row of te/Format/Recipes.def (te/_recipes.py)."""
        return _recipes.TRAITS[self._q.recipe]

    def fields(self):
        """The te_rt_quantizer fields, as a dict."""
        return {name: getattr(self._q, name) for name, _ in self._q._fields_}

    def struct(self):
        """A copy of the te_rt_quantizer."""
        q = _abi.Quantizer()
        ctypes.pointer(q)[0] = self._q
        return q

    def __eq__(self, other):
        return isinstance(other, Quantizer) and \
            bytes(self._q) == bytes(other._q)

    def __hash__(self):
        return hash(bytes(self._q))

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"Quantizer({self.text!r})"
