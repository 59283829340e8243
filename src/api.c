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
#include <stddef.h>
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

/* [a, a + na) and [b, b + nb) share a byte (empty or NULL ranges never do) */
static inline int ranges_overlap(uintptr_t a, size_t na, uintptr_t b, size_t nb) {
    return a && b && na && nb && a < b + nb && b < a + na;
}

/* The one argument check (internal.h): the entries in order (a status
 * entry returns its status; a pointer is RP_ERR_NULL, then RP_ERR_ALIGN),
 * then every output against every input and every other output. */
rp_status rp_check_args(const rp_arg *a, size_t n) {
    for (size_t k = 0; k < n; k++) {
        if (a[k].role & RP_ARG_STATUS) {
            if (a[k].bytes)
                return (rp_status)a[k].bytes;
            continue;
        }
        if (!a[k].p && a[k].bytes && !(a[k].role & RP_ARG_OPT))
            return RP_ERR_NULL;
        if ((a[k].role & RP_ARG_ALIGN) && !aligned4(a[k].p))
            return RP_ERR_ALIGN;
    }
    for (size_t k = 0; k < n; k++) {
        if (!(a[k].role & RP_ARG_OUT))
            continue;
        for (size_t j = 0; j < n; j++) {
            int other = (a[j].role & RP_ARG_IN) || ((a[j].role & RP_ARG_OUT) && j > k);
            if (j != k && other &&
                ranges_overlap((uintptr_t)a[k].p, a[k].bytes, (uintptr_t)a[j].p, a[j].bytes))
                return RP_ERR_ALIAS;
        }
    }
    return RP_OK;
}

#if defined(__clang__)
#define RP_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define RP_UNROLL _Pragma("GCC unroll 32")
#else
#define RP_UNROLL
#endif
#if defined(__GNUC__)
#define RP_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define RP_ALWAYS_INLINE static inline
#endif

/* The fast path in front of rp_check_args: 1 when the list surely passes
 * (rp_check_args would return RP_OK), 0 when rp_check_args must decide.
 * Inlined where the list is built, whose length and roles are constants, so
 * the loops unroll into straight-line, mostly branch-free code and the list
 * never reaches memory.  Overlaps: nothing can overlap when no output has a
 * byte (every output holds n elements); the rays' arrays (RP_ARG_RAYS) all
 * hold n floats, so the written one (tmax) meets another iff their starts
 * are less than n * 4 bytes apart, and the read ones are bounded by one
 * hull: another output that meets the hull goes to rp_check_args. */
RP_ALWAYS_INLINE int args_fast(const rp_arg *a, size_t n) {
    uintptr_t bad = 0, outbytes = 0;
    RP_UNROLL for (size_t k = 0; k < n; k++) {
        uintptr_t p = (uintptr_t)a[k].p;
        unsigned r = a[k].role;
        bad |= (uintptr_t)((p == 0) & (a[k].bytes != 0) & !(r & RP_ARG_OPT));
        bad |= p & ((r & RP_ARG_ALIGN) ? 3u : 0u);
        outbytes |= (r & RP_ARG_OUT) ? a[k].bytes : 0;
    }
    if (bad)
        return 0;
    if (!outbytes)
        return 1;
    /* [s, e) per entry; NULL or empty: [UINTPTR_MAX, 0), which meets nothing */
    uintptr_t s[32], e[32], lo = UINTPTR_MAX, hi = 0, fb = 0, alias = 0;
    RP_UNROLL for (size_t k = 0; k < n; k++) {
        uintptr_t p = (uintptr_t)a[k].p;
        int live = (p != 0) & (a[k].bytes != 0) & !(a[k].role & RP_ARG_STATUS);
        s[k] = live ? p : UINTPTR_MAX;
        e[k] = live ? p + a[k].bytes : 0;
        if ((a[k].role & (RP_ARG_RAYS | RP_ARG_IN)) == (RP_ARG_RAYS | RP_ARG_IN)) {
            lo = s[k] < lo ? s[k] : lo;
            hi = e[k] > hi ? e[k] : hi;
            fb = a[k].bytes;
        }
    }
    RP_UNROLL for (size_t k = 0; k < n; k++) {
        unsigned r = a[k].role;
        if (!(r & RP_ARG_OUT))
            continue;
        if (r & RP_ARG_RAYS) { /* n > 0 here: every ray array is live */
            RP_UNROLL for (size_t j = 0; j < n; j++)
                if ((a[j].role & (RP_ARG_RAYS | RP_ARG_IN)) == (RP_ARG_RAYS | RP_ARG_IN))
                    alias |= (uintptr_t)(s[j] - s[k] + (fb - 1) < 2 * fb - 1);
        } else {
            alias |= (uintptr_t)((s[k] < hi) & (lo < e[k]));
        }
        RP_UNROLL for (size_t j = 0; j < n; j++) {
            unsigned q = a[j].role;
            if (((q & RP_ARG_IN) && !(q & RP_ARG_RAYS)) || ((q & RP_ARG_OUT) && j > k))
                alias |= (uintptr_t)((s[j] < e[k]) & (s[k] < e[j]));
        }
    }
    return !alias;
}

