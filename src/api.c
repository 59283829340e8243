/*
 * api.c - raypack's public entry points: argument checking (every bad
 * argument gets a status and nothing is written), batch allocation and
 * preparation, the hit-normal routines and the single-ray conveniences.
 * The batch kernels themselves live behind the dispatch table
 * (src/dispatch.c); this file only checks arguments and forwards.
 */
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__SSE4_1__)
#error "api.c must be built at the baseline ISA: a wide ISA flag reached it"
#endif

#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scalar/ref.h"

const char *rp_status_string(rp_status s) {
    switch (s) {
    case RP_OK: return "success";
    case RP_ERR_NULL: return "a required pointer is NULL";
    case RP_ERR_COUNT: return "a count is too large (byte size or primitive index overflows)";
    case RP_ERR_NOT_PREPARED: return "the ray batch is not prepared for its n (call rp_rays_prepare)";
    case RP_ERR_ALIGN: return "a pointer is not aligned to its element type";
    case RP_ERR_ALIAS: return "an output array overlaps an input or another output";
    case RP_ERR_SIZE_MISMATCH: return "hits.n differs from rays.n";
    case RP_ERR_NOMEM: return "out of memory";
    case RP_ERR_ISA_UNKNOWN: return "unknown instruction-set variant";
    case RP_ERR_ISA_UNAVAILABLE: return "variant not compiled in or not runnable on this CPU";
    case RP_ERR_INVALID: return "invalid argument";
    }
    return "unknown status";
}

/* ------------------------------------------------------------------ */
/* Argument checking                                                    */
/* ------------------------------------------------------------------ */

typedef rp_span span;

static int aligned4(const void *p) { return ((uintptr_t)p & 3u) == 0; }

static int spans_overlap(span a, span b) {
    if (!a.p || !b.p || !a.bytes || !b.bytes)
        return 0;
    uintptr_t a0 = (uintptr_t)a.p, b0 = (uintptr_t)b.p;
    return a0 < b0 + b.bytes && b0 < a0 + a.bytes;
}

/* Outputs must not overlap inputs nor each other. */
rp_status rp_check_overlaps(const span *in, size_t nin, const span *out, size_t nout) {
    for (size_t i = 0; i < nout; i++) {
        for (size_t j = 0; j < nin; j++)
            if (spans_overlap(out[i], in[j]))
                return RP_ERR_ALIAS;
        for (size_t j = i + 1; j < nout; j++)
            if (spans_overlap(out[i], out[j]))
                return RP_ERR_ALIAS;
    }
    return RP_OK;
}

/* n floats in bytes, or RP_ERR_COUNT */
static rp_status bytes_of(size_t n, size_t elem, size_t *bytes) {
    if (n > SIZE_MAX / elem)
        return RP_ERR_COUNT;
    *bytes = n * elem;
    return RP_OK;
}

/* The rays' arrays: present, aligned, sized, prepared.  Fills the 11 input
 * spans (tmax included; closest kernels treat it as an output as well). */
rp_status rp_check_rays(const rp_rays *r, span in[11]) {
    if (!r)
        return RP_ERR_NULL;
    size_t fb;
    rp_status s = bytes_of(r->n, sizeof(float), &fb);
    if (s)
        return s;
    const float *a[11] = {r->ox, r->oy, r->oz, r->dx, r->dy, r->dz,
                          r->rdx, r->rdy, r->rdz, r->tmin, r->tmax};
    for (int k = 0; k < 11; k++) {
        if (!a[k] && r->n)
            return RP_ERR_NULL; /* n == 0: arrays may be NULL */
        if (!aligned4(a[k]))
            return RP_ERR_ALIGN;
        in[k].p = a[k];
        in[k].bytes = fb;
    }
    if (r->prepared_ != RP_PREPARED_MAGIC || r->prepared_n_ != r->n)
        return RP_ERR_NOT_PREPARED;
    return RP_OK;
}

