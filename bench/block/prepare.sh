#!/usr/bin/env bash
#===- bench/block/prepare.sh - te's GPT block programs, compiled for sm_90 --===#
#
# Runs on the dev machine (the MLIR build, LLVM 22, the CUDA toolkit):
#
#   bash bench/block/prepare.sh [OUT_DIR]        (default build-block, ignored by git)
#
# Writes the block programs (bench/block/gen_block.py) at two sizes into
# OUT_DIR/src-<size>/ and compiles each ahead of time for sm_90
# (scripts/te-aot.sh compile) into OUT_DIR/<program>-<size>.o + .sig:
#   program: fwd-a, fwd-b, fwd-c, fwd-d (forward, attention forms a-d),
#            train-d, train-c (training step), fwd-a-literal, fwd-b-literal
#            (forms a and b compiled with raise-attention=false: the
#            attention as written, batched products and a softmax)
#   size:    small  B=2, S=256, hidden 1024, 16 heads, ffn 4096
#            large  B=4, S=2048, hidden 4096, 32 heads, ffn 16384
# OUT_DIR/prepare.log has each compilation's output; OUT_DIR/failed.txt
# names the programs that did not compile (their first error beside them);
# OUT_DIR/commit.txt the commit they were compiled from. If the objects pass
# 48 MiB they are also packed into OUT_DIR/objects.tar.xz (the device tool
# carries 64 MiB). The GPU machine runs them with bench/block/run_block.sh.
#
# Environment: TE_BUILD_DIR (build), TE_BLOCK_SIZES (small,large),
# TE_BLOCK_PROGRAMS (every program), TE_BLOCK_TARGET (sm_90),
# TE_BLOCK_JOBS (1: compilations at once).
#
#===------------------------------------------------------------------------===#
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/build-block}
SIZES=${TE_BLOCK_SIZES:-small,large}
PROGRAMS=${TE_BLOCK_PROGRAMS:-fwd-a,fwd-b,fwd-c,fwd-d,train-d,train-c,fwd-a-literal,fwd-b-literal}
TARGET=${TE_BLOCK_TARGET:-sm_90}
JOBS=${TE_BLOCK_JOBS:-1}
export TE_BUILD_DIR=${TE_BUILD_DIR:-$ROOT/build}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
LOG=$OUT/prepare.log
: > "$LOG"
: > "$OUT/failed.txt"
git -C "$ROOT" rev-parse --short HEAD > "$OUT/commit.txt" 2>/dev/null || echo unknown > "$OUT/commit.txt"

size_flags() {
  case "$1" in
    small) echo "--batch 2 --seq 256 --hidden 1024 --heads 16 --ffn 4096" ;;
    large) echo "--batch 4 --seq 2048 --hidden 4096 --heads 32 --ffn 16384" ;;
    *) return 1 ;;
  esac
}

compile_one() { # SIZE PROGRAM
  local size=$1 prog=$2 kind=${2%%-*} form=${2#*-} popts=()
  case "$form" in *-literal) form=${form%-literal}; popts=(--pipeline-options "raise-attention=false") ;; esac
  local src=$OUT/src-$size/block-$kind-$form.mlir entry=block
  [ "$kind" = train ] && entry=block_train
  local t0=$SECONDS
  if bash "$ROOT/scripts/te-aot.sh" compile "$src" "$OUT/$prog-$size.o" --entry "$entry" --target "$TARGET" "${popts[@]}" \
      > "$OUT/$prog-$size.log" 2>&1; then
    echo "prepare: $prog-$size: ok ($((SECONDS - t0)) s, $(du -k "$OUT/$prog-$size.o" | cut -f1) KiB)"
  else
    rm -f "$OUT/$prog-$size.o" "$OUT/$prog-$size.sig"
    echo "$prog-$size: $(grep -m1 'error' "$OUT/$prog-$size.log" || tail -1 "$OUT/$prog-$size.log")" >> "$OUT/failed.txt"
    echo "prepare: $prog-$size: FAILED ($((SECONDS - t0)) s): $(grep -m1 'error' "$OUT/$prog-$size.log")"
  fi
}

for size in ${SIZES//,/ }; do
  flags=$(size_flags "$size") || { echo "prepare: unknown size $size (small, large)" | tee -a "$LOG"; continue; }
  fwd=$(echo "$PROGRAMS" | tr ',' '\n' | sed -n 's/^fwd-//p' | sed 's/-literal$//' | sort -u | paste -sd, -)
  train=$(echo "$PROGRAMS" | tr ',' '\n' | sed -n 's/^train-//p' | paste -sd, -)
  # shellcheck disable=SC2086
  python3 "$ROOT/bench/block/gen_block.py" --out "$OUT/src-$size" $flags --forms "$fwd" --train-forms "$train" \
    > /dev/null || { echo "prepare: gen_block.py failed for $size" | tee -a "$LOG"; continue; }
  running=0
  for prog in ${PROGRAMS//,/ }; do
    compile_one "$size" "$prog" | tee -a "$LOG" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
  done
  wait
done
for f in "$OUT"/*-*.log; do [ -e "$f" ] && { echo "=== $(basename "$f")"; cat "$f"; } >> "$LOG"; rm -f "$f"; done

bytes=$(cat "$OUT"/*.o 2>/dev/null | wc -c)
rm -f "$OUT/objects.tar.xz"
if [ "$bytes" -gt $((48 << 20)) ]; then
  (cd "$OUT" && tar -cJf objects.tar.xz ./*.o ./*.sig)
  echo "prepare: objects $((bytes >> 20)) MiB, packed into objects.tar.xz ($(du -m "$OUT/objects.tar.xz" | cut -f1) MiB)" | tee -a "$LOG"
fi
n=$(ls "$OUT"/*.o 2>/dev/null | wc -l)
echo "prepare: $n objects in $OUT ($((bytes >> 10)) KiB), commit $(cat "$OUT/commit.txt"); $(grep -c . "$OUT/failed.txt") failed" | tee -a "$LOG"
[ -s "$OUT/failed.txt" ] && sed 's/^/prepare: failed: /' "$OUT/failed.txt"
exit 0
