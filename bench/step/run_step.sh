#!/usr/bin/env bash
#===- bench/step/run_step.sh - te's compiled training step against PyTorch --===#
#
# Runs on the GPU machine (CUDA, cmake, ninja, PyTorch; no MLIR), from any
# directory:
#
#   bash bench/step/run_step.sh OBJECTS_DIR [OUT_DIR]
#
# OBJECTS_DIR holds the AOT objects of the MLP training step, compiled on the
# dev machine (docs/performance.md, "Compiled training step"):
#   step-<recipe>-<size>.o + step-<recipe>-<size>.sig
#   recipe: current, delayed, block, mxfp8, nvfp4; size: small (256 tokens),
#   large (8192 tokens).
#
# 1. Builds the runtime (cmake -S runtime, Release, in the background while
#    the PyTorch peers run) unless TE_STEP_RUNTIME names a build of it.
# 2. bench/step/torch_step.py: eager bf16, torch.compile bf16 and PyTorch's
#    FP8 step                                    -> OUT/step_torch.csv
# 3. Links each object with the AOT driver (scripts/te-aot.sh link) and runs
#    it on the cuda backend, --warmup TE_STEP_WARMUP (3) untimed steps, then --repeat TE_STEP_REPEAT
#                                                -> OUT/step_te.csv
# 4. One step of each profiled object by category (GEMM, quantize, generated
#    kernels, ..., gaps) with nsys, else ncu, else says there is neither
#                                                -> OUT/step_breakdown.csv
#    with ncu, each kernel's bandwidth (the global bytes its loads and stores
#    request, and the DRAM bytes) beside the device copy bandwidth measured
#    in the same run (torch, 1 GiB)             -> OUT/step_kernels.csv
# 5. bench/step/report.py joins them            -> OUT/step_report.md
# Everything printed also goes to OUT/step.log. Six files in all.
#
# Environment:
#   TE_STEP_RUNTIME=DIR    a runtime build (has libte_rt.so) to link against
#   TE_STEP_REPEAT=20      steps per te run (the driver reports mean and min)
#   TE_STEP_SIZES=small,large   sizes to run (objects and peers)
#   TE_STEP_RECIPES=...    recipes to run (default: every object found)
#   TE_STEP_PEERS=1        0: no PyTorch peers; a path: reuse that CSV
#   TE_STEP_PROFILE=large  objects to break down: all, none, small, large or
#                          a list of <recipe>-<size>
#   TE_STEP_TOOL=auto      nsys, ncu, none (auto: nsys if it makes a report,
#                          else ncu)
#   TE_STEP_TIMEOUT=300    seconds per te run
#   TE_STEP_PEER_BUDGET=220  seconds for the peers' variants
#   TE_STEP_AOT=scripts/te-aot.sh   the linker script (tests give a fake)
#
#===------------------------------------------------------------------------===#
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OBJS=${1:-${TE_STEP_OBJECTS:-}}
OUT=${2:-${OUT:-$ROOT/bench-out}}
REPEAT=${TE_STEP_REPEAT:-20}
SIZES=${TE_STEP_SIZES:-small,large}
RECIPES=${TE_STEP_RECIPES:-}
PEERS=${TE_STEP_PEERS:-1}
PROFILE=${TE_STEP_PROFILE:-large}
TOOL=${TE_STEP_TOOL:-auto}
TIMEOUT=${TE_STEP_TIMEOUT:-300}
WORK=${TE_STEP_WORK:-$(mktemp -d -t te-step.XXXXXX)}
AOT=${TE_STEP_AOT:-$ROOT/scripts/te-aot.sh}

if [ -z "$OBJS" ] || [ ! -d "$OBJS" ]; then
  sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'
  echo "run_step.sh: give the objects' folder (argument or TE_STEP_OBJECTS)" >&2
  exit 2
fi
OBJS=$(cd "$OBJS" && pwd)
mkdir -p "$OUT" "$WORK"
OUT=$(cd "$OUT" && pwd)
LOG=$OUT/step.log
: > "$LOG"
say() { echo "$@" | tee -a "$LOG"; }