static rp_status check_prims(const void *p, size_t count, size_t elem,
                             uint32_t base, int indexed, span *sp) {
    size_t b;
    rp_status s = bytes_of(count, elem, &b);
    if (s)
        return s;
    if (indexed && count > (size_t)(RP_NO_HIT - base))
        return RP_ERR_COUNT;
    if (count && !p)
        return RP_ERR_NULL;
    if (count && !aligned4(p))
        return RP_ERR_ALIGN;
    sp->p = p;
    sp->bytes = b;
    return RP_OK;
}

/* The hit record arrays t, u, v, prim as output spans. */
rp_status rp_check_hits(const rp_hits *h, size_t n, span out[4]) {
    if (!h)
        return RP_ERR_NULL;
    if (h->n != n)
        return RP_ERR_SIZE_MISMATCH;
    const void *a[4] = {h->t, h->u, h->v, h->prim};
    for (int k = 0; k < 4; k++) {
        if (!a[k] && n)
            return RP_ERR_NULL; /* n == 0: arrays may be NULL */
        if (!aligned4(a[k]))
            return RP_ERR_ALIGN;
        out[k].p = a[k];
        out[k].bytes = n * 4;
    }
    return RP_OK;
}

/* Common front half of the closest-hit kernels: rays, active, primitives,
 * hits, then overlaps with tmax counted as an output. */
static rp_status check_closest(const rp_rays *rays, const uint8_t *active,
                               const void *prims, size_t count, size_t elem,
                               uint32_t base, const rp_hits *hits) {
    span in[13], out[5];
    rp_status s = rp_check_rays(rays, in);
    if (s)
        return s;
    in[11].p = active;
    in[11].bytes = rays->n;
    if ((s = check_prims(prims, count, elem, base, 1, &in[12])))
        return s;
    if ((s = rp_check_hits(hits, rays->n, out)))
        return s;
    out[4] = in[10]; /* tmax is written */
    return rp_check_overlaps(in, 10, out, 5) ? RP_ERR_ALIAS
           : rp_check_overlaps(in + 11, 2, out, 5);
}

/* ------------------------------------------------------------------ */
/* Batches                                                              */
/* ------------------------------------------------------------------ */

#define RP_PAD_FLOATS 16 /* 64 bytes */

static size_t padded(size_t n) { return (n + RP_PAD_FLOATS - 1) / RP_PAD_FLOATS * RP_PAD_FLOATS; }

/* One 64-byte-aligned block of k arrays of n 4-byte elements each. */
static rp_status alloc_block(size_t n, int k, void **block, size_t *stride) {
    if (n > SIZE_MAX - RP_PAD_FLOATS)
        return RP_ERR_COUNT;
    size_t per = padded(n);
    if (per > SIZE_MAX / 4 / (size_t)k)
        return RP_ERR_COUNT;
    size_t bytes = per * 4 * (size_t)k;
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0)
        return RP_ERR_NOMEM;
    memset(p, 0, bytes);
    *block = p;
    *stride = per;
    return RP_OK;
}

rp_status rp_rays_alloc(size_t n, rp_rays *rays) {
    if (!rays)
        return RP_ERR_NULL;
    rp_rays r;
    memset(&r, 0, sizeof r);
    r.n = n;
    if (n) {
        void *block;
        size_t per;
        rp_status s = alloc_block(n, 11, &block, &per);
        if (s)
            return s;
        float *f = (float *)block;
        float **arrs[11] = {&r.ox, &r.oy, &r.oz, &r.dx, &r.dy, &r.dz,
                            &r.tmin, &r.tmax, &r.rdx, &r.rdy, &r.rdz};
        for (int k = 0; k < 11; k++)
            *arrs[k] = f + (size_t)k * per;
        for (size_t i = 0; i < n; i++)
            r.tmax[i] = INFINITY;
        r.block_ = block;
    }
    *rays = r;
    return RP_OK;
}

void rp_rays_free(rp_rays *rays) {
    if (!rays)
        return;
    free(rays->block_);
    memset(rays, 0, sizeof *rays);
}

