#!/bin/sh
# check_symbols.sh LIB - fails if the shared library exports a symbol that
# does not start with rp_ (everything else must have hidden visibility).
set -eu
lib="$1"
bad=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | grep -v '^rp_' || true)
n=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/' | grep -c '^' || true)
echo "1..1"
if [ -n "$bad" ]; then
  echo "not ok 1 - symbols without the rp_ prefix are exported:"
  echo "$bad" | sed 's/^/# /'
  exit 1
fi
echo "ok 1 - all $n exported symbols start with rp_"
