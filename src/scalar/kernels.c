/*
 * kernels.c - the scalar reference batch kernels: loops over rays and
 * primitives around the per-pair tests of ref.h.  This is the variant that
 * defines every result; SIMD variants must match it bit for bit, and the
 * dispatcher falls back to it on any CPU.  Built at the baseline ISA only.
 * Each kernel's loop is written once (always inlined) with the ray count
 * as a parameter: rp_kernels_scalar passes rays->n and count,
 * rp_kernels_scalar_1x1 (what the entry points run for one ray against one
 * primitive, src/api/kernels.c) the constants 1 and 1, so that the
 * compiler drops the loops (the same operations on the same values).
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

#define RP_ALWAYS_INLINE_FN static inline __attribute__((always_inline))

RP_ALWAYS_INLINE_FN void intersect_loop(size_t n, const rp_rays *rays, const uint8_t *active,
                                        const rp_aabb *box, uint8_t *hit, float *tnear,
                                        float *tfar) {
    for (size_t i = 0; i < n; i++) {
        if (active && !active[i])
            continue;
        rp_ray1 r = load_ray(rays, i);
        float tn, tf;
        hit[i] = (uint8_t)rp_ref_slab(&r, box, &tn, &tf);
        if (tnear) tnear[i] = tn;
        if (tfar) tfar[i] = tf;
    }
}

static void intersect_aabb(const rp_rays *rays, const uint8_t *active,
                           const rp_aabb *box, uint8_t *hit, float *tnear,
                           float *tfar) {
    intersect_loop(rays->n, rays, active, box, hit, tnear, tfar);
}

/* The loop every closest-hit kernel shares, written once: for each active
 * ray, its per-ray state (the watertight frame, when the kind needs it),
 * then kind->test over all primitives in index order, keeping the record
 * by rp_ref_accept, written once at the end with the barycentrics
 * kind->uv computes for the kept primitive (u = v = 0 without one).  Each
 * kernel passes a constant kind, so the compiler inlines the loop with its
 * test into the kernel, as the macro it replaces did. */
typedef struct cl_ray {
    rp_ray1 r;
    rp_wt_ray w; /* the watertight frame (kinds with wt set) */
    unsigned flags;
} cl_ray;

typedef struct cl_kind {
    size_t size; /* bytes per primitive */
    int wt;      /* make the watertight frame per ray */
    int (*test)(const cl_ray *c, const void *prim, float *t);
    void (*uv)(const cl_ray *c, const void *prim, float *u, float *v); /* NULL: 0, 0 */
} cl_kind;

RP_ALWAYS_INLINE_FN void
closest_loop(size_t n, rp_rays *rays, const uint8_t *active, const void *prims, size_t count,
             uint32_t base, unsigned flags, const cl_kind *kind, rp_hits *hits) {
    const unsigned char *p = (const unsigned char *)prims;
    for (size_t i = 0; i < n; i++) {
        if (active && !active[i])
            continue;
        cl_ray c;
        c.r = load_ray(rays, i);
        c.flags = flags;
        if (kind->wt)
            c.w = rp_ref_wt_setup(&c.r);
        int has = hits->prim[i] != RP_NO_HIT;
        size_t best_j = SIZE_MAX;
        for (size_t j = 0; j < count; j++) {
            float t;
            if (kind->test(&c, p + j * kind->size, &t) &&
                rp_ref_accept(t, c.r.tmin, c.r.tmax, has)) {
                c.r.tmax = t;
                has = 1;
                best_j = j;
            }
        }
        if (best_j != SIZE_MAX) {
            float u = 0.0f, v = 0.0f;
            if (kind->uv)
                kind->uv(&c, p + best_j * kind->size, &u, &v);
            rays->tmax[i] = c.r.tmax;
            hits->t[i] = c.r.tmax;
            hits->u[i] = u;
            hits->v[i] = v;
            hits->prim[i] = base + (uint32_t)best_j;
        }
    }
}

/* Box as a closest-hit test: the slab clipped by the running best (tmax),
 * t = the entry.  tn <= tf <= best already holds on a hit, so
 * rp_ref_accept adds only the strictness rule. */
static int box_test(const cl_ray *c, const void *b, float *t) {
    float tf;
    return rp_ref_slab(&c->r, (const rp_aabb *)b, t, &tf);
}

