#!/usr/bin/env python3
# ===- torch_step.py - PyTorch peers of the compiled MLP training step -----=== #
#
# Part of te. The step of examples/mlp-train-step-<recipe>.mlir, written in
# PyTorch, timed on the GPU machine in the same run as te's compiled step
# (bench/step/run_step.sh):
#
#   for each microbatch of MB tokens of the batch x, target [tokens, hidden]:
#     h = x W1^T + b1 -> a = gelu_tanh(h) -> y = a W2^T + b2
#     loss += sum 0.5 (y - target)^2 / tokens
#     backward (no dX: x is an input, as in te's step), and the bf16 weight
#     and bias gradients accumulated in fp32
#
# Variants (CSV `variant`):
#   eager_bf16    autograd (torch.autograd.grad per microbatch), bf16 weights,
#                 fp32 accumulators
#   compile_bf16  the same with the microbatch's forward + loss under
#                 torch.compile (AOTAutograd compiles its backward too)
#   torch_fp8     PyTorch's own FP8 current-scaling step: per-tensor amax ->
#                 scale -> cast (torch.compile'd, with the transposed copy),
#                 torch._scaled_mm for fprop (E4M3 x E4M3, fast accumulation,
#                 bias fused), dgrad and wgrad (E5M2 gradients, split
#                 accumulation), GELU and its derivative in bf16; the weights
#                 are quantized once per step (te's cached weight), x and the
#                 activations per microbatch
#
# Sizes (CSV `size`; te's objects are step-<recipe>-<size>.o):
#   small  hidden 256, ffn 1024, microbatch 128, 256 tokens (the examples)
#   large  hidden 4096, ffn 16384, microbatch 2048, 8192 tokens
#
# Inputs: standard-normal bf16 x, target, W1, b1, W2, b2 -- what te's driver
# makes with --seed (the values differ, the distribution is the same).
#
# Timing: CUDA events around one whole step (accumulator zeroing included),
# the device synchronised before each step, after --warmup steps; the CSV
# gets the median of --steps (>= 20) steps, the log also min and mean.
#
# Check (printed): the eager bf16 step's loss and gradients against an fp32
# reference of the same computation (relative L2 error, loose tolerance), so
# the peer computes what te computes; compile_bf16 and torch_fp8 likewise
# (FP8 with a looser tolerance).
#
# Usage: python3 bench/step/torch_step.py --csv OUT.csv [--sizes small,large]
#            [--variants eager_bf16,compile_bf16,torch_fp8] [--steps 20]
#
# ===------------------------------------------------------------------------=== #

import argparse
import csv
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F

DEV = "cuda"
BF16 = torch.bfloat16
FP32 = torch.float32
E4M3 = torch.float8_e4m3fn
E5M2 = torch.float8_e5m2
E4M3_MAX = 448.0
E5M2_MAX = 57344.0

# name: (hidden, ffn, microbatch, tokens)
SIZES = {
    "small": (256, 1024, 128, 256),
    "large": (4096, 16384, 2048, 8192),
}
VARIANTS = ["eager_bf16", "compile_bf16", "torch_fp8"]

# Relative L2 error allowed against the fp32 reference (loose: the point is
# "same computation", not accuracy).
TOL = {"eager_bf16": 0.03, "compile_bf16": 0.03, "torch_fp8": 0.25}


def make_inputs(size, seed):
    H, Fd, _, N = SIZES[size]
    g = torch.Generator(device=DEV)
    g.manual_seed(seed)

    def r(*shape):
        return torch.randn(*shape, generator=g, device=DEV, dtype=FP32).to(BF16)

    return r(N, H), r(N, H), r(Fd, H), r(Fd), r(H, Fd), r(H)


# --- bf16 (and the fp32 reference): autograd ---------------------------------


def mb_loss(xi, ti, w1, b1, w2, b2, inv):
    """One microbatch's forward and loss (fp32 loss, as te's @mse)."""
    h = F.linear(xi, w1, b1)
    a = F.gelu(h, approximate="tanh")
    y = F.linear(a, w2, b2)
    d = y.float() - ti.float()
    return 0.5 * (d * d).sum() * inv


