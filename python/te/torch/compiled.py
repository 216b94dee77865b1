"""``te.torch.compile``: a module imported, compiled and called on torch
tensors."""

from __future__ import annotations

from typing import Any, List, Sequence

import numpy as np
import torch

from .. import compiler
from .errors import InputError
from .importer import Dyn, ImportedModule, import_module

_NUMPY = {"f32": np.float32, "f16": np.float16, "i64": np.int64,
          "i32": np.int32, "i1": np.bool_}
_TORCH = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16,
          "i64": torch.int64, "i32": torch.int32, "i1": torch.bool}


def _to_numpy(t: torch.Tensor, et: str) -> np.ndarray:
    t = t.detach().cpu()
    if et == "bf16":
        # bf16 values are exact in float32; the harness rounds (exactly)
        # to bf16 bit patterns.
        return t.to(torch.bfloat16).to(torch.float32).contiguous().numpy()
    return t.to(_TORCH[et]).contiguous().numpy()


def _to_torch(a: Any, et: str) -> torch.Tensor:
    if isinstance(a, torch.Tensor):  # te's result buffer, shared (DLPack)
        return a.to(_TORCH[et])
    t = torch.from_numpy(np.ascontiguousarray(a))
    return t.to(_TORCH[et])


def _argument(t: torch.Tensor, et: str, gpu: bool) -> Any:
    """A program argument: the tensor itself (passed in place through
    DLPack) when it has the program's dtype, is contiguous and lives where
    the program runs (host memory for target cpu, the GPU for sm_90 /
    sm_100); else a converted copy."""
    t = t.detach()
    if gpu:
        return t.to(device="cuda", dtype=_TORCH[et]).contiguous()
    if t.device.type == "cpu":
        return t.to(_TORCH[et]).contiguous()
    return _to_numpy(t, et)


class CompiledModule:
    """A callable running the module's te program: ``fn(*inputs)`` with
    torch tensors shaped like the example inputs (the batch may differ when
    imported with a dynamic batch); the module's current parameters are
    passed at each call. ``imported`` is the ImportedModule, ``program``
    the te.Program."""

    def __init__(self, module: torch.nn.Module, imported: ImportedModule,
                 program: compiler.Program):
        self.module = module
        self.imported = imported
        self.program = program
        params = dict(module.named_parameters())
        params.update(dict(module.named_buffers()))
        self._params = [params[n] for n in imported.param_names]
        _, res = program.signature("main")
        self._result_types = [r.dtype for r in res]
        self._arg_ets = [et for _, et in imported.input_specs]
        args, _ = program.signature("main")
        self._param_ets = [_et_of_spec(s) for s in
                           args[:len(imported.param_names)]]

    @property
    def text(self) -> str:
        """The te module (MLIR text)."""
        return self.imported.text

    def __call__(self, *inputs: torch.Tensor) -> Any:
        imp = self.imported
        if len(inputs) != imp.num_inputs:
            raise InputError(f"the compiled module takes {imp.num_inputs} "
                             f"input(s), got {len(inputs)}")
        gpu = self.program.target != "cpu"
        args: List[Any] = []
        for p, et in zip(self._params, self._param_ets):
            args.append(_argument(p, et, gpu))
        batch = None
        for i, (x, (shape, et)) in enumerate(zip(inputs, imp.input_specs)):
            if not isinstance(x, torch.Tensor):
                raise InputError(f"input {i} is not a torch.Tensor")
            if x.dim() != len(shape):
                raise InputError(
                    f"input {i}: expected a rank-{len(shape)} tensor "
                    f"(shape {_fmt(shape)}), got rank {x.dim()} "
                    f"{tuple(x.shape)}")
            for d, (want, got) in enumerate(zip(shape, x.shape)):
                if isinstance(want, Dyn):
                    b, r = divmod(got, want.coeff)
                    if r or (batch is not None and b != batch):
                        raise InputError(
                            f"input {i}: dimension {d} is the batch, "
                            f"{got} disagrees with the other inputs' "
                            f"{batch}")
                    batch = b
                elif want != got:
                    raise InputError(
                        f"input {i}: expected shape {_fmt(shape)}, got "
                        f"{tuple(x.shape)} (dimension {d})")
            args.append(_argument(x, et, gpu))
        for rows, where in imp.linear_rows:
            if (batch * rows) % 8:
                raise InputError(
                    f"the recipe's quantized linear in module '{where}' "
                    "needs its flattened leading dimensions divisible by 8 "
                    "(TransformerEngine's FP8 GEMM rule), got "
                    f"{batch * rows} at batch {batch}")
        out = self.program.run("main", *args)
        outs = out if isinstance(out, tuple) else (out,)
        res = tuple(_to_torch(o, et) for o, (_, et) in
                    zip(outs, imp.output_specs))
        return res[0] if imp.single_output else res


def _et_of_spec(spec) -> str:
    return {"float32": "f32", "bfloat16": "bf16", "float16": "f16",
            "int64": "i64", "int32": "i32", "bool": "i1"}[spec.dtype]


def _fmt(shape) -> str:
    return "(" + ", ".join("batch" + (f"*{d.coeff}" if d.coeff != 1 else "")
                           if isinstance(d, Dyn) else str(d)
                           for d in shape) + ")"


def compile(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor],
            recipe: Any = None, target: str = "cpu",
            dynamic_batch: bool = True, options: str = "") -> CompiledModule:
    """Imports `module` (``import_module``), compiles the te program for
    `target` (``te.compile``: 'cpu', or 'sm_90' / 'sm_100' for CUDA
    tensors) and returns a CompiledModule to call on torch tensors, which
    it passes in place (DLPack) when they have the program's dtypes."""
    imported = import_module(module, example_inputs, recipe=recipe,
                             dynamic_batch=dynamic_batch)
    program = compiler.compile(imported.text, target=target, options=options)
    return CompiledModule(module, imported, program)
