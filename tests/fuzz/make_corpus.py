#!/usr/bin/env python3
"""make_corpus.py - writes the seed corpus of the differential fuzzer into
tests/fuzz/corpus/ (run from anywhere; deterministic, so re-running it gives
the same files).  The byte format is described at the top of rp_fuzz.c:
a 10-byte header, then values.  Byte 0 is kernel + 6 * environment, plus 42
for RP_WATERTIGHT (triangle kernels): seeds named wt_* set it.  Each seed covers a kernel with some odd
batch size, flags, pointer offsets, NaN mode or a hand-made edge case (origin
on a face, -0.0 direction, ties, shared edges); values not given come from
the target's PRNG, so short seeds still describe full batches.

Usage: python3 tests/fuzz/make_corpus.py [OUTDIR]
"""
import os
import struct
import sys

K = {"intersect_aabb": 0, "closest_aabb": 1, "closest_triangle": 2,
     "occluded_triangle": 3, "closest_sphere": 4, "closest_plane": 5}

# floating-point environments (tests/fpenv.h's order): byte 0 is
# kernel + 6 * environment (+ 42 for RP_WATERTIGHT)
FPENV = {"default": 0, "ftz": 1, "daz": 2, "flush": 3, "upward": 4,
         "downward": 5, "towardzero": 6}

# indices into rp_fuzz.c's table of special values
SP = {"0": 0, "-0": 1, "1": 2, "-1": 3, "inf": 4, "-inf": 5, "nan": 6,
      "-nan": 7, "snan": 10, "denorm": 13, "-denorm": 14, "fltmin": 17,
      "fltmax": 19, "-fltmax": 20, "half": 21, "2": 23, "1e-20": 27,
      "1e20": 28}


def header(kernel, n, count, active=0, cull=0, tnear_null=0, tfar_null=0,
           prefill=0, std=1, chunks=1, in_off=0, out_off=0, shift=31,
           nan_mode=0, aim=0, base=0, fpenv="default", wt=0):
    b3 = (active | cull << 1 | tnear_null << 2 | tfar_null << 3 |
          prefill << 4 | std << 5 | (chunks - 1) << 6)
    b4 = in_off | out_off << 4
    b5 = shift | nan_mode << 5 | aim << 7
    assert not wt or kernel in ("closest_triangle", "occluded_triangle")
    b0 = K[kernel] + len(K) * FPENV[fpenv] + len(K) * len(FPENV) * wt
    return bytes([b0, n, count, b3, b4, b5]) + struct.pack("<I", base)


def q(x):
    """x exactly, as a multiple of 0.25 in [-8, 8)."""
    k = int(round(x * 4))
    assert -32 <= k < 32 and k / 4 == x, x
    return bytes([k + 80])


def sp(name):
    return bytes([SP[name]])


def raw(x):
    return bytes([208]) + struct.pack("<f", x)


def v(x):
    """a value: special name, exact quarter, or raw float"""
    if isinstance(x, str):
        return sp(x)
    if float(x * 4).is_integer() and -8 <= x < 8:
        return q(x)
    return raw(x)


def vals(*xs):
    return b"".join(v(x) for x in xs)


