#!/usr/bin/env python3
"""Compiles te's example and integration programs ahead of time for a GPU
target and for the cpu target, for scripts/gpu/gpu-check.sh to run on a GPU
machine (which has no MLIR) and compare: the cuda backend's results against
the cpu backend's.

Usage: gpu-programs.py OUT_DIR [--target sm_90] [--only SUBSTRING]
                        [--pipeline-options "K=V ..."]

Writes, per program and entry, OUT_DIR/NAME.gpu.o, OUT_DIR/NAME.cpu.o (and
their .sig files, scripts/te-aot.sh) and one line `NAME ENTRY FLAGS...` in
OUT_DIR/manifest.txt: the harness flags that make the entry's inputs
(--seed, --fill, --dynamic-dim), taken from the program's te-run RUN lines
(examples: those of scripts/run-examples.sh), and `--twin OTHER` where the
RUN line compares the program's results with another program's (a dynamic
batch against its static twin): gpu-check.sh then also compares the two
programs' cuda results bit for bit. Programs that need a
communicator (--comm-group) or explicit --input values are left out.
Needs the MLIR build (TE_BUILD_DIR) and the CUDA toolkit (the kernels'
binary).
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
KEEP = {"--seed": 1, "--fill": 1, "--dynamic-dim": 1}


def run_lines(path):
    """The lines of `path`, a RUN line continued with a trailing backslash
    joined with its continuations (lit's reading)."""
    out, pending = [], None
    for line in open(path):
        line = line.rstrip("\n")
        if pending is not None:
            cont = re.sub(r"^\s*//\s*RUN:", "", line)
            line = pending + " " + cont.strip()
            pending = None
        if "RUN:" in line and line.rstrip().endswith("\\"):
            pending = line.rstrip()[:-1].rstrip()
            continue
        out.append(line)
    if pending is not None:
        out.append(pending)
    return out


def integration_programs():
    out = []
    folder = os.path.join(ROOT, "test", "Integration")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".mlir"):
            continue
        path = os.path.join(folder, name)
        seen = set()
        # --output-dir D of a RUN line -> the stem it ran as; a later RUN line
        # that --compares all its results with D's is that program's twin.
        producers = {}
        for line in run_lines(path):
            m = re.search(r"RUN: te-run %s (.*)", line)
            if not m:
                continue
            args = shlex.split(m.group(1).split("|")[0].split(">")[0])
            if any(a in ("--reference", "--comm-group", "--input", "--target",
                         "--emit-lowered", "--print-signature")
                   for a in args):
                continue
            entry, flags, i = "main", [], 0
            outdir, compared = None, set()
            while i < len(args):
                a = args[i]
                if a == "--entry":
                    entry = args[i + 1]
                    i += 2
                    continue
                if a in KEEP:
                    flags += [a, args[i + 1]]
                    i += 2
                    continue
                if a == "--output-dir":
                    outdir = args[i + 1]
                if a == "--compare":
                    compared.add(os.path.dirname(args[i + 1]))
                i += 1
            key = (entry, tuple(flags))
            if key in seen:
                continue
            seen.add(key)
            stem = name[:-5] + "." + entry + ("" if len(seen) == 1 else
                                              ".%d" % len(seen))
            if outdir:
                producers[outdir] = stem
            twin = []
            if len(compared) == 1 and next(iter(compared)) in producers:
                twin = ["--twin", producers[next(iter(compared))]]
            out.append((stem, path, entry, flags + twin))
    return out


def example_programs():
    out = []
    folder = os.path.join(ROOT, "examples")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".mlir"):
            continue
        flags = ["--seed", "1", "--dynamic-dim", "256"]
        if "delayed" in name:
            flags += ["--fill", "6=1", "--fill", "7=0"]
        out.append((name[:-5], os.path.join(folder, name), "train_step",
                    flags))
    return out


def compile_one(job):
    stem, path, entry, target, obj, options = job
    extra = ["--pipeline-options", options] if options else []
    r = subprocess.run(
        ["bash", os.path.join(ROOT, "scripts", "te-aot.sh"), "compile", path,
         obj, "--entry", entry, "--target", target] + extra,
        capture_output=True, text=True)
    return stem, target, r.returncode, r.stderr[-2000:]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--target", default="sm_90")
    p.add_argument("--only", default="")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    # te-pipeline options for the GPU objects (the cpu objects are the
    # reference and keep the defaults).
    p.add_argument("--pipeline-options", default="")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    programs = [x for x in example_programs() + integration_programs()
                if a.only in x[0]]
    jobs = []
    for stem, path, entry, _ in programs:
        for kind, target in (("gpu", a.target), ("cpu", "cpu")):
            jobs.append((stem, path, entry, target,
                         os.path.join(a.out, "%s.%s.o" % (stem, kind)),
                         a.pipeline_options if kind == "gpu" else ""))
    failed = set()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for stem, target, rc, err in pool.map(compile_one, jobs):
            if rc != 0:
                failed.add(stem)
                sys.stderr.write("gpu-programs: %s (%s) failed:\n%s\n" %
                                 (stem, target, err))
    with open(os.path.join(a.out, "manifest.txt"), "w") as m:
        for stem, _, entry, flags in programs:
            if stem not in failed:
                m.write(" ".join([stem, entry] + flags) + "\n")
    print("gpu-programs: %d programs compiled, %d failed" %
          (len(programs) - len(failed), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
