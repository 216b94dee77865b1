#!/usr/bin/env python3
# ===- torch_block.py - PyTorch peers of te's GPT block programs ----------=== #
#
# Part of te. The GPT block of bench/block/gen_block.py written in PyTorch
# (nanoGPT's Block: pre-LN, causal self-attention, GELU (tanh) MLP,
# residual adds; bf16), timed on the GPU machine in the same run as te's
# compiled programs (bench/block/run_block.sh), and the accuracy of every
# side against an fp32 reference computed here from the same inputs.
#
#   torch_block.py inputs --size S --dir DIR
#       writes the inputs once, for te's driver (--input) and for this
#       script: x.npy, dout.npy [B, S, H] and the 12 parameters (ln1_w,
#       ln1_b, wqkv, bqkv, wo, bo, ln2_w, ln2_b, w1, b1, w2, b2; nn.Linear's
#       [out, in] weights) as raw bf16 ('<u2'), and acc_<p>.npy, the fp32
#       gradient buffers (zeros, '<f4'). Seeded: x, dout standard normal,
#       weights uniform with variance 1/in, LayerNorm weights in [0.5, 1.5],
#       biases in [-0.2, 0.2].
#
#   torch_block.py bench --size S --dir DIR --csv OUT.csv --errors OUT_ERR.csv
#           [--te NAME=RESULT_DIR ...] [--variants ...] [--modes fwd,train]
#       times each peer (forward: under no_grad; training step: forward,
#       backward from dout with autograd, dx and the 12 parameter gradients
#       added to fp32 buffers), and writes the relative L2 error against
#       the fp32 reference of each peer's results and of te's (RESULT_DIR
#       holds te's result<i>.npy, te-run --output-dir: NAME fwd-<form> is
#       the forward's output, train-<form> dx and the 12 buffers).
#
# Variants (CSV `variant`):
#   eager_bf16         eager bf16 with F.scaled_dot_product_attention (causal)
#   compile_bf16       the same under torch.compile
#   eager_materialized eager bf16, attention written out: q k^T * scale,
#                      masked_fill(-inf), softmax, @ v (nanoGPT's slow path)
#   torch_fp8          the four linears as torch._scaled_mm with FP8 current
#                      scaling (per-tensor amax -> scale = 448 / amax -> E4M3,
#                      torch.compile'd quantizers; backward: E5M2 gradients,
#                      dgrad and wgrad with _scaled_mm), SDPA, the rest bf16
#                      (te's recipe, PyTorch's own ops)
#
# Sizes: small  B=2, S=256, hidden 1024, 16 heads, ffn 4096 (512 tokens)
#        large  B=4, S=2048, hidden 4096, 32 heads, ffn 16384 (8192 tokens)
#
# Timing: CUDA events around one call (forward) or one step (training),
# the device synchronised before each, after warm-up; the CSV gets the
# median of >= 20, the log also min and mean.
#
# ===------------------------------------------------------------------------=== #

import argparse
import csv
import math
import os
import statistics
import sys
import time
import traceback

import numpy as np
import torch
import torch.nn.functional as F

DEV = "cuda"
BF16 = torch.bfloat16
FP32 = torch.float32
E4M3 = torch.float8_e4m3fn
E5M2 = torch.float8_e5m2
E4M3_MAX = 448.0
E5M2_MAX = 57344.0

# name: (batch, seq, hidden, heads, ffn)
SIZES = {
    "small": (2, 256, 1024, 16, 4096),
    "large": (4, 2048, 4096, 32, 16384),
}
PARAMS = ["ln1_w", "ln1_b", "wqkv", "bqkv", "wo", "bo", "ln2_w", "ln2_b", "w1", "b1", "w2", "b2"]
VARIANTS = ["eager_bf16", "compile_bf16", "eager_materialized", "torch_fp8"]


def param_shapes(H, Fd):
    return {"ln1_w": [H], "ln1_b": [H], "wqkv": [3 * H, H], "bqkv": [3 * H], "wo": [H, H], "bo": [H],
            "ln2_w": [H], "ln2_b": [H], "w1": [Fd, H], "b1": [Fd], "w2": [H, Fd], "b2": [H]}


