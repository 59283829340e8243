/*
 * geometry.c - the API layer's own geometry, scalar for every variant and
 * off the hot path: the hit normals (rp_hits_normals_aabb / _triangle /
 * _sphere / _plane; the triangle's routine is normal.h's, which
 * rp_scene_normals shares so both give the same bits) and the single-ray
 * conveniences for picking (rp_raycast_aabb, rp_segment_aabb).  The normals check their arguments
 * like the kernels (check.h, rp_check_args) and write nothing on error.
 */
#include <math.h>

#include "check.h"
#include "normal.h"
#include "scalar/ref.h"

static rp_ray1 ray_at(const rp_rays *r, size_t i) {
    rp_ray1 x = {r->ox[i], r->oy[i], r->oz[i], r->dx[i], r->dy[i], r->dz[i],
                 r->rdx[i], r->rdy[i], r->rdz[i], r->tmin[i], r->tmax[i]};
    return x;
}

/* Which clip set the slab test's near end (far = 0) or its far end
 * (far = 1), starting from t0: -1 for t0 itself (the ray's own tmin or
 * tmax), else the axis.  The strict comparisons of rp_maxf / rp_minf mean
 * x, then y, then z win ties. */
static int slab_axis(const rp_ray1 *r, const rp_aabb *b, float t0, int far) {
    const float o[3] = {r->ox, r->oy, r->oz};
    const float rd[3] = {r->rdx, r->rdy, r->rdz};
    const float mn[3] = {b->min.x, b->min.y, b->min.z};
    const float mx[3] = {b->max.x, b->max.y, b->max.z};
    float tt = t0;
    int axis = -1;
    for (int k = 0; k < 3; k++) {
        /* the near plane is max on a negative direction, the far one min */
        float plane = (rd[k] < 0.0f) != far ? mx[k] : mn[k];
        float t = plane - o[k];
        t = t * rd[k];
        if (far ? t < tt : t > tt) {
            tt = t;
            axis = k;
        }
    }
    return axis;
}

/* Axis-aligned unit vector: sign s (+1/-1) on axis k, or zero for k < 0. */
static rp_vec3 axis_normal(int k, float s) {
    rp_vec3 n = {0.0f, 0.0f, 0.0f};
    if (k == 0) n.x = s;
    if (k == 1) n.y = s;
    if (k == 2) n.z = s;
    return n;
}

static float rd_axis(const rp_ray1 *r, int k) {
    return k == 0 ? r->rdx : k == 1 ? r->rdy : r->rdz;
}

/* The normals' list: rays (read), primitives, the records t, u, v, prim
 * (read), then nx, ny, nz (written). */
#define ARGS_NORMALS (ARGS_RAYS + ARGS_PRIMS + ARGS_HITS + 3)
static inline void args_normals(const rp_rays *rays, const rp_hits *h, const void *prims,
                                size_t count, size_t elem, uint32_t base, rp_arg *a) {
    size_t n = rays->n;
    args_rays(rays, RP_ARG_IN, a);
    a += ARGS_RAYS;
    args_prims(prims, count, elem, base, 1, a);
    a += ARGS_PRIMS;
    args_hits(h, n, RP_ARG_IN, a);
    a += ARGS_HITS;
    a[0] = arg(h ? h->nx : NULL, n * 4, RP_ARG_OUT | RP_ARG_ALIGN);
    a[1] = arg(h ? h->ny : NULL, n * 4, RP_ARG_OUT | RP_ARG_ALIGN);
    a[2] = arg(h ? h->nz : NULL, n * 4, RP_ARG_OUT | RP_ARG_ALIGN);
}

static rp_status check_normals(const rp_rays *rays, const rp_hits *h,
                               const void *prims, size_t count, size_t elem,
                               uint32_t base) {
    if (!rays)
        return RP_ERR_NULL;
    rp_arg a[ARGS_NORMALS];
    args_normals(rays, h, prims, count, elem, base, a);
    return rp_check_list(a, ARGS_NORMALS, 1);
}

/* A normal routine: the normal of ray i, whose record holds primitive j of
 * `prims` (the typed array the caller passed). */
typedef rp_vec3 normal_fn(const rp_rays *rays, const rp_hits *h, size_t i, const void *prims,
                          size_t j);

/* The one loop behind the four rp_hits_normals_*: for each ray whose record
 * holds one of these primitives (base <= prim < base + count), write the
 * normal `f` gives; other rays are untouched.  Inlined with a constant f. */
static inline void normals_of_hits(const rp_rays *rays, rp_hits *h, const void *prims,
                                   size_t count, uint32_t base, normal_fn *f) {
    for (size_t i = 0; i < rays->n; i++) {
        uint32_t p = h->prim[i];
        if (p == RP_NO_HIT || p < base || (size_t)(p - base) >= count)
            continue;
        rp_vec3 n = f(rays, h, i, prims, p - base);
        h->nx[i] = n.x;
        h->ny[i] = n.y;
        h->nz[i] = n.z;
    }
}

static rp_vec3 box_normal(const rp_rays *rays, const rp_hits *h, size_t i, const void *prims,
                          size_t j) {
    (void)h;
    rp_ray1 r = ray_at(rays, i);
    int k = slab_axis(&r, (const rp_aabb *)prims + j, r.tmin, 0);
    return axis_normal(k, rd_axis(&r, k < 0 ? 0 : k) < 0.0f ? 1.0f : -1.0f);
}

