"""From an ATen FX graph to a te module (MLIR text).

``import_module(module, example_inputs, recipe=None)`` traces the module
(see ``_trace``) and emits one entry function ``@main``: the parameters and
buffers first (``ImportedModule.param_names``), then the user inputs; the
results are the module's outputs. Dimension 0 of the user inputs is the
batch: it is dynamic (``?``) in the entry's types, and so is every size that
scales with it (found by tracing the module at two batch sizes).

Ops are emitted as te's examples write them: ``te.linear`` for the
``nn.Linear``-shaped products when a recipe is given (else
``linalg.matmul``), ``te.attention`` for SDPA, ``linalg.generic`` for
elementwise ops and reductions, ``linalg.softmax``, ``linalg.transpose``,
``linalg.batch_matmul`` and ``tensor.collapse_shape`` / ``expand_shape``.
See docs/guide/pytorch.md for the table of ops.
"""

from __future__ import annotations

import math
import operator
import struct
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import torch

from . import _trace
from .errors import UnsupportedOpError
from .recipe import RecipeError, quantizers

aten = torch.ops.aten

# --- sizes: static ints or multiples of the batch ----------------------------


class Dyn:
    """A size that is ``coeff`` times the batch."""

    __slots__ = ("coeff",)

    def __init__(self, coeff: int):
        self.coeff = coeff

    def __eq__(self, other):
        return isinstance(other, Dyn) and other.coeff == self.coeff

    def __hash__(self):
        return hash(("dyn", self.coeff))

    def __repr__(self):
        return f"Dyn({self.coeff})"


Size = Union[int, Dyn]

_DTYPES = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16",
           torch.int64: "i64", torch.int32: "i32", torch.bool: "i1"}
_FLOATS = ("f32", "bf16", "f16")


def _key(s: Size) -> Tuple[int, int]:
    return (s.coeff, 1) if isinstance(s, Dyn) else (s, 0)


def _prod(sizes: Sequence[Size]) -> Tuple[int, int]:
    c, k = 1, 0
    for s in sizes:
        a, b = _key(s)
        c *= a
        k += b
    return c, k


def _ty(shape: Sequence[Size], et: str) -> str:
    dims = "".join(("?" if isinstance(d, Dyn) else str(d)) + "x"
                   for d in shape)
    return f"tensor<{dims}{et}>"


def _fconst(v: float, et: str) -> str:
    """An exact float literal of type `et` (hex bits)."""
    if et == "f32":
        return "0x%08X" % struct.unpack("<I", struct.pack("<f", v))[0]
    if et == "f16":
        return "0x%04X" % struct.unpack("<H", struct.pack("<e", v))[0]
    if et == "bf16":
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # nearest even
        if math.isnan(v):
            bits = 0x7FC0
        return "0x%04X" % bits
    raise ValueError(et)


class Value:
    """An SSA tensor value: name, shape, element type."""

    __slots__ = ("name", "shape", "et")

    def __init__(self, name: str, shape: Sequence[Size], et: str):
        self.name, self.shape, self.et = name, tuple(shape), et

    @property
    def type(self) -> str:
        return _ty(self.shape, self.et)

    @property
    def rank(self) -> int:
        return len(self.shape)


def _amap(n: int, exprs: Sequence[str]) -> str:
    dims = ", ".join(f"d{i}" for i in range(n))
    return f"affine_map<({dims}) -> ({', '.join(exprs)})>"


class _Emitter:
    def __init__(self):
        self.lines: List[str] = []
        self.counter = 0
        self.batch: Optional[str] = None
        self._dims: Dict[int, str] = {}
        self._consts: Dict[Tuple[str, str], str] = {}

    def fresh(self, base: str = "v") -> str:
        self.counter += 1
        return f"%{base}{self.counter}"

    def emit(self, text: str) -> None:
        for line in text.split("\n"):
            self.lines.append("    " + line)

    def index(self, value: int) -> str:
        key = (str(value), "index")
        if key not in self._consts:
            n = self.fresh("c")
            self.emit(f"{n} = arith.constant {value} : index")
            self._consts[key] = n
        return self._consts[key]

    def dim(self, s: Size) -> str:
        """An index SSA value (or literal) of a size, for output_shape."""
        if not isinstance(s, Dyn):
            return str(s)
        return self.dyn(s)

    def dyn(self, s: Dyn) -> str:
        if s.coeff == 1:
            return self.batch
        if s.coeff not in self._dims:
            n = self.fresh("d")
            self.emit(f"{n} = arith.muli {self.batch}, "
                      f"{self.index(s.coeff)} : index")
            self._dims[s.coeff] = n
        return self._dims[s.coeff]

    def empty(self, shape: Sequence[Size], et: str) -> str:
        n = self.fresh("e")
        dyn = [self.dyn(d) for d in shape if isinstance(d, Dyn)]
        self.emit(f"{n} = tensor.empty({', '.join(dyn)}) : {_ty(shape, et)}")
        return n

    def filled(self, shape: Sequence[Size], et: str, value: float) -> str:
        e = self.empty(shape, et)
        c = self.fresh("f")
        self.emit(f"{c} = arith.constant {_fconst(value, et)} : {et}")
        n = self.fresh("z")
        self.emit(f"{n} = linalg.fill ins({c} : {et}) outs({e} : "
                  f"{_ty(shape, et)}) -> {_ty(shape, et)}")
        return n

    def generic(self, ins: Sequence[Tuple[str, str, str, str]],
                outs: Sequence[Tuple[str, str, str, str]],
                iters: Sequence[str], body: str) -> List[str]:
        """ins/outs: (ssa, type, element type, indexing map); the body uses
        %a0.. (ins then outs) and ends with linalg.yield."""
        res = [self.fresh("g") for _ in outs]
        maps = ", ".join(m for *_, m in list(ins) + list(outs))
        its = ", ".join(f'"{i}"' for i in iters)
        args = ", ".join(f"%a{i}: {et}" for i, (_, _, et, _) in
                         enumerate(list(ins) + list(outs)))
        text = (f"{', '.join(res)} = linalg.generic {{indexing_maps = "
                f"[{maps}], iterator_types = [{its}]}}\n")
        if ins:
            text += (f"    ins({', '.join(v for v, *_ in ins)} : "
                     f"{', '.join(t for _, t, *_ in ins)})\n")
        text += (f"    outs({', '.join(v for v, *_ in outs)} : "
                 f"{', '.join(t for _, t, *_ in outs)}) {{\n"
                 f"  ^bb0({args}):\n")
        for line in body.strip("\n").split("\n"):
            text += "    " + line.strip() + "\n"
        text += "  }"
        if len(outs) == 1:
            text += f" -> {outs[0][1]}"
        else:
            text += " -> " + ", ".join(t for _, t, *_ in outs)
        self.emit(text)
        return res


