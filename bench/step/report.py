#!/usr/bin/env python3
# ===- report.py - te's compiled training step against its PyTorch peers --=== #
#
# Part of te. Joins bench/step/run_step.sh's CSVs into markdown:
#
#   python3 bench/step/report.py STEP_TE.csv STEP_TORCH.csv
#       [--breakdown STEP_BREAKDOWN.csv] [--out REPORT.md] [--title T]
#
# STEP_TE.csv     size,recipe,step_ms,min_ms,repeat,upload_ms,download_ms,status
#                 (te's AOT driver: mean and min of --repeat steps)
# STEP_TORCH.csv  size,variant,ms (torch_step.py: median of >= 20 steps)
# STEP_BREAKDOWN.csv  size,recipe,tool,category,kernels,ms (breakdown.py)
#
# Table 1, one row per recipe x size: te ms (the driver's mean), te min, the
# peers' ms (eager bf16, torch.compile bf16, PyTorch FP8 current scaling:
# per size, the same in every recipe's row) and ratio = peer / te (> 1: te is
# faster). Table 2: the peers alone (so the report says something before te's
# objects exist). Table 3: one te step by category, ms (kernels per step).
# Prints the markdown and writes it to --out. Standard library only.
#
# ===------------------------------------------------------------------------=== #

import argparse
import csv
import math
import os
import sys

RECIPES = ["current", "delayed", "block", "mxfp8", "nvfp4"]
SIZES = ["small", "large"]
SIZE_DESC = {
    "small": "hidden 256, ffn 1024, microbatch 128, 256 tokens",
    "large": "hidden 4096, ffn 16384, microbatch 2048, 8192 tokens",
}
VARIANTS = [("eager_bf16", "eager bf16"), ("compile_bf16", "torch.compile bf16"),
            ("torch_fp8", "PyTorch FP8 (current)")]
CATEGORIES = ["gemm", "quantize", "dequantize", "te_rt", "generated", "memcpy", "other", "gaps", "total"]


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


def main():
    p = argparse.ArgumentParser(description="te's compiled step against PyTorch, as markdown")
    p.add_argument("te_csv")
    p.add_argument("torch_csv")
    p.add_argument("--breakdown")
    p.add_argument("--out")
    p.add_argument("--title", default="## Compiled training step: te against PyTorch")
    a = p.parse_args()

    te = {(r.get("size", ""), r.get("recipe", "")): r for r in load(a.te_csv)}
    peers = {}
    for r in load(a.torch_csv):
        peers.setdefault(r.get("size", ""), {})[r.get("variant", "")] = num(r.get("ms"))
    sizes = order({s for s, _ in te} | set(peers), SIZES)
    out = [a.title, ""]
    out.append("Ratios are peer / te: > 1 means te is faster. te: the AOT driver's mean over its --repeat "
               "steps (min beside it); peers: median of >= 20 steps after warm-up (CUDA events). "
               "Sizes: " + "; ".join(f"{s}: {SIZE_DESC.get(s, '?')}" for s in sizes) + ".")
    out.append("")

    if te:
        head = ["recipe", "size", "te ms", "te min ms"] + [f"{d} ms" for _, d in VARIANTS] + \
               [f"{d} / te" for _, d in VARIANTS] + ["status"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for s in sizes:
            for rcp in order({r for z, r in te if z == s}, RECIPES):
                row = te[(s, rcp)]
                t = num(row.get("step_ms"))
                pv = [peers.get(s, {}).get(v) for v, _ in VARIANTS]
                cells = [rcp, s, ms(t), ms(num(row.get("min_ms")))] + [ms(v) for v in pv] + \
                        [ratio(v, t) for v in pv] + [row.get("status", "")]
                out.append("| " + " | ".join(cells) + " |")
        out.append("")
    else:
        out.append("(no te results: " + (a.te_csv if os.path.exists(a.te_csv) else f"{a.te_csv} missing")
                   + ")")
        out.append("")

    if peers:
        out.append("PyTorch peers of the same step (ms; ratio to eager bf16):")
        out.append("")
        head = ["size"] + [d for _, d in VARIANTS]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for s in order(set(peers), SIZES):
            e = peers[s].get("eager_bf16")
            cells = [s]
            for v, _ in VARIANTS:
                x = peers[s].get(v)
                cells.append(ms(x) + ("" if x is None or e is None or v == "eager_bf16"
                                      else f" ({e / x:.2f}x)"))
            out.append("| " + " | ".join(cells) + " |")
        out.append("")

    bd = load(a.breakdown)
    if bd:
        tool = sorted({r.get("tool", "") for r in bd})
        out.append(f"One te step by category ({', '.join(tool)}; ms, kernels per step in parentheses; "
                   "gaps = te's step time less the device work: launches, host work, synchronisation):")
        out.append("")
        cells = {}
        for r in bd:
            cells.setdefault((r.get("size", ""), r.get("recipe", "")), {})[r.get("category", "")] = r
        cats = [c for c in CATEGORIES if any(c in v for v in cells.values())]
        head = ["recipe", "size"] + cats
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for s in order({s for s, _ in cells}, SIZES):
            for rcp in order({r for z, r in cells if z == s}, RECIPES):
                c = cells[(s, rcp)]
                row = [rcp, s]
                for k in cats:
                    r = c.get(k)
                    if not r:
                        row.append("–")
                        continue
                    n = num(r.get("kernels"))
                    row.append(ms(num(r.get("ms"))) + ("" if n is None or k == "gaps" else f" ({n:g})"))
                out.append("| " + " | ".join(row) + " |")
        out.append("")

    text = "\n".join(out)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