/* Outputs must not overlap inputs nor each other (scene.c's checks). */
rp_status rp_check_overlaps(const span *in, size_t nin, const span *out, size_t nout) {
    for (size_t i = 0; i < nout; i++) {
        for (size_t j = 0; j < nin; j++)
            if (ranges_overlap((uintptr_t)out[i].p, out[i].bytes, (uintptr_t)in[j].p, in[j].bytes))
                return RP_ERR_ALIAS;
        for (size_t j = i + 1; j < nout; j++)
            if (ranges_overlap((uintptr_t)out[i].p, out[i].bytes, (uintptr_t)out[j].p, out[j].bytes))
                return RP_ERR_ALIAS;
    }
    return RP_OK;
}

/* n elements in bytes, or RP_ERR_COUNT */
static rp_status bytes_of(size_t n, size_t elem, size_t *bytes) {
    if (n > SIZE_MAX / elem)
        return RP_ERR_COUNT;
    *bytes = n * elem;
    return RP_OK;
}

static inline rp_arg arg(const void *p, size_t bytes, unsigned role) {
    rp_arg x = {p, bytes, role};
    return x;
}
static inline rp_arg arg_status(rp_status s) { return arg(NULL, (size_t)s, RP_ARG_STATUS); }

/* ---- the lists ---- */

#define RP_PAD_FLOATS 16 /* 64 bytes */

static size_t padded(size_t n) { return (n + RP_PAD_FLOATS - 1) / RP_PAD_FLOATS * RP_PAD_FLOATS; }

/* Whether a batch's k arrays are still those rp_rays_alloc / rp_hits_alloc
 * laid out: array i at block + i * stride, stride = padded(n) floats, in the
 * order of `order` (offsets of the struct's pointer fields).  Then they are
 * present, 64-byte aligned and disjoint (each holds n <= stride floats), and
 * the fast path may bound them by the block's ranges. */
static inline int canonical(const void *s, const void *block, size_t n, const size_t *order,
                            int k) {
    if (!block || !n || n > SIZE_MAX / 64)
        return 0;
    uintptr_t b = (uintptr_t)block, st = padded(n) * 4, diff = b & 63u;
    if (b > UINTPTR_MAX - (uintptr_t)k * st) /* no array may wrap to NULL */
        return 0;
    for (int i = 0; i < k; i++) {
        uintptr_t p;
        memcpy(&p, (const char *)s + order[i], sizeof p);
        diff |= p ^ (b + (uintptr_t)i * st);
    }
    return diff == 0;
}

/* the rays' arrays in rp_rays_alloc's order */
static const size_t ray_order[11] = {
    offsetof(rp_rays, ox), offsetof(rp_rays, oy), offsetof(rp_rays, oz),
    offsetof(rp_rays, dx), offsetof(rp_rays, dy), offsetof(rp_rays, dz),
    offsetof(rp_rays, tmin), offsetof(rp_rays, tmax), offsetof(rp_rays, rdx),
    offsetof(rp_rays, rdy), offsetof(rp_rays, rdz)};
static const size_t hit_order[7] = {
    offsetof(rp_hits, t), offsetof(rp_hits, u), offsetof(rp_hits, v),
    offsetof(rp_hits, prim), offsetof(rp_hits, nx), offsetof(rp_hits, ny),
    offsetof(rp_hits, nz)};

static inline int rays_canonical(const rp_rays *r) {
    return canonical(r, r->block_, r->n, ray_order, 11);
}
static inline int hits_canonical(const rp_hits *h) {
    return canonical(h, h->block_, h->n, hit_order, 7);
}

/* The rays' entries (r != NULL): the count, the 11 arrays (present when
 * n > 0, 4-byte aligned), then prepared for n.  tmax_role: RP_ARG_IN, or
 * RP_ARG_OUT for the closest kernels that shorten it. */
