/*
 * kernels.c - the scalar reference batch kernels: loops over rays and
 * primitives around the per-pair tests of ref.h.  This is the variant that
 * defines every result; SIMD variants must match it bit for bit, and the
 * dispatcher falls back to it on any CPU.  Built at the baseline ISA only.
 */
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__SSE4_1__)
#error "scalar reference must be built at the baseline ISA: a wide ISA flag reached it"
#endif

#include "../internal.h"
#include "ref.h"
#include "../scene/scene.h" /* the reference traversal */

static inline rp_ray1 load_ray(const rp_rays *r, size_t i) {
    rp_ray1 ray;
    ray.ox = r->ox[i]; ray.oy = r->oy[i]; ray.oz = r->oz[i];
    ray.dx = r->dx[i]; ray.dy = r->dy[i]; ray.dz = r->dz[i];
    ray.rdx = r->rdx[i]; ray.rdy = r->rdy[i]; ray.rdz = r->rdz[i];
    ray.tmin = r->tmin[i]; ray.tmax = r->tmax[i];
    return ray;
}

static void intersect_aabb(const rp_rays *rays, const uint8_t *active,
                           const rp_aabb *box, uint8_t *hit, float *tnear,
                           float *tfar) {
    for (size_t i = 0; i < rays->n; i++) {
        if (active && !active[i])
            continue;
        rp_ray1 r = load_ray(rays, i);
        float tn, tf;
        hit[i] = (uint8_t)rp_ref_slab(&r, box, &tn, &tf);
        if (tnear) tnear[i] = tn;
        if (tfar) tfar[i] = tf;
    }
}

/* The loop every closest-hit kernel shares: for each active ray, SETUP(&ray)
 * (per-ray state), then TEST(&ray, &prims[j], &t) -> candidate over all
 * primitives in index order,
 * keep the record by rp_ref_accept, and write it once at the end (with the
 * barycentrics UV computes for the kept primitive). */
#define CLOSEST_LOOP_SETUP(prims, count, base, SETUP, TEST, UV)              \
    for (size_t i = 0; i < rays->n; i++) {                                   \
        if (active && !active[i])                                            \
            continue;                                                        \
        rp_ray1 r = load_ray(rays, i);                                       \
        SETUP(&r);                                                           \
        int has = hits->prim[i] != RP_NO_HIT;                                \
        size_t best_j = SIZE_MAX;                                            \
        for (size_t j = 0; j < (count); j++) {                               \
            float t;                                                         \
            int c = TEST(&r, &(prims)[j], &t);                               \
            if (c && rp_ref_accept(t, r.tmin, r.tmax, has)) {                \
                r.tmax = t;                                                  \
                has = 1;                                                     \
                best_j = j;                                                  \
            }                                                                \
        }                                                                    \
        if (best_j != SIZE_MAX) {                                            \
            float u = 0.0f, v = 0.0f;                                        \
            UV(&r, &(prims)[best_j], &u, &v);                                \
            rays->tmax[i] = r.tmax;                                          \
            hits->t[i] = r.tmax;                                             \
            hits->u[i] = u;                                                  \
            hits->v[i] = v;                                                  \
            hits->prim[i] = (base) + (uint32_t)best_j;                       \
        }                                                                    \
    }

#define NO_UV(r, p, u, v) ((void)0)
#define NO_SETUP(r) ((void)0)
#define CLOSEST_LOOP(prims, count, base, TEST, UV)                           \
    CLOSEST_LOOP_SETUP(prims, count, base, NO_SETUP, TEST, UV)

/* Box as a closest-hit test: the slab clipped by the running best (tmax),
 * t = the entry.  tn <= tf <= best already holds on a hit, so
 * rp_ref_accept adds only the strictness rule. */
static inline int box_test(const rp_ray1 *r, const rp_aabb *b, float *t) {
    float tf;
    return rp_ref_slab(r, b, t, &tf);
}

static void closest_aabb(rp_rays *rays, const uint8_t *active,
                         const rp_aabb *boxes, size_t count, uint32_t base,
                         rp_hits *hits) {
    CLOSEST_LOOP(boxes, count, base, box_test, NO_UV)
}