static const cl_kind box_kind = {sizeof(rp_aabb), 0, box_test, NULL};
static void closest_aabb(rp_rays *rays, const uint8_t *active,
                         const rp_aabb *boxes, size_t count, uint32_t base,
                         rp_hits *hits) {
    closest_loop(rays->n, rays, active, boxes, count, base, 0, &box_kind, hits);
}

/* Triangle as a closest-hit test: decide without dividing, then t. */
static inline int tri_test1(const rp_ray1 *r, const rp_triangle *tri,
                            unsigned flags, float *t) {
    rp_tri_eval e = rp_ref_tri_eval(r, tri, flags);
    if (!e.candidate)
        return 0;
    *t = rp_ref_tri_t(&e);
    return 1;
}
static int tri_test(const cl_ray *c, const void *tri, float *t) {
    return tri_test1(&c->r, (const rp_triangle *)tri, c->flags, t);
}
/* u, v are divided only for the kept triangle, re-evaluated with the same
 * operations (so bit-identical to keeping them from the loop). */
static void tri_uv(const cl_ray *c, const void *tri, float *u, float *v) {
    rp_tri_eval e = rp_ref_tri_eval(&c->r, (const rp_triangle *)tri, c->flags);
    rp_ref_tri_uv(&e, u, v);
}

/* The watertight test as a closest-hit test: the ray's frame and shear are
 * made once per ray (rp_ref_wt_setup, cl_kind.wt), outside the loop over
 * triangles. */
static inline int wt_test1(const rp_ray1 *r, const rp_wt_ray *w,
                           const rp_triangle *tri, unsigned flags, float *t) {
    rp_wt_eval e = rp_ref_wt_eval(r, w, tri, flags);
    if (!e.candidate)
        return 0;
    *t = rp_ref_wt_t(r, w, tri, &e);
    return 1;
}
static int wt_test(const cl_ray *c, const void *tri, float *t) {
    return wt_test1(&c->r, &c->w, (const rp_triangle *)tri, c->flags, t);
}
static void wt_uv(const cl_ray *c, const void *tri, float *u, float *v) {
    rp_wt_eval e = rp_ref_wt_eval(&c->r, &c->w, (const rp_triangle *)tri, c->flags);
    rp_ref_wt_uv(&e, u, v);
}

static const cl_kind mt_kind = {sizeof(rp_triangle), 0, tri_test, tri_uv};
static const cl_kind wt_kind = {sizeof(rp_triangle), 1, wt_test, wt_uv};
RP_ALWAYS_INLINE_FN void closest_tri_loop(size_t n, rp_rays *rays, const uint8_t *active,
                                          const rp_triangle *tris, size_t count,
                                          uint32_t base, unsigned flags, rp_hits *hits) {
    if (flags & RP_WATERTIGHT)
        closest_loop(n, rays, active, tris, count, base, flags, &wt_kind, hits);
    else
        closest_loop(n, rays, active, tris, count, base, flags, &mt_kind, hits);
}
static void closest_triangle(rp_rays *rays, const uint8_t *active,
                             const rp_triangle *tris, size_t count,
                             uint32_t base, unsigned flags, rp_hits *hits) {
    closest_tri_loop(rays->n, rays, active, tris, count, base, flags, hits);
}

RP_ALWAYS_INLINE_FN void occluded_loop(size_t n, const rp_rays *rays, const uint8_t *active,
                                       const rp_triangle *tris, size_t count,
                                       unsigned flags, uint8_t *occluded) {
    for (size_t i = 0; i < n; i++) {
        if (active && !active[i])
            continue;
        rp_ray1 r = load_ray(rays, i);
        rp_wt_ray w = {0, 0, 0, 0.0f, 0.0f, 0.0f, 0.0f};
        if (flags & RP_WATERTIGHT) /* the frame only where it is used */
            w = rp_ref_wt_setup(&r);
        for (size_t j = 0; j < count; j++) {
            float t;
            int c = (flags & RP_WATERTIGHT) ? wt_test1(&r, &w, &tris[j], flags, &t)
                                            : tri_test1(&r, &tris[j], flags, &t);
            if (!c)
                continue;
            if ((t >= r.tmin) & (t <= r.tmax)) {
                occluded[i] = 1;
                break;
            }
        }
    }
}
static void occluded_triangle(const rp_rays *rays, const uint8_t *active,
                              const rp_triangle *tris, size_t count,
                              unsigned flags, uint8_t *occluded) {
    occluded_loop(rays->n, rays, active, tris, count, flags, occluded);
}

