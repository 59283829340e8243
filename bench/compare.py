#!/usr/bin/env python3
"""bench/compare.py - tables from rp_bench's JSON output, as the README's.

    bench/compare.py ab OUTDIR              # the alternated runs of bench/ab.sh
    bench/compare.py scenes FILE.json ...   # the scene rows as a markdown table
    bench/compare.py kernels FILE.json ...  # the kernel rows as the README's table
    bench/compare.py pairs FILE.json ...    # the scene-pair rows: raypack over Embree

ab: OUTDIR holds A1.json, B1.json, A2.json, ... (bench/ab.sh writes them:
two builds run in turns on one pinned core).  For every row it prints each
side's per-run values and their median, and B's median over A's.  The
value of a row is its median repetition's counter: Mrays_per_s for scene
trace rows, Mtris_per_s for scene builds, cyc_per_test for kernel rows,
ns_per_call for call rows, else the real time.  A scene row of a raypack
variant is divided by the Embree row of the same kind and mesh *in the same
run* (scene/embree/<kind>/<mesh>), so that the machine's drift between
runs cancels: on a shared VM a row moves by 10-20% from run to run, the
ratio much less.  So for scene rows B/A > 1 means B is faster; for cycle
and nanosecond rows B/A < 1 does.

scenes: one markdown table row per mesh and ray kind (primary, shadow,
diffuse), with a column per raypack variant found (packets, then -ray, then
-mt), Embree's rtcIntersect1 and 16-wide rows, and the ratios of the AVX2
and AVX-512 packet rows and of the best watertight raypack column over
rtcIntersect1 (and the best over Embree's 16-wide packets); several files:
each Mrays/s cell is the median over the files, each ratio the median of
the files' own ratios (each taken within one run).  Ratios at or above 1.0
are bold.
Then the build rows (Mtris/s), if present.

kernels: the README's kernel table (cycles per test, the median over the
files; in brackets the ratio to bench/bound.c's bound and the range over
the files of the speed-up over the autovec build of the same ISA: sse41
over autovec-sse41, avx2 over autovec, avx512 over autovec-avx512), which
rows are within 1.15x of their bound and which are 1.5x their autovec
(1.0x for the 64-ray single-box call), then issue 13's small-call goals.
The files: runs of `bench/run.sh` (or rp_bench with --benchmark_out)
over the kernel rows, with repetitions.

pairs: the scene-pair/<variant>/<peer>/<kind>/<mesh> rows (raypack and
Embree traced in turns within one row, bench/scene_bench.cc): per row, each
file's ratio (Embree's CPU time over raypack's: > 1 when raypack is
faster; a file's median repetition when there are repetitions), the median
over the files, and the range of the single iterations' ratios over every
file.  Ratios at or above 1.0 are bold.
"""
import collections
import glob
import json
import math
import os
import re
import statistics
import sys

KINDS = ("primary", "shadow", "diffuse")


def values(path):
    """{run_name: value} of one rp_bench JSON file (median aggregates when
    there are repetitions, else the single run)."""
    with open(path) as f:
        d = json.load(f)
    out, plain = {}, {}
    for b in d.get("benchmarks", []):
        name = b.get("run_name", b["name"])
        v = None
        for c in ("ratio", "Mrays_per_s", "Mtris_per_s", "Mhits_per_s", "cyc_per_test", "ns_per_call"):
            if c in b:
                v = b[c]
                break
        if v is None:
            v = b.get("real_time")
        if b.get("aggregate_name") == "median":
            out[name] = v
        elif b.get("run_type", "iteration") == "iteration":
            plain.setdefault(name, v)
    for k, v in plain.items():
        out.setdefault(k, v)
    return out


def split_scene(name):
    """scene/<variant>/<kind>/<mesh> -> (variant, kind, mesh), else None"""
    p = name.split("/")
    if len(p) == 4 and p[0] == "scene":
        return p[1], p[2], p[3]
    return None


def normalized(vals):
    """raypack scene trace rows over Embree's row of the same kind and mesh"""
    out = {}
    for n, v in vals.items():
        s = split_scene(n)
        if s and s[1] in KINDS and not s[0].startswith("embree"):
            e = vals.get(f"scene/embree/{s[1]}/{s[2]}")
            out[n] = v / e if e else v
        else:
            out[n] = v
    return out


