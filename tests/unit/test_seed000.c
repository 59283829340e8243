/*
 * test_seed000.c - seed 000's unit test (a box from (0.5,0.5,0.5) to
 * (2,2,2) and five rays: hit, miss, miss, hit from inside, miss) run through
 * the single-ray rp_raycast_aabb, through the batch slab kernel
 * rp_intersect_aabb and rp_closest_aabb, and the segment form of seeds 002
 * and 003 (rp_segment_aabb: A to B, t in [0, 1], point and face normal).
 * Every expected value is worked out by hand in the comments; the inputs are
 * chosen so that the float arithmetic is exact (or the expectation is
 * computed with the same float operations), so results compare bit for bit.
 */
#include "raypack.h"
#include "tap.h"
#include "batch.h"

static const float INF = INFINITY;

typedef struct seed_ray {
    float o[3], d[3];
    int hit;        /* seed 000's expected result */
    float t;        /* rp_raycast_aabb: entry t, or exit t from inside */
    float n[3];     /* rp_raycast_aabb's normal */
    float tnear, tfar; /* rp_intersect_aabb with [0, +inf] */
} seed_ray;

static void test_seed_rays(void) {
    const rp_aabb box = tb_box(0.5f, 0.5f, 0.5f, 2.0f, 2.0f, 2.0f);
    volatile float p4 = 0.4f, p5 = 0.5f, m1 = -1.0f;
    /* ray 4 leaves x = 0.5 behind it: t1 = (0.5 - 0.4) * (1 / -1) */
    const float r4_tfar = (p5 - p4) * m1;
    const seed_ray rays[5] = {
        /* enters at the corner (0.5,0.5,0.5): -2 + 2t = 0.5; the three
         * slabs tie, x wins (axis order): normal -x; leaves at t = 2 */
        {{-2, -2, -2}, {2, 2, 2}, 1, 1.25f, {-1, 0, 0}, 1.25f, 2.0f},
        /* parallel to x and z with x = 0 outside [0.5, 2]: (0.5-0)*inf
         * = +inf on x makes tnear +inf; y clips tfar to 2 */
        {{0, 0, 0}, {0, 1, 0}, 0, 0, {0, 0, 0}, INF, 2.0f},
        /* points away: x gives [-2, -0.5] -> tfar -0.5, y/z give +inf */
        {{0, 0, 0}, {-1, 0, 0}, 0, 0, {0, 0, 0}, INF, -0.5f},
        /* origin inside: exits x and y at t = 1 (x wins the tie) */
        {{1, 1, 1}, {1, 1, 0}, 1, 1.0f, {1, 0, 0}, 0.0f, 1.0f},
        /* x = 0.4 just outside, pointing away */
        {{0.4f, 1, 1}, {-1, 0, 0}, 0, 0, {0, 0, 0}, 0.0f, r4_tfar},
    };
    tb b;
    tb_init(&b, 5);

    for (int i = 0; i < 5; i++) {
        const seed_ray *s = &rays[i];
        int hit = -1;
        float t = -7.0f; /* sentinels: a miss must leave them */
        rp_vec3 n = tb_v(9, 9, 9);
        float nn[3];
        rp_status st = rp_raycast_aabb(tb_v(s->o[0], s->o[1], s->o[2]),
                                       tb_v(s->d[0], s->d[1], s->d[2]), &box,
                                       &hit, &t, &n);
        tap_int(st, RP_OK, "seed000 ray %d: rp_raycast_aabb status", i);
        tap_int(hit, s->hit, "seed000 ray %d: raycast %s", i, s->hit ? "hits" : "misses");
        tb_v3(n, nn);
        if (s->hit) {
            tap_f32(t, s->t, "seed000 ray %d: raycast t", i);
            tap_f32x3(nn, s->n[0], s->n[1], s->n[2], "seed000 ray %d: raycast normal", i);
        } else {
            tap_f32(t, -7.0f, "seed000 ray %d: miss leaves *t untouched", i);
            tap_f32x3(nn, 9, 9, 9, "seed000 ray %d: miss leaves *normal untouched", i);
        }
        /* t and normal may be NULL */
        hit = -1;
        st = rp_raycast_aabb(tb_v(s->o[0], s->o[1], s->o[2]),
                             tb_v(s->d[0], s->d[1], s->d[2]), &box, &hit, NULL, NULL);
        tap_ok(st == RP_OK && hit == s->hit, "seed000 ray %d: raycast with t = normal = NULL", i);

        tb_ray(&b, (size_t)i, s->o[0], s->o[1], s->o[2], s->d[0], s->d[1], s->d[2], 0.0f, INF);
    }

    /* the batch slab kernel on the same five rays */
    tb_prepare(&b);
    uint8_t hit[5];
    float tn[5], tf[5];
    memset(hit, 0xAA, sizeof hit);
    tap_int(rp_intersect_aabb(&b.r, NULL, &box, hit, tn, tf), RP_OK, "rp_intersect_aabb status");
    for (int i = 0; i < 5; i++) {
        tap_int(hit[i], rays[i].hit, "seed000 ray %d: rp_intersect_aabb hit", i);
        tap_f32(tn[i], rays[i].tnear, "seed000 ray %d: tnear", i);
        tap_f32(tf[i], rays[i].tfar, "seed000 ray %d: tfar", i);
    }
    /* hit[] alone (tnear, tfar NULL) */
    memset(hit, 0xAA, sizeof hit);
    tap_int(rp_intersect_aabb(&b.r, NULL, &box, hit, NULL, NULL), RP_OK,
            "rp_intersect_aabb with tnear = tfar = NULL");
    tap_ok(hit[0] == 1 && hit[1] == 0 && hit[2] == 0 && hit[3] == 1 && hit[4] == 0,
           "seed000: hit[] = 1 0 0 1 0 without tnear/tfar");

    /* and the closest-hit kernel: t = tnear, tmax shortened, normals */
    tap_int(rp_closest_aabb(&b.r, NULL, &box, 1, 0, &b.h), RP_OK, "rp_closest_aabb status");
    tap_int(rp_hits_normals_aabb(&b.r, &b.h, &box, 1, 0), RP_OK, "rp_hits_normals_aabb status");
    for (int i = 0; i < 5; i++) {
        float nn[3];
        tb_normal(&b, (size_t)i, nn);
        if (rays[i].hit) {
            tap_int(b.h.prim[i], 0, "seed000 ray %d: closest_aabb prim", i);
            tap_f32(b.h.t[i], rays[i].tnear, "seed000 ray %d: closest_aabb t = tnear", i);
            tap_f32(b.r.tmax[i], rays[i].tnear, "seed000 ray %d: tmax shortened to t", i);
        } else {
            tap_int(b.h.prim[i], RP_NO_HIT, "seed000 ray %d: closest_aabb no hit", i);
            tap_f32(b.h.t[i], INF, "seed000 ray %d: t stays +inf", i);
            tap_f32(b.r.tmax[i], INF, "seed000 ray %d: tmax untouched", i);
        }
        /* ray 0 entered through -x (the tie), ray 3 starts inside: 0 */
        if (i == 0)
            tap_f32x3(nn, -1, 0, 0, "seed000 ray 0: batch normal -x (x wins the corner tie)");
        else
            tap_f32x3(nn, 0, 0, 0, "seed000 ray %d: batch normal 0 (miss or inside)", i);
    }
    tb_free(&b);
}

