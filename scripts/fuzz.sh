#!/usr/bin/env bash
# Builds te's libFuzzer targets in build-fuzz (clang-22, ASan + UBSan, libFuzzer
# coverage on te's own code; libMLIR.so is Debian's, not instrumented) and
# fuzzes.
#
#   scripts/fuzz.sh build              install clang-22 if needed, configure, build
#   scripts/fuzz.sh run KIND SECONDS   fuzz KIND (mlir | runtime | npy) for SECONDS with
#                                      one process; corpus kept in
#                                      build-fuzz/corpus-KIND, crashes in
#                                      build-fuzz/artifacts-KIND/
#   scripts/fuzz.sh short              the CI run (scripts/test.sh): builds and
#                                      fuzzes the MLIR pipeline, runtime and
#                                      .npy targets for TE_FUZZ_SECONDS (40)
#                                      each (the MLIR target builds the whole
#                                      compiler with clang: ~3 min on 2 cores);
#                                      TE_FUZZ_MLIR=0 leaves the MLIR target out
#
# NDEBUG as Debian's LLVM (built without assertions): LLVM's headers inline
# code whose layout depends on it (a pass's Statistic is a NoopStatistic in
# libMLIR.so, a TrackingStatistic in a TU without NDEBUG; UBSan reports the
# mismatch on the first statistic a pass counts).
#
# A crash: minimize it (build-fuzz/bin/te-fuzz-KIND -minimize_crash=1
# -runs=10000 CRASH), fix it, copy the input to test/fuzz/regressions/KIND/;
# ctest fuzz-regressions replays it in every build.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${TE_FUZZ_BUILD_DIR:-build-fuzz}
LLVM_PREFIX=${LLVM_PREFIX:-/usr/lib/llvm-22}
CLANG=${CLANG:-clang-22}

install_clang() {
  if command -v "$CLANG" >/dev/null 2>&1 &&
     ls "$LLVM_PREFIX"/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
    return
  fi
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "te: installing clang-22 libclang-rt-22-dev (fuzzing only)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    --no-install-recommends clang-22 libclang-rt-22-dev
}

build() {
  local targets=("$@")
  [ ${#targets[@]} -eq 0 ] && targets=(te-fuzz-mlir te-fuzz-runtime te-fuzz-npy
    te-fuzz-mlir-replay te-fuzz-runtime-replay te-fuzz-npy-replay)
  install_clang
  local flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=enum -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    cmake -G Ninja -S . -B "$BUILD_DIR" \
      -DCMAKE_C_COMPILER="$CLANG" -DCMAKE_CXX_COMPILER="${CLANG/clang/clang++}" \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
      -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
      -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
      -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
      -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
      -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
      -DMLIR_LINK_MLIR_DYLIB=ON -DTE_ENABLE_CUDA=OFF -DTE_ENABLE_FUZZ=ON \
      -DTE_FUZZ_SECONDS="${TE_FUZZ_SECONDS:-40}"
  fi
  ninja -C "$BUILD_DIR" -j "${TE_FUZZ_JOBS:-2}" "${targets[@]}"
}

short() {
  if [ "${TE_FUZZ_MLIR:-1}" = 1 ]; then
    build te-fuzz-mlir te-fuzz-runtime te-fuzz-npy
    (cd "$BUILD_DIR" && ctest --output-on-failure -L '^fuzz$')
  else
    build te-fuzz-runtime te-fuzz-npy
    (cd "$BUILD_DIR" && ctest --output-on-failure -R 'fuzz-(runtime|npy)-short')
  fi
}

run() {
  local kind=$1 seconds=$2
  local corpus=$BUILD_DIR/corpus-$kind artifacts=$BUILD_DIR/artifacts-$kind
  mkdir -p "$corpus" "$artifacts"
  cp -rn test/fuzz/corpus/"$kind"/. test/fuzz/regressions/"$kind"/. "$corpus"/ 2>/dev/null || true
  local dict=()
  if [ "$kind" = mlir ]; then
    bash test/fuzz/make-seeds.sh "$corpus" test
    dict=(-dict=test/fuzz/mlir.dict)
  fi
  ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:allow_user_poisoning=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$BUILD_DIR/bin/te-fuzz-$kind" "$corpus" "${dict[@]}" -max_total_time="$seconds" \
      -timeout=25 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
      -artifact_prefix="$artifacts/"
}

case "${1:-build}" in
  build) build ;;
  run) build "te-fuzz-${2:?mlir|runtime|npy}" && run "$2" "${3:-600}" ;;
  short) short ;;
  *) echo "usage: $0 build | run mlir|runtime|npy SECONDS | short" >&2; exit 2 ;;
esac