def cmd_ab(outdir):
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    files = sorted(glob.glob(os.path.join(outdir, "[AB]*.json")),
                   key=lambda p: (int(re.sub(r"\D", "", os.path.basename(p)) or 0), p))
    if not files:
        sys.exit(f"compare.py: no A*.json or B*.json in {outdir}")
    for f in files:
        side = os.path.basename(f)[0]
        for n, v in normalized(values(f)).items():
            runs[n][side].append(v)
    w = max(len(n) for n in runs)
    print(f"{'row':<{w}}  A (per run; median)  B (per run; median)  B/A")
    print("(scene trace rows: raypack over Embree's row of the same run; "
          "other rows: their counter)")
    for n in sorted(runs):
        cols = []
        for side in "AB":
            xs = runs[n].get(side, [])
            cols.append(" ".join(f"{x:.3g}" for x in xs) +
                        (f" ({statistics.median(xs):.3g})" if xs else " -"))
        a, b = runs[n].get("A"), runs[n].get("B")
        r = f"{statistics.median(b) / statistics.median(a):.3f}" if a and b else "-"
        print(f"{n:<{w}}  {cols[0]}  {cols[1]}  {r}")


def fmt(x):
    return "–" if x is None else f"{x:.3g}"


def ratio(rs):
    """the median of per-file ratios (None where a file lacks a row)"""
    rs = [r for r in rs if r is not None]
    if not rs:
        return "–"
    r = statistics.median(rs)
    s = f"{r:.2f}x"
    return f"**{s}**" if r >= 1.0 else s


def cmd_scenes(paths):
    per = [values(p) for p in paths]
    cell = {}
    names = set().union(*[set(v) for v in per])
    for n in names:
        xs = [v[n] for v in per if n in v]
        cell[n] = statistics.median(xs)
    variants, meshes = [], []
    for n in sorted(names):
        s = split_scene(n)
        if not s or s[1] not in KINDS:
            continue
        if s[0] not in variants and not s[0].startswith("embree"):
            variants.append(s[0])
        if s[2] not in meshes:
            meshes.append(s[2])

    def order(v):
        base, _, suffix = v.partition("-")
        rank = {"": 0, "ray": 1, "packet": 2, "mt": 3}.get(suffix, 4)
        isa = {"scalar": 0, "auto": 5, "sse41": 1, "neon": 1, "avx2": 2, "avx512": 3}.get(base, 4)
        return (rank, isa, v)

    variants.sort(key=order)
    variants = [v for v in variants if v not in ("scalar", "auto") and not v.endswith("-packet")]
    meshes.sort(key=lambda m: (len(m), m))
    wt = [v for v in variants if not v.endswith("-mt")]
    head = variants + ["Embree `rtcIntersect1`", "Embree 16-wide", "avx2 vs 1", "avx512 vs 1",
                       "best vs 1", "best vs 16"]
    print("| mesh, kind | " + " | ".join(head) + " |")
    print("|---|" + "---:|" * len(head))
    for m in meshes:
        for k in KINDS:
            row = [cell.get(f"scene/{v}/{k}/{m}") for v in variants]
            if all(x is None for x in row):
                continue
            e1 = cell.get(f"scene/embree/{k}/{m}")
            e16 = cell.get(f"scene/embree-p16/{k}/{m}")

            def per_file(num, den):
                out = []
                for v in per:
                    x = num(v)
                    d = v.get(f"scene/{den}/{k}/{m}")
                    out.append(x / d if x is not None and d else None)
                return out

            def best(v):
                xs = [v[f"scene/{w}/{k}/{m}"] for w in wt if f"scene/{w}/{k}/{m}" in v]
                return max(xs) if xs else None

            label = ("bunny" if m == "bunny" else m.replace("bunny_", "")) + " " + k
            print(f"| {label} | " + " | ".join(fmt(x) for x in row) +
                  f" | {fmt(e1)} | {fmt(e16)} | "
                  f"{ratio(per_file(lambda v: v.get(f'scene/avx2/{k}/{m}'), 'embree'))} | "
                  f"{ratio(per_file(lambda v: v.get(f'scene/avx512/{k}/{m}'), 'embree'))} | "
                  f"{ratio(per_file(best, 'embree'))} | {ratio(per_file(best, 'embree-p16'))} |")
    if any(split_scene(n) and split_scene(n)[0] == "embree-high" and split_scene(n)[1] in KINDS
           for n in names):
        # issue 11's "trace speed at least Embree's HIGH": the HIGH scene is
        # not robust (Embree 3 builds robust scenes at MEDIUM), so raypack's
        # Moller-Trumbore rows (no RP_WATERTIGHT) are the like for like
        mt = [v for v in variants if v.endswith("-mt")]
        print()
        print("| mesh, kind | " + " | ".join(wt + mt) + " | Embree HIGH | best watertight vs HIGH"
              " | best Moller-Trumbore vs HIGH |")
        print("|---|" + "---:|" * (len(wt) + len(mt) + 3))
        for m in meshes:
            for k in KINDS:
                eh = cell.get(f"scene/embree-high/{k}/{m}")
                if eh is None:
                    continue

                def best_of(vs, v):
                    xs = [v[f"scene/{w}/{k}/{m}"] for w in vs if f"scene/{w}/{k}/{m}" in v]
                    return max(xs) if xs else None

                def per_high(vs):
                    out = []
                    for v in per:
                        x, d = best_of(vs, v), v.get(f"scene/embree-high/{k}/{m}")
                        out.append(x / d if x is not None and d else None)
                    return out

                label = ("bunny" if m == "bunny" else m.replace("bunny_", "")) + " " + k
                print(f"| {label} | " + " | ".join(fmt(cell.get(f"scene/{v}/{k}/{m}")) for v in wt + mt) +
                      f" | {fmt(eh)} | {ratio(per_high(wt))} | {ratio(per_high(mt)) if mt else '-'} |")
    builds = sorted(n for n in names if split_scene(n) and split_scene(n)[1] == "build")
    if builds:
        print()
        print("| build | Mtris/s |")
        print("|---|---:|")
        for n in builds:
            print(f"| {n} | {fmt(cell[n])} |")
    if len(paths) > 1:
        print(f"\n(Mrays/s: the median over {len(paths)} files; ratios: the median of "
              "each file's ratio)")


