#!/usr/bin/env bash
#===- bench/compile/run.sh - Compile time of the te pipeline vs program size -===#
#
# Usage (from the repository root, no GPU needed):
#
#   bash bench/compile/run.sh [N ...]        # default N = 500 1000 2000 4000
#
# Environment: TE_OPT (default build-bench/full/bin/te-opt), OUT (default
# build-bench/compile-out), TE_COMPILE_REPS (default 3; the minimum is kept),
# TE_RECIPE (default current).
#
# For each N, generates a training step with N Linear layers
# (gen_linear_module.py), then times `te-opt` over it: once parsing only, and
# once with the pipeline -- `--te-pipeline=target=sm_90` when te-opt has it,
# else the te-* passes it has, in pipeline order (the run says which) --
# with --mlir-timing. Writes OUT/compile.csv (N, seconds, per-pass seconds),
# OUT/timing-N.txt (the --mlir-timing reports) and prints the table with
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
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(500 1000 2000 4000)
mkdir -p "$OUT"

if [ ! -x "$TE_OPT" ]; then
  echo "run.sh: no te-opt at $TE_OPT (build it: ninja -C build-bench/full te-opt)" >&2
  exit 1
fi

HELP=$("$TE_OPT" --help 2>/dev/null)
if grep -q -- "--te-pipeline" <<< "$HELP"; then
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

# Seconds (wall) of one te-opt run, the minimum over REPS runs.
time_run() {
  local best="" t
  for _ in $(seq "$REPS"); do
    local s e
    s=$(date +%s.%N)
    "$TE_OPT" "$@" -o /dev/null 2> "$OUT/last.err" || { echo FAIL; return; }
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
  done
  printf "%.3f" "$best"
}

echo "N,parse_s,pipeline_s" > "$OUT/wall.csv"
for n in "${SIZES[@]}"; do
  f=$OUT/step-$n.mlir
  python3 bench/compile/gen_linear_module.py "$n" --recipe "$RECIPE" > "$f"
  parse=$(time_run "$f")
  full=$(time_run "$f" "${PIPELINE[@]}")
  if [ "$full" = FAIL ]; then
    echo "run.sh: N=$n: te-opt failed:"; head -5 "$OUT/last.err"
  fi
  "$TE_OPT" "$f" "${PIPELINE[@]}" --mlir-timing -o /dev/null 2> "$OUT/timing-$n.txt"
  echo "$n,$parse,$full" >> "$OUT/wall.csv"
  echo "N=$n: parse ${parse} s, pipeline ${full} s"
done

python3 - "$OUT" "${SIZES[@]}" <<'EOF'
import csv, re, sys
out, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]
wall = {int(r["N"]): r for r in csv.DictReader(open(out + "/wall.csv"))}
passes, order = {}, []
for n in sizes:
    per = {}
    for line in open("%s/timing-%d.txt" % (out, n)):
        m = re.match(r"^\s+([\d.]+) \(\s*[\d.]+%\)\s+(\S.*)$", line)
        if m:
            name = m.group(2).strip()
            per[name] = per.get(name, 0.0) + float(m.group(1))
            if name not in order:
                order.append(name)
    passes[n] = per
with open(out + "/compile.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["N", "parse_s", "pipeline_s"] + order)
    for n in sizes:
        w.writerow([n, wall[n]["parse_s"], wall[n]["pipeline_s"]] + ["%.4f" % passes[n].get(p, 0) for p in order])
def ratio(a, b):
    try:
        return "%.2f" % (float(b) / float(a)) if float(a) > 0 else ""
    except ValueError:
        return ""
print("\n| N | parse s | pipeline s (wall, min of reps) | T(N)/T(N/2) |")
print("|---|---|---|---|")
prev = None
for n in sizes:
    r = ratio(wall[prev]["pipeline_s"], wall[n]["pipeline_s"]) if prev and n == 2 * prev else ""
    print("| %d | %s | %s | %s |" % (n, wall[n]["parse_s"], wall[n]["pipeline_s"], r))
    prev = n
print("\n--mlir-timing, seconds per entry (ratio to the previous N in parentheses):\n")
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
