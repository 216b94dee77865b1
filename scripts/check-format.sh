#!/usr/bin/env bash
# Checks that C, C++ and CUDA sources are formatted as clang-format 14 formats
# them with the repository's .clang-format (LLVM style). scripts/test.sh runs
# it before the build.
#
#   scripts/check-format.sh            every such file git tracks
#   scripts/check-format.sh FILE...    those files
#
# Exit 0 when every file is formatted; else exit 1 naming each file that is
# not and the command that formats it. CLANG_FORMAT=... picks the binary
# (default: clang-format-14, else a clang-format of major version 14; other
# versions format differently).
set -euo pipefail
cd "$(dirname "$0")/.."

find_clang_format() {
  if [ -n "${CLANG_FORMAT:-}" ]; then
    echo "$CLANG_FORMAT"
    return
  fi
  local c
  for c in clang-format-14 clang-format; do
    if command -v "$c" >/dev/null 2>&1 &&
       "$c" --version | grep -q "version 14\."; then
      echo "$c"
      return
    fi
  done
}

CF=$(find_clang_format)
if [ -z "$CF" ]; then
  echo "check-format: clang-format 14 not found (Debian: apt-get install" \
       "clang-format, or set CLANG_FORMAT=...)" >&2
  exit 2
fi

files=()
if [ $# -gt 0 ]; then
  files=("$@")
else
  while IFS= read -r -d '' f; do
    files+=("$f")
  done < <(git ls-files -z -- '*.c' '*.cc' '*.cpp' '*.h' '*.hpp' '*.cu' '*.cuh')
fi
[ ${#files[@]} -gt 0 ] || exit 0

# One clang-format per batch of files (one after the other: parallel ones
# would interleave their lines); a file that differs gives one
# "FILE:LINE:COL: error: code should be clang-formatted".
report=$(printf '%s\0' "${files[@]}" |
  xargs -0 -n 64 "$CF" --dry-run -Werror --ferror-limit=1 2>&1 || true)
bad=$(printf '%s\n' "$report" |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' |
  sort -u)
if [ -z "$bad" ]; then
  if printf '%s\n' "$report" | grep -q "error"; then
    # clang-format itself failed (a missing file, a bad .clang-format).
    printf '%s\n' "$report" >&2
    exit 2
  fi
  echo "check-format: ${#files[@]} files formatted ($CF)"
  exit 0
fi
n=$(printf '%s\n' "$bad" | wc -l)
{
  echo "check-format: $n file(s) not formatted as $CF formats them:"
  printf '  %s\n' $bad
  echo "Format them with:"
  echo "  $CF -i" $bad
} >&2
exit 1
