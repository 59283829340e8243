/*
 * test_seed004.c - seed 004's raycasts (plane, sphere, box, triangle) run
 * through the batch API: rp_closest_plane/sphere/aabb/triangle (with and
 * without RP_CULL_BACKFACE), rp_occluded_triangle and rp_hits_normals_*,
 * each with rays that hit, miss, start inside, and sit exactly on the ends
 * of their [t_min, t_max] interval.  Then the closest-hit contract: feeding
 * the primitives in two chunks with index_base gives the same record as one
 * call, and tmax is shortened to t on a hit.  Inputs are exact binary
 * fractions, so every expected t, u, v and normal is exact.
 */
#include "raypack.h"
#include "tap.h"
#include "batch.h"

static const float INF = INFINITY;

typedef struct pcase {
    float o[3], d[3], tmin, tmax;
    int hit;
    float t, u, v, n[3];
    const char *what;
} pcase;

static void load(tb *b, const pcase *c, size_t n) {
    for (size_t i = 0; i < n; i++)
        tb_ray(b, i, c[i].o[0], c[i].o[1], c[i].o[2], c[i].d[0], c[i].d[1],
               c[i].d[2], c[i].tmin, c[i].tmax);
    tb_prepare(b);
}

/* The record of every ray after one closest-hit call + normals. */
static void check_records(const char *kind, const tb *b, const pcase *c, size_t n,
                          uint32_t base) {
    for (size_t i = 0; i < n; i++) {
        float nn[3];
        tb_normal(b, i, nn);
        if (c[i].hit) {
            tap_int(b->h.prim[i], base, "%s %s: hit, prim = index_base", kind, c[i].what);
            tap_f32(b->h.t[i], c[i].t, "%s %s: t", kind, c[i].what);
            tap_f32v(b->h.u[i], c[i].u, "%s %s: u", kind, c[i].what);
            tap_f32v(b->h.v[i], c[i].v, "%s %s: v", kind, c[i].what);
            tap_f32(b->r.tmax[i], c[i].t, "%s %s: tmax shortened to t", kind, c[i].what);
            tap_f32x3(nn, c[i].n[0], c[i].n[1], c[i].n[2], "%s %s: normal", kind, c[i].what);
        } else {
            tap_int(b->h.prim[i], RP_NO_HIT, "%s %s: miss", kind, c[i].what);
            tap_f32(b->h.t[i], INF, "%s %s: t stays +inf", kind, c[i].what);
            tap_f32(b->r.tmax[i], c[i].tmax, "%s %s: tmax untouched", kind, c[i].what);
            tap_f32x3(nn, 0, 0, 0, "%s %s: normal untouched (0)", kind, c[i].what);
        }
    }
}