def seeds():
    out = {}
    # PRNG-driven batches: every kernel, sizes around vector widths
    sizes = [1, 3, 4, 5, 7, 8, 15, 16, 17, 33, 63, 100]
    for name, k in K.items():
        for i, n in enumerate(sizes[k::2] if k else sizes):
            count = [1, 2, 5, 9, 16, 32][i % 6]
            out[f"{name}_n{n}_c{count}"] = header(
                name, n, count, active=i & 1, prefill=(i >> 1) & 1,
                std=(i + 1) & 1, chunks=1 + i % 4, in_off=i % 16,
                out_off=(3 * i) % 16, aim=1 - (i & 1), shift=(7 * i) % 32,
                base=0x9E3779B9, cull=(i >> 2) & 1)
    # NaN-filled batches (rays, primitives, everything), each kernel
    for name in K:
        for mode in (1, 2, 3):
            out[f"{name}_nan{mode}"] = header(name, 37, 7, nan_mode=mode,
                                              active=1, prefill=1, chunks=2)
    # intersect_aabb with tnear / tfar NULL
    out["intersect_aabb_null_outputs"] = header("intersect_aabb", 19, 1,
                                                tnear_null=1, tfar_null=1)
    out["intersect_aabb_null_tfar"] = header("intersect_aabb", 21, 1, tfar_null=1,
                                             std=0)
    # index_base leaving no room: RP_ERR_COUNT on every variant
    out["closest_triangle_base_overflow"] = header(
        "closest_triangle", 9, 8, shift=0, base=0xfffffffa)
    out["closest_sphere_base_max_ok"] = header(
        "closest_sphere", 9, 4, shift=0, base=0xfffffffb, aim=1)
    out["empty_batch"] = header("closest_plane", 0, 3)
    out["no_primitives"] = header("closest_aabb", 17, 0)

    # hand-made edge cases (origin ox oy oz, direction, [tmin tmax] std)
    unit_box = vals(-1, -1, -1, 1, 1, 1)
    # origin on the x = 1 face, parallel to it (0 * inf in the slab test);
    # -0.0 and +0.0 directions; a ray starting inside; an inverted box
    out["aabb_face_zero_dirs"] = (
        header("intersect_aabb", 5, 1) + unit_box +
        vals(1, 0, -3, 0, 0, 1) + vals(1, 0, -3, "-0", "-0", 1) +
        vals(0, 0, 0, 1, 0, 0) + vals(-1, -1, -1, "-0", 0, "-0") +
        vals(2, 0, 0, -1, "-0", 0))
    out["aabb_inverted_and_nan_box"] = (
        header("closest_aabb", 4, 3) + vals(1, 1, 1, -1, -1, -1) +
        vals("nan", -1, -1, 1, 1, 1) + unit_box +
        vals(0, 0, -5, 0, 0, 1) * 4)
    # boxes sharing a face: a tie on entry t goes to the lower index
    out["aabb_tie_lowest_index"] = (
        header("closest_aabb", 6, 3, chunks=3) + unit_box + unit_box +
        vals(-1, -1, -1, 1, 1, 3) + vals(0, 0, -4, 0, 0, 1) * 6)
    tri_a = vals(-1, -1, 0, 1, -1, 0, -1, 1, 0)
    tri_b = vals(1, -1, 0, 1, 1, 0, -1, 1, 0)
    # two triangles sharing an edge, rays through the edge, a vertex, both
    # sides, with culling on and off; duplicate triangle for an exact tie
    edge_rays = (vals(0, 0, -2, 0, 0, 1) + vals(0, 0, 2, 0, 0, -1) +
                 vals(-1, -1, -2, 0, 0, 1) + vals(0.5, -0.5, -2, 0, 0, 1) +
                 vals(1, 1, 2, "-0", 0, -1))
    for cull in (0, 1):
        out[f"triangle_shared_edge_cull{cull}"] = (
            header("closest_triangle", 5, 3, cull=cull) + tri_a + tri_b + tri_a +
            edge_rays)
        out[f"occluded_shared_edge_cull{cull}"] = (
            header("occluded_triangle", 5, 2, cull=cull) + tri_a + tri_b +
            edge_rays)
    # degenerate triangles (zero area, a point, NaN vertex) before a good one
    out["triangle_degenerate"] = (
        header("closest_triangle", 3, 4) + vals(0, 0, 0, 1, 1, 0, 2, 2, 0) +
        vals(0, 0, 0) * 3 + vals("nan", 0, 0, 1, 0, 0, 0, 1, 0) + tri_a +
        vals(-0.5, -0.5, -1, 0, 0, 1) * 3)
    # sphere: origin inside, tangent ray, negative and NaN radius, zero radius
    out["sphere_edges"] = (
        header("closest_sphere", 4, 4) + vals(0, 0, 0, 1) +
        vals(0, 0, 5, -1) + vals(0, 0, 5, "nan") + vals(3, 0, 0, 0) +
        vals(0, 0, 0, 0, 0, 1) + vals(1, 0, -3, 0, 0, 1) +
        vals(3, 0, -3, 0, 0, 1) + vals(0, 0, 9, "-0", 0, -1))
    # sphere roots exactly at tmin: origin on the surface going in (near
    # root 0) or out (far root 0), tmin = 0 and tmin = -inf
    on_surface = (vals(0, 0, -1, 0, 0, 1) + vals(1, 0, 0, 1, 0, 0) +
                  vals(0, -1, 0, 0, "-1", 0) + vals(0, 0, 1, 0, 0, 2))
    out["sphere_root_at_tmin"] = (
        header("closest_sphere", 4, 2) + vals(0, 0, 0, 1) + vals(0, 0, 0, 1) +
        on_surface)
    out["sphere_tmin_minus_inf"] = (
        header("closest_sphere", 4, 1, std=0) + vals(0, 0, 0, 1) +
        b"".join(on_surface[i * 6:(i + 1) * 6] + vals("-inf", "inf")
                 for i in range(4)))
    # planes: ray parallel (denominator exactly 0), in the plane, -0.0 normal
    out["plane_edges"] = (
        header("closest_plane", 4, 3) + vals(0, 0, 1, 2) + vals(0, 1, 0, 0) +
        vals("-0", 0, "-1", "-0") +
        vals(0, 0, 0, 1, 0, 0) + vals(0, 0, 2, 1, 1, 0) +
        vals(0, 0, 0, 0, 0, 1) + vals(0, 5, 5, 0, -1, -1))
    # extreme magnitudes: overflow to inf, denormal directions
    out["extreme_magnitudes"] = (
        header("closest_triangle", 3, 1) +
        vals("fltmax", "-fltmax", 0, "-fltmax", "fltmax", 0, 0, 0, "fltmax") +
        vals("denorm", 0, -1, "denorm", "-denorm", 1) +
        vals(0, 0, "-fltmax", 0, 0, "fltmax") +
        vals("1e20", "1e-20", 0, -1, 0, "1e-20"))
    # explicit tmin/tmax: empty interval, negative, NaN, tmin == tmax == t
    out["intervals"] = (
        header("closest_plane", 5, 1, std=0) + vals(0, 0, 1, 2) +
        vals(0, 0, 0, 0, 0, 1, 3, 1) + vals(0, 0, 0, 0, 0, 1, -1, -2) +
        vals(0, 0, 0, 0, 0, 1, "nan", 5) + vals(0, 0, 0, 0, 0, 1, 2, 2) +
        vals(0, 0, 0, 0, 0, 1, "-inf", "inf"))
    # every kernel in every non-default floating-point environment, with
    # intervals from the value stream (denormal tmin and tmax included)
    for env in FPENV:
        if env == "default":
            continue
        for name, k in K.items():
            out[f"fpenv_{env}_{name}"] = header(
                name, 21 + 4 * k, 5, std=0, aim=1, prefill=1, fpenv=env,
                in_off=k, out_off=3 * k % 16)
    # DAZ: a slab distance of exactly 0 against a denormal tmin (and tmax):
    # max(0, tmin) compares equal and must return what the reference's
    # maxss returns (tmin flushed to zero), at every optimisation level
    den_rays = (vals(-1, 0, 0, 1, 0, 0, "denorm", 5) +
                vals(1, 0, 0, -1, 0, 0, "-denorm", 5) +
                vals(0, -1, 0, 0, 1, 0, 0, "denorm") +
                vals(0, 0, 2, 0, 0, -1, "denorm", 1) +
                vals(0, 0, -1, "-0", 0, 1, "denorm", "denorm"))
    for env in ("daz", "flush"):
        out[f"fpenv_{env}_denormal_interval"] = (
            header("intersect_aabb", 5, 1, std=0, fpenv=env) + unit_box + den_rays)
        out[f"fpenv_{env}_denormal_interval_closest"] = (
            header("closest_aabb", 5, 2, std=0, fpenv=env) + unit_box + unit_box +
            den_rays)
    out.update(watertight_seeds())
    return out