rp_status rp_rays_prepare(rp_rays *r) {
    if (!r)
        return RP_ERR_NULL;
    size_t fb;
    rp_status s = bytes_of(r->n, sizeof(float), &fb);
    if (s)
        return s;
    if (r->n) {
        const float *in[8] = {r->ox, r->oy, r->oz, r->dx, r->dy, r->dz, r->tmin, r->tmax};
        float *out[3] = {r->rdx, r->rdy, r->rdz};
        span ins[8], outs[3];
        for (int k = 0; k < 8; k++) {
            if (!in[k]) return RP_ERR_NULL;
            if (!aligned4(in[k])) return RP_ERR_ALIGN;
            ins[k].p = in[k];
            ins[k].bytes = fb;
        }
        for (int k = 0; k < 3; k++) {
            if (!out[k]) return RP_ERR_NULL;
            if (!aligned4(out[k])) return RP_ERR_ALIGN;
            outs[k].p = out[k];
            outs[k].bytes = fb;
        }
        if ((s = rp_check_overlaps(ins, 8, outs, 3)))
            return s;
        for (size_t i = 0; i < r->n; i++)
            rp_ref_prepare(r->ox[i], r->oy[i], r->oz[i], r->dx[i], r->dy[i],
                           r->dz[i], &r->rdx[i], &r->rdy[i], &r->rdz[i]);
    }
    r->prepared_n_ = r->n;
    r->prepared_ = RP_PREPARED_MAGIC;
    return RP_OK;
}

rp_status rp_hits_alloc(size_t n, rp_hits *hits) {
    if (!hits)
        return RP_ERR_NULL;
    rp_hits h;
    memset(&h, 0, sizeof h);
    h.n = n;
    if (n) {
        void *block;
        size_t per;
        rp_status s = alloc_block(n, 7, &block, &per);
        if (s)
            return s;
        float *f = (float *)block;
        h.t = f;
        h.u = f + per;
        h.v = f + 2 * per;
        h.prim = (uint32_t *)(void *)(f + 3 * per);
        h.nx = f + 4 * per;
        h.ny = f + 5 * per;
        h.nz = f + 6 * per;
        h.block_ = block;
    }
    rp_status s = rp_hits_reset(&h);
    if (s) {
        free(h.block_);
        return s;
    }
    *hits = h;
    return RP_OK;
}

void rp_hits_free(rp_hits *hits) {
    if (!hits)
        return;
    free(hits->block_);
    memset(hits, 0, sizeof *hits);
}

rp_status rp_hits_reset(rp_hits *h) {
    if (!h)
        return RP_ERR_NULL;
    if (!h->n)
        return RP_OK;
    float *f[6] = {h->t, h->u, h->v, h->nx, h->ny, h->nz};
    for (int k = 0; k < 6; k++) {
        if (!f[k]) return RP_ERR_NULL;
        if (!aligned4(f[k])) return RP_ERR_ALIGN;
    }
    if (!h->prim) return RP_ERR_NULL;
    if (!aligned4(h->prim)) return RP_ERR_ALIGN;
    for (size_t i = 0; i < h->n; i++) {
        h->t[i] = INFINITY;
        h->u[i] = h->v[i] = 0.0f;
        h->nx[i] = h->ny[i] = h->nz[i] = 0.0f;
        h->prim[i] = RP_NO_HIT;
    }
    return RP_OK;
}

/* ------------------------------------------------------------------ */
/* Batch kernels: check, then forward to the active variant             */
/* ------------------------------------------------------------------ */

rp_status rp_intersect_aabb(const rp_rays *rays, const uint8_t *active,
                            const rp_aabb *box, uint8_t *hit, float *tnear,
                            float *tfar) {
    span in[13], out[3];
    rp_status s = rp_check_rays(rays, in);
    if (s)
        return s;
    if ((!box || !hit) && rays->n)
        return RP_ERR_NULL;
    if (!aligned4(box) || !aligned4(tnear) || !aligned4(tfar))
        return RP_ERR_ALIGN;
    in[11].p = active; in[11].bytes = rays->n;
    in[12].p = box; in[12].bytes = sizeof *box;
    out[0].p = hit; out[0].bytes = rays->n;
    out[1].p = tnear; out[1].bytes = rays->n * 4;
    out[2].p = tfar; out[2].bytes = rays->n * 4;
    if ((s = rp_check_overlaps(in, 13, out, 3)))
        return s;
    if (rays->n)
        rp_kernels_active()->intersect_aabb(rays, active, box, hit, tnear, tfar);
    return RP_OK;
}

