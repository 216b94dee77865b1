#!/usr/bin/env bash
# Two-process amax-reduction test over NCCL (label multigpu). Needs 2 GPUs
# (the nvidia-h200-x2 machine) and libnccl.so.2; otherwise prints why and
# exits 77, which ctest reports as skipped.
#   test/Distributed/run.sh <build-dir> [nranks]
set -u
build=${1:?usage: run.sh <build-dir> [nranks]}
n=${2:-2}
exe=$(find "$build" -name te-two-process-amax -type f -perm -u+x | head -n1)
if [ -z "$exe" ]; then
  echo "SKIP: te-two-process-amax was not built (no CUDA toolkit)"
  exit 77
fi
exec "$exe" "$n"