/* More faces for rp_raycast_aabb: each axis, both signs, entry and exit. */
static void test_raycast_faces(void) {
    const rp_aabb box = tb_box(0.5f, 0.5f, 0.5f, 2.0f, 2.0f, 2.0f);
    static const struct {
        float o[3], d[3], t, n[3];
        const char *what;
    } c[] = {
        {{1, 5, 1}, {0, -1, 0}, 3.0f, {0, 1, 0}, "enters +y"},
        {{1, 1, -1}, {0, 0, 2}, 0.75f, {0, 0, -1}, "enters -z (|d| = 2)"},
        {{4, 1, 1}, {-0.5f, 0, 0}, 4.0f, {1, 0, 0}, "enters +x (|d| = 0.5)"},
        {{1, 1, 1}, {0, -1, 0}, 0.5f, {0, -1, 0}, "exits -y from inside"},
        {{1, 1, 1}, {0, 0, 4}, 0.25f, {0, 0, 1}, "exits +z from inside"},
        {{1, 1.5f, 1.5f}, {-1, 0, 0}, 0.5f, {-1, 0, 0}, "exits -x from inside"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int hit = -1;
        float t = -7.0f, nn[3];
        rp_vec3 n = tb_v(9, 9, 9);
        rp_status st = rp_raycast_aabb(tb_v(c[i].o[0], c[i].o[1], c[i].o[2]),
                                       tb_v(c[i].d[0], c[i].d[1], c[i].d[2]),
                                       &box, &hit, &t, &n);
        tb_v3(n, nn);
        tap_ok(st == RP_OK && hit == 1, "raycast %s: hit", c[i].what);
        tap_f32(t, c[i].t, "raycast %s: t", c[i].what);
        tap_f32x3(nn, c[i].n[0], c[i].n[1], c[i].n[2], "raycast %s: normal", c[i].what);
    }
    /* box entirely behind the ray: the line meets it at t < 0 */
    {
        int hit = -1;
        float t = -7.0f;
        rp_raycast_aabb(tb_v(5, 1, 1), tb_v(1, 0, 0), &box, &hit, &t, NULL);
        tap_ok(hit == 0 && t == -7.0f, "raycast: box behind the origin is a miss");
    }
    /* Zero direction with the origin inside: docs/SEMANTICS.md makes it a
     * miss ("when t is not finite (a zero direction never reaches a
     * face)"); *t and *normal stay untouched.  (raypack.h's "(0 if the
     * origin is inside and d = 0)" describes a case that cannot occur.) */
    {
        int hit = -1;
        float t = -7.0f, nn[3];
        rp_vec3 n = tb_v(9, 9, 9);
        rp_raycast_aabb(tb_v(1, 1, 1), tb_v(0, 0, 0), &box, &hit, &t, &n);
        tb_v3(n, nn);
        tap_ok(hit == 0 && t == -7.0f && nn[0] == 9,
               "raycast: d = 0 with the origin inside is a miss (no face to reach)");
        hit = -1;
        rp_raycast_aabb(tb_v(2, 2, 2), tb_v(0, -0.0f, 0), &box, &hit, &t, &n);
        tap_int(hit, 0, "raycast: d = 0 on the max corner is a miss");
    }
}

typedef struct seg_case {
    float a[3], b[3];
    int hit;
    float t, p[3], n[3];
    const char *what;
} seg_case;

/* Seeds 002/003: the segment A->B, t in [0, 1]. */
static void test_segments(void) {
    const rp_aabb box = tb_box(0.5f, 0.5f, 0.5f, 2.0f, 2.0f, 2.0f);
    static const seg_case c[] = {
        /* d = (4,0,0): x enters at (0.5+1)/4 = 0.375, point (0.5,1,1) */
        {{-1, 1, 1}, {3, 1, 1}, 1, 0.375f, {0.5f, 1, 1}, {-1, 0, 0}, "crosses -x face"},
        /* d = (-2,0,0): enters +x at (2-3)/-2 = 0.5 */
        {{3, 1.5f, 1}, {1, 1.5f, 1}, 1, 0.5f, {2, 1.5f, 1}, {1, 0, 0}, "enters +x, ends inside"},
        /* d = (0,-4,0): enters +y at 0.25 */
        {{1, 3, 1.25f}, {1, -1, 1.25f}, 1, 0.25f, {1, 2, 1.25f}, {0, 1, 0}, "crosses +y face"},
        /* d = (0,0,4): enters -z at 2.5/4 = 0.625 */
        {{1, 1, -2}, {1, 1, 2}, 1, 0.625f, {1, 1, 0.5f}, {0, 0, -1}, "crosses -z face"},
        /* ends exactly on the face: t = 1 is inside the closed [0, 1] */
        {{-1, 1, 1}, {0.5f, 1, 1}, 1, 1.0f, {0.5f, 1, 1}, {-1, 0, 0}, "ends exactly on the -x face"},
        /* too short: would enter at t = 1.5 */
        {{-1, 1, 1}, {0, 1, 1}, 0, 0, {0, 0, 0}, {0, 0, 0}, "stops short of the box"},
        /* starts inside: t = 0, point = a, normal 0 */
        {{1, 1, 1}, {5, 5, 5}, 1, 0.0f, {1, 1, 1}, {0, 0, 0}, "starts inside"},
        /* passes beside the box */
        {{-1, 3, 1}, {3, 3, 1}, 0, 0, {0, 0, 0}, {0, 0, 0}, "passes above the box"},
        /* zero length: hits iff a is in the closed box */
        {{1, 1, 1}, {1, 1, 1}, 1, 0.0f, {1, 1, 1}, {0, 0, 0}, "zero length inside"},
        {{3, 1, 1}, {3, 1, 1}, 0, 0, {0, 0, 0}, {0, 0, 0}, "zero length outside"},
        {{2, 1, 1}, {2, 1, 1}, 1, 0.0f, {2, 1, 1}, {0, 0, 0}, "zero length on the +x face"},
        {{0.5f, 1, 1}, {0.5f, 1, 1}, 1, 0.0f, {0.5f, 1, 1}, {0, 0, 0}, "zero length on the -x face"},
        {{2, 2, 2}, {2, 2, 2}, 1, 0.0f, {2, 2, 2}, {0, 0, 0}, "zero length on the max corner"},
        {{0.5f, 0.5f, 1}, {0.5f, 0.5f, 1}, 1, 0.0f, {0.5f, 0.5f, 1}, {0, 0, 0}, "zero length on an edge"},
        {{0.5f, 2.25f, 1}, {0.5f, 2.25f, 1}, 0, 0, {0, 0, 0}, {0, 0, 0}, "zero length on the x plane, outside in y"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int hit = -1;
        float t = -7.0f, pp[3], nn[3];
        rp_vec3 p = tb_v(9, 9, 9), n = tb_v(9, 9, 9);
        rp_status st = rp_segment_aabb(tb_v(c[i].a[0], c[i].a[1], c[i].a[2]),
                                       tb_v(c[i].b[0], c[i].b[1], c[i].b[2]),
                                       &box, &hit, &t, &p, &n);
        tb_v3(p, pp);
        tb_v3(n, nn);
        tap_int(st, RP_OK, "segment %s: status", c[i].what);
        tap_int(hit, c[i].hit, "segment %s: %s", c[i].what, c[i].hit ? "hit" : "miss");
        if (c[i].hit) {
            tap_f32v(t, c[i].t, "segment %s: t", c[i].what);
            tap_f32x3(pp, c[i].p[0], c[i].p[1], c[i].p[2], "segment %s: point", c[i].what);
            tap_f32x3(nn, c[i].n[0], c[i].n[1], c[i].n[2], "segment %s: normal", c[i].what);
        } else {
            tap_ok(t == -7.0f && pp[0] == 9 && nn[0] == 9,
                   "segment %s: outputs untouched on a miss", c[i].what);
        }
    }
}

int main(void) {
    tap_diag("raypack seed 000 (+ seeds 002/003 segments), variant %s",
             rp_isa_name(rp_active_isa()));
    test_seed_rays();
    test_raycast_faces();
    test_segments();
    return tap_done();
}