static void test_plane(void) {
    /* the ground y = 0 */
    const rp_plane pl = tb_plane(0, 1, 0, 0);
    static const pcase c[] = {
        {{0, 5, 0}, {0, -1, 0}, 0, INF, 1, 5, 0, 0, {0, 1, 0}, "from above"},
        {{0, 5, 0}, {1, 0, 0}, 0, INF, 0, 0, 0, 0, {0}, "parallel"},
        {{0, 5, 0}, {0, 1, 0}, 0, INF, 0, 0, 0, 0, {0}, "pointing away (t = -5)"},
        /* both sides are hit; the normal is n as given */
        {{0, -2, 0}, {0, 1, 0}, 0, INF, 1, 2, 0, 0, {0, 1, 0}, "from below"},
        {{0, 5, 0}, {0, -1, 0}, 0, 4, 0, 0, 0, 0, {0}, "tmax 4 < t"},
        {{0, 5, 0}, {0, -1, 0}, 0, 5, 1, 5, 0, 0, {0, 1, 0}, "tmax = t (closed)"},
        {{0, 5, 0}, {0, -1, 0}, 5, INF, 1, 5, 0, 0, {0, 1, 0}, "tmin = t (closed)"},
        {{0, 5, 0}, {0, -1, 0}, 5.5f, INF, 0, 0, 0, 0, {0}, "tmin 5.5 > t"},
        {{3, 5, -1}, {0, -2, 0}, 0, INF, 1, 2.5f, 0, 0, {0, 1, 0}, "|d| = 2"},
        {{1, 4, 2}, {0.5f, -0.5f, 0}, 0, INF, 1, 8, 0, 0, {0, 1, 0}, "oblique"},
        /* t < 0 is a hit when tmin allows it */
        {{0, 5, 0}, {0, 1, 0}, -INF, INF, 1, -5, 0, 0, {0, 1, 0}, "behind, tmin = -inf"},
    };
    const size_t n = sizeof c / sizeof c[0];
    tb b;
    tb_init(&b, n);
    load(&b, c, n);
    tap_int(rp_closest_plane(&b.r, NULL, &pl, 1, 4, &b.h), RP_OK, "rp_closest_plane status");
    tap_int(rp_hits_normals_plane(&b.r, &b.h, &pl, 1, 4), RP_OK, "rp_hits_normals_plane status");
    check_records("plane", &b, c, n, 4);
    tb_free(&b);

    /* a tilted plane 0.6x + 0.8y = 4: t = 4 / 0.6 in float arithmetic */
    {
        const rp_plane tp = tb_plane(0.6f, 0.8f, 0, 4);
        volatile float four = 4.0f, six = 0.6f;
        float nn[3];
        tb_init(&b, 1);
        tb_ray(&b, 0, 0, 0, 0, 1, 0, 0, 0, INF);
        tb_prepare(&b);
        rp_closest_plane(&b.r, NULL, &tp, 1, 0, &b.h);
        rp_hits_normals_plane(&b.r, &b.h, &tp, 1, 0);
        tb_normal(&b, 0, nn);
        tap_f32(b.h.t[0], four / six, "plane tilted: t = d / dot(n, dir)");
        tap_f32x3(nn, 0.6f, 0.8f, 0, "plane tilted: normal n as given");
        tb_free(&b);
    }
}

static void test_sphere(void) {
    const rp_sphere sp = tb_sphere(0, 0, -5, 1);
    static const pcase c[] = {
        {{0, 0, 0}, {0, 0, -1}, 0, INF, 1, 4, 0, 0, {0, 0, 1}, "head on"},
        {{0, 2, 0}, {0, 0, -1}, 0, INF, 0, 0, 0, 0, {0}, "passes above"},
        {{0, 1, 0}, {0, 0, -1}, 0, INF, 1, 5, 0, 0, {0, 1, 0}, "tangent (disc = 0)"},
        {{0, 0, -5}, {1, 0, 0}, 0, INF, 1, 1, 0, 0, {1, 0, 0}, "origin at the centre: far root"},
        {{0, 0, -10}, {0, 0, -1}, 0, INF, 0, 0, 0, 0, {0}, "sphere behind"},
        {{0, 0, 0}, {0, 0, -2}, 0, INF, 1, 2, 0, 0, {0, 0, 1}, "|d| = 2"},
        {{0, 0, 0}, {0, 0, -1}, 0, 3.5f, 0, 0, 0, 0, {0}, "tmax 3.5 < near root"},
        {{0, 0, 0}, {0, 0, -1}, 0, 4, 1, 4, 0, 0, {0, 0, 1}, "tmax = near root"},
        {{0, 0, 0}, {0, 0, -1}, 4, INF, 1, 4, 0, 0, {0, 0, 1}, "tmin = near root"},
        /* near root below tmin: the far root, seen from inside */
        {{0, 0, 0}, {0, 0, -1}, 4.5f, INF, 1, 6, 0, 0, {0, 0, -1}, "tmin past near root: far root"},
        {{0, 0, 0}, {0, 0, -1}, 6.5f, INF, 0, 0, 0, 0, {0}, "tmin past both roots"},
    };
    const size_t n = sizeof c / sizeof c[0];
    tb b;
    tb_init(&b, n);
    load(&b, c, n);
    tap_int(rp_closest_sphere(&b.r, NULL, &sp, 1, 0, &b.h), RP_OK, "rp_closest_sphere status");
    tap_int(rp_hits_normals_sphere(&b.r, &b.h, &sp, 1, 0), RP_OK, "rp_hits_normals_sphere status");
    check_records("sphere", &b, c, n, 0);
    tb_free(&b);

    /* radius 2: the normal is (p - c) / r, unit length */
    {
        const rp_sphere s2 = tb_sphere(3, 0, 0, 2);
        float nn[3];
        tb_init(&b, 1);
        tb_ray(&b, 0, 0, 0, 0, 1, 0, 0, 0, INF);
        tb_prepare(&b);
        rp_closest_sphere(&b.r, NULL, &s2, 1, 0, &b.h);
        rp_hits_normals_sphere(&b.r, &b.h, &s2, 1, 0);
        tb_normal(&b, 0, nn);
        tap_f32(b.h.t[0], 1, "sphere r = 2: t");
        tap_f32x3(nn, -1, 0, 0, "sphere r = 2: normal (p - c) / r");
        tb_free(&b);
    }
}

