"""torch._scaled_mm / torch.mm timed two ways in one process: triton's do_bench
(an L2 flush and an idle gap before every call, what torch_peers.py uses by
default) and te_bench's way (CUDA events around batches of back-to-back calls,
median). docs/performance.md "GEMMs", run 6: docs/perf/run6-probes/gemm-timing.txt.
Run on the GPU machine: python3 bench/probes/gemm_timing.py"""
import os
import sys

import torch
import triton.testing as tt

# te_bench's timing, as torch_peers.py --b2b uses it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers"))
from torch_peers import back_to_back_ms as b2b  # noqa: E402

BF16 = torch.bfloat16
E4 = torch.float8_e4m3fn


for (M, K, N) in [(8192, 8192, 8192), (16384, 8192, 8192), (15872, 4096, 4096)]:
    x = torch.randn(M, K, device="cuda", dtype=BF16)
    w = torch.randn(N, K, device="cuda", dtype=BF16)
    ck, cn, cm = K // 128, N // 128, M // 128
    x8 = (x.float() * 64).clamp(-448, 448).to(E4)
    w8 = (w.float() * 64).clamp(-448, 448).to(E4)
    sa1 = torch.rand(ck, M, device="cuda").t() + 0.5
    sb2 = torch.rand(cn, ck, device="cuda").t() + 0.5
    sa2 = torch.rand(cm, ck, device="cuda") + 0.5
    sb1 = torch.rand(ck, N, device="cuda") + 0.5
    one = torch.tensor(1 / 64, device="cuda")
    sm = torch._scaled_mm
    cases = {
        "blk1d2d": lambda: sm(x8, w8.t(), sa1, sb2, out_dtype=BF16),
        "blk2d1d": lambda: sm(x8, w8.t(), sa2, sb1, out_dtype=BF16),
        "tensor": lambda: sm(x8, w8.t(), one, one, out_dtype=BF16),
        "bf16": lambda: torch.mm(x, w.t()),
    }
    for k, f in cases.items():
        r = [(tt.do_bench(f, warmup=50, rep=200), b2b(f)) for _ in range(3)]
        print(f"{M}x{K}x{N} {k:8s} do_bench " + " ".join(f"{a:.3f}" for a, _ in r)
              + " | back-to-back " + " ".join(f"{b:.3f}" for _, b in r), flush=True)
