#!/usr/bin/env bash
# run-short.sh FUZZER WORK_DIR SECONDS SEED_DIR REGRESSION_DIR TEST_DIR
# The CI fuzz run (ctest label `fuzz`): fuzzes for SECONDS with one process,
# starting from the committed seeds, the regressions and (for te-fuzz-mlir)
# the lit tests split into seeds. Fails on any crash, leak or sanitizer report;
# the crashing input is left in WORK_DIR/artifacts/.
set -euo pipefail
fuzzer=$1
work=$2
seconds=$3
seeds=$4
regressions=$5
tests=$6
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
for d in "$seeds" "$regressions"; do
  [ -d "$d" ] && cp -r "$d/." "$work/corpus/"
done
dict=()
case "$(basename "$fuzzer")" in
  *mlir*) bash "$here/make-seeds.sh" "$work/corpus" "$tests"
          dict=(-dict="$here/mlir.dict") ;;
esac
exec "$fuzzer" "$work/corpus" "${dict[@]}" -max_total_time="$seconds" \
  -timeout=25 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/"
