/*
 * check.h - how the API layer (src/api/) checks arguments: each entry point
 * describes its call as a list of rp_arg entries {pointer, bytes, role}
 * (internal.h) in the order its statuses are reported, built by the helpers
 * below (the rays, the primitives, the records), and rp_check_args
 * (check.c) decides the status.  In front of it, args_fast() is inlined
 * where a list is built (constant length and roles, so it unrolls into
 * straight-line code and the list never reaches memory) and answers "surely
 * RP_OK" in O(1); anything else goes to rp_check_args, so every status is
 * the exact one.  The layout rp_rays_alloc / rp_hits_alloc give a batch is
 * here too: a batch still laid out that way is known valid inside, and the
 * entry points' fast path for it (kernels.c, with rp_meets below) tests its
 * block as one range, without a list (the expensive part validated once,
 * at allocation).  Everything here is built at the baseline ISA.
 */
#ifndef RP_API_CHECK_H
#define RP_API_CHECK_H

#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__SSE4_1__)
#error "the API layer must be built at the baseline ISA: a wide ISA flag reached it"
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "internal.h"

#if defined(__clang__)
#define RP_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define RP_UNROLL _Pragma("GCC unroll 32")
#else
#define RP_UNROLL
#endif
#if defined(__GNUC__)
#define RP_ALWAYS_INLINE static inline __attribute__((always_inline))
#define RP_NOINLINE __attribute__((noinline))
#else
#define RP_ALWAYS_INLINE static inline
#define RP_NOINLINE
#endif

static inline int rp_aligned4(const void *p) { return ((uintptr_t)p & 3u) == 0; }

static inline rp_arg arg(const void *p, size_t bytes, unsigned role) {
    rp_arg x = {p, bytes, role};
    return x;
}
static inline rp_arg arg_status(rp_status s) { return arg(NULL, (size_t)s, RP_ARG_STATUS); }

/* The fast path in front of rp_check_args: 1 when the list surely passes
 * (rp_check_args would return RP_OK), 0 when rp_check_args must decide
 * (a failing entry, a possible overlap, an absurd size).
 * Overlaps: nothing can overlap when no output has a byte (every output
 * holds n elements); the rays' arrays (RP_ARG_RAYS) all hold n floats, so
 * the written one (tmax) meets another iff their starts are less than
 * n * 4 bytes apart, and the read ones are bounded by one hull: another
 * output that meets the hull goes to rp_check_args. */
RP_ALWAYS_INLINE int args_fast(const rp_arg *a, size_t n) {
    uintptr_t bad = 0, outbytes = 0;
    RP_UNROLL for (size_t k = 0; k < n; k++) {
        uintptr_t p = (uintptr_t)a[k].p;
        unsigned r = a[k].role;
        bad |= (uintptr_t)((p == 0) & (a[k].bytes != 0) & !(r & RP_ARG_OPT));
        bad |= p & ((r & RP_ARG_ALIGN) ? 3u : 0u);
        /* sizes no array can have (n near SIZE_MAX / 4): the sums below
         * could wrap, so rp_check_args decides */
        bad |= (uintptr_t)(!(r & RP_ARG_STATUS) & (a[k].bytes > (SIZE_MAX >> 3)));
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

/* A list's status: args_fast first when fast (a caller's own arrays),
 * else (or when it doubts) the exact rp_check_args. */
RP_ALWAYS_INLINE rp_status rp_check_list(const rp_arg *a, size_t n, int fast) {
    if (fast && args_fast(a, n))
        return RP_OK;
    return rp_check_args(a, n);
}

/* ---- the allocators' layout ---- */

#define RP_PAD_FLOATS 16 /* 64 bytes */

/* floats per array in a block of rp_rays_alloc / rp_hits_alloc: n rounded
 * up to whole 64-byte lines, and to an odd number of them, so that element
 * i of the block's arrays lies in a different set of a 4 KB-per-way L1 data
 * cache for every array (an odd stride in lines is invertible modulo the
 * 64 sets).  With 4096 rays the stride was 16 KB: ray i's 11 floats all fell
 * in one 8-way set and evicted each other. */
static inline size_t rp_padded(size_t n) {
    size_t lines = (n + RP_PAD_FLOATS - 1) / RP_PAD_FLOATS;
    return (lines | 1u) * RP_PAD_FLOATS;
}

/* Whether a batch's k arrays are still those the allocator laid out: array
 * i at block + i * stride, stride = rp_padded(n) floats, the k pointer
 * fields consecutive in the struct from offset `first` (rays_canonical,
 * hits_canonical check that at compile time).  Then they are present,
 * 64-byte aligned and disjoint (each holds n <= stride floats).  On x86 the
 * pointers are compared two at a time in SSE2 vectors (baseline on
 * x86-64), equal where both 32-bit halves are: two branches for the block
 * instead of a compare and a branch per array, which bounded the entry
 * points' short path (about two not-taken branches retire per cycle). */
static inline int rp_canonical(const void *s, const void *block, size_t n, size_t first, int k) {
    if (!block || !n || n > SIZE_MAX / 64)
        return 0;
    uintptr_t b = (uintptr_t)block, st = rp_padded(n) * 4;
    if ((b & 63u) || b > UINTPTR_MAX - (uintptr_t)k * st) /* no array may wrap to NULL */
        return 0;
    const char *f = (const char *)s + first;
    int i = 0;
#if defined(__SSE2__) && UINTPTR_MAX == UINT64_MAX
    __m128i e = _mm_set_epi64x((long long)(b + st), (long long)b);
    const __m128i step = _mm_set1_epi64x((long long)(2 * st));
    __m128i eq = _mm_set1_epi32(-1);
    for (; i + 2 <= k; i += 2) {
        eq = _mm_and_si128(eq, _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(f + 8 * i)), e));
        e = _mm_add_epi64(e, step);
    }
    if (_mm_movemask_epi8(eq) != 0xFFFF)
        return 0;
#endif
    for (; i < k; i++) { /* the rest: a compare and a branch per array */
        uintptr_t p;
        memcpy(&p, f + (size_t)i * sizeof p, sizeof p);
        if (__builtin_expect(p != b + (uintptr_t)i * st, 0))
            return 0;
    }
    return 1;
}

