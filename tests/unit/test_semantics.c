/*
 * test_semantics.c - one case (at least) for every edge case the semantics
 * pin down (raypack.h, src/scalar/ref.h): +0/-0 direction components and
 * the near plane they select, origins on faces, edges and corners of the
 * closed box, rays lying in a face plane (0 * inf = NaN is ignored), NaN and
 * infinite origins, directions and intervals, empty/inverted/NaN boxes,
 * tmin > tmax, degenerate triangles, hits exactly on triangle edges and
 * vertices, ties (lowest index wins, also across chunked calls), negative
 * sphere radii and the far root from inside, parallel planes, the
 * equal-t rule of a full versus an empty record, zero-length rays and
 * segments, and the active mask.  Expected values are derived by hand from
 * the reference's operations (see the comments) and compared bit for bit.
 */
#include "raypack.h"
#include "tap.h"
#include "batch.h"

static const float INF = INFINITY;
#define NaNf ((float)NAN)

enum { K_BOX, K_TRI, K_SPH, K_PLANE };
static const char *const KN[4] = {"box", "triangle", "sphere", "plane"};

/* One ray against one box through rp_intersect_aabb. */
static int slab1(float ox, float oy, float oz, float dx, float dy, float dz,
                 float tmin, float tmax, const rp_aabb *box, float *tn, float *tf) {
    tb b;
    uint8_t hit = 0xAA;
    tb_init(&b, 1);
    tb_ray(&b, 0, ox, oy, oz, dx, dy, dz, tmin, tmax);
    tb_prepare(&b);
    *tn = *tf = -123.0f;
    rp_status s = rp_intersect_aabb(&b.r, NULL, box, &hit, tn, tf);
    tb_free(&b);
    if (s != RP_OK)
        return -1;
    return hit;
}

typedef struct rec {
    uint32_t prim;
    float t, u, v, tmax;
    int occluded; /* triangles only */
} rec;

static rp_status call_closest(int kind, tb *b, const uint8_t *act, const void *p,
                              size_t count, uint32_t base, unsigned flags) {
    switch (kind) {
    case K_BOX: return rp_closest_aabb(&b->r, act, (const rp_aabb *)p, count, base, &b->h);
    case K_TRI: return rp_closest_triangle(&b->r, act, (const rp_triangle *)p, count, base, flags, &b->h);
    case K_SPH: return rp_closest_sphere(&b->r, act, (const rp_sphere *)p, count, base, &b->h);
    default: return rp_closest_plane(&b->r, act, (const rp_plane *)p, count, base, &b->h);
    }
}

/* One ray, an empty record, one closest-hit call. */
static rec run1(int kind, float ox, float oy, float oz, float dx, float dy, float dz,
                float tmin, float tmax, const void *prims, size_t count, unsigned flags) {
    tb b;
    rec r;
    tb_init(&b, 1);
    tb_ray(&b, 0, ox, oy, oz, dx, dy, dz, tmin, tmax);
    tb_prepare(&b);
    r.occluded = -1;
    if (call_closest(kind, &b, NULL, prims, count, 0, flags) != RP_OK) {
        r.prim = 0xBADu;
        r.t = r.u = r.v = r.tmax = -1;
        tb_free(&b);
        return r;
    }
    r.prim = b.h.prim[0];
    r.t = b.h.t[0];
    r.u = b.h.u[0];
    r.v = b.h.v[0];
    r.tmax = b.r.tmax[0];
    if (kind == K_TRI) {
        uint8_t occ = 0;
        b.r.tmax[0] = tmax;
        if (rp_occluded_triangle(&b.r, NULL, (const rp_triangle *)prims, count, flags, &occ) == RP_OK)
            r.occluded = occ;
    }
    tb_free(&b);
    return r;
}

/* A miss: no record, tmax untouched (and not occluded for triangles). */
static void expect_miss(const rec *r, float tmax, const char *what) {
    int ok = r->prim == RP_NO_HIT && r->t == INF && tap_same_f32(r->tmax, tmax) &&
             (r->occluded == -1 || r->occluded == 0);
    if (!tap_ok(ok, "%s: miss", what))
        tap_diag("  prim %u t %a tmax %a occluded %d", (unsigned)r->prim, (double)r->t,
                 (double)r->tmax, r->occluded);
}

static void expect_hit(const rec *r, uint32_t prim, float t, const char *what) {
    int ok = r->prim == prim && tap_same_f32(r->t, t) && tap_same_f32(r->tmax, t) &&
             (r->occluded == -1 || r->occluded == 1);
    if (!tap_ok(ok, "%s: hit prim %u at t %a", what, (unsigned)prim, (double)t))
        tap_diag("  prim %u t %a tmax %a occluded %d", (unsigned)r->prim, (double)r->t,
                 (double)r->tmax, r->occluded);
}

static void expect_slab(int hit, float tn, float tf, int whit, float wtn, float wtf,
                        const char *what) {
    int ok = hit == whit && tap_same_f32(tn, wtn) && tap_same_f32(tf, wtf);
    if (!tap_ok(ok, "%s: hit %d tnear %a tfar %a", what, whit, (double)wtn, (double)wtf))
        tap_diag("  got hit %d tnear %a tfar %a", hit, (double)tn, (double)tf);
}

