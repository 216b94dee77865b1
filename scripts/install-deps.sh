#!/usr/bin/env bash
# Installs what te needs to build and test on Debian 12 (bookworm), as root.
# Idempotent: packages already present are not downloaded again.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build git python3
  # LLVM/MLIR 22 (headers, libMLIR.so, mlir-tblgen, FileCheck, lit, llc)
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  # unit tests
  libgtest-dev libgmock-dev
  # the te Python package's tests (python/); python3-torch (1.13, CPU) for
  # te.torch's importer tests
  python3-numpy python3-torch
  # scripts/check-format.sh (clang-format 14 on Debian 12)
  clang-format
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "te: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
