/*
 * rp_check.c - raypack's differential checker, after dav1d's checkasm.  For
 * every batch kernel and every variant that can run here (rp_isa_runnable():
 * native or SIMDe-emulated) it builds the same inputs twice, runs them once
 * through RP_ISA_SCALAR (the specification) and once through the variant
 * (switched with rp_set_isa, nothing but the public API), and compares every
 * output bit for bit (memcmp semantics: NaN equals NaN only with the same
 * bits, -0.0 differs from +0.0).  Each array lives at a float offset 0..15
 * inside a bigger buffer whose 64+ bytes before and 64 bytes after are
 * filled with a pattern that must survive, and every input must come back
 * unchanged.  Inputs are random rays and primitives mixed with adversarial
 * ones: axis-parallel rays with +0/-0 components, origins exactly on box
 * faces, edges and corners, rays aimed exactly through triangle edges and
 * vertices (integer "grid" scenes, where such hits are exact), tangent
 * spheres, NaN, infinities, denormals, 1e30, random bit patterns, n 0..100
 * plus 1000 and 4099, 0..70 primitives plus 1000, duplicate and touching
 * primitives, primitives fed in several chunks, active masks NULL / all /
 * none / holes, hit records pre-filled (empty, garbage, or holding hits, to
 * exercise the tie rule) and index_base up to RP_NO_HIT - count.  The
 * closest-hit checks also compare rp_hits_normals_* run after the kernel.
 *
 * Scene kernels (scene_*) build a scene through the public API from the
 * case's triangles (0..70, now and then 1000; the empty and the
 * one-triangle scene more often): random, grid and special triangles as
 * above (duplicates, shared edges and vertices, zero area, collinear,
 * repeated vertices, 1e30 up to FLT_MAX, denormals; never NaN or inf), fed
 * as one to three meshes (now and then one more, empty, passed as NULL or
 * not), each a soup or an indexed mesh (shared vertices by bits, unused
 * vertices around them; half of them a bumpy grid patch, six triangles
 * round each inner vertex).  In three cases of ten a copy of one mesh's
 * input with a NaN or infinite coordinate is added first: it must be
 * refused (RP_ERR_INVALID, mesh id untouched, triangle count unchanged, and
 * the next mesh still gets the next id).  The rays, masks and pre-filled
 * records are those of the triangle kernels (records name a (mesh, prim),
 * in one case of seven one that does not exist), the mesh array is given
 * or NULL.  Outputs: t, u, v, prim, mesh, tmax and the normals of
 * rp_scene_normals, or the occluded bytes; each variant must equal the
 * scalar run bit for bit, with the guard checks.  With RP_WATERTIGHT the
 * scalar run must also equal brute force (rp_closest_triangle /
 * rp_occluded_triangle over all the triangles in scene order, the same
 * flags; prim split into (mesh, prim); normals from rp_hits_normals_triangle
 * on each mesh's triangles), bit for bit, in the default floating-point
 * environment (reported as variant "brute-force"); without it (the _mt
 * kernels) the lanes that differ from brute force are only counted, shown
 * by --stats (docs/SEMANTICS.md says why).  Scene failures are not
 * bisected.  The directed-rounding runs found that the box test was not
 * conservative for a 1/d saturated to +-FLT_MAX (denormal directions):
 * fixed in rp_ref_slab_wt_steps, so every mode runs the scene kernels.
 *
 * Usage:
 *   rp_check [--seed=N] [--iterations=N] [--isa=NAME[,NAME]]
 *            [--kernel=SUBSTR[,SUBSTR]] [--n=N] [--count=N] [--verbose] [--stats]
 *       --seed=N        reproduce a run (default: from the clock, printed
 *                       first as "rp_check: seed=N")
 *       --iterations=N  random cases per kernel (default 100; meson: 200)
 *       --isa=LIST      variants to check (default: every runnable one,
 *                       scalar included, which checks the harness itself);
 *                       exit 77 (skipped) if none of the list can run here
 *       --kernel=LIST   kernels whose name contains one of the substrings
 *                       (also --function= / --test=, as in checkasm)
 *       --n=N, --count=N  every case with N rays, N primitives (the rest
 *                       of the case still random): e.g. the brute-force
 *                       loops' chunks of prepared triangles (128) for
 *                       several packets, which random sizes reach rarely
 *       --coherent      9 rays in 10 of a case share the signs of their
 *                       directions (a random octant per case): packets of
 *                       one octant, which random directions make rare; and
 *                       of the scene cases, half a camera's (most rays from
 *                       one point) and a quarter ambient occlusion (rays in
 *                       fours from a point on or just off a triangle, any
 *                       directions, short: tmax up to a tenth of the scene)
 *       --verbose       describe every case; --stats: what the reference
 *                       did with the lanes (hits, grazing hits, records
 *                       kept, NaN outputs), to judge the coverage
 *       --fpenv=MODE    run every case (reference and variants alike) in a
 *                       floating-point environment a renderer may set:
 *                       default, flush (x86 MXCSR FTZ+DAZ, AArch64 FPCR.FZ),
 *                       ftz or daz alone (x86), upward, downward, towardzero
 *                       (fesetround).  raypack never changes the
 *                       environment, and its variants must still agree bit
 *                       for bit with the reference run in it; exit 77
 *                       (skipped) where the host cannot set the mode.
 *   rp_check --list     each variant compiled in: native, emulated or
 *                       unavailable
 *   rp_check --digest [--expect=0xHEX] [--isa=...] [--kernel=...] [--verbose]
 *                       one 64-bit FNV-1a hash per variant ("digest NAME
 *                       0x...") of every output over a fixed corpus (fixed
 *                       seed and sizes); NaNs are hashed as one canonical
 *                       NaN, because x86 and ARM make different default NaNs,
 *                       so the value is the same on both; exit 1 if the
 *                       variants disagree or differ from --expect
 * The inputs of case k of a kernel depend only on the seed, the kernel and
 * k, so the --isa and --kernel filters reproduce the same cases.  Each
 * failing (kernel, variant, case) is reported (at most two in detail per
 * kernel and variant) with the case's parameters, the lanes that differ,
 * their inputs, the primitives involved and both outputs as hex floats, the
 * guard bytes or inputs damaged, and the smallest set of primitives (one, or
 * the two the runs chose) that reproduces the mismatch for that ray alone.
 * The last line is "N passed, N failed" over (kernel, variant, case) checks;
 * the exit status is 1 on any failure, 2 on a usage error.  Kernel names:
 * intersect_aabb, closest_aabb, closest_triangle, closest_triangle_cull,
 * occluded_triangle, occluded_triangle_cull, closest_sphere, closest_plane,
 * closest_triangle_wt, closest_triangle_wt_cull, occluded_triangle_wt,
 * occluded_triangle_wt_cull, scene_closest_wt, scene_closest_wt_cull,
 * scene_occluded_wt, scene_occluded_wt_cull, scene_closest_mt,
 * scene_closest_mt_cull, scene_occluded_mt, scene_occluded_mt_cull (the closest checks answer to hits_normals_* or
 * scene_normals as well); and, checkasm-style, internal functions of each
 * SIMD variant against the reference (internal.c): internal_node_ray,
 * internal_box_packet, internal_block_ray, internal_lane_nodes,
 * internal_lane_boxes, internal_frustum, internal_segments,
 * internal_ray_setup (not in --digest).  rp_check leaves the
 * library on rp_set_isa(RP_ISA_AUTO).  Every random number comes from
 * splitmix64, never rand(), one call per full expression (the order of
 * evaluation of arguments is unspecified), so a seed means the same cases
 * on every host.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "raypack.h"

#include "../fpenv.h" /* --fpenv */
#include "../harness.h" /* arrays, kernels, guard buffers, the call switch (shared with rp_fuzz) */
#include "internal_check.h" /* internal functions against the reference (internal.c); rpc_name_selected */

_Static_assert(sizeof(rp_aabb) == 6 * sizeof(float), "rp_aabb is 6 floats");
_Static_assert(sizeof(rp_triangle) == 9 * sizeof(float), "rp_triangle is 9 floats");
_Static_assert(sizeof(rp_sphere) == 4 * sizeof(float), "rp_sphere is 4 floats");
_Static_assert(sizeof(rp_plane) == 4 * sizeof(float), "rp_plane is 4 floats");

#if defined(__GNUC__)
#define TAP_LIKE_PRINTF __attribute__((format(printf, 2, 3)))
#else
#define TAP_LIKE_PRINTF
#endif

#define MAX_CHUNKS 3
#define MAX_MESHES 4      /* scene cases: up to three meshes and an empty one */
#define BRUTE_BASE 0x80000000u /* index_base of the brute-force run of a scene case */
#define DIGEST_SEED 0x7261797061636bULL /* "raypack" */
#define DIGEST_CASES 40   /* per kernel */

/* ------------------------------------------------------------------ */
/* Random numbers: splitmix64, the same sequence on every host          */
/* ------------------------------------------------------------------ */
typedef struct rng { uint64_t s; } rng;

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static uint64_t next64(rng *r) { return mix64(r->s += 0x9e3779b97f4a7c15ULL); }
static uint32_t below(rng *r, uint32_t n) { return (uint32_t)(((next64(r) >> 32) * n) >> 32); }
static int chance(rng *r, unsigned percent) { return below(r, 100) < percent; }

static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static int finite_bits(float f) { return (f2u(f) & 0x7f800000u) != 0x7f800000u; }

/* [0, 1) with 24 random bits: exact, so the same everywhere */
static float unitf(rng *r) { return (float)(next64(r) >> 40) * 0x1p-24f; }
static float rangef(rng *r, float lo, float hi) { return lo + unitf(r) * (hi - lo); }

static const uint32_t special_bits[] = {
    0x00000000, 0x80000000,             /* +0, -0 */
    0x3f800000, 0xbf800000,             /* 1, -1 */
    0x7f800000, 0xff800000,             /* +inf, -inf */
    0x7fc00000, 0xffc00000, 0x7fc12345, /* quiet NaNs, with sign and payload */
    0x7f800001, 0xffa00000,             /* signalling NaNs */
    0x00000001, 0x80000001, 0x007fffff, /* denormals */
    0x00800000, 0x80800000,             /* +-FLT_MIN */
    0x7f7fffff, 0xff7fffff,             /* +-FLT_MAX */
    0x7149f2ca, 0xf149f2ca,             /* +-1e30 */
    0x0da24260,                         /* 1e-30 */
    0x34000000, 0x4b800000,             /* 2^-23, 2^24 */
};
#define NSPECIAL (sizeof special_bits / sizeof special_bits[0])

static float special(rng *r) {
    if (chance(r, 15))
        return u2f((uint32_t)next64(r)); /* any bit pattern */
    return u2f(special_bits[below(r, NSPECIAL)]);
}

/* ------------------------------------------------------------------ */
/* Kernels under test                                                   */
/* ------------------------------------------------------------------ */
/* families, kinds and the six public kernels: harness.h */
typedef struct kdesc {
    const char *name;
    const char *alias; /* the normals routine checked after it */
    int family, kind;
    unsigned flags;
    int scene; /* a scene query (rp_scene_*) over the case's triangles */
} kdesc;

static const kdesc kernels[] = {
    {"intersect_aabb", NULL, F_BOX, K_INTERSECT, 0, 0},
    {"closest_aabb", "hits_normals_aabb", F_BOX, K_CLOSEST, 0, 0},
    {"closest_triangle", "hits_normals_triangle", F_TRI, K_CLOSEST, 0, 0},
    {"closest_triangle_cull", "hits_normals_triangle", F_TRI, K_CLOSEST, RP_CULL_BACKFACE, 0},
    {"occluded_triangle", NULL, F_TRI, K_OCCLUDED, 0, 0},
    {"occluded_triangle_cull", NULL, F_TRI, K_OCCLUDED, RP_CULL_BACKFACE, 0},
    {"closest_sphere", "hits_normals_sphere", F_SPHERE, K_CLOSEST, 0, 0},
    {"closest_plane", "hits_normals_plane", F_PLANE, K_CLOSEST, 0, 0},
    {"closest_triangle_wt", "hits_normals_triangle", F_TRI, K_CLOSEST, RP_WATERTIGHT, 0},
    {"closest_triangle_wt_cull", "hits_normals_triangle", F_TRI, K_CLOSEST,
     RP_WATERTIGHT | RP_CULL_BACKFACE, 0},
    {"occluded_triangle_wt", NULL, F_TRI, K_OCCLUDED, RP_WATERTIGHT, 0},
    {"occluded_triangle_wt_cull", NULL, F_TRI, K_OCCLUDED, RP_WATERTIGHT | RP_CULL_BACKFACE, 0},
    {"scene_closest_wt", "scene_normals", F_TRI, K_CLOSEST, RP_WATERTIGHT, 1},
    {"scene_closest_wt_cull", "scene_normals", F_TRI, K_CLOSEST, RP_WATERTIGHT | RP_CULL_BACKFACE, 1},
    {"scene_occluded_wt", NULL, F_TRI, K_OCCLUDED, RP_WATERTIGHT, 1},
    {"scene_occluded_wt_cull", NULL, F_TRI, K_OCCLUDED, RP_WATERTIGHT | RP_CULL_BACKFACE, 1},
    {"scene_closest_mt", "scene_normals", F_TRI, K_CLOSEST, 0, 1},
    {"scene_closest_mt_cull", "scene_normals", F_TRI, K_CLOSEST, RP_CULL_BACKFACE, 1},
    {"scene_occluded_mt", NULL, F_TRI, K_OCCLUDED, 0, 1},
    {"scene_occluded_mt_cull", NULL, F_TRI, K_OCCLUDED, RP_CULL_BACKFACE, 1},
};
#define NKERNELS (int)(sizeof kernels / sizeof kernels[0])