# Tokens per step of each size (examples/README.md; generate.py's sizes).
tokens_of() {
  case "$1" in
    small) echo 256 ;;
    large) echo 8192 ;;
    *) echo "" ;;
  esac
}
in_list() { case ",$2," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

# --- objects -------------------------------------------------------------------
declare -a NAMES=()
for o in "$OBJS"/step-*-*.o; do
  [ -e "$o" ] || continue
  n=$(basename "$o" .o); r=${n#step-}; size=${r##*-}; recipe=${r%-*}
  in_list "$size" "$SIZES" || continue
  [ -z "$RECIPES" ] || in_list "$recipe" "$RECIPES" || continue
  if [ -z "$(tokens_of "$size")" ]; then say "run_step: $n: unknown size '$size' (small, large)"; continue; fi
  if [ ! -f "$OBJS/$n.sig" ]; then say "run_step: $n: no $n.sig beside it"; continue; fi
  NAMES+=("$n")
done
say "run_step: ${#NAMES[@]} objects in $OBJS: ${NAMES[*]:-none}"

# The GPU's target, to compare with the objects' (.sig line 'target sm_XX').
# Not CC: an exported CC (the C compiler) would reach torch.compile, which
# runs it to build its kernels.
GPU_CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1 | head -1
  nvcc --version 2>&1 | tail -1; } | sed 's/^/run_step: /' | tee -a "$LOG"

# --- 1. runtime ----------------------------------------------------------------
RT=${TE_STEP_RUNTIME:-}
BUILD_PID=""
if [ ${#NAMES[@]} -gt 0 ]; then
  if [ -n "$RT" ] && [ -n "$(find "$RT" -name libte_rt.so 2>/dev/null | head -1)" ]; then
    say "run_step: runtime: $RT"
  else
    RT=$WORK/runtime-build
    say "run_step: building the runtime in $RT (background)"
    ( cmake -G Ninja -S "$ROOT/runtime" -B "$RT" -DCMAKE_BUILD_TYPE=Release > "$WORK/runtime-build.log" 2>&1 &&
      ninja -C "$RT" >> "$WORK/runtime-build.log" 2>&1 ) &
    BUILD_PID=$!
  fi
fi

# --- 2. PyTorch peers ----------------------------------------------------------
PEERS_CSV=$OUT/step_torch.csv
if [ "$PEERS" = 0 ]; then
  say "run_step: no PyTorch peers (TE_STEP_PEERS=0)"
elif [ "$PEERS" != 1 ]; then
  rm -f "$PEERS_CSV"; cp "$PEERS" "$PEERS_CSV" && chmod u+w "$PEERS_CSV" && say "run_step: peers from $PEERS"
else
  BUDGET=${TE_STEP_PEER_BUDGET:-220}
  PYTHONUNBUFFERED=1 timeout $((BUDGET + 120)) python3 "$ROOT/bench/step/torch_step.py" \
    --csv "$PEERS_CSV" --sizes "$SIZES" --budget "$BUDGET" 2>&1 | tee -a "$LOG"
  say "run_step: torch_step exit ${PIPESTATUS[0]}"
fi

# --- 3. te ---------------------------------------------------------------------
TE_CSV=$OUT/step_te.csv
echo "size,recipe,step_ms,min_ms,repeat,upload_ms,download_ms,status" > "$TE_CSV"
if [ -n "$BUILD_PID" ]; then
  if ! wait "$BUILD_PID"; then
    say "run_step: runtime build failed:"; tail -30 "$WORK/runtime-build.log" | tee -a "$LOG"
    NAMES=()
  fi
fi
if [ ${#NAMES[@]} -gt 0 ] && [ -z "$(find "$RT" -name libte_rt.so 2>/dev/null | head -1)" ]; then
  say "run_step: no libte_rt.so under $RT"; NAMES=()
fi

set_args() { # NAME REPEAT -> ARGS: the driver's arguments
  local n=$1 rep=$2 r=${1#step-}
  local size=${r##*-} recipe=${r%-*}
  ARGS=(--signature-file "$OBJS/$n.sig" --entry train_step --backend cuda
        --dynamic-dim "$(tokens_of "$size")" --seed 1 --repeat "$rep" --warmup "${TE_STEP_WARMUP:-3}")
  [ "$recipe" = delayed ] && ARGS+=(--fill "6=1" --fill "7=0") # TE's initial state: scales 1, histories 0
  return 0
}

declare -A STEP_MS=()
declare -a RAN=()
for n in "${NAMES[@]}"; do
  r=${n#step-}; size=${r##*-}; recipe=${r%-*}
  exe=$WORK/$n
  tgt=$(sed -n 's/^target[[:space:]]\{1,\}sm_\([0-9]*\).*/\1/p' "$OBJS/$n.sig" | head -1)
  if [ -n "$tgt" ] && [ -n "$GPU_CC" ] && [ "$tgt" != "$GPU_CC" ]; then
    say "run_step: $n: compiled for sm_$tgt, this GPU is sm_$GPU_CC"
  fi
  if ! bash "$AOT" link "$OBJS/$n.o" "$exe" "$RT" > "$WORK/$n.link.log" 2>&1; then
    say "run_step: $n: link failed: $(tail -3 "$WORK/$n.link.log" | tr '\n' ' ')"
    echo "$size,$recipe,,,,,,link failed" >> "$TE_CSV"; continue
  fi
  set_args "$n" "$REPEAT"
  timeout "$TIMEOUT" "$exe" "${ARGS[@]}" > "$WORK/$n.log" 2>&1
  rc=$?
  line=$(grep -m1 '^timing:' "$WORK/$n.log")
  kv() { echo "$line" | sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p"; }
  line=" ${line#timing:}"
  if [ $rc -ne 0 ] || [ "$line" = " " ]; then
    why="exit $rc"; [ $rc -eq 124 ] && why="timeout ${TIMEOUT}s"
    [ "$line" = " " ] && why="$why; no timing line"
    say "run_step: $n: $why: $(grep -v '^remark' "$WORK/$n.log" | tail -3 | tr '\n' ' ')"
    echo "$size,$recipe,$(kv step_ms),$(kv min_ms),$(kv repeat),$(kv upload_ms),$(kv download_ms),$why" >> "$TE_CSV"
    continue
  fi
  echo "$size,$recipe,$(kv step_ms),$(kv min_ms),$(kv repeat),$(kv upload_ms),$(kv download_ms),ok" >> "$TE_CSV"
  say "run_step: $n: step $(kv step_ms) ms (min $(kv min_ms), repeat $(kv repeat))"
  STEP_MS[$n]=$(kv step_ms)
  RAN+=("$n")
done
{ echo "=== te driver logs"; for n in "${NAMES[@]}"; do echo "--- $n"; grep -v '^remark' "$WORK/$n.log" 2>/dev/null | tail -20; done; } >> "$LOG"

# --- 4. breakdown of one step ---------------------------------------------------
BD_CSV=$OUT/step_breakdown.csv
rm -f "$BD_CSV"
declare -a PROF=()
for n in "${RAN[@]}"; do
  r=${n#step-}; size=${r##*-}
  case "$PROFILE" in
    all) PROF+=("$n") ;;
    none) ;;
    small|large) [ "$size" = "$PROFILE" ] && PROF+=("$n") ;;
    *) in_list "$r" "$PROFILE" && PROF+=("$n") ;;
  esac
done

find_nsys() {
  command -v nsys 2>/dev/null && return
  ls -d /opt/nvidia/nsight-systems*/*/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys \
        /usr/local/cuda*/bin/nsys /usr/local/cuda*/nsight-systems*/bin/nsys 2>/dev/null | head -1
}
find_ncu() {
  command -v ncu 2>/dev/null && return
  ls -d /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1
}
# trace NAME REPEAT FILE: the CSV trace of one run, with $USE (nsys or ncu).
trace() {
  local n=$1 rep=$2 file=$3 rc
  set_args "$n" "$rep"
  if [ "$USE" = nsys ]; then
    rm -f "$WORK/prof.nsys-rep" "$WORK/prof.sqlite" "$WORK"/prof_*.csv
    timeout "$TIMEOUT" "$NSYS" profile -t cuda --force-overwrite true -o "$WORK/prof" \
      "$WORK/$n" "${ARGS[@]}" > "$WORK/prof.log" 2>&1
    rc=$?
    timeout 300 "$NSYS" stats --force-export true --report cuda_gpu_trace --format csv \
      --output "$WORK/prof" "$WORK/prof.nsys-rep" >> "$WORK/prof.log" 2>&1 ||
      timeout 300 "$NSYS" stats --force-export true --report gputrace --format csv \
        --output "$WORK/prof" "$WORK/prof.nsys-rep" >> "$WORK/prof.log" 2>&1
    local csvf; csvf=$(ls "$WORK"/prof_*trace*.csv 2>/dev/null | head -1)
    [ -n "$csvf" ] && [ -s "$csvf" ] && mv "$csvf" "$file"
  else
    timeout "$TIMEOUT" "$NCU" --clock-control none \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum --csv \
      --print-units base --log-file "$file" "$WORK/$n" "${ARGS[@]}" > "$WORK/prof.log" 2>&1
    rc=$?
    grep -q '"Kernel Name"' "$file" 2>/dev/null || rm -f "$file"
  fi
  [ -s "$file" ] || { say "run_step: $USE on $n (repeat $rep) gave no trace (exit $rc): $(tail -3 "$WORK/prof.log" | tr '\n' ' ')"; return 1; }
}

USE=""
if [ ${#PROF[@]} -gt 0 ]; then
  NSYS=$(find_nsys); NCU=$(find_ncu)
  case "$TOOL" in
    nsys) [ -n "$NSYS" ] && USE=nsys ;;
    ncu) [ -n "$NCU" ] && USE=ncu ;;
    none) ;;
    *) if [ -n "$NSYS" ]; then USE=nsys; elif [ -n "$NCU" ]; then USE=ncu; fi ;;
  esac
  say "run_step: profilers: nsys ${NSYS:-none}, ncu ${NCU:-none}; breakdown with ${USE:-nothing}"
  rm -f "$WORK"/*.t1.csv "$WORK"/*.t3.csv
  if [ "$USE" = nsys ] && ! trace "${PROF[0]}" 1 "$WORK/${PROF[0]}.t1.csv"; then
    if [ "$TOOL" = auto ] && [ -n "$NCU" ]; then say "run_step: nsys makes no report here; ncu instead"; USE=ncu
    else USE=""; fi
  fi
  [ -z "$USE" ] && say "run_step: neither nsys nor ncu works here: no breakdown (TE_STEP_TOOL=$TOOL)"
fi
KERNELS_CSV=$OUT/step_kernels.csv
rm -f "$KERNELS_CSV"
COPY_TBPS=0
if [ -n "$USE" ]; then
  # The device copy bandwidth (read + write) the kernels' bandwidth is put beside.
  COPY_TBPS=$(python3 - 2>/dev/null <<'PY' || echo 0
import torch
x = torch.empty(1 << 30, dtype=torch.uint8, device="cuda"); y = torch.empty_like(x)
for _ in range(3): y.copy_(x)
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
s.record()
for _ in range(20): y.copy_(x)
e.record(); torch.cuda.synchronize()
print(f"{2 * x.numel() * 20 / (s.elapsed_time(e) * 1e-3) / 1e12:.3f}")
PY
)
  say "run_step: device copy bandwidth ${COPY_TBPS} TB/s (read + write)"
  for n in "${PROF[@]}"; do
    r=${n#step-}; size=${r##*-}; recipe=${r%-*}
    # One step without the driver's one-time work: (repeat 3 - repeat 1) / 2.
    [ -s "$WORK/$n.t1.csv" ] || trace "$n" 1 "$WORK/$n.t1.csv" || continue
    more=(); trace "$n" 3 "$WORK/$n.t3.csv" && more=(--more "$WORK/$n.t3.csv" --extra 2)
    python3 "$ROOT/bench/step/breakdown.py" --tool "$USE" --one "$WORK/$n.t1.csv" "${more[@]}" \
      --step-ms "${STEP_MS[$n]}" --size "$size" --recipe "$recipe" --csv "$BD_CSV" \
      --kernels-csv "$KERNELS_CSV" --copy-tbps "$COPY_TBPS" 2>&1 | tee -a "$LOG"
  done
fi

# --- 5. report -----------------------------------------------------------------
python3 "$ROOT/bench/step/report.py" "$TE_CSV" "$PEERS_CSV" --breakdown "$BD_CSV" \
  --out "$OUT/step_report.md" 2>&1 | tee -a "$LOG"
say "run_step: wrote $(cd "$OUT" && ls step_* 2>/dev/null | tr '\n' ' ')"
