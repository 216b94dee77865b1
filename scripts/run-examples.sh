#!/usr/bin/env bash
# The main job: runs the MLP training step of examples/ (Linear -> GELU ->
# Linear, microbatches, forward + backward) in every recipe with te-run, on
# the cpu backend (cuda when a GPU and the cuda backend are present), next to
# its high-precision twin (te-run --reference: the same program with te ops
# replaced by plain f32-accumulated arithmetic, docs/formats.md-free), and
# prints one table row per recipe: the loss of the step (quantized and
# reference), the normwise relative error of every gradient against the
# reference, and the time of one step.
#
# Delayed scaling starts from TE's initial state (every scale 1, amax
# histories 0: --fill); its row also shows the largest new scale the step
# computed (te.update_scale). NVFP4's stochastic-rounding seed is --seed.
#
#   scripts/run-examples.sh [BIN_DIR]     (default: build/bin)
#   TE_EXAMPLE_TOKENS=256 (tokens per step: 2 microbatches of 128)
#   TE_EXAMPLES_STRICT=0  report failed recipes but exit 0 (default 1: any
#                         failed recipe makes the script fail)
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-${TE_BUILD_DIR:-build}/bin}
TOKENS=${TE_EXAMPLE_TOKENS:-256}
RUN="$BIN/te-run"
[ -x "$RUN" ] || { echo "run-examples.sh: no te-run in $BIN (build first)" >&2; exit 1; }

BACKEND=${TE_EXAMPLES_BACKEND:-cpu}
if [ -z "${TE_EXAMPLES_BACKEND:-}" ] && command -v nvidia-smi >/dev/null 2>&1 &&
   nvidia-smi -L >/dev/null 2>&1; then
  BACKEND=cuda
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

echo "te: MLP training step (hidden 256, ffn 1024, $TOKENS tokens, microbatches of 128; dynamic-*: the whole batch as one step), backend $BACKEND"
printf '%-15s | %-10s | %-10s | %-8s | %-8s | %-8s | %-8s | %-9s | %s\n' \
  recipe loss loss_fp32 dW1 db1 dW2 db2 "time [s]" status
printf -- '----------------+------------+------------+----------+----------+----------+----------+-----------+-------\n'
status=0; ran=0; total=0
for f in examples/mlp-train-step-*.mlir; do
  recipe=$(basename "$f" .mlir); recipe=${recipe#mlp-train-step-}
  total=$((total + 1))
  common=(--entry train_step --seed 1 --dynamic-dim "$TOKENS")
  case "$recipe" in
    *delayed) common+=(--fill 6=1 --fill 7=0) ;; # scales 1, histories 0
  esac
  # One --compare per result of the entry.
  nres=$("$RUN" "$f" --entry train_step --print-signature 2>/dev/null |
         awk -F'->' '{n=1; d=0; for (i=1; i<=length($2); i++) {c=substr($2,i,1);
                       if (c=="[") d++; else if (c=="]") d--; else if (c=="," && !d) n++}
                     print n}')
  if ! "$RUN" "$f" "${common[@]}" --reference --output-dir "$tmp" \
      > "$tmp/ref.log" 2>&1; then
    printf '%-15s | %s\n' "$recipe" "reference failed: $(grep -m1 -i 'error' "$tmp/ref.log" || head -1 "$tmp/ref.log")"
    status=1; continue
  fi
  cmp=(); for ((i = 0; i < ${nres:-5}; i++)); do cmp+=(--compare "$tmp/result$i.npy"); done
  if ! "$RUN" "$f" "${common[@]}" --backend "$BACKEND" --atol 1e30 "${cmp[@]}" \
      > "$tmp/q.log" 2>&1; then
    printf '%-15s | %s\n' "$recipe" "failed: $(grep -m1 -iE 'error|FAIL' "$tmp/q.log" || grep -v remark "$tmp/q.log" | head -1)"
    status=1; continue
  fi
  loss=$(awk '/^result 0: f32 /{print $5}' "$tmp/q.log")
  ref=$(awk '/^result 0: f32 /{print $5}' "$tmp/ref.log")
  rel() { awk -v r="$1" '$1=="result" && $2==r":" && /rel_err/ {for(i=1;i<=NF;i++) if($i=="rel_err") printf "%.2e", $(i+1)}' "$tmp/q.log"; }
  t=$(awk '/^time /{print $2}' "$tmp/q.log")
  note=ok
  if [ "$recipe" = delayed ]; then
    note="ok (new scales max $(awk '/^result 5: f32\[/{print $7}' "$tmp/q.log"))"
  fi
  printf '%-15s | %-10s | %-10s | %-8s | %-8s | %-8s | %-8s | %-9s | %s\n' \
    "$recipe" "$loss" "$ref" "$(rel 1)" "$(rel 2)" "$(rel 3)" "$(rel 4)" "$t" "$note"
  ran=$((ran + 1))
done
echo "te: $ran of $total recipes executed on the $BACKEND backend."
if [ "${TE_EXAMPLES_STRICT:-1}" = 0 ]; then
  [ "$ran" -gt 0 ]
else
  exit $status
fi