/* floats per primitive, by family */
#define prim_floats(family) ((int)th_kernels[th_kernel_of((family), K_CLOSEST)].prim_floats)

/* ------------------------------------------------------------------ */
/* Arrays of a case                                                     */
/* ------------------------------------------------------------------ */
/* the arrays (A_*), their names and types: harness.h */
#define anames th_array_names
#define atype th_array_type

typedef struct ccase {
    int k;              /* index in kernels[] */
    uint64_t iter;
    size_t n, count;
    uint32_t base;
    unsigned flags;
    unsigned hint; /* scene cases: 0, RP_COHERENT or RP_INCOHERENT (the scene query only) */
    int coherent; /* --coherent: 1 + the octant most rays' directions are folded into */
    int camera;    /* --coherent, scene cases, one in two: most rays from cam (a camera's) */
    float cam[3];
    /* --coherent, scene cases, one in four (not a camera's): ambient
     * occlusion, most rays in fours from one point on a triangle, any
     * directions, short (tmax up to aolen, a tenth of the triangles' box:
     * the AVX-512 walk's short packets, packet_short) */
    int ao;
    float aolen;
    int style, active_mode, prefill;
    int used[A_COUNT];
    int is_out[A_COUNT];  /* compared with the reference run */
    size_t bytes[A_COUNT];
    size_t off[A_COUNT];  /* byte offset of the data after the front guard */
    unsigned char *init[A_COUNT]; /* contents before the call */
    int nchunks;
    size_t chunk_end[MAX_CHUNKS];
    /* scene cases: the triangles (A_PRIMS, scene order) fed as nm meshes:
     * mesh m is triangles mfirst[m] .. + mcount[m], a soup (read from
     * A_PRIMS; MK_NULL: an empty one passed as NULL) or an indexed mesh
     * (vertices mv0[m] .. + mnv[m] of A_XYZ, indices from mi0[m] in A_IDX,
     * relative to mv0[m]).  Before mesh bad_mesh is added (-1: never), a
     * copy of its input with float bad_at replaced by bad_bits (NaN or
     * infinite) must be refused. */
    int nm;
    size_t mfirst[MAX_MESHES], mcount[MAX_MESHES], mv0[MAX_MESHES], mnv[MAX_MESHES],
        mi0[MAX_MESHES];
    int mkind[MAX_MESHES];
    int bad_mesh;
    size_t bad_at;
    uint32_t bad_bits;
} ccase;

static void *xcalloc(size_t n) {
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "rp_check: out of memory\n");
        exit(2);
    }
    return p;
}

static float *F(const ccase *c, int a) { return (float *)(void *)c->init[a]; }

static void case_free(ccase *c) {
    for (int a = 0; a < A_COUNT; a++)
        free(c->init[a]);
    memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------------ */
/* Case generation                                                      */
/* ------------------------------------------------------------------ */
enum { S_RANDOM, S_GRID, S_MIXED, S_SPECIAL, S_BITS, S_NSTYLES };
static const char *const style_names[] = {"random", "grid", "mixed", "special", "bits"};
enum { AM_NULL, AM_ALL, AM_NONE, AM_HOLES };
static const char *const active_names[] = {"NULL", "all", "none", "holes"};
enum { P_RESET, P_GARBAGE, P_EXISTING };
static const char *const prefill_names[] = {"reset", "garbage", "existing"};

static float gridf(rng *r) {
    if (chance(r, 25))
        return (float)((int)below(r, 17) - 8) * 0.5f;
    return (float)((int)below(r, 9) - 4);
}

/* A coordinate in the case's style (no special values: those are added
 * last, so no arithmetic of the generator ever meets a NaN). */
static float coord(rng *r, int style) {
    switch (style) {
    case S_GRID: return gridf(r);
    case S_RANDOM: return rangef(r, -8.0f, 8.0f);
    default: return chance(r, 50) ? gridf(r) : rangef(r, -8.0f, 8.0f);
    }
}

/* percent of values replaced by special ones, by style */
static unsigned special_rate(int style) {
    switch (style) {
    case S_MIXED: return 3;
    case S_SPECIAL: return 15;
    case S_BITS: return 10;
    default: return 0;
    }
}
static void maybe_special(rng *r, int style, float *f) {
    unsigned rate = special_rate(style);
    if (rate && chance(r, rate))
        *f = style == S_BITS ? u2f((uint32_t)next64(r)) : special(r);
}

static void gen_box(rng *r, int style, float *b, const float *prev) {
    if (prev && chance(r, 15)) { /* duplicate */
        memcpy(b, prev, 6 * sizeof(float));
        return;
    }
    for (int k = 0; k < 3; k++) { /* small, so that origins are mostly outside */
        float w = style == S_GRID ? (float)below(r, 4) : rangef(r, 0.0f, 3.0f);
        b[k] = coord(r, style);
        b[3 + k] = b[k] + w;
    }
    if (prev && chance(r, 20)) { /* touching the previous box: shares a face */
        int k = (int)below(r, 3);
        float w = b[3 + k] - b[k];
        b[k] = prev[3 + k];
        b[3 + k] = b[k] + w;
    }
    if (chance(r, 8)) { int k = (int)below(r, 3); b[3 + k] = b[k]; }       /* flat */
    if (chance(r, 4)) { int k = (int)below(r, 3); float t = b[k]; b[k] = b[3 + k] + 1.0f; b[3 + k] = t; } /* inverted */
    if (chance(r, 1)) { b[0] = b[1] = b[2] = -INFINITY; b[3] = b[4] = b[5] = INFINITY; } /* everything */
    if (chance(r, 3)) for (int k = 0; k < 6; k++) b[k] *= 1e30f / 8.0f;    /* huge */
    if (chance(r, 3)) for (int k = 0; k < 6; k++) b[k] *= 0x1p-140f;       /* denormal */
}

static void gen_tri(rng *r, int style, float *t, const float *prev) {
    for (int k = 0; k < 9; k++)
        t[k] = coord(r, style);
    if (prev) {
        int c = (int)below(r, 100);
        if (c < 15) { /* fan: shares the edge v1-v2 of the previous one, reversed */
            memcpy(t + 0, prev + 6, 3 * sizeof(float));
            memcpy(t + 3, prev + 3, 3 * sizeof(float));
        } else if (c < 22) { /* same triangle, other winding */
            memcpy(t + 0, prev + 0, 3 * sizeof(float));
            memcpy(t + 3, prev + 6, 3 * sizeof(float));
            memcpy(t + 6, prev + 3, 3 * sizeof(float));
        } else if (c < 30) { /* duplicate */
            memcpy(t, prev, 9 * sizeof(float));
        } else if (c < 36) { /* shares a vertex */
            /* one call per statement: the order of evaluation of arguments
             * is unspecified, and gcc for aarch64 and x86 do differ */
            uint32_t to = below(r, 3);
            uint32_t from = below(r, 3);
            memcpy(t + 3 * to, prev + 3 * from, 3 * sizeof(float));
        }
    }
    int d = (int)below(r, 100);
    if (d < 4) { /* all three vertices equal */
        for (int k = 0; k < 3; k++)
            t[3 + k] = t[6 + k] = t[k];
    } else if (d < 8) { /* collinear: v2 = v0 + 2 (v1 - v0) */
        for (int k = 0; k < 3; k++) {
            float e = t[3 + k] - t[k];
            e = e * 2.0f;
            t[6 + k] = t[k] + e;
        }
    } else if (d < 11) { /* axis-aligned (lies in a plane x, y or z = const) */
        int k = (int)below(r, 3);
        t[3 + k] = t[k];
        t[6 + k] = t[k];
    } else if (d < 13) {
        for (int k = 0; k < 9; k++) t[k] *= 1e30f / 8.0f;
    } else if (d < 15) {
        for (int k = 0; k < 9; k++) t[k] *= 0x1p-140f;
    }
}

static void gen_sphere(rng *r, int style, float *s, const float *prev) {
    for (int k = 0; k < 3; k++)
        s[k] = coord(r, style);
    s[3] = style == S_GRID ? (float)below(r, 4) : rangef(r, 0.0f, 3.0f);
    if (prev) {
        int c = (int)below(r, 100);
        if (c < 10) memcpy(s, prev, 4 * sizeof(float));   /* duplicate */
        else if (c < 20) memcpy(s, prev, 3 * sizeof(float)); /* concentric */
    }
    int d = (int)below(r, 100);
    if (d < 4) s[3] = 0.0f;
    else if (d < 6) s[3] = -0.0f;
    else if (d < 9) s[3] = -s[3] - 1.0f;
    else if (d < 11) { for (int k = 0; k < 4; k++) s[k] *= 1e30f / 8.0f; }
    else if (d < 13) { for (int k = 0; k < 4; k++) s[k] *= 0x1p-140f; }
}

static void gen_plane(rng *r, int style, float *p, const float *prev) {
    int c = (int)below(r, 100);
    if (style == S_GRID || c < 40) { /* axis normal, +-1 */
        p[0] = p[1] = p[2] = chance(r, 50) ? 0.0f : -0.0f;
        uint32_t k = below(r, 3);
        p[k] = chance(r, 50) ? 1.0f : -1.0f;
    } else if (c < 50) { /* exact unit (0.6, 0.8, 0) */
        float q[3] = {0.6f, 0.8f, 0.0f};
        int k = (int)below(r, 3);
        p[k] = q[0]; p[(k + 1) % 3] = q[1]; p[(k + 2) % 3] = q[2];
    } else { /* random direction, halved (exactly) until |n| <= 1: not unit,
              * which the API allows, and no libm in the generator */
        float x = rangef(r, -1.0f, 1.0f), y = rangef(r, -1.0f, 1.0f), z = rangef(r, -1.0f, 1.0f);
        float l = x * x, yy = y * y, zz = z * z;
        l = l + yy;
        l = l + zz;
        while (l > 1.0f) { x *= 0.5f; y *= 0.5f; z *= 0.5f; l *= 0.25f; }
        p[0] = x; p[1] = y; p[2] = z;
    }
    p[3] = coord(r, style);
    if (prev && chance(r, 10))
        memcpy(p, prev, 4 * sizeof(float));
    if (chance(r, 3))
        p[0] = p[1] = p[2] = 0.0f; /* zero normal: never a candidate */
}

/* A point on primitive j (vertex, edge, face, interior, pole...) to aim at. */
static void aim_point(rng *r, int family, const float *p, float *pt) {
    switch (family) {
    case F_BOX:
        for (int k = 0; k < 3; k++) {
            int c = (int)below(r, 4);
            float lo = p[k], hi = p[3 + k];
            if (c == 0) pt[k] = lo;
            else if (c == 1) pt[k] = hi;
            else if (c == 2) { float s = lo + hi; pt[k] = s * 0.5f; }
            else { float w = hi - lo; w = w * unitf(r); pt[k] = lo + w; }
        }
        break;
    case F_TRI: {
        int c = (int)below(r, 4);
        if (c == 0) { /* a vertex */
            memcpy(pt, p + 3 * below(r, 3), 3 * sizeof(float));
        } else if (c == 1) { /* an edge: midpoint (exact on grids) or a quarter */
            int a = (int)below(r, 3), b = (a + 1) % 3;
            float w = chance(r, 60) ? 0.5f : 0.25f;
            for (int k = 0; k < 3; k++) {
                float e = p[3 * b + k] - p[3 * a + k];
                e = e * w;
                pt[k] = p[3 * a + k] + e;
            }
        } else { /* inside (or near an edge, by rounding) */
            float u = unitf(r), v = unitf(r);
            if (u + v > 1.0f) { u = 1.0f - u; v = 1.0f - v; }
            for (int k = 0; k < 3; k++) {
                float e1 = p[3 + k] - p[k], e2 = p[6 + k] - p[k];
                e1 = e1 * u;
                e2 = e2 * v;
                float s = p[k] + e1;
                pt[k] = s + e2;
            }
        }
        break;
    }
    case F_SPHERE: {
        memcpy(pt, p, 3 * sizeof(float));
        int c = (int)below(r, 3);
        if (c > 0) { /* a pole: a tangent or a grazing ray */
            int k = (int)below(r, 3);
            pt[k] = c == 1 ? pt[k] + p[3] : pt[k] - p[3];
        }
        break;
    }
    default: { /* plane: n * d (on the plane if |n| = 1) */
        for (int k = 0; k < 3; k++)
            pt[k] = p[k] * p[3];
        break;
    }
    }
}

enum { R_RANDOM, R_AIM, R_AXIS, R_ONFACE, R_ZERO, R_NKINDS };

/* --coherent's ambient occlusion: a point of a random triangle (of the
 * count at prims, 9 floats each) as aim_point picks one (a vertex, on an
 * edge or inside), its first vertex where that is not finite, and half the
 * time one ulp off it. */
static void ao_point(rng *r, const float *prims, size_t count, float o[3]) {
    const float *t = prims + 9 * (size_t)below(r, (uint32_t)count);
    aim_point(r, F_TRI, t, o);
    for (int k = 0; k < 3; k++)
        if (!finite_bits(o[k]))
            o[k] = t[k];
    if (chance(r, 50)) /* just off the surface, as a renderer's offset origin */
        for (int k = 0; k < 3; k++)
            o[k] = nextafterf(o[k], chance(r, 50) ? INFINITY : -INFINITY);
}

/* Ray i of an AO case: from o, any direction (signs mixed within a
 * packet), [0, a random length up to c->aolen]. */
static void ao_ray(rng *r, const ccase *c, size_t i, const float o[3]) {
    float d[3];
    do {
        for (int k = 0; k < 3; k++)
            d[k] = rangef(r, -1.0f, 1.0f);
    } while (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f);
    F(c, A_OX)[i] = o[0]; F(c, A_OY)[i] = o[1]; F(c, A_OZ)[i] = o[2];
    F(c, A_DX)[i] = d[0]; F(c, A_DY)[i] = d[1]; F(c, A_DZ)[i] = d[2];
    F(c, A_TMIN)[i] = 0.0f;
    F(c, A_TMAX)[i] = rangef(r, 0.0f, c->aolen);
}

static void gen_ray(rng *r, const ccase *c, size_t i, const float *prims) {
    int style = c->style, family = kernels[c->k].family;
    float o[3], d[3], tmin = 0.0f, tmax = INFINITY;
    int kind;
    unsigned pk = below(r, 100);
    if (style == S_RANDOM) kind = pk < 60 ? R_RANDOM : pk < 90 ? R_AIM : R_AXIS;
    else kind = pk < 25 ? R_RANDOM : pk < 60 ? R_AIM : pk < 78 ? R_AXIS : pk < 96 ? R_ONFACE : R_ZERO;
    if (c->count == 0 && (kind == R_AIM || kind == R_ONFACE))
        kind = R_AXIS;
    for (int k = 0; k < 3; k++) {
        o[k] = coord(r, style);
        d[k] = style == S_GRID ? (float)((int)below(r, 5) - 2) : rangef(r, -1.0f, 1.0f);
    }
    /* a camera's case: 97 rays in 100 from its point, so that most packets
     * share their origin (the packet walks' frustum, src/scene/traverse_simd.h) */
    const int from_cam = c->camera && !chance(r, 3);
    if (from_cam) { /* aimed at the scene or random, not along an axis or zero */
        memcpy(o, c->cam, sizeof o);
        if (kind == R_AXIS || kind == R_ZERO)
            kind = c->count ? R_AIM : R_RANDOM;
    }
    const float *p = NULL;
    if (c->count)
        p = prims + (size_t)prim_floats(family) * below(r, (uint32_t)c->count);
    switch (kind) {
    case R_AIM: {
        float pt[3];
        aim_point(r, family, p, pt);
        if (chance(r, 12)) /* through the point (0, 0, 0), where zero padding lurks */
            pt[0] = pt[1] = pt[2] = 0.0f;
        for (int k = 0; k < 3; k++) {
            float e = pt[k] - o[k];
            d[k] = finite_bits(e) ? e : 1.0f;
        }
        if (!from_cam && chance(r, 20)) { /* the same line from farther away */
            for (int k = 0; k < 3; k++) {
                float e = d[k] * 2.0f;
                o[k] = pt[k] - e;
                d[k] = finite_bits(o[k]) ? e : d[k];
                o[k] = finite_bits(o[k]) ? o[k] : pt[k];
            }
        }
        break;
    }
    case R_AXIS: {
        int a = (int)below(r, 3);
        for (int k = 0; k < 3; k++)
            d[k] = chance(r, 50) ? 0.0f : -0.0f;
        d[a] = chance(r, 50) ? 1.0f : -1.0f;
        if (chance(r, 30)) d[(a + 1) % 3] = chance(r, 50) ? 1.0f : -1.0f; /* diagonal */
        if (chance(r, 20)) d[a] = d[a] * rangef(r, 0.25f, 4.0f);
        break;
    }
    case R_ONFACE: {
        /* origin on the faces, edges and corners of a box (for any family:
         * for triangles the box of the vertices, so on vertices too) */
        float lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
            if (family == F_BOX) { lo[k] = p[k]; hi[k] = p[3 + k]; }
            else if (family == F_TRI) { lo[k] = p[k]; hi[k] = p[3 + k]; }
            else if (family == F_SPHERE) { lo[k] = p[k] - p[3]; hi[k] = p[k] + p[3]; }
            else { lo[k] = p[k] * p[3]; hi[k] = lo[k]; }
        }
        for (int k = 0; k < 3; k++) {
            int q = (int)below(r, 4);
            if (q == 0) o[k] = lo[k];
            else if (q == 1) o[k] = hi[k];
            else if (q == 2) { float s = lo[k] + hi[k]; o[k] = s * 0.5f; }
            if (!finite_bits(o[k])) o[k] = 0.0f;
            int z = (int)below(r, 4); /* parallel to this axis? */
            if (z == 0) d[k] = 0.0f;
            else if (z == 1) d[k] = -0.0f;
        }
        break;
    }
    case R_ZERO:
        for (int k = 0; k < 3; k++)
            d[k] = chance(r, 50) ? 0.0f : -0.0f;
        break;
    default:
        break;
    }
    if (!from_cam && chance(r, 5)) /* from (+-0, +-0, +-0) */
        for (int k = 0; k < 3; k++) o[k] = chance(r, 50) ? 0.0f : -0.0f;
    if (!from_cam && chance(r, 3)) for (int k = 0; k < 3; k++) o[k] *= 1e30f / 8.0f;
    if (chance(r, 3)) for (int k = 0; k < 3; k++) d[k] *= 0x1p-140f; /* denormal */
    if (chance(r, 2)) for (int k = 0; k < 3; k++) d[k] *= 1e30f;
    /* the interval */
    unsigned q = below(r, 100);
    if (q >= (from_cam ? 97u : 70u)) {
        static const float tv[] = {0.0f, -0.0f, 0.5f, 1.0f, 2.0f, 3.0f, 1.5f, 0.25f,
                                   -1.0f, -INFINITY, INFINITY, 1e30f, 0x1p-149f, 3.4e38f};
        tmin = tv[below(r, sizeof tv / sizeof tv[0])];
        tmax = tv[below(r, sizeof tv / sizeof tv[0])];
        if (chance(r, 30)) tmin = -0.0f;
        if (chance(r, 30)) tmax = INFINITY;
        if (chance(r, 10)) tmax = tmin;
        if (style != S_GRID && chance(r, 30)) tmax = rangef(r, 0.0f, 20.0f);
    }
    /* special values, last */
    for (int k = 0; k < 3; k++) {
        if (from_cam) /* (a camera's rays: plain, most of them) */
            continue;
        maybe_special(r, style, &o[k]);
        maybe_special(r, style, &d[k]);
    }
    if (!from_cam) {
        maybe_special(r, style, &tmin);
        maybe_special(r, style, &tmax);
    }
    /* --coherent: 9 rays in 10 take the case's signs of d (whole packets
     * with one octant, where the box packets choose planes once) */
    if (c->coherent && (from_cam || !chance(r, 10)))
        for (int k = 0; k < 3; k++)
            d[k] = copysignf(d[k], ((c->coherent - 1) >> k) & 1 ? -1.0f : 1.0f);
    F(c, A_OX)[i] = o[0]; F(c, A_OY)[i] = o[1]; F(c, A_OZ)[i] = o[2];
    F(c, A_DX)[i] = d[0]; F(c, A_DY)[i] = d[1]; F(c, A_DZ)[i] = d[2];
    F(c, A_TMIN)[i] = tmin;
    F(c, A_TMAX)[i] = tmax;
}

