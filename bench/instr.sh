#!/usr/bin/env bash
# bench/instr.sh [-b BUILD_DIR] ROW... - instructions per ray of rp_bench's
# scene rows, counted by valgrind's callgrind: a count that does not move
# when other work shares the machine, where a timed A/B of two builds can
# move by 10-60% from run to run (bench/README.md, "Instruction counts").
#
#   RP_BENCH_MESH_DIR=/path/to/data/meshes RP_BENCH_SCENE_X64=0 \
#     bench/instr.sh scene/avx2/diffuse/bunny scene/embree/diffuse/bunny
#
# prints, per row, the instructions executed inside the timed loop (only:
# the callgrind collection is switched on in raypack_trace, embree_trace
# and embree_trace16 of bench/scene_bench.cc, not in the mesh load, the
# builds or the primary pass that makes the shadow and diffuse rays) over
# one iteration, divided by the row's ray count.  Instructions are not
# time (a cache miss costs no instruction, a divide costs one), so this
# ranks changes to the work done per ray, not their speed: a change that
# cuts instructions still needs its timed rows, alternated, to be called
# faster.  BUILD_DIR (default build) holds a release rp_bench; each row
# runs under callgrind for about 10-60 s (the larger meshes longer).
# Needs valgrind and python3 (apt-get install valgrind python3; valgrind 3.19 runs AVX2, not AVX-512:
# the avx512 rows cannot be counted with it).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
if [ "${1:-}" = "-b" ]; then
  build="$2"
  shift 2
fi
if [ $# -eq 0 ]; then
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
command -v valgrind >/dev/null || { echo "instr.sh: valgrind not found (apt-get install valgrind)" >&2; exit 1; }
bin="$build/bench/rp_bench"
[ -x "$bin" ] || { echo "instr.sh: $bin not built (meson setup $build --buildtype=release; ninja -C $build bench/rp_bench)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-36s %14s %10s %12s\n' row instructions rays per_ray
for row in "$@"; do
  # the row alone, one iteration (min_time 0: Google Benchmark runs one
  # iteration and stops, as it is far above 0 s under callgrind)
  valgrind --tool=callgrind --collect-atstart=no \
    --toggle-collect='*raypack_trace*' --toggle-collect='*embree_trace*' \
    --callgrind-out-file="$tmp/cg.out" \
    "$bin" --benchmark_filter="^${row}\$" --benchmark_min_time=0 \
    --benchmark_format=json --benchmark_out="$tmp/out.json" >/dev/null 2>"$tmp/err" || {
    echo "instr.sh: $row: rp_bench failed:" >&2
    tail -5 "$tmp/err" >&2
    exit 1
  }
  ir=$(callgrind_annotate "$tmp/cg.out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  python3 - "$tmp/out.json" "$row" "${ir:-0}" <<'EOF'
import json, sys
path, row, ir = sys.argv[1], sys.argv[2], int(sys.argv[3])
runs = [b for b in json.load(open(path))["benchmarks"] if b.get("run_type") == "iteration"]
if not runs:
    sys.exit(f"instr.sh: {row}: no such row (rp_bench --benchmark_list_tests lists them)")
b = runs[0]
if b.get("error_occurred"):
    sys.exit(f"instr.sh: {row}: {b.get('error_message')}")
rays = b["rays"] * b["iterations"]
if not ir or not rays:
    sys.exit(f"instr.sh: {row}: nothing counted (instructions {ir}, rays {rays})")
print(f"{row:36s} {ir:14d} {int(rays):10d} {ir / rays:12.1f}")
EOF
done
