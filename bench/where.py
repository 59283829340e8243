#!/usr/bin/env python3
"""bench/where.py - where a scene row's time goes, by inlined function.

    bench/where.py [-b BUILD_DIR] [--seconds S] [--lines N] ROW [FUNC,...]

runs rp_bench's ROW alone under `perf record -e cpu-clock` (a timer, so it
works in VMs without hardware counters) pinned to CPU 0, and prints the
share of all samples that land in libraypack, grouped by the innermost
function of each sample's inline chain (`addr2line -i`) that is in FUNC
(a comma-separated list; default: the traversal's own functions below), or
else the outermost one; with --lines N, the N source lines of
src/scene/traverse_*.h with the most samples.  Unlike bench/instr.sh's
instruction counts, this is time: cache misses and a chain of dependent
loads show up where the load's result is first used.  (One measure of the
difference, Sapphire Rapids, 2026-11-26: running the one-ray walk's per-ray
set-up twice, about 230 more instructions per ray, cost the avx2-ray rows
0-1% in time.)  The samples include the row's set-up (mesh, build, primary
rays: build_loop, bin_range and the like), a few percent.

BUILD_DIR (default build-prof) must be a release build with debug
information and the bench enabled, for example:

    meson setup build-prof -Dbench=enabled -Dbuildtype=release -Dc_args=-g
    ninja -C build-prof
    RP_BENCH_MESH_DIR=/tmp/cgal/data/meshes RP_BENCH_SCENE_X64=0 \\
      bench/where.py scene/avx2-ray/diffuse/bunny_x16

Needs perf (apt-get install linux-perf) and binutils.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

DEFAULT_FUNCS = (
    "qray_nodeN,qray_block_k,qray_tplane_k,qray_setup,qray_leaf,qray_finish,"
    "scene_ray_walk,lone_walk,rp_scene_prefetch,rp_ref_wt_eval,packet_walk,scene_packet,"
    "box_test_at,lane_nodes,node_short,vf_hmin,wt_pick_sel,wt_pick_strided,wt_cand,"
    "tri_late,scene_accept")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-b", dest="build", default="build-prof")
    ap.add_argument("--seconds", type=float, default=3.0, help="--benchmark_min_time")
    ap.add_argument("--lines", type=int, default=0)
    ap.add_argument("row")
    ap.add_argument("funcs", nargs="?", default=DEFAULT_FUNCS)
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    os.chdir(os.path.dirname(here))
    bench = os.path.join(a.build, "bench", "rp_bench")
    lib = os.path.join(a.build, "src", "libraypack.so.0.1.0")
    for p in (bench, lib):
        if not os.path.exists(p):
            sys.exit(f"where.py: {p} not found (see the set-up in bench/where.py's help)")
    want = set(a.funcs.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        r = subprocess.run(["taskset", "-c", "0", "perf", "record", "-q", "-e", "cpu-clock",
                            "-F", "5000", "-o", data, bench,
                            f"--benchmark_filter=^{a.row}$",
                            f"--benchmark_min_time={a.seconds}"],
                           capture_output=True, text=True)
        rows = [l for l in r.stdout.splitlines() if l.startswith(a.row)]
        if r.returncode or not rows:
            sys.exit(f"where.py: {a.row}: no such row or rp_bench failed:\n{r.stderr[-800:]}")
        print(rows[0])
        out = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,symoff,dso"],
                             capture_output=True, text=True).stdout
    # symbol addresses in the file, to turn run-time addresses into file ones
    nm = {}
    for l in subprocess.run(["nm", lib], capture_output=True, text=True).stdout.splitlines():
        p = l.split()
        if len(p) == 3:
            nm[p[2]] = int(p[0], 16)
    total, base, hits = 0, None, collections.Counter()
    for l in out.splitlines():
        m = re.search(r"([0-9a-f]+) (\S+)\+0x([0-9a-f]+) \((\S+)\)", l)
        if not m:
            continue
        total += 1
        if "libraypack" not in m.group(4):
            continue
        if base is None and m.group(2).startswith("rp_") and m.group(2) in nm:
            base = int(m.group(1), 16) - nm[m.group(2)] - int(m.group(3), 16)
        hits[int(m.group(1), 16)] += 1
    if base is None or not total:
        sys.exit("where.py: no samples in libraypack")
    addrs = sorted(hits)
    a2l = subprocess.run(["addr2line", "-a", "-i", "-f", "-e", lib],
                         input="\n".join(hex(x - base) for x in addrs),
                         capture_output=True, text=True).stdout.splitlines()
    chains, cur, i = {}, None, 0
    while i < len(a2l):  # 0xADDR, then (function, file:line) pairs, innermost first
        if a2l[i].startswith("0x"):
            cur = int(a2l[i], 16) + base
            chains[cur] = []
            i += 1
        elif cur is not None and i + 1 < len(a2l):
            chains[cur].append((a2l[i], a2l[i + 1].split("/")[-1].split(" ")[0]))
            i += 2
        else:
            i += 1
    by, by_line = collections.Counter(), collections.Counter()
    for x, c in hits.items():
        ch = chains.get(x, [])
        key = next((f for f, _ in ch if f in want), ch[-1][0] if ch else "?")
        by[key] += c
        line = next((ln for _, ln in ch if ln.startswith("traverse_")), None)
        if line:
            by_line[line] += c
    print(f"{total} samples, {100.0 * sum(hits.values()) / total:.1f}% in libraypack")
    for k, c in by.most_common(25):
        print(f"{100.0 * c / total:6.2f}%  {k}")
    for k, c in by_line.most_common(a.lines):
        print(f"{100.0 * c / total:6.2f}%  {k}")


if __name__ == "__main__":
    main()