static float garbage(rng *r) {
    return chance(r, 50) ? u2f((uint32_t)next64(r)) : special(r);
}

/* ------------------------------------------------------------------ */
/* Scene cases                                                          */
/* ------------------------------------------------------------------ */
enum { MK_SOUP, MK_INDEXED, MK_NULL };
static const char *const mkind_names[] = {"soup", "indexed", "empty soup (NULL)"};

/* a special value a scene accepts: NaN and infinities are left out (the
 * refused adds test those) */
static void maybe_special_finite(rng *r, int style, float *f) {
    float g = *f;
    maybe_special(r, style, &g);
    if (finite_bits(g))
        *f = g;
}

/* The triangles split into 1 to 3 meshes (some may be empty), now and then
 * one more empty mesh; each non-empty one a soup or an indexed mesh.  Half
 * of the indexed ones become a bumpy grid patch (two triangles per cell,
 * every inner vertex shared by six triangles). */
static void scene_split(rng *r, ccase *c, float *prims) {
    size_t count = c->count;
    int nm = 1 + (int)below(r, 3);
    size_t cut[MAX_MESHES + 1];
    cut[0] = 0;
    for (int m = 1; m < nm; m++)
        cut[m] = below(r, (uint32_t)count + 1);
    for (int a = 1; a < nm; a++) /* sort the cut points */
        for (int b = a + 1; b < nm; b++)
            if (cut[b] < cut[a]) { size_t t = cut[a]; cut[a] = cut[b]; cut[b] = t; }
    cut[nm] = count;
    int empty_at = chance(r, 12) ? (int)below(r, (uint32_t)nm + 1) : -1;
    c->nm = 0;
    for (int m = 0; m <= nm; m++) {
        if (m == empty_at) {
            c->mfirst[c->nm] = cut[m];
            c->mcount[c->nm] = 0;
            c->mkind[c->nm++] = chance(r, 50) ? MK_NULL : chance(r, 50) ? MK_SOUP : MK_INDEXED;
        }
        if (m == nm)
            break;
        c->mfirst[c->nm] = cut[m];
        c->mcount[c->nm] = cut[m + 1] - cut[m];
        c->mkind[c->nm++] = chance(r, 50) ? MK_INDEXED : MK_SOUP;
    }
    for (int m = 0; m < c->nm; m++) {
        size_t cnt = c->mcount[m];
        if (c->mkind[m] != MK_INDEXED || cnt < 2 || !chance(r, 50))
            continue;
        /* the patch: w cells a row, integer or random heights, at an offset */
        uint32_t w = 1 + below(r, 6);
        size_t rows = (cnt / 2 + w - 1) / w;
        float ox = coord(r, c->style), oy = coord(r, c->style);
        float *hgt = xcalloc((rows + 1) * (w + 1) * sizeof *hgt);
        for (size_t q = 0; q < (rows + 1) * (w + 1); q++)
            hgt[q] = c->style == S_GRID ? (float)((int)below(r, 3) - 1) : rangef(r, -1.0f, 1.0f);
        float *t = prims + 9 * c->mfirst[m];
        for (size_t j = 0; j + 1 < cnt; j += 2) {
            size_t cell = j / 2, x = cell % w, y = cell / w;
            float vx[4], vy[4], vz[4]; /* (x,y) (x+1,y) (x,y+1) (x+1,y+1) */
            for (int q = 0; q < 4; q++) {
                size_t xx = x + (size_t)(q & 1), yy = y + (size_t)(q >> 1);
                vx[q] = ox + (float)xx;
                vy[q] = oy + (float)yy;
                vz[q] = hgt[yy * (w + 1) + xx];
            }
            static const int tri[6] = {0, 1, 3, 0, 3, 2};
            for (int q = 0; q < 6; q++) {
                float *v = t + 9 * j + 3 * q;
                v[0] = vx[tri[q]]; v[1] = vy[tri[q]]; v[2] = vz[tri[q]];
            }
        }
        free(hgt);
    }
}

/* The indexed meshes' vertex and index arrays: each distinct vertex (by
 * bits) once, in order of first use, between a few unused ones; and the
 * refused add (a NaN or infinite coordinate in a copy of one mesh's input). */
