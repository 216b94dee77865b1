#!/usr/bin/env bash
# make-seeds.sh OUT_DIR TEST_DIR
# Splits every lit test (*.mlir) under TEST_DIR at its `// -----` lines into
# one seed file per chunk in OUT_DIR (the seeds of te-fuzz-mlir).
set -euo pipefail
out=$1
tests=$2
mkdir -p "$out"
find "$tests" -name '*.mlir' -not -path '*/fuzz/*' | sort | while read -r f; do
  base=$(echo "${f#"$tests"/}" | tr '/' '_')
  awk -v out="$out" -v base="$base" '
    BEGIN { n = 0; file = sprintf("%s/%s.%03d", out, base, n) }
    /^\/\/ -----/ { close(file); n++; file = sprintf("%s/%s.%03d", out, base, n); next }
    /^\/\/ *RUN:/ { next }
    { print > file }
  ' "$f"
done