static int sphere_test(const cl_ray *c, const void *s, float *t) {
    return rp_ref_sphere(&c->r, (const rp_sphere *)s, t);
}
static const cl_kind sphere_kind = {sizeof(rp_sphere), 0, sphere_test, NULL};
static void closest_sphere(rp_rays *rays, const uint8_t *active,
                           const rp_sphere *spheres, size_t count,
                           uint32_t base, rp_hits *hits) {
    closest_loop(rays->n, rays, active, spheres, count, base, 0, &sphere_kind, hits);
}

static int plane_test(const cl_ray *c, const void *p, float *t) {
    return rp_ref_plane(&c->r, (const rp_plane *)p, t);
}
static const cl_kind plane_kind = {sizeof(rp_plane), 0, plane_test, NULL};
static void closest_plane(rp_rays *rays, const uint8_t *active,
                          const rp_plane *planes, size_t count, uint32_t base,
                          rp_hits *hits) {
    closest_loop(rays->n, rays, active, planes, count, base, 0, &plane_kind, hits);
}

/* rp_rays_prepare's loop: the reference, ray by ray */
static void rays_prepare(rp_rays *r) {
    for (size_t i = 0; i < r->n; i++)
        rp_ref_prepare(r->ox[i], r->oy[i], r->oz[i], r->dx[i], r->dy[i], r->dz[i], &r->rdx[i],
                       &r->rdy[i], &r->rdz[i]);
}

const rp_kernels rp_kernels_scalar = {
    RP_ISA_SCALAR,     intersect_aabb, closest_aabb,         closest_triangle,
    occluded_triangle, closest_sphere, closest_plane,        rp_scene_closest_ref,
    rp_scene_occluded_ref, NULL, NULL, NULL, NULL, NULL, NULL, NULL, /* the reference has no
                                                    * internal steps of its own: rp_check
                                                    * computes them from ref.h */
    rays_prepare,
};

/* One ray against one primitive (rays->n == 1, count == 1: the caller
 * ensures it): the loops above with those constants. */
static void intersect_aabb_1x1(const rp_rays *rays, const uint8_t *active, const rp_aabb *box,
                               uint8_t *hit, float *tnear, float *tfar) {
    intersect_loop(1, rays, active, box, hit, tnear, tfar);
}
static void closest_aabb_1x1(rp_rays *rays, const uint8_t *active, const rp_aabb *boxes,
                             size_t count, uint32_t base, rp_hits *hits) {
    (void)count;
    closest_loop(1, rays, active, boxes, 1, base, 0, &box_kind, hits);
}
static void closest_triangle_1x1(rp_rays *rays, const uint8_t *active, const rp_triangle *tris,
                                 size_t count, uint32_t base, unsigned flags, rp_hits *hits) {
    (void)count;
    closest_tri_loop(1, rays, active, tris, 1, base, flags, hits);
}
static void occluded_triangle_1x1(const rp_rays *rays, const uint8_t *active,
                                  const rp_triangle *tris, size_t count, unsigned flags,
                                  uint8_t *occluded) {
    (void)count;
    occluded_loop(1, rays, active, tris, 1, flags, occluded);
}
static void closest_sphere_1x1(rp_rays *rays, const uint8_t *active, const rp_sphere *spheres,
                               size_t count, uint32_t base, rp_hits *hits) {
    (void)count;
    closest_loop(1, rays, active, spheres, 1, base, 0, &sphere_kind, hits);
}
static void closest_plane_1x1(rp_rays *rays, const uint8_t *active, const rp_plane *planes,
                              size_t count, uint32_t base, rp_hits *hits) {
    (void)count;
    closest_loop(1, rays, active, planes, 1, base, 0, &plane_kind, hits);
}

const rp_kernels rp_kernels_scalar_1x1 = {
    RP_ISA_SCALAR,         intersect_aabb_1x1, closest_aabb_1x1,      closest_triangle_1x1,
    occluded_triangle_1x1, closest_sphere_1x1, closest_plane_1x1,     rp_scene_closest_ref,
    rp_scene_occluded_ref, NULL, NULL, NULL, NULL, NULL, NULL, NULL, rays_prepare,
};
