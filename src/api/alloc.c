/*
 * alloc.c - ray batches and hit records: rp_rays_alloc / rp_hits_alloc (one
 * 64-byte-aligned block per batch, every array padded to an odd number of
 * 64-byte lines (check.h, rp_padded: the arrays in different L1 sets), in the
 * layout check.h recognises so that later calls check such a batch in
 * O(1)), their frees, rp_rays_prepare (the reciprocal directions, once per
 * batch) and rp_hits_reset.  These are the O(n) entry points: they touch
 * every ray, so their own argument checks (through rp_check_args) cost
 * little beside them; rp_hits_reset still recognises rp_hits_alloc's
 * records (hits_canonical: present, aligned, disjoint) and stores them by
 * vectors with no list, as renderers reset small batches once per call.
 */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "check.h"
#include "scalar/ref.h"

/* One 64-byte-aligned block of k arrays of n 4-byte elements each. */
static rp_status alloc_block(size_t n, int k, void **block, size_t *stride) {
    if (n > SIZE_MAX - 2 * RP_PAD_FLOATS)
        return RP_ERR_COUNT;
    size_t per = rp_padded(n);
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
    if (r->n > SIZE_MAX / sizeof(float))
        return RP_ERR_COUNT;
    if (r->n) { /* n == 0: nothing is read, any pointers will do */
        size_t fb = r->n * sizeof(float);
        const unsigned in = RP_ARG_IN | RP_ARG_ALIGN, out = RP_ARG_OUT | RP_ARG_ALIGN;
        const rp_arg a[11] = {
            arg(r->ox, fb, in),   arg(r->oy, fb, in),   arg(r->oz, fb, in),
            arg(r->dx, fb, in),   arg(r->dy, fb, in),   arg(r->dz, fb, in),
            arg(r->tmin, fb, in), arg(r->tmax, fb, in), arg(r->rdx, fb, out),
            arg(r->rdy, fb, out), arg(r->rdz, fb, out)};
        rp_status s = rp_check_args(a, 11);
        if (s)
            return s;
        rp_kernels_active()->rays_prepare(r); /* the variant's loop (the same bits) */
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

/* rp_hits_reset's stores on arrays known disjoint (rp_hits_alloc's): 4
 * records per step of SSE2 stores, the last n % 4 one by one, no byte past
 * element n - 1.  (The loop on its own becomes either run-time overlap
 * tests of 7 arrays or, with restrict, 6 calls of memset: for 8 records,
 * more than the work; issue 13.) */
/* records i .. n - 1 reset one by one (any arrays, overlapping too) */
static inline void reset_from(float *t, float *u, float *v, float *nx, float *ny, float *nz,
                              uint32_t *prim, size_t i, size_t n) {
    for (; i < n; i++) {
        t[i] = INFINITY;
        u[i] = v[i] = 0.0f;
        nx[i] = ny[i] = nz[i] = 0.0f;
        prim[i] = RP_NO_HIT;
    }
}

static inline void reset_disjoint(float *t, float *u, float *v, float *nx, float *ny, float *nz,
                                  uint32_t *prim, size_t n) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128 inf = _mm_set1_ps(INFINITY), z = _mm_setzero_ps();
    const __m128i none = _mm_set1_epi32((int)RP_NO_HIT);
    for (; n - i >= 4; i += 4) {
        _mm_storeu_ps(t + i, inf);
        _mm_storeu_ps(u + i, z);
        _mm_storeu_ps(v + i, z);
        _mm_storeu_ps(nx + i, z);
        _mm_storeu_ps(ny + i, z);
        _mm_storeu_ps(nz + i, z);
        _mm_storeu_si128((__m128i *)(void *)(prim + i), none);
    }
#endif
    reset_from(t, u, v, nx, ny, nz, prim, i, n);
}

rp_status rp_hits_reset(rp_hits *h) {
    if (!h)
        return RP_ERR_NULL;
    if (!h->n)
        return RP_OK;
    if (hits_canonical(h)) { /* rp_hits_alloc's arrays: present, aligned, disjoint */
        reset_disjoint(h->t, h->u, h->v, h->nx, h->ny, h->nz, h->prim, h->n);
        return RP_OK;
    }
    /* written, but overlapping records are harmless here (role 0: no
     * overlap check, as always) */
    size_t fb = h->n * 4;
    const rp_arg a[7] = {arg(h->t, fb, RP_ARG_ALIGN),  arg(h->u, fb, RP_ARG_ALIGN),
                         arg(h->v, fb, RP_ARG_ALIGN),  arg(h->nx, fb, RP_ARG_ALIGN),
                         arg(h->ny, fb, RP_ARG_ALIGN), arg(h->nz, fb, RP_ARG_ALIGN),
                         arg(h->prim, fb, RP_ARG_ALIGN)};
    /* no output role, so args_fast decides NULL and alignment alone, in
     * O(1) and inline; rp_check_args only for the status of a bad one */
    if (!args_fast(a, 7)) {
        rp_status s = rp_check_args(a, 7);
        if (s)
            return s;
    }
    /* the arrays passed by value: the stores cannot change them (no reloads) */
    reset_from(h->t, h->u, h->v, h->nx, h->ny, h->nz, h->prim, 0, h->n);
    return RP_OK;
}
