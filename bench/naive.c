/*
 * naive.c - the "naive" baseline: the code of the seeds as people write it
 * before they think about throughput.  Boxes follow seeds 001/003: a true
 * division per slab plane ((min - o) / d, no reciprocal), a swap branch per
 * axis and early-out branches between axes.  Triangles, spheres follow seed
 * 004: Moller-Trumbore with an epsilon, a reciprocal of det and an early
 * out after u and after v; the sphere quadratic with b = 2*dot(d, oc) and a
 * branch on the discriminant.  One ray at a time, one primitive at a time.
 * Results agree with raypack's except on edge cases (the seeds' rules for
 * those differ; see docs/SEMANTICS.md), so drivers compare hit sets only.
 */
#include <math.h>
#include <string.h>

#include "bench.h"

typedef struct nray { float ox, oy, oz, dx, dy, dz, tmin, tmax; } nray;

static nray get_ray(const rp_rays *r, size_t i) {
    nray n = {r->ox[i], r->oy[i], r->oz[i], r->dx[i], r->dy[i], r->dz[i], r->tmin[i], r->tmax[i]};
    return n;
}

/* Seed 003: per-axis [tmin, tmax] by division, swapped into order. */
static int naive_slab(const nray *r, const rp_aabb *b, float *tn_out, float *tf_out) {
    float txmin = (b->min.x - r->ox) / r->dx;
    float txmax = (b->max.x - r->ox) / r->dx;
    if (txmin > txmax) { float t = txmin; txmin = txmax; txmax = t; }
    float tymin = (b->min.y - r->oy) / r->dy;
    float tymax = (b->max.y - r->oy) / r->dy;
    if (tymin > tymax) { float t = tymin; tymin = tymax; tymax = t; }
    if (txmin > tymax || tymin > txmax)
        return 0;
    float tzmin = (b->min.z - r->oz) / r->dz;
    float tzmax = (b->max.z - r->oz) / r->dz;
    if (tzmin > tzmax) { float t = tzmin; tzmin = tzmax; tzmax = t; }
    float tmin = fmaxf(fmaxf(txmin, tymin), tzmin);
    float tmax = fminf(fminf(txmax, tymax), tzmax);
    if (tmin > tzmax || tzmin > tmax)
        return 0;
    /* clip to the ray's own interval (seed 004's t_min / t_max check) */
    if (tmin < r->tmin) tmin = r->tmin;
    if (tmax > r->tmax) tmax = r->tmax;
    *tn_out = tmin;
    *tf_out = tmax;
    return tmin <= tmax;
}

/* Seed 004's ray_vs_triangle. */
static int naive_tri(const nray *r, const rp_triangle *tri, float *t_out) {
    const float eps = 1e-8f;
    float e1x = tri->v1.x - tri->v0.x, e1y = tri->v1.y - tri->v0.y, e1z = tri->v1.z - tri->v0.z;
    float e2x = tri->v2.x - tri->v0.x, e2y = tri->v2.y - tri->v0.y, e2z = tri->v2.z - tri->v0.z;
    float px = r->dy * e2z - r->dz * e2y;
    float py = r->dz * e2x - r->dx * e2z;
    float pz = r->dx * e2y - r->dy * e2x;
    float q = e1x * px + e1y * py + e1z * pz;
    if (fabsf(q) < eps)
        return 0; /* parallel */
    float iq = 1.0f / q;
    float sx = r->ox - tri->v0.x, sy = r->oy - tri->v0.y, sz = r->oz - tri->v0.z;
    float u = (sx * px + sy * py + sz * pz) * iq;
    if (u < 0.0f || u > 1.0f)
        return 0;
    float qx = sy * e1z - sz * e1y;
    float qy = sz * e1x - sx * e1z;
    float qz = sx * e1y - sy * e1x;
    float v = (r->dx * qx + r->dy * qy + r->dz * qz) * iq;
    if (v < 0.0f || u + v > 1.0f)
        return 0;
    float t = (e2x * qx + e2y * qy + e2z * qz) * iq;
    if (t < r->tmin || t > r->tmax)
        return 0;
    *t_out = t;
    return 1;
}

/* Seed 004's ray_vs_sphere. */
static int naive_sphere(const nray *r, const rp_sphere *s, float *t_out) {
    float ox = r->ox - s->center.x, oy = r->oy - s->center.y, oz = r->oz - s->center.z;
    float a = r->dx * r->dx + r->dy * r->dy + r->dz * r->dz;
    float b = 2.0f * (r->dx * ox + r->dy * oy + r->dz * oz);
    float c = ox * ox + oy * oy + oz * oz - s->radius * s->radius;
    float det = b * b - 4.0f * a * c;
    if (det < 0.0f)
        return 0;
    float a2 = 2.0f * a;
    float sq = sqrtf(det);
    float t = (-b - sq) / a2;
    if (t < r->tmin)
        t = (-b + sq) / a2;
    if (t >= r->tmin && t <= r->tmax) {
        *t_out = t;
        return 1;
    }
    return 0;
}

void rpb_run_naive(rpb_work *w) {
    const rp_rays *rays = &w->rays;
    rp_hits *h = &w->hits;
    size_t n = w->nrays, m = w->nprims;
    if (w->kernel == RPB_SLAB) {
        for (size_t j = 0; j < m; j++)
            for (size_t i = 0; i < n; i++) {
                nray r = get_ray(rays, i);
                float tn = r.tmin, tf = r.tmax;
                w->hit[i] = (uint8_t)naive_slab(&r, &w->boxes[j], &tn, &tf);
                w->tnear[i] = tn;
                w->tfar[i] = tf;
            }
        return;
    }
    if (w->kernel == RPB_OCCL) {
        for (size_t i = 0; i < n; i++) {
            nray r = get_ray(rays, i);
            w->occluded[i] = 0;
            for (size_t j = 0; j < m; j++) {
                float t;
                if (naive_tri(&r, &w->tris[j], &t)) {
                    w->occluded[i] = 1;
                    break;
                }
            }
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        nray r = get_ray(rays, i);
        r.tmax = w->tmax0[i];
        uint32_t best = RP_NO_HIT;
        for (size_t j = 0; j < m; j++) {
            float t, tf;
            int hit;
            if (w->kernel == RPB_AABB)
                hit = naive_slab(&r, &w->boxes[j], &t, &tf);
            else if (w->kernel == RPB_TRI)
                hit = naive_tri(&r, &w->tris[j], &t);
            else
                hit = naive_sphere(&r, &w->spheres[j], &t);
            if (hit && (best == RP_NO_HIT || t < r.tmax)) {
                r.tmax = t;
                best = (uint32_t)j;
            }
        }
        h->prim[i] = best;
        h->t[i] = best == RP_NO_HIT ? INFINITY : r.tmax;
    }
}
