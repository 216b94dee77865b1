#!/usr/bin/env bash
# Runs programs compiled by scripts/gpu/gpu-programs.py on the GPU machine (no
# MLIR there): builds the runtime (cmake -S runtime), links each object with
# the AOT driver, runs the cpu-target object on the cpu backend and the
# GPU-target object on the cuda backend with the same inputs, and compares
# every result: bit for bit where it is quantized data (1-byte elements),
# else normwise (--max-rel-err, TE_GPU_CHECK_TOL, default 0.05). A program
# whose manifest line names a twin (`--twin OTHER`, gpu-programs.py: a dynamic
# batch and its static twin, a loop and its unrolled twin) must also give
# exactly the twin's cuda results, byte for byte. Prints one line per program
# and a summary; exit status 1 if any program failed.
#
#   scripts/gpu/gpu-check.sh OBJ_DIR [OUT_DIR]
#   TE_GPU_CHECK_SANITIZE=memcheck|racecheck  run the cuda runs under
#                                             compute-sanitizer; racecheck
#       hazards whose both accesses lie in cuBLASLt's own kernels (nvjet*,
#       sm90_xmma*, cutlass*: warp-specialized kernels synchronised by
#       mbarriers, which racecheck does not model) are reported on the line
#       and in the summary but do not fail the program; any other hazard does
#   TE_GPU_CHECK_REPEAT=N                     --repeat N on the cuda runs
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OBJ=$(cd "$1" && pwd)
OUT=${2:-${OUT:-$(mktemp -d -t te-gpu-check.XXXXXX)}}
# TE_RT_BUILD: a runtime build directory (built here if it has build.ninja
# or nothing), or a folder holding a prebuilt libte_rt.so.
RT=${TE_RT_BUILD:-$ROOT/build-gpu/runtime-release}
TOL=${TE_GPU_CHECK_TOL:-0.05}
REPEAT=${TE_GPU_CHECK_REPEAT:-1}
mkdir -p "$OUT"
W=$(mktemp -d)
LOG=$OUT/gpu-check.log
: > "$LOG"
if [ -f "$RT/libte_rt.so" ] && [ ! -f "$RT/build.ninja" ]; then
  echo "gpu-check: prebuilt runtime $RT" >> "$LOG"
else
  if [ ! -f "$RT/build.ninja" ]; then
    cmake -G Ninja -S "$ROOT/runtime" -B "$RT" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90a >> "$LOG" 2>&1 || { echo "runtime configure failed"; tail "$LOG"; exit 1; }
  fi
  ninja -C "$RT" te_rt >> "$LOG" 2>&1 || { echo "runtime build failed"; tail -30 "$LOG"; exit 1; }
fi
LIB=$(dirname "$(find "$RT" -name libte_rt.so | head -1)")
CXXF=(-std=c++17 -O2 -I"$ROOT/include" -I"$ROOT/runtime/include" -I"$ROOT/runtime/lib" -I"$ROOT/runtime/call")
for f in runtime/call/te-aot-run.cpp runtime/call/Harness.cpp runtime/call/Call.cpp runtime/lib/Npy.cpp; do
  c++ "${CXXF[@]}" -c "$ROOT/$f" -o "$W/$(basename "$f" .cpp).o" || exit 1
done
link() { c++ "$W/te-aot-run.o" "$W/Harness.o" "$W/Call.o" "$W/Npy.o" "$1" -L"$LIB" -lte_rt \
           -Wl,-rpath,"$LIB" -Wl,--export-dynamic -ldl -lm -o "$2"; }
