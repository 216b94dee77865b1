#!/usr/bin/env python3
"""The program of harness-many-args.mlir: an entry of NARGS memref arguments
and NARGS/2 results, result j = argument 2j + argument 2j+1.

  harness-many-args.py module          print the module
  harness-many-args.py checks          print FileCheck lines for the output
                                       of a run with `--fill i=i`
  harness-many-args.py run CMD ARG...  run CMD ARG... --fill i=i (every i)
"""
import subprocess
import sys

NARGS = 80
# Result j's type: alternating ranks and element types (no bf16/f16
# arithmetic: its libcalls are not in every C runtime the AOT driver links).
TYPES = [("tensor<4xf32>", "f32[4]"), ("tensor<2x3xf64>", "f64[2,3]"),
         ("tensor<1x2x2xf32>", "f32[1,2,2]")]


def result_type(j):
    return TYPES[j % len(TYPES)]


def module():
    args = ", ".join(f"%a{i}: {result_type(i // 2)[0]}" for i in range(NARGS))
    results = ", ".join(result_type(j)[0] for j in range(NARGS // 2))
    print(f"func.func @main({args})\n    -> ({results}) {{")
    for j in range(NARGS // 2):
        t = result_type(j)[0]
        print(f"  %e{j} = tensor.empty() : {t}")
        print(f"  %r{j} = linalg.add ins(%a{2 * j}, %a{2 * j + 1} : {t}, {t}) "
              f"outs(%e{j} : {t}) -> {t}")
    names = ", ".join(f"%r{j}" for j in range(NARGS // 2))
    print(f"  return {names} : {results}\n}}")


def checks():
    for j in range(NARGS // 2):
        v = 4 * j + 1
        print(f"CHECK: result {j}: {result_type(j)[1]} min {v} max {v} mean {v}")


def run(cmd):
    fills = [f for i in range(NARGS) for f in ("--fill", f"{i}={i}")]
    sys.stdout.flush()
    sys.exit(subprocess.call(cmd + fills))


if __name__ == "__main__":
    if sys.argv[1:2] == ["module"]:
        module()
    elif sys.argv[1:2] == ["checks"]:
        checks()
    elif sys.argv[1:2] == ["run"] and len(sys.argv) > 2:
        run(sys.argv[2:])
    else:
        sys.exit(__doc__)
