"""Replays the pass pipeline te-pipeline prints.

Usage: replay-pipeline.py TE_OPT INPUT TE_PIPELINE_OPTIONS

Runs `TE_OPT INPUT --te-pipeline=OPTIONS --dump-pass-pipeline`, then TE_OPT
again with the printed pipeline as --pass-pipeline, and prints the pass
names of the printed pipeline (one per line) and whether the two outputs are
identical. A printed pipeline that does not parse back is an error (exit 1).
"""
import re
import subprocess
import sys


def main():
    te_opt, source, options = sys.argv[1:4]
    first = subprocess.run(
        [te_opt, source, "--te-pipeline=" + options, "--dump-pass-pipeline"],
        capture_output=True, text=True)
    if first.returncode != 0:
        sys.stderr.write(first.stderr)
        return 1
    # stderr: "Pass Manager with N passes:\nbuiltin.module(...)"
    dump = " ".join(first.stderr.split())
    pipeline = dump[dump.index("builtin.module("):]
    for name in re.findall(r"[(,]\s*([a-z][a-z0-9-]*)", pipeline):
        print("pass:", name)
    second = subprocess.run([te_opt, source, "--pass-pipeline=" + pipeline],
                            capture_output=True, text=True)
    if second.returncode != 0:
        sys.stderr.write(second.stderr)
        return 1
    print("outputs identical" if first.stdout == second.stdout
          else "outputs differ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
