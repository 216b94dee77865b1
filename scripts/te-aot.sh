#!/usr/bin/env bash
# Ahead-of-time compilation of a te module, and linking of the AOT driver.
#
#   scripts/te-aot.sh compile IN.mlir OUT.o|OUT.so [--entry NAME] [--target T]
#                     [--pipeline-options "K=V ..."]
#       te-pipeline{target=T K=V ...} (via te-run --emit-lowered, which also gives the
#       entry its C interface and the packed wrapper _te_packed_NAME with its
#       signature and target, te-packed-entry) + mlir-translate --mlir-to-llvmir
#       + llc -filetype=obj; OUT.so: the object linked into a shared library
#       (c++ -shared, CXX) that te-aot-run PROGRAM.so and te.load open. T is
#       cpu, sm_90 (default) or sm_100. Also writes OUT.sig (OUT without its
#       suffix): line 1 the entry's signature (te-run --print-signature),
#       line 2 `target T` (a file without it is read as target cpu), line 3
#       `shape-checks on|off` (on: the object checks its dynamic sizes,
#       te-check-shapes; a file without it is read as off). Needs the MLIR
#       build (TE_BUILD_DIR, default build) and LLVM 22 (LLVM_PREFIX,
#       default /usr/lib/llvm-22).
#   te-aot-run OUT.so --backend cpu|cuda [te-run's harness flags]
#       The installed AOT driver (built with the runtime: cmake -S runtime;
#       no MLIR) runs the entry; an sm_90/sm_100 program is a GPU program:
#       it runs with --backend cuda only (arguments and results in device
#       memory, copied once around the timed calls); a cpu program runs on
#       both backends (host memory).
#   scripts/te-aot.sh link OBJ.o EXE RUNTIME_BUILD_DIR   (extra compiler flags: TE_AOT_CXXFLAGS)
#       Links OBJ.o with the driver (runtime/call: te-aot-run.cpp, Harness.cpp,
#       Call.cpp) and RUNTIME_BUILD_DIR/lib*/libte_rt.so into EXE, which runs
#       as `EXE [--signature-file OBJ.sig] --backend cpu|cuda [flags]`. Needs
#       only a C++17 compiler and a runtime build (cmake -S runtime).
#
# The short form `scripts/te-aot.sh IN.mlir OUT.o` is `compile`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

usage() { sed -n '2,31p' "$0"; exit 2; }

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
  case "$out" in
    *.so)
      "$LLVM/llc" -O2 -filetype=obj -relocation-model=pic "$tmp/module.ll" -o "$tmp/module.o"
      # Undefined: libte_rt's entry points and te_run_checked_malloc, found
      # in the process that opens the library (te-aot-run, te.load).
      ${CXX:-c++} -shared "$tmp/module.o" -o "$out" ;;
    *) "$LLVM/llc" -O2 -filetype=obj -relocation-model=pic "$tmp/module.ll" -o "$out" ;;
  esac
  # te-check-shapes marks the module: its entry checks that operands agree
  # in their dynamic sizes, so the driver lets each `?` of --input files
  # take its own size.
  checks=off
  if grep -m1 '^module' "$tmp/lowered.mlir" | grep -q '^module attributes {[^}]*te\.shape_checks'; then
    checks=on
  fi
  sigfile="${out%.*}.sig"
  printf '%s\ntarget %s\nshape-checks %s\n' "$sig" "$target" "$checks" > "$sigfile"
  echo "te-aot.sh: wrote $out and $sigfile ($sig; target $target; shape checks $checks)"
else
  [ $# -eq 3 ] || usage
  obj=$1; exe=$2; rt=$3
  lib=$(dirname "$(find "$rt" -name 'libte_rt.so' | head -1)")
  [ -n "$lib" ] && [ -f "$lib/libte_rt.so" ] || { echo "te-aot.sh: no libte_rt.so under $rt" >&2; exit 1; }
  # The driver's objects are compiled once per runtime build and kept in
  # RUNTIME_BUILD_DIR/te-aot-driver/, keyed by the sources and flags, so
  # that linking many programs compiles the driver once. te/ToolVersion.h
  # (--version) comes from the runtime build directory if it has it.
  srcs=("$ROOT/runtime/call/te-aot-run.cpp" "$ROOT/runtime/call/Harness.cpp" "$ROOT/runtime/call/Call.cpp" "$ROOT/runtime/lib/Npy.cpp")
  flags=(${TE_AOT_CXXFLAGS:-} -std=c++17 -O2 -I"$ROOT/include" -I"$ROOT/runtime/include" -I"$ROOT/runtime/lib" -I"$ROOT/runtime/call" -I"$rt/include")
  key=$( { cat "${srcs[@]}" "$ROOT"/runtime/call/*.h "$ROOT"/runtime/include/te_call.h; echo "${CXX:-c++} ${flags[*]}"; } | cksum | cut -d' ' -f1)
  cache=$rt/te-aot-driver/$key
  if [ ! -f "$cache/done" ]; then
    mkdir -p "$cache"
    for f in "${srcs[@]}"; do
      ${CXX:-c++} "${flags[@]}" -c "$f" -o "$cache/$(basename "$f" .cpp).o"
    done
    touch "$cache/done"
  fi
  ${CXX:-c++} "$cache/te-aot-run.o" "$cache/Harness.o" "$cache/Call.o" "$cache/Npy.o" \
    "$obj" -L"$lib" -lte_rt -Wl,-rpath,"$lib" -Wl,--export-dynamic -ldl -lm -o "$exe"
  echo "te-aot.sh: linked $exe"
fi
