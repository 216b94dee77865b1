#!/usr/bin/env bash
# One GPU-machine call for the bandwidth kernels: configure + build the
# standalone runtime, `ctest -L gpu` (bit-exactness against the cpu backend and
# the 2^32 hardware-encoder sweep), then the 16384x16384 bf16 bandwidth run
# (CudaPerf.DISABLED_Bandwidth16k) with the fast kernels and, for the
# "before" numbers, without them (TE_RT_CUDA_NO_FAST_KERNELS=1). If the
# hardware encoders disagree with Format, everything is rebuilt with
# -DTE_CUDA_SOFT_ENCODE=ON and repeated. Logs go to $OUT (default /tmp/te-gpu).
# GoogleTest: the installed package, or sources in .gtest/ at the repo root.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/te-gpu}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
B=${TE_GPU_BUILD_DIR:-/tmp/b}
GT=()
[ -d .gtest ] && GT=(-DTE_GTEST_SOURCE_DIR="$PWD/.gtest")
nvidia-smi -L

bandwidth() { # $1: log suffix
  "$B/cuda/test/te-rt-cuda-tests" --gtest_also_run_disabled_tests \
    --gtest_filter='CudaPerf.DISABLED_Bandwidth16k' 2>&1 |
    grep -E "te-rt-cuda\]|FAILED|Failure" | tee "$OUT/perf-$1.log"
}

check() { # $1: OFF (hardware encoders) or ON (software)
  local soft=$1 start
  cmake -S runtime -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90a \
    -DTE_CUDA_SOFT_ENCODE="$soft" "${GT[@]}" >"$OUT/configure-$soft.log" 2>&1 ||
    { tail -30 "$OUT/configure-$soft.log"; return 2; }
  start=$(date +%s)
  ninja -C "$B" te-rt-cuda-tests >"$OUT/build-$soft.log" 2>&1 ||
    { grep -A20 FAILED "$OUT/build-$soft.log" | head -60; return 2; }
  echo "build (soft encoders $soft): $(($(date +%s) - start)) s"
  start=$(date +%s)
  (cd "$B" && timeout 240 ctest -L gpu --output-on-failure) \
    >"$OUT/ctest-$soft.log" 2>&1
  local rc=$?
  echo "ctest -L gpu: rc=$rc in $(($(date +%s) - start)) s"
  grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|te-rt-cuda\]|tests passed|Failure|differ|first mismatch|error:" \
    "$OUT/ctest-$soft.log" | head -60
  bandwidth "fast-soft$soft"
  return $rc
}

check OFF
if grep -q "FAILED.*CudaCodec" "$OUT/ctest-OFF.log"; then
  echo "hardware encoders differ from Format: rebuilding with software ones"
  check ON
fi
echo "--- without the fast kernels (before):"
TE_RT_CUDA_NO_FAST_KERNELS=1 bandwidth before