def make_autograd_step(loss_fn, x, t, params, mb):
    N = x.shape[0]
    inv = 1.0 / N
    params = [p.detach().requires_grad_(True) for p in params]

    def step():
        acc = [torch.zeros(p.shape, device=DEV, dtype=FP32) for p in params]
        loss = torch.zeros((), device=DEV, dtype=FP32)
        for i in range(N // mb):
            xi = x[i * mb:(i + 1) * mb]
            ti = t[i * mb:(i + 1) * mb]
            li = loss_fn(xi, ti, *params, inv)
            grads = torch.autograd.grad(li, params)
            for a_, g_ in zip(acc, grads):
                a_.add_(g_)
            loss += li.detach()
        return loss, acc

    return step


# --- FP8 current scaling: torch._scaled_mm -----------------------------------


def _scale(amax, fmax):
    # TE's current scaling: scale = fmax / amax (1 where amax is 0 or not finite).
    s = fmax / amax
    return torch.where(torch.isfinite(s) & (amax > 0), s, torch.ones_like(s))


def quant_both(t, fmax, dtype):
    """Per-tensor amax -> scale -> cast, rowwise and transposed (one read)."""
    amax = t.abs().amax().float()
    s = _scale(amax, fmax)
    q = (t.float() * s).clamp(-fmax, fmax).to(dtype)
    return q, q.t().contiguous(), s.reciprocal()


def quant_rows(t, fmax, dtype):
    amax = t.abs().amax().float()
    s = _scale(amax, fmax)
    return (t.float() * s).clamp(-fmax, fmax).to(dtype), s.reciprocal()


def quant_cols(t, fmax, dtype):
    amax = t.abs().amax().float()
    s = _scale(amax, fmax)
    return (t.float() * s).clamp(-fmax, fmax).to(dtype).t().contiguous(), s.reciprocal()


_FP8_FNS = {}


def fp8_fns():
    if not _FP8_FNS:
        c = lambda f: torch.compile(f, dynamic=False)  # noqa: E731
        _FP8_FNS["q4"] = c(lambda t: quant_both(t, E4M3_MAX, E4M3))
        _FP8_FNS["q4r"] = c(lambda t: quant_rows(t, E4M3_MAX, E4M3))
        _FP8_FNS["q5"] = c(lambda t: quant_both(t, E5M2_MAX, E5M2))
        _FP8_FNS["q5c"] = c(lambda t: quant_cols(t, E5M2_MAX, E5M2))
    return _FP8_FNS


BIAS_IN_GEMM = [True]  # cleared if this torch refuses _scaled_mm's bias


def fprop(qa, qbt, sa, sb, bias):
    """[M,K] x [N,K]^T + bias, E4M3 both, fast accumulation (TE's fprop)."""
    if BIAS_IN_GEMM[0]:
        try:
            return torch._scaled_mm(qa, qbt.t(), sa, sb, bias=bias, out_dtype=BF16, use_fast_accum=True)
        except Exception as e:  # noqa: BLE001
            print(f"torch_step: _scaled_mm with bias refused ({str(e).splitlines()[0][:120]}); adding it apart")
            BIAS_IN_GEMM[0] = False
    return torch._scaled_mm(qa, qbt.t(), sa, sb, out_dtype=BF16, use_fast_accum=True) + bias


def make_fp8_step(x, t, params, mb):
    N = x.shape[0]
    inv = 1.0 / N
    w1, b1, w2, b2 = params
    q = fp8_fns()
    sm = torch._scaled_mm

    def step():
        acc = [torch.zeros(p.shape, device=DEV, dtype=FP32) for p in params]
        dw1, db1, dw2, db2 = acc
        loss = torch.zeros((), device=DEV, dtype=FP32)
        # Weights once per step: W1 rowwise (fprop; no dX, so no W1 dgrad),
        # W2 rowwise (fprop) and transposed (dgrad).
        qw1, sw1 = q["q4r"](w1)
        qw2, qw2t, sw2 = q["q4"](w2)
        for i in range(N // mb):
            xi = x[i * mb:(i + 1) * mb]
            ti = t[i * mb:(i + 1) * mb]
            qx, qxt, sx = q["q4"](xi)
            h = fprop(qx, qw1, sx, sw1, b1)                    # [mb, F]
            a = F.gelu(h, approximate="tanh")
            qa, qat, sa = q["q4"](a)
            y = fprop(qa, qw2, sa, sw2, b2)                    # [mb, H]
            d = y.float() - ti.float()
            loss += 0.5 * (d * d).sum() * inv
            dy = (d * inv).to(BF16)
            qdy, qdyt, sdy = q["q5"](dy)
            da = sm(qdy, qw2t.t(), sdy, sw2, out_dtype=BF16)   # dgrad NN: [mb,H] x [H,F]
            gw2 = sm(qdyt, qat.t(), sdy, sa, out_dtype=BF16)   # wgrad NT: [H,mb] x [mb,F]
            dw2.add_(gw2)
            db2.add_(dy.sum(0))
            dh = torch.ops.aten.gelu_backward(da, h, approximate="tanh")
            qdht, sdh = q["q5c"](dh)
            gw1 = sm(qdht, qxt.t(), sdh, sx, out_dtype=BF16)   # wgrad NT: [F,mb] x [mb,H]
            dw1.add_(gw1)
            db1.add_(dh.sum(0))
        return loss, acc

    return step


# --- timing, checking ---------------------------------------------------------


def time_step(step, steps, warmup):
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


def rel_err(a, b):
    a = a.double()
    b = b.double()
    den = b.norm().item()
    return (a - b).norm().item() / (den if den > 0 else 1.0)


def check(name, got, ref, tol):
    names = ["loss", "dW1", "db1", "dW2", "db2"]
    vals = [got[0]] + list(got[1])
    refs = [ref[0]] + list(ref[1])
    errs = [rel_err(v, r) for v, r in zip(vals, refs)]
    ok = all(e <= tol for e in errs)
    print(f"  check {name:13s} vs fp32 reference (rel. L2, tol {tol}): "
          + " ".join(f"{n}={e:.2e}" for n, e in zip(names, errs))
          + ("  ok" if ok else "  MISMATCH"))
    return ok


class Csv:
    def __init__(self, path):
        self.path = path
        self.rows = []
        self.flush()

    def add(self, size, variant, ms):
        self.rows.append((size, variant, "" if ms is None else f"{ms:.4f}"))
        self.flush()

    def flush(self):
        with open(self.path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["size", "variant", "ms"])
            w.writerows(self.rows)


def run_size(size, args, out):
    H, Fd, MB, N = SIZES[size]
    flops = 10.0 * N * H * Fd  # 5 GEMMs (fprop x2, dgrad fc2, wgrad x2) per token row
    print(f"size {size}: hidden {H}, ffn {Fd}, microbatch {MB}, tokens {N} "
          f"({N // MB} microbatches, {flops / 1e9:.2f} GFLOP in GEMMs per step)")
    x, t, *params = make_inputs(size, args.seed)
    ref = None
    if not args.no_check:
        torch.backends.cuda.matmul.allow_tf32 = False
        ref_step = make_autograd_step(mb_loss, x.float(), t.float(), [p.float() for p in params], MB)
        ref = ref_step()
        torch.cuda.synchronize()
    for v in args.variants:
        if time.time() - START > args.budget:
            print(f"  {v:13s} skipped (budget {args.budget:.0f} s spent)")
            out.add(size, v, None)
            continue
        t0 = time.time()
        try:
            if v == "eager_bf16":
                step = make_autograd_step(mb_loss, x, t, params, MB)
            elif v == "compile_bf16":
                step = make_autograd_step(torch.compile(mb_loss, dynamic=False), x, t, params, MB)
            elif v == "torch_fp8":
                step = make_fp8_step(x, t, params, MB)
            else:
                raise ValueError(f"unknown variant {v}")
            got = step()  # first call: compiles where it compiles
            torch.cuda.synchronize()
            first = time.time() - t0
            if ref is not None:
                check(v, got, ref, TOL[v])
            del got
            med, mn, mean = time_step(step, args.steps, args.warmup)
            print(f"  {v:13s} median {med:8.3f} ms  min {mn:8.3f}  mean {mean:8.3f}  "
                  f"({flops / med / 1e9:7.1f} TFLOP/s; first call {first:.1f} s)")
            out.add(size, v, med)
        except Exception as e:  # noqa: BLE001
            print(f"  {v:13s} FAILED: {str(e).splitlines()[0][:300] if str(e) else type(e).__name__}")
            traceback.print_exc(limit=3)
            out.add(size, v, None)
        sys.stdout.flush()
    del x, t, params, ref
    torch.cuda.empty_cache()


START = time.time()


def main():
    p = argparse.ArgumentParser(description="PyTorch peers of te's compiled MLP training step")
    p.add_argument("--csv", required=True, help="output CSV: size,variant,ms (median)")
    p.add_argument("--sizes", default="small,large")
    p.add_argument("--variants", default=",".join(VARIANTS))
    p.add_argument("--steps", type=int, default=20, help="timed steps (median; >= 20)")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--budget", type=float, default=220.0, help="seconds; later variants are skipped past it")
    p.add_argument("--no-check", action="store_true", help="skip the fp32 reference check")
    args = p.parse_args()
    args.variants = [v for v in args.variants.split(",") if v]
    args.steps = max(args.steps, 20)
    try:  # one compiled quantizer per shape (dynamic=False): more than the default 8
        import torch._dynamo
        for name in ("recompile_limit", "cache_size_limit"):
            if hasattr(torch._dynamo.config, name):
                setattr(torch._dynamo.config, name, 64)
    except Exception:  # noqa: BLE001
        pass
    print(f"torch {torch.__version__}, cuda {torch.version.cuda}, {torch.cuda.get_device_name()}")
    out = Csv(args.csv)
    for size in [s for s in args.sizes.split(",") if s]:
        if size not in SIZES:
            print(f"torch_step: unknown size {size} (known: {', '.join(SIZES)})")
            continue
        run_size(size, args, out)
    print(f"torch_step: wrote {args.csv} ({len(out.rows)} rows) in {time.time() - START:.0f} s")


if __name__ == "__main__":
    main()
