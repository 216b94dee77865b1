#!/usr/bin/env bash
#===- scripts/gpu/gemm-check.sh - GEMM tests + timings in one GPU call -----===#
#
# Runs on the GPU machine from the repository root (or a snapshot of it):
#
#   bash scripts/gpu/gemm-check.sh [SRC]
#
# SRC (default .) is the tree to build from when the prebuilt binaries
# (build-gemm/: the standalone runtime with te-rt-cuda-tests; build-gemm-bench/:
# bench/ with te_bench; both built on the dev machine, carried) do not run.
# 1. te-rt-cuda-tests (= ctest -L gpu)                -> $OUT/tests.log
# 2. te_bench --only gemm, default settings          -> $OUT/gemm.csv
# 3. the same with --autotune 8 (te_rt_context_set_gemm_autotune, first 3
#    shapes) -> $OUT/gemm_tuned.csv
# 4. the same with the general dequantize kernels (--general-kernels:
#    te_rt_context_set_fast_kernels(ctx, 0), first 2 shapes), for
#    before/after -> $OUT/gemm_before.csv
# Prints a short table last.
#
#===------------------------------------------------------------------------===#
set -u
SRC=${1:-.}
OUT=${OUT:-$(mktemp -d -t te-gemm.XXXXXX)}
mkdir -p "$OUT"
echo "logs: $OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
export LD_LIBRARY_PATH=$PWD/build-gemm${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=build-gemm/cuda/test/te-rt-cuda-tests
B=build-gemm-bench/te_bench
if ! { [ -x "$T" ] && "$T" --gtest_list_tests > /dev/null 2>&1; }; then
  echo "gemm-check: building the runtime tests from $SRC"
  RTB=build-gpu/gemm-rt
  cmake -S "$SRC/runtime" -B "$RTB" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90a \
    -DTE_GTEST_SOURCE_DIR="$(cd "$SRC" && pwd)/.gtest" > "$OUT/build-rt.log" 2>&1 &&
    ninja -C "$RTB" te-rt-cuda-tests >> "$OUT/build-rt.log" 2>&1 ||
    tail -30 "$OUT/build-rt.log"
  T=$RTB/cuda/test/te-rt-cuda-tests
fi
if ! { [ -x "$B" ] && "$B" --help > /dev/null 2>&1; }; then
  echo "gemm-check: building te_bench from $SRC"
  BB=build-gpu/gemm-bench
  cmake -S "$SRC/bench" -B "$BB" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/build-bench.log" 2>&1 &&
    ninja -C "$BB" te_bench >> "$OUT/build-bench.log" 2>&1 || tail -30 "$OUT/build-bench.log"
  B=$BB/te_bench
fi
start=$(date +%s)
timeout 240 "$T" > "$OUT/tests.log" 2>&1
echo "tests: exit $? in $(( $(date +%s) - start )) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|Failure|error" "$OUT/tests.log" | head -40
start=$(date +%s)
timeout 150 "$B" --only gemm --csv "$OUT/gemm.csv" > "$OUT/gemm.log" 2>&1
echo "bench: exit $? in $(( $(date +%s) - start )) s"
TE_BENCH_GEMM_SHAPES=3 timeout 100 "$B" --only gemm --autotune 8 \
  --csv "$OUT/gemm_tuned.csv" > /dev/null 2>&1
echo "tuned: exit $?"
TE_BENCH_GEMM_SHAPES=2 timeout 80 "$B" --only gemm --general-kernels \
  --csv "$OUT/gemm_before.csv" > /dev/null 2>&1
echo "before: exit $?"
for f in gemm gemm_tuned gemm_before; do
  echo "== $f (key, ms, TF/s, note)"
  [ -f "$OUT/$f.csv" ] && python3 - "$OUT/$f.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{r['key'][5:]:<34} {r['ms']:>9} {r['tflops']:>7}  {r['note'][:110]}")
PY
done
