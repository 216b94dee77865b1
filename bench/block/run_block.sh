#!/usr/bin/env bash
#===- bench/block/run_block.sh - te's GPT block programs against PyTorch ----===#
#
# Runs on the GPU machine (CUDA, cmake, ninja, PyTorch, numpy; no MLIR),
# from any directory:
#
#   bash bench/block/run_block.sh OBJECTS_DIR [OUT_DIR]
#
# OBJECTS_DIR: what bench/block/prepare.sh wrote on the dev machine
# (<program>-<size>.o + .sig, or objects.tar.xz holding them; program
# fwd-a..fwd-d, train-d, train-c; size small, large).
#
# 1. Builds the runtime (cmake -S runtime, Release, in the background)
#    unless TE_BLOCK_RUNTIME names a build of it.
# 2. Per size: bench/block/torch_block.py inputs writes the inputs once
#    (.npy: x, dout, the 12 parameters in bf16, the fp32 gradient buffers).
# 3. Links each object (scripts/te-aot.sh link) and runs it on the cuda
#    backend with those inputs (--input): one call that writes its results
#    (--output-dir), then --warmup TE_BLOCK_WARMUP (3) and --repeat calls
#    timed by the driver (TE_BLOCK_REPEAT, 20; fewer, at least 3, where a
#    call takes so long that 20 would pass TE_BLOCK_TE_SECONDS, 30 s)
#                                                -> OUT/block_te.csv
# 4. bench/block/torch_block.py bench: eager bf16 + SDPA, torch.compile,
#    eager with attention materialized, PyTorch FP8 (_scaled_mm) + SDPA,
#    forward and training step, the same inputs; the fp32 reference and
#    the relative error of each peer's and each te program's results
#                                                -> OUT/block_torch.csv,
#                                                   OUT/block_errors.csv
# 5. bench/block/report.py joins them           -> OUT/block_report.md
# Everything printed also goes to OUT/block.log. Five files in all.
#
# Each size takes minutes (the runtime build, the inputs, two runs of each
# program, torch.compile's first calls): where one command may run 10
# minutes, run TE_BLOCK_SIZES=small and TE_BLOCK_SIZES=large apart (the
# second call finds the runtime build and its inputs in TE_BLOCK_WORK) and
# keep each call's five files.
#
# Environment:
#   TE_BLOCK_RUNTIME=DIR    a runtime build (has libte_rt.so) to link against
#   TE_BLOCK_SIZES=small,large
#   TE_BLOCK_PROGRAMS=...   programs to run (default: every object found)
#   TE_BLOCK_PEERS=1        0: no PyTorch peers (te's errors need them too)
#   TE_BLOCK_VARIANTS=...   peers (torch_block.py's --variants)
#   TE_BLOCK_PEER_BUDGET=300  seconds for the peers of one size
#   TE_BLOCK_TIMEOUT=300    seconds per te run
#   TE_BLOCK_WORK=build-block-run  inputs, runtime build, executables, te's
#                           results (ignored by git, so a warm GPU machine
#                           keeps it between calls: a second call reuses the
#                           runtime build and the inputs)
#   TE_BLOCK_TORCH=torch_block.py  the peers' script (tests give a fake)
#   TE_BLOCK_BACKEND=cuda   the driver's backend (cpu: objects compiled with
#                           TE_BLOCK_TARGET=cpu, to try the script without a GPU)
#
#===------------------------------------------------------------------------===#
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OBJS=${1:-${TE_BLOCK_OBJECTS:-}}
OUT=${2:-${OUT:-$ROOT/bench-out}}
SIZES=${TE_BLOCK_SIZES:-small,large}
PROGRAMS=${TE_BLOCK_PROGRAMS:-}
PEERS=${TE_BLOCK_PEERS:-1}
REPEAT=${TE_BLOCK_REPEAT:-20}
WARMUP=${TE_BLOCK_WARMUP:-3}
TE_SECONDS=${TE_BLOCK_TE_SECONDS:-30}
TIMEOUT=${TE_BLOCK_TIMEOUT:-300}
WORK=${TE_BLOCK_WORK:-$ROOT/build-block-run}
BACKEND=${TE_BLOCK_BACKEND:-cuda}
TORCH_PY=${TE_BLOCK_TORCH:-$ROOT/bench/block/torch_block.py}
PARAMS="ln1_w ln1_b wqkv bqkv wo bo ln2_w ln2_b w1 b1 w2 b2"

if [ -z "$OBJS" ] || [ ! -d "$OBJS" ]; then
  sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'
  echo "run_block.sh: give the objects' folder (argument or TE_BLOCK_OBJECTS)" >&2
  exit 2
