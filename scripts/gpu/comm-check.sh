#!/usr/bin/env bash
# One GPU-machine call for the amax reduction (docs/distributed.md): builds
# the standalone runtime's te-rt-cuda-comm-tests and te-two-process-amax (or
# reuses them from TE_COMM_BUILD_DIR), finds libnccl.so.2 (the loader's path,
# else python's nvidia-nccl wheel, else a file search; TE_RT_NCCL_LIBRARY
# wins when set), then runs the GPU tests and the NCCL test of
# test/Distributed with 1 rank and with 2 ranks (2 needs two GPUs: exit 77
# otherwise). Logs go to $OUT (default: a new temporary
# directory, printed first); the build to $TE_COMM_BUILD_DIR (default
# build-gpu/comm). GoogleTest: the
# installed package or sources in .gtest/ at the repository root.
#   scripts/gpu/comm-check.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$(mktemp -d -t te-comm.XXXXXX)}
echo "logs: $OUT"
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
B=${TE_COMM_BUILD_DIR:-build-gpu/comm}
nvidia-smi -L
if [ ! -x "$B/cuda/test/te-rt-cuda-comm-tests" ]; then
  GT=()
  [ -d .gtest ] && GT=(-DTE_GTEST_SOURCE_DIR="$PWD/.gtest")
  start=$(date +%s)
  cmake -S runtime -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90a "${GT[@]}" \
    >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 2; }
  ninja -C "$B" te-rt-cuda-comm-tests >"$OUT/build.log" 2>&1 ||
    { grep -A20 FAILED "$OUT/build.log" | head -60; exit 2; }
  echo "build: $(($(date +%s) - start)) s"
fi
if [ ! -x "$B/te-two-process-amax" ]; then
  ${CXX:-c++} -std=c++17 -O2 -Iruntime/include -I/usr/local/cuda/include \
    test/Distributed/TwoProcessAmax.cpp -L"$B" -lte_rt \
    -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,"$B" \
    -o "$B/te-two-process-amax" || exit 2
fi
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "== ldconfig -p | grep nccl"
ldconfig -p | grep -i nccl
if [ -z "${TE_RT_NCCL_LIBRARY:-}" ] && ! ldconfig -p | grep -q 'libnccl\.so\.2 '; then
  for py in python3 python; do
    lib=$($py -c 'import os, nvidia.nccl as n; print(os.path.join(list(n.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null) &&
      [ -f "$lib" ] && { export TE_RT_NCCL_LIBRARY=$lib; break; }
  done
  if [ -z "${TE_RT_NCCL_LIBRARY:-}" ]; then
    lib=$(timeout 30 find /usr /opt /root /home -name 'libnccl.so.2*' -type f 2>/dev/null | head -1)
    [ -n "$lib" ] && export TE_RT_NCCL_LIBRARY=$lib
  fi
fi
echo "TE_RT_NCCL_LIBRARY=${TE_RT_NCCL_LIBRARY:-(unset: libnccl.so.2 from the loader path)}"
start=$(date +%s)
timeout 120 "$B/cuda/test/te-rt-cuda-comm-tests" >"$OUT/comm-tests.log" 2>&1
echo "te-rt-cuda-comm-tests: rc=$? in $(($(date +%s) - start)) s"
grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|SKIP|Failure|differ|Expected|Which is|error" \
  "$OUT/comm-tests.log" | head -60
for n in 1 2; do
  timeout 60 "$B/te-two-process-amax" "$n" >"$OUT/two-process-$n.log" 2>&1
  echo "te-two-process-amax $n: rc=$?"
  tail -5 "$OUT/two-process-$n.log"
done