rp_status rp_closest_aabb(rp_rays *rays, const uint8_t *active,
                          const rp_aabb *boxes, size_t count,
                          uint32_t index_base, rp_hits *hits) {
    rp_status s = check_closest(rays, active, boxes, count, sizeof *boxes, index_base, hits);
    if (!s && rays->n && count)
        rp_kernels_active()->closest_aabb(rays, active, boxes, count, index_base, hits);
    return s;
}

rp_status rp_closest_triangle(rp_rays *rays, const uint8_t *active,
                              const rp_triangle *tris, size_t count,
                              uint32_t index_base, unsigned flags,
                              rp_hits *hits) {
    rp_status s = check_closest(rays, active, tris, count, sizeof *tris, index_base, hits);
    if (!s && (flags & ~(RP_CULL_BACKFACE | RP_WATERTIGHT)))
        s = RP_ERR_INVALID;
    if (!s && rays->n && count)
        rp_kernels_active()->closest_triangle(rays, active, tris, count, index_base, flags, hits);
    return s;
}

rp_status rp_occluded_triangle(const rp_rays *rays, const uint8_t *active,
                               const rp_triangle *tris, size_t count,
                               unsigned flags, uint8_t *occluded) {
    span in[13], out[1];
    rp_status s = rp_check_rays(rays, in);
    if (s)
        return s;
    in[11].p = active; in[11].bytes = rays->n;
    if ((s = check_prims(tris, count, sizeof *tris, 0, 0, &in[12])))
        return s;
    if (!occluded && rays->n)
        return RP_ERR_NULL;
    if (flags & ~(RP_CULL_BACKFACE | RP_WATERTIGHT))
        return RP_ERR_INVALID;
    out[0].p = occluded; out[0].bytes = rays->n;
    if ((s = rp_check_overlaps(in, 13, out, 1)))
        return s;
    if (rays->n && count)
        rp_kernels_active()->occluded_triangle(rays, active, tris, count, flags, occluded);
    return RP_OK;
}

rp_status rp_closest_sphere(rp_rays *rays, const uint8_t *active,
                            const rp_sphere *spheres, size_t count,
                            uint32_t index_base, rp_hits *hits) {
    rp_status s = check_closest(rays, active, spheres, count, sizeof *spheres, index_base, hits);
    if (!s && rays->n && count)
        rp_kernels_active()->closest_sphere(rays, active, spheres, count, index_base, hits);
    return s;
}

rp_status rp_closest_plane(rp_rays *rays, const uint8_t *active,
                           const rp_plane *planes, size_t count,
                           uint32_t index_base, rp_hits *hits) {
    rp_status s = check_closest(rays, active, planes, count, sizeof *planes, index_base, hits);
    if (!s && rays->n && count)
        rp_kernels_active()->closest_plane(rays, active, planes, count, index_base, hits);
    return s;
}

/* ------------------------------------------------------------------ */
/* Normals (scalar for every variant, off the hot path)                 */
/* ------------------------------------------------------------------ */

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

static rp_status check_normals(const rp_rays *rays, const rp_hits *h,
                               const void *prims, size_t count, size_t elem,
                               uint32_t base) {
    span in[13], out[7];
    rp_status s = rp_check_rays(rays, in);
    if (s)
        return s;
    if ((s = check_prims(prims, count, elem, base, 1, &in[11])))
        return s;
    if ((s = rp_check_hits(h, rays->n, out)))
        return s;
    float *nn[3] = {h->nx, h->ny, h->nz};
    for (int k = 0; k < 3; k++) {
        if (!nn[k] && rays->n) return RP_ERR_NULL;
        if (!aligned4(nn[k])) return RP_ERR_ALIGN;
        out[4 + k].p = nn[k];
        out[4 + k].bytes = rays->n * 4;
    }
    /* t, u, v, prim are read here: only the normals are outputs */
    span ins[16];
    memcpy(ins, in, 12 * sizeof(span));
    memcpy(ins + 12, out, 4 * sizeof(span));
    return rp_check_overlaps(ins, 16, out + 4, 3);
}