/* ---- zero and -0.0 direction components --------------------------- */
static void test_signed_zero(void) {
    const rp_aabb box = tb_box(0, 0, 0, 1, 1, 1);
    float tn, tf;
    int h;
    tb b;

    /* prepare: 1/+0 = +inf, 1/-0 = -inf */
    tb_init(&b, 1);
    tb_ray(&b, 0, 0, 0, 0, 0.0f, -0.0f, 2, 0, INF);
    tb_prepare(&b);
    tap_f32(b.r.rdx[0], INF, "prepare: 1/+0 = +inf");
    tap_f32(b.r.rdy[0], -INF, "prepare: 1/-0 = -inf");
    tap_f32(b.r.rdz[0], 0.5f, "prepare: 1/2 = 0.5");
    tb_free(&b);

    h = slab1(0.5f, 0.5f, -1, 0.0f, -0.0f, 1, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 1, 2, "d = (+0, -0, 1) through the box");
    /* Origin above the box (y = 2), dy = -0: rd = -inf selects max.y as the
     * near plane: (1 - 2) * -inf = +inf -> tnear = +inf; far plane min.y:
     * (0 - 2) * -inf = +inf leaves tfar = 2 (from z). */
    h = slab1(0.5f, 2, -1, 0.0f, -0.0f, 1, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 0, INF, 2, "dy = -0 above the box: near plane is max.y");
    /* dy = +0: near plane min.y: (0 - 2) * inf = -inf, far (1 - 2) * inf =
     * -inf -> tfar = -inf, tnear = 1 (from z) */
    h = slab1(0.5f, 2, -1, 0.0f, 0.0f, 1, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 0, 1, -INF, "dy = +0 above the box: near plane is min.y");
    /* below the box the roles swap */
    h = slab1(0.5f, -1, -1, 0.0f, -0.0f, 1, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 0, 1, -INF, "dy = -0 below the box");
    h = slab1(0.5f, -1, -1, 0.0f, 0.0f, 1, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 0, INF, 2, "dy = +0 below the box");
    /* on the planes with dy = -0: (1 - 1) * -inf = NaN is ignored */
    h = slab1(0.5f, 1, -1, 0.0f, -0.0f, 1, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 1, 2, "dy = -0 with the origin in the max.y plane");
    h = slab1(0.5f, 0, -1, 0.0f, -0.0f, 1, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 1, 2, "dy = -0 with the origin in the min.y plane");
    /* an all-zero direction: the interval is the ray's own */
    h = slab1(0.5f, 0.5f, 0.5f, 0, 0, 0, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 0, INF, "d = 0 inside");
    h = slab1(0.5f, 0.5f, 0.5f, -0.0f, -0.0f, -0.0f, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 0, INF, "d = -0 inside");
    h = slab1(2, 0.5f, 0.5f, 0, 0, 0, 0, INF, &box, &tn, &tf);
    tap_int(h, 0, "d = 0 outside: miss");
    h = slab1(1, 1, 1, 0, 0, 0, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 0, INF, "d = 0 on the max corner: 0 * inf ignored");

    /* batch rays with a zero direction hit only a box around the origin:
     * a triangle has det = 0, a plane dot(n, d) = 0, a sphere t = 0/0 */
    {
        const rp_triangle tri = tb_tri(tb_v(-1, -1, 0), tb_v(3, -1, 0), tb_v(-1, 3, 0));
        const rp_sphere sp = tb_sphere(0, 0, 0, 1);
        const rp_plane pl = tb_plane(0, 0, 1, 0);
        rec r = run1(K_BOX, 0.5f, 0.5f, 0.5f, 0, 0, 0, 0, INF, &box, 1, 0);
        expect_hit(&r, 0, 0, "zero-length ray inside a box (t = tmin)");
        r = run1(K_TRI, 0, 0, 0, 0, 0, 0, 0, INF, &tri, 1, 0);
        expect_miss(&r, INF, "zero-length ray on a triangle (det = 0)");
        r = run1(K_SPH, 0, 0, 0, 0, 0, 0, 0, INF, &sp, 1, 0);
        expect_miss(&r, INF, "zero-length ray in a sphere (t = 0/0)");
        r = run1(K_PLANE, 0, 0, 0, 0, 0, 0, 0, INF, &pl, 1, 0);
        expect_miss(&r, INF, "zero-length ray on a plane (dot(n, d) = 0)");
    }
}

