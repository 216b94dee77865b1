"""TransformerEngine's recipe objects, as te quantizers.

The classes mirror ``transformer_engine.common.recipe`` (names, fields and
defaults; TE reads some defaults from ``NVTE_*`` environment variables when
the class is defined, and so do these). A recipe does not quantize anything
itself: :func:`quantizers` turns it into the te dialect's quantizer
attributes for the slots of a ``te.linear`` / ``te.linear_grad``
(docs/guide/concepts.md), checked by te's own parser
(:class:`te.Quantizer`).

    recipe = Float8CurrentScaling()                 # HYBRID: E4M3 / E5M2
    quantizers(recipe)["input"].text    # '#te.current<f8E4M3FN>'
    quantizers(recipe)["grad_output"]   # Quantizer('#te.current<f8E5M2>')

A TransformerEngine recipe instance (``transformer_engine.common.recipe``)
is accepted as well: only its class name and fields are read.
"""

from __future__ import annotations

import dataclasses
import enum
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, NamedTuple, Optional, Union

from ..errors import InvalidArgumentError
from ..quantizer import Quantizer

__all__ = [
    "DelayedScaling", "Float8BlockScaling", "Float8CurrentScaling", "Format",
    "MMParams", "MXFP8BlockScaling", "NVFP4BlockScaling", "QParams",
    "RecipeError", "Recipe", "quantizers",
]


class RecipeError(InvalidArgumentError):
    """A recipe te cannot honour, or a field value TransformerEngine
    rejects."""


class _FormatHelper(NamedTuple):
    max_fwd: float
    max_bwd: float


class Format(enum.Enum):
    """The FP8 / FP4 formats of a recipe: ``E4M3`` (448) both ways,
    ``HYBRID`` E4M3 forward and E5M2 backward, ``E5M2`` (rejected by every
    recipe, as in TE), ``E2M1`` (NVFP4)."""

    E2M1 = _FormatHelper(max_fwd=6, max_bwd=6)
    E4M3 = _FormatHelper(max_fwd=448, max_bwd=448)
    E5M2 = _FormatHelper(max_fwd=57344, max_bwd=57344)
    HYBRID = _FormatHelper(max_fwd=448, max_bwd=57344)


@dataclass(frozen=True)
class MMParams:
    """GEMM options: ``use_split_accumulator`` (FP8 GEMMs accumulate in
    fp32 outside the tensor cores' reduced-precision accumulator)."""

    use_split_accumulator: bool = True


@dataclass(frozen=True)
class QParams:
    """Per-tensor quantization parameters of a recipe."""

    power_2_scale: bool = False
    amax_epsilon: float = 0.0
    random_hadamard_transform: bool = False
    stochastic_rounding: bool = False
    fp4_2d_quantization: bool = False


def _env_flag(name: str) -> bool:
    return os.getenv(name, "0") == "1"


_BACKWARD_OVERRIDES = (None, "high_precision", "dequantized")
_NVFP4_SCOPES = ("none", "weights", "activations", "all")


def _check(cond: bool, message: str) -> None:
    if not cond:
        raise RecipeError(message)


class Recipe:
    """Base class of the recipes."""

    def _validate(self) -> None:  # pragma: no cover - overridden
        pass

    def __post_init__(self) -> None:
        self._validate()


def _common_checks(r) -> None:
    # By name: TransformerEngine's own Format enum is accepted too.
    name = getattr(r.fp8_format, "name", None)
    _check(name in Format.__members__,
           f"{type(r).__name__}.fp8_format must be a Format, got "
           f"{r.fp8_format!r}")
    _check(name != "E5M2",
           "Pure E5M2 training is not supported (fp8_format=Format.E5M2)")
    _check(r.backward_override in _BACKWARD_OVERRIDES,
           "backward_override must be None, 'high_precision' or "
           f"'dequantized', got {r.backward_override!r}")


@dataclass
class DelayedScaling(Recipe):
    """Delayed scaling: the scale comes from an amax history of
    ``amax_history_len`` steps (``amax_compute_algo`` 'max' or
    'most_recent'), ``scale = fp8_max / amax / 2**margin``."""

    margin: int = 0
    fp8_format: Format = Format.HYBRID
    amax_history_len: int = 1024
    amax_compute_algo: Union[str, Callable] = "max"
    scaling_factor_compute_algo: Optional[Callable] = None
    reduce_amax: bool = True
    fp8_dpa: bool = False
    fp8_mha: bool = False
    backward_override: Optional[str] = os.getenv("NVTE_BACKWARD_OVERRIDE",
                                                 None)

    def _validate(self) -> None:
        _common_checks(self)
        _check(self.backward_override is None,
               "Delayed scaling only supports backward_override=None")


