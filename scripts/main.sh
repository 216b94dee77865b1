#!/usr/bin/env bash
# The README's first command: installs dependencies, builds, and runs the
# example programs in examples/ on the default backend.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh

BIN=${TE_BUILD_DIR:-build}/bin
if [ -x scripts/run-examples.sh ]; then
  exec bash scripts/run-examples.sh "$BIN"
fi
for f in examples/*.mlir; do
  [ -e "$f" ] || continue
  echo "== te-opt $f"
  "$BIN/te-opt" "$f" > /dev/null && echo "   ok: parsed and verified"
done
