#!/usr/bin/env bash
# One GPU-machine call for the fused NVFP4 kernel (QuantizeNVFP4.cu): configure +
# build the standalone runtime, the Format NVFP4 global-scale tests built with
# the machine's host compiler ($CXX, e.g. GCC 13), `ctest -L gpu`, then the
# 16384x16384 bf16 NVFP4 timing (CudaNVFP4Perf.DISABLED_Bandwidth16k) with the
# fused kernel and with TE_PERF_GENERAL=1 (te_rt_context_set_fast_kernels(ctx, 0): the general kernels).
# If TE_NVFP4_OLD_INCLUDE names a directory holding an older
# te/Format/ScaleRules.h, the Format test is also built against it (to show
# that the test catches the host compiler's miscompilation).
# Logs go to $OUT (default: a new temporary directory, printed first); the
# build to $TE_GPU_BUILD_DIR (default build-gpu/nvfp4). GoogleTest: the installed package
# or sources in .gtest/ at the repo root.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$(mktemp -d -t te-nvfp4.XXXXXX)}
echo "logs: $OUT"
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
B=${TE_GPU_BUILD_DIR:-build-gpu/nvfp4}
CXX=${CXX:-c++}
GT=()
[ -d .gtest ] && GT=(-DTE_GTEST_SOURCE_DIR="$PWD/.gtest")
nvidia-smi -L
$CXX --version | head -1
start=$(date +%s)
cmake -S runtime -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90a "${GT[@]}" \
  >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 2; }
ninja -C "$B" te-rt-cuda-tests >"$OUT/build.log" 2>&1 ||
  { grep -A20 FAILED "$OUT/build.log" | head -60; exit 2; }
echo "build: $(($(date +%s) - start)) s"

# The Format library's NVFP4 global scale, built by the host compiler.
GTEST_LIBS=$(find "$B" -name 'libgtest.a' -o -name 'libgtest_main.a' | sort -r)
[ -n "$GTEST_LIBS" ] || GTEST_LIBS="-lgtest_main -lgtest" # the installed package
GTEST_INC=()
[ -d .gtest ] && GTEST_INC=(-I.gtest/googletest/include)
formatTest() { # $1: label, $2...: extra include directories first
  local label=$1
  shift
  $CXX -std=c++17 -O2 "$@" -Iinclude "${GTEST_INC[@]}" \
    test/unit/Format/ScaleRulesTest.cpp $GTEST_LIBS -lpthread \
    -o "$B/scale-rules-$label" >"$OUT/format-$label.log" 2>&1 &&
    "$B/scale-rules-$label" --gtest_filter='ScaleRules.NVFP4*' \
      >>"$OUT/format-$label.log" 2>&1
  echo "Format ScaleRules.NVFP4* ($label, $CXX -O2): rc=$?"
  grep -E "^\[ +(OK|FAILED|PASSED) +\]|Expected|Which is|first at" \
    "$OUT/format-$label.log" | head -20
}
if [ -n "${TE_NVFP4_QUICK:-}" ]; then
  # Quick mode: only the NVFP4 tests (quantize cases against the cpu backend,
  # the device sweeps), the timing, and with TE_NVFP4_NCU=1 an ncu report of
  # the first pass-2 launch (1x16, both representations) and the SASS.
  T="$B/cuda/test/te-rt-cuda-tests"
  start=$(date +%s)
  timeout 240 "$T" --gtest_filter='*NVFP4*:CudaNVFP4Codec.*-*OnHost' \
    >"$OUT/tests.log" 2>&1
  echo "NVFP4 tests: rc=$? in $(($(date +%s) - start)) s"
  grep -E "^\[ +(OK|FAILED|PASSED) +\]|te-rt-cuda\]|Failure|differ" \
    "$OUT/tests.log" | head -40
  "$T" --gtest_also_run_disabled_tests \
    --gtest_filter='CudaNVFP4Perf.DISABLED_Bandwidth16k' 2>&1 |
    grep -E "te-rt-cuda\]|FAILED|Failure" | sed "s/^/fused: /" |
    tee -a "$OUT/perf.log"
  if [ -n "${TE_NVFP4_NCU:-}" ]; then
    NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
    timeout 120 "$NCU" --clock-control none -k regex:nvfp4Fused -c 1 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section InstructionStats --section WarpStateStats \
      --section SourceCounters --section MemoryWorkloadAnalysis_Tables \
      --section Occupancy --section LaunchStats \
      "$T" --gtest_also_run_disabled_tests \
      --gtest_filter='CudaNVFP4Perf.DISABLED_Bandwidth16k' \
      >"$OUT/ncu.txt" 2>&1
    echo "ncu: rc=$?"
    grep -E "Duration|Throughput|Issued Instructions|Registers|Achieved Occupancy|Theoretical Occ|Issue Slots Busy|Executed Ipc A|Warp Cycles Per Issued|No Eligible|Bank|Excessive|Uncoalesced|Block Limit" \
      "$OUT/ncu.txt" | head -60
    cuobjdump -sass "$B/cuda/CMakeFiles/te_rt_cuda.dir/QuantizeNVFP4.cu.o" \
      >"$OUT/sass.txt" 2>&1
    echo "sass lines: $(wc -l <"$OUT/sass.txt")"
  fi
  exit 0
fi

# Built and run in the background while ctest runs (its own CPU threads).
formatTest current >"$OUT/format-summary-current.txt" 2>&1 &
if [ -n "${TE_NVFP4_OLD_INCLUDE:-}" ]; then
  formatTest old -I"$TE_NVFP4_OLD_INCLUDE" >"$OUT/format-summary-old.txt" 2>&1 &
fi

start=$(date +%s)
(cd "$B" && timeout 300 ctest -L gpu --output-on-failure) \
  >"$OUT/ctest.log" 2>&1
echo "ctest -L gpu: rc=$? in $(($(date +%s) - start)) s"
grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|te-rt-cuda\]|tests passed|Failure|differ|first" \
  "$OUT/ctest.log" | grep -v "CudaPerf" | head -80
wait
cat "$OUT"/format-summary-*.txt

for v in fused general; do
  env $([ $v = general ] && echo TE_PERF_GENERAL=1) \
    "$B/cuda/test/te-rt-cuda-tests" --gtest_also_run_disabled_tests \
    --gtest_filter='CudaNVFP4Perf.DISABLED_Bandwidth16k' 2>&1 |
    grep -E "te-rt-cuda\]|FAILED|Failure" | sed "s/^/$v: /" |
    tee -a "$OUT/perf.log"
done
