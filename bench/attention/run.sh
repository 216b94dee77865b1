#!/usr/bin/env bash
#===- bench/attention/run.sh - te's attention kernels beside PyTorch SDPA ---===#
#
# Runs on the GPU machine, from the repository root (PyTorch there, no MLIR):
#
#   bash bench/attention/run.sh            # build, GPU tests, benchmark
#   TE_ATTN_SET=quick bash bench/attention/run.sh  # the headline cases only
#   TE_ATTN_SET=medium ...   # also GQA, masks, D=64, S=8192 (default: full)
#   TE_ATTN_TESTS=0 bash bench/attention/run.sh   # skip the GPU tests
#   TE_ATTN_NEW_KERNELS=1 ...  # also test the kernels not yet the default
#   TE_ATTN_KERNELS=te-wgmma-ovl,te-wgmma-ws ...  # the te impls to time
#
# 1. Builds the runtime (cmake -S runtime -B build-rt, Release) and a small
#    harness exposing the cuda backend's attention with te_rt_attention's
#    argument structs (harness.cpp), for when libte_rt's front end is absent.
# 2. Runs the GPU attention tests (runtime/test/GpuAttentionTest.cpp).
# 3. Runs bench_attention.py -> $OUT/attention.csv, $OUT/attention.md.
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
} | tee "$OUT/attention-machine.txt"

# GoogleTest: the installed package, or sources in .gtest/ (a copy of
# /usr/src/googletest) at the repository root.
GT=()
[ -d .gtest ] && GT=(-DTE_GTEST_SOURCE_DIR="$PWD/.gtest")
export PATH=/usr/local/cuda/bin:$PATH
cmake -S runtime -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90a "${GT[@]}" >"$OUT/attention-build.log" 2>&1 &&
  cmake --build "$BUILD" -j16 --target te_rt te-rt-gpu-attention-tests \
    >>"$OUT/attention-build.log" 2>&1 || {
  tail -30 "$OUT/attention-build.log"
  echo "build failed"
  exit 1
}
g++ -shared -fPIC -O2 -std=c++17 -o "$BUILD/libte_attn_bench.so" \
  -Iruntime/include -Iruntime/lib -Iinclude -Iruntime/cuda \
  -I/usr/local/cuda/include bench/attention/harness.cpp runtime/lib/Error.cpp \
  "$BUILD/cuda/libte_rt_cuda.a" -L/usr/local/cuda/lib64 \
  -L/usr/local/cuda/targets/x86_64-linux/lib -lcudart_static -ldl -lpthread \
  -lrt >>"$OUT/attention-build.log" 2>&1 || {
  tail -30 "$OUT/attention-build.log"
  echo "harness build failed"
  exit 1
}

if [ "${TE_ATTN_TESTS:-1}" != 0 ]; then
  timeout 240 "$BUILD/test/te-rt-gpu-attention-tests" \
    >"$OUT/attention-tests.log" 2>&1
  echo "GPU attention tests: exit $?"
  grep -E '^\[  (PASSED|FAILED) |^\[  FAILED|tests ran' "$OUT/attention-tests.log"
  grep -E -A3 'Failure' "$OUT/attention-tests.log" | head -60
fi

PYTHONUNBUFFERED=1 python3 bench/attention/bench_attention.py \
  --lib "$BUILD/libte_rt.so" --harness "$BUILD/libte_attn_bench.so" \
  --out "$OUT" --set "${TE_ATTN_SET:-full}" \
  --kernels "${TE_ATTN_KERNELS:-}" 2>&1 | tee "$OUT/attention-bench.log" | tail -60
