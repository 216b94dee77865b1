#!/usr/bin/env bash
# Configures and builds te in ./build (RelWithDebInfo, Ninja, libMLIR.so).
# Extra arguments are passed to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${TE_BUILD_DIR:-build}
LLVM_PREFIX=${LLVM_PREFIX:-/usr/lib/llvm-22}

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
    -DMLIR_LINK_MLIR_DYLIB=ON \
    "$@"
fi
cmake --build "$BUILD_DIR" -j "$(nproc)"