@dataclass
class Float8CurrentScaling(Recipe):
    """Per-tensor current scaling: ``scale = fp8_max / amax`` of the tensor
    being quantized."""

    use_power_2_scales: bool = _env_flag(
        "NVTE_FP8_CURRENT_SCALING_POWER_2_SCALES")
    fp8_format: Format = Format.HYBRID
    fp8_quant_fwd_inp: QParams = field(default=None)  # type: ignore
    fp8_quant_fwd_weight: QParams = field(default=None)  # type: ignore
    fp8_quant_bwd_grad: QParams = field(default=None)  # type: ignore
    fp8_gemm_fprop: MMParams = MMParams(use_split_accumulator=False)
    fp8_gemm_dgrad: MMParams = MMParams(use_split_accumulator=True)
    fp8_gemm_wgrad: MMParams = MMParams(use_split_accumulator=True)
    fp8_dpa: bool = False
    fp8_mha: bool = False
    backward_override: Optional[str] = os.getenv("NVTE_BACKWARD_OVERRIDE",
                                                 None)

    def _validate(self) -> None:
        for name in ("fp8_quant_fwd_inp", "fp8_quant_fwd_weight",
                     "fp8_quant_bwd_grad"):
            if getattr(self, name) is None:
                setattr(self, name,
                        QParams(power_2_scale=self.use_power_2_scales))
        _common_checks(self)


@dataclass
class Float8BlockScaling(Recipe):
    """FP8 block scaling: 1x128 (dim 1) or 128x128 (dim 2) tiles with fp32
    scales, powers of 2 unless ``use_f32_scales``."""

    use_f32_scales: bool = _env_flag("NVTE_FP8_BLOCK_SCALING_FP32_SCALES")
    fp8_format: Format = Format.E4M3
    fp8_quant_fwd_inp: QParams = field(default=None)  # type: ignore
    fp8_quant_fwd_weight: QParams = field(default=None)  # type: ignore
    fp8_quant_bwd_grad: QParams = field(default=None)  # type: ignore
    x_block_scaling_dim: int = 1
    w_block_scaling_dim: int = 2
    grad_block_scaling_dim: int = 1
    fp8_gemm_fprop: MMParams = MMParams(use_split_accumulator=True)
    fp8_gemm_dgrad: MMParams = MMParams(use_split_accumulator=True)
    fp8_gemm_wgrad: MMParams = MMParams(use_split_accumulator=True)
    fp8_dpa: bool = False
    fp8_mha: bool = False
    backward_override: Optional[str] = os.getenv("NVTE_BACKWARD_OVERRIDE",
                                                 None)

    def _validate(self) -> None:
        for name in ("fp8_quant_fwd_inp", "fp8_quant_fwd_weight",
                     "fp8_quant_bwd_grad"):
            if getattr(self, name) is None:
                setattr(self, name,
                        QParams(power_2_scale=not self.use_f32_scales))
        for name in ("x", "w", "grad"):
            v = getattr(self, f"{name}_block_scaling_dim")
            _check(v in (1, 2), f"Only 1D or 2D blocks supported for {name} "
                   f"({name}_block_scaling_dim={v!r})")
        dims = (self.x_block_scaling_dim, self.w_block_scaling_dim,
                self.grad_block_scaling_dim)
        _check(sum(d == 2 for d in dims) <= 1,
               "2D by 2D block gemm not supported "
               f"(x/w/grad_block_scaling_dim = {dims})")
        for name in ("fprop", "dgrad", "wgrad"):
            _check(getattr(self, f"fp8_gemm_{name}").use_split_accumulator,
                   f"Split accumulator required for {name}")
        _check(not self.fp8_dpa and not self.fp8_mha,
               "FP8 attention is not supported for Float8BlockScaling")
        _common_checks(self)


@dataclass
class MXFP8BlockScaling(Recipe):
    """MXFP8: blocks of 32 values with an E8M0 (power of 2) scale."""

    margin: int = 0
    fp8_format: Format = Format.E4M3
    enable_2d_quantization: bool = False
    fp8_dpa: bool = False
    fp8_mha: bool = False
    backward_override: Optional[str] = os.getenv("NVTE_BACKWARD_OVERRIDE",
                                                 None)

    def _validate(self) -> None:
        _common_checks(self)


