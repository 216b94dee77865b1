#!/usr/bin/env python3
# ===- breakdown.py - Where one compiled training step's time goes ---------=== #
#
# Part of te. Reads a GPU trace of te's AOT step driver and sorts its device
# work into categories, per step:
#
#   gemm        cuBLASLt (nvjet_*, sm90_xmma_*, cutlass*, *gemm*)
#   quantize    te_rt's quantize / amax / scale kernels (runtime/cuda/*.cu)
#   dequantize  te_rt's dequantize kernels (MXFP8 / NVFP4 GEMM emulation on sm_90)
#   te_rt       te_rt's other kernels (bias, GEMM scalars, conversions)
#   generated   kernels the compiler generated (gpu-kernel-outlining names:
#               <func>_kernel, <func>_kernel_<n>: GELU, loss, accumulation...)
#   memcpy      device copies and memsets inside the step
#   other       any kernel not recognised (named in the output)
#   gaps        the step's time (te's timing line) less all of the above:
#               launch latency, host work, synchronisation
#
# Traces (--tool):
#   nsys  the CSV of `nsys stats --report cuda_gpu_trace --format csv`
#         (kernels and memory operations, "Duration (ns)" and "Name")
#   ncu   the CSV of `ncu --csv --print-units base --metrics
#         gpu__time_duration.sum` (kernels only; memcpy is not seen)
#
# One step, without the driver's one-time work (argument upload, result
# download, first-call costs): give the trace of a run with --repeat 1 as
# --one and of a run with --repeat 1+K as --more, with --extra K; the step is
# (more - one) / K. With --one only, the step is that run (upload and download
# included).
#
# Usage: python3 bench/step/breakdown.py --tool nsys|ncu --one T1.csv
#            [--more T3.csv --extra 2] [--step-ms MS] [--size S --recipe R]
#            [--csv OUT.csv]   (appends rows: size,recipe,tool,category,kernels,ms)
# Standard library only.
#
# ===------------------------------------------------------------------------=== #

import argparse
import csv
import io
import os
import re
import sys

CATEGORIES = ["gemm", "quantize", "dequantize", "te_rt", "generated", "memcpy", "other"]

GEMM = re.compile(r"nvjet|xmma|cutlass|gemm|cublas", re.I)
DEQUANT = re.compile(r"dequant", re.I)
# runtime/cuda/*.cu: the quantize, amax and scale kernels.
QUANT = re.compile(
    r"perTensor|currentFused|currentScale|amaxFast|amaxKernel|rowAmax|blockFast|blockQuant|blockTile|"
    r"mxfp8(BlockTile|Fast|Quant|Tile)|nvfp4(AmaxRHT|Fused|Quant|Transpose)|swizzleKernel|updateScale|"
    r"reciprocalKernel")
TE_RT = re.compile(r"addBiasKernel|gemmScalarsKernel|toFloatKernel|fromFloatKernel|te::rt|te_rt")
# gpu-kernel-outlining: gpu.func @<func>_kernel[_<n>] (no C++ mangling).
GENERATED = re.compile(r"^[A-Za-z_][A-Za-z0-9_.$]*_kernel(_\d+)?$")
# nsys names memory operations "[CUDA memcpy Host-to-Device]", "[CUDA memset]".
MEMOP = re.compile(r"^\[CUDA ", re.I)


def short_name(name):
    """The function's name without return type, namespaces and arguments."""
    # nsys spells the anonymous namespace "(anonymous namespace)", ncu
    # "<unnamed>"; either would be cut as arguments or template arguments.
    n = name.strip().replace("(anonymous namespace)", "anon").replace("<unnamed>", "anon")
    n = re.sub(r"\(.*$", "", n)          # arguments
    n = re.sub(r"<.*$", "", n)           # template arguments
    n = n.split()[-1] if n.split() else n  # 'void ns::f' -> 'ns::f'
    return n.split("::")[-1]


def category(name):
    n = name.strip()
    if MEMOP.match(n):
        return "memcpy"
    s = short_name(n)
    if DEQUANT.search(s):
        return "dequantize"
    if QUANT.search(s):
        return "quantize"
    if TE_RT.search(s) or TE_RT.search(n):
        return "te_rt"
    if GEMM.search(n):
        return "gemm"
    if GENERATED.match(n):
        return "generated"
    return "other"


