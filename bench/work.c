/*
 * work.c - the benchmark workloads: for each kernel and shape, a ray batch
 * and a set of primitives drawn from a fixed seed (so every implementation
 * and every run sees the same data), one iteration through raypack's public
 * API, and a digest of the results that lets the drivers check that the
 * baselines did the same work.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

const unsigned rpb_flagsets[RPB_FLAGSET_COUNT] = {0u, RP_WATERTIGHT};

const char *rpb_flags_name(unsigned flags) {
    switch (flags) {
    case 0: return "";
    case RP_WATERTIGHT: return "watertight";
    default: return "?";
    }
}

const char *rpb_kernel_name(rpb_kernel k) {
    static const char *const n[RPB_KERNEL_COUNT] = {"aabb", "slab", "tri", "occluded", "sphere"};
    return (unsigned)k < RPB_KERNEL_COUNT ? n[k] : "?";
}

const char *rpb_shape_name(rpb_shape s) {
    static const char *const n[RPB_SHAPE_COUNT] = {"packet", "stream", "pick", "64x64", "8x8",
                                                         "octant"};
    return (unsigned)s < RPB_SHAPE_COUNT ? n[s] : "?";
}

void rpb_shape_size(rpb_shape s, int quick, size_t *nrays, size_t *nprims) {
    switch (s) {
    case RPB_PACKET: case RPB_OCTANT: *nrays = 64; *nprims = 256; break;
    case RPB_STREAM: *nrays = quick ? 65536 : 1u << 20; *nprims = 1; break;
    case RPB_PICK: *nrays = 1; *nprims = quick ? 1000 : 10000; break;
    case RPB_TINY: *nrays = 8; *nprims = 8; break;
    default: *nrays = 64; *nprims = 64; break;
    }
}

/* Issue #4: packet for boxes (closest and per-box slab), triangles and
 * spheres; stream for the slab; picking for boxes and triangles; 64 x 64
 * closest hit (and any hit, to compare with rtcOccluded).  The watertight
 * test: triangle packets, triangle picking and 64 x 64 any hit.  Issue 13:
 * 8 x 8 closest triangles, a small call whose per-test cost is compared
 * with the packet's (the slab packet is already 256 calls of 64 rays x one
 * box), and box packets whose rays share an octant (the planes chosen once
 * per packet). */
int rpb_case_wanted(rpb_kernel k, rpb_shape s, unsigned flags) {
    if (flags == RP_WATERTIGHT)
        return (k == RPB_TRI && (s == RPB_PACKET || s == RPB_PICK)) ||
               (k == RPB_OCCL && s == RPB_SMALL);
    if (flags != 0)
        return 0;
    switch (k) {
    case RPB_AABB: return s == RPB_PACKET || s == RPB_PICK || s == RPB_OCTANT;
    case RPB_SLAB: return s == RPB_PACKET || s == RPB_STREAM;
    case RPB_TRI: return s == RPB_PACKET || s == RPB_PICK || s == RPB_SMALL || s == RPB_TINY;
    case RPB_OCCL: return s == RPB_SMALL;
    case RPB_SPHERE: return s == RPB_PACKET;
    default: return 0;
    }
}

const char *rpb_autovec_name(rp_isa isa) {
    switch (isa) {
    case RP_ISA_SSE41: return "autovec-sse41";
    case RP_ISA_AVX2: return "autovec";
    case RP_ISA_AVX512: return "autovec-avx512";
    default: return "?";
    }
}

/* the autovec builds linked into this binary, by the variant they match */
typedef void (*autovec_fn)(rpb_work *w);
static autovec_fn autovec_of(rp_isa isa) {
    switch (isa) {
#ifdef RPB_HAVE_AUTOVEC_SSE41
    case RP_ISA_SSE41: return rpb_run_autovec_sse41;
#endif
#ifdef RPB_HAVE_AUTOVEC
    case RP_ISA_AVX2: return rpb_run_autovec;
#endif
#ifdef RPB_HAVE_AUTOVEC_AVX512
    case RP_ISA_AVX512: return rpb_run_autovec_avx512;
#endif
    default: return NULL;
    }
}

int rpb_autovec_built(rp_isa isa) { return autovec_of(isa) != NULL; }

int rpb_run_autovec_isa(rpb_work *w, rp_isa isa) {
    autovec_fn f = autovec_of(isa);
    if (!f)
        return -1;
    f(w);
    return 0;
}

int rpb_impl_has(rpb_impl impl, rpb_kernel k, rpb_shape s, unsigned flags) {
    if (!rpb_case_wanted(k, s, flags))
        return 0;
    if (impl != RPB_IMPL_RAYPACK && flags != 0) /* the baselines: Moller-Trumbore only */
        return 0;
    switch (impl) {
    case RPB_IMPL_RAYPACK:
    case RPB_IMPL_NAIVE: return 1;
    case RPB_IMPL_AUTOVEC: return k != RPB_SPHERE; /* slab and Moller-Trumbore loops only */
    case RPB_IMPL_EMBREE: return k == RPB_TRI || k == RPB_OCCL;
    }
    return 0;
}

