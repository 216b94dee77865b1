"""Tracing a PyTorch module into an ATen FX graph (the importer's input).

``trace(module, example_inputs)`` returns a :class:`Traced`: a
``torch.fx.GraphModule`` whose ``call_function`` targets are ATen
OpOverloads, functional (no in-place ops), each node's ``meta["te_shape"]``
/ ``meta["te_dtype"]`` filled in, and ``meta["te_module"]`` naming the
qualified path of the module that produced it. Placeholders: the module's
parameters, then its buffers (in ``named_parameters`` / ``named_buffers``
order, tied tensors once), then the user inputs.

Producer: ``make_fx(functionalize(f))`` where ``f`` calls the module through
``functional_call`` (torch 1.13 and 2.x). SDPA calls (the private
``F._scaled_dot_product_attention`` of torch 1.13, the public one of 2.x)
are recorded as one ``te_torch::attention`` op instead of their math.
"""

from __future__ import annotations

import contextlib
import math
from typing import List, Optional, Sequence, Tuple

import torch
import torch.fx
import torch.nn.functional as F

from .errors import ImportError_


def _functionalize():
    try:
        from torch.func import functionalize  # torch >= 2.0
        return functionalize
    except ImportError:
        from functorch.experimental import functionalize  # torch 1.13
        return functionalize


def _functional_call():
    try:
        from torch.func import functional_call  # torch >= 2.0
        return functional_call
    except ImportError:
        from torch.nn.utils.stateless import functional_call
        return functional_call


# --- SDPA as one op ----------------------------------------------------------

_LIB = None


