#!/usr/bin/env bash
#===- bench/run_gpu.sh - One command: build, benchmark, compare, plot -------===#
#
# Runs on the GPU machine, from the repository root:
#
#   bash bench/run_gpu.sh            # everything, results under $OUT
#   TE_BENCH_ONLY=quant,gemm bash bench/run_gpu.sh
#   TE_BENCH_NCU=1 bash bench/run_gpu.sh   # also ncu on the quantize kernels
#   TE_PEER_B2B=gemm,linear bash bench/run_gpu.sh  # time those peers as te_bench
#                                    # does (back-to-back calls, no L2 flush)
#   TE_BENCH_ONLY=step TE_STEP_OBJECTS=DIR bash bench/run_gpu.sh
#                                    # the compiled training step (off by default:
#                                    # it needs te's AOT objects, compiled on the
#                                    # dev machine: docs/performance.md)
#   TE_BENCH_ONLY=block TE_BLOCK_OBJECTS=DIR bash bench/run_gpu.sh
#                                    # the GPT block programs (off by default:
#                                    # DIR from bench/block/prepare.sh)
#
# 1. Uses a te_bench prebuilt in build-bench/ if it runs there, else builds
#    bench/ (cmake -S bench, no MLIR) into $BUILD (in the background, while
#    the PyTorch peers run).
# 2. Runs bench/peers/torch_peers.py  -> $OUT/torch_peers.csv
# 3. Runs te_bench                    -> $OUT/te_bench.csv
# 4. Joins both (bench/report.py)     -> $OUT/report.md, perf.png
# 5. Section "step" (only if TE_BENCH_ONLY names it): bench/step/run_step.sh
#    on the objects in TE_STEP_OBJECTS (step-<recipe>-<size>.o + .sig; without
#    it, the PyTorch peers alone), its own runtime build and peers
#                                     -> $OUT/step_te.csv, step_torch.csv,
#                                        step_breakdown.csv, step_report.md, step.log
#    (its TE_STEP_* settings: bench/step/run_step.sh's header)
# 6. Section "block" (only if TE_BENCH_ONLY names it): bench/block/run_block.sh
#    on the objects in TE_BLOCK_OBJECTS (bench/block/prepare.sh's folder;
#    without it, the PyTorch peers alone)
#                                     -> $OUT/block_te.csv, block_torch.csv,
#                                        block_errors.csv, block_report.md, block.log
#    (its TE_BLOCK_* settings: bench/block/run_block.sh's header)
# Logs go to $OUT/run.log (and ncu's to $OUT/ncu.txt); machine facts to
# $OUT/machine.txt: at most 7 files, as the device tool brings back 8 (run
# "step" alone, TE_BENCH_ONLY=step: 7 files with the machine facts and log;
# "block" alone: 7 as well).
#
#===------------------------------------------------------------------------===#
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/bench-out}
BUILD=${BUILD:-$ROOT/build-bench/release}
# Logs of the steps, beside the results only in run.log.
TMP=$(mktemp -d -t te-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
ONLY=${TE_BENCH_ONLY:-copy,quant,amaxd,gemm,linear,small}
# Peers: the same sections, plus "emu" (MXFP8/NVFP4 dequantize + mm) if
# TE_PEER_ONLY names it.
PEER_BUDGET=${TE_PEER_BUDGET:-240}
# "step" is its own script (bench/step/run_step.sh), not a te_bench section.
STEP=0
case ",$ONLY," in *,step,*) STEP=1 ;; esac
# "block" likewise (bench/block/run_block.sh).
BLOCK=0
case ",$ONLY," in *,block,*) BLOCK=1 ;; esac
ONLY=$(echo "$ONLY" | tr ',' '\n' | grep -v '^step$' | grep -v '^block$' | paste -sd, -)
mkdir -p "$OUT"
cd "$ROOT"
# The device copy of the tree may have no .git: pass TE_COMMIT then.
COMMIT=${TE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
LOG=$OUT/run.log
: > "$LOG"

{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  echo "commit: $COMMIT"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu \
    --format=csv 2>&1
  nvcc --version 2>&1 | tail -1
  python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)' 2>&1
} > "$OUT/machine.txt"
# The card the numbers come from, for the report's title.
CARD=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$CARD" ] || CARD=$(python3 -c 'import torch; print(torch.cuda.get_device_name())' 2>/dev/null)
[ -n "$CARD" ] || CARD="unknown GPU"
cat "$OUT/machine.txt"

# --- 1. te_bench binary --------------------------------------------------------
BIN=""
BUILD_PID=""
if [ -z "$ONLY" ]; then
  echo "run_gpu: no te_bench section"
elif [ -x build-bench/te_bench ] && build-bench/te_bench --help > /dev/null 2>&1; then
  BIN=build-bench/te_bench
  echo "run_gpu: using the prebuilt build-bench/te_bench"
else
  echo "run_gpu: building bench/ in $BUILD (background)"
  ( cmake -G Ninja -S bench -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > $TMP/build.log 2>&1 &&
    ninja -C "$BUILD" te_bench >> $TMP/build.log 2>&1 ) &
  BUILD_PID=$!