static void scene_index(rng *r, ccase *c, const float *prims) {
    size_t nv_all = 0, ni_all = 0;
    for (int m = 0; m < c->nm; m++)
        if (c->mkind[m] == MK_INDEXED) {
            nv_all += 3 * c->mcount[m] + 4;
            ni_all += 3 * c->mcount[m];
        }
    float *xyz = xcalloc(3 * nv_all * sizeof *xyz);
    uint32_t *idx = xcalloc(ni_all * sizeof *idx);
    size_t nv = 0, ni = 0;
    for (int m = 0; m < c->nm; m++) {
        c->mv0[m] = nv;
        c->mi0[m] = ni;
        c->mnv[m] = 0;
        if (c->mkind[m] != MK_INDEXED)
            continue;
        size_t cnt = c->mcount[m], v0 = nv;
        uint32_t pre = below(r, 3), post = below(r, 3);
        for (uint32_t q = 0; q < pre; q++, nv++)
            for (int a = 0; a < 3; a++)
                xyz[3 * nv + (size_t)a] = coord(r, c->style);
        /* open addressing on the 96 bits of a vertex */
        size_t cap = 8;
        while (cap < 6 * cnt + 2)
            cap *= 2;
        uint32_t *slot = xcalloc(cap * sizeof *slot); /* vertex + 1, or 0 */
        for (size_t j = 0; j < 3 * cnt; j++) {
            const float *p = prims + 3 * (3 * c->mfirst[m] + j);
            uint64_t h = mix64(((uint64_t)f2u(p[0]) << 32 | f2u(p[1])) ^ mix64(f2u(p[2])));
            size_t at = (size_t)h & (cap - 1);
            while (slot[at] && memcmp(xyz + 3 * (v0 + pre + slot[at] - 1), p, 12))
                at = (at + 1) & (cap - 1);
            if (!slot[at]) {
                memcpy(xyz + 3 * nv, p, 12);
                nv++;
                slot[at] = (uint32_t)(nv - v0 - pre);
            }
            idx[ni++] = pre + slot[at] - 1;
        }
        free(slot);
        for (uint32_t q = 0; q < post; q++, nv++)
            for (int a = 0; a < 3; a++)
                xyz[3 * nv + (size_t)a] = coord(r, c->style);
        c->mnv[m] = nv - v0;
    }
    c->used[A_XYZ] = c->used[A_IDX] = 1;
    c->bytes[A_XYZ] = 3 * nv * sizeof(float);
    c->bytes[A_IDX] = ni * sizeof(uint32_t);
    c->off[A_XYZ] = (size_t)below(r, 16) * 4;
    c->off[A_IDX] = (size_t)below(r, 16) * 4;
    c->init[A_XYZ] = xcalloc(c->bytes[A_XYZ]);
    c->init[A_IDX] = xcalloc(c->bytes[A_IDX]);
    if (nv) memcpy(c->init[A_XYZ], xyz, c->bytes[A_XYZ]);
    if (ni) memcpy(c->init[A_IDX], idx, c->bytes[A_IDX]);
    free(xyz);
    free(idx);

    static const uint32_t bad[] = {0x7fc00000, 0xffc00000, 0x7f800000, 0xff800000,
                                   0x7f800001, 0x7fc12345};
    c->bad_mesh = -1;
    if (chance(r, 30)) {
        c->bad_mesh = (int)below(r, (uint32_t)c->nm);
        size_t floats = c->mkind[c->bad_mesh] == MK_INDEXED ? 3 * c->mnv[c->bad_mesh]
                                                             : 9 * c->mcount[c->bad_mesh];
        c->bad_at = below(r, (uint32_t)(floats ? floats : 9));
        c->bad_bits = bad[below(r, sizeof bad / sizeof bad[0])];
    }
}

/* Records before a scene query: as for the brute-force kernels, with mesh
 * ids; held records name a real (mesh, prim) but in one case in seven
 * one lane names one the scene does not have (rp_scene_normals must then
 * refuse the whole batch).  Every prim is below BRUTE_BASE or RP_NO_HIT. */
static void scene_prefill(rng *r, ccase *c) {
    unsigned pz = below(r, 100);
    c->prefill = pz < 35 ? P_RESET : pz < 50 ? P_GARBAGE : P_EXISTING;
    float *t = F(c, A_HT), *u = F(c, A_HU), *v = F(c, A_HV);
    uint32_t *prim = (uint32_t *)(void *)c->init[A_HPRIM];
    uint32_t *mesh = c->used[A_MESH] ? (uint32_t *)(void *)c->init[A_MESH] : NULL;
    int nonempty[MAX_MESHES], nne = 0;
    for (int m = 0; m < c->nm; m++)
        if (c->mcount[m] && (mesh || m == 0))
            nonempty[nne++] = m;
    size_t bad_lane = c->n && chance(r, 14) ? below(r, (uint32_t)c->n) : SIZE_MAX;
    for (size_t i = 0; i < c->n; i++) {
        if (c->prefill == P_RESET) {
            t[i] = INFINITY; u[i] = v[i] = 0.0f;
            F(c, A_HNX)[i] = F(c, A_HNY)[i] = F(c, A_HNZ)[i] = 0.0f;
            prim[i] = RP_NO_HIT;
            if (mesh) mesh[i] = RP_NO_HIT;
            continue;
        }
        t[i] = garbage(r); u[i] = garbage(r); v[i] = garbage(r);
        F(c, A_HNX)[i] = garbage(r); F(c, A_HNY)[i] = garbage(r); F(c, A_HNZ)[i] = garbage(r);
        prim[i] = RP_NO_HIT;
        if (mesh) mesh[i] = (uint32_t)next64(r); /* no hit: ignored */
        if (c->prefill == P_EXISTING && nne && chance(r, 60)) {
            int m = nonempty[below(r, (uint32_t)nne)];
            prim[i] = below(r, (uint32_t)c->mcount[m]);
            if (mesh) mesh[i] = (uint32_t)m;
            if (c->style == S_GRID || chance(r, 50))
                F(c, A_TMAX)[i] = gridf(r) + 4.0f;
            if (chance(r, 10))
                F(c, A_TMAX)[i] = F(c, A_TMIN)[i];
            t[i] = chance(r, 85) ? F(c, A_TMAX)[i] : garbage(r);
        }
        if (i == bad_lane && c->prefill != P_RESET) {
            unsigned w = below(r, 3);
            uint32_t m = mesh ? below(r, (uint32_t)c->nm) : 0;
            if (w == 0 && mesh) m = (uint32_t)c->nm + below(r, 3); /* no such mesh */
            prim[i] = w == 1 ? (uint32_t)(next64(r) >> 33) : (uint32_t)c->mcount[m < (uint32_t)c->nm ? m : 0] + below(r, 3);
            if (mesh) mesh[i] = m;
            t[i] = F(c, A_TMAX)[i];
        }
    }
}

/* Builds case `iter` of kernel k from seed (n, count < 0: chosen at random). */
static void gen_case(ccase *c, int k, uint64_t seed, uint64_t iter, long force_n,
                     long force_count, int coherent) {
    const kdesc *kd = &kernels[k];
    rng r = {mix64(seed ^ mix64(((uint64_t)k << 40) ^ iter ^ 0x5eedULL))};
    memset(c, 0, sizeof *c);
    c->k = k;
    c->iter = iter;
    c->flags = kd->flags;
    c->style = (int)below(&r, S_NSTYLES);
    if (chance(&r, 20)) c->style = S_GRID; /* the exact-boundary cases deserve more */

    /* sizes */
    unsigned sz = below(&r, 100);
    size_t n, count;
    if (sz < 25) n = below(&r, 18); /* below, at and past one SIMD width */
    else if (sz < 80) n = below(&r, 101);
    else if (sz < 92) n = 101 + below(&r, 200);
    else n = chance(&r, 50) ? 1000 : 4099;
    unsigned cz = below(&r, 100);
    if (n > 300) count = below(&r, 9);
    else if (cz < 90 || n > 64) count = below(&r, 71);
    else count = 1000;
    if (kd->kind == K_INTERSECT) count = 1;
    /* intersect_aabb: whole blocks of every width more often (each variant's
     * common path, aabb_plain in src/simd/closest.h, takes only n a multiple
     * of its width, with no active mask, both tnear and tfar and a valid
     * box; an invalid one more often below) */
    if (kd->kind == K_INTERSECT && chance(&r, 30)) n = 16 * (size_t)(1 + below(&r, 8));
    if (kd->scene && n <= 300) { /* the empty and the one-triangle scene, more often */
        unsigned q = below(&r, 100);
        if (q < 5) count = 0;
        else if (q < 10) count = 1;
    }
    if (force_n >= 0) n = (size_t)force_n;
    if (force_count >= 0 && kd->kind != K_INTERSECT) count = (size_t)force_count;
    c->n = n;
    c->count = count;

    /* index_base: index_base + count <= RP_NO_HIT */
    unsigned bz = below(&r, 100);
    if (bz < 40) c->base = 0;
    else if (bz < 60) c->base = below(&r, 100);
    else if (bz < 80) c->base = (uint32_t)(next64(&r) >> 33);
    else c->base = RP_NO_HIT - (uint32_t)count - below(&r, 3);
    if (kd->kind != K_CLOSEST || kd->scene) c->base = 0;

    /* which arrays take part */
    for (int a = A_OX; a <= A_RDZ; a++) c->used[a] = 1;
    c->used[A_PRIMS] = 1;
    c->active_mode = (int)below(&r, 100);
    c->active_mode = c->active_mode < 25 ? AM_NULL : c->active_mode < 45 ? AM_ALL
                     : c->active_mode < 55 ? AM_NONE : AM_HOLES;
    c->used[A_ACTIVE] = c->active_mode != AM_NULL;
    if (kd->kind == K_INTERSECT) {
        c->used[A_HIT] = 1;
        c->used[A_TNEAR] = !chance(&r, 15);
        c->used[A_TFAR] = !chance(&r, 15);
        c->is_out[A_HIT] = c->is_out[A_TNEAR] = c->is_out[A_TFAR] = 1;
    } else if (kd->kind == K_OCCLUDED) {
        c->used[A_OCC] = 1;
        c->is_out[A_OCC] = 1;
    } else {
        for (int a = A_HT; a <= A_HNZ; a++) c->used[a] = c->is_out[a] = 1;
        c->is_out[A_TMAX] = 1;
    }
    c->is_out[A_RDX] = c->is_out[A_RDY] = c->is_out[A_RDZ] = 1; /* from rp_rays_prepare */
    if (kd->scene && kd->kind == K_CLOSEST) /* else mesh = NULL */
        c->used[A_MESH] = c->is_out[A_MESH] = !chance(&r, 15);

    for (int a = 0; a < A_COUNT; a++) {
        if (!c->used[a] || a == A_XYZ || a == A_IDX) continue;
        int t = atype(a);
        size_t esz = t == T_U8 ? 1 : 4;
        if (t == T_PRIM)
            c->bytes[a] = count * (size_t)prim_floats(kd->family) * sizeof(float);
        else
            c->bytes[a] = n * esz;
        c->off[a] = (size_t)below(&r, 16) * (t == T_U8 ? 1 : 4);
        c->init[a] = xcalloc(c->bytes[a]);
    }

    /* primitives */
    int pf = prim_floats(kd->family);
    float *prims = F(c, A_PRIMS);
    for (size_t j = 0; j < count; j++) {
        float *p = prims + j * (size_t)pf;
        const float *prev = j ? p - pf : NULL;
        if (j && chance(&r, 10)) /* neighbour of any earlier one, not just the last */
            prev = prims + (size_t)pf * below(&r, (uint32_t)j);
        switch (kd->family) {
        case F_BOX: gen_box(&r, c->style, p, prev); break;
        case F_TRI:
            gen_tri(&r, c->style, p, prev);
            if (kd->scene) /* a huge copy made huge again: FLT_MAX, a scene takes no inf */
                for (int q = 0; q < 9; q++)
                    if (!finite_bits(p[q]))
                        p[q] = p[q] != p[q] ? 0.0f : p[q] < 0.0f ? -FLT_MAX : FLT_MAX;
            break;
        case F_SPHERE: gen_sphere(&r, c->style, p, prev); break;
        default: gen_plane(&r, c->style, p, prev); break;
        }
    }
    if (kd->kind == K_INTERSECT && chance(&r, 15)) { /* an invalid box: a NaN plane (the
                                                       * slab skips it: a hit unless the
                                                       * validity says no), or inverted */
        int a = (int)below(&r, 6); /* (k is the kernel) */
        if (chance(&r, 60)) {
            prims[a] = NAN;
        } else {
            a %= 3;
            float t = prims[a];
            prims[a] = prims[3 + a] + 1.0f;
            prims[3 + a] = t;
        }
    }
    if (kd->scene)
        scene_split(&r, c, prims);
    /* rays (aimed at the primitives before those get special values) */
    if (coherent) {
        c->coherent = 1 + (int)below(&r, 8);
        c->camera = kd->scene && chance(&r, 50);
        for (int k = 0; c->camera && k < 3; k++)
            c->cam[k] = coord(&r, c->style);
        c->ao = kd->scene && !c->camera && count && chance(&r, 50);
    }
    if (c->ao) { /* a tenth of the longest side of the triangles' box */
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (size_t j = 0; j < 3 * count; j++)
            for (int k = 0; k < 3; k++) {
                float v = prims[3 * j + (size_t)k];
                lo[k] = v < lo[k] ? v : lo[k];
                hi[k] = v > hi[k] ? v : hi[k];
            }
        c->aolen = 0.0f;
        for (int k = 0; k < 3; k++)
            c->aolen = hi[k] - lo[k] > c->aolen ? hi[k] - lo[k] : c->aolen;
        c->aolen *= 0.1f;
        if (!finite_bits(c->aolen))
            c->aolen = 1.0f;
    }
    float aoo[3] = {0.0f, 0.0f, 0.0f};
    for (size_t i = 0; i < n; i++) {
        if (c->ao && i % 4 == 0) /* the next four rays' point */
            ao_point(&r, prims, count, aoo);
        gen_ray(&r, c, i, prims);
        if (c->ao && !chance(&r, 3))
            ao_ray(&r, c, i, aoo);
    }
    for (size_t j = 0; j < count * (size_t)pf; j++) {
        if (kd->scene)
            maybe_special_finite(&r, c->style, &prims[j]);
        else
            maybe_special(&r, c->style, &prims[j]);
    }
    if (kd->scene)
        scene_index(&r, c, prims);

    /* rdx/rdy/rdz: overwritten by rp_rays_prepare */
    for (int a = A_RDX; a <= A_RDZ; a++)
        for (size_t i = 0; i < n; i++)
            F(c, a)[i] = garbage(&r);

    if (c->used[A_ACTIVE]) {
        unsigned holes = 10 + below(&r, 80);
        for (size_t i = 0; i < n; i++) {
            uint8_t v = 0;
            if (c->active_mode == AM_ALL || (c->active_mode == AM_HOLES && !chance(&r, holes)))
                v = chance(&r, 70) ? 1 : (uint8_t)(1 + below(&r, 255)); /* any nonzero */
            c->init[A_ACTIVE][i] = v;
        }
    }

    /* outputs before the call */
    if (kd->kind == K_INTERSECT) {
        for (size_t i = 0; i < n; i++) {
            c->init[A_HIT][i] = (uint8_t)next64(&r);
            if (c->used[A_TNEAR]) F(c, A_TNEAR)[i] = garbage(&r);
            if (c->used[A_TFAR]) F(c, A_TFAR)[i] = garbage(&r);
        }
    } else if (kd->kind == K_OCCLUDED) {
        int zeros = chance(&r, 50);
        for (size_t i = 0; i < n; i++)
            c->init[A_OCC][i] = zeros ? 0 : chance(&r, 50) ? 0 : chance(&r, 50) ? 1 : (uint8_t)next64(&r);
    } else if (kd->scene) {
        scene_prefill(&r, c);
    } else {
        unsigned pz = below(&r, 100);
        c->prefill = pz < 35 ? P_RESET : pz < 50 ? P_GARBAGE : P_EXISTING;
        for (size_t i = 0; i < n; i++) {
            float *t = F(c, A_HT), *u = F(c, A_HU), *v = F(c, A_HV);
            uint32_t *prim = (uint32_t *)(void *)c->init[A_HPRIM];
            if (c->prefill == P_RESET) {
                t[i] = INFINITY; u[i] = v[i] = 0.0f;
                F(c, A_HNX)[i] = F(c, A_HNY)[i] = F(c, A_HNZ)[i] = 0.0f;
                prim[i] = RP_NO_HIT;
                continue;
            }
            t[i] = garbage(&r); u[i] = garbage(&r); v[i] = garbage(&r);
            F(c, A_HNX)[i] = garbage(&r); F(c, A_HNY)[i] = garbage(&r); F(c, A_HNZ)[i] = garbage(&r);
            prim[i] = RP_NO_HIT;
            if (c->prefill == P_EXISTING && chance(&r, 60)) {
                unsigned w = below(&r, 4);
                if (w == 0) prim[i] = (uint32_t)next64(&r);
                else if (w == 1 || !count) prim[i] = below(&r, 5);
                else prim[i] = c->base + below(&r, (uint32_t)count); /* normals redone */
                if (prim[i] == RP_NO_HIT) prim[i] = 0;
                /* the record's t is the ray's tmax: a tie with a primitive at
                 * exactly that t must keep the record */
                if (c->style == S_GRID || chance(&r, 50))
                    F(c, A_TMAX)[i] = gridf(&r) + 4.0f;
                if (chance(&r, 10))
                    F(c, A_TMAX)[i] = F(c, A_TMIN)[i];
                t[i] = chance(&r, 85) ? F(c, A_TMAX)[i] : garbage(&r);
            }
        }
    }

    /* primitives fed in chunks, in increasing index order */
    c->nchunks = 1;
    c->chunk_end[0] = count;
    if (kd->kind != K_INTERSECT && !kd->scene && count > 1 && chance(&r, 30)) {
        c->nchunks = 2 + (int)below(&r, MAX_CHUNKS - 1);
        size_t a = below(&r, (uint32_t)count + 1), b = below(&r, (uint32_t)count + 1);
        if (a > b) { size_t t = a; a = b; b = t; }
        if (c->nchunks == 2) { c->chunk_end[0] = a; c->chunk_end[1] = count; }
        else { c->chunk_end[0] = a; c->chunk_end[1] = b; c->chunk_end[2] = count; }
    }
    /* scene cases: the traversal, by the hint (drawn last: the earlier draws,
     * and so the cases, stay as they were) */
    if (kd->scene) {
        unsigned h = below(&r, 3);
        c->hint = h == 1 ? RP_COHERENT : h == 2 ? RP_INCOHERENT : 0;
    }
}