rp_status rp_hits_normals_aabb(const rp_rays *rays, rp_hits *h,
                               const rp_aabb *boxes, size_t count,
                               uint32_t base) {
    rp_status s = check_normals(rays, h, boxes, count, sizeof *boxes, base);
    if (!s)
        normals_of_hits(rays, h, boxes, count, base, box_normal);
    return s;
}

static rp_vec3 tri_normal(const rp_rays *rays, const rp_hits *h, size_t i, const void *prims,
                          size_t j) {
    (void)h;
    return rp_normal_of(rays, i, (const rp_triangle *)prims + j);
}

rp_status rp_hits_normals_triangle(const rp_rays *rays, rp_hits *h,
                                   const rp_triangle *tris, size_t count,
                                   uint32_t base) {
    rp_status s = check_normals(rays, h, tris, count, sizeof *tris, base);
    if (!s)
        normals_of_hits(rays, h, tris, count, base, tri_normal);
    return s;
}

static rp_vec3 sphere_normal(const rp_rays *rays, const rp_hits *h, size_t i,
                             const void *prims, size_t j) {
    const rp_sphere *sp = (const rp_sphere *)prims + j;
    rp_ray1 r = ray_at(rays, i);
    float t = h->t[i];
    rp_vec3 n;
    n.x = (r.ox + t * r.dx - sp->center.x) / sp->radius;
    n.y = (r.oy + t * r.dy - sp->center.y) / sp->radius;
    n.z = (r.oz + t * r.dz - sp->center.z) / sp->radius;
    return n;
}

rp_status rp_hits_normals_sphere(const rp_rays *rays, rp_hits *h,
                                 const rp_sphere *sp, size_t count,
                                 uint32_t base) {
    rp_status s = check_normals(rays, h, sp, count, sizeof *sp, base);
    if (!s)
        normals_of_hits(rays, h, sp, count, base, sphere_normal);
    return s;
}

static rp_vec3 plane_normal(const rp_rays *rays, const rp_hits *h, size_t i, const void *prims,
                            size_t j) {
    (void)rays;
    (void)h;
    (void)i;
    return ((const rp_plane *)prims)[j].n;
}

rp_status rp_hits_normals_plane(const rp_rays *rays, rp_hits *h,
                                const rp_plane *pl, size_t count,
                                uint32_t base) {
    rp_status s = check_normals(rays, h, pl, count, sizeof *pl, base);
    if (!s)
        normals_of_hits(rays, h, pl, count, base, plane_normal);
    return s;
}

/* ------------------------------------------------------------------ */
/* Single-ray conveniences                                              */
/* ------------------------------------------------------------------ */

static rp_ray1 make_ray(rp_vec3 o, rp_vec3 d, float tmin, float tmax) {
    rp_ray1 r;
    r.ox = o.x; r.oy = o.y; r.oz = o.z;
    r.dx = d.x; r.dy = d.y; r.dz = d.z;
    rp_ref_prepare(o.x, o.y, o.z, d.x, d.y, d.z, &r.rdx, &r.rdy, &r.rdz);
    r.tmin = tmin;
    r.tmax = tmax;
    return r;
}

rp_status rp_raycast_aabb(rp_vec3 origin, rp_vec3 dir, const rp_aabb *box,
                          int *hit, float *t, rp_vec3 *normal) {
    if (!box || !hit)
        return RP_ERR_NULL;
    /* Seed 000: the whole line, then the entry t, or the exit t when the
     * entry is behind the origin; a miss when the box is behind or t is
     * not finite (a zero direction has no face to reach). */
    rp_ray1 r = make_ray(origin, dir, -INFINITY, INFINITY);
    float tn, tf;
    int h = rp_ref_slab(&r, box, &tn, &tf);
    float tt = tn < 0.0f ? tf : tn;
    h = h && tf >= 0.0f && isfinite(tt);
    *hit = h;
    if (!h)
        return RP_OK;
    if (t)
        *t = tt;
    if (normal) {
        if (tn < 0.0f) {
            int k = slab_axis(&r, box, INFINITY, 1);
            *normal = axis_normal(k, rd_axis(&r, k < 0 ? 0 : k) < 0.0f ? -1.0f : 1.0f);
        } else {
            int k = slab_axis(&r, box, -INFINITY, 0);
            *normal = axis_normal(k, rd_axis(&r, k < 0 ? 0 : k) < 0.0f ? 1.0f : -1.0f);
        }
    }
    return RP_OK;
}

rp_status rp_segment_aabb(rp_vec3 a, rp_vec3 b, const rp_aabb *box, int *hit,
                          float *t, rp_vec3 *point, rp_vec3 *normal) {
    if (!box || !hit)
        return RP_ERR_NULL;
    rp_vec3 d = {b.x - a.x, b.y - a.y, b.z - a.z};
    rp_ray1 r = make_ray(a, d, 0.0f, 1.0f);
    float tn, tf;
    int h = rp_ref_slab(&r, box, &tn, &tf);
    *hit = h;
    if (!h)
        return RP_OK;
    if (t)
        *t = tn;
    if (point) {
        float px = tn * d.x, py = tn * d.y, pz = tn * d.z;
        point->x = a.x + px;
        point->y = a.y + py;
        point->z = a.z + pz;
    }
    if (normal) {
        int k = slab_axis(&r, box, 0.0f, 0);
        *normal = axis_normal(k, rd_axis(&r, k < 0 ? 0 : k) < 0.0f ? 1.0f : -1.0f);
    }
    return RP_OK;
}
