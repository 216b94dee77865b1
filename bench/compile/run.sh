#!/usr/bin/env bash
#===- bench/compile/run.sh - Compile time of the te pipeline vs program size -===#
#
# Usage (from the repository root, no GPU needed):
#
#   bash bench/compile/run.sh [N ...]        # default N = 500 1000 2000 4000
#
# Environment: TE_OPT (default build-bench/full/bin/te-opt), OUT (default
# build-bench/compile-out), TE_COMPILE_REPS (default 3; the minimum is kept),
# TE_RECIPE (default current), TE_PASS_PIPELINE (a --pass-pipeline string
# timed instead of te-pipeline, e.g. a variant of it), TE_COMPILE_NICE (default -10 as root, else 0:
# on a loaded machine the timed runs get the CPU first, so that wall times and
# the --mlir-timing breakdown mean something; they run single-threaded,
# --mlir-disable-threading).
#
# For each N, generates a training step with N Linear layers
# (gen_linear_module.py), then times `te-opt` over it: once parsing only, and
# once with the pipeline -- `--te-pipeline=target=sm_90` when te-opt has it,
# else the te-* passes it has, in pipeline order (the run says which) --
# with --mlir-timing. Writes OUT/compile.csv (N, seconds, per-pass seconds),
# OUT/timing-N-R.txt (the --mlir-timing reports) and prints the table with
# T(2N)/T(N) overall and per pass. Targets: < 2 s at N = 1000 and
# T(2N)/T(N) <= 2.1.
#
#===------------------------------------------------------------------------===#
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
TE_OPT=${TE_OPT:-build-bench/full/bin/te-opt}
OUT=${OUT:-build-bench/compile-out}
REPS=${TE_COMPILE_REPS:-3}
RECIPE=${TE_RECIPE:-current}
if [ "$(id -u)" = 0 ]; then NICE=${TE_COMPILE_NICE:--10}; else NICE=${TE_COMPILE_NICE:-0}; fi
RUN=(nice -n "$NICE" "$TE_OPT" --mlir-disable-threading)
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(500 1000 2000 4000)
mkdir -p "$OUT"

if [ ! -x "$TE_OPT" ]; then
  echo "run.sh: no te-opt at $TE_OPT (build it: ninja -C build-bench/full te-opt)" >&2
  exit 1
fi

HELP=$("$TE_OPT" --help 2>/dev/null)
if [ -n "${TE_PASS_PIPELINE:-}" ]; then
  PIPELINE=("--pass-pipeline=$TE_PASS_PIPELINE")
elif grep -q -- "--te-pipeline" <<< "$HELP"; then
  PIPELINE=("--te-pipeline=target=sm_90")
else
  PIPELINE=()
  for p in te-infer-shapes te-decompose-linear te-infer-usages te-eliminate-aliases \
           te-legalize te-expand-qtensors; do
    grep -q -- "--$p\b" <<< "$HELP" && PIPELINE+=("--$p")
  done
  if grep -q -- "--one-shot-bufferize" <<< "$HELP" && grep -q -- "--te-expand-qtensors" <<< "$HELP"; then
    PIPELINE+=("--one-shot-bufferize=bufferize-function-boundaries")
  fi
  if grep -q -- "--convert-te-to-runtime" <<< "$HELP"; then
    PIPELINE+=("--convert-te-to-runtime")
  fi
fi
echo "run.sh: te-opt $TE_OPT, pipeline: ${PIPELINE[*]:-(none)}"
echo "pipeline: ${PIPELINE[*]}" > "$OUT/pipeline.txt"

# "wall cpu" seconds of one te-opt run (cpu = user + sys), the run with the
# least cpu time over REPS runs. CPU time is the number to read on a shared,
# loaded machine; wall time is what a user waits.
time_run() {
  local best_cpu="" best_wall="" out
  for _ in $(seq "$REPS"); do
    out=$( { TIMEFORMAT='%R %U %S'; time "${RUN[@]}" "$@" -o /dev/null 2> "$OUT/last.err"; } 2>&1 ) ||
      { echo "FAIL FAIL"; return; }
    read -r w u s <<< "$(tail -1 <<< "$out")"
    local cpu
    cpu=$(echo "$u + $s" | bc -l)
    if [ -z "$best_cpu" ] || [ "$(echo "$cpu < $best_cpu" | bc -l)" = 1 ]; then
      best_cpu=$cpu
      best_wall=$w
    fi
  done
  printf "%.3f %.3f" "$best_wall" "$best_cpu"
}

