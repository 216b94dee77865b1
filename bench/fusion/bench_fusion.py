#!/usr/bin/env python3
"""Producer programs fused into te's quantize, beside the unfused forms.

For each producer (bias + GELU tanh; LayerNorm's normalize step with per-row
mean / rstd and per-column gamma / beta), shape and recipe it times, on one
GPU, in one process:

  fused     te_rt_mlir_quantize_produced: the program evaluated by the
            runtime and quantized (rowwise + columnwise buffers), no bf16
            tensor written;
  te_unfused  PyTorch eager computes the bf16 producer tensor, then
            te_rt_quantize quantizes it (what te does without the fusion:
            one elementwise kernel that writes bf16, then the quantize);
  torch     PyTorch eager of the producer and an FP8 cast with per-tensor
            current scaling (amax, scale, cast of x and of its transpose);
  copy      a device-to-device copy (torch copy_, cudaMemcpyAsync) of
            half the fused kernel's minimum bytes, so that it moves them.

The fused form's minimum bytes are the inputs read once and the quantized
buffers written once; its GB/s is those bytes over its time, and "% copy"
that over the copy's GB/s. Before timing, the fused buffers are checked
byte for byte against te_unfused's (the same bf16 value quantized the same
way, so they must be equal).
"""

import argparse
import ctypes
import os
import struct
import sys

import torch

TE_RT_U8, TE_RT_F32, TE_RT_F16, TE_RT_BF16 = 0, 1, 2, 3
OPS = dict(CONST=1, CAST=2, ADDF=3, SUBF=4, MULF=5, DIVF=6, NEGF=7, ABSF=8,
           MAXIMUMF=9, MINIMUMF=10, MAXNUMF=11, MINNUMF=12, EXP=13, EXP2=14,
           LOG=15, TANH=16, ERF=17, SQRT=18, RSQRT=19, FMA=20, CMPF=21,
           SELECT=22, POWF=23, LOG1P=24, EXPM1=25)
RECIPES = {"current": 0, "block": 1, "mxfp8": 2, "delayed": 3}


class Code:
    def __init__(self, num_inputs):
        self.n = num_inputs
        self.words = []

    def emit(self, op, ty, a=0, b=0, c=0):
        self.words += [OPS[op], ty, a, b, c]
        return self.n + len(self.words) // 5 - 1

    def const(self, f):
        bits = struct.unpack("<i", struct.pack("<f", f))[0]
        return self.emit("CONST", TE_RT_F32, bits)


def bias_gelu(rows, cols, dev):
    y = torch.randn(rows, cols, device=dev).to(torch.bfloat16)
    b = (0.5 * torch.randn(cols, device=dev)).to(torch.bfloat16)
    k = Code(2)
    h = k.emit("ADDF", TE_RT_BF16, 0, 1)
    h3 = k.emit("MULF", TE_RT_F32, k.emit("MULF", TE_RT_F32, h, h), h)
    s = k.emit("ADDF", TE_RT_F32, h,
               k.emit("MULF", TE_RT_F32, k.const(0.044715), h3))
    t = k.emit("TANH", TE_RT_F32,
               k.emit("MULF", TE_RT_F32, k.const(0.7978845608028654), s))
    k.emit("MULF", TE_RT_BF16,
           k.emit("MULF", TE_RT_F32, k.const(0.5), h),
           k.emit("ADDF", TE_RT_F32, k.const(1.0), t))
    inputs = [(y, TE_RT_BF16, cols, 1), (b, TE_RT_BF16, 0, 1)]

    def eager():
        return torch.nn.functional.gelu(y + b, approximate="tanh")
    return inputs, k.words, eager


def layernorm(rows, cols, dev):
    x = torch.randn(rows, cols, device=dev).to(torch.bfloat16)
    mean = 0.1 * torch.randn(rows, device=dev)
    rstd = 1.0 + 0.1 * torch.rand(rows, device=dev)
    g = (1.0 + 0.1 * torch.randn(cols, device=dev)).to(torch.bfloat16)
    be = (0.1 * torch.randn(cols, device=dev)).to(torch.bfloat16)
    k = Code(5)
    n = k.emit("MULF", TE_RT_F32, k.emit("SUBF", TE_RT_F32, 0, 1), 2)
    k.emit("FMA", TE_RT_BF16, n, 3, 4)
    inputs = [(x, TE_RT_BF16, cols, 1), (mean, TE_RT_F32, 1, 0),
              (rstd, TE_RT_F32, 1, 0), (g, TE_RT_BF16, 0, 1),
              (be, TE_RT_BF16, 0, 1)]

    def eager():
        return torch.addcmul(be.float(), (x.float() - mean[:, None]) *
                             rstd[:, None], g.float()).to(torch.bfloat16)
    return inputs, k.words, eager


PROGRAMS = {"bias_gelu_tanh": bias_gelu, "layernorm_normalize": layernorm}


