#!/usr/bin/env python3
# ===- report.py - Join te_bench and torch_peers CSVs into one table --------=== #
#
# Part of te. Usage:
#   python3 bench/report.py TE_BENCH_CSV TORCH_PEERS_CSV OUT_DIR [--title T]
# Writes OUT_DIR/report.md (markdown tables: ours, peer, ratio, % of limit),
# OUT_DIR/joined.csv, and OUT_DIR/perf.png (matplotlib, if importable), and
# prints the tables. Needs only the standard library (matplotlib optional).
#
# Conventions: "ratio" = peer time / our time (> 1: ours is faster).
# Limits: quantize and copy rows against the copy bandwidth measured in the
# same run (te_bench's copy_1GiB); GEMMs against the dense datasheet peaks
# of the H100 and H200 SXM (989 TFLOP/s bf16, 1979 TFLOP/s FP8; other cards
# differ); both are stated in the table. The card is named in --title.
#
# ===------------------------------------------------------------------------=== #

import csv
import math
import os
import sys

BF16_PEAK = 989.0
FP8_PEAK = 1979.0


def load(path):
    if not path or not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fnum(s):
    try:
        v = float(s)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def fmt(v, spec="%.3f"):
    return "" if v is None else spec % v


class Data:
    def __init__(self, ours_rows, peer_rows):
        self.ours = {r["key"]: r for r in ours_rows}
        self.order = [r["key"] for r in ours_rows]
        self.peers = {}
        for r in peer_rows:
            self.peers.setdefault(r["key"], {})[r["impl"]] = r
        self.copy_gbps = None
        c = self.ours.get("copy_1GiB")
        if c and fnum(c["ms"]):
            self.copy_gbps = float(c["bytes"]) / float(c["ms"]) / 1e6

    def ms(self, key):
        r = self.ours.get(key)
        return fnum(r["ms"]) if r else None

    def peer_ms(self, key, impl):
        r = self.peers.get(key, {}).get(impl)
        return fnum(r["ms"]) if r else None

    def peer_note(self, key, impl):
        r = self.peers.get(key, {}).get(impl)
        return r.get("note", "") if r else "no row"


def ratio(peer, ours):
    if peer is None or ours is None or ours <= 0:
        return None
    return peer / ours


def table(headers, rows):
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for r in rows:
        out.append("| " + " | ".join(r) + " |")
    return "\n".join(out)


def quant_section(d, shape, recipes, title, impls):
    rows = []
    plot = []
    for rec in recipes:
        key = "quant_%s_%s" % (rec, shape)
        r = d.ours.get(key)
        if r is None:
            continue
        ms = d.ms(key)
        nbytes = float(r["bytes"])
        floor = nbytes / d.copy_gbps / 1e6 if (d.copy_gbps and nbytes) else None
        pct = floor / ms * 100 if (floor and ms) else None
        cells = [rec, fmt(ms, "%.4f"), fmt(nbytes / ms / 1e6 if ms else None, "%.0f"),
                 fmt(floor, "%.4f"), fmt(pct, "%.0f%%")]
        for impl in impls:
            pm = d.peer_ms(key, impl)
            cells += [fmt(pm, "%.4f"), fmt(ratio(pm, ms), "%.2fx")]
        note = r.get("note", "") if ms is None else ""
        if rec == "current" and ms and d.copy_gbps:
            n = float(shape.split("x")[0]) * float(shape.split("x")[1])
            floor2 = (nbytes + 2 * n) / d.copy_gbps / 1e6
            note = "two-pass floor %.4f ms: %.0f%% of it" % (floor2, floor2 / ms * 100)
        cells.append(note)
        rows.append(cells)
        pc = d.peer_ms(key, "torch_compile")
        plot.append((rec, pct, floor / pc * 100 if (floor and pc) else None))
    headers = ["recipe", "ours ms", "ours GB/s", "floor ms", "% of copy BW"]
    for impl in impls:
        headers += [impl + " ms", "ratio"]
    headers.append("note")
    return "### " + title + "\n\n" + table(headers, rows) + "\n", plot