echo "N,parse_s,pipeline_s,parse_cpu_s,pipeline_cpu_s" > "$OUT/wall.csv"
for n in "${SIZES[@]}"; do
  f=$OUT/step-$n.mlir
  python3 bench/compile/gen_linear_module.py "$n" --recipe "$RECIPE" > "$f"
  read -r parse parse_cpu <<< "$(time_run "$f")"
  read -r full full_cpu <<< "$(time_run "$f" "${PIPELINE[@]}")"
  if [ "$full" = FAIL ]; then
    echo "run.sh: N=$n: te-opt failed:"; head -5 "$OUT/last.err"
  fi
  for r in $(seq "$REPS"); do
    "${RUN[@]}" "$f" "${PIPELINE[@]}" --mlir-timing -o /dev/null 2> "$OUT/timing-$n-$r.txt"
  done
  echo "$n,$parse,$full,$parse_cpu,$full_cpu" >> "$OUT/wall.csv"
  echo "N=$n: parse ${parse} s (cpu ${parse_cpu}), pipeline ${full} s (cpu ${full_cpu})"
done

python3 - "$OUT" "$REPS" "${SIZES[@]}" <<'EOF'
import csv, re, sys
out, reps, sizes = sys.argv[1], int(sys.argv[2]), [int(s) for s in sys.argv[3:]]
wall = {int(r["N"]): r for r in csv.DictReader(open(out + "/wall.csv"))}
passes, order = {}, []
for n in sizes:
    best = {}
    for r in range(1, reps + 1):
        per = {}
        for line in open("%s/timing-%d-%d.txt" % (out, n, r)):
            m = re.match(r"^\s+([\d.]+) \(\s*[\d.]+%\)\s+(\S.*)$", line)
            if m:
                name = m.group(2).strip()
                per[name] = per.get(name, 0.0) + float(m.group(1))
                if name not in order:
                    order.append(name)
        for k, v in per.items():  # the least of the reps, per entry
            best[k] = min(best.get(k, v), v)
    passes[n] = best
with open(out + "/compile.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["N", "parse_s", "pipeline_s", "parse_cpu_s", "pipeline_cpu_s"] + order)
    for n in sizes:
        w.writerow([n, wall[n]["parse_s"], wall[n]["pipeline_s"], wall[n]["parse_cpu_s"], wall[n]["pipeline_cpu_s"]]
                   + ["%.4f" % passes[n].get(p, 0) for p in order])
def ratio(a, b):
    try:
        return "%.2f" % (float(b) / float(a)) if float(a) > 0 else ""
    except ValueError:
        return ""
print("\n| N | parse only: wall s / cpu s | pipeline: wall s / cpu s | T(N)/T(N/2), cpu |")
print("|---|---|---|---|")
prev = None
for n in sizes:
    r = ratio(wall[prev]["pipeline_cpu_s"], wall[n]["pipeline_cpu_s"]) if prev and n == 2 * prev else ""
    print("| %d | %s / %s | %s / %s | %s |" % (n, wall[n]["parse_s"], wall[n]["parse_cpu_s"],
                                            wall[n]["pipeline_s"], wall[n]["pipeline_cpu_s"], r))
    prev = n
print("\n--mlir-timing (wall, least of %d runs), seconds per entry (ratio to the previous N):\n" % reps)
print("| entry | " + " | ".join("N=%d" % n for n in sizes) + " |")
print("|---|" + "---|" * len(sizes))
for p in order:
    cells, prev = [], None
    for n in sizes:
        v = passes[n].get(p, 0.0)
        c = "%.4f" % v
        if prev and prev > 0.005:
            c += " (%.2f)" % (v / prev)
        cells.append(c)
        prev = v
    print("| %s | %s |" % (p, " | ".join(cells)))
EOF