def watertight_seeds():
    """RP_WATERTIGHT (b0 in [42, 84)) on both triangle kernels: PRNG
    batches aimed at triangles (vertices and edges included), culling on and
    off, NaN modes, environments, and closed meshes hit through shared edges
    and vertices, near edge-on triangles and far-away geometry (what the
    conservative box property rp_ref_slab_wt is about)."""
    out = {}
    tri_kernels = {"closest_triangle": "closest", "occluded_triangle": "occluded"}
    sizes = [(1, 1), (4, 2), (5, 3), (8, 5), (16, 9), (17, 16), (33, 32),
             (100, 7)]
    for name, short in tri_kernels.items():
        for i, (n, count) in enumerate(sizes):
            for cull in (0, 1):
                out[f"wt_{short}_n{n}_c{count}_cull{cull}"] = header(
                    name, n, count, wt=1, cull=cull, aim=1 if i != 3 else 0,
                    active=i & 1, prefill=(i >> 1) & 1, std=(i + 1) & 1,
                    chunks=1 + i % 4, in_off=(5 * i) % 16, out_off=(3 * i) % 16,
                    shift=(7 * i) % 32, base=0x9E3779B9)
        for mode in (1, 2, 3):
            out[f"wt_{short}_nan{mode}"] = header(
                name, 37, 7, wt=1, nan_mode=mode, active=1, prefill=1, chunks=2,
                cull=mode & 1)
        for env in ("ftz", "daz", "flush", "upward", "downward", "towardzero"):
            out[f"wt_{short}_fpenv_{env}"] = header(
                name, 29, 6, wt=1, std=0, aim=1, prefill=1, fpenv=env,
                cull=env in ("daz", "upward", "towardzero"), in_off=3, out_off=7)

    # two triangles sharing an edge (the seeds above without the flag): rays
    # through the edge, through a vertex, from both sides
    tri_a = vals(-1, -1, 0, 1, -1, 0, -1, 1, 0)
    tri_b = vals(1, -1, 0, 1, 1, 0, -1, 1, 0)
    edge_rays = (vals(0, 0, -2, 0, 0, 1) + vals(0, 0, 2, 0, 0, -1) +
                 vals(-1, -1, -2, 0, 0, 1) + vals(0.5, -0.5, -2, 0, 0, 1) +
                 vals(1, 1, 2, "-0", 0, -1) + vals(-3, -3, -3, 1, 1, 1.5) +
                 vals(0.1, 0.1, -7, -0.025, -0.025, 1))
    for cull in (0, 1):
        out[f"wt_triangle_shared_edge_cull{cull}"] = (
            header("closest_triangle", 7, 3, cull=cull, wt=1) + tri_a + tri_b +
            tri_a + edge_rays)
        out[f"wt_occluded_shared_edge_cull{cull}"] = (
            header("occluded_triangle", 7, 2, cull=cull, wt=1) + tri_a + tri_b +
            edge_rays)

    # a closed octahedron (vertices +-1 on the axes, faces wound outward):
    # rays from inside through vertices, edges and face centres must hit,
    # and rays from outside through a vertex or an edge
    octa = b""
    for sx in (1, -1):
        for sy in (1, -1):
            for sz in (1, -1):
                a, b, c = (sx, 0, 0), (0, sy, 0), (0, 0, sz)
                if sx * sy * sz < 0:
                    b, c = c, b
                octa += vals(*a, *b, *c)
    inside = (vals(0, 0, 0, 1, 0, 0) + vals(0, 0, 0, 0, -1, 0) +
              vals(0, 0, 0, 1, 1, 0) + vals(0, 0, 0, 1, -1, 0) +
              vals(0, 0, 0, -1, 0, 1) + vals(0, 0, 0, 1, 1, 1) +
              vals(0, 0, 0, 0.5, 0.25, -0.25) + vals(0.25, 0, 0, -1, 1, 0) +
              vals(0, 0.25, -0.25, 0, "-0", 1) + vals(0.5, 0.25, 0.25, 1, -1, -1))
    outside = (vals(-4, 0, 0, 1, 0, 0) + vals(3, 3, 0, -1, -1, 0) +
               vals(0, 2, 2, 0, -1, -1) + vals(-2, 0, 3, 1, 0, -1.5) +
               vals(5, 5, 5, -1, -1, -1) + vals(0, -3, 0, "-0", 1, 0))
    for cull in (0, 1):
        out[f"wt_octahedron_inside_cull{cull}"] = (
            header("closest_triangle", 10, 8, cull=cull, wt=1, chunks=3) +
            octa + inside)
        out[f"wt_octahedron_outside_cull{cull}"] = (
            header("occluded_triangle", 6, 8, cull=cull, wt=1) + octa + outside)

    # near edge-on triangles (the ray almost in their plane): t is a mean of
    # the vertices' kz distances, the case rp_ref_slab_wt's range test is for
    flat = vals(-1, -1, 0, 1, -1, 0, 0, 1, 0) + vals(-1, 0, -1, 1, 0, -1, 0, 0, 1)
    edge_on = (vals(-4, 0, 0, 1, 0, "1e-20") + vals(-4, 0.25, 2.0 ** -20, 1, 0, 0) +
               vals(0, -4, -2.0 ** -22, 0, 1, 2.0 ** -20) +
               vals(-4, 0, 2.0 ** -24, 1, 2.0 ** -10, -2.0 ** -24) +
               vals(-3, 0.5, 0, 1, -0.125, 2.0 ** -23) + vals(0, 0, 0, 1, 0, 0))
    for cull in (0, 1):
        out[f"wt_edge_on_cull{cull}"] = (
            header("closest_triangle", 6, 2, cull=cull, wt=1) + flat + edge_on)

    # far from the origin: a triangle pair sharing an edge around 2^20 and
    # 1e20-ish coordinates, rays from near and far (the pad's |o| + |box|)
    big = [1048576.0, 1048577.0, 1048578.0]
    far_tris = (vals(big[0], big[0], big[1], big[2], big[0], big[1], big[0], big[2], big[1]) +
                vals(big[2], big[0], big[1], big[2], big[2], big[1], big[0], big[2], big[1]))
    far_rays = (vals(big[1], big[1], 0, 0, 0, 1) +
                vals(0, 0, 0, big[1], big[1], big[1]) +
                vals(big[1], big[1], 2.0 * big[2], "-0", 0, -1) +
                vals(-big[2], 3, -7, 2.0 * big[1] + big[2], big[1] - 3, big[1] + 7))
    for cull in (0, 1):
        out[f"wt_far_shared_edge_cull{cull}"] = (
            header("closest_triangle", 4, 2, cull=cull, wt=1) + far_tris + far_rays)
    huge = (vals("1e20", 0, 0, 0, "1e20", 0, 0, 0, "1e20") +
            vals("fltmax", 0, 0, 0, "fltmax", 0, 0, 0, "fltmax"))
    huge_rays = (vals(0, 0, 0, 1, 1, 1) + vals(-1, -1, -1, 1, 1, 1) +
                 vals(0, 0, 0, "1e20", "1e20", "1e20") + vals(1, 1, 1, -1, -1, -1))
    out["wt_huge_triangles"] = (header("closest_triangle", 4, 2, wt=1) + huge +
                                huge_rays)
    # equal |d| components (kz is the first largest: x, then y, then z) and
    # -0.0 components, through the shared edge and vertex
    ties = (vals(-2, -2, -2, 1, 1, 1) + vals(2, 2, 2, -1, -1, -1) +
            vals(0, 0, -3, "-0", "-0", 1) + vals(-3, 0, -3, 1, "-0", 1) +
            vals(2, -1, -2, -1, 0, 1) + vals(1, 0, 1, -1, 0, -1))
    for cull in (0, 1):
        out[f"wt_kz_ties_cull{cull}"] = (
            header("occluded_triangle", 6, 2, cull=cull, wt=1) + tri_a + tri_b + ties)
    # degenerate triangles (zero area, a point, NaN vertex) before a good one
    out["wt_triangle_degenerate"] = (
        header("closest_triangle", 3, 4, wt=1) + vals(0, 0, 0, 1, 1, 0, 2, 2, 0) +
        vals(0, 0, 0) * 3 + vals("nan", 0, 0, 1, 0, 0, 0, 1, 0) + tri_a +
        vals(-0.5, -0.5, -1, 0, 0, 1) * 3)
    # extreme magnitudes: overflow to inf, denormal directions
    out["wt_extreme_magnitudes"] = (
        header("closest_triangle", 3, 1, wt=1) +
        vals("fltmax", "-fltmax", 0, "-fltmax", "fltmax", 0, 0, 0, "fltmax") +
        vals("denorm", 0, -1, "denorm", "-denorm", 1) +
        vals(0, 0, "-fltmax", 0, 0, "fltmax") +
        vals("1e20", "1e-20", 0, -1, 0, "1e-20"))
    # explicit intervals: t exactly tmin or tmax, empty, NaN (t = 2 here)
    out["wt_intervals"] = (
        header("occluded_triangle", 5, 1, std=0, wt=1) + tri_a +
        vals(-0.5, -0.5, -2, 0, 0, 1, 2, 3) + vals(-0.5, -0.5, -2, 0, 0, 1, 0, 2) +
        vals(-0.5, -0.5, -2, 0, 0, 1, 3, 1) + vals(-0.5, -0.5, -2, 0, 0, 1, "nan", 5) +
        vals(-0.5, -0.5, -2, 0, 0, 1, "-inf", 1.75))
    # DAZ / flush with denormal vertices and origins on the shared edge
    den_tris = (vals("denorm", "-denorm", 0, 1, "-denorm", 0, "denorm", 1, 0) +
                vals(1, "-denorm", 0, 1, 1, 0, "denorm", 1, 0))
    den_rays = (vals("denorm", 0, -1, 0, 0, 1) + vals(0, "-denorm", 1, 0, 0, -1) +
                vals(0.5, 0.5, -1, "denorm", "-denorm", 1) +
                vals(1, 1, 1, "-0", "denorm", -1))
    for env in ("daz", "flush", "ftz"):
        out[f"wt_fpenv_{env}_denormal_vertices"] = (
            header("closest_triangle", 4, 2, wt=1, fpenv=env) + den_tris + den_rays)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    os.makedirs(outdir, exist_ok=True)
    s = seeds()
    for name, data in sorted(s.items()):
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(s)} seeds to {outdir}")


if __name__ == "__main__":
    main()
