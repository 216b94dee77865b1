#!/usr/bin/env bash
# On the GPU machine (PyTorch with CUDA, CMake, Ninja, the CUDA toolkit; no
# MLIR): builds te's runtime alone (cmake -S runtime: libte_rt with the cuda
# backend, libte_call, the Python package's runtime part) if needed, then
# runs test_torch_cuda.py on the programs prepare.sh compiled elsewhere:
#
#   python/test/gpu/run.sh PROGRAMS_DIR [pytest arguments]
#
# TE_RT_BUILD: the runtime build directory (default /tmp/te-rt-build-py);
# PYTHON: the python3 with torch (default python3). Uses pytest when it is
# installed, else the script's own runner.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
[ $# -ge 1 ] || { sed -n '2,12p' "$0"; exit 2; }
programs="$(cd "$1" && pwd)"; shift
RT=${TE_RT_BUILD:-/tmp/te-rt-build-py}
PY=${PYTHON:-python3}
if [ ! -f "$RT/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT/runtime" -B "$RT" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90a -DTE_BUILD_TESTS=OFF \
    -DPython3_EXECUTABLE="$(command -v "$PY")" > "$RT.configure.log" 2>&1 ||
    { tail -30 "$RT.configure.log"; exit 1; }
fi
ninja -C "$RT" te_rt te_call te-aot-run te-python > "$RT.build.log" 2>&1 ||
  { tail -30 "$RT.build.log"; exit 1; }
export PYTHONPATH="$RT/python${PYTHONPATH:+:$PYTHONPATH}"
export TE_GPU_PROGRAMS="$programs"
"$PY" -c "import te, torch; print('te', te.__version__, 'runtime API',
te.api_version(), 'cuda backend', te.backend_available('cuda'), '| torch',
torch.__version__, torch.cuda.get_device_name(0))"
if "$PY" -c "import pytest" 2> /dev/null; then
  exec "$PY" -m pytest -v "$HERE/test_torch_cuda.py" "$@"
fi
exec "$PY" "$HERE/test_torch_cuda.py" "$programs"