/* ------------------------------------------------------------------ */
/* Running a case through one variant                                   */
/* ------------------------------------------------------------------ */
#define MAX_STATUS 8

typedef struct run {
    th_buf g[A_COUNT]; /* guard, offset, data, guard (harness.h) */
    unsigned char *rd_after_prepare[3];
    rp_status st[MAX_STATUS];
    int nst;
    int struct_changed; /* the rp_rays / rp_hits structs were modified */
    int scene_bad;      /* scene cases: building the scene went wrong */
    char scene_msg[200]; /* ... the first thing that did */
} run;

static unsigned char *data(const ccase *c, const run *r, int a) {
    (void)c;
    return r->g[a].p;
}

static void run_free(run *r) {
    for (int a = 0; a < A_COUNT; a++)
        th_buf_free(&r->g[a]);
    for (int k = 0; k < 3; k++)
        free(r->rd_after_prepare[k]);
    memset(r, 0, sizeof *r);
}

static void add_status(run *r, rp_status s) {
    if (r->nst < MAX_STATUS)
        r->st[r->nst++] = s;
}

static void run_scene(const ccase *c, run *r, rp_rays *rays, rp_hits *hits, const uint8_t *active,
                      int brute);

/* brute (scene cases only): brute force over the scene's triangles instead
 * of the scene query, with the records mapped to (mesh, prim) */
static void run_case_mode(const ccase *c, run *r, rp_isa isa, int brute) {
    const kdesc *kd = &kernels[c->k];
    memset(r, 0, sizeof *r);
    for (int a = 0; a < A_COUNT; a++)
        if (c->used[a])
            th_buf_new(&r->g[a], a, c->init[a], c->bytes[a], c->off[a]);
#define FP(a) ((float *)(void *)data(c, r, a))
    rp_rays rays;
    th_rays_of(&rays, c->n, r->g);
    rp_status s = rp_set_isa(isa);
    if (s != RP_OK) {
        fprintf(stderr, "rp_check: rp_set_isa(%s) failed: %s\n", rp_isa_name(isa), rp_status_string(s));
        exit(2);
    }
    /* under the variant: its rays_prepare loop, whose reciprocals are
     * outputs compared with the scalar run's (is_out) */
    add_status(r, rp_rays_prepare(&rays));
    for (int k = 0; k < 3; k++) {
        r->rd_after_prepare[k] = xcalloc(c->bytes[A_RDX + k]);
        memcpy(r->rd_after_prepare[k], data(c, r, A_RDX + k), c->bytes[A_RDX + k]);
    }
    rp_hits hits;
    memset(&hits, 0, sizeof hits);
    if (kd->kind == K_CLOSEST)
        th_hits_of(&hits, c->n, r->g);
    const rp_rays rays0 = rays;
    const rp_hits hits0 = hits;
    const uint8_t *active = c->used[A_ACTIVE] ? data(c, r, A_ACTIVE) : NULL;
    const unsigned char *prims = data(c, r, A_PRIMS);
    size_t psz = (size_t)prim_floats(kd->family) * sizeof(float);

    if (kd->scene) {
        run_scene(c, r, &rays, &hits, active, brute);
    } else {
        /* the public calls, chunk after chunk (intersect: one box, one call) */
        int tk = th_kernel_of(kd->family, kd->kind);
        uint8_t *hit = c->used[A_HIT] ? data(c, r, A_HIT) : NULL;
        uint8_t *occ = c->used[A_OCC] ? data(c, r, A_OCC) : NULL;
        float *tnear = c->used[A_TNEAR] ? FP(A_TNEAR) : NULL;
        float *tfar = c->used[A_TFAR] ? FP(A_TFAR) : NULL;
        size_t start = 0;
        for (int ch = 0; ch < (kd->kind == K_INTERSECT ? 1 : c->nchunks); ch++) {
            size_t end = kd->kind == K_INTERSECT ? c->count : c->chunk_end[ch], cnt = end - start;
            add_status(r, th_call(tk, c->flags, &rays, active, prims + start * psz, cnt,
                                  c->base + (uint32_t)start, &hits, hit, tnear, tfar, occ));
            start = end;
        }
    }
    /* normals are scalar code for every variant, from the variant's records */
    rp_set_isa(RP_ISA_SCALAR);
    rp_status ns;
    if (!kd->scene && th_call_normals(th_kernel_of(kd->family, kd->kind), &rays, &hits, prims,
                                      c->count, c->base, &ns))
        add_status(r, ns);
    r->struct_changed = memcmp(&rays0, &rays, sizeof rays) != 0 || memcmp(&hits0, &hits, sizeof hits) != 0;
    for (int a = 0; a < A_COUNT; a++)
        th_buf_unpoison(&r->g[a]);
#undef FP
}

static void run_case(const ccase *c, run *r, rp_isa isa) { run_case_mode(c, r, isa, 0); }

/* ------------------------------------------------------------------ */
/* Scene cases: the query, or brute force over the same triangles       */
/* ------------------------------------------------------------------ */
static void scene_fail(run *r, const char *fmt, ...) TAP_LIKE_PRINTF;
static void scene_fail(run *r, const char *fmt, ...) {
    if (!r->scene_bad++) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->scene_msg, sizeof r->scene_msg, fmt, ap);
        va_end(ap);
    }
}

/* Mesh m's add (soup or indexed) from the run's guarded arrays; with
 * bad_bits, a copy with float bad_at replaced (a one-triangle soup when
 * the mesh has no float to replace). */
static rp_status scene_add(const ccase *c, const run *r, rp_scene *s, int m, int bad,
                           uint32_t *id) {
    const float *tris = (const float *)(const void *)data(c, r, A_PRIMS) + 9 * c->mfirst[m];
    const float *xyz = (const float *)(const void *)data(c, r, A_XYZ) + 3 * c->mv0[m];
    const uint32_t *idx = (const uint32_t *)(const void *)data(c, r, A_IDX) + c->mi0[m];
    size_t cnt = c->mcount[m];
    if (!bad) {
        if (c->mkind[m] == MK_INDEXED)
            return rp_scene_add_mesh(s, c->mnv[m] ? xyz : NULL, c->mnv[m], cnt ? idx : NULL, cnt, id);
        return rp_scene_add_soup(s, c->mkind[m] == MK_NULL ? NULL : (const rp_triangle *)(const void *)tris,
                                 cnt, id);
    }
    int indexed = c->mkind[m] == MK_INDEXED && c->mnv[m];
    size_t floats = indexed ? 3 * c->mnv[m] : 9 * cnt;
    rp_status st;
    if (!floats) {
        rp_triangle one;
        memset(&one, 0, sizeof one);
        ((float *)(void *)&one)[c->bad_at % 9] = u2f(c->bad_bits);
        return rp_scene_add_soup(s, &one, 1, id);
    }
    float *copy = xcalloc(floats * sizeof *copy);
    memcpy(copy, indexed ? xyz : tris, floats * sizeof *copy);
    copy[c->bad_at % floats] = u2f(c->bad_bits);
    if (indexed)
        st = rp_scene_add_mesh(s, copy, c->mnv[m], cnt ? idx : NULL, cnt, id);
    else
        st = rp_scene_add_soup(s, (const rp_triangle *)(const void *)copy, cnt, id);
    free(copy);
    return st;
}

