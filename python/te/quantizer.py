"""Quantizers in the te dialect's attribute syntax.

    quantizer ::= `#te.` recipe `<` element-type (`,` field `=` value)* `>`

The same syntax and error messages as te-quantize
(tools/te-quantize/QuantizerSyntax.cpp); the fields of each recipe are listed
in docs/guide/concepts.md. A parsed quantizer is checked with
te_rt_quantizer_verify, so a configuration TransformerEngine rejects raises
with the runtime's message.
"""

import ctypes
import re

import numpy as np

from . import _abi, _lib
from .errors import QuantizerSyntaxError, check

_RECIPES = {
    "delayed": _abi.RECIPE_DELAYED,
    "current": _abi.RECIPE_CURRENT,
    "block": _abi.RECIPE_BLOCK,
    "mxfp8": _abi.RECIPE_MXFP8,
    "nvfp4": _abi.RECIPE_NVFP4,
}
RECIPE_NAMES = {v: k for k, v in _RECIPES.items()}
_ELEMENT_TYPES = {"f8E4M3FN": _abi.E4M3, "f8E5M2": _abi.E5M2,
                  "f4E2M1FN": _abi.E2M1X2}
_ELEMENT_NAMES = {v: k for k, v in _ELEMENT_TYPES.items()}

_INT_LIMIT = 1 << 30


class _Lexer:
    def __init__(self, s):
        self.s = s
        self.i = 0

    def skip(self):
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def eat(self, c):
        self.skip()
        if self.i < len(self.s) and self.s[self.i] == c:
            self.i += 1
            return True
        return False

    def word(self):
        """[A-Za-z_][A-Za-z0-9_]* or a number-ish [0-9A-Za-z.+-]*."""
        self.skip()
        s, b = self.s, self.i
        if self.i < len(s) and (_isalpha(s[self.i]) or s[self.i] == "_"):
            while self.i < len(s) and (_isalnum(s[self.i]) or s[self.i] == "_"):
                self.i += 1
        else:
            while self.i < len(s) and (_isalnum(s[self.i]) or s[self.i] in ".+-"):
                self.i += 1
        return s[b:self.i]

    def at_end(self):
        self.skip()
        return self.i >= len(self.s)


def _isalpha(c):
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


def _isalnum(c):
    return _isalpha(c) or ("0" <= c <= "9")


def _parse_bool(v):
    return {"true": 1, "false": 0}.get(v)


_C_INT = re.compile(r"([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)\Z")


def _parse_int(v):
    """strtoll(v, 0): decimal, 0x hex or 0 octal; None if not all of v."""
    m = _C_INT.match(v)
    if not m:
        return None
    digits = m.group(2)
    if digits[:2] in ("0x", "0X"):
        n = int(digits, 16)
    elif len(digits) > 1 and digits[0] == "0":
        n = int(digits, 8)
    else:
        n = int(digits)
    n = -n if m.group(1) == "-" else n
    if not -(1 << 63) <= n < (1 << 63):
        return None
    return n


_C_FLOAT = re.compile(
    r"[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?"
    r"|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?\d+)?"
    r"|inf(inity)?|nan)\Z", re.IGNORECASE)


def _parse_float(v):
    """strtod(v) rounded to float32; None if not all of v, out of range, or
    exactly 'inf' / 'nan'."""
    if not v or v in ("inf", "nan") or not _C_FLOAT.match(v):
        return None
    body = v.lstrip("+-")
    if body[:2] in ("0x", "0X"):
        mant = body if ("p" in body or "P" in body) else body + "p0"
        d = float.fromhex(("-" if v.startswith("-") else "") + mant)
    else:
        d = float(v)
    finite = not re.search(r"inf|nan", v, re.IGNORECASE)
    if finite and d in (float("inf"), float("-inf")):
        return None  # ERANGE
    mantissa = re.split(r"[eEpP]", body[2:] if body[:2] in ("0x", "0X")
                        else body)[0]
    if finite and d == 0.0 and re.search(r"[1-9a-fA-F]", mantissa):
        return None  # underflow: ERANGE
    return float(np.float32(d))