/* Triangle as a closest-hit test: decide without dividing, then t. */
static inline int tri_test(const rp_ray1 *r, const rp_triangle *tri,
                           unsigned flags, float *t) {
    rp_tri_eval e = rp_ref_tri_eval(r, tri, flags);
    if (!e.candidate)
        return 0;
    *t = rp_ref_tri_t(&e);
    return 1;
}

/* The watertight test as a closest-hit test: the ray's frame and shear are
 * made once per ray (rp_ref_wt_setup), outside the loop over triangles. */
static inline int wt_test(const rp_ray1 *r, const rp_wt_ray *w,
                          const rp_triangle *tri, unsigned flags, float *t) {
    rp_wt_eval e = rp_ref_wt_eval(r, w, tri, flags);
    if (!e.candidate)
        return 0;
    *t = rp_ref_wt_t(r, w, tri, &e);
    return 1;
}

static void closest_triangle_wt(rp_rays *rays, const uint8_t *active,
                                const rp_triangle *tris, size_t count,
                                uint32_t base, unsigned flags, rp_hits *hits) {
#define WT_TEST(r, p, t) wt_test((r), &w, (p), flags, (t))
#define WT_UV(r, p, u, v)                                                    \
    do {                                                                     \
        rp_wt_eval e = rp_ref_wt_eval((r), &w, (p), flags);                  \
        rp_ref_wt_uv(&e, (u), (v));                                          \
    } while (0)
#define WT_SETUP(r) rp_wt_ray w = rp_ref_wt_setup(r)
    CLOSEST_LOOP_SETUP(tris, count, base, WT_SETUP, WT_TEST, WT_UV)
#undef WT_TEST
#undef WT_UV
#undef WT_SETUP
}

static void closest_triangle(rp_rays *rays, const uint8_t *active,
                             const rp_triangle *tris, size_t count,
                             uint32_t base, unsigned flags, rp_hits *hits) {
    if (flags & RP_WATERTIGHT) {
        closest_triangle_wt(rays, active, tris, count, base, flags, hits);
        return;
    }
    /* u, v are divided only for the kept triangle, re-evaluated with the
     * same operations (so bit-identical to keeping them from the loop). */
#define TRI_TEST(r, p, t) tri_test((r), (p), flags, (t))
#define TRI_UV(r, p, u, v)                                                   \
    do {                                                                     \
        rp_tri_eval e = rp_ref_tri_eval((r), (p), flags);                    \
        rp_ref_tri_uv(&e, (u), (v));                                         \
    } while (0)
    CLOSEST_LOOP(tris, count, base, TRI_TEST, TRI_UV)
#undef TRI_TEST
#undef TRI_UV
}

static void occluded_triangle(const rp_rays *rays, const uint8_t *active,
                              const rp_triangle *tris, size_t count,
                              unsigned flags, uint8_t *occluded) {
    for (size_t i = 0; i < rays->n; i++) {
        if (active && !active[i])
            continue;
        rp_ray1 r = load_ray(rays, i);
        rp_wt_ray w = rp_ref_wt_setup(&r);
        for (size_t j = 0; j < count; j++) {
            float t;
            int c = (flags & RP_WATERTIGHT) ? wt_test(&r, &w, &tris[j], flags, &t)
                                            : tri_test(&r, &tris[j], flags, &t);
            if (!c)
                continue;
            if ((t >= r.tmin) & (t <= r.tmax)) {
                occluded[i] = 1;
                break;
            }
        }
    }
}

static void closest_sphere(rp_rays *rays, const uint8_t *active,
                           const rp_sphere *spheres, size_t count,
                           uint32_t base, rp_hits *hits) {
    CLOSEST_LOOP(spheres, count, base, rp_ref_sphere, NO_UV)
}

static void closest_plane(rp_rays *rays, const uint8_t *active,
                          const rp_plane *planes, size_t count, uint32_t base,
                          rp_hits *hits) {
    CLOSEST_LOOP(planes, count, base, rp_ref_plane, NO_UV)
}

const rp_kernels rp_kernels_scalar = {
    RP_ISA_SCALAR,     intersect_aabb, closest_aabb,         closest_triangle,
    occluded_triangle, closest_sphere, closest_plane,        rp_scene_closest_ref,
    rp_scene_occluded_ref, NULL, NULL, NULL, /* the reference has no internal steps of its own:
                                              * rp_check computes them from ref.h */
};
