#!/usr/bin/env python3
"""make_corpus.py - writes the seed corpus of the differential fuzzer into
tests/fuzz/corpus/ (run from anywhere; deterministic, so re-running it gives
the same files).  The byte format is described at the top of rp_fuzz.c:
a 10-byte header, then values.  Each seed covers a kernel with some odd
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
# kernel + 6 * environment
FPENV = {"default": 0, "ftz": 1, "daz": 2, "flush": 3, "upward": 4,
         "downward": 5, "towardzero": 6}

# indices into rp_fuzz.c's table of special values
SP = {"0": 0, "-0": 1, "1": 2, "-1": 3, "inf": 4, "-inf": 5, "nan": 6,
      "-nan": 7, "snan": 10, "denorm": 13, "-denorm": 14, "fltmin": 17,
      "fltmax": 19, "-fltmax": 20, "half": 21, "2": 23, "1e-20": 27,
      "1e20": 28}


def header(kernel, n, count, active=0, cull=0, tnear_null=0, tfar_null=0,
           prefill=0, std=1, chunks=1, in_off=0, out_off=0, shift=31,
           nan_mode=0, aim=0, base=0, fpenv="default"):
    b3 = (active | cull << 1 | tnear_null << 2 | tfar_null << 3 |
          prefill << 4 | std << 5 | (chunks - 1) << 6)
    b4 = in_off | out_off << 4
    b5 = shift | nan_mode << 5 | aim << 7
    b0 = K[kernel] + len(K) * FPENV[fpenv]
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