@dataclass
class NVFP4BlockScaling(Recipe):
    """NVFP4: blocks of 16 E2M1 values with an E4M3 scale and an fp32
    global scale; 16x16 weight blocks, random Hadamard transforms on the
    wgrad copies of inputs and gradients, stochastically rounded
    gradients, unless disabled."""

    disable_rht: bool = _env_flag("NVTE_NVFP4_DISABLE_RHT")
    disable_stochastic_rounding: bool = _env_flag(
        "NVTE_NVFP4_DISABLE_STOCHASTIC_ROUNDING")
    disable_2d_quantization: bool = _env_flag(
        "NVTE_NVFP4_DISABLE_2D_QUANTIZATION")
    row_scaled_activation: bool = _env_flag("NVTE_NVFP4_ROW_SCALED_ACTIVATION")
    nvfp4_4over6: str = os.getenv("NVTE_NVFP4_4OVER6", "none")
    nvfp4_4over6_e4m3_use_256: str = os.getenv(
        "NVTE_NVFP4_4OVER6_E4M3_USE_256", "all")
    nvfp4_4over6_err_mode: str = os.getenv("NVTE_NVFP4_4OVER6_ERR_MODE",
                                           "MAE").upper()
    fp4_format: Format = Format.E2M1
    fp8_format: Format = Format.E4M3
    fp8_dpa: bool = False
    fp8_mha: bool = False
    backward_override: Optional[str] = os.getenv("NVTE_BACKWARD_OVERRIDE",
                                                 None)

    def _validate(self) -> None:
        _check(self.fp4_format == Format.E2M1,
               "Only E2M1 is supported for NVFP4 scaling (fp4_format)")
        _check(self.fp8_format == Format.E4M3,
               "Only E4M3 is supported for NVFP4 scaling (fp8_format)")
        _check(self.backward_override in _BACKWARD_OVERRIDES,
               "backward_override must be None, 'high_precision' or "
               f"'dequantized', got {self.backward_override!r}")
        for name in ("nvfp4_4over6", "nvfp4_4over6_e4m3_use_256"):
            _check(getattr(self, name) in _NVFP4_SCOPES,
                   f"{name} must be one of {_NVFP4_SCOPES}, got "
                   f"{getattr(self, name)!r}")
        _check(self.nvfp4_4over6_err_mode in ("MAE", "MSE"),
               "nvfp4_4over6_err_mode must be 'MAE' or 'MSE', got "
               f"{self.nvfp4_4over6_err_mode!r}")


_CLASSES = {c.__name__: c for c in (DelayedScaling, Float8CurrentScaling,
                                    Float8BlockScaling, MXFP8BlockScaling,
                                    NVFP4BlockScaling)}


def _field(obj: Any, name: str, default: Any = None) -> Any:
    return getattr(obj, name, default)


def _fmt(fmt: Any, backward: bool) -> str:
    """The element type of a Format (ours or TE's, by name)."""
    name = getattr(fmt, "name", str(fmt))
    if name == "HYBRID":
        return "f8E5M2" if backward else "f8E4M3FN"
    if name == "E4M3":
        return "f8E4M3FN"
    raise RecipeError(f"fp8_format {name} is not supported (E4M3 or HYBRID)")


def _attr(kind: str, element: str, **fields: Any) -> str:
    parts = [element]
    for k, v in fields.items():
        if v is None:
            continue
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, float):
            v = repr(v)
        parts.append(f"{k} = {v}")
    return f"#te.{kind}<{', '.join(parts)}>"


def _per_tensor_fields(q: Any, default_pow2: bool) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    pow2 = bool(_field(q, "power_2_scale", default_pow2))
    if pow2 != default_pow2:
        out["pow2_scales"] = pow2
    eps = float(_field(q, "amax_epsilon", 0.0))
    if eps != 0.0:
        out["amax_epsilon"] = eps
    return out