def _rows_from(text, header_key):
    """CSV rows from the first line holding header_key (tools print other lines first)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if header_key in line:
            return list(csv.DictReader(io.StringIO("\n".join(lines[i:]))))
    return []


def read_nsys(path):
    """[(name, ns)] from nsys's cuda_gpu_trace (or the older gputrace) CSV."""
    with open(path, newline="", errors="replace") as f:
        rows = _rows_from(f.read(), "Duration")
    out = []
    for r in rows:
        dur = r.get("Duration (ns)") or r.get("Duration") or ""
        name = r.get("Name") or r.get("Kernel Name") or ""
        try:
            out.append((name, float(dur)))
        except ValueError:
            continue
    return out


UNITS = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6,
         "second": 1e9, "s": 1e9}


BYTE_UNITS = {"byte": 1.0, "bytes": 1.0, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9}


def read_ncu_launches(path):
    """[(name, ns, dram bytes or None, global bytes or None)] from ncu --csv
    (one row per kernel launch and metric; the launches in order). Global
    bytes: what the kernel's loads and stores request (L1TEX, after
    coalescing), whether L2 or DRAM serves them."""
    with open(path, newline="", errors="replace") as f:
        rows = _rows_from(f.read(), '"Kernel Name"')
    launches = {}
    for r in rows:
        key = r.get("ID") or str(len(launches))
        name = r.get("Kernel Name") or ""
        m = r.get("Metric Name") or ""
        try:
            v = float((r.get("Metric Value") or "").replace(",", ""))
        except ValueError:
            continue
        unit = (r.get("Metric Unit") or "").strip()
        e = launches.setdefault(key, [name, None, None, None])
        if m == "gpu__time_duration.sum":
            e[1] = v * UNITS.get(unit or "ns", 1.0)
        elif m in ("dram__bytes_read.sum", "dram__bytes_write.sum"):
            e[2] = (e[2] or 0.0) + v * BYTE_UNITS.get(unit or "byte", 1.0)
        elif m in ("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum",
                   "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum"):
            e[3] = (e[3] or 0.0) + v * BYTE_UNITS.get(unit or "byte", 1.0)
    return [tuple(e) for e in launches.values() if e[1] is not None]


def read_ncu(path):
    """[(name, ns)] from ncu --csv."""
    return [(n, ns) for n, ns, _, _ in read_ncu_launches(path)]


def per_kernel(launches, copy_tbps):
    """Rows (category, kernel, launches, ms, global GB, TB/s, % of copy, DRAM
    GB, DRAM TB/s) per kernel name, slowest first. The bandwidth that is put
    beside the copy's is the global bytes' (what the kernel reads and writes,
    from L2 or DRAM: the bytes a copy of the same data would move); the DRAM
    bytes are those that reached memory (fewer where L2 still held data)."""
    agg = {}
    for name, ns, dram, glob in launches:
        e = agg.setdefault(name, [0, 0.0, 0.0, True, 0.0, True])
        e[0] += 1
        e[1] += ns
        if dram is None:
            e[3] = False
        else:
            e[2] += dram
        if glob is None:
            e[5] = False
        else:
            e[4] += glob
    rows = []
    for name, (n, ns, dram, haveD, glob, haveG) in agg.items():
        tb = lambda by, have: by / ns / 1e3 if have and ns > 0 else None
        tbps = tb(glob, haveG)
        pct = 100.0 * tbps / copy_tbps if tbps is not None and copy_tbps else None
        rows.append((category(name), short_name(name) or name, n, ns / 1e6,
                     glob / 1e9 if haveG else None, tbps, pct,
                     dram / 1e9 if haveD else None, tb(dram, haveD)))
    rows.sort(key=lambda r: -r[3])
    return rows


def summarise(events):
    """{category: [count, ns]}, {other name: count}"""
    cats = {c: [0, 0.0] for c in CATEGORIES}
    others = {}
    for name, ns in events:
        c = category(name)
        cats[c][0] += 1
        cats[c][1] += ns
        if c == "other":
            others[short_name(name) or name] = others.get(short_name(name) or name, 0) + 1
    return cats, others