# --- the importer ------------------------------------------------------------


class ImportedModule:
    """A module imported into te: ``text`` (the MLIR module), ``entry``
    ('main'), ``param_names`` (the parameters and buffers passed first, in
    order), ``num_inputs`` (user inputs after them), ``input_shapes`` and
    ``output_count``; ``recipe`` as given."""

    def __init__(self, text, param_names, num_inputs, input_specs,
                 output_specs, recipe, single_output, linear_rows=()):
        self.text = text
        self.linear_rows = list(linear_rows)
        self.entry = "main"
        self.param_names = param_names
        self.num_inputs = num_inputs
        self.input_specs = input_specs
        self.output_specs = output_specs
        self.recipe = recipe
        self.single_output = single_output

    def __str__(self):
        return self.text


def _sizes(shape_a, shape_b, dynamic: bool, batch_a: int, batch_b: int,
           where: str) -> Tuple[Size, ...]:
    out: List[Size] = []
    for a, b in zip(shape_a, shape_b):
        if a == b or not dynamic:
            out.append(int(a))
            continue
        if a % batch_a or b % batch_b or a // batch_a != b // batch_b:
            raise UnsupportedOpError(
                where, f"a size ({a} at batch {batch_a}, {b} at batch "
                f"{batch_b}) that is not a multiple of the batch; import "
                "with dynamic_batch=False")
        out.append(Dyn(a // batch_a))
    return tuple(out)


def _batch_variant(x: torch.Tensor, n: int) -> torch.Tensor:
    """x with its dimension 0 grown by `n` rows (repeating its rows)."""
    idx = torch.arange(x.shape[0] + n) % max(x.shape[0], 1)
    return x[idx]


class _Importer:
    def __init__(self, traced, shapes, recipe):
        self.t = traced
        self.shapes = shapes  # node -> shape or tuple of shapes (Size)
        self.recipe = recipe
        self.q = quantizers(recipe) if recipe is not None else None
        self.E = _Emitter()
        self.values: Dict[torch.fx.Node, Any] = {}
        self.params: Dict[torch.fx.Node, str] = {}
        self.fuse_attention = True
        # (rows per batch element, module path) of each quantized linear
        # whose row count follows the batch: checked at each call.
        self.linear_rows: List[Tuple[int, str]] = []

    # errors
    def unsupported(self, node, reason="", op=None):
        name = op or _op_name(node)
        raise UnsupportedOpError(name, reason, node.meta.get("te_module", ""),
                                 node.name)

    def shape_of(self, node):
        return self.shapes[node]

    def et_of(self, node, index=None):
        dt = node.meta.get("te_dtype")
        if index is not None:
            dt = dt[index]
        if dt not in _DTYPES:
            self.unsupported(node, f"element type {dt}")
        return _DTYPES[dt]

    # --- values
    def val(self, node, arg) -> Value:
        if isinstance(arg, torch.fx.Node):
            v = self.values.get(arg)
            if not isinstance(v, Value):
                self.unsupported(node, f"operand {arg.name} is not a tensor")
            return v
        self.unsupported(node, f"operand {arg!r} is not a tensor")

    def run(self) -> str:
        gm = self.t.gm
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        nparams = len(self.t.param_names)
        args = []
        for i, n in enumerate(placeholders):
            v = Value(f"%arg{i}", self.shape_of(n), self.et_of(n))
            self.values[n] = v
            args.append(v)
            if i < nparams:
                self.params[n] = self.t.param_names[i]
        inputs = args[nparams:]
        if inputs and inputs[0].rank and isinstance(inputs[0].shape[0], Dyn):
            self.E.batch = self.E.fresh("batch")
            self.E.emit(f"{self.E.batch} = tensor.dim {inputs[0].name}, "
                        f"{self.E.index(0)} : {inputs[0].type}")
        outputs = None
        self.attention_matches, skip = {}, set()
        for node in gm.graph.nodes:
            m = _match_attention(node, self.shapes) \
                if self.fuse_attention else None
            if m is not None and m["q"] is not m["k"]:
                self.attention_matches[node] = m
                skip.update(m["chain"])
        for node in gm.graph.nodes:
            if node.op == "placeholder" or node in skip:
                continue
            if node.op == "output":
                outputs = node.args[0]
                break
            if node.op == "get_attr":
                self.values[node] = self.constant(node)
                continue
            if node.op != "call_function":
                self.unsupported(node, f"FX {node.op} node")
            self.values[node] = self.call(node)
        flat = list(outputs) if isinstance(outputs, (tuple, list)) else \
            [outputs]
        results = []
        for o in flat:
            if not isinstance(o, torch.fx.Node) or \
                    not isinstance(self.values.get(o), Value):
                raise UnsupportedOpError("output", f"output {o!r} is not a "
                                         "tensor")
            results.append(self.values[o])
        self.args, self.results = args, results
        self.single = self.t.single_output and len(results) == 1
        sig = ", ".join(f"{a.name}: {a.type}" for a in args)
        rtys = ", ".join(r.type for r in results)
        head = f"  func.func @main({sig}) -> ({rtys}) {{"
        ret = (f"    return {', '.join(r.name for r in results)} : "
               f"{rtys}")
        return "\n".join(["module {", head] + self.E.lines + [ret, "  }",
                                                             "}", ""])

    def constant(self, node):
        t = getattr(self.t.gm, node.target)
        if not isinstance(t, torch.Tensor) or t.numel() > 4096:
            self.unsupported(node, "a constant that is not a small tensor",
                             op=f"get_attr {node.target}")
        et = _DTYPES.get(t.dtype)
        if et is None:
            self.unsupported(node, f"constant of type {t.dtype}",
                             op=f"get_attr {node.target}")
        flat = t.detach().reshape(-1).tolist()
        if et in _FLOATS:
            elems = ", ".join(f'{_fconst(float(x), et)}' for x in flat)
            lit = f"dense<[{elems}]>" if t.dim() else \
                f"dense<{_fconst(float(flat[0]), et)}>"
        elif et == "i1":
            lit = "dense<[" + ", ".join("true" if x else "false"
                                        for x in flat) + "]>"
        else:
            lit = "dense<[" + ", ".join(str(int(x)) for x in flat) + "]>"
        shape = tuple(t.shape)
        n = self.E.fresh("cst")
        if t.dim():
            flat_ty = _ty([t.numel()], et)
            self.E.emit(f"{n} = arith.constant {lit} : {flat_ty}")
            return self.reshape(Value(n, [t.numel()], et), shape)
        self.E.emit(f"{n} = arith.constant {lit} : {_ty([], et)}")
        return Value(n, (), et)

    # --- building blocks
    def transpose(self, x: Value, perm: Sequence[int]) -> Value:
        if list(perm) == list(range(x.rank)):
            return x
        shape = [x.shape[p] for p in perm]
        e = self.E.empty(shape, x.et)
        n = self.E.fresh("t")
        self.E.emit(f"{n} = linalg.transpose ins({x.name} : {x.type})\n"
                    f"    outs({e} : {_ty(shape, x.et)}) permutation = "
                    f"[{', '.join(map(str, perm))}]")
        return Value(n, shape, x.et)

    def _groups(self, long, short):
        """Reassociation of `long` into `short`, or None."""
        groups, i = [], 0
        for d in short:
            g, p = [], (1, 0)
            target = _key(d)
            while i < len(long):
                g.append(i)
                a, b = _key(long[i])
                p = (p[0] * a, p[1] + b)
                i += 1
                if p == target:
                    break
            if p != target or not g:
                return None
            groups.append(g)
        while i < len(long):
            if _key(long[i]) != (1, 0) or not groups:
                return None
            groups[-1].append(i)
            i += 1
        if any(sum(_key(long[j])[1] for j in g) > 1 for g in groups):
            return None  # a group holding two batch factors
        return groups

    def reshape(self, x: Value, shape: Sequence[Size]) -> Value:
        shape = tuple(shape)
        if tuple(x.shape) == shape:
            return x
        if _prod(x.shape) != _prod(shape):
            raise UnsupportedOpError("view", f"cannot reshape {x.type} to "
                                     f"{_ty(shape, x.et)}")
        ty = _ty(shape, x.et)
        n = self.E.fresh("r")
        if len(shape) == 0 or x.rank == 0:
            self.E.emit(f"{n} = tensor.{'collapse' if not shape else 'expand'}"
                        f"_shape {x.name} []" +
                        ("" if not shape else
                         f" output_shape [{', '.join(map(str, shape))}]") +
                        f" : {x.type} into {ty}")
            return Value(n, shape, x.et)
        if x.rank > len(shape):
            g = self._groups(x.shape, shape)
            if g is not None:
                self.E.emit(f"{n} = tensor.collapse_shape {x.name} {g} : "
                            f"{x.type} into {ty}")
                return Value(n, shape, x.et)
        elif x.rank < len(shape):
            g = self._groups(shape, x.shape)
            if g is not None:
                dims = ", ".join(self.E.dim(d) for d in shape)
                self.E.emit(f"{n} = tensor.expand_shape {x.name} {g} "
                            f"output_shape [{dims}] : {x.type} into {ty}")
                return Value(n, shape, x.et)
        # Through one dimension.
        c, k = _prod(x.shape)
        flat: Size = Dyn(c) if k else c
        if k > 1:
            raise UnsupportedOpError("view", f"cannot reshape {x.type} to "
                                     f"{_ty(shape, x.et)}")
        mid = self.reshape(x, (flat,)) if x.rank != 1 else x
        return self.reshape(mid, shape)

    def broadcast_map(self, x_shape, out_shape) -> str:
        """The indexing map reading `x_shape` broadcast to `out_shape`."""
        n, r = len(out_shape), len(x_shape)
        exprs = []
        for i, d in enumerate(x_shape):
            j = n - r + i
            if _key(d) == (1, 0) and _key(out_shape[j]) != (1, 0):
                exprs.append("0")
            else:
                exprs.append(f"d{j}")
        return _amap(n, exprs)

    def elementwise(self, node, operands, out_shape, out_et, body_fn,
                    compute_et=None) -> Value:
        """`operands`: Values or Python scalars. body_fn(names) -> (lines,
        result name), with the operands converted to `compute_et`."""
        n = len(out_shape)
        ins, names, lines = [], [], []
        cet = compute_et or ("f32" if out_et in _FLOATS else out_et)
        k = 0
        for o in operands:
            if isinstance(o, Value):
                ins.append((o.name, o.type, o.et,
                            self.broadcast_map(o.shape, out_shape)))
                a = f"%a{k}"
                k += 1
                if o.et in _FLOATS and cet in _FLOATS and o.et != cet:
                    c = f"%x{k}"
                    op = "arith.extf" if o.et != "f32" else "arith.truncf"
                    lines.append(f"{c} = {op} {a} : {o.et} to {cet}")
                    a = c
                elif o.et not in _FLOATS and cet in _FLOATS and \
                        o.et != "i1":
                    c = f"%x{k}"
                    lines.append(f"{c} = arith.sitofp {a} : {o.et} to {cet}")
                    a = c
                names.append(a)
            elif isinstance(o, bool) or o is None:
                names.append(o)
            else:
                c = f"%s{len(names)}"
                lines.append(f"{c} = arith.constant "
                             f"{_fconst(float(o), cet)} : {cet}")
                names.append(c)
        e = self.E.empty(out_shape, out_et)
        body, res = body_fn(names, cet)
        lines += body
        if out_et in _FLOATS and cet != out_et:
            lines.append(f"%out = arith.truncf {res} : {cet} to {out_et}")
            res = "%out"
        lines.append(f"linalg.yield {res} : {out_et}")
        (r,) = self.E.generic(ins, [(e, _ty(out_shape, out_et), out_et,
                                     _amap(n, [f"d{i}" for i in range(n)]))],
                              ["parallel"] * n, "\n".join(lines))
        return Value(r, out_shape, out_et)

    def unary(self, node, fn) -> Value:
        x = self.val(node, node.args[0])
        if x.et not in _FLOATS:
            self.unsupported(node, f"on {x.et}")
        return self.elementwise(node, [x], self.shape_of(node), x.et,
                                lambda a, t: fn(a[0], t))

    def reduce(self, x: Value, dims: Sequence[int], kind: str) -> Value:
        """Sum or max over `dims` in f32; result without those dims."""
        n = x.rank
        dims = sorted(d % n for d in dims)
        keep = [i for i in range(n) if i not in dims]
        out_shape = [x.shape[i] for i in keep]
        acc = self.E.filled(out_shape, "f32",
                            0.0 if kind == "sum" else float("-inf"))
        lines = []
        a = "%a0"
        if x.et != "f32":
            lines.append(f"%x = arith.extf %a0 : {x.et} to f32")
            a = "%x"
        op = "arith.addf" if kind == "sum" else "arith.maximumf"
        lines += [f"%r = {op} {a}, %a1 : f32", "linalg.yield %r : f32"]
        (r,) = self.E.generic(
            [(x.name, x.type, x.et, _amap(n, [f"d{i}" for i in range(n)]))],
            [(acc, _ty(out_shape, "f32"), "f32",
              _amap(n, [f"d{i}" for i in keep]))],
            ["reduction" if i in dims else "parallel" for i in range(n)],
            "\n".join(lines))
        return Value(r, out_shape, "f32")

    def matmul(self, a: Value, b: Value, out_et: str) -> Value:
        shape = [a.shape[0], b.shape[1]]
        acc = self.E.filled(shape, "f32", 0.0)
        n = self.E.fresh("mm")
        self.E.emit(f"{n} = linalg.matmul ins({a.name}, {b.name} : {a.type},"
                    f" {b.type})\n    outs({acc} : {_ty(shape, 'f32')}) -> "
                    f"{_ty(shape, 'f32')}")
        return self.cast(Value(n, shape, "f32"), out_et)

    def cast(self, x: Value, et: str) -> Value:
        if x.et == et:
            return x
        if x.et in _FLOATS and et in _FLOATS:
            op = "arith.extf" if (x.et != "f32" and et == "f32") else \
                "arith.truncf"
            return self.elementwise(None, [x], x.shape, et, lambda a, t: (
                [f"%c = {op} %a0 : {x.et} to {et}"], "%c"), compute_et=et)
        raise UnsupportedOpError("_to_copy", f"a cast from {x.et} to {et}")

    # --- ops
    def call(self, node):
        t = node.target
        h = _HANDLERS.get(t)
        if h is None and hasattr(t, "overloadpacket"):
            h = _HANDLERS.get(t.overloadpacket)
        if h is None:
            self.unsupported(node)
        return h(self, node)


def _op_name(node) -> str:
    """'aten.cumsum.default', 'te_torch.attention.default', 'getitem'."""
    t = node.target
    if isinstance(t, torch._ops.OpOverload):
        return str(t)
    return getattr(t, "__name__", str(t))


_HANDLERS: Dict[Any, Any] = {}


def _on(*targets):
    def deco(fn):
        for t in targets:
            _HANDLERS[t] = fn
        return fn
    return deco


def _identity(self, node):
    return self.val(node, node.args[0])


_on(aten.clone, aten.detach, aten.alias, aten.lift_fresh_copy,
    aten.contiguous)(_identity)


@_on(aten._to_copy)
def _to_copy(self, node):
    x = self.val(node, node.args[0])
    return self.cast(x, self.et_of(node))


@_on(aten.view, aten._reshape_alias, aten._unsafe_view, aten.reshape,
     aten.unsqueeze, aten.squeeze, aten.flatten)
def _view(self, node):
    return self.reshape(self.val(node, node.args[0]), self.shape_of(node))


@_on(aten.t)
def _t(self, node):
    x = self.val(node, node.args[0])
    return self.transpose(x, [1, 0]) if x.rank == 2 else x


@_on(aten.transpose)
def _transpose(self, node):
    x = self.val(node, node.args[0])
    a, b = node.args[1] % x.rank, node.args[2] % x.rank
    perm = list(range(x.rank))
    perm[a], perm[b] = perm[b], perm[a]
    return self.transpose(x, perm)


@_on(aten.permute)
def _permute(self, node):
    x = self.val(node, node.args[0])
    return self.transpose(x, [d % x.rank for d in node.args[1]])


@_on(aten.expand)
def _expand(self, node):
    x = self.val(node, node.args[0])
    out = self.shape_of(node)
    if tuple(x.shape) == tuple(out):
        return x
    return self.elementwise(node, [x], out, x.et,
                            lambda a, t: ([], a[0]), compute_et=x.et)


def _binary(opname_f):
    def handler(self, node):
        a, b = node.args[0], node.args[1]
        alpha = node.kwargs.get("alpha", 1)
        out_et = self.et_of(node)
        if out_et not in _FLOATS:
            self.unsupported(node, f"on {out_et}")
        ops = [self.val(node, x) if isinstance(x, torch.fx.Node) else x
               for x in (a, b)]

        def body(n, t):
            lines = []
            y = n[1]
            if alpha != 1:
                lines.append(f"%al = arith.constant {_fconst(alpha, t)} : {t}")
                lines.append(f"%ya = arith.mulf {y}, %al : {t}")
                y = "%ya"
            lines.append(f"%r = {opname_f} {n[0]}, {y} : {t}")
            return lines, "%r"
        return self.elementwise(node, ops, self.shape_of(node), out_et, body)
    return handler


_on(aten.add)(_binary("arith.addf"))
_on(aten.sub)(_binary("arith.subf"))
_on(aten.mul)(_binary("arith.mulf"))
_on(aten.div)(_binary("arith.divf"))


@_on(aten.rsub)
def _rsub(self, node):
    x = self.val(node, node.args[0])
    other = node.args[1]
    ops = [x, self.val(node, other) if isinstance(other, torch.fx.Node)
           else other]
    return self.elementwise(node, ops, self.shape_of(node), x.et,
                            lambda n, t: ([f"%r = arith.subf {n[1]}, {n[0]} "
                                           f": {t}"], "%r"))


@_on(aten.pow)
def _pow(self, node):
    x = self.val(node, node.args[0])
    p = node.args[1]
    if isinstance(p, torch.fx.Node):
        self.unsupported(node, "a tensor exponent")
    if p == 2:
        return self.elementwise(node, [x], self.shape_of(node), x.et,
                                lambda n, t: ([f"%r = arith.mulf {n[0]}, "
                                               f"{n[0]} : {t}"], "%r"))
    return self.elementwise(node, [x, float(p)], self.shape_of(node), x.et,
                            lambda n, t: ([f"%r = math.powf {n[0]}, {n[1]} : "
                                           f"{t}"], "%r"))


def _math1(op):
    return lambda self, node: self.unary(
        node, lambda a, t: ([f"%r = {op} {a} : {t}"], "%r"))


for _t_, _op_ in ((aten.rsqrt, "math.rsqrt"), (aten.sqrt, "math.sqrt"),
                  (aten.exp, "math.exp"), (aten.tanh, "math.tanh"),
                  (aten.erf, "math.erf"), (aten.neg, "arith.negf"),
                  (aten.log, "math.log"), (aten.abs, "math.absf")):
    _on(_t_)(_math1(_op_))


@_on(aten.sigmoid)
def _sigmoid(self, node):
    return self.unary(node, lambda a, t: ([
        f"%one = arith.constant {_fconst(1.0, t)} : {t}",
        f"%n = arith.negf {a} : {t}", f"%e = math.exp %n : {t}",
        f"%d = arith.addf %one, %e : {t}",
        f"%r = arith.divf %one, %d : {t}"], "%r"))


@_on(aten.silu)
def _silu(self, node):
    return self.unary(node, lambda a, t: ([
        f"%one = arith.constant {_fconst(1.0, t)} : {t}",
        f"%n = arith.negf {a} : {t}", f"%e = math.exp %n : {t}",
        f"%d = arith.addf %one, %e : {t}",
        f"%r = arith.divf {a}, %d : {t}"], "%r"))


@_on(aten.relu)
def _relu(self, node):
    return self.unary(node, lambda a, t: ([
        f"%z = arith.constant {_fconst(0.0, t)} : {t}",
        f"%r = arith.maximumf {a}, %z : {t}"], "%r"))


@_on(aten.gelu)
def _gelu(self, node):
    approx = node.kwargs.get("approximate",
                             node.args[1] if len(node.args) > 1 else "none")
    if approx == "tanh":
        def body(a, t):
            return ([f"%h = arith.constant {_fconst(0.5, t)} : {t}",
                     f"%one = arith.constant {_fconst(1.0, t)} : {t}",
                     f"%k = arith.constant "
                     f"{_fconst(math.sqrt(2.0 / math.pi), t)} : {t}",
                     f"%c = arith.constant {_fconst(0.044715, t)} : {t}",
                     f"%x2 = arith.mulf {a}, {a} : {t}",
                     f"%x3 = arith.mulf %x2, {a} : {t}",
                     f"%cx3 = arith.mulf %c, %x3 : {t}",
                     f"%in = arith.addf {a}, %cx3 : {t}",
                     f"%u = arith.mulf %k, %in : {t}",
                     f"%th = math.tanh %u : {t}",
                     f"%p = arith.addf %one, %th : {t}",
                     f"%hx = arith.mulf %h, {a} : {t}",
                     f"%r = arith.mulf %hx, %p : {t}"], "%r")
    elif approx == "none":
        def body(a, t):
            return ([f"%h = arith.constant {_fconst(0.5, t)} : {t}",
                     f"%one = arith.constant {_fconst(1.0, t)} : {t}",
                     f"%k = arith.constant "
                     f"{_fconst(1.0 / math.sqrt(2.0), t)} : {t}",
                     f"%u = arith.mulf {a}, %k : {t}",
                     f"%e = math.erf %u : {t}",
                     f"%p = arith.addf %one, %e : {t}",
                     f"%hx = arith.mulf %h, {a} : {t}",
                     f"%r = arith.mulf %hx, %p : {t}"], "%r")
    else:
        self.unsupported(node, f"approximate={approx!r}")
    return self.unary(node, body)


def _reduction(kind):
    def handler(self, node):
        x = self.val(node, node.args[0])
        dims = node.args[1] if len(node.args) > 1 else None
        if dims is None:
            dims = list(range(x.rank))
        if isinstance(dims, int):
            dims = [dims]
        if kind != "amax" and (node.kwargs.get("dtype") is not None or
                               (len(node.args) > 3 and node.args[3])):
            self.unsupported(node, "a dtype argument")
        r = self.reduce(x, dims, "max" if kind == "amax" else "sum")
        if kind == "mean":
            count = 1
            for d in dims:
                s = x.shape[d % x.rank]
                if isinstance(s, Dyn):
                    self.unsupported(node, "a mean over the batch dimension")
                count *= s
            r = self.elementwise(node, [r, float(count)], r.shape, "f32",
                                 lambda n, t: ([f"%r = arith.divf {n[0]}, "
                                                f"{n[1]} : {t}"], "%r"))
        r = self.cast(r, self.et_of(node))
        return self.reshape(r, self.shape_of(node))
    return handler


_on(aten.mean)(_reduction("mean"))
_on(aten.sum)(_reduction("sum"))
_on(aten.amax)(_reduction("amax"))


@_on(aten._softmax, aten.softmax)
def _softmax(self, node):
    x = self.val(node, node.args[0])
    d = node.args[1] % x.rank
    if node.target is aten._softmax.default and node.args[2]:
        self.unsupported(node, "half_to_float=True")
    out_et = self.et_of(node)
    e = self.E.empty(x.shape, out_et)
    n = self.E.fresh("sm")
    self.E.emit(f"{n} = linalg.softmax dimension({d}) ins({x.name} : "
                f"{x.type})\n    outs({e} : {_ty(x.shape, out_et)}) -> "
                f"{_ty(x.shape, out_et)}")
    return Value(n, x.shape, out_et)


@_on(aten.native_layer_norm)
def _layer_norm(self, node):
    x, normalized, w, b, eps = node.args[:5]
    x = self.val(node, x)
    k = len(normalized)
    dims = list(range(x.rank - k, x.rank))
    count = 1
    for d in dims:
        if isinstance(x.shape[d], Dyn):
            self.unsupported(node, "normalizing over the batch dimension")
        count *= x.shape[d]
    s = self.reduce(x, dims, "sum")
    mean = self.elementwise(node, [s, float(count)], s.shape, "f32",
                            lambda n, t: ([f"%r = arith.divf {n[0]}, {n[1]}"
                                           f" : {t}"], "%r"))
    # Variance of the centered values, broadcast over the normalized dims.
    xf = self.cast(x, "f32") if x.et != "f32" else x
    cen = self.elementwise(node, [xf, self.reshape(mean, list(mean.shape) +
                                                   [1] * k)], x.shape, "f32",
                           lambda n, t: ([f"%r = arith.subf {n[0]}, {n[1]} "
                                          f": {t}"], "%r"))
    sq = self.elementwise(node, [cen], x.shape, "f32",
                          lambda n, t: ([f"%r = arith.mulf {n[0]}, {n[0]} : "
                                         f"{t}"], "%r"))
    var = self.reduce(sq, dims, "sum")
    rstd = self.elementwise(node, [var, float(count), float(eps)], var.shape,
                            "f32", lambda n, t: ([
                                f"%m = arith.divf {n[0]}, {n[1]} : {t}",
                                f"%a = arith.addf %m, {n[2]} : {t}",
                                f"%r = math.rsqrt %a : {t}"], "%r"))
    rb = self.reshape(rstd, list(rstd.shape) + [1] * k)
    ops = [cen, rb]
    if w is not None:
        ops.append(self.val(node, w))
    if b is not None:
        ops.append(self.val(node, b))

    def body(n, t):
        lines = [f"%r0 = arith.mulf {n[0]}, {n[1]} : {t}"]
        r = "%r0"
        if w is not None:
            lines.append(f"%r1 = arith.mulf {r}, {n[2]} : {t}")
            r = "%r1"
        if b is not None:
            lines.append(f"%r2 = arith.addf {r}, {n[-1]} : {t}")
            r = "%r2"
        return lines, r
    y = self.elementwise(node, ops, x.shape, x.et, body)
    return (y, self.reshape(mean, list(mean.shape) + [1] * k),
            self.reshape(rstd, list(rstd.shape) + [1] * k))


@_on(operator.getitem)
def _getitem(self, node):
    v = self.values.get(node.args[0])
    if not isinstance(v, tuple):
        self.unsupported(node, "getitem of a non-tuple", op="getitem")
    return v[node.args[1]]


def _weight_param(self, node):
    """The parameter name if `node` is t(param) / transpose/permute of a 2-D
    parameter, else None."""
    if not isinstance(node, torch.fx.Node) or node.op != "call_function":
        return None
    tgt = node.target
    pk = getattr(tgt, "overloadpacket", None)
    if pk not in (aten.t, aten.transpose, aten.permute):
        return None
    src = node.args[0]
    if src in self.params and len(self.shapes[src]) == 2:
        return src
    return None


def _linear(self, node, x_node, wt_node, bias_node):
    """te.linear for x @ t(W) (+ bias) when a recipe is given."""
    w = _weight_param(self, wt_node)
    if self.q is None or w is None:
        return None
    x = self.val(node, x_node)
    W = self.values[w]
    out_f, in_f = W.shape
    where = node.meta.get("te_module", "")
    if in_f % 16 or out_f % 16:
        raise RecipeError(
            f"te.torch: the recipe's quantized linear in module "
            f"'{where}' needs in_features and out_features divisible by 16 "
            f"(TransformerEngine's FP8 GEMM rule), got {in_f} and {out_f}")
    m = x.shape[0]
    if isinstance(m, Dyn):
        self.linear_rows.append((m.coeff, where))
    elif m % 8:
        raise RecipeError(
            f"te.torch: the recipe's quantized linear in module '{where}' "
            f"needs the flattened leading dimensions divisible by 8, got {m}")
    bias = ""
    if bias_node is not None:
        b = self.val(node, bias_node)
        if b.rank != 1:
            return None
        bias = f" bias({b.name} : {b.type})"
    y, xs, ws = (self.E.fresh("y"), self.E.fresh("xs"), self.E.fresh("ws"))
    self.E.emit(f"{y}, {xs}, {ws} = te.linear {x.name}, {W.name}{bias}\n"
                f"    {{input_quantizer = {self.q['input'].text}, "
                f"weight_quantizer = {self.q['weight'].text}}}\n"
                f"    : {x.type}, {W.type}")
    return Value(y, [m, out_f], x.et)


@_on(aten.addmm)
def _addmm(self, node):
    bias, a, b = node.args[:3]
    beta = node.kwargs.get("beta", 1)
    alpha = node.kwargs.get("alpha", 1)
    if beta != 1 or alpha != 1:
        self.unsupported(node, "alpha/beta other than 1")
    r = _linear(self, node, a, b, bias)
    if r is not None:
        return r
    A, B = self.val(node, a), self.val(node, b)
    y = self.matmul(A, B, self.et_of(node))
    return self.elementwise(node, [y, self.val(node, bias)], y.shape, y.et,
                            lambda n, t: ([f"%r = arith.addf {n[0]}, {n[1]} "
                                           f": {t}"], "%r"))


@_on(aten.mm)
def _mm(self, node):
    a, b = node.args[:2]
    r = _linear(self, node, a, b, None)
    if r is not None:
        return r
    return self.matmul(self.val(node, a), self.val(node, b),
                       self.et_of(node))


@_on(aten.bmm)
def _bmm(self, node):
    a, b = self.val(node, node.args[0]), self.val(node, node.args[1])
    shape = self.shape_of(node)
    acc = self.E.filled(shape, "f32", 0.0)
    n = self.E.fresh("bmm")
    self.E.emit(f"{n} = linalg.batch_matmul ins({a.name}, {b.name} : "
                f"{a.type}, {b.type})\n    outs({acc} : {_ty(shape, 'f32')})"
                f" -> {_ty(shape, 'f32')}")
    return self.cast(Value(n, shape, "f32"), self.et_of(node))


@_on(aten.embedding)
def _embedding(self, node):
    w, idx = self.val(node, node.args[0]), self.val(node, node.args[1])
    if w.rank != 2 or idx.et not in ("i64", "i32"):
        self.unsupported(node, "a 2-D table indexed by integers")
    out = self.shape_of(node)
    n = len(out)
    e = self.E.empty(out, w.et)
    body = (f"%i = arith.index_cast %a0 : {idx.et} to index\n"
            f"%j = linalg.index {n - 1} : index\n"
            f"%v = tensor.extract {w.name}[%i, %j] : {w.type}\n"
            f"linalg.yield %v : {w.et}")
    (r,) = self.E.generic(
        [(idx.name, idx.type, idx.et, _amap(n, [f"d{i}" for i in
                                                range(n - 1)]))],
        [(e, _ty(out, w.et), w.et, _amap(n, [f"d{i}" for i in range(n)]))],
        ["parallel"] * n, body)
    return Value(r, out, w.et)


def _bool_value(self, node, arg):
    if isinstance(arg, torch.fx.Node):
        return self.val(node, arg)
    self.unsupported(node, "a scalar condition")


@_on(aten.masked_fill)
def _masked_fill(self, node):
    x = self.val(node, node.args[0])
    m = _bool_value(self, node, node.args[1])
    v = node.args[2]
    if isinstance(v, torch.fx.Node):
        vv = self.values.get(v)
        if not isinstance(vv, Value) or vv.rank:
            self.unsupported(node, "a fill value that is a tensor")
        ops = [x, m, vv]
    else:
        ops = [x, m, float(v)]
    return self.elementwise(node, ops, self.shape_of(node), x.et,
                            lambda n, t: ([f"%r = arith.select {n[1]}, "
                                           f"{n[2]}, {n[0]} : {t}"], "%r"))


@_on(aten.where)
def _where(self, node):
    if len(node.args) != 3:
        self.unsupported(node, "where(condition) with one operand")
    c = _bool_value(self, node, node.args[0])
    a, b = [self.val(node, x) if isinstance(x, torch.fx.Node) else float(x)
            for x in node.args[1:]]
    return self.elementwise(node, [c, a, b], self.shape_of(node),
                            self.et_of(node),
                            lambda n, t: ([f"%r = arith.select {n[0]}, "
                                           f"{n[1]}, {n[2]} : {t}"], "%r"))


@_on(aten.bitwise_not, aten.logical_not)
def _not(self, node):
    x = self.val(node, node.args[0])
    if x.et != "i1":
        self.unsupported(node, f"on {x.et}")
    return self.elementwise(node, [x], x.shape, "i1", lambda n, t: (
        ["%t = arith.constant true", f"%r = arith.xori {n[0]}, %t : i1"],
        "%r"), compute_et="i1")


@_on(_trace.attention_op())
def _attention(self, node):
    q, k, v, mask, causal, scale = node.args
    Q, K, V = (self.val(node, a) for a in (q, k, v))
    if Q.rank not in (3, 4):
        self.unsupported(node, f"rank-{Q.rank} query (3-D or 4-D)",
                         op="scaled_dot_product_attention")
    attrs = []
    if causal:
        attrs.append("causal")
    if scale is not None:
        attrs.append(f"scale = {_fconst(float(scale), 'f32')} : f32")
    mask_txt, mask_ty = "", ""
    if mask is not None:
        M = self.val(node, mask)
        if M.rank != Q.rank:
            M = self.reshape(M, (1,) * (Q.rank - M.rank) + tuple(M.shape))
        mask_txt, mask_ty = f" mask {M.name}", f", {M.type}"
    o, lse = self.E.fresh("attn"), self.E.fresh("lse")
    attr = f" {{{', '.join(attrs)}}}" if attrs else ""
    self.E.emit(f"{o}, {lse} = te.attention {Q.name}, {K.name}, "
                f"{V.name}{mask_txt}{attr}\n    : {Q.type}, {K.type}, "
                f"{V.type}{mask_ty}")
    return Value(o, self.shape_of(node), Q.et)


# --- entry point -------------------------------------------------------------


def _shapes(traced_a, traced_b, dynamic, batch_a, batch_b):
    nodes_a = list(traced_a.gm.graph.nodes)
    nodes_b = list(traced_b.gm.graph.nodes) if traced_b else nodes_a
    if len(nodes_a) != len(nodes_b) or any(
            a.op != b.op or a.target != b.target
            for a, b in zip(nodes_a, nodes_b)):
        raise UnsupportedOpError(
            "trace", "the module traces to different graphs at batch sizes "
            f"{batch_a} and {batch_b}; import with dynamic_batch=False")
    out = {}
    for a, b in zip(nodes_a, nodes_b):
        sa, sb = a.meta.get("te_shape"), b.meta.get("te_shape")
        if sa is None:
            continue
        where = _op_name(a) if a.op == "call_function" else a.name
        if sa and isinstance(sa[0], tuple) or (sa and sa[0] is None):
            out[a] = tuple(None if x is None else
                           _sizes(x, y, dynamic, batch_a, batch_b, where)
                           for x, y in zip(sa, sb))
        else:
            out[a] = _sizes(sa, sb, dynamic, batch_a, batch_b, where)
    return out


def import_module(module: "torch.nn.Module",
                  example_inputs: Sequence["torch.Tensor"], recipe=None,
                  dynamic_batch: bool = True) -> ImportedModule:
    """Traces ``module(*example_inputs)`` and emits a te module (see the
    module docstring). `recipe`: a recipe object (te.torch.recipe or
    TransformerEngine's) for the linears, or None for none. Raises
    UnsupportedOpError naming the op and the module path that produced it,
    RecipeError for a recipe te.linear cannot take."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError("import_module takes an nn.Module, got "
                        f"{type(module).__name__}")
    example_inputs = tuple(example_inputs)
    for i, x in enumerate(example_inputs):
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"example input {i} is not a torch.Tensor")
    if recipe is not None:
        q = quantizers(recipe)
        if q["input"].recipe == "delayed":
            raise RecipeError(
                "te.torch: DelayedScaling cannot quantize te.linear: its "
                "scale and amax history are program state (te.quantize + "
                "te.update_scale); use Float8CurrentScaling, "
                "Float8BlockScaling, MXFP8BlockScaling or NVFP4BlockScaling")
    if module.training:
        for m in module.modules():
            if isinstance(m, torch.nn.Dropout) and m.p:
                raise UnsupportedOpError(
                    "dropout", "dropout in training mode has no te "
                    "equivalent; call model.eval()",
                    next(n for n, s in module.named_modules() if s is m))
    traced = _trace.trace(module, example_inputs)
    dynamic = dynamic_batch and bool(example_inputs) and all(
        x.dim() > 0 for x in example_inputs)
    traced_b, batch_a, batch_b = None, 0, 0
    if dynamic:
        batch_a = example_inputs[0].shape[0]
        if any(x.shape[0] != batch_a for x in example_inputs):
            dynamic = False
        else:
            batch_b = batch_a + 1
            traced_b = _trace.trace(module, [_batch_variant(x, 1)
                                             for x in example_inputs])
    shapes = _shapes(traced, traced_b, dynamic, batch_a, batch_b)
    imp = _Importer(traced, shapes, recipe)
    text = imp.run()
    nparams = len(traced.param_names)
    return ImportedModule(
        text, list(traced.param_names), traced.num_inputs,
        [(a.shape, a.et) for a in imp.args[nparams:]],
        [(r.shape, r.et) for r in imp.results], recipe, imp.single,
        imp.linear_rows)


def _extract(self, node, x: Value, dim: int, start: int, size: int) -> Value:
    """x[..., start:start+size, ...] along static dimension `dim`."""
    if isinstance(x.shape[dim], Dyn):
        self.unsupported(node, "slicing the batch dimension")
    offs = ["0"] * x.rank
    offs[dim] = str(start)
    shape = list(x.shape)
    shape[dim] = size
    sizes = [self.E.dim(d) for d in shape]
    n = self.E.fresh("sl")
    self.E.emit(f"{n} = tensor.extract_slice {x.name}[{', '.join(offs)}] "
                f"[{', '.join(sizes)}] [{', '.join(['1'] * x.rank)}]\n"
                f"    : {x.type} to {_ty(shape, x.et)}")
    return Value(n, shape, x.et)


@_on(aten.slice)
def _slice(self, node):
    x = self.val(node, node.args[0])
    dim = (node.args[1] if len(node.args) > 1 else 0) % x.rank
    step = node.args[4] if len(node.args) > 4 else 1
    if step != 1:
        self.unsupported(node, f"step {step}")
    out = self.shape_of(node)
    if tuple(out) == tuple(x.shape):
        return x
    start = node.args[2] if len(node.args) > 2 and node.args[2] else 0
    if isinstance(x.shape[dim], Dyn):
        self.unsupported(node, "slicing the batch dimension")
    if start < 0:
        start += x.shape[dim]
    start = max(0, min(start, x.shape[dim]))
    return _extract(self, node, x, dim, start, out[dim])


@_on(aten.split, aten.split_with_sizes)
def _split(self, node):
    x = self.val(node, node.args[0])
    dim = (node.args[2] if len(node.args) > 2 else 0) % x.rank
    outs, start = [], 0
    for shape in self.shape_of(node):
        outs.append(_extract(self, node, x, dim, start, shape[dim]))
        start += shape[dim]
    return tuple(outs)


# --- the explicit attention chain --------------------------------------------
#
# softmax(scale * Q Kᵀ [+ additive mask | masked_fill(~keep, -inf)]) @ V as
# torch 1.13 traces it (expand / clone / views around two bmm) becomes one
# te.attention, when every intermediate value is used only by the chain.

_VIEWS = None


def _views():
    global _VIEWS
    if _VIEWS is None:
        _VIEWS = (aten.view, aten._reshape_alias, aten._unsafe_view,
                  aten.reshape, aten.clone, aten.expand, aten.alias,
                  aten.contiguous)
    return _VIEWS


def _packet(node):
    if not isinstance(node, torch.fx.Node) or node.op != "call_function":
        return None
    return getattr(node.target, "overloadpacket", node.target)


def _through_views(node, chain, shapes):
    """The node below views/clones/expands that keep the element count."""
    while _packet(node) in _views():
        src = node.args[0]
        if not isinstance(src, torch.fx.Node) or \
                _prod(shapes[src]) != _prod(shapes[node]):
            break
        chain.append(node)
        node = src
    return node


def _match_attention(node, shapes):
    """A dict describing the attention that bmm `node` ends, or None."""
    if _packet(node) is not aten.bmm:
        return None
    chain = [node]
    p = _through_views(node.args[0], chain, shapes)
    if _packet(p) not in (aten._softmax, aten.softmax):
        return None
    rank = len(shapes[p])
    if rank not in (3, 4) or p.args[1] % rank != rank - 1:
        return None
    chain.append(p)
    s = p.args[0]
    scale, keep, additive, seen_scale = 1.0, None, None, False
    while True:
        pk = _packet(s)
        if pk is aten.masked_fill and not isinstance(s.args[2],
                                                     torch.fx.Node):
            if s.args[2] != float("-inf") or keep is not None:
                return None
            cond = s.args[1]
            chain.append(s)
            if _packet(cond) in (aten.bitwise_not, aten.logical_not) and \
                    len(cond.users) == 1:
                chain.append(cond)
                keep = ("keep", cond.args[0])
            else:
                keep = ("drop", cond)
            s = s.args[0]
        elif pk is aten.add and isinstance(s.args[1], torch.fx.Node) and \
                not seen_scale and additive is None and \
                s.kwargs.get("alpha", 1) == 1:
            chain.append(s)
            additive = s.args[1]
            s = s.args[0]
        elif pk in (aten.mul, aten.div) and \
                isinstance(s.args[1], (int, float)):
            c = float(s.args[1])
            c = c if pk is aten.mul else 1.0 / c
            if c <= 0:
                return None
            chain.append(s)
            scale *= c
            seen_scale = True
            s = s.args[0]
        else:
            break
    if keep is not None and additive is not None:
        return None
    s = _through_views(s, chain, shapes)
    if _packet(s) is not aten.bmm:
        return None
    chain.append(s)
    q = _through_views(s.args[0], chain, shapes)
    kt = _through_views(s.args[1], chain, shapes)
    v = _through_views(node.args[1], chain, shapes)
    # K comes transposed (its last two dimensions swapped).
    if _packet(kt) is not aten.transpose:
        return None
    r = len(shapes[kt])
    if sorted(d % r for d in kt.args[1:3]) != [r - 2, r - 1]:
        return None
    chain.append(kt)
    k = kt.args[0]
    if not all(len(shapes[x]) == rank for x in (q, k, v)):
        return None
    inner = set(chain)
    for n in chain[1:]:
        if any(u not in inner for u in n.users):
            return None
    return {"q": q, "k": k, "v": v, "scale": scale, "keep": keep,
            "additive": additive, "chain": chain[1:], "rank": rank}


def _emit_attention(self, node, m):
    Q, K, V = (self.values[m[x]] for x in ("q", "k", "v"))
    mask_txt, mask_ty = "", ""
    if m["keep"] is not None:
        how, c = m["keep"]
        M = self.val(node, c)
        if how == "drop":
            M = self.elementwise(node, [M], M.shape, "i1", lambda n, t: (
                ["%t = arith.constant true",
                 f"%r = arith.xori {n[0]}, %t : i1"], "%r"), compute_et="i1")
    elif m["additive"] is not None:
        M = self.val(node, m["additive"])
    else:
        M = None
    if M is not None:
        if M.rank < Q.rank:
            M = self.reshape(M, (1,) * (Q.rank - M.rank) + tuple(M.shape))
        mask_txt, mask_ty = f" mask {M.name}", f", {M.type}"
    o, lse = self.E.fresh("attn"), self.E.fresh("lse")
    self.E.emit(f"{o}, {lse} = te.attention {Q.name}, {K.name}, "
                f"{V.name}{mask_txt} {{scale = "
                f"{_fconst(m['scale'], 'f32')} : f32}}\n    : {Q.type}, "
                f"{K.type}, {V.type}{mask_ty}")
    out_shape = list(Q.shape[:-1]) + [V.shape[-1]]
    return self.reshape(Value(o, out_shape, Q.et), self.shape_of(node))


def _bmm_or_attention(self, node):
    m = self.attention_matches.get(node)
    if m is not None:
        return _emit_attention(self, node, m)
    return _bmm(self, node)


_HANDLERS[aten.bmm] = _bmm_or_attention