static void test_box(void) {
    const rp_aabb box = tb_box(-1, -1, -1, 1, 1, 1);
    static const pcase c[] = {
        {{-5, 0, 0}, {1, 0, 0}, 0, INF, 1, 4, 0, 0, {-1, 0, 0}, "enters -x"},
        {{0, 5, 0}, {0, -1, 0}, 0, INF, 1, 4, 0, 0, {0, 1, 0}, "enters +y"},
        {{0, 0, 7}, {0, 0, -2}, 0, INF, 1, 3, 0, 0, {0, 0, 1}, "enters +z, |d| = 2"},
        /* inside: the entry t is the ray's own tmin, normal 0 */
        {{0, 0, 0}, {1, 0, 0}, 0, INF, 1, 0, 0, 0, {0, 0, 0}, "origin inside"},
        {{-5, 3, 0}, {1, 0, 0}, 0, INF, 0, 0, 0, 0, {0}, "passes above"},
        {{0, 0, -4}, {0, 0, 1}, 0, 2, 0, 0, 0, 0, {0}, "tmax 2 < entry 3"},
        {{0, 0, -4}, {0, 0, 1}, 0, 3, 1, 3, 0, 0, {0, 0, -1}, "tmax = entry (closed)"},
        /* tmin inside the box: t = tmin (clipped), normal 0 */
        {{0, 0, -4}, {0, 0, 1}, 3.5f, INF, 1, 3.5f, 0, 0, {0, 0, 0}, "tmin inside the box"},
        {{0, -5, 0}, {0, 1, 0}, 6.5f, INF, 0, 0, 0, 0, {0}, "tmin past the exit"},
        /* through the edge x = y = 1: x and y tie at t = 1, x wins */
        {{2, 2, 0}, {-1, -1, 0}, 0, INF, 1, 1, 0, 0, {1, 0, 0}, "edge tie goes to x"},
        {{0, 2, 2}, {0, -1, -1}, 0, INF, 1, 1, 0, 0, {0, 1, 0}, "edge tie y/z goes to y"},
    };
    const size_t n = sizeof c / sizeof c[0];
    tb b;
    tb_init(&b, n);
    load(&b, c, n);
    tap_int(rp_closest_aabb(&b.r, NULL, &box, 1, 0, &b.h), RP_OK, "rp_closest_aabb status");
    tap_int(rp_hits_normals_aabb(&b.r, &b.h, &box, 1, 0), RP_OK, "rp_hits_normals_aabb status");
    check_records("box", &b, c, n, 0);
    tb_free(&b);
}

