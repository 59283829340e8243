#!/usr/bin/env python3
"""plot.py - turns rp_bench's JSON (--benchmark_format=json or
--benchmark_out=FILE) into a PNG chart of ray-primitive tests per second by
kernel, shape and variant (baselines included), and prints a Markdown table:
kernel, shape, variant, Gtests/s, cyc/test, bound, vs autovec; then the scene
rows (scene/<variant>/<kind>/<mesh>: Mrays/s or Mtris/s, bytes/triangle and
the ratio to Embree's row of the same kind and mesh), which stay off the chart.

    python3 bench/plot.py bench/results/bench.json \
        --png bench/results/bench.png --md bench/results/table.md

Needs matplotlib (Debian: apt-get install python3-matplotlib) for the PNG
only; without it the table is still written.  Embree rows are end-to-end
(BVH): their "tests" are the brute-force tests the BVH made unnecessary.
"""
import argparse
import json
import sys

ORDER = ["naive", "scalar", "autovec-sse41", "autovec", "autovec-avx512", "sse41", "neon", "avx2",
         "avx512", "auto"]
# the autovec build each variant is compared with: the same ISA's (autovec
# is the -mavx2 build); NEON, the scalar rows and the baselines: autovec
SAME_ISA_AUTOVEC = {"sse41": "autovec-sse41", "avx2": "autovec", "avx512": "autovec-avx512"}


def variant_key(v):
    if v.startswith("embree"):
        return (len(ORDER), v)
    return (ORDER.index(v) if v in ORDER else len(ORDER) - 1, v)


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows, scene = [], []
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        if b.get("error_occurred"):
            continue
        name = b.get("run_name", b["name"])
        parts = name.split("/")
        if parts[0] == "scene" and len(parts) == 4:
            # scene/<variant>/<kind>/<mesh>: rays (or triangles, build) per second
            scene.append({
                "variant": parts[1], "kind": parts[2], "mesh": parts[3],
                "mps": b.get("Mtris_per_s" if parts[2] == "build" else "Mrays_per_s",
                             b.get("items_per_second", 0.0) * 1e-6),
                "bytes": b.get("bytes_per_tri"),
            })
            continue
        if parts[0] == "scene-pair" or len(parts) < 3:
            continue  # (the paired rows: bench/compare.py pairs)
        # kernel/variant/shape[/flags]: the flags (tri/avx2/packet/watertight)
        # stay with the shape, so those rows form their own group
        kernel, variant, shape = parts[0], parts[1], "/".join(parts[2:])
        rows.append({
            "kernel": kernel, "variant": variant, "shape": shape,
            "gtests": b.get("items_per_second", 0.0) * 1e-9,
            "cyc": b.get("cyc_per_test"),
            "bound": b.get("bound_cyc"),
            "vs_bound": b.get("vs_bound"),
            "label": b.get("label", ""),
            "ns_call": b.get("ns_per_call"),
        })
    return data.get("context", {}), rows, scene


SCENE_KINDS = ["build", "primary", "shadow", "diffuse"]


def scene_table(ctx, scene):
    """The scene rows: one line per mesh, kind and variant, with the ratios
    to Embree's rows (embree: rtcIntersect1/rtcOccluded1, embree-p16: the
    16-ray packets; embree-high has its own line for build)."""
    emb = {(r["mesh"], r["kind"]): r["mps"] for r in scene if r["variant"] == "embree"}
    e16 = {(r["mesh"], r["kind"]): r["mps"] for r in scene if r["variant"] == "embree-p16"}
    out = ["", "## Scenes (rp_scene_* and Embree 3, one thread)", "",
           "Mesh: %s; image %s. Build: Mtris/s; traces: Mrays/s."
           % (ctx.get("rp_scene_mesh", "?"), ctx.get("rp_scene_image", "?")), "",
           "| mesh | kind | variant | M/s | bytes/tri | vs embree | vs embree-p16 |",
           "|---|---|---|---:|---:|---:|---:|"]
    meshes = []
    for r in scene:
        if r["mesh"] not in meshes:
            meshes.append(r["mesh"])
    kind_key = lambda k: SCENE_KINDS.index(k) if k in SCENE_KINDS else len(SCENE_KINDS)
    key = lambda r: (meshes.index(r["mesh"]), kind_key(r["kind"]), variant_key(r["variant"]))
    for r in sorted(scene, key=key):
        e = emb.get((r["mesh"], r["kind"]))
        p = e16.get((r["mesh"], r["kind"]))
        out.append("| %s | %s | %s | %.3f | %s | %s | %s |" % (
            r["mesh"], r["kind"], r["variant"], r["mps"],
            ("%.1f" % r["bytes"]) if isinstance(r["bytes"], (int, float)) else "-",
            ("%.2fx" % (r["mps"] / e)) if e else "-", ("%.2fx" % (r["mps"] / p)) if p else "-"))
    return "\n".join(out) + "\n"


SIMD = ("sse41", "avx2", "avx512", "neon")