/* ---- origin on a face, edge, corner; rays in a face plane ---------- */
static void test_boundaries(void) {
    const rp_aabb box = tb_box(0, 0, 0, 1, 1, 1);
    float tn, tf;
    int h;
    h = slab1(0, 0.5f, 0.5f, 1, 0, 0, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 0, 1, "origin on the min.x face, pointing in");
    /* pointing out: the exit is (0 - 0) * -1 = -0 and 0 <= -0 */
    h = slab1(0, 0.5f, 0.5f, -1, 0, 0, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 0, -0.0f, "origin on the min.x face, pointing out");
    h = slab1(1, 0.5f, 0.5f, 1, 0, 0, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 0, 0, "origin on the max.x face, pointing out");
    /* pointing in from the max face: t0 = (1 - 1) * -1 = -0 and
     * max(-0, +0) keeps the running +0 (the 2nd operand) */
    h = slab1(1, 0.5f, 0.5f, -1, 0, 0, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 0.0f, 1, "origin on the max.x face, pointing in: tnear +0");
    /* tmax = -0: min(+0, -0) keeps -0, and 0 <= -0 is a hit */
    h = slab1(1, 0.5f, 0.5f, 1, 0, 0, 0, -0.0f, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 0.0f, -0.0f, "tmin +0, tmax -0 on the max.x face: tfar -0");
    /* tmin = -0 with the origin on the min face: max(+0, -0) keeps -0 */
    h = slab1(0, 0.5f, 0.5f, 1, 0, 0, -0.0f, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, -0.0f, 1, "tmin -0 on the min.x face: tnear -0");
    h = slab1(0, 0, 0.5f, -1, -1, 0, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 0, -0.0f, "origin on an edge, pointing out");
    h = slab1(1, 1, 1, 1, 1, 1, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 0, 0, "origin on the max corner, pointing out");
    h = slab1(0, 0, 0, -1, -2, -4, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 0, -0.0f, "origin on the min corner, pointing out");
    /* grazing from outside: touches only the edge x = 0, y = 1 at t = 1 */
    h = slab1(-1, 0, 0.5f, 1, 1, 0, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 1, 1, "ray touching only an edge");
    /* touches only the corner (0, 0, 0) at t = 1 */
    h = slab1(-1, -1, 1, 1, 1, -1, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 1, 1, "ray touching only a corner");
    /* misses the corner by one float step */
    h = slab1(-1, -1, 1, 1, 1, -1.00000012f, 0, INF, &box, &tn, &tf);
    tap_int(h, 0, "ray passing one float step past a corner: miss");
    /* lying in a face plane: (0 - 0) * inf = NaN leaves the interval */
    h = slab1(-1, 0, 0.5f, 1, 0, 0, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 1, 2, "ray lying in the min.y face plane");
    h = slab1(-1, 1, 0.5f, 1, 0, 0, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 1, 2, "ray lying in the max.y face plane");
    h = slab1(-1, 1, 0.5f, 1, -0.0f, 0, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 1, 2, "ray lying in the max.y face plane, dy = -0");
    h = slab1(-1, 1, 1, 1, 0, 0, 0, INF, &box, &tn, &tf);
    expect_slab(h, tn, tf, 1, 1, 2, "ray lying along an edge");
    h = slab1(-1, 0, 1.5f, 1, 0, 0, 0, INF, &box, &tn, &tf);
    tap_int(h, 0, "ray in the face plane but beside the face: miss");
    /* the same through the closest-hit kernel, with its normal */
    {
        tb b;
        float nn[3];
        tb_init(&b, 1);
        tb_ray(&b, 0, -1, 0, 0.5f, 1, 0, 0, 0, INF);
        tb_prepare(&b);
        rp_closest_aabb(&b.r, NULL, &box, 1, 0, &b.h);
        rp_hits_normals_aabb(&b.r, &b.h, &box, 1, 0);
        tb_normal(&b, 0, nn);
        tap_ok(b.h.prim[0] == 0 && b.h.t[0] == 1, "closest_aabb: ray in a face plane hits at t = 1");
        tap_f32x3(nn, -1, 0, 0, "closest_aabb: ray in a face plane enters -x");
        tb_free(&b);
    }
}