/* Triangle in z = -2, front face (cross(e1, e2) = +z) towards +z. */
static const pcase tri_cases[] = {
    {{0.25f, 0.25f, 0}, {0, 0, -1}, 0, INF, 1, 2, 0.25f, 0.25f, {0, 0, 1}, "front"},
    /* from behind: normal negated to face the ray */
    {{0.25f, 0.25f, -4}, {0, 0, 1}, 0, INF, 1, 2, 0.25f, 0.25f, {0, 0, -1}, "back"},
    {{0.75f, 0.75f, 0}, {0, 0, -1}, 0, INF, 0, 0, 0, 0, {0}, "outside (u + v = 1.5)"},
    {{0.25f, 0.25f, 0}, {0, 0, -1}, 0, 1.5f, 0, 0, 0, 0, {0}, "tmax 1.5 < t"},
    {{0.25f, 0.25f, 0}, {0, 0, -1}, 0, 2, 1, 2, 0.25f, 0.25f, {0, 0, 1}, "tmax = t (closed)"},
    {{0.25f, 0.25f, 0}, {0, 0, -1}, 2, INF, 1, 2, 0.25f, 0.25f, {0, 0, 1}, "tmin = t (closed)"},
    {{0.5f, 0.25f, 1}, {0, 0, -1.5f}, 0, INF, 1, 2, 0.5f, 0.25f, {0, 0, 1}, "|d| = 1.5"},
    {{0, 0, 0}, {0.125f, 0.0625f, -1}, 0, INF, 1, 2, 0.25f, 0.125f, {0, 0, 1}, "oblique"},
    {{0.25f, 0.25f, 0}, {0, 0, 1}, 0, INF, 0, 0, 0, 0, {0}, "pointing away"},
};
#define NTRI (sizeof tri_cases / sizeof tri_cases[0])

static rp_triangle seed_tri(void) {
    return tb_tri(tb_v(0, 0, -2), tb_v(1, 0, -2), tb_v(0, 1, -2));
}

static void test_triangle(void) {
    const rp_triangle tri = seed_tri();
    pcase culled[NTRI];
    tb b;
    tb_init(&b, NTRI);

    load(&b, tri_cases, NTRI);
    tap_int(rp_closest_triangle(&b.r, NULL, &tri, 1, 0, 0, &b.h), RP_OK,
            "rp_closest_triangle status");
    tap_int(rp_hits_normals_triangle(&b.r, &b.h, &tri, 1, 0), RP_OK,
            "rp_hits_normals_triangle status");
    check_records("triangle", &b, tri_cases, NTRI, 0);

    /* RP_CULL_BACKFACE: the same, except that the back hit is gone */
    memcpy(culled, tri_cases, sizeof culled);
    culled[1].hit = 0;
    culled[1].what = "back, culled";
    load(&b, culled, NTRI);
    tap_int(rp_closest_triangle(&b.r, NULL, &tri, 1, 0, RP_CULL_BACKFACE, &b.h), RP_OK,
            "rp_closest_triangle (cull) status");
    rp_hits_normals_triangle(&b.r, &b.h, &tri, 1, 0);
    check_records("triangle cull", &b, culled, NTRI, 0);

    /* any-hit: 1 for a hit, a miss leaves the byte alone (never writes 0) */
    for (int cull = 0; cull < 2; cull++) {
        uint8_t occ[NTRI];
        const pcase *cs = cull ? culled : tri_cases;
        load(&b, cs, NTRI);
        memset(occ, 0x55, sizeof occ);
        tap_int(rp_occluded_triangle(&b.r, NULL, &tri, 1, cull ? RP_CULL_BACKFACE : 0u, occ),
                RP_OK, "rp_occluded_triangle%s status", cull ? " (cull)" : "");
        for (size_t i = 0; i < NTRI; i++)
            tap_int(occ[i], cs[i].hit ? 1 : 0x55, "occluded%s %s", cull ? " cull" : "", cs[i].what);
        for (size_t i = 0; i < NTRI; i++)
            tap_f32(b.r.tmax[i], cs[i].tmax, "occluded%s %s: tmax not shortened",
                    cull ? " cull" : "", cs[i].what);
    }
    tb_free(&b);
}

/* ---- chunking ---------------------------------------------------- */

static uint32_t lcg_state = 12345u;
static float lcg_unit(void) { /* [0, 1) in steps of 2^-16: exact floats */
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (float)(lcg_state >> 16) * (1.0f / 65536.0f);
}
static float lcg_range(float lo, float hi) { return lo + (hi - lo) * lcg_unit(); }

enum { CH_RAYS = 64, CH_PRIMS = 10 };

typedef struct chunk_scene {
    rp_aabb box[CH_PRIMS];
    rp_triangle tri[CH_PRIMS];
    rp_sphere sph[CH_PRIMS];
    rp_plane pl[CH_PRIMS];
} chunk_scene;