def table(ctx, rows):
    autos = {(r["kernel"], r["shape"], r["variant"]): r["gtests"] for r in rows
             if r["variant"].startswith("autovec")}
    out = []
    out.append("# raypack benchmarks")
    out.append("")
    out.append("CPU: %s; core clock %s GHz (add-chain calibration); triad %s GB/s; date %s; host %s"
               % (ctx.get("rp_cpu", "?"), ctx.get("rp_core_ghz", "?"), ctx.get("rp_triad_gbps", "?"),
                  ctx.get("date", "?"), ctx.get("host_name", "?")))
    out.append("")
    out.append("Native variants: %s. Bound: %s; `vs bound` = cyc/test / bound."
               % (ctx.get("rp_native_variants", "?"), ctx.get("rp_bound_model", "?")))
    la = ctx.get("load_avg")
    if la:
        out.append("Load average at start: %s (other processes on the cores make numbers noisy)."
                   % ", ".join("%.2f" % x for x in la))
    out.append("Embree rows are end-to-end (BVH over the same triangles), not kernel for kernel.")
    out.append("")
    out.append("Issue 13 column, SIMD variants only: `bound` = within 1.15x of the bound, "
               "`autovec` = at least 1.5x the tests per second of autovec built for the same ISA "
               "(`vs autovec`: sse41 against autovec-sse41, avx2 against autovec (-mavx2), avx512 "
               "against autovec-avx512; every other row against autovec) (1.0x for `slab/packet`, "
               "the 64-ray single-box call); `call/*/1x1`: at most 20 ns per call; "
               "`tri/8x8`: cyc/test at most 1.3x the same variant's `tri/packet` (64 x 256).")
    out.append("")
    out.append("| kernel | shape | variant | Gtests/s | cyc/test | bound | vs bound | vs autovec | issue 13 |")
    out.append("|---|---|---|---:|---:|---:|---:|---:|---|")
    key = lambda r: (r["kernel"], r["shape"], variant_key(r["variant"]))
    cyc = {(r["kernel"], r["shape"], r["variant"]): r["cyc"] for r in rows}
    yn = lambda ok: "yes" if ok else "**no**"
    for r in sorted(rows, key=key):
        av = SAME_ISA_AUTOVEC.get(r["variant"], "autovec")
        a = autos.get((r["kernel"], r["shape"], av)) or autos.get((r["kernel"], r["shape"], "autovec"))
        f = lambda x, fmt: (fmt % x) if isinstance(x, (int, float)) else "-"
        goal = "-"
        if r["kernel"] == "call" and r["shape"] == "1x1" and isinstance(r["ns_call"], (int, float)):
            goal = "%.1f ns/call: %s" % (r["ns_call"], yn(r["ns_call"] <= 20.0))
        elif r["kernel"] == "call" and isinstance(r["ns_call"], (int, float)):
            goal = "%.1f ns/call (checks alone)" % r["ns_call"]
        elif r["variant"] in SIMD:
            parts = []
            if isinstance(r["vs_bound"], (int, float)):
                parts.append("bound %s" % yn(r["vs_bound"] <= 1.15))
            if a:
                need = 1.0 if (r["kernel"], r["shape"]) == ("slab", "packet") else 1.5
                parts.append("autovec %s" % yn(r["gtests"] / a >= need))
            p = cyc.get((r["kernel"], "packet", r["variant"]))
            if r["shape"] == "8x8" and isinstance(r["cyc"], (int, float)) and p:
                parts.append("%.2fx packet %s" % (r["cyc"] / p, yn(r["cyc"] / p <= 1.3)))
            goal = ", ".join(parts) or "-"
        out.append("| %s | %s | %s | %.3f | %s | %s | %s | %s | %s |" % (
            r["kernel"], r["shape"], r["variant"], r["gtests"], f(r["cyc"], "%.2f"),
            f(r["bound"], "%.3f"), f(r["vs_bound"], "%.2f"),
            ("%.2fx" % (r["gtests"] / a)) if a else "-", goal))
    return "\n".join(out) + "\n"


def plot(ctx, rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib missing (apt-get install python3-matplotlib): no PNG", file=sys.stderr)
        return False
    groups = sorted({(r["kernel"], r["shape"]) for r in rows})
    variants = sorted({r["variant"] for r in rows}, key=variant_key)
    val = {(r["kernel"], r["shape"], r["variant"]): r["gtests"] for r in rows}
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(groups)), 5.5))
    width = 0.8 / max(1, len(variants))
    cmap = plt.get_cmap("tab10")
    for vi, v in enumerate(variants):
        xs, ys = [], []
        for gi, g in enumerate(groups):
            y = val.get((g[0], g[1], v))
            if y:
                xs.append(gi - 0.4 + width * (vi + 0.5))
                ys.append(y)
        hatch = "//" if v.startswith("embree") else (".." if v == "naive" or v.startswith("autovec") else "")
        ax.bar(xs, ys, width, label=v + (" (BVH, end-to-end)" if v.startswith("embree") else ""),
               color=cmap(vi % 10), hatch=hatch, edgecolor="black", linewidth=0.3)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(["%s\n%s" % g for g in groups])
    ax.set_yscale("log")
    ax.set_ylabel("ray-primitive tests per second (G, log scale)")
    ax.set_title("raypack kernels by variant, with baselines\n%s, %s GHz, %s"
                 % (ctx.get("rp_cpu", "?"), ctx.get("rp_core_ghz", "?"), ctx.get("date", "?")[:10]),
                 fontsize=10)
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("json")
    ap.add_argument("--png", help="write the chart here")
    ap.add_argument("--md", help="write the Markdown table here (it is printed in any case)")
    a = ap.parse_args()
    ctx, rows, scene = load(a.json)
    if not rows and not scene:
        print("plot.py: no benchmark rows in %s" % a.json, file=sys.stderr)
        return 1
    md = (table(ctx, rows) if rows else "# raypack benchmarks\n") + (scene_table(ctx, scene) if scene else "")
    sys.stdout.write(md)
    if a.md:
        with open(a.md, "w") as f:
            f.write(md)
    if a.png and rows:
        plot(ctx, rows, a.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