#define ARGS_RAYS 13
static inline void args_rays(const rp_rays *r, unsigned tmax_role, rp_arg *a) {
    size_t fb = r->n * sizeof(float);
    const unsigned in = RP_ARG_IN | RP_ARG_RAYS | RP_ARG_ALIGN;
    a[0] = arg_status(r->n > SIZE_MAX / sizeof(float) ? RP_ERR_COUNT : RP_OK);
    a[1] = arg(r->ox, fb, in);
    a[2] = arg(r->oy, fb, in);
    a[3] = arg(r->oz, fb, in);
    a[4] = arg(r->dx, fb, in);
    a[5] = arg(r->dy, fb, in);
    a[6] = arg(r->dz, fb, in);
    a[7] = arg(r->rdx, fb, in);
    a[8] = arg(r->rdy, fb, in);
    a[9] = arg(r->rdz, fb, in);
    a[10] = arg(r->tmin, fb, in);
    a[11] = arg(r->tmax, fb, tmax_role | RP_ARG_RAYS | RP_ARG_ALIGN);
    a[12] = arg_status(r->prepared_ != RP_PREPARED_MAGIC || r->prepared_n_ != r->n
                           ? RP_ERR_NOT_PREPARED : RP_OK);
}

/* A batch laid out by rp_rays_alloc, for the fast path only: its arrays are
 * known present, aligned and disjoint, so two ranges of the block stand for
 * the ten arrays read (ox .. tmin, rdx .. rdz: wider than the arrays, so
 * passing against them implies passing against the arrays) beside tmax. */
#define ARGS_RAYS_BLOCK 4
static inline void args_rays_block(const rp_rays *r, unsigned tmax_role, rp_arg *a) {
    size_t st = padded(r->n) * 4;
    const char *b = (const char *)r->block_;
    if (tmax_role == RP_ARG_IN) { /* all read: one range (the rest folds away) */
        a[0] = arg(b, 11 * st, RP_ARG_IN);
        a[1] = a[2] = arg(NULL, 0, 0);
    } else {
        a[0] = arg(b, 7 * st, RP_ARG_IN);
        a[1] = arg(r->tmax, r->n * 4, tmax_role);
        a[2] = arg(b + 8 * st, 3 * st, RP_ARG_IN);
    }
    a[3] = arg_status(r->prepared_ != RP_PREPARED_MAGIC || r->prepared_n_ != r->n
                          ? RP_ERR_NOT_PREPARED : RP_OK);
}

/* Primitives: the byte count, index_base + count (indexed kernels), then
 * present and aligned when count > 0. */
#define ARGS_PRIMS 2
static inline void args_prims(const void *p, size_t count, size_t elem, uint32_t base,
                              int indexed, rp_arg *a) {
    a[0] = arg_status(count > SIZE_MAX / elem ? RP_ERR_COUNT
                      : indexed && count > (size_t)(RP_NO_HIT - base) ? RP_ERR_COUNT : RP_OK);
    a[1] = arg(count ? p : NULL, count * elem, RP_ARG_IN | RP_ARG_ALIGN);
}

/* Records: present (a status entry, which ends the list when h is NULL), n
 * equal, t, u, v, prim present and aligned.  role: RP_ARG_OUT (closest
 * kernels) or RP_ARG_IN (the normals read them). */
#define ARGS_HITS 6
static inline void args_hits(const rp_hits *h, size_t n, unsigned role, rp_arg *a) {
    static const rp_hits none;
    a[0] = arg_status(h ? RP_OK : RP_ERR_NULL);
    if (!h)
        h = &none;
    size_t fb = n * 4;
    a[1] = arg_status(h->n != n ? RP_ERR_SIZE_MISMATCH : RP_OK);
    a[2] = arg(h->t, fb, role | RP_ARG_ALIGN);
    a[3] = arg(h->u, fb, role | RP_ARG_ALIGN);
    a[4] = arg(h->v, fb, role | RP_ARG_ALIGN);
    a[5] = arg(h->prim, fb, role | RP_ARG_ALIGN);
}

/* The rays' arrays: present, aligned, sized, prepared.  Fills the 11 input
 * spans (tmax included; closest kernels treat it as an output as well). */
rp_status rp_check_rays(const rp_rays *r, span in[11]) {
    if (!r)
        return RP_ERR_NULL;
    rp_arg a[ARGS_RAYS];
    args_rays(r, RP_ARG_IN, a);
    rp_status s = rp_check_args(a, ARGS_RAYS);
    if (s)
        return s;
    for (int k = 0; k < 11; k++) {
        in[k].p = a[1 + k].p;
        in[k].bytes = a[1 + k].bytes;
    }
    return RP_OK;
}

