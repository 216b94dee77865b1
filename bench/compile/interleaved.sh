#!/usr/bin/env bash
#===- bench/compile/interleaved.sh - CPU time of te-pipeline, interleaved --===#
#
# Usage (from the repository root, after run.sh has generated the inputs):
#
#   bash bench/compile/interleaved.sh [N ...]    # default N = 500 1000 2000 4000
#
# Environment: TE_OPT, OUT (as run.sh; OUT/step-N.mlir must exist, run.sh
# writes them), TE_COMPILE_REPS (default 5).
#
# The development machine is a shared VM whose speed drifts by up to 30%
# over minutes; run.sh times all repetitions of one N back to back, so a slow
# spell can land on one N and bend a ratio. This script times the sizes in
# rounds (500, 1000, 2000, 4000, 500, 1000, ...) and keeps the least CPU time
# (user + sys) of each N over the rounds. Prints every run and the table with
# T(2N)/T(N); writes OUT/interleaved.csv.
#
#===------------------------------------------------------------------------===#
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
TE_OPT=${TE_OPT:-build-bench/full/bin/te-opt}
OUT=${OUT:-build-bench/compile-out}
REPS=${TE_COMPILE_REPS:-5}
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(500 1000 2000 4000)
echo "N,round,cpu_s" > "$OUT/interleaved.csv"
for r in $(seq "$REPS"); do
  for n in "${SIZES[@]}"; do
    out=$( { TIMEFORMAT='%U %S'; time "$TE_OPT" --mlir-disable-threading \
      --te-pipeline=target=sm_90 "$OUT/step-$n.mlir" -o /dev/null; } 2>&1 ) ||
      { echo "interleaved.sh: te-opt failed at N=$n" >&2; exit 1; }
    read -r u s <<< "$(tail -1 <<< "$out")"
    cpu=$(echo "$u + $s" | bc -l)
    echo "$n,$r,$cpu" >> "$OUT/interleaved.csv"
    echo "round $r N=$n cpu $cpu s"
  done
done
python3 - "$OUT/interleaved.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sizes = sorted({int(r["N"]) for r in rows})
best = {n: min(float(r["cpu_s"]) for r in rows if int(r["N"]) == n) for n in sizes}
print("\n| N | te-pipeline, CPU s (least of %d interleaved rounds) | T(N)/T(N/2) |"
      % max(int(r["round"]) for r in rows))
print("|---|---|---|")
for n in sizes:
    ratio = "%.2f" % (best[n] / best[n // 2]) if n // 2 in best else ""
    print("| %d | %.2f | %s |" % (n, best[n], ratio))
EOF