/* rp_rays_alloc's order: ox .. rdz, consecutive in rp_rays */
static inline int rays_canonical(const rp_rays *r) {
    _Static_assert(offsetof(rp_rays, oy) == offsetof(rp_rays, ox) + sizeof(float *) &&
                       offsetof(rp_rays, rdz) == offsetof(rp_rays, ox) + 10 * sizeof(float *),
                   "rp_rays' eleven arrays are consecutive pointers");
    return rp_canonical(r, r->block_, r->n, offsetof(rp_rays, ox), 11);
}
/* rp_hits_alloc's order: t .. nz, consecutive in rp_hits */
static inline int hits_canonical(const rp_hits *h) {
    _Static_assert(offsetof(rp_hits, u) == offsetof(rp_hits, t) + sizeof(float *) &&
                       offsetof(rp_hits, prim) == offsetof(rp_hits, t) + 3 * sizeof(float *) &&
                       offsetof(rp_hits, nz) == offsetof(rp_hits, t) + 6 * sizeof(float *),
                   "rp_hits' seven arrays are consecutive pointers");
    return rp_canonical(h, h->block_, h->n, offsetof(rp_hits, t), 7);
}

/* ---- the fast path for batches still laid out by the allocators ----
 * Tests on a few ranges, no list (in kernels.c, a compare and a branch
 * each): the rays' block R (every array, read or written) and the records'
 * block H stand for their arrays
 * (R and H are wider, so a range that meets neither meets none of them);
 * the other pointers are tested against R, H and each other.  Any doubt
 * (a range that merely touches a block's padding, an input inside a block)
 * goes to the exact path: these answer only "surely RP_OK". */

/* [a, a + na) and [b, b + nb) may share a byte: ranges_overlap (check.c)
 * without its NULL and empty exemptions, so it says "may" more often */
RP_ALWAYS_INLINE uintptr_t rp_meets(uintptr_t a, uintptr_t na, uintptr_t b, uintptr_t nb) {
    return (uintptr_t)((a < b + nb) & (b < a + na));
}
/* the batch is prepared for its n (RP_ERR_NOT_PREPARED otherwise) */
RP_ALWAYS_INLINE uintptr_t rays_unprepared(const rp_rays *r) {
    return (uintptr_t)((r->prepared_ != RP_PREPARED_MAGIC) | (r->prepared_n_ != r->n));
}

/* ---- the lists' parts ---- */

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

/* Primitives: the byte count, index_base + count (indexed kernels), then
 * present and aligned when count > 0. */
#define ARGS_PRIMS 2
static inline void args_prims(const void *p, size_t count, size_t elem, uint32_t base,
                              int indexed, rp_arg *a) {
    a[0] = arg_status(count > SIZE_MAX / elem ? RP_ERR_COUNT
                      : indexed && count > (size_t)(RP_NO_HIT - base) ? RP_ERR_COUNT : RP_OK);
    a[1] = arg(count ? p : NULL, count * elem, RP_ARG_IN | RP_ARG_ALIGN);
}

/* Records: present (when h is NULL the list stops at this status entry;
 * the rest only pads it), n equal, then t, u, v, prim present and aligned.
 * role: RP_ARG_OUT (closest kernels) or RP_ARG_IN (the normals read them). */
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

#endif