# --- inputs --------------------------------------------------------------------


def save_bf16(path, t):
    np.save(path, t.detach().to(BF16).contiguous().view(torch.int16).cpu().numpy().view(np.uint16))


def load(path):
    a = np.load(path)
    if a.dtype == np.uint16:  # raw bf16
        return torch.from_numpy(a.view(np.int16).copy()).view(BF16).to(DEV)
    return torch.from_numpy(a.astype(np.float32)).to(DEV)


def write_inputs(size, d, seed):
    B, S, H, NH, Fd = SIZES[size]
    os.makedirs(d, exist_ok=True)
    g = torch.Generator(device=DEV)
    g.manual_seed(seed)

    def normal(*shape):
        return torch.randn(*shape, generator=g, device=DEV, dtype=FP32)

    def uniform(shape, lo, hi):
        return torch.rand(*shape, generator=g, device=DEV, dtype=FP32) * (hi - lo) + lo

    shapes = param_shapes(H, Fd)
    save_bf16(os.path.join(d, "x.npy"), normal(B, S, H))
    save_bf16(os.path.join(d, "dout.npy"), normal(B, S, H))
    for p in PARAMS:
        shp = shapes[p]
        if p.startswith("ln") and p.endswith("_w"):
            t = uniform(shp, 0.5, 1.5)
        elif len(shp) == 1:
            t = uniform(shp, -0.2, 0.2)
        else:
            lim = math.sqrt(3.0 / shp[1])
            t = uniform(shp, -lim, lim)
        save_bf16(os.path.join(d, f"{p}.npy"), t)
        np.save(os.path.join(d, f"acc_{p}.npy"), np.zeros(shp, dtype=np.float32))
    print(f"torch_block: wrote the {size} inputs into {d}")


def read_inputs(d):
    x = load(os.path.join(d, "x.npy"))
    dout = load(os.path.join(d, "dout.npy"))
    params = [load(os.path.join(d, f"{p}.npy")) for p in PARAMS]
    return x, dout, params


# --- the block -------------------------------------------------------------------


def attn_sdpa(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def attn_materialized(q, k, v):
    S = q.shape[-2]
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.shape[-1]))
    mask = torch.ones(S, S, dtype=torch.bool, device=q.device).tril()
    att = att.masked_fill(~mask, float("-inf"))
    att = F.softmax(att, dim=-1)
    return att @ v


