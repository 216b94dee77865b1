#!/usr/bin/env python3
# ===- torch_peers.py - PyTorch peers of te_bench ---------------------------=== #
#
# Part of te. Runs on the GPU machine, in the same call as te_bench
# (bench/run_gpu.sh), and writes one CSV row per measurement with the same
# `key` as te_bench's row it is the peer of:
#
#   key,impl,desc,ms,bytes,flops,note
#
# impl: torch_copy, torch_eager / torch_compile (natural PyTorch quantization
# code per recipe, producing the same buffers as te_rt: rowwise data + scales,
# columnwise data + scales), scaled_mm (torch._scaled_mm: tensorwise,
# rowwise, 1x128 x 128x128, 128x128 x 1x128), torch_mm (bf16), compile_deq_mm
# (MXFP8 / NVFP4 emulated GEMM: dequantize + bf16 mm under torch.compile),
# autograd_bf16 (nn.Linear fwd + bwd), torch_fp8 (the FP8 current-scaling
# Linear step written with torch.compile'd quantization + _scaled_mm).
#
# Timing: triton.testing.do_bench (CUDA events, L2 flushed before every call,
# median). Every peer is wrapped: a failure becomes a row with an empty time
# and the error in `note`; the script never stops early except at --budget.
#
# ===------------------------------------------------------------------------=== #

import argparse
import csv
import math
import sys
import time
import traceback

import torch

try:
    import triton.testing

    def median_ms(fn):
        return float(
            triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
        )

