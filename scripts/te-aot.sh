#!/usr/bin/env bash
# Ahead-of-time compilation of a te module, and linking of the AOT driver.
#
#   scripts/te-aot.sh compile IN.mlir OUT.o [--entry NAME] [--target T]
#                     [--pipeline-options "K=V ..."]
#       te-pipeline{target=T K=V ...} (via te-run --emit-lowered, which also gives the
#       entry its C interface and the packed wrapper _te_packed_NAME the
#       driver calls) + mlir-translate --mlir-to-llvmir + llc -filetype=obj.
#       T is cpu, sm_90 (default) or sm_100. Writes OUT.o and OUT.sig for
#       te-aot-run: line 1 the entry's signature (te-run --print-signature),
#       line 2 `target T` (a file without it is read as target cpu), line 3
#       `shape-checks on|off` (on: the object checks its dynamic sizes,
#       te-check-shapes; a file without it is read as off). Needs
#       the MLIR build (TE_BUILD_DIR, default build) and LLVM 22
#       (LLVM_PREFIX, default /usr/lib/llvm-22).
#   scripts/te-aot.sh link OBJ.o EXE RUNTIME_BUILD_DIR   (extra compiler flags: TE_AOT_CXXFLAGS)
#       Links OBJ.o with the driver tools/te-run/aot_main.cpp and
#       RUNTIME_BUILD_DIR/lib*/libte_rt.so into EXE. Needs only a C++17
#       compiler and a runtime build (cmake -S runtime): no MLIR, so it runs
#       on the GPU machine.
#   EXE --signature-file OBJ.sig --backend cpu|cuda [te-run's harness flags]
#       An sm_90/sm_100 object is a GPU program: it runs with --backend cuda
#       only (arguments and results in device memory, copied once around the
#       timed calls); a cpu object runs on both backends (host memory).
#
# The short form `scripts/te-aot.sh IN.mlir OUT.o` is `compile`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

usage() { sed -n '2,25p' "$0"; exit 2; }

cmd=${1:-}
case "$cmd" in
  compile|link) shift ;;
  -h|--help|"") usage ;;
  *) cmd=compile ;;
esac

if [ "$cmd" = compile ]; then
  [ $# -ge 2 ] || usage
  in=$1; out=$2; shift 2
  entry=main; target=sm_90; popts=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --entry) entry=$2; shift 2 ;;
      --target) target=$2; shift 2 ;;
      --pipeline-options) popts=(--pipeline-options "$2"); shift 2 ;;
      *) echo "te-aot.sh: unknown option $1" >&2; exit 2 ;;
    esac
  done
  BIN=${TE_BUILD_DIR:-$ROOT/build}/bin
  LLVM=${LLVM_PREFIX:-/usr/lib/llvm-22}/bin
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  sig=$("$BIN/te-run" "$in" --entry "$entry" --target "$target" --print-signature)
  "$BIN/te-run" "$in" --entry "$entry" --target "$target" "${popts[@]}" --emit-lowered "$tmp/lowered.mlir"
  "$LLVM/mlir-translate" --mlir-to-llvmir "$tmp/lowered.mlir" -o "$tmp/module.ll"
  "$LLVM/llc" -O2 -filetype=obj -relocation-model=pic "$tmp/module.ll" -o "$out"
  # te-check-shapes marks the module: its entry checks that operands agree
  # in their dynamic sizes, so the driver lets each `?` of --input files
  # take its own size.
  checks=off
  if grep -m1 '^module' "$tmp/lowered.mlir" | grep -q '^module attributes {[^}]*te\.shape_checks'; then
    checks=on
  fi
  printf '%s\ntarget %s\nshape-checks %s\n' "$sig" "$target" "$checks" > "${out%.o}.sig"
  echo "te-aot.sh: wrote $out and ${out%.o}.sig ($sig; target $target; shape checks $checks)"
else
  [ $# -eq 3 ] || usage
  obj=$1; exe=$2; rt=$3
  lib=$(dirname "$(find "$rt" -name 'libte_rt.so' | head -1)")
  [ -n "$lib" ] && [ -f "$lib/libte_rt.so" ] || { echo "te-aot.sh: no libte_rt.so under $rt" >&2; exit 1; }
  # The driver's objects are compiled once per runtime build and kept in
  # RUNTIME_BUILD_DIR/te-aot-driver/, keyed by the sources and flags, so
  # that linking many programs compiles the driver once. te/ToolVersion.h
  # (--version) comes from the runtime build directory if it has it.
  srcs=("$ROOT/tools/te-run/aot_main.cpp" "$ROOT/tools/te-run/Harness.cpp" "$ROOT/runtime/lib/Npy.cpp")
  flags=(${TE_AOT_CXXFLAGS:-} -std=c++17 -O2 -I"$ROOT/include" -I"$ROOT/runtime/include" -I"$ROOT/runtime/lib" -I"$rt/include")
  key=$( { cat "${srcs[@]}" "$ROOT"/tools/te-run/*.h; echo "${CXX:-c++} ${flags[*]}"; } | cksum | cut -d' ' -f1)
  cache=$rt/te-aot-driver/$key
  if [ ! -f "$cache/done" ]; then
    mkdir -p "$cache"
    for f in "${srcs[@]}"; do
      ${CXX:-c++} "${flags[@]}" -c "$f" -o "$cache/$(basename "$f" .cpp).o"
    done
    touch "$cache/done"
  fi
  ${CXX:-c++} "$cache/aot_main.o" "$cache/Harness.o" "$cache/Npy.o" \
    "$obj" -L"$lib" -lte_rt -Wl,-rpath,"$lib" -Wl,--export-dynamic -ldl -lm -o "$exe"
  echo "te-aot.sh: linked $exe"
fi