/* The hit record arrays t, u, v, prim as output spans. */
rp_status rp_check_hits(const rp_hits *h, size_t n, span out[4]) {
    rp_arg a[ARGS_HITS];
    args_hits(h, n, RP_ARG_OUT, a);
    rp_status s = rp_check_args(a, ARGS_HITS);
    if (s)
        return s;
    for (int k = 0; k < 4; k++) {
        out[k].p = a[2 + k].p;
        out[k].bytes = a[2 + k].bytes;
    }
    return RP_OK;
}

/* The closest-hit kernels' list: rays (tmax written), active, primitives,
 * records. */
#define ARGS_CLOSEST (ARGS_RAYS + 1 + ARGS_PRIMS + ARGS_HITS)
static inline void args_closest(const rp_rays *rays, const uint8_t *active, const void *prims,
                                size_t count, size_t elem, uint32_t base, const rp_hits *hits,
                                rp_arg *a) {
    args_rays(rays, RP_ARG_OUT, a);
    a[ARGS_RAYS] = arg(active, rays->n, RP_ARG_IN | RP_ARG_OPT);
    args_prims(prims, count, elem, base, 1, a + ARGS_RAYS + 1);
    args_hits(hits, rays->n, RP_ARG_OUT, a + ARGS_RAYS + 1 + ARGS_PRIMS);
}

static RP_COLD rp_status check_closest_exact(const rp_rays *rays, const uint8_t *active,
                                             const void *prims, size_t count, size_t elem,
                                             uint32_t base, const rp_hits *hits) {
    rp_arg a[ARGS_CLOSEST];
    args_closest(rays, active, prims, count, elem, base, hits, a);
    return rp_check_args(a, ARGS_CLOSEST);
}

RP_ALWAYS_INLINE rp_status check_closest(const rp_rays *rays, const uint8_t *active,
                                         const void *prims, size_t count, size_t elem,
                                         uint32_t base, const rp_hits *hits) {
    if (!rays)
        return RP_ERR_NULL;
    if (hits && rays_canonical(rays) && hits_canonical(hits)) {
        /* both from the allocators: the records' t, u, v, prim are one
         * range of their block, in that order */
        rp_arg a[ARGS_RAYS_BLOCK + 1 + ARGS_PRIMS + 2];
        args_rays_block(rays, RP_ARG_OUT, a);
        a[ARGS_RAYS_BLOCK] = arg(active, rays->n, RP_ARG_IN | RP_ARG_OPT);
        args_prims(prims, count, elem, base, 1, a + ARGS_RAYS_BLOCK + 1);
        a[ARGS_RAYS_BLOCK + 1 + ARGS_PRIMS] =
            arg_status(hits->n != rays->n ? RP_ERR_SIZE_MISMATCH : RP_OK);
        a[ARGS_RAYS_BLOCK + 2 + ARGS_PRIMS] = arg(hits->t, padded(hits->n) * 16, RP_ARG_OUT);
        if (args_fast(a, sizeof a / sizeof a[0]))
            return RP_OK;
    } else {
        rp_arg a[ARGS_CLOSEST];
        args_closest(rays, active, prims, count, elem, base, hits, a);
        if (args_fast(a, ARGS_CLOSEST))
            return RP_OK;
    }
    return check_closest_exact(rays, active, prims, count, elem, base, hits);
}

/* ------------------------------------------------------------------ */
/* Batches                                                              */
/* ------------------------------------------------------------------ */

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

#define ARGS_INTERSECT (ARGS_RAYS + 5)
static inline void args_intersect_tail(const rp_rays *rays, const uint8_t *active,
                                       const rp_aabb *box, const uint8_t *hit,
                                       const float *tnear, const float *tfar, rp_arg *a) {
    size_t n = rays->n;
    a[0] = arg(active, n, RP_ARG_IN | RP_ARG_OPT);
    /* hit before box: a NULL one is reported before a misaligned box */
    a[1] = arg(hit, n, RP_ARG_OUT);
    a[2] = arg(box, n ? sizeof *box : 0, RP_ARG_IN | RP_ARG_ALIGN);
    a[3] = arg(tnear, n * 4, RP_ARG_OUT | RP_ARG_OPT | RP_ARG_ALIGN);
    a[4] = arg(tfar, n * 4, RP_ARG_OUT | RP_ARG_OPT | RP_ARG_ALIGN);
}

