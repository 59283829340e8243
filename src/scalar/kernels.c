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

static void closest_aabb(rp_rays *rays, const uint8_t *active,
                         const rp_aabb *boxes, size_t count, uint32_t base,
                         rp_hits *hits) {
    for (size_t i = 0; i < rays->n; i++) {
        if (active && !active[i])
            continue;
        rp_ray1 r = load_ray(rays, i);
        int has = hits->prim[i] != RP_NO_HIT;
        size_t best_j = SIZE_MAX;
        for (size_t j = 0; j < count; j++) {
            float tn, tf;
            /* r.tmax is the running best: the slab clips against it */
            int h = rp_ref_slab(&r, &boxes[j], &tn, &tf);
            if (h & ((tn < r.tmax) | !has)) {
                r.tmax = tn;
                has = 1;
                best_j = j;
            }
        }
        if (best_j != SIZE_MAX) {
            rays->tmax[i] = r.tmax;
            hits->t[i] = r.tmax;
            hits->u[i] = 0.0f;
            hits->v[i] = 0.0f;
            hits->prim[i] = base + (uint32_t)best_j;
        }
    }
}

/* Shared loop of the two triangle kernels. */
static void closest_triangle(rp_rays *rays, const uint8_t *active,
                             const rp_triangle *tris, size_t count,
                             uint32_t base, unsigned flags, rp_hits *hits) {
    for (size_t i = 0; i < rays->n; i++) {
        if (active && !active[i])
            continue;
        rp_ray1 r = load_ray(rays, i);
        int has = hits->prim[i] != RP_NO_HIT;
        size_t best_j = SIZE_MAX;
        rp_tri_eval best;
        for (size_t j = 0; j < count; j++) {
            rp_tri_eval e = rp_ref_tri_eval(&r, &tris[j], flags);
            if (!e.candidate)
                continue;
            float t = rp_ref_tri_t(&e);
            if (rp_ref_accept(t, r.tmin, r.tmax, has)) {
                r.tmax = t;
                has = 1;
                best_j = j;
                best = e;
            }
        }
        if (best_j != SIZE_MAX) {
            float u, v;
            rp_ref_tri_uv(&best, &u, &v);
            rays->tmax[i] = r.tmax;
            hits->t[i] = r.tmax;
            hits->u[i] = u;
            hits->v[i] = v;
            hits->prim[i] = base + (uint32_t)best_j;
        }
    }
}

static void occluded_triangle(const rp_rays *rays, const uint8_t *active,
                              const rp_triangle *tris, size_t count,
                              unsigned flags, uint8_t *occluded) {
    for (size_t i = 0; i < rays->n; i++) {
        if (active && !active[i])
            continue;
        rp_ray1 r = load_ray(rays, i);
        for (size_t j = 0; j < count; j++) {
            rp_tri_eval e = rp_ref_tri_eval(&r, &tris[j], flags);
            if (!e.candidate)
                continue;
            float t = rp_ref_tri_t(&e);
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
    for (size_t i = 0; i < rays->n; i++) {
        if (active && !active[i])
            continue;
        rp_ray1 r = load_ray(rays, i);
        int has = hits->prim[i] != RP_NO_HIT;
        size_t best_j = SIZE_MAX;
        for (size_t j = 0; j < count; j++) {
            float t;
            int c = rp_ref_sphere(&r, &spheres[j], &t);
            if (c && rp_ref_accept(t, r.tmin, r.tmax, has)) {
                r.tmax = t;
                has = 1;
                best_j = j;
            }
        }
        if (best_j != SIZE_MAX) {
            rays->tmax[i] = r.tmax;
            hits->t[i] = r.tmax;
            hits->u[i] = 0.0f;
            hits->v[i] = 0.0f;
            hits->prim[i] = base + (uint32_t)best_j;
        }
    }
}

static void closest_plane(rp_rays *rays, const uint8_t *active,
                          const rp_plane *planes, size_t count, uint32_t base,
                          rp_hits *hits) {
    for (size_t i = 0; i < rays->n; i++) {
        if (active && !active[i])
            continue;
        rp_ray1 r = load_ray(rays, i);
        int has = hits->prim[i] != RP_NO_HIT;
        size_t best_j = SIZE_MAX;
        for (size_t j = 0; j < count; j++) {
            float t;
            int c = rp_ref_plane(&r, &planes[j], &t);
            if (c && rp_ref_accept(t, r.tmin, r.tmax, has)) {
                r.tmax = t;
                has = 1;
                best_j = j;
            }
        }
        if (best_j != SIZE_MAX) {
            rays->tmax[i] = r.tmax;
            hits->t[i] = r.tmax;
            hits->u[i] = 0.0f;
            hits->v[i] = 0.0f;
            hits->prim[i] = base + (uint32_t)best_j;
        }
    }
}

const rp_kernels rp_kernels_scalar = {
    RP_ISA_SCALAR,    intersect_aabb, closest_aabb, closest_triangle,
    occluded_triangle, closest_sphere, closest_plane,
};