/* Call kind k on primitives [first, first + count) with index_base. */
static rp_status call_kind(int k, tb *b, const chunk_scene *s, size_t first,
                           size_t count, uint32_t base) {
    switch (k) {
    case 0: return rp_closest_aabb(&b->r, NULL, s->box + first, count, base, &b->h);
    case 1: return rp_closest_triangle(&b->r, NULL, s->tri + first, count, base, 0, &b->h);
    case 2: return rp_closest_sphere(&b->r, NULL, s->sph + first, count, base, &b->h);
    default: return rp_closest_plane(&b->r, NULL, s->pl + first, count, base, &b->h);
    }
}

static void test_chunking(void) {
    static const char *const kinds[4] = {"aabb", "triangle", "sphere", "plane"};
    chunk_scene s;
    float o[CH_RAYS][3], d[CH_RAYS][3], tmax0[CH_RAYS];
    for (int j = 0; j < CH_PRIMS; j++) {
        float cx = lcg_range(-3, 3), cy = lcg_range(-3, 3), cz = lcg_range(-12, -4);
        float h = lcg_range(0.5f, 2);
        s.box[j] = tb_box(cx - h, cy - h, cz - h, cx + h, cy + h, cz + h);
        s.sph[j] = tb_sphere(cx, cy, cz, h);
        s.tri[j] = tb_tri(tb_v(cx - 2 * h, cy - h, cz), tb_v(cx + 2 * h, cy - h, cz + h),
                          tb_v(cx, cy + 2 * h, cz - h));
        s.pl[j] = tb_plane(lcg_range(-0.5f, 0.5f), lcg_range(-0.5f, 0.5f), 1, cz);
    }
    /* two exact duplicates so the chunk boundary can split a tie */
    s.box[6] = s.box[2];
    s.sph[6] = s.sph[2];
    s.tri[6] = s.tri[2];
    s.pl[6] = s.pl[2];
    for (int i = 0; i < CH_RAYS; i++) {
        o[i][0] = lcg_range(-1, 1);
        o[i][1] = lcg_range(-1, 1);
        o[i][2] = lcg_range(0, 2);
        d[i][0] = lcg_range(-0.5f, 0.5f);
        d[i][1] = lcg_range(-0.5f, 0.5f);
        d[i][2] = -1;
        tmax0[i] = (i % 4 == 3) ? lcg_range(4, 10) : INF;
    }

    tb one, two;
    tb_init(&one, CH_RAYS);
    tb_init(&two, CH_RAYS);
    for (int k = 0; k < 4; k++) {
        int hits = 0;
        for (int i = 0; i < CH_RAYS; i++) {
            tb_ray(&one, (size_t)i, o[i][0], o[i][1], o[i][2], d[i][0], d[i][1], d[i][2], 0, tmax0[i]);
        }
        tb_prepare(&one);
        tap_int(call_kind(k, &one, &s, 0, CH_PRIMS, 100), RP_OK, "chunking %s: one call", kinds[k]);
        for (int i = 0; i < CH_RAYS; i++)
            hits += one.h.prim[i] != RP_NO_HIT;
        tap_ok(hits > CH_RAYS / 4, "chunking %s: the scene is hit (%d of %d rays)", kinds[k],
               hits, CH_RAYS);
        /* tmax shortened to t on a hit, untouched on a miss */
        int short_ok = 1;
        for (int i = 0; i < CH_RAYS; i++) {
            float want = one.h.prim[i] != RP_NO_HIT ? one.h.t[i] : tmax0[i];
            if (!tap_same_f32(one.r.tmax[i], want)) {
                short_ok = 0;
                tap_diag("ray %d: tmax %a, t %a, prim %u", i, (double)one.r.tmax[i],
                         (double)one.h.t[i], (unsigned)one.h.prim[i]);
            }
        }
        tap_ok(short_ok, "chunking %s: tmax = t after a hit, else untouched", kinds[k]);

        for (size_t split = 1; split < CH_PRIMS; split++) {
            int same = 1;
            for (int i = 0; i < CH_RAYS; i++)
                tb_ray(&two, (size_t)i, o[i][0], o[i][1], o[i][2], d[i][0], d[i][1], d[i][2], 0, tmax0[i]);
            tb_prepare(&two);
            rp_status s1 = call_kind(k, &two, &s, 0, split, 100);
            rp_status s2 = call_kind(k, &two, &s, split, CH_PRIMS - split, 100 + (uint32_t)split);
            for (int i = 0; i < CH_RAYS; i++) {
                if (one.h.prim[i] != two.h.prim[i] || !tap_same_f32(one.h.t[i], two.h.t[i]) ||
                    !tap_same_f32(one.h.u[i], two.h.u[i]) || !tap_same_f32(one.h.v[i], two.h.v[i]) ||
                    !tap_same_f32(one.r.tmax[i], two.r.tmax[i])) {
                    if (same)
                        tap_diag("ray %d: one call prim %u t %a, two calls prim %u t %a", i,
                                 (unsigned)one.h.prim[i], (double)one.h.t[i],
                                 (unsigned)two.h.prim[i], (double)two.h.t[i]);
                    same = 0;
                }
            }
            tap_ok(s1 == RP_OK && s2 == RP_OK && same,
                   "chunking %s: split at %zu gives the one-call record", kinds[k], split);
        }
        /* the duplicate (index 6 = copy of 2) never wins */
        int dup_ok = 1;
        for (int i = 0; i < CH_RAYS; i++)
            dup_ok &= one.h.prim[i] != 106;
        tap_ok(dup_ok, "chunking %s: the later duplicate of primitive 2 never wins", kinds[k]);
    }
    tb_free(&one);
    tb_free(&two);
}

