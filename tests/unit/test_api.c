/*
 * test_api.c - every public entry point with bad arguments: the documented
 * status (raypack.h, docs/SEMANTICS.md "Arguments") and nothing written.
 * A small world of 8 rays that hit every primitive is snapshotted before
 * each call (all ray, hit and output arrays, the primitives and a scratch
 * buffer that misaligned pointers point into) and compared after it, so a
 * call that wrongly ran its kernel would show.  Also: rp_status_string,
 * the allocators' alignment and initial values, freeing, and the variant
 * queries and rp_set_isa.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "raypack.h"
#include "tap.h"
#include "batch.h"

enum { N = 8 };

static struct world {
    tb b;
    float *ra[11];  /* the rays' arrays as allocated */
    float *ha[7];   /* the hits' arrays as allocated (prim as float *) */
    union { uint8_t a[N]; float f[N]; } active;
    uint8_t hit[N], occ[N];
    float tn[N], tf[N];
    rp_aabb box[2];
    rp_triangle tri[2];
    rp_sphere sph[2];
    rp_plane pl[2];
    union { unsigned char c[1024]; float f[256]; } scratch;
} W;

/* A copy of every byte a call could write. */
static struct snapshot {
    float ra[11][N], ha[7][N];
    uint8_t active[N], hit[N], occ[N];
    float tn[N], tf[N];
    rp_aabb box[2];
    rp_triangle tri[2];
    rp_sphere sph[2];
    rp_plane pl[2];
    unsigned char scratch[1024];
} SNAP;

static void take(struct snapshot *s) {
    for (int k = 0; k < 11; k++)
        memcpy(s->ra[k], W.ra[k], sizeof s->ra[k]);
    for (int k = 0; k < 7; k++)
        memcpy(s->ha[k], W.ha[k], sizeof s->ha[k]);
    memcpy(s->active, W.active.a, N);
    memcpy(s->hit, W.hit, N);
    memcpy(s->occ, W.occ, N);
    memcpy(s->tn, W.tn, sizeof s->tn);
    memcpy(s->tf, W.tf, sizeof s->tf);
    memcpy(s->box, W.box, sizeof s->box);
    memcpy(s->tri, W.tri, sizeof s->tri);
    memcpy(s->sph, W.sph, sizeof s->sph);
    memcpy(s->pl, W.pl, sizeof s->pl);
    memcpy(s->scratch, W.scratch.c, sizeof s->scratch);
}

static int unchanged(void) {
    struct snapshot now;
    memset(&now, 0, sizeof now);
    take(&now);
    return memcmp(&now, &SNAP, sizeof now) == 0;
}

/* Rays from (0.25, 0.25, 5) along -z hit the box, triangle, sphere and
 * plane below; records empty, outputs full of sentinels. */
static void reset(int records_hold_prim0) {
    for (int i = 0; i < N; i++) {
        tb_ray(&W.b, (size_t)i, 0.25f, 0.25f, 5, 0, 0, -1, 0, 100);
        W.active.a[i] = 1;
        W.hit[i] = 0xAA;
        W.occ[i] = 0;
        W.tn[i] = W.tf[i] = -123;
    }
    tb_prepare(&W.b);
    if (records_hold_prim0) /* for the normals: every record holds primitive 0 */
        for (int i = 0; i < N; i++) {
            W.b.h.prim[i] = 0;
            W.b.h.t[i] = 4;
        }
    W.box[0] = W.box[1] = tb_box(-1, -1, -1, 1, 1, 1);
    W.tri[0] = W.tri[1] = tb_tri(tb_v(-1, -1, 0), tb_v(3, -1, 0), tb_v(-1, 3, 0));
    W.sph[0] = W.sph[1] = tb_sphere(0, 0, 0, 1);
    W.pl[0] = W.pl[1] = tb_plane(0, 0, 1, 0);
    memset(W.scratch.c, 0x5A, sizeof W.scratch.c);
    memset(&SNAP, 0, sizeof SNAP);
    take(&SNAP);
}