GEMM_MODES = [
    ("bf16", "torch_mm", BF16_PEAK),
    ("tensor", "scaled_mm", FP8_PEAK),
    ("tensor_fast", "scaled_mm", FP8_PEAK),
    ("rowwise", "scaled_mm", FP8_PEAK),
    ("blk1d2d", "scaled_mm", FP8_PEAK),
    ("blk2d1d", "scaled_mm", FP8_PEAK),
    ("mxfp8_emu", "compile_deq_mm", BF16_PEAK),
    ("nvfp4_emu", "compile_deq_mm", BF16_PEAK),
]


def gemm_section(d):
    rows = []
    plot = {}
    shapes = []
    for k in d.order:
        if k.startswith("gemm_bf16_"):
            shapes.append(k[len("gemm_bf16_"):])
    for shape in shapes:
        for mode, impl, peak in GEMM_MODES:
            key = "gemm_%s_%s" % (mode, shape)
            r = d.ours.get(key)
            if r is None:
                continue
            ms = d.ms(key)
            flops = float(r["flops"])
            tf = flops / ms / 1e9 if ms else None
            pm = d.peer_ms(key, impl)
            ptf = flops / pm / 1e9 if pm else None
            note = r.get("note", "")
            if pm is None:
                note = (note + "; peer: " + d.peer_note(key, impl)).strip("; ")
            rows.append([shape, mode, fmt(ms, "%.3f"), fmt(tf, "%.0f"), fmt(tf / peak * 100 if tf else None, "%.0f%%"),
                         impl, fmt(pm, "%.3f"), fmt(ptf, "%.0f"), fmt(ratio(pm, ms), "%.2fx"), note])
            plot.setdefault(mode, []).append((shape, tf, ptf))
    headers = ["M x K x N", "mode", "ours ms", "ours TFLOP/s", "% of peak", "peer", "peer ms", "peer TFLOP/s",
               "ratio", "note"]
    return "### GEMMs (peak: %d TFLOP/s bf16, %d FP8, H100 / H200 SXM datasheet dense)\n\n" % (BF16_PEAK, FP8_PEAK) + \
        table(headers, rows) + "\n", plot


def linear_section(d):
    rows = []
    for k in d.order:
        if not k.startswith("linear_"):
            continue
        ms = d.ms(k)
        flops = float(d.ours[k]["flops"])
        cells = [k, fmt(ms, "%.3f"), fmt(flops / ms / 1e9 if ms else None, "%.0f")]
        shape = k.split("_")[-1]
        bf = d.peer_ms("linear_bf16_" + shape, "autograd_bf16")
        fp = d.peer_ms(k, "torch_fp8") if "fp8" in k else None
        cells += [fmt(bf, "%.3f"), fmt(ratio(bf, ms), "%.2fx"), fmt(fp, "%.3f"), fmt(ratio(fp, ms), "%.2fx"),
                  d.ours[k].get("note", "")]
        rows.append(cells)
    headers = ["step", "ours ms", "TFLOP/s", "torch bf16 autograd ms", "speedup vs bf16", "torch FP8 (compile + _scaled_mm) ms",
               "ratio", "note"]
    return "### Linear fwd+bwd step (X 16384x8192, W 8192x8192)\n\n" + table(headers, rows) + "\n"


def other_section(d):
    rows = []
    for k in d.order:
        r = d.ours[k]
        if r["group"] not in ("copy", "amaxd", "proto") and not k.startswith("amax_"):
            continue
        ms = d.ms(k)
        nbytes = float(r["bytes"] or 0)
        flops = float(r["flops"] or 0)
        rate = ""
        if ms and nbytes:
            rate = "%.0f GB/s" % (nbytes / ms / 1e6)
        elif ms and flops:
            rate = "%.0f TFLOP/s" % (flops / ms / 1e9)
        peer = ""
        for impl in ("torch_copy", "torch_compile", "torch_eager"):
            pm = d.peer_ms(k, impl)
            if pm:
                peer += "%s %.4f ms (ratio %.2fx) " % (impl, pm, pm / ms if ms else float("nan"))
        rows.append([k, r["desc"], fmt(ms, "%.4f"), rate, peer.strip(), r.get("note", "")])
    return "### Copy ceiling, amax, AMAX_D epilogue, prototypes\n\n" + table(["key", "what", "ours ms", "rate", "peer", "note"], rows) + "\n"


