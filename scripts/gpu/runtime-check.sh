#!/usr/bin/env bash
# Builds the standalone runtime with the cuda backend, runs the GPU tests and
# compute-sanitizer on a GPU machine. Logs go to $OUT (default: a new
# temporary directory, printed first); the build to $TE_GPU_BUILD_DIR (default
# build-gpu/runtime, ignored by git, kept between runs).
# Usage: scripts/gpu/runtime-check.sh [ctest-timeout-s] [sanitizer-tools...]
#   The sanitizers run the whole GPU suite with TE_RT_CUDA_TEST_SMALL=1 except
#   the 2^32-input codec sweeps and the host-only proofs (TE_SANITIZE_FILTER
#   overrides the gtest filter; TE_SANITIZE_TIMEOUT, default 200 s, per tool).
#   A tool named "initcheck-poison" is initcheck with TE_RT_CUDA_POISON=1;
#   TE_SANITIZE_FILTER_<tool> (e.g. TE_SANITIZE_FILTER_racecheck) sets one
#   tool's filter.
#   GoogleTest: the installed package, or sources in .gtest/ (a copy of
#   /usr/src/googletest) at the repository root.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$(mktemp -d -t te-gpu.XXXXXX)}
mkdir -p "$OUT"
echo "logs: $OUT"
CTEST_TIMEOUT=${1:-300}
shift || true
TOOLS=("$@")
B=${TE_GPU_BUILD_DIR:-build-gpu/runtime}
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -L
GT=()
[ -d .gtest ] && GT=(-DTE_GTEST_SOURCE_DIR="$PWD/.gtest")
cmake -S runtime -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90a "${GT[@]}" \
  >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
start=$(date +%s)
ninja -C "$B" >"$OUT/build.log" 2>&1 || { grep -A20 FAILED "$OUT/build.log" | head -80; exit 1; }
echo "build: $(( $(date +%s) - start )) s"
cd "$B"
start=$(date +%s)
timeout "$CTEST_TIMEOUT" ctest -L gpu --output-on-failure >"$OUT/ctest.log" 2>&1
echo "ctest -L gpu: rc=$? in $(( $(date +%s) - start )) s"
grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|te-rt-cuda\]|tests passed|Failure|differ|tolerance|Expected|Which is|error:" \
  "$OUT/ctest.log" | head -80
cuda/test/te-rt-cuda-tests --gtest_also_run_disabled_tests \
  --gtest_filter='CudaPerf.DISABLED_Bandwidth16k:CudaNVFP4Perf.*' 2>&1 | grep "te-rt-cuda\]" | tee "$OUT/perf.log"
export TE_RT_CUDA_TEST_SMALL=1
for spec in "${TOOLS[@]}"; do
  # "initcheck-poison": initcheck with TE_RT_CUDA_POISON=1 (every device
  # allocation of the backend NaN-filled first; runtime/cuda/DeviceTemp.h).
  tool=${spec%-poison}
  poison=0
  [ "$tool" != "$spec" ] && poison=1
  fvar="TE_SANITIZE_FILTER_$tool"
  filter=${!fvar:-${TE_SANITIZE_FILTER:-*-*OnAllFloats*:*OnHost*}}
  start=$(date +%s)
  TE_RT_CUDA_POISON=$poison \
  timeout "${TE_SANITIZE_TIMEOUT:-200}" compute-sanitizer --tool "$tool" --print-limit 2000 --error-exitcode 9 \
    cuda/test/te-rt-cuda-tests \
    --gtest_filter="$filter" \
    >"$OUT/sanitizer-$spec.log" 2>&1
  echo "compute-sanitizer --tool $tool (TE_RT_CUDA_POISON=$poison, filter $filter): rc=$? in $(( $(date +%s) - start )) s"
  grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)" "$OUT/sanitizer-$spec.log" | tail -3
  # Which kernels and tests the reports come from (the first 2000 are printed).
  grep -E "^=========     at |^\[ RUN" "$OUT/sanitizer-$spec.log" | awk '/RUN/{t=$NF; next} {sub(/\+0x.*/, ""); c[t " <- " $3]++} END {for (k in c) print "  " c[k] "x " k}' | head -20
done
