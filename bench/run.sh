#!/usr/bin/env bash
# bench/run.sh - the one command for the benchmark results:
#   bench/run.sh [BUILD_DIR] [extra rp_bench arguments...]
# configures BUILD_DIR (default build-bench) as a release build with every
# variant this machine can build, builds rp_bench, runs it (one thread;
# --benchmark_min_time=0.2 unless given) and writes
#   bench/results/bench.json  (Google Benchmark JSON, context: CPU, clock, date)
#   bench/results/bench.png   (tests per second by kernel, shape and variant)
#   bench/results/table.md    (kernel, shape, variant, Gtests/s, cyc/test, bound, vs autovec)
# Needs: libbenchmark-dev, a C++ compiler, python3-matplotlib (PNG only),
# libembree-dev (optional Embree baseline).  Run it on an idle machine:
# other processes on the same cores make every number noisy.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-bench}"
[ $# -gt 0 ] && shift
[ -f "$build/build.ninja" ] || meson setup "$build" --buildtype=release -Dbench=enabled
ninja -C "$build" bench/rp_bench
mkdir -p bench/results
args=("$@")
printf '%s\n' "${args[@]:-}" | grep -q -- '--benchmark_min_time' || args+=(--benchmark_min_time=0.2)
"$build/bench/rp_bench" --benchmark_out=bench/results/bench.json --benchmark_out_format=json "${args[@]}"
# Debian's python3 has python3-matplotlib; a pyenv python first on PATH may not
py=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import matplotlib' 2>/dev/null && py=/usr/bin/python3
"$py" bench/plot.py bench/results/bench.json --png bench/results/bench.png --md bench/results/table.md
echo "wrote bench/results/bench.json, bench/results/bench.png, bench/results/table.md"