static const char *sname(rp_status s) {
    static const char *const names[] = {"RP_OK", "RP_ERR_NULL", "RP_ERR_COUNT", "RP_ERR_NOT_PREPARED",
                                        "RP_ERR_ALIGN", "RP_ERR_ALIAS", "RP_ERR_SIZE_MISMATCH",
                                        "RP_ERR_NOMEM", "RP_ERR_ISA_UNKNOWN", "RP_ERR_ISA_UNAVAILABLE",
                                        "RP_ERR_INVALID"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

/* The status, and that nothing was written since the last reset(). */
static void expect(rp_status got, rp_status want, const char *fmt, ...) TAP_PRINTF(3, 4);
static void expect(rp_status got, rp_status want, const char *fmt, ...) {
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (!tap_int(got, want, "%s -> %s", what, sname(want)))
        tap_diag("  got %s", sname(got));
    tap_ok(unchanged(), "%s: nothing written", what);
}

static void *misaligned(void) { return W.scratch.c + 1; }

/* ---- calls by primitive kind -------------------------------------- */
static const char *const KN[4] = {"aabb", "triangle", "sphere", "plane"};
static const void *prims_of(int k) {
    return k == 0 ? (const void *)W.box : k == 1 ? (const void *)W.tri
         : k == 2 ? (const void *)W.sph : (const void *)W.pl;
}

static rp_status closest(int k, rp_rays *r, const uint8_t *act, const void *p, size_t count,
                         uint32_t base, unsigned flags, rp_hits *h) {
    switch (k) {
    case 0: return rp_closest_aabb(r, act, (const rp_aabb *)p, count, base, h);
    case 1: return rp_closest_triangle(r, act, (const rp_triangle *)p, count, base, flags, h);
    case 2: return rp_closest_sphere(r, act, (const rp_sphere *)p, count, base, h);
    default: return rp_closest_plane(r, act, (const rp_plane *)p, count, base, h);
    }
}

static rp_status normals(int k, const rp_rays *r, rp_hits *h, const void *p, size_t count,
                         uint32_t base) {
    switch (k) {
    case 0: return rp_hits_normals_aabb(r, h, (const rp_aabb *)p, count, base);
    case 1: return rp_hits_normals_triangle(r, h, (const rp_triangle *)p, count, base);
    case 2: return rp_hits_normals_sphere(r, h, (const rp_sphere *)p, count, base);
    default: return rp_hits_normals_plane(r, h, (const rp_plane *)p, count, base);
    }
}

/* pointer to the k-th array field of a ray batch */
static float **ray_field(rp_rays *r, int k) {
    float **f[11] = {&r->ox, &r->oy, &r->oz, &r->dx, &r->dy, &r->dz,
                     &r->tmin, &r->tmax, &r->rdx, &r->rdy, &r->rdz};
    return f[k];
}
static const char *const RF[11] = {"ox", "oy", "oz", "dx", "dy", "dz", "tmin", "tmax",
                                   "rdx", "rdy", "rdz"};

/* A batch prepared for n = 0 with the world's arrays. */
static rp_rays rays_n0(void) {
    rp_rays r = W.b.r;
    r.n = 0;
    tb_must(rp_rays_prepare(&r), "prepare n = 0");
    return r;
}

/* ---- rp_intersect_aabb ---------------------------------------------- */
static void test_intersect_aabb(void) {
    const char *f = "rp_intersect_aabb";
    rp_rays r;

    reset(0);
    tap_int(rp_intersect_aabb(&W.b.r, W.active.a, W.box, W.hit, W.tn, W.tf), RP_OK, "%s: valid call", f);
    tap_ok(!unchanged(), "%s: a valid call writes (the snapshot sees it)", f);

    reset(0);
    expect(rp_intersect_aabb(NULL, NULL, W.box, W.hit, W.tn, W.tf), RP_ERR_NULL, "%s: rays NULL", f);
    for (int k = 0; k < 11; k++) {
        reset(0);
        r = W.b.r;
        *ray_field(&r, k) = NULL;
        expect(rp_intersect_aabb(&r, NULL, W.box, W.hit, W.tn, W.tf), RP_ERR_NULL, "%s: rays.%s NULL", f, RF[k]);
    }
    reset(0);
    expect(rp_intersect_aabb(&W.b.r, NULL, NULL, W.hit, W.tn, W.tf), RP_ERR_NULL, "%s: box NULL", f);
    reset(0);
    expect(rp_intersect_aabb(&W.b.r, NULL, W.box, NULL, W.tn, W.tf), RP_ERR_NULL, "%s: hit NULL", f);
    reset(0);
    r = W.b.r;
    r.n = SIZE_MAX;
    expect(rp_intersect_aabb(&r, NULL, W.box, W.hit, W.tn, W.tf), RP_ERR_COUNT, "%s: n = SIZE_MAX", f);
    reset(0);
    r.n = SIZE_MAX / 4 + 1;
    expect(rp_intersect_aabb(&r, NULL, W.box, W.hit, W.tn, W.tf), RP_ERR_COUNT, "%s: n * 4 overflows", f);
    reset(0);
    r = W.b.r;
    r.ox = (float *)misaligned();
    expect(rp_intersect_aabb(&r, NULL, W.box, W.hit, W.tn, W.tf), RP_ERR_ALIGN, "%s: rays.ox misaligned", f);
    reset(0);
    expect(rp_intersect_aabb(&W.b.r, NULL, W.box, W.hit, (float *)misaligned(), W.tf), RP_ERR_ALIGN,
           "%s: tnear misaligned", f);
    reset(0);
    expect(rp_intersect_aabb(&W.b.r, NULL, W.box, W.hit, W.tn, (float *)misaligned()), RP_ERR_ALIGN,
           "%s: tfar misaligned", f);
    reset(0);
    expect(rp_intersect_aabb(&W.b.r, NULL, (const rp_aabb *)misaligned(), W.hit, W.tn, W.tf), RP_ERR_ALIGN,
           "%s: box misaligned", f);
    reset(0);
    expect(rp_intersect_aabb(&W.b.r, NULL, W.box, W.hit, W.b.r.tmin, W.tf), RP_ERR_ALIAS,
           "%s: tnear = rays.tmin", f);
    reset(0);
    expect(rp_intersect_aabb(&W.b.r, NULL, W.box, W.hit, W.tn, W.b.r.rdx + 4), RP_ERR_ALIAS,
           "%s: tfar overlaps rays.rdx", f);
    reset(0);
    expect(rp_intersect_aabb(&W.b.r, NULL, W.box, W.hit, W.tn, W.tn), RP_ERR_ALIAS, "%s: tnear = tfar", f);
    reset(0);
    expect(rp_intersect_aabb(&W.b.r, W.active.a, W.box, W.active.a, W.tn, W.tf), RP_ERR_ALIAS,
           "%s: hit = active", f);
    reset(0);
    expect(rp_intersect_aabb(&W.b.r, NULL, W.box, W.hit, (float *)(void *)W.box, W.tf), RP_ERR_ALIAS,
           "%s: tnear overlaps the box", f);
    reset(0);
    expect(rp_intersect_aabb(&W.b.r, NULL, W.box, (uint8_t *)W.b.r.oz + 3, W.tn, W.tf), RP_ERR_ALIAS,
           "%s: hit overlaps rays.oz", f);
    /* overlaps of a single byte count; adjacent arrays are fine */
    reset(0);
    expect(rp_intersect_aabb(&W.b.r, NULL, W.box, (uint8_t *)(W.b.r.oz + N) - 1, W.tn, W.tf),
           RP_ERR_ALIAS, "%s: hit starts on the last byte of rays.oz", f);
    reset(0);
    expect(rp_intersect_aabb(&W.b.r, NULL, W.box, (uint8_t *)W.b.r.oz - (N - 1), W.tn, W.tf),
           RP_ERR_ALIAS, "%s: hit ends on the first byte of rays.oz", f);
    {
        float both[2 * N];
        reset(0);
        expect(rp_intersect_aabb(&W.b.r, NULL, W.box, W.hit, both, both + N - 1), RP_ERR_ALIAS,
               "%s: tnear and tfar share one float", f);
        tap_int(rp_intersect_aabb(&W.b.r, NULL, W.box, W.hit, both, both + N), RP_OK,
                "%s: tnear and tfar adjacent -> RP_OK", f);
        tap_ok(both[0] == 4 && both[N] == 6, "%s: adjacent outputs written", f);
    }
    reset(0);
    r = W.b.r;
    r.n = N - 1;
    expect(rp_intersect_aabb(&r, NULL, W.box, W.hit, W.tn, W.tf), RP_ERR_NOT_PREPARED,
           "%s: prepared for another n", f);
    {
        tb u;
        tb_init(&u, N);
        reset(0);
        expect(rp_intersect_aabb(&u.r, NULL, W.box, W.hit, W.tn, W.tf), RP_ERR_NOT_PREPARED,
               "%s: never prepared", f);
        tb_free(&u);
    }
    reset(0);
    r = rays_n0();
    expect(rp_intersect_aabb(&r, NULL, W.box, W.hit, W.tn, W.tf), RP_OK, "%s: n = 0", f);
}

/* ---- closest-hit kernels --------------------------------------------- */
static void test_closest(int k) {
    const char *f = KN[k];
    const void *P = prims_of(k);
    rp_rays r;
    rp_hits h;

    reset(0);
    tap_int(closest(k, &W.b.r, NULL, P, 2, 0, 0, &W.b.h), RP_OK, "closest %s: valid call", f);
    tap_ok(!unchanged() && W.b.h.prim[0] == 0, "closest %s: a valid call writes", f);

    reset(0);
    expect(closest(k, NULL, NULL, P, 2, 0, 0, &W.b.h), RP_ERR_NULL, "closest %s: rays NULL", f);
    for (int a = 0; a < 11; a++) {
        reset(0);
        r = W.b.r;
        *ray_field(&r, a) = NULL;
        expect(closest(k, &r, NULL, P, 2, 0, 0, &W.b.h), RP_ERR_NULL, "closest %s: rays.%s NULL", f, RF[a]);
    }
    reset(0);
    expect(closest(k, &W.b.r, NULL, P, 2, 0, 0, NULL), RP_ERR_NULL, "closest %s: hits NULL", f);
    for (int a = 0; a < 4; a++) {
        reset(0);
        h = W.b.h;
        if (a == 0) h.t = NULL;
        if (a == 1) h.u = NULL;
        if (a == 2) h.v = NULL;
        if (a == 3) h.prim = NULL;
        expect(closest(k, &W.b.r, NULL, P, 2, 0, 0, &h), RP_ERR_NULL, "closest %s: hits.%s NULL", f,
               a == 0 ? "t" : a == 1 ? "u" : a == 2 ? "v" : "prim");
    }
    reset(0);
    expect(closest(k, &W.b.r, NULL, NULL, 2, 0, 0, &W.b.h), RP_ERR_NULL, "closest %s: primitives NULL, count 2", f);
    reset(0);
    expect(closest(k, &W.b.r, NULL, NULL, 0, 0, 0, &W.b.h), RP_OK, "closest %s: primitives NULL, count 0", f);
    reset(0);
    expect(closest(k, &W.b.r, NULL, P, 0, 0, 0, &W.b.h), RP_OK, "closest %s: count 0", f);
    reset(0);
    expect(closest(k, &W.b.r, NULL, P, SIZE_MAX / 8, 0, 0, &W.b.h), RP_ERR_COUNT,
           "closest %s: count * size overflows", f);
    reset(0);
    expect(closest(k, &W.b.r, NULL, P, 2, RP_NO_HIT - 1, 0, &W.b.h), RP_ERR_COUNT,
           "closest %s: index_base + count = RP_NO_HIT + 1", f);
    reset(0);
    expect(closest(k, &W.b.r, NULL, P, 1, RP_NO_HIT, 0, &W.b.h), RP_ERR_COUNT,
           "closest %s: index_base = RP_NO_HIT", f);
    reset(0);
    tap_int(closest(k, &W.b.r, NULL, P, 2, RP_NO_HIT - 2, 0, &W.b.h), RP_OK,
            "closest %s: index_base + count = RP_NO_HIT is allowed", f);
    tap_int(W.b.h.prim[0], RP_NO_HIT - 2, "closest %s: ... and records RP_NO_HIT - 2", f);
    reset(0);
    r = W.b.r;
    r.n = SIZE_MAX;
    expect(closest(k, &r, NULL, P, 2, 0, 0, &W.b.h), RP_ERR_COUNT, "closest %s: n = SIZE_MAX", f);
    reset(0);
    expect(closest(k, &W.b.r, NULL, misaligned(), 2, 0, 0, &W.b.h), RP_ERR_ALIGN,
           "closest %s: primitives misaligned", f);
    reset(0);
    h = W.b.h;
    h.u = (float *)misaligned();
    expect(closest(k, &W.b.r, NULL, P, 2, 0, 0, &h), RP_ERR_ALIGN, "closest %s: hits.u misaligned", f);
    reset(0);
    r = W.b.r;
    r.tmax = (float *)misaligned();
    expect(closest(k, &r, NULL, P, 2, 0, 0, &W.b.h), RP_ERR_ALIGN, "closest %s: rays.tmax misaligned", f);
    reset(0);
    h = W.b.h;
    h.t = W.b.r.tmax;
    expect(closest(k, &W.b.r, NULL, P, 2, 0, 0, &h), RP_ERR_ALIAS, "closest %s: hits.t = rays.tmax", f);
    reset(0);
    h = W.b.h;
    h.u = h.v;
    expect(closest(k, &W.b.r, NULL, P, 2, 0, 0, &h), RP_ERR_ALIAS, "closest %s: hits.u = hits.v", f);
    reset(0);
    h = W.b.h;
    h.prim = (uint32_t *)(void *)(W.b.r.ox + 2);
    expect(closest(k, &W.b.r, NULL, P, 2, 0, 0, &h), RP_ERR_ALIAS, "closest %s: hits.prim overlaps rays.ox", f);
    reset(0);
    h = W.b.h;
    h.v = (float *)(void *)P;
    expect(closest(k, &W.b.r, NULL, P, 2, 0, 0, &h), RP_ERR_ALIAS, "closest %s: hits.v overlaps the primitives", f);
    reset(0);
    h = W.b.h;
    h.t = W.active.f;
    expect(closest(k, &W.b.r, W.active.a, P, 2, 0, 0, &h), RP_ERR_ALIAS, "closest %s: hits.t overlaps active", f);
    reset(0);
    h = W.b.h;
    h.n = N - 1;
    expect(closest(k, &W.b.r, NULL, P, 2, 0, 0, &h), RP_ERR_SIZE_MISMATCH, "closest %s: hits.n = n - 1", f);
    reset(0);
    r = W.b.r;
    r.n = N - 1;
    h = W.b.h;
    h.n = N - 1;
    expect(closest(k, &r, NULL, P, 2, 0, 0, &h), RP_ERR_NOT_PREPARED, "closest %s: prepared for another n", f);
    {
        tb u;
        tb_init(&u, N);
        reset(0);
        expect(closest(k, &u.r, NULL, P, 2, 0, 0, &W.b.h), RP_ERR_NOT_PREPARED, "closest %s: never prepared", f);
        tb_free(&u);
    }
    if (k == 1) {
        reset(0);
        expect(closest(k, &W.b.r, NULL, P, 2, 0, 4u, &W.b.h), RP_ERR_INVALID, "closest triangle: flags 4");
        reset(0);
        expect(closest(k, &W.b.r, NULL, P, 2, 0, 0x80000000u | RP_CULL_BACKFACE, &W.b.h), RP_ERR_INVALID,
               "closest triangle: flags 0x80000001");
    }
    reset(0);
    r = rays_n0();
    h = W.b.h;
    h.n = 0;
    expect(closest(k, &r, NULL, P, 2, 0, 0, &h), RP_OK, "closest %s: n = 0", f);
}

/* ---- rp_occluded_triangle ------------------------------------------- */
static void test_occluded(void) {
    const char *f = "rp_occluded_triangle";
    rp_rays r;

    reset(0);
    tap_int(rp_occluded_triangle(&W.b.r, NULL, W.tri, 2, 0, W.occ), RP_OK, "%s: valid call", f);
    tap_ok(!unchanged() && W.occ[0] == 1, "%s: a valid call writes", f);

    reset(0);
    expect(rp_occluded_triangle(NULL, NULL, W.tri, 2, 0, W.occ), RP_ERR_NULL, "%s: rays NULL", f);
    reset(0);
    r = W.b.r;
    r.dz = NULL;
    expect(rp_occluded_triangle(&r, NULL, W.tri, 2, 0, W.occ), RP_ERR_NULL, "%s: rays.dz NULL", f);
    reset(0);
    expect(rp_occluded_triangle(&W.b.r, NULL, NULL, 2, 0, W.occ), RP_ERR_NULL, "%s: triangles NULL, count 2", f);
    reset(0);
    expect(rp_occluded_triangle(&W.b.r, NULL, W.tri, 2, 0, NULL), RP_ERR_NULL, "%s: occluded NULL", f);
    reset(0);
    expect(rp_occluded_triangle(&W.b.r, NULL, NULL, 0, 0, W.occ), RP_OK, "%s: triangles NULL, count 0", f);
    reset(0);
    expect(rp_occluded_triangle(&W.b.r, NULL, W.tri, SIZE_MAX / 16, 0, W.occ), RP_ERR_COUNT,
           "%s: count * size overflows", f);
    reset(0);
    r = W.b.r;
    r.n = SIZE_MAX;
    expect(rp_occluded_triangle(&r, NULL, W.tri, 2, 0, W.occ), RP_ERR_COUNT, "%s: n = SIZE_MAX", f);
    reset(0);
    expect(rp_occluded_triangle(&W.b.r, NULL, (const rp_triangle *)misaligned(), 2, 0, W.occ), RP_ERR_ALIGN,
           "%s: triangles misaligned", f);
    reset(0);
    expect(rp_occluded_triangle(&W.b.r, W.active.a, W.tri, 2, 0, W.active.a + 2), RP_ERR_ALIAS,
           "%s: occluded overlaps active", f);
    reset(0);
    expect(rp_occluded_triangle(&W.b.r, NULL, W.tri, 2, 0, (uint8_t *)W.b.r.ox), RP_ERR_ALIAS,
           "%s: occluded = rays.ox", f);
    reset(0);
    expect(rp_occluded_triangle(&W.b.r, NULL, W.tri, 2, 0, (uint8_t *)(void *)W.tri), RP_ERR_ALIAS,
           "%s: occluded overlaps the triangles", f);
    reset(0);
    expect(rp_occluded_triangle(&W.b.r, NULL, W.tri, 2, 4u, W.occ), RP_ERR_INVALID, "%s: flags 4", f);
    reset(0);
    r = W.b.r;
    r.n = N - 1;
    expect(rp_occluded_triangle(&r, NULL, W.tri, 2, 0, W.occ), RP_ERR_NOT_PREPARED,
           "%s: prepared for another n", f);
    reset(0);
    r = rays_n0();
    expect(rp_occluded_triangle(&r, NULL, W.tri, 2, 0, W.occ), RP_OK, "%s: n = 0", f);
}

/* ---- normals ----------------------------------------------------------- */
static void test_normals(int k) {
    const char *f = KN[k];
    const void *P = prims_of(k);
    rp_rays r;
    rp_hits h;

    reset(1);
    tap_int(normals(k, &W.b.r, &W.b.h, P, 2, 0), RP_OK, "normals %s: valid call", f);
    tap_ok(!unchanged(), "normals %s: a valid call writes", f);

    reset(1);
    expect(normals(k, NULL, &W.b.h, P, 2, 0), RP_ERR_NULL, "normals %s: rays NULL", f);
    reset(1);
    expect(normals(k, &W.b.r, NULL, P, 2, 0), RP_ERR_NULL, "normals %s: hits NULL", f);
    reset(1);
    expect(normals(k, &W.b.r, &W.b.h, NULL, 2, 0), RP_ERR_NULL, "normals %s: primitives NULL", f);
    reset(1);
    h = W.b.h;
    h.ny = NULL;
    expect(normals(k, &W.b.r, &h, P, 2, 0), RP_ERR_NULL, "normals %s: hits.ny NULL", f);
    reset(1);
    h = W.b.h;
    h.prim = NULL;
    expect(normals(k, &W.b.r, &h, P, 2, 0), RP_ERR_NULL, "normals %s: hits.prim NULL", f);
    reset(1);
    expect(normals(k, &W.b.r, &W.b.h, P, 2, RP_NO_HIT - 1), RP_ERR_COUNT,
           "normals %s: index_base + count > RP_NO_HIT", f);
    reset(1);
    expect(normals(k, &W.b.r, &W.b.h, P, SIZE_MAX / 8, 0), RP_ERR_COUNT, "normals %s: count overflows", f);
    reset(1);
    h = W.b.h;
    h.nz = (float *)misaligned();
    expect(normals(k, &W.b.r, &h, P, 2, 0), RP_ERR_ALIGN, "normals %s: hits.nz misaligned", f);
    reset(1);
    h = W.b.h;
    h.nx = h.t;
    expect(normals(k, &W.b.r, &h, P, 2, 0), RP_ERR_ALIAS, "normals %s: hits.nx = hits.t (an input)", f);
    reset(1);
    h = W.b.h;
    h.ny = h.nx;
    expect(normals(k, &W.b.r, &h, P, 2, 0), RP_ERR_ALIAS, "normals %s: hits.ny = hits.nx", f);
    reset(1);
    h = W.b.h;
    h.nz = W.b.r.oy;
    expect(normals(k, &W.b.r, &h, P, 2, 0), RP_ERR_ALIAS, "normals %s: hits.nz = rays.oy", f);
    reset(1);
    h = W.b.h;
    h.nx = (float *)(void *)P;
    expect(normals(k, &W.b.r, &h, P, 2, 0), RP_ERR_ALIAS, "normals %s: hits.nx overlaps the primitives", f);
    reset(1);
    h = W.b.h;
    h.n = N + 1;
    expect(normals(k, &W.b.r, &h, P, 2, 0), RP_ERR_SIZE_MISMATCH, "normals %s: hits.n = n + 1", f);
    reset(1);
    r = W.b.r;
    r.n = N - 1;
    h = W.b.h;
    h.n = N - 1;
    expect(normals(k, &r, &h, P, 2, 0), RP_ERR_NOT_PREPARED, "normals %s: prepared for another n", f);
    reset(1);
    r = rays_n0();
    h = W.b.h;
    h.n = 0;
    expect(normals(k, &r, &h, P, 2, 0), RP_OK, "normals %s: n = 0", f);
}

/* ---- the empty batches of rp_rays_alloc(0) / rp_hits_alloc(0) ---------- */
static void test_empty_batches(void) {
    rp_rays z;
    rp_hits hz;
    tap_int(rp_rays_alloc(0, &z), RP_OK, "rp_rays_alloc(0)");
    tap_ok(z.n == 0 && z.ox == NULL && z.rdz == NULL && z.block_ == NULL, "rp_rays_alloc(0): n 0, arrays NULL");
    tap_int(rp_hits_alloc(0, &hz), RP_OK, "rp_hits_alloc(0)");
    tap_ok(hz.n == 0 && hz.t == NULL && hz.prim == NULL, "rp_hits_alloc(0): n 0, arrays NULL");
    tap_int(rp_rays_prepare(&z), RP_OK, "rp_rays_prepare of the n = 0 batch");
    tap_int(rp_hits_reset(&hz), RP_OK, "rp_hits_reset of the n = 0 records");
    /* raypack.h: "n == 0 is allowed (all arrays NULL)"; SEMANTICS.md:
     * RP_ERR_NULL only for "NULL where data is needed (n > 0 or count >
     * 0)", and "n == 0 -> RP_OK, nothing written". */
    reset(0);
    rp_status s = rp_intersect_aabb(&z, NULL, W.box, W.hit, W.tn, W.tf);
    if (!tap_ok(s == RP_OK && unchanged(), "rp_intersect_aabb on rp_rays_alloc(0) -> RP_OK"))
        tap_diag("  got %s", sname(s));
    for (int k = 0; k < 4; k++) {
        reset(0);
        s = closest(k, &z, NULL, prims_of(k), 2, 0, 0, &hz);
        if (!tap_ok(s == RP_OK && unchanged(), "closest %s on n = 0 batches -> RP_OK", KN[k]))
            tap_diag("  got %s", sname(s));
        reset(0);
        s = normals(k, &z, &hz, prims_of(k), 2, 0);
        if (!tap_ok(s == RP_OK && unchanged(), "normals %s on n = 0 batches -> RP_OK", KN[k]))
            tap_diag("  got %s", sname(s));
    }
    reset(0);
    s = rp_occluded_triangle(&z, NULL, W.tri, 2, 0, NULL);
    if (!tap_ok(s == RP_OK && unchanged(), "rp_occluded_triangle on rp_rays_alloc(0), occluded NULL -> RP_OK"))
        tap_diag("  got %s", sname(s));
    rp_rays_free(&z);
    rp_hits_free(&hz);
}

/* ---- rp_rays_prepare, rp_hits_reset ---------------------------------- */
static void test_prepare_reset(void) {
    const char *f = "rp_rays_prepare";
    tb u;
    rp_rays r;
    rp_hits h;
    tb_init(&u, N);

    reset(0);
    expect(rp_rays_prepare(NULL), RP_ERR_NULL, "%s: NULL", f);
    for (int a = 0; a < 11; a++) {
        reset(0);
        r = W.b.r;
        *ray_field(&r, a) = NULL;
        expect(rp_rays_prepare(&r), RP_ERR_NULL, "%s: rays.%s NULL", f, RF[a]);
    }
    /* the world's origins change, so a prepare would rewrite the reciprocals */
    reset(0);
    for (int i = 0; i < N; i++)
        W.b.r.dz[i] = -2;
    take(&SNAP);
    r = W.b.r;
    r.dx = (float *)misaligned();
    expect(rp_rays_prepare(&r), RP_ERR_ALIGN, "%s: dx misaligned", f);
    r = W.b.r;
    r.rdy = (float *)misaligned();
    expect(rp_rays_prepare(&r), RP_ERR_ALIGN, "%s: rdy misaligned", f);
    r = W.b.r;
    r.rdx = r.ox;
    expect(rp_rays_prepare(&r), RP_ERR_ALIAS, "%s: rdx = ox", f);
    r = W.b.r;
    r.rdz = r.rdy;
    expect(rp_rays_prepare(&r), RP_ERR_ALIAS, "%s: rdz = rdy", f);
    r = W.b.r;
    r.rdx = r.tmax + 3;
    expect(rp_rays_prepare(&r), RP_ERR_ALIAS, "%s: rdx overlaps tmax", f);
    r = W.b.r;
    r.n = SIZE_MAX / 2;
    expect(rp_rays_prepare(&r), RP_ERR_COUNT, "%s: n * 4 overflows", f);
    r = W.b.r;
    r.n = 0;
    expect(rp_rays_prepare(&r), RP_OK, "%s: n = 0", f);
    tap_int(rp_rays_prepare(&W.b.r), RP_OK, "%s: valid call", f);
    tap_f32(W.b.r.rdz[0], -0.5f, "%s: valid call writes 1/d", f);
    /* a refused prepare leaves a batch unprepared */
    r = u.r;
    r.rdx = r.ox;
    tap_int(rp_rays_prepare(&r), RP_ERR_ALIAS, "%s: refused on a fresh batch", f);
    tap_int(rp_intersect_aabb(&r, NULL, W.box, W.hit, NULL, NULL), RP_ERR_NOT_PREPARED,
            "%s: ... which stays unprepared", f);
    tb_free(&u);

    f = "rp_hits_reset";
    reset(0);
    for (int i = 0; i < N; i++)
        W.b.h.prim[i] = 3;
    take(&SNAP);
    expect(rp_hits_reset(NULL), RP_ERR_NULL, "%s: NULL", f);
    h = W.b.h;
    h.v = NULL;
    expect(rp_hits_reset(&h), RP_ERR_NULL, "%s: v NULL", f);
    h = W.b.h;
    h.prim = NULL;
    expect(rp_hits_reset(&h), RP_ERR_NULL, "%s: prim NULL", f);
    h = W.b.h;
    h.nz = (float *)misaligned();
    expect(rp_hits_reset(&h), RP_ERR_ALIGN, "%s: nz misaligned", f);
    h = W.b.h;
    h.n = 0;
    expect(rp_hits_reset(&h), RP_OK, "%s: n = 0", f);
    tap_int(rp_hits_reset(&W.b.h), RP_OK, "%s: valid call", f);
    tap_int(W.b.h.prim[N - 1], RP_NO_HIT, "%s: valid call empties the records", f);
}

/* ---- allocation ------------------------------------------------------ */
static int aligned64(const void *p) { return ((uintptr_t)p & 63u) == 0; }

static void test_alloc(void) {
    const size_t n = 37, per = 48; /* 37 padded to a multiple of 16 */
    rp_rays r, keep;
    rp_hits h, keeph;
    int ok;

    tap_int(rp_rays_alloc(1, NULL), RP_ERR_NULL, "rp_rays_alloc(rays = NULL) -> RP_ERR_NULL");
    tap_int(rp_hits_alloc(1, NULL), RP_ERR_NULL, "rp_hits_alloc(hits = NULL) -> RP_ERR_NULL");
    memset(&r, 0x77, sizeof r);
    keep = r;
    tap_int(rp_rays_alloc(SIZE_MAX, &r), RP_ERR_COUNT, "rp_rays_alloc(SIZE_MAX) -> RP_ERR_COUNT");
    tap_ok(memcmp(&r, &keep, sizeof r) == 0, "rp_rays_alloc(SIZE_MAX) leaves *rays untouched");
    tap_int(rp_rays_alloc(SIZE_MAX / 16, &r), RP_ERR_COUNT, "rp_rays_alloc(SIZE_MAX / 16) -> RP_ERR_COUNT");
    tap_ok(memcmp(&r, &keep, sizeof r) == 0, "rp_rays_alloc(SIZE_MAX / 16) leaves *rays untouched");
    memset(&h, 0x77, sizeof h);
    keeph = h;
    tap_int(rp_hits_alloc(SIZE_MAX - 3, &h), RP_ERR_COUNT, "rp_hits_alloc(SIZE_MAX - 3) -> RP_ERR_COUNT");
    tap_ok(memcmp(&h, &keeph, sizeof h) == 0, "rp_hits_alloc(SIZE_MAX - 3) leaves *hits untouched");

    tap_int(rp_rays_alloc(n, &r), RP_OK, "rp_rays_alloc(37)");
    {
        float *a[11];
        ok = r.n == n && r.block_ != NULL;
        for (int k = 0; k < 11; k++) {
            a[k] = *ray_field(&r, k);
            ok &= aligned64(a[k]);
        }
        tap_ok(ok, "rp_rays_alloc: n = 37, every array 64-byte aligned");
        ok = 1;
        for (int i = 0; i < 11; i++)
            for (int j = 0; j < 11; j++)
                if (i != j)
                    ok &= a[i] + per <= a[j] || a[j] + per <= a[i];
        tap_ok(ok, "rp_rays_alloc: the arrays are disjoint, each padded to 48 floats");
        ok = 1;
        for (size_t i = 0; i < n; i++) {
            ok &= r.ox[i] == 0 && r.oy[i] == 0 && r.oz[i] == 0;
            ok &= r.dx[i] == 0 && r.dy[i] == 0 && r.dz[i] == 0;
            ok &= tap_same_f32(r.tmin[i], 0.0f) && r.tmax[i] == INFINITY;
        }
        tap_ok(ok, "rp_rays_alloc: origins and directions 0, tmin 0, tmax +inf");
        reset(0);
        tap_int(rp_intersect_aabb(&r, NULL, W.box, W.hit, NULL, NULL), RP_ERR_NOT_PREPARED,
                "rp_rays_alloc: the batch is not prepared");
    }
    rp_rays_free(&r);
    memset(&keep, 0, sizeof keep);
    tap_ok(memcmp(&r, &keep, sizeof r) == 0, "rp_rays_free zeroes the batch");
    rp_rays_free(NULL);
    tap_ok(1, "rp_rays_free(NULL) is a no-op");
    {
        float x[4] = {1, 2, 3, 4};
        r.n = 4;
        r.ox = x;
        rp_rays_free(&r); /* caller-owned: only zeroed, x not freed */
        tap_ok(memcmp(&r, &keep, sizeof r) == 0 && x[3] == 4, "rp_rays_free of caller arrays only zeroes");
    }

    /* element i of the arrays in different L1 sets: with 64-byte lines and
     * 4 KB per way (64 sets), array k's element i is in set (k * stride /
     * 64 + c) mod 64, all different when the stride is an odd number of
     * lines.  A power-of-two batch padded only to whole lines put ray i's
     * 11 floats in one 8-way set (16 KB apart for 4096 rays). */
    {
        static const size_t sizes[] = {1, 16, 17, 1024, 4096, 4097, 65536};
        ok = 1;
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            rp_rays q;
            rp_hits g;
            if (rp_rays_alloc(sizes[z], &q) != RP_OK || rp_hits_alloc(sizes[z], &g) != RP_OK) {
                ok = 0;
                break;
            }
            uint64_t seen = 0, seenh = 0;
            int sets = 0, setsh = 0;
            for (int k = 0; k < 11; k++) {
                uint64_t bit = (uint64_t)1 << (((uintptr_t)*ray_field(&q, k) >> 6) & 63u);
                sets += !(seen & bit);
                seen |= bit;
            }
            const void *ha[7] = {g.t, g.u, g.v, g.prim, g.nx, g.ny, g.nz};
            for (int k = 0; k < 7; k++) {
                uint64_t bit = (uint64_t)1 << (((uintptr_t)ha[k] >> 6) & 63u);
                setsh += !(seenh & bit);
                seenh |= bit;
            }
            ok &= sets == 11 && setsh == 7;
            rp_rays_free(&q);
            rp_hits_free(&g);
        }
        tap_ok(ok, "rp_rays_alloc, rp_hits_alloc: element i of each array in a different L1 set "
                   "(n = 1 ... 65536)");
    }

    tap_int(rp_hits_alloc(n, &h), RP_OK, "rp_hits_alloc(37)");
    {
        const void *a[7] = {h.t, h.u, h.v, h.prim, h.nx, h.ny, h.nz};
        ok = h.n == n && h.block_ != NULL;
        for (int k = 0; k < 7; k++)
            ok &= a[k] != NULL && aligned64(a[k]);
        tap_ok(ok, "rp_hits_alloc: n = 37, every array 64-byte aligned");
        ok = 1;
        for (int i = 0; i < 7; i++)
            for (int j = 0; j < 7; j++)
                if (i != j)
                    ok &= (const char *)a[i] + 4 * per <= (const char *)a[j] ||
                          (const char *)a[j] + 4 * per <= (const char *)a[i];
        tap_ok(ok, "rp_hits_alloc: the arrays are disjoint, each padded to 48 elements");
        ok = 1;
        for (size_t i = 0; i < n; i++)
            ok &= h.prim[i] == RP_NO_HIT && h.t[i] == INFINITY && tap_same_f32(h.u[i], 0.0f) &&
                  tap_same_f32(h.v[i], 0.0f) && h.nx[i] == 0 && h.ny[i] == 0 && h.nz[i] == 0;
        tap_ok(ok, "rp_hits_alloc: reset records (RP_NO_HIT, +inf, u = v = 0, normal 0)");
    }
    rp_hits_free(&h);
    memset(&keeph, 0, sizeof keeph);
    tap_ok(memcmp(&h, &keeph, sizeof h) == 0, "rp_hits_free zeroes the records");
    rp_hits_free(NULL);
    tap_ok(1, "rp_hits_free(NULL) is a no-op");
}

/* ---- single-ray helpers ---------------------------------------------- */
static void test_single(void) {
    const rp_aabb box = tb_box(0, 0, 0, 1, 1, 1);
    int hit = 7;
    float t = -7;
    rp_vec3 p = tb_v(9, 9, 9), nn = tb_v(9, 9, 9);
    tap_int(rp_raycast_aabb(tb_v(-1, 0.5f, 0.5f), tb_v(1, 0, 0), NULL, &hit, &t, &nn), RP_ERR_NULL,
            "rp_raycast_aabb: box NULL -> RP_ERR_NULL");
    tap_int(rp_raycast_aabb(tb_v(-1, 0.5f, 0.5f), tb_v(1, 0, 0), &box, NULL, &t, &nn), RP_ERR_NULL,
            "rp_raycast_aabb: hit NULL -> RP_ERR_NULL");
    tap_ok(hit == 7 && t == -7 && nn.x == 9, "rp_raycast_aabb: nothing written on an error");
    tap_int(rp_segment_aabb(tb_v(-1, 0.5f, 0.5f), tb_v(2, 0.5f, 0.5f), NULL, &hit, &t, &p, &nn), RP_ERR_NULL,
            "rp_segment_aabb: box NULL -> RP_ERR_NULL");
    tap_int(rp_segment_aabb(tb_v(-1, 0.5f, 0.5f), tb_v(2, 0.5f, 0.5f), &box, NULL, &t, &p, &nn), RP_ERR_NULL,
            "rp_segment_aabb: hit NULL -> RP_ERR_NULL");
    tap_ok(hit == 7 && t == -7 && p.x == 9 && nn.x == 9, "rp_segment_aabb: nothing written on an error");
}

/* ---- status strings ---------------------------------------------------- */
static void test_status_strings(void) {
    const char *s[11];
    int ok = 1;
    for (int i = 0; i <= RP_ERR_INVALID; i++) {
        s[i] = rp_status_string((rp_status)i);
        if (!tap_ok(s[i] != NULL && s[i][0] != 0, "rp_status_string(%s) is a non-empty string", sname((rp_status)i)))
            s[i] = "";
    }
    for (int i = 0; i <= RP_ERR_INVALID; i++)
        for (int j = i + 1; j <= RP_ERR_INVALID; j++)
            if (strcmp(s[i], s[j]) == 0) {
                ok = 0;
                tap_diag("%s and %s share \"%s\"", sname((rp_status)i), sname((rp_status)j), s[i]);
            }
    tap_ok(ok, "rp_status_string: the 11 descriptions are distinct");
    tap_ok(rp_status_string((rp_status)99) != NULL, "rp_status_string(99) is not NULL");
    tap_ok(rp_status_string((rp_status)-1) != NULL, "rp_status_string(-1) is not NULL");
}

/* ---- variants ------------------------------------------------------------ */
static void test_isa(void) {
    static const char *const names[] = {"scalar", "sse41", "avx2", "avx512", "neon"};
    const unsigned compiled = rp_isa_compiled(), runnable = rp_isa_runnable(), native = rp_isa_native();
    const rp_isa start = rp_active_isa();
    rp_isa isa;
    tap_diag("compiled 0x%x, runnable 0x%x, native 0x%x, active %s", compiled, runnable, native,
             rp_isa_name(start));

    for (int i = -1; i < RP_ISA_COUNT; i++) {
        const char *nm = rp_isa_name((rp_isa)i);
        const char *want = i < 0 ? "auto" : names[i];
        tap_ok(nm != NULL && strcmp(nm, want) == 0, "rp_isa_name(%d) = \"%s\"", i, want);
        isa = (rp_isa)77;
        tap_ok(rp_isa_from_name(want, &isa) == RP_OK && isa == (rp_isa)i,
               "rp_isa_from_name(\"%s\") = %d (round trip)", want, i);
    }
    tap_ok(rp_isa_name(RP_ISA_COUNT) == NULL && rp_isa_name((rp_isa)-2) == NULL &&
           rp_isa_name((rp_isa)1000) == NULL, "rp_isa_name of out-of-range values is NULL");
    isa = (rp_isa)77;
    tap_int(rp_isa_from_name("sse3", &isa), RP_ERR_ISA_UNKNOWN, "rp_isa_from_name(\"sse3\") -> RP_ERR_ISA_UNKNOWN");
    tap_int(isa, 77, "rp_isa_from_name: *isa untouched on an error");
    tap_int(rp_isa_from_name("", &isa), RP_ERR_ISA_UNKNOWN, "rp_isa_from_name(\"\") -> RP_ERR_ISA_UNKNOWN");
    tap_int(rp_isa_from_name(NULL, &isa), RP_ERR_NULL, "rp_isa_from_name(NULL) -> RP_ERR_NULL");
    tap_int(rp_isa_from_name("scalar", NULL), RP_ERR_NULL, "rp_isa_from_name(name, NULL) -> RP_ERR_NULL");

    tap_ok(compiled & runnable & native & 1u, "scalar is compiled, runnable and native");
    tap_ok((runnable & ~compiled) == 0 && (native & ~runnable) == 0,
           "native is within runnable, runnable within compiled");
    tap_ok(compiled < (1u << RP_ISA_COUNT), "no bits beyond RP_ISA_COUNT");

    tap_int(rp_set_isa((rp_isa)RP_ISA_COUNT), RP_ERR_ISA_UNKNOWN, "rp_set_isa(RP_ISA_COUNT) -> RP_ERR_ISA_UNKNOWN");
    tap_int(rp_active_isa(), start, "... the active variant is unchanged");
    tap_int(rp_set_isa((rp_isa)-2), RP_ERR_ISA_UNKNOWN, "rp_set_isa(-2) -> RP_ERR_ISA_UNKNOWN");
    tap_int(rp_set_isa((rp_isa)1000), RP_ERR_ISA_UNKNOWN, "rp_set_isa(1000) -> RP_ERR_ISA_UNKNOWN");
    tap_int(rp_active_isa(), start, "... the active variant is unchanged");

    int unavailable = 0;
    for (int i = 0; i < RP_ISA_COUNT; i++) {
        if (runnable & (1u << i)) {
            tap_int(rp_set_isa((rp_isa)i), RP_OK, "rp_set_isa(%s) (runnable) -> RP_OK", names[i]);
            tap_int(rp_active_isa(), i, "rp_active_isa() = %s after forcing it", names[i]);
            reset(0);
            tap_ok(rp_intersect_aabb(&W.b.r, NULL, W.box, W.hit, W.tn, W.tf) == RP_OK && W.hit[0] == 1 &&
                   W.tn[0] == 4, "%s: a kernel call works", names[i]);
            tap_int(rp_set_isa(start), RP_OK, "restore the variant");
        } else {
            unavailable++;
            tap_int(rp_set_isa((rp_isa)i), RP_ERR_ISA_UNAVAILABLE,
                    "rp_set_isa(%s) (not runnable here) -> RP_ERR_ISA_UNAVAILABLE", names[i]);
            tap_int(rp_active_isa(), start, "... the active variant is unchanged (%s)", rp_isa_name(start));
        }
    }
    if (!unavailable)
        tap_skip("every variant is runnable here", "rp_set_isa of a variant that cannot run");
    tap_int(rp_set_isa(RP_ISA_AUTO), RP_OK, "rp_set_isa(RP_ISA_AUTO) -> RP_OK");
    tap_ok((native >> rp_active_isa()) & 1u, "the automatic choice (%s) is native", rp_isa_name(rp_active_isa()));
    rp_set_isa(start);
}

/* ---- NaN-filled batches: every variant, every kernel ------------------ */
/* Misuse that is not an argument error: a batch (and primitives) full of
 * NaN.  Every kernel returns RP_OK under every runnable variant, nothing
 * hits, and nothing is written but the documented per-ray outputs of
 * rp_intersect_aabb (hit 0, tnear = tmin, tfar = tmax: NaN here). */
static void test_nan_batches(void) {
    enum { NB = 37 }; /* not a multiple of any width */
    unsigned runnable = rp_isa_runnable();
    for (int isa = 0; isa < RP_ISA_COUNT; isa++) {
        if (!(runnable & (1u << isa)))
            continue;
        rp_set_isa((rp_isa)isa);
        const char *name = rp_isa_name((rp_isa)isa);
        for (int nan_prims = 0; nan_prims < 2; nan_prims++) {
            tb b;
            tb_init(&b, NB);
            float *arr[8] = {b.r.ox, b.r.oy, b.r.oz, b.r.dx, b.r.dy, b.r.dz, b.r.tmin, b.r.tmax};
            for (size_t i = 0; i < NB; i++)
                for (int k = 0; k < 8; k++)
                    arr[k][i] = NAN;
            tb_must(rp_rays_prepare(&b.r), "rp_rays_prepare");
            float q = nan_prims ? NAN : 1.0f;
            rp_aabb box = {{-q, -q, -q}, {q, q, q}};
            rp_triangle tri = {{-q, -q, 0}, {q, -q, 0}, {0, q, 0}};
            rp_sphere sph = {{0, 0, 0}, q};
            rp_plane pl = {{0, 0, q}, 0};
            uint8_t hit[NB], occ[NB];
            float tn[NB], tf[NB];
            memset(occ, 0, sizeof occ);
            int ok = rp_intersect_aabb(&b.r, NULL, &box, hit, tn, tf) == RP_OK;
            for (size_t i = 0; i < NB; i++)
                ok &= hit[i] == 0 && isnan(tn[i]) && isnan(tf[i]);
            ok &= rp_closest_aabb(&b.r, NULL, &box, 1, 0, &b.h) == RP_OK;
            ok &= rp_closest_triangle(&b.r, NULL, &tri, 1, 1, 0, &b.h) == RP_OK;
            ok &= rp_closest_triangle(&b.r, NULL, &tri, 1, 1, RP_CULL_BACKFACE, &b.h) == RP_OK;
            ok &= rp_closest_sphere(&b.r, NULL, &sph, 1, 2, &b.h) == RP_OK;
            ok &= rp_closest_plane(&b.r, NULL, &pl, 1, 3, &b.h) == RP_OK;
            ok &= rp_occluded_triangle(&b.r, NULL, &tri, 1, 0, occ) == RP_OK;
            for (size_t i = 0; i < NB; i++)
                ok &= b.h.prim[i] == RP_NO_HIT && isinf(b.h.t[i]) && occ[i] == 0 &&
                      isnan(b.r.tmax[i]);
            tap_ok(ok, "%s: NaN-filled batch%s: RP_OK, no hit, nothing written", name,
                   nan_prims ? " and NaN primitives" : "");
            tb_free(&b);
        }
    }
    rp_set_isa(RP_ISA_AUTO);
}

int main(void) {
    tb_init(&W.b, N);
    for (int k = 0; k < 11; k++)
        W.ra[k] = *ray_field(&W.b.r, k);
    W.ha[0] = W.b.h.t; W.ha[1] = W.b.h.u; W.ha[2] = W.b.h.v;
    W.ha[3] = (float *)(void *)W.b.h.prim;
    W.ha[4] = W.b.h.nx; W.ha[5] = W.b.h.ny; W.ha[6] = W.b.h.nz;
    tap_diag("raypack API argument checks, variant %s", rp_isa_name(rp_active_isa()));

    test_intersect_aabb();
    for (int k = 0; k < 4; k++)
        test_closest(k);
    test_occluded();
    for (int k = 0; k < 4; k++)
        test_normals(k);
    test_empty_batches();
    test_prepare_reset();
    test_alloc();
    test_single();
    test_status_strings();
    test_isa();
    test_nan_batches();
    tb_free(&W.b);
    return tap_done();
}