/* ---- NaN and infinite rays ----------------------------------------- */
static void test_nan_inf(void) {
    const rp_aabb box = tb_box(0, 0, 0, 1, 1, 1);
    const rp_triangle tri = tb_tri(tb_v(-1, -1, 0.5f), tb_v(3, -1, 0.5f), tb_v(-1, 3, 0.5f));
    const rp_sphere sp = tb_sphere(0.5f, 0.5f, 0.5f, 0.25f);
    const rp_plane pl = tb_plane(0, 0, 1, 0.5f);
    const void *prims[4] = {&box, &tri, &sp, &pl};
    /* ray 0 is the control: it hits all four primitives */
    static const struct {
        float v[8]; /* ox oy oz dx dy dz tmin tmax */
        int invalid; /* NaN reciprocals expected */
        const char *what;
    } c[] = {
        {{0.5f, 0.5f, -1, 0, 0, 1, 0, INFINITY}, 0, "control"},
        {{NAN, 0.5f, -1, 0, 0, 1, 0, INFINITY}, 1, "ox = NaN"},
        {{0.5f, INFINITY, -1, 0, 0, 1, 0, INFINITY}, 1, "oy = +inf"},
        {{0.5f, 0.5f, -INFINITY, 0, 0, 1, 0, INFINITY}, 1, "oz = -inf"},
        {{0.5f, 0.5f, -1, NAN, 0, 1, 0, INFINITY}, 1, "dx = NaN"},
        {{0.5f, 0.5f, -1, 0, INFINITY, 1, 0, INFINITY}, 1, "dy = +inf"},
        {{0.5f, 0.5f, -1, 0, 0, -INFINITY, 0, INFINITY}, 1, "dz = -inf"},
        {{0.5f, 0.5f, -1, 0, 0, 1, NAN, INFINITY}, 0, "tmin = NaN"},
        {{0.5f, 0.5f, -1, 0, 0, 1, 0, NAN}, 0, "tmax = NaN"},
        {{0.5f, 0.5f, -1, 0, 0, 1, INFINITY, INFINITY}, 0, "tmin = +inf"},
        {{0.5f, 0.5f, -1, 0, 0, 1, 0, -INFINITY}, 0, "tmax = -inf"},
        {{0.5f, 0.5f, -1, 0, 0, 1, NAN, NAN}, 0, "tmin = tmax = NaN"},
    };
    const size_t n = sizeof c / sizeof c[0];
    tb b;
    uint8_t hit[16], occ[16];
    float tn[16], tf[16];
    tb_init(&b, n);
    for (size_t i = 0; i < n; i++)
        tb_ray(&b, i, c[i].v[0], c[i].v[1], c[i].v[2], c[i].v[3], c[i].v[4], c[i].v[5],
               c[i].v[6], c[i].v[7]);
    tb_prepare(&b);
    for (size_t i = 0; i < n; i++) {
        int nan3 = b.r.rdx[i] != b.r.rdx[i] && b.r.rdy[i] != b.r.rdy[i] && b.r.rdz[i] != b.r.rdz[i];
        if (c[i].invalid)
            tap_ok(nan3, "prepare %s: NaN in rdx, rdy, rdz", c[i].what);
        else
            tap_ok(b.r.rdx[i] == INF && b.r.rdy[i] == INF && b.r.rdz[i] == 1,
                   "prepare %s: reciprocals 1/d", c[i].what);
    }
    memset(hit, 0xAA, sizeof hit);
    tap_int(rp_intersect_aabb(&b.r, NULL, &box, hit, tn, tf), RP_OK, "NaN/inf rays: rp_intersect_aabb status");
    for (size_t i = 0; i < n; i++) {
        tap_int(hit[i], i == 0, "intersect_aabb %s: %s", c[i].what, i == 0 ? "hit" : "miss");
        if (c[i].invalid) {
            /* docs/SEMANTICS.md: "tnear = tmin, tfar = tmax for an invalid
             * ray" (every slab distance is NaN and min/max keep the running
             * interval).  raypack.h's comment says "or NaN for an invalid
             * ray" instead: a documentation mismatch, reported. */
            tap_ok(tn[i] == 0 && tf[i] == INF, "intersect_aabb %s: tnear = tmin, tfar = tmax", c[i].what);
        }
    }
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < n; i++)
            b.r.tmax[i] = c[i].v[7];
        rp_hits_reset(&b.h);
        tap_int(call_closest(k, &b, NULL, prims[k], 1, 0, 0), RP_OK, "NaN/inf rays: closest %s status", KN[k]);
        tap_ok(b.h.prim[0] == 0, "closest %s: control ray hits", KN[k]);
        for (size_t i = 1; i < n; i++) {
            int ok = b.h.prim[i] == RP_NO_HIT && b.h.t[i] == INF && tap_same_f32(b.r.tmax[i], c[i].v[7]);
            if (!tap_ok(ok, "closest %s %s: miss, record and tmax untouched", KN[k], c[i].what))
                tap_diag("  prim %u t %a", (unsigned)b.h.prim[i], (double)b.h.t[i]);
        }
    }
    for (size_t i = 0; i < n; i++)
        b.r.tmax[i] = c[i].v[7];
    memset(occ, 0, sizeof occ);
    tap_int(rp_occluded_triangle(&b.r, NULL, &tri, 1, 0, occ), RP_OK, "NaN/inf rays: occluded status");
    for (size_t i = 0; i < n; i++)
        tap_int(occ[i], i == 0, "occluded %s", c[i].what);
    tb_free(&b);

    /* tmin = -inf is not invalid: the whole line, hits behind the origin */
    {
        rec r = run1(K_PLANE, 0, 0, 5, 0, 0, 1, -INF, INF, &pl, 1, 0);
        expect_hit(&r, 0, -4.5f, "plane behind the origin with tmin = -inf");
    }
    /* invalid rays through the single-ray helpers: misses, no crash */
    {
        int hit1 = -1;
        rp_raycast_aabb(tb_v(NaNf, 0.5f, 0.5f), tb_v(1, 0, 0), &box, &hit1, NULL, NULL);
        tap_int(hit1, 0, "rp_raycast_aabb NaN origin: miss");
        hit1 = -1;
        rp_raycast_aabb(tb_v(-1, 0.5f, 0.5f), tb_v(INF, 0, 0), &box, &hit1, NULL, NULL);
        tap_int(hit1, 0, "rp_raycast_aabb infinite direction: miss");
        hit1 = -1;
        rp_segment_aabb(tb_v(-1, 0.5f, 0.5f), tb_v(NaNf, 0.5f, 0.5f), &box, &hit1, NULL, NULL, NULL);
        tap_int(hit1, 0, "rp_segment_aabb NaN end: miss");
        hit1 = -1;
        rp_segment_aabb(tb_v(-INF, 0.5f, 0.5f), tb_v(2, 0.5f, 0.5f), &box, &hit1, NULL, NULL, NULL);
        tap_int(hit1, 0, "rp_segment_aabb infinite start: miss");
    }
}

/* ---- empty, inverted and NaN boxes --------------------------------- */
static void test_bad_boxes(void) {
    static const struct {
        float b[6];
        float o[3], d[3];
        const char *what;
    } c[] = {
        {{1, 1, 1, 0, 0, 0}, {0.5f, 0.5f, -1}, {0, 0, 1}, "inverted on every axis"},
        {{INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY}, {0.5f, 0.5f, -1}, {0, 0, 1}, "empty (+inf, -inf)"},
        {{0, 1, 0, 1, 0, 1}, {0.5f, 0.5f, -1}, {0, 0, 1}, "inverted in y only"},
        /* the slab arithmetic alone would hit: (NaN - 0.5) * inf = NaN is
         * ignored like a ray in a face plane */
        {{NAN, 0, 0, 1, 1, 1}, {0.5f, 0.5f, -1}, {0, 0, 1}, "min.x = NaN"},
        {{0, 0, 0, 1, 1, NAN}, {0.5f, 0.5f, -1}, {0, 0, 1}, "max.z = NaN"},
        {{NAN, NAN, NAN, NAN, NAN, NAN}, {0.5f, 0.5f, -1}, {0, 0, 1}, "all NaN"},
        /* inverted by 1 in x, but at x = -1e30 both planes round to t = 1e30:
         * tnear = tfar, so only the validity check rejects it */
        {{1, 0, 0, 0, 1, 1}, {-1e30f, 0.5f, 0.5f}, {1, 0, 0}, "inverted, planes equal after rounding"},
    };
    const size_t n = sizeof c / sizeof c[0];
    for (size_t i = 0; i < n; i++) {
        rp_aabb box = tb_box(c[i].b[0], c[i].b[1], c[i].b[2], c[i].b[3], c[i].b[4], c[i].b[5]);
        rp_aabb two[2];
        float tn, tf;
        int h = slab1(c[i].o[0], c[i].o[1], c[i].o[2], c[i].d[0], c[i].d[1], c[i].d[2],
                      0, INF, &box, &tn, &tf);
        tap_int(h, 0, "box %s: intersect_aabb misses", c[i].what);
        rec r = run1(K_BOX, c[i].o[0], c[i].o[1], c[i].o[2], c[i].d[0], c[i].d[1], c[i].d[2],
                     0, INF, &box, 1, 0);
        expect_miss(&r, INF, c[i].what);
        /* followed by a valid box: that one is the record */
        two[0] = box;
        two[1] = tb_box(-1e31f, -1, -1, 1e31f, 2, 2);
        r = run1(K_BOX, c[i].o[0], c[i].o[1], c[i].o[2], c[i].d[0], c[i].d[1], c[i].d[2],
                 0, INF, two, 2, 0);
        tap_int(r.prim, 1, "box %s then a valid box: the valid one (1) is hit", c[i].what);
    }
    /* a flat box (min == max on one axis) is valid and closed */
    {
        rp_aabb flat = tb_box(0, 0, 0.5f, 1, 1, 0.5f);
        float tn, tf;
        int h = slab1(0.5f, 0.5f, -1, 0, 0, 1, 0, INF, &flat, &tn, &tf);
        expect_slab(h, tn, tf, 1, 1.5f, 1.5f, "flat box (min.z = max.z)");
    }
}