def main():
    p = argparse.ArgumentParser(description="per-step categories of a te step's GPU trace")
    p.add_argument("--tool", choices=["nsys", "ncu"], required=True)
    p.add_argument("--one", required=True, help="trace of a run with --repeat 1")
    p.add_argument("--more", help="trace of a run with --repeat 1+EXTRA")
    p.add_argument("--extra", type=int, default=2)
    p.add_argument("--step-ms", type=float, help="te's step time (the timing line): gives the gaps")
    p.add_argument("--size", default="")
    p.add_argument("--recipe", default="")
    p.add_argument("--csv", help="append rows size,recipe,tool,category,kernels,ms")
    p.add_argument("--kernels-csv",
                   help="ncu with the global load/store and DRAM byte metrics: append one row per "
                        "kernel of the --more (else --one) trace: size,recipe,category,kernel,launches,"
                        "ms,GB,TBps,pct_copy,dram_GB,dram_TBps")
    p.add_argument("--copy-tbps", type=float, default=0.0,
                   help="device-to-device copy bandwidth of the same run (read + write), TB/s")
    a = p.parse_args()
    read = read_nsys if a.tool == "nsys" else read_ncu
    one = read(a.one)
    if not one:
        print(f"breakdown: no kernels in {a.one}")
        return 1
    c1, others = summarise(one)
    if a.more:
        more = read(a.more)
        c3, others = summarise(more)
        k = max(a.extra, 1)
        step = {c: [(c3[c][0] - c1[c][0]) / k, (c3[c][1] - c1[c][1]) / k / 1e6] for c in CATEGORIES}
        how = f"(repeat {1 + k} - repeat 1) / {k}"
    else:
        step = {c: [c1[c][0], c1[c][1] / 1e6] for c in CATEGORIES}
        how = "one run with --repeat 1 (upload, download and first-call work included)"
    busy = sum(v[1] for v in step.values())
    rows = [(c, step[c][0], step[c][1]) for c in CATEGORIES]
    if a.step_ms is not None:
        rows.append(("gaps", "", a.step_ms - busy))
    rows.append(("total", sum(v[0] for v in step.values()), a.step_ms if a.step_ms is not None else busy))
    label = "-".join(x for x in (a.recipe, a.size) if x)
    print(f"breakdown {label} ({a.tool}; one step = {how}):")
    for c, n, ms in rows:
        nn = f"{n:7.1f}" if n != "" else "       "
        print(f"  {c:11s} {nn} kernels {ms:9.3f} ms")
    if a.tool == "ncu":
        print("  (ncu serialises kernels and does not see memcpy: 'gaps' holds the copies too)")
    if others:
        print("  other kernels: " + ", ".join(f"{n} x{k}" for n, k in sorted(others.items())[:20]))
    if a.kernels_csv and a.tool == "ncu":
        rows_k = per_kernel(read_ncu_launches(a.more or a.one), a.copy_tbps)
        print(f"  per kernel ({'all launches of ' + os.path.basename(a.more or a.one)}; "
              f"copy {a.copy_tbps:.2f} TB/s):")
        for cat, name, n, ms, gb, tbps, pct, dgb, dtbps in rows_k[:40]:
            bw = f"{tbps:6.2f} TB/s {pct:5.1f}% of copy" if tbps is not None and pct is not None else ""
            dr = f" (DRAM {dtbps:5.2f} TB/s)" if dtbps is not None else ""
            print(f"    {cat:10s} {name[:48]:48s} x{n:<4d} {ms:8.3f} ms  {bw}{dr}")
        new = not os.path.exists(a.kernels_csv) or os.path.getsize(a.kernels_csv) == 0
        with open(a.kernels_csv, "a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(["size", "recipe", "category", "kernel", "launches", "ms", "GB", "TBps",
                            "pct_copy", "dram_GB", "dram_TBps"])
            for cat, name, n, ms, gb, tbps, pct, dgb, dtbps in rows_k:
                fmt = lambda x, f: "" if x is None else f.format(x)
                w.writerow([a.size, a.recipe, cat, name, n, f"{ms:.4f}", fmt(gb, "{:.4f}"),
                            fmt(tbps, "{:.3f}"), fmt(pct, "{:.1f}"), fmt(dgb, "{:.4f}"),
                            fmt(dtbps, "{:.3f}")])
    if a.csv:
        new = not os.path.exists(a.csv) or os.path.getsize(a.csv) == 0
        with open(a.csv, "a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(["size", "recipe", "tool", "category", "kernels", "ms"])
            for c, n, ms in rows:
                w.writerow([a.size, a.recipe, a.tool, c, "" if n == "" else f"{n:g}", f"{ms:.4f}"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
