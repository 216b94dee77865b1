#!/usr/bin/env python3
# ===- bench_attention.py - te's flash attention beside PyTorch SDPA -------=== #
#
# Times te's attention forward and forward + backward beside every PyTorch
# SDPA backend (cuDNN, flash, efficient, math) in the same process, on the
# same torch CUDA tensors, and measures each one's relative error
# ||x - ref|| / ||ref|| against an fp32 reference computed in PyTorch from
# the same inputs (output; dQ, dK, dV). te runs through the harness of
# run.sh (te-mma, te-wgmma, te-wgmma-ovl: each forward kernel with the
# default backward; --kernels adds te-wgmma-ws, the warp-specialized forward,
# and te-ovl-bwd128 / te-ws-bwd128, with the 128-key backward) and, when
# libte_rt's front end runs it, through the public te_rt_attention /
# te_rt_attention_grad (te-api), all with ctypes on torch CUDA tensors.
#
#   python3 bench/attention/bench_attention.py --lib build-rt/libte_rt.so \
#       [--harness libte_attn_bench.so] [--out DIR] [--set quick|medium|full]
#
# Writes DIR/attention.csv and DIR/attention.md; prints the table.
# FLOPs: forward 4*B*Hq*L*S*D (half of it when causal and L = S),
# forward + backward 3.5x the forward.
#
# ===----------------------------------------------------------------------=== #

import argparse
import ctypes
import csv
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

try:
    from triton.testing import do_bench
except ImportError:  # pragma: no cover - triton ships with torch here
    do_bench = None


class Operand(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("shape", ctypes.c_int64 * 4),
                ("strides", ctypes.c_int64 * 4)]


class Args(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("q", Operand), ("k", Operand),
                ("v", Operand), ("o", Operand),
                ("lse", ctypes.c_void_p), ("scale", ctypes.c_float),
                ("causal", ctypes.c_int32), ("mask_kind", ctypes.c_int),
                ("mask_dtype", ctypes.c_int), ("mask", Operand)]


class GradArgs(ctypes.Structure):
    _fields_ = [("forward", Args), ("dout", Operand), ("dq", Operand),
                ("dk", Operand), ("dv", Operand)]


TE_RT_U8, TE_RT_F32, TE_RT_F16, TE_RT_BF16 = 0, 1, 2, 3
TE_RT_BACKEND_CUDA = 1


def operand(t):
    o = Operand()
    if t is None:
        return o
    assert t.dim() == 4
    o.data = t.data_ptr()
    for i in range(4):
        o.shape[i] = t.shape[i]
        o.strides[i] = t.stride(i) if t.shape[i] > 1 else 0
    return o


def te_dtype(dt):
    return {torch.bfloat16: TE_RT_BF16, torch.float16: TE_RT_F16,
            torch.float32: TE_RT_F32, torch.bool: TE_RT_U8,
            torch.uint8: TE_RT_U8}[dt]


class Te:
    """One way of calling te's attention: fwd_fn / bwd_fn with a context,
    and `before` run ahead of each call (the harness's kernel choice)."""

    def __init__(self, name, fwd_fn, bwd_fn, err, ctx, before=None):
        self.name, self.fwd_fn, self.bwd_fn, self.err = (name, fwd_fn, bwd_fn,
                                                         err)
        self.ctx, self.before = ctx, before

    def smoke(self):
        q = torch.randn(1, 1, 64, 64, device="cuda", dtype=torch.bfloat16)
        try:
            self.forward(q, q, q, None, False, 0.125)
            torch.cuda.synchronize()
            return True
        except RuntimeError as e:
            print(self.name, "does not run:", e)
            return False

    def args(self, q, k, v, o, lse, mask, causal, scale):
        a = Args()
        a.dtype = te_dtype(q.dtype)
        a.q, a.k, a.v, a.o = operand(q), operand(k), operand(v), operand(o)
        a.lse = lse.data_ptr() if lse is not None else None
        a.scale = scale
        a.causal = 1 if causal else 0
        if mask is None:
            a.mask_kind = 0
        else:
            a.mask_kind = 2 if mask.dtype in (torch.bool, torch.uint8) else 1
            a.mask_dtype = te_dtype(mask.dtype)
            m = mask.view(torch.uint8) if mask.dtype == torch.bool else mask
            a.mask = operand(m)
        return a

    def forward(self, q, k, v, mask, causal, scale, out=None, lse=None):
        B, H, L, _ = q.shape
        o = out if out is not None else torch.empty(
            B, H, L, v.shape[-1], device=q.device, dtype=q.dtype)
        a = self.args(q, k, v, o, lse, mask, causal, scale)
        if self.before:
            self.before()
        s = self.fwd_fn(self.ctx, ctypes.byref(a))
        if s != 0:
            raise RuntimeError(f"te forward: status {s}: {self.err().decode()}")
        return o

    def backward(self, q, k, v, o, lse, dout, mask, causal, scale,
                 grads=None):
        dq, dk, dv = grads if grads is not None else (
            torch.empty_like(q), torch.empty_like(k), torch.empty_like(v))
        g = GradArgs()
        g.forward = self.args(q, k, v, o, lse, mask, causal, scale)
        g.dout, g.dq, g.dk, g.dv = (operand(dout), operand(dq), operand(dk),
                                    operand(dv))
        s = self.bwd_fn(self.ctx, ctypes.byref(g))
        if s != 0:
            raise RuntimeError(f"te backward: status {s}: {self.err().decode()}")
        return dq, dk, dv