KERNEL_ROWS = (
    ("aabb", "packet", "ray-box, closest of 256 (64-ray packets)"),
    ("aabb", "octant", "ray-box, closest of 256, one octant"),
    ("aabb", "pick", "ray-box picking, 1 x 10,000"),
    ("slab", "packet", "slab, 64 rays x 1 box per call (`slab/packet`)"),
    ("slab", "stream", "slab stream, 1M rays x 1 box"),
    ("tri", "packet", "ray-triangle, closest of 256 (64-ray packets)"),
    ("tri", "64x64", "ray-triangle, 64 x 64 closest"),
    ("occluded", "64x64", "occlusion, 64 x 64"),
    ("tri", "pick", "ray-triangle picking, 1 x 10,000"),
    ("sphere", "packet", "ray-sphere, closest of 256"),
    ("tri", "8x8", "ray-triangle, 8 x 8 closest (small call)"),
)
OWN_AUTOVEC = {"sse41": "autovec-sse41", "avx2": "autovec", "avx512": "autovec-avx512"}


def raw(path):
    """{run_name: benchmark dict} of one file's median aggregates"""
    with open(path) as f:
        d = json.load(f)
    out = {}
    for b in d.get("benchmarks", []):
        if b.get("aggregate_name", "median") == "median":
            out[b.get("run_name", b["name"])] = b
    return out


def rng(xs, fmt="{:.2f}"):
    xs = sorted(xs)
    if not xs:
        return "–"
    a, b = fmt.format(xs[0]), fmt.format(xs[-1])
    return a if a == b else f"{a}-{b}"