/* Normals touch only the rays whose record holds one of the primitives. */
static void test_normals_range(void) {
    const rp_sphere sp = tb_sphere(0, 0, -5, 1);
    const rp_plane pl = tb_plane(0, 0, 1, -20);
    float nn[3];
    tb b;
    tb_init(&b, 2);
    tb_ray(&b, 0, 0, 0, 0, 0, 0, -1, 0, INF); /* hits the sphere (t = 4) */
    tb_ray(&b, 1, 5, 0, 0, 0, 0, -1, 0, INF); /* misses it, hits the plane (t = 20) */
    tb_prepare(&b);
    rp_closest_sphere(&b.r, NULL, &sp, 1, 10, &b.h);
    rp_closest_plane(&b.r, NULL, &pl, 1, 11, &b.h);
    tap_ok(b.h.prim[0] == 10 && b.h.prim[1] == 11, "normals: ray 0 holds sphere 10, ray 1 plane 11");
    for (int i = 0; i < 2; i++)
        b.h.nx[i] = b.h.ny[i] = b.h.nz[i] = 7;
    /* sphere range [10, 11): only ray 0 */
    rp_hits_normals_sphere(&b.r, &b.h, &sp, 1, 10);
    tb_normal(&b, 0, nn);
    tap_f32x3(nn, 0, 0, 1, "normals: sphere normal written for its ray");
    tb_normal(&b, 1, nn);
    tap_f32x3(nn, 7, 7, 7, "normals: sphere range leaves the plane's ray untouched");
    /* base 0 count 10 does not contain 10 or 11: nothing written */
    rp_hits_normals_plane(&b.r, &b.h, &pl, 1, 0);
    tb_normal(&b, 1, nn);
    tap_f32x3(nn, 7, 7, 7, "normals: a range without the record writes nothing");
    rp_hits_normals_plane(&b.r, &b.h, &pl, 1, 11);
    tb_normal(&b, 1, nn);
    tap_f32x3(nn, 0, 0, 1, "normals: plane normal written for its ray");
    tb_normal(&b, 0, nn);
    tap_f32x3(nn, 0, 0, 1, "normals: plane range leaves the sphere's ray alone");
    tb_free(&b);
}

int main(void) {
    tap_diag("raypack seed 004 via the batch API, variant %s", rp_isa_name(rp_active_isa()));
    test_plane();
    test_sphere();
    test_box();
    test_triangle();
    test_chunking();
    test_normals_range();
    return tap_done();
}
