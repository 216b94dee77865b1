#!/usr/bin/env python3
"""Runs the shell blocks of te's Markdown docs that are marked runnable.

A block is runnable when the line just before its opening fence is the HTML
comment ``<!-- runnable -->`` (invisible once rendered) and the fence is
``sh`` or ``bash``:

    <!-- runnable -->
    ```sh
    te-opt --te-pipeline test/Integration/linear.mlir
    ```

Mark only blocks that run on a machine without a GPU (cpu backend) in a few
seconds to a minute. Each block runs with ``bash -euo pipefail`` in a fresh
directory (under --work-dir) that holds a symbolic link to every top-level
entry of the source tree and ``build`` -> the build directory, so that paths
such as ``examples/...``, ``test/...`` and ``build/lib/TEPlugin.so`` resolve
and files a block writes stay out of the tree. PATH starts with the build's
bin/ (te-opt, te-run, te-quantize) and the LLVM tools (mlir-opt, FileCheck).
A block passes when it exits 0.

usage: doc-test.py --build-dir BUILD [--llvm-bin-dir DIR] [--work-dir DIR]
                   [--timeout S] PATH...   (Markdown files or directories)

Run by the ``docs-guide`` test (ctest -L docs) on docs/guide.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARKER = re.compile(r"^\s*<!--\s*runnable\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*(\w*)")
SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def blocks(path):
    """Yields (line number, code) of the runnable blocks of a Markdown file;
    raises ValueError for a marker that is not followed by a sh/bash fence."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        if not MARKER.match(lines[i]):
            i += 1
            continue
        fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if not fence or fence.group(3) not in ("sh", "bash"):
            raise ValueError(f"{path}:{i + 1}: <!-- runnable --> must be "
                             "followed by a ```sh or ```bash block")
        close = fence.group(2)
        start = i + 2
        end = start
        while end < len(lines) and not lines[end].strip().startswith(close):
            end += 1
        if end == len(lines):
            raise ValueError(f"{path}:{i + 2}: unterminated code block")
        yield start + 1, "\n".join(lines[start:end]) + "\n"
        i = end + 1


def sandbox(work, build_dir):
    os.makedirs(work)
    for entry in os.listdir(SOURCE_DIR):
        if entry == ".git" or entry.startswith("build"):
            continue
        os.symlink(os.path.join(SOURCE_DIR, entry), os.path.join(work, entry))
    os.symlink(os.path.abspath(build_dir), os.path.join(work, "build"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--llvm-bin-dir", default="")
    ap.add_argument("--work-dir", default="")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()

    files = []
    for p in args.paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p)
                            if f.endswith(".md"))
        else:
            files.append(p)

    work_root = args.work_dir or tempfile.mkdtemp(prefix="te-doc-test-")
    if os.path.isdir(work_root):
        shutil.rmtree(work_root)
    os.makedirs(work_root)

    env = dict(os.environ)
    path = [os.path.join(os.path.abspath(args.build_dir), "bin")]
    if args.llvm_bin_dir:
        path.append(args.llvm_bin_dir)
    env["PATH"] = os.pathsep.join(path + [env.get("PATH", "")])
    env["TE_BUILD_DIR"] = "build"

    ran, failed = 0, []
    for md in files:
        try:
            found = list(blocks(md))
        except ValueError as e:
            print(f"FAIL {e}")
            failed.append(str(e))
            continue
        for line, code in found:
            ran += 1
            name = f"{os.path.relpath(md, SOURCE_DIR)}:{line}"
            work = os.path.join(
                work_root, re.sub(r"[^A-Za-z0-9_.-]", "_", name))
            sandbox(work, args.build_dir)
            try:
                r = subprocess.run(["bash", "-euo", "pipefail", "-c", code],
                                   cwd=work, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True,
                                   timeout=args.timeout)
                rc, out = r.returncode, r.stdout
            except subprocess.TimeoutExpired as e:
                rc = "timeout"
                out = e.stdout or ""
                if isinstance(out, bytes):
                    out = out.decode(errors="replace")
            if rc == 0:
                print(f"PASS {name}")
            else:
                print(f"FAIL {name} (exit {rc})\n--- block:\n{code}"
                      f"--- output (last 40 lines):")
                print("\n".join(out.splitlines()[-40:]))
                failed.append(name)

    print(f"doc-test: {ran} runnable blocks, {len(failed)} failed")
    if ran == 0:
        print("doc-test: no block is marked <!-- runnable -->")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