/* ---- data ---- */
static uint64_t rng_state;
static float frand(float lo, float hi) { /* xorshift64*, 24 bits */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint64_t x = rng_state * 0x2545F4914F6CDD1Dull;
    return lo + (hi - lo) * (float)(x >> 40) * (1.0f / 16777216.0f);
}

/* Primitives scattered in a cube of half-size `half`; sizes ~ `size`. */
static void make_prims(rpb_work *w, float half, float size) {
    size_t n = w->nprims;
    for (size_t j = 0; j < n; j++) {
        float cx = frand(-half, half), cy = frand(-half, half), cz = frand(-half, half);
        if (w->boxes) {
            float ex = frand(0.25f, 0.5f) * size, ey = frand(0.25f, 0.5f) * size,
                  ez = frand(0.25f, 0.5f) * size;
            w->boxes[j] = (rp_aabb){{cx - ex, cy - ey, cz - ez}, {cx + ex, cy + ey, cz + ez}};
        }
        if (w->tris) {
            float s = 0.6f * size;
            w->tris[j].v0 = (rp_vec3){cx + frand(-s, s), cy + frand(-s, s), cz + frand(-s, s)};
            w->tris[j].v1 = (rp_vec3){cx + frand(-s, s), cy + frand(-s, s), cz + frand(-s, s)};
            w->tris[j].v2 = (rp_vec3){cx + frand(-s, s), cy + frand(-s, s), cz + frand(-s, s)};
        }
        if (w->spheres)
            w->spheres[j] = (rp_sphere){{cx, cy, cz}, frand(0.2f, 0.5f) * size};
    }
}

int rpb_miss = 0;

/* Every primitive moved dy along +y (rpb_miss): the rays of every shape
 * cross y = 1000 only far from where the primitives' x and z lie (the
 * packets' rays run along z to the cluster, the pick ray along x at |y| <
 * 2, the octant's from (-15, -15, -15) with y under 23 across the
 * cluster's x), so none meets one. */
static void move_prims(rpb_work *w, float dy) {
    for (size_t j = 0; j < w->nprims; j++) {
        if (w->boxes) {
            w->boxes[j].min.y += dy;
            w->boxes[j].max.y += dy;
        }
        if (w->tris) {
            w->tris[j].v0.y += dy;
            w->tris[j].v1.y += dy;
            w->tris[j].v2.y += dy;
        }
        if (w->spheres)
            w->spheres[j].center.y += dy;
    }
}

static void *xcalloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz);
    if (!p) {
        fprintf(stderr, "rp_bench: out of memory\n");
        exit(1);
    }
    return p;
}

int rpb_work_init(rpb_work *w, rpb_kernel k, rpb_shape s, unsigned flags, int quick) {
    memset(w, 0, sizeof *w);
    if (flags != 0 && k != RPB_TRI && k != RPB_OCCL) {
        fprintf(stderr, "rp_bench: flags %#x for a kernel without flags\n", flags);
        return -1;
    }
    w->kernel = k;
    w->shape = s;
    w->flags = flags;
    rpb_shape_size(s, quick, &w->nrays, &w->nprims);
    /* the seed ignores flags: the watertight rows see the same data */
    rng_state = 0x9E3779B97F4A7C15ull ^ ((uint64_t)k << 8 | (uint64_t)s);

    rp_status st = rp_rays_alloc(w->nrays, &w->rays);
    if (st == RP_OK)
        st = rp_hits_alloc(w->nrays, &w->hits);
    if (st != RP_OK) {
        fprintf(stderr, "rp_bench: allocation: %s\n", rp_status_string(st));
        return -1;
    }
    w->tmax0 = xcalloc(w->nrays, sizeof(float));
    if (k == RPB_AABB || k == RPB_SLAB)
        w->boxes = xcalloc(w->nprims, sizeof *w->boxes);
    else if (k == RPB_SPHERE)
        w->spheres = xcalloc(w->nprims, sizeof *w->spheres);
    else
        w->tris = xcalloc(w->nprims, sizeof *w->tris);
    if (k == RPB_SLAB) {
        w->hit = xcalloc(w->nrays, 1);
        w->tnear = xcalloc(w->nrays, sizeof(float));
        w->tfar = xcalloc(w->nrays, sizeof(float));
    }
    if (k == RPB_OCCL)
        w->occluded = xcalloc(w->nrays, 1);

    /* Geometry: a cluster of primitives in front of a bundle of rays from
     * a camera-like origin (packet, 64x64), one unit box hit by random
     * rays from around it (stream), or a scene-sized scatter crossed by one
     * ray (pick). */
    float half = 4.0f, size = 1.2f;
    if (s == RPB_PICK) {
        half = 50.0f;
        size = 2.0f;
    }
    if (s == RPB_STREAM)
        w->boxes[0] = (rp_aabb){{-1, -1, -1}, {1, 1, 1}};
    else
        make_prims(w, half, size);
    if (rpb_miss)
        move_prims(w, 1000.0f);

    rp_rays *r = &w->rays;
    for (size_t i = 0; i < w->nrays; i++) {
        float ox, oy, oz, tx, ty, tz;
        if (s == RPB_STREAM) {
            ox = frand(-4, 4); oy = frand(-4, 4); oz = frand(-4, 4);
            tx = frand(-1.5f, 1.5f); ty = frand(-1.5f, 1.5f); tz = frand(-1.5f, 1.5f);
        } else if (s == RPB_PICK) {
            ox = -60.0f; oy = 0.3f; oz = 0.2f;
            tx = 60.0f; ty = 1.1f; tz = -0.7f;
        } else if (s == RPB_OCTANT) { /* the packet's cluster seen from a corner: d > 0 */
            ox = frand(-15, -13); oy = frand(-15, -13); oz = frand(-15, -13);
            tx = frand(-half, half); ty = frand(-half, half); tz = frand(-half, half);
        } else {
            ox = frand(-1, 1); oy = frand(-1, 1); oz = -14.0f;
            tx = frand(-half, half); ty = frand(-half, half); tz = frand(-half, half);
        }
        r->ox[i] = ox; r->oy[i] = oy; r->oz[i] = oz;
        r->dx[i] = tx - ox; r->dy[i] = ty - oy; r->dz[i] = tz - oz;
        r->tmin[i] = 0.0f;
        r->tmax[i] = INFINITY;
        w->tmax0[i] = INFINITY;
    }
    st = rp_rays_prepare(r);
    if (st != RP_OK) {
        fprintf(stderr, "rp_bench: rp_rays_prepare: %s\n", rp_status_string(st));
        return -1;
    }
    return 0;
}