def te_impls(lib_path, harness_path, only=None):
    """te-mma and te-wgmma (each forward kernel, through the harness), and
    te-api (libte_rt's te_rt_attention) when the library runs it."""
    impls = []
    if harness_path and os.path.exists(harness_path):
        h = ctypes.CDLL(harness_path)
        h.te_bench_last_error.restype = ctypes.c_char_p
        # name, forward kernel, backward kernel (FlashAttention.h), run
        # without --kernels
        kernels = [("te-mma", 1, 0, True)]
        if h.te_bench_wgmma_available():
            kernels += [("te-wgmma", 2, 0, True), ("te-wgmma-ovl", 3, 0, True),
                        ("te-wgmma-ws", 4, 0, False),
                        ("te-ovl-bwd128", 3, 1, False),
                        ("te-ws-bwd128", 4, 1, False)]
        has_bwd = hasattr(h, "te_bench_set_backward_kernel")

        def choose(k, kb):
            h.te_bench_set_forward_kernel(k)
            if has_bwd:
                h.te_bench_set_backward_kernel(kb)
        for name, k, kb, default in kernels:
            if (only and name not in only) or (not only and not default):
                continue
            impls.append(Te(name, h.te_bench_attention,
                            h.te_bench_attention_grad, h.te_bench_last_error,
                            ctypes.c_void_p(),
                            lambda k=k, kb=kb: choose(k, kb)))
    if lib_path and os.path.exists(lib_path) and (not only
                                                  or "te-api" in only):
        lib = ctypes.CDLL(lib_path)
        ctx = ctypes.c_void_p()
        if hasattr(lib, "te_rt_attention") and lib.te_rt_context_create(
                TE_RT_BACKEND_CUDA, ctypes.byref(ctx)) == 0:
            lib.te_rt_last_error.restype = ctypes.c_char_p
            impls.append(Te("te-api", lib.te_rt_attention,
                            lib.te_rt_attention_grad, lib.te_rt_last_error,
                            ctx))
    impls = [t for t in impls if t.smoke()]
    if not impls:
        sys.exit("no way to run te's attention (--lib, --harness)")
    return impls