def _attention_math(q, k, v, mask, causal: bool, scale: Optional[float]):
    """PyTorch SDPA's semantics (boolean mask: true = the key takes part),
    in the inputs' type, for tracing only."""
    L, S, E = q.shape[-2], k.shape[-2], q.shape[-1]
    s = (1.0 / math.sqrt(E)) if scale is None else scale
    hq, hk = q.shape[-3], k.shape[-3]
    if hq != hk:
        k = k.repeat_interleave(hq // hk, dim=-3)
        v = v.repeat_interleave(hq // hk, dim=-3)
    att = torch.matmul(q, k.transpose(-2, -1)) * s
    if causal:
        keep = torch.ones(L, S, dtype=torch.bool, device=q.device).tril()
        att = att.masked_fill(~keep, float("-inf"))
    if mask is not None:
        if mask.dtype == torch.bool:
            att = att.masked_fill(~mask, float("-inf"))
        else:
            att = att + mask
    p = torch.softmax(att, dim=-1)
    p = torch.nan_to_num(p, nan=0.0)  # a row with no key: output 0
    return torch.matmul(p, v)


def _library():
    global _LIB
    if _LIB is None:
        lib = torch.library.Library("te_torch", "DEF")
        lib.define("attention(Tensor q, Tensor k, Tensor v, Tensor? mask, "
                   "bool causal, float? scale) -> Tensor")
        lib.impl("attention", _attention_math, "CompositeExplicitAutograd")
        _LIB = lib
    return _LIB


def attention_op():
    """torch.ops.te_torch.attention (registered on first use)."""
    _library()
    return torch.ops.te_torch.attention.default


class _SdpaRefused(Exception):
    pass


def _private_sdpa(query, key, value, attn_mask=None, dropout_p=0.0,
                  need_attn_weights=False, is_causal=False):
    """torch 1.13's F._scaled_dot_product_attention, as te_torch.attention
    (its boolean masks mean "takes part" where true, as 2.x's)."""
    if dropout_p:
        raise ImportError_("_scaled_dot_product_attention",
                           f"dropout_p={dropout_p} (dropout in training "
                           "mode has no te equivalent; call model.eval())")
    if need_attn_weights:
        raise ImportError_("_scaled_dot_product_attention",
                           "need_attn_weights=True (te.attention returns "
                           "no probabilities)")
    return attention_op()(query, key, value, attn_mask, bool(is_causal),
                          None), None


def _public_sdpa(query, key, value, attn_mask=None, dropout_p=0.0,
                 is_causal=False, scale=None, **kwargs):
    if dropout_p:
        raise ImportError_("scaled_dot_product_attention",
                           f"dropout_p={dropout_p} (dropout in training "
                           "mode has no te equivalent; call model.eval())")
    if kwargs.get("enable_gqa") is False and query.shape[-3] != \
            key.shape[-3]:
        raise ImportError_("scaled_dot_product_attention",
                           "grouped-query heads without enable_gqa=True")
    return attention_op()(query, key, value, attn_mask, bool(is_causal),
                          scale)


@contextlib.contextmanager
def _patched_sdpa():
    saved = {}
    for name, repl in (("_scaled_dot_product_attention", _private_sdpa),
                       ("scaled_dot_product_attention", _public_sdpa)):
        if hasattr(F, name):
            saved[name] = getattr(F, name)
            setattr(F, name, repl)
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(F, name, fn)


# --- module paths on nodes ---------------------------------------------------


@contextlib.contextmanager
def _module_paths(module: torch.nn.Module):
    """Stamps each node created while a submodule runs with its path."""
    stack: List[str] = []
    handles = []
    for name, sub in module.named_modules():
        def pre(_m, _a, name=name):
            stack.append(name)

        def post(_m, _a, _o):
            stack.pop()
        handles.append(sub.register_forward_pre_hook(pre))
        handles.append(sub.register_forward_hook(post))
    original = torch.fx.Graph.create_node

    def create_node(self, *args, **kwargs):
        node = original(self, *args, **kwargs)
        path = next((p for p in reversed(stack) if p), "")
        node.meta["te_module"] = path
        return node

    torch.fx.Graph.create_node = create_node
    try:
        yield
    finally:
        torch.fx.Graph.create_node = original
        for h in handles:
            h.remove()


# --- the traced program ------------------------------------------------------


class Traced:
    """A traced module: ``gm`` (the GraphModule), ``param_names`` (the
    placeholders that are parameters and buffers, in order),
    ``num_inputs``."""

    def __init__(self, gm, param_names, params, num_inputs, single_output):
        self.gm = gm
        self.single_output = single_output
        self.param_names = param_names
        self.params = params
        self.num_inputs = num_inputs


def module_parameters(module: torch.nn.Module
                      ) -> Tuple[List[str], List[torch.Tensor]]:
    """Parameters then buffers, by qualified name, each tensor once."""
    names, tensors, seen = [], [], set()
    for name, t in list(module.named_parameters()) + \
            list(module.named_buffers()):
        if id(t) in seen:
            continue
        seen.add(id(t))
        names.append(name)
        tensors.append(t)
    return names, tensors


def _fill_meta(gm: torch.fx.GraphModule, args: Sequence[torch.Tensor]):
    """Runs the graph on `args`, recording each node's shape and dtype."""

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            if isinstance(out, torch.Tensor):
                n.meta["te_shape"] = tuple(out.shape)
                n.meta["te_dtype"] = out.dtype
            elif isinstance(out, (tuple, list)):
                n.meta["te_shape"] = tuple(
                    tuple(o.shape) if isinstance(o, torch.Tensor) else None
                    for o in out)
                n.meta["te_dtype"] = tuple(
                    o.dtype if isinstance(o, torch.Tensor) else None
                    for o in out)
            return out

    with torch.no_grad():
        return Recorder(gm).run(*args)


def trace(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor]
          ) -> Traced:
    """The ATen graph of ``module(*example_inputs)`` (see the module
    docstring)."""
    from torch.fx.experimental.proxy_tensor import make_fx
    names, tensors = module_parameters(module)
    functional_call = _functional_call()
    inputs = list(example_inputs)

    def f(params, *xs):
        return functional_call(module, dict(zip(names, params)), tuple(xs))

    detached = [t.detach() for t in tensors]
    _library()
    with torch.no_grad(), _patched_sdpa(), _module_paths(module):
        gm = make_fx(_functionalize()(f))(detached, *inputs)
    gm.graph.eliminate_dead_code()
    gm.recompile()
    _fill_meta(gm, detached + inputs)
    with torch.no_grad(), _patched_sdpa():
        single = isinstance(f(detached, *inputs), torch.Tensor)
    return Traced(gm, names, detached, len(inputs), single)
