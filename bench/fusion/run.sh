#!/usr/bin/env bash
#===- bench/fusion/run.sh - Producer programs fused into te's quantize ------===#
#
# Runs on the GPU machine, from the repository root (PyTorch there, no MLIR):
#
#   bash bench/fusion/run.sh                   # build, GPU tests, benchmark
#   FUSION_TESTS=0 bash bench/fusion/run.sh    # skip the GPU tests
#   FUSION_SHAPES=8192x4096 FUSION_RECIPES=current bash bench/fusion/run.sh
#
# 1. Builds the runtime (cmake -S runtime -B build-rt, Release) with its GPU
#    producer test, and harness.cpp (a small library over libte_rt's ABI).
# 2. Runs runtime/test/GpuProducerTest.cpp (cuda against cpu) and the cpu
#    ProducerTest.cpp.
# 3. Runs bench_fusion.py -> $OUT/fusion.md (README.md says what it measures).
#
#===------------------------------------------------------------------------===#
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/bench-out}
BUILD=${BUILD:-$ROOT/build-rt}
mkdir -p "$OUT"
cd "$ROOT"
{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  echo "commit: ${TE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1
} | tee "$OUT/fusion-machine.txt"

# GoogleTest: the installed package, or sources in .gtest/ (a copy of
# /usr/src/googletest) at the repository root.
GT=()
[ -d .gtest ] && GT=(-DTE_GTEST_SOURCE_DIR="$PWD/.gtest")
export PATH=/usr/local/cuda/bin:$PATH
cmake -S runtime -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90a "${GT[@]}" >"$OUT/fusion-build.log" 2>&1 &&
  cmake --build "$BUILD" -j16 --target te_rt te-rt-gpu-producer-tests \
    te-rt-producer-tests >>"$OUT/fusion-build.log" 2>&1 || {
  tail -30 "$OUT/fusion-build.log"
  echo "build failed"
  exit 1
}
g++ -shared -fPIC -O2 -std=c++17 -o "$BUILD/libte_fusion_bench.so" \
  -Iruntime/include bench/fusion/harness.cpp -L"$BUILD" -lte_rt \
  -Wl,-rpath,"$BUILD" >>"$OUT/fusion-build.log" 2>&1 || {
  tail -30 "$OUT/fusion-build.log"
  echo "harness build failed"
  exit 1
}

if [ "${FUSION_TESTS:-1}" != 0 ]; then
  for t in te-rt-gpu-producer-tests te-rt-producer-tests; do
    timeout 300 "$BUILD/test/$t" >"$OUT/$t.log" 2>&1
    echo "$t: exit $?"
    grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|tests ran' "$OUT/$t.log"
    grep -E -A4 'Failure' "$OUT/$t.log" | head -60
  done
fi

PYTHONUNBUFFERED=1 python3 bench/fusion/bench_fusion.py \
  --harness "$BUILD/libte_fusion_bench.so" --out "$OUT" \
  --shapes "${FUSION_SHAPES:-8192x4096,8192x16384}" \
  --recipes "${FUSION_RECIPES:-current,block,mxfp8}" 2>&1 |
  tee "$OUT/fusion-bench.log" | tail -30