/* ---- tmin > tmax, and tmin = tmax --------------------------------- */
static void test_inverted_interval(void) {
    const rp_aabb box = tb_box(-10, -10, -10, 10, 10, 10);
    const rp_triangle tri = tb_tri(tb_v(-1, -1, 5), tb_v(3, -1, 5), tb_v(-1, 3, 5));
    const rp_sphere sp = tb_sphere(0.5f, 0.5f, 0.5f, 4.5f);
    const rp_plane pl = tb_plane(0, 0, 1, 4.5f);
    const void *prims[4] = {&box, &tri, &sp, &pl};
    /* from (0.5,0.5,0.5) along +z: box from inside, triangle at t = 4.5,
     * sphere far root 4.5, plane at t = 4 */
    float tn, tf;
    int h = slab1(0.5f, 0.5f, 0.5f, 0, 0, 1, 5, 4, &box, &tn, &tf);
    tap_int(h, 0, "box: tmin 5 > tmax 4 never hits (even from inside)");
    for (int k = 0; k < 4; k++) {
        char what[64];
        rec r = run1(k, 0.5f, 0.5f, 0.5f, 0, 0, 1, 5, 4, prims[k], 1, 0);
        snprintf(what, sizeof what, "%s with tmin 5 > tmax 4", KN[k]);
        expect_miss(&r, 4, what);
    }
    /* tmin = tmax = t: the closed interval still holds one point */
    {
        rec r = run1(K_PLANE, 0.5f, 0.5f, 0.5f, 0, 0, 1, 4, 4, &pl, 1, 0);
        expect_hit(&r, 0, 4, "plane with tmin = tmax = t");
        r = run1(K_TRI, 0.5f, 0.5f, 0.5f, 0, 0, 1, 4.5f, 4.5f, &tri, 1, 0);
        expect_hit(&r, 0, 4.5f, "triangle with tmin = tmax = t");
        r = run1(K_SPH, 0.5f, 0.5f, 0.5f, 0, 0, 1, 4.5f, 4.5f, &sp, 1, 0);
        expect_hit(&r, 0, 4.5f, "sphere with tmin = tmax = t");
        r = run1(K_BOX, 0.5f, 0.5f, -20, 0, 0, 1, 10, 10, &box, 1, 0);
        expect_hit(&r, 0, 10, "box with tmin = tmax = entry t");
    }
}