def _texts(recipe: Any) -> Dict[str, str]:
    name = type(recipe).__name__
    if name not in _CLASSES:
        raise RecipeError(
            f"recipe {name} is not supported; use one of "
            f"{', '.join(sorted(_CLASSES))} (or None for no quantization)")
    if isinstance(recipe, Recipe):
        recipe._validate()
    elif name != "NVFP4BlockScaling":
        # TransformerEngine's own object: its fields, checked here.
        _common_checks(recipe)
    if _field(recipe, "fp8_dpa") or _field(recipe, "fp8_mha"):
        raise RecipeError(f"{name}: fp8_dpa / fp8_mha (FP8 attention) are "
                          "not supported by te's importer")
    if _field(recipe, "backward_override") is not None:
        raise RecipeError(f"{name}: backward_override="
                          f"{recipe.backward_override!r} is not supported")
    fmt = _field(recipe, "fp8_format")
    if name == "DelayedScaling":
        algo = recipe.amax_compute_algo
        if callable(algo) or algo not in ("max", "most_recent"):
            raise RecipeError("DelayedScaling.amax_compute_algo must be "
                              f"'max' or 'most_recent', got {algo!r}")
        if recipe.scaling_factor_compute_algo is not None:
            raise RecipeError("DelayedScaling.scaling_factor_compute_algo "
                              "(a callable) is not supported")
        common = dict(margin=recipe.margin or None,
                      history=(recipe.amax_history_len
                               if recipe.amax_history_len != 1024 else None),
                      algo=None if algo == "max" else algo)
        fwd = _attr("delayed", _fmt(fmt, False), **common)
        return {"input": fwd, "weight": fwd,
                "grad_output": _attr("delayed", _fmt(fmt, True), **common)}
    if name == "Float8CurrentScaling":
        return {
            "input": _attr("current", _fmt(fmt, False), **_per_tensor_fields(
                recipe.fp8_quant_fwd_inp, False)),
            "weight": _attr("current", _fmt(fmt, False), **_per_tensor_fields(
                recipe.fp8_quant_fwd_weight, False)),
            "grad_output": _attr("current", _fmt(fmt, True),
                                 **_per_tensor_fields(
                                     recipe.fp8_quant_bwd_grad, False)),
        }
    if name == "Float8BlockScaling":
        def block(q, dims, bwd):
            return _attr("block", _fmt(fmt, bwd),
                         dims=dims if dims != 1 else None,
                         **_per_tensor_fields(q, True))
        return {
            "input": block(recipe.fp8_quant_fwd_inp,
                           recipe.x_block_scaling_dim, False),
            "weight": block(recipe.fp8_quant_fwd_weight,
                            recipe.w_block_scaling_dim, False),
            "grad_output": block(recipe.fp8_quant_bwd_grad,
                                 recipe.grad_block_scaling_dim, True),
        }
    if name == "MXFP8BlockScaling":
        two_d = bool(_field(recipe, "enable_2d_quantization", False))
        return {"input": _attr("mxfp8", _fmt(fmt, False)),
                "weight": _attr("mxfp8", _fmt(fmt, False),
                                block_2d=True if two_d else None),
                "grad_output": _attr("mxfp8", _fmt(fmt, True))}
    # NVFP4BlockScaling
    scope = recipe.nvfp4_4over6
    use256 = recipe.nvfp4_4over6_e4m3_use_256

    def four_six(kind):
        on = scope == "all" or scope == kind
        if not on:
            return {}
        out: Dict[str, Any] = {"four_over_six": True}
        if use256 == "all" or use256 == kind:
            out["e4m3_max"] = 256.0
        if recipe.nvfp4_4over6_err_mode == "MSE":
            out["err_mode"] = "mse"
        return out

    rht = not recipe.disable_rht
    return {
        "input": _attr("nvfp4", "f4E2M1FN", rht=rht or None,
                       row_scaled=recipe.row_scaled_activation or None,
                       **four_six("activations")),
        "weight": _attr("nvfp4", "f4E2M1FN",
                        block_2d=(not recipe.disable_2d_quantization) or None,
                        **four_six("weights")),
        "grad_output": _attr(
            "nvfp4", "f4E2M1FN", rht=rht or None,
            stochastic_rounding=(not recipe.disable_stochastic_rounding)
            or None),
    }


def quantizers(recipe: Any) -> Dict[str, Quantizer]:
    """The te quantizers of `recipe` for the slots ``input``, ``weight``
    (``te.linear``) and ``grad_output`` (``te.linear_grad``), each parsed
    and verified by te (a combination te rejects raises with its
    message)."""
    texts = _texts(recipe)
    return {slot: Quantizer(text) for slot, text in texts.items()}


def describe(recipe: Any) -> str:
    """A stable text of the recipe's class and field values (a cache key)."""
    if dataclasses.is_dataclass(recipe):
        fields = {f.name: getattr(recipe, f.name)
                  for f in dataclasses.fields(recipe)}
    else:
        fields = dict(vars(recipe))
    return f"{type(recipe).__name__}({fields!r})"