def block(x, params, nh, attn, linear=F.linear):
    """nanoGPT's Block on x [B, S, H]."""
    ln1_w, ln1_b, wqkv, bqkv, wo, bo, ln2_w, ln2_b, w1, b1, w2, b2 = params
    B, S, H = x.shape
    a = F.layer_norm(x, (H,), ln1_w, ln1_b, 1e-5)
    qkv = linear(a.reshape(B * S, H), wqkv, bqkv).view(B, S, 3 * H)
    q, k, v = qkv.split(H, dim=2)
    q = q.view(B, S, nh, H // nh).transpose(1, 2)
    k = k.view(B, S, nh, H // nh).transpose(1, 2)
    v = v.view(B, S, nh, H // nh).transpose(1, 2)
    o = attn(q, k, v).transpose(1, 2).contiguous().view(B * S, H)
    h = x + linear(o, wo, bo).view(B, S, H)
    m = F.layer_norm(h, (H,), ln2_w, ln2_b, 1e-5)
    f = F.gelu(linear(m.reshape(B * S, H), w1, b1), approximate="tanh")
    return h + linear(f, w2, b2).view(B, S, H)


# --- FP8 current scaling: torch._scaled_mm ----------------------------------------


def _scale(amax, fmax):
    s = fmax / amax
    return torch.where(torch.isfinite(s) & (amax > 0), s, torch.ones_like(s))


def quant_rows(t, fmax, dtype):
    amax = t.abs().amax().float()
    s = _scale(amax, fmax)
    return (t.float() * s).clamp(-fmax, fmax).to(dtype), s.reciprocal()


def quant_both(t, fmax, dtype):
    amax = t.abs().amax().float()
    s = _scale(amax, fmax)
    q = (t.float() * s).clamp(-fmax, fmax).to(dtype)
    return q, q.t().contiguous(), s.reciprocal()


_Q = {}


def qfns():
    if not _Q:
        c = lambda f: torch.compile(f, dynamic=False)  # noqa: E731
        _Q["q4r"] = c(lambda t: quant_rows(t, E4M3_MAX, E4M3))
        _Q["q4"] = c(lambda t: quant_both(t, E4M3_MAX, E4M3))
        _Q["q5"] = c(lambda t: quant_both(t, E5M2_MAX, E5M2))
    return _Q


BIAS_IN_GEMM = [True]  # cleared if this torch refuses _scaled_mm's bias


class Fp8Linear(torch.autograd.Function):
    """y = x w^T + b with E4M3 current scaling (fast accumulation, bias in
    the GEMM); backward: dY in E5M2, dgrad dY W and wgrad dY^T X."""

    @staticmethod
    def forward(ctx, x, w, b):
        q = qfns()
        if any(ctx.needs_input_grad):
            qx, qxt, sx = q["q4"](x)
            qw, qwt, sw = q["q4"](w)
        else:
            qx, sx = q["q4r"](x)
            qw, sw = q["q4r"](w)
            qxt = qwt = None
        y = None
        if BIAS_IN_GEMM[0]:
            try:
                y = torch._scaled_mm(qx, qw.t(), sx, sw, bias=b, out_dtype=BF16, use_fast_accum=True)
            except Exception as e:  # noqa: BLE001
                print(f"torch_block: _scaled_mm with bias refused ({str(e).splitlines()[0][:120]}); "
                      "adding it apart")
                BIAS_IN_GEMM[0] = False
        if y is None:
            y = torch._scaled_mm(qx, qw.t(), sx, sw, out_dtype=BF16, use_fast_accum=True) + b
        ctx.save_for_backward(qxt, qwt, sx, sw)
        return y

    @staticmethod
    def backward(ctx, dy):
        qxt, qwt, sx, sw = ctx.saved_tensors
        q = qfns()
        qd, qdt, sd = q["q5"](dy.contiguous())
        dx = torch._scaled_mm(qd, qwt.t(), sd, sw, out_dtype=BF16)      # [T,out] x [out,in]
        dw = torch._scaled_mm(qdt, qxt.t(), sd, sx, out_dtype=BF16)     # [out,T] x [T,in]
        return dx, dw, dy.sum(0)


def fp8_linear(x, w, b):
    return Fp8Linear.apply(x, w, b)


# --- steps --------------------------------------------------------------------------


def make_forward(variant, x, params, nh):
    if variant == "eager_bf16":
        fn = lambda: block(x, params, nh, attn_sdpa)  # noqa: E731
    elif variant == "compile_bf16":
        cb = torch.compile(lambda x_, p_: block(x_, p_, nh, attn_sdpa), dynamic=False)
        fn = lambda: cb(x, params)  # noqa: E731
    elif variant == "eager_materialized":
        fn = lambda: block(x, params, nh, attn_materialized)  # noqa: E731
    elif variant == "torch_fp8":
        fn = lambda: block(x, params, nh, attn_sdpa, fp8_linear)  # noqa: E731
    else:
        raise ValueError(f"unknown variant {variant}")

    def step():
        with torch.no_grad():
            return [fn()]

    return step


def make_train(variant, x, dout, params, nh, attn=attn_sdpa, linear=F.linear):
    ps = [p.detach().requires_grad_(True) for p in params]
    xr = x.detach().requires_grad_(True)
    if variant == "compile_bf16":
        fwd = torch.compile(lambda x_, p_: block(x_, p_, nh, attn_sdpa), dynamic=False)
    elif variant == "eager_materialized":
        fwd = lambda x_, p_: block(x_, p_, nh, attn_materialized)  # noqa: E731
    elif variant == "torch_fp8":
        fwd = lambda x_, p_: block(x_, p_, nh, attn_sdpa, fp8_linear)  # noqa: E731
    elif variant in ("eager_bf16", "reference"):
        fwd = lambda x_, p_: block(x_, p_, nh, attn_sdpa)  # noqa: E731
    else:
        raise ValueError(f"unknown variant {variant}")
    acc = [torch.zeros(p.shape, device=DEV, dtype=FP32) for p in ps]

    def step():
        for a in acc:  # the buffers of one step (te's come in as zeros)
            a.zero_()
        out = fwd(xr, ps)
        grads = torch.autograd.grad(out, [xr] + ps, grad_outputs=dout)
        for a, g in zip(acc, grads[1:]):
            a.add_(g)
        return [grads[0]] + acc

    return step


def time_it(step, steps, warmup):
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(steps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        a.record()
        step()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times), min(times), statistics.mean(times)


def rel_err(got, ref):
    got = got.double().reshape(-1)
    ref = ref.double().reshape(-1)
    den = ref.norm().item()
    return (got - ref).norm().item() / (den if den > 0 else 1.0)


NAMES = {"fwd": ["out"], "train": ["dx"] + [f"d{p}" for p in PARAMS]}


def errors(got, ref):
    """Relative L2 errors of a list of results against the reference's."""
    if len(got) != len(ref):
        raise ValueError(f"{len(got)} results, the reference has {len(ref)}")
    return [rel_err(g.reshape(r.shape), r) for g, r in zip(got, ref)]


class Csv:
    def __init__(self, path, head):
        self.path, self.head, self.rows = path, head, []
        self.flush()

    def add(self, *row):
        self.rows.append(row)
        self.flush()

    def flush(self):
        if not self.path:
            return
        with open(self.path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(self.head)
            w.writerows(self.rows)


def load_te(d, mode, shapes):
    n = len(NAMES[mode])
    out = []
    for i in range(n):
        p = os.path.join(d, f"result{i}.npy")
        if not os.path.exists(p):
            raise FileNotFoundError(p)
        out.append(torch.from_numpy(np.load(p).astype(np.float32)).to(DEV))
    return out


def bench(args):
    size = args.size
    B, S, H, NH, Fd = SIZES[size]
    T = B * S
    gemm = 2 * T * H * (3 * H + H + 2 * Fd)
    att = 4 * B * NH * S * S * (H // NH) / 2  # causal
    fwd_flops = gemm + att
    print(f"size {size}: batch {B}, seq {S}, hidden {H}, {NH} heads, ffn {Fd} ({T} tokens; "
          f"forward {fwd_flops / 1e9:.1f} GFLOP)")
    x, dout, params = read_inputs(args.dir)
    times = Csv(args.csv, ["size", "mode", "variant", "ms", "min_ms", "mean_ms"])
    errs = Csv(args.errors, ["size", "mode", "variant", "tensor", "rel_err"])

    # fp32 reference (no TF32), from the same bf16 values.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    refs = {}
    x32, dout32, p32 = x.float(), dout.float(), [p.float() for p in params]
    if "fwd" in args.modes:
        with torch.no_grad():
            refs["fwd"] = [block(x32, p32, NH, attn_materialized)]
    if "train" in args.modes:
        # SDPA on fp32 runs its math or memory-efficient backend: exact fp32.
        refs["train"] = [t.clone() for t in make_train("reference", x32, dout32, p32, NH)()]
    torch.cuda.synchronize()
    del x32, dout32, p32

    def record_errors(mode, variant, got):
        try:
            es = errors(got, refs[mode])
        except Exception as e:  # noqa: BLE001
            print(f"  {mode} {variant}: no errors ({e})")
            return
        for n, e in zip(NAMES[mode], es):
            errs.add(size, mode, variant, n, f"{e:.4e}")
        grads = es[1:]
        print(f"  {mode:5s} {variant:20s} rel. L2 error vs fp32: {NAMES[mode][0]} {es[0]:.3e}"
              + (f", parameter gradients {min(grads):.3e} .. {max(grads):.3e}" if grads else ""))

    # te's results (te-run --output-dir of its programs, same inputs).
    for spec in args.te:
        name, _, d = spec.partition("=")
        mode = "train" if name.startswith("train") else "fwd"
        if mode not in refs:
            continue
        try:
            got = load_te(d, mode, None)
        except Exception as e:  # noqa: BLE001
            print(f"  te {name}: no results ({e})")
            continue
        record_errors(mode, "te-" + name, got)
        del got

    for mode in args.modes:
        for v in args.variants:
            if time.time() - START > args.budget:
                print(f"  {mode:5s} {v:20s} skipped (budget {args.budget:.0f} s spent)")
                times.add(size, mode, v, "", "", "")
                continue
            t0 = time.time()
            try:
                step = make_forward(v, x, params, NH) if mode == "fwd" else make_train(v, x, dout, params, NH)
                got = step()
                torch.cuda.synchronize()
                first = time.time() - t0
                record_errors(mode, v, got)
                del got
                med, mn, mean = time_it(step, args.steps, args.warmup)
                fl = fwd_flops * (3 if mode == "train" else 1)
                print(f"  {mode:5s} {v:20s} median {med:8.3f} ms  min {mn:8.3f}  mean {mean:8.3f}  "
                      f"({fl / med / 1e9:7.1f} TFLOP/s; first call {first:.1f} s)")
                times.add(size, mode, v, f"{med:.4f}", f"{mn:.4f}", f"{mean:.4f}")
            except Exception as e:  # noqa: BLE001
                print(f"  {mode:5s} {v:20s} FAILED: {str(e).splitlines()[0][:300] if str(e) else type(e).__name__}")
                traceback.print_exc(limit=3)
                times.add(size, mode, v, "", "", "")
            sys.stdout.flush()
            torch.cuda.empty_cache()


START = time.time()


def main():
    p = argparse.ArgumentParser(description="PyTorch peers of te's GPT block programs")
    sub = p.add_subparsers(dest="cmd", required=True)
    pi = sub.add_parser("inputs", help="write the inputs (.npy) once")
    pi.add_argument("--size", required=True, choices=sorted(SIZES))
    pi.add_argument("--dir", required=True)
    pi.add_argument("--seed", type=int, default=1)
    pb = sub.add_parser("bench", help="time the peers, errors against the fp32 reference")
    pb.add_argument("--size", required=True, choices=sorted(SIZES))
    pb.add_argument("--dir", required=True, help="the inputs (torch_block.py inputs)")
    pb.add_argument("--csv", help="size,mode,variant,ms,min_ms,mean_ms")
    pb.add_argument("--errors", help="size,mode,variant,tensor,rel_err")
    pb.add_argument("--te", action="append", default=[], metavar="NAME=DIR",
                    help="te's results of program NAME (fwd-<form>, train-<form>) in DIR")
    pb.add_argument("--variants", default=",".join(VARIANTS))
    pb.add_argument("--modes", default="fwd,train")
    pb.add_argument("--steps", type=int, default=20)
    pb.add_argument("--warmup", type=int, default=3)
    pb.add_argument("--budget", type=float, default=300.0, help="seconds; later variants are skipped past it")
    a = p.parse_args()
    try:
        import torch._dynamo
        for name in ("recompile_limit", "cache_size_limit"):
            if hasattr(torch._dynamo.config, name):
                setattr(torch._dynamo.config, name, 64)
    except Exception:  # noqa: BLE001
        pass
    print(f"torch {torch.__version__}, cuda {torch.version.cuda}, {torch.cuda.get_device_name()}")
    if a.cmd == "inputs":
        write_inputs(a.size, a.dir, a.seed)
        return
    a.variants = [v for v in a.variants.split(",") if v]
    a.modes = [m for m in a.modes.split(",") if m]
    a.steps = max(a.steps, 20)
    bench(a)
    print(f"torch_block: {a.size} done in {time.time() - START:.0f} s")


if __name__ == "__main__":
    main()