def _parse_struct(text):
    lib = _lib.load()
    q = _abi.Quantizer()
    lib.te_rt_quantizer_init_default(ctypes.byref(q))
    lx = _Lexer(text)
    lx.skip()
    if not text.startswith("#te.", lx.i):
        raise QuantizerSyntaxError(
            "a quantizer starts with '#te.', e.g. '#te.mxfp8<f8E4M3FN>'")
    lx.i += 4
    recipe = lx.word()
    attr = "#te." + recipe
    if recipe not in _RECIPES:
        raise QuantizerSyntaxError(
            f"unknown quantizer '{attr}' (expected delayed, current, block, "
            "mxfp8 or nvfp4)")
    q.recipe = r = _RECIPES[recipe]
    if r == _abi.RECIPE_BLOCK:
        q.pow2_scales = 1  # TE's Float8BlockQuantizer default
    if not lx.eat("<"):
        raise QuantizerSyntaxError(f"expected '<' after '{attr}'")
    elem = lx.word()
    if elem in _ELEMENT_TYPES:
        q.dtype = _ELEMENT_TYPES[elem]
    elif not elem:
        raise QuantizerSyntaxError(f"expected an element type after '{attr}<'")
    else:
        raise QuantizerSyntaxError(
            f"unknown element type '{elem}' in {attr} (expected f8E4M3FN, "
            "f8E5M2 or f4E2M1FN)")
    mask_given = False
    seen = set()
    while lx.eat(","):
        key = lx.word()
        if not key:
            raise QuantizerSyntaxError(
                f"expected a field name after ',' in {attr}")
        if not lx.eat("="):
            raise QuantizerSyntaxError(f"expected '=' after '{key}' in {attr}")
        v = lx.word()
        if not v:
            raise QuantizerSyntaxError(
                f"expected a value for '{key}' in {attr}")
        if key in seen:
            raise QuantizerSyntaxError(
                f"field '{key}' is given twice in {attr}")
        seen.add(key)

        def bad(what):
            return QuantizerSyntaxError(
                f"field '{key}' of {attr} expects {what}, got '{v}'")

        def integer():
            n = _parse_int(v)
            if n is None or not -_INT_LIMIT <= n <= _INT_LIMIT:
                raise bad("an integer")
            return n

        def boolean():
            b = _parse_bool(v)
            if b is None:
                raise bad("true or false")
            return b

        def real():
            f = _parse_float(v)
            if f is None:
                raise bad("a float")
            return f

        def keyword(choices, what):
            if v not in choices:
                raise bad(what)
            return choices[v]

        D, C, B, M, N = (_abi.RECIPE_DELAYED, _abi.RECIPE_CURRENT,
                         _abi.RECIPE_BLOCK, _abi.RECIPE_MXFP8,
                         _abi.RECIPE_NVFP4)
        if r == D and key == "margin":
            q.margin = integer()
        elif r == D and key == "history":
            q.history_length = integer()
        elif r == D and key == "algo":
            q.amax_algo = keyword({"max": _abi.AMAX_MAX,
                                   "most_recent": _abi.AMAX_MOST_RECENT},
                                  "max or most_recent")
        elif r in (C, B) and key == "pow2_scales":
            q.pow2_scales = boolean()
        elif r in (C, B) and key == "amax_epsilon":
            q.amax_epsilon = real()
        elif r == B and key == "dims":
            q.block_dim = integer()
        elif r == M and key == "block_2d":
            q.mx_2d = boolean()
        elif r == M and key == "e8m0_rounding":
            q.e8m0_rounding = keyword({"up": _abi.E8M0_UP,
                                       "floor": _abi.E8M0_FLOOR},
                                      "up or floor")
        elif r == N and key == "rht":
            q.rht = boolean()
        elif r == N and key == "rht_sign_mask":
            n = _parse_int(v)
            if n is None or not 0 <= n <= 0xFFFFFFFF:
                raise bad("a non-negative integer")
            q.rht_sign_mask = n
            mask_given = True
        elif r == N and key == "block_2d":
            q.nvfp4_2d = boolean()
        elif r == N and key == "stochastic_rounding":
            q.stochastic_rounding = boolean()
        elif r == N and key == "row_scaled":
            q.row_scaled = boolean()
        elif r == N and key == "four_over_six":
            q.use_4over6 = boolean()
        elif r == N and key == "e4m3_max":
            q.e4m3_max = real()
        elif r == N and key == "err_mode":
            q.err_mode = keyword({"mae": _abi.ERR_MAE, "mse": _abi.ERR_MSE},
                                 "mae or mse")
        else:
            raise QuantizerSyntaxError(f"unknown field '{key}' of {attr}")
    if not lx.eat(">"):
        raise QuantizerSyntaxError(f"expected ',' or '>' in {attr}")
    if not lx.at_end():
        raise QuantizerSyntaxError(
            f"unexpected text after the quantizer: '{text[lx.i:]}'")
    # The dialect's rht_sign_mask defaults to TE's 0xD7E8 and only means
    # something with the RHT.
    if r == _abi.RECIPE_NVFP4 and q.rht and not mask_given:
        q.rht_sign_mask = 0xD7E8
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
        return RECIPE_NAMES[self._q.recipe]

    @property
    def element_type(self):
        """'f8E4M3FN', 'f8E5M2' or 'f4E2M1FN'."""
        return _ELEMENT_NAMES[self._q.dtype]

    @property
    def per_tensor(self):
        """True for the per-tensor FP8 recipes (delayed, current)."""
        return self._q.recipe in (_abi.RECIPE_DELAYED, _abi.RECIPE_CURRENT)

    @property
    def default_target(self):
        """sm_100 for mxfp8 and nvfp4, else sm_90 (as te-quantize)."""
        return "sm_100" if self._q.recipe in (_abi.RECIPE_MXFP8,
                                              _abi.RECIPE_NVFP4) else "sm_90"

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