void rpb_work_free(rpb_work *w) {
    rp_rays_free(&w->rays);
    rp_hits_free(&w->hits);
    free(w->tmax0);
    free(w->hit);
    free(w->tnear);
    free(w->tfar);
    free(w->occluded);
    free(w->boxes);
    free(w->tris);
    free(w->spheres);
    memset(w, 0, sizeof *w);
}

double rpb_work_tests(const rpb_work *w) { return (double)w->nrays * (double)w->nprims; }

rp_status rpb_run_raypack(rpb_work *w) {
    rp_rays *r = &w->rays;
    rp_status st = RP_OK;
    switch (w->kernel) {
    case RPB_SLAB:
        for (size_t j = 0; j < w->nprims && st == RP_OK; j++)
            st = rp_intersect_aabb(r, NULL, &w->boxes[j], w->hit, w->tnear, w->tfar);
        return st;
    case RPB_OCCL:
        memset(w->occluded, 0, w->nrays);
        return rp_occluded_triangle(r, NULL, w->tris, w->nprims, w->flags, w->occluded);
    default:
        break;
    }
    /* closest-hit kernels: start every iteration from the same state, as
     * the autovec baseline does (autovec.c): tmax put back and every
     * record emptied by plain stores.  (rp_hits_reset, a public call with
     * its checks that also clears t, u, v and the normals, cost about 7 ns
     * here: nothing in 64 x 256, a tenth of an 8 x 8 call, and a charge
     * the baselines did not pay.) */
    memcpy(r->tmax, w->tmax0, w->nrays * sizeof(float));
    for (size_t i = 0; i < w->nrays; i++)
        w->hits.prim[i] = RP_NO_HIT;
    switch (w->kernel) {
    case RPB_AABB: return rp_closest_aabb(r, NULL, w->boxes, w->nprims, 0, &w->hits);
    case RPB_TRI: return rp_closest_triangle(r, NULL, w->tris, w->nprims, 0, w->flags, &w->hits);
    case RPB_SPHERE: return rp_closest_sphere(r, NULL, w->spheres, w->nprims, 0, &w->hits);
    default: return RP_ERR_INVALID;
    }
}

size_t rpb_count_hits(rpb_work *w) {
    size_t c = 0;
    if (w->kernel == RPB_SLAB) { /* each box's call again: hit[] holds the last one's */
        for (size_t j = 0; j < w->nprims; j++) {
            if (rp_intersect_aabb(&w->rays, NULL, &w->boxes[j], w->hit, w->tnear, w->tfar))
                return SIZE_MAX;
            for (size_t i = 0; i < w->nrays; i++)
                c += w->hit[i] != 0;
        }
        return c;
    }
    for (size_t i = 0; i < w->nrays; i++)
        c += w->kernel == RPB_OCCL ? w->occluded[i] != 0 : w->hits.prim[i] != RP_NO_HIT;
    return c;
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

uint64_t rpb_digest(const rpb_work *w, int with_t) {
    uint64_t d = 0;
    for (size_t i = 0; i < w->nrays; i++) {
        uint64_t v;
        if (w->kernel == RPB_SLAB)
            v = (uint64_t)w->hit[i] | (with_t && w->hit[i] ? (uint64_t)fbits(w->tnear[i]) << 8 : 0);
        else if (w->kernel == RPB_OCCL)
            v = w->occluded[i];
        else
            v = (uint64_t)w->hits.prim[i] |
                (with_t && w->hits.prim[i] != RP_NO_HIT ? (uint64_t)fbits(w->hits.t[i]) << 32 : 0);
        d += mix(v * 0x9E3779B97F4A7C15ull + i);
    }
    return d;
}