/* Shared loop: for each ray holding one of these primitives, call f. */
#define FOR_HITS_OF(rays, h, count, base, ...)                              \
    for (size_t i = 0; i < (rays)->n; i++) {                                \
        uint32_t p = (h)->prim[i];                                          \
        if (p == RP_NO_HIT || p < (base) || (size_t)(p - (base)) >= (count)) \
            continue;                                                       \
        size_t j = p - (base);                                              \
        rp_ray1 r = ray_at((rays), i);                                      \
        rp_vec3 n;                                                          \
        __VA_ARGS__                                                         \
        (h)->nx[i] = n.x;                                                   \
        (h)->ny[i] = n.y;                                                   \
        (h)->nz[i] = n.z;                                                   \
    }

rp_status rp_hits_normals_aabb(const rp_rays *rays, rp_hits *h,
                               const rp_aabb *boxes, size_t count,
                               uint32_t base) {
    rp_status s = check_normals(rays, h, boxes, count, sizeof *boxes, base);
    if (s)
        return s;
    FOR_HITS_OF(rays, h, count, base, {
        int k = slab_axis(&r, &boxes[j], r.tmin, 0);
        n = axis_normal(k, rd_axis(&r, k < 0 ? 0 : k) < 0.0f ? 1.0f : -1.0f);
    })
    return RP_OK;
}

/* The triangle normal of ray i (internal.h): the one routine behind
 * rp_hits_normals_triangle and rp_scene_normals. */
rp_vec3 rp_normal_triangle(const rp_rays *rays, size_t i, const rp_triangle *t) {
    rp_ray1 r = ray_at(rays, i);
    rp_tri_eval e = rp_ref_tri_eval(&r, t, 0);
    float e1x = t->v1.x - t->v0.x, e1y = t->v1.y - t->v0.y, e1z = t->v1.z - t->v0.z;
    float e2x = t->v2.x - t->v0.x, e2y = t->v2.y - t->v0.y, e2z = t->v2.z - t->v0.z;
    float cx = e1y * e2z - e1z * e2y;
    float cy = e1z * e2x - e1x * e2z;
    float cz = e1x * e2y - e1y * e2x;
    float len = sqrtf(cx * cx + cy * cy + cz * cz);
    float inv = (e.det < 0.0f ? -1.0f : 1.0f) / len;
    rp_vec3 n = {cx * inv, cy * inv, cz * inv};
    return n;
}

rp_status rp_hits_normals_triangle(const rp_rays *rays, rp_hits *h,
                                   const rp_triangle *tris, size_t count,
                                   uint32_t base) {
    rp_status s = check_normals(rays, h, tris, count, sizeof *tris, base);
    if (s)
        return s;
    FOR_HITS_OF(rays, h, count, base, {
        (void)r;
        n = rp_normal_triangle(rays, i, &tris[j]);
    })
    return RP_OK;
}

rp_status rp_hits_normals_sphere(const rp_rays *rays, rp_hits *h,
                                 const rp_sphere *sp, size_t count,
                                 uint32_t base) {
    rp_status s = check_normals(rays, h, sp, count, sizeof *sp, base);
    if (s)
        return s;
    FOR_HITS_OF(rays, h, count, base, {
        float t = h->t[i];
        n.x = (r.ox + t * r.dx - sp[j].center.x) / sp[j].radius;
        n.y = (r.oy + t * r.dy - sp[j].center.y) / sp[j].radius;
        n.z = (r.oz + t * r.dz - sp[j].center.z) / sp[j].radius;
    })
    return RP_OK;
}

rp_status rp_hits_normals_plane(const rp_rays *rays, rp_hits *h,
                                const rp_plane *pl, size_t count,
                                uint32_t base) {
    rp_status s = check_normals(rays, h, pl, count, sizeof *pl, base);
    if (s)
        return s;
    FOR_HITS_OF(rays, h, count, base, {
        (void)r;
        n = pl[j].n;
    })
    return RP_OK;
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