def cmd_kernels(paths):
    runs = [raw(p) for p in paths]

    def cyc(v, name):
        b = v.get(name)
        return b.get("cyc_per_test") if b else None

    def med(name, key="cyc_per_test"):
        xs = [v[name][key] for v in runs if name in v and key in v[name]]
        return statistics.median(xs) if xs else None

    cols = ["scalar", "autovec-sse41", "autovec", "autovec-avx512", "sse41", "avx2", "avx512"]
    print("| kernel (shape) | " + " | ".join(cols) + " | at bound (≤ 1.15x) | ≥ 1.5x its autovec |")
    print("|---|" + "---:|" * len(cols) + "---|---|")
    for k, shape, label in KERNEL_ROWS:
        cells, atb, fast = [], [], []
        for v in cols:
            name = f"{k}/{v}/{shape}"
            c = med(name)
            if c is None:
                cells.append("–")
                continue
            if v not in OWN_AUTOVEC:
                cells.append(f"{c:.3g}")
                continue
            vb = med(name, "vs_bound")
            ups = [cyc(r, f"{k}/{OWN_AUTOVEC[v]}/{shape}") / cyc(r, name) for r in runs
                   if cyc(r, name) and cyc(r, f"{k}/{OWN_AUTOVEC[v]}/{shape}")]
            parts = [f"{vb:.2f}"] if vb is not None else []
            if ups:
                parts.append(rng(ups) + "x")
            cells.append(f"{c:.3g}" + (f" ({', '.join(parts)})" if parts else ""))
            if vb is not None and vb <= 1.15:
                atb.append(v)
            goal = 1.0 if k == "slab" and shape == "packet" else 1.5
            met = sum(u >= goal for u in ups)
            if ups and met == len(ups):
                fast.append(v)
            elif met:
                fast.append(f"{v} in {met} run{'s' if met > 1 else ''} of {len(ups)}")
        print(f"| {label} | " + " | ".join(cells) + f" | {', '.join(atb) or 'none'} | "
              f"{'; '.join(fast) or 'none'} |")
    print()
    print("| row | sse41 | avx2 | avx512 | goal |")
    print("|---|---:|---:|---:|---|")

    def per_run(f):
        return [f(r) for r in runs]

    line = []
    for v in ("sse41", "avx2", "avx512"):
        xs = [r[f"call/{v}/1x1"]["ns_per_call"] for r in runs if f"call/{v}/1x1" in r]
        line.append(rng(xs, "{:.1f}"))
    print("| `call/<variant>/1x1`, ns per public call | " + " | ".join(line) + " | ≤ 20 ns |")
    line = []
    for v in ("sse41", "avx2", "avx512"):
        xs = [r[f"call/{v}/1x0"]["ns_per_call"] for r in runs if f"call/{v}/1x0" in r]
        line.append(rng(xs, "{:.1f}"))
    print("| `call/<variant>/1x0`, checks and dispatch, ns | " + " | ".join(line) + " | – |")
    line = []
    for v in ("sse41", "avx2", "avx512"):
        xs = [cyc(r, f"slab/{OWN_AUTOVEC[v]}/packet") / cyc(r, f"slab/{v}/packet") for r in runs
              if cyc(r, f"slab/{v}/packet") and cyc(r, f"slab/{OWN_AUTOVEC[v]}/packet")]
        line.append(", ".join(f"{x:.2f}" for x in xs))
    print("| `slab/<variant>/packet` vs its autovec (per run) | " + " | ".join(line) +
          " | ≥ 1.0x |")
    line = []
    for v in ("sse41", "avx2", "avx512"):
        xs = [cyc(r, f"tri/{v}/8x8") / cyc(r, f"tri/{v}/packet") for r in runs
              if cyc(r, f"tri/{v}/8x8") and cyc(r, f"tri/{v}/packet")]
        line.append(", ".join(f"{x:.2f}" for x in xs))
    print("| `tri/8x8` ÷ `tri/packet` cyc/test (per run) | " + " | ".join(line) + " | ≤ 1.3 |")
    print(f"\n(cyc/test: the median over {len(paths)} runs; in brackets the median ratio to "
          "the bound and the range over the runs of the speed-up over the autovec build of "
          "the same ISA)")


def cmd_pairs(paths):
    rows = collections.OrderedDict()  # name -> [per-file ratio]
    spread = {}  # name -> [min, max] over the iterations of every file
    for path in paths:
        for name, v in values(path).items():
            if name.startswith("scene-pair/"):
                rows.setdefault(name, []).append(v)
        with open(path) as f:
            bench = json.load(f).get("benchmarks", [])
        for b in bench:
            name = b.get("run_name", b["name"])
            if name.startswith("scene-pair/") and b.get("run_type", "iteration") == "iteration" \
                    and "ratio_min" in b:
                lo, hi = spread.get(name, [math.inf, 0.0])
                spread[name] = [min(lo, b["ratio_min"]), max(hi, b["ratio_max"])]
    if not rows:
        sys.exit("compare.py pairs: no scene-pair rows in " + " ".join(paths))
    print(f"| row (raypack variant / Embree row / kind / mesh) | per file | median of {len(paths)} "
          "| single iterations |")
    print("|---|---|---:|---|")
    for name, rs in rows.items():
        m = statistics.median(rs)
        cell = f"**{m:.2f}x**" if m >= 1.0 else f"{m:.2f}x"
        sp = spread.get(name)
        sps = f"{sp[0]:.2f}-{sp[1]:.2f}" if sp else ""
        print(f"| `{name[len('scene-pair/'):]}` | {', '.join(f'{r:.3f}' for r in rs)} | {cell} | {sps} |")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "ab":
        cmd_ab(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "scenes":
        cmd_scenes(sys.argv[2:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "kernels":
        cmd_kernels(sys.argv[2:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "pairs":
        cmd_pairs(sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
