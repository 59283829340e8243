#!/usr/bin/env bash
# bench/ab.sh - two builds of rp_bench timed in turns on one pinned core,
# the method behind every "alternated runs" figure in the README and in
# docs/PERFORMANCE-LOG.md:
#
#   bench/ab.sh snapshot BUILD_DIR DIR      # copy BUILD_DIR's rp_bench and
#                                           # libraypack into DIR (a frozen side)
#   bench/ab.sh run [-n ROUNDS] [-c CPU] [-o OUTDIR] A B [rp_bench args...]
#
# run: A and B are snapshot directories (or build directories), each with
# bench/rp_bench; rounds (default 3) of A then B, each pinned to CPU
# (default 0) with taskset, writing OUTDIR/A1.json, B1.json, ... (default
# OUTDIR: bench/results/ab), then bench/compare.py ab OUTDIR prints each
# row's per-run values, medians and B/A, scene rows over Embree's row of
# the same run.  The rp_bench arguments default to
# --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
# --benchmark_min_time=0.3; give a --benchmark_filter.  Scene rows need the
# mesh (RP_BENCH_MESH_DIR, bench/README.md).  Do not compile while it runs:
# a build on the other core moves the timings.
#
# Example: the working tree against HEAD on the scene rows at 1.2M triangles
#   git stash; ninja -C build-bench; bench/ab.sh snapshot build-bench /tmp/A
#   git stash pop; ninja -C build-bench; bench/ab.sh snapshot build-bench /tmp/B
#   RP_BENCH_MESH_DIR=/tmp/cgal/data/meshes RP_BENCH_SCENE_X64=0 bench/ab.sh run /tmp/A /tmp/B \
#     --benchmark_filter='^scene/(avx2|avx512|embree)/(shadow|diffuse)/bunny_x16$'
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
case "$1" in
snapshot)
    [ $# -eq 3 ] || usage
    src="$2" dst="$3"
    [ -x "$src/bench/rp_bench" ] || { echo "ab.sh: $src/bench/rp_bench not built" >&2; exit 1; }
    mkdir -p "$dst/bench" "$dst/src"
    cp "$src/bench/rp_bench" "$dst/bench/"
    # rp_bench finds the library by its RUNPATH, $ORIGIN/../src
    cp -L "$src/src/libraypack.so.0" "$dst/src/"
    echo "ab.sh: $dst holds $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo ?)'s tree as built in $src"
    ;;
run)
    shift
    rounds=3 cpu=0 out=bench/results/ab
    while getopts "n:c:o:" o; do
        case "$o" in
        n) rounds="$OPTARG" ;;
        c) cpu="$OPTARG" ;;
        o) out="$OPTARG" ;;
        *) usage ;;
        esac
    done
    shift $((OPTIND - 1))
    [ $# -ge 2 ] || usage
    a="$1" b="$2"
    shift 2
    args=("$@")
    for d in "$a" "$b"; do
        [ -x "$d/bench/rp_bench" ] || { echo "ab.sh: no $d/bench/rp_bench" >&2; exit 1; }
    done
    printf '%s\n' "${args[@]:-}" | grep -q -- '--benchmark_repetitions' ||
        args+=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
    printf '%s\n' "${args[@]:-}" | grep -q -- '--benchmark_min_time' ||
        args+=(--benchmark_min_time=0.3)
    mkdir -p "$out"
    rm -f "$out"/A*.json "$out"/B*.json
    for r in $(seq 1 "$rounds"); do
        for side in A B; do
            d="$a"
            [ "$side" = B ] && d="$b"
            echo "ab.sh: round $r of $rounds, $side ($d)" >&2
            taskset -c "$cpu" "$d/bench/rp_bench" "${args[@]}" \
                --benchmark_out="$out/$side$r.json" --benchmark_out_format=json >/dev/null
        done
    done
    python3 "$here/compare.py" ab "$out"
    ;;
*)
    usage
    ;;
esac