def bench(fn):
    if do_bench is not None:
        return do_bench(fn, warmup=25, rep=60, return_mode="median")
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        a, b = torch.cuda.Event(True), torch.cuda.Event(True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def rel(x, ref):
    x, ref = x.float(), ref.float()
    return ((x - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def reference(q, k, v, dout, mask, causal, scale):
    """fp32 SDPA (explicit softmax) and its gradients, one batch at a time."""
    group = q.shape[1] // k.shape[1]
    outs, dqs, dks, dvs = [], [], [], []
    for b in range(q.shape[0]):
        qf = q[b:b + 1].float().requires_grad_()
        kf = k[b:b + 1].float().requires_grad_()
        vf = v[b:b + 1].float().requires_grad_()
        kr = kf.repeat_interleave(group, dim=1)
        vr = vf.repeat_interleave(group, dim=1)
        s = torch.matmul(qf, kr.transpose(-1, -2)) * scale
        L, S = s.shape[-2], s.shape[-1]
        if causal:
            keep = torch.ones(L, S, dtype=torch.bool, device=q.device).tril()
            s = s.masked_fill(~keep, float("-inf"))
        if mask is not None:
            mb = mask[b:b + 1] if mask.shape[0] > 1 else mask
            if mb.dtype == torch.bool:
                s = s.masked_fill(~mb, float("-inf"))
            else:
                s = s + mb.float()
        p = torch.softmax(s, dim=-1).nan_to_num(0.0)
        o = torch.matmul(p, vr)
        o.backward(dout[b:b + 1].float())
        outs.append(o.detach())
        dqs.append(qf.grad)
        dks.append(kf.grad)
        dvs.append(vf.grad)
        del s, p
    return (torch.cat(outs), torch.cat(dqs), torch.cat(dks), torch.cat(dvs))


BACKENDS = [("cudnn", SDPBackend.CUDNN_ATTENTION),
            ("flash", SDPBackend.FLASH_ATTENTION),
            ("efficient", SDPBackend.EFFICIENT_ATTENTION),
            ("math", SDPBackend.MATH)]


def run_case(tes, name, B, Hq, Hkv, S, D, causal, mask_kind, dtype, rows,
             with_math):
    torch.manual_seed(0)
    dev = "cuda"
    q = torch.randn(B, Hq, S, D, device=dev, dtype=dtype)
    k = torch.randn(B, Hkv, S, D, device=dev, dtype=dtype)
    v = torch.randn(B, Hkv, S, D, device=dev, dtype=dtype)
    dout = torch.randn(B, Hq, S, D, device=dev, dtype=dtype)
    scale = 1.0 / math.sqrt(D)
    mask = None
    if mask_kind == "additive":  # [B, 1, S, S] bf16, some -inf
        mask = torch.randn(B, 1, S, S, device=dev, dtype=dtype)
        mask = mask.masked_fill(torch.rand(B, 1, S, S, device=dev) < 0.1,
                                float("-inf"))
    elif mask_kind == "padding":  # boolean [B, 1, 1, S]: key padding
        lens = torch.randint(S // 2, S + 1, (B,), device=dev)
        mask = (torch.arange(S, device=dev)[None, :] < lens[:, None])
        mask = mask[:, None, None, :]
    flops = 4.0 * B * Hq * S * S * D * (0.5 if causal else 1.0)
    ref = reference(q, k, v, dout, mask, causal, scale)
    first = len(rows)
    base = dict(case=name, B=B, Hq=Hq, Hkv=Hkv, S=S, D=D,
                causal=int(causal), mask=mask_kind or "none",
                dtype=str(dtype).replace("torch.", ""))

    # te, each way of calling it
    lse = torch.empty(B, Hq, S, device=dev, dtype=torch.float32)
    o = torch.empty_like(q)
    grads = (torch.empty_like(q), torch.empty_like(k), torch.empty_like(v))
    for te in tes:
        row = dict(base, impl=te.name)
        try:
            o.fill_(float("nan"))
            for g in grads:
                g.fill_(float("nan"))
            te.forward(q, k, v, mask, causal, scale, o, lse)
            te.backward(q, k, v, o, lse, dout, mask, causal, scale, grads)
            torch.cuda.synchronize()
            row["err_o"] = rel(o, ref[0])
            row["err_dq"], row["err_dk"], row["err_dv"] = (
                rel(grads[0], ref[1]), rel(grads[1], ref[2]),
                rel(grads[2], ref[3]))
            row["fwd_ms"] = bench(
                lambda: te.forward(q, k, v, mask, causal, scale, o, lse))

            def fb():
                te.forward(q, k, v, mask, causal, scale, o, lse)
                te.backward(q, k, v, o, lse, dout, mask, causal, scale, grads)
            row["fwdbwd_ms"] = bench(fb)
        except RuntimeError as e:
            row["note"] = str(e)[:120]
        rows.append(row)

    # PyTorch SDPA, each backend
    gqa = Hq != Hkv
    for bname, backend in BACKENDS:
        if bname == "math" and not with_math:
            continue
        row = dict(base, impl="sdpa-" + bname)
        qg, kg, vg = (t.detach().clone().requires_grad_() for t in (q, k, v))

        def f():
            return F.scaled_dot_product_attention(
                qg, kg, vg, attn_mask=mask, is_causal=causal, scale=scale,
                enable_gqa=gqa)
        try:
            with sdpa_kernel([backend]):
                out = f()
                g = torch.autograd.grad(out, (qg, kg, vg), dout)
                torch.cuda.synchronize()
                row["err_o"] = rel(out, ref[0])
                row["err_dq"], row["err_dk"], row["err_dv"] = (
                    rel(g[0], ref[1]), rel(g[1], ref[2]), rel(g[2], ref[3]))
                del out, g
                with torch.no_grad():
                    row["fwd_ms"] = bench(f)
                row["fwdbwd_ms"] = bench(
                    lambda: torch.autograd.grad(f(), (qg, kg, vg), dout))
        except RuntimeError as e:
            row["note"] = "unsupported: " + str(e).split("\n")[0][:100]
        rows.append(row)
    for r in rows[first:]:
        if "fwd_ms" in r:
            r["fwd_tflops"] = flops / r["fwd_ms"] / 1e9
        if "fwdbwd_ms" in r:
            r["fwdbwd_tflops"] = 3.5 * flops / r["fwdbwd_ms"] / 1e9
    del ref
    torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="build-rt/libte_rt.so")
    ap.add_argument("--harness", default=None)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--set", default="full",
                    choices=["quick", "medium", "full"],
                    help="quick: the headline cases; medium: also GQA, "
                    "the masks, D=64 and S=8192; full: also the S sweep")
    ap.add_argument("--kernels", default="",
                    help="comma-separated te impls to run (te-mma, te-wgmma, "
                    "te-wgmma-ovl, te-wgmma-ws, te-ovl-bwd128, te-ws-bwd128, "
                    "te-api); default: te-mma, te-wgmma, te-wgmma-ovl, te-api")
    args = ap.parse_args()
    only = [k for k in args.kernels.split(",") if k]
    tes = te_impls(args.lib, args.harness, only)
    print("te:", ", ".join(t.name for t in tes), "on",
          torch.cuda.get_device_name(), flush=True)

    bf16 = torch.bfloat16
    cases = [  # name, B, Hq, Hkv, S, D, causal, mask
        ("headline", 4, 32, 32, 2048, 128, True, None),
        ("headline", 4, 32, 32, 2048, 128, False, None),
    ]
    if args.set != "quick":
        cases += [
            ("gqa", 4, 32, 8, 2048, 128, True, None),
            ("mask-additive", 4, 32, 32, 2048, 128, False, "additive"),
            ("mask-padding", 4, 32, 32, 2048, 128, False, "padding"),
            ("headline-d64", 4, 32, 32, 2048, 64, True, None),
            ("long", 2, 16, 16, 8192, 128, True, None),
        ]
    if args.set == "full":
        for D, H in ((128, 16), (64, 32)):
            for S in (512, 1024, 2048, 4096, 8192):
                B = max(1, 16384 // S)
                for causal in (True, False):
                    cases.append(("sweep", B, H, H, S, D, causal, None))
    rows = []
    for (name, B, Hq, Hkv, S, D, causal, mk) in cases:
        with_math = B * Hq * S * S <= 4 * 32 * 2048 * 2048
        print(f"{name} B={B} Hq={Hq} Hkv={Hkv} S={S} D={D} causal={causal}"
              f" mask={mk}", flush=True)
        first = len(rows)
        run_case(tes, name, B, Hq, Hkv, S, D, causal, mk, bf16, rows,
                 with_math)
        for r in rows[first:]:
            print("  ", r["impl"], {k: (round(v, 4) if isinstance(
                v, float) else v) for k, v in r.items()
                if k.startswith(("fwd", "err", "note"))}, flush=True)

    cols = ["case", "impl", "B", "Hq", "Hkv", "S", "D", "causal", "mask",
            "dtype", "fwd_ms", "fwd_tflops", "fwdbwd_ms", "fwdbwd_tflops",
            "err_o", "err_dq", "err_dk", "err_dv", "note"]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "attention.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in cols})

    def fmt(x, d=3):
        return "" if x is None or x == "" else (
            f"{x:.{d}f}" if isinstance(x, float) else str(x))
    lines = [f"{torch.cuda.get_device_name()}, torch {torch.__version__}",
             "",
             "| case | impl | B | Hq/Hkv | S | D | causal | mask | fwd ms | "
             "fwd TF/s | f+b ms | f+b TF/s | err O | err dQ | err dK | "
             "err dV |",
             "|" + "---|" * 16]
    for r in rows:
        if "fwd_ms" not in r:
            continue
        lines.append(
            f"| {r['case']} | {r['impl']} | {r['B']} | {r['Hq']}/{r['Hkv']} "
            f"| {r['S']} | {r['D']} | {r['causal']} | {r['mask']} "
            f"| {fmt(r.get('fwd_ms'))} | {fmt(r.get('fwd_tflops'), 0)} "
            f"| {fmt(r.get('fwdbwd_ms'))} | {fmt(r.get('fwdbwd_tflops'), 0)} "
            f"| {fmt(r.get('err_o'), 5)} | {fmt(r.get('err_dq'), 5)} "
            f"| {fmt(r.get('err_dk'), 5)} | {fmt(r.get('err_dv'), 5)} |")
    md = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "attention.md"), "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()