static void run_scene(const ccase *c, run *r, rp_rays *rays, rp_hits *hits, const uint8_t *active,
                      int brute) {
    const kdesc *kd = &kernels[c->k];
    const rp_triangle *all = (const rp_triangle *)(const void *)data(c, r, A_PRIMS);
    uint32_t *mesh = c->used[A_MESH] ? (uint32_t *)(void *)data(c, r, A_MESH) : NULL;
    if (brute) {
        /* every triangle in scene order, one call, then prim split into
         * (mesh, prim): the new records are those at BRUTE_BASE and up (the
         * records held before are all below it) */
        rp_set_isa(RP_ISA_SCALAR);
        if (kd->kind == K_OCCLUDED) {
            add_status(r, rp_occluded_triangle(rays, active, all, c->count, c->flags,
                                               data(c, r, A_OCC)));
            return;
        }
        add_status(r, rp_closest_triangle(rays, active, all, c->count, BRUTE_BASE, c->flags, hits));
        for (size_t i = 0; i < c->n; i++) {
            uint32_t p = hits->prim[i];
            if (p == RP_NO_HIT || p < BRUTE_BASE)
                continue;
            size_t g = p - BRUTE_BASE;
            int m = 0;
            while (m < c->nm && !(g >= c->mfirst[m] && g < c->mfirst[m] + c->mcount[m]))
                m++;
            hits->prim[i] = (uint32_t)(g - c->mfirst[m]);
            if (mesh)
                mesh[i] = (uint32_t)m;
        }
        /* rp_scene_normals, as documented: refused as a whole, or each hit's
         * normal from rp_hits_normals_triangle on the caller's triangles */
        rp_status ns = RP_OK;
        if (c->n && !mesh && c->nm != 1)
            ns = RP_ERR_NULL;
        for (size_t i = 0; i < c->n && ns == RP_OK; i++) {
            uint32_t p = hits->prim[i], m = mesh ? mesh[i] : 0;
            if (p != RP_NO_HIT && (m >= (uint32_t)c->nm || p >= c->mcount[m]))
                ns = RP_ERR_INVALID;
        }
        if (ns == RP_OK && c->n) {
            uint32_t *only = xcalloc(c->n * sizeof *only);
            for (int m = 0; m < c->nm; m++) {
                for (size_t i = 0; i < c->n; i++)
                    only[i] = hits->prim[i] != RP_NO_HIT && (mesh ? mesh[i] : 0) == (uint32_t)m
                                  ? hits->prim[i] : RP_NO_HIT;
                rp_hits h = *hits;
                h.prim = only;
                rp_status st = rp_hits_normals_triangle(rays, &h, all + c->mfirst[m], c->mcount[m], 0);
                if (st)
                    scene_fail(r, "rp_hits_normals_triangle for mesh %d: %s", m, rp_status_string(st));
            }
            free(only);
        }
        add_status(r, ns);
        return;
    }

    rp_scene *s = NULL;
    rp_status st = rp_scene_create(&s);
    if (st) {
        scene_fail(r, "rp_scene_create: %s", rp_status_string(st));
        return;
    }
    for (int m = 0; m < c->nm; m++) {
        uint32_t id = 0xdeadbeefu;
        if (m == c->bad_mesh) {
            st = scene_add(c, r, s, m, 1, &id);
            if (st != RP_ERR_INVALID || id != 0xdeadbeefu || rp_scene_triangle_count(s) != c->mfirst[m])
                scene_fail(r, "a mesh with a coordinate 0x%08" PRIx32 " before mesh %d: %s, id %" PRIu32
                           ", %zu triangles (want invalid argument, id untouched, %zu)",
                           c->bad_bits, m, rp_status_string(st), id, rp_scene_triangle_count(s),
                           c->mfirst[m]);
        }
        st = scene_add(c, r, s, m, 0, &id);
        if (st != RP_OK || id != (uint32_t)m || rp_scene_triangle_count(s) != c->mfirst[m] + c->mcount[m])
            scene_fail(r, "mesh %d (%s): %s, id %" PRIu32 ", %zu triangles", m,
                       mkind_names[c->mkind[m]], rp_status_string(st), id, rp_scene_triangle_count(s));
    }
    st = rp_scene_build(s);
    if (st != RP_OK || rp_scene_triangle_count(s) != c->count)
        scene_fail(r, "rp_scene_build: %s, %zu triangles", rp_status_string(st), rp_scene_triangle_count(s));
    if (kd->kind == K_OCCLUDED) {
        add_status(r, rp_scene_occluded(s, rays, active, c->flags | c->hint, data(c, r, A_OCC)));
    } else {
        add_status(r, rp_scene_closest(s, rays, active, c->flags | c->hint, hits, mesh));
        add_status(r, rp_scene_normals(s, rays, hits, mesh));
    }
    rp_scene_free(s);
}

/* ------------------------------------------------------------------ */
/* Comparing and reporting                                              */
/* ------------------------------------------------------------------ */
static size_t elem_size(int a) { return th_array_elem(a); }

static uint32_t elem_bits(const unsigned char *p, int a, size_t i) {
    if (elem_size(a) == 1)
        return p[i];
    uint32_t u;
    memcpy(&u, p + 4 * i, 4);
    return u;
}

static void print_elem(const unsigned char *p, int a, size_t i) {
    uint32_t u = elem_bits(p, a, i);
    if (atype(a) == T_F32)
        printf("%-16a (0x%08" PRIx32 ")", (double)u2f(u), u);
    else if (atype(a) == T_U32)
        printf("%-16" PRIu32 " (0x%08" PRIx32 ")", u, u);
    else
        printf("%-16u", (unsigned)u);
}

static void print_prim(const ccase *c, size_t j) {
    int fam = kernels[c->k].family, pf = prim_floats(fam);
    const float *p = F(c, A_PRIMS) + j * (size_t)pf;
    printf("    primitive %zu (record %" PRIu32 "): ", j, c->base + (uint32_t)j);
    switch (fam) {
    case F_BOX:
        printf("min (%a, %a, %a) max (%a, %a, %a)\n", (double)p[0], (double)p[1], (double)p[2],
               (double)p[3], (double)p[4], (double)p[5]);
        break;
    case F_TRI:
        printf("v0 (%a, %a, %a) v1 (%a, %a, %a) v2 (%a, %a, %a)\n", (double)p[0], (double)p[1],
               (double)p[2], (double)p[3], (double)p[4], (double)p[5], (double)p[6],
               (double)p[7], (double)p[8]);
        break;
    case F_SPHERE:
        printf("center (%a, %a, %a) radius %a\n", (double)p[0], (double)p[1], (double)p[2], (double)p[3]);
        break;
    default:
        printf("n (%a, %a, %a) d %a\n", (double)p[0], (double)p[1], (double)p[2], (double)p[3]);
        break;
    }
}

/* Outputs of ray i compared between two runs; returns 1 if they differ. */
static int lane_differs(const ccase *c, const run *x, const run *y, size_t i) {
    for (int a = 0; a < A_COUNT; a++)
        if (c->used[a] && c->is_out[a] && i * elem_size(a) < c->bytes[a] &&
            elem_bits(data(c, x, a), a, i) != elem_bits(data(c, y, a), a, i))
            return 1;
    return 0;
}

static int runs_differ(const ccase *c, const run *x, const run *y) {
    if (x->nst != y->nst || memcmp(x->st, y->st, sizeof x->st[0] * (size_t)x->nst))
        return 1;
    for (int a = 0; a < A_COUNT; a++)
        if (c->used[a] && c->is_out[a] && memcmp(data(c, x, a), data(c, y, a), c->bytes[a]))
            return 1;
    return 0;
}

/* Guard bytes and inputs of one run: returns the number of damaged arrays
 * and, if print is set, says what was damaged. */
static int check_integrity(const ccase *c, const run *r, const char *who, int print) {
    int bad = 0;
    for (int a = 0; a < A_COUNT; a++) {
        if (!c->used[a]) continue;
        const th_buf *g = &r->g[a];
        size_t lo = g->lead, hi = lo + g->bytes, p = th_buf_first_bad(g);
        if (p != SIZE_MAX) {
            if (print)
                printf("  %s: guard bytes of %s overwritten: byte %s%zu %s the array is 0x%02x, expected 0x%02x\n",
                       who, anames[a], p < lo ? "-" : "+", p < lo ? lo - p : p - hi,
                       p < lo ? "before" : "after", g->block[p], th_guard_byte(p, a));
            bad++;
        }
        const unsigned char *want = c->init[a];
        if (a >= A_RDX && a <= A_RDZ)
            want = r->rd_after_prepare[a - A_RDX];
        else if (c->is_out[a])
            continue;
        if (c->bytes[a] && memcmp(data(c, r, a), want, c->bytes[a])) {
            size_t e = 0, es = elem_size(a);
            while (e * es < c->bytes[a] && !memcmp(data(c, r, a) + e * es, want + e * es, es))
                e++;
            if (print) {
                printf("  %s: input %s modified at %s %zu: ", who, anames[a], atype(a) == T_PRIM ? "float" : "element", e);
                if (atype(a) == T_U8)
                    printf("0x%02x -> 0x%02x\n", want[e], data(c, r, a)[e]);
                else
                    printf("%a -> %a\n", (double)u2f(elem_bits(want, a, e)),
                           (double)u2f(elem_bits(data(c, r, a), a, e)));
            }
            bad++;
        }
    }
    if (r->struct_changed) {
        if (print)
            printf("  %s: the rp_rays or rp_hits struct was modified\n", who);
        bad++;
    }
    if (r->scene_bad) {
        if (print)
            printf("  %s: building the scene: %s\n", who, r->scene_msg);
        bad++;
    }
    return bad;
}

static void describe_case(const ccase *c) {
    printf("  case %" PRIu64 ": n=%zu count=%zu index_base=%" PRIu32 " style=%s active=%s",
           c->iter, c->n, c->count, c->base, style_names[c->style], active_names[c->active_mode]);
    if (kernels[c->k].kind == K_CLOSEST)
        printf(" prefill=%s", prefill_names[c->prefill]);
    if (kernels[c->k].kind == K_INTERSECT)
        printf(" tnear=%s tfar=%s", c->used[A_TNEAR] ? "array" : "NULL", c->used[A_TFAR] ? "array" : "NULL");
    if (c->nchunks > 1) {
        printf(" chunks=[0");
        for (int ch = 0; ch < c->nchunks; ch++)
            printf(",%zu", c->chunk_end[ch]);
        printf(")");
    }
    if (kernels[c->k].scene) {
        printf("\n  scene of %zu triangles in %d meshes:", c->count, c->nm);
        for (int m = 0; m < c->nm; m++)
            printf(" [%zu, %zu) %s%s", c->mfirst[m], c->mfirst[m] + c->mcount[m],
                   mkind_names[c->mkind[m]], m == c->bad_mesh ? " (after a refused add)" : "");
        printf("; mesh array %s; hint %s", c->used[A_MESH] ? "given" : "NULL",
               c->hint == RP_COHERENT ? "RP_COHERENT" : c->hint == RP_INCOHERENT ? "RP_INCOHERENT" : "none");
    }
    printf("\n  float offsets of the arrays:");
    for (int a = 0; a < A_COUNT; a++)
        if (c->used[a])
            printf(" %s+%zu", anames[a], c->off[a] / elem_size(a == A_PRIMS ? A_OX : a));
    printf("\n");
}

/* Sub-case: ray i of c alone (n = 1, or n = 16 with the ray in every
 * lane) against the primitives idx[0..m-1] (increasing), as one chunk with
 * the same interval, record and flags. */
static void make_sub(ccase *s, const ccase *c, size_t i, const size_t *idx, size_t m, size_t n) {
    int pf = prim_floats(kernels[c->k].family);
    size_t psz = (size_t)pf * sizeof(float);
    memset(s, 0, sizeof *s);
    s->k = c->k;
    s->iter = c->iter;
    s->n = n;
    s->count = m;
    s->base = c->base + (uint32_t)idx[0];
    s->flags = c->flags;
    s->style = c->style;
    s->active_mode = AM_NULL;
    s->prefill = c->prefill;
    s->nchunks = 1;
    s->chunk_end[0] = m;
    for (int a = 0; a < A_COUNT; a++) {
        s->used[a] = c->used[a] && a != A_ACTIVE;
        s->is_out[a] = c->is_out[a];
        if (!s->used[a]) continue;
        if (a == A_PRIMS) {
            s->bytes[a] = m * psz;
            s->init[a] = xcalloc(s->bytes[a]);
            for (size_t q = 0; q < m; q++)
                memcpy(s->init[a] + q * psz, c->init[a] + idx[q] * psz, psz);
            continue;
        }
        size_t es = elem_size(a);
        s->bytes[a] = n * es;
        s->init[a] = xcalloc(s->bytes[a]);
        for (size_t l = 0; l < n; l++)
            memcpy(s->init[a] + l * es, c->init[a] + i * es, es);
    }
}

/* Does ray i against just these primitives still differ? */
static int sub_fails(const ccase *c, size_t i, const size_t *idx, size_t m, rp_isa isa, size_t *n_out) {
    static const size_t ns[] = {1, 16};
    for (int q = 0; q < 2; q++) {
        ccase s;
        run a, b;
        make_sub(&s, c, i, idx, m, ns[q]);
        run_case(&s, &a, RP_ISA_SCALAR);
        run_case(&s, &b, isa);
        int bad = runs_differ(&s, &a, &b) || check_integrity(&s, &b, "x", 0);
        run_free(&a);
        run_free(&b);
        case_free(&s);
        if (bad) {
            *n_out = ns[q];
            return 1;
        }
    }
    return 0;
}

/* The smallest set of primitives that reproduces the mismatch of ray i:
 * a single one, else the pair the two runs chose. */