except Exception:  # pragma: no cover - triton ships with torch on the GPU box

    def median_ms(fn):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(20):
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            torch.cuda.synchronize()
            times.append(a.elapsed_time(b))
        times.sort()
        return times[len(times) // 2]


DEV = "cuda"
BF16 = torch.bfloat16
E4M3 = torch.float8_e4m3fn
E5M2 = torch.float8_e5m2
E4M3_MAX = 448.0
E5M2_MAX = 57344.0

ROWS = []
START = time.time()
ARGS = None


def out_path():
    return ARGS.csv


def write_csv():
    with open(out_path(), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["key", "impl", "desc", "ms", "bytes", "flops", "note"])
        for r in ROWS:
            w.writerow(
                [
                    r["key"],
                    r["impl"],
                    r["desc"],
                    "" if r["ms"] is None else "%.6f" % r["ms"],
                    "%.0f" % r.get("bytes", 0),
                    "%.0f" % r.get("flops", 0),
                    r.get("note", ""),
                ]
            )


def emit(key, impl, desc, ms, nbytes=0, flops=0, note=""):
    ROWS.append(
        dict(key=key, impl=impl, desc=desc, ms=ms, bytes=nbytes, flops=flops, note=note)
    )
    if ms is None:
        print("%-34s %-14s %10s   %s" % (key, impl, "FAILED", note), flush=True)
    else:
        extra = ""
        if nbytes:
            extra += " %8.1f GB/s" % (nbytes / ms / 1e6)
        if flops:
            extra += " %8.1f TFLOP/s" % (flops / ms / 1e9)
        print("%-34s %-14s %10.4f ms%s" % (key, impl, ms, extra), flush=True)
    write_csv()


def out_of_budget():
    return time.time() - START > ARGS.budget


def back_to_back_ms(fn, target_ms=20.0, samples=11):
    """te_bench's timing: CUDA events around batches of back-to-back calls
    (each batch >= target_ms), the median per-call time of `samples` batches.
    No L2 flush and no idle gap between calls: the GPU runs at the clocks a
    sustained stream of such calls gets (--b2b)."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    a.record()
    fn()
    b.record()
    b.synchronize()
    n = max(1, int(target_ms / max(a.elapsed_time(b), 1e-3)))
    times = []
    for _ in range(samples):
        a.record()
        for _ in range(n):
            fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / n)
    times.sort()
    return times[len(times) // 2]


SECTION = ""  # the section being measured (--b2b picks the timing by it)


def measure(key, impl, desc, fn, nbytes=0, flops=0, note=""):
    """Times fn (median ms) and emits a row; failures become rows."""
    if out_of_budget():
        emit(key, impl, desc, None, nbytes, flops, "skipped: --budget reached")
        return None
    try:
        if SECTION in ARGS.b2b.split(","):
            ms = back_to_back_ms(fn)
            note = (note + "; " if note else "") + "timed back-to-back"
        else:
            ms = median_ms(fn)
        emit(key, impl, desc, ms, nbytes, flops, note)
        return ms
    except Exception as e:  # noqa: BLE001 - a peer must never stop the run
        msg = ("%s: %s" % (type(e).__name__, e)).splitlines()[0][:300]
        emit(key, impl, desc, None, nbytes, flops, msg)
        traceback.print_exc(limit=2)
        return None


def nbytes_of(*tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


def shape_key(*dims):
    return "x".join(str(d) for d in dims)


# ===----------------------------------------------------------------------=== #
# Natural PyTorch quantization, one function per recipe (rowwise +
# columnwise, the buffers te_rt writes). Formulas: docs/formats.md.
# ===----------------------------------------------------------------------=== #


def _pow2_floor(s):
    return torch.exp2(torch.floor(torch.log2(s)))


def _scale_from_amax(amax, fmax):
    scale = fmax / amax
    scale = torch.where(torch.isfinite(scale), scale, torch.full_like(scale, 1.0))
    return torch.where(amax > 0, scale, torch.ones_like(scale))


def quant_current(x, fmax=E4M3_MAX, dtype=E4M3):
    """Per-tensor current scaling: amax, scale, cast + transposed copy."""
    amax = x.abs().amax().float()
    scale = _scale_from_amax(amax, fmax)
    q = (x.float() * scale).clamp(-fmax, fmax).to(dtype)
    return q, q.t().contiguous(), scale.reciprocal(), amax


def quant_given_amax(x, amax):
    """Current scaling with the amax given (e.g. from the producer)."""
    scale = _scale_from_amax(amax, E4M3_MAX)
    q = (x.float() * scale).clamp(-E4M3_MAX, E4M3_MAX).to(E4M3)
    return q, q.t().contiguous(), scale.reciprocal()


def quant_delayed(x, scale):
    """Delayed scaling: the scale is given; this step's amax is recorded."""
    amax = x.abs().amax().float()
    q = (x.float() * scale).clamp(-E4M3_MAX, E4M3_MAX).to(E4M3)
    return q, q.t().contiguous(), scale.reciprocal(), amax


def _block1d_rows(t):
    rows, cols = t.shape
    tb = t.float().reshape(rows, cols // 128, 128)
    amax = tb.abs().amax(-1, keepdim=True)
    scale = _pow2_floor(_scale_from_amax(amax, E4M3_MAX))
    q = (tb * scale).clamp(-E4M3_MAX, E4M3_MAX).to(E4M3).reshape(rows, cols)
    # GEMM-ready scale layout: [cols/128, rows], rows contiguous.
    sinv = scale.reciprocal().reshape(rows, cols // 128).t().contiguous()
    return q, sinv


def quant_block1d(x):
    """FP8 1x128 blocks, rowwise and columnwise (quantized from x each)."""
    q, s = _block1d_rows(x)
    qt, st = _block1d_rows(x.t())
    return q, s, qt, st


def quant_block2d(x):
    """FP8 128x128 blocks; the columnwise copy is the transposed data."""
    m, k = x.shape
    tb = x.float().reshape(m // 128, 128, k // 128, 128)
    amax = tb.abs().amax(dim=(1, 3), keepdim=True)
    scale = _pow2_floor(_scale_from_amax(amax, E4M3_MAX))
    q = (tb * scale).clamp(-E4M3_MAX, E4M3_MAX).to(E4M3).reshape(m, k)
    sinv = scale.reciprocal().reshape(m // 128, k // 128)
    return q, sinv, q.t().contiguous(), sinv.t().contiguous()


def _e8m0_exponent(amax):
    # Round the scale up (TE / cuBLAS): ceil(log2(amax / 448)).
    e = torch.ceil(torch.log2(amax / E4M3_MAX)).clamp(-127, 127)
    return torch.where(amax > 0, e, torch.full_like(e, -127.0))


def quant_mxfp8(x):
    """MXFP8: 1x32 rowwise and 32x1 columnwise blocks, E8M0 scales."""
    m, k = x.shape
    xf = x.float()
    rb = xf.reshape(m, k // 32, 32)
    er = _e8m0_exponent(rb.abs().amax(-1, keepdim=True))
    qr = (rb * torch.exp2(-er)).clamp(-E4M3_MAX, E4M3_MAX).to(E4M3).reshape(m, k)
    sr = (er + 127).to(torch.uint8).reshape(m, k // 32)
    cb = xf.reshape(m // 32, 32, k)
    ec = _e8m0_exponent(cb.abs().amax(1, keepdim=True))
    qc = (cb * torch.exp2(-ec)).clamp(-E4M3_MAX, E4M3_MAX).to(E4M3).reshape(m, k)
    sc = (ec + 127).to(torch.uint8).reshape(m // 32, k)
    return qr, sr, qc, sc


def _e2m1_codes(v):
    """E2M1 codes (sign in bit 3) of values already in [-6, 6], RNE."""
    a = v.abs()
    idx = (
        (a > 0.25).to(torch.uint8)
        + (a >= 0.75).to(torch.uint8)
        + (a > 1.25).to(torch.uint8)
        + (a >= 1.75).to(torch.uint8)
        + (a > 2.5).to(torch.uint8)
        + (a >= 3.5).to(torch.uint8)
        + (a > 5.0).to(torch.uint8)
    )
    return idx | ((v < 0).to(torch.uint8) << 3)


def _nvfp4_rows(t, s_enc, s_dec):
    rows, cols = t.shape
    tb = t.reshape(rows, cols // 16, 16)
    bamax = tb.abs().amax(-1, keepdim=True)
    sb = (bamax * (s_enc / 6.0)).clamp(max=E4M3_MAX).to(E4M3)
    sbf = sb.float()
    enc = torch.where(sbf > 0, 1.0 / (sbf * s_dec), torch.zeros_like(sbf))
    codes = _e2m1_codes((tb * enc).clamp(-6.0, 6.0)).reshape(rows, cols)
    packed = codes[:, 0::2] | (codes[:, 1::2] << 4)
    return packed, sb.reshape(rows, cols // 16)


def quant_nvfp4(x):
    """NVFP4: global amax, 1x16 E4M3 block scales, E2M1 data, both ways."""
    xf = x.float()
    amax = xf.abs().amax()
    s_enc = torch.where(amax > 0, (E4M3_MAX * 6.0) / amax, torch.ones_like(amax))
    s_dec = 1.0 / s_enc
    qr, sr = _nvfp4_rows(xf, s_enc, s_dec)
    qc, sc = _nvfp4_rows(xf.t(), s_enc, s_dec)
    return qr, sr, qc, sc, amax


RECIPES = {
    "delayed": quant_delayed,
    "current": quant_current,
    "current_amaxin": quant_given_amax,
    "block1d": quant_block1d,
    "block2d": quant_block2d,
    "mxfp8": quant_mxfp8,
    "nvfp4": quant_nvfp4,
}


def recipe_args(name, x):
    if name == "delayed":
        return (x, torch.tensor(E4M3_MAX / 6.0, device=DEV))
    if name == "current_amaxin":
        return (x, x.abs().amax().float())
    return (x,)


# ===----------------------------------------------------------------------=== #
# Sections
# ===----------------------------------------------------------------------=== #


def bench_copy():
    n = 1 << 30
    a = torch.empty(n, dtype=torch.uint8, device=DEV).random_()
    b = torch.empty_like(a)
    measure("copy_1GiB", "torch_copy", "b.copy_(a), 1 GiB", lambda: b.copy_(a), 2 * n)
    del a, b


def bench_quant(m, k, recipes, impls, with_amax=False):
    x = torch.randn(m, k, device=DEV, dtype=BF16)
    for name in recipes:
        fn = RECIPES[name]
        args = recipe_args(name, x)
        key = "quant_%s_%s" % (name, shape_key(m, k))
        try:
            outs = fn(*args)
            nb = x.numel() * 2 + nbytes_of(*[o for o in outs if o.dim() > 0])
        except Exception as e:  # noqa: BLE001
            emit(key, "torch_eager", name, None, note="eager failed: %s" % e)
            continue
        if "eager" in impls:
            measure(key, "torch_eager", "eager torch " + name, lambda: fn(*args), nb)
        if "compile" in impls:
            try:
                cfn = torch.compile(fn, dynamic=False)
                t0 = time.time()
                cfn(*args)
                torch.cuda.synchronize()
                note = "compile %.1f s" % (time.time() - t0)
            except Exception as e:  # noqa: BLE001
                emit(key, "torch_compile", name, None, nb, note="compile failed: %s" % str(e).splitlines()[0][:200])
                continue
            measure(key, "torch_compile", "torch.compile " + name, lambda: cfn(*args), nb, note=note)
    if with_amax:
        key = "amax_%s" % shape_key(m, k)
        measure(key, "torch_eager", "x.abs().amax()", lambda: x.abs().amax(), x.numel() * 2)
        camax = torch.compile(lambda t: t.abs().amax(), dynamic=False)
        measure(key, "torch_compile", "compiled x.abs().amax()", lambda: camax(x), x.numel() * 2)
    del x


SHAPES = [
    (8192, 8192, 8192),
    (16384, 8192, 8192),
    (15872, 4096, 12288),
    (15872, 4096, 4096),
    (15872, 4096, 16384),
    (15872, 16384, 4096),
]


def bench_gemm_shape(M, K, N):
    flops = 2.0 * M * N * K
    sk = shape_key(M, K, N)
    x = torch.randn(M, K, device=DEV, dtype=BF16)
    w = torch.randn(N, K, device=DEV, dtype=BF16)
    measure("gemm_bf16_" + sk, "torch_mm", "torch.mm(x, w.t()) bf16", lambda: torch.mm(x, w.t()), flops=flops)
    x8 = (x.float() * 64).clamp(-E4M3_MAX, E4M3_MAX).to(E4M3)
    w8 = (w.float() * 64).clamp(-E4M3_MAX, E4M3_MAX).to(E4M3)
    b8 = w8.t()  # column-major [K, N]
    one = torch.tensor(1.0 / 64, device=DEV)
    sm = torch._scaled_mm
    measure("gemm_tensor_" + sk, "scaled_mm", "_scaled_mm tensorwise", lambda: sm(x8, b8, one, one, out_dtype=BF16, use_fast_accum=False), flops=flops)
    measure("gemm_tensor_fast_" + sk, "scaled_mm", "_scaled_mm tensorwise fast accum", lambda: sm(x8, b8, one, one, out_dtype=BF16, use_fast_accum=True), flops=flops)
    sa = torch.rand(M, 1, device=DEV) + 0.5
    sb = torch.rand(1, N, device=DEV) + 0.5
    measure("gemm_rowwise_" + sk, "scaled_mm", "_scaled_mm rowwise", lambda: sm(x8, b8, sa, sb, out_dtype=BF16), flops=flops)
    ck, cn, cm = K // 128, N // 128, M // 128
    # X 1x128 (scale (M, K/128), M-major) x W 128x128 (scale (K/128, N/128), K-major).
    sa1 = torch.rand(ck, M, device=DEV).t() + 0.5
    sb2 = torch.rand(cn, ck, device=DEV).t() + 0.5
    measure("gemm_blk1d2d_" + sk, "scaled_mm", "_scaled_mm X 1x128 x W 128x128", lambda: sm(x8, b8, sa1, sb2, out_dtype=BF16), flops=flops)
    # X 128x128 (scale (M/128, K/128) row-major) x W 1x128 (scale (K/128, N)).
    sa2 = torch.rand(cm, ck, device=DEV) + 0.5
    sb1 = torch.rand(ck, N, device=DEV) + 0.5
    measure("gemm_blk2d1d_" + sk, "scaled_mm", "_scaled_mm X 128x128 x W 1x128", lambda: sm(x8, b8, sa2, sb1, out_dtype=BF16), flops=flops)
    del x, w, x8, w8


def bench_emu_shape(M, K, N):
    x = torch.randn(M, K, device=DEV, dtype=BF16)
    w = torch.randn(N, K, device=DEV, dtype=BF16)
    bench_emu(shape_key(M, K, N), x, w, 2.0 * M * N * K)
    del x, w


def _deq_mxfp8(q, s):
    m, k = q.shape
    f = q.float().reshape(m, k // 32, 32) * torch.exp2(s.float() - 127).reshape(m, k // 32, 1)
    return f.reshape(m, k).to(BF16)


_E2M1_VALUES = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def _deq_nvfp4(packed, sb, lut):
    rows, half = packed.shape
    codes = torch.stack([packed & 0xF, packed >> 4], dim=-1).reshape(rows, 2 * half)
    v = lut[codes.long()].reshape(rows, half // 8, 16) * sb.float().reshape(rows, half // 8, 1)
    return v.reshape(rows, 2 * half).to(BF16)


def bench_emu(sk, x, w, flops):
    """MXFP8 / NVFP4 GEMM on sm_90 the way te_rt emulates it: dequantize both
    operands to bf16 (exact) and a bf16 GEMM; under torch.compile."""
    if out_of_budget():
        return
    try:
        qx = quant_mxfp8(x)
        qw = quant_mxfp8(w)
        f = torch.compile(lambda a, sa, b, sb: torch.mm(_deq_mxfp8(a, sa), _deq_mxfp8(b, sb).t()), dynamic=False)
        measure("gemm_mxfp8_emu_" + sk, "compile_deq_mm", "torch.compile dequant MXFP8 + bf16 mm", lambda: f(qx[0], qx[1], qw[0], qw[1]), flops=flops)
        del qx, qw
    except Exception as e:  # noqa: BLE001
        emit("gemm_mxfp8_emu_" + sk, "compile_deq_mm", "", None, flops=flops, note=str(e).splitlines()[0][:200])
    try:
        lut = torch.tensor(_E2M1_VALUES + [-v for v in _E2M1_VALUES], device=DEV)
        qx = quant_nvfp4(x)
        qw = quant_nvfp4(w)
        alpha = (qx[4] * qw[4]) / (6.0 * 6.0 * E4M3_MAX * E4M3_MAX)

        def g(a, sa, b, sb, al):
            return (torch.mm(_deq_nvfp4(a, sa, lut), _deq_nvfp4(b, sb, lut).t()) * al).to(BF16)

        f = torch.compile(g, dynamic=False)
        measure("gemm_nvfp4_emu_" + sk, "compile_deq_mm", "torch.compile dequant NVFP4 + bf16 mm", lambda: f(qx[0], qx[1], qw[0], qw[1], alpha), flops=flops)
    except Exception as e:  # noqa: BLE001
        emit("gemm_nvfp4_emu_" + sk, "compile_deq_mm", "", None, flops=flops, note=str(e).splitlines()[0][:200])


def bench_linear():
    T, In, Out = 16384, 8192, 8192
    flops = 3 * 2.0 * T * In * Out
    sk = shape_key(T, In, Out)
    lin = torch.nn.Linear(In, Out, bias=False, device=DEV, dtype=BF16)
    x = torch.randn(T, In, device=DEV, dtype=BF16, requires_grad=True)
    dy = torch.randn(T, Out, device=DEV, dtype=BF16) * 0.01

    def step():
        x.grad = None
        lin.weight.grad = None
        y = lin(x)
        y.backward(dy)

    measure("linear_bf16_" + sk, "autograd_bf16", "nn.Linear bf16 fwd+bwd (autograd)", step, flops=flops)

    # The FP8 current-scaling step written in PyTorch: compiled quantization
    # (cast + transpose) and three _scaled_mm, TE's operand rules.
    try:
        q4 = torch.compile(lambda t: quant_current(t, E4M3_MAX, E4M3), dynamic=False)
        q5 = torch.compile(lambda t: quant_current(t, E5M2_MAX, E5M2), dynamic=False)
        xd = x.detach()
        wd = lin.weight.detach()
        sm = torch._scaled_mm

        def fp8_step():
            qx, qxt, sx, _ = q4(xd)
            qw, qwt, sw, _ = q4(wd)
            y = sm(qx, qw.t(), sx, sw, out_dtype=BF16, use_fast_accum=True)
            qdy, qdyt, sdy, _ = q5(dy)
            dx = sm(qdy, qwt.t(), sdy, sw, out_dtype=BF16)
            dw = sm(qdyt, qxt.t(), sdy, sx, out_dtype=BF16)
            return y, dx, dw

        measure("linear_fp8_current_" + sk, "torch_fp8", "torch.compile quantize + 3x _scaled_mm", fp8_step, flops=flops)
    except Exception as e:  # noqa: BLE001
        emit("linear_fp8_current_" + sk, "torch_fp8", "", None, flops=flops, note=str(e).splitlines()[0][:200])
    del lin, x, dy


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--csv", default="torch_peers.csv")
    p.add_argument("--budget", type=float, default=240.0, help="seconds; later peers are skipped past it")
    p.add_argument("--only", default="copy,quant,gemm,linear,small,emu")
    p.add_argument(
        "--b2b",
        default="",
        help="sections timed as te_bench times (batches of back-to-back calls, no L2 flush) "
        "instead of triton's do_bench (an L2 flush and an idle gap before every call); "
        "fair for GEMMs, whose operands do not fit in L2 anyway",
    )
    ARGS = p.parse_args()
    only = set(ARGS.only.split(","))
    torch.manual_seed(0)
    print(
        "torch %s, CUDA %s, cuBLASLt %s, %s"
        % (
            torch.__version__,
            torch.version.cuda,
            getattr(torch._C, "_cuda_getCompiledVersion", lambda: "?")(),
            torch.cuda.get_device_name(),
        ),
        flush=True,
    )
    sections = [
        ("copy", bench_copy),
        ("quant", lambda: bench_quant(16384, 16384, list(RECIPES), ("eager", "compile"), with_amax=True)),
        ("gemm", lambda: [bench_gemm_shape(*s) for s in SHAPES]),
        ("linear", bench_linear),
        (
            "small",
            lambda: [bench_quant(n, n, ["current", "block1d", "mxfp8", "nvfp4"], ("compile",)) for n in (1024, 2048, 4096)],
        ),
        ("emu", lambda: [bench_emu_shape(*s) for s in SHAPES[:2]]),
    ]
    global SECTION
    for name, fn in sections:
        if name not in only:
            continue
        SECTION = name
        try:
            fn()
        except Exception:  # noqa: BLE001
            traceback.print_exc()
        torch.cuda.empty_cache()
    write_csv()
    print("torch_peers: %d rows written to %s (%.0f s)" % (len(ROWS), out_path(), time.time() - START), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