fi
OBJS=$(cd "$OBJS" && pwd)
mkdir -p "$OUT" "$WORK"
OUT=$(cd "$OUT" && pwd)
LOG=$OUT/block.log
: > "$LOG"
say() { echo "$@" | tee -a "$LOG"; }
in_list() { case ",$2," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

if [ -f "$OBJS/objects.tar.xz" ] && ! ls "$OBJS"/*.o > /dev/null 2>&1; then
  mkdir -p "$WORK/objects" && tar -xJf "$OBJS/objects.tar.xz" -C "$WORK/objects" && OBJS=$WORK/objects
fi
[ -f "$OBJS/commit.txt" ] && say "run_block: objects compiled from commit $(cat "$OBJS/commit.txt")"
[ -s "$OBJS/failed.txt" ] && sed 's/^/run_block: did not compile: /' "$OBJS/failed.txt" | tee -a "$LOG"

declare -a NAMES=()
for o in "$OBJS"/*-*-*.o; do
  [ -e "$o" ] || continue
  n=$(basename "$o" .o); size=${n##*-}; prog=${n%-*}
  in_list "$size" "$SIZES" || continue
  [ -z "$PROGRAMS" ] || in_list "$prog" "$PROGRAMS" || continue
  [ -f "$OBJS/$n.sig" ] || { say "run_block: $n: no $n.sig beside it"; continue; }
  NAMES+=("$n")
done
say "run_block: ${#NAMES[@]} objects: ${NAMES[*]:-none}"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1 | head -1
  nvcc --version 2>&1 | tail -1; } | sed 's/^/run_block: /' | tee -a "$LOG"

# --- 1. runtime ----------------------------------------------------------------
RT=${TE_BLOCK_RUNTIME:-}
BUILD_PID=""
if [ ${#NAMES[@]} -gt 0 ]; then
  if [ -n "$RT" ] && [ -n "$(find "$RT" -name libte_rt.so 2>/dev/null | head -1)" ]; then
    say "run_block: runtime: $RT"
  else
    RT=$WORK/runtime-build
    say "run_block: building the runtime in $RT (background)"
    ( cmake -G Ninja -S "$ROOT/runtime" -B "$RT" -DCMAKE_BUILD_TYPE=Release > "$WORK/runtime-build.log" 2>&1 &&
      ninja -C "$RT" >> "$WORK/runtime-build.log" 2>&1 ) &
    BUILD_PID=$!
  fi
fi

# --- 2. inputs -----------------------------------------------------------------
for size in ${SIZES//,/ }; do
  if [ ! -f "$WORK/in-$size/acc_b2.npy" ]; then
    python3 "$TORCH_PY" inputs --size "$size" --dir "$WORK/in-$size" 2>&1 | tee -a "$LOG"
  fi
done

# --- 3. te -----------------------------------------------------------------------
TE_CSV=$OUT/block_te.csv
echo "size,program,ms,min_ms,median_ms,repeat,status" > "$TE_CSV"
if [ -n "$BUILD_PID" ] && ! wait "$BUILD_PID"; then
  say "run_block: runtime build failed:"; tail -30 "$WORK/runtime-build.log" | tee -a "$LOG"
  NAMES=()
fi

inputs_of() { # PROGRAM SIZE -> ARGS
  local d=$WORK/in-$2 p
  ARGS=(--input "$d/x.npy")
  case "$1" in train-*) ARGS+=(--input "$d/dout.npy") ;; esac
  for p in $PARAMS; do ARGS+=(--input "$d/$p.npy"); done
  case "$1" in train-*) for p in $PARAMS; do ARGS+=(--input "$d/acc_$p.npy"); done ;; esac
}
kv() { echo "$1" | sed -n "s/.*[[:space:]]$2=\([^[:space:]]*\).*/\1/p"; }
declare -a TE_RESULTS=()
for n in "${NAMES[@]}"; do
  size=${n##*-}; prog=${n%-*}; entry=block
  case "$prog" in train-*) entry=block_train ;; esac
  exe=$WORK/$n
  if ! bash "$ROOT/scripts/te-aot.sh" link "$OBJS/$n.o" "$exe" "$RT" > "$WORK/$n.link.log" 2>&1; then
    say "run_block: $n: link failed: $(tail -3 "$WORK/$n.link.log" | tr '\n' ' ')"
    echo "$size,$prog,,,,,link failed" >> "$TE_CSV"; continue
  fi
  inputs_of "$prog" "$size"
  base=(--signature-file "$OBJS/$n.sig" --entry "$entry" --backend "$BACKEND" "${ARGS[@]}")
  # One call that writes the results (for their errors), and times itself.
  rm -rf "$WORK/te-$n"
  timeout "$TIMEOUT" "$exe" "${base[@]}" --output-dir "$WORK/te-$n" > "$WORK/$n.log" 2>&1
  rc=$?
  line=" $(grep -m1 '^timing:' "$WORK/$n.log" | sed 's/^timing://')"
  if [ $rc -ne 0 ] || [ "$line" = " " ]; then
    why="exit $rc"; [ $rc -eq 124 ] && why="timeout ${TIMEOUT}s"
    say "run_block: $n: $why: $(grep -v '^remark' "$WORK/$n.log" | tail -3 | tr '\n' ' ')"
    echo "$size,$prog,,,,,$why" >> "$TE_CSV"; continue
  fi
  TE_RESULTS+=("--te" "$prog=$WORK/te-$n")
  first=$(kv "$line" step_ms)
  rep=$(python3 -c "import sys; t = float(sys.argv[1]); print(max(3, min($REPEAT, int($TE_SECONDS * 1000 / max(t, 1e-3)))))" "$first")
  timeout "$TIMEOUT" "$exe" "${base[@]}" --warmup "$WARMUP" --repeat "$rep" --quiet > "$WORK/$n.time.log" 2>&1
  rc=$?
  line=" $(grep -m1 '^timing:' "$WORK/$n.time.log" | sed 's/^timing://')"
  if [ $rc -ne 0 ] || [ "$line" = " " ]; then
    why="exit $rc"; [ $rc -eq 124 ] && why="timeout ${TIMEOUT}s"
    say "run_block: $n: timed run: $why: $(tail -3 "$WORK/$n.time.log" | tr '\n' ' ')"
    echo "$size,$prog,,,,,$why" >> "$TE_CSV"; continue
  fi
  echo "$size,$prog,$(kv "$line" step_ms),$(kv "$line" min_ms),$(kv "$line" median_ms),$(kv "$line" repeat),ok" >> "$TE_CSV"
  say "run_block: $n: $(kv "$line" step_ms) ms (min $(kv "$line" min_ms), median $(kv "$line" median_ms), repeat $(kv "$line" repeat); first call $first ms)"
done
{ echo "=== te driver logs"; for n in "${NAMES[@]}"; do echo "--- $n"; grep -v '^remark' "$WORK/$n.log" 2>/dev/null | tail -20; done; } >> "$LOG"

# --- 4. PyTorch peers, errors ---------------------------------------------------------
T_CSV=$OUT/block_torch.csv
E_CSV=$OUT/block_errors.csv
rm -f "$T_CSV" "$E_CSV"
if [ "$PEERS" = 0 ]; then
  say "run_block: no PyTorch peers (TE_BLOCK_PEERS=0)"
else
  BUDGET=${TE_BLOCK_PEER_BUDGET:-300}
  for size in ${SIZES//,/ }; do
    te=()
    for ((i = 0; i < ${#TE_RESULTS[@]}; i += 2)); do
      case "${TE_RESULTS[i + 1]}" in *-"$size") te+=("${TE_RESULTS[i]}" "${TE_RESULTS[i + 1]}") ;; esac
    done
    PYTHONUNBUFFERED=1 timeout $((BUDGET + 300)) python3 "$TORCH_PY" bench --size "$size" \
      --dir "$WORK/in-$size" --csv "$WORK/torch-$size.csv" --errors "$WORK/errors-$size.csv" \
      --budget "$BUDGET" ${TE_BLOCK_VARIANTS:+--variants "$TE_BLOCK_VARIANTS"} "${te[@]}" 2>&1 | tee -a "$LOG"
    say "run_block: torch_block $size exit ${PIPESTATUS[0]}"
    for f in torch errors; do
      [ -f "$WORK/$f-$size.csv" ] || continue
      dst=$T_CSV; [ $f = errors ] && dst=$E_CSV
      if [ -f "$dst" ]; then tail -n +2 "$WORK/$f-$size.csv" >> "$dst"; else cp "$WORK/$f-$size.csv" "$dst"; fi
    done
  done
fi

# --- 5. report -----------------------------------------------------------------
python3 "$ROOT/bench/block/report.py" "$TE_CSV" "$T_CSV" "$E_CSV" --out "$OUT/block_report.md" 2>&1 | tee -a "$LOG"
say "run_block: wrote $(cd "$OUT" && ls block_* 2>/dev/null | tr '\n' ' ')"