static void bisect_lane(const ccase *c, const run *ref, const run *var, size_t i, rp_isa isa) {
    size_t limit = c->count < 2000 ? c->count : 2000, n;
    int found = 0;
    for (size_t j = 0; j < limit && found < 3; j++) {
        if (sub_fails(c, i, &j, 1, isa, &n)) {
            printf("    -> primitive %zu alone against this ray (n=%zu, index_base %" PRIu32
                   ", same record) reproduces it\n", j, n, c->base + (uint32_t)j);
            print_prim(c, j);
            found++;
        }
    }
    if (found || c->count < 2)
        return;
    if (kernels[c->k].kind == K_CLOSEST) {
        uint32_t pr = elem_bits(data(c, ref, A_HPRIM), A_HPRIM, i);
        uint32_t pv = elem_bits(data(c, var, A_HPRIM), A_HPRIM, i);
        size_t jr = pr - c->base, jv = pv - c->base;
        if (pr != RP_NO_HIT && pv != RP_NO_HIT && jr < c->count && jv < c->count && jr != jv) {
            size_t idx[2] = {jr < jv ? jr : jv, jr < jv ? jv : jr};
            if (sub_fails(c, i, idx, 2, isa, &n)) {
                printf("    -> primitives %zu and %zu together against this ray (n=%zu, one chunk, "
                       "same record) reproduce it\n", idx[0], idx[1], n);
                return;
            }
        }
    }
    printf("    -> no single primitive (or pair chosen) reproduces it alone: it needs the "
           "combination (ties, chunks, lanes)\n");
}

/* --stats: what the reference did with the generated lanes, to see that
 * the cases reach hits, grazing hits, records kept and replaced, NaNs. */
typedef struct kstats {
    unsigned long lanes, active, hit, graze, kept, nan_out;
    unsigned long mt_lanes, mt_diff; /* Moller-Trumbore scene cases: lanes unlike brute force */
} kstats;

static void gather_stats(kstats *st, const ccase *c, const run *r) {
    const kdesc *kd = &kernels[c->k];
    for (size_t i = 0; i < c->n; i++) {
        int act = !c->used[A_ACTIVE] || c->init[A_ACTIVE][i];
        st->lanes++;
        st->active += act;
        if (!act) continue;
        if (kd->kind == K_INTERSECT) {
            st->hit += data(c, r, A_HIT)[i] != 0;
            if (c->used[A_TNEAR] && c->used[A_TFAR]) {
                float tn = u2f(elem_bits(data(c, r, A_TNEAR), A_TNEAR, i));
                float tf = u2f(elem_bits(data(c, r, A_TFAR), A_TFAR, i));
                st->graze += data(c, r, A_HIT)[i] && tn == tf;
                st->nan_out += tn != tn || tf != tf;
            }
        } else if (kd->kind == K_OCCLUDED) {
            st->hit += !c->init[A_OCC][i] && data(c, r, A_OCC)[i];
        } else {
            uint32_t p0 = elem_bits(c->init[A_HPRIM], A_HPRIM, i);
            uint32_t p1 = elem_bits(data(c, r, A_HPRIM), A_HPRIM, i);
            float t = u2f(elem_bits(data(c, r, A_HT), A_HT, i));
            st->hit += p1 != p0;
            st->kept += p0 != RP_NO_HIT && p1 == p0;
            st->nan_out += p1 != p0 && t != t;
            st->graze += p1 != p0 && t == F(c, A_TMIN)[i];
        }
    }
}

static int printed_reports;
#define MAX_REPORTS 16  /* in all */
#define MAX_KREPORTS 2  /* per kernel and variant */
#define MAX_LANES 3     /* per report */

/* The global index of a scene case's record (mesh, prim) of ray i, or SIZE_MAX. */
static size_t scene_global(const ccase *c, const run *x, size_t i) {
    uint32_t p = elem_bits(data(c, x, A_HPRIM), A_HPRIM, i);
    uint32_t m = c->used[A_MESH] ? elem_bits(data(c, x, A_MESH), A_MESH, i) : 0;
    if (p == RP_NO_HIT || m >= (uint32_t)c->nm || p >= c->mcount[m])
        return SIZE_MAX;
    return c->mfirst[m] + p;
}

/* brute: var is the brute-force run of a scene case (isa is scalar) */
static void report(const ccase *c, const run *ref, const run *var, rp_isa isa, uint64_t seed,
                   int brute) {
    const kdesc *kd = &kernels[c->k];
    const char *vn = brute ? "brute-force" : rp_isa_name(isa);
    printf("FAIL %s %s: case %" PRIu64 " (reproduce: rp_check --seed=%" PRIu64 " --isa=%s --kernel=%s)\n",
           kd->name, vn, c->iter, seed, rp_isa_name(isa), kd->name);
    if (brute)
        printf("  the scalar scene query differs from brute force over the scene's triangles in "
               "scene order (rp_%s_triangle, the same flags)\n",
               kd->kind == K_CLOSEST ? "closest" : "occluded");
    describe_case(c);
    if (ref->nst != var->nst || memcmp(ref->st, var->st, sizeof ref->st[0] * (size_t)ref->nst)) {
        printf("  statuses differ: scalar");
        for (int k = 0; k < ref->nst; k++) printf(" %d", ref->st[k]);
        printf(", %s", vn);
        for (int k = 0; k < var->nst; k++) printf(" %d", var->st[k]);
        printf("\n");
    }
    check_integrity(c, ref, "scalar", 1);
    check_integrity(c, var, vn, 1);
    int lanes = 0;
    size_t ndiff = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!lane_differs(c, ref, var, i))
            continue;
        ndiff++;
        if (lanes >= MAX_LANES)
            continue;
        lanes++;
        printf("  lane %zu of %zu (ray index %zu): ", i, c->n, i);
        printf("o (%a, %a, %a) d (%a, %a, %a)\n", (double)F(c, A_OX)[i], (double)F(c, A_OY)[i],
               (double)F(c, A_OZ)[i], (double)F(c, A_DX)[i], (double)F(c, A_DY)[i], (double)F(c, A_DZ)[i]);
        printf("    rd (%a, %a, %a) tmin %a tmax %a active %s%u\n",
               (double)u2f(elem_bits(ref->rd_after_prepare[0], A_RDX, i)),
               (double)u2f(elem_bits(ref->rd_after_prepare[1], A_RDY, i)),
               (double)u2f(elem_bits(ref->rd_after_prepare[2], A_RDZ, i)),
               (double)F(c, A_TMIN)[i], (double)F(c, A_TMAX)[i],
               c->used[A_ACTIVE] ? "" : "(NULL) ", c->used[A_ACTIVE] ? c->init[A_ACTIVE][i] : 1u);
        if (kd->kind == K_CLOSEST) {
            uint32_t p0;
            memcpy(&p0, c->init[A_HPRIM] + 4 * i, 4);
            printf("    record before: prim %" PRIu32 " t %a u %a v %a\n", p0, (double)F(c, A_HT)[i],
                   (double)F(c, A_HU)[i], (double)F(c, A_HV)[i]);
        } else if (kd->kind == K_OCCLUDED) {
            printf("    occluded before: %u\n", c->init[A_OCC][i]);
        }
        printf("    %-10s %-29s %s\n", "output", "scalar", vn);
        for (int a = 0; a < A_COUNT; a++) {
            if (!c->used[a] || !c->is_out[a]) continue;
            int d = elem_bits(data(c, ref, a), a, i) != elem_bits(data(c, var, a), a, i);
            printf("    %-10s ", anames[a]);
            print_elem(data(c, ref, a), a, i);
            printf(" ");
            print_elem(data(c, var, a), a, i);
            printf("%s\n", d ? "  <-- differs" : "");
        }
        /* the primitives involved */
        if (kd->kind == K_INTERSECT || c->count <= 4) {
            for (size_t j = 0; j < c->count; j++)
                print_prim(c, j);
        } else if (kd->kind == K_CLOSEST && kd->scene) {
            size_t gr = scene_global(c, ref, i), gv = scene_global(c, var, i);
            if (gr != SIZE_MAX)
                print_prim(c, gr);
            if (gv != gr && gv != SIZE_MAX)
                print_prim(c, gv);
        } else if (kd->kind == K_CLOSEST) {
            uint32_t pr = elem_bits(data(c, ref, A_HPRIM), A_HPRIM, i);
            uint32_t pv = elem_bits(data(c, var, A_HPRIM), A_HPRIM, i);
            if (pr != RP_NO_HIT && pr >= c->base && pr - c->base < c->count)
                print_prim(c, pr - c->base);
            if (pv != pr && pv != RP_NO_HIT && pv >= c->base && pv - c->base < c->count)
                print_prim(c, pv - c->base);
        }
        if (kd->scene)
            printf("    (scene cases are not bisected: rerun with --verbose for the meshes)\n");
        else if (kd->kind != K_INTERSECT)
            bisect_lane(c, ref, var, i, isa);
    }
    if (ndiff > (size_t)lanes)
        printf("  ... %zu lanes differ in all\n", ndiff);
}

/* ------------------------------------------------------------------ */
/* Digest: FNV-1a 64 over the outputs, NaNs made canonical               */
/* ------------------------------------------------------------------ */
/* x86 makes the default NaN negative (0xffc00000), ARM positive
 * (0x7fc00000), and the two propagate NaN payloads with different
 * priorities; every other bit of every result is IEEE-defined, so the
 * digest hashes every NaN as 0x7fc00000 and everything else as it is. */
typedef struct fnv { uint64_t h; } fnv;
static void fnv_byte(fnv *f, unsigned char b) { f->h = (f->h ^ b) * 0x100000001b3ULL; }
static void fnv_u32(fnv *f, uint32_t u) {
    for (int k = 0; k < 4; k++)
        fnv_byte(f, (unsigned char)(u >> (8 * k)));
}

static void digest_run(fnv *f, const ccase *c, const run *r) {
    fnv_u32(f, (uint32_t)c->k);
    fnv_u32(f, (uint32_t)c->n);
    fnv_u32(f, (uint32_t)c->count);
    for (int k = 0; k < r->nst; k++)
        fnv_u32(f, (uint32_t)r->st[k]);
    for (int a = 0; a < A_COUNT; a++) {
        if (!c->used[a] || !c->is_out[a]) continue;
        size_t es = elem_size(a), ne = c->bytes[a] / es;
        fnv_u32(f, (uint32_t)a);
        for (size_t i = 0; i < ne; i++) {
            uint32_t u = elem_bits(data(c, r, a), a, i);
            if (atype(a) == T_F32 && (u & 0x7fffffffu) > 0x7f800000u)
                u = 0x7fc00000u;
            if (es == 1) fnv_byte(f, (unsigned char)u);
            else fnv_u32(f, u);
        }
    }
}

/* sizes of the digest corpus: every case k of a kernel takes these */
static const long digest_n[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100,
                                1000, 4099, 13, 37, 50, 77, 99, 6, 11, 24, 40, 48, 57, 71, 83, 91,
                                20, 28, 45, 60, 96};
static const long digest_count[] = {0, 1, 2, 3, 4, 5, 8, 16, 17, 33, 70, 1000, 7, 12, 24, 40, 64, 9,
                                    10, 2, 6, 31, 48, 69, 20, 11, 3, 1, 50, 66, 27, 14, 38, 44, 1000,
                                    60, 5, 18, 22, 35};
_Static_assert(sizeof digest_n / sizeof digest_n[0] == DIGEST_CASES, "digest sizes");
_Static_assert(sizeof digest_count / sizeof digest_count[0] == DIGEST_CASES, "digest counts");

/* ------------------------------------------------------------------ */
/* Command line                                                         */
/* ------------------------------------------------------------------ */
static void usage(FILE *f) {
    fprintf(f,
            "usage: rp_check [--seed=N] [--iterations=N] [--isa=NAME[,NAME]] [--kernel=SUBSTR[,SUBSTR]]\n"
            "                [--n=N] [--count=N] [--coherent]\n"
            "                [--fpenv=default|flush|ftz|daz|upward|downward|towardzero]\n"
            "                [--verbose] [--stats] [--list] [--digest [--expect=0xHEX]]\n"
            "kernels:");
    for (int k = 0; k < NKERNELS; k++)
        fprintf(f, " %s", kernels[k].name);
    fprintf(f, "\nvariants: scalar sse41 avx2 avx512 neon\n");
}

static int starts(const char *arg, const char *opt, const char **val) {
    size_t l = strlen(opt);
    if (strncmp(arg, opt, l) == 0 && arg[l] == '=') {
        *val = arg + l + 1;
        return 1;
    }
    return 0;
}

static int parse_u64(const char *s, uint64_t *out) {
    char *end;
    if (!*s) return 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end) return 0;
    *out = v;
    return 1;
}

/* does the comma-separated list of substrings (NULL: everything) match
 * this name?  (Also used by internal.c for its function names.) */
