#!/usr/bin/env bash
# ASan + UBSan build of te (tools, runtime with its cpu backend, tests) in
# build-asan, then the whole non-GPU test suite under the sanitizers:
#
#   scripts/sanitize.sh            configure, build, ctest -LE 'gpu|fuzz$'
#                                  (then lit's Plugin/ tests, see below)
#   scripts/sanitize.sh build      configure and build only
#   scripts/sanitize.sh check      the tests only, on what build-asan has
#   scripts/sanitize.sh tsan       ThreadSanitizer build of the runtime alone
#                                  (build-tsan: MLIR and CUDA off) and its
#                                  unit tests, the context-sharing ones
#                                  (AbiContract, Comm) first
#
# NDEBUG as Debian's LLVM (no assertions): the pass statistics' layout in
# LLVM's headers depends on it (scripts/fuzz.sh). gcc is fine. libMLIR.so (Debian's) is not instrumented; te's code linked
# into te-opt is. The CUDA backend is off (nvcc would not take the flags; run
# scripts/gpu/runtime-check.sh's compute-sanitizer on a GPU machine instead).
# Any sanitizer report fails the test that triggered it:
# -fno-sanitize-recover makes UBSan fatal, ASan is fatal by default, and
# LeakSanitizer runs at every exit.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = tsan ]; then
  TSAN_DIR=${TE_TSAN_BUILD_DIR:-build-tsan}
  TSAN="-fsanitize=thread -fno-omit-frame-pointer"
  if [ ! -f "$TSAN_DIR/build.ninja" ]; then
    cmake -G Ninja -S . -B "$TSAN_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_FLAGS="$TSAN" -DCMAKE_CXX_FLAGS="$TSAN" \
      -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
      -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread \
      -DTE_ENABLE_MLIR=OFF -DTE_ENABLE_CUDA=OFF -DTE_ENABLE_INSTALL=OFF
  fi
  ninja -C "$TSAN_DIR" -j "${TE_ASAN_JOBS:-2}" te_rt_hostile_tests te_rt_tests \
    te_rt_comm_tests
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
  "$TSAN_DIR/bin/te_rt_hostile_tests" --gtest_filter='AbiContract.*'
  "$TSAN_DIR/bin/te_rt_comm_tests"
  "$TSAN_DIR/bin/te_rt_tests"
  exit 0
fi

BUILD_DIR=${TE_ASAN_BUILD_DIR:-build-asan}
LLVM_PREFIX=${LLVM_PREFIX:-/usr/lib/llvm-22}
FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" \
    -DCMAKE_C_FLAGS="$FLAGS" -DCMAKE_CXX_FLAGS="$FLAGS" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
    -DMLIR_LINK_MLIR_DYLIB=ON -DTE_ENABLE_CUDA=OFF
fi
[ "${1:-test}" = check ] || ninja -C "$BUILD_DIR" -j "${TE_ASAN_JOBS:-2}"
[ "${1:-test}" = build ] && exit 0

# halt_on_error: the first report ends the process (and fails its test).
# detect_leaks: te leaks nothing; MLIR's own process-lifetime singletons are
# reachable and not reported.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0:allocator_may_return_null=1:allow_user_poisoning=0}
# The AOT test links its driver: with the sanitizer runtimes, like the rest.
export TE_AOT_CXXFLAGS="-fsanitize=address,undefined"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$BUILD_DIR"
# Some tests cannot run as they are here:
# * lit's Plugin/ tests load te's instrumented TEPlugin.so into Debian's
#   uninstrumented mlir-opt, and the python tests (and docs-guide's python
#   block) load the instrumented libte_rt / libTECAPI into the
#   uninstrumented python3 ("ASan runtime does not come first"): they run
#   below, on their own, with the sanitizer runtimes preloaded.
# * `package` builds a consumer project against the installed static
#   libraries without the sanitizer flags (undefined __asan_*/__ubsan_*
#   symbols): a packaging test, not a memory test; the normal build runs it.
status=0
preloaded='^(python|python-install|docs-guide)$'
LIT_FILTER_OUT='Plugin/' ctest --output-on-failure -j "$(nproc)" \
  -LE 'gpu|fuzz$' -E "^package\$|$preloaded" || status=1
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' CMakeCache.txt)
# The preload reaches lit and python themselves, whose exit LeakSanitizer
# would report: no leak check in this part.
ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 \
LD_PRELOAD="$("$cxx" -print-file-name=libasan.so) $("$cxx" -print-file-name=libubsan.so)" \
  bash -c '"$0" -sv test/Plugin && ctest --output-on-failure -R "$1"' \
  "$LLVM_PREFIX/bin/lit" "$preloaded" || status=1
exit $status