def time_ms(fn, iters, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    stop.record()
    torch.cuda.synchronize()
    return start.elapsed_time(stop) / iters


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--harness", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--shapes", default="8192x4096,8192x16384")
    ap.add_argument("--recipes", default="current,block,mxfp8")
    args = ap.parse_args()

    lib = ctypes.CDLL(args.harness)
    lib.fb_error.restype = ctypes.c_char_p
    lib.fb_case_create.restype = ctypes.c_void_p
    lib.fb_case_create.argtypes = [ctypes.c_int, ctypes.c_int64,
                                   ctypes.c_int64]
    lib.fb_case_destroy.argtypes = [ctypes.c_void_p]
    lib.fb_case_bytes.restype = ctypes.c_int64
    lib.fb_case_bytes.argtypes = [ctypes.c_void_p]
    lib.fb_case_num_buffers.argtypes = [ctypes.c_void_p]
    lib.fb_case_buffer_bytes.restype = ctypes.c_int64
    lib.fb_case_buffer_bytes.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.fb_case_read.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                 ctypes.c_void_p]
    P = ctypes.POINTER
    lib.fb_fused.argtypes = [ctypes.c_void_p, ctypes.c_int,
                             P(ctypes.c_void_p), P(ctypes.c_int32),
                             P(ctypes.c_int64), P(ctypes.c_int64),
                             ctypes.c_int, P(ctypes.c_int32),
                             ctypes.c_void_p, ctypes.c_void_p]
    lib.fb_unfused.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                               ctypes.c_void_p]
    dev = torch.device("cuda")
    torch.cuda.init()
    if lib.fb_init() != 0:
        sys.exit("fb_init: " + lib.fb_error().decode())

    rows_md = []
    for shape in args.shapes.split(","):
        rows, cols = (int(v) for v in shape.split("x"))
        for pname, make in PROGRAMS.items():
            torch.manual_seed(0)
            inputs, code, eager = make(rows, cols, dev)
            n = len(inputs)
            ptrs = (ctypes.c_void_p * 8)(*[t.data_ptr() for t, *_ in inputs])
            dts = (ctypes.c_int32 * 8)(*[d for _, d, _, _ in inputs])
            rss = (ctypes.c_int64 * 8)(*[r for _, _, r, _ in inputs])
            css = (ctypes.c_int64 * 8)(*[c for _, _, _, c in inputs])
            words = (ctypes.c_int32 * len(code))(*code)
            in_bytes = sum(t.numel() * t.element_size() for t, *_ in inputs)
            scale = torch.full((1,), 2.0, device=dev)
            for rname in args.recipes.split(","):
                h = lib.fb_case_create(RECIPES[rname], rows, cols)
                if not h:
                    print(f"{pname} {rname}: {lib.fb_error().decode()}")
                    continue
                out_bytes = lib.fb_case_bytes(h)

                def fused():
                    if lib.fb_fused(h, n, ptrs, dts, rss, css, len(code) // 5,
                                    words, None,
                                    ctypes.c_void_p(scale.data_ptr())) != 0:
                        raise RuntimeError(lib.fb_error().decode())

                def unfused():
                    x = eager()
                    if lib.fb_unfused(h, ctypes.c_void_p(x.data_ptr()),
                                      ctypes.c_void_p(scale.data_ptr())) != 0:
                        raise RuntimeError(lib.fb_error().decode())

                def read_all():
                    bufs = []
                    for i in range(lib.fb_case_num_buffers(h)):
                        b = ctypes.create_string_buffer(
                            lib.fb_case_buffer_bytes(h, i))
                        lib.fb_case_read(h, i, ctypes.cast(b, ctypes.c_void_p))
                        bufs.append(b.raw)
                    return bufs

                # Check: fused == unfused (same bf16 value; transcendentals
                # differ between CUDA and PyTorch's kernels only in the
                # value's last bits, so the check uses the runtime's value).
                vo = torch.empty(rows, cols, dtype=torch.bfloat16, device=dev)
                lib.fb_fused(h, n, ptrs, dts, rss, css, len(code) // 5, words,
                             ctypes.c_void_p(vo.data_ptr()),
                             ctypes.c_void_p(scale.data_ptr()))
                fused_bufs = read_all()
                lib.fb_unfused(h, ctypes.c_void_p(vo.data_ptr()),
                               ctypes.c_void_p(scale.data_ptr()))
                same = fused_bufs == read_all()
                eager_close = torch.allclose(
                    vo.float(), eager().float(), rtol=2 ** -6, atol=1e-3)

                def torch_cast():
                    v = eager()
                    amax = v.abs().amax().float()
                    s = 448.0 / torch.clamp(amax, min=1e-12)
                    (v.float() * s).to(torch.float8_e4m3fn)
                    (v.t().float() * s).to(torch.float8_e4m3fn)
                    return s

                moved = in_bytes + out_bytes
                src = torch.empty(moved // 2, dtype=torch.uint8, device=dev)
                dst = torch.empty_like(src)
                t_copy = time_ms(lambda: dst.copy_(src), args.iters)
                t_f = time_ms(fused, args.iters)
                t_u = time_ms(unfused, args.iters)
                t_t = time_ms(torch_cast, args.iters)
                gbs = moved / t_f / 1e6
                copy_gbs = (2 * (moved // 2)) / t_copy / 1e6
                rows_md.append(
                    f"| {pname} | {rows}x{cols} | {rname} | {t_f:.3f} | "
                    f"{t_u:.3f} | {t_t:.3f} | {t_u / t_f:.2f}x | "
                    f"{moved / 1e6:.1f} | {gbs:.0f} | {copy_gbs:.0f} | "
                    f"{100 * gbs / copy_gbs:.0f}% | "
                    f"{'yes' if same else 'NO'} | "
                    f"{'yes' if eager_close else 'NO'} |")
                print(rows_md[-1], flush=True)
                lib.fb_case_destroy(h)
                del src, dst

    header = ("| producer | shape | recipe | fused ms | te unfused ms | "
              "torch eager ms | unfused / fused | min MB | fused GB/s | "
              "copy GB/s | % copy | fused == unfused | value ~ torch |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    name = torch.cuda.get_device_name()
    text = (f"# Producer fusion ({name})\n\n" + header + "\n" +
            "\n".join(rows_md) + "\n")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "fusion.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