static RP_COLD rp_status check_intersect_exact(const rp_rays *rays, const uint8_t *active,
                                               const rp_aabb *box, const uint8_t *hit,
                                               const float *tnear, const float *tfar) {
    rp_arg a[ARGS_INTERSECT];
    args_rays(rays, RP_ARG_IN, a);
    args_intersect_tail(rays, active, box, hit, tnear, tfar, a + ARGS_RAYS);
    return rp_check_args(a, ARGS_INTERSECT);
}

rp_status rp_intersect_aabb(const rp_rays *rays, const uint8_t *active,
                            const rp_aabb *box, uint8_t *hit, float *tnear,
                            float *tfar) {
    if (!rays)
        return RP_ERR_NULL;
    int ok;
    if (rays_canonical(rays)) {
        rp_arg a[ARGS_RAYS_BLOCK + 5];
        args_rays_block(rays, RP_ARG_IN, a);
        args_intersect_tail(rays, active, box, hit, tnear, tfar, a + ARGS_RAYS_BLOCK);
        ok = args_fast(a, ARGS_RAYS_BLOCK + 5);
    } else {
        rp_arg a[ARGS_INTERSECT];
        args_rays(rays, RP_ARG_IN, a);
        args_intersect_tail(rays, active, box, hit, tnear, tfar, a + ARGS_RAYS);
        ok = args_fast(a, ARGS_INTERSECT);
    }
    rp_status s = ok ? RP_OK : check_intersect_exact(rays, active, box, hit, tnear, tfar);
    if (!s && rays->n)
        rp_kernels_active()->intersect_aabb(rays, active, box, hit, tnear, tfar);
    return s;
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

#define ARGS_OCCLUDED (ARGS_RAYS + 1 + ARGS_PRIMS + 2)
static inline void args_occluded_tail(const rp_rays *rays, const uint8_t *active,
                                      const rp_triangle *tris, size_t count, unsigned flags,
                                      const uint8_t *occluded, rp_arg *a) {
    a[0] = arg(active, rays->n, RP_ARG_IN | RP_ARG_OPT);
    args_prims(tris, count, sizeof *tris, 0, 0, a + 1);
    a[1 + ARGS_PRIMS] = arg(occluded, rays->n, RP_ARG_OUT);
    a[2 + ARGS_PRIMS] =
        arg_status(flags & ~(RP_CULL_BACKFACE | RP_WATERTIGHT) ? RP_ERR_INVALID : RP_OK);
}

static RP_COLD rp_status check_occluded_exact(const rp_rays *rays, const uint8_t *active,
                                              const rp_triangle *tris, size_t count,
                                              unsigned flags, const uint8_t *occluded) {
    rp_arg a[ARGS_OCCLUDED];
    args_rays(rays, RP_ARG_IN, a);
    args_occluded_tail(rays, active, tris, count, flags, occluded, a + ARGS_RAYS);
    return rp_check_args(a, ARGS_OCCLUDED);
}

rp_status rp_occluded_triangle(const rp_rays *rays, const uint8_t *active,
                               const rp_triangle *tris, size_t count,
                               unsigned flags, uint8_t *occluded) {
    if (!rays)
        return RP_ERR_NULL;
    int ok;
    if (rays_canonical(rays)) {
        rp_arg a[ARGS_RAYS_BLOCK + ARGS_OCCLUDED - ARGS_RAYS];
        args_rays_block(rays, RP_ARG_IN, a);
        args_occluded_tail(rays, active, tris, count, flags, occluded, a + ARGS_RAYS_BLOCK);
        ok = args_fast(a, ARGS_RAYS_BLOCK + ARGS_OCCLUDED - ARGS_RAYS);
    } else {
        rp_arg a[ARGS_OCCLUDED];
        args_rays(rays, RP_ARG_IN, a);
        args_occluded_tail(rays, active, tris, count, flags, occluded, a + ARGS_RAYS);
        ok = args_fast(a, ARGS_OCCLUDED);
    }
    rp_status s = ok ? RP_OK : check_occluded_exact(rays, active, tris, count, flags, occluded);
    if (!s && rays->n && count)
        rp_kernels_active()->occluded_triangle(rays, active, tris, count, flags, occluded);
    return s;
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
    if (args_fast(a, ARGS_NORMALS))
        return RP_OK;
    return rp_check_args(a, ARGS_NORMALS);
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
