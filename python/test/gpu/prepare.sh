#!/usr/bin/env bash
# Compiles the programs of test_torch_cuda.py ahead of time, for the GPU
# machine (PyTorch with CUDA, te's runtime, no MLIR):
#
#   python/test/gpu/prepare.sh OUT_DIR [--target sm_90]
#   (python/test/gpu/programs/ is ignored by git: a place for OUT_DIR)
#
# Writes OUT_DIR/<entry>.so (and .sig) for every entry of programs.mlir
# with scripts/te-aot.sh compile, OUT_DIR/gelu_chain.o (te.load links an
# object itself), and the PyTorch modules of export_modules.py imported by
# te.torch (OUT_DIR/<name>.so, .npz with their parameters). Needs the MLIR
# build (TE_BUILD_DIR, default build), the CUDA toolkit and a python3 with
# torch and numpy (TE_PYTHON, default python3). Then, on the GPU machine:
#
#   TE_GPU_PROGRAMS=OUT_DIR PYTHONPATH=<runtime build>/python \
#     python3 -m pytest python/test/gpu/test_torch_cuda.py
#   (or python3 python/test/gpu/test_torch_cuda.py OUT_DIR)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
[ $# -ge 1 ] || { sed -n '2,15p' "$0"; exit 2; }
out=$1; shift
target=sm_90
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=$2; shift 2 ;;
    *) echo "prepare.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
for entry in gelu_chain masked_rows linear_current linear_mxfp8; do
  "$ROOT/scripts/te-aot.sh" compile "$HERE/programs.mlir" "$out/$entry.so" \
    --entry "$entry" --target "$target"
done
"$ROOT/scripts/te-aot.sh" compile "$HERE/programs.mlir" "$out/gelu_chain.o" \
  --entry gelu_chain --target "$target"
# PyTorch modules imported by te.torch (torch on this machine), compiled
# for the GPU: a module -> te -> back to torch on CUDA tensors.
PY=${TE_PYTHON:-python3}
PYTHONPATH="${TE_BUILD_DIR:-$ROOT/build}/python${PYTHONPATH:+:$PYTHONPATH}" \
  "$PY" "$HERE/export_modules.py" "$out"
for name in mlp_fp32 mlp_current; do
  "$ROOT/scripts/te-aot.sh" compile "$out/$name.mlir" "$out/$name.so" \
    --entry main --target "$target"
done
echo "prepare.sh: programs for $target in $out"