SAN=()
[ -n "${TE_GPU_CHECK_SANITIZE:-}" ] && SAN=(compute-sanitizer --tool "$TE_GPU_CHECK_SANITIZE" --error-exitcode 99)
pass=0; fail=0; libraryHazards=0
VENDOR='nvjet|sm90_xmma|cutlass|cublas|gemm'
printf '%-48s | %-6s | %-10s | %s\n' program status "step [ms]" detail
while read -r name entry flags; do
  [ -z "$name" ] && continue
  read -r -a all <<< "$flags"
  fl=(); twin=""
  for ((k = 0; k < ${#all[@]}; ++k)); do
    if [ "${all[$k]}" = --twin ]; then twin=${all[$((k+1))]}; k=$((k+1)); else fl+=("${all[$k]}"); fi
  done
  ref=$W/ref-$name; mkdir -p "$ref"
  if ! link "$OBJ/$name.cpu.o" "$W/$name.cpu" >> "$LOG" 2>&1 ||
     ! link "$OBJ/$name.gpu.o" "$W/$name.gpu" >> "$LOG" 2>&1; then
    printf '%-48s | %-6s | %-10s | %s\n' "$name" FAIL - "link failed"; fail=$((fail+1)); continue
  fi
  if ! "$W/$name.cpu" --signature-file "$OBJ/$name.cpu.sig" --entry "$entry" --backend cpu \
       "${fl[@]}" --output-dir "$ref" --quiet > "$W/cpu.log" 2>&1; then
    printf '%-48s | %-6s | %-10s | %s\n' "$name" FAIL - "cpu run: $(grep -v '^$' "$W/cpu.log" | tail -1)"; fail=$((fail+1)); continue
  fi
  # Results with 1-byte elements (quantized data, E8M0 scales) bit for bit.
  cmp=(); i=0
  for t in $(head -1 "$OBJ/$name.gpu.sig" | sed 's/.*->//' | python3 -c '
import sys
s, d, cur, out = sys.stdin.read(), 0, "", []
for c in s:
    if c == "[": d += 1
    if c == "]": d -= 1
    if c == "," and d == 0: out.append(cur); cur = ""
    else: cur += c
out.append(cur)
print(" ".join(x.strip().split("[")[0].strip("() ") for x in out))'); do
    cmp+=(--compare "$ref/result$i.npy")
    case "$t" in f8E4M3FN|f8E5M2|f8E8M0FNU|i8|ui8|f4E2M1FN) cmp+=(--exact "$i") ;; esac
    i=$((i+1))
  done
  mkdir -p "$W/gpu-$name"
  "${SAN[@]}" "$W/$name.gpu" --signature-file "$OBJ/$name.gpu.sig" --entry "$entry" --backend cuda \
       "${fl[@]}" --repeat "$REPEAT" --atol 1e30 --max-rel-err "$TOL" "${cmp[@]}" \
       --output-dir "$W/gpu-$name" > "$W/gpu.log" 2>&1
  rc=$?
  cat "$W/gpu.log" >> "$LOG"
  step=$(grep -o 'step_ms=[0-9.e+-]*' "$W/gpu.log" | head -1 | cut -d= -f2)
  detail=$(grep -E 'FAIL|rel' "$W/gpu.log" | tr '\n' ' ' | cut -c1-160)
  # Racecheck hazards only inside the vendor's GEMM kernels: noted, not failed.
  vendorOnly=0
  if [ $rc -eq 99 ] && [ "${TE_GPU_CHECK_SANITIZE:-}" = racecheck ] && ! grep -q FAIL "$W/gpu.log" &&
     grep -q "Race reported" "$W/gpu.log" &&
     ! grep -E "Race reported between|^=+ +and " "$W/gpu.log" | grep -vqE "($VENDOR)"; then
    vendorOnly=1
  fi
  # The twin's cuda results, byte for byte.
  if [ -n "$twin" ]; then
    if [ ! -d "$W/gpu-$twin" ]; then
      echo "FAIL: twin $twin has no cuda results (not run before $name)" >> "$W/gpu.log"
    else
      for ((k = 0; k < i; ++k)); do
        if ! cmp -s "$W/gpu-$name/result$k.npy" "$W/gpu-$twin/result$k.npy"; then
          echo "FAIL: cuda result $k differs from twin $twin's" >> "$W/gpu.log"
        fi
      done
      grep -q "FAIL: cuda result" "$W/gpu.log" || detail="= twin $twin on cuda; $detail"
    fi
    grep "twin" "$W/gpu.log" >> "$LOG"
  fi
  if { [ $rc -eq 0 ] || [ $vendorOnly -eq 1 ]; } && ! grep -q FAIL "$W/gpu.log"; then
    pass=$((pass+1)); st=PASS
    if [ $vendorOnly -eq 1 ]; then
      libraryHazards=$((libraryHazards+1))
      detail="racecheck: hazards only inside cuBLASLt: $(grep -oE "Race reported between [A-Za-z]+ access at [A-Za-z0-9_]+" "$W/gpu.log" | awk '{print $NF}' | sort -u | tr '\n' ' ' | cut -c1-120) $detail"
    fi
  else
    fail=$((fail+1)); st=FAIL; detail="rc=$rc $(grep -v '^$' "$W/gpu.log" | grep -iE 'error|FAIL' | head -2 | tr '\n' ' ' | cut -c1-200)"
  fi
  printf '%-48s | %-6s | %-10s | %s\n' "$name" "$st" "${step:--}" "$detail"
done < "$OBJ/manifest.txt"
echo "gpu-check: $pass passed, $fail failed (log: $LOG)"
[ $libraryHazards -gt 0 ] && echo "gpu-check: $libraryHazards of the passed programs have racecheck hazards only inside cuBLASLt's kernels"
rm -rf "$W"
[ $fail -eq 0 ]
