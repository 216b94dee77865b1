#!/usr/bin/env python3
# ===- report.py - te's GPT block programs against their PyTorch peers ----=== #
#
# Part of te. Joins bench/block/run_block.sh's CSVs into markdown:
#
#   python3 bench/block/report.py BLOCK_TE.csv BLOCK_TORCH.csv BLOCK_ERRORS.csv
#       [--out REPORT.md] [--title T]
#
# BLOCK_TE.csv      size,program,ms,min_ms,median_ms,repeat,status (te's AOT
#                   driver: mean, min and median of --repeat calls)
# BLOCK_TORCH.csv   size,mode,variant,ms,min_ms,mean_ms (torch_block.py:
#                   median of >= 20)
# BLOCK_ERRORS.csv  size,mode,variant,tensor,rel_err (relative L2 error
#                   against the fp32 reference; te's variants te-<program>)
#
# Table 1, one row per te program x size: te ms (the driver's mean), the
# peers' ms of the same mode and size, ratio = peer / te (> 1: te is
# faster) against eager bf16, torch.compile and PyTorch FP8, and the
# relative error against fp32 (forward: the output; training step: dx and
# the largest of the 12 parameter gradients' errors). Table 2: the peers
# alone, with their errors. Standard library only.
#
# ===------------------------------------------------------------------------=== #

import argparse
import csv
import math
import os
import sys

SIZES = ["small", "large"]
SIZE_DESC = {
    "small": "batch 2, seq 256, hidden 1024, 16 heads, ffn 4096 (512 tokens)",
    "large": "batch 4, seq 2048, hidden 4096, 32 heads, ffn 16384 (8192 tokens)",
}
PROGRAMS = ["fwd-a", "fwd-b", "fwd-c", "fwd-d", "fwd-a-literal", "fwd-b-literal", "train-d", "train-c"]
PROGRAM_DESC = {
    "fwd-a": "forward, 3-D batch_matmul + linalg.softmax",
    "fwd-b": "forward, 4-D einsum generics + f32 softmax chain",
    "fwd-c": "forward, as a with a dynamic batch",
    "fwd-d": "forward, te.attention",
    "fwd-a-literal": "forward, form a not raised: batched products + softmax",
    "fwd-b-literal": "forward, form b not raised: batched products + softmax chain",
    "train-d": "training step, te.attention(_grad)",
    "train-c": "training step, te.attention(_grad), dynamic batch",
}
VARIANTS = [("eager_bf16", "eager bf16 + SDPA"), ("compile_bf16", "torch.compile"),
            ("eager_materialized", "eager, attention materialized"), ("torch_fp8", "PyTorch FP8 + SDPA")]
RATIOS = ["eager_bf16", "compile_bf16", "torch_fp8"]


def load(path):
    if not path or not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(s):
    try:
        v = float(s)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def ms(v):
    if v is None:
        return "–"
    return f"{v:.3f}" if v < 10 else f"{v:.2f}"


def ratio(peer, te):
    if peer is None or te is None or te <= 0:
        return "–"
    return f"**{peer / te:.2f}x**" if peer / te >= 1 else f"{peer / te:.2f}x"


def order(values, known):
    return [v for v in known if v in values] + sorted(v for v in values if v not in known)


def err_text(errs, mode):
    """errs: tensor -> rel_err. Forward: the output's; training: dx and the
    largest parameter gradient's."""
    if not errs:
        return "–"
    if mode == "fwd":
        e = errs.get("out")
        return "–" if e is None else f"{e:.2e}"
    dx = errs.get("dx")
    grads = [v for k, v in errs.items() if k != "dx" and v is not None]
    parts = []
    if dx is not None:
        parts.append(f"dx {dx:.2e}")
    if grads:
        parts.append(f"dW max {max(grads):.2e}")
    return ", ".join(parts) or "–"


def main():
    p = argparse.ArgumentParser(description="te's GPT block programs against PyTorch, as markdown")
    p.add_argument("te_csv")
    p.add_argument("torch_csv")
    p.add_argument("errors_csv")
    p.add_argument("--out")
    p.add_argument("--title", default="## GPT block: te against PyTorch")
    a = p.parse_args()

    te = {(r.get("size", ""), r.get("program", "")): r for r in load(a.te_csv)}
    peers = {}
    for r in load(a.torch_csv):
        peers[(r.get("size", ""), r.get("mode", ""), r.get("variant", ""))] = num(r.get("ms"))
    errs = {}
    for r in load(a.errors_csv):
        errs.setdefault((r.get("size", ""), r.get("mode", ""), r.get("variant", "")), {})[r.get("tensor", "")] = \
            num(r.get("rel_err"))
    sizes = order({s for s, _ in te} | {s for s, _, _ in peers} | {s for s, _, _ in errs}, SIZES)
    out = [a.title, ""]
    out.append("Ratios are peer / te: > 1 means te is faster. te: the AOT driver's mean over its --repeat calls "
               "(inputs and results on the device); peers: median of >= 20 after warm-up (CUDA events). "
               "Errors: relative L2 against an fp32 PyTorch reference from the same inputs (training step: dx, "
               "and the largest of the 12 parameter gradients'). Sizes: "
               + "; ".join(f"{s}: {SIZE_DESC.get(s, '?')}" for s in sizes) + ".")
    out.append("")

    if te:
        head = ["program", "size", "te ms"] + [f"{d} / te" for v, d in VARIANTS if v in RATIOS] + \
               ["te error vs fp32", "PyTorch FP8 error", "status"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for s in sizes:
            for prog in order({g for z, g in te if z == s}, PROGRAMS):
                row = te[(s, prog)]
                mode = "train" if prog.startswith("train") else "fwd"
                t = num(row.get("ms"))
                cells = [f"{prog} ({PROGRAM_DESC.get(prog, '?')})", s, ms(t)]
                cells += [ratio(peers.get((s, mode, v)), t) for v in RATIOS]
                cells += [err_text(errs.get((s, mode, "te-" + prog)), mode),
                          err_text(errs.get((s, mode, "torch_fp8")), mode), row.get("status", "")]
                out.append("| " + " | ".join(cells) + " |")
        out.append("")
    else:
        out.append("(no te results: " + (a.te_csv if os.path.exists(a.te_csv) else f"{a.te_csv} missing") + ")")
        out.append("")

    if peers:
        out.append("PyTorch peers (ms, error vs fp32):")
        out.append("")
        head = ["size", "mode"] + [d for _, d in VARIANTS]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for s in sizes:
            for mode in ("fwd", "train"):
                if not any((s, mode, v) in peers for v, _ in VARIANTS):
                    continue
                cells = [s, "forward" if mode == "fwd" else "training step"]
                for v, _ in VARIANTS:
                    x = peers.get((s, mode, v))
                    cells.append(ms(x) + f" ({err_text(errs.get((s, mode, v)), mode)})")
                out.append("| " + " | ".join(cells) + " |")
        out.append("")

    text = "\n".join(out)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