def make_plot(path, qplot, gplot, splot):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001
        print("report: no plot (%s)" % e)
        return False
    fig, axes = plt.subplots(1, 3, figsize=(20, 5.5))
    ax = axes[0]
    names = [p[0] for p in qplot]
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], [p[1] or 0 for p in qplot], 0.4, label="te_rt (ours)")
    ax.bar([x + 0.2 for x in xs], [p[2] or 0 for p in qplot], 0.4, label="torch.compile")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel("% of copy bandwidth (higher is better)")
    ax.set_title("Quantize 16384x16384 bf16, rowwise+columnwise")
    ax.axhline(85, color="gray", ls="--", lw=0.8)
    ax.legend()
    ax = axes[1]
    modes = [m for m in ("tensor", "rowwise", "blk1d2d", "blk2d1d", "bf16") if m in gplot]
    shapes = [s for s, _, _ in gplot.get(modes[0], [])] if modes else []
    width = 0.8 / max(1, 2 * len(modes))
    for i, m in enumerate(modes):
        vals = dict((s, (a, b)) for s, a, b in gplot[m])
        for j, (lab, idx) in enumerate((("ours", 0), ("torch", 1))):
            off = (2 * i + j) * width - 0.4 + width / 2
            ax.bar([x + off for x in range(len(shapes))], [(vals.get(s, (0, 0))[idx] or 0) for s in shapes], width,
                   label="%s %s" % (m, lab), hatch="" if idx == 0 else "//")
    ax.set_xticks(list(range(len(shapes))))
    ax.set_xticklabels(shapes, rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("TFLOP/s")
    ax.set_title("GEMMs: te_rt vs torch (_scaled_mm / mm)")
    ax.legend(fontsize=6, ncol=2)
    ax = axes[2]
    names = [p[0] for p in splot]
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], [p[1] or 0 for p in splot], 0.4, label="te_rt (ours)")
    ax.bar([x + 0.2 for x in xs], [p[2] or 0 for p in splot], 0.4, label="torch.compile")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, rotation=45, ha="right", fontsize=7)
    ax.set_ylabel("% of copy bandwidth")
    ax.set_title("Small tensors")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main(argv):
    if len(argv) < 4:
        print(__doc__ or "usage: report.py TE_BENCH_CSV TORCH_PEERS_CSV OUT_DIR [--title T]")
        return 2
    ours, peers, out = load(argv[1]), load(argv[2]), argv[3]
    title = argv[argv.index("--title") + 1] if "--title" in argv else ""
    os.makedirs(out, exist_ok=True)
    d = Data(ours, peers)
    parts = []
    if title:
        parts.append(title + "\n")
    parts.append("Ratio = peer time / our time (> 1: ours faster). Copy bandwidth (te_bench, cudaMemcpy D2D 1 GiB, "
                 "read+write): %s GB/s.\n" % fmt(d.copy_gbps, "%.0f"))
    qrec = ["delayed", "current", "current_amaxin", "current_fused", "block1d", "block2d", "mxfp8", "nvfp4", "nvfp4_rht"]
    q, qplot = quant_section(d, "16384x16384", qrec, "Quantize, 16384x16384 bf16, rowwise + columnwise",
                             ("torch_compile", "torch_eager"))
    parts.append(q)
    parts.append(other_section(d))
    g, gplot = gemm_section(d)
    parts.append(g)
    parts.append(linear_section(d))
    splot = []
    for n in (1024, 2048, 4096):
        s, sp = quant_section(d, "%dx%d" % (n, n), ["current", "block1d", "mxfp8", "nvfp4"],
                              "Small tensors, %dx%d" % (n, n), ("torch_compile",))
        parts.append(s)
        splot += [("%s %d" % (r, n), a, b) for r, a, b in sp]
    text = "\n".join(parts)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "joined.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["key", "impl", "ms", "bytes", "flops", "note"])
        for k in d.order:
            r = d.ours[k]
            w.writerow([k, "te_rt", r["ms"], r["bytes"], r["flops"], r.get("note", "")])
            for impl, p in sorted(d.peers.get(k, {}).items()):
                w.writerow([k, impl, p["ms"], p["bytes"], p["flops"], p.get("note", "")])
        for k, impls in d.peers.items():
            if k not in d.ours:
                for impl, p in sorted(impls.items()):
                    w.writerow([k, impl, p["ms"], p["bytes"], p["flops"], p.get("note", "")])
    make_plot(os.path.join(out, "perf.png"), qplot, gplot, splot)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