fi

# --- 2. PyTorch peers ----------------------------------------------------------
PEER_ONLY=${TE_PEER_ONLY:-$(echo "$ONLY" | tr ',' '\n' | grep -E '^(copy|gemm|linear|quant|small)$' | paste -sd, -)}
if [ -n "$PEER_ONLY" ]; then
  PYTHONUNBUFFERED=1 timeout $((PEER_BUDGET + 120)) python3 bench/peers/torch_peers.py \
    --csv "$OUT/torch_peers.csv" --budget "$PEER_BUDGET" --only "$PEER_ONLY" \
    --b2b "${TE_PEER_B2B:-}" \
    > $TMP/torch_peers.log 2>&1
  echo "run_gpu: torch_peers exit $? ($(grep -c . "$OUT/torch_peers.csv" 2>/dev/null) lines)"
  { echo "=== torch_peers"; cat $TMP/torch_peers.log; } >> "$LOG"
fi

# --- 3. te_bench ---------------------------------------------------------------
if [ -n "$BUILD_PID" ]; then
  if wait "$BUILD_PID" && [ -x "$BUILD/te_bench" ]; then
    BIN=$BUILD/te_bench
  else
    echo "run_gpu: build failed"; tail -30 $TMP/build.log
  fi
  { echo "=== build"; cat $TMP/build.log; } >> "$LOG"
fi
if [ -n "$BIN" ]; then
  "$BIN" --csv "$OUT/te_bench.csv" --only "$ONLY" > $TMP/te_bench.log 2>&1
  echo "run_gpu: te_bench exit $?"
  tail -5 $TMP/te_bench.log
  { echo "=== te_bench"; cat $TMP/te_bench.log; } >> "$LOG"
  if [ "${TE_BENCH_NCU:-0}" = 1 ] && command -v ncu > /dev/null; then
    # The quantize kernels (runtime/cuda/Quantize*.cu), and
    # torch's 1 GiB device copy as the reference: DRAM bytes moved against
    # the minimal bytes, DRAM throughput against the copy's.
    NCU_METRICS=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
    timeout 100 ncu --clock-control none -k regex:vectorized_elementwise --metrics "$NCU_METRICS" \
      python3 -c 'import torch; x = torch.empty(1 << 29, device="cuda", dtype=torch.bfloat16).uniform_(); y = torch.empty_like(x); y.copy_(x); torch.cuda.synchronize()' \
      > "$OUT/ncu.txt" 2>&1
    timeout 300 ncu --clock-control none \
      -k regex:'perTensorTile|currentFused|amaxFast|blockTile|mxfp8BlockTile|mxfp8Tile|nvfp4|currentScale' \
      --section SpeedOfLight --section LaunchStats --section Occupancy --metrics "$NCU_METRICS" \
      "$BIN" --profile --only quant --csv $TMP/te_bench_profile.csv >> "$OUT/ncu.txt" 2>&1
    echo "run_gpu: ncu exit $? ($(wc -l < "$OUT/ncu.txt") lines)"
  fi
fi

# --- 4. Join -------------------------------------------------------------------
if [ -n "$ONLY" ]; then
  python3 bench/report.py "$OUT/te_bench.csv" "$OUT/torch_peers.csv" "$OUT" \
    --title "## $CARD, $(date -u +%Y-%m-%d), commit $COMMIT" \
    > $TMP/report.log 2>&1
  { echo "=== report"; cat $TMP/report.log; } >> "$LOG"
  rm -f "$OUT/joined.csv" # rebuilt from the two CSVs anywhere
  cat "$OUT/report.md" 2>/dev/null || cat $TMP/report.log
fi

# --- 5. Compiled training step ----------------------------------------------------
if [ "$STEP" = 1 ]; then
  STEP_OBJS=${TE_STEP_OBJECTS:-}
  if [ -z "$STEP_OBJS" ]; then
    STEP_OBJS=$(mktemp -d)
    echo "run_gpu: step: no TE_STEP_OBJECTS, the PyTorch peers alone"
  fi
  bash bench/step/run_step.sh "$STEP_OBJS" "$OUT" > $TMP/run_step.log 2>&1
  echo "run_gpu: step exit $?"
  cat "$OUT/step_report.md" 2>/dev/null || tail -30 $TMP/run_step.log
fi

# --- 6. GPT block programs ------------------------------------------------------
if [ "$BLOCK" = 1 ]; then
  BLOCK_OBJS=${TE_BLOCK_OBJECTS:-}
  if [ -z "$BLOCK_OBJS" ]; then
    BLOCK_OBJS=$(mktemp -d)
    echo "run_gpu: block: no TE_BLOCK_OBJECTS, the PyTorch peers alone"
  fi
  bash bench/block/run_block.sh "$BLOCK_OBJS" "$OUT" > $TMP/run_block.log 2>&1
  echo "run_gpu: block exit $?"
  cat "$OUT/block_report.md" 2>/dev/null || tail -30 $TMP/run_block.log
fi
ls -la "$OUT"