int rpc_name_selected(const char *list, const char *name) {
    if (!list) return 1;
    const char *p = list;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char buf[64];
        if (l && l < sizeof buf) {
            memcpy(buf, p, l);
            buf[l] = 0;
            if (strstr(name, buf))
                return 1;
        }
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

/* ... this kernel, by its name or its alias? */
static int kernel_selected(const char *list, const kdesc *kd) {
    return rpc_name_selected(list, kd->name) || (kd->alias && rpc_name_selected(list, kd->alias));
}

static const char *isa_state(rp_isa i) {
    unsigned bit = 1u << i;
    if (rp_isa_native() & bit) return "native";
    if (rp_isa_runnable() & bit) return "emulated";
    return "unavailable";
}

int main(int argc, char **argv) {
    uint64_t seed = 0, iterations = 100;
    long force_n = -1, force_count = -1;
    int coherent = 0;
    int have_seed = 0, list = 0, digest = 0, verbose = 0, stats = 0;
    const char *isa_list = NULL, *kernel_list = NULL, *fpenv = NULL, *val;
    uint64_t expect = 0;
    int have_expect = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (starts(a, "--seed", &val)) {
            if (!parse_u64(val, &seed)) { fprintf(stderr, "rp_check: bad seed '%s'\n", val); return 2; }
            have_seed = 1;
        } else if (starts(a, "--iterations", &val)) {
            if (!parse_u64(val, &iterations)) { fprintf(stderr, "rp_check: bad iterations '%s'\n", val); return 2; }
        } else if (starts(a, "--isa", &val)) {
            isa_list = val;
        } else if (starts(a, "--kernel", &val) || starts(a, "--function", &val) || starts(a, "--test", &val)) {
            kernel_list = val;
        } else if (starts(a, "--n", &val)) {
            uint64_t v;
            if (!parse_u64(val, &v) || v > 100000) { fprintf(stderr, "rp_check: bad n '%s' (0 .. 100000)\n", val); return 2; }
            force_n = (long)v;
        } else if (starts(a, "--count", &val)) {
            uint64_t v;
            if (!parse_u64(val, &v) || v > 100000) { fprintf(stderr, "rp_check: bad count '%s' (0 .. 100000)\n", val); return 2; }
            force_count = (long)v;
        } else if (starts(a, "--fpenv", &val)) {
            fpenv = val;
        } else if (starts(a, "--expect", &val)) {
            if (!parse_u64(val, &expect)) { fprintf(stderr, "rp_check: bad digest '%s'\n", val); return 2; }
            have_expect = 1;
        } else if (!strcmp(a, "--coherent")) {
            coherent = 1;
        } else if (!strcmp(a, "--list")) {
            list = 1;
        } else if (!strcmp(a, "--digest")) {
            digest = 1;
        } else if (!strcmp(a, "--stats")) {
            stats = 1;
        } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
            verbose = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "rp_check: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }

    int emulated_ok = 1;
    if (fpenv) {
        rp_fpenv_saved saved; /* kept for the whole run */
        int ok = rp_fpenv_set(fpenv, &saved, &emulated_ok);
        if (ok < 0) {
            fprintf(stderr, "rp_check: unknown floating-point environment '%s'\n", fpenv);
            usage(stderr);
            return 2;
        }
        if (!ok) {
            printf("rp_check: --fpenv=%s cannot be set on this host: skipped\n", fpenv);
            return 77; /* meson: skipped */
        }
        printf("rp_check: floating-point environment: %s\n", fpenv);
    }

    if (list) {
        for (int i = 0; i < RP_ISA_COUNT; i++)
            if (rp_isa_compiled() & (1u << i))
                printf("%-7s %s\n", rp_isa_name((rp_isa)i), isa_state((rp_isa)i));
        return 0;
    }

    /* the variants to run, in rp_isa order */
    rp_isa isas[RP_ISA_COUNT];
    int nisa = 0;
    if (isa_list) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", isa_list);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            rp_isa i;
            if (rp_isa_from_name(tok, &i) != RP_OK || i == RP_ISA_AUTO) {
                fprintf(stderr, "rp_check: unknown variant '%s'\n", tok);
                usage(stderr);
                return 2;
            }
            if (!(rp_isa_runnable() & (1u << i))) {
                printf("rp_check: %s is %s here: skipped\n", tok,
                       rp_isa_compiled() & (1u << i) ? "unavailable" : "not compiled in");
                continue;
            }
            int dup = 0;
            for (int q = 0; q < nisa; q++) dup |= isas[q] == i;
            if (!dup) isas[nisa++] = i;
        }
    } else {
        for (int i = 0; i < RP_ISA_COUNT; i++)
            if (rp_isa_runnable() & (1u << i))
                isas[nisa++] = (rp_isa)i;
    }
    if (!emulated_ok) {
        int kept = 0;
        for (int q = 0; q < nisa; q++) {
            if (rp_isa_native() & (1u << isas[q]))
                isas[kept++] = isas[q];
            else
                printf("rp_check: %s is emulated: not comparable under --fpenv=%s (x86 DAZ flushes "
                       "what minps/maxps return, emulated NEON keeps the bits): skipped\n",
                       rp_isa_name(isas[q]), fpenv);
        }
        nisa = kept;
    }
    if (isa_list && !nisa) { /* (an entry for one variant, on a host without it) */
        printf("rp_check: no variant of '%s' can run here: skipped\n", isa_list);
        return 77; /* meson: skipped */
    }
    int any_kernel = 0;
    for (int k = 0; k < NKERNELS; k++)
        any_kernel |= kernel_selected(kernel_list, &kernels[k]);
#ifdef RP_CHECK_INTERNAL
    if (!digest)
        any_kernel |= rpc_internal_selected(kernel_list);
#endif
    if (!any_kernel) {
        fprintf(stderr, "rp_check: no kernel matches '%s'\n", kernel_list);
        usage(stderr);
        return 2;
    }

    if (digest) {
        uint64_t first = 0;
        int disagree = 0;
        printf("rp_check: digest over %d cases per kernel, corpus seed=%" PRIu64 "\n", DIGEST_CASES,
               (uint64_t)DIGEST_SEED);
        for (int v = 0; v < nisa; v++) {
            fnv f = {0xcbf29ce484222325ULL};
            for (int k = 0; k < NKERNELS; k++) {
                if (!kernel_selected(kernel_list, &kernels[k])) continue;
                for (int it = 0; it < DIGEST_CASES; it++) {
                    ccase c;
                    run r;
                    gen_case(&c, k, DIGEST_SEED, (uint64_t)it, digest_n[it], digest_count[it], 0);
                    run_case(&c, &r, isas[v]);
                    digest_run(&f, &c, &r);
                    if (verbose) { /* per case, to find where two hosts part */
                        fnv one = {0xcbf29ce484222325ULL};
                        digest_run(&one, &c, &r);
                        printf("  %s %s case %d: 0x%016" PRIx64 "\n", rp_isa_name(isas[v]),
                               kernels[k].name, it, one.h);
                    }
                    static int shown;
                    if (check_integrity(&c, &r, rp_isa_name(isas[v]), shown < 8)) {
                        if (shown++ < 8)
                            printf("  (%s, case %d)\n", kernels[k].name, it);
                        f.h ^= 1; /* poison: damage must show */
                        disagree = 1;
                    }
                    run_free(&r);
                    case_free(&c);
                }
            }
            printf("digest %s 0x%016" PRIx64 "\n", rp_isa_name(isas[v]), f.h);
            if (v == 0) first = f.h;
            else if (f.h != first) disagree = 1;
            if (have_expect && f.h != expect) {
                printf("rp_check: %s digest differs from the expected 0x%016" PRIx64 "\n",
                       rp_isa_name(isas[v]), expect);
                disagree = 1;
            }
        }
        rp_set_isa(RP_ISA_AUTO);
        printf("%s\n", disagree ? "digest: MISMATCH" : "digest: all variants agree");
        return disagree ? 1 : 0;
    }

    if (!have_seed) {
        int local;
        seed = (uint64_t)time(NULL) ^ ((uint64_t)(uintptr_t)&local >> 4);
        seed &= 0xffffffffu; /* short enough to type */
    }
    printf("rp_check: seed=%" PRIu64 "\n", seed);
    fflush(stdout);

    unsigned long passed = 0, failed = 0;
    unsigned long vfail[RP_ISA_COUNT] = {0}, vpass[RP_ISA_COUNT] = {0};
    unsigned long bfail = 0, bpass = 0; /* scene cases against brute force */
    for (int k = 0; k < NKERNELS; k++) {
        if (!kernel_selected(kernel_list, &kernels[k])) continue;
        unsigned long kf[RP_ISA_COUNT] = {0}, bfail_k = 0;
        kstats st = {0};
        for (uint64_t it = 0; it < iterations; it++) {
            ccase c;
            run ref;
            gen_case(&c, k, seed, it, force_n, force_count, coherent);
            run_case(&c, &ref, RP_ISA_SCALAR);
            if (stats)
                gather_stats(&st, &c, &ref);
            if (verbose) {
                printf("%s", kernels[k].name);
                describe_case(&c);
            }
            /* scene cases: the scalar query against brute force over the
             * scene's triangles: bit for bit with RP_WATERTIGHT (in the
             * default environment, where the guarantee is proved), counted
             * without it (docs/SEMANTICS.md) */
            const kdesc *kd = &kernels[k];
            if (kd->scene && (((kd->flags & RP_WATERTIGHT) && !fpenv) || (!(kd->flags & RP_WATERTIGHT) && stats))) {
                run br;
                run_case_mode(&c, &br, RP_ISA_SCALAR, 1);
                if (kd->flags & RP_WATERTIGHT) {
                    if (runs_differ(&c, &ref, &br) || check_integrity(&c, &br, "x", 0)) {
                        failed++;
                        bfail++;
                        if (printed_reports < MAX_REPORTS && bfail_k++ < MAX_KREPORTS) {
                            printed_reports++;
                            report(&c, &ref, &br, RP_ISA_SCALAR, seed, 1);
                        }
                    } else {
                        passed++;
                        bpass++;
                    }
                } else {
                    for (size_t i = 0; i < c.n; i++)
                        st.mt_diff += (unsigned long)lane_differs(&c, &ref, &br, i);
                    st.mt_lanes += c.n;
                }
                run_free(&br);
            }
            for (int v = 0; v < nisa; v++) {
                run var;
                run_case(&c, &var, isas[v]);
                int bad = runs_differ(&c, &ref, &var) || check_integrity(&c, &var, "x", 0) ||
                          check_integrity(&c, &ref, "x", 0);
                if (bad) {
                    failed++;
                    kf[isas[v]]++;
                    vfail[isas[v]]++;
                    if (printed_reports < MAX_REPORTS && kf[isas[v]] <= MAX_KREPORTS) {
                        printed_reports++;
                        report(&c, &ref, &var, isas[v], seed, 0);
                    } else if (kf[isas[v]] <= MAX_KREPORTS + 1) {
                        printf("FAIL %s %s: case %" PRIu64 " (details and further failures of this "
                               "kernel and variant: counted, not printed)\n",
                               kernels[k].name, rp_isa_name(isas[v]), it);
                    }
                } else {
                    passed++;
                    vpass[isas[v]]++;
                }
                run_free(&var);
            }
            run_free(&ref);
            case_free(&c);
        }
        printf("  %-24s", kernels[k].name);
        for (int v = 0; v < nisa; v++)
            printf(" %s:%s", rp_isa_name(isas[v]), kf[isas[v]] ? "FAILED" : "ok");
        if (kernels[k].scene && (kernels[k].flags & RP_WATERTIGHT) && !fpenv)
            printf(" brute-force:%s", bfail_k ? "FAILED" : "ok");
        printf("\n");
        if (stats && kernels[k].scene && !(kernels[k].flags & RP_WATERTIGHT))
            printf("    Moller-Trumbore: %lu of %lu lanes differ from brute force (not a failure)\n",
                   st.mt_diff, st.mt_lanes);
        if (stats)
            printf("    lanes %lu, active %lu, %s %lu, %s %lu, records kept %lu, NaN %lu\n",
                   st.lanes, st.active, kernels[k].kind == K_CLOSEST ? "new records" : "hits",
                   st.hit, kernels[k].kind == K_CLOSEST ? "t == tmin" : "tnear == tfar", st.graze,
                   st.kept, st.nan_out);
        fflush(stdout);
    }
#ifdef RP_CHECK_INTERNAL
    /* internal functions of each variant against the reference (internal.c) */
    rpc_internal_run(kernel_list, seed, iterations, isas, nisa, &passed, &failed, vpass, vfail);
#endif
    rp_set_isa(RP_ISA_AUTO);
    for (int v = 0; v < nisa; v++)
        printf("%s %-7s (%s): %lu passed, %lu failed\n", vfail[isas[v]] ? "[FAILED]" : "[OK]    ",
               rp_isa_name(isas[v]), isa_state(isas[v]), vpass[isas[v]], vfail[isas[v]]);
    if (bpass + bfail)
        printf("%s scenes  (vs brute force): %lu passed, %lu failed\n", bfail ? "[FAILED]" : "[OK]    ",
               bpass, bfail);
    printf("%lu passed, %lu failed\n", passed, failed);
    return failed ? 1 : 0;
}
