/*
 * test_box_pad.c - why the conservative box test of the scene layer
 * (rp_ref_slab_wt in src/scalar/ref.h) grows the box by its pad: rays aimed
 * at a triangle's vertex or edge point, one ulp off in d, that the
 * watertight reference hits with t in [tmin, tmax] but whose line misses
 * the triangle's exact bounding box.  With pad = 0 the test rejects each of
 * them (a traversal would lose the hit); with the pad the reference computes
 * (rp_ref_wt_pad) it passes.  The cases were found by a random search over
 * rays aimed at vertices and edges (20 million tries turn up such rays in
 * the first few hundred); rp_fuzz checks the property on every triangle
 * case, but none of its corpus needed the pad.
 */
#include <math.h>

#include "raypack.h"
#include "scalar/ref.h"
#include "tap.h"

typedef struct pcase {
    float tri[9], o[3], d[3], scale; /* scale: the |coordinate| bound */
} pcase;

static const pcase cases[] = {
    {{-0x1.6e54eap+7f, -0x1.e5d99p+9f, 0x1.f1e248p+8f, -0x1.b61f6cp+6f, 0x1.275838p+8f,
      -0x1.d5ad0cp+9f, 0x1.32260ap+9f, -0x1.c22278p+7f, 0x1.118482p+7f},
     {0x1.b67798p+10f, -0x1.5b9cecp+11f, 0x1.db01dp+7f},
     {-0x1.e44234p+10f, 0x1.c44d0ep+10f, 0x1.04616p+8f},
     0x1.e5d99p+9f},
    {{0x1.6b928cp-1f, -0x1.5b27a6p-1f, 0x1.e1e78p-1f, 0x1.ede8f8p-2f, 0x1.aaa5ecp-1f,
      0x1.984714p-1f, -0x1.5eaacp-6f, -0x1.a81be8p-1f, 0x1.717e6cp-1f},
     {-0x1.6c2514p+1f, -0x1.37337cp-1f, 0x1.04e6a4p+0f},
     {0x1.c709bap+1f, -0x1.1fa152p-4f, -0x1.3f2e4p-4f},
     0x1.e1e78p-1f},
    {{-0x1.40318ep-12f, -0x1.d2947cp-16f, -0x1.e5b4c6p-13f, -0x1.870918p-12f, -0x1.e75b24p-13f,
      -0x1.20fa56p-12f, 0x1.2b2c3ap-13f, -0x1.5cc074p-14f, 0x1.e1505cp-11f},
     {0x1.5239p-9f, -0x1.1c33dp-10f, 0x1.fdcce8p-10f},
     {-0x1.831a22p-9f, 0x1.be90d6p-11f, -0x1.2305bep-9f},
     0x1.e1505cp-11f},
};

static float mn3(float a, float b, float c) { return fminf(fminf(a, b), c); }
static float mx3(float a, float b, float c) { return fmaxf(fmaxf(a, b), c); }

int main(void) {
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const pcase *c = &cases[k];
        rp_triangle t = {{c->tri[0], c->tri[1], c->tri[2]},
                         {c->tri[3], c->tri[4], c->tri[5]},
                         {c->tri[6], c->tri[7], c->tri[8]}};
        volatile float one = 1.0f;
        rp_ray1 r = {c->o[0], c->o[1], c->o[2], c->d[0], c->d[1], c->d[2],
                     one / c->d[0], one / c->d[1], one / c->d[2], 0.0f, INFINITY};
        rp_wt_ray w = rp_ref_wt_setup(&r);
        rp_wt_eval e = rp_ref_wt_eval(&r, &w, &t, RP_WATERTIGHT);
        float tt = e.candidate ? rp_ref_wt_t(&r, &w, &t, &e) : NAN;
        rp_aabb b = {{mn3(t.v0.x, t.v1.x, t.v2.x), mn3(t.v0.y, t.v1.y, t.v2.y),
                      mn3(t.v0.z, t.v1.z, t.v2.z)},
                     {mx3(t.v0.x, t.v1.x, t.v2.x), mx3(t.v0.y, t.v1.y, t.v2.y),
                      mx3(t.v0.z, t.v1.z, t.v2.z)}};
        tap_ok(e.candidate && tt >= r.tmin && tt <= r.tmax,
               "case %zu: the watertight reference hits (t = %a)", k, (double)tt);
        tap_ok(!rp_ref_slab_wt(&r, &w, &b, 0.0f),
               "case %zu: the unpadded box test misses it (the pad is needed)", k);
        tap_ok(rp_ref_slab_wt(&r, &w, &b, rp_ref_wt_pad(&r, c->scale)),
               "case %zu: the padded box test keeps it", k);
    }
    return tap_done();
}
