#!/usr/bin/env bash
# One GPU-machine call for the bandwidth kernels: configure + build the
# standalone runtime, `ctest -L gpu` (bit-exactness against the cpu backend and
# the 2^32 hardware-encoder sweep), then the 16384x16384 bf16 bandwidth run
# (CudaPerf.DISABLED_Bandwidth16k) for each kernel variant named in
# TE_PERF_VARIANTS (default "tile": the bandwidth kernels; "general":
# TE_PERF_GENERAL=1: te_rt_context_set_fast_kernels(ctx, 0), the general kernels; "quick"
# (TE_PERF_QUICK=1): FP8 recipes, both directions only). Variants combine
# with commas ("general,quick").
# TE_PERF_VARIANT_TESTS="variant ..." also runs the quantize tests
# (CudaQuantize.*) under each of those variants.
# TE_PERF_NCU=1 adds an Nsight Compute summary (--clock-control none) of every
# bandwidth kernel, one quantize per FP8 recipe (CudaPerf.DISABLED_ProfileOnce),
# for the variants in TE_PERF_NCU_VARIANTS (default "tile").
# TE_PERF_SKIP_CTEST=1 skips the ctest. If the hardware encoders disagree with
# Format, everything is rebuilt with -DTE_CUDA_SOFT_ENCODE=ON and repeated.
# TE_GPU_PREBUILT=<dir>: use <dir>/te-rt-cuda-tests and <dir>/libte_rt.so.<N> (its SONAME)
# built elsewhere (sm_90a) instead of building; if that binary does not start
# there, the runtime is built as usual. TE_PERF_NCU_TIMEOUT: seconds (120),
# TE_PERF_TEST_TIMEOUT: seconds per TE_PERF_VARIANT_TESTS run (600).
# Logs go to $OUT (default: a new temporary directory, printed first):
# ctest-*.log, perf.log, ncu-*.txt. The build: $TE_GPU_BUILD_DIR (default
# build-gpu/runtime).
# GoogleTest: the installed package, or sources in .gtest/ at the repo root.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$(mktemp -d -t te-gpu.XXXXXX)}
echo "logs: $OUT"
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
B=${TE_GPU_BUILD_DIR:-build-gpu/runtime}
GT=()
[ -d .gtest ] && GT=(-DTE_GTEST_SOURCE_DIR="$PWD/.gtest")
VARIANTS=${TE_PERF_VARIANTS:-tile}
nvidia-smi -L

variantEnv() { # $1: variant, or variants joined by commas -> assignments
  local v
  for v in ${1//,/ }; do
    case $v in
    general) echo TE_PERF_GENERAL=1 ;;
    quick) echo TE_PERF_QUICK=1 ;;
    *) echo TE_PERF_VARIANT=tile ;;
    esac
  done
}

bandwidth() { # $1: variant
  echo "--- variant $1" | tee -a "$OUT/perf.log"
  env $(variantEnv "$1") "$TESTS" \
    --gtest_also_run_disabled_tests \
    --gtest_filter='CudaPerf.DISABLED_Bandwidth16k' 2>&1 |
    grep -E "te-rt-cuda\]|FAILED|Failure" | tee -a "$OUT/perf.log"
}

profile() { # $1: variant
  local start
  start=$(date +%s)
  env $(variantEnv "$1") timeout "${TE_PERF_NCU_TIMEOUT:-120}" ncu --clock-control none \
    --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section Occupancy --section LaunchStats \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,smsp__inst_executed.sum \
    -k 'regex:Fast|Tile|Fused|amax|Scale' -c 12 \
    "$TESTS" --gtest_also_run_disabled_tests \
    --gtest_filter='CudaPerf.DISABLED_ProfileOnce' >"$OUT/ncu-$1.txt" 2>&1
  echo "ncu ($1): rc=$? in $(($(date +%s) - start)) s"
  grep -E "^  [a-zA-Z].*Kernel|^  [a-z].*\(|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|dram__bytes|lts__t_(sectors|requests)_op_write|inst_executed" \
    "$OUT/ncu-$1.txt" | sed -E 's/ +/ /g' | head -120
}

check() { # $1: OFF (hardware encoders) or ON (software)
  local soft=$1 start rc=0
  cmake -S runtime -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90a \
    -DTE_CUDA_SOFT_ENCODE="$soft" "${GT[@]}" >"$OUT/configure-$soft.log" 2>&1 ||
    { tail -30 "$OUT/configure-$soft.log"; return 2; }
  start=$(date +%s)
  ninja -C "$B" te-rt-cuda-tests >"$OUT/build-$soft.log" 2>&1 ||
    { grep -A20 FAILED "$OUT/build-$soft.log" | head -60; return 2; }
  echo "build (soft encoders $soft): $(($(date +%s) - start)) s"
  if [ -z "${TE_PERF_SKIP_CTEST:-}" ]; then
    start=$(date +%s)
    (cd "$B" && timeout 240 ctest -L gpu --output-on-failure) \
      >"$OUT/ctest-$soft.log" 2>&1
    rc=$?
    echo "ctest -L gpu: rc=$rc in $(($(date +%s) - start)) s"
    grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|te-rt-cuda\]|tests passed|Failure|differ|first mismatch|error:" \
      "$OUT/ctest-$soft.log" | head -60
  fi
  return $rc
}

TESTS=$B/cuda/test/te-rt-cuda-tests
P=${TE_GPU_PREBUILT:-}
if [ -n "$P" ] && LD_LIBRARY_PATH="$P:/usr/local/cuda/lib64:/usr/local/cuda/lib" \
  "$P/te-rt-cuda-tests" --gtest_list_tests >/dev/null 2>"$OUT/prebuilt.log"; then
  echo "using the prebuilt $P/te-rt-cuda-tests"
  export LD_LIBRARY_PATH="$P:/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  TESTS=$P/te-rt-cuda-tests
else
  [ -n "$P" ] && { echo "prebuilt binary does not start:"; head -5 "$OUT/prebuilt.log"; }
  check OFF
  if [ -f "$OUT/ctest-OFF.log" ] && grep -q "FAILED.*CudaCodec" "$OUT/ctest-OFF.log"; then
    echo "hardware encoders differ from Format: rebuilding with software ones"
    check ON
  fi
fi
for v in ${TE_PERF_VARIANT_TESTS:-}; do
  start=$(date +%s)
  env $(variantEnv "$v") timeout "${TE_PERF_TEST_TIMEOUT:-600}" "$TESTS" \
    --gtest_filter="${TE_PERF_TEST_FILTER:-CudaQuantize.PerTensor*:CudaQuantize.Float8Block:CudaQuantize.MXFP8:CudaTileEdges.*}" \
    >"$OUT/tests-$v.log" 2>&1
  echo "quantize tests ($v): rc=$? in $(($(date +%s) - start)) s"
  grep -E "^\[ +(OK|FAILED|PASSED) +\]|bit-exact" "$OUT/tests-$v.log" | head -12
done
for v in $VARIANTS; do
  bandwidth "$v"
done
if [ -n "${TE_PERF_NCU:-}" ]; then
  for v in ${TE_PERF_NCU_VARIANTS:-tile}; do
    profile "$v"
  done
fi