/* ---- triangles: degenerate, edges and vertices --------------------- */
static void test_triangles(void) {
    const rp_triangle point = tb_tri(tb_v(0, 0, 0), tb_v(0, 0, 0), tb_v(0, 0, 0));
    const rp_triangle line = tb_tri(tb_v(0, 0, 0), tb_v(1, 1, 0), tb_v(2, 2, 0));
    const rp_triangle rt = tb_tri(tb_v(0, 0, 0), tb_v(1, 0, 0), tb_v(0, 1, 0));
    rec r;
    r = run1(K_TRI, 0, 0, 1, 0, 0, -1, 0, INF, &point, 1, 0);
    expect_miss(&r, INF, "triangle with three equal vertices");
    r = run1(K_TRI, 1, 1, 1, 0, 0, -1, 0, INF, &line, 1, 0);
    expect_miss(&r, INF, "triangle with collinear vertices (det = 0)");
    r = run1(K_TRI, -1, 0.25f, 0, 1, 0, 0, 0, INF, &rt, 1, 0);
    expect_miss(&r, INF, "ray in the triangle's plane (det = 0)");
    r = run1(K_TRI, -1, 0.25f, 1, 1, 0, 0, 0, INF, &rt, 1, 0);
    expect_miss(&r, INF, "ray parallel to the triangle (det = 0)");

    /* From (x, y, +-1) along -+z the reference computes det = +-1,
     * u = x, v = y and t = 1 exactly, so edges and vertices are exact. */
    static const struct {
        float x, y;
        int hit;
        const char *what;
    } c[] = {
        {0.25f, 0.25f, 1, "interior"},
        {0.5f, 0, 1, "edge v0-v1 (v = 0)"},
        {0, 0.5f, 1, "edge v0-v2 (u = 0)"},
        {0.5f, 0.5f, 1, "edge v1-v2 (u + v = 1)"},
        {0.25f, 0.75f, 1, "edge v1-v2 at (0.25, 0.75)"},
        {0, 0, 1, "vertex v0"},
        {1, 0, 1, "vertex v1"},
        {0, 1, 1, "vertex v2"},
        {0.5f, -0x1p-24f, 0, "one step outside edge v0-v1"},
        {-0x1p-24f, 0.5f, 0, "one step outside edge v0-v2"},
        {0.5f, 0.5f + 0x1p-23f, 0, "one step outside edge v1-v2"},
        {1 + 0x1p-23f, 0, 0, "one step beyond vertex v1"},
        {-0x1p-24f, -0x1p-24f, 0, "one step beyond vertex v0"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        for (int side = 0; side < 2; side++) {
            char what[96];
            float oz = side ? -1.0f : 1.0f, dz = side ? 1.0f : -1.0f;
            snprintf(what, sizeof what, "triangle %s, %s", c[i].what, side ? "back" : "front");
            r = run1(K_TRI, c[i].x, c[i].y, oz, 0, 0, dz, 0, INF, &rt, 1, 0);
            if (c[i].hit) {
                expect_hit(&r, 0, 1, what);
                tap_ok(r.u == c[i].x && r.v == c[i].y, "%s: u, v = (%a, %a)", what,
                       (double)c[i].x, (double)c[i].y);
            } else {
                expect_miss(&r, INF, what);
            }
            /* with backface culling only the front side remains */
            r = run1(K_TRI, c[i].x, c[i].y, oz, 0, 0, dz, 0, INF, &rt, 1, RP_CULL_BACKFACE);
            if (c[i].hit && !side)
                expect_hit(&r, 0, 1, "culled: front");
            else
                expect_miss(&r, INF, side ? "culled: back" : what);
        }
    }
}

/* ---- ties: the lowest index wins ----------------------------------- */
static void test_ties(void) {
    rp_aabb box[3];
    rp_triangle tri[3];
    rp_sphere sph[3];
    rp_plane pl[3];
    box[0] = box[1] = tb_box(-1, -1, -1, 1, 1, 1);
    box[2] = tb_box(-1, -1, -0.5f, 1, 1, 1.5f); /* nearer along -z */
    tri[0] = tri[1] = tb_tri(tb_v(-1, -1, 1), tb_v(3, -1, 1), tb_v(-1, 3, 1));
    tri[2] = tb_tri(tb_v(-1, -1, 1.5f), tb_v(3, -1, 1.5f), tb_v(-1, 3, 1.5f));
    sph[0] = sph[1] = tb_sphere(0, 0, 0, 1);
    sph[2] = tb_sphere(0, 0, 0, 1.5f);
    pl[0] = pl[1] = tb_plane(0, 0, 1, 1);
    pl[2] = tb_plane(0, 0, 1, 1.5f);
    const void *p[4] = {box, tri, sph, pl};
    const size_t sz[4] = {sizeof box[0], sizeof tri[0], sizeof sph[0], sizeof pl[0]};
    /* from (0, 0, 5) along -z: every duplicate pair is hit at t = 4,
     * primitive 2 at t = 3.5 */
    for (int k = 0; k < 4; k++) {
        tb b;
        tb_init(&b, 1);
        /* one call with both duplicates and index_base 7 */
        tb_ray(&b, 0, 0, 0, 5, 0, 0, -1, 0, INF);
        tb_prepare(&b);
        call_closest(k, &b, NULL, p[k], 2, 7, 0);
        tap_ok(b.h.prim[0] == 7 && b.h.t[0] == 4, "tie %s in one call: lowest index (7) wins", KN[k]);
        /* the tie spans two calls */
        tb_ray(&b, 0, 0, 0, 5, 0, 0, -1, 0, INF);
        tb_prepare(&b);
        call_closest(k, &b, NULL, p[k], 1, 0, 0);
        call_closest(k, &b, NULL, (const char *)p[k] + sz[k], 1, 1, 0);
        tap_ok(b.h.prim[0] == 0 && b.h.t[0] == 4, "tie %s across two calls: the first (0) stays", KN[k]);
        /* a strictly nearer primitive in a later call replaces it */
        call_closest(k, &b, NULL, (const char *)p[k] + 2 * sz[k], 1, 2, 0);
        tap_ok(b.h.prim[0] == 2 && b.h.t[0] == 3.5f && b.r.tmax[0] == 3.5f,
               "%s nearer in a later call replaces the record", KN[k]);
        tb_free(&b);
    }
}

/* ---- spheres and planes ------------------------------------------- */
static void test_spheres_planes(void) {
    rec r;
    rp_sphere neg = tb_sphere(0, 0, -5, -1);
    rp_sphere nanr = tb_sphere(0, 0, -5, NaNf);
    rp_sphere unit = tb_sphere(0, 0, -5, 1);
    rp_plane ground = tb_plane(0, 1, 0, 0);
    r = run1(K_SPH, 0, 0, 0, 0, 0, -1, 0, INF, &neg, 1, 0);
    expect_miss(&r, INF, "sphere with radius -1");
    r = run1(K_SPH, 0, 0, -5, 1, 0, 0, 0, INF, &neg, 1, 0);
    expect_miss(&r, INF, "sphere with radius -1, origin at its centre");
    r = run1(K_SPH, 0, 0, 0, 0, 0, -1, 0, INF, &nanr, 1, 0);
    expect_miss(&r, INF, "sphere with NaN radius");
    /* inside, off centre: oc = (0,0,-0.5), b = 0.5, c = -0.75, disc = 1:
     * near root -1.5 < tmin, far root 0.5 */
    r = run1(K_SPH, 0, 0, -5.5f, 0, 0, -1, 0, INF, &unit, 1, 0);
    expect_hit(&r, 0, 0.5f, "origin inside a sphere: far root");
    /* on the surface, leaving: near root -2 < tmin, far root 0 = tmin */
    r = run1(K_SPH, 0, 0, -4, 0, 0, 1, 0, INF, &unit, 1, 0);
    expect_hit(&r, 0, 0, "origin on a sphere, pointing out: t = 0");
    r = run1(K_PLANE, 0, 1, 0, 1, 0, 0, 0, INF, &ground, 1, 0);
    expect_miss(&r, INF, "plane: parallel ray above it");
    r = run1(K_PLANE, 0, 0, 0, 1, 0, 0, 0, INF, &ground, 1, 0);
    expect_miss(&r, INF, "plane: parallel ray lying in it (0/0)");
    r = run1(K_PLANE, 0, 1, 0, 1, -0.0f, 0, 0, INF, &ground, 1, 0);
    expect_miss(&r, INF, "plane: parallel ray with dy = -0");
    r = run1(K_PLANE, 0, 0, 0, 0, 1, 0, 0, INF, &ground, 1, 0);
    expect_hit(&r, 0, 0, "plane: origin on the plane, crossing it: t = 0");
}

/* ---- a full record at t = tmax versus an empty one ----------------- */
static void test_equal_t_record(void) {
    /* every primitive is hit at exactly t = 2 from (0.25, 0.25, 2) along -z */
    const rp_aabb box = tb_box(-1, -1, -1, 1, 1, 0);
    const rp_triangle tri = tb_tri(tb_v(-1, -1, 0), tb_v(3, -1, 0), tb_v(-1, 3, 0));
    const rp_sphere sp = tb_sphere(0.25f, 0.25f, -1, 1);
    const rp_plane pl = tb_plane(0, 0, 1, 0);
    const void *p[4] = {&box, &tri, &sp, &pl};
    for (int k = 0; k < 4; k++) {
        tb b;
        tb_init(&b, 2);
        tb_ray(&b, 0, 0.25f, 0.25f, 2, 0, 0, -1, 0, 2);
        tb_ray(&b, 1, 0.25f, 0.25f, 2, 0, 0, -1, 0, 2);
        tb_prepare(&b);
        /* ray 0 holds primitive 5 at t = 2 = tmax; ray 1 is empty */
        b.h.prim[0] = 5;
        b.h.t[0] = 2;
        b.h.u[0] = 0.125f;
        tap_int(call_closest(k, &b, NULL, p[k], 1, 0, 0), RP_OK, "equal t %s: status", KN[k]);
        tap_ok(b.h.prim[0] == 5 && b.h.t[0] == 2 && b.h.u[0] == 0.125f && b.r.tmax[0] == 2,
               "%s at t = tmax does not replace a full record at t = tmax", KN[k]);
        if (!tap_ok(b.h.prim[1] == 0 && b.h.t[1] == 2 && b.r.tmax[1] == 2,
                    "%s at t = tmax fills an empty record", KN[k]))
            tap_diag("  prim %u t %a", (unsigned)b.h.prim[1], (double)b.h.t[1]);
        tb_free(&b);
    }
}

/* ---- zero-length segment ------------------------------------------- */
static void test_zero_segment(void) {
    const rp_aabb box = tb_box(0, 0, 0, 1, 1, 1);
    static const struct { float p[3]; int hit; const char *what; } c[] = {
        {{0.5f, 0.5f, 0.5f}, 1, "inside"},
        {{1, 0.5f, 0.5f}, 1, "on a face"},
        {{1, 1, 0.5f}, 1, "on an edge"},
        {{0, 0, 0}, 1, "on a corner"},
        {{1.5f, 0.5f, 0.5f}, 0, "outside"},
        {{-0x1p-24f, 0, 0}, 0, "one step outside a corner"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int hit = -1;
        float t = -7;
        rp_vec3 a = tb_v(c[i].p[0], c[i].p[1], c[i].p[2]);
        rp_segment_aabb(a, a, &box, &hit, &t, NULL, NULL);
        if (c[i].hit)
            tap_ok(hit == 1 && t == 0, "zero-length segment %s: hit at t = 0", c[i].what);
        else
            tap_ok(hit == 0 && t == -7, "zero-length segment %s: miss", c[i].what);
    }
}

/* ---- the active mask ----------------------------------------------- */
static void test_active_mask(void) {
    const rp_aabb box = tb_box(-1, -1, -1, 1, 1, 1);
    const rp_triangle tri = tb_tri(tb_v(-1, -1, 0), tb_v(3, -1, 0), tb_v(-1, 3, 0));
    const rp_sphere sp = tb_sphere(0, 0, 0, 1);
    const rp_plane pl = tb_plane(0, 0, 1, 0);
    const void *p[4] = {&box, &tri, &sp, &pl};
    /* every ray hits every primitive; any non-zero byte means active */
    const uint8_t act[6] = {1, 0, 255, 0, 2, 0};
    const size_t n = 6;
    tb b;
    tb_init(&b, n);

    for (int k = -2; k < 4; k++) { /* -2: intersect_aabb, -1: occluded */
        for (size_t i = 0; i < n; i++)
            tb_ray(&b, i, 0.25f, 0.25f, 5, 0, 0, -1, 0, 100);
        tb_prepare(&b);
        for (size_t i = 0; i < n; i++) {
            if (!act[i]) { /* sentinels in the inactive rays' records */
                b.h.t[i] = -7; b.h.u[i] = -8; b.h.v[i] = -9; b.h.prim[i] = 0xDEADu;
            }
        }
        uint8_t hit[6], occ[6];
        float tn[6], tf[6];
        memset(hit, 0xAA, sizeof hit);
        memset(occ, 0x55, sizeof occ);
        for (size_t i = 0; i < n; i++)
            tn[i] = tf[i] = -123;
        const char *name = k == -2 ? "intersect_aabb" : k == -1 ? "occluded" : KN[k];
        rp_status s = k == -2 ? rp_intersect_aabb(&b.r, act, &box, hit, tn, tf)
                      : k == -1 ? rp_occluded_triangle(&b.r, act, &tri, 1, 0, occ)
                                : call_closest(k, &b, act, p[k], 1, 0, 0);
        tap_int(s, RP_OK, "active mask %s: status", name);
        int ok_on = 1, ok_off = 1;
        for (size_t i = 0; i < n; i++) {
            int on = act[i] != 0;
            if (k == -2) {
                if (on) ok_on &= hit[i] == 1 && tn[i] == 4 && tf[i] == 6;
                else ok_off &= hit[i] == 0xAA && tn[i] == -123 && tf[i] == -123;
            } else if (k == -1) {
                if (on) ok_on &= occ[i] == 1;
                else ok_off &= occ[i] == 0x55;
            } else {
                if (on) ok_on &= b.h.prim[i] == 0 && b.h.t[i] == b.r.tmax[i] && b.r.tmax[i] < 100;
                else ok_off &= b.h.prim[i] == 0xDEADu && b.h.t[i] == -7 && b.h.u[i] == -8 &&
                               b.h.v[i] == -9 && b.r.tmax[i] == 100;
            }
            if (k == -2 || k == -1)
                ok_off &= on || b.r.tmax[i] == 100;
        }
        tap_ok(ok_on, "active mask %s: active rays (1, 255, 2) are written", name);
        tap_ok(ok_off, "active mask %s: inactive rays are never written", name);
    }
    tb_free(&b);
}

/* ---- further rows of docs/SEMANTICS.md ------------------------------ */
static void test_more_rows(void) {
    rec r;
    float tn, tf;
    /* infinite bounds do not clip: (-inf - 0) * inf = -inf, (inf - 0) * inf = inf */
    {
        const rp_aabb all = tb_box(-INF, -INF, -INF, INF, INF, INF);
        int h = slab1(0, 0, 0, 1, 0, 0, 0, INF, &all, &tn, &tf);
        expect_slab(h, tn, tf, 1, 0, INF, "box with infinite bounds");
    }
    /* a t that overflows to +inf is a hit when tmax = +inf, and fills an
     * empty record (t = +inf <= +inf); a finite tmax excludes it */
    {
        const rp_plane far = tb_plane(0, 0, 1, 1e38f);
        r = run1(K_PLANE, 0, 0, 0, 0, 0, 1e-5f, 0, INF, &far, 1, 0);
        expect_hit(&r, 0, INF, "plane whose t overflows to +inf, tmax = +inf");
        r = run1(K_PLANE, 0, 0, 0, 0, 0, 1e-5f, 0, 3.40282347e38f, &far, 1, 0);
        expect_miss(&r, 3.40282347e38f, "plane whose t overflows, tmax = FLT_MAX");
    }
    /* a NaN vertex: every comparison is false */
    {
        const rp_triangle tri = tb_tri(tb_v(NaNf, 0, 0), tb_v(1, 0, 0), tb_v(0, 1, 0));
        r = run1(K_TRI, 0.25f, 0.25f, 1, 0, 0, -1, 0, INF, &tri, 1, 0);
        expect_miss(&r, INF, "triangle with a NaN vertex");
    }
    /* zero radius: a point, hit only exactly through it (disc = 25 - 25) */
    {
        const rp_sphere pt = tb_sphere(0, 0, -5, 0);
        r = run1(K_SPH, 0, 0, 0, 0, 0, -1, 0, INF, &pt, 1, 0);
        expect_hit(&r, 0, 5, "sphere of radius 0 through its centre");
        r = run1(K_SPH, 0.0625f, 0, 0, 0, 0, -1, 0, INF, &pt, 1, 0);
        expect_miss(&r, INF, "sphere of radius 0 missed by 1/16");
    }
    /* triangles are closed: a ray through a shared edge hits both, and
     * the tie goes to the lower index */
    {
        rp_triangle two[2];
        two[0] = tb_tri(tb_v(0, 0, 0), tb_v(1, 0, 0), tb_v(0, 1, 0));
        two[1] = tb_tri(tb_v(1, 0, 0), tb_v(1, 1, 0), tb_v(0, 1, 0));
        r = run1(K_TRI, 0.5f, 0.5f, 1, 0, 0, -1, 0, INF, two, 2, 0);
        expect_hit(&r, 0, 1, "shared edge of two triangles: lower index");
        r = run1(K_TRI, 0.5f, 0.5f, 1, 0, 0, -1, 0, INF, two + 1, 1, 0);
        expect_hit(&r, 0, 1, "shared edge: the second triangle alone is hit too");
    }
}

int main(void) {
    tap_diag("raypack edge-case semantics, variant %s", rp_isa_name(rp_active_isa()));
    test_signed_zero();
    test_boundaries();
    test_nan_inf();
    test_bad_boxes();
    test_inverted_interval();
    test_triangles();
    test_ties();
    test_spheres_planes();
    test_equal_t_record();
    test_zero_segment();
    test_active_mask();
    test_more_rows();
    return tap_done();
}
