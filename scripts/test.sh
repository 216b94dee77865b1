#!/usr/bin/env bash
# The README's second command: installs dependencies, checks formatting,
# builds, runs every test.
# GPU tests (ctest label `gpu`) run only where a CUDA device is present.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
# Formatting first (a few seconds): a misformatted source fails the run before
# the build, naming the files and the command that formats them.
bash scripts/check-format.sh
bash scripts/build.sh

# Short fuzz run (about 5 minutes with its build): the MLIR pipeline, runtime
# C ABI and .npy libFuzzer targets in build-fuzz, 40 s each (scripts/fuzz.sh
# installs clang-22 itself; TE_FUZZ_MLIR=0 leaves the MLIR target out).
# It runs first so that the run ends with the main suite's ctest summary.
# TE_SKIP_FUZZ=1 skips it.
if [ "${TE_SKIP_FUZZ:-0}" != 1 ]; then
  bash scripts/fuzz.sh short
fi

cd "${TE_BUILD_DIR:-build}"
CTEST_ARGS=(--output-on-failure -j "$(nproc)")
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 \
   && grep -q "TE_HAVE_CUDA:INTERNAL=ON" CMakeCache.txt; then
  echo "te: CUDA device and CUDA backend present: running every test, GPU tests included"
  ctest "${CTEST_ARGS[@]}"
else
  echo "te: SKIPPING the GPU tests (ctest label 'gpu'): no CUDA device or no CUDA backend on this machine."
  echo "te: run them on a GPU machine with: ctest -L gpu"
  ctest "${CTEST_ARGS[@]}" -LE gpu
fi

